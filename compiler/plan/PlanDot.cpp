//===- PlanDot.cpp - the plan as a graph: tsc --emit=dot ------------------===//
//
// printPlanDot (PlanReport.h); split from PlanReport.cpp, whose step names
// and int8 test it uses.
//
//===----------------------------------------------------------------------===//

#include "compiler/plan/PlanReport.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

namespace {

StringRef dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F64:
    return "f64";
  case DType::I8:
    return "i8";
  case DType::U8:
    return "u8";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::Bool:
    return "bool";
  default:
    return "other";
  }
}

/// The values step `step` reads and writes (their plan indices).
void getStepValues(const Plan &plan, const PlanStep &step,
                   SmallVectorImpl<unsigned> &reads,
                   SmallVectorImpl<unsigned> &writes) {
  switch (step.kind) {
  case PlanStep::Kind::Kernel:
    // Inputs first, then results: a result is a value one of its ops
    // defines.
    for (unsigned v : step.buffers) {
      Value value = plan.values[v].value;
      Operation *def = value ? value.getDefiningOp() : nullptr;
      bool written = def && llvm::is_contained(step.ops, def);
      (written ? writes : reads).push_back(v);
    }
    return;
  case PlanStep::Kind::Gemm:
    for (unsigned v : {step.a, step.b, step.bias, step.residual,
                       step.weightScale, step.weightZeroPoint})
      if (v != ~0u)
        reads.push_back(v);
    writes.push_back(step.c);
    return;
  case PlanStep::Kind::Copy:
    reads.push_back(step.source);
    writes.push_back(step.destination);
    return;
  }
}

/// The fill colour of a step: by kind and by the precision it computes in
/// (as hex, which Graphviz's SVG keeps as it is).
StringRef stepColour(const Plan &plan, const PlanStep &step,
                     ArrayRef<unsigned> writes) {
  if (isInt8Gemm(plan, step))
    return "#ffa500"; // orange
  bool half = llvm::any_of(writes, [&](unsigned v) {
    DType d = plan.values[v].dtype;
    return d == DType::F16 || d == DType::BF16;
  });
  if (step.kind == PlanStep::Kind::Copy)
    return "#ffffff";
  if (step.kind == PlanStep::Kind::Gemm)
    return half || step.bf16Inputs ? "#63b8ff" : "#98fb98"; // blue, green
  return half ? "#add8e6" : "#d3d3d3";                      // light blue, grey
}

std::string escapeDot(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

} // namespace

void plan::printPlanDot(const Plan &plan, llvm::raw_ostream &os) {
  std::vector<std::string> layers = getStepLayers(plan);
  os << "// tsc --emit=dot: one node per step of the plan (generated kernel,\n"
        "// GEMM library call or copy); edges are the values between them,\n"
        "// labelled with their element type. Fill: grey f32 kernel, light\n"
        "// blue f16/bf16 kernel, green f32 GEMM, blue f16/bf16 GEMM (or bf16\n"
        "// inputs), orange\n"
        "// int8 GEMM, white copy. Render: dot -Tsvg plan.dot -o plan.svg\n";
  os << "digraph plan {\n  rankdir=TB;\n"
        "  node [shape=box, style=filled, fontname=\"Helvetica\", "
        "fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=8];\n";
  // The node that last wrote each stored value (a view is its root's).
  llvm::DenseMap<unsigned, std::string> producer;
  for (auto [i, input] : llvm::enumerate(plan.inputs)) {
    std::string id = "input" + std::to_string(i);
    os << "  " << id << " [shape=ellipse, fillcolor=white, label=\"input "
       << escapeDot(input.first) << "\"];\n";
    producer[plan.root(input.second)] = id;
  }
  std::set<std::pair<std::string, std::string>> edges;
  auto edge = [&](const std::string &from, const std::string &to,
                  StringRef label) {
    if (edges.insert({from, to}).second)
      os << "  " << from << " -> " << to << " [label=\"" << label << "\"];\n";
  };
  for (auto [i, step] : llvm::enumerate(plan.steps)) {
    SmallVector<unsigned, 8> reads, writes;
    getStepValues(plan, step, reads, writes);
    std::string id = "step" + std::to_string(i);
    std::string label =
        std::to_string(i) + ": " + escapeDot(describeStep(plan, step));
    if (!layers[i].empty())
      label += "\\n" + escapeDot(layers[i]);
    unsigned weights = llvm::count_if(reads, [&](unsigned v) {
      return plan.values[plan.root(v)].storage == Storage::Weight;
    });
    if (weights)
      label += "\\n" + std::to_string(weights) + " weight" +
               (weights == 1 ? "" : "s");
    os << "  " << id << " [fillcolor=\"" << stepColour(plan, step, writes)
       << "\", label=\"" << label << "\", tooltip=\""
       << escapeDot(getSourceNodes(step, 8)) << "\"];\n";
    for (unsigned v : reads) {
      auto it = producer.find(plan.root(v));
      if (it != producer.end())
        edge(it->second, id, dtypeName(plan.values[v].dtype));
    }
    for (unsigned v : writes)
      producer[plan.root(v)] = id;
  }
  for (auto [i, output] : llvm::enumerate(plan.outputs)) {
    std::string id = "output" + std::to_string(i);
    os << "  " << id << " [shape=ellipse, fillcolor=white, label=\"output "
       << escapeDot(output.first) << "\"];\n";
    auto it = producer.find(plan.root(output.second));
    if (it != producer.end())
      edge(it->second, id, dtypeName(plan.values[output.second].dtype));
  }
  os << "}\n";
}
