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
  if (load_)
    return b.CreateICmpNE(load_(b, pointer_(b, cond), 1), b.getInt64(0));
  llvm::Value *byte = b.CreateLoad(b.getInt8Ty(), pointer_(b, cond), "cond");
  return b.CreateICmpNE(byte, b.getInt8(0));
}

llvm::Value *ControlFlowEmitter::load_i64(llvm::IRBuilder<> &b, const Value *v) {
  if (load_)
    return load_(b, pointer_(b, v), 8);
  return b.CreateLoad(b.getInt64Ty(), pointer_(b, v));
}

void ControlFlowEmitter::store_i64(llvm::IRBuilder<> &b, const Value *v, llvm::Value *x) {
  if (store_)
    store_(b, pointer_(b, v), x);
  else
    b.CreateStore(x, pointer_(b, v));
}

void ControlFlowEmitter::begin_if(llvm::IRBuilder<> &b, const PlannedCall &pc) {
  llvm::BasicBlock *then_bb = block("if.then"), *else_bb = block("if.else"),
                   *end_bb = block("if.end");
  b.CreateCondBr(is_true(b, pc.call.args.at(0)), then_bb, else_bb);
  b.SetInsertPoint(then_bb);
  open_.push_back({ControlMark::IfBegin, else_bb, end_bb});
}

/// iteration = 0; test: iteration < trip_count && cond ? body : exit. A device run keeps the
/// iteration on the host too and reads the trip count once (ONNX fixes it for the loop): each
/// pass reads back only the condition.
void ControlFlowEmitter::begin_loop(llvm::IRBuilder<> &b, const PlannedCall &pc) {
  const std::vector<Value *> &a = pc.call.args;
  llvm::Value *host_i = nullptr, *trips = nullptr;
  if (load_) {
    llvm::IRBuilder<> entry(&run_->getEntryBlock(), run_->getEntryBlock().begin());
    host_i = entry.CreateAlloca(b.getInt64Ty(), nullptr, "iteration.host");
    b.CreateStore(b.getInt64(0), host_i);
    if (a.at(1))
      trips = load_i64(b, a[1]);
  }
  store_i64(b, a.at(0), b.getInt64(0));
  llvm::BasicBlock *test = block("loop.test"), *body = block("loop.body"),
                   *exit = block("loop.exit");
  b.CreateBr(test);
  b.SetInsertPoint(test);
  llvm::Value *go = b.getTrue();
  if (a.at(1)) {
    llvm::Value *i = host_i ? b.CreateLoad(b.getInt64Ty(), host_i) : load_i64(b, a[0]);
    go = b.CreateAnd(go, b.CreateICmpSLT(i, trips ? trips : load_i64(b, a[1])));
  }
  if (a.at(2))
    go = b.CreateAnd(go, is_true(b, a[2]));
  b.CreateCondBr(go, body, exit);
  b.SetInsertPoint(body);
  open_.push_back({ControlMark::LoopBegin, test, exit, host_i});
}

/// iteration += 1; back to the test.
void ControlFlowEmitter::end_loop(llvm::IRBuilder<> &b, const PlannedCall &pc) {
  Region r = pop(ControlMark::LoopBegin);
  if (r.host_iteration) {
    llvm::Value *i = b.CreateAdd(b.CreateLoad(b.getInt64Ty(), r.host_iteration), b.getInt64(1));
    b.CreateStore(i, r.host_iteration);
    store_i64(b, pc.call.args.at(0), i);
  } else {
    llvm::Value *i = load_i64(b, pc.call.args.at(0));
    store_i64(b, pc.call.args.at(0), b.CreateAdd(i, b.getInt64(1)));
  }
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
