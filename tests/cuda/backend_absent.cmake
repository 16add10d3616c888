# onnxc built without the CUDA Toolkit: --target cuda must fail with a message that says so.
execute_process(COMMAND ${ONNXC} compile nonexistent.onnx --target cuda -o x.so
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(code EQUAL 0 OR NOT err MATCHES "built without the CUDA Toolkit")
  message(FATAL_ERROR "expected a refusal naming the CUDA Toolkit, got ${code}: ${out}${err}")
endif()
