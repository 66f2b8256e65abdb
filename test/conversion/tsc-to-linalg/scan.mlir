// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg --canonicalize | FileCheck %s

// Scans and top-k: an scf.forall over the slices along the axis (the
// parallel loop), an scf.for along it inside (sequential in one thread),
// on the tensors seen as 1-D arrays.

// A static axis: slice o starts at o * 16 and steps by 1; reverse walks
// 15 - k; exclusive writes the running sum before adding; f16 accumulates
// in f32.
// CHECK-LABEL: func.func @cumsum_static_axis
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16xf16>)
// CHECK-DAG:     %[[C15:.+]] = arith.constant 15 : index
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[FLAT:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<?x16xf16> into tensor<?xf16>
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%{{.+}}) : tensor<?xf16>
// CHECK:         %[[ROWS:.+]] = tensor.dim %[[X]]
// CHECK:         %[[SCAN:.+]] = scf.forall (%[[O:.+]]) in (%[[ROWS]]) shared_outs(%[[OUT:.+]] = %[[EMPTY]]) -> (tensor<?xf16>) {
// CHECK:           %[[START:.+]] = arith.muli %[[O]], %[[C16]] : index
// CHECK:           %[[ROW:.+]] = tensor.extract_slice %[[OUT]][%{{.+}}] [16] [1] : tensor<?xf16> to tensor<16xf16>
// CHECK:           %[[LOOP:.+]]:2 = scf.for %[[K:.+]] = %{{.+}} to %[[C16]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[ZERO]], %[[PIECE:.+]] = %[[ROW]]) -> (f32, tensor<16xf16>) {
// CHECK:             %[[J:.+]] = arith.subi %[[C15]], %[[K]] : index
// CHECK:             %[[POS:.+]] = arith.addi %[[START]], %[[J]] : index
// CHECK:             %[[XJ:.+]] = tensor.extract %[[FLAT]][%[[POS]]] : tensor<?xf16>
// CHECK:             %[[WIDE:.+]] = arith.extf %[[XJ]] : f16 to f32
// CHECK:             %[[NEXT:.+]] = arith.addf %[[ACC]], %[[WIDE]] : f32
// CHECK:             %[[Y:.+]] = arith.truncf %[[ACC]] : f32 to f16
// CHECK:             %[[W:.+]] = tensor.insert %[[Y]] into %[[PIECE]][%[[J]]] : tensor<16xf16>
// CHECK:             scf.yield %[[NEXT]], %[[W]] : f32, tensor<16xf16>
// CHECK:           scf.forall.in_parallel {
// CHECK:             tensor.parallel_insert_slice %[[LOOP]]#1 into %[[OUT]][%{{.+}}] [16] [1]
// CHECK:         %[[RESULT:.+]] = tensor.expand_shape %[[SCAN]] {{\[}}[0, 1]] output_shape [%{{.+}}, 16] : tensor<?xf16> into tensor<?x16xf16>
// CHECK:         return %[[RESULT]]
func.func @cumsum_static_axis(%x: tensor<?x16xf16>) -> tensor<?x16xf16> {
  %c = tsc.cumsum %x axis = 1 exclusive reverse : tensor<?x16xf16>
  return %c : tensor<?x16xf16>
}

// -----

// A run-time axis is read inside the loop, which runs over all 20
// elements; slices past the last one are empty (length 0).
// CHECK-LABEL: func.func @cumprod_runtime_axis
// CHECK-SAME:    (%[[X:.+]]: tensor<4x5xi32>, %[[A:.+]]: tensor<i64>)
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1 : i32
// CHECK:         %[[FLAT:.+]] = tensor.collapse_shape %[[X]]
// CHECK:         scf.forall (%[[O:.+]]) in (20) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<20xi32>) {
// CHECK:           %[[AXIS:.+]] = tensor.extract %[[A]][] : tensor<i64>
// CHECK:           arith.index_cast %[[AXIS]] : i64 to index
// CHECK:           %[[INSIDE:.+]] = arith.cmpi ult, %[[O]], %[[COUNT:.+]] : index
// CHECK:           %[[N:.+]] = arith.select %[[INSIDE]], %{{.+}}, %{{.+}} : index
// CHECK:           %[[START:.+]] = arith.select %[[INSIDE]], %{{.+}}, %{{.+}} : index
// CHECK:           %[[PIECE:.+]] = tensor.extract_slice %[[OUT]][%[[START]]] [%[[N]]] [%[[STRIDE:.+]]] : tensor<20xi32> to tensor<?xi32>
// CHECK:           scf.for %{{.+}} = %{{.+}} to %[[N]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[ONE]], %{{.+}} = %[[PIECE]]) -> (i32, tensor<?xi32>) {
// CHECK:             %[[XJ:.+]] = tensor.extract %[[FLAT]]
// CHECK:             %[[NEXT:.+]] = arith.muli %[[ACC]], %[[XJ]] : i32
// CHECK:             tensor.insert %[[NEXT]]
// CHECK:           tensor.parallel_insert_slice %{{.+}} into %[[OUT]][%[[START]]] [%[[N]]] [%[[STRIDE]]]
func.func @cumprod_runtime_axis(%x: tensor<4x5xi32>, %a: tensor<i64>) -> tensor<4x5xi32> {
  %c = tsc.cumprod %x runtime_axis %a : tensor<4x5xi32>, tensor<i64>
  return %c : tensor<4x5xi32>
}

// -----

// Top-k: k passes over the slice, each keeping the best element after the
// previous pick (-1: none yet) in (value, position) order.
// CHECK-LABEL: func.func @top_k_smallest
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16xf32>)
// CHECK-DAG:     %[[NONE:.+]] = arith.constant -1 : index
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK:         %[[FLAT:.+]] = tensor.collapse_shape %[[X]]
// CHECK:         %[[SEL:.+]]:2 = scf.forall (%{{.+}}) in (%{{.+}}) shared_outs(%[[V:.+]] = %{{.+}}, %[[I:.+]] = %{{.+}}) -> (tensor<?xf32>, tensor<?xi64>) {
// CHECK:           %[[VS:.+]] = tensor.extract_slice %[[V]][%{{.+}}] [3] [1] : tensor<?xf32> to tensor<3xf32>
// CHECK:           %[[IS:.+]] = tensor.extract_slice %[[I]][%{{.+}}] [3] [1] : tensor<?xi64> to tensor<3xi64>
// CHECK:           %[[PICKS:.+]]:4 = scf.for %[[T:.+]] = %{{.+}} to %[[C3]] step %{{.+}} iter_args(%[[VA:.+]] = %[[VS]], %[[IA:.+]] = %[[IS]], %[[PREV:.+]] = %{{.+}}, %[[PREVI:.+]] = %[[NONE]])
// CHECK:             %[[BEST:.+]]:2 = scf.for %[[J:.+]] = %{{.+}} to %[[C16]] step %{{.+}} iter_args(%[[BV:.+]] = %{{.+}}, %[[BI:.+]] = %[[NONE]]) -> (f32, index) {
// CHECK:               %[[XJ:.+]] = tensor.extract %[[FLAT]]
// CHECK:               %[[FIRST:.+]] = arith.cmpi eq, %[[PREVI]], %[[NONE]] : index
// CHECK:               arith.cmpf olt, %[[PREV]], %[[XJ]] : f32
// CHECK:               %[[ELIGIBLE:.+]] = arith.ori %[[FIRST]], %{{.+}} : i1
// CHECK:               %[[NOBEST:.+]] = arith.cmpi eq, %[[BI]], %[[NONE]] : index
// CHECK:               arith.cmpf olt, %[[XJ]], %[[BV]] : f32
// CHECK:               %[[BETTER:.+]] = arith.ori %[[NOBEST]], %{{.+}} : i1
// CHECK:               %[[TAKE:.+]] = arith.andi %[[ELIGIBLE]], %[[BETTER]] : i1
// CHECK:               arith.select %[[TAKE]], %[[XJ]], %[[BV]] : f32
// CHECK:               arith.select %[[TAKE]], %[[J]], %[[BI]] : index
// CHECK:             tensor.insert %[[BEST]]#0 into %[[VA]][%[[T]]] : tensor<3xf32>
// CHECK:             %[[POS:.+]] = arith.index_cast %[[BEST]]#1 : index to i64
// CHECK:             tensor.insert %[[POS]] into %[[IA]][%[[T]]] : tensor<3xi64>
// CHECK:         %[[VALUES:.+]] = tensor.expand_shape %[[SEL]]#0
// CHECK:         %[[INDICES:.+]] = tensor.expand_shape %[[SEL]]#1
// CHECK:         return %[[VALUES]], %[[INDICES]]
func.func @top_k_smallest(%x: tensor<?x16xf32>) -> (tensor<?x3xf32>, tensor<?x3xi64>) {
  %v, %i = tsc.top_k %x k = 3 axis = 1 smallest : (tensor<?x16xf32>) -> (tensor<?x3xf32>, tensor<?x3xi64>)
  return %v, %i : tensor<?x3xf32>, tensor<?x3xi64>
}
