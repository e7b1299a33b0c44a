// RUN: ms-opt %s --split-input-file --verify-diagnostics

// Verifier errors of the ascend dialect: each chunk has one wrong op and the
// error it must produce.

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'ascend.kernel' op unknown unit 'gpu', expected one of ('cube', 'vector', 'aicpu', 'comm')}}
  %y = ascend.kernel "Exp" gpu f32 ND (%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
    ascend.yield %a : tensor<2xf32>
  }
  func.return
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'ascend.kernel' op unknown format 'NC1HWC0', expected one of ('ND',)}}
  %y = ascend.kernel "Exp" vector f32 NC1HWC0 (%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
    ascend.yield %a : tensor<2xf32>
  }
  func.return
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'ascend.kernel' op dtype must be a type, got 3 : i64}}
  %y = "ascend.kernel"(%x) <{kernel = "Exp", unit = "vector", dtype = 3 : i64, format = "ND"}> ({
  ^bb0(%a: tensor<2xf32>):
    "ascend.yield"(%a) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}

// -----

// The code yields a value of another type than the kernel's result.
func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'ascend.kernel' op the code yields (tensor<2xf32>) but the kernel gives (tensor<3xf32>)}}
  %y = ascend.kernel "Exp" vector f32 ND (%a = %x) : (tensor<2xf32>) -> tensor<3xf32> {
    ascend.yield %a : tensor<2xf32>
  }
  func.return
}

// -----

// The code yields fewer values than the kernel has results.
func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'ascend.kernel' op the code yields (tensor<2xf32>) but the kernel gives (tensor<2xf32>, tensor<2xf32>)}}
  %y:2 = ascend.kernel "Split" vector f32 ND (%a = %x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    ascend.yield %a : tensor<2xf32>
  }
  func.return
}

// -----

// The code's block arguments must have the inputs' types (generic form only:
// the custom form takes them from the inputs).
func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'ascend.kernel' op the code's arguments must have the inputs' types}}
  %y = "ascend.kernel"(%x) <{kernel = "Exp", unit = "vector", dtype = f32, format = "ND"}> ({
  ^bb0(%a: tensor<3xf32>):
    "ascend.yield"(%a) : (tensor<3xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'ascend.kernel' op a kernel's code must end with ascend.yield}}
  %y = "ascend.kernel"(%x) <{kernel = "Exp", unit = "vector", dtype = f32, format = "ND"}> ({
  ^bb0(%a: tensor<2xf32>):
    %c = "arith.constant"() <{value = 0.0 : f32}> : () -> f32
  }) : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'ascend.yield' op 'ascend.yield' expects parent op 'ascend.kernel'}}
  "ascend.yield"(%x) : (tensor<2xf32>) -> ()
}

// -----

// A kernel writing a Parameter has no results.
ml_program.global private mutable @p(dense<0.0> : tensor<2xf32>) : tensor<2xf32>
func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'ascend.kernel' op a kernel that writes a Parameter yields one value and has no results}}
  %y = ascend.kernel "Assign" vector f32 ND writes @p (%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
    ascend.yield %a : tensor<2xf32>
  }
  func.return
}

// -----

// A kernel writing a Parameter yields exactly one value.
ml_program.global private mutable @p(dense<0.0> : tensor<2xf32>) : tensor<2xf32>
func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'ascend.kernel' op a kernel that writes a Parameter yields one value and has no results}}
  ascend.kernel "Assign" vector f32 ND writes @p (%a = %x) : (tensor<2xf32>) -> () {
    ascend.yield %a, %a : tensor<2xf32>, tensor<2xf32>
  }
  func.return
}

// -----

// Custom-form parse error: one bound input, two input types.
func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{1 inputs but 2 input types}}
  %y = ascend.kernel "Exp" vector f32 ND (%a = %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> {
    ascend.yield %a : tensor<2xf32>
  }
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'ascend.view' op a view keeps the element count: tensor<2x3xf32> has 6, tensor<4xf32> has 4}}
  %v = ascend.view %x : tensor<2x3xf32> -> tensor<4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{'ascend.view' op a view keeps the element type}}
  %v = ascend.view %x : tensor<2xf32> -> tensor<2xi32>
  func.return
}

// -----

// Negative event and stream numbers (generic form: the custom form only
// parses non-negative integers).
func.func @f() {
  // expected-error @+1 {{'ascend.record_event' op event and stream numbers are non-negative}}
  "ascend.record_event"() <{event = -1 : i64, stream = 0 : i64}> : () -> ()
  func.return
}

// -----

func.func @f() {
  // expected-error @+1 {{'ascend.wait_event' op event and stream numbers are non-negative}}
  "ascend.wait_event"() <{event = 0 : i64, stream = -2 : i64}> : () -> ()
  func.return
}

// -----

func.func @f() {
  // expected-error @+1 {{Expected integer literal}}
  ascend.record_event -1 stream 0
  func.return
}
