//===- OnnxArity.cpp - input and output counts of standard ONNX ops -------===//
//
// The table: every standard op version introduced after opset 17, with the
// input and output counts of its ONNX 1.23 schema (min_input, max_input,
// min_output, max_output; 2147483647 for variadic). Facts from the ONNX
// specification, one row per (op, since-version), sorted by op then
// version; test/importers/onnx/arity-table.test compares it row for row with
// the pinned onnx package's schemas, so a new opset's rows are added here when
// that package is updated.
//
//===----------------------------------------------------------------------===//

#include "compiler/importers/onnx/OnnxArity.h"

#include <onnx/defs/schema.h>

#include <algorithm>

using namespace mlir;
using namespace mlir::tsc;

namespace {

struct Row {
  const char *op;
  int sinceVersion;
  int minInputs, maxInputs, minOutputs, maxOutputs;
};

constexpr int kAny = kOnnxAnyCount;

// clang-format off
constexpr Row kRows[] = {
    {"Acos", 22, 1, 1, 1, 1},
    {"Acosh", 22, 1, 1, 1, 1},
    {"AffineGrid", 20, 2, 2, 1, 1},
    {"Asin", 22, 1, 1, 1, 1},
    {"Asinh", 22, 1, 1, 1, 1},
    {"Atan", 22, 1, 1, 1, 1},
    {"Atanh", 22, 1, 1, 1, 1},
    {"Attention", 23, 3, 6, 1, 4},
    {"Attention", 24, 3, 7, 1, 4},
    {"Attention", 25, 3, 7, 1, 4},
    {"AveragePool", 19, 1, 1, 1, 1},
    {"AveragePool", 22, 1, 1, 1, 1},
    {"Bernoulli", 22, 1, 1, 1, 1},
    {"BitCast", 26, 1, 1, 1, 1},
    {"BitShift", 28, 2, 2, 1, 1},
    {"BitwiseAnd", 18, 2, 2, 1, 1},
    {"BitwiseNot", 18, 1, 1, 1, 1},
    {"BitwiseOr", 18, 2, 2, 1, 1},
    {"BitwiseXor", 18, 2, 2, 1, 1},
    {"Cast", 19, 1, 1, 1, 1},
    {"Cast", 21, 1, 1, 1, 1},
    {"Cast", 23, 1, 1, 1, 1},
    {"Cast", 24, 1, 1, 1, 1},
    {"Cast", 25, 1, 1, 1, 1},
    {"Cast", 28, 1, 1, 1, 1},
    {"CastLike", 19, 2, 2, 1, 1},
    {"CastLike", 21, 2, 2, 1, 1},
    {"CastLike", 23, 2, 2, 1, 1},
    {"CastLike", 24, 2, 2, 1, 1},
    {"CastLike", 25, 2, 2, 1, 1},
    {"CausalConvWithState", 27, 2, 4, 2, 2},
    {"Celu", 28, 1, 1, 1, 1},
    {"CenterCropPad", 18, 2, 2, 1, 1},
    {"Col2Im", 18, 3, 3, 1, 1},
    {"Compress", 28, 2, 2, 1, 1},
    {"Constant", 19, 0, 0, 1, 1},
    {"Constant", 21, 0, 0, 1, 1},
    {"Constant", 23, 0, 0, 1, 1},
    {"Constant", 24, 0, 0, 1, 1},
    {"Constant", 25, 0, 0, 1, 1},
    {"ConstantOfShape", 20, 1, 1, 1, 1},
    {"ConstantOfShape", 21, 1, 1, 1, 1},
    {"ConstantOfShape", 23, 1, 1, 1, 1},
    {"ConstantOfShape", 24, 1, 1, 1, 1},
    {"ConstantOfShape", 25, 1, 1, 1, 1},
    {"Conv", 22, 2, 3, 1, 1},
    {"ConvTranspose", 22, 2, 3, 1, 1},
    {"Cos", 22, 1, 1, 1, 1},
    {"Cosh", 22, 1, 1, 1, 1},
    {"CumProd", 26, 2, 2, 1, 1},
    {"DFT", 20, 1, 3, 1, 1},
    {"DeformConv", 19, 3, 5, 1, 1},
    {"DeformConv", 22, 3, 5, 1, 1},
    {"DepthToSpace", 28, 1, 1, 1, 1},
    {"DequantizeLinear", 19, 2, 3, 1, 1},
    {"DequantizeLinear", 21, 2, 3, 1, 1},
    {"DequantizeLinear", 23, 2, 3, 1, 1},
    {"DequantizeLinear", 24, 2, 3, 1, 1},
    {"DequantizeLinear", 25, 2, 3, 1, 1},
    {"DequantizeLinear", 28, 2, 3, 1, 1},
    {"Det", 22, 1, 1, 1, 1},
    {"Dropout", 22, 1, 3, 1, 2},
    {"Einsum", 28, 1, kAny, 1, 1},
    {"Elu", 22, 1, 1, 1, 1},
    {"Equal", 19, 2, 2, 1, 1},
    {"EyeLike", 22, 1, 1, 1, 1},
    {"Flatten", 21, 1, 1, 1, 1},
    {"Flatten", 23, 1, 1, 1, 1},
    {"Flatten", 24, 1, 1, 1, 1},
    {"Flatten", 25, 1, 1, 1, 1},
    {"GRU", 22, 3, 6, 0, 2},
    {"Gelu", 20, 1, 1, 1, 1},
    {"GlobalAveragePool", 22, 1, 1, 1, 1},
    {"GlobalLpPool", 22, 1, 1, 1, 1},
    {"GlobalMaxPool", 22, 1, 1, 1, 1},
    {"GridSample", 20, 2, 2, 1, 1},
    {"GridSample", 22, 2, 2, 1, 1},
    {"GroupNormalization", 18, 3, 3, 1, 1},
    {"GroupNormalization", 21, 3, 3, 1, 1},
    {"HardSigmoid", 22, 1, 1, 1, 1},
    {"HardSwish", 22, 1, 1, 1, 1},
    {"Identity", 19, 1, 1, 1, 1},
    {"Identity", 21, 1, 1, 1, 1},
    {"Identity", 23, 1, 1, 1, 1},
    {"Identity", 24, 1, 1, 1, 1},
    {"Identity", 25, 1, 1, 1, 1},
    {"If", 19, 1, 1, 1, kAny},
    {"If", 21, 1, 1, 1, kAny},
    {"If", 23, 1, 1, 1, kAny},
    {"If", 24, 1, 1, 1, kAny},
    {"If", 25, 1, 1, 1, kAny},
    {"ImageDecoder", 20, 1, 1, 1, 1},
    {"InstanceNormalization", 22, 3, 3, 1, 1},
    {"IsInf", 20, 1, 1, 1, 1},
    {"IsNaN", 20, 1, 1, 1, 1},
    {"LSTM", 22, 3, 8, 0, 3},
    {"LinearAttention", 27, 3, 6, 2, 2},
    {"Loop", 19, 2, kAny, 1, kAny},
    {"Loop", 21, 2, kAny, 1, kAny},
    {"Loop", 23, 2, kAny, 1, kAny},
    {"Loop", 24, 2, kAny, 1, kAny},
    {"Loop", 25, 2, kAny, 1, kAny},
    {"LpNormalization", 22, 1, 1, 1, 1},
    {"LpPool", 18, 1, 1, 1, 1},
    {"LpPool", 22, 1, 1, 1, 1},
    {"MaxPool", 22, 1, 1, 1, 2},
    {"MaxRoiPool", 22, 2, 2, 1, 1},
    {"MaxUnpool", 22, 2, 3, 1, 1},
    {"Mish", 18, 1, 1, 1, 1},
    {"Mish", 22, 1, 1, 1, 1},
    {"Mod", 28, 2, 2, 1, 1},
    {"Multinomial", 22, 1, 1, 1, 1},
    {"NegativeLogLikelihoodLoss", 22, 2, 3, 1, 1},
    {"OneHot", 28, 3, 3, 1, 1},
    {"Optional", 28, 0, 1, 1, 1},
    {"OptionalGetElement", 18, 1, 1, 1, 1},
    {"OptionalGetElement", 28, 1, 1, 1, 1},
    {"OptionalHasElement", 18, 0, 1, 1, 1},
    {"OptionalHasElement", 28, 0, 1, 1, 1},
    {"Pad", 18, 2, 4, 1, 1},
    {"Pad", 19, 2, 4, 1, 1},
    {"Pad", 21, 2, 4, 1, 1},
    {"Pad", 23, 2, 4, 1, 1},
    {"Pad", 24, 2, 4, 1, 1},
    {"Pad", 25, 2, 4, 1, 1},
    {"QLinearMatMul", 21, 8, 8, 1, 1},
    {"QuantizeLinear", 19, 2, 3, 1, 1},
    {"QuantizeLinear", 21, 2, 3, 1, 1},
    {"QuantizeLinear", 23, 2, 3, 1, 1},
    {"QuantizeLinear", 24, 2, 3, 1, 1},
    {"QuantizeLinear", 25, 2, 3, 1, 1},
    {"QuantizeLinear", 28, 2, 3, 1, 1},
    {"RMSNormalization", 23, 2, 2, 1, 1},
    {"RNN", 22, 3, 6, 0, 2},
    {"RandomNormal", 22, 0, 0, 1, 1},
    {"RandomNormalLike", 22, 1, 1, 1, 1},
    {"RandomUniform", 22, 0, 0, 1, 1},
    {"RandomUniformLike", 22, 1, 1, 1, 1},
    {"Range", 27, 3, 3, 1, 1},
    {"ReduceL1", 18, 1, 2, 1, 1},
    {"ReduceL2", 18, 1, 2, 1, 1},
    {"ReduceLogSum", 18, 1, 2, 1, 1},
    {"ReduceLogSum", 28, 1, 2, 1, 1},
    {"ReduceLogSumExp", 18, 1, 2, 1, 1},
    {"ReduceLogSumExp", 28, 1, 2, 1, 1},
    {"ReduceMax", 18, 1, 2, 1, 1},
    {"ReduceMax", 20, 1, 2, 1, 1},
    {"ReduceMean", 18, 1, 2, 1, 1},
    {"ReduceMin", 18, 1, 2, 1, 1},
    {"ReduceMin", 20, 1, 2, 1, 1},
    {"ReduceProd", 18, 1, 2, 1, 1},
    {"ReduceSumSquare", 18, 1, 2, 1, 1},
    {"RegexFullMatch", 20, 1, 1, 1, 1},
    {"Reshape", 19, 2, 2, 1, 1},
    {"Reshape", 21, 2, 2, 1, 1},
    {"Reshape", 23, 2, 2, 1, 1},
    {"Reshape", 24, 2, 2, 1, 1},
    {"Reshape", 25, 2, 2, 1, 1},
    {"Resize", 18, 1, 4, 1, 1},
    {"Resize", 19, 1, 4, 1, 1},
    {"ReverseSequence", 28, 2, 2, 1, 1},
    {"RoiAlign", 22, 3, 3, 1, 1},
    {"RotaryEmbedding", 23, 3, 4, 1, 1},
    {"Round", 22, 1, 1, 1, 1},
    {"Scan", 19, 1, kAny, 1, kAny},
    {"Scan", 21, 1, kAny, 1, kAny},
    {"Scan", 23, 1, kAny, 1, kAny},
    {"Scan", 24, 1, kAny, 1, kAny},
    {"Scan", 25, 1, kAny, 1, kAny},
    {"ScatterElements", 18, 3, 3, 1, 1},
    {"ScatterND", 18, 3, 3, 1, 1},
    {"Selu", 22, 1, 1, 1, 1},
    {"Shape", 19, 1, 1, 1, 1},
    {"Shape", 21, 1, 1, 1, 1},
    {"Shape", 23, 1, 1, 1, 1},
    {"Shape", 24, 1, 1, 1, 1},
    {"Shape", 25, 1, 1, 1, 1},
    {"Sin", 22, 1, 1, 1, 1},
    {"Sinh", 22, 1, 1, 1, 1},
    {"Size", 19, 1, 1, 1, 1},
    {"Size", 21, 1, 1, 1, 1},
    {"Size", 23, 1, 1, 1, 1},
    {"Size", 24, 1, 1, 1, 1},
    {"Size", 25, 1, 1, 1, 1},
    {"Softplus", 22, 1, 1, 1, 1},
    {"Softsign", 22, 1, 1, 1, 1},
    {"SpaceToDepth", 28, 1, 1, 1, 1},
    {"Split", 18, 1, 2, 1, kAny},
    {"SplitToSequence", 24, 1, 2, 1, 1},
    {"Squeeze", 21, 1, 2, 1, 1},
    {"Squeeze", 23, 1, 2, 1, 1},
    {"Squeeze", 24, 1, 2, 1, 1},
    {"Squeeze", 25, 1, 2, 1, 1},
    {"StringConcat", 20, 2, 2, 1, 1},
    {"StringSplit", 20, 1, 1, 2, 2},
    {"SwiGLU", 28, 2, 2, 1, 1},
    {"Swish", 24, 1, 1, 1, 1},
    {"Tan", 22, 1, 1, 1, 1},
    {"TensorScatter", 24, 2, 3, 1, 1},
    {"ThresholdedRelu", 22, 1, 1, 1, 1},
    {"TopK", 24, 2, 2, 2, 2},
    {"Transpose", 21, 1, 1, 1, 1},
    {"Transpose", 23, 1, 1, 1, 1},
    {"Transpose", 24, 1, 1, 1, 1},
    {"Transpose", 25, 1, 1, 1, 1},
    {"Unique", 28, 1, 1, 1, 4},
    {"Unsqueeze", 21, 2, 2, 1, 1},
    {"Unsqueeze", 23, 2, 2, 1, 1},
    {"Unsqueeze", 24, 2, 2, 1, 1},
    {"Unsqueeze", 25, 2, 2, 1, 1},
};
// clang-format on

} // namespace

std::optional<OnnxArity> tsc::getOnnxArity(llvm::StringRef opType,
                                           int64_t opset) {
  const auto &known =
      onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto standard = known.find("");
  if (standard == known.end() || opset < 1)
    return std::nullopt;
  int64_t libraryMax = standard->second.second;
  if (opset > libraryMax) {
    // The latest row of this op at or before `opset` (rows of one op are
    // consecutive and sorted by version).
    const Row *found = nullptr;
    for (const Row &row : kRows)
      if (opType == row.op && row.sinceVersion <= opset &&
          row.sinceVersion > libraryMax)
        found = &row;
    if (found)
      return OnnxArity{found->minInputs, found->maxInputs, found->minOutputs,
                       found->maxOutputs};
  }
  const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
      opType.str(), static_cast<int>(std::min(opset, libraryMax)), "");
  if (!schema)
    return std::nullopt;
  return OnnxArity{schema->min_input(), schema->max_input(),
                   schema->min_output(), schema->max_output()};
}
