#include "codegen/cpu/specialise_parallel.h"

#include "codegen/cpu/module_linker.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <map>
#include <set>
#include <vector>

namespace onnxc {
namespace {

constexpr unsigned kBodyArg = 3, kParamsArg = 4; ///< operands of onnxc_parallel_for_params

/// The call sites worth specialising: a defined body and constant params.
std::vector<llvm::CallInst *> specialisable_calls(llvm::Function &parallel_for) {
  std::vector<llvm::CallInst *> calls;
  for (llvm::User *u : parallel_for.users()) {
    auto *call = llvm::dyn_cast<llvm::CallInst>(u);
    if (!call || call->getCalledFunction() != &parallel_for || call->arg_size() <= kParamsArg)
      continue;
    auto *body = llvm::dyn_cast<llvm::Function>(call->getArgOperand(kBodyArg));
    if (body && !body->isDeclaration() && body->arg_size() > 1 &&
        llvm::isa<llvm::Constant>(call->getArgOperand(kParamsArg)) &&
        !llvm::isa<llvm::ConstantPointerNull>(call->getArgOperand(kParamsArg)))
      calls.push_back(call);
  }
  return calls;
}

} // namespace

llvm::PreservedAnalyses SpecialiseParallelPass::run(llvm::Module &m,
                                                    llvm::ModuleAnalysisManager &mam) {
  llvm::Function *parallel_for = m.getFunction(kParallelForParamsSymbol);
  if (!parallel_for)
    return llvm::PreservedAnalyses::all();
  std::vector<llvm::CallInst *> calls = specialisable_calls(*parallel_for);
  if (calls.empty())
    return llvm::PreservedAnalyses::all();
  std::map<std::pair<llvm::Function *, llvm::Constant *>, llvm::Function *> copies;
  std::vector<llvm::Function *> fresh;
  for (llvm::CallInst *call : calls) {
    auto *body = llvm::cast<llvm::Function>(call->getArgOperand(kBodyArg));
    auto *params = llvm::cast<llvm::Constant>(call->getArgOperand(kParamsArg));
    llvm::Function *&copy = copies[{body, params}];
    if (!copy) {
      llvm::ValueToValueMapTy map;
      copy = llvm::CloneFunction(body, map);
      copy->setName(body->getName() + ".node");
      copy->setLinkage(llvm::GlobalValue::InternalLinkage);
      copy->removeFnAttr(kTemplateCodeAttr); // the node's code now, not the template's
      copy->getArg(1)->replaceAllUsesWith(params);
      fresh.push_back(copy);
    }
    call->setArgOperand(kBodyArg, copy);
  }
  // Fold the now constant shapes in each copy (the rest of the pipeline vectorises it).
  auto &fam = mam.getResult<llvm::FunctionAnalysisManagerModuleProxy>(m).getManager();
  llvm::FunctionPassManager fpm =
      pb_.buildFunctionSimplificationPipeline(level_, llvm::ThinOrFullLTOPhase::None);
  for (llvm::Function *f : fresh)
    fpm.run(*f, fam);
  std::set<llvm::Function *> originals;
  for (auto &[key, copy] : copies)
    originals.insert(key.first);
  for (llvm::Function *f : originals)
    if (f->use_empty())
      f->eraseFromParent();
  return llvm::PreservedAnalyses::none();
}

} // namespace onnxc
