// Branches and loops for the plan's control-flow markers (ControlMark, execution_plan.h), in
// onnxc__model_run: an If becomes a conditional branch around its two branches' calls, a Loop
// or Scan a loop with a test block (iteration < trip count, condition true) before its body.
#pragma once

#include "compiler/passes/execution_plan.h"

#include <llvm/IR/IRBuilder.h>

#include <functional>
#include <vector>

namespace onnxc {

class ControlFlowEmitter {
public:
  /// Emits the address of a planned tensor at the builder's insert point.
  using PointerFn = std::function<llvm::Value *(llvm::IRBuilder<> &, const Value *)>;

  ControlFlowEmitter(llvm::Function *run, PointerFn pointer)
      : run_(run), pointer_(std::move(pointer)) {}

  /// Emits marker `pc` at b's insert point and moves b to where the next call goes.
  void emit(llvm::IRBuilder<> &b, const PlannedCall &pc);
  /// Throws if a region was left open (an internal error of the lowering).
  void finish() const;

private:
  struct Region {
    ControlMark kind;
    llvm::BasicBlock *first, *second; ///< If: else, end; Loop: test, exit
  };
  llvm::BasicBlock *block(const char *name);
  Region pop(ControlMark expected);
  llvm::Value *is_true(llvm::IRBuilder<> &b, const Value *cond);
  void begin_if(llvm::IRBuilder<> &b, const PlannedCall &pc);
  void begin_loop(llvm::IRBuilder<> &b, const PlannedCall &pc);
  void end_loop(llvm::IRBuilder<> &b, const PlannedCall &pc);

  llvm::Function *run_;
  PointerFn pointer_;
  std::vector<Region> open_;
};

} // namespace onnxc
