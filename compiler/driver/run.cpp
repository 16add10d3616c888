// `onnxc run LIB.so DATA_DIR -o OUT_DIR`: runs a compiled model on ONNX test-data files.
#include "compiler/driver/commands.h"
#include "compiler/driver/test_data.h"
#include "compiler/ir/error.h"

#include <filesystem>
#include <iostream>

namespace onnxc {

int cmd_run(const RunOptions &o) {
  ModelLibrary lib(o.library);
  std::vector<NamedTensor> inputs = read_data_set(o.data_dir, "input");
  ModelLibrary::Context ctx(lib);
  ctx.set_num_threads(o.threads);
  std::vector<Tensor> outputs = ctx.run(match_inputs(lib.inputs(), inputs, o.data_dir));
  std::filesystem::create_directories(o.out_dir);
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path = fmt::format("{}/output_{}.pb", o.out_dir, i);
    write_tensor_file(path, lib.outputs()[i].name, outputs[i]);
    std::cout << fmt::format("{}: {} {}[{}]\n", path, lib.outputs()[i].name,
                             dtype_name(outputs[i].dtype()), dims_to_string(outputs[i].shape()));
  }
  return 0;
}

} // namespace onnxc
