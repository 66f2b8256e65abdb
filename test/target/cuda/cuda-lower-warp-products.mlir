// RUN: tsc-opt %s --split-input-file --verify-diagnostics --tsc-cuda-lower-warp-products | FileCheck %s

// A warp's 16 x 8 x 16 product on shared tiles, as emitWarpProduct writes it
// in a warp phase (the rows the warp's, the k tiles unrolled): per-lane
// ldmatrix loads of both operands (B transposed) and one mma.sync; no
// vector.contract is left.

#wg = #gpu.address_space<workgroup>
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
gpu.module @kernels {
  // CHECK-LABEL: gpu.func @f16_product
  // CHECK-NOT:     vector.contract
  // CHECK-DAG:     nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = false} : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  // CHECK-DAG:     nvgpu.ldmatrix %{{.+}} {numTiles = 2 : i32, transpose = true} : memref<16x8xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  // CHECK:         nvgpu.mma.sync(%{{.+}}, %{{.+}}, %{{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  // CHECK-NOT:     vector.contract
  // CHECK:         gpu.return
  gpu.func @f16_product(%t: index)
      workgroup(%a: memref<16x16xf16, #wg>, %b: memref<16x8xf16, #wg>, %c: memref<16x8xf32, #wg>) kernel {
    scf.execute_region {
      %c0 = arith.constant 0 : index
      %h0 = arith.constant 0.0 : f16
      %f0 = arith.constant 0.0 : f32
      %row = affine.apply affine_map<(d0) -> ((d0 floordiv 32) * 32)>(%t)
      %lhs = vector.transfer_read %a[%row, %c0], %h0 {in_bounds = [true, true]} : memref<16x16xf16, #wg>, vector<16x16xf16>
      %rhs = vector.transfer_read %b[%c0, %c0], %h0 {in_bounds = [true, true]} : memref<16x8xf16, #wg>, vector<16x8xf16>
      %acc = vector.transfer_read %c[%row, %c0], %f0 {in_bounds = [true, true]} : memref<16x8xf32, #wg>, vector<16x8xf32>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<16x16xf16>, vector<16x8xf16> into vector<16x8xf32>
      vector.transfer_write %r, %c[%row, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32, #wg>
      scf.yield
    } {tsc.warp_product}
    gpu.return
  }
}

// -----

// bf16: the tiles are views of one shared byte buffer, read again as f16
// views of the same bytes (ldmatrix moves bits), and the product is NVVM's
// bf16 mma.sync.

#wg = #gpu.address_space<workgroup>
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
gpu.module @kernels {
  // CHECK-LABEL: gpu.func @bf16_product
  // CHECK-DAG:     %[[A:.+]] = memref.view %{{.+}}[%{{.+}}][] : memref<2048xi8, #gpu.address_space<workgroup>> to memref<16x16xf16, #gpu.address_space<workgroup>>
  // CHECK-DAG:     %[[B:.+]] = memref.view %{{.+}}[%{{.+}}][] : memref<2048xi8, #gpu.address_space<workgroup>> to memref<16x8xf16, #gpu.address_space<workgroup>>
  // CHECK:         nvgpu.ldmatrix %[[A]]
  // CHECK:         nvgpu.ldmatrix %[[B]]{{.+}}transpose = true
  // CHECK:         nvvm.mma.sync
  // CHECK-SAME:      multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>
  // CHECK-NOT:     vector.contract
  gpu.func @bf16_product(%t: index) workgroup(%bytes: memref<2048xi8, #wg>) kernel {
    %o0 = arith.constant 0 : index
    %o512 = arith.constant 512 : index
    %o1024 = arith.constant 1024 : index
    %a = memref.view %bytes[%o0][] : memref<2048xi8, #wg> to memref<16x16xbf16, #wg>
    %b = memref.view %bytes[%o512][] : memref<2048xi8, #wg> to memref<16x8xbf16, #wg>
    %c = memref.view %bytes[%o1024][] : memref<2048xi8, #wg> to memref<16x8xf32, #wg>
    scf.execute_region {
      %c0 = arith.constant 0 : index
      %h0 = arith.constant 0.0 : bf16
      %f0 = arith.constant 0.0 : f32
      %row = affine.apply affine_map<(d0) -> ((d0 floordiv 32) * 32)>(%t)
      %lhs = vector.transfer_read %a[%row, %c0], %h0 {in_bounds = [true, true]} : memref<16x16xbf16, #wg>, vector<16x16xbf16>
      %rhs = vector.transfer_read %b[%c0, %c0], %h0 {in_bounds = [true, true]} : memref<16x8xbf16, #wg>, vector<16x8xbf16>
      %acc = vector.transfer_read %c[%row, %c0], %f0 {in_bounds = [true, true]} : memref<16x8xf32, #wg>, vector<16x8xf32>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
      vector.transfer_write %r, %c[%row, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32, #wg>
      scf.yield
    } {tsc.warp_product}
    gpu.return
  }
}

// -----

// Near miss: a bf16 tile that is not a view of a byte buffer has no f16
// view for ldmatrix: an error at the read, not a wrong product.

#wg = #gpu.address_space<workgroup>
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
gpu.module @kernels {
  gpu.func @bf16_tile_not_from_bytes(%t: index)
      workgroup(%a: memref<16x16xbf16, #wg>, %b: memref<16x8xbf16, #wg>, %c: memref<16x8xf32, #wg>) kernel {
    scf.execute_region {
      %c0 = arith.constant 0 : index
      %h0 = arith.constant 0.0 : bf16
      %f0 = arith.constant 0.0 : f32
      %row = affine.apply affine_map<(d0) -> ((d0 floordiv 32) * 32)>(%t)
      // expected-error @+1 {{a bf16 tensor-core operand not read from a shared byte buffer}}
      %lhs = vector.transfer_read %a[%row, %c0], %h0 {in_bounds = [true, true]} : memref<16x16xbf16, #wg>, vector<16x16xbf16>
      %rhs = vector.transfer_read %b[%c0, %c0], %h0 {in_bounds = [true, true]} : memref<16x8xbf16, #wg>, vector<16x8xbf16>
      %acc = vector.transfer_read %c[%row, %c0], %f0 {in_bounds = [true, true]} : memref<16x8xf32, #wg>, vector<16x8xf32>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
      vector.transfer_write %r, %c[%row, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32, #wg>
      scf.yield
    } {tsc.warp_product}
    gpu.return
  }
}

// -----

// Near miss: a product outside a warp-product region (a thread's own
// work) is left as it is.

#wg = #gpu.address_space<workgroup>
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
gpu.module @kernels {
  // CHECK-LABEL: gpu.func @unmarked_region
  // CHECK-NOT:     nvgpu.
  // CHECK:         vector.contract
  // CHECK-NOT:     nvgpu.
  // CHECK:         gpu.return
  gpu.func @unmarked_region(%t: index)
      workgroup(%a: memref<16x16xf16, #wg>, %b: memref<16x8xf16, #wg>, %c: memref<16x8xf32, #wg>) kernel {
    scf.execute_region {
      %c0 = arith.constant 0 : index
      %h0 = arith.constant 0.0 : f16
      %f0 = arith.constant 0.0 : f32
      %row = affine.apply affine_map<(d0) -> ((d0 floordiv 32) * 32)>(%t)
      %lhs = vector.transfer_read %a[%row, %c0], %h0 {in_bounds = [true, true]} : memref<16x16xf16, #wg>, vector<16x16xf16>
      %rhs = vector.transfer_read %b[%c0, %c0], %h0 {in_bounds = [true, true]} : memref<16x8xf16, #wg>, vector<16x8xf16>
      %acc = vector.transfer_read %c[%row, %c0], %f0 {in_bounds = [true, true]} : memref<16x8xf32, #wg>, vector<16x8xf32>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<16x16xf16>, vector<16x8xf16> into vector<16x8xf32>
      vector.transfer_write %r, %c[%row, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32, #wg>
      scf.yield
    }
    gpu.return
  }
}
