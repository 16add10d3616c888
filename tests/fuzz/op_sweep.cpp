// A structured sweep over every operator onnxc knows, through the fuzz entry point (loader and
// the whole pass pipeline): each model must compile or be rejected with onnxc::Error, never
// crash (ctest fuzz.op_sweep; under ASan/UBSan in CI's sanitizer stage). libFuzzer finds such
// crashes one at a time and by chance (Slice's required input given as '', twice); the sweep
// tries the same kinds of malformed or unusual nodes on every op at once:
//   - missing: each input in turn given as '' (no value), n = 1..6 inputs;
//   - kinds: every input of one dtype (float, double, float16, int64, int32, uint8, bool,
//     string) and one shape (scalar, [0, 3], [2, 3], [1, 2, 3, 4]);
//   - constants: a float data input, the others constants with edge values (0, -1, huge,
//     INT64_MIN, NaN, inf...), so the shape rules and the constant folder see them;
//   - attributes: each attribute the op declares set to edge values of its kind;
// each model with a valid value for every attribute the op requires (but the varied one), so
// that ops with required attributes get past check-supported; at opsets 7 to 28 (ai.onnx; 1
// to 5 for other domains), including ones newer than libonnx's schemas.
//
//   fuzz_op_sweep [OP_TYPE | OP_TYPE+]   (only that op, or the ops from it on in name order)
#include "compiler/ops/registry.h"
#include "tests/fuzz/fuzz_entry.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace {

using onnx::TensorProto;

/// One input of the node: '' (missing), a graph input, or a constant initializer.
struct In {
  enum Kind { Missing, Graph, Const } kind = Graph;
  int dtype = TensorProto::FLOAT;
  std::vector<int64_t> shape{2, 3};
  std::vector<int64_t> ints{};  // a Const's values, int64
  std::vector<double> floats{}; // a Const's values, float (when ints is empty)
};

void set_shape(onnx::TypeProto_Tensor *tt, const std::vector<int64_t> &shape) {
  auto *s = tt->mutable_shape();
  for (int64_t d : shape)
    s->add_dim()->set_dim_value(d);
}

std::string model_bytes(const onnxc::OpDef &op, int64_t opset, const std::vector<In> &ins,
                        const std::vector<onnx::AttributeProto> &attrs) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto *imp = m.add_opset_import();
  imp->set_domain(op.domain);
  imp->set_version(opset);
  if (!op.domain.empty()) { // a custom or ML domain still needs the default one
    auto *def = m.add_opset_import();
    def->set_domain("");
    def->set_version(17);
  }
  auto *g = m.mutable_graph();
  g->set_name("g");
  auto *node = g->add_node();
  node->set_op_type(op.name);
  node->set_domain(op.domain);
  for (const onnx::AttributeProto &a : attrs)
    *node->add_attribute() = a;
  for (size_t i = 0; i < ins.size(); ++i) {
    const In &in = ins[i];
    if (in.kind == In::Missing) {
      node->add_input("");
      continue;
    }
    std::string name = "x" + std::to_string(i);
    node->add_input(name);
    if (in.kind == In::Graph) {
      auto *vi = g->add_input();
      vi->set_name(name);
      auto *tt = vi->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(in.dtype);
      set_shape(tt, in.shape);
      continue;
    }
    auto *t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(in.dtype);
    for (int64_t d : in.shape)
      t->add_dims(d);
    for (int64_t v : in.ints)
      t->add_int64_data(v);
    for (double v : in.floats)
      t->add_float_data(static_cast<float>(v));
  }
  node->add_output("y");
  auto *out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  return m.SerializeAsString();
}

std::vector<int64_t> opsets_of(const onnxc::OpDef &op) {
  std::vector<int64_t> want = op.domain.empty() ? std::vector<int64_t>{7, 13, 17, 18, 21, 23, 28}
                                                : std::vector<int64_t>{1, 2, 3, 4, 5};
  std::set<int64_t> out;
  for (int64_t v : want)
    out.insert(std::clamp(v, op.min_opset, op.max_opset));
  return {out.begin(), out.end()};
}

/// Edge values of each attribute kind the ops declare.
std::vector<onnx::AttributeProto> attribute_values(const onnxc::AttrSpec &spec) {
  using onnxc::Attribute;
  const int64_t big = std::numeric_limits<int64_t>::max();
  const int64_t small = std::numeric_limits<int64_t>::min();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<onnx::AttributeProto> out;
  auto add = [&](auto fill) {
    onnx::AttributeProto a;
    a.set_name(spec.name);
    fill(a);
    out.push_back(a);
  };
  switch (spec.kind) {
  case Attribute::Kind::Int:
    for (int64_t v : {int64_t(0), int64_t(-1), int64_t(1), int64_t(2), int64_t(-7), big, small})
      add([&](onnx::AttributeProto &a) {
        a.set_type(onnx::AttributeProto::INT);
        a.set_i(v);
      });
    break;
  case Attribute::Kind::Ints:
    for (std::vector<int64_t> v : std::vector<std::vector<int64_t>>{{},
                                                                    {0},
                                                                    {-1},
                                                                    {1, 1},
                                                                    {2, 2, 2, 2},
                                                                    {0, 0, 0, 0, 0, 0, 0, 0},
                                                                    {big, big},
                                                                    {small, -1}})
      add([&](onnx::AttributeProto &a) {
        a.set_type(onnx::AttributeProto::INTS);
        for (int64_t x : v)
          a.add_ints(x);
      });
    break;
  case Attribute::Kind::Float:
    for (double v : {0.0, -1.0, 1e30, nan})
      add([&](onnx::AttributeProto &a) {
        a.set_type(onnx::AttributeProto::FLOAT);
        a.set_f(static_cast<float>(v));
      });
    break;
  case Attribute::Kind::Floats:
    for (std::vector<double> v : std::vector<std::vector<double>>{{}, {0.0}, {nan, 1.0}})
      add([&](onnx::AttributeProto &a) {
        a.set_type(onnx::AttributeProto::FLOATS);
        for (double x : v)
          a.add_floats(static_cast<float>(x));
      });
    break;
  case Attribute::Kind::String:
    for (const char *v : {"", "?", "NOTSET"})
      add([&](onnx::AttributeProto &a) {
        a.set_type(onnx::AttributeProto::STRING);
        a.set_s(v);
      });
    break;
  case Attribute::Kind::Strings:
    add([&](onnx::AttributeProto &a) { a.set_type(onnx::AttributeProto::STRINGS); });
    break;
  case Attribute::Kind::Tensor:
    add([&](onnx::AttributeProto &a) { // an empty, a scalar
      a.set_type(onnx::AttributeProto::TENSOR);
      a.mutable_t()->set_data_type(TensorProto::FLOAT);
      a.mutable_t()->add_dims(0);
    });
    add([&](onnx::AttributeProto &a) {
      a.set_type(onnx::AttributeProto::TENSOR);
      a.mutable_t()->set_data_type(TensorProto::INT64);
      a.mutable_t()->add_int64_data(-1);
    });
    break;
  default:
    break;
  }
  return out;
}

/// A valid value for each attribute the op requires (graphs aside), so that the sweep's other
/// variations get past check-supported's required-attribute check.
std::vector<onnx::AttributeProto> required_defaults(const onnxc::OpDef &op) {
  using onnxc::Attribute;
  std::vector<onnx::AttributeProto> out;
  for (const onnxc::AttrSpec &spec : op.attrs) {
    if (!spec.required)
      continue;
    onnx::AttributeProto a;
    a.set_name(spec.name);
    switch (spec.kind) {
    case Attribute::Kind::Int:
      a.set_type(onnx::AttributeProto::INT);
      a.set_i(spec.name == "axis" || spec.name == "max_skip_count" ? 0
              : spec.name == "max_gram_length"                     ? 2
                                                                   : 1);
      break;
    case Attribute::Kind::Ints:
      a.set_type(onnx::AttributeProto::INTS);
      for (int64_t v :
           spec.name == "kernel_shape" ? std::vector<int64_t>{1, 1} : std::vector<int64_t>{0})
        a.add_ints(v);
      break;
    case Attribute::Kind::Float:
      a.set_type(onnx::AttributeProto::FLOAT);
      a.set_f(0.5f);
      break;
    case Attribute::Kind::String:
      a.set_type(onnx::AttributeProto::STRING);
      a.set_s(spec.name == "equation"        ? "ij->ji"
              : op.name == "TfIdfVectorizer" ? "TF"
                                             : "standard");
      break;
    default:
      continue; // graphs: these ops stay rejected here (the corpus has If/Loop models)
    }
    out.push_back(a);
  }
  return out;
}

struct Sweep {
  std::string only;
  size_t models = 0, compiled = 0;

  /// One model; `attr` (when given) replaces the required default of its name or is added.
  void run(const onnxc::OpDef &op, int64_t opset, const std::vector<In> &ins,
           const onnx::AttributeProto *attr = nullptr) {
    std::vector<onnx::AttributeProto> attrs = required_defaults(op);
    if (attr) {
      auto same = std::find_if(attrs.begin(), attrs.end(), [&](const onnx::AttributeProto &a) {
        return a.name() == attr->name();
      });
      if (same != attrs.end())
        *same = *attr;
      else
        attrs.push_back(*attr);
    }
    std::string bytes = model_bytes(op, opset, ins, attrs);
    compiled +=
        onnxc::fuzz_compile_bytes(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
    ++models;
  }

  void op(const onnxc::OpDef &op) {
    const size_t most = std::min<size_t>(op.max_inputs, 6);
    const std::vector<int64_t> opsets = opsets_of(op);
    // missing: input `missing` given as '' (none when missing == n).
    for (int64_t opset : opsets)
      for (int dtype : {TensorProto::FLOAT, TensorProto::INT64})
        for (size_t n = 1; n <= most; ++n)
          for (size_t missing = 0; missing <= n; ++missing) {
            std::vector<In> ins(n, In{In::Graph, dtype});
            if (missing < n)
              ins[missing].kind = In::Missing;
            run(op, opset, ins);
          }
    // kinds: every input of one dtype and shape.
    const std::vector<std::vector<int64_t>> shapes = {{}, {0, 3}, {2, 3}, {1, 2, 3, 4}};
    for (int64_t opset : {opsets.front(), opsets.back()})
      for (int dtype :
           {TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::FLOAT16, TensorProto::INT64,
            TensorProto::INT32, TensorProto::UINT8, TensorProto::BOOL, TensorProto::STRING})
        for (const auto &shape : shapes)
          for (size_t n = 1; n <= std::min<size_t>(most, 4); ++n)
            run(op, opset, std::vector<In>(n, In{In::Graph, dtype, shape}));
    // constants: a float [2, 3, 4] data input, the others constants with edge values.
    const int64_t big = std::numeric_limits<int64_t>::max();
    const int64_t small = std::numeric_limits<int64_t>::min();
    const std::vector<std::vector<int64_t>> int_values = {
        {0}, {-1}, {1}, {3}, {-4}, {1, 1}, {-1, -1}, {0, 0, 0, 0, 0, 0}, {big}, {small}, {2, big}};
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<std::vector<double>> float_values = {{0.0},          {-1.0}, {0.5},
                                                           {std::nan("")}, {inf},  {-1e30, 1e30}};
    for (int64_t opset : opsets)
      for (size_t n = 2; n <= std::min<size_t>(most, 5); ++n) {
        for (const auto &v : int_values)
          for (bool scalar : {false, true}) {
            if (scalar && v.size() != 1)
              continue;
            std::vector<In> ins(
                n,
                In{In::Const, TensorProto::INT64,
                   scalar ? std::vector<int64_t>{} : std::vector<int64_t>{int64_t(v.size())}, v});
            ins[0] = In{In::Graph, TensorProto::FLOAT, {2, 3, 4}};
            run(op, opset, ins);
            ins[0] = In{In::Const, TensorProto::INT64, {int64_t(v.size())}, v}; // all constant
            run(op, opset, ins);
          }
        for (const auto &v : float_values) {
          std::vector<In> ins(
              n, In{In::Const, TensorProto::FLOAT, std::vector<int64_t>{int64_t(v.size())}, {}, v});
          ins[0] = In{In::Graph, TensorProto::FLOAT, {2, 3, 4}};
          run(op, opset, ins);
          ins[0] = In{In::Const, TensorProto::FLOAT, {int64_t(v.size())}, {}, v};
          run(op, opset, ins);
        }
      }
    // attributes: each declared attribute at edge values, on 1 to 3 float inputs [1, 2, 3, 4].
    for (const onnxc::AttrSpec &spec : op.attrs)
      for (const onnx::AttributeProto &a : attribute_values(spec))
        for (int64_t opset : {opsets.front(), opsets.back()})
          for (size_t n = 1; n <= std::min<size_t>(most, 3); ++n)
            run(op, opset, std::vector<In>(n, In{In::Graph, TensorProto::FLOAT, {1, 2, 3, 4}}), &a);
  }
};

} // namespace

int main(int argc, char **argv) {
  Sweep sweep;
  sweep.only = argc > 1 ? argv[1] : "";
  for (const onnxc::OpDef *op : onnxc::all_ops()) {
    if (!sweep.only.empty() && op->name != sweep.only &&
        !(sweep.only.back() == '+' && op->name >= sweep.only.substr(0, sweep.only.size() - 1)))
      continue;
    // The op's name first: a crash (a sanitizer report) then follows the op that caused it.
    std::fprintf(stderr, "%s%s%s\n", op->domain.c_str(), op->domain.empty() ? "" : ".",
                 op->name.c_str());
    sweep.op(*op);
  }
  if (sweep.models == 0) {
    std::fprintf(stderr, "fuzz_op_sweep: no operator named '%s'\n", sweep.only.c_str());
    return 1;
  }
  std::printf("%zu models: %zu compiled, %zu rejected with an error, none crashed\n", sweep.models,
              sweep.compiled, sweep.models - sweep.compiled);
  return 0;
}
