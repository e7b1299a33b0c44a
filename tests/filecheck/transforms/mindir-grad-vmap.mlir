// RUN: ms-opt %s -p 'mindir-grad{vmap=true},mindir-vmap' --split-input-file | filecheck %s
// RUN: ms-opt %s -p 'mindir-grad{vmap=true}' --split-input-file | filecheck %s --check-prefix=GRAD

// Grad of vmap: with vmap=true, mindir-grad batches a vmap inside a grad first
// (here in_axes 1: the columns, moved to axis 0 by a transpose), then
// differentiates the batched ops; the adjoint goes back through the transpose.
// d/dx sum(sin(x) * x) = sin(x) + x * cos(x).

// CHECK-LABEL: func.func @grad_of_vmap
// CHECK-NEXT:    %0 = mindir.transpose %a {perm = array<i64: 1, 0>} : (tensor<3x5xf32>) -> tensor<5x3xf32>
// CHECK-NEXT:    %s = mindir.sin %0 : tensor<5x3xf32>
// CHECK-NEXT:    %m = mindir.mul %s, %0 : tensor<5x3xf32>
// CHECK-NEXT:    %t = mindir.reduce_sum %m
// CHECK-NEXT:    %1 = mindir.cos %0 : tensor<5x3xf32>
// CHECK-NEXT:    %2 = mindir.mul %0, %1 : tensor<5x3xf32>
// CHECK-NEXT:    %3 = mindir.add %s, %2 : tensor<5x3xf32>
// CHECK-NEXT:    %g = mindir.transpose %3 {perm = array<i64: 1, 0>} : (tensor<5x3xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    func.return %g : tensor<3x5xf32>
// CHECK-NOT:     mindir.vmap
func.func @grad_of_vmap(%a: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %g = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<3x5xf32>) -> tensor<3x5xf32> {
    %v = mindir.vmap (%c = %x) in_axes [1] out_axes [0] : (tensor<3x5xf32>) -> tensor<5x3xf32> {
      %s = mindir.sin %c : tensor<3xf32>
      %m = mindir.mul %s, %c : tensor<3xf32>
      mindir.yield %m : tensor<3xf32>
    }
    %t = mindir.reduce_sum %v : (tensor<5x3xf32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  }
  func.return %g : tensor<3x5xf32>
}

// -----

// grad(vmap(grad(f))), three rounds: the inner grad (no vmap in it) is expanded
// to 3y^2, the vmap (no grad left in it) batched, then the outer grad gives
// d/da sum(3a^2) = 6a (six adds of a).

// GRAD-LABEL:  func.func @grad_vmap_grad
// GRAD-NOT:      mindir.vmap
// GRAD-NOT:      mindir.grad
// CHECK-LABEL: func.func @grad_vmap_grad
// CHECK-NOT:     mindir.grad
// CHECK-NOT:     mindir.vmap
// CHECK:         %d = mindir.add %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    %t = mindir.reduce_sum %d
// CHECK-NEXT:    %3 = mindir.add %a, %a : tensor<4xf32>
// CHECK-NEXT:    %4 = mindir.add %3, %a : tensor<4xf32>
// CHECK-NEXT:    %5 = mindir.add %4, %a : tensor<4xf32>
// CHECK-NEXT:    %6 = mindir.add %5, %a : tensor<4xf32>
// CHECK-NEXT:    %g = mindir.add %6, %a : tensor<4xf32>
// CHECK-NEXT:    func.return %g : tensor<4xf32>
func.func @grad_vmap_grad(%a: tensor<4xf32>) -> tensor<4xf32> {
  %g = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<4xf32>) -> tensor<4xf32> {
    %v = mindir.vmap (%e = %x) in_axes [0] out_axes [0] : (tensor<4xf32>) -> tensor<4xf32> {
      %d = mindir.grad (%y = %e) wrt [0] weights [] : (tensor<f32>) -> tensor<f32> {
        %yy = mindir.mul %y, %y : tensor<f32>
        %c = mindir.mul %yy, %y : tensor<f32>
        mindir.yield %c : tensor<f32>
      }
      mindir.yield %d : tensor<f32>
    }
    %t = mindir.reduce_sum %v : (tensor<4xf32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  }
  func.return %g : tensor<4xf32>
}

// -----

// A vmap outside every grad is left to mindir-vmap (mindir-grad{vmap=true} alone
// keeps it); the grad inside it is expanded (vmap of grad).

// GRAD-LABEL:  func.func @vmap_of_grad
// GRAD-NOT:      mindir.grad
// GRAD:          mindir.vmap
// GRAD-NOT:      mindir.grad
// CHECK-LABEL: func.func @vmap_of_grad
// CHECK-NOT:     mindir.vmap
// CHECK:         %[[D:.*]] = mindir.add %a, %a : tensor<4xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<4xf32>
func.func @vmap_of_grad(%a: tensor<4xf32>) -> tensor<4xf32> {
  %v = mindir.vmap (%e = %a) in_axes [0] out_axes [0] : (tensor<4xf32>) -> tensor<4xf32> {
    %d = mindir.grad (%y = %e) wrt [0] weights [] : (tensor<f32>) -> tensor<f32> {
      %yy = mindir.mul %y, %y : tensor<f32>
      mindir.yield %yy : tensor<f32>
    }
    mindir.yield %d : tensor<f32>
  }
  func.return %v : tensor<4xf32>
}

// -----

// A grad reusing a forward that ran before it (reused_forward.py) whose slice holds
// a vmap: the vmap is batched first, then the slice is differentiated where it is.

// CHECK-LABEL: func.func @reused_forward
// CHECK-NEXT:    %s = mindir.sin %a : tensor<4x3xf32>
// CHECK-NEXT:    %t = mindir.reduce_sum %s
// CHECK-NEXT:    %g = mindir.cos %a : tensor<4x3xf32>
// CHECK-NEXT:    func.return %t, %g
func.func @reused_forward(%a: tensor<4x3xf32>) -> (tensor<f32>, tensor<4x3xf32>) {
  %v = mindir.vmap (%c = %a) in_axes [0] out_axes [0] : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %s = mindir.sin %c : tensor<3xf32>
    mindir.yield %s : tensor<3xf32>
  }
  %t = mindir.reduce_sum %v : (tensor<4x3xf32>) -> tensor<f32>
  %g:2 = mindir.grad (%x = %a) wrt [0] weights [] value : (tensor<4x3xf32>) -> (tensor<f32>, tensor<4x3xf32>) {
    mindir.yield %t : tensor<f32>
  }
  func.return %g#0, %g#1 : tensor<f32>, tensor<4x3xf32>
}
