#include "compiler/passes/conv_paths.h"
#include "compiler/ops/nn/nn_util.h"

namespace onnxc {

int mark_conv_paths(Graph &g, bool winograd, bool winograd4, bool dw_channels, bool few_channels,
                    bool chan_vec) {
  int marked = 0;
  for (auto &np : g.nodes) {
    Node &n = *np;
    if (n.op_type != "Conv" || !n.domain.empty() || n.outputs.empty())
      continue;
    const DType dt = n.outputs[0]->type.dtype;
    if (dt != DType::Float && dt != DType::Double)
      continue;
    Attribute one;
    one.kind = Attribute::Kind::Int;
    one.i = 1 | (winograd ? kConvWinogradBit : 0) |
            (winograd && winograd4 ? kConvWinograd4Bit : 0) |
            (dw_channels ? kConvDwChannelsBit : 0) | (few_channels ? kConvFewChannelsBit : 0) |
            (chan_vec ? kConvChanVecBit : 0);
    n.attrs[kConvPathsAttr] = one;
    ++marked;
  }
  return marked;
}

} // namespace onnxc
