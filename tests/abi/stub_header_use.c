/* stub_header_use.c — compiled (not run) by the abi.stub_header_compiles test: the generated
 * tiny_net.h must be self-contained, combine with onnxc_runtime.h in either order, and declare
 * what its documentation promises with the expected C types. */
#ifdef STUB_RUNTIME_FIRST
#include "runtime_stub/onnxc_runtime.h"
#endif
#include "tiny_net.h"
#include "tiny_net.h" /* include guard */
#include "runtime_stub/onnxc_runtime.h"

#include <stddef.h>

#define STUB_ASSERT(name, cond) typedef char name[(cond) ? 1 : -1]
STUB_ASSERT(arena_size, TINY_NET_ARENA_SIZE == 128);
STUB_ASSERT(num_inputs, TINY_NET_NUM_INPUTS == 3 && TINY_NET_NUM_OUTPUTS == 1);
STUB_ASSERT(input_index, TINY_NET_INPUT__2D__MASK_ == 2);
STUB_ASSERT(input_size, TINY_NET_INPUT_0_SIZE == 3 && TINY_NET_INPUT_0_BYTES == 12);
STUB_ASSERT(input_rank, TINY_NET_INPUT_1_RANK == 0 && TINY_NET_INPUT_2_RANK == 2);
STUB_ASSERT(input_dtype, TINY_NET_INPUT_2_DTYPE == ONNXC_DTYPE_BOOL);
STUB_ASSERT(output_bytes, TINY_NET_OUTPUT_0_BYTES == 6);
STUB_ASSERT(tensor_size, sizeof(onnxc_tensor) == 8 + 8 + 4 + 4 + 8 * ONNXC_MAX_RANK);

onnxc_status (*const stub_infer)(onnxc_context *, const float *, const int64_t *, const uint8_t *,
                                 uint16_t *) = tiny_net_infer;
onnxc_status (*const stub_create)(onnxc_context **) = tiny_net_create;
onnxc_status (*const stub_create_arena)(void *, uint64_t, onnxc_context **) =
    tiny_net_create_with_arena;
void (*const stub_destroy)(onnxc_context *) = tiny_net_destroy;
onnxc_status (*const stub_threads)(onnxc_context *, int32_t) = tiny_net_set_num_threads;
onnxc_status (*const stub_run)(onnxc_context *, const onnxc_tensor *, int32_t, onnxc_tensor *,
                               int32_t) = tiny_net_run;
onnxc_status (*const stub_run_buffers)(onnxc_context *, const void *const *, void *const *) =
    tiny_net_run_buffers;
const char *(*const stub_last_error)(const onnxc_context *) = tiny_net_last_error;
onnxc_status (*const stub_generic_run)(onnxc_context *, const onnxc_tensor *, int32_t,
                                       onnxc_tensor *, int32_t) = onnxc_run;

int64_t stub_first_dim(void) { return TINY_NET_INPUT_0_SHAPE[1] + TINY_NET_OUTPUT_0_SHAPE[0]; }
