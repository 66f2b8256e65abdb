//===- Artifact.cpp - the .tscm writer -------------------------------------===//

#include "compiler/artifact/Artifact.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

// The runtime's CRC-32C (SSE4.2 where the CPU has it), compiled in, and the
// format's constants: one definition of the format for the writer and the
// reader.
#include "runtime/src/crc32c.h"
#include "runtime/src/format.h"

#include <array>
#include <cstring>
#include <functional>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

namespace {

/// Little-endian byte writer.
class Writer {
public:
  std::vector<char> bytes;
  template <typename T> void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    char raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));
    bytes.insert(bytes.end(), raw, raw + sizeof(T));
  }
  void u8(uint8_t v) { put(v); }
  void u16(uint16_t v) { put(v); }
  void u32(uint32_t v) { put(v); }
  void u64(uint64_t v) { put(v); }
  void i64(int64_t v) { put(v); }
  void str(StringRef s) {
    u32(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  void align(size_t alignment) {
    bytes.resize(llvm::alignTo(bytes.size(), alignment), 0);
  }
};

/// The artifact steps of plan step `s` (number `i`): one, or with `device`
/// one per launch of a kernel step.
size_t countArtifactSteps(const PlanStep &s, size_t i,
                          const cuda::DeviceCode *device) {
  return device && s.kind == PlanStep::Kind::Kernel ? device->launches[i].size()
                                                    : 1;
}

/// The artifact steps of `plan`.
size_t countArtifactSteps(const Plan &plan, const cuda::DeviceCode *device) {
  size_t count = 0;
  for (auto [i, s] : llvm::enumerate(plan.steps))
    count += countArtifactSteps(s, i, device);
  return count;
}

/// Whether `plan` has values of the packed sub-byte types (format 1.7).
bool hasPackedValues(const Plan &plan) {
  return llvm::any_of(plan.values,
                      [](const PlanValue &v) { return v.dtype >= DType::U4; });
}

/// Whether `plan` has a GEMM with an activation (format 1.8).
bool hasGemmActivations(const Plan &plan) {
  return llvm::any_of(plan.steps, [](const PlanStep &s) {
    return s.kind == PlanStep::Kind::Gemm && s.activation != 0;
  });
}

/// Whether a run defines some symbol between steps (format 1.8).
bool hasLateDefinitions(const Plan &plan) {
  return llvm::any_of(plan.symbols,
                      [](const PlanSymbol &s) { return s.afterStep >= 0; });
}

/// One expectation (format 1.9): the dtype, whether the step writes the
/// buffer, each dim's expression.
LogicalResult writeExpectation(Writer &w, DType dtype, bool written,
                               ArrayRef<AffineExpr> dims) {
  w.u8(static_cast<uint8_t>(dtype));
  w.u8(written ? ::tscm::kBufferWritten : 0);
  w.u16(0);
  w.u32(dims.size());
  for (AffineExpr dim : dims) {
    std::vector<uint8_t> code;
    if (failed(encodeAffineExpr(dim, code)))
      return failure();
    w.u32(code.size());
    w.bytes.insert(w.bytes.end(), code.begin(), code.end());
  }
  return success();
}

/// Format 1.9: what the code of a step expects of plan value `v`, from the
/// type of the graph value it computes with, as outlineKernels wraps the
/// buffer (the tensor type's element type and static dims, the plan's shape
/// expressions for its dynamic dims): not from the values table, which the
/// loader checks against it. Fails for a value without a ranked graph value.
LogicalResult writeExpectation(Writer &w, const Plan &plan, unsigned v,
                               bool written) {
  const PlanValue &value = plan.values[v];
  auto type = value.value ? dyn_cast<RankedTensorType>(value.value.getType())
                          : RankedTensorType();
  if (!type || size_t(type.getRank()) != value.dims.size())
    return failure();
  FailureOr<DType> dtype = getDType(type.getElementType());
  if (failed(dtype))
    return failure();
  SmallVector<AffineExpr> dims;
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    dims.push_back(ShapedType::isDynamic(size)
                       ? plan.exprs[value.dims[d]]
                       : getAffineConstantExpr(size, type.getContext()));
  return writeExpectation(w, *dtype, written, dims);
}

/// Format 1.11: what a CUDA launch expects of the scratch plan value `v`
/// that prepareLaunches placed for it (no graph value): bytes it writes,
/// one dim of the byte count the launch computed.
LogicalResult writeScratchExpectation(Writer &w, const Plan &plan, unsigned v) {
  const PlanValue &value = plan.values[v];
  if (value.value || value.dtype != DType::U8 || value.dims.size() != 1)
    return failure();
  return writeExpectation(w, DType::U8, /*written=*/true,
                          {plan.exprs[value.dims[0]]});
}

/// Whether kernel step `s` writes graph value `v` (one of its ops computes
/// it): its results, as outlineKernels materializes them.
bool writes(const PlanStep &s, Value v) {
  Operation *def = v ? v.getDefiningOp() : nullptr;
  return def && llvm::is_contained(s.ops, def);
}

} // namespace

static uint16_t planMinor(const Plan &plan, const cuda::DeviceCode *device);

/// The format version of the STEP section, which every artifact has.
constexpr uint16_t kStepsMinor = 13;

/// The version a file is written in: the plan's, or the STEP section's.
static uint16_t fileMinor(const Plan &plan, const cuda::DeviceCode *device) {
  return std::max<uint16_t>(kStepsMinor, planMinor(plan, device));
}

namespace {

/// The plan; with `device`, kernel steps are its launches.
FailureOr<std::vector<char>> encodePlan(const Plan &plan, uint64_t isa,
                                        const cuda::DeviceCode *device) {
  Writer w;
  w.str(device ? "cuda" : "cpu");
  w.u64(isa);
  w.u32(plan.symbols.size());
  for (const PlanSymbol &s : plan.symbols) {
    w.str(s.name);
    w.i64(s.min);
    w.i64(s.max);
  }
  w.u32(plan.exprs.size());
  for (AffineExpr expr : plan.exprs) {
    std::vector<uint8_t> code;
    if (failed(encodeAffineExpr(expr, code)))
      return failure();
    w.u32(code.size());
    w.bytes.insert(w.bytes.end(), code.begin(), code.end());
  }
  w.u32(plan.values.size());
  for (const PlanValue &v : plan.values) {
    w.u8(static_cast<uint8_t>(v.dtype));
    w.u8(static_cast<uint8_t>(v.storage));
    w.u16(0);
    w.u32(v.dims.size());
    for (unsigned d : v.dims)
      w.u32(d);
    switch (v.storage) {
    case Storage::Input:
    case Storage::Output:
      w.u32(v.index);
      break;
    case Storage::Weight:
      w.u64(v.offset);
      w.u64(v.byteSize);
      break;
    case Storage::Arena:
      w.u64(v.offset);
      break;
    case Storage::View:
      w.u32(v.base);
      break;
    }
  }
  w.u64(plan.arenaSize);
  for (const auto *list : {&plan.inputs, &plan.outputs}) {
    w.u32(list->size());
    for (const auto &[name, value] : *list) {
      w.str(name);
      w.u32(value);
    }
  }
  w.u32(countArtifactSteps(plan, device));
  for (auto [i, s] : llvm::enumerate(plan.steps)) {
    if (device && s.kind == PlanStep::Kind::Kernel) {
      // Format 1.2, step kind 5: one per launch.
      std::string source = s.name;
      if (std::string nodes = getSourceNodes(s); !nodes.empty())
        source += " (" + nodes + ")";
      for (const cuda::Launch &launch : device->launches[i]) {
        w.u8(static_cast<uint8_t>(::tscm::StepKind::Launch));
        w.u32(launch.module);
        for (unsigned e : launch.grid)
          w.u32(e);
        for (unsigned e : launch.block)
          w.u32(e);
        w.u32(launch.args.size());
        for (const cuda::LaunchArg &arg : launch.args) {
          w.u8(static_cast<uint8_t>(arg.kind));
          w.u32(arg.index);
        }
        w.str(source);
        // Format 1.11: what the kernel expects of each pointer argument:
        // a buffer of the step as its kernel was compiled, or scratch the
        // launch itself placed (u8, one dim: its byte count).
        for (const cuda::LaunchArg &arg : launch.args) {
          if (arg.kind != cuda::LaunchArg::Kind::Pointer)
            continue;
          if (failed(llvm::is_contained(s.buffers, arg.index)
                         ? writeExpectation(
                               w, plan, arg.index,
                               writes(s, plan.values[arg.index].value))
                         : writeScratchExpectation(w, plan, arg.index)))
            return failure();
        }
      }
      continue;
    }
    switch (s.kind) {
    case PlanStep::Kind::Kernel:
      w.u8(static_cast<uint8_t>(::tscm::StepKind::Kernel));
      w.str(s.name);
      w.u32(s.buffers.size());
      for (unsigned b : s.buffers)
        w.u32(b);
      // Format 1.9: what the kernel expects of each buffer.
      for (unsigned b : s.buffers)
        if (failed(
                writeExpectation(w, plan, b, writes(s, plan.values[b].value))))
          return failure();
      break;
    case PlanStep::Kind::Gemm:
      // Format 1.1: a GEMM with a residual is kind 4, kind 2's fields and
      // then the residual; 1.0 readers reject it by its kind.
      // Format 1.10: an int8 GEMM is kind 6, kind 4's fields (the residual
      // kNone when it has none) and then B's scale per output channel;
      // 1.12: with A's scale a constant, kind 7, kind 6's fields and then
      // that scale. Format 1.15: a weight-only GEMM is kind 8, kind 4's
      // fields, then B's scale and the group size (0: per channel).
      w.u8(static_cast<uint8_t>(
          s.weightOnly           ? ::tscm::StepKind::GemmWeightOnly
          : s.inputScale > 0.0f  ? ::tscm::StepKind::GemmInt8Static
          : s.weightScale != ~0u ? ::tscm::StepKind::GemmInt8
          : s.residual != ~0u    ? ::tscm::StepKind::GemmResidual
                                 : ::tscm::StepKind::Gemm));
      for (unsigned v : {s.a, s.b, s.c, s.bias})
        w.u32(v);
      w.u8(s.transA);
      w.u8(s.transB);
      // Flags (1.2): bit 0, TF32 allowed; bit 1 (1.14), a 2:4 compressed
      // weight; bit 2 (1.16), bf16 inputs; bit 3 (1.17), A's zero point;
      // bit 4 (1.18), B's zero points; bit 5 (1.21; 1.22 on a dynamic int8
      // step), A's multipliers; bit 6 (1.23, dynamic int8), A per tensor by
      // its range; bits 8-15 (1.8), the activation.
      w.u16(uint16_t(
          (plan.gemmTf32 ? ::tscm::kGemmTf32 : 0) |
          (s.inputMultiplier != ~0u ? ::tscm::kGemmInputMultiplier : 0) |
          (s.inputRange ? ::tscm::kGemmInputRange : 0) |
          (s.bf16Inputs ? ::tscm::kGemmBf16Inputs : 0) |
          (s.inputZeroPoint ? ::tscm::kGemmInputZeroPoint : 0) |
          (s.weightOnly && s.weightZeroPoint != ~0u
               ? ::tscm::kGemmWeightZeroPoint
               : 0) |
          (device && llvm::is_contained(device->sparseSteps, i)
               ? ::tscm::kGemmSparse24
               : 0) |
          s.activation << ::tscm::kGemmActivationShift));
      for (unsigned e : {s.batch, s.m, s.n, s.k, s.lda, s.ldb, s.ldc,
                         s.strideA, s.strideB, s.strideC})
        w.u32(e);
      w.put(s.alpha);
      w.put(s.beta);
      if (s.residual != ~0u || s.weightScale != ~0u)
        w.u32(s.residual != ~0u ? s.residual : ::tscm::kNone);
      if (s.weightScale != ~0u)
        w.u32(s.weightScale);
      if (s.weightOnly)
        w.u32(s.groupSize);
      else if (s.inputScale > 0.0f)
        w.put(s.inputScale);
      if (s.inputScale > 0.0f && s.inputZeroPoint)
        w.u32(uint32_t(s.inputZeroPoint));
      if (s.weightOnly && s.weightZeroPoint != ~0u)
        w.u32(s.weightZeroPoint);
      if (s.inputMultiplier != ~0u)
        w.u32(s.inputMultiplier);
      // Format 1.9: what the library call expects of A, B, C, then the
      // bias, the residual, (1.10) the weight scale, (1.18) the weight's
      // zero points and (1.21) A's multipliers it has; it writes C.
      for (auto [k, v] : llvm::enumerate(
               std::array{s.a, s.b, s.c, s.bias, s.residual, s.weightScale,
                          s.weightZeroPoint, s.inputMultiplier}))
        if (v != ~0u &&
            failed(writeExpectation(w, plan, v, /*written=*/k == 2)))
          return failure();
      break;
    case PlanStep::Kind::Copy:
      w.u8(static_cast<uint8_t>(::tscm::StepKind::Copy));
      w.u32(s.source);
      w.u32(s.destination);
      break;
    }
  }
  // Format 1.6: the symbols bound from data, in the order they are defined;
  // plans without them end here, readable by older runtimes, unless they
  // are 1.7 or newer (packed values, GEMM activations), whose readers
  // expect the count.
  size_t definitions = llvm::count_if(
      plan.symbols, [](const PlanSymbol &s) { return !s.definition.empty(); });
  uint16_t minor = fileMinor(plan, device);
  if (!definitions && minor < 7)
    return std::move(w.bytes);
  // Format 1.8: after which artifact step each definition is evaluated
  // (a CUDA kernel step is its launches), 0xFFFFFFFF before the first.
  std::vector<uint32_t> lastArtifactStep;
  for (auto [i, s] : llvm::enumerate(plan.steps)) {
    size_t count = countArtifactSteps(s, i, device);
    uint32_t before =
        lastArtifactStep.empty() ? 0 : lastArtifactStep.back() + 1;
    lastArtifactStep.push_back(before + count - 1);
  }
  w.u32(definitions);
  for (auto [j, s] : llvm::enumerate(plan.symbols)) {
    if (s.definition.empty())
      continue;
    w.u32(j);
    w.u32(s.definition.size());
    w.bytes.insert(w.bytes.end(), s.definition.begin(), s.definition.end());
    if (minor >= 8)
      w.u32(s.afterStep < 0 ? 0xFFFFFFFFu : lastArtifactStep[s.afterStep]);
  }
  return std::move(w.bytes);
}

/// The CUDA section: chips, then each module's SASS and PTX per chip.
std::vector<char> encodeCuda(const cuda::DeviceCode &device,
                             ArrayRef<const cuda::TargetInfo *> targets) {
  Writer w;
  w.u32(targets.size());
  for (const cuda::TargetInfo *target : targets) {
    w.u32(target->getComputeCapability());
    w.u32(target->getMinimumDriverVersion());
  }
  size_t moduleCount = device.modules.empty() ? 0 : device.modules[0].size();
  w.u32(moduleCount);
  for (size_t m = 0; m < moduleCount; ++m) {
    w.str(device.modules[0][m].name);
    w.str(device.modules[0][m].kernel);
    for (const std::vector<cuda::DeviceModule> &chip : device.modules) {
      w.u64(chip[m].cubin.size());
      w.bytes.insert(w.bytes.end(), chip[m].cubin.begin(), chip[m].cubin.end());
      w.u64(chip[m].ptx.size());
      w.bytes.insert(w.bytes.end(), chip[m].ptx.begin(), chip[m].ptx.end());
    }
  }
  return std::move(w.bytes);
}

/// The STEP section (format 1.13): per step of the artifact (each launch of
/// a CUDA kernel step), the layer and source nodes it runs, for profiles.
std::vector<char> encodeSteps(const Plan &plan,
                              const cuda::DeviceCode *device) {
  Writer w;
  w.u32(countArtifactSteps(plan, device));
  for (auto [i, s] : llvm::enumerate(plan.steps)) {
    std::string layer = getLayer(s), nodes = getSourceNodes(s, 8);
    for (size_t c = 0, e = countArtifactSteps(s, i, device); c < e; ++c) {
      w.str(layer);
      w.str(nodes);
    }
  }
  return std::move(w.bytes);
}

/// A section: its id, its size, and what writes its bytes, in order, in
/// pieces to a sink (so that the weights need not be assembled first).
struct Section {
  using Sink = function_ref<void(ArrayRef<char>)>;
  const char *id;
  uint64_t size;
  std::function<void(Sink)> write;
};

Section bytesSection(const char *id, ArrayRef<char> data) {
  return {id, data.size(), [data](Section::Sink sink) { sink(data); }};
}

/// The WGHT section, when the plan has weights (a weight of zero elements
/// still needs the section it points into): each weight from its constant,
/// zeros up to the next one's aligned offset.
void addWeights(const Plan &plan, SmallVectorImpl<Section> &sections) {
  if (llvm::none_of(plan.values, [](const PlanValue &v) {
        return v.storage == Storage::Weight;
      }))
    return;
  sections.push_back(
      {::tscm::kSectionWeights, plan.weightBytes, [&plan](Section::Sink sink) {
         static const char zeros[kAlignment] = {};
         uint64_t at = 0;
         for (const PlanWeight &weight : plan.weights) {
           sink(ArrayRef<char>(zeros, weight.offset - at));
           forEachWeightPiece(weight, sink);
           at = weight.offset + weight.byteSize;
         }
       }});
}

/// Header, section table and the sections, each 64-byte aligned, to `os`.
/// `minor` is the oldest format version that has everything the sections
/// use.
void writeSections(ArrayRef<Section> sections, uint16_t minor,
                   StringRef producer, llvm::raw_pwrite_stream &os);

} // namespace

/// The oldest format version that has what `plan` uses besides its target:
/// the GEMM flags are 1.2's, GEMMs on fp16 or bf16 operands 1.3's, unsigned
/// 16-, 32- and 64-bit values 1.4's, 8-bit float values 1.5's, symbols
/// bound from data 1.6's, packed sub-byte values 1.7's, GEMM activations
/// and symbols defined between steps 1.8's, what host kernels (not CUDA
/// launches) and GEMMs expect of their buffers 1.9's, int8 GEMMs 1.10's,
/// what CUDA launches expect of theirs 1.11's, int8 GEMMs by a constant
/// activation scale 1.12's, 2:4 sparse GEMMs 1.14's, weight-only GEMMs
/// 1.15's, GEMMs with bf16 inputs 1.16's, int8 GEMMs whose activation has a
/// zero point 1.17's, weight-only GEMMs whose weight has zero points 1.18's,
/// s8 · s8 -> s32 GEMMs (CUDA) 1.19's, f8 · f8 -> f32 GEMMs (CUDA) 1.20's,
/// int8 GEMMs whose activation has multipliers (smoothing) 1.21's, dynamic
/// int8 GEMMs whose activation has them 1.22's, dynamic int8 GEMMs that
/// quantize their activation per tensor by its range 1.23's.
/// `device`: the launches of a "cuda" plan, null for a "cpu" one.
static uint16_t planMinor(const Plan &plan, const cuda::DeviceCode *device) {
  bool cuda = device != nullptr;
  if (llvm::any_of(plan.steps, [](const PlanStep &s) {
        return s.kind == PlanStep::Kind::Gemm && s.inputRange;
      }))
    return 23;
  if (llvm::any_of(plan.steps, [](const PlanStep &s) {
        return s.kind == PlanStep::Kind::Gemm && s.inputMultiplier != ~0u &&
               s.inputScale <= 0.0f;
      }))
    return 22;
  if (llvm::any_of(plan.steps, [](const PlanStep &s) {
        return s.kind == PlanStep::Kind::Gemm && s.inputMultiplier != ~0u;
      }))
    return 21;
  if (llvm::any_of(plan.steps, [&](const PlanStep &s) {
        return s.kind == PlanStep::Kind::Gemm &&
               plan.values[s.a].dtype == DType::F8E4M3FN;
      }))
    return 20;
  if (llvm::any_of(plan.steps, [&](const PlanStep &s) {
        return s.kind == PlanStep::Kind::Gemm &&
               plan.values[s.c].dtype == DType::I32;
      }))
    return 19;
  if (llvm::any_of(plan.steps, [](const PlanStep &s) {
        return s.kind == PlanStep::Kind::Gemm && s.weightZeroPoint != ~0u;
      }))
    return 18;
  if (llvm::any_of(plan.steps, [](const PlanStep &s) {
        return s.kind == PlanStep::Kind::Gemm && s.inputZeroPoint;
      }))
    return 17;
  if (llvm::any_of(plan.steps, [](const PlanStep &s) {
        return s.kind == PlanStep::Kind::Gemm && s.bf16Inputs;
      }))
    return 16;
  if (llvm::any_of(plan.steps, [](const PlanStep &s) {
        return s.kind == PlanStep::Kind::Gemm && s.weightOnly;
      }))
    return 15;
  if (cuda && !device->sparseSteps.empty())
    return 14;
  if (llvm::any_of(plan.steps, [](const PlanStep &s) {
        return s.kind == PlanStep::Kind::Gemm && s.inputScale > 0.0f;
      }))
    return 12;
  if (cuda && llvm::any_of(device->launches, [](const auto &launches) {
        return !launches.empty();
      }))
    return 11;
  if (llvm::any_of(plan.steps, [](const PlanStep &s) {
        return s.kind == PlanStep::Kind::Gemm && s.weightScale != ~0u;
      }))
    return 10;
  if (llvm::any_of(plan.steps, [&](const PlanStep &s) {
        return s.kind == PlanStep::Kind::Gemm ||
               (s.kind == PlanStep::Kind::Kernel && !cuda);
      }))
    return 9;
  if (hasGemmActivations(plan) || hasLateDefinitions(plan))
    return 8;
  if (hasPackedValues(plan))
    return 7;
  if (llvm::any_of(plan.symbols,
                   [](const PlanSymbol &s) { return !s.definition.empty(); }))
    return 6;
  uint16_t minor = 0;
  for (const PlanValue &v : plan.values) {
    if (v.dtype >= DType::F8E4M3FN)
      minor = 5;
    if (v.dtype == DType::U16 || v.dtype == DType::U32 || v.dtype == DType::U64)
      minor = std::max<uint16_t>(minor, 4);
  }
  if (minor)
    return minor;
  for (const PlanStep &s : plan.steps)
    if (s.kind == PlanStep::Kind::Gemm &&
        plan.values[s.c].dtype != DType::F32)
      return 3;
  return plan.gemmTf32 ? 2 : 1;
}

LogicalResult mlir::tsc::writeArtifact(const Plan &plan,
                                       ArrayRef<char> hostObject, uint64_t isa,
                                       StringRef producer,
                                       llvm::raw_pwrite_stream &os) {
  FailureOr<std::vector<char>> planBytes = encodePlan(plan, isa, nullptr);
  if (failed(planBytes))
    return failure();
  std::vector<char> steps = encodeSteps(plan, nullptr);
  SmallVector<Section> sections{bytesSection(::tscm::kSectionPlan, *planBytes),
                                bytesSection(::tscm::kSectionSteps, steps)};
  if (!hostObject.empty())
    sections.push_back(bytesSection(::tscm::kSectionHost, hostObject));
  addWeights(plan, sections);
  writeSections(sections, fileMinor(plan, /*device=*/nullptr), producer, os);
  return success();
}

LogicalResult
mlir::tsc::writeCudaArtifact(const Plan &plan, const cuda::DeviceCode &device,
                             ArrayRef<const cuda::TargetInfo *> targets,
                             StringRef producer, llvm::raw_pwrite_stream &os) {
  FailureOr<std::vector<char>> planBytes = encodePlan(plan, 0, &device);
  if (failed(planBytes))
    return failure();
  std::vector<char> cuda = encodeCuda(device, targets);
  std::vector<char> steps = encodeSteps(plan, &device);
  SmallVector<Section> sections{bytesSection(::tscm::kSectionPlan, *planBytes),
                                bytesSection(::tscm::kSectionCuda, cuda),
                                bytesSection(::tscm::kSectionSteps, steps)};
  addWeights(plan, sections);
  writeSections(sections, fileMinor(plan, &device), producer, os);
  return success();
}

namespace {

void writeSections(ArrayRef<Section> sections, uint16_t minor,
                   StringRef producer, llvm::raw_pwrite_stream &os) {
  using ::tscm::kAlignment;
  constexpr size_t kHeaderSize = ::tscm::kHeaderSize,
                   kEntrySize = ::tscm::kSectionEntrySize;
  uint64_t start = os.tell();
  SmallVector<uint64_t> offsets;
  uint64_t offset =
      llvm::alignTo(kHeaderSize + kEntrySize * sections.size(), kAlignment);
  for (const Section &s : sections) {
    offsets.push_back(offset);
    offset = llvm::alignTo(offset + s.size, kAlignment);
  }
  uint64_t fileSize = offsets.back() + sections.back().size;

  // The sections first, each checksummed as it streams past; the header and
  // table (zeros until then) hold the checksums, so they come last.
  static const char zeros[64] = {};
  uint64_t at = 0;
  auto padTo = [&](uint64_t to) {
    for (; at < to; at += std::min<uint64_t>(64, to - at))
      os.write(zeros, std::min<uint64_t>(64, to - at));
  };
  SmallVector<uint32_t> checksums;
  for (auto [s, off] : llvm::zip(sections, offsets)) {
    padTo(off);
    uint32_t crc = 0;
    s.write([&](ArrayRef<char> piece) {
      crc = ::tsc::rt::crc32cExtend(crc, piece.data(), piece.size());
      os.write(piece.data(), piece.size());
      at += piece.size();
    });
    if (at != off + s.size)
      llvm::report_fatal_error(llvm::Twine("artifact section ") +
                               StringRef(s.id, 4) +
                               " wrote a size other than it declared");
    checksums.push_back(crc);
  }

  Writer table;
  for (auto [s, off, crc] : llvm::zip(sections, offsets, checksums)) {
    table.bytes.insert(table.bytes.end(), s.id, s.id + 4);
    table.u32(0);
    table.u64(off);
    table.u64(s.size);
    table.u32(crc);
    table.u32(0);
  }
  Writer file;
  file.bytes.insert(file.bytes.end(), std::begin(::tscm::kMagic),
                    std::end(::tscm::kMagic));
  file.u16(::tscm::kMajor);
  file.u16(minor);
  file.u32(sections.size());
  file.u64(kHeaderSize);
  file.u64(fileSize);
  char name[::tscm::kProducerSize] = {};
  std::memcpy(name, producer.data(),
              std::min<size_t>(producer.size(), sizeof(name) - 1));
  file.bytes.insert(file.bytes.end(), name, name + sizeof(name));
  file.u32(::tsc::rt::crc32c(table.bytes.data(), table.bytes.size()));
  file.u32(::tsc::rt::crc32c(file.bytes.data(), file.bytes.size()));
  file.bytes.insert(file.bytes.end(), table.bytes.begin(), table.bytes.end());
  os.pwrite(file.bytes.data(), file.bytes.size(), start);
}

} // namespace
