//===- Matmul.cpp - ONNX MatMul, Gemm, MatMulInteger, Einsum --------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

FailureOr<Value> fromonnx::buildZeroPointShift(ForeignNode &node, Value x,
                                               unsigned zp, bool perRow) {
  Type i32 = node.getRewriter().getI32Type();
  Value wide = castTo(node, x, i32);
  if (!node.hasInput(zp))
    return wide;
  auto zeroPoint = node.input(zp);
  if (failed(zeroPoint))
    return failure();
  Value shift = castTo(node, *zeroPoint, i32);
  if (perRow && zeroPoint->getType().getRank() == 1 &&
      zeroPoint->getType().getDimSize(0) != 1) {
    UnsqueezeOp::Properties column;
    column.dims = node.getRewriter().getDenseI64ArrayAttr({1});
    FailureOr<Value> unsqueezed = node.create<UnsqueezeOp>({shift}, column);
    if (failed(unsqueezed))
      return failure();
    shift = *unsqueezed;
  }
  return node.create<SubOp>({wide, shift});
}

namespace {

using Values = SmallVector<Value>;

FailureOr<Values> convertMatMul(ForeignNode &node) {
  auto a = node.input(0);
  auto b = node.input(1);
  if (failed(a) || failed(b))
    return failure();
  return results(node.create<MatmulOp>({*a, *b}));
}

/// alpha * A' * B' + beta * C; the common `transB=1` form with a 1-D bias
/// is a tsc.linear.
FailureOr<Values> convertGemm(ForeignNode &node) {
  auto a = node.input(0);
  auto b = node.input(1);
  if (failed(a) || failed(b))
    return failure();
  bool transA = node.getInt("transA", 0), transB = node.getInt("transB", 0);
  double alpha = node.getFloat("alpha", 1.0f);
  double beta = node.getFloat("beta", 1.0f);
  Value c;
  if (node.hasInput(2)) {
    auto input = node.input(2);
    if (failed(input))
      return failure();
    c = *input;
  }
  Type element = a->getType().getElementType();
  if (!transA && transB && alpha == 1.0 &&
      (!c || (beta == 1.0 &&
              cast<RankedTensorType>(c.getType()).getRank() == 1))) {
    SmallVector<Value> operands = {*a, *b};
    if (c)
      operands.push_back(c);
    LinearOp::Properties properties;
    properties.operandSegmentSizes = {1, 1, c ? 1 : 0, 0};
    FailureOr<Value> out = node.create<LinearOp>(operands, properties);
    if (failed(out))
      return failure();
    return Values{*out};
  }
  FailureOr<Value> lhs = transA ? node.transpose(*a, {1, 0}) : *a;
  FailureOr<Value> rhs = transB ? node.transpose(*b, {1, 0}) : *b;
  if (failed(lhs) || failed(rhs))
    return failure();
  FailureOr<Value> out = node.create<MatmulOp>({*lhs, *rhs});
  if (failed(out))
    return failure();
  if (alpha != 1.0)
    out = node.create<MulOp>({*out, node.scalar(element, alpha)});
  if (c && succeeded(out)) {
    FailureOr<Value> scaled =
        beta == 1.0 ? c : node.create<MulOp>({c, node.scalar(element, beta)});
    if (failed(scaled))
      return failure();
    out = node.create<AddOp>({*out, *scaled});
  }
  if (failed(out))
    return failure();
  return Values{*out};
}

/// (A - a_zero_point) x (B - b_zero_point) accumulated in i32.
FailureOr<Values> convertMatMulInteger(ForeignNode &node) {
  auto a = node.input(0);
  auto b = node.input(1);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> lhs = buildZeroPointShift(node, *a, 2, /*perRow=*/true);
  FailureOr<Value> rhs = buildZeroPointShift(node, *b, 3, /*perRow=*/false);
  if (failed(lhs) || failed(rhs))
    return failure();
  return results(node.create<MatmulOp>({*lhs, *rhs}));
}

/// QLinearMatMul: (A - a_zp)(B - b_zp) in i32, requantized with
/// a_scale b_scale / y_scale and y_zp; a 1-D a_scale is per row of A, 1-D
/// b_scale and y_scale per column.
FailureOr<Values> convertQLinearMatMul(ForeignNode &node) {
  auto a = node.input(0);
  auto aScale = node.input(1);
  auto b = node.input(3);
  auto bScale = node.input(4);
  auto yScale = node.input(6);
  if (failed(a) || failed(aScale) || failed(b) || failed(bScale) ||
      failed(yScale))
    return failure();
  FailureOr<Value> lhs = buildZeroPointShift(node, *a, 2, /*perRow=*/true);
  FailureOr<Value> rhs = buildZeroPointShift(node, *b, 5, /*perRow=*/false);
  if (failed(lhs) || failed(rhs))
    return failure();
  FailureOr<Value> product = node.create<MatmulOp>({*lhs, *rhs});
  if (failed(product))
    return failure();
  RewriterBase &rw = node.getRewriter();
  Value rowScale = *aScale;
  if (aScale->getType().getRank() == 1 &&
      aScale->getType().getDimSize(0) != 1) {
    UnsqueezeOp::Properties column;
    column.dims = rw.getDenseI64ArrayAttr({1});
    FailureOr<Value> unsqueezed = node.create<UnsqueezeOp>({rowScale}, column);
    if (failed(unsqueezed))
      return failure();
    rowScale = *unsqueezed;
  }
  FailureOr<Value> scales = node.create<MulOp>({rowScale, *bScale});
  FailureOr<Value> multiplier =
      failed(scales) ? scales : node.create<DivOp>({*scales, *yScale});
  if (failed(multiplier))
    return failure();
  return results(buildRequantize(node, *product, *multiplier, 7,
                                 a->getType().getElementType()));
}

/// One-operand einsum: sum the labels missing from the output, then permute.
FailureOr<Values> convertUnaryEinsum(ForeignNode &node, std::string labels,
                                     const std::string &out) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (static_cast<int64_t>(labels.size()) != x->getType().getRank())
    return node.fail("equation does not match the operand rank");
  Value value = *x;
  SmallVector<int64_t> summed;
  std::string kept;
  for (auto [i, l] : llvm::enumerate(labels)) {
    if (llvm::count(labels, l) != 1)
      return node.fail("repeated labels (diagonals) are not supported");
    if (llvm::is_contained(out, l))
      kept += l;
    else
      summed.push_back(i);
  }
  if (!summed.empty()) {
    ReduceSumOp::Properties properties;
    properties.dims = node.getRewriter().getDenseI64ArrayAttr(summed);
    FailureOr<Value> reduced = node.create<ReduceSumOp>({value}, properties);
    if (failed(reduced))
      return failure();
    value = *reduced;
  }
  SmallVector<int64_t> perm;
  for (char l : out) {
    size_t i = kept.find(l);
    if (i == std::string::npos)
      return node.fail("output label '" + Twine(l) + "' is not in the input");
    perm.push_back(i);
  }
  FailureOr<Value> permuted = node.transpose(value, perm);
  if (failed(permuted))
    return failure();
  return Values{*permuted};
}

/// Two-operand einsum without ellipses or repeated labels in one operand:
/// labels only in one operand and not in the output are summed first; the
/// rest becomes a batched matmul over [batch, free, contracted] layouts.
FailureOr<Values> convertEinsum(ForeignNode &node) {
  std::string equation;
  for (char ch : node.getString("equation", ""))
    if (!isspace(static_cast<unsigned char>(ch)))
      equation += ch;
  StringRef eq(equation);
  if (eq.contains("..."))
    return node.fail("einsum with '...' is not supported");
  auto [inputsPart, outPart] = eq.split("->");
  SmallVector<StringRef> terms;
  inputsPart.split(terms, ',');
  if (terms.size() != node.getNumInputs() || terms.size() > 2)
    return node.fail("only one- and two-operand einsum is supported");
  std::string out = outPart.str();
  if (!eq.contains("->")) {
    // Implicit output: labels that appear once, in alphabetical order.
    for (char l = 'A'; l <= 'z'; ++l)
      if (llvm::count(inputsPart, l) == 1)
        out += l;
  }
  if (terms.size() == 1)
    return convertUnaryEinsum(node, terms[0].str(), out);
  auto a = node.input(0);
  auto b = node.input(1);
  if (failed(a) || failed(b))
    return failure();
  std::string lhsLabels = terms[0].str(), rhsLabels = terms[1].str();
  Value lhs = *a, rhs = *b;
  for (auto [labels, value] :
       {std::pair<std::string *, Value *>{&lhsLabels, &lhs},
        std::pair<std::string *, Value *>{&rhsLabels, &rhs}}) {
    if (static_cast<int64_t>(labels->size()) !=
        cast<RankedTensorType>(value->getType()).getRank())
      return node.fail("equation '" + equation +
                       "' does not match the operand ranks");
    for (char l : *labels)
      if (llvm::count(*labels, l) != 1)
        return node.fail("repeated labels (diagonals) are not supported");
  }
  // Sum out labels that appear in one operand only and not in the output.
  auto sumOut = [&](std::string &labels, Value &value,
                    const std::string &other) -> LogicalResult {
    SmallVector<int64_t> dims;
    std::string kept;
    for (auto [i, l] : llvm::enumerate(labels)) {
      if (!llvm::is_contained(other, l) && !llvm::is_contained(out, l))
        dims.push_back(i);
      else
        kept += l;
    }
    if (dims.empty())
      return success();
    ReduceSumOp::Properties properties;
    properties.dims = node.getRewriter().getDenseI64ArrayAttr(dims);
    FailureOr<Value> reduced = node.create<ReduceSumOp>({value}, properties);
    if (failed(reduced))
      return failure();
    value = *reduced;
    labels = kept;
    return success();
  };
  if (failed(sumOut(lhsLabels, lhs, rhsLabels)) ||
      failed(sumOut(rhsLabels, rhs, lhsLabels)))
    return failure();

  std::string batch, contracted, lhsFree, rhsFree;
  for (char l : lhsLabels) {
    bool inRhs = llvm::is_contained(rhsLabels, l);
    bool inOut = llvm::is_contained(out, l);
    if (inRhs && inOut)
      batch += l;
    else if (inRhs)
      contracted += l;
    else
      lhsFree += l;
  }
  for (char l : rhsLabels)
    if (!llvm::is_contained(lhsLabels, l))
      rhsFree += l;
  for (char l : out)
    if (!llvm::is_contained(lhsLabels, l) && !llvm::is_contained(rhsLabels, l))
      return node.fail("output label '" + Twine(l) + "' is in no input");

  auto permutation = [](const std::string &from, const std::string &to) {
    SmallVector<int64_t> perm;
    for (char l : to)
      perm.push_back(from.find(l));
    return perm;
  };
  // Sizes of a label, read off whichever operand has it.
  auto labelSize = [&](char l) {
    size_t i = lhsLabels.find(l);
    if (i != std::string::npos)
      return node.dimSize(lhs, i);
    return node.dimSize(rhs, rhsLabels.find(l));
  };
  auto product = [&](const std::string &labels) {
    OpFoldResult p = node.getRewriter().getIndexAttr(1);
    for (char l : labels)
      p = node.multiply(p, labelSize(l));
    return p;
  };
  SmallVector<OpFoldResult> batchSizes;
  for (char l : batch)
    batchSizes.push_back(labelSize(l));

  FailureOr<Value> lhsT =
      node.transpose(lhs, permutation(lhsLabels, batch + lhsFree + contracted));
  FailureOr<Value> rhsT =
      node.transpose(rhs, permutation(rhsLabels, batch + contracted + rhsFree));
  if (failed(lhsT) || failed(rhsT))
    return failure();
  SmallVector<OpFoldResult> lhsShape(batchSizes), rhsShape(batchSizes);
  lhsShape.append({product(lhsFree), product(contracted)});
  rhsShape.append({product(contracted), product(rhsFree)});
  FailureOr<Value> result = node.create<MatmulOp>(
      {node.reshape(*lhsT, lhsShape), node.reshape(*rhsT, rhsShape)});
  if (failed(result))
    return failure();
  SmallVector<OpFoldResult> resultShape(batchSizes);
  for (char l : lhsFree + rhsFree)
    resultShape.push_back(labelSize(l));
  Value expanded = node.reshape(*result, resultShape);
  FailureOr<Value> ordered =
      node.transpose(expanded, permutation(batch + lhsFree + rhsFree, out));
  if (failed(ordered))
    return failure();
  return Values{*ordered};
}

} // namespace

void fromonnx::populateMatmulConverters(ForeignConverters &c) {
  c.add("MatMul", 9, convertMatMul);
  c.add("Gemm", 11, convertGemm);
  c.add("MatMulInteger", 10, convertMatMulInteger);
  c.add("QLinearMatMul", 10, convertQLinearMatMul);
  c.add("Einsum", 12, convertEinsum);
}
