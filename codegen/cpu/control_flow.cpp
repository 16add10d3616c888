#include "codegen/cpu/control_flow.h"
#include "compiler/ir/error.h"

namespace onnxc {

llvm::BasicBlock *ControlFlowEmitter::block(const char *name) {
  return llvm::BasicBlock::Create(run_->getContext(), name, run_);
}

ControlFlowEmitter::Region ControlFlowEmitter::pop(ControlMark expected) {
  if (open_.empty() || open_.back().kind != expected)
    fail("internal error: unbalanced control-flow markers in the plan");
  Region r = open_.back();
  open_.pop_back();
  return r;
}

llvm::Value *ControlFlowEmitter::is_true(llvm::IRBuilder<> &b, const Value *cond) {
  llvm::Value *byte = b.CreateLoad(b.getInt8Ty(), pointer_(b, cond), "cond");
  return b.CreateICmpNE(byte, b.getInt8(0));
}

void ControlFlowEmitter::begin_if(llvm::IRBuilder<> &b, const PlannedCall &pc) {
  llvm::BasicBlock *then_bb = block("if.then"), *else_bb = block("if.else"),
                   *end_bb = block("if.end");
  b.CreateCondBr(is_true(b, pc.call.args.at(0)), then_bb, else_bb);
  b.SetInsertPoint(then_bb);
  open_.push_back({ControlMark::IfBegin, else_bb, end_bb});
}

/// iteration = 0; test: iteration < trip_count && cond ? body : exit.
void ControlFlowEmitter::begin_loop(llvm::IRBuilder<> &b, const PlannedCall &pc) {
  const std::vector<Value *> &a = pc.call.args;
  llvm::Value *iteration = pointer_(b, a.at(0));
  b.CreateStore(b.getInt64(0), iteration);
  llvm::BasicBlock *test = block("loop.test"), *body = block("loop.body"),
                   *exit = block("loop.exit");
  b.CreateBr(test);
  b.SetInsertPoint(test);
  llvm::Value *go = b.getTrue();
  if (a.at(1)) {
    llvm::Value *i = b.CreateLoad(b.getInt64Ty(), pointer_(b, a[0]), "iteration");
    llvm::Value *trips = b.CreateLoad(b.getInt64Ty(), pointer_(b, a[1]), "trip_count");
    go = b.CreateAnd(go, b.CreateICmpSLT(i, trips));
  }
  if (a.at(2))
    go = b.CreateAnd(go, is_true(b, a[2]));
  b.CreateCondBr(go, body, exit);
  b.SetInsertPoint(body);
  open_.push_back({ControlMark::LoopBegin, test, exit});
}

/// iteration += 1; back to the test.
void ControlFlowEmitter::end_loop(llvm::IRBuilder<> &b, const PlannedCall &pc) {
  Region r = pop(ControlMark::LoopBegin);
  llvm::Value *iteration = pointer_(b, pc.call.args.at(0));
  llvm::Value *i = b.CreateLoad(b.getInt64Ty(), iteration, "iteration");
  b.CreateStore(b.CreateAdd(i, b.getInt64(1)), iteration);
  b.CreateBr(r.first);
  b.SetInsertPoint(r.second);
}

void ControlFlowEmitter::emit(llvm::IRBuilder<> &b, const PlannedCall &pc) {
  switch (pc.control) {
  case ControlMark::IfBegin:
    begin_if(b, pc);
    return;
  case ControlMark::Else: {
    if (open_.empty() || open_.back().kind != ControlMark::IfBegin)
      fail("internal error: unbalanced control-flow markers in the plan");
    Region &r = open_.back();
    b.CreateBr(r.second);
    b.SetInsertPoint(r.first);
    r.kind = ControlMark::Else;
    return;
  }
  case ControlMark::EndIf: {
    Region r = pop(ControlMark::Else);
    b.CreateBr(r.second);
    b.SetInsertPoint(r.second);
    return;
  }
  case ControlMark::LoopBegin:
    begin_loop(b, pc);
    return;
  case ControlMark::LoopEnd:
    end_loop(b, pc);
    return;
  case ControlMark::None:
    break;
  }
  fail("internal error: a kernel call was passed as a control-flow marker");
}

void ControlFlowEmitter::finish() const {
  if (!open_.empty())
    fail("internal error: a control-flow region of the plan is not closed");
}

} // namespace onnxc
