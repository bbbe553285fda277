// Horizontal fusion: consecutive launches that share no buffer they write
// fuse into one launch (the group saves launches, not traffic), and the host
// pass hands the run to the runtime, whose guards check at run time that
// the buffers do not overlap and that the launch shapes and stream agree.
//  - Launches of the same grid and block: each thread runs both bodies.
//  - Launches of different grids (the same block): the fused kernel runs
//    each launch in blocks of its own along x (`shape split`), grid-stride
//    loops first; a stage sees its own blockIdx.x and gridDim.x, passed as
//    each launch's grid.x.
//  - A neighbour of another grid that reads what the group writes stays
//    apart, with a remark naming the configuration and the buffer.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=MANIFEST
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -c -Rpass=kfuse %s -o %t.o 2>%t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host

__global__ __attribute__((kfuse_map)) void scale(const float *x, float *t, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = a * x[i]; }
__global__ __attribute__((kfuse_map)) void shift(const float *y, float *u, float b, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) u[i] = y[i] + b; }
__global__ __attribute__((kfuse_map)) void square(const double *z, double *w, int m)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < m) w[i] = z[i] * z[i]; }
// A grid-stride loop: its stride reads gridDim.x.
__global__ __attribute__((kfuse_map)) void halve(const double *z, double *w, int m)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += blockDim.x * gridDim.x)
    w[i] = 0.5 * z[i];
}

void same(const float *x, const float *y, float *t, float *u, int n, cudaStream_t s) {
  unsigned g = (n + 255) / 256;
  scale<<<g, 256, 0, s>>>(x, t, 2.0f, n);
  shift<<<g, 256, 0, s>>>(y, u, 1.0f, n);
}

void sizes(const float *x, float *t, const double *z, double *w, double *v, int n, int m,
           cudaStream_t s) {
  unsigned g = (n + 255) / 256, gm = (m + 255) / 256;
  scale<<<g, 256, 0, s>>>(x, t, 2.0f, n);
  square<<<gm, 256, 0, s>>>(z, w, m);
  halve<<<132, 256, 0, s>>>(z, v, m);
}

void dependent(const float *x, float *t, double *w, int n, int m, cudaStream_t s) {
  unsigned g = (n + 255) / 256, gm = (m + 255) / 256;
  square<<<gm, 256, 0, s>>>(w, w, m);
  halve<<<g, 256, 0, s>>>(w, w, m);
}

// Two dependent launches of one grid and a third of another: the three
// cannot share a kernel, and the remark names the grids that differ.
void third(const float *x, float *t, const double *z, double *w, double *v, int n, int m,
           cudaStream_t s) {
  unsigned g = (n + 255) / 256, gm = (m + 255) / 256;
  square<<<gm, 256, 0, s>>>(z, w, m);
  square<<<gm, 256, 0, s>>>(w, v, m);
  scale<<<g, 256, 0, s>>>(x, t, 2.0f, n);
}
// REMARK-DAG: remark: launches 0..2 (square, square, scale) of sequence 3 at {{.*}} not fused: launches 0 and 2 differ in launch configuration: grid ('gm' and 'g'); launches of different grids fuse only when independent, and buffer 'w' is written by launch 0 and read by launch 1

// REMARK-DAG: remark: fused launches 0..1 (scale, shift) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: horizontal, the launches share no buffer (one launch instead of 2); saves 0 bytes per element [-Rpass=kfuse]
// REMARK-DAG: remark: fused launches 0..2 (scale, square, halve) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_2: horizontal, the launches' blocks side by side (grids of different sizes; one launch instead of 3); saves 0 bytes per element [-Rpass=kfuse]
// REMARK-DAG: remark: launches 0..1 (square, halve) of sequence 2 at {{.*}} not fused: launches 0 and 1 differ in launch configuration: grid ('gm' and 'g'); launches of different grids fuse only when independent, and buffer 'w' is written by launch 0 and read by launch 1; launch both kernels with the same grid (the same variables or expressions of them)

// Each thread runs both bodies; both launches pass n, so one bound covers
// them.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// CHECK: setp.ge.s32
// CHECK-NOT: setp
// CHECK: mul.f32
// CHECK: st.global.b32
// CHECK: add.f32
// CHECK: st.global.b32
// CHECK: ret;

// Side by side: the launches' parameters, then each launch's grid.x, then
// the dead mask. The grid-stride stage (halve, launch 2) takes the first
// blocks, [0, gx2), whose threads each loop over many elements, so that
// they overlap the short blocks instead of running last; then scale in
// [gx2, gx2 + gx0), then square. Each stage counts blockIdx.x from its
// first block, and the grid-stride loop steps by its own launch's blocks.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_1_0_2(
// CHECK: .param .u32 [[K:__kfuse_fused_[0-9a-f]+_1_0_2]]_param_10,
// CHECK-NEXT: .param .u32 [[K]]_param_11,
// CHECK-NEXT: .param .u32 [[K]]_param_12,
// CHECK-NEXT: .param .u64 [[K]]_param_13
// CHECK-DAG: ld.param.b32 [[GX2:%r[0-9]+]], [[[K]]_param_12];
// CHECK-DAG: ld.param.b32 [[GX0:%r[0-9]+]], [[[K]]_param_10];
// CHECK-DAG: mov.u32 [[CTA:%r[0-9]+]], %ctaid.x;
// CHECK: setp.ge.u32 {{%p[0-9]+}}, [[CTA]], [[GX2]];
// CHECK: mul.lo.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[GX2]];
// CHECK: mul.f64
// CHECK: ld.param.b32 [[GX1:%r[0-9]+]], [[[K]]_param_11];
// CHECK: sub.s32 [[REL0:%r[0-9]+]], [[CTA]], [[GX2]];
// CHECK: setp.ge.u32 {{%p[0-9]+}}, [[REL0]], [[GX0]];
// CHECK: mul.f32
// CHECK: add.s32 [[OFF1:%r[0-9]+]], [[GX2]], [[GX0]];
// CHECK: sub.s32 [[REL1:%r[0-9]+]], [[CTA]], [[OFF1]];
// CHECK: setp.ge.u32 {{%p[0-9]+}}, [[REL1]], [[GX1]];
// CHECK: mul.f64
// CHECK: ret;

// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_1_0_2 3\0Akernel 0 _Z5scalePKfPffi 4\0Akernel 1 _Z6squarePKdPdi 3\0Akernel 2 _Z5halvePKdPdi 3\0Ashape split\0Astream same\0A

// HOST: remark: handed 2 launches (scale, shift) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_0_0_1 when the guards hold at run time
// HOST: remark: handed 3 launches (scale, square, halve) to the runtime, which runs launches 0..2 as __kfuse_fused_{{[0-9a-f]+}}_1_0_2 when the guards hold at run time
