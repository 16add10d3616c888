#include "compiler/ops/registry.h"
#include "compiler/ops/elementwise.h"

#include <algorithm>
#include <map>

namespace onnxc {

#define ONNXC_OP(name) const OpDef &op_##name();
#include "compiler/ops/op_list.def"
#undef ONNXC_OP

namespace {

using Key = std::pair<std::string, std::string>;

std::map<Key, OpDef> build_table() {
  std::map<Key, OpDef> table;
  auto add = [&](const OpDef &d) { table.emplace(Key{d.domain, d.name}, d); };
  for (const OpDef &d : elementwise_ops())
    add(d);
#define ONNXC_OP(name) add(op_##name());
#include "compiler/ops/op_list.def"
#undef ONNXC_OP
  return table;
}

const std::map<Key, OpDef> &table() {
  static const std::map<Key, OpDef> t = build_table();
  return t;
}

} // namespace

const OpDef *find_op(std::string_view domain, std::string_view op_type) {
  std::string dom(domain == "ai.onnx" ? std::string_view{} : domain);
  auto it = table().find(Key{dom, std::string(op_type)});
  return it == table().end() ? nullptr : &it->second;
}

std::vector<const OpDef *> all_ops() {
  std::vector<const OpDef *> out;
  for (const auto &[k, d] : table())
    out.push_back(&d);
  std::sort(out.begin(), out.end(), [](auto *a, auto *b) { return a->name < b->name; });
  return out;
}

} // namespace onnxc
