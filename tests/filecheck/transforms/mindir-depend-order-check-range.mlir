// RUN: ms-opt %s -p mindir-depend-order --split-input-file | filecheck %s

// mindir.check_range's result is its input once lowered (the Parameter's buffer
// when it checks a Load): users reached through it also run before the next Assign.

// CHECK-LABEL: func.func @through_a_check
// CHECK:         %x = mindir.load %pp, %u0 : tensor<4xf32>
// CHECK:         %c = mindir.check_range %x
// CHECK:         %t = mindir.log %c : tensor<4xf32>
// CHECK:         %[[U:.*]] = mindir.update_state %u0, %x, %c, %t
// CHECK-NEXT:    %a = mindir.assign %pp, %z, %[[U]] : tensor<4xf32>
mindir.parameter @p = dense<0.5> : tensor<4xf32>

func.func @through_a_check(%z: tensor<4xf32>, %u0: !mindir.u) -> (tensor<4xf32>, !mindir.u) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<4xf32>>
  %x = mindir.load %pp, %u0 : tensor<4xf32>
  %c = mindir.check_range %x {min = 0.0 : f64, max = 1.0 : f64, message = "m"} : tensor<4xf32>
  %u1 = mindir.update_state %u0, %x : tensor<4xf32>
  %a = mindir.assign %pp, %z, %u1 : tensor<4xf32>
  %u2 = mindir.update_state %u1, %a : tensor<4xf32>
  %t = mindir.log %c : tensor<4xf32>
  func.return %t, %u2 : tensor<4xf32>, !mindir.u
}
