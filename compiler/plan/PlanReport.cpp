//===- PlanReport.cpp - what tsc --report says about a plan ---------------===//
//
// Traffic estimates, layers and source nodes of steps, and the report's
// text; split from Plan.cpp, which builds the plan.
//
//===----------------------------------------------------------------------===//

#include "compiler/plan/Plan.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

uint64_t plan::estimateTraffic(const Plan &plan, const PlanStep &step) {
  auto bytes = [&](unsigned v) { return plan.values[v].byteSize; };
  switch (step.kind) {
  case PlanStep::Kind::Kernel: {
    uint64_t total = 0;
    for (unsigned v : step.buffers)
      total += bytes(v);
    return total;
  }
  case PlanStep::Kind::Gemm: {
    // C is read too when the GEMM accumulates onto it; a residual that is
    // not C's own storage is read once more to seed C.
    bool accumulates = step.beta != 0.0f || step.residual != ~0u;
    uint64_t total =
        bytes(step.a) + bytes(step.b) + bytes(step.c) * (accumulates ? 2 : 1);
    if (step.bias != ~0u)
      total += bytes(step.bias);
    if (step.weightScale != ~0u)
      total += bytes(step.weightScale);
    if (step.residual != ~0u && plan.root(step.residual) != plan.root(step.c))
      total += bytes(step.residual);
    return total;
  }
  case PlanStep::Kind::Copy:
    return bytes(step.source) + bytes(step.destination);
  }
  llvm_unreachable("unknown step kind");
}

/// The node name an op was imported from, if any.
static std::optional<StringRef> sourceName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().strref();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::optional<StringRef> name = sourceName(inner))
        return name;
  return std::nullopt;
}

std::string plan::getSourceNodes(const PlanStep &step, unsigned limit) {
  std::string text;
  unsigned count = 0;
  llvm::StringSet<> seen;
  for (Operation *op : step.ops) {
    std::optional<StringRef> name = sourceName(op->getLoc());
    if (!name || !seen.insert(*name).second)
      continue;
    if (count++ == limit)
      return text + ", ...";
    text += (text.empty() ? "" : ", ") + name->str();
  }
  return text;
}

/// The module scope nested inside a node's NameLoc (the ONNX importer's,
/// from the dynamo exporter's metadata), if any.
static std::optional<StringRef> scopeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    if (auto scope = dyn_cast<NameLoc>(name.getChildLoc()))
      return scope.getName().strref();
    return std::nullopt;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::optional<StringRef> scope = scopeName(inner))
        return scope;
  return std::nullopt;
}

/// The prefix of `path` up to its first numbered part, split at `separator`:
/// "/model/layers.0" of "/model/layers.0/attn/MatMul" ('/', parts like
/// "layers.0"), "model.layers.0" of "model.layers.0.self_attn" ('.', a part
/// "0" after a named one); "" if there is none.
static StringRef numberedPrefix(StringRef path, char separator) {
  SmallVector<StringRef> parts;
  path.split(parts, separator);
  size_t length = 0;
  for (auto [i, part] : llvm::enumerate(parts)) {
    length += part.size() + 1;
    bool numbered;
    if (separator == '.') {
      numbered = i > 0 && !parts[i - 1].empty() && !part.empty() &&
                 llvm::all_of(part, llvm::isDigit);
    } else {
      auto [stem, number] = part.rsplit('.');
      numbered = !stem.empty() && !number.empty() &&
                 llvm::all_of(number, llvm::isDigit);
    }
    if (numbered)
      return path.take_front(length - 1);
  }
  return "";
}

std::string plan::getLayer(const PlanStep &step) {
  for (Operation *op : step.ops) {
    if (std::optional<StringRef> name = sourceName(op->getLoc()))
      if (StringRef layer = numberedPrefix(*name, '/'); !layer.empty())
        return layer.str();
    if (std::optional<StringRef> scope = scopeName(op->getLoc()))
      if (StringRef layer = numberedPrefix(*scope, '.'); !layer.empty())
        return layer.str();
  }
  return "";
}

namespace {
struct Totals {
  unsigned kernels = 0, gemms = 0, copies = 0;
  uint64_t traffic = 0;
  void add(const Plan &plan, const PlanStep &step) {
    kernels += step.kind == PlanStep::Kind::Kernel;
    gemms += step.kind == PlanStep::Kind::Gemm;
    copies += step.kind == PlanStep::Kind::Copy;
    traffic += estimateTraffic(plan, step);
  }
  unsigned steps() const { return kernels + gemms + copies; }
};

Totals totalsOf(const Plan &plan) {
  Totals t;
  for (const PlanStep &step : plan.steps)
    t.add(plan, step);
  return t;
}

std::string megabytes(uint64_t bytes) {
  return llvm::formatv("{0:F2} MB", double(bytes) / 1e6).str();
}
} // namespace

/// With int8 GEMM steps (--quantize=dynamic-int8, docs/quantization.md):
/// every GEMM step int8 or float, a float one with the reason, and the
/// attention kernels, whose products stay float.
static void printQuantization(const Plan &plan, raw_ostream &os) {
  auto isInt8 = [](const PlanStep &s) {
    return s.kind == PlanStep::Kind::Gemm && s.weightScale != ~0u;
  };
  if (llvm::none_of(plan.steps, isInt8))
    return;
  unsigned int8 = 0, gemms = 0, attention = 0;
  for (const PlanStep &step : plan.steps) {
    gemms += step.kind == PlanStep::Kind::Gemm;
    int8 += isInt8(step);
    attention += llvm::count_if(
        step.ops, [](Operation *op) { return isa<AttentionOp>(op); });
  }
  bool calibrated = llvm::any_of(plan.steps, [&](const PlanStep &s) {
    return isInt8(s) && s.inputScale > 0;
  });
  os << (calibrated ? "quantization: static int8 (weights s8 per output "
                      "channel, activations s8 per tensor by calibrated "
                      "scales, s32 accumulation): "
                    : "quantization: dynamic int8 (weights s8 per output "
                      "channel, activations s8 per row, s32 accumulation): ")
     << int8 << " of " << gemms << " GEMMs int8";
  if (attention)
    os << "; attention's products float in " << attention
       << " attention kernels (activations on both sides; softmax and norms "
          "stay float)";
  os << "\n";
  for (auto [i, step] : llvm::enumerate(plan.steps)) {
    if (step.kind != PlanStep::Kind::Gemm)
      continue;
    std::string why = "int8";
    if (!isInt8(step)) {
      const PlanValue &b = plan.values[plan.root(step.b)];
      if (b.storage != Storage::Weight)
        why = "float: its weight is computed at run time (a product of "
              "activations)";
      else if (b.dtype != DType::F32)
        why = "float: not an f32 product";
      else
        why = "float: not in int8 form (a batched weight, K below 16, no "
              "calibrated range, or a quantized value read elsewhere; see "
              "--emit=quantize)";
    }
    os << llvm::formatv("  step {0,4} {1}  {2}\n", i, why,
                        getSourceNodes(step, 2));
  }
}

/// The report's precision line: what is stored how, and for fp16/bf16 the
/// ops that keep f32 results (their outputs may leave the half range).
static void printPrecision(const Plan &plan, raw_ostream &os) {
  if (!isHalfPrecision(plan.precision)) {
    os << "precision: fp32 storage and compute"
       << (plan.gemmTf32 ? "; GEMMs round their inputs to TF32 (cuBLASLt fast "
                           "TF32 on CUDA; fp32 on the CPU, which has no TF32)"
                         : ", TF32 off")
       << "\n";
    return;
  }
  std::map<std::string, unsigned> kept;
  for (const PlanStep &step : plan.steps)
    for (Operation *op : step.ops)
      if (!isa<CastOp>(op) && llvm::any_of(op->getResultTypes(), [](Type t) {
            auto tensor = dyn_cast<RankedTensorType>(t);
            return tensor && tensor.getElementType().isF32();
          }))
        ++kept[op->getName().stripDialect().str()];
  StringRef precision = getPrecisionName(plan.precision);
  os << "precision: " << precision
     << " storage (weights, activations), fp32 compute and accumulation; "
     << (plan.halfIO ? "float inputs and outputs in " + precision.str()
                     : std::string("the model's inputs and outputs keep their "
                                   "types"))
     << "; ops kept in fp32: ";
  if (kept.empty())
    os << "none";
  llvm::interleaveComma(kept, os, [&](const auto &entry) {
    os << entry.first << " x" << entry.second;
  });
  os << "\n";
}

void plan::printReport(const Plan &plan, const Plan *unfused,
                       llvm::raw_ostream &os) {
  Totals total = totalsOf(plan);
  unsigned views = 0;
  for (const PlanValue &value : plan.values)
    views += value.storage == Storage::View;
  os << "plan: " << plan.steps.size() << " steps: " << total.kernels
     << " kernels, " << total.gemms << " GEMM library calls, " << total.copies
     << " copies; " << views << " views (reshapes, in-place results)\n";
  os << "symbols:";
  for (const PlanSymbol &s : plan.symbols)
    os << " " << s.name << "=[" << s.min << ", " << s.max << "]";
  os << "\n";
  os << "memory traffic (estimate at the symbols' maxima): "
     << megabytes(total.traffic) << "\n";
  if (unfused) {
    Totals off = totalsOf(*unfused);
    os << llvm::formatv("fusion              {0,12} {1,12}\n", "on", "off");
    os << llvm::formatv("kernels             {0,12} {1,12}\n", total.kernels,
                        off.kernels);
    os << llvm::formatv("GEMM library calls  {0,12} {1,12}\n", total.gemms,
                        off.gemms);
    os << llvm::formatv("copies              {0,12} {1,12}\n", total.copies,
                        off.copies);
    os << llvm::formatv("memory traffic      {0,12} {1,12}\n",
                        megabytes(total.traffic), megabytes(off.traffic));
    os << llvm::formatv("arena               {0,12} {1,12}\n",
                        megabytes(plan.arenaSize),
                        megabytes(unfused->arenaSize));
  }

  // Per layer, in order of first appearance. A module applied more than
  // once with the same weights (ALBERT shares one layer's weights across
  // its layers) counts each application as a layer: an application ends
  // where a GEMM step reads a weight that a GEMM step of the same
  // application read (steps between its last GEMM and the next
  // application's first count in the earlier one).
  struct Layer {
    std::string name;
    Totals totals;
    llvm::DenseSet<unsigned> weights;
  };
  std::vector<Layer> layers;
  llvm::StringMap<unsigned> current, applications;
  std::vector<std::string> stepLayers;
  Totals outside;
  for (const PlanStep &step : plan.steps) {
    std::string layer = getLayer(step);
    if (layer.empty()) {
      outside.add(plan, step);
      stepLayers.emplace_back();
      continue;
    }
    SmallVector<unsigned, 2> weights;
    if (step.kind == PlanStep::Kind::Gemm)
      for (unsigned v : {step.a, step.b})
        if (plan.values[plan.root(v)].storage == Storage::Weight)
          weights.push_back(plan.root(v));
    auto it = current.find(layer);
    if (it == current.end() || llvm::any_of(weights, [&](unsigned w) {
          return layers[it->second].weights.contains(w);
        })) {
      unsigned n = ++applications[layer];
      current[layer] = layers.size();
      std::string name =
          n == 1 ? layer : llvm::formatv("{0} #{1}", layer, n).str();
      layers.push_back({name, Totals(), {}});
    }
    Layer &l = layers[current[layer]];
    l.totals.add(plan, step);
    l.weights.insert(weights.begin(), weights.end());
    stepLayers.push_back(l.name);
  }
  if (!layers.empty()) {
    unsigned most = 0;
    for (const Layer &l : layers)
      most = std::max(most, l.totals.steps());
    os << "layers: " << layers.size() << ", at most " << most
       << " kernels + library calls each\n";
    auto line = [&](StringRef name, const Totals &t) {
      os << llvm::formatv("  {0,-40} {1,3} kernels {2,3} GEMM calls {3,3} "
                          "copies {4,12}\n",
                          name, t.kernels, t.gemms, t.copies,
                          megabytes(t.traffic));
    };
    for (const Layer &l : layers)
      line(l.name, l.totals);
    line("(outside layers)", outside);
  }
  os << "arena: " << plan.arenaSize
     << " bytes at the symbols' maxima; intermediates sum to "
     << plan.intermediateBytes << " bytes"
     << llvm::format(" (reuse saves %.1f%%)\n",
                     plan.intermediateBytes
                         ? 100.0 * (1.0 - double(plan.arenaSize) /
                                              double(plan.intermediateBytes))
                         : 0.0);
  os << "weights: " << plan.weightBytes << " bytes\n";
  printPrecision(plan, os);
  printQuantization(plan, os);
  os << "steps:\n";
  for (auto [i, step] : llvm::enumerate(plan.steps)) {
    std::string what;
    switch (step.kind) {
    case PlanStep::Kind::Kernel:
      what = step.name;
      break;
    case PlanStep::Kind::Gemm:
      what = step.weightScale != ~0u ? "gemm int8" : "gemm";
      if (step.bias != ~0u)
        what += "+bias";
      // The activation codes of the artifact (format 1.8).
      if (step.activation)
        what += step.activation == 1 ? "+gelu" : "+gelu_tanh";
      if (step.residual != ~0u)
        what += plan.root(step.c) == plan.root(step.residual)
                    ? "+residual (in place)"
                    : "+residual";
      break;
    case PlanStep::Kind::Copy:
      what = "copy";
      break;
    }
    os << llvm::formatv("  {0,4} {1,-60} {2,12}  {3}\n", i, what,
                        megabytes(estimateTraffic(plan, step)), stepLayers[i]);
  }
}
