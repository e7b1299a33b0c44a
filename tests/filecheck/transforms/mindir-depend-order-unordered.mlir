// RUN: ms-opt %s -p mindir-depend-order --split-input-file --verify-diagnostics | filecheck %s

// mindir-depend-order's topological sort on blocks written out of order. These
// inputs use values before their definitions: xDSL parses that, MLIR does not, so
// they are not valid MLIR. Like the -invalid files they run with
// --verify-diagnostics (here expecting no error), which also keeps
// tests/passes/test_lowered_iree_valid.py from handing them to iree-opt.

// Depend orders the float-status ops (the docs' example, written out of order):
// alloc, clear, the computation, get.

// CHECK-LABEL: func.func @float_status
// CHECK-NEXT:    %init = mindir.npu_alloc_float_status
// CHECK-NEXT:    %clear = mindir.npu_clear_float_status %init
// CHECK-NEXT:    %x1 = mindir.depend %x, %clear
// CHECK-NEXT:    %neg = mindir.neg %x1
// CHECK-NEXT:    %res = mindir.sub %x1, %neg
// CHECK-NEXT:    %init1 = mindir.depend %init, %res
// CHECK-NEXT:    %get = mindir.npu_get_float_status %init1
// CHECK-NEXT:    %out = mindir.depend %res, %get
// CHECK-NEXT:    func.return %out
func.func @float_status(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %init = mindir.npu_alloc_float_status : tensor<8xf32>
  %x1 = mindir.depend %x, %clear : tensor<2x3xf16>, tensor<8xf32>
  %neg = mindir.neg %x1 : tensor<2x3xf16>
  %res = mindir.sub %x1, %neg : tensor<2x3xf16>
  %get = mindir.npu_get_float_status %init1 : tensor<8xf32>
  %init1 = mindir.depend %init, %res : tensor<8xf32>, tensor<2x3xf16>
  %clear = mindir.npu_clear_float_status %init : tensor<8xf32>
  %out = mindir.depend %res, %get : tensor<2x3xf16>, tensor<8xf32>
  func.return %out : tensor<2x3xf16>
}

// -----

// Side effects keep their relative order (here prints that share one IO state):
// %s moves before the first print, the second print stays after it.
// Values used inside a region count for the op holding the region.

// CHECK-LABEL: func.func @prints
// CHECK-NEXT:    %s = mindir.neg %x
// CHECK-NEXT:    %p1 = mindir.print %s, %io0
// CHECK-NEXT:    %p2 = mindir.print %x, %io0
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func @nested
// CHECK-NEXT:    %y = mindir.exp %x
// CHECK-NEXT:    %r = mindir.if %c -> (tensor<f32>) {
// CHECK-NEXT:      %b = mindir.neg %y
// CHECK-NEXT:      %a = mindir.add %b, %x
// CHECK-NEXT:      mindir.yield %a
func.func @prints(%x: tensor<f32>, %io0: !mindir.io) -> tensor<f32> {
  %p1 = mindir.print %s, %io0 : tensor<f32>
  %p2 = mindir.print %x, %io0 : tensor<f32>
  %s = mindir.neg %x : tensor<f32>
  func.return %x : tensor<f32>
}

func.func @nested(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
  %r = mindir.if %c -> (tensor<f32>) {
    %a = mindir.add %b, %x : tensor<f32>
    %b = mindir.neg %y : tensor<f32>
    mindir.yield %a : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  %y = mindir.exp %x : tensor<f32>
  func.return %r : tensor<f32>
}
