// RUN: tsc-opt %s --split-input-file --tsc-bind-symbolic-shapes | FileCheck %s

// Each case binds the inputs and checks the tsc.bind_shape the pass derives
// for the op under test.

// [b, s, 768] + [s, 768] broadcasts to [b, s, 768].
// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0, s1] -> (s0, s1, 768)>
// CHECK-LABEL: func.func @elementwise_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[Y:.+]]: tensor<?x768xf32>)
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[Z:.+]] = tsc.add %[[X]], %[[Y]]
// CHECK-NEXT:    tsc.bind_shape %[[Z]][%[[B]], %[[S]]], #[[M]] : tensor<?x?x768xf32>
// CHECK-NEXT:    return %[[Z]]
func.func @elementwise_broadcast(%x: tensor<?x?x768xf32>, %y: tensor<?x768xf32>) -> tensor<?x?x768xf32> {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 768)> : tensor<?x?x768xf32>
  tsc.bind_shape %y[%s], affine_map<()[s0] -> (s0, 768)> : tensor<?x768xf32>
  %z = tsc.add %x, %y : (tensor<?x?x768xf32>, tensor<?x768xf32>) -> tensor<?x?x768xf32>
  return %z : tensor<?x?x768xf32>
}

// -----

// A unary op keeps its operand's shape; n x 1 against 4 broadcasts to n x 4.
// CHECK-DAG:   #[[M1:.+]] = affine_map<()[s0] -> (s0, 1)>
// CHECK-DAG:   #[[M4:.+]] = affine_map<()[s0] -> (s0, 4)>
// CHECK-LABEL: func.func @unary_and_static_broadcast
// CHECK:         %[[N:.+]] = tsc.symbol "n"
// CHECK:         %[[G:.+]] = tsc.gelu
// CHECK-NEXT:    tsc.bind_shape %[[G]][%[[N]]], #[[M1]] : tensor<?x1xf32>
// CHECK-NEXT:    %[[Z:.+]] = tsc.mul %[[G]]
// CHECK-NEXT:    tsc.bind_shape %[[Z]][%[[N]]], #[[M4]] : tensor<?x4xf32>
func.func @unary_and_static_broadcast(%x: tensor<?x1xf32>, %w: tensor<4xf32>) -> tensor<?x4xf32> {
  %n = tsc.symbol "n" [1, 16]
  tsc.bind_shape %x[%n], affine_map<()[s0] -> (s0, 1)> : tensor<?x1xf32>
  %g = tsc.gelu %x : tensor<?x1xf32>
  %z = tsc.mul %g, %w : (tensor<?x1xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %z : tensor<?x4xf32>
}

// -----

// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0, s1, s2] -> (s0, 12, s1, s2)>
// CHECK-LABEL: func.func @matmul_batch
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[T:.+]] = tsc.symbol "kv"
// CHECK:         %[[C:.+]] = tsc.matmul
// CHECK-NEXT:    tsc.bind_shape %[[C]][%[[B]], %[[S]], %[[T]]], #[[M]] : tensor<?x12x?x?xf32>
func.func @matmul_batch(%a: tensor<?x12x?x64xf32>, %b: tensor<?x12x64x?xf32>) -> tensor<?x12x?x?xf32> {
  %bt = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  %t = tsc.symbol "kv" [1, 1024]
  tsc.bind_shape %a[%bt, %s], affine_map<()[s0, s1] -> (s0, 12, s1, 64)> : tensor<?x12x?x64xf32>
  tsc.bind_shape %b[%bt, %t], affine_map<()[s0, s1] -> (s0, 12, 64, s1)> : tensor<?x12x64x?xf32>
  %c = tsc.matmul %a, %b : (tensor<?x12x?x64xf32>, tensor<?x12x64x?xf32>) -> tensor<?x12x?x?xf32>
  return %c : tensor<?x12x?x?xf32>
}

// -----

// A 2-D rhs broadcasts over the lhs's batch dims.
// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0, s1] -> (s0, s1, 32)>
// CHECK-LABEL: func.func @matmul_broadcast_batch
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[C:.+]] = tsc.matmul
// CHECK-NEXT:    tsc.bind_shape %[[C]][%[[B]], %[[S]]], #[[M]] : tensor<?x?x32xf32>
func.func @matmul_broadcast_batch(%a: tensor<?x?x64xf32>, %b: tensor<64x32xf32>) -> tensor<?x?x32xf32> {
  %bt = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %a[%bt, %s], affine_map<()[s0, s1] -> (s0, s1, 64)> : tensor<?x?x64xf32>
  %c = tsc.matmul %a, %b : (tensor<?x?x64xf32>, tensor<64x32xf32>) -> tensor<?x?x32xf32>
  return %c : tensor<?x?x32xf32>
}

// -----

// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0, s1] -> (s0, s1, 3072)>
// CHECK-LABEL: func.func @linear
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[Y:.+]] = tsc.linear
// CHECK-NEXT:    tsc.bind_shape %[[Y]][%[[B]], %[[S]]], #[[M]] : tensor<?x?x3072xf32>
func.func @linear(%x: tensor<?x?x768xf32>, %w: tensor<3072x768xf32>) -> tensor<?x?x3072xf32> {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 768)> : tensor<?x?x768xf32>
  %y = tsc.linear %x, %w : (tensor<?x?x768xf32>, tensor<3072x768xf32>) -> tensor<?x?x3072xf32>
  return %y : tensor<?x?x3072xf32>
}

// -----

// keepdim keeps a 1; otherwise reduced dims drop and unused symbols are not
// listed.
// CHECK-DAG:   #[[KEEP:.+]] = affine_map<()[s0, s1] -> (s0, s1, 1)>
// CHECK-DAG:   #[[DROP:.+]] = affine_map<()[s0] -> (s0)>
// CHECK-LABEL: func.func @reductions
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[M:.+]] = tsc.reduce_mean
// CHECK-NEXT:    tsc.bind_shape %[[M]][%[[B]], %[[S]]], #[[KEEP]] : tensor<?x?x1xf32>
// CHECK-NEXT:    %[[N:.+]] = tsc.reduce_max
// CHECK-NEXT:    tsc.bind_shape %[[N]][%[[S]]], #[[DROP]] : tensor<?xf32>
func.func @reductions(%x: tensor<?x?x768xf32>) -> (tensor<?x?x1xf32>, tensor<?xf32>) {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 768)> : tensor<?x?x768xf32>
  %m = tsc.reduce_mean %x dims = [2] keepdim : (tensor<?x?x768xf32>) -> tensor<?x?x1xf32>
  %n = tsc.reduce_max %x dims = [0, 2] : (tensor<?x?x768xf32>) -> tensor<?xf32>
  return %m, %n : tensor<?x?x1xf32>, tensor<?xf32>
}

// -----

// The result is [batch, heads, query seq, value head dim].
// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0, s1] -> (s0, 32, s1, 64)>
// CHECK-LABEL: func.func @attention
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[O:.+]] = tsc.attention
// CHECK-NEXT:    tsc.bind_shape %[[O]][%[[B]], %[[S]]], #[[M]] : tensor<?x32x?x64xf32>
func.func @attention(%q: tensor<?x32x?x128xf32>, %k: tensor<?x8x?x128xf32>, %v: tensor<?x8x?x64xf32>) -> tensor<?x32x?x64xf32> {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  %t = tsc.symbol "kv" [1, 1024]
  tsc.bind_shape %q[%b, %s], affine_map<()[s0, s1] -> (s0, 32, s1, 128)> : tensor<?x32x?x128xf32>
  tsc.bind_shape %k[%b, %t], affine_map<()[s0, s1] -> (s0, 8, s1, 128)> : tensor<?x8x?x128xf32>
  tsc.bind_shape %v[%b, %t], affine_map<()[s0, s1] -> (s0, 8, s1, 64)> : tensor<?x8x?x64xf32>
  %o = tsc.attention %q, %k, %v causal : (tensor<?x32x?x128xf32>, tensor<?x8x?x128xf32>, tensor<?x8x?x64xf32>) -> tensor<?x32x?x64xf32>
  return %o : tensor<?x32x?x64xf32>
}

// -----

// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0, s1] -> (s0 * s1, 768)>
// CHECK-LABEL: func.func @reshape_product
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[Y:.+]] = tsc.reshape
// CHECK-NEXT:    tsc.bind_shape %[[Y]][%[[B]], %[[S]]], #[[M]] : tensor<?x768xf32>
func.func @reshape_product(%x: tensor<?x?x768xf32>) -> tensor<?x768xf32> {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 768)> : tensor<?x?x768xf32>
  %n = arith.muli %b, %s : index
  %y = tsc.reshape %x [%n] : tensor<?x?x768xf32> -> tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// A reshape's -1 as exporters compute it: the element count over the
// other dims, (b * s * 32) / (b * 4 * 8), a product of symbols divided by
// some of them, is exact.
// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0, s1] -> (s0 * 4, s1, 8)>
// CHECK-LABEL: func.func @reshape_exact_quotient
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[Y:.+]] = tsc.reshape
// CHECK-NEXT:    tsc.bind_shape %[[Y]][%[[B]], %[[S]]], #[[M]] : tensor<?x?x8xf32>
func.func @reshape_exact_quotient(%x: tensor<?x4x?x8xf32>) -> tensor<?x?x8xf32> {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, 4, s1, 8)> : tensor<?x4x?x8xf32>
  %bh = arith.muli %b, %c4 : index
  %bs = arith.muli %b, %s : index
  %n = arith.muli %bs, %c32 : index
  %d = arith.muli %bh, %c8 : index
  %rest = arith.divui %n, %d : index
  %y = tsc.reshape %x [%bh, %rest] : tensor<?x4x?x8xf32> -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// Only an exact quotient: s / b is not a product of symbols.
// CHECK-LABEL: func.func @reshape_inexact_quotient
// CHECK:         tsc.reshape
// CHECK-NOT:     tsc.bind_shape
// CHECK:         return
func.func @reshape_inexact_quotient(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1)> : tensor<?x?xf32>
  %q = arith.divui %s, %b : index
  %n = arith.muli %b, %b : index
  %y = tsc.reshape %x [%q, %n] : tensor<?x?xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0, s1] -> (s0, 12, s1, 64)>
// CHECK-LABEL: func.func @transpose
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[T:.+]] = tsc.transpose
// CHECK-NEXT:    tsc.bind_shape %[[T]][%[[B]], %[[S]]], #[[M]] : tensor<?x12x?x64xf32>
func.func @transpose(%x: tensor<?x?x12x64xf32>) -> tensor<?x12x?x64xf32> {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 12, 64)> : tensor<?x?x12x64xf32>
  %t = tsc.transpose %x perm = [0, 2, 1, 3] : (tensor<?x?x12x64xf32>) -> tensor<?x12x?x64xf32>
  return %t : tensor<?x12x?x64xf32>
}

// -----

// The concat axis is the sum of the inputs' sizes.
// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0, s1] -> (s0, 12, s1 + 1, 64)>
// CHECK-LABEL: func.func @concat_sum
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[P:.+]] = tsc.symbol "past"
// CHECK:         %[[KV:.+]] = tsc.concat
// CHECK-NEXT:    tsc.bind_shape %[[KV]][%[[B]], %[[P]]], #[[M]] : tensor<?x12x?x64xf32>
func.func @concat_sum(%p: tensor<?x12x?x64xf32>, %n: tensor<?x12x1x64xf32>) -> tensor<?x12x?x64xf32> {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "past" [0, 512]
  tsc.bind_shape %p[%b, %s], affine_map<()[s0, s1] -> (s0, 12, s1, 64)> : tensor<?x12x?x64xf32>
  tsc.bind_shape %n[%b], affine_map<()[s0] -> (s0, 12, 1, 64)> : tensor<?x12x1x64xf32>
  %kv = tsc.concat %p, %n axis = 2 : (tensor<?x12x?x64xf32>, tensor<?x12x1x64xf32>) -> tensor<?x12x?x64xf32>
  return %kv : tensor<?x12x?x64xf32>
}

// -----

// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0] -> (s0, 384)>
// CHECK-LABEL: func.func @slice_symbol_size
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[Y:.+]] = tsc.slice
// CHECK-NEXT:    tsc.bind_shape %[[Y]][%[[S]]], #[[M]] : tensor<?x384xf32>
func.func @slice_symbol_size(%t: tensor<512x384xf32>) -> tensor<?x384xf32> {
  %s = tsc.symbol "seq" [1, 512]
  %y = tsc.slice %t [0, 0] [%s, 384] [1, 1] : tensor<512x384xf32> to tensor<?x384xf32>
  return %y : tensor<?x384xf32>
}

// -----

// CHECK-DAG:   #[[M768:.+]] = affine_map<()[s0, s1] -> (s0, s1, 768)>
// CHECK-DAG:   #[[M1536:.+]] = affine_map<()[s0, s1] -> (s0, s1, 1536)>
// CHECK-LABEL: func.func @split
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[R:.+]]:2 = tsc.split
// CHECK-DAG:     tsc.bind_shape %[[R]]#0[%[[B]], %[[S]]], #[[M768]] : tensor<?x?x768xf32>
// CHECK-DAG:     tsc.bind_shape %[[R]]#1[%[[B]], %[[S]]], #[[M1536]] : tensor<?x?x1536xf32>
// CHECK:         return
func.func @split(%x: tensor<?x?x2304xf32>) -> (tensor<?x?x768xf32>, tensor<?x?x1536xf32>) {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 2304)> : tensor<?x?x2304xf32>
  %q, %kv = tsc.split %x axis = 2 sizes = [768, 1536] : tensor<?x?x2304xf32> -> tensor<?x?x768xf32>, tensor<?x?x1536xf32>
  return %q, %kv : tensor<?x?x768xf32>, tensor<?x?x1536xf32>
}

// -----

// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0, s1] -> (s0, s1, 384)>
// CHECK-LABEL: func.func @gather
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[E:.+]] = tsc.gather
// CHECK-NEXT:    tsc.bind_shape %[[E]][%[[B]], %[[S]]], #[[M]] : tensor<?x?x384xf32>
func.func @gather(%t: tensor<30522x384xf32>, %ids: tensor<?x?xi64>) -> tensor<?x?x384xf32> {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %ids[%b, %s], affine_map<()[s0, s1] -> (s0, s1)> : tensor<?x?xi64>
  %e = tsc.gather %t[%ids] axis = 0 : (tensor<30522x384xf32>, tensor<?x?xi64>) -> tensor<?x?x384xf32>
  return %e : tensor<?x?x384xf32>
}

// -----

// CHECK-DAG:   #[[SQ:.+]] = affine_map<()[s0, s1] -> (s0, s1)>
// CHECK-DAG:   #[[UN:.+]] = affine_map<()[s0, s1] -> (s0, 1, 1, s1)>
// CHECK-LABEL: func.func @squeeze_unsqueeze
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[Q:.+]] = tsc.squeeze
// CHECK-NEXT:    tsc.bind_shape %[[Q]][%[[B]], %[[S]]], #[[SQ]] : tensor<?x?xf32>
// CHECK-NEXT:    %[[U:.+]] = tsc.unsqueeze
// CHECK-NEXT:    tsc.bind_shape %[[U]][%[[B]], %[[S]]], #[[UN]] : tensor<?x1x1x?xf32>
func.func @squeeze_unsqueeze(%x: tensor<?x1x?xf32>) -> tensor<?x1x1x?xf32> {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, 1, s1)> : tensor<?x1x?xf32>
  %q = tsc.squeeze %x dims = [1] : (tensor<?x1x?xf32>) -> tensor<?x?xf32>
  %u = tsc.unsqueeze %q dims = [1, 2] : (tensor<?x?xf32>) -> tensor<?x1x1x?xf32>
  return %u : tensor<?x1x1x?xf32>
}

// -----

// range(1, seq, 2) has ceil((seq - 1) / 2) elements.
// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0] -> ((s0 - 1) ceildiv 2)>
// CHECK-LABEL: func.func @range_ceildiv
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[P:.+]] = tsc.range
// CHECK-NEXT:    tsc.bind_shape %[[P]][%[[S]]], #[[M]] : tensor<?xi64>
func.func @range_ceildiv() -> tensor<?xi64> {
  %s = tsc.symbol "seq" [1, 512]
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = tsc.range %c1, %s, %c2 : index -> tensor<?xi64>
  return %p : tensor<?xi64>
}

// -----

// tsc.dim reads the bound shape of its operand.
// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0, s1] -> (s0, s1, 12, 64)>
// CHECK-LABEL: func.func @dim_feeds_reshape
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK:         %[[Y:.+]] = tsc.reshape
// CHECK-NEXT:    tsc.bind_shape %[[Y]][%[[B]], %[[S]]], #[[M]] : tensor<?x?x12x64xf32>
func.func @dim_feeds_reshape(%x: tensor<?x?x768xf32>) -> tensor<?x?x12x64xf32> {
  %b = tsc.symbol "batch" [1, 8]
  %s = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 768)> : tensor<?x?x768xf32>
  %d0 = tsc.dim %x, 0 : tensor<?x?x768xf32>
  %d1 = tsc.dim %x, 1 : tensor<?x?x768xf32>
  %y = tsc.reshape %x [%d0, %d1] : tensor<?x?x768xf32> -> tensor<?x?x12x64xf32>
  return %y : tensor<?x?x12x64xf32>
}

// -----

// A value that already has a binding gets no second one; static tensors get
// none.
// CHECK-LABEL: func.func @already_bound_and_static
// CHECK:         %[[Y:.+]] = tsc.gelu
// CHECK-NEXT:    tsc.bind_shape %[[Y]]
// CHECK-NOT:     tsc.bind_shape
// CHECK:         return
func.func @already_bound_and_static(%x: tensor<?x768xf32>, %w: tensor<4x4xf32>) -> (tensor<?x768xf32>, tensor<4x4xf32>) {
  %n = tsc.symbol "n" [1, 16]
  tsc.bind_shape %x[%n], affine_map<()[s0] -> (s0, 768)> : tensor<?x768xf32>
  %y = tsc.gelu %x : tensor<?x768xf32>
  tsc.bind_shape %y[%n], affine_map<()[s0] -> (s0, 768)> : tensor<?x768xf32>
  %z = tsc.relu %w : tensor<4x4xf32>
  return %y, %z : tensor<?x768xf32>, tensor<4x4xf32>
}

// -----

// A binding goes after the last symbol declaration when the producer precedes
// it.
// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0] -> (s0, 768)>
// CHECK-LABEL: func.func @symbol_after_producer
// CHECK:         %[[N:.+]] = tsc.symbol "n"
// CHECK:         %[[Y:.+]] = tsc.gelu
// CHECK-NEXT:    tsc.symbol "m"
// CHECK-NEXT:    tsc.bind_shape %[[Y]][%[[N]]], #[[M]] : tensor<?x768xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @symbol_after_producer(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %n = tsc.symbol "n" [1, 16]
  tsc.bind_shape %x[%n], affine_map<()[s0] -> (s0, 768)> : tensor<?x768xf32>
  %y = tsc.gelu %x : tensor<?x768xf32>
  %m = tsc.symbol "m" [1, 4]
  return %y : tensor<?x768xf32>
}

// -----

// Without require-all, a shape that cannot be derived (a foreign op, and
// what depends on it) is left unbound.
// CHECK-LABEL: func.func @underivable_left_alone
// CHECK:         tsc.foreign
// CHECK-NOT:     tsc.bind_shape
// CHECK:         return
func.func @underivable_left_alone(%x: tensor<?xf32>) -> tensor<?xf32> {
  %n = tsc.symbol "n" [1, 16]
  tsc.bind_shape %x[%n], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  %y = tsc.foreign "onnx" "NonZero" version 13 (%x) {} : (tensor<?xf32>) -> tensor<?xf32>
  %z = tsc.relu %y : tensor<?xf32>
  return %z : tensor<?xf32>
}

// -----

// A batch dim of 1 broadcasts against the other operand's symbolic batch.
// CHECK-DAG:   #[[M:.+]] = affine_map<()[s0] -> (s0, 2, 4)>
// CHECK-LABEL: func.func @matmul_unit_batch_broadcasts
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[C:.+]] = tsc.matmul
// CHECK-NEXT:    tsc.bind_shape %[[C]][%[[B]]], #[[M]] : tensor<?x2x4xf32>
func.func @matmul_unit_batch_broadcasts(%a: tensor<1x2x3xf32>, %b: tensor<?x3x4xf32>) -> tensor<?x2x4xf32> {
  %batch = tsc.symbol "batch" [1, 8]
  tsc.bind_shape %b[%batch], affine_map<()[s0] -> (s0, 3, 4)> : tensor<?x3x4xf32>
  %c = tsc.matmul %a, %b : (tensor<1x2x3xf32>, tensor<?x3x4xf32>) -> tensor<?x2x4xf32>
  return %c : tensor<?x2x4xf32>
}
