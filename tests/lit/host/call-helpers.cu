// Calls between two launches that only compute a value: the scalar
// conversions of cuda_fp16.h and cuda_bf16.h (whose host versions write
// through pointers to their own locals and their caller's), a struct
// returned through sret, an out-parameter on the stack, temporaries taken
// by reference (std::min's operands), and C library functions that write
// errno and nothing else. The host pass looks into them and hands both
// launches to the runtime. A call that writes memory
// off the stack, or a library function the compilation forbids as a
// builtin, still ends the run, and the remark names it. (The calls are in
// the launches' arguments: the Clang plugin ends a device sequence at a
// call statement between launches.)
// REQUIRES: cuda
// RUN: %clang_cuda --cuda-host-only -O2 -fplugin=%kfuse_clang_plugin -fpass-plugin=%kfuse_llvm_plugin \
// RUN:   -Rpass=kfuse -Rpass-missed=kfuse -S -emit-llvm %s -o %t.ll 2> %t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: FileCheck %s < %t.ll
// RUN: %clang_cuda --cuda-host-only -O2 -fplugin=%kfuse_clang_plugin -fpass-plugin=%kfuse_llvm_plugin \
// RUN:   -fno-builtin-expf -Rpass-missed=kfuse -S -emit-llvm %s -o /dev/null 2>&1 \
// RUN:   | FileCheck --check-prefix=NOBUILTIN %s

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>

__global__ __attribute__((kfuse_map)) void hs(const __half *x, __half *y, __half a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = __hmul(x[i], a); }
__global__ __attribute__((kfuse_map)) void bs(const __nv_bfloat16 *x, __nv_bfloat16 *y, __nv_bfloat16 a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = __hmul(x[i], a); }
__global__ __attribute__((kfuse_map)) void fs(const float *x, float *y, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i]; }

// REMARK: call-helpers.cu:[[#@LINE+2]]:{{[0-9]+}}: remark: handed 2 launches (hs, hs) to the runtime
void half_scalar(const __half *x, __half *t, __half *y, int n, float a) {
  hs<<<n / 256, 256>>>(x, t, __float2half(a), n);
  hs<<<n / 256, 256>>>(t, y, __float2half(2 * a), n);
}
// REMARK: call-helpers.cu:[[#@LINE+2]]:{{[0-9]+}}: remark: handed 2 launches (bs, bs) to the runtime
void bf16_scalar(const __nv_bfloat16 *x, __nv_bfloat16 *t, __nv_bfloat16 *y, int n, float a) {
  bs<<<n / 256, 256>>>(x, t, __float2bfloat16(a), n);
  bs<<<n / 256, 256>>>(t, y, __float2bfloat16(a + 1), n);
}
// REMARK: call-helpers.cu:[[#@LINE+2]]:{{[0-9]+}}: remark: handed 2 launches (fs, fs) to the runtime
void math_scalar(const float *x, float *t, float *y, int n, float a) {
  fs<<<n / 256, 256>>>(x, t, a, n);
  fs<<<n / 256, 256>>>(t, y, expf(a) + powf(a, 3.0f), n);
}
// NOBUILTIN: call-helpers.cu:[[#@LINE-2]]:{{[0-9]+}}: remark: launch of fs not handed to the runtime with the launch of fs: a call to expf lies between them

// A struct of more than 16 bytes comes back through a slot of the caller's
// (clang starts that slot's lifetime between the launch's test and branch).
struct Coeffs { float a, b, c, d, e; };
__attribute__((noinline)) Coeffs coeffs(float a) { return Coeffs{a, 2 * a, 3 * a, 4 * a, 5 * a}; }
// REMARK: call-helpers.cu:[[#@LINE+2]]:{{[0-9]+}}: remark: handed 2 launches (fs, fs) to the runtime
void sret_scalar(const float *x, float *t, float *y, int n, float a) {
  fs<<<n / 256, 256>>>(x, t, a, n);
  fs<<<n / 256, 256>>>(t, y, coeffs(a).e, n);
}
// A state on the stack that the callee advances (a generator's state, an
// out-parameter): it writes the caller's local.
__attribute__((noinline)) float next_scale(float *s) { *s = *s * 0.5f + 1.0f; return *s; }
// REMARK: call-helpers.cu:[[#@LINE+3]]:{{[0-9]+}}: remark: handed 2 launches (fs, fs) to the runtime
void out_param(const float *x, float *t, float *y, int n, float a) {
  float s = a;
  fs<<<n / 256, 256>>>(x, t, s, n);
  fs<<<n / 256, 256>>>(t, y, next_scale(&s), n);
}

// std::min takes its operands by reference: the grid's temporary is stored
// and handed to it, and it only reads it.
template <class T> const T &smaller(const T &a, const T &b) { return b < a ? b : a; }
// REMARK: call-helpers.cu:[[#@LINE+2]]:{{[0-9]+}}: remark: handed 2 launches (fs, fs) to the runtime
void min_grid(const float *x, float *t, float *y, int n, int cap) {
  fs<<<smaller((n + 255) / 256, cap), 256>>>(x, t, 2.0f, n);
  fs<<<smaller((n + 255) / 256, cap), 256>>>(t, y, 3.0f, n);
}

// Memory off the stack: a global, and a pointer the caller was given.
float last_scale;
__attribute__((noinline)) float remember(float a) { last_scale = a; return a; }
__attribute__((noinline)) float halved(float *s) { *s *= 0.5f; return *s; }
void global_write(const float *x, float *t, float *y, int n, float a) {
  fs<<<n / 256, 256>>>(x, t, a, n);
  fs<<<n / 256, 256>>>(t, y, remember(a), n);
}
// REMARK: call-helpers.cu:[[#@LINE-2]]:{{[0-9]+}}: remark: launch of fs not handed to the runtime with the launch of fs: a call to remember lies between them
void given_pointer(const float *x, float *t, float *y, int n, float *s) {
  fs<<<n / 256, 256>>>(x, t, *s, n);
  fs<<<n / 256, 256>>>(t, y, halved(s), n);
}
// REMARK: call-helpers.cu:[[#@LINE-2]]:{{[0-9]+}}: remark: launch of fs not handed to the runtime with the launch of fs: a call to halved lies between them
// A local whose address the callee keeps in a global is not the caller's
// own any more.
float *kept;
__attribute__((noinline)) float keep(float *s) { kept = s; return *s; }
void escaped(const float *x, float *t, float *y, int n, float a) {
  float s = a;
  fs<<<n / 256, 256>>>(x, t, s, n);
  fs<<<n / 256, 256>>>(t, y, keep(&s), n);
}
// REMARK: call-helpers.cu:[[#@LINE-2]]:{{[0-9]+}}: remark: launch of fs not handed to the runtime with the launch of fs: a call to keep lies between them

// CHECK-LABEL: define {{.*}} @_Z11half_scalar
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z11bf16_scalar
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z11math_scalar
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z11sret_scalar
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z9out_param
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z8min_grid
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z12global_write
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z13given_pointer
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z7escaped
// CHECK-NOT: call void @kf_rt_launch_seq(
