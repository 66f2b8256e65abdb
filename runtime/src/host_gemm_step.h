//===- host_gemm_step.h - one host GEMM step's oneDNN state -----*- C++ -*-===//
//
// What host_gemm.cpp (every GEMM step) and host_gemm_int8.cpp (the int8
// steps' codes, quantization and primitive) share: a step's sizes, its
// primitives per shape, and its prepared weight.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_HOST_GEMM_STEP_H
#define TSC_RUNTIME_HOST_GEMM_STEP_H

#include "model.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace tsc::rt::gemm {

using dnnl::memory;
using Dims = memory::dims;

/// One GEMM's sizes, leading dimensions and strides at some symbol values.
struct Shape {
  int64_t batch = 0, m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  bool operator==(const Shape &o) const {
    return batch == o.batch && m == o.m && n == o.n && k == o.k &&
           lda == o.lda && ldb == o.ldb && ldc == o.ldc &&
           strideA == o.strideA && strideB == o.strideB && strideC == o.strideC;
  }
};

/// A batch of rows × cols matrices, `transposed` when stored cols × rows,
/// with leading dimension ld. A zero stride between problems broadcasts one
/// matrix over the batch. `flat`: one problem, described as a 2-D matrix
/// (see HostGemms::Impl::makeEntry).
memory::desc matrixDesc(memory::data_type type, int64_t batch, int64_t rows,
                        int64_t cols, int64_t ld, int64_t stride,
                        bool transposed, bool flat = false);

/// The epilogue's activation as a oneDNN eltwise post-op (none: nothing).
void appendActivation(dnnl::post_ops &ops, GemmActivation a);

/// B's f32 scales, a weight: per output channel, or per group along K.
const float *weightScales(const tsc_model_s &model, const GemmStep &g);

/// A primitive for one shape, and whether its B is the prepared weight.
struct Entry {
  Shape shape;
  dnnl::matmul primitive;
  bool preparedB = false;
  memory::desc a, b, c, bias;
  bool biasArg = false; // bias as the matmul's bias, else a binary post-op
  /// An int8 step's bias is in its matmulBias (biasArg: the matmul has one).
  bool biasFolded = false;
  /// An int8 step with row scales: the matmul writes `product` (C itself,
  /// or with a sum post-op, `separateProduct`, the session's product
  /// buffer), and `rowScale`, a binary multiply by the [M, 1] scales,
  /// writes C with the epilogue's post-ops.
  dnnl::binary rowScale;
  memory::desc product;
  bool separateProduct = false;
};

struct AlignedFree {
  void operator()(void *p) const { std::free(p); }
};

/// One GEMM step's state.
struct StepState {
  const GemmStep *g = nullptr;
  uint8_t dtype = TSC_DTYPE_F32; // of C (and A, B)
  /// The primitive computes in f32 on operands widened from fp16/bf16.
  bool widen = false;
  /// Format 1.16: A and B are f32 and rounded to bf16; A each run, into
  /// roundedA.
  bool bf16Inputs = false;
  /// With bf16Inputs: a bf16 primitive with an f32 C, B rounded once when
  /// it is prepared; else (no such primitive, or B not prepared) an f32 one
  /// on A's rounded values and B as stored, whose values are bf16's (the
  /// compiler rounds them).
  bool bf16Product = false;
  /// An int8 GEMM (format 1.10): A quantized per row into s8 codes each run
  /// (given to oneDNN in the form Int8Gemms::Codes says), B s8, products
  /// summed exactly, dequantized by output scales (B's, per column) and a
  /// post-op (A's, per row); with A's scale a constant (1.12), the output
  /// scales are the products of both and there is no post-op.
  bool int8 = false;
  /// An int8 step on a CPU whose int8 products saturate (Codes::F32) whose
  /// weight B is codes in [-64, 64] only (a 7-bit weight: tsc
  /// --narrow-int8-weights, ONNX Runtime's reduce_range): the u8 x s8
  /// kernels' 16-bit pair sums cannot saturate (2 x 255 x 64 <= 32,767),
  /// so it runs them (Codes::U8) rather than f32 products.
  bool narrowWeight = false;
  /// With A's zero point z as the primitive reads it (1.17; + 128 for u8
  /// codes): the product of the codes by B less z times B's column sums,
  /// Σ_k B_kn per column n; computed once when B is a weight (with the
  /// session), else each run.
  std::vector<float> columnSums;
  /// The int8 matmul's own bias, which oneDNN 2.6 adds before the output
  /// scales: -z·Σ_k B_kn per column, plus bias / (scale(A)·scale(B_n)) for
  /// a constant-scale step whose bias is a weight (Entry::biasFolded);
  /// taken once (again each run when B is not a weight). The post-ops it
  /// saves cost 0.4-0.8 ms a layer of BERT-base at batch 8
  /// (docs/quantization.md).
  std::vector<float> matmulBias;
  bool biasIsConstant = false; // the bias is a weight, or there is none
  /// A weight-only GEMM (format 1.15): B is an i8 or i4 weight, dequantized
  /// into `dequantized` (f32, B's layout) when it is first needed: at
  /// session creation when it is prepared, which then drops the copy, or at
  /// the first run of a shape the prepared weight does not serve.
  bool weightOnly = false;
  std::vector<float> dequantized;
  /// B is a weight, reordered into `preparedDesc` at `prepared`.
  bool weightB = false;
  memory::desc preparedDesc;
  bool paddedRows = false; // prepared with rows padded (unaliasedRows)
  std::unique_ptr<void, AlignedFree> prepared;
  std::vector<Entry> cache;
  size_t nextEvict = 0;
  std::string impl; // the implementation of the latest primitive
};

} // namespace tsc::rt::gemm

#endif // TSC_RUNTIME_HOST_GEMM_STEP_H
