// Horizontal fusion: consecutive launches of the same shape that share no
// buffer fuse into one launch, each thread running both bodies (the group
// saves a launch, not traffic), and the host pass hands the run to the
// runtime, whose guards check at run time that the buffers do not overlap
// and that grid, block and stream agree. A neighbour of another grid stays
// apart, with a remark naming the configuration.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -c -Rpass=kfuse %s -o %t.o 2>%t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host

__global__ __attribute__((kfuse_map)) void scale(const float *x, float *t, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = a * x[i]; }
__global__ __attribute__((kfuse_map)) void shift(const float *y, float *u, float b, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) u[i] = y[i] + b; }
__global__ __attribute__((kfuse_map)) void square(const double *z, double *w, int m)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < m) w[i] = z[i] * z[i]; }

void run(const float *x, const float *y, float *t, float *u, const double *z, double *w, int n,
         int m, cudaStream_t s) {
  unsigned g = (n + 255) / 256, gm = (m + 255) / 256;
  scale<<<g, 256, 0, s>>>(x, t, 2.0f, n);
  shift<<<g, 256, 0, s>>>(y, u, 1.0f, n);
  square<<<gm, 256, 0, s>>>(z, w, m);
}

// REMARK-DAG: remark: fused launches 0..1 (scale, shift) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: horizontal, the launches share no buffer (one launch instead of 2); saves 0 bytes per element [-Rpass=kfuse]
// REMARK-DAG: remark: launches 0..2 (scale, shift, square) of sequence 0 at {{.*}} not fused: launches 0 and 2 differ in launch configuration: grid ('g' and 'gm')

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

// HOST: remark: handed 3 launches (scale, shift, square) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_0_0_1 when the guards hold at run time
