// RUN: ms-opt %s -p mindir-cf-to-select --split-input-file | filecheck %s
// RUN: ms-opt %s -p 'mindir-cf-to-select{max-branch-ops=1}' --split-input-file | filecheck %s --check-prefix=ONE
// RUN: ms-opt %s -p 'mindir-cf-to-select{max-branch-elements=16}' --split-input-file | filecheck %s --check-prefix=SMALL
// RUN: ms-opt %s -p mindir-cf-to-select --split-input-file --print-debuginfo | filecheck %s --check-prefix=LOC

// The docs' if_net body: both branches move before the if, in order, and a select
// picks; the condition reshaped from tensor<1xi1> is selected on directly.
// With max-branch-ops=1 it still converts (one op per branch).

// CHECK-LABEL: func.func @if_net_step
// CHECK-NEXT:    %c = mindir.less %x, %y : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
// CHECK-NEXT:    %c0 = mindir.reshape %c : (tensor<1xi1>) -> tensor<i1>
// CHECK-NEXT:    %a = mindir.sub %x, %y : tensor<1xi64>
// CHECK-NEXT:    %b = mindir.add %x, %y : tensor<1xi64>
// CHECK-NEXT:    %r = mindir.select %c, %a, %b : (tensor<1xi1>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
// CHECK-NEXT:    func.return %r : tensor<1xi64>
// ONE-LABEL:   func.func @if_net_step
// ONE:           mindir.select
// ONE-NOT:       mindir.if

// LOC-LABEL: func.func @if_net_step
// LOC:         %a = mindir.sub %x, %y : tensor<1xi64> loc("{{.*}}":[[# @LINE + 8]]:5)
// LOC:         %b = mindir.add %x, %y : tensor<1xi64> loc("{{.*}}":[[# @LINE + 10]]:5)
// LOC:         %r = mindir.select {{.*}} loc("{{.*}}":[[# @LINE + 5]]:3)

func.func @if_net_step(%x: tensor<1xi64>, %y: tensor<1xi64>) -> tensor<1xi64> {
  %c = mindir.less %x, %y : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
  %c0 = mindir.reshape %c : (tensor<1xi1>) -> tensor<i1>
  %r = mindir.if %c0 -> (tensor<1xi64>) {
    %a = mindir.sub %x, %y : tensor<1xi64>
    mindir.yield %a : tensor<1xi64>
  } else {
    %b = mindir.add %x, %y : tensor<1xi64>
    mindir.yield %b : tensor<1xi64>
  }
  func.return %r : tensor<1xi64>
}

// -----

// Several results, one of them a tuple: selected leaf by leaf. A result both
// branches yield as the same value needs no select. Constants are free.
// A 0-d result keeps the scalar condition (selecting on tensor<1xi1> would give
// tensor<1xf32>).

// CHECK-LABEL: func.func @several
// CHECK-NEXT:    %a = mindir.neg %x : tensor<f32>
// CHECK-NEXT:    %one = mindir.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %t = mindir.make_tuple %a, %one : (tensor<f32>, tensor<f32>) -> tuple<tensor<f32>, tensor<f32>>
// CHECK-NEXT:    %b = mindir.exp %x : tensor<f32>
// CHECK-NEXT:    %u = mindir.make_tuple %x, %b : (tensor<f32>, tensor<f32>) -> tuple<tensor<f32>, tensor<f32>>
// CHECK-NEXT:    %{{.*}} = mindir.select %c, %a, %b : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %{{.*}} = mindir.tuple_get_item %t {index = 0 : i64}
// CHECK-NEXT:    %{{.*}} = mindir.tuple_get_item %u {index = 0 : i64}
// CHECK-NEXT:    %{{.*}} = mindir.select %c
// CHECK-NEXT:    %{{.*}} = mindir.tuple_get_item %t {index = 1 : i64}
// CHECK-NEXT:    %{{.*}} = mindir.tuple_get_item %u {index = 1 : i64}
// CHECK-NEXT:    %{{.*}} = mindir.select %c
// CHECK-NEXT:    %[[T:.*]] = mindir.make_tuple
// CHECK-NEXT:    func.return %{{.*}}, %[[T]], %x :
// ONE-LABEL:   func.func @several
// ONE:           mindir.select
// ONE-NOT:       mindir.if

func.func @several(%c: tensor<i1>, %x: tensor<f32>) -> (tensor<f32>, tuple<tensor<f32>, tensor<f32>>, tensor<f32>) {
  %r:3 = mindir.if %c -> (tensor<f32>, tuple<tensor<f32>, tensor<f32>>, tensor<f32>) {
    %a = mindir.neg %x : tensor<f32>
    %one = mindir.constant dense<1.0> : tensor<f32>
    %t = mindir.make_tuple %a, %one : (tensor<f32>, tensor<f32>) -> tuple<tensor<f32>, tensor<f32>>
    mindir.yield %a, %t, %x : tensor<f32>, tuple<tensor<f32>, tensor<f32>>, tensor<f32>
  } else {
    %b = mindir.exp %x : tensor<f32>
    %u = mindir.make_tuple %x, %b : (tensor<f32>, tensor<f32>) -> tuple<tensor<f32>, tensor<f32>>
    mindir.yield %b, %u, %x : tensor<f32>, tuple<tensor<f32>, tensor<f32>>, tensor<f32>
  }
  func.return %r#0, %r#1, %r#2 : tensor<f32>, tuple<tensor<f32>, tensor<f32>>, tensor<f32>
}

// -----

// Nested ifs, from the inside out: the inner if becomes a select inside the outer
// then-branch, which then has 3 ops and converts too (not with max-branch-ops=1:
// there only the inner one converts).

// CHECK-LABEL: func.func @nested
// CHECK-NOT:     mindir.if
// CHECK:         %n = mindir.neg %x
// CHECK-NEXT:    %e = mindir.exp %x
// CHECK-NEXT:    %[[IN:.*]] = mindir.select %d, %n, %e
// CHECK-NEXT:    %m = mindir.mul %[[IN]], %x
// CHECK-NEXT:    %[[OUT:.*]] = mindir.select %c, %m, %x
// CHECK-NEXT:    func.return %[[OUT]]
// ONE-LABEL:   func.func @nested
// ONE-NEXT:      %r = mindir.if %c
// ONE-NEXT:        %n = mindir.neg %x
// ONE-NEXT:        %e = mindir.exp %x
// ONE-NEXT:        %{{.*}} = mindir.select %d, %n, %e
// ONE-NEXT:        %m = mindir.mul

func.func @nested(%c: tensor<i1>, %d: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mindir.if %c -> (tensor<4xf32>) {
    %i = mindir.if %d -> (tensor<4xf32>) {
      %n = mindir.neg %x : tensor<4xf32>
      mindir.yield %n : tensor<4xf32>
    } else {
      %e = mindir.exp %x : tensor<4xf32>
      mindir.yield %e : tensor<4xf32>
    }
    %m = mindir.mul %i, %x : tensor<4xf32>
    mindir.yield %m : tensor<4xf32>
  } else {
    mindir.yield %x : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// Too large: 9 ops in the then-branch against the default 8. The element limit:
// 16 elements in all per branch; each op here makes 4.

// CHECK-LABEL: func.func @too_many_ops
// CHECK:         mindir.if
// SMALL-LABEL: func.func @too_many_ops
// SMALL:         mindir.if

func.func @too_many_ops(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mindir.if %c -> (tensor<4xf32>) {
    %0 = mindir.neg %x : tensor<4xf32>
    %1 = mindir.neg %0 : tensor<4xf32>
    %2 = mindir.neg %1 : tensor<4xf32>
    %3 = mindir.neg %2 : tensor<4xf32>
    %4 = mindir.neg %3 : tensor<4xf32>
    %5 = mindir.neg %4 : tensor<4xf32>
    %6 = mindir.neg %5 : tensor<4xf32>
    %7 = mindir.neg %6 : tensor<4xf32>
    %8 = mindir.neg %7 : tensor<4xf32>
    mindir.yield %8 : tensor<4xf32>
  } else {
    mindir.yield %x : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// 5 ops of 4 elements: within the op limit, over an element limit of 16.

// CHECK-LABEL: func.func @many_elements
// CHECK-NOT:     mindir.if
// SMALL-LABEL: func.func @many_elements
// SMALL:         mindir.if

func.func @many_elements(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mindir.if %c -> (tensor<4xf32>) {
    %0 = mindir.neg %x : tensor<4xf32>
    %1 = mindir.neg %0 : tensor<4xf32>
    %2 = mindir.neg %1 : tensor<4xf32>
    %3 = mindir.neg %2 : tensor<4xf32>
    %4 = mindir.neg %3 : tensor<4xf32>
    mindir.yield %4 : tensor<4xf32>
  } else {
    mindir.yield %x : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// Side effects keep the if: an assign (the if carries the memory state), a print
// (the io state), a Load of a Parameter that something assigns. A Load of a
// Parameter nothing assigns reads the same value early: converted.

mindir.parameter @w = dense<1.0> : tensor<f32>
mindir.parameter @ro = dense<2.0> : tensor<f32>

// CHECK-LABEL: func.func @assigns
// CHECK:         mindir.if
// CHECK:         mindir.assign
func.func @assigns(%c: tensor<i1>, %x: tensor<f32>, %u: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %r, %u2 = mindir.if %c -> (tensor<f32>, !mindir.u) {
    %a = mindir.assign %p, %x, %u : tensor<f32>
    %u1 = mindir.update_state %u, %a : tensor<f32>
    mindir.yield %a, %u1 : tensor<f32>, !mindir.u
  } else {
    mindir.yield %x, %u : tensor<f32>, !mindir.u
  }
  func.return %r, %u2 : tensor<f32>, !mindir.u
}

// CHECK-LABEL: func.func @prints
// CHECK:         mindir.if
// CHECK:         mindir.print
func.func @prints(%c: tensor<i1>, %x: tensor<f32>, %io: !mindir.io) -> (tensor<f32>, !mindir.io) {
  %r, %io2 = mindir.if %c -> (tensor<f32>, !mindir.io) {
    %io1 = mindir.print %x, %io : tensor<f32>
    mindir.yield %x, %io1 : tensor<f32>, !mindir.io
  } else {
    %n = mindir.neg %x : tensor<f32>
    mindir.yield %n, %io : tensor<f32>, !mindir.io
  }
  func.return %r, %io2 : tensor<f32>, !mindir.io
}

// CHECK-LABEL: func.func @loads_written
// CHECK:         mindir.if
// CHECK:         mindir.load
func.func @loads_written(%c: tensor<i1>, %x: tensor<f32>, %u: !mindir.u) -> tensor<f32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %r = mindir.if %c -> (tensor<f32>) {
    %l = mindir.load %p, %u : tensor<f32>
    mindir.yield %l : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// CHECK-LABEL: func.func @loads_read_only
// CHECK-NEXT:    %p = mindir.get_parameter @ro
// CHECK-NEXT:    %l = mindir.load %p, %u : tensor<f32>
// CHECK-NEXT:    %{{.*}} = mindir.select %c, %l, %x
func.func @loads_read_only(%c: tensor<i1>, %x: tensor<f32>, %u: !mindir.u) -> tensor<f32> {
  %p = mindir.get_parameter @ro : !mindir.ref<tensor<f32>>
  %r = mindir.if %c -> (tensor<f32>) {
    %l = mindir.load %p, %u : tensor<f32>
    mindir.yield %l : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// -----

// A while in a branch keeps the if (it might not terminate when run for nothing).

// CHECK-LABEL: func.func @has_while
// CHECK:         mindir.if
func.func @has_while(%c: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = mindir.if %c -> (tensor<f32>) {
    %w = mindir.while (%v = %x) : (tensor<f32>) -> tensor<f32> {
      %k = mindir.less %v, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>
      mindir.condition(%k : tensor<i1>) %v : tensor<f32>
    } do {
    ^bb0(%v2: tensor<f32>):
      mindir.yield %v2 : tensor<f32>
    }
    mindir.yield %w : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// -----

// The float-status runtime reads an overflow flag that an untaken branch could
// raise: a module using it is left alone.

// CHECK-LABEL: func.func @float_status
// CHECK:         mindir.if
func.func @float_status(%c: tensor<i1>, %x: tensor<f32>) -> (tensor<f32>, tensor<8xf32>) {
  %s = mindir.npu_alloc_float_status : tensor<8xf32>
  %r = mindir.if %c -> (tensor<f32>) {
    %e = mindir.exp %x : tensor<f32>
    mindir.yield %e : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  %g = mindir.npu_get_float_status %s : tensor<8xf32>
  func.return %r, %g : tensor<f32>, tensor<8xf32>
}

// -----

// A loop's record: an if yielding one keeps its if (the two sides may differ in
// capacity), and so does an if whose branch reads one (the slot may be defined only
// when the condition holds).

// CHECK-LABEL: func.func @record_result
// CHECK:         %r = mindir.if %c -> (tensor<?x3xf32>) {
// CHECK-NOT:     mindir.select
func.func @record_result(%c: tensor<i1>, %s: tensor<?x3xf32>, %k: tensor<i64>, %x: tensor<3xf32>) -> tensor<?x3xf32> {
  %r = mindir.if %c -> (tensor<?x3xf32>) {
    %p = mindir.stack_push %s, %k, %x : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
    mindir.yield %p : tensor<?x3xf32>
  } else {
    mindir.yield %s : tensor<?x3xf32>
  }
  func.return %r : tensor<?x3xf32>
}

// CHECK-LABEL: func.func @record_read
// CHECK:         %r = mindir.if %c -> (tensor<3xf32>) {
// CHECK-NEXT:      %y = mindir.stack_read %s, %k
// CHECK-NOT:     mindir.select
func.func @record_read(%c: tensor<i1>, %s: tensor<?x3xf32>, %k: tensor<i64>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %r = mindir.if %c -> (tensor<3xf32>) {
    %y = mindir.stack_read %s, %k : (tensor<?x3xf32>, tensor<i64>) -> tensor<3xf32>
    mindir.yield %y : tensor<3xf32>
  } else {
    mindir.yield %x : tensor<3xf32>
  }
  func.return %r : tensor<3xf32>
}
