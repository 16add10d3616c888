#include "codegen/cpu/model_module.h"

#include "codegen/cpu/abi_symbols.h"
#include "codegen/cpu/c_header.h"
#include "codegen/cpu/control_flow.h"
#include "compiler/ir/error.h"
#include "runtime_stub/weights_format.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <tuple>

namespace onnxc {
namespace {

constexpr uint32_t kModelAbiVersion = 3; // ONNXC_ABI_VERSION

/// Size in bytes of value v's elements with the given dims.
uint64_t bytes_with_dims(const Value &v, const std::vector<int64_t> &dims) {
  auto bytes = dtype_storage_bytes(v.type.dtype, static_cast<uint64_t>(checked_numel(dims)));
  if (!bytes)
    fail("tensor '{}' is too large", v.name);
  return *bytes;
}

/// Size in bytes of a value with a static type.
uint64_t value_bytes(const Value &v) { return bytes_with_dims(v, v.type.static_dims()); }

/// The plan's weights by offset, checked: each has data and none overlaps the previous one.
std::vector<const Value *> sorted_weights(const ExecutionPlan &plan) {
  std::vector<const Value *> sorted(plan.weights.begin(), plan.weights.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const Value *a, const Value *b) { return a->offset < b->offset; });
  uint64_t end = 0;
  for (const Value *w : sorted) {
    if (!w->constant)
      fail("internal error: weight '{}' has no constant data", w->name);
    if (w->offset < 0 || static_cast<uint64_t>(w->offset) < end)
      fail("internal error: weight '{}' at offset {} overlaps the previous weight", w->name,
           w->offset);
    end = static_cast<uint64_t>(w->offset) + w->constant->nbytes();
  }
  return sorted;
}

/// The blob's size: the plan's, or the end of the last weight if that is further.
uint64_t blob_size(const ExecutionPlan &plan, const std::vector<const Value *> &sorted) {
  uint64_t size = static_cast<uint64_t>(std::max<int64_t>(plan.weights_size, 0));
  for (const Value *w : sorted)
    size = std::max<uint64_t>(size, static_cast<uint64_t>(w->offset) + w->constant->nbytes());
  return size;
}

class ModelModuleBuilder {
public:
  ModelModuleBuilder(const ExecutionPlan &plan, llvm::LLVMContext &ctx, WeightsPlacement placement,
                     std::vector<uint8_t> *external, bool profile, const DeviceCode *device)
      : plan_(plan), device_(device), placement_(placement),
        external_(placement == WeightsPlacement::External ? external : nullptr), ctx_(ctx),
        profile_(profile), i8_(llvm::Type::getInt8Ty(ctx)), i32_(llvm::Type::getInt32Ty(ctx)),
        i64_(llvm::Type::getInt64Ty(ctx)), ptr_(llvm::PointerType::getUnqual(ctx)) {}

  std::unique_ptr<llvm::Module> build(const std::string &triple, const llvm::DataLayout &dl) {
    module_ = std::make_unique<llvm::Module>(plan_.model_name, ctx_);
    module_->setTargetTriple(triple);
    module_->setDataLayout(dl);
    build_weights();
    build_model_desc();
    build_run();
    std::string err;
    llvm::raw_string_ostream os(err);
    if (llvm::verifyModule(*module_, &os))
      fail("internal error: CPU codegen built invalid IR for model '{}': {}", plan_.model_name,
           err);
    return std::move(module_);
  }

private:
  // ---- constants -------------------------------------------------------------------------
  llvm::GlobalVariable *private_constant(llvm::Constant *init, const std::string &name,
                                         uint64_t align = 0) {
    auto *gv = new llvm::GlobalVariable(*module_, init->getType(), /*isConstant=*/true,
                                        llvm::GlobalValue::PrivateLinkage, init, name);
    gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    if (align)
      gv->setAlignment(llvm::Align(align));
    return gv;
  }
  llvm::Constant *c_string(const std::string &s, const std::string &name) {
    return private_constant(llvm::ConstantDataArray::getString(ctx_, s, true), name);
  }
  llvm::Constant *i64_array(const std::vector<int64_t> &v, const std::string &name) {
    if (v.empty())
      return llvm::ConstantPointerNull::get(ptr_);
    std::vector<uint64_t> u(v.begin(), v.end());
    return private_constant(llvm::ConstantDataArray::get(ctx_, u), name);
  }

  // ---- weights ---------------------------------------------------------------------------
  /// One read-only 64-byte-aligned blob holding every weight at the plan's offset.
  void build_weights() {
    const std::vector<const Value *> sorted = sorted_weights(plan_);
    const uint64_t size = blob_size(plan_, sorted);
    weights_size_ = size;
    if (placement_ == WeightsPlacement::Linked) {
      if (size == 0)
        return;
      weights_ = new llvm::GlobalVariable(*module_, llvm::ArrayType::get(i8_, size),
                                          /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                                          nullptr, kLinkedWeightsSymbol);
      weights_->setVisibility(llvm::GlobalValue::HiddenVisibility);
      weights_->setDSOLocal(true);
      weights_->setAlignment(llvm::Align(ExecutionPlan::kArenaAlignment));
      return;
    }
    if (size == 0 && !external_)
      return;
    std::vector<uint8_t> blob(size, 0);
    for (const Value *w : sorted)
      std::copy_n(w->constant->data(), w->constant->nbytes(), blob.begin() + w->offset);
    if (external_) {
      checksum_ = onnxc_weights_checksum(blob.data(), blob.size());
      *external_ = std::move(blob);
      return;
    }
    weights_ = private_constant(llvm::ConstantDataArray::get(ctx_, blob), "onnxc.weights",
                                ExecutionPlan::kArenaAlignment);
    // Its own .rodata section, never a mergeable-constant/string section (lld would hash it).
    weights_->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::None);
    weights_->setSection(".rodata.onnxc_weights");
  }

  // ---- descriptor (runtime_stub/model_desc.h) -------------------------------------------
  llvm::StructType *tensor_desc_type() {
    return llvm::StructType::get(ctx_, {ptr_, i32_, i32_, ptr_, i64_, ptr_});
  }
  /// onnxc_tensor_desc[] of the graph inputs or outputs. A batched one (run-time batch) has
  /// dim 0 = -1, symbol 0, and its one-sample size; a dim that is the run-time extent has -1
  /// and the extent's symbol, and the size counts it as 1.
  llvm::Constant *tensor_descs(const std::vector<Value *> &values, const std::string &kind) {
    if (values.empty())
      return llvm::ConstantPointerNull::get(ptr_);
    std::vector<llvm::Constant *> descs;
    for (size_t i = 0; i < values.size(); ++i) {
      const Value &v = *values[i];
      std::string base = "onnxc." + kind + "." + std::to_string(i);
      std::vector<int64_t> dims = v.type.static_dims();
      const bool batched = kind == "inputs" ? plan_.batched_input(i) : plan_.batched_output(i);
      std::vector<int32_t> syms(dims.size(), -1);
      if (batched)
        syms[0] = 0;
      if (plan_.extent) {
        const auto &flags = kind == "inputs" ? plan_.extent->inputs : plan_.extent->outputs;
        for (size_t k = 0; i < flags.size() && k < flags[i].size() && k < dims.size(); ++k)
          if (flags[i][k]) {
            syms[k] = plan_.extent_symbol_index();
            dims[k] = 1; // size_bytes: every symbol at 1
          }
      }
      if (kind == "outputs" && !v.run_time_shape_from.empty()) // every dim set by the run;
        syms.assign(dims.size(), -2); // size_bytes: its largest result (ONNXC_DIM_SET_BY_RUN)
      const uint64_t bytes = bytes_with_dims(v, dims);
      llvm::Constant *dim_symbols = llvm::ConstantPointerNull::get(ptr_);
      if (std::any_of(syms.begin(), syms.end(), [](int32_t x) { return x != -1; })) {
        for (size_t k = 0; k < dims.size(); ++k)
          if (syms[k] != -1)
            dims[k] = -1;
        dim_symbols = private_constant(
            llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<int32_t>(syms)), base + ".syms");
      }
      descs.push_back(llvm::ConstantStruct::get(
          tensor_desc_type(),
          {c_string(v.name, base + ".name"),
           llvm::ConstantInt::get(i32_, static_cast<int32_t>(v.type.dtype)),
           llvm::ConstantInt::get(i32_, dims.size()), i64_array(dims, base + ".dims"),
           llvm::ConstantInt::get(i64_, bytes), dim_symbols}));
    }
    auto *type = llvm::ArrayType::get(tensor_desc_type(), descs.size());
    return private_constant(llvm::ConstantArray::get(type, descs), "onnxc." + kind);
  }
  /// onnxc_profile_node_desc[] (profile builds; NULL otherwise).
  llvm::Constant *profile_descs() {
    if (!profile_)
      return llvm::ConstantPointerNull::get(ptr_);
    auto *type = llvm::StructType::get(ctx_, {ptr_, ptr_, ptr_, ptr_, i64_});
    std::vector<llvm::Constant *> descs;
    for (size_t i = 0; i < plan_.calls.size(); ++i) {
      const NodeProfile &p = plan_.calls[i].profile;
      std::string base = "onnxc.profile." + std::to_string(i);
      descs.push_back(llvm::ConstantStruct::get(
          type, {c_string(p.name, base + ".name"), c_string(p.op_type, base + ".op"),
                 c_string(p.input_shapes, base + ".in"), c_string(p.output_shapes, base + ".out"),
                 llvm::ConstantInt::get(i64_, p.flops)}));
    }
    auto *array = llvm::ArrayType::get(type, descs.size());
    return private_constant(llvm::ConstantArray::get(array, descs), "onnxc.profile_nodes");
  }
  /// onnxc_symbol_desc[] (NULL without symbols).
  llvm::Constant *symbol_descs() {
    const auto symbols = plan_.symbols();
    if (symbols.empty())
      return llvm::ConstantPointerNull::get(ptr_);
    auto *type = llvm::StructType::get(ctx_, {ptr_, i64_, i64_, i64_});
    std::vector<llvm::Constant *> descs;
    for (const auto &[name, r] : symbols) {
      const bool count = plan_.extent && plan_.extent->count && name == plan_.extent->symbol;
      descs.push_back(llvm::ConstantStruct::get(
          type, {c_string(name, "onnxc.symbol." + std::to_string(descs.size()) + ".name"),
                 llvm::ConstantInt::get(i64_, r.lo), llvm::ConstantInt::get(i64_, r.hi),
                 llvm::ConstantInt::get(i64_, count ? 1 : 0)}));
    }
    return private_constant(
        llvm::ConstantArray::get(llvm::ArrayType::get(type, descs.size()), descs), "onnxc.symbols");
  }
  void build_model_desc() {
    auto *type = llvm::StructType::get(ctx_, {i32_, i32_, i32_, i32_, i64_, i64_, ptr_,
                                              ptr_, ptr_, ptr_, i64_, i64_, i32_, i32_,
                                              ptr_, ptr_, i32_, i32_, ptr_, i32_, ptr_});
    const bool tiles = plan_.batch && plan_.batch->tile_plan;
    llvm::Constant *run_tile = llvm::ConstantPointerNull::get(ptr_);
    if (tiles) { // defined by the tile plan's module, linked in by the backend
      llvm::Function *f = declare(kModelRunTileSymbol, step_type());
      f->setVisibility(llvm::GlobalValue::HiddenVisibility);
      run_tile = f;
    }
    llvm::Constant *init = llvm::ConstantStruct::get(
        type, {llvm::ConstantInt::get(i32_, kModelAbiVersion),
               llvm::ConstantInt::get(i32_, plan_.inputs.size()),
               llvm::ConstantInt::get(i32_, plan_.outputs.size()),
               llvm::ConstantInt::get(i32_, external_ ? 1 : 0),
               llvm::ConstantInt::get(i64_, plan_.arena_size),
               llvm::ConstantInt::get(i64_, ExecutionPlan::kArenaAlignment),
               c_string(plan_.model_name, "onnxc.model_name"),
               c_string(signature_json(plan_), "onnxc.signature_json"),
               tensor_descs(plan_.inputs, "inputs"),
               tensor_descs(plan_.outputs, "outputs"),
               llvm::ConstantInt::get(i64_, weights_size_),
               llvm::ConstantInt::get(i64_, checksum_),
               llvm::ConstantInt::get(i32_, profile_ ? plan_.calls.size() : 0),
               llvm::ConstantInt::get(i32_, plan_.symbols().size()),
               profile_descs(),
               symbol_descs(),
               llvm::ConstantInt::get(i32_, plan_.batch ? 1 /* ONNXC_EXEC_PER_SAMPLE */ : 0),
               llvm::ConstantInt::get(i32_, tiles ? plan_.batch->tile : 0),
               run_tile,
               llvm::ConstantInt::get(i32_, plan_.batch ? plan_.batch->chunk : 0),
               device_desc()});
    auto *gv = new llvm::GlobalVariable(*module_, type, true, llvm::GlobalValue::ExternalLinkage,
                                        init, std::string(kModelDescSymbol));
    gv->setVisibility(llvm::GlobalValue::HiddenVisibility);
  }

  /// onnxc_device_desc of a CUDA-target library (NULL for a CPU one).
  llvm::Constant *device_desc() {
    if (!device_)
      return llvm::ConstantPointerNull::get(ptr_);
    auto *image_type = llvm::StructType::get(ctx_, {i32_, i32_, ptr_, i64_});
    std::vector<llvm::Constant *> images, kernels;
    for (size_t i = 0; i < device_->images.size(); ++i) {
      const DeviceImage &im = device_->images[i];
      std::string data = im.data;
      if (im.ptx)
        data.push_back('\0');
      auto *blob = private_constant(
          llvm::ConstantDataArray::getRaw(data, data.size(), llvm::Type::getInt8Ty(ctx_)),
          "onnxc.device.image." + std::to_string(i), 256);
      images.push_back(llvm::ConstantStruct::get(
          image_type, {llvm::ConstantInt::get(i32_, im.sm), llvm::ConstantInt::get(i32_, im.ptx),
                       blob, llvm::ConstantInt::get(i64_, im.data.size())}));
    }
    for (size_t k = 0; k < device_->kernels.size(); ++k)
      kernels.push_back(c_string(device_->kernels[k], "onnxc.device.kernel." + std::to_string(k)));
    llvm::Constant *run_cpu = llvm::ConstantPointerNull::get(ptr_);
    if (!device_->cpu_run_symbol.empty()) {
      llvm::Function *f = declare(device_->cpu_run_symbol, step_type());
      f->setVisibility(llvm::GlobalValue::HiddenVisibility);
      run_cpu = f;
    }
    auto array = [&](llvm::Type *t, std::vector<llvm::Constant *> v,
                     const std::string &name) -> llvm::Constant * {
      if (v.empty())
        return llvm::ConstantPointerNull::get(ptr_);
      return private_constant(llvm::ConstantArray::get(llvm::ArrayType::get(t, v.size()), v), name);
    };
    bool host_calls = false, control_flow = false;
    for (const PlannedCall &pc : plan_.calls) {
      host_calls = host_calls ||
                   (pc.control == ControlMark::None && pc.call.kernel != device_->launch_kernel);
      control_flow = control_flow || pc.control != ControlMark::None;
    }
    auto *type = llvm::StructType::get(ctx_, {i32_, i32_, ptr_, ptr_, ptr_, ptr_, i32_, i32_});
    llvm::Constant *weights =
        weights_ ? static_cast<llvm::Constant *>(weights_) : llvm::ConstantPointerNull::get(ptr_);
    return private_constant(
        llvm::ConstantStruct::get(type, {llvm::ConstantInt::get(i32_, images.size()),
                                         llvm::ConstantInt::get(i32_, kernels.size()),
                                         array(image_type, images, "onnxc.device.images"),
                                         array(ptr_, kernels, "onnxc.device.kernels"), weights,
                                         run_cpu, llvm::ConstantInt::get(i32_, host_calls ? 1 : 0),
                                         llvm::ConstantInt::get(i32_, control_flow ? 1 : 0)}),
        "onnxc.device");
  }

  // ---- code ------------------------------------------------------------------------------
  llvm::FunctionType *step_type() { // (rt, arena, weights, inputs, outputs) -> status
    return llvm::FunctionType::get(i32_, {ptr_, ptr_, ptr_, ptr_, ptr_}, false);
  }
  llvm::Function *declare(std::string_view name, llvm::FunctionType *type) {
    llvm::FunctionCallee f = module_->getOrInsertFunction(llvm::StringRef(name), type);
    auto *fn = llvm::dyn_cast<llvm::Function>(f.getCallee());
    if (!fn)
      fail("internal error: '{}' is declared with two different types", name);
    return fn;
  }
  /// Attributes shared by node functions and run: arena and weights are 64-byte aligned (may
  /// be null when empty or embedded), no unwinding.
  void set_step_attributes(llvm::Function *f) {
    for (unsigned arg : {1u, 2u})
      f->addParamAttr(arg, llvm::Attribute::getWithAlignment(
                               ctx_, llvm::Align(ExecutionPlan::kArenaAlignment)));
    f->addFnAttr(llvm::Attribute::NoUnwind);
  }

  /// Pointer to where `v` lives, inside a node function with arguments
  /// (rt, arena, weights, in, out).
  llvm::Value *tensor_pointer(llvm::IRBuilder<> &b, llvm::Function *f, const Value *v) {
    if (!v)
      return llvm::ConstantPointerNull::get(ptr_);
    switch (v->storage) {
    case Storage::Arena:
      if (v->offset < 0 || v->offset + value_bytes(*v) > static_cast<uint64_t>(plan_.arena_size))
        fail("internal error: tensor '{}' at arena offset {} lies outside the arena ({} bytes)",
             v->name, v->offset, plan_.arena_size);
      return b.CreateInBoundsGEP(i8_, f->getArg(1), b.getInt64(v->offset), v->name);
    case Storage::Weight:
      if (value_bytes(*v) == 0) // an empty constant: nothing is read through the pointer
        return llvm::ConstantPointerNull::get(ptr_);
      if ((!weights_ && !external_) || v->offset < 0 || v->offset + value_bytes(*v) > weights_size_)
        fail("internal error: weight '{}' at offset {} lies outside the weight blob", v->name,
             v->offset);
      // the context's blob (a weights file's, or the device copy): one add per weight
      if (external_ || device_)
        return b.CreateInBoundsGEP(i8_, f->getArg(2), b.getInt64(v->offset), v->name);
      return llvm::ConstantExpr::getInBoundsGetElementPtr(i8_, weights_, b.getInt64(v->offset));
    case Storage::GraphInput:
    case Storage::GraphOutput: {
      llvm::Value *table = f->getArg(v->storage == Storage::GraphInput ? 3 : 4);
      llvm::Value *slot = b.CreateConstInBoundsGEP1_64(ptr_, table, v->io_index);
      return b.CreateLoad(ptr_, slot, v->name);
    }
    case Storage::Unassigned:
      break;
    }
    fail("internal error: tensor '{}' has no storage assigned by the memory planner", v->name);
  }

  /// internal i32 @node.<i>.<kernel>(rt, arena, weights, inputs, outputs): builds the tensor
  /// array and calls the kernel's specialisation for its constant params.
  llvm::Function *build_node(size_t i, const PlannedCall &pc) {
    const KernelCall &call = pc.call;
    auto *f = llvm::Function::Create(step_type(), llvm::GlobalValue::InternalLinkage,
                                     "node." + std::to_string(i) + "." + call.kernel, *module_);
    set_step_attributes(f);
    f->addFnAttr(llvm::Attribute::NoInline); // one frame per node: small run(), clear profiles
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", f));
    size_t n = call.args.size() + (call.scratch_bytes > 0 ? 1 : 0);
    llvm::Value *tensors = llvm::ConstantPointerNull::get(ptr_);
    if (n > 0) {
      auto *array_type = llvm::ArrayType::get(ptr_, n);
      tensors = b.CreateAlloca(array_type, nullptr, "tensors");
      for (size_t j = 0; j < call.args.size(); ++j)
        b.CreateStore(tensor_pointer(b, f, call.args[j]),
                      b.CreateConstInBoundsGEP2_64(array_type, tensors, 0, j));
      if (call.scratch_bytes > 0) {
        if (pc.scratch_offset < 0 || pc.scratch_offset + call.scratch_bytes > plan_.arena_size)
          fail("internal error: scratch buffer of {} lies outside the arena", pc.node_desc);
        b.CreateStore(b.CreateInBoundsGEP(i8_, f->getArg(1), b.getInt64(pc.scratch_offset)),
                      b.CreateConstInBoundsGEP2_64(array_type, tensors, 0, n - 1));
      }
    }
    if (!pc.run_time_data.empty() || !call.shape_words.empty()) { // shapes of the run
      b.CreateRet(call_with_run_time_data(b, f, i, pc, tensors));
      return f;
    }
    if (!pc.extent_words.empty()) { // params that depend on the run-time extent
      b.CreateRet(b.CreateCall(extent_kernel(i, pc), {f->getArg(0), tensors}));
      return f;
    }
    if (device_ && call.kernel != device_->launch_kernel) { // a host region
      b.CreateRet(host_call(b, f, i, pc, tensors, n));
      return f;
    }
    llvm::Value *status = b.CreateCall(specialised_kernel(i, pc), {f->getArg(0), tensors});
    b.CreateRet(status);
    return f;
  }

  /// A call with operands whose data lives in run-scoped memory (PlannedCall::run_time_data):
  /// their arena slots name them in the run's shape table; inputs get the run's data pointer,
  /// an element-wise op's outputs memory for the run's count (onnxc_rt_alloc_like), a producer's
  /// output is marked so that onnxc_rt_output_buffer gives it memory; shape words are computed
  /// from the run's shapes; then the kernel is called (inlined) with params on the stack.
  llvm::Value *call_with_run_time_data(llvm::IRBuilder<> &b, llvm::Function *f, size_t i,
                                       const PlannedCall &pc, llvm::Value *tensors) {
    const KernelCall &call = pc.call;
    if (device_ || !pc.extent_words.empty())
      fail("internal error: {} reads run-scoped data on a device or with a run-time extent",
           pc.node_desc);
    auto *array_type = llvm::ArrayType::get(ptr_, call.args.size() + (call.scratch_bytes > 0));
    auto slot = [&](size_t arg) { return tensor_pointer(b, f, call.args.at(arg)); };
    auto store = [&](size_t arg, llvm::Value *p) {
      b.CreateStore(p, b.CreateConstInBoundsGEP2_64(array_type, tensors, 0, arg));
    };
    auto *void_type = llvm::Type::getVoidTy(ctx_);
    using Kind = RunTimeData::Kind;
    // First what the run's table says about the inputs (their data, their shapes), then the
    // outputs' entries, which may take the place of the oldest ones.
    for (const RunTimeData &d : pc.run_time_data)
      if (d.kind == Kind::Read)
        store(d.arg, b.CreateCall(declare(kValueDataSymbol,
                                          llvm::FunctionType::get(ptr_, {ptr_, ptr_}, false)),
                                  {f->getArg(0), slot(d.arg)}));
    llvm::Value *params = call.params.empty() ? static_cast<llvm::Value *>(no_params()) : nullptr;
    if (!params) {
      auto *words_type = llvm::ArrayType::get(i64_, call.params.size());
      params = b.CreateAlloca(words_type, nullptr, "params");
      b.CreateMemCpy(params, llvm::MaybeAlign(8),
                     i64_array(call.params, "onnxc.params." + std::to_string(i)),
                     llvm::MaybeAlign(8), call.params.size() * sizeof(int64_t));
      for (const ShapeWord &w : call.shape_words) {
        llvm::Value *count =
            w.dim < 0
                ? b.CreateCall(declare(kShapeNumelSymbol,
                                       llvm::FunctionType::get(i64_, {ptr_, ptr_}, false)),
                               {f->getArg(0), slot(w.arg)})
                : b.CreateCall(declare(kShapeDimSymbol,
                                       llvm::FunctionType::get(i64_, {ptr_, ptr_, i64_}, false)),
                               {f->getArg(0), slot(w.arg), b.getInt64(w.dim)});
        b.CreateStore(b.CreateAdd(b.getInt64(w.value), b.CreateMul(b.getInt64(w.scale), count)),
                      b.CreateConstInBoundsGEP2_64(words_type, params, 0, w.word));
      }
    }
    for (const RunTimeData &d : pc.run_time_data) {
      if (d.kind == Kind::Produced) {
        b.CreateCall(
            declare(kMarkDynamicSymbol, llvm::FunctionType::get(void_type, {ptr_, ptr_}, false)),
            {f->getArg(0), slot(d.arg)});
      } else if (d.kind == Kind::Like) {
        llvm::Value *p =
            b.CreateCall(declare(kAllocLikeSymbol,
                                 llvm::FunctionType::get(ptr_, {ptr_, ptr_, ptr_, i64_}, false)),
                         {f->getArg(0), slot(d.arg), slot(d.src), b.getInt64(d.elem_bytes)});
        auto *ok = llvm::BasicBlock::Create(ctx_, "allocated", f);
        auto *failed = llvm::BasicBlock::Create(ctx_, "no_memory", f);
        b.CreateCondBr(b.CreateIsNull(p), failed, ok);
        b.SetInsertPoint(failed);
        b.CreateRet(b.getInt32(5)); // ONNXC_STATUS_OUT_OF_MEMORY (the message is recorded)
        b.SetInsertPoint(ok);
        store(d.arg, p);
      }
    }
    auto *kernel_type = llvm::FunctionType::get(i32_, {ptr_, ptr_, ptr_}, false);
    llvm::CallInst *status =
        b.CreateCall(declare(call.kernel, kernel_type), {f->getArg(0), tensors, params});
    status->addFnAttr(llvm::Attribute::AlwaysInline);
    for (const RunTimeData &d : pc.run_time_data) // only the producer's own call takes memory
      if (d.kind == Kind::Produced)
        b.CreateCall(
            declare(kEndDynamicSymbol, llvm::FunctionType::get(void_type, {ptr_, ptr_}, false)),
            {f->getArg(0), slot(d.arg)});
    return status;
  }

  /// A CUDA-target library's host region: onnxc_cuda_host(rt, tensors, bytes, n, kernel,
  /// node) with the bytes of each tensor to copy from the device before the kernel and back
  /// after it (0 for weights, which the host copy holds, and for scratch).
  llvm::Value *host_call(llvm::IRBuilder<> &b, llvm::Function *f, size_t i, const PlannedCall &pc,
                         llvm::Value *tensors, size_t n) {
    std::vector<int64_t> bytes;
    for (const Value *v : pc.call.args)
      bytes.push_back(v && v->storage != Storage::Weight ? static_cast<int64_t>(value_bytes(*v))
                                                         : 0);
    while (bytes.size() < n)
      bytes.push_back(0);
    llvm::Function *host =
        declare(kHostCallSymbol,
                llvm::FunctionType::get(i32_, {ptr_, ptr_, ptr_, i64_, ptr_, ptr_}, false));
    const std::string base = "onnxc.host." + std::to_string(i);
    return b.CreateCall(host, {f->getArg(0), tensors, i64_array(bytes, base + ".bytes"),
                               b.getInt64(static_cast<int64_t>(n)), specialised_kernel(i, pc),
                               c_string(pc.node_desc, base + ".node")});
  }

  /// The extent's value in this run (node and run functions: argument 0 is rt): the bound
  /// symbol, or a run-time count + 1 (the count as its kernel set it).
  llvm::Value *extent_value(llvm::IRBuilder<> &b, llvm::Function *f) {
    llvm::Function *get =
        declare(kSymbolValueSymbol, llvm::FunctionType::get(i64_, {ptr_, i32_}, false));
    const int64_t offset = plan_.extent->count ? 1 : 0;
    llvm::CallInst *s =
        b.CreateCall(get, {f->getArg(0), b.getInt32(plan_.extent_symbol_index())}, "extent");
    // onnxc_run admits only the range, and a count's kernel sets one within it (loops and
    // guards may use it).
    s->setMetadata(
        llvm::LLVMContext::MD_range,
        llvm::MDBuilder(ctx_).createRange(
            llvm::APInt(64, static_cast<uint64_t>(plan_.extent->range.lo - offset)),
            llvm::APInt(64, static_cast<uint64_t>(plan_.extent->range.hi - offset) + 1)));
    return offset ? b.CreateNUWAdd(s, b.getInt64(offset)) : s;
  }

  /// Key of a kernel specialisation: the kernel, its constant params and whether it has scratch.
  using SpecKey = std::tuple<std::string, std::vector<int64_t>, size_t, bool>;
  static SpecKey spec_key(const KernelCall &call) {
    return {call.kernel, call.params, call.args.size(), call.scratch_bytes > 0};
  }

  /// Key of a kernel specialisation for a run-time extent: spec_key and the extent words.
  using ExtentKey = std::pair<SpecKey, std::vector<int64_t>>;
  static ExtentKey extent_key(const PlannedCall &pc) {
    std::vector<int64_t> words;
    for (const ExtentWord &w : pc.extent_words) {
      words.insert(words.end(),
                   {static_cast<int64_t>(w.word), static_cast<int64_t>(w.pieces.size())});
      for (const ExtentPiece &p : w.pieces)
        words.insert(words.end(), {p.start, p.value, p.d1, p.d2});
    }
    return {spec_key(pc.call), std::move(words)};
  }

  /// internal i32 @extent.<i>.<kernel>(rt, tensors): the kernel (always inlined) with params
  /// built on the stack from the extent's value. Calls with the same kernel, params and extent
  /// words (the repeated layers of a transformer) share one.
  llvm::Function *extent_kernel(size_t i, const PlannedCall &pc) {
    const ExtentKey key = extent_key(pc);
    llvm::Function *&spec = extent_specs_[key];
    if (spec)
      return spec;
    spec = llvm::Function::Create(llvm::FunctionType::get(i32_, {ptr_, ptr_}, false),
                                  llvm::GlobalValue::InternalLinkage,
                                  "extent." + std::to_string(i) + "." + pc.call.kernel, *module_);
    spec->addFnAttr(llvm::Attribute::NoUnwind);
    spec->addFnAttr(extent_uses_[key] < 2 ? llvm::Attribute::AlwaysInline
                                          : llvm::Attribute::NoInline);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", spec));
    b.CreateRet(call_with_extent_params(b, spec, i, pc, spec->getArg(1)));
    return spec;
  }

  /// Calls the kernel (inlined) with params built on the stack: the constant words copied, the
  /// extent words computed from the extent's value (inline for an affine word, else by
  /// onnxc_rt_extent_word on a table of pieces). f's argument 0 is rt.
  llvm::Value *call_with_extent_params(llvm::IRBuilder<> &b, llvm::Function *f, size_t i,
                                       const PlannedCall &pc, llvm::Value *tensors) {
    const KernelCall &call = pc.call;
    const std::string base = "onnxc.params." + std::to_string(i);
    auto *array_type = llvm::ArrayType::get(i64_, call.params.size());
    llvm::Value *params = b.CreateAlloca(array_type, nullptr, "params");
    b.CreateMemCpy(params, llvm::MaybeAlign(8), i64_array(call.params, base), llvm::MaybeAlign(8),
                   call.params.size() * sizeof(int64_t));
    llvm::Value *s = extent_value(b, f);
    for (const ExtentWord &w : pc.extent_words) {
      llvm::Value *v;
      if (w.pieces.size() == 1 && w.pieces[0].d2 == 0) { // affine: inline
        const ExtentPiece &p = w.pieces[0];
        v = b.CreateAdd(b.getInt64(p.value),
                        b.CreateMul(b.getInt64(p.d1), b.CreateSub(s, b.getInt64(p.start))));
      } else { // out of line: quadratic words inline made LLVM's loop passes take minutes
        std::vector<int64_t> table;
        for (const ExtentPiece &p : w.pieces)
          table.insert(table.end(), {p.start, p.value, p.d1, p.d2});
        llvm::Function *word =
            declare(kExtentWordSymbol, llvm::FunctionType::get(i64_, {ptr_, i64_, i64_}, false));
        v = b.CreateCall(word, {i64_array(table, base + ".w" + std::to_string(w.word)),
                                b.getInt64(static_cast<int64_t>(w.pieces.size())), s});
      }
      b.CreateStore(v, b.CreateConstInBoundsGEP2_64(array_type, params, 0, w.word));
    }
    auto *kernel_type = llvm::FunctionType::get(i32_, {ptr_, ptr_, ptr_}, false);
    llvm::CallInst *status =
        b.CreateCall(declare(call.kernel, kernel_type), {f->getArg(0), tensors, params});
    status->addFnAttr(llvm::Attribute::AlwaysInline);
    return status;
  }

  /// internal i32 @kernel.<i>.<kernel>(rt, tensors): the kernel (always inlined) with the
  /// call's constant params. Calls with the same kernel and params (repeated blocks of a
  /// network) share one, so the code of each specialisation exists once.
  llvm::Function *specialised_kernel(size_t i, const PlannedCall &pc) {
    const KernelCall &call = pc.call;
    llvm::Function *&spec = specs_[spec_key(call)];
    if (spec)
      return spec;
    auto *kernel_type = llvm::FunctionType::get(i32_, {ptr_, ptr_, ptr_}, false);
    llvm::Function *kernel = declare(call.kernel, kernel_type);
    spec = llvm::Function::Create(llvm::FunctionType::get(i32_, {ptr_, ptr_}, false),
                                  llvm::GlobalValue::InternalLinkage,
                                  "kernel." + std::to_string(i) + "." + call.kernel, *module_);
    spec->addFnAttr(llvm::Attribute::NoUnwind);
    if (spec_uses_[spec_key(call)] < 2) // used once: inline it, so tensor addresses fold
      spec->addFnAttr(llvm::Attribute::AlwaysInline);
    else
      spec->addFnAttr(llvm::Attribute::NoInline);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", spec));
    llvm::Constant *params = call.params.empty()
                                 ? no_params()
                                 : i64_array(call.params, "onnxc.params." + std::to_string(i));
    llvm::CallInst *status = b.CreateCall(kernel, {spec->getArg(0), spec->getArg(1), params});
    status->addFnAttr(llvm::Attribute::AlwaysInline);
    b.CreateRet(status);
    return spec;
  }

  llvm::Constant *no_params() {
    if (!no_params_)
      no_params_ = private_constant(llvm::Constant::getNullValue(llvm::ArrayType::get(i64_, 1)),
                                    "onnxc.no_params");
    return no_params_;
  }

  /// i32 @onnxc__model_run(rt, arena, weights, inputs, outputs): the nodes in order; the first
  /// failure returns onnxc_rt_node_failed(rt, status, "<node>"). Profile builds read the clock
  /// once at the start and once after each node (onnxc_rt_profile_begin / _node).
  void build_run() {
    auto *run = llvm::Function::Create(step_type(), llvm::GlobalValue::ExternalLinkage,
                                       std::string(kModelRunSymbol), *module_);
    run->setVisibility(llvm::GlobalValue::HiddenVisibility);
    set_step_attributes(run);
    llvm::Function *node_failed =
        declare(kNodeFailedSymbol, llvm::FunctionType::get(i32_, {ptr_, i32_, ptr_}, false));
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", run));
    std::vector<llvm::Value *> args;
    for (llvm::Argument &a : run->args())
      args.push_back(&a);
    llvm::Function *profile_node = nullptr;
    llvm::Value *clock = nullptr; // the last clock reading, in a slot (loops: control_flow.cpp)
    if (profile_) {
      clock = b.CreateAlloca(i64_, nullptr, "clock");
      b.CreateStore(
          b.CreateCall(declare(kProfileBeginSymbol, llvm::FunctionType::get(i64_, {ptr_}, false)),
                       {args[0]}, "t"),
          clock);
      profile_node =
          declare(kProfileNodeSymbol, llvm::FunctionType::get(i64_, {ptr_, i32_, i64_}, false));
    }
    for (const PlannedCall &pc : plan_.calls)
      if (pc.control == ControlMark::None) {
        ++spec_uses_[spec_key(pc.call)];
        if (!pc.extent_words.empty())
          ++extent_uses_[extent_key(pc)];
      }
    // A run-time count changes during the run: read it at each guard.
    llvm::Value *extent = plan_.extent && !plan_.extent->count ? extent_value(b, run) : nullptr;
    ControlFlowEmitter::LoadFn device_load;
    ControlFlowEmitter::StoreFn device_store;
    if (device_) { // the markers' tensors are in the GPU's memory: read through the runtime
      llvm::Function *load =
          declare(kDeviceLoadSymbol, llvm::FunctionType::get(i64_, {ptr_, ptr_, i32_}, false));
      llvm::Function *store =
          declare(kDeviceStoreSymbol,
                  llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr_, ptr_, i64_}, false));
      device_load = [load, run](llvm::IRBuilder<> &ib, llvm::Value *p, int bytes) {
        return static_cast<llvm::Value *>(
            ib.CreateCall(load, {run->getArg(0), p, ib.getInt32(bytes)}));
      };
      device_store = [store, run](llvm::IRBuilder<> &ib, llvm::Value *p, llvm::Value *x) {
        ib.CreateCall(store, {run->getArg(0), p, x});
      };
    }
    ControlFlowEmitter flow(
        run,
        [this, run](llvm::IRBuilder<> &ib, const Value *v) { return tensor_pointer(ib, run, v); },
        device_load, device_store);
    for (size_t i = 0; i < plan_.calls.size(); ++i) {
      if (plan_.calls[i].control != ControlMark::None) { // If/Loop/Scan: control_flow.cpp
        flow.emit(b, plan_.calls[i]);
        continue;
      }
      llvm::BasicBlock *after = nullptr;
      if (const auto &guard = plan_.calls[i].guard) { // one of its region's variants
        if (!plan_.extent)
          fail("internal error: a guarded call without a run-time extent");
        if (plan_.extent->count)
          extent = extent_value(b, run);
        auto *body = llvm::BasicBlock::Create(ctx_, "variant", run);
        after = llvm::BasicBlock::Create(ctx_, "after_variant", run);
        b.CreateCondBr(b.CreateAnd(b.CreateICmpSGE(extent, b.getInt64(guard->first)),
                                   b.CreateICmpSLE(extent, b.getInt64(guard->second))),
                       body, after);
        b.SetInsertPoint(body);
      }
      llvm::Function *node = build_node(i, plan_.calls[i]);
      llvm::Value *status = b.CreateCall(node, args, "status");
      if (profile_)
        b.CreateStore(
            b.CreateCall(profile_node,
                         {args[0], b.getInt32(static_cast<uint32_t>(i)), b.CreateLoad(i64_, clock)},
                         "t"),
            clock);
      auto *failed = llvm::BasicBlock::Create(ctx_, "failed", run);
      auto *next = llvm::BasicBlock::Create(ctx_, "next", run);
      b.CreateCondBr(b.CreateICmpNE(status, b.getInt32(0)), failed, next,
                     llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
      b.SetInsertPoint(failed);
      llvm::Constant *desc =
          c_string(plan_.calls[i].node_desc, "onnxc.node_desc." + std::to_string(i));
      b.CreateRet(b.CreateCall(node_failed, {args[0], status, desc}));
      b.SetInsertPoint(next);
      if (after) {
        b.CreateBr(after);
        b.SetInsertPoint(after);
      }
    }
    flow.finish();
    b.CreateRet(b.getInt32(0));
  }

  const ExecutionPlan &plan_;
  const DeviceCode *device_; ///< non-null: a CUDA-target library's host module
  WeightsPlacement placement_;
  std::vector<uint8_t> *external_; ///< non-null: the blob goes here, not into the module
  uint64_t checksum_ = 0;
  llvm::LLVMContext &ctx_;
  bool profile_;
  llvm::Type *i8_, *i32_, *i64_;
  llvm::PointerType *ptr_;
  std::unique_ptr<llvm::Module> module_;
  llvm::GlobalVariable *weights_ = nullptr;
  uint64_t weights_size_ = 0;
  llvm::GlobalVariable *no_params_ = nullptr;
  std::map<SpecKey, llvm::Function *> specs_;
  std::map<SpecKey, int> spec_uses_;
  std::map<ExtentKey, llvm::Function *> extent_specs_;
  std::map<ExtentKey, int> extent_uses_;
};

} // namespace

std::unique_ptr<llvm::Module>
build_model_module(const ExecutionPlan &plan, llvm::LLVMContext &ctx, const std::string &triple,
                   const llvm::DataLayout &layout, WeightsPlacement placement,
                   std::vector<uint8_t> *external_weights, bool profile, const DeviceCode *device) {
  if (placement == WeightsPlacement::External && !external_weights)
    fail("internal error: external weights need a blob to go to");
  if (device && placement == WeightsPlacement::External)
    fail("a CUDA-target library embeds its weights (--weights-file is not supported with "
         "--target cuda yet)");
  return ModelModuleBuilder(plan, ctx, placement, external_weights, profile, device)
      .build(triple, layout);
}

uint64_t weights_blob_size(const ExecutionPlan &plan) {
  return blob_size(plan, sorted_weights(plan));
}

void write_linked_weights(const ExecutionPlan &plan, const std::string &path,
                          uint64_t file_offset) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  if (!f)
    fail("cannot write the weights into '{}': cannot open it", path);
  for (const Value *w : sorted_weights(plan)) {
    if (w->constant->nbytes() == 0)
      continue;
    f.seekp(static_cast<std::streamoff>(file_offset + static_cast<uint64_t>(w->offset)));
    f.write(reinterpret_cast<const char *>(w->constant->data()),
            static_cast<std::streamsize>(w->constant->nbytes()));
  }
  f.flush();
  if (!f)
    fail("cannot write the weights into '{}': I/O error", path);
}

} // namespace onnxc
