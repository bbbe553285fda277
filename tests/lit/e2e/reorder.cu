// Reordering: launches that are not consecutive fuse when the launches
// between them (riders) can run after the fused kernel, or before it. A
// rider runs after when it shares no buffer with a later member where either
// writes it (read-after-write, write-after-read, write-after-write), else
// before when it shares none so with an earlier member. The manifest lists the whole span, marks the riders
// (`rider <i>`), gives their footprints and pairs them `disjoint` with the
// members' buffers of other values, so the runtime checks at run time what
// the value numbers assumed and falls back to program order otherwise.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=NOFUSE < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=MANIFEST
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -c -Rpass=kfuse %s -o %t.o 2>%t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host
// The groups that are not consecutive are enumerated under the work limit:
// one unit stops that at once, and the remark says so.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-plan-work-limit=1 -Rpass-analysis=kfuse %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: in 'independent': planned 3 launches for {{[0-9]+}} elements each on {{.*}}; work limit reached before every candidate group was enumerated: the plan is the best of those enumerated
// Under -kfuse-reorder=0 only consecutive launches fuse.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-reorder=0 -Rpass=kfuse -Rpass-analysis=kfuse %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF

__global__ __attribute__((kfuse_map)) void scale(const float *x, float *t, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = a * x[i]; }
__global__ __attribute__((kfuse_map)) void shift(const float *y, float *u, float b, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) u[i] = y[i] + b; }
// Another grid and block: it cannot join the group.
__global__ __attribute__((kfuse_map)) void square(const double *z, double *w, int m)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < m) w[i] = z[i] * z[i]; }
__global__ __attribute__((kfuse_map)) void widen(const float *t, double *w, int m)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < m) w[i] = t[i]; }
__global__ __attribute__((kfuse_map)) void clear(float *t, int m)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < m) t[i] = 0.0f; }
__global__ __attribute__((kfuse_map)) void narrow(const double *w, float *z, int m)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < m) z[i] = (float)w[i]; }
__global__ __attribute__((kfuse_map)) void add(const float *a, const float *b, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = a[i] + b[i]; }
__global__ __attribute__((kfuse_map)) void relay(const float *t, float *z, int m)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < m) z[i] = t[i] * t[i]; }
// Not analysable: atomics.
__global__ __attribute__((kfuse_map)) void count(const float *t, int *c, int m)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < m && t[i] > 0.0f) atomicAdd(c, 1); }

// Independent of both: it runs after the fused kernel.
void independent(const float *x, float *t, float *o, const double *z, double *w, int n, int m,
                 cudaStream_t s) {
  unsigned g = (n + 255) / 256, gm = (m + 127) / 128;
  scale<<<g, 256, 0, s>>>(x, t, 2.0f, n);
  square<<<gm, 128, 0, s>>>(z, w, m);
  shift<<<g, 256, 0, s>>>(t, o, 1.0f, n);
}

// The rider reads what launch 0 writes (read-after-write on an earlier
// member) and launch 2 only reads it too: the rider may still run last.
void reads_earlier(const float *x, float *t, float *o, double *w, int n, int m, cudaStream_t s) {
  unsigned g = (n + 255) / 256, gm = (m + 127) / 128;
  scale<<<g, 256, 0, s>>>(x, t, 2.0f, n);
  widen<<<gm, 128, 0, s>>>(t, w, m);
  shift<<<g, 256, 0, s>>>(t, o, 1.0f, n);
}

// The rider writes what launch 0 writes and launch 2 reads: it can move
// neither after launch 2 (launch 2 would read t before the rider's writes)
// nor before launch 0 (launch 0's writes would win): nothing fuses.
void writes_later(const float *x, float *t, float *o, int n, int m, cudaStream_t s) {
  unsigned g = (n + 255) / 256, gm = (m + 127) / 128;
  scale<<<g, 256, 0, s>>>(x, t, 2.0f, n);
  clear<<<gm, 128, 0, s>>>(t, m);
  shift<<<g, 256, 0, s>>>(t, o, 1.0f, n);
}

// The rider reads what launch 2 writes (write-after-read), or writes it too
// (write-after-write): it cannot move after launch 2, but before launch 0,
// with which it shares nothing.
void reads_later(const float *x, float *t, float *o, double *w, int n, int m, cudaStream_t s) {
  unsigned g = (n + 255) / 256, gm = (m + 127) / 128;
  scale<<<g, 256, 0, s>>>(x, t, 2.0f, n);
  widen<<<gm, 128, 0, s>>>(o, w, m);
  shift<<<g, 256, 0, s>>>(t, o, 1.0f, n);
}
void writes_later_too(const float *x, float *t, float *o, int n, int m, cudaStream_t s) {
  unsigned g = (n + 255) / 256, gm = (m + 127) / 128;
  scale<<<g, 256, 0, s>>>(x, t, 2.0f, n);
  clear<<<gm, 128, 0, s>>>(o, m);
  shift<<<g, 256, 0, s>>>(t, o, 1.0f, n);
}

// Launch 2 reads what the rider writes: the rider runs before the fused
// kernel, which moves it before launch 0, with which it shares nothing.
void feeds_later(const float *x, float *t, float *o, const double *w, float *z, int n, int m,
                 cudaStream_t s) {
  unsigned g = (n + 255) / 256, gm = (m + 127) / 128;
  scale<<<g, 256, 0, s>>>(x, t, 2.0f, n);
  narrow<<<gm, 128, 0, s>>>(w, z, m);
  add<<<g, 256, 0, s>>>(t, z, o, n);
}

// The rider reads what launch 0 writes and writes what launch 2 reads: it
// can move neither way.
void both_sides(const float *x, float *t, float *o, float *z, int n, int m, cudaStream_t s) {
  unsigned g = (n + 255) / 256, gm = (m + 127) / 128;
  scale<<<g, 256, 0, s>>>(x, t, 2.0f, n);
  relay<<<gm, 128, 0, s>>>(t, z, m);
  add<<<g, 256, 0, s>>>(t, z, o, n);
}

// A rider the pass cannot analyse may touch any memory: it stays in place.
void unanalysable(const float *x, float *t, float *o, int *c, int n, int m, cudaStream_t s) {
  unsigned g = (n + 255) / 256, gm = (m + 127) / 128;
  scale<<<g, 256, 0, s>>>(x, t, 2.0f, n);
  count<<<gm, 128, 0, s>>>(x, c, m);
  shift<<<g, 256, 0, s>>>(t, o, 1.0f, n);
}

// REMARK-DAG: remark: fused launches 0, 2 (scale, shift) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_2_r1: t in registers; launch 1 (square) runs after the fused kernel; saves 4 bytes per element [-Rpass=kfuse]
// REMARK-DAG: remark: fused launches 0, 2 (scale, shift) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_2_r1: t in registers; launch 1 (widen) runs after the fused kernel; saves 4 bytes per element [-Rpass=kfuse]
// REMARK-DAG: remark: sequence 0 at {{.*}} in 'independent': launches 0, 2: predicted {{[0-9]+}} ns fused, {{[0-9]+}} ns unfused, gain {{[0-9]+}} ns
// REMARK-DAG: remark: launches 0..1 (scale, clear) of sequence 2 at {{.*}} not fused: launches 0 and 1 differ in launch configuration
// REMARK-DAG: remark: launches 0, 2 (scale, shift) of sequence 2 at {{.*}} in 'writes_later' not fused: launch 1 (clear) cannot move out of the launches to fuse: it depends on launch 0 (scale) before it and launch 2 (shift) after it
// REMARK-DAG: remark: launches 0, 2 (scale, add) of sequence 6 at {{.*}} in 'both_sides' not fused: launch 1 (relay) cannot move out of the launches to fuse: it depends on launch 0 (scale) before it and launch 2 (add) after it
// REMARK-DAG: remark: launches 0, 2 (scale, shift) of sequence 7 at {{.*}} in 'unanalysable' not fused: launch 1 (count) lies between launches to fuse and cannot move: uses atomics or fences
// REMARK-DAG: remark: fused launches 0, 2 (scale, shift) of sequence 3 into __kfuse_fused_{{[0-9a-f]+}}_3_0_2_r1: t in registers; launch 1 (widen) runs before the fused kernel
// REMARK-DAG: remark: fused launches 0, 2 (scale, shift) of sequence 4 into __kfuse_fused_{{[0-9a-f]+}}_4_0_2_r1: t in registers; launch 1 (clear) runs before the fused kernel
// REMARK-DAG: remark: fused launches 0, 2 (scale, add) of sequence 5 into __kfuse_fused_{{[0-9a-f]+}}_5_0_2_r1: t in registers; launch 1 (narrow) runs before the fused kernel; saves 4 bytes per element [-Rpass=kfuse]
// REMARK-DAG: remark: launches 0..1 (scale, relay) of sequence 6 at {{.*}} not fused: launches 0 and 1 differ in launch configuration
// REMARK-DAG: remark: launches 0..1 (scale, count) of sequence 7 at {{.*}} not fused: kernel 'count' cannot be fused: uses atomics or fences

// NOFUSE: fused launches 0, 2 (scale, shift) of sequence 1
// NOFUSE-NOT: fused launches {{.*}} of sequence 2
// NOFUSE: fused launches 0, 2 (scale, add) of sequence 5
// NOFUSE-NOT: fused launches {{.*}} of sequence

// The fused kernel takes the members' parameters only, then the dead mask.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_2_r1(
// CHECK-NEXT: .param .u64 .ptr .align 1 [[K:__kfuse_fused_[0-9a-f]+_0_0_2_r1]]_param_0,
// CHECK: .param .u32 [[K]]_param_7,
// CHECK-NEXT: .param .u64 [[K]]_param_8
// CHECK-NEXT: )
// CHECK-NOT: .f64
// CHECK: ret;

// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_0_2_r1 3\0Akernel 0 _Z5scalePKfPffi 4\0Akernel 1 _Z6squarePKdPdi 3\0Akernel 2 _Z5shiftPKfPffi 4\0Arider 1\0Ashape same\0Astream same\0Adynshmem 0\0Alaunch 0 0 0\0Aequal 0.1 2.0\0Aequal 0.3 2.3\0A
// MANIFEST-SAME: footprint 1.0 r 0 min(8*bx*gx,8*s2)\0Afootprint 1.1 w 0 min(8*bx*gx,8*s2)\0A
// MANIFEST-SAME: disjoint 1.0 0.1\0Adisjoint 1.0 2.1\0Adisjoint 1.1 0.0\0Adisjoint 1.1 0.1\0Adisjoint 1.1 2.0\0Adisjoint 1.1 2.1\0Adead 0 0.1 covered\0A
// MANIFEST-SAME: at 0 3 {{[0-9]+}}:{{[0-9]+}} _Z11independentPKfPfS1_PKdPdiiP11CUstream_st\0Aend
// The rider that reads t, the buffer of launch 0's that launch 2 reads in a
// register: the same value, so no disjoint line with it, and its dead bit
// is set at run time only when no rider gets t.
// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_1_0_2_r1 3\0A
// MANIFEST-SAME: rider 1\0A
// MANIFEST-SAME: footprint 1.0 r 0 min(4*bx*gx,4*s2)\0Afootprint 1.1 w 0 min(8*bx*gx,8*s2)\0A
// MANIFEST-SAME: disjoint 1.0 2.1\0Adisjoint 1.1 0.0\0Adisjoint 1.1 0.1\0Adisjoint 1.1 2.0\0Adisjoint 1.1 2.1\0Adead 0 0.1 covered\0A
// A rider that runs before: launch 2 reads its z.
// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_5_0_2_r1 3\0A
// MANIFEST-SAME: rider 1 before\0A

// HOST-DAG: remark: handed 3 launches (scale, square, shift) to the runtime, which runs launches 0..2 as __kfuse_fused_{{[0-9a-f]+}}_0_0_2_r1 (launch 1 left out, run after it) when the guards hold at run time, else one by one
// HOST-DAG: remark: handed 3 launches (scale, narrow, add) to the runtime, which runs launches 0..2 as __kfuse_fused_{{[0-9a-f]+}}_5_0_2_r1 (launch 1 left out, run before it) when the guards hold
// HOST-DAG: remark: handed 3 launches (scale, widen, shift) to the runtime, which runs launches 0..2 as __kfuse_fused_{{[0-9a-f]+}}_1_0_2_r1 (launch 1 left out, run after it) when the guards hold

// OFF: in 'independent': planned 3 launches for {{[0-9]+}} elements each on {{.*}} gain 0 ns
// OFF-NOT: fused launches
