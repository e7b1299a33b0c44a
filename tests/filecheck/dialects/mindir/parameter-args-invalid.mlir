// RUN: ms-opt %s --split-input-file --verify-diagnostics

// Arguments bound to Parameters ({mindir.parameter = @w}): each chunk breaks one rule.

mindir.parameter @w = dense<1.0> : tensor<2xf32>
// expected-error @+1 {{'func.func' op argument 0 of @f is bound to @missing, which is not a mindir.parameter}}
func.func @f(%w: !mindir.ref<tensor<2xf32>> {mindir.parameter = @missing}) {
  func.return
}

// -----

mindir.parameter @w = dense<1.0> : tensor<2xf32>
// expected-error @+1 {{'func.func' op argument 0 of @f is bound to @g, which is not a mindir.parameter}}
func.func @f(%w: !mindir.ref<tensor<2xf32>> {mindir.parameter = @g}) {
  func.return
}
func.func @g() {
  func.return
}

// -----

mindir.parameter @w = dense<1.0> : tensor<2xf32>
// expected-error @+1 {{'func.func' op argument 0 of @f is !mindir.ref<tensor<3xf32>> but Parameter @w has type tensor<2xf32>}}
func.func @f(%w: !mindir.ref<tensor<3xf32>> {mindir.parameter = @w}) {
  func.return
}

// -----

mindir.parameter @w = dense<1.0> : tensor<2xf32>
// expected-error @+1 {{'func.func' op argument 0 of @f is bound to Parameter @w but is tensor<2xf32>, not a !mindir.ref}}
func.func @f(%w: tensor<2xf32> {mindir.parameter = @w}) {
  func.return
}

// -----

mindir.parameter @w = dense<1.0> : tensor<2xf32>
// expected-error @+1 {{'func.func' op arguments 0 and 1 of @f are both bound to Parameter @w}}
func.func @f(%a: !mindir.ref<tensor<2xf32>> {mindir.parameter = @w}, %b: !mindir.ref<tensor<2xf32>> {mindir.parameter = @w}) {
  func.return
}

// -----

mindir.parameter @w = dense<1.0> : tensor<2xf32>
// expected-error @+1 {{'func.func' op argument 0 of @f: 'mindir.parameter' must name a mindir.parameter (@name), got "w"}}
func.func @f(%w: !mindir.ref<tensor<2xf32>> {mindir.parameter = "w"}) {
  func.return
}

// -----

// (generic form: xDSL's custom syntax drops a declaration's argument attributes)
mindir.parameter @w = dense<1.0> : tensor<2xf32>
// expected-error @+1 {{'func.func' op argument 0 of @f is bound to @w, but only a graph with a body can be}}
"func.func"() <{sym_name = "f", function_type = (!mindir.ref<tensor<2xf32>>) -> (), sym_visibility = "private", arg_attrs = [{mindir.parameter = @w}]}> ({}) : () -> ()

// -----

mindir.parameter @w = dense<1.0> : tensor<2xf32>
func.func @entry(%w: !mindir.ref<tensor<2xf32>> {mindir.parameter = @w}) {
  func.return
}
func.func @caller() {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  // expected-error @+1 {{'func.call' op @entry takes Parameters as bound arguments ({mindir.parameter = @...}): it is an entry graph and cannot be called}}
  func.call @entry(%p) : (!mindir.ref<tensor<2xf32>>) -> ()
  func.return
}
