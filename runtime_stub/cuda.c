/* cuda.c — the device side of a CUDA-target library (onnxc_model_desc::device).
 *
 * The CUDA driver is loaded with dlopen at context creation, so the library's DT_NEEDED stays
 * libc/libm and it loads on machines without a GPU (onnxc_create then fails with a message, or
 * a `--target cpu,cuda` library runs its CPU code). Per context: the primary context of device
 * 0 (or ONNXC_CUDA_DEVICE), the module loaded from the best image for its architecture, the
 * weights uploaded once, one device allocation for the arena and the staging buffers of the
 * inputs and outputs, a stream, and the whole model captured once as a CUDA graph (the first
 * run) that every run replays between the input and output copies.
 */
#include "runtime_stub/stub_internal.h"

/* ---- the CUDA driver API, declared by hand (cuda.h is not available to the stub) ---- */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUevent_st *CUevent;

#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_STREAM_NON_BLOCKING 1
#define CU_EVENT_DISABLE_TIMING 2
#define CU_STREAM_CAPTURE_MODE_THREAD_LOCAL 1
#define ONNXC_RTLD_NOW 2

void *dlopen(const char *file, int mode);
void *dlsym(void *handle, const char *name);
char *getenv(const char *name);

/// The driver entry points the stub uses, resolved once per process.
typedef struct cuda_driver {
  CUresult (*Init)(unsigned int);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*DevicePrimaryCtxRelease)(CUdevice);
  CUresult (*CtxPushCurrent)(CUcontext);
  CUresult (*CtxPopCurrent)(CUcontext *);
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*MemsetD32Async)(CUdeviceptr, unsigned int, size_t, CUstream);
  CUresult (*StreamCreate)(CUstream *, unsigned int);
  CUresult (*StreamDestroy)(CUstream);
  CUresult (*StreamSynchronize)(CUstream);
  CUresult (*StreamBeginCapture)(CUstream, int);
  CUresult (*StreamEndCapture)(CUstream, CUgraph *);
  CUresult (*GraphInstantiate)(CUgraphExec *, CUgraph, unsigned long long);
  CUresult (*GraphLaunch)(CUgraphExec, CUstream);
  CUresult (*GraphExecDestroy)(CUgraphExec);
  CUresult (*GraphDestroy)(CUgraph);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void **, void **);
  CUresult (*MemAllocHost)(void **, size_t);
  CUresult (*MemFreeHost)(void *);
  CUresult (*LaunchHostFunc)(CUstream, void (*)(void *), void *);
  CUresult (*EventCreate)(CUevent *, unsigned int);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventSynchronize)(CUevent);
  CUresult (*EventDestroy)(CUevent);
  CUresult (*StreamWaitEvent)(CUstream, CUevent, unsigned int);
  CUresult (*GetErrorName)(CUresult, const char **);
  CUresult (*GetErrorString)(CUresult, const char **);
} cuda_driver;

static cuda_driver driver;
static const char *driver_error; ///< why the driver could not be loaded (NULL: loaded)
/// onnxc_create's message when the driver cannot be used: composed once, inside load_driver's
/// pthread_once (onnxc_set_create_error keeps the pointer).
static char no_driver_message[ONNXC_ERROR_CAPACITY];

static void compose_no_driver_message(void) {
  onnxc_msg m = onnxc_msg_begin(no_driver_message, sizeof no_driver_message);
  onnxc_msg_str(&m, "onnxc_create: this library runs on an NVIDIA GPU (onnxc compile --target "
                    "cuda) but ");
  onnxc_msg_str(&m, driver_error);
  onnxc_msg_str(&m, "; compile the model with --target cpu,cuda to fall back to the CPU");
}
static onnxc_pthread_once_t driver_once;

static void load_driver_once(void);
static void load_driver(void) {
  load_driver_once();
  if (driver_error)
    compose_no_driver_message();
}

static void load_driver_once(void) {
  void *h = dlopen("libcuda.so.1", ONNXC_RTLD_NOW);
  if (!h) {
    driver_error = "the NVIDIA driver (libcuda.so.1) is not installed on this machine";
    return;
  }
  struct {
    void **slot;
    const char *name;
  } syms[] = {
      {(void **)&driver.Init, "cuInit"},
      {(void **)&driver.DeviceGetCount, "cuDeviceGetCount"},
      {(void **)&driver.DeviceGet, "cuDeviceGet"},
      {(void **)&driver.DeviceGetAttribute, "cuDeviceGetAttribute"},
      {(void **)&driver.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
      {(void **)&driver.DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"},
      {(void **)&driver.CtxPushCurrent, "cuCtxPushCurrent_v2"},
      {(void **)&driver.CtxPopCurrent, "cuCtxPopCurrent_v2"},
      {(void **)&driver.ModuleLoadData, "cuModuleLoadData"},
      {(void **)&driver.ModuleUnload, "cuModuleUnload"},
      {(void **)&driver.ModuleGetFunction, "cuModuleGetFunction"},
      {(void **)&driver.MemAlloc, "cuMemAlloc_v2"},
      {(void **)&driver.MemFree, "cuMemFree_v2"},
      {(void **)&driver.MemcpyHtoD, "cuMemcpyHtoD_v2"},
      {(void **)&driver.MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"},
      {(void **)&driver.MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"},
      {(void **)&driver.MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"},
      {(void **)&driver.MemsetD32Async, "cuMemsetD32Async"},
      {(void **)&driver.StreamCreate, "cuStreamCreate"},
      {(void **)&driver.StreamDestroy, "cuStreamDestroy_v2"},
      {(void **)&driver.StreamSynchronize, "cuStreamSynchronize"},
      {(void **)&driver.StreamBeginCapture, "cuStreamBeginCapture_v2"},
      {(void **)&driver.StreamEndCapture, "cuStreamEndCapture"},
      {(void **)&driver.GraphInstantiate, "cuGraphInstantiateWithFlags"},
      {(void **)&driver.GraphLaunch, "cuGraphLaunch"},
      {(void **)&driver.GraphExecDestroy, "cuGraphExecDestroy"},
      {(void **)&driver.GraphDestroy, "cuGraphDestroy"},
      {(void **)&driver.LaunchKernel, "cuLaunchKernel"},
      {(void **)&driver.MemAllocHost, "cuMemAllocHost_v2"},
      {(void **)&driver.MemFreeHost, "cuMemFreeHost"},
      {(void **)&driver.LaunchHostFunc, "cuLaunchHostFunc"},
      {(void **)&driver.EventCreate, "cuEventCreate"},
      {(void **)&driver.EventRecord, "cuEventRecord"},
      {(void **)&driver.EventSynchronize, "cuEventSynchronize"},
      {(void **)&driver.EventDestroy, "cuEventDestroy_v2"},
      {(void **)&driver.StreamWaitEvent, "cuStreamWaitEvent"},
      {(void **)&driver.GetErrorName, "cuGetErrorName"},
      {(void **)&driver.GetErrorString, "cuGetErrorString"},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; ++i) {
    *syms[i].slot = dlsym(h, syms[i].name);
    if (!*syms[i].slot) {
      driver_error = "the NVIDIA driver (libcuda.so.1) is too old: it lacks the CUDA 12 driver API";
      return;
    }
  }
  CUresult r = driver.Init(0);
  if (r != 0)
    driver_error = r == 100 ? "cuInit found no CUDA-capable GPU (CUDA_ERROR_NO_DEVICE)"
                            : "cuInit failed: the NVIDIA driver is not usable on this machine";
}

/// A host region's call in the captured graph (onnxc_cuda_host): what its host node runs.
typedef struct host_call {
  struct host_call *next;
  struct cuda_state *state;
  onnxc_rt *rt;
  int32_t (*fn)(onnxc_rt *, void *const *);
  const char *node;
  void **tensors; ///< the tensors' addresses in the host mirror
} host_call;

/// A context's device state.
typedef struct cuda_state {
  CUdevice device;
  CUcontext cu;
  CUmodule module;
  CUfunction *functions; ///< num_kernels
  CUdeviceptr memory;    ///< one allocation: weights, arena, inputs, outputs
  CUdeviceptr weights, arena;
  CUdeviceptr *io; ///< num_inputs + num_outputs device buffers (staging)
  CUstream stream;
  CUgraphExec graph;
  uint64_t total;        ///< bytes of `memory`
  unsigned char *mirror; ///< host regions: pinned host copy of `memory` (same offsets)
  host_call *host_calls; ///< the graph's host calls (freed on destroy)
  int32_t host_status;   ///< the first failure of a host call in this run (0: none)
  CUevent done;          ///< recorded after each onnxc_run_device's work on the caller's stream
  CUevent started;       ///< eager runs of onnxc_run_device: the caller's stream's copies done
  int device_pending;    ///< an onnxc_run_device may still run: later work waits for `done`
  int32_t ctl_status;    ///< eager runs: the first failure of onnxc_rt_device_load / _store
} cuda_state;

/// Records "CUDA: <what>: <CUDA error name> (<its description>)" and returns RUNTIME.
static onnxc_status cuda_fail(onnxc_rt *rt, const char *what, CUresult r) {
  const char *name = 0, *desc = 0;
  if (driver.GetErrorName)
    driver.GetErrorName(r, &name);
  if (driver.GetErrorString)
    driver.GetErrorString(r, &desc);
  char buf[ONNXC_ERROR_CAPACITY];
  onnxc_msg m = onnxc_msg_begin(buf, sizeof buf);
  onnxc_msg_str(&m, "CUDA: ");
  onnxc_msg_str(&m, what);
  onnxc_msg_str(&m, ": ");
  onnxc_msg_str(&m, name ? name : "error");
  onnxc_msg_str(&m, " (");
  if (desc)
    onnxc_msg_str(&m, desc);
  else
    onnxc_msg_i64(&m, r);
  onnxc_msg_str(&m, ")");
  return onnxc_rt_set_error(rt, ONNXC_ERROR_RUNTIME, buf);
}

static uint64_t align_up(uint64_t n) { return (n + 255) & ~(uint64_t)255; }

/// The image for a GPU of compute capability `sm`: the cubin of the same major version with the
/// highest minor not above the GPU's, else the newest PTX not above it; NULL if none fits.
static const onnxc_device_image *pick_image(const onnxc_device_desc *d, int32_t sm) {
  const onnxc_device_image *best = 0;
  for (uint32_t i = 0; i < d->num_images; ++i) {
    const onnxc_device_image *im = &d->images[i];
    if (im->ptx || im->sm / 10 != sm / 10 || im->sm > sm)
      continue;
    if (!best || im->sm > best->sm)
      best = im;
  }
  if (best)
    return best;
  for (uint32_t i = 0; i < d->num_images; ++i) {
    const onnxc_device_image *im = &d->images[i];
    if (im->ptx && im->sm <= sm && (!best || im->sm > best->sm))
      best = im;
  }
  return best;
}

static onnxc_status init_state(onnxc_context *ctx, cuda_state *s) {
  const onnxc_device_desc *d = onnxc__model.device;
  onnxc_rt *rt = &ctx->rt;
  int count = 0, ordinal = 0;
  CUresult r = driver.DeviceGetCount(&count);
  if (r != 0)
    return cuda_fail(rt, "cuDeviceGetCount", r);
  const char *want = getenv("ONNXC_CUDA_DEVICE");
  if (want && *want) {
    ordinal = 0;
    for (const char *p = want; *p; ++p) {
      if (*p < '0' || *p > '9' || p - want >= 6)
        return onnxc_rt_set_error(
            rt, ONNXC_ERROR_RUNTIME,
            "CUDA: ONNXC_CUDA_DEVICE must be a device number (up to 6 digits)");
      ordinal = ordinal * 10 + (*p - '0');
    }
  }
  if (ordinal >= count)
    return onnxc_rt_set_error(rt, ONNXC_ERROR_RUNTIME,
                              count == 0 ? "CUDA: no CUDA-capable GPU found"
                                         : "CUDA: ONNXC_CUDA_DEVICE names no GPU of this machine");
  if ((r = driver.DeviceGet(&s->device, ordinal)) != 0)
    return cuda_fail(rt, "cuDeviceGet", r);
  int major = 0, minor = 0;
  if ((r = driver.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                     s->device)) != 0 ||
      (r = driver.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                     s->device)) != 0)
    return cuda_fail(rt, "cuDeviceGetAttribute", r);
  const onnxc_device_image *image = pick_image(d, major * 10 + minor);
  if (!image) {
    char buf[ONNXC_ERROR_CAPACITY];
    onnxc_msg m = onnxc_msg_begin(buf, sizeof buf);
    onnxc_msg_str(&m, "CUDA: this library has no code for this GPU (compute capability ");
    onnxc_msg_i64(&m, major);
    onnxc_msg_str(&m, ".");
    onnxc_msg_i64(&m, minor);
    onnxc_msg_str(&m, "); compile it with --cuda-arch sm_");
    onnxc_msg_i64(&m, major * 10 + minor);
    return onnxc_rt_set_error(rt, ONNXC_ERROR_RUNTIME, buf);
  }
  if ((r = driver.DevicePrimaryCtxRetain(&s->cu, s->device)) != 0)
    return cuda_fail(rt, "cuDevicePrimaryCtxRetain", r);
  if ((r = driver.CtxPushCurrent(s->cu)) != 0) {
    driver.DevicePrimaryCtxRelease(s->device);
    s->cu = 0;
    return cuda_fail(rt, "cuCtxPushCurrent", r);
  }
  onnxc_status st = ONNXC_OK;
  if ((r = driver.ModuleLoadData(&s->module, image->data)) != 0) {
    st = cuda_fail(rt, image->ptx ? "loading the PTX (JIT)" : "loading the cubin", r);
    goto done;
  }
  for (uint32_t k = 0; k < d->num_kernels; ++k)
    if ((r = driver.ModuleGetFunction(&s->functions[k], s->module, d->kernels[k])) != 0) {
      st = cuda_fail(rt, "cuModuleGetFunction", r);
      goto done;
    }
  uint64_t total = align_up(onnxc__model.weights_size) + align_up(onnxc__model.arena_size);
  for (uint32_t i = 0; i < onnxc__model.num_inputs; ++i)
    total += align_up(onnxc__model.inputs[i].size_bytes);
  for (uint32_t i = 0; i < onnxc__model.num_outputs; ++i)
    total += align_up(onnxc__model.outputs[i].size_bytes);
  s->total = total ? total : 256;
  if ((r = driver.MemAlloc(&s->memory, (size_t)s->total)) != 0) {
    st = cuda_fail(rt, "allocating device memory", r);
    s->memory = 0;
    goto done;
  }
  CUdeviceptr at = s->memory;
  s->weights = at;
  at += align_up(onnxc__model.weights_size);
  s->arena = at;
  at += align_up(onnxc__model.arena_size);
  for (uint32_t i = 0; i < onnxc__model.num_inputs; ++i) {
    s->io[i] = at;
    at += align_up(onnxc__model.inputs[i].size_bytes);
  }
  for (uint32_t i = 0; i < onnxc__model.num_outputs; ++i) {
    s->io[onnxc__model.num_inputs + i] = at;
    at += align_up(onnxc__model.outputs[i].size_bytes);
  }
  if (onnxc__model.weights_size > 0) {
    const unsigned char *w = ctx->weights ? ctx->weights : d->weights;
    if ((r = driver.MemcpyHtoD(s->weights, w, (size_t)onnxc__model.weights_size)) != 0) {
      st = cuda_fail(rt, "uploading the weights", r);
      goto done;
    }
  }
  if (d->host_calls) { /* host regions work on a pinned mirror holding the weights too */
    void *m = 0;
    if ((r = driver.MemAllocHost(&m, (size_t)s->total)) != 0) {
      st = cuda_fail(rt, "allocating pinned host memory", r);
      goto done;
    }
    s->mirror = (unsigned char *)m;
    if (onnxc__model.weights_size > 0)
      memcpy(s->mirror, ctx->weights ? ctx->weights : d->weights,
             (size_t)onnxc__model.weights_size);
  }
  if ((r = driver.StreamCreate(&s->stream, CU_STREAM_NON_BLOCKING)) != 0)
    st = cuda_fail(rt, "cuStreamCreate", r);
  else if ((r = driver.EventCreate(&s->done, CU_EVENT_DISABLE_TIMING)) != 0 ||
           (r = driver.EventCreate(&s->started, CU_EVENT_DISABLE_TIMING)) != 0)
    st = cuda_fail(rt, "cuEventCreate", r);
done:
  driver.CtxPopCurrent(0);
  return st;
}

void onnxc_cuda_destroy(onnxc_context *ctx) {
  cuda_state *s = (cuda_state *)ctx->device;
  if (!s)
    return;
  if (s->cu && driver.CtxPushCurrent(s->cu) == 0) {
    if (s->device_pending) /* an onnxc_run_device on the caller's stream may still run */
      driver.EventSynchronize(s->done);
    if (s->done)
      driver.EventDestroy(s->done);
    if (s->started)
      driver.EventDestroy(s->started);
    if (s->stream)
      driver.StreamSynchronize(s->stream);
    if (s->graph)
      driver.GraphExecDestroy(s->graph);
    if (s->stream)
      driver.StreamDestroy(s->stream);
    if (s->memory)
      driver.MemFree(s->memory);
    if (s->mirror)
      driver.MemFreeHost(s->mirror);
    if (s->module)
      driver.ModuleUnload(s->module);
    driver.CtxPopCurrent(0);
  }
  if (s->cu)
    driver.DevicePrimaryCtxRelease(s->device);
  while (s->host_calls) {
    host_call *next = s->host_calls->next;
    free(s->host_calls);
    s->host_calls = next;
  }
  free(s);
  ctx->device = 0;
}

onnxc_status onnxc_cuda_create(onnxc_context *ctx) {
  const onnxc_device_desc *d = onnxc__model.device;
  pthread_once(&driver_once, load_driver);
  if (driver_error) {
    if (d->run_cpu) { /* --target cpu,cuda: run on the CPU */
      ctx->on_cpu = 1;
      return ONNXC_OK;
    }
    return onnxc_set_create_error(ONNXC_ERROR_RUNTIME, no_driver_message);
  }
  uint64_t slots = (uint64_t)onnxc__model.num_inputs + onnxc__model.num_outputs;
  cuda_state *s = (cuda_state *)malloc(sizeof *s + d->num_kernels * sizeof(CUfunction) +
                                       slots * sizeof(CUdeviceptr));
  if (!s)
    return onnxc_set_create_error(ONNXC_ERROR_OUT_OF_MEMORY,
                                  "onnxc_create: out of memory allocating the CUDA state");
  memset(s, 0, sizeof *s);
  s->functions = (CUfunction *)(s + 1);
  s->io = (CUdeviceptr *)(s->functions + d->num_kernels);
  ctx->device = s;
  onnxc_status st = init_state(ctx, s);
  if (st != ONNXC_OK) {
    if (d->run_cpu) {
      onnxc_cuda_destroy(ctx);
      ctx->on_cpu = 1;
      onnxc_rt_clear_error(&ctx->rt);
      return ONNXC_OK;
    }
    /* onnxc_set_create_error keeps a pointer: the last such failure of the process (a GPU
     * that fails to set up is rarely raced by two threads) */
    static char failed[ONNXC_ERROR_CAPACITY];
    onnxc_msg m = onnxc_msg_begin(failed, sizeof failed);
    onnxc_msg_str(&m, "onnxc_create: ");
    onnxc_msg_str(&m, ctx->rt.error);
    onnxc_cuda_destroy(ctx);
    return onnxc_set_create_error(st, failed);
  }
  return ONNXC_OK;
}

/// The kernel every call of a CUDA-target library's onnxc__model_run makes: launches device
/// kernel params[0] with grid params[1..3], block params[4..6] and params[7] bytes of dynamic
/// shared memory on the tensors (device addresses) as its arguments, on the context's stream
/// (which is capturing the run's graph); params[8] is the number of tensors. params[0] < 0:
/// nothing to do (a copy whose source and destination the memory planner made the same).
int32_t onnxc_k_cuda_launch(onnxc_rt *rt, void *const *tensors, const int64_t *params) {
  if (params[0] < 0)
    return 0;
  void *args[ONNXC_CUDA_MAX_ARGS];
  const int64_t n = params[8];
  if (n < 0 || n > ONNXC_CUDA_MAX_ARGS)
    return onnxc_rt_fail(rt, ONNXC_STATUS_RUNTIME_ERROR, "CUDA: too many kernel arguments");
  for (int64_t i = 0; i < n; ++i)
    args[i] = (void *)&tensors[i];          /* cuLaunchKernel takes the address of each argument */
  onnxc_context *ctx = (onnxc_context *)rt; /* rt is the context's first member */
  cuda_state *s = (cuda_state *)ctx->device;
  CUresult r =
      driver.LaunchKernel(s->functions[params[0]], (unsigned)params[1], (unsigned)params[2],
                          (unsigned)params[3], (unsigned)params[4], (unsigned)params[5],
                          (unsigned)params[6], (unsigned)params[7], s->stream, args, 0);
  if (r != 0)
    return cuda_fail(rt, "launching a kernel", r);
  return 0;
}

/// The host node of a host region: runs its CPU kernel on the mirror.
static void run_host_call(void *data) {
  host_call *c = (host_call *)data;
  if (c->state->host_status != 0)
    return; /* an earlier host call failed in this run */
  int32_t st = c->fn(c->rt, (void *const *)c->tensors);
  if (st != 0)
    c->state->host_status = onnxc_rt_node_failed(c->rt, st, c->node);
}

/// A host region of an eager run (a model with control flow): its tensors copied to the mirror,
/// the stream synchronised, the kernel run on this thread, the tensors copied back. A kernel's
/// failure is recorded as a captured run's would be (host_status, reported at the end).
static int32_t run_host_now(onnxc_rt *rt, cuda_state *s, void *const *tensors, const int64_t *bytes,
                            int64_t n, int32_t (*fn)(onnxc_rt *, void *const *), const char *node) {
  void *mirror[ONNXC_CUDA_MAX_ARGS];
  if (n > ONNXC_CUDA_MAX_ARGS)
    return onnxc_rt_fail(rt, ONNXC_STATUS_RUNTIME_ERROR, "CUDA: too many host-call tensors");
  CUresult r;
  for (int64_t k = 0; k < n; ++k) {
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)tensors[k];
    mirror[k] = p >= s->memory && p < s->memory + s->total ? s->mirror + (p - s->memory) : 0;
    if (bytes[k] > 0 && mirror[k] &&
        (r = driver.MemcpyDtoHAsync(mirror[k], p, (size_t)bytes[k], s->stream)) != 0)
      return cuda_fail(rt, "copying a host region's tensor", r);
  }
  if ((r = driver.StreamSynchronize(s->stream)) != 0)
    return cuda_fail(rt, "running the model on the GPU", r);
  if (s->host_status == 0) {
    int32_t st = fn(rt, (void *const *)mirror);
    if (st != 0)
      s->host_status = onnxc_rt_node_failed(rt, st, node);
  }
  for (int64_t k = 0; k < n; ++k)
    if (bytes[k] > 0 && mirror[k] &&
        (r = driver.MemcpyHtoDAsync((CUdeviceptr)(uintptr_t)tensors[k], mirror[k], (size_t)bytes[k],
                                    s->stream)) != 0)
      return cuda_fail(rt, "copying a host region's tensor", r);
  return 0;
}

/// The value of `bytes` (1 or 8) at device address p, zero-extended: a condition, iteration or
/// trip count of the run's If / Loop / Scan (stream-ordered: after the kernels that computed it).
/// A failure is recorded (ctl_status) and reads as 0, which ends loops and takes else branches.
ONNXC_HIDDEN int64_t onnxc_rt_device_load(onnxc_rt *rt, const void *p, int32_t bytes) {
  cuda_state *s = (cuda_state *)((onnxc_context *)rt)->device;
  uint64_t v = 0;
  CUresult r = driver.MemcpyDtoHAsync(&v, (CUdeviceptr)(uintptr_t)p, (size_t)bytes, s->stream);
  if (r == 0)
    r = driver.StreamSynchronize(s->stream);
  if (r != 0) {
    if (s->ctl_status == 0)
      s->ctl_status = cuda_fail(rt, "reading a control-flow value back from the GPU", r);
    return 0;
  }
  return bytes == 1 ? (int64_t)(v & 0xff) : (int64_t)v;
}

/// Writes the int64 v at device address p (a Loop's iteration), stream-ordered, without waiting.
ONNXC_HIDDEN void onnxc_rt_device_store(onnxc_rt *rt, void *p, int64_t v) {
  cuda_state *s = (cuda_state *)((onnxc_context *)rt)->device;
  const uint64_t u = (uint64_t)v;
  CUdeviceptr d = (CUdeviceptr)(uintptr_t)p;
  CUresult r = driver.MemsetD32Async(d, (unsigned)u, 1, s->stream);
  if (r == 0)
    r = driver.MemsetD32Async(d + 4, (unsigned)(u >> 32), 1, s->stream);
  if (r != 0 && s->ctl_status == 0)
    s->ctl_status = cuda_fail(rt, "writing a loop's iteration on the GPU", r);
}

/// Called by a CUDA-target library's run (while it is captured) for a region that has no CUDA
/// kernel: copies its `n` tensors' `bytes` (0: not copied; weights are in the mirror already)
/// from the device to the pinned mirror, runs `fn` (the region's CPU kernel) there as a host
/// node, and copies them back. Returns 0 or a status after recording an error.
int32_t onnxc_cuda_host(onnxc_rt *rt, void *const *tensors, const int64_t *bytes, int64_t n,
                        int32_t (*fn)(onnxc_rt *, void *const *), const char *node) {
  onnxc_context *ctx = (onnxc_context *)rt;
  cuda_state *s = (cuda_state *)ctx->device;
  if (onnxc__model.device->control_flow) /* an eager run: the kernel runs here and now */
    return run_host_now(rt, s, tensors, bytes, n, fn, node);
  host_call *c = (host_call *)malloc(sizeof *c + (size_t)n * sizeof(void *));
  if (!c)
    return onnxc_rt_fail(rt, ONNXC_STATUS_OUT_OF_MEMORY, "CUDA: out of memory (host call)");
  c->state = s;
  c->rt = rt;
  c->fn = fn;
  c->node = node;
  c->tensors = (void **)(c + 1);
  c->next = s->host_calls;
  s->host_calls = c;
  for (int64_t k = 0; k < n; ++k) {
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)tensors[k];
    c->tensors[k] = p >= s->memory && p < s->memory + s->total ? s->mirror + (p - s->memory) : 0;
  }
  CUresult r;
  for (int64_t k = 0; k < n; ++k)
    if (bytes[k] > 0 && c->tensors[k] &&
        (r = driver.MemcpyDtoHAsync(c->tensors[k], (CUdeviceptr)(uintptr_t)tensors[k],
                                    (size_t)bytes[k], s->stream)) != 0)
      return cuda_fail(rt, "copying a host region's tensor", r);
  if ((r = driver.LaunchHostFunc(s->stream, run_host_call, c)) != 0)
    return cuda_fail(rt, "cuLaunchHostFunc", r);
  for (int64_t k = 0; k < n; ++k)
    if (bytes[k] > 0 && c->tensors[k] &&
        (r = driver.MemcpyHtoDAsync((CUdeviceptr)(uintptr_t)tensors[k], c->tensors[k],
                                    (size_t)bytes[k], s->stream)) != 0)
      return cuda_fail(rt, "copying a host region's tensor", r);
  return 0;
}

/// Captures the model's kernels as a graph on the context's stream (first run).
static onnxc_status capture(onnxc_context *ctx, cuda_state *s) {
  CUresult r = driver.StreamBeginCapture(s->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  if (r != 0)
    return cuda_fail(&ctx->rt, "cuStreamBeginCapture", r);
  /* kernel arguments are pointers to the tensor addresses: an array of addresses per call,
   * built by the generated code from these bases */
  int32_t st = onnxc__model_run(
      &ctx->rt, (unsigned char *)(uintptr_t)s->arena, (const unsigned char *)(uintptr_t)s->weights,
      (const void *const *)s->io, (void *const *)(s->io + onnxc__model.num_inputs));
  CUgraph graph = 0;
  r = driver.StreamEndCapture(s->stream, &graph);
  if (st != 0) {
    if (graph)
      driver.GraphDestroy(graph);
    return (onnxc_status)st;
  }
  if (r != 0)
    return cuda_fail(&ctx->rt, "cuStreamEndCapture", r);
  r = driver.GraphInstantiate(&s->graph, graph, 0);
  driver.GraphDestroy(graph);
  if (r != 0) {
    s->graph = 0;
    return cuda_fail(&ctx->rt, "cuGraphInstantiate", r);
  }
  return ONNXC_OK;
}

/// Enqueues the model's kernels after the inputs' copies on `on`: the captured graph (captured
/// on the first run), or, for a model with control flow, the run itself, eagerly, on the
/// context's stream (ordered after and before `on` by an event), reading its conditions back as
/// it goes. Resets the run's host and control-flow statuses; returns the launch's status.
static onnxc_status replay(onnxc_context *ctx, cuda_state *s, CUstream on) {
  onnxc_rt *rt = &ctx->rt;
  CUresult r;
  s->host_status = 0;
  s->ctl_status = 0;
  if (!onnxc__model.device->control_flow) {
    onnxc_status st = s->graph ? ONNXC_OK : capture(ctx, s);
    if (st == ONNXC_OK && (r = driver.GraphLaunch(s->graph, on)) != 0)
      st = cuda_fail(rt, "cuGraphLaunch", r);
    return st;
  }
  if (on != s->stream && ((r = driver.EventRecord(s->started, on)) != 0 ||
                          (r = driver.StreamWaitEvent(s->stream, s->started, 0)) != 0))
    return cuda_fail(rt, "ordering the run after its stream", r);
  onnxc_status st = (onnxc_status)onnxc__model_run(
      rt, (unsigned char *)(uintptr_t)s->arena, (const unsigned char *)(uintptr_t)s->weights,
      (const void *const *)s->io, (void *const *)(s->io + onnxc__model.num_inputs));
  if (st == ONNXC_OK && s->ctl_status != 0)
    st = s->ctl_status;
  if (on != s->stream &&
      ((r = driver.EventRecord(s->started, s->stream)) != 0 ||
       (r = driver.StreamWaitEvent(on, s->started, 0)) != 0) &&
      st == ONNXC_OK)
    st = cuda_fail(rt, "ordering the stream after the run", r);
  return st;
}

int32_t onnxc_cuda_run(onnxc_context *ctx) {
  const onnxc_device_desc *d = onnxc__model.device;
  if (ctx->on_cpu)
    return d->run_cpu(&ctx->rt, ctx->arena, ctx->weights, ctx->input_ptrs,
                      (void *const *)ctx->output_ptrs);
  cuda_state *s = (cuda_state *)ctx->device;
  onnxc_rt *rt = &ctx->rt;
  CUresult r = driver.CtxPushCurrent(s->cu);
  if (r != 0)
    return cuda_fail(rt, "cuCtxPushCurrent", r);
  onnxc_status st = ONNXC_OK;
  /* after an onnxc_run_device on another stream: its graph may still read the buffers */
  if (s->device_pending && (r = driver.StreamWaitEvent(s->stream, s->done, 0)) != 0)
    st = cuda_fail(rt, "cuStreamWaitEvent", r);
  for (uint32_t i = 0; i < onnxc__model.num_inputs && st == ONNXC_OK; ++i)
    if (onnxc__model.inputs[i].size_bytes > 0 &&
        (r = driver.MemcpyHtoDAsync(s->io[i], ctx->input_ptrs[i],
                                    (size_t)onnxc__model.inputs[i].size_bytes, s->stream)) != 0)
      st = cuda_fail(rt, "copying an input to the GPU", r);
  if (st == ONNXC_OK)
    st = replay(ctx, s, s->stream);
  for (uint32_t i = 0; i < onnxc__model.num_outputs && st == ONNXC_OK; ++i)
    if (onnxc__model.outputs[i].size_bytes > 0 &&
        (r = driver.MemcpyDtoHAsync(ctx->output_ptrs[i], s->io[onnxc__model.num_inputs + i],
                                    (size_t)onnxc__model.outputs[i].size_bytes, s->stream)) != 0)
      st = cuda_fail(rt, "copying an output from the GPU", r);
  if ((r = driver.StreamSynchronize(s->stream)) != 0 && st == ONNXC_OK)
    st = cuda_fail(rt, "running the model on the GPU", r);
  else if (r == 0)
    s->device_pending = 0; /* the stream waited for it */
  if (st == ONNXC_OK && s->host_status != 0)
    st = s->host_status; /* the host call recorded its message */
  driver.CtxPopCurrent(0);
  return st;
}

ONNXC_API onnxc_status onnxc_run_device(onnxc_context *ctx, void *stream, const void *const *inputs,
                                        void *const *outputs) {
  if (!ctx)
    return ONNXC_ERROR_INVALID_ARGUMENT;
  onnxc_rt *rt = &ctx->rt;
  onnxc_rt_clear_error(rt);
  if (!onnxc__model.device || ctx->on_cpu)
    return onnxc_rt_set_error(rt, ONNXC_ERROR_UNSUPPORTED,
                              onnxc__model.device
                                  ? "onnxc_run_device: this context runs on the CPU (no usable "
                                    "GPU at onnxc_create); use onnxc_run with host buffers"
                                  : "onnxc_run_device: this library has no GPU code (compile "
                                    "with --target cuda); use onnxc_run");
  if ((onnxc__model.num_inputs > 0 && !inputs) || (onnxc__model.num_outputs > 0 && !outputs))
    return onnxc_rt_set_error(rt, ONNXC_ERROR_INVALID_ARGUMENT,
                              "onnxc_run_device: inputs or outputs is NULL");
  for (uint32_t i = 0; i < onnxc__model.num_inputs + onnxc__model.num_outputs; ++i) {
    const int out = i >= onnxc__model.num_inputs;
    const uint32_t k = out ? i - onnxc__model.num_inputs : i;
    const onnxc_tensor_desc *d = out ? &onnxc__model.outputs[k] : &onnxc__model.inputs[k];
    if (d->size_bytes > 0 && !(out ? (const void *)outputs[k] : inputs[k])) {
      char buf[ONNXC_ERROR_CAPACITY];
      onnxc_msg m = onnxc_msg_begin(buf, sizeof buf);
      onnxc_msg_str(&m, out ? "onnxc_run_device: output " : "onnxc_run_device: input ");
      onnxc_msg_i64(&m, k);
      onnxc_msg_str(&m, " ('");
      onnxc_msg_str(&m, d->name);
      onnxc_msg_str(&m, "'): device pointer is NULL");
      return onnxc_rt_set_error(rt, ONNXC_ERROR_INVALID_ARGUMENT, buf);
    }
  }
  cuda_state *s = (cuda_state *)ctx->device;
  CUstream on = (CUstream)stream; /* NULL: the default stream */
  CUresult r = driver.CtxPushCurrent(s->cu);
  if (r != 0)
    return cuda_fail(rt, "cuCtxPushCurrent", r);
  onnxc_status st = ONNXC_OK;
  /* runs on one context are ordered: this one waits (on the GPU) for an earlier one on another
   * stream, since both use the context's buffers */
  if (s->device_pending && (r = driver.StreamWaitEvent(on, s->done, 0)) != 0)
    st = cuda_fail(rt, "cuStreamWaitEvent", r);
  for (uint32_t i = 0; i < onnxc__model.num_inputs && st == ONNXC_OK; ++i)
    if (onnxc__model.inputs[i].size_bytes > 0 &&
        (r = driver.MemcpyDtoDAsync(s->io[i], (CUdeviceptr)(uintptr_t)inputs[i],
                                    (size_t)onnxc__model.inputs[i].size_bytes, on)) != 0)
      st = cuda_fail(rt, "copying an input on the GPU", r);
  if (st == ONNXC_OK)
    st = replay(ctx, s, on);
  for (uint32_t i = 0; i < onnxc__model.num_outputs && st == ONNXC_OK; ++i)
    if (onnxc__model.outputs[i].size_bytes > 0 &&
        (r = driver.MemcpyDtoDAsync((CUdeviceptr)(uintptr_t)outputs[i],
                                    s->io[onnxc__model.num_inputs + i],
                                    (size_t)onnxc__model.outputs[i].size_bytes, on)) != 0)
      st = cuda_fail(rt, "copying an output on the GPU", r);
  if (st == ONNXC_OK) {
    if ((r = driver.EventRecord(s->done, on)) != 0)
      st = cuda_fail(rt, "cuEventRecord", r);
    else
      s->device_pending = 1;
  }
  /* a host region reports its failure through host_status: wait for it */
  if (st == ONNXC_OK && onnxc__model.device->host_calls) {
    if ((r = driver.StreamSynchronize(on)) != 0)
      st = cuda_fail(rt, "running the model on the GPU", r);
    else if (s->host_status != 0)
      st = s->host_status;
  }
  driver.CtxPopCurrent(0);
  return st;
}

ONNXC_API const char *onnxc_backend(const onnxc_context *ctx) {
  if (!ctx)
    return "";
  return ctx->device && !ctx->on_cpu ? "cuda" : "cpu";
}
