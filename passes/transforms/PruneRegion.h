//===- PruneRegion.h - the values a structured prune shrinks ----*- C++ -*-===//
//
// Structured pruning removes whole groups (attention heads with their K/V
// head, FFN neurons) from the outputs of some GEMMs (producers) and the
// inputs of others (consumers). Everything between them carries the groups
// along one axis: a PruneRegion follows that axis from the producers
// through reshapes, transposes, broadcasts and products to the consumers,
// and shrinks all of it consistently, or says which op stops it and then
// changes nothing.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_TRANSFORMS_PRUNEREGION_H
#define TSC_PASSES_TRANSFORMS_PRUNEREGION_H

#include "dialects/tsc/IR/TscOps.h"

#include "llvm/ADT/MapVector.h"

#include <optional>
#include <string>

namespace mlir::tsc::prune {

/// The discardable attribute that calibration (`tsc --prune ...
/// --calibration DIR`) puts on a GEMM op: an `array<f64>` holding, per
/// input channel (K), the L2 norm of the GEMM's input over every token of
/// the calibration samples. The structured passes rank by it when a
/// region's consumers carry it (getActivationImportance);
/// tsc-drop-input-norms removes it after them.
inline constexpr llvm::StringLiteral kInputNormsAttr = "tsc.input_norms";

/// A product by a constant f32 weight matrix: `tsc.matmul %x, %w` (`w` is
/// [K, N]) or `tsc.linear` without a residual (bias a constant or absent).
struct Gemm {
  Operation *op;
  Value input;
  ConstantOp weight;
  /// The weight is stored [K, N] (else [N, K]).
  bool kn;
  /// A linear op's bias (null for matmul or without one).
  ConstantOp bias;

  int64_t getN() const;
  int64_t getK() const;
};

/// `op` as a Gemm, if it is one.
std::optional<Gemm> matchGemm(Operation *op);

/// Where the groups lie in a value: along `axis`, `unit` consecutive
/// elements per group (a value of G groups has G·unit elements there).
struct GroupAxis {
  int64_t axis;
  int64_t unit;
};

/// One weight (or bias) the region shrinks, and how: along `axis`, group g
/// is elements [g·unit, (g+1)·unit).
struct ShrunkWeight {
  OpOperand *use;
  GroupAxis groups;
  /// "producer", "consumer" or "bias".
  StringRef role;
};

/// The analysis of one region: what it shrinks, or why it cannot.
class PruneRegion {
public:
  /// Follows `groups` groups from the outputs of `producers`.
  PruneRegion(ArrayRef<Gemm> producers, int64_t groups);

  /// Why the region cannot shrink; empty when it can.
  StringRef getRefusal() const { return refusal; }
  int64_t getNumGroups() const { return groups; }
  ArrayRef<Gemm> getProducers() const { return producers; }
  ArrayRef<Gemm> getConsumers() const { return consumers; }
  ArrayRef<ShrunkWeight> getWeights() const { return weights; }
  /// The region's first op (for ordering layers).
  Operation *getFirstOp() const;

  /// Importance of each group: the product, over the producer and consumer
  /// weights, of the L2 norm of the group's slice.
  std::vector<double> getImportance() const;

  /// Activation-aware importance of each group, from the consumers'
  /// kInputNormsAttr: the product over the consumer GEMMs of
  /// `‖X[:, g]‖₂ · ‖W[g, :]‖₂`, the L2 norm over the calibration tokens of
  /// the group's input channels times that of the group's slice of the
  /// consumer weight (for an FFN neuron, Wanda's |W|·‖X‖ with the L2 norm
  /// of the weight row; for a head group, the norm of its attention output
  /// times its rows of the output projection). None when a consumer lacks
  /// the norms or they do not match its K.
  std::optional<std::vector<double>> getActivationImportance() const;

  /// The groups every consumer weight slice of which is all zeros (read
  /// from data: a weight without data has none): they contribute nothing,
  /// so removing them is exact (an already-pruned model).
  SmallVector<int64_t> getDeadGroups() const;

  /// Removes the groups in `removed` (sorted, fewer than all): new weight
  /// constants, smaller types, static sizes and shape bindings; the
  /// consumers' input norms lose the removed channels too.
  void shrink(ArrayRef<int64_t> removed);

  /// Parameters (weights and biases) of the region's GEMMs, and their
  /// FLOPs per token (2·K·N each), with `kept` groups of the region's.
  int64_t countParameters(int64_t kept) const;
  int64_t countFlopsPerToken(int64_t kept) const;

private:
  /// Adds the state of `op`'s results from its operands'; a refusal
  /// naming `op` otherwise.
  LogicalResult propagate(Operation *op);
  LogicalResult refuse(Operation *op, const Twine &why);
  /// The L2 norm of each group's slice of weight `w`.
  std::vector<double> getGroupNorms(const ShrunkWeight &w) const;

  int64_t groups;
  SmallVector<Gemm> producers, consumers;
  SmallVector<ShrunkWeight> weights;
  llvm::MapVector<Value, GroupAxis> values;
  std::string refusal;
};

/// Indices of the elements of groups `kept` along an axis of `unit`s.
SmallVector<int64_t> expandGroups(ArrayRef<int64_t> kept, int64_t unit);

/// A new constant holding `constant`'s elements at `indices` along `axis`,
/// its blob named after the original's.
ConstantOp gatherConstant(OpBuilder &builder, ConstantOp constant, int64_t axis,
                          ArrayRef<int64_t> indices);

/// A constant of `type` holding `bytes` that replaces weight `original`: a
/// blob named after it (`NAME.pruned`), or a literal for a literal.
ElementsAttr makePrunedWeight(RankedTensorType type, ArrayRef<char> bytes,
                              Attribute original);

/// The f32 elements of a constant (nullopt for other types or no data).
std::optional<std::vector<float>> readFloats(ConstantOp constant);

/// The groups to remove from scores `importance`: the `count` smallest
/// (ties: the lower index first), sorted.
SmallVector<int64_t> pickSmallest(ArrayRef<double> importance, int64_t count);

/// Fails, with an error on `op`, for a ratio outside [0, 1).
LogicalResult checkRatio(Operation *op, double ratio);

} // namespace mlir::tsc::prune

#endif // TSC_PASSES_TRANSFORMS_PRUNEREGION_H
