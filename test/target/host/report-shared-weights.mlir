// tsc --report on a module applied twice with the same weights (ALBERT
// shares one layer's weights across its layers, and every application
// carries the module's name): each application counts as a layer. A GEMM
// step reading a weight that a GEMM step of the same application read
// starts the next application; GEMMs by other weights in one layer do not.
// RUN: tsc %s --report | FileCheck %s

// CHECK:      layers: 3, at most 3 kernels + library calls each
// CHECK-NEXT:   /layers.0 1 kernels 1 GEMM calls 0 copies
// CHECK-NEXT:   /layers.0 #2 1 kernels 1 GEMM calls 0 copies
// CHECK-NEXT:   /layers.1 1 kernels 2 GEMM calls 0 copies
// CHECK-NEXT:   (outside layers) 0 kernels 0 GEMM calls 0 copies
// CHECK:      steps:
// CHECK-NEXT:    0 gemm {{.*}} /layers.0{{$}}
// CHECK-NEXT:    1 tsc_kernel_{{.*}} /layers.0{{$}}
// CHECK-NEXT:    2 gemm {{.*}} /layers.0 #2{{$}}
// CHECK-NEXT:    3 tsc_kernel_{{.*}} /layers.0 #2{{$}}
// CHECK-NEXT:    4 gemm {{.*}} /layers.1{{$}}
// CHECK-NEXT:    5 tsc_kernel_{{.*}} /layers.1{{$}}
// CHECK-NEXT:    6 gemm {{.*}} /layers.1{{$}}

func.func @shared(%x: tensor<?x8xf32> {tsc.name = "x"}) -> (tensor<?x8xf32> {tsc.name = "y"}) {
  %seq = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %w = tsc.constant dense<0.25> : tensor<8x8xf32>
  %w1 = tsc.constant dense<0.5> : tensor<8x8xf32>
  %w2 = tsc.constant dense<0.125> : tensor<8x8xf32>
  %a = tsc.matmul %x, %w : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32> loc("/layers.0/dense/MatMul")
  tsc.bind_shape %a[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %ea = tsc.exp %a : tensor<?x8xf32> loc("/layers.0/Exp")
  tsc.bind_shape %ea[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %b = tsc.matmul %ea, %w : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32> loc("/layers.0/dense_1/MatMul")
  tsc.bind_shape %b[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %eb = tsc.exp %b : tensor<?x8xf32> loc("/layers.0/Exp_1")
  tsc.bind_shape %eb[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %c = tsc.matmul %eb, %w1 : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32> loc("/layers.1/up/MatMul")
  tsc.bind_shape %c[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %ec = tsc.exp %c : tensor<?x8xf32> loc("/layers.1/Exp")
  tsc.bind_shape %ec[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %y = tsc.matmul %ec, %w2 : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32> loc("/layers.1/down/MatMul")
  tsc.bind_shape %y[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
