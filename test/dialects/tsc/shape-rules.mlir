// RUN: tsc-opt %s --split-input-file --canonicalize | FileCheck %s --check-prefix=FOLD
// RUN: tsc-opt %s --split-input-file --tsc-bind-symbolic-shapes | FileCheck %s --check-prefix=BIND

// Each op's shape rule (ShapeDerivationOpInterface) is written once and read
// two ways: folding tsc.dim follows an answer that is one operand dim or size
// operand (FOLD), tsc-bind-symbolic-shapes reads operand dims as expressions
// of the symbols (BIND).

// A reduce_window's dims are its size operands: tsc.dim folds to the symbol
// (the fold once knew only a reshape's, an expand's and a slice's sizes).
// FOLD-LABEL: func.func @reduce_window_dim_is_its_size
// FOLD:         %[[S:.+]] = tsc.symbol "s"
// FOLD-NOT:     tsc.dim
// FOLD:         return %{{.+}}, %[[S]]
// BIND:       #[[M:.+]] = affine_map<()[s0] -> (s0, 4)>
// BIND-LABEL: func.func @reduce_window_dim_is_its_size
// BIND:         %[[Y:.+]] = tsc.reduce_window
// BIND:         tsc.bind_shape %[[Y]][%{{.+}}], #[[M]]
func.func @reduce_window_dim_is_its_size(%x: tensor<3x4xf32>) -> (tensor<?x4xf32>, index) {
  %w = tsc.symbol "w" [1, 3]
  %s = tsc.symbol "s" [1, 3]
  %c1 = arith.constant 1 : index
  %y = tsc.reduce_window %x window[%w, %c1] sizes[%s, %c1] kind = "max" : (tensor<3x4xf32>) -> tensor<?x4xf32>
  %d = tsc.dim %y, 0 : tensor<?x4xf32>
  return %y, %d : tensor<?x4xf32>, index
}

// -----

// An index reduction without keepdim drops its axis: result dim 1 is input
// dim 2 (the reductions' rule, in their ODS classes).
// FOLD-LABEL: func.func @arg_max_drops_its_axis
// FOLD:         %[[N:.+]] = tsc.symbol "n"
// FOLD-NOT:     tsc.dim
// FOLD:         return %{{.+}}, %[[N]]
// BIND:       #[[M:.+]] = affine_map<()[s0, s1] -> (s0, s1)>
// BIND-LABEL: func.func @arg_max_drops_its_axis
// BIND:         %[[I:.+]] = tsc.arg_max
// BIND:         tsc.bind_shape %[[I]][%{{.+}}, %{{.+}}], #[[M]]
func.func @arg_max_drops_its_axis(%x: tensor<?x10x?xf32>) -> (tensor<?x?xi64>, index) {
  %b = tsc.symbol "b" [1, 8]
  %n = tsc.symbol "n" [1, 64]
  tsc.bind_shape %x[%b, %n], affine_map<()[s0, s1] -> (s0, 10, s1)> : tensor<?x10x?xf32>
  %i = tsc.arg_max %x axis = 1 : (tensor<?x10x?xf32>) -> tensor<?x?xi64>
  %d = tsc.dim %i, 1 : tensor<?x?xi64>
  return %i, %d : tensor<?x?xi64>, index
}

// -----

// The rule answers for the result asked about: top_k's indices, result #1.
// FOLD-LABEL: func.func @top_k_indices
// FOLD:         %[[B:.+]] = tsc.symbol "b"
// FOLD-NOT:     tsc.dim
// FOLD:         return %{{.+}}, %[[B]]
// BIND:       #[[M:.+]] = affine_map<()[s0] -> (s0, 50)>
// BIND-LABEL: func.func @top_k_indices
// BIND:         %[[V:.+]], %[[I:.+]] = tsc.top_k
// BIND-DAG:     tsc.bind_shape %[[V]][%{{.+}}], #[[M]]
// BIND-DAG:     tsc.bind_shape %[[I]][%{{.+}}], #[[M]]
func.func @top_k_indices(%x: tensor<?x32000xf32>) -> (tensor<?x50xi64>, index) {
  %b = tsc.symbol "b" [1, 8]
  tsc.bind_shape %x[%b], affine_map<()[s0] -> (s0, 32000)> : tensor<?x32000xf32>
  %v, %i = tsc.top_k %x k = 50 axis = 1 : (tensor<?x32000xf32>) -> (tensor<?x50xf32>, tensor<?x50xi64>)
  %d = tsc.dim %i, 0 : tensor<?x50xi64>
  return %i, %d : tensor<?x50xi64>, index
}

// -----

// A pooling's batch and channels are its input's; a window count is an
// expression, which the fold does not follow and the binding records.
// FOLD-LABEL: func.func @pool_dims
// FOLD:         %[[B:.+]] = tsc.symbol "b"
// FOLD:         %[[W:.+]] = tsc.dim %{{.+}}, 2
// FOLD:         return %{{.+}}, %[[B]], %[[W]]
// BIND:       #[[M:.+]] = affine_map<()[s0, s1] -> (s0, 3, s1 floordiv 2)>
// BIND-LABEL: func.func @pool_dims
// BIND:         %[[Y:.+]] = tsc.max_pool
// BIND:         tsc.bind_shape %[[Y]][%{{.+}}, %{{.+}}], #[[M]]
func.func @pool_dims(%x: tensor<?x3x?xf32>) -> (tensor<?x3x?xf32>, index, index) {
  %b = tsc.symbol "b" [1, 8]
  %n = tsc.symbol "n" [2, 64]
  tsc.bind_shape %x[%b, %n], affine_map<()[s0, s1] -> (s0, 3, s1)> : tensor<?x3x?xf32>
  %y = tsc.max_pool %x kernel_shape = [2] strides = [2] pads = [0, 0] dilations = [1] : (tensor<?x3x?xf32>) -> tensor<?x3x?xf32>
  %d0 = tsc.dim %y, 0 : tensor<?x3x?xf32>
  %d2 = tsc.dim %y, 2 : tensor<?x3x?xf32>
  return %y, %d0, %d2 : tensor<?x3x?xf32>, index, index
}
