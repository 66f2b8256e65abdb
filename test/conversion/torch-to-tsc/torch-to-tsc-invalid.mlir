// RUN: tsc-opt %s --split-input-file --tsc-convert-torch-to-tsc --verify-diagnostics

func.func @split_list_used_as_a_list(%x: tensor<4x6xf32>) -> none {
  %size = tsc.constant dense<3> : tensor<i64>
  %dim = tsc.constant dense<1> : tensor<i64>
  // expected-error-re @+1 {{TorchScript node '{{.*}}' (aten::split): its list of pieces is used other than by unpacking it}}
  %0 = tsc.foreign "aten" "split" version 10 (%x, %size, %dim) {overload = "Tensor"} : (tensor<4x6xf32>, tensor<i64>, tensor<i64>) -> none
  return %0 : none
}

// -----

func.func @dropout_in_training_mode(%x: tensor<4xf32>) -> none {
  %p = tsc.constant dense<0.1> : tensor<f64>
  %t = tsc.constant dense<true> : tensor<i1>
  // expected-error @+1 {{dropout in training mode}}
  %0 = tsc.foreign "aten" "dropout" version 10 (%x, %p, %t) {p = 0.1 : f64, train = true} : (tensor<4xf32>, tensor<f64>, tensor<i1>) -> none
  return %0 : none
}

// -----

// repeat with fewer entries than dims is refused.
func.func @repeat_too_few(%x: tensor<3x4xf32>) -> none {
  %two = tsc.constant dense<2> : tensor<i64>
  %reps = tsc.foreign "prim" "ListConstruct" version 10 (%two) {} : (tensor<i64>) -> none
  // expected-error @+1 {{repeats has 1 entries, fewer than the input's 2 dims}}
  %0 = tsc.foreign "aten" "repeat" version 10 (%x, %reps) {} : (tensor<3x4xf32>, none) -> none
  return %0 : none
}
