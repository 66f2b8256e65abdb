// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg | FileCheck %s

// A direct (depthwise) convolution: one parallel generic over the result
// whose body loops over the group's channels and taps, reading the input
// with a bounds check in place of padding (position o + k - 1) and the
// weight at (f, c, k). The dynamic length is the input's: (len + 2 - 3) + 1.
// CHECK-LABEL: func.func @conv_depthwise
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4x?xf32>, %[[W:.+]]: tensor<4x1x3xf32>)
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG:     %[[LEN:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x4x?xf32>
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%{{.+}}, %{{.+}}) : tensor<?x4x?xf32>
// CHECK:         %[[Y:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel"]} outs(%[[EMPTY]] : tensor<?x4x?xf32>)
// CHECK:           %[[F:.+]] = linalg.index 1 : index
// CHECK:           %[[O:.+]] = linalg.index 2 : index
// CHECK:           %[[SUM:.+]] = scf.for %[[T:.+]] = %{{.+}} to %[[C3]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (f32) {
// CHECK:             %[[K:.+]] = arith.remui %[[T]], %[[C3]] : index
// CHECK:             %[[POS0:.+]] = arith.addi %[[O]], %[[K]] : index
// CHECK:             %[[POS:.+]] = arith.addi %[[POS0]], %{{.+}} : index
// CHECK:             %[[LOW:.+]] = arith.cmpi sge, %[[POS]], %{{.+}} : index
// CHECK:             %[[HIGH:.+]] = arith.cmpi slt, %[[POS]], %[[LEN]] : index
// CHECK:             %[[IN:.+]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK:             %[[SAFE:.+]] = arith.select %[[IN]], %[[POS]], %{{.+}} : index
// CHECK:             %[[V:.+]] = tensor.extract %[[X]][%{{.+}}, %{{.+}}, %[[SAFE]]] : tensor<?x4x?xf32>
// CHECK:             %[[XV:.+]] = arith.select %[[IN]], %[[V]], %[[ZERO]] : f32
// CHECK:             %[[WV:.+]] = tensor.extract %[[W]][%[[F]], %{{.+}}, %[[K]]] : tensor<4x1x3xf32>
// CHECK:             %[[P:.+]] = arith.mulf %[[XV]], %[[WV]] : f32
// CHECK:             %[[NEXT:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK:             scf.yield %[[NEXT]] : f32
// CHECK:           linalg.yield %[[SUM]] : f32
// CHECK:         return %[[Y]]
func.func @conv_depthwise(%x: tensor<?x4x?xf32>, %w: tensor<4x1x3xf32>) -> tensor<?x4x?xf32> {
  %y = tsc.conv %x, %w strides = [1] pads = [1, 1] dilations = [1] group = 4
      : (tensor<?x4x?xf32>, tensor<4x1x3xf32>) -> tensor<?x4x?xf32>
  return %y : tensor<?x4x?xf32>
}

// -----

// Average pooling sums the window and counts the elements inside the
// input (count_include_pad off) in the same loop, then divides.
// CHECK-LABEL: func.func @avg_pool
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C9:.+]] = arith.constant 9 : index
// CHECK:         linalg.generic
// CHECK:           %[[R:.+]]:2 = scf.for %{{.+}} = %{{.+}} to %[[C9]] step %{{.+}} iter_args(%[[S:.+]] = %[[ZERO]], %[[N:.+]] = %[[ZERO]]) -> (f32, f32) {
// CHECK:             %[[IN_H:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK:             %[[IN_W:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK:             %[[IN:.+]] = arith.andi %[[IN_H]], %[[IN_W]] : i1
// CHECK:             %[[V:.+]] = tensor.extract
// CHECK:             %[[XV:.+]] = arith.select %[[IN]], %[[V]], %[[ZERO]] : f32
// CHECK:             %[[CNT:.+]] = arith.select %[[IN]], %[[ONE]], %[[ZERO]] : f32
// CHECK:             %[[S2:.+]] = arith.addf %[[S]], %[[XV]] : f32
// CHECK:             %[[N2:.+]] = arith.addf %[[N]], %[[CNT]] : f32
// CHECK:             scf.yield %[[S2]], %[[N2]] : f32, f32
// CHECK:           %[[AVG:.+]] = arith.divf %[[R]]#0, %[[R]]#1 : f32
// CHECK:           linalg.yield %[[AVG]] : f32
func.func @avg_pool(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = tsc.avg_pool %x kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] dilations = [1, 1]
      : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// im2col is a gather: all loops parallel, no window loop.
// CHECK-LABEL: func.func @im2col
// CHECK:         linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
// CHECK-NOT:     scf.for
// CHECK:         tensor.extract
// CHECK:         return
func.func @im2col(%x: tensor<1x3x4x4xf32>) -> tensor<1x2x2x3x2x2xf32> {
  %p = tsc.im2col %x kernel_shape = [2, 2] strides = [2, 2] pads = [0, 0, 0, 0] dilations = [1, 1]
      : (tensor<1x3x4x4xf32>) -> tensor<1x2x2x3x2x2xf32>
  return %p : tensor<1x2x2x3x2x2xf32>
}

// -----

// Resize interpolates one dim at a time; with constant scales, dims at
// scale 1 are left alone: one generic for dim 2, its coordinate
// (o + 0.5) / 2 - 0.5 in f64 and two linear taps from ceil(x) - 1.
// CHECK-LABEL: func.func @resize_one_dim
// CHECK-DAG:     %[[HALF:.+]] = arith.constant 5.000000e-01 : f64
// CHECK-DAG:     %[[TWO:.+]] = arith.constant 2.000000e+00 : f64
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK:         %[[Y:.+]] = linalg.generic
// CHECK:           %[[O:.+]] = linalg.index 2 : index
// CHECK:           %[[OF:.+]] = arith.sitofp %{{.+}} : i64 to f64
// CHECK:           %[[SHIFTED:.+]] = arith.addf %[[OF]], %[[HALF]] : f64
// CHECK:           %[[SCALED:.+]] = arith.divf %[[SHIFTED]], %[[TWO]] : f64
// CHECK:           %[[COORD:.+]] = arith.subf %[[SCALED]], %[[HALF]] : f64
// CHECK:           math.ceil %[[COORD]] : f64
// CHECK:           scf.for %{{.+}} = %{{.+}} to %[[C2]] step
// CHECK:             tensor.extract
// CHECK:           arith.divf
// CHECK:           arith.truncf %{{.+}} : f64 to f32
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
func.func @resize_one_dim(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x8x4xf32> {
  %s = tsc.constant dense<[1.0, 1.0, 2.0, 1.0]> : tensor<4xf64>
  %y = tsc.resize %x, %s mode = linear coordinate_transformation = half_pixel
      : (tensor<1x2x4x4xf32>, tensor<4xf64>) -> tensor<1x2x8x4xf32>
  return %y : tensor<1x2x8x4xf32>
}
