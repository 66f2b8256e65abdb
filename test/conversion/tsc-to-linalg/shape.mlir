// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @transpose
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4x?xf32>)
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[D0:.+]] = tensor.dim %[[X]], %[[C0]]
// CHECK-DAG:     %[[D2:.+]] = tensor.dim %[[X]], %[[C2]]
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%[[D2]], %[[D0]]) : tensor<?x?x4xf32>
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[X]] : tensor<?x4x?xf32>) outs(%[[EMPTY]] : tensor<?x?x4xf32>) permutation = [2, 0, 1]
// CHECK:         return %[[T]]
func.func @transpose(%x: tensor<?x4x?xf32>) -> tensor<?x?x4xf32> {
  %t = tsc.transpose %x perm = [2, 0, 1] : (tensor<?x4x?xf32>) -> tensor<?x?x4xf32>
  return %t : tensor<?x?x4xf32>
}

// -----

// Static unit dims broadcast through the map; the dynamic dim is the one the
// shape operand says is the input's own size.
// CHECK-DAG:   #[[IN:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, 0, d3)>
// CHECK-DAG:   #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @expand_static_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x1x64xf32>, %[[B:.+]]: index)
// CHECK:         %[[S:.+]] = tensor.dim %[[X]], %{{.+}}
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%[[B]], %[[S]]) : tensor<?x?x4x64xf32>
// CHECK:         %[[Y:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME:        ins(%[[X]] : tensor<?x1x64xf32>) outs(%[[EMPTY]] : tensor<?x?x4x64xf32>)
// CHECK:           ^bb0(%[[A:.+]]: f32, %{{.+}}: f32):
// CHECK:             linalg.yield %[[A]] : f32
func.func @expand_static_broadcast(%x: tensor<?x1x64xf32>, %b: index) -> tensor<?x?x4x64xf32> {
  %s = tsc.dim %x, 0 : tensor<?x1x64xf32>
  %y = tsc.expand %x [%b, %s] : tensor<?x1x64xf32> -> tensor<?x?x4x64xf32>
  return %y : tensor<?x?x4x64xf32>
}

// -----

// A dynamic input dim may be 1 at run time: index 0 then, read per element.
// CHECK-LABEL: func.func @expand_runtime_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3xf32>, %[[N:.+]]: index)
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %[[C0]]
// CHECK:         %[[UNIT:.+]] = arith.cmpi eq, %[[D]], %[[C1]] : index
// CHECK:         linalg.generic
// CHECK-SAME:        outs(%{{.+}} : tensor<?x3xf32>)
// CHECK:             %[[I:.+]] = linalg.index 0 : index
// CHECK:             %[[ROW:.+]] = arith.select %[[UNIT]], %[[C0]], %[[I]] : index
// CHECK:             %[[J:.+]] = linalg.index 1 : index
// CHECK:             %[[E:.+]] = tensor.extract %[[X]][%[[ROW]], %[[J]]] : tensor<?x3xf32>
// CHECK:             linalg.yield %[[E]] : f32
func.func @expand_runtime_broadcast(%x: tensor<?x3xf32>, %n: index) -> tensor<?x3xf32> {
  %y = tsc.expand %x [%n] : tensor<?x3xf32> -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// Each input lands at the running offset along the axis.
// CHECK-LABEL: func.func @concat_dynamic_axis
// CHECK-SAME:    (%[[P:.+]]: tensor<?x12x?x64xf32>, %[[N:.+]]: tensor<?x12x1x64xf32>)
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK:         %[[B:.+]] = tensor.dim %[[P]], %{{.+}}
// CHECK:         %[[S:.+]] = tensor.dim %[[P]], %[[C2]]
// CHECK:         %[[NB:.+]] = tensor.dim %[[N]], %{{.+}}
// CHECK:         %[[TOTAL:.+]] = arith.addi %[[S]], %[[C1]] : index
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%[[B]], %[[TOTAL]]) : tensor<?x12x?x64xf32>
// CHECK:         %[[FIRST:.+]] = tensor.insert_slice %[[P]] into %[[EMPTY]][0, 0, 0, 0] [%[[B]], 12, %[[S]], 64] [1, 1, 1, 1]
// CHECK:         %[[BOTH:.+]] = tensor.insert_slice %[[N]] into %[[FIRST]][0, 0, %[[S]], 0] [%[[NB]], 12, 1, 64] [1, 1, 1, 1]
// CHECK:         return %[[BOTH]]
func.func @concat_dynamic_axis(%p: tensor<?x12x?x64xf32>, %n: tensor<?x12x1x64xf32>) -> tensor<?x12x?x64xf32> {
  %kv = tsc.concat %p, %n axis = 2 : (tensor<?x12x?x64xf32>, tensor<?x12x1x64xf32>) -> tensor<?x12x?x64xf32>
  return %kv : tensor<?x12x?x64xf32>
}

// -----

// Positive strides are a view; a negative or run-time stride reads
// offset + i * stride per element.
// CHECK-LABEL: func.func @slices
// CHECK-SAME:    (%[[T:.+]]: tensor<512x384xf32>, %[[S:.+]]: index, %[[O:.+]]: index)
// CHECK-DAG:     %[[CM1:.+]] = arith.constant -1 : index
// CHECK-DAG:     %[[C511:.+]] = arith.constant 511 : index
// CHECK:         %[[A:.+]] = tensor.extract_slice %[[T]][0, 0] [%[[S]], 384] [1, 1] : tensor<512x384xf32> to tensor<?x384xf32>
// CHECK:         %[[B:.+]] = tensor.extract_slice %[[T]][1, 7] [128, 3] [4, 2] : tensor<512x384xf32> to tensor<128x3xf32>
// CHECK:         %[[C:.+]] = linalg.generic
// CHECK-SAME:        outs(%{{.+}} : tensor<512x3xf32>)
// CHECK:             %[[I:.+]] = linalg.index 0 : index
// CHECK:             %[[IS:.+]] = arith.muli %[[I]], %[[CM1]] : index
// CHECK:             %[[ROW:.+]] = arith.addi %[[IS]], %[[C511]] : index
// CHECK:             %[[J:.+]] = linalg.index 1 : index
// CHECK:             %[[JS:.+]] = arith.muli %[[J]], %[[S]] : index
// CHECK:             %[[COL:.+]] = arith.addi %[[O]], %[[JS]] : index
// CHECK:             tensor.extract %[[T]][%[[ROW]], %[[COL]]] : tensor<512x384xf32>
// CHECK:         return %[[A]], %[[B]], %[[C]]
func.func @slices(%t: tensor<512x384xf32>, %s: index, %o: index) -> (tensor<?x384xf32>, tensor<128x3xf32>, tensor<512x3xf32>) {
  %a = tsc.slice %t[0, 0] [%s, 384] [1, 1] : tensor<512x384xf32> to tensor<?x384xf32>
  %b = tsc.slice %t[1, 7] [128, 3] [4, 2] : tensor<512x384xf32> to tensor<128x3xf32>
  %c = tsc.slice %t[511, %o] [512, 3] [-1, %s] : tensor<512x384xf32> to tensor<512x3xf32>
  return %a, %b, %c : tensor<?x384xf32>, tensor<128x3xf32>, tensor<512x3xf32>
}

// -----

// CHECK-LABEL: func.func @split_pieces
// CHECK-SAME:    (%[[X:.+]]: tensor<?x2304xf32>)
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}}
// CHECK:         %[[Q:.+]] = tensor.extract_slice %[[X]][0, 0] [%[[D]], 768] [1, 1]
// CHECK:         %[[K:.+]] = tensor.extract_slice %[[X]][0, 768] [%[[D]], 512] [1, 1]
// CHECK:         %[[V:.+]] = tensor.extract_slice %[[X]][0, 1280] [%[[D]], 1024] [1, 1]
// CHECK:         return %[[Q]], %[[K]], %[[V]]
func.func @split_pieces(%x: tensor<?x2304xf32>) -> (tensor<?x768xf32>, tensor<?x512xf32>, tensor<?x1024xf32>) {
  %q, %k, %v = tsc.split %x axis = 1 sizes = [768, 512, 1024]
      : tensor<?x2304xf32> -> tensor<?x768xf32>, tensor<?x512xf32>, tensor<?x1024xf32>
  return %q, %k, %v : tensor<?x768xf32>, tensor<?x512xf32>, tensor<?x1024xf32>
}

// -----

// Embedding lookup: the indices are read through a map over their dims,
// negative ones count from the end, the row is extracted from the table.
// CHECK-DAG:   #[[IDS:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gather_rows
// CHECK-SAME:    (%[[T:.+]]: tensor<30522x384xf32>, %[[I:.+]]: tensor<?x?xi64>)
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[EXTENT:.+]] = arith.constant 30522 : index
// CHECK:         linalg.generic {indexing_maps = [#[[IDS]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:        ins(%[[I]] : tensor<?x?xi64>) outs(%{{.+}} : tensor<?x?x384xf32>)
// CHECK:           ^bb0(%[[RAW:.+]]: i64, %{{.+}}: f32):
// CHECK:             %[[IDX:.+]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK:             %[[NEG:.+]] = arith.cmpi slt, %[[IDX]], %[[C0]] : index
// CHECK:             %[[WRAP:.+]] = arith.addi %[[IDX]], %[[EXTENT]] : index
// CHECK:             %[[ROW:.+]] = arith.select %[[NEG]], %[[WRAP]], %[[IDX]] : index
// CHECK:             %[[COL:.+]] = linalg.index 2 : index
// CHECK:             %[[E:.+]] = tensor.extract %[[T]][%[[ROW]], %[[COL]]] : tensor<30522x384xf32>
// CHECK:             linalg.yield %[[E]] : f32
func.func @gather_rows(%t: tensor<30522x384xf32>, %i: tensor<?x?xi64>) -> tensor<?x?x384xf32> {
  %e = tsc.gather %t[%i] axis = 0 : (tensor<30522x384xf32>, tensor<?x?xi64>) -> tensor<?x?x384xf32>
  return %e : tensor<?x?x384xf32>
}

// -----

// Along an inner axis, the dims after the axis shift by the index rank.
// CHECK-DAG:   #[[IDS:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @gather_inner_axis
// CHECK-SAME:    (%[[D:.+]]: tensor<4x?x5xf16>, %[[I:.+]]: tensor<2xi32>)
// CHECK:         %[[EXTENT:.+]] = tensor.dim %[[D]], %{{.+}}
// CHECK:         linalg.generic {indexing_maps = [#[[IDS]], #{{.+}}]
// CHECK:             %[[IDX:.+]] = arith.index_cast %{{.+}} : i32 to index
// CHECK:             arith.addi %[[IDX]], %[[EXTENT]] : index
// CHECK:             %[[A:.+]] = linalg.index 0 : index
// CHECK:             %[[C:.+]] = linalg.index 2 : index
// CHECK:             tensor.extract %[[D]][%[[A]], %{{.+}}, %[[C]]] : tensor<4x?x5xf16>
func.func @gather_inner_axis(%d: tensor<4x?x5xf16>, %i: tensor<2xi32>) -> tensor<4x2x5xf16> {
  %e = tsc.gather %d[%i] axis = 1 : (tensor<4x?x5xf16>, tensor<2xi32>) -> tensor<4x2x5xf16>
  return %e : tensor<4x2x5xf16>
}

// -----

// The length is max(0, ceildiv(limit - start, delta)); element i is
// start + i * delta.
// CHECK-LABEL: func.func @range_int
// CHECK-SAME:    (%[[START:.+]]: i64, %[[LIMIT:.+]]: i64, %[[DELTA:.+]]: i64)
// CHECK:         %[[DIFF:.+]] = arith.subi %[[LIMIT]], %[[START]] : i64
// CHECK:         %[[Q:.+]] = arith.ceildivsi %[[DIFF]], %[[DELTA]] : i64
// CHECK:         %[[N:.+]] = arith.index_cast %[[Q]] : i64 to index
// CHECK:         %[[LEN:.+]] = arith.maxsi %[[N]], %{{.+}} : index
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%[[LEN]]) : tensor<?xi64>
// CHECK:         linalg.generic
// CHECK-SAME:        outs(%[[EMPTY]] : tensor<?xi64>)
// CHECK:             %[[I:.+]] = linalg.index 0 : index
// CHECK:             %[[II:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK:             %[[STEP:.+]] = arith.muli %[[II]], %[[DELTA]] : i64
// CHECK:             %[[V:.+]] = arith.addi %[[START]], %[[STEP]] : i64
// CHECK:             linalg.yield %[[V]] : i64
func.func @range_int(%start: i64, %limit: i64, %delta: i64) -> tensor<?xi64> {
  %r = tsc.range %start, %limit, %delta : i64 -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// -----

// CHECK-LABEL: func.func @range_float
// CHECK-SAME:    (%[[START:.+]]: f32, %[[LIMIT:.+]]: f32, %[[DELTA:.+]]: f32)
// CHECK:         %[[DIFF:.+]] = arith.subf %[[LIMIT]], %[[START]] : f32
// CHECK:         %[[Q:.+]] = arith.divf %[[DIFF]], %[[DELTA]] : f32
// CHECK:         %[[UP:.+]] = math.ceil %[[Q]] : f32
// CHECK:         arith.fptosi %[[UP]] : f32 to i64
// CHECK:         linalg.generic
// CHECK:             %[[I:.+]] = linalg.index 0 : index
// CHECK:             %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK:             %[[X:.+]] = arith.sitofp %[[I64]] : i64 to f32
// CHECK:             %[[STEP:.+]] = arith.mulf %[[X]], %[[DELTA]] : f32
// CHECK:             arith.addf %[[START]], %[[STEP]] : f32
func.func @range_float(%start: f32, %limit: f32, %delta: f32) -> tensor<?xf32> {
  %r = tsc.range %start, %limit, %delta : f32 -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Upper keeps j - i >= diagonal; lower keeps j - i <= diagonal.
// CHECK-LABEL: func.func @trilu
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[MINUS:.+]] = arith.constant -1 : index
// CHECK:         linalg.generic
// CHECK:           ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK:             %[[I:.+]] = linalg.index 1 : index
// CHECK:             %[[J:.+]] = linalg.index 2 : index
// CHECK:             %[[D:.+]] = arith.subi %[[J]], %[[I]] : index
// CHECK:             %[[KEEP:.+]] = arith.cmpi sge, %[[D]], %[[ONE]] : index
// CHECK:             arith.select %[[KEEP]], %[[X]], %{{.+}} : f32
// CHECK:         linalg.generic
// CHECK:             %[[D2:.+]] = arith.subi
// CHECK:             arith.cmpi sle, %[[D2]], %[[MINUS]] : index
func.func @trilu(%x: tensor<2x?x?xf32>) -> (tensor<2x?x?xf32>, tensor<2x?x?xf32>) {
  %u = tsc.trilu %x upper diagonal = 1 : tensor<2x?x?xf32>
  %l = tsc.trilu %x diagonal = -1 : tensor<2x?x?xf32>
  return %u, %l : tensor<2x?x?xf32>, tensor<2x?x?xf32>
}

// -----

// One dynamic dim on each side: a reassociation is provably right.
// CHECK-LABEL: func.func @reshape_expand_one_dynamic
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>, %[[B:.+]]: index)
// CHECK:         %[[Y:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [%[[B]], 12, 64] : tensor<?x768xf32> into tensor<?x12x64xf32>
// CHECK:         return %[[Y]]
func.func @reshape_expand_one_dynamic(%x: tensor<?x768xf32>, %b: index) -> tensor<?x12x64xf32> {
  %y = tsc.reshape %x [%b] : tensor<?x768xf32> -> tensor<?x12x64xf32>
  return %y : tensor<?x12x64xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_collapse_one_dynamic
// CHECK:         tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2]] : tensor<?x4x64xf32> into tensor<?x64xf32>
func.func @reshape_collapse_one_dynamic(%x: tensor<?x4x64xf32>, %n: index) -> tensor<?x64xf32> {
  %y = tsc.reshape %x [%n] : tensor<?x4x64xf32> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// Two dynamic dims could pair up either way: the shape goes by value.
// CHECK-LABEL: func.func @reshape_two_dynamic
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[B:.+]]: index, %[[S:.+]]: index)
// CHECK-DAG:     %[[C12:.+]] = arith.constant 12 : i64
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : i64
// CHECK-DAG:     %[[B64:.+]] = arith.index_cast %[[B]] : index to i64
// CHECK-DAG:     %[[S64:.+]] = arith.index_cast %[[S]] : index to i64
// CHECK:         %[[SHAPE:.+]] = tensor.from_elements %[[B64]], %[[S64]], %[[C12]], %[[C64]] : tensor<4xi64>
// CHECK:         %[[Y:.+]] = tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<?x?x768xf32>, tensor<4xi64>) -> tensor<?x?x12x64xf32>
// CHECK:         return %[[Y]]
func.func @reshape_two_dynamic(%x: tensor<?x?x768xf32>, %b: index, %s: index) -> tensor<?x?x12x64xf32> {
  %y = tsc.reshape %x [%b, %s] : tensor<?x?x768xf32> -> tensor<?x?x12x64xf32>
  return %y : tensor<?x?x12x64xf32>
}

// -----

// Static shapes without one reassociation go through the flat vector.
// CHECK-LABEL: func.func @reshape_static_regroup
// CHECK:         %[[FLAT:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0, 1]] : tensor<2x3xi64> into tensor<6xi64>
// CHECK:         tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [3, 2] : tensor<6xi64> into tensor<3x2xi64>
func.func @reshape_static_regroup(%x: tensor<2x3xi64>) -> tensor<3x2xi64> {
  %y = tsc.reshape %x : tensor<2x3xi64> -> tensor<3x2xi64>
  return %y : tensor<3x2xi64>
}

// -----

// Squeeze and unsqueeze only move unit dims, so any dynamic dims are fine.
// CHECK-LABEL: func.func @squeeze_unsqueeze
// CHECK-SAME:    (%[[X:.+]]: tensor<?x1x?x1xf32>, %[[M:.+]]: tensor<?x?xf32>)
// CHECK:         %[[S:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2, 3]] : tensor<?x1x?x1xf32> into tensor<?x?xf32>
// CHECK-DAG:     %[[D0:.+]] = tensor.dim %[[M]], %{{.+}}
// CHECK-DAG:     %[[D1:.+]] = tensor.dim %[[M]], %{{.+}}
// CHECK:         %[[U:.+]] = tensor.expand_shape %[[M]] {{\[}}[0, 1, 2], [3]] output_shape [%[[D0]], 1, 1, %[[D1]]] : tensor<?x?xf32> into tensor<?x1x1x?xf32>
// CHECK:         return %[[S]], %[[U]]
func.func @squeeze_unsqueeze(%x: tensor<?x1x?x1xf32>, %m: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x1x1x?xf32>) {
  %s = tsc.squeeze %x dims = [1, 3] : (tensor<?x1x?x1xf32>) -> tensor<?x?xf32>
  %u = tsc.unsqueeze %m dims = [1, 2] : (tensor<?x?xf32>) -> tensor<?x1x1x?xf32>
  return %s, %u : tensor<?x?xf32>, tensor<?x1x1x?xf32>
}

// -----

// CHECK-LABEL: func.func @unsqueeze_scalar
// CHECK:         tensor.expand_shape %{{.+}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @unsqueeze_scalar(%x: tensor<f32>) -> tensor<1x1xf32> {
  %u = tsc.unsqueeze %x dims = [0, 1] : (tensor<f32>) -> tensor<1x1xf32>
  return %u : tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @dim_and_shape_of
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK-DAG:     %[[C768:.+]] = arith.constant 768 : i64
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x768xf32>
// CHECK:         %[[D2:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x768xf32>
// CHECK:         %[[D64:.+]] = arith.index_cast %[[D2]] : index to i64
// CHECK:         %[[S:.+]] = tensor.from_elements %[[D64]], %[[C768]] : tensor<2xi64>
// CHECK:         return %[[D]], %[[S]]
func.func @dim_and_shape_of(%x: tensor<?x768xf32>) -> (index, tensor<2xi64>) {
  %d = tsc.dim %x, 0 : tensor<?x768xf32>
  %s = tsc.shape_of %x : (tensor<?x768xf32>) -> tensor<2xi64>
  return %d, %s : index, tensor<2xi64>
}
