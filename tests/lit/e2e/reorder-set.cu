// Planned groups whose spans overlap, directly or through others, run as a
// set, one group after the other in the order their spans start: here the
// launches of three families (a surface, a 3-D field and a line, each with
// its own grid and block) alternate, each family a chain. In each group's
// span the other groups' members are riders marked `other`, on the side of
// the group the set puts them; a launch of no group runs with one group of
// the set. All three carry `part <index> <offset> <set>`, and the runtime
// finds them together by part 0. A set holds at most 8 groups: in 'wide',
// nine families alternate, eight form a set and the ninth runs unfused.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o %t.ll
// RUN: sed -e 's/\\0A/\n/g' %t.ll | FileCheck %s --check-prefix=MANIFEST
// The runtime's parser accepts both sets (each launch run by one part).
// RUN: clang -std=c11 -I%kfuse_src_root -I%kfuse_src_root/include %S/Inputs/manifest-check.c \
// RUN:   %kfuse_src_root/manifest/manifest.c %kfuse_src_root/manifest/expr.c -o %t.check
// RUN: %t.check %t.ll | FileCheck %s --check-prefix=PARSE
// Under -kfuse-plans=4 each plan runs its own sets: a set's parts carry its
// number in their names (another plan may run the same group alone), and
// they share their plans; the sets of plan 0 are those above.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -mllvm -kfuse-plans=4 %s -o %t4.ll
// RUN: sed -e 's/\\0A/\n/g' %t4.ll | FileCheck %s --check-prefix=PLANS
// RUN: %t.check %t4.ll | FileCheck %s --check-prefix=PARSE4
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -c -Rpass=kfuse %s -o %t.o 2>%t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host

__global__ __attribute__((kfuse_map)) void surf(const float *x, float *y, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + 1.0f; }
__global__ __attribute__((kfuse_map)) void field(const float *x, float *y, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] * x[i] - a; }
__global__ __attribute__((kfuse_map)) void line(const float *x, float *y, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] - a * x[i]; }

void step(const float *s0, float *s1, float *s2, float *s3, const float *f0, float *f1,
          float *f2, float *f3, const float *l0, float *l1, float *l2, float *l3,
          int n, int n2, int n3, cudaStream_t st)
{
  unsigned g = (n + 255) / 256, g2 = (n2 + 127) / 128, g3 = (n3 + 63) / 64;
  surf<<<g2, 128, 0, st>>>(s0, s1, 0.5f, n2);
  field<<<g, 256, 0, st>>>(f0, f1, 0.25f, n);
  line<<<g3, 64, 0, st>>>(l0, l1, 0.25f, n3);
  surf<<<g2, 128, 0, st>>>(s1, s2, 0.75f, n2);
  field<<<g, 256, 0, st>>>(f1, f2, 0.5f, n);
  line<<<g3, 64, 0, st>>>(l1, l2, 0.5f, n3);
  surf<<<g2, 128, 0, st>>>(s2, s3, 1.25f, n2);
  field<<<g, 256, 0, st>>>(f2, f3, 0.75f, n);
  line<<<g3, 64, 0, st>>>(l2, l3, 0.75f, n3);
}

void wide(float *const *a, float *const *b, float *const *c, int n, cudaStream_t st)
{
  surf<<<(n + 31) / 32, 32, 0, st>>>(a[0], b[0], 1.5f, n);
  surf<<<(n + 63) / 64, 64, 0, st>>>(a[1], b[1], 1.5f, n);
  surf<<<(n + 95) / 96, 96, 0, st>>>(a[2], b[2], 1.5f, n);
  surf<<<(n + 127) / 128, 128, 0, st>>>(a[3], b[3], 1.5f, n);
  surf<<<(n + 159) / 160, 160, 0, st>>>(a[4], b[4], 1.5f, n);
  surf<<<(n + 191) / 192, 192, 0, st>>>(a[5], b[5], 1.5f, n);
  surf<<<(n + 223) / 224, 224, 0, st>>>(a[6], b[6], 1.5f, n);
  surf<<<(n + 255) / 256, 256, 0, st>>>(a[7], b[7], 1.5f, n);
  surf<<<(n + 287) / 288, 288, 0, st>>>(a[8], b[8], 1.5f, n);
  surf<<<(n + 31) / 32, 32, 0, st>>>(b[0], c[0], 2.5f, n);
  surf<<<(n + 63) / 64, 64, 0, st>>>(b[1], c[1], 2.5f, n);
  surf<<<(n + 95) / 96, 96, 0, st>>>(b[2], c[2], 2.5f, n);
  surf<<<(n + 127) / 128, 128, 0, st>>>(b[3], c[3], 2.5f, n);
  surf<<<(n + 159) / 160, 160, 0, st>>>(b[4], c[4], 2.5f, n);
  surf<<<(n + 191) / 192, 192, 0, st>>>(b[5], c[5], 2.5f, n);
  surf<<<(n + 223) / 224, 224, 0, st>>>(b[6], c[6], 2.5f, n);
  surf<<<(n + 255) / 256, 256, 0, st>>>(b[7], c[7], 2.5f, n);
  surf<<<(n + 287) / 288, 288, 0, st>>>(b[8], c[8], 2.5f, n);
}

// REMARK: remark: sequence 0 at {{.*}} in 'step': the planned groups of launches 0, 3, 6; 1, 4, 7; and 2, 5, 8 overlap; the runtime runs them one after the other, in that order
// REMARK: remark: fused launches 0, 3, 6 (surf, surf, surf) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_6_r1_r2_r4_r5:
// REMARK: remark: fused launches 1, 4, 7 (field, field, field) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_1_7_r2_r3_r5_r6:
// REMARK-SAME: launches 3 (surf), 6 (surf) run before the fused kernel; launches 2 (line), 5 (line) run after the fused kernel
// REMARK: remark: fused launches 2, 5, 8 (line, line, line) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_2_8_r3_r4_r6_r7:
// REMARK-SAME: launches 3 (surf), 4 (field), 6 (surf), 7 (field) run before the fused kernel
// REMARK: remark: sequence 1 at {{.*}} in 'wide': the planned groups of launches 8, 17 and 0, 9 overlap, and cannot run one after the other (9 groups overlap, more than a set holds (8)); the first, predicted to gain less, runs unfused
// REMARK: remark: sequence 1 at {{.*}} in 'wide': the planned groups of launches 0, 9; 1, 10; 2, 11; 3, 12; 4, 13; 5, 14; 6, 15; and 7, 16 overlap; the runtime runs them one after the other, in that order

// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_0_6_r1_r2_r4_r5 7
// MANIFEST-NEXT: kernel 0 _Z4surfPKfPffi 4
// MANIFEST: rider 1 other
// MANIFEST-NEXT: rider 2 other
// MANIFEST-NEXT: rider 4 other
// MANIFEST-NEXT: rider 5 other
// MANIFEST-NEXT: part 0 0 [[SET:[0-9]+]]
// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_1_7_r2_r3_r5_r6 7
// MANIFEST: rider 1 other
// MANIFEST-NEXT: rider 2 before other
// MANIFEST-NEXT: rider 4 other
// MANIFEST-NEXT: rider 5 before other
// MANIFEST-NEXT: part 1 1 [[SET]]
// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_2_8_r3_r4_r6_r7 7
// MANIFEST: rider 1 before other
// MANIFEST-NEXT: rider 2 before other
// MANIFEST-NEXT: rider 4 before other
// MANIFEST-NEXT: rider 5 before other
// MANIFEST-NEXT: part 2 2 [[SET]]
// MANIFEST: part 7 7 [[WIDE:[0-9]+]]
// MANIFEST-NOT: part 8

// PARSE: manifest version 1, 11 groups

// PLANS: group __kfuse_fused_{{[0-9a-f]+}}_0_0_6_r1_r2_r4_r5_set[[S0:[0-9]+]] 7
// PLANS: part 0 0 [[S0]]
// PLANS: plans 4 0 9 {{.*}}step{{.*}} 0{{$}}
// PLANS: group __kfuse_fused_{{[0-9a-f]+}}_0_1_7_r2_r3_r5_r6_set[[S0]] 7
// PLANS: part 1 1 [[S0]]
// PLANS: plans 4 1 9 {{.*}}step{{.*}} 0{{$}}
// PLANS: group __kfuse_fused_{{[0-9a-f]+}}_0_2_8_r3_r4_r6_r7_set[[S0]] 7
// PLANS: part 2 2 [[S0]]
// PLANS: plans 4 2 9 {{.*}}step{{.*}} 0{{$}}
// PLANS: group __kfuse_fused_{{[0-9a-f]+}}_0_3_6_r4_r5_set[[S1:[0-9]+]] 4
// PLANS: part 2 2 [[S1]]
// PLANS: plans 4 3 9 {{.*}}step{{.*}} 1{{$}}

// PARSE4: manifest version 1, {{[0-9]+}} groups

// HOST: remark: handed 9 launches (surf, field, line, surf, field, line, surf, field, line) to the runtime, which runs launches 0..6 as __kfuse_fused_{{[0-9a-f]+}}_0_0_6_r1_r2_r4_r5, launches 1..7 as __kfuse_fused_{{[0-9a-f]+}}_0_1_7_r2_r3_r5_r6 and launches 2..8 as __kfuse_fused_{{[0-9a-f]+}}_0_2_8_r3_r4_r6_r7 when the guards hold at run time
