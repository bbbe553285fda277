// Two groups whose spans overlap run as a pair, one after the other: the
// launches of a 2-D surface (their own grid and block) and of a 3-D field
// alternate, each family a chain, and each family fuses around the other.
// The group that starts first runs first; in its span the other group's
// members are riders marked `other` (the other group runs them), and the
// same holds the other way round. Both groups carry `part <index> <offset>
// <pair>`, and the runtime finds them together.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-analysis=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o %t.ll
// RUN: sed -e 's/\\0A/\n/g' %t.ll | FileCheck %s --check-prefix=MANIFEST
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -c -Rpass=kfuse %s -o %t.o 2>%t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host
// Under -kfuse-reorder=0 nothing leaves a launch out, so no pair forms.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -mllvm -kfuse-reorder=0 %s -o - | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=OFF

__global__ __attribute__((kfuse_map)) void surf(const float *x, float *y, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + 1.0f; }
__global__ __attribute__((kfuse_map)) void field(const float *x, float *y, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] * x[i] - a; }

void step(const float *s0, float *s1, float *s2, float *s3, const float *f0, float *f1,
          float *f2, float *f3, int n, int n2, cudaStream_t st)
{
  unsigned g = (n + 255) / 256, g2 = (n2 + 127) / 128;
  surf<<<g2, 128, 0, st>>>(s0, s1, 0.5f, n2);
  field<<<g, 256, 0, st>>>(f0, f1, 0.25f, n);
  surf<<<g2, 128, 0, st>>>(s1, s2, 0.75f, n2);
  field<<<g, 256, 0, st>>>(f1, f2, 0.5f, n);
  surf<<<g2, 128, 0, st>>>(s2, s3, 1.25f, n2);
  field<<<g, 256, 0, st>>>(f2, f3, 0.75f, n);
}

// REMARK: remark: sequence 0 at {{.*}} in 'step': the planned groups of launches 0, 2, 4 and 1, 3, 5 overlap; the runtime runs them one after the other, in that order
// REMARK: remark: fused launches 0, 2, 4 (surf, surf, surf) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_4_r1_r3:
// REMARK-SAME: launches 1 (field), 3 (field) run after the fused kernel
// REMARK: remark: fused launches 1, 3, 5 (field, field, field) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_1_5_r2_r4:
// REMARK-SAME: launches 2 (surf), 4 (surf) run before the fused kernel

// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_0_4_r1_r3 5
// MANIFEST: rider 1 other
// MANIFEST-NEXT: rider 3 other
// MANIFEST-NEXT: part 0 0 [[PAIR:[0-9]+]]
// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_1_5_r2_r4 5
// MANIFEST: rider 1 before other
// MANIFEST-NEXT: rider 3 before other
// MANIFEST-NEXT: part 1 1 [[PAIR]]

// HOST: remark: handed 6 launches (surf, field, surf, field, surf, field) to the runtime, which runs launches 0..4 as __kfuse_fused_{{[0-9a-f]+}}_0_0_4_r1_r3 and launches 1..5 as __kfuse_fused_{{[0-9a-f]+}}_0_1_5_r2_r4 when the guards hold at run time

// OFF-NOT: part {{[0-9]}}
