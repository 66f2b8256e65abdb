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

/// Replaces a label that `labels` repeats (a diagonal, `ii`) by one dim at
/// the end holding the diagonal's entries, until every label is unique: the
/// two dims moved last and merged, and the entries k * (n + 1) gathered
/// (exact, where a mask and a sum would turn an infinity into NaN).
LogicalResult takeDiagonals(ForeignNode &node, Value &value,
                            std::string &labels) {
  RewriterBase &rw = node.getRewriter();
  for (size_t p = 0; p < labels.size(); ++p) {
    size_t q = labels.find(labels[p], p + 1);
    if (q == std::string::npos)
      continue;
    auto type = cast<RankedTensorType>(value.getType());
    int64_t n = type.getDimSize(p);
    if (ShapedType::isDynamic(n) || type.getDimSize(q) != n)
      return node.fail("a repeated label '" + Twine(labels[p]) +
                       "' needs dims of one static size");
    SmallVector<int64_t> perm;
    std::string rest;
    for (size_t d = 0; d < labels.size(); ++d)
      if (d != p && d != q) {
        perm.push_back(d);
        rest += labels[d];
      }
    perm.append({static_cast<int64_t>(p), static_cast<int64_t>(q)});
    FailureOr<Value> moved = node.transpose(value, perm);
    if (failed(moved))
      return failure();
    SmallVector<OpFoldResult> sizes;
    for (size_t d = 0; d + 2 < perm.size(); ++d)
      sizes.push_back(node.dimSize(*moved, d));
    sizes.push_back(rw.getIndexAttr(n * n));
    Value merged = node.reshape(*moved, sizes);
    SmallVector<int64_t> diagonal;
    for (int64_t k = 0; k < n; ++k)
      diagonal.push_back(k * (n + 1));
    Value indices = ConstantOp::create(
        rw, node.getLoc(),
        DenseElementsAttr::get(RankedTensorType::get({n}, rw.getI64Type()),
                               ArrayRef<int64_t>(diagonal)));
    FailureOr<Value> gathered =
        buildGather(node, cast<TypedValue<RankedTensorType>>(merged),
                    cast<TypedValue<RankedTensorType>>(indices),
                    static_cast<int64_t>(sizes.size()) - 1);
    if (failed(gathered))
      return failure();
    value = *gathered;
    labels = rest + labels[p];
    p = static_cast<size_t>(-1); // labels changed: look again from the start
  }
  return success();
}

/// One-operand einsum: take diagonals, sum the labels missing from the
/// output, then permute.
FailureOr<Values> convertUnaryEinsum(ForeignNode &node, std::string labels,
                                     const std::string &out) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (static_cast<int64_t>(labels.size()) != x->getType().getRank())
    return node.fail("equation does not match the operand rank");
  Value value = *x;
  if (failed(takeDiagonals(node, value, labels)))
    return failure();
  SmallVector<int64_t> summed;
  std::string kept;
  for (auto [i, l] : llvm::enumerate(labels)) {
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

/// `equation` with each `...` spelled as labels of its own: the digits
/// '0', '1', ... (never einsum labels) for the broadcast dims, aligned at
/// the right across operands as numpy aligns them. An implicit output gets
/// the `...` dims first, then the labels that appear once, in order.
FailureOr<std::pair<SmallVector<std::string>, std::string>>
expandEllipses(ForeignNode &node, StringRef equation) {
  auto [inputsPart, outPart] = equation.split("->");
  SmallVector<StringRef> parts;
  inputsPart.split(parts, ',');
  if (parts.size() != node.getNumInputs() || parts.size() > 2)
    return node.fail("only one- and two-operand einsum is supported");
  SmallVector<std::string> terms;
  SmallVector<int64_t> broadcast;
  int64_t most = 0;
  for (auto [i, part] : llvm::enumerate(parts)) {
    terms.push_back(part.str());
    broadcast.push_back(0);
    if (!part.contains("..."))
      continue;
    auto x = node.input(i);
    if (failed(x))
      return failure();
    broadcast.back() =
        x->getType().getRank() - static_cast<int64_t>(part.size() - 3);
    if (broadcast.back() < 0 || broadcast.back() > 10)
      return node.fail("equation '" + equation +
                       "' does not match the operand ranks");
    most = std::max(most, broadcast.back());
  }
  auto spelled = [](int64_t from, int64_t to) {
    std::string labels;
    for (int64_t d = from; d < to; ++d)
      labels += static_cast<char>('0' + d);
    return labels;
  };
  for (auto [term, count] : llvm::zip(terms, broadcast)) {
    size_t at = term.find("...");
    if (at != std::string::npos)
      term.replace(at, 3, spelled(most - count, most));
  }
  std::string out = outPart.str();
  if (!equation.contains("->")) {
    // Implicit output: labels that appear once, in alphabetical order.
    out = spelled(0, most);
    for (char l = 'A'; l <= 'z'; ++l)
      if (llvm::count(inputsPart, l) == 1)
        out += l;
  } else if (size_t at = out.find("..."); at != std::string::npos) {
    out.replace(at, 3, spelled(0, most));
  }
  return std::make_pair(terms, out);
}

/// Einsum of one or two operands: diagonals taken first; labels only in
/// one operand and not in the output are summed; the rest becomes a batched
/// matmul over [batch, free, contracted] layouts.
FailureOr<Values> convertEinsum(ForeignNode &node) {
  std::string equation;
  for (char ch : node.getString("equation", ""))
    if (!isspace(static_cast<unsigned char>(ch)))
      equation += ch;
  auto spelled = expandEllipses(node, equation);
  if (failed(spelled))
    return failure();
  SmallVector<std::string> terms = spelled->first;
  std::string out = spelled->second;
  if (terms.size() == 1)
    return convertUnaryEinsum(node, terms[0], out);
  auto a = node.input(0);
  auto b = node.input(1);
  if (failed(a) || failed(b))
    return failure();
  std::string lhsLabels = terms[0], rhsLabels = terms[1];
  Value lhs = *a, rhs = *b;
  for (auto [labels, value] :
       {std::pair<std::string *, Value *>{&lhsLabels, &lhs},
        std::pair<std::string *, Value *>{&rhsLabels, &rhs}}) {
    if (static_cast<int64_t>(labels->size()) !=
        cast<RankedTensorType>(value->getType()).getRank())
      return node.fail("equation '" + equation +
                       "' does not match the operand ranks");
    if (failed(takeDiagonals(node, *value, *labels)))
      return failure();
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
