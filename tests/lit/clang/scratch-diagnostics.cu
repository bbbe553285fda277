// kfuse_scratch on anything but a host pointer variable or field is an
// error, in both compilations.
// RUN: %clang_cuda --cuda-device-only -fsyntax-only -fplugin=%kfuse_clang_plugin -Xclang -verify %s
// RUN: %clang_cuda --cuda-host-only -fsyntax-only -fplugin=%kfuse_clang_plugin -Xclang -verify %s

// Valid: locals, globals, statics, fields, any spelling, a dependent type.
float *global_t __attribute__((kfuse_scratch));
static float *static_t __attribute__((kfuse_scratch));
struct Ctx {
  float *t __attribute__((kfuse_scratch));
  [[kfuse_scratch]] double *u;
  [[kfuse::scratch]] const int *v;
};
template <typename T> struct Buf { T p __attribute__((kfuse_scratch)); };
Buf<float *> instantiated;
void locals(float *in)
{
  float *t __attribute__((kfuse_scratch)) = in;
  [[kfuse_scratch]] float *u = in;
  (void)t;
  (void)u;
}

// Not a pointer.
int not_pointer __attribute__((kfuse_scratch)); // expected-error {{'kfuse_scratch' attribute only applies to pointers to device memory; 'not_pointer' has type 'int'}}
struct Bad {
  float arr[4] __attribute__((kfuse_scratch)); // expected-error {{'arr' has type 'float[4]'}}
  float *&ref __attribute__((kfuse_scratch)); // expected-error {{'ref' has type 'float *&'}}
};
void auto_local(float *in)
{
  auto t __attribute__((kfuse_scratch)) = in; // expected-error {{'kfuse_scratch' attribute needs the declared type of 't': write the pointer type instead of 'auto'}}
}

// Not on a parameter, a function or a type.
void param(float *p __attribute__((kfuse_scratch))); // expected-error {{'kfuse_scratch' attribute cannot be applied to a parameter: the promise belongs to the caller's buffer}}
__attribute__((kfuse_scratch)) float *fn(); // expected-error {{'kfuse_scratch' attribute only applies to pointer variables and fields}}
struct __attribute__((kfuse_scratch)) Rec {}; // expected-error {{'kfuse_scratch' attribute only applies to pointer variables and fields}}

// Not on device variables.
__device__ float *dev_buf __attribute__((kfuse_scratch)); // expected-error {{'kfuse_scratch' attribute only applies to host variables and fields; 'dev_buf' is a device variable}}

// No arguments.
float *args_t __attribute__((kfuse_scratch(1))); // expected-error {{'kfuse_scratch' attribute takes no arguments}}
