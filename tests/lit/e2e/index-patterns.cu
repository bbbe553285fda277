// A producer writes t[i]; consumers read t at indices that are not t[i] for
// the same thread, or read its bytes as another type. None may be fused with
// t in a register: each pair is rejected with the reason (or, where the
// threads meet as the same instances at two granularities, t[i / 2] and
// p_two's two elements per thread read one per thread, fused through
// shared memory), under the default
// planner and the greedy one (which fuses every legal run). The host passes
// t through a pointer cast, `(const U *)t`, which still names t: sequence
// 11, a plain t[i] read through such a cast, fuses with t in registers.
// So does a thread-coarsened pair, four elements per thread a block's
// width apart, each read by the thread that wrote it; reading the next of
// them does not.
// REQUIRES: cuda
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o /dev/null 2>%t.ilp
// RUN: FileCheck %s < %t.ilp
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -mllvm -kfuse-planner=greedy %s -o /dev/null 2>%t.greedy
// RUN: FileCheck %s < %t.greedy

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x
KMAP void p(const float *x, float *t, int n) { IDX; if (i < n) t[i] = 2.0f * x[i]; }
KMAP void c_xor(const float *t, float *o, int n) { IDX; if (i < n) o[i] = t[i ^ 1]; }
KMAP void c_rev(const float *t, float *o, int n) { IDX; if (i < n) o[i] = t[n - 1 - i]; }
KMAP void c_half(const float *t, float *o, int n) { IDX; if (i < n) o[i] = t[i / 2]; }
KMAP void c_shift(const float *t, float *o, int n) { IDX; if (i < n) o[i] = t[i >> 1]; }
KMAP void c_mask(const float *t, float *o, int n) { IDX; if (i < n) o[i] = t[i & 15]; }
KMAP void c_short(const float *t, float *o, int n) { IDX; if (i < n) o[i] = t[(unsigned short)i]; }
KMAP void c_next(const float *t, float *o, int n) { IDX; if (i < n) o[i] = t[i + 1 < n ? i + 1 : i]; }
KMAP void c_nextblk(const float *t, float *o, int n) { IDX; if (i + (int)blockDim.x < n) o[i] = t[i + blockDim.x]; }
KMAP void p_two(const float *x, float *t, int n) { IDX; if (i < n) { t[2 * i] = x[i]; t[2 * i + 1] = -x[i]; } }
KMAP void c_id(const float *t, float *o, int n) { IDX; if (i < n) o[i] = t[i]; }
KMAP void pd(const double *x, double *t, int n) { IDX; if (i < n) t[i] = 2.0 * x[i]; }
KMAP void c_lo(const float *t, float *o, int n) { IDX; if (i < n) o[i] = t[2 * i] + 1.0f; }
KMAP void c_hi(const int *t, int *o, int n) { IDX; if (i < n) o[i] = t[2 * i + 1]; }
// Thread-coarsened: four elements per thread, a block's width apart.
#define COARSE(k) int base = blockIdx.x * blockDim.x * 4 + threadIdx.x; \
  _Pragma("unroll") for (int k = 0; k < 4; k++)
KMAP void p_coarse(const float *x, float *t, int n) { COARSE(k) { int j = base + k * blockDim.x; if (j < n) t[j] = 2.0f * x[j]; } }
KMAP void c_coarse(const float *t, float *o, int n) { COARSE(k) { int j = base + k * blockDim.x; if (j < n) o[j] = t[j] + 1.0f; } }
KMAP void c_coarse_next(const float *t, float *o, int n) { COARSE(k) { int j = base + k * blockDim.x; if (j + (int)blockDim.x < n) o[j] = t[j + blockDim.x]; } }

#define SEQ(name, a, b, T, U) void name(const T *x, T *t, U *o, int n, cudaStream_t s) \
  { a<<<n / 256, 256, 0, s>>>(x, t, n); b<<<n / 256, 256, 0, s>>>((const U *)t, o, n); }
SEQ(s_xor, p, c_xor, float, float)
SEQ(s_rev, p, c_rev, float, float)
SEQ(s_half, p, c_half, float, float)
SEQ(s_shift, p, c_shift, float, float)
SEQ(s_mask, p, c_mask, float, float)
SEQ(s_short, p, c_short, float, float)
SEQ(s_next, p, c_next, float, float)
SEQ(s_nextblk, p, c_nextblk, float, float)
SEQ(s_two, p_two, c_id, float, float)
SEQ(s_lo, pd, c_lo, double, float)
SEQ(s_hi, pd, c_hi, double, int)
SEQ(s_cast, p, c_id, float, float)
SEQ(s_coarse, p_coarse, c_coarse, float, float)
SEQ(s_coarse_next, p_coarse, c_coarse_next, float, float)

// CHECK-NOT: in registers
// CHECK: (p, c_xor) of sequence 0 {{.*}} not fused: buffer 't': launch 1 (c_xor) reads it at an unknown index (a gather) and launch 0 (p) writes it
// CHECK: (p, c_rev) of sequence 1 {{.*}} not fused: buffer 't': launch 0 (p) writes it at byte offset 4*blockDim.x*blockIdx.x+4*threadIdx.x and launch 1 (c_rev) reads it at byte offset
// t[i / 2]: each element read by two threads, the instance relation of
// fusion across granularities (two threads of c_half per thread of p).
// CHECK: fused launches 0..1 (p, c_half) of sequence 2 into {{.*}}: t through shared memory, with barriers; across granularities, threads per instance 1, 2, 128 instances per block of 256 threads
// CHECK: (p, c_shift) of sequence 3 {{.*}} not fused: buffer 't': launch 1 (c_shift) reads it at an unknown index (a gather)
// CHECK: (p, c_mask) of sequence 4 {{.*}} not fused: buffer 't': launch 1 (c_mask) reads it at an unknown index (a gather)
// CHECK: (p, c_short) of sequence 5 {{.*}} not fused: buffer 't': launch 1 (c_short) reads it at an unknown index (a gather)
// CHECK: (p, c_next) of sequence 6 {{.*}} not fused: buffer 't': launch 1 (c_next) reads it at an unknown index (a gather)
// CHECK: (p, c_nextblk) of sequence 7 {{.*}} not fused: buffer 't': launch 0 (p) writes it at byte offset 4*blockDim.x*blockIdx.x+4*threadIdx.x and launch 1 (c_nextblk) reads it at byte offset
// Two elements per thread written, one per thread read: not in registers,
// but the same instances at two granularities, through shared memory.
// CHECK: fused launches 0..1 (p_two, c_id) of sequence 8 into {{.*}}: t through shared memory, with barriers; across granularities, threads per instance 1, 2, 128 instances per block of 256 threads
// CHECK: (pd, c_lo) of sequence 9 {{.*}} not fused: buffer 't': launch 0 (pd) writes it at byte offset 8*blockDim.x*blockIdx.x+8*threadIdx.x
// CHECK: (pd, c_hi) of sequence 10 {{.*}} not fused: buffer 't': launch 0 (pd) writes it at byte offset 8*blockDim.x*blockIdx.x+8*threadIdx.x
// CHECK-NOT: in registers
// CHECK: fused launches 0..1 (p, c_id) of sequence 11 into __kfuse_fused_{{[0-9a-f]+}}_11_0_1: t in registers
// Each thread reads its four elements, fields a block's width apart: in
// registers. Reading the next field instead reaches, from the last one,
// the next block's first.
// CHECK: fused launches 0..1 (p_coarse, c_coarse) of sequence 12 into __kfuse_fused_{{[0-9a-f]+}}_12_0_1: t in registers
// CHECK: (p_coarse, c_coarse_next) of sequence 13 {{.*}} not fused: buffer 't': launch 0 (p_coarse) writes it at byte offset {{.*}}; neither the same thread nor the same block
