// ONNX TensorProto <-> onnxc::Tensor, and the ONNX test-data file convention (one serialized
// TensorProto per .pb file).
//
// Every encoding ONNX allows is read: raw_data (little-endian), the typed fields (float_data,
// int32_data, int64_data, double_data, uint64_data, string_data) and external data. All data
// types 1..26 are accepted. Sub-byte types stay packed in Tensor::bytes() exactly as ONNX packs
// them in raw_data (int4/uint4/float4e2m1 two per byte, int2/uint2 four per byte, first element
// in the low bits). The data is validated against the dims before anything is allocated.
#pragma once

#include "compiler/frontend/proto_io.h"
#include "compiler/ir/tensor.h"

#include <string>

namespace onnx {
class TensorProto;
}

namespace onnxc {

/// A tensor with its ONNX name (test-data files and initializers carry one).
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

/// Converts a TensorProto. External data is looked up relative to `base_dir` (see
/// external_data.h); `origin` names the file the tensor came from in messages. Throws Error
/// naming the tensor on unknown data types, negative dims, segmented tensors, or data whose size
/// does not match the dims.
Tensor tensor_from_proto(const onnx::TensorProto &proto, const std::string &base_dir,
                         const std::string &origin = "");

/// Converts a Tensor to a TensorProto holding its data in raw_data (string_data for strings).
void tensor_to_proto(const Tensor &tensor, const std::string &name, onnx::TensorProto &proto);

/// Reads a serialized TensorProto file (ONNX test data: test_data_set_N/input_0.pb).
NamedTensor read_tensor_file(const std::string &path, const ParseLimits &limits = {});

/// Writes `tensor` as a serialized TensorProto named `name`, data in raw_data.
void write_tensor_file(const std::string &path, const std::string &name, const Tensor &tensor);

} // namespace onnxc
