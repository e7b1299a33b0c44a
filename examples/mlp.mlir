// A two-layer perceptron with a softmax cross-entropy-like score, written in mindir.
// examples/mindir_demo.py parses this file, lowers it to tensor-level MLIR and runs it
// on the CPU; by hand: ms-opt examples/mlp.mlir -p lower-to-tensor | ms-run - --entry Net_construct ...
func.func @Net_construct(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>,
                         %w2: tensor<16x3xf32>, %b2: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<f32>) {
  %h0 = mindir.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %h1 = mindir.add %h0, %b1 : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %h = mindir.relu %h1 : tensor<4x16xf32>
  %l0 = mindir.matmul %h, %w2 : (tensor<4x16xf32>, tensor<16x3xf32>) -> tensor<4x3xf32>
  %logits = mindir.add %l0, %b2 : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %m = mindir.reduce_max %logits {axis = array<i64: 1>, keep_dims = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  %z = mindir.sub %logits, %m : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  %e = mindir.exp %z : tensor<4x3xf32>
  %s = mindir.reduce_sum %e {axis = array<i64: 1>, keep_dims = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  %lse = mindir.log %s : tensor<4x1xf32>
  %score = mindir.reduce_mean %lse : (tensor<4x1xf32>) -> tensor<f32>
  func.return %logits, %score : tensor<4x3xf32>, tensor<f32>
}
