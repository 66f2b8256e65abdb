// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg --canonicalize | FileCheck %s

// Scans and top-k: an scf.forall over the slices along the axis (the
// parallel loop), an scf.for along it inside (sequential in one thread),
// each iteration writing its slice of the result in place.

// A constant axis: the slices are the rows; reverse walks 15 - k;
// exclusive writes the running sum before adding; f16 accumulates in f32.
// CHECK-LABEL: func.func @cumsum_static_axis
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16xf16>)
// CHECK-DAG:     %[[C15:.+]] = arith.constant 15 : index
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[ROWS:.+]] = tensor.dim %[[X]]
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%[[ROWS]]) : tensor<?x16xf16>
// CHECK:         %[[SCAN:.+]] = scf.forall (%[[O:.+]]) in (%[[ROWS]]) shared_outs(%[[OUT:.+]] = %[[EMPTY]]) -> (tensor<?x16xf16>) {
// CHECK:           %[[ROW:.+]] = tensor.extract_slice %[[OUT]][%[[O]], 0] [1, 16] [1, 1] : tensor<?x16xf16> to tensor<1x16xf16>
// CHECK:           %[[LOOP:.+]]:2 = scf.for %[[K:.+]] = %{{.+}} to %[[C16]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[ZERO]], %[[PIECE:.+]] = %[[ROW]]) -> (f32, tensor<1x16xf16>) {
// CHECK:             %[[J:.+]] = arith.subi %[[C15]], %[[K]] : index
// CHECK:             %[[XJ:.+]] = tensor.extract %[[X]][%[[O]], %[[J]]] : tensor<?x16xf16>
// CHECK:             %[[WIDE:.+]] = arith.extf %[[XJ]] : f16 to f32
// CHECK:             %[[NEXT:.+]] = arith.addf %[[ACC]], %[[WIDE]] : f32
// CHECK:             %[[Y:.+]] = arith.truncf %[[ACC]] : f32 to f16
// CHECK:             %[[W:.+]] = tensor.insert %[[Y]] into %[[PIECE]][%{{.+}}, %[[J]]] : tensor<1x16xf16>
// CHECK:             scf.yield %[[NEXT]], %[[W]] : f32, tensor<1x16xf16>
// CHECK:           scf.forall.in_parallel {
// CHECK:             tensor.parallel_insert_slice %[[LOOP]]#1 into %[[OUT]][%[[O]], 0] [1, 16] [1, 1]
// CHECK:         return %[[SCAN]]
func.func @cumsum_static_axis(%x: tensor<?x16xf16>) -> tensor<?x16xf16> {
  %c = tsc.cumsum %x axis = 1 exclusive reverse : tensor<?x16xf16>
  return %c : tensor<?x16xf16>
}

// -----

// A run-time axis is read inside the loop, which runs over all 20
// elements: which dim is the axis is selected at run time, and iterations
// past the last slice write an empty one.
// CHECK-LABEL: func.func @cumprod_runtime_axis
// CHECK-SAME:    (%[[X:.+]]: tensor<4x5xi32>, %[[A:.+]]: tensor<i64>)
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1 : i32
// CHECK:         scf.forall (%[[O:.+]]) in (20) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<4x5xi32>) {
// CHECK:           %[[AXIS:.+]] = tensor.extract %[[A]][] : tensor<i64>
// CHECK:           arith.index_cast %[[AXIS]] : i64 to index
// CHECK:           %[[PIECE:.+]] = tensor.extract_slice %[[OUT]][%[[R:.+]], %[[C:.+]]] [%[[H:.+]], %[[W:.+]]] [1, 1] : tensor<4x5xi32> to tensor<?x?xi32>
// CHECK:           scf.for %{{.+}} = %{{.+}} to %[[N:.+]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[ONE]], %{{.+}} = %[[PIECE]]) -> (i32, tensor<?x?xi32>) {
// CHECK:             %[[XJ:.+]] = tensor.extract %[[X]]
// CHECK:             %[[NEXT:.+]] = arith.muli %[[ACC]], %[[XJ]] : i32
// CHECK:             tensor.insert %[[NEXT]]
// CHECK:           tensor.parallel_insert_slice %{{.+}} into %[[OUT]][%[[R]], %[[C]]] [%[[H]], %[[W]]] [1, 1]
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
// CHECK:         %[[SEL:.+]]:2 = scf.forall (%[[O:.+]]) in (%{{.+}}) shared_outs(%[[V:.+]] = %{{.+}}, %[[I:.+]] = %{{.+}}) -> (tensor<?x3xf32>, tensor<?x3xi64>) {
// CHECK:           %[[VS:.+]] = tensor.extract_slice %[[V]][%[[O]], 0] [1, 3] [1, 1] : tensor<?x3xf32> to tensor<1x3xf32>
// CHECK:           %[[IS:.+]] = tensor.extract_slice %[[I]][%[[O]], 0] [1, 3] [1, 1] : tensor<?x3xi64> to tensor<1x3xi64>
// CHECK:           %[[PICKS:.+]]:4 = scf.for %[[T:.+]] = %{{.+}} to %[[C3]] step %{{.+}} iter_args(%[[VA:.+]] = %[[VS]], %[[IA:.+]] = %[[IS]], %[[PREV:.+]] = %{{.+}}, %[[PREVI:.+]] = %[[NONE]])
// CHECK:             %[[FIRST:.+]] = arith.cmpi eq, %[[PREVI]], %[[NONE]] : index
// CHECK:             %[[BEST:.+]]:2 = scf.for %[[J:.+]] = %{{.+}} to %[[C16]] step %{{.+}} iter_args(%[[BV:.+]] = %{{.+}}, %[[BI:.+]] = %[[NONE]]) -> (f32, index) {
// CHECK:               %[[XJ:.+]] = tensor.extract %[[X]][%[[O]], %[[J]]]
// CHECK:               arith.cmpf olt, %[[PREV]], %[[XJ]] : f32
// CHECK:               %[[ELIGIBLE:.+]] = arith.ori %[[FIRST]], %{{.+}} : i1
// CHECK:               %[[NOBEST:.+]] = arith.cmpi eq, %[[BI]], %[[NONE]] : index
// CHECK:               arith.cmpf olt, %[[XJ]], %[[BV]] : f32
// CHECK:               %[[BETTER:.+]] = arith.ori %[[NOBEST]], %{{.+}} : i1
// CHECK:               %[[TAKE:.+]] = arith.andi %[[ELIGIBLE]], %[[BETTER]] : i1
// CHECK:               arith.select %[[TAKE]], %[[XJ]], %[[BV]] : f32
// CHECK:               arith.select %[[TAKE]], %[[J]], %[[BI]] : index
// CHECK:             tensor.insert %[[BEST]]#0 into %[[VA]][%{{.+}}, %[[T]]] : tensor<1x3xf32>
// CHECK:             %[[POS:.+]] = arith.index_cast %[[BEST]]#1 : index to i64
// CHECK:             tensor.insert %[[POS]] into %[[IA]][%{{.+}}, %[[T]]] : tensor<1x3xi64>
// CHECK:         return %[[SEL]]#0, %[[SEL]]#1
func.func @top_k_smallest(%x: tensor<?x16xf32>) -> (tensor<?x3xf32>, tensor<?x3xi64>) {
  %v, %i = tsc.top_k %x k = 3 axis = 1 smallest : (tensor<?x16xf32>) -> (tensor<?x3xf32>, tensor<?x3xi64>)
  return %v, %i : tensor<?x3xf32>, tensor<?x3xi64>
}

// -----

// No slices (k = 0, an empty dim): the results are empty tensors, no loop.
// CHECK-LABEL: func.func @empty_results
// CHECK-NOT:     scf.forall
// CHECK-DAG:     %[[V:.+]] = tensor.empty() : tensor<4x0xf32>
// CHECK-DAG:     %[[I:.+]] = tensor.empty() : tensor<4x0xi64>
// CHECK-DAG:     %[[S:.+]] = tensor.empty() : tensor<0x3xi32>
// CHECK:         return %[[V]], %[[I]], %[[S]]
func.func @empty_results(%x: tensor<4x6xf32>, %y: tensor<0x3xi32>) -> (tensor<4x0xf32>, tensor<4x0xi64>, tensor<0x3xi32>) {
  %v, %i = tsc.top_k %x k = 0 axis = 1 : (tensor<4x6xf32>) -> (tensor<4x0xf32>, tensor<4x0xi64>)
  %s = tsc.cumsum %y axis = 1 : tensor<0x3xi32>
  return %v, %i, %s : tensor<4x0xf32>, tensor<4x0xi64>, tensor<0x3xi32>
}
