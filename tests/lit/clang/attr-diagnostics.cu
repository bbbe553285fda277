// Misplaced kfuse_map attributes are errors, in both compilations.
// RUN: %clang_cuda --cuda-device-only -fsyntax-only -fplugin=%kfuse_clang_plugin -Xclang -verify %s
// RUN: %clang_cuda --cuda-host-only -fsyntax-only -fplugin=%kfuse_clang_plugin -Xclang -verify %s

// Valid: any order, any spelling, on a declaration or a definition.
__attribute__((kfuse_map)) __global__ void before(float *p) {}
__global__ __attribute__((kfuse_map)) void after(float *p) {}
[[kfuse_map]] __global__ void cxx11(float *p) {}
[[kfuse::map]] __global__ void namespaced(float *p) {}
__global__ void redecl(float *p);
__global__ __attribute__((kfuse_map)) void redecl(float *p) {}
__global__ __attribute__((kfuse_map)) void redecl(float *p);
template <typename T> __global__ __attribute__((kfuse_map)) void tmpl(T *p) {}

// Not on a variable, a type or a non-__global__ function.
__attribute__((kfuse_map)) int var; // expected-error {{'kfuse_map' attribute only applies to __global__ functions}}
struct __attribute__((kfuse_map)) Rec {}; // expected-error {{'kfuse_map' attribute only applies to __global__ functions}}
__attribute__((kfuse_map)) void host_fn(float *p) {} // expected-error {{'kfuse_map' attribute only applies to __global__ functions; 'host_fn' is a host function}}
__device__ __attribute__((kfuse_map)) void dev_fn(float *p) {} // expected-error {{'dev_fn' is a __device__ function}}
__host__ __device__ __attribute__((kfuse_map)) void hd_fn(float *p) {} // expected-error {{'hd_fn' is a __host__ __device__ function}}
template <typename T> __attribute__((kfuse_map)) void host_tmpl(T *p) {} // expected-error {{'host_tmpl' is a host function}}
struct S {
  __attribute__((kfuse_map)) void method(); // expected-error {{'method' is a host function}}
};

// No arguments.
__global__ __attribute__((kfuse_map(1))) void gnu_args(float *p) {} // expected-error {{'kfuse_map' attribute takes no arguments}}
[[kfuse_map("x")]] __global__ void cxx11_args(float *p) {} // expected-error {{'kfuse_map' attribute takes no arguments}}

// Clang rejects a non-void kernel and drops __global__; kfuse_map then sits
// on a plain host function. Two errors, no crash.
__global__ __attribute__((kfuse_map)) int non_void(float *p) { return 0; } // expected-error {{must have void return type}} expected-error {{'non_void' is a host function}}
