/* errors.c — the per-context error message and the per-thread error of onnxc_create*. */
#include "runtime_stub/stub_internal.h"

void onnxc_rt_clear_error(onnxc_rt *rt) {
  rt->error[0] = '\0';
  __atomic_store_n(&rt->error_claimed, 0, __ATOMIC_RELAXED);
}

onnxc_status onnxc_rt_set_error(onnxc_rt *rt, onnxc_status status, const char *msg) {
  onnxc_msg m = onnxc_msg_begin(rt->error, sizeof rt->error);
  onnxc_msg_str(&m, msg);
  __atomic_store_n(&rt->error_claimed, 1, __ATOMIC_RELAXED);
  return status;
}

/* Kernels may fail on several pool threads at once: the first to claim the buffer writes it.
 * The caller reads it only after the parallel_for joined (an acquire on the pool's counter). */
int32_t onnxc_rt_fail(onnxc_rt *rt, int32_t status, const char *msg) {
  if (!rt)
    return status;
  uint32_t expected = 0;
  if (__atomic_compare_exchange_n(&rt->error_claimed, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_RELAXED)) {
    onnxc_msg m = onnxc_msg_begin(rt->error, sizeof rt->error);
    onnxc_msg_str(&m, msg);
  }
  return status;
}

int32_t onnxc_rt_node_failed(onnxc_rt *rt, int32_t status, const char *node_desc) {
  if (!rt)
    return status;
  char old[ONNXC_ERROR_CAPACITY];
  memcpy(old, rt->error, sizeof old);
  onnxc_msg m = onnxc_msg_begin(rt->error, sizeof rt->error);
  onnxc_msg_str(&m, node_desc);
  onnxc_msg_str(&m, ": ");
  onnxc_msg_str(&m, old[0] ? old : "failed without a message");
  __atomic_store_n(&rt->error_claimed, 1, __ATOMIC_RELAXED);
  return status;
}

/* onnxc_last_error(NULL) reports the last failed create of the calling thread. Thread-local
 * variables would make a model depend on the dynamic loader's TLS support (__tls_get_addr), so a
 * pthread key holds a pointer to a constant message instead: no allocation, libc only. */
static onnxc_pthread_once_t create_error_once = 0; /* PTHREAD_ONCE_INIT */
static onnxc_pthread_key_t create_error_key;
static int create_error_key_ok;

static void create_error_key_init(void) {
  create_error_key_ok = pthread_key_create(&create_error_key, 0) == 0;
}

onnxc_status onnxc_set_create_error(onnxc_status status, const char *msg) {
  pthread_once(&create_error_once, create_error_key_init);
  if (create_error_key_ok)
    pthread_setspecific(create_error_key, msg);
  return status;
}

const char *onnxc_create_error(void) {
  pthread_once(&create_error_once, create_error_key_init);
  const char *msg = create_error_key_ok ? pthread_getspecific(create_error_key) : 0;
  return msg ? msg : "";
}
