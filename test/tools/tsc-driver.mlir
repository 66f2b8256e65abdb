// The tsc driver: phases, --dim, output files, weight elision.
// RUN: tsc %s --emit=import | FileCheck %s --check-prefix=IMPORT
// RUN: tsc %s --emit=graph | FileCheck %s --check-prefix=GRAPH
// RUN: tsc %s --emit=graph --dim seq=2..256 | FileCheck %s --check-prefix=DIM
// RUN: tsc %s --emit=graph -o %t.mlir && FileCheck %s --check-prefix=GRAPH --input-file=%t.mlir
// RUN: tsc %s --emit=import | FileCheck %s --check-prefix=ELIDED
// RUN: tsc %s --emit=import --print-weights | FileCheck %s --check-prefix=WEIGHTS
// RUN: tsc %s --emit=graph | tsc-opt --tsc-bind-symbolic-shapes=require-all | FileCheck %s --check-prefix=GRAPH

// IMPORT-LABEL: func.func @scaled
// IMPORT:         %[[SEQ:.+]] = tsc.symbol "seq" [1, 512]
// IMPORT:         tsc.dim
// IMPORT-NOT:     tsc.bind_shape %{{.*}}[%[[SEQ]]], {{.*}} : tensor<?x64xf32>

// GRAPH-LABEL: func.func @scaled
// GRAPH-SAME:    (%[[X:.+]]: tensor<?x64xf32>)
// GRAPH:         %[[SEQ:.+]] = tsc.symbol "seq" [1, 512]
// GRAPH-NOT:     tsc.dim
// GRAPH:         %[[Y:.+]] = tsc.mul %[[X]]
// GRAPH-NEXT:    tsc.bind_shape %[[Y]][%[[SEQ]]], #{{.+}} : tensor<?x64xf32>
// GRAPH:         %[[R:.+]] = tsc.reshape %[[Y]][%[[SEQ]]] : tensor<?x64xf32> -> tensor<?x8x8xf32>
// GRAPH-NEXT:    tsc.bind_shape %[[R]][%[[SEQ]]], #{{.+}} : tensor<?x8x8xf32>

// DIM: tsc.symbol "seq" [2, 256]

// Weight blobs are left out of --emit output unless asked for.
// ELIDED: dense_resource<scale>
// ELIDED-NOT: 0x04000000
// WEIGHTS: dense_resource<scale>
// WEIGHTS: scale: "0x04000000

func.func @scaled(%x: tensor<?x64xf32>) -> tensor<?x8x8xf32> {
  %seq = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %x[%seq], affine_map<()[s0] -> (s0, 64)> : tensor<?x64xf32>
  %scale = tsc.constant dense_resource<scale> : tensor<64xf32>
  %y = tsc.mul %x, %scale : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %n = tsc.dim %x, 0 : tensor<?x64xf32>
  %r = tsc.reshape %y [%n] : tensor<?x64xf32> -> tensor<?x8x8xf32>
  return %r : tensor<?x8x8xf32>
}

{-#
  dialect_resources: {
    builtin: {
      scale: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F"
    }
  }
#-}
