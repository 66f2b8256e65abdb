//===- host_gemm_int8.h - a host session's int8 GEMM steps ------*- C++ -*-===//
//
// The int8 steps of a session's GEMMs (format 1.10 per-row scales, 1.12
// constant ones, 1.17 zero points, 1.21 smoothing multipliers): A quantized
// each run, in the form the CPU's oneDNN kernels multiply fastest and
// exactly; the matmul (and the row scales' binary primitive) with the
// epilogue; the zero point's term.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_HOST_GEMM_INT8_H
#define TSC_RUNTIME_HOST_GEMM_INT8_H

#include "host_gemm_step.h"

namespace tsc::rt::gemm {

class Int8Gemms {
public:
  /// How A's codes reach oneDNN, by the ISA it runs:
  /// - AMX multiplies s8 by s8: the codes as they are (S8);
  /// - AVX-512 VNNI and AVX-VNNI multiply u8 by s8, and oneDNN 2.6 runs an
  ///   s8 A there by adding 128 to every broadcast of A in its kernel's
  ///   inner loop, one more instruction for each four products (15 % of
  ///   BERT-base's int8 GEMM time on a Xeon with VNNI): the code + 128 as
  ///   u8 instead, the zero point + 128 with it (U8);
  /// - without VNNI oneDNN 2.6 multiplies with vpmaddubsw, which adds
  ///   pairs of u8·s8 products into saturating 16-bit sums (its s8 A
  ///   shifted into u8 overflows them wherever two codes far from zero meet
  ///   large weights: 7-12 % off on test/runtime/dynamic_int8.py's block):
  ///   the codes and B as f32 in an f32 primitive (F32), exact products at
  ///   f32's speed.
  enum class Codes { S8, U8, F32 };

  Int8Gemms(const tsc_model_s &model, const dnnl::engine &engine,
            dnnl::stream &stream);

  /// The form step `s` gives its codes to oneDNN in: the CPU's, but U8 for
  /// a narrow weight (StepState::narrowWeight) where that is F32.
  Codes codesOf(const StepState &s) const;
  /// B's codes as step `s`'s primitives read them: s8, or f32
  /// (Codes::F32).
  memory::data_type weightType(const StepState &s) const;

  /// With the session: whether B, a weight, is narrow, and its column sums
  /// when A has a zero point as the primitive reads it (`shape`: at the
  /// symbols' maxima).
  void prepare(StepState &s, const Shape &shape) const;

  /// Step `s`'s primitive for `shape`: B prepared in `bDesc` when given,
  /// else as stored.
  Entry makeEntry(StepState &s, const Shape &shape,
                  const memory::desc *bDesc) const;

  /// Quantizes step `step`'s A (f32 at `a`) unless the step before it left
  /// the same codes.
  void quantize(size_t step, const StepState &s, const Shape &shape,
                const float *a);

  /// Runs `e` on the codes `quantize` left: C (f32) at `c`, B as stored at
  /// `b`, the bias (null: none) at `bias`.
  void run(StepState &s, Entry &e, const void *b, void *c, const void *bias);

  /// After a step that was not an int8 one (its A codes stay, but are no
  /// longer the step before's).
  void forget() { quantizedStep = -1; }

private:
  int32_t zeroPointOf(const StepState &s) const;
  bool reusesQuantizedA(size_t step, const StepState &s,
                        const Shape &shape) const;
  void quantizeA(Codes form, const float *a, const Shape &shape, bool perRow,
                 float constantScale, int32_t zeroPoint,
                 const float *multipliers);
  float rangeScale(const float *a, const Shape &shape);
  const float *inputMultipliers(const GemmStep &g) const;
  void sumColumns(StepState &s, const int8_t *b, const Shape &shape) const;
  void foldBias(StepState &s, const float *bias, const Shape &shape) const;
  float *floatCodesB(const GemmStep &g, const int8_t *b, const Shape &shape);

  const tsc_model_s &model;
  const dnnl::engine &engine;
  dnnl::stream &stream;
  const Codes codes;

  // The latest int8 step's A codes (f32 ones too with Codes::F32), and its
  // row scales (none with a constant scale); an unprepared B's codes as f32.
  std::vector<uint8_t> quantizedA;
  std::vector<float> floatCodesA, floatB;
  std::vector<float> rowScales;
  // The product of an int8 step whose row scales' epilogue sums into C.
  std::vector<float> productBuffer;
  // What quantizedA holds: the step that quantized it (-1: nothing), its A,
  // scale (0: per row), zero point, multipliers and shape. The next step
  // reuses it when it quantizes the same value unchanged between them (Q,
  // K and V of one input): see reusesQuantizedA.
  int64_t quantizedStep = -1;
  Codes quantizedCodes = Codes::S8;
  uint32_t quantizedValue = kNone;
  float quantizedScale = 0;
  int32_t quantizedZeroPoint = 0;
  uint32_t quantizedMultiplier = kNone;
  // A step quantizing by A's range (1.23): quantizedA is by that scale and
  // rangeZeroPoint, DynamicQuantizeLinear's u8 zero point less 128.
  bool quantizedRange = false;
  int32_t rangeZeroPoint = 0;
  Shape quantizedShape;
};

} // namespace tsc::rt::gemm

#endif // TSC_RUNTIME_HOST_GEMM_INT8_H
