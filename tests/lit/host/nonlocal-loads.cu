// Plain loads of host memory between launches (buffer pointers kept in an
// array, a member, a global) do not break a run: the rewrite reads them before
// the kernels run, which the original program could not tell apart without
// synchronising.
// REQUIRES: cuda
// RUN: %clang_cuda --cuda-host-only -O2 -fpass-plugin=%kfuse_llvm_plugin \
// RUN:   -Rpass=kfuse -Rpass-missed=kfuse -S -emit-llvm %s -o %t.ll 2> %t.remarks
// RUN: FileCheck %s < %t.remarks
#include <cuda_runtime.h>

__global__ __attribute__((annotate("kfuse_map"))) void scale(const float *x, float *t, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = a * x[i]; }
__global__ __attribute__((annotate("kfuse_map"))) void add(const float *t, const float *y, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = t[i] + y[i]; }

struct Bufs { float *x, *y; float *t[2]; };
float *g_out;

// CHECK: remark: handed 2 launches (scale, add) to the runtime
void from_array(float *const *t, const float *x, const float *y, int n) {
  scale<<<(n + 255) / 256, 256>>>(x, t[0], 2.0f, n);
  add<<<(n + 255) / 256, 256>>>(t[0], y, t[1], n);
}

// CHECK: remark: handed 2 launches (scale, add) to the runtime
void from_struct_and_global(const Bufs &b, int n) {
  scale<<<(n + 255) / 256, 256>>>(b.x, b.t[0], 2.0f, n);
  add<<<(n + 255) / 256, 256>>>(b.t[0], b.y, g_out, n);
}


// A lambda that captures its launch shapes by reference copies each dim3
// from the capture for every launch (a memcpy from non-local memory into a
// local): a read, like the loads above.
struct Shape { dim3 grid, block; };
// CHECK: remark: handed 2 launches (scale, add) to the runtime
void from_capture(const float *x, float *t, const float *y, float *o, int n) {
  dim3 block(256), grid((n + 255) / 256);
  auto step = [&] {
    scale<<<grid, block>>>(x, t, 2.0f, n);
    add<<<grid, block>>>(t, y, o, n);
  };
  step();
}
// CHECK: remark: handed 2 launches (scale, add) to the runtime
void from_struct_shape(const Shape &s, const float *x, float *t, const float *y, float *o, int n) {
  scale<<<s.grid, s.block>>>(x, t, 2.0f, n);
  add<<<s.grid, s.block>>>(t, y, o, n);
}
