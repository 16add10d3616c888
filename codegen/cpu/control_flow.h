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
  /// Loads `bytes` (1 or 8) at an address as an i64 (zero-extended) / stores an i64 there. Unset:
  /// plain loads and stores (host memory); a CUDA-target library's run reads the GPU's memory
  /// through the runtime instead (onnxc_rt_device_load / _store).
  using LoadFn = std::function<llvm::Value *(llvm::IRBuilder<> &, llvm::Value *, int)>;
  using StoreFn = std::function<void(llvm::IRBuilder<> &, llvm::Value *, llvm::Value *)>;

  ControlFlowEmitter(llvm::Function *run, PointerFn pointer, LoadFn load = nullptr,
                     StoreFn store = nullptr)
      : run_(run), pointer_(std::move(pointer)), load_(std::move(load)), store_(std::move(store)) {}

  /// Emits marker `pc` at b's insert point and moves b to where the next call goes.
  void emit(llvm::IRBuilder<> &b, const PlannedCall &pc);
  /// Throws if a region was left open (an internal error of the lowering).
  void finish() const;

private:
  struct Region {
    ControlMark kind;
    llvm::BasicBlock *first, *second; ///< If: else, end; Loop: test, exit
    /// A loop of a device run (load_ set): the iteration's host copy (an alloca; the tensor
    /// is written for the body's kernels), so that only the condition is read back per pass.
    llvm::Value *host_iteration = nullptr;
  };
  llvm::BasicBlock *block(const char *name);
  Region pop(ControlMark expected);
  llvm::Value *is_true(llvm::IRBuilder<> &b, const Value *cond);
  llvm::Value *load_i64(llvm::IRBuilder<> &b, const Value *v);
  void store_i64(llvm::IRBuilder<> &b, const Value *v, llvm::Value *x);
  void begin_if(llvm::IRBuilder<> &b, const PlannedCall &pc);
  void begin_loop(llvm::IRBuilder<> &b, const PlannedCall &pc);
  void end_loop(llvm::IRBuilder<> &b, const PlannedCall &pc);

  llvm::Function *run_;
  PointerFn pointer_;
  LoadFn load_;
  StoreFn store_;
  std::vector<Region> open_;
};

} // namespace onnxc
