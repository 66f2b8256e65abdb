// RUN: tsc-opt %s --split-input-file | tsc-opt --split-input-file | FileCheck %s

// Round trip of the shape ops and shape queries.

// CHECK-LABEL: func.func @reshape_dynamic_and_static
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[B:.+]]: index, %[[S:.+]]: index, %[[C:.+]]: tensor<2x3xi64>)
// CHECK:         %[[H:.+]] = tsc.reshape %[[X]][%[[B]], %[[S]]] : tensor<?x?x768xf32> -> tensor<?x?x12x64xf32>
// CHECK:         %[[F:.+]] = tsc.reshape %[[C]] : tensor<2x3xi64> -> tensor<6xi64>
// CHECK:         return %[[H]], %[[F]]
func.func @reshape_dynamic_and_static(%x: tensor<?x?x768xf32>, %b: index, %s: index, %c: tensor<2x3xi64>)
    -> (tensor<?x?x12x64xf32>, tensor<6xi64>) {
  %h = tsc.reshape %x [%b, %s] : tensor<?x?x768xf32> -> tensor<?x?x12x64xf32>
  %f = tsc.reshape %c : tensor<2x3xi64> -> tensor<6xi64>
  return %h, %f : tensor<?x?x12x64xf32>, tensor<6xi64>
}

// -----

// CHECK-LABEL: func.func @transpose_perm
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x12x64xf32>)
// CHECK:         %[[T:.+]] = tsc.transpose %[[X]] perm = [0, 2, 1, 3] : (tensor<?x?x12x64xf32>) -> tensor<?x12x?x64xf32>
// CHECK:         return %[[T]]
func.func @transpose_perm(%x: tensor<?x?x12x64xf32>) -> tensor<?x12x?x64xf32> {
  %t = tsc.transpose %x perm = [0, 2, 1, 3] : (tensor<?x?x12x64xf32>) -> tensor<?x12x?x64xf32>
  return %t : tensor<?x12x?x64xf32>
}

// -----

// CHECK-LABEL: func.func @expand_broadcast
// CHECK-SAME:    (%[[KV:.+]]: tensor<?x8x1x?x128xf32>, %[[B:.+]]: index, %[[S:.+]]: index, %[[V:.+]]: tensor<3xf32>)
// CHECK:         %[[K:.+]] = tsc.expand %[[KV]][%[[B]], %[[S]]] : tensor<?x8x1x?x128xf32> -> tensor<?x8x4x?x128xf32>
// CHECK:         %[[R:.+]] = tsc.expand %[[V]] : tensor<3xf32> -> tensor<2x3xf32>
// CHECK:         return %[[K]], %[[R]]
func.func @expand_broadcast(%kv: tensor<?x8x1x?x128xf32>, %b: index, %s: index, %v: tensor<3xf32>)
    -> (tensor<?x8x4x?x128xf32>, tensor<2x3xf32>) {
  %k = tsc.expand %kv [%b, %s] : tensor<?x8x1x?x128xf32> -> tensor<?x8x4x?x128xf32>
  %r = tsc.expand %v : tensor<3xf32> -> tensor<2x3xf32>
  return %k, %r : tensor<?x8x4x?x128xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @concat_axis
// CHECK-SAME:    (%[[P:.+]]: tensor<?x12x?x64xf32>, %[[N:.+]]: tensor<?x12x1x64xf32>, %[[A:.+]]: tensor<2x3xi32>, %[[B:.+]]: tensor<2x5xi32>)
// CHECK:         %[[KV:.+]] = tsc.concat %[[P]], %[[N]] axis = 2 : (tensor<?x12x?x64xf32>, tensor<?x12x1x64xf32>) -> tensor<?x12x?x64xf32>
// CHECK:         %[[C:.+]] = tsc.concat %[[A]], %[[B]], %[[A]] axis = 1 : (tensor<2x3xi32>, tensor<2x5xi32>, tensor<2x3xi32>) -> tensor<2x11xi32>
// CHECK:         return %[[KV]], %[[C]]
func.func @concat_axis(%p: tensor<?x12x?x64xf32>, %n: tensor<?x12x1x64xf32>, %a: tensor<2x3xi32>, %b: tensor<2x5xi32>)
    -> (tensor<?x12x?x64xf32>, tensor<2x11xi32>) {
  %kv = tsc.concat %p, %n axis = 2
      : (tensor<?x12x?x64xf32>, tensor<?x12x1x64xf32>) -> tensor<?x12x?x64xf32>
  %c = tsc.concat %a, %b, %a axis = 1 : (tensor<2x3xi32>, tensor<2x5xi32>, tensor<2x3xi32>) -> tensor<2x11xi32>
  return %kv, %c : tensor<?x12x?x64xf32>, tensor<2x11xi32>
}

// -----

// Static and dynamic entries, and a negative stride (reversal).
// CHECK-LABEL: func.func @slice_mixed_entries
// CHECK-SAME:    (%[[T:.+]]: tensor<512x384xf32>, %[[S:.+]]: index, %[[O:.+]]: index)
// CHECK:         %[[A:.+]] = tsc.slice %[[T]] [0, 0] [%[[S]], 384] [1, 1] : tensor<512x384xf32> to tensor<?x384xf32>
// CHECK:         %[[B:.+]] = tsc.slice %[[T]] [511, %[[O]]] [512, 3] [-1, %[[S]]] : tensor<512x384xf32> to tensor<512x3xf32>
// CHECK:         %[[C:.+]] = tsc.slice %[[T]] [0, 383] [256, 0] [2, -1] : tensor<512x384xf32> to tensor<256x0xf32>
// CHECK:         return %[[A]], %[[B]], %[[C]]
func.func @slice_mixed_entries(%t: tensor<512x384xf32>, %s: index, %o: index)
    -> (tensor<?x384xf32>, tensor<512x3xf32>, tensor<256x0xf32>) {
  %a = tsc.slice %t[0, 0] [%s, 384] [1, 1] : tensor<512x384xf32> to tensor<?x384xf32>
  %b = tsc.slice %t[511, %o] [512, 3] [-1, %s] : tensor<512x384xf32> to tensor<512x3xf32>
  %c = tsc.slice %t[0, 383] [256, 0] [2, -1] : tensor<512x384xf32> to tensor<256x0xf32>
  return %a, %b, %c : tensor<?x384xf32>, tensor<512x3xf32>, tensor<256x0xf32>
}

// -----

// CHECK-LABEL: func.func @split_pieces
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x2304xf32>)
// CHECK:         %[[R:.+]]:3 = tsc.split %[[X]] axis = 2 sizes = [768, 768, 768] : tensor<?x?x2304xf32> -> tensor<?x?x768xf32>, tensor<?x?x768xf32>, tensor<?x?x768xf32>
// CHECK:         return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @split_pieces(%x: tensor<?x?x2304xf32>)
    -> (tensor<?x?x768xf32>, tensor<?x?x768xf32>, tensor<?x?x768xf32>) {
  %q, %k, %v = tsc.split %x axis = 2 sizes = [768, 768, 768]
      : tensor<?x?x2304xf32> -> tensor<?x?x768xf32>, tensor<?x?x768xf32>, tensor<?x?x768xf32>
  return %q, %k, %v : tensor<?x?x768xf32>, tensor<?x?x768xf32>, tensor<?x?x768xf32>
}

// -----

// Uneven sizes along a dynamic axis.
// CHECK-LABEL: func.func @split_uneven
// CHECK-SAME:    (%[[X:.+]]: tensor<4x?xi8>)
// CHECK:         %[[R:.+]]:2 = tsc.split %[[X]] axis = 1 sizes = [1, 5] : tensor<4x?xi8> -> tensor<4x1xi8>, tensor<4x5xi8>
func.func @split_uneven(%x: tensor<4x?xi8>) -> (tensor<4x1xi8>, tensor<4x5xi8>) {
  %a, %b = tsc.split %x axis = 1 sizes = [1, 5] : tensor<4x?xi8> -> tensor<4x1xi8>, tensor<4x5xi8>
  return %a, %b : tensor<4x1xi8>, tensor<4x5xi8>
}

// -----

// CHECK-LABEL: func.func @gather_embedding
// CHECK-SAME:    (%[[T:.+]]: tensor<30522x384xf32>, %[[I:.+]]: tensor<?x?xi64>, %[[J:.+]]: tensor<2xi32>)
// CHECK:         %[[E:.+]] = tsc.gather %[[T]][%[[I]]] axis = 0 : (tensor<30522x384xf32>, tensor<?x?xi64>) -> tensor<?x?x384xf32>
// CHECK:         %[[C:.+]] = tsc.gather %[[T]][%[[J]]] axis = 1 : (tensor<30522x384xf32>, tensor<2xi32>) -> tensor<30522x2xf32>
// CHECK:         return %[[E]], %[[C]]
func.func @gather_embedding(%t: tensor<30522x384xf32>, %i: tensor<?x?xi64>, %j: tensor<2xi32>)
    -> (tensor<?x?x384xf32>, tensor<30522x2xf32>) {
  %e = tsc.gather %t[%i] axis = 0 : (tensor<30522x384xf32>, tensor<?x?xi64>) -> tensor<?x?x384xf32>
  %c = tsc.gather %t[%j] axis = 1 : (tensor<30522x384xf32>, tensor<2xi32>) -> tensor<30522x2xf32>
  return %e, %c : tensor<?x?x384xf32>, tensor<30522x2xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze_unsqueeze
// CHECK-SAME:    (%[[X:.+]]: tensor<?x1x768x1xf32>, %[[M:.+]]: tensor<?x?xf32>)
// CHECK:         %[[S:.+]] = tsc.squeeze %[[X]] dims = [1, 3] : (tensor<?x1x768x1xf32>) -> tensor<?x768xf32>
// CHECK:         %[[U:.+]] = tsc.unsqueeze %[[M]] dims = [1, 2] : (tensor<?x?xf32>) -> tensor<?x1x1x?xf32>
// CHECK:         %[[E:.+]] = tsc.unsqueeze %[[M]] dims = [0, 3] : (tensor<?x?xf32>) -> tensor<1x?x?x1xf32>
// CHECK:         return %[[S]], %[[U]], %[[E]]
func.func @squeeze_unsqueeze(%x: tensor<?x1x768x1xf32>, %m: tensor<?x?xf32>)
    -> (tensor<?x768xf32>, tensor<?x1x1x?xf32>, tensor<1x?x?x1xf32>) {
  %s = tsc.squeeze %x dims = [1, 3] : (tensor<?x1x768x1xf32>) -> tensor<?x768xf32>
  %u = tsc.unsqueeze %m dims = [1, 2] : (tensor<?x?xf32>) -> tensor<?x1x1x?xf32>
  %e = tsc.unsqueeze %m dims = [0, 3] : (tensor<?x?xf32>) -> tensor<1x?x?x1xf32>
  return %s, %u, %e : tensor<?x768xf32>, tensor<?x1x1x?xf32>, tensor<1x?x?x1xf32>
}

// -----

// CHECK-LABEL: func.func @range_index_and_float
// CHECK-SAME:    (%[[SEQ:.+]]: index, %[[A:.+]]: f32, %[[B:.+]]: f32, %[[D:.+]]: f32, %[[I:.+]]: i32)
// CHECK:         %[[C0:.+]] = arith.constant 0 : index
// CHECK:         %[[C1:.+]] = arith.constant 1 : index
// CHECK:         %[[P:.+]] = tsc.range %[[C0]], %[[SEQ]], %[[C1]] : index -> tensor<?xi64>
// CHECK:         %[[F:.+]] = tsc.range %[[A]], %[[B]], %[[D]] : f32 -> tensor<?xf32>
// CHECK:         %[[N:.+]] = tsc.range %[[I]], %[[I]], %[[I]] : i32 -> tensor<?xi32>
// CHECK:         return %[[P]], %[[F]], %[[N]]
func.func @range_index_and_float(%seq: index, %a: f32, %b: f32, %d: f32, %i: i32)
    -> (tensor<?xi64>, tensor<?xf32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tsc.range %c0, %seq, %c1 : index -> tensor<?xi64>
  %f = tsc.range %a, %b, %d : f32 -> tensor<?xf32>
  %n = tsc.range %i, %i, %i : i32 -> tensor<?xi32>
  return %p, %f, %n : tensor<?xi64>, tensor<?xf32>, tensor<?xi32>
}

// -----

// The default diagonal is printed.
// CHECK-LABEL: func.func @trilu_upper_lower
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?xf32>, %[[B:.+]]: tensor<2x?x?xi1>)
// CHECK:         %[[U:.+]] = tsc.trilu %[[X]] upper diagonal = 1 : tensor<?x?xf32>
// CHECK:         %[[L:.+]] = tsc.trilu %[[B]] diagonal = -2 : tensor<2x?x?xi1>
// CHECK:         %[[D:.+]] = tsc.trilu %[[X]] diagonal = 0 : tensor<?x?xf32>
// CHECK:         return %[[U]], %[[L]], %[[D]]
func.func @trilu_upper_lower(%x: tensor<?x?xf32>, %b: tensor<2x?x?xi1>)
    -> (tensor<?x?xf32>, tensor<2x?x?xi1>, tensor<?x?xf32>) {
  %u = tsc.trilu %x upper diagonal = 1 : tensor<?x?xf32>
  %l = tsc.trilu %b diagonal = -2 : tensor<2x?x?xi1>
  %d = tsc.trilu %x diagonal = 0 : tensor<?x?xf32>
  return %u, %l, %d : tensor<?x?xf32>, tensor<2x?x?xi1>, tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @dim_and_shape_of
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>)
// CHECK:         %[[D:.+]] = tsc.dim %[[X]], 1 : tensor<?x?x768xf32>
// CHECK:         %[[S:.+]] = tsc.shape_of %[[X]] : (tensor<?x?x768xf32>) -> tensor<3xi64>
// CHECK:         return %[[D]], %[[S]]
func.func @dim_and_shape_of(%x: tensor<?x?x768xf32>) -> (index, tensor<3xi64>) {
  %d = tsc.dim %x, 1 : tensor<?x?x768xf32>
  %s = tsc.shape_of %x : (tensor<?x?x768xf32>) -> tensor<3xi64>
  return %d, %s : index, tensor<3xi64>
}

// -----

// Symbols bound from data and a reduction over windows sized by them.
// CHECK-LABEL: func.func @symbols_from_data
// CHECK:         %[[A:.+]] = tsc.symbol "axes[0]" [-2, 1] from %{{.+}}[0] : tensor<1xi64>
// CHECK:         %[[W:.+]] = tsc.symbol "w" [1, 3] = %{{.+}}
// CHECK:         tsc.reduce_window %{{.+}} window[%[[W]], %{{.+}}] sizes[%{{.+}}, %{{.+}}] kind = "max" : (tensor<3x4xf32>) -> tensor<?x4xf32>
func.func @symbols_from_data(%x: tensor<3x4xf32>, %axes: tensor<1xi64>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %a = tsc.symbol "axes[0]" [-2, 1] from %axes[0] : tensor<1xi64>
  %is0 = arith.cmpi eq, %a, %c0 : index
  %v = arith.select %is0, %c3, %c1 : index
  %w = tsc.symbol "w" [1, 3] = %v
  %n = arith.select %is0, %c1, %c3 : index
  %s = tsc.symbol "n" [1, 3] = %n
  %y = tsc.reduce_window %x window[%w, %c1] sizes[%s, %c1] kind = "max" : (tensor<3x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// A symbol read from a value the graph computes (format 1.8: the run
// defines it after the step computing the value), and one from a constant.
// CHECK-LABEL: func.func @symbols_from_computed_values
// CHECK:         %[[SUM:.+]] = tsc.add
// CHECK:         %[[N:.+]] = tsc.symbol "n" [0, 64] from %[[SUM]][1] : tensor<2xi64>
// CHECK:         %[[C:.+]] = tsc.constant
// CHECK:         tsc.symbol "c" [0, 8] from %[[C]][0] : tensor<1xi32>
// CHECK:         tsc.expand %{{.+}}[%[[N]]] : tensor<f32> -> tensor<?xf32>
func.func @symbols_from_computed_values(%x: tensor<2xi64>, %f: tensor<f32>) -> tensor<?xf32> {
  %sum = tsc.add %x, %x : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %n = tsc.symbol "n" [0, 64] from %sum[1] : tensor<2xi64>
  %c = tsc.constant dense<[3]> : tensor<1xi32>
  %k = tsc.symbol "c" [0, 8] from %c[0] : tensor<1xi32>
  %y = tsc.expand %f[%n] : tensor<f32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}
