// kfuse_impl: a map kernel that implements a named function with a number
// of threads per instance; misplaced or malformed, an error in both
// compilations.
// RUN: %clang_cuda --cuda-device-only -fsyntax-only -fplugin=%kfuse_clang_plugin -Xclang -verify %s
// RUN: %clang_cuda --cuda-host-only -fsyntax-only -fplugin=%kfuse_clang_plugin -Xclang -verify %s

// Valid: any spelling, an integer constant expression, with or without
// kfuse_map, on a declaration and again on its definition.
constexpr int Nine = 9;
__attribute__((kfuse_impl("mmul33", 1))) __global__ void mmul33_t1(const float *a, float *c, int n) {}
__global__ __attribute__((kfuse_impl("mmul33", Nine))) void mmul33_t9(const float *a, float *c, int m) {}
[[kfuse_impl("mmul33", 3)]] __global__ void mmul33_t3(const float *a, float *c, int m) {}
[[kfuse_impl("ns::f.v2", 2 + 3)]] __global__ __attribute__((kfuse_map)) void five(float *p, int m) {}
[[kfuse::impl("f", 1)]] __global__ void scoped(float *p) {} // expected-warning {{unknown attribute}}
__global__ __attribute__((kfuse_impl("g", 4))) void redecl(float *p, int m);
__global__ __attribute__((kfuse_impl("g", 4))) void redecl(float *p, int m) {}

// Only on __global__ functions.
__attribute__((kfuse_impl("f", 1))) int var; // expected-error {{'kfuse_impl' attribute only applies to __global__ functions}}
__attribute__((kfuse_impl("f", 1))) void host_fn(float *p) {} // expected-error {{'kfuse_impl' attribute only applies to __global__ functions; 'host_fn' is a host function}}
__device__ __attribute__((kfuse_impl("f", 1))) void dev_fn(float *p) {} // expected-error {{'kfuse_impl' attribute only applies to __global__ functions; 'dev_fn' is a __device__ function}}

// Two arguments: a string literal naming the function, then 1..1024.
__global__ __attribute__((kfuse_impl)) void none(float *p) {} // expected-error {{'kfuse_impl' attribute takes two arguments: the function's name, a string literal, and the kernel's threads per instance, an integer constant: kfuse_impl("mmul33", 9)}}
__global__ __attribute__((kfuse_impl("f"))) void one(float *p) {} // expected-error {{takes two arguments}}
__global__ __attribute__((kfuse_impl("f", 1, 2))) void three(float *p) {} // expected-error {{takes two arguments}}
__global__ __attribute__((kfuse_impl(f, 1))) void ident(float *p) {} // expected-error {{first argument must be a string literal naming the function the kernel implements}}
__global__ __attribute__((kfuse_impl(1, 1))) void number(float *p) {} // expected-error {{first argument must be a string literal}}
__global__ __attribute__((kfuse_impl(u8"f", 1))) void utf8(float *p) {} // expected-error {{first argument must be a string literal}}
__global__ __attribute__((kfuse_impl("", 1))) void empty(float *p) {} // expected-error {{function name must be letters, digits, '_', ':' or '.', and not empty}}
__global__ __attribute__((kfuse_impl("a b", 1))) void space(float *p) {} // expected-error {{function name must be letters}}
__global__ __attribute__((kfuse_impl("f", 0))) void zero(float *p) {} // expected-error {{threads per instance must be an integer constant from 1 to 1024}}
__global__ __attribute__((kfuse_impl("f", 1025))) void big(float *p) {} // expected-error {{from 1 to 1024}}
__global__ __attribute__((kfuse_impl("f", -1))) void negative(float *p) {} // expected-error {{from 1 to 1024}}
__global__ __attribute__((kfuse_impl("f", 2.5))) void real(float *p) {} // expected-error {{from 1 to 1024}}
int runtime_value();
__global__ __attribute__((kfuse_impl("f", runtime_value()))) void nonconst(float *p) {} // expected-error {{from 1 to 1024}}
template <int T> __global__ __attribute__((kfuse_impl("f", T))) void dependent(float *p) {} // expected-error {{an integer constant that does not depend on a template parameter}}

// A redeclaration may not name another function or count.
__global__ __attribute__((kfuse_impl("h", 1))) void twice(float *p);
__global__ __attribute__((kfuse_impl("h", 2))) void twice(float *p) {} // expected-error {{differs from the one an earlier declaration of this kernel gives}}
