//===- PlanReport.h - the plan as tsc --report and --emit=dot show it ----===//
//
// The machine-readable views of a plan: `tsc --report=json` (the text
// report's content, printReport in Plan.h) and the graph `tsc --emit=dot`
// draws. Kept apart from Plan.h, which most of the compiler includes.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_PLAN_PLANREPORT_H
#define TSC_COMPILER_PLAN_PLANREPORT_H

#include "compiler/plan/Plan.h"

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace mlir::tsc::plan {

/// Whether a step is an int8 GEMM: by a quantized weight's scales (kinds
/// 6 and 7) or an s8 · s8 -> s32 product (CUDA).
bool isInt8Gemm(const Plan &plan, const PlanStep &s);

/// What a step does: its kernel's name, "gemm" with its epilogue, or "copy".
std::string describeStep(const Plan &plan, const PlanStep &step);

/// The name of each step's layer, as the report groups them ("" outside
/// layers).
std::vector<std::string> getStepLayers(const Plan &plan);

/// The source nodes of a step's ops, each once, in order.
std::vector<std::string> getSourceNodeList(const PlanStep &step);

/// What printReport shows, as JSON (docs/tools.md lists the fields): totals,
/// symbols, the comparison with `unfused` when given, layers, arena,
/// weights, precision, quantization decisions and every step with its
/// layer and source nodes. Sizes are bytes, not the text's rounded MB.
llvm::json::Object getReportJson(const Plan &plan, const Plan *unfused);

/// The plan as a Graphviz graph (`tsc --emit=dot`): one node per step
/// (kernel, GEMM library call, copy) labelled with what --report calls it
/// and its layer, filled by kind and precision (int8 GEMMs orange, f16/bf16
/// blue), the model's inputs and outputs as ellipses, and an edge for each
/// value a step reads from the step that last wrote it (labelled with its
/// element type; weights are counted in the label, not drawn).
void printPlanDot(const Plan &plan, llvm::raw_ostream &os);

} // namespace mlir::tsc::plan

#endif // TSC_COMPILER_PLAN_PLANREPORT_H
