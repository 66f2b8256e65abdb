//===- PlanReport.cpp - what tsc --report says about a plan ---------------===//
//
// Traffic estimates and the report as text and JSON (the source nodes and
// layers of steps: StepSources.cpp; the graph: PlanDot.cpp); split from
// Plan.cpp.
//
//===----------------------------------------------------------------------===//

#include "compiler/plan/PlanReport.h"
#include "compiler/plan/Plan.h"

#include "dialects/tsc/IR/TscOps.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <set>
#include <tuple>

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
    for (unsigned v : {step.weightScale, step.weightZeroPoint})
      if (v != ~0u)
        total += bytes(v);
    if (step.residual != ~0u && plan.root(step.residual) != plan.root(step.c))
      total += bytes(step.residual);
    return total;
  }
  case PlanStep::Kind::Copy:
    return bytes(step.source) + bytes(step.destination);
  }
  llvm_unreachable("unknown step kind");
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
  llvm::json::Object toJson() const {
    return llvm::json::Object{{"kernels", kernels},
                              {"gemm_calls", gemms},
                              {"copies", copies},
                              {"memory_traffic_bytes", traffic}};
  }
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

/// A layer of the report: its name ("/layers.0", "/layers.0 #2" for a
/// second application of shared weights) and what its steps add up to.
struct Layer {
  std::string name;
  Totals totals;
  llvm::DenseSet<unsigned> weights;
};

/// What the text and the JSON report show, collected once.
struct Report {
  Totals total;
  unsigned views = 0;
  std::vector<Layer> layers;
  Totals outside;
  /// The name of each step's layer ("" outside layers).
  std::vector<std::string> stepLayers;
  /// With fp16/bf16: the ops that keep f32 results, by name.
  std::map<std::string, unsigned> keptF32;
  /// With int8 GEMM steps: how many GEMMs, how many int8, and the attention
  /// kernels (whose products stay float unless bf16 products).
  unsigned gemms = 0, int8Gemms = 0, attention = 0;
  /// f32 attention ops whose products the host computes in bf16
  /// (`bf16_products` with whole pair tiles; --attention-products).
  unsigned attentionBf16Products = 0;
  /// Of the int8 ones, s8 · s8 -> s32 GEMM steps (CUDA).
  unsigned integerGemms = 0;
  /// f8 · f8 -> f32 GEMM steps (CUDA, --quantize=fp8).
  unsigned fp8Gemms = 0;
  /// GEMM steps with bf16 inputs (format 1.16): kept out of int8 in bf16.
  unsigned bf16Gemms = 0;
  /// Weight-only GEMM steps (format 1.15), by "i8"/"i4", group size and
  /// whether the weight has zero points (1.18).
  std::map<std::tuple<std::string, unsigned, bool>, unsigned> weightOnly;
};

/// An s8 · s8 -> s32 GEMM step (CUDA plans, format 1.19): the int8 GEMMs
/// of tsc-expand-quantized-gemms, their quantization and scales in kernels.
bool isIntegerGemm(const Plan &plan, const PlanStep &s) {
  return s.kind == PlanStep::Kind::Gemm && plan.values[s.c].dtype == DType::I32;
}

/// An f8E4M3FN · f8E4M3FN -> f32 GEMM step (CUDA plans, format 1.20).
bool isFp8Gemm(const Plan &plan, const PlanStep &s) {
  return s.kind == PlanStep::Kind::Gemm &&
         plan.values[s.a].dtype == DType::F8E4M3FN;
}

} // namespace

bool plan::isInt8Gemm(const Plan &plan, const PlanStep &s) {
  return (s.kind == PlanStep::Kind::Gemm && s.weightScale != ~0u &&
          !s.weightOnly) ||
         isIntegerGemm(plan, s);
}

namespace {

/// The int8 GEMM steps whose activation is smoothed (A's multipliers).
size_t countSmoothedGemms(const Plan &plan) {
  return llvm::count_if(plan.steps, [&](const PlanStep &s) {
    return isInt8Gemm(plan, s) && s.inputMultiplier != ~0u;
  });
}

/// The int8 GEMM steps that quantize their activation per tensor by its
/// range (DynamicQuantizeLinear's form, format 1.23).
size_t countRangeGemms(const Plan &plan) {
  return llvm::count_if(plan.steps, [&](const PlanStep &s) {
    return isInt8Gemm(plan, s) && s.inputRange;
  });
}

/// "int8", or "float: " and why a GEMM step was not quantized.
std::string gemmDecision(const Plan &plan, const PlanStep &step) {
  if (isInt8Gemm(plan, step))
    return "int8";
  if (isFp8Gemm(plan, step))
    return "fp8";
  if (step.bf16Inputs)
    return "bf16: kept out of int8 by name (--keep-float, --max-error), "
           "operands rounded to bf16, f32 accumulation";
  const PlanValue &b = plan.values[plan.root(step.b)];
  if (b.storage != Storage::Weight)
    return "float: its weight is computed at run time (a product of "
           "activations)";
  if (b.dtype != DType::F32)
    return "float: not an f32 product";
  return "float: not in int8 form (a batched weight, K below 16, no "
         "calibrated range, or a quantized value read elsewhere; see "
         "--emit=quantize)";
}

} // namespace

std::string plan::describeStep(const Plan &plan, const PlanStep &step) {
  std::string what;
  switch (step.kind) {
  case PlanStep::Kind::Kernel:
    return step.name;
  case PlanStep::Kind::Gemm:
    what = step.weightScale != ~0u     ? "gemm int8"
           : isIntegerGemm(plan, step) ? "gemm s8"
           : isFp8Gemm(plan, step)     ? "gemm f8"
           : step.bf16Inputs           ? "gemm bf16-inputs"
                                       : "gemm";
    if (step.bias != ~0u)
      what += "+bias";
    // The activation codes of the artifact (format 1.8).
    if (step.activation)
      what += step.activation == 1 ? "+gelu" : "+gelu_tanh";
    if (step.residual != ~0u)
      what += plan.root(step.c) == plan.root(step.residual)
                  ? "+residual (in place)"
                  : "+residual";
    return what;
  case PlanStep::Kind::Copy:
    return "copy";
  }
  llvm_unreachable("unknown step kind");
}

namespace {

// Per layer, in order of first appearance. A module applied more than
// once with the same weights (ALBERT shares one layer's weights across
// its layers) counts each application as a layer: an application ends
// where a GEMM step reads a weight that a GEMM step of the same
// application read (steps between its last GEMM and the next
// application's first count in the earlier one).
void collectLayers(const Plan &plan, Report &report) {
  llvm::StringMap<unsigned> current, applications;
  for (const PlanStep &step : plan.steps) {
    std::string layer = getLayer(step);
    if (layer.empty()) {
      report.outside.add(plan, step);
      report.stepLayers.emplace_back();
      continue;
    }
    SmallVector<unsigned, 2> weights;
    if (step.kind == PlanStep::Kind::Gemm)
      for (unsigned v : {step.a, step.b})
        if (plan.values[plan.root(v)].storage == Storage::Weight)
          weights.push_back(plan.root(v));
    auto it = current.find(layer);
    if (it == current.end() || llvm::any_of(weights, [&](unsigned w) {
          return report.layers[it->second].weights.contains(w);
        })) {
      unsigned n = ++applications[layer];
      current[layer] = report.layers.size();
      std::string name =
          n == 1 ? layer : llvm::formatv("{0} #{1}", layer, n).str();
      report.layers.push_back({name, Totals(), {}});
    }
    Layer &l = report.layers[current[layer]];
    l.totals.add(plan, step);
    l.weights.insert(weights.begin(), weights.end());
    report.stepLayers.push_back(l.name);
  }
}

Report collectReport(const Plan &plan) {
  Report report;
  report.total = totalsOf(plan);
  for (const PlanValue &value : plan.values)
    report.views += value.storage == Storage::View;
  collectLayers(plan, report);
  for (const PlanStep &step : plan.steps) {
    report.gemms += step.kind == PlanStep::Kind::Gemm;
    report.int8Gemms += isInt8Gemm(plan, step);
    report.integerGemms += isIntegerGemm(plan, step);
    report.fp8Gemms += isFp8Gemm(plan, step);
    report.bf16Gemms += step.kind == PlanStep::Kind::Gemm && step.bf16Inputs;
    if (step.kind == PlanStep::Kind::Gemm && step.weightOnly)
      ++report.weightOnly[{plan.values[step.b].dtype == DType::I4 ? "i4" : "i8",
                           step.groupSize, step.weightZeroPoint != ~0u}];
    for (Operation *op : step.ops)
      if (auto attention = dyn_cast<AttentionOp>(op)) {
        ++report.attention;
        report.attentionBf16Products +=
            attention.getBf16Products() && attention.hasPairTileHeadDims();
      }
    if (!isHalfPrecision(plan.precision))
      continue;
    for (Operation *op : step.ops)
      if (!isa<CastOp>(op) && llvm::any_of(op->getResultTypes(), [](Type t) {
            auto tensor = dyn_cast<RankedTensorType>(t);
            return tensor && tensor.getElementType().isF32();
          }))
        ++report.keptF32[op->getName().stripDialect().str()];
  }
  return report;
}

double reuseSavings(const Plan &plan) {
  return plan.intermediateBytes
             ? 100.0 * (1.0 -
                        double(plan.arenaSize) / double(plan.intermediateBytes))
             : 0.0;
}
} // namespace

std::vector<std::string> plan::getStepLayers(const Plan &plan) {
  return collectReport(plan).stepLayers;
}

/// "; attention's products ..." of the quantization and precision lines:
/// how many attention kernels compute their products in bf16
/// (--attention-products) and how many in float.
static void printAttentionProducts(const Report &report, raw_ostream &os) {
  unsigned bf16 = report.attentionBf16Products;
  os << "; attention's products ";
  if (bf16)
    os << "bf16 (operands rounded, f32 accumulation; --attention-products) in "
       << bf16 << " of " << report.attention << " attention kernels"
       << (bf16 < report.attention ? ", float in the rest" : "");
  else
    os << "float in " << report.attention << " attention kernels";
  os << " (softmax and norms stay float)";
}

/// With int8 GEMM steps (--quantize=dynamic-int8, docs/quantization.md):
/// every GEMM step int8 or float, a float one with the reason, and the
/// attention kernels, whose products stay float.
static void printQuantization(const Plan &plan, const Report &report,
                              raw_ostream &os) {
  for (const auto &[form, count] : report.weightOnly) {
    auto [dtype, group, zeroPoints] = form;
    os << "quantization: weight-only " << dtype << " weights ("
       << (group ? "a scale per group of " + std::to_string(group) + " along K"
                 : std::string("a scale per output channel"))
       << (zeroPoints ? " and a zero point" : "")
       << "; activations f32; dequantized once per session on the host): "
       << count << " of " << report.gemms << " GEMMs\n";
  }
  if (report.fp8Gemms)
    os << "quantization: fp8 (f8E4M3FN weights and activations; cuBLASLt's "
          "fp8 GEMMs with f32 accumulation, the activation's quantization, "
          "the scales and the epilogue in kernels): "
       << report.fp8Gemms << " of " << report.gemms << " GEMMs fp8\n";
  else if (!report.int8Gemms)
    return;
  bool calibrated = llvm::any_of(plan.steps, [&](const PlanStep &s) {
    return isInt8Gemm(plan, s) && s.inputScale > 0;
  });
  size_t zeroPoints = llvm::count_if(plan.steps, [&](const PlanStep &s) {
    return isInt8Gemm(plan, s) && s.inputZeroPoint != 0;
  });
  size_t smoothed = countSmoothedGemms(plan);
  size_t ranged = countRangeGemms(plan);
  if (report.int8Gemms) {
    os << (report.integerGemms
               ? "quantization: int8 (weights s8 per output channel; "
                 "cuBLASLt's "
                 "s8 GEMMs, the activation's quantization, the scales and the "
                 "epilogue in kernels"
           : calibrated ? "quantization: static int8 (weights s8 per output "
                          "channel, activations s8 per tensor by calibrated "
                          "scales"
           : ranged == report.int8Gemms
               ? "quantization: dynamic int8 (weights s8 per output "
                 "channel, activations u8 per tensor by their range "
                 "with a zero point, as DynamicQuantizeLinear"
               : "quantization: dynamic int8 (weights s8 per output "
                 "channel, activations s8 per row");
    if (zeroPoints)
      os << ", " << zeroPoints << " of them with a zero point";
    if (ranged && ranged != report.int8Gemms)
      os << ", " << ranged
         << " of them per tensor by its range with a zero point "
            "(DynamicQuantizeLinear)";
    if (smoothed)
      os << ", " << smoothed
         << " of them smoothed (outlier channels moved into the weights; "
            "--smoothing)";
    os << ", s32 accumulation): " << report.int8Gemms << " of " << report.gemms
       << " GEMMs int8";
    if (report.bf16Gemms)
      os << ", " << report.bf16Gemms << " kept in bf16";
    if (report.attention)
      printAttentionProducts(report, os);
    os << "\n";
  }
  for (auto [i, step] : llvm::enumerate(plan.steps))
    if (step.kind == PlanStep::Kind::Gemm)
      // Every source GEMM of a merged one (Q, K and V: three).
      os << llvm::formatv("  step {0,4} {1}  {2}\n", i,
                          gemmDecision(plan, step), getSourceNodes(step, 4));
}

/// The report's precision line: what is stored how, and for fp16/bf16 the
/// ops that keep f32 results (their outputs may leave the half range).
static void printPrecision(const Plan &plan, const Report &report,
                           raw_ostream &os) {
  if (!isHalfPrecision(plan.precision)) {
    os << "precision: fp32 storage and compute"
       << (plan.gemmTf32 ? "; GEMMs round their inputs to TF32 (cuBLASLt fast "
                           "TF32 on CUDA; fp32 on the CPU, which has no TF32)"
                         : ", TF32 off");
    // (With int8 GEMMs the quantization line says it.)
    if (report.attentionBf16Products && !report.int8Gemms)
      printAttentionProducts(report, os);
    os << "\n";
    return;
  }
  StringRef precision = getPrecisionName(plan.precision);
  os << "precision: " << precision
     << " storage (weights, activations), fp32 compute and accumulation; "
     << (plan.halfIO ? "float inputs and outputs in " + precision.str()
                     : std::string("the model's inputs and outputs keep their "
                                   "types"))
     << "; ops kept in fp32: ";
  if (report.keptF32.empty())
    os << "none";
  llvm::interleaveComma(report.keptF32, os, [&](const auto &entry) {
    os << entry.first << " x" << entry.second;
  });
  os << "\n";
}

void plan::printReport(const Plan &plan, const Plan *unfused,
                       llvm::raw_ostream &os) {
  Report report = collectReport(plan);
  const Totals &total = report.total;
  os << "plan: " << plan.steps.size() << " steps: " << total.kernels
     << " kernels, " << total.gemms << " GEMM library calls, " << total.copies
     << " copies; " << report.views << " views (reshapes, in-place results)\n";
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
  if (!report.layers.empty()) {
    unsigned most = 0;
    for (const Layer &l : report.layers)
      most = std::max(most, l.totals.steps());
    os << "layers: " << report.layers.size() << ", at most " << most
       << " kernels + library calls each\n";
    auto line = [&](StringRef name, const Totals &t) {
      os << llvm::formatv("  {0,-40} {1,3} kernels {2,3} GEMM calls {3,3} "
                          "copies {4,12}\n",
                          name, t.kernels, t.gemms, t.copies,
                          megabytes(t.traffic));
    };
    for (const Layer &l : report.layers)
      line(l.name, l.totals);
    line("(outside layers)", report.outside);
  }
  os << "arena: " << plan.arenaSize
     << " bytes at the symbols' maxima; intermediates sum to "
     << plan.intermediateBytes << " bytes"
     << llvm::format(" (reuse saves %.1f%%)\n", reuseSavings(plan));
  os << "weights: " << plan.weightBytes << " bytes\n";
  printPrecision(plan, report, os);
  printQuantization(plan, report, os);
  os << "steps:\n";
  for (auto [i, step] : llvm::enumerate(plan.steps))
    os << llvm::formatv(
        "  {0,4} {1,-60} {2,12}  {3}\n", i, describeStep(plan, step),
        megabytes(estimateTraffic(plan, step)), report.stepLayers[i]);
}

llvm::json::Object plan::getReportJson(const Plan &plan, const Plan *unfused) {
  Report report = collectReport(plan);
  llvm::json::Object out;
  llvm::json::Object totals = report.total.toJson();
  totals["steps"] = plan.steps.size();
  totals["views"] = report.views;
  out["plan"] = std::move(totals);
  llvm::json::Array symbols;
  for (const PlanSymbol &s : plan.symbols)
    symbols.push_back(
        llvm::json::Object{{"name", s.name}, {"min", s.min}, {"max", s.max}});
  out["symbols"] = std::move(symbols);
  if (unfused) {
    llvm::json::Object off = totalsOf(*unfused).toJson();
    off["arena_bytes"] = unfused->arenaSize;
    out["unfused"] = std::move(off);
  }
  llvm::json::Array layers;
  for (const Layer &l : report.layers) {
    llvm::json::Object layer = l.totals.toJson();
    layer["name"] = l.name;
    layers.push_back(std::move(layer));
  }
  out["layers"] = std::move(layers);
  out["outside_layers"] = report.outside.toJson();
  out["arena_bytes"] = plan.arenaSize;
  out["intermediate_bytes"] = plan.intermediateBytes;
  out["arena_reuse_saves_percent"] = reuseSavings(plan);
  out["weight_bytes"] = plan.weightBytes;
  llvm::json::Object precision{{"storage", getPrecisionName(plan.precision)},
                               {"gemm_tf32", plan.gemmTf32},
                               {"half_io", plan.halfIO}};
  if (isHalfPrecision(plan.precision)) {
    llvm::json::Object kept;
    for (const auto &[name, count] : report.keptF32)
      kept[name] = count;
    precision["ops_kept_fp32"] = std::move(kept);
  }
  if (report.attentionBf16Products)
    precision["attention_kernels_bf16_products"] = report.attentionBf16Products;
  out["precision"] = std::move(precision);
  if (report.fp8Gemms)
    out["quantization"] = llvm::json::Object{
        {"mode", "fp8"},
        {"f8_gemm_steps", report.fp8Gemms},
        {"gemms", report.gemms},
        {"attention_kernels_float",
         report.attention - report.attentionBf16Products},
        {"attention_kernels_bf16_products", report.attentionBf16Products}};
  else if (report.int8Gemms) {
    bool calibrated = llvm::any_of(plan.steps, [&](const PlanStep &s) {
      return isInt8Gemm(plan, s) && s.inputScale > 0;
    });
    // A CUDA plan's s8 GEMM steps do not say how their input was quantized
    // (kernels do): "int8".
    out["quantization"] = llvm::json::Object{
        {"mode", report.integerGemms ? "int8"
                 : calibrated        ? "static-int8"
                                     : "dynamic-int8"},
        {"s8_gemm_steps", report.integerGemms},
        {"gemms", report.gemms},
        {"int8_gemms", report.int8Gemms},
        {"zero_point_gemms",
         int64_t(llvm::count_if(plan.steps,
                                [&](const PlanStep &s) {
                                  return isInt8Gemm(plan, s) &&
                                         s.inputZeroPoint != 0;
                                }))},
        {"smoothed_gemms", int64_t(countSmoothedGemms(plan))},
        {"range_gemms", int64_t(countRangeGemms(plan))},
        {"bf16_input_gemms", report.bf16Gemms},
        {"attention_kernels_float",
         report.attention - report.attentionBf16Products},
        {"attention_kernels_bf16_products", report.attentionBf16Products}};
  }
  // Weight-only GEMM steps, one entry per form the text report has a line
  // for.
  if (!report.weightOnly.empty()) {
    llvm::json::Array forms;
    for (const auto &[form, count] : report.weightOnly) {
      auto [dtype, group, zeroPoints] = form;
      forms.push_back(llvm::json::Object{{"weights", dtype},
                                         {"group_size", group},
                                         {"zero_points", zeroPoints},
                                         {"gemms", count}});
    }
    out["weight_only"] = std::move(forms);
  }
  llvm::json::Array steps;
  for (auto [i, step] : llvm::enumerate(plan.steps)) {
    StringRef kind = step.kind == PlanStep::Kind::Kernel ? "kernel"
                     : step.kind == PlanStep::Kind::Gemm ? "gemm"
                                                         : "copy";
    llvm::json::Object entry{
        {"index", i},
        {"kind", kind},
        {"name", describeStep(plan, step)},
        {"memory_traffic_bytes", estimateTraffic(plan, step)},
        {"layer", report.stepLayers[i]},
        {"source_nodes", llvm::json::Array(getSourceNodeList(step))}};
    if (step.kind == PlanStep::Kind::Gemm && report.int8Gemms)
      entry["quantization"] = gemmDecision(plan, step);
    steps.push_back(std::move(entry));
  }
  out["steps"] = std::move(steps);
  return out;
}
