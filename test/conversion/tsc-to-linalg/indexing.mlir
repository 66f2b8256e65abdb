// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg --canonicalize | FileCheck %s

// A gather reads one element per result element: the index wrapped when
// negative, then clamped into the dim.
// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME:    (%[[D:.+]]: tensor<3x?xf32>, %[[I:.+]]: tensor<2x?xi32>)
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK:         %[[Y:.+]] = linalg.generic {{.*}} ins(%[[I]] : tensor<2x?xi32>)
// CHECK:         ^bb0(%[[IN:.+]]: i32, %{{.+}}: f32):
// CHECK:           %[[J:[^ ]+]] = linalg.index 1 : index
// CHECK:           %[[IDX:.+]] = arith.index_cast %[[IN]] : i32 to index
// CHECK:           %[[NEG:.+]] = arith.cmpi slt, %[[IDX]], %[[C0]]
// CHECK:           %[[UP:.+]] = arith.addi %[[IDX]], %[[C3]]
// CHECK:           %[[WRAP:.+]] = arith.select %[[NEG]], %[[UP]], %[[IDX]]
// CHECK:           %[[HI:.+]] = arith.minsi %[[WRAP]], %[[C2]]
// CHECK:           %[[LO:.+]] = arith.maxsi %[[HI]], %[[C0]]
// CHECK:           %[[E:.+]] = tensor.extract %[[D]][%[[LO]], %[[J]]]
// CHECK:           linalg.yield %[[E]]
// CHECK:         return %[[Y]]
func.func @gather_elements(%d: tensor<3x?xf32>, %i: tensor<2x?xi32>) -> tensor<2x?xf32> {
  %y = tsc.gather_elements %d[%i] axis = 0 : (tensor<3x?xf32>, tensor<2x?xi32>) -> tensor<2x?xf32>
  return %y : tensor<2x?xf32>
}

// -----

// Batch dim 0 indexes data directly; the tuple's entry the next dim.
// CHECK-LABEL: func.func @gather_nd
// CHECK-SAME:    (%[[D:.+]]: tensor<2x3x4xf32>, %[[I:.+]]: tensor<2x5x1xi64>)
// CHECK:         linalg.generic
// CHECK:           %[[B:.+]] = linalg.index 0 : index
// CHECK:           %[[T:.+]] = linalg.index 1 : index
// CHECK:           %[[E:.+]] = tensor.extract %[[I]][%[[B]], %[[T]], %{{.+}}] : tensor<2x5x1xi64>
// CHECK:           %[[IDX:.+]] = arith.index_cast %[[E]] : i64 to index
// CHECK:           %[[K:.+]] = linalg.index 2 : index
// CHECK:           tensor.extract %[[D]][%[[B]], %{{.+}}, %[[K]]] : tensor<2x3x4xf32>
func.func @gather_nd(%d: tensor<2x3x4xf32>, %i: tensor<2x5x1xi64>) -> tensor<2x5x4xf32> {
  %y = tsc.gather_nd %d[%i] batch_dims = 1 : (tensor<2x3x4xf32>, tensor<2x5x1xi64>) -> tensor<2x5x4xf32>
  return %y : tensor<2x5x4xf32>
}

// -----

// A copy of the data in the result's tensor.empty, then one parallel lane
// per row: the row's column along the axis is updated in order, in place,
// an update outside it skipped.
// CHECK-LABEL: func.func @scatter_elements
// CHECK-SAME:    (%[[D:.+]]: tensor<?x5xf32>, %[[I:.+]]: tensor<?x2xi64>, %[[U:.+]]: tensor<?x2xf32>)
// CHECK-DAG:     %[[C5:.+]] = arith.constant 5 : index
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%{{.+}}) : tensor<?x5xf32>
// CHECK:         %[[COPY:.+]] = linalg.copy ins(%[[D]] : tensor<?x5xf32>) outs(%[[EMPTY]] : tensor<?x5xf32>)
// CHECK:         %[[R:.+]] = scf.forall (%[[ROW:.+]]) in (%{{.+}}) shared_outs(%[[OUT:.+]] = %[[COPY]])
// CHECK:           %[[COL:.+]] = tensor.extract_slice %[[OUT]][%[[ROW]], 0] [1, 5] [1, 1] : tensor<?x5xf32> to tensor<5xf32>
// CHECK:           %[[NEW:.+]] = scf.for %[[J:[^ ]+]] = {{.+}} iter_args(%[[ACC:.+]] = %[[COL]]) -> (tensor<5xf32>)
// CHECK:             tensor.extract %[[I]][%[[ROW]], %[[J]]]
// CHECK:             %[[UPD:.+]] = tensor.extract %[[U]][%[[ROW]], %[[J]]]
// CHECK:             %[[INSIDE:.+]] = arith.andi
// CHECK:             %[[IF:.+]] = scf.if %[[INSIDE]] -> (tensor<5xf32>)
// CHECK:               %[[OLD:.+]] = tensor.extract %[[ACC]][%[[AT:.+]]] : tensor<5xf32>
// CHECK:               %[[SUM:.+]] = arith.addf %[[OLD]], %[[UPD]] : f32
// CHECK:               %[[INS:.+]] = tensor.insert %[[SUM]] into %[[ACC]][%[[AT]]]
// CHECK:               scf.yield %[[INS]]
// CHECK:             } else {
// CHECK:               scf.yield %[[ACC]]
// CHECK:             scf.yield %[[IF]]
// CHECK:           scf.forall.in_parallel
// CHECK:             tensor.parallel_insert_slice %[[NEW]] into %[[OUT]][%[[ROW]], 0] [1, 5] [1, 1]
// CHECK:         return %[[R]]
func.func @scatter_elements(%d: tensor<?x5xf32>, %i: tensor<?x2xi64>, %u: tensor<?x2xf32>) -> tensor<?x5xf32> {
  %y = tsc.scatter_elements %d[%i], %u axis = 1 reduction = add : (tensor<?x5xf32>, tensor<?x2xi64>, tensor<?x2xf32>) -> tensor<?x5xf32>
  return %y : tensor<?x5xf32>
}

// -----

// Tuples as long as the rank leave no lanes: one loop over the tuples on
// the whole copy; max of signed integers.
// CHECK-LABEL: func.func @scatter_nd_elements
// CHECK-SAME:    (%[[D:.+]]: tensor<8x4xi32>, %[[I:.+]]: tensor<3x2xi64>, %[[U:.+]]: tensor<3xi32>)
// CHECK:         %[[COPY:.+]] = linalg.copy ins(%[[D]]
// CHECK-NOT:     scf.forall
// CHECK:         %[[R:.+]] = scf.for %[[T:[^ ]+]] = {{.+}} iter_args(%[[ACC:.+]] = %[[COPY]]) -> (tensor<8x4xi32>)
// CHECK:           scf.if
// CHECK:             %[[OLD:.+]] = tensor.extract %[[ACC]][%[[R0:.+]], %[[R1:.+]]] : tensor<8x4xi32>
// CHECK:             %[[MAX:.+]] = arith.maxsi %[[OLD]], %{{.+}} : i32
// CHECK:             tensor.insert %[[MAX]] into %[[ACC]][%[[R0]], %[[R1]]]
// CHECK:         return %[[R]]
func.func @scatter_nd_elements(%d: tensor<8x4xi32>, %i: tensor<3x2xi64>, %u: tensor<3xi32>) -> tensor<8x4xi32> {
  %y = tsc.scatter_nd %d[%i], %u reduction = max : (tensor<8x4xi32>, tensor<3x2xi64>, tensor<3xi32>) -> tensor<8x4xi32>
  return %y : tensor<8x4xi32>
}

// -----

// Lanes over batch and features; position write_indices[b] + s modulo the
// cache length.
// CHECK-LABEL: func.func @tensor_scatter_circular
// CHECK-SAME:    (%[[C:.+]]: tensor<2x8x4xf16>, %[[W:.+]]: tensor<2xi64>, %[[U:.+]]: tensor<2x3x4xf16>)
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK:         %[[COPY:.+]] = linalg.copy ins(%[[C]]
// CHECK:         scf.forall (%[[B:.+]], %[[F:.+]]) in (2, 4) shared_outs(%[[OUT:.+]] = %[[COPY]])
// CHECK:           tensor.extract_slice %[[OUT]][%[[B]], 0, %[[F]]] [1, 8, 1] [1, 1, 1] : tensor<2x8x4xf16> to tensor<8xf16>
// CHECK:           scf.for %[[S:[^ ]+]] =
// CHECK:             %[[START:.+]] = tensor.extract %[[W]][%[[B]]]
// CHECK:             %[[IDX:.+]] = arith.index_cast %[[START]]
// CHECK:             %[[POS:.+]] = arith.addi %[[IDX]], %[[S]]
// CHECK:             %[[REM:.+]] = arith.remsi %[[POS]], %[[C8]]
// CHECK:             %[[UP:.+]] = arith.addi %[[REM]], %[[C8]]
// CHECK:             %[[MOD:.+]] = arith.remsi %[[UP]], %[[C8]]
// CHECK:             %[[V:.+]] = tensor.extract %[[U]][%[[B]], %[[S]], %[[F]]]
// CHECK:             tensor.insert %[[V]] into %{{.+}}[%[[MOD]]]
func.func @tensor_scatter_circular(%c: tensor<2x8x4xf16>, %w: tensor<2xi64>, %u: tensor<2x3x4xf16>) -> tensor<2x8x4xf16> {
  %y = tsc.tensor_scatter %c[%w], %u axis = 1 circular : (tensor<2x8x4xf16>, tensor<2xi64>, tensor<2x3x4xf16>) -> tensor<2x8x4xf16>
  return %y : tensor<2x8x4xf16>
}

// -----

// Constant mode: the clamped element where the position is inside the
// input, the value operand elsewhere; a dynamic dim may be empty, so the
// read is guarded.
// CHECK-LABEL: func.func @pad_constant
// CHECK-SAME:    (%[[X:.+]]: tensor<?x5xf32>, %[[V:.+]]: tensor<f32>)
// CHECK:         %[[N:.+]] = tensor.dim %[[X]], %{{.+}}
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[V]] : tensor<f32>) outs(%[[EMPTY]] : tensor<?x8xf32>)
// CHECK:         ^bb0(%[[FILL:.+]]: f32, %{{.+}}: f32):
// CHECK:           %[[IF:.+]] = scf.if %{{.+}} -> (f32)
// CHECK:             %[[E:.+]] = tensor.extract %[[X]]
// CHECK:             scf.yield %[[E]]
// CHECK:           } else {
// CHECK:             scf.yield %[[FILL]]
// CHECK:           linalg.yield %[[IF]]
func.func @pad_constant(%x: tensor<?x5xf32>, %v: tensor<f32>) -> tensor<?x8xf32> {
  %y = tsc.pad %x, %v low = [0, 1] high = [0, 2] : (tensor<?x5xf32>, tensor<f32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// Reflect: position i - low modulo the period 2 (n - 1), mirrored past n.
// CHECK-LABEL: func.func @pad_reflect
// CHECK-SAME:    (%[[X:.+]]: tensor<4x5xi32>)
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C5:.+]] = arith.constant 5 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK:         linalg.generic
// CHECK:           %[[J:[^ ]+]] = linalg.index 1 : index
// CHECK:           %[[I:.+]] = arith.subi %[[J]], %[[C1]]
// CHECK:           %[[R:.+]] = arith.remsi %[[I]], %[[C8]]
// CHECK:           %[[S:[^ ]+]] = arith.addi %[[R]], %[[C8]]
// CHECK:           %[[M:.+]] = arith.remsi %[[S]], %[[C8]]
// CHECK:           %[[MIRROR:.+]] = arith.subi %[[C8]], %[[M]]
// CHECK:           %[[LOW:.+]] = arith.cmpi slt, %[[M]], %[[C5]]
// CHECK:           %[[COL:.+]] = arith.select %[[LOW]], %[[M]], %[[MIRROR]]
// CHECK:           %[[E:.+]] = tensor.extract %[[X]][%{{.+}}, %[[COL]]]
// CHECK:           linalg.yield %[[E]]
func.func @pad_reflect(%x: tensor<4x5xi32>) -> tensor<6x7xi32> {
  %y = tsc.pad %x low = [1, 1] high = [1, 1] mode = reflect : (tensor<4x5xi32>) -> tensor<6x7xi32>
  return %y : tensor<6x7xi32>
}

// -----

// Step t of a sequence of length L (clamped to the steps) reads L - 1 - t
// while t < L.
// CHECK-LABEL: func.func @reverse_sequence
// CHECK-SAME:    (%[[X:.+]]: tensor<4x?xf32>, %[[L:.+]]: tensor<4xi64>)
// CHECK:         linalg.generic {{.*}} ins(%[[L]] : tensor<4xi64>)
// CHECK:         ^bb0(%[[LEN:.+]]: i64, %{{.+}}: f32):
// CHECK:           %[[B:.+]] = linalg.index 0 : index
// CHECK:           %[[T:.+]] = linalg.index 1 : index
// CHECK:           %[[WITHIN:.+]] = arith.cmpi slt, %[[T]], %{{.+}}
// CHECK:           %[[SRC:.+]] = arith.select %[[WITHIN]], %{{.+}}, %[[T]]
// CHECK:           tensor.extract %[[X]][%[[B]], %[[SRC]]]
func.func @reverse_sequence(%x: tensor<4x?xf32>, %l: tensor<4xi64>) -> tensor<4x?xf32> {
  %y = tsc.reverse_sequence %x, %l batch_axis = 0 time_axis = 1 : (tensor<4x?xf32>, tensor<4xi64>) -> tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}
