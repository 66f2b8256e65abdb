// RUN: tsc-opt %s --split-input-file --tsc-cuda-lower-exp-to-exp2 | FileCheck %s

// exp(x) = 2^(x·log2 e) through ex2.approx.f32; a half exp computes in f32.

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @exp_f32_and_f16
  // CHECK-SAME:    (%[[X:.+]]: f32, %[[H:.+]]: f16,
  gpu.func @exp_f32_and_f16(%x: f32, %h: f16, %out: memref<2xf32>, %hout: memref<f16>) kernel {
    // CHECK-NOT:   math.exp
    // CHECK:       %[[LOG2E:.+]] = arith.constant 1.44269502 : f32
    // CHECK:       %[[XS:.+]] = arith.mulf %[[X]], %[[LOG2E]] : f32
    // CHECK:       %[[E:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[XS]]) : (f32) -> f32
    // CHECK:       memref.store %[[E]]
    // CHECK:       %[[HX:.+]] = arith.extf %[[H]] : f16 to f32
    // CHECK:       %[[HS:.+]] = arith.mulf %[[HX]], %{{.+}} : f32
    // CHECK:       %[[HE:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[HS]])
    // CHECK:       %[[HT:.+]] = arith.truncf %[[HE]] : f32 to f16
    // CHECK:       memref.store %[[HT]]
    %c0 = arith.constant 0 : index
    %e = math.exp %x : f32
    memref.store %e, %out[%c0] : memref<2xf32>
    %eh = math.exp %h : f16
    memref.store %eh, %hout[] : memref<f16>
    gpu.return
  }
}

// -----

// f64 has no ex2.approx: its exp is left to the NVVM lowering (libdevice).

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @exp_f64_left
  // CHECK:         math.exp %{{.+}} : f64
  // CHECK-NOT:     ex2.approx
  gpu.func @exp_f64_left(%x: f64, %out: memref<f64>) kernel {
    %e = math.exp %x : f64
    memref.store %e, %out[] : memref<f64>
    gpu.return
  }
}
