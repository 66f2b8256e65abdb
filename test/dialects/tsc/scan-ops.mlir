// RUN: tsc-opt %s --split-input-file | tsc-opt --split-input-file | FileCheck %s

// Round trip of the scan family: the product reduction, arg max/min,
// cumulative scans with a static or run-time axis, and top-k.

// CHECK-LABEL: func.func @reduce_prod_and_arg_reductions
// CHECK-SAME:    (%[[X:.+]]: tensor<?x10xf32>)
// CHECK:         %[[P:.+]] = tsc.reduce_prod %[[X]] dims = [1] keepdim : (tensor<?x10xf32>) -> tensor<?x1xf32>
// CHECK:         %[[MAX:.+]] = tsc.arg_max %[[X]] axis = 1 keepdim select_last_index : (tensor<?x10xf32>) -> tensor<?x1xi64>
// CHECK:         %[[MIN:.+]] = tsc.arg_min %[[X]] axis = 0 : (tensor<?x10xf32>) -> tensor<10xi64>
// CHECK:         return %[[P]], %[[MAX]], %[[MIN]]
func.func @reduce_prod_and_arg_reductions(%x: tensor<?x10xf32>)
    -> (tensor<?x1xf32>, tensor<?x1xi64>, tensor<10xi64>) {
  %p = tsc.reduce_prod %x dims = [1] keepdim : (tensor<?x10xf32>) -> tensor<?x1xf32>
  %i = tsc.arg_max %x axis = 1 keepdim select_last_index : (tensor<?x10xf32>) -> tensor<?x1xi64>
  %j = tsc.arg_min %x axis = 0 : (tensor<?x10xf32>) -> tensor<10xi64>
  return %p, %i, %j : tensor<?x1xf32>, tensor<?x1xi64>, tensor<10xi64>
}

// -----

// CHECK-LABEL: func.func @scans
// CHECK-SAME:    (%[[X:.+]]: tensor<?x128xf32>, %[[Y:.+]]: tensor<2x3xi32>, %[[A:.+]]: tensor<i64>)
// CHECK:         %[[S:.+]] = tsc.cumsum %[[X]] axis = 1 exclusive : tensor<?x128xf32>
// CHECK:         %[[P:.+]] = tsc.cumprod %[[Y]] runtime_axis %[[A]] reverse : tensor<2x3xi32>, tensor<i64>
// CHECK:         return %[[S]], %[[P]]
func.func @scans(%x: tensor<?x128xf32>, %y: tensor<2x3xi32>, %a: tensor<i64>)
    -> (tensor<?x128xf32>, tensor<2x3xi32>) {
  %s = tsc.cumsum %x axis = 1 exclusive : tensor<?x128xf32>
  %p = tsc.cumprod %y runtime_axis %a reverse : tensor<2x3xi32>, tensor<i64>
  return %s, %p : tensor<?x128xf32>, tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @top_k
// CHECK-SAME:    (%[[X:.+]]: tensor<?x32000xf32>)
// CHECK:         %[[V:.+]], %[[I:.+]] = tsc.top_k %[[X]] k = 50 axis = 1 : (tensor<?x32000xf32>) -> (tensor<?x50xf32>, tensor<?x50xi64>)
// CHECK:         %{{.+}}, %[[J:.+]] = tsc.top_k %[[X]] k = 2 axis = 0 smallest : (tensor<?x32000xf32>) -> (tensor<2x32000xf32>, tensor<2x32000xi64>)
// CHECK:         return %[[V]], %[[I]], %[[J]]
func.func @top_k(%x: tensor<?x32000xf32>)
    -> (tensor<?x50xf32>, tensor<?x50xi64>, tensor<2x32000xi64>) {
  %v, %i = tsc.top_k %x k = 50 axis = 1 : (tensor<?x32000xf32>) -> (tensor<?x50xf32>, tensor<?x50xi64>)
  %w, %j = tsc.top_k %x k = 2 axis = 0 smallest : (tensor<?x32000xf32>) -> (tensor<2x32000xf32>, tensor<2x32000xi64>)
  return %v, %i, %j : tensor<?x50xf32>, tensor<?x50xi64>, tensor<2x32000xi64>
}

