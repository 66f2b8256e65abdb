//===- Objects.cpp - LLVM IR to x86-64 objects, in parallel --------------===//

#include "compiler/target/host/Objects.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>

using namespace llvm;

namespace {

constexpr const char *kTriple = "x86_64-unknown-linux-gnu";

/// O3 without unrolling before vectorization, then x86-64 object code.
Expected<SmallString<0>> compile(Module &module, const std::string &cpu,
                                 const std::string &features) {
  Triple triple(kTriple);
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return createStringError("no x86-64 LLVM target: " + error);
  std::unique_ptr<TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, TargetOptions(), Reloc::PIC_, std::nullopt,
      CodeGenOptLevel::Aggressive));
  module.setTargetTriple(triple);
  module.setDataLayout(machine->createDataLayout());
  {
    LoopAnalysisManager lam;
    FunctionAnalysisManager fam;
    CGSCCAnalysisManager cgam;
    ModuleAnalysisManager mam;
    // No unrolling before vectorization: a small static innermost loop (a
    // head dim of 32, say) would be unrolled away first, and the vectorizer
    // would then vectorize the loop around it with gathers and scatters.
    // The vectorizer still interleaves the loops it vectorizes.
    PipelineTuningOptions tuning;
    tuning.LoopUnrolling = false;
    PassBuilder builder(machine.get(), tuning);
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    builder.buildPerModuleDefaultPipeline(OptimizationLevel::O3)
        .run(module, mam);
  }
  SmallString<0> object;
  raw_svector_ostream os(object);
  legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, os, nullptr,
                                   CodeGenFileType::ObjectFile))
    return createStringError("LLVM cannot emit x86-64 objects");
  pm.run(module);
  return object;
}

/// The global holding a use of a local symbol: the function of an
/// instruction, or the global variable whose initializer it is (through
/// constant expressions).
void holdersOf(const Value *value, SmallVectorImpl<const GlobalValue *> &out) {
  for (const User *user : value->users()) {
    if (const auto *inst = dyn_cast<Instruction>(user))
      out.push_back(inst->getFunction());
    else if (const auto *global = dyn_cast<GlobalValue>(user))
      out.push_back(global);
    else if (isa<Constant>(user))
      holdersOf(user, out);
  }
}

/// A local constant (the OpenMP runtime's source locations, tables) goes
/// into every partition: copies of it cannot clash.
bool shared(const GlobalValue &global) {
  const auto *variable = dyn_cast<GlobalVariable>(&global);
  return variable && variable->hasLocalLinkage() && variable->isConstant();
}

} // namespace

std::vector<SmallVector<const GlobalValue *>>
mlir::tsc::partitionKernels(const Module &module, unsigned most) {
  // What whole kernels cannot be split around (none of it is in kernels
  // today): aliases, ifuncs, comdats, appending arrays such as
  // llvm.global_ctors that name functions, module assembly. One partition.
  bool splittable =
      module.alias_empty() && module.ifunc_empty() &&
      module.getComdatSymbolTable().empty() &&
      module.getModuleInlineAsm().empty() &&
      llvm::none_of(module.globals(), [](const GlobalVariable &variable) {
        return variable.hasAppendingLinkage();
      });
  if (!splittable)
    most = 1;
  EquivalenceClasses<const GlobalValue *> groups;
  SmallVector<const GlobalValue *> defined;
  for (const GlobalValue &global : module.global_values()) {
    if (global.isDeclaration() || shared(global))
      continue;
    defined.push_back(&global);
    groups.insert(&global);
  }
  for (const GlobalValue *global : defined) {
    if (!global->hasLocalLinkage())
      continue;
    SmallVector<const GlobalValue *> holders;
    holdersOf(global, holders);
    for (const GlobalValue *holder : holders)
      if (!shared(*holder))
        groups.unionSets(global, holder);
  }
  // Groups in module order of their first member, with their sizes.
  struct Group {
    size_t first; // module order of the first member
    SmallVector<const GlobalValue *> members;
    uint64_t size = 0;
  };
  std::vector<Group> ordered;
  DenseMap<const GlobalValue *, size_t> indexOf;
  for (const GlobalValue *global : defined) {
    const GlobalValue *leader = groups.getLeaderValue(global);
    auto [it, fresh] = indexOf.try_emplace(leader, ordered.size());
    if (fresh)
      ordered.push_back({ordered.size(), {}, 0});
    Group &group = ordered[it->second];
    group.members.push_back(global);
    if (const auto *function = dyn_cast<Function>(global))
      group.size += function->getInstructionCount();
  }
  llvm::sort(ordered, [](const Group &a, const Group &b) {
    return a.size > b.size || (a.size == b.size && a.first < b.first);
  });
  unsigned count = std::max<unsigned>(
      1, std::min<size_t>(most, llvm::count_if(ordered, [](const Group &g) {
                            return g.size > 0;
                          })));
  std::vector<SmallVector<const GlobalValue *>> parts(count);
  std::vector<uint64_t> load(count, 0);
  for (Group &group : ordered) {
    size_t lightest = std::min_element(load.begin(), load.end()) - load.begin();
    load[lightest] += group.size;
    parts[lightest].append(group.members);
  }
  return parts;
}

Expected<std::vector<SmallString<0>>>
mlir::tsc::emitObjects(std::unique_ptr<Module> module, const std::string &cpu,
                       const std::string &features) {
  std::vector<SmallVector<const GlobalValue *>> parts =
      partitionKernels(*module, kMaxCodegenPartitions);
  std::vector<SmallString<0>> objects(parts.size());
  if (parts.size() == 1) {
    Expected<SmallString<0>> object = compile(*module, cpu, features);
    if (!object)
      return object.takeError();
    objects[0] = std::move(*object);
    return objects;
  }
  // Each partition as bitcode: an LLVM context is not shared between
  // threads, so every thread reads its own.
  std::vector<SmallString<0>> bitcode(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    DenseSet<const GlobalValue *> members(parts[i].begin(), parts[i].end());
    ValueToValueMapTy map;
    std::unique_ptr<Module> part =
        CloneModule(*module, map, [&](const GlobalValue *global) {
          return shared(*global) || members.contains(global);
        });
    raw_svector_ostream os(bitcode[i]);
    WriteBitcodeToFile(*part, os);
  }
  module.reset();

  std::vector<std::string> failures(parts.size());
  {
    DefaultThreadPool pool(optimal_concurrency(parts.size()));
    for (size_t i = 0; i < parts.size(); ++i)
      pool.async([&, i] {
        LLVMContext context;
        Expected<SmallString<0>> object = [&]() -> Expected<SmallString<0>> {
          Expected<std::unique_ptr<Module>> part = parseBitcodeFile(
              MemoryBufferRef(bitcode[i], "tsc-kernels"), context);
          if (!part)
            return part.takeError();
          return compile(**part, cpu, features);
        }();
        if (object) {
          objects[i] = std::move(*object);
          return;
        }
        failures[i] = toString(object.takeError());
      });
    pool.wait();
  }
  for (const std::string &failure : failures)
    if (!failure.empty())
      return createStringError(failure);
  return objects;
}
