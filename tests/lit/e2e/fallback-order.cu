// A consumer that stores an intermediate on one side of a branch and reads
// it on the other (after GVN, `if (c) t[i] = v; r = t[i];` is such a
// diamond) gets the two sides one after the other, the store first, joined
// at a `kfuse.ordered` block: a divergent warp must not issue the stores
// while the other lanes' fallback loads of the same lines are in flight
// (bench/HISTORY.md, GPU run 13). The copy of the body that keeps t's
// stores is ordered; the copy for t dead has no store left to order; a group
// without such a diamond is left alone.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -fno-discard-value-names -Rpass=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ll
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

KMAP void two_stores(const float *x, float *t, int n)
{ IDX; if (i < n) { float v = x[i]; if (v > 0.5f) t[i] = v * 2.0f; if (v < -0.5f) t[i] = v - 3.0f; } }
KMAP void store_then_read(float *t, const float *y, float *o, int n)
{ IDX; if (i < n) { if (y[i] < 0.0f) t[i] = y[i]; o[i] = t[i] + 1.0f; } }
KMAP void half(const float *t, float *o, int n) { IDX; if (i < n) o[i] = t[i] * 0.5f; }
KMAP void both_read(float *t, const float *y, float *o, int n)
{ IDX; if (i < n) { float w = y[i]; if (w < 0.0f) t[i] = t[i] + w; else o[i] = t[i]; } }

void self_read(const float *x, const float *y, float *t, float *o, int n) {
  two_stores<<<n / 256, 256>>>(x, t, n);
  store_then_read<<<n / 256, 256>>>(t, y, o, n);
}
void plain(const float *x, float *t, float *o, int n) {
  two_stores<<<n / 256, 256>>>(x, t, n);
  half<<<n / 256, 256>>>(t, o, n);
}
// Both sides load t (the store side's store needs its load): left as it is.
void both(const float *x, const float *y, float *t, float *o, int n) {
  two_stores<<<n / 256, 256>>>(x, t, n);
  both_read<<<n / 256, 256>>>(t, y, o, n);
}

// REMARK: fused launches 0..1 (two_stores, store_then_read) of sequence 0 into __kfuse_fused_0_0_1: t in registers
// REMARK: fused launches 0..1 (two_stores, half) of sequence 1 into __kfuse_fused_1_0_1: t in registers
// REMARK: fused launches 0..1 (two_stores, both_read) of sequence 2 into __kfuse_fused_2_0_1: t in registers

// CHECK-LABEL: define ptx_kernel void @__kfuse_fused_0_0_1(
// The copy for a dead mask of 0: the store alone on its side.
// CHECK-LABEL: body.kept:
// CHECK: [[C:%cmp[0-9.a-z]*]] = fcmp contract olt float [[Y:%[0-9]+]], 0.0
// CHECK-NEXT: [[T:%arrayidx[0-9.a-z]*]] = getelementptr inbounds float, ptr %l0.p1
// CHECK-NEXT: br i1 [[C]], label %[[SIDE:[0-9a-z.]+]], label %[[JOIN:kfuse.ordered[0-9]*]]
// CHECK-EMPTY:
// CHECK-NEXT: [[JOIN]]:
// CHECK-NEXT: phi float [ [[Y]], %[[SIDE]] ], [ poison, %{{.*}} ]
// CHECK-NEXT: br i1 [[C]], label %{{.*}}, label %{{.*}}
// CHECK: load float, ptr [[T]], align 4
// CHECK: [[SIDE]]:
// CHECK-NEXT: store float [[Y]], ptr [[T]], align 4
// CHECK-NEXT: br label %[[JOIN]]
// The copy for t dead: o's store alone.
// CHECK-LABEL: body.dead:
// CHECK-NOT: kfuse.ordered
// CHECK: store float
// CHECK-NOT: store
// CHECK: {{^}}}{{$}}

// CHECK-LABEL: define ptx_kernel void @__kfuse_fused_1_0_1(
// CHECK-NOT: kfuse.ordered
// CHECK: {{^}}}{{$}}
// CHECK-LABEL: define ptx_kernel void @__kfuse_fused_2_0_1(
// CHECK-NOT: kfuse.ordered
// CHECK: {{^}}}{{$}}
