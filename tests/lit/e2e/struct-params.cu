// Kernels that take a struct by value. A struct of scalars (a time step, a
// length) is read as any scalar parameter and fuses; the runtime takes it
// for no buffer. A struct that holds the buffers' addresses fuses through
// a copy of the kernel that takes them as parameters (e2e/field-params.cu
// has the details); a pointer loaded from a buffer keeps the general
// remark.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse %s -o /dev/null 2>%t.remarks
// RUN: FileCheck %s < %t.remarks
// RUN: not grep "kernel 'kick(Fields, float)' cannot be fused" %t.remarks
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o - \
// RUN:   | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S %s -o %t.ptx 2>/dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

struct Step { float dt, nu; int n; };
__global__ __attribute__((kfuse_map)) void advance(const float *x, float *t, Step p)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < p.n) t[i] = x[i] * p.dt; }
__global__ __attribute__((kfuse_map)) void diffuse(const float *t, float *y, Step p)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < p.n) y[i] = t[i] + p.nu; }
void scalars(const float *x, float *t, float *y, Step p) {
  advance<<<(p.n + 255) / 256, 256>>>(x, t, p);
  diffuse<<<(p.n + 255) / 256, 256>>>(t, y, p);
}
// CHECK-DAG: remark: fused launches 0..1 (advance, diffuse) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers
// The struct is the launch's own copy (a byval pointer in the IR), which
// each stage of the fused kernel receives as it would alone: no buffer, so
// no footprint and no `disjoint` line for it.
// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_0_1 2
// MANIFEST: footprint 0.0 r
// MANIFEST-NOT: {{footprint|disjoint}} {{[01]}}.2
// MANIFEST: end
// The fused kernel takes each struct by value too, as the kernels do: the
// runtime passes the launches' bytes.
// PTX-LABEL: .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// PTX-NEXT: .param .u64 .ptr .align 1 {{.*}}_param_0,
// PTX-NEXT: .param .u64 .ptr .align 1 {{.*}}_param_1,
// PTX-NEXT: .param .align 4 .b8 {{.*}}_param_2[12],
// PTX-NEXT: .param .u64 .ptr .align 1 {{.*}}_param_3,
// PTX-NEXT: .param .u64 .ptr .align 1 {{.*}}_param_4,
// PTX-NEXT: .param .align 4 .b8 {{.*}}_param_5[12],

struct Fields { float *h, *u; int n; };
__global__ __attribute__((kfuse_map)) void kick(Fields f, float dt)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < f.n) f.u[i] += dt * f.h[i]; }
__global__ __attribute__((kfuse_map)) void gather(float *const *rows, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = rows[0][i]; }
void pointers(Fields f, float *const *rows, float *o, float dt) {
  kick<<<(f.n + 255) / 256, 256>>>(f, dt);
  gather<<<(f.n + 255) / 256, 256>>>(rows, o, f.n);
}
// CHECK-DAG: remark: kernel 'gather(float* const*, float*, int)' cannot be fused: has an indirect access (address not derived from a pointer parameter)

// A lambda's captured pointers are fields of its closure, which the kernel
// takes by value, and an unnamed struct's are its fields: t, which the
// lambda captures and the struct's initialiser names, is one buffer, written
// by both launches (nothing is carried).
template <class F> __global__ __attribute__((kfuse_map)) void for_each(int n, F f)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) f(i); }
template <class T> __global__ __attribute__((kfuse_map)) void zero(T v)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < v.n) v.p[i] = 0.0f; }
void lambdas(const float *x, float *t, float a, int n) {
  for_each<<<(n + 255) / 256, 256>>>(n, [=] __device__(int i) { t[i] = a * x[i]; });
  struct { float *p; int n; } v{t, n};
  zero<<<(n + 255) / 256, 256>>>(v);
}
// CHECK-DAG: remark: fused launches 0..1 (for_each<lambdas(float const*, float*, float, int)::'lambda'(int)>, zero<lambdas(float const*, float*, float, int)::$_0>) of sequence {{[0-9]+}} into __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1: no carried buffer
// MANIFEST: kernel 0 _Z8for_eachIZ7lambdasPKfPffiEUliE_EviT_ 2
// MANIFEST: equal 0.2 1.1

// A row length in a struct of scalars, in a 2-D index and its bound: the
// index polynomial names the field (s<p>.<byte>.<bytes> in the manifest, read
// from the launch's argument bytes), and the two launches fuse in registers,
// with the row guard and footprints over the field.
struct Grid2 { int nx, ny; float dt; };
__global__ __attribute__((kfuse_map)) void rows2d(Grid2 g, const float *u, float *v)
{ int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (i < g.nx && j < g.ny) v[j * g.nx + i] = g.dt * u[j * g.nx + i]; }
__global__ __attribute__((kfuse_map)) void rows2d_b(Grid2 g, const float *v, float *w)
{ int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (i < g.nx && j < g.ny) w[j * g.nx + i] = v[j * g.nx + i] + 1.0f; }
void fields2d(Grid2 g, const float *u, float *v, float *w) {
  dim3 grid((g.nx + 127) / 128, g.ny);
  rows2d<<<grid, 128>>>(g, u, v);
  rows2d_b<<<grid, 128>>>(g, v, w);
}
// CHECK-DAG: remark: fused launches 0..1 (rows2d, rows2d_b) of sequence {{[0-9]+}} into __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1: v in registers
// MANIFEST: kernel 0 _Z6rows2d5Grid2PKfPf 3
// MANIFEST: le 0 4+4*(max(min(bx*gx,s0.0.4),1)-1) max(4*s0.0.4,-(4*s0.0.4))
// MANIFEST: footprint 0.1 r min(0,4*s0.0.4*(gy-1)) 4*(max(min(bx*gx,s0.0.4),1)-1)+max(0,4*s0.0.4*(gy-1))+4

// A field the kernel changes (its address handed to a helper) is no longer
// the launch's value: the index cannot name it, and the remark says why.
__device__ __noinline__ void widen(Grid2 *g) { g->nx += 1; }
__global__ __attribute__((kfuse_map)) void widened(Grid2 g, const float *u, float *v)
{ int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  widen(&g);
  if (i < g.nx && j < g.ny) v[j * g.nx + i] = u[i]; }
void changed(Grid2 g, const float *u, float *v, float *w) {
  widened<<<dim3(4, 4), 128>>>(g, u, v);
  rows2d_b<<<dim3(4, 4), 128>>>(g, v, w);
}
// CHECK-DAG: remark: kernel 'widened(Grid2, float const*, float*)' cannot be fused: has a non-affine or unknown index (store through parameter 3{{.*}}); the index reads the integer at byte 0 of by-value parameter 1{{.*}}, a Grid2, which the kernel changes: an index may read parameters and fields of by-value structs that the kernel does not change; compute the changed value in a local instead
