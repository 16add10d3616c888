/* arena_size LIB.so: loads a model library compiled by onnxc and prints what it reports through
 * the C ABI (runtime_stub/onnxc_runtime.h): `onnxc_arena_size()` on the first line, the
 * "arena_size" of `onnxc_signature_json()` on the second. Exits 1 if the library cannot be loaded,
 * lacks a symbol or implements another ABI version. Used by tests/models/model_checks.py. */
#include "runtime_stub/onnxc_runtime.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef uint32_t (*abi_version_fn)(void);
typedef uint64_t (*arena_size_fn)(void);
typedef const char *(*signature_fn)(void);

static void *symbol(void *lib, const char *name) {
  void *p = dlsym(lib, name);
  if (!p)
    fprintf(stderr, "arena_size: the library does not export %s\n", name);
  return p;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: arena_size LIB.so\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "arena_size: %s\n", dlerror());
    return 1;
  }
  abi_version_fn abi_version = (abi_version_fn)symbol(lib, "onnxc_abi_version");
  arena_size_fn arena_size = (arena_size_fn)symbol(lib, "onnxc_arena_size");
  signature_fn signature = (signature_fn)symbol(lib, "onnxc_signature_json");
  if (!abi_version || !arena_size || !signature)
    return 1;
  if (abi_version() != ONNXC_ABI_VERSION) {
    fprintf(stderr, "arena_size: ABI version %u, expected %d\n", abi_version(), ONNXC_ABI_VERSION);
    return 1;
  }
  const char *json = signature();
  const char *field = json ? strstr(json, "\"arena_size\":") : NULL;
  if (!field) {
    fprintf(stderr, "arena_size: no \"arena_size\" in the signature JSON\n");
    return 1;
  }
  unsigned long long json_size = 0;
  if (sscanf(field + strlen("\"arena_size\":"), "%llu", &json_size) != 1) {
    fprintf(stderr, "arena_size: bad \"arena_size\" in the signature JSON\n");
    return 1;
  }
  printf("%" PRIu64 "\n%llu\n", arena_size(), json_size);
  dlclose(lib);
  return 0;
}
