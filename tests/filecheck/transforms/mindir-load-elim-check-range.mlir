// RUN: ms-opt %s --split-input-file -p 'mindir-load-elim{level=2}' | filecheck %s

// mindir.check_range's result is its input once lowered: a consumer reading a
// Load through it and another Load of the Parameter at a later state gets both
// copied (level 2, rule (d)), as through a reshape of the Load.

// CHECK-LABEL: func.func @read_through_a_check
// CHECK:         %x = mindir.load %pp, %u0 : tensor<4xf32>
// CHECK-NEXT:    %[[M:.*]] = mindir.tensor_move %x : tensor<4xf32>
// CHECK-NEXT:    %c = mindir.check_range %[[M]]
// CHECK:         %y = mindir.load %pp, %u2 : tensor<4xf32>
// CHECK-NEXT:    %[[N:.*]] = mindir.tensor_move %y : tensor<4xf32>
// CHECK:         %t = mindir.add %c, %[[N]] : tensor<4xf32>
mindir.parameter @p = dense<0.5> : tensor<4xf32>

func.func @read_through_a_check(%z: tensor<4xf32>, %u0: !mindir.u) -> (tensor<4xf32>, !mindir.u) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<4xf32>>
  %x = mindir.load %pp, %u0 : tensor<4xf32>
  %c = mindir.check_range %x {min = 0.0 : f64, max = 1.0 : f64, message = "m"} : tensor<4xf32>
  %u1 = mindir.update_state %u0, %x, %c : tensor<4xf32>, tensor<4xf32>
  %a = mindir.assign %pp, %z, %u1 : tensor<4xf32>
  %u2 = mindir.update_state %u1, %a : tensor<4xf32>
  %y = mindir.load %pp, %u2 : tensor<4xf32>
  %u3 = mindir.update_state %u2, %y : tensor<4xf32>
  %t = mindir.add %c, %y : tensor<4xf32>
  func.return %t, %u3 : tensor<4xf32>, !mindir.u
}
