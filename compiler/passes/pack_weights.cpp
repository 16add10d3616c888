#include "compiler/passes/pack_weights.h"
#include "compiler/ops/nn/nn_util.h"

#include <set>
#include <string>

namespace onnxc {

int pack_weights(Graph &g) {
  int marked = 0;
  for (auto &np : g.nodes) {
    Node &n = *np;
    const bool recurrent = n.op_type == "LSTM"; /* W and R */
    if (n.op_type != "Conv" && n.op_type != "Gemm" && n.op_type != "MatMul" && !recurrent)
      continue;
    if (!n.domain.empty() || n.inputs.size() < 2 || !n.inputs[1] || !n.inputs[1]->constant)
      continue;
    if (recurrent && (n.inputs.size() < 3 || !n.inputs[2] || !n.inputs[2]->constant))
      continue;
    const DType dt = n.outputs[0]->type.dtype;
    if (dt != DType::Float && dt != DType::Double)
      continue;
    Attribute one;
    one.kind = Attribute::Kind::Int;
    one.i = 1;
    n.attrs[kPackWeightsAttr] = one;
    ++marked;
  }
  return marked;
}

void mark_gemm_tile_rows(Graph &g, int64_t rows) {
  if (rows <= 0)
    return;
  for (auto &np : g.nodes) {
    Node &n = *np;
    static const std::set<std::string> kGemmOps = {"Conv", "ConvTranspose", "Gemm", "MatMul",
                                                   "LSTM", "GRU",           "RNN"};
    if (!n.domain.empty() || !kGemmOps.count(n.op_type))
      continue;
    Attribute a;
    a.kind = Attribute::Kind::Int;
    a.i = rows;
    n.attrs[kGemmTileRowsAttr] = a;
  }
}

} // namespace onnxc
