// The README's first command: the bundled encoder layer through the graph
// phase. Every dynamic tensor ends up bound to `batch` and `seq`; re-running
// the binding pass on the result finds nothing left to bind (the diff).
// RUN: tsc %tsc_src_root/docs/examples/encoder_layer.mlir --emit=graph --dim seq=1..128 | FileCheck %s
// RUN: tsc %tsc_src_root/docs/examples/encoder_layer.mlir --emit=graph -o %t.graph.mlir
// RUN: tsc-opt %t.graph.mlir --tsc-bind-symbolic-shapes=require-all | diff %t.graph.mlir -

// CHECK-DAG:   #[[BSH:.+]] = affine_map<()[s0, s1] -> (s0, s1, 32)>
// CHECK-DAG:   #[[HEADS:.+]] = affine_map<()[s0, s1] -> (s0, 4, s1, 8)>
// CHECK-DAG:   #[[MASK:.+]] = affine_map<()[s0, s1] -> (s0, 1, 1, s1)>
// CHECK-LABEL: func.func @encoder_layer
// CHECK:         %[[B:.+]] = tsc.symbol "batch" [1, 64]
// CHECK:         %[[S:.+]] = tsc.symbol "seq" [1, 128]
// CHECK-NOT:     tsc.dim
// CHECK:         %[[M:.+]] = tsc.unsqueeze
// CHECK-NEXT:    tsc.bind_shape %[[M]][%[[B]], %[[S]]], #[[MASK]]
// CHECK:         %[[CTX:.+]] = tsc.attention
// CHECK-NEXT:    tsc.bind_shape %[[CTX]][%[[B]], %[[S]]], #[[HEADS]]
// CHECK:         tsc.layer_norm
// CHECK:         %[[OUT:.+]] = tsc.layer_norm
// CHECK-NEXT:    tsc.bind_shape %[[OUT]][%[[B]], %[[S]]], #[[BSH]]
// CHECK-NEXT:    return %[[OUT]]
