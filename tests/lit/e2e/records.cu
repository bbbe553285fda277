// Thread records: a thread's accesses to a buffer fall in a record of its own
// (a 3x3 matrix, a 3-vector, a struct, the fields of a float2). Stored fields
// cross to later stages in registers, one per field; partial overlaps,
// records that overlap their neighbours' and retyped fields are not fused.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=STORES < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

// (__builtin_sqrtf: lit compiles with -nocudalib, so sqrtf would be a call.)
// AB: 9 x 4 bytes no longer loaded by mvmul33; ABv: 3 x 4 by norm3.
// REMARK: records.cu:{{[0-9]+}}:1: remark: fused launches 0..2 (mmul33, mvmul33, norm3) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_2: AB in registers, ABv in registers; saves 48 bytes per element [-Rpass=kfuse]
// Each thread's records are fields 4 bytes wide, 36 or 12 bytes apart: the
// block moves them with consecutive threads through shared memory
// (record-staging.cu); the norm, one float per thread, goes as it is.
// REMARK: remark: __kfuse_fused_{{[0-9a-f]+}}_0_0_2: records of A (36 bytes), B (36 bytes), v (12 bytes) loaded and of AB (36 bytes), ABv (12 bytes) stored by consecutive threads through shared memory (18432 bytes per block)
// REMARK: remark: fused launches 0..1 (place, weigh) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_1: p in registers; saves 8 bytes per element
// Only x crosses: y is loaded from memory, no stage having stored it.
// REMARK: remark: fused launches 0..1 (first, second) of sequence 2 into __kfuse_fused_{{[0-9a-f]+}}_2_0_1: r in registers; saves 4 bytes per element
// REMARK: remark: launches 0..1 (wide, half) of sequence 3 at {{.*}}records.cu:{{[0-9]+}}:7 in 'punned' not fused: buffer 'd': launch 0 (wide) writes it at byte offset 8*blockDim.x*blockIdx.x+8*threadIdx.x and launch 1 (half) reads it at byte offset 8*blockDim.x*blockIdx.x+8*threadIdx.x+4; the accesses overlap in part: access each field with the same offset and type in every kernel
// REMARK: remark: launches 0..1 (spill, peek) of sequence 4 at {{.*}}records.cu:{{[0-9]+}}:8 in 'overlapping' not fused: buffer 't': launch 0 (spill) writes it at byte offset 8*blockDim.x*blockIdx.x+8*threadIdx.x and launch 1 (peek) reads it at byte offset 8*blockDim.x*blockIdx.x+8*threadIdx.x+8; neither the same thread nor the same block
// REMARK: remark: launches 0..1 (putf, geti) of sequence 5 at {{.*}}records.cu:{{[0-9]+}}:7 in 'retyped' not fused: buffer 't' is accessed at byte offset 4*blockDim.x*blockIdx.x+4*threadIdx.x with different element types
// Two 100-byte records per instance cross inside 0..2: staged in shared
// memory that would be 51 KB per block of 256, more than a block may have;
// the planner knows they stay in registers and plans the three as one.
// They load b once for both adds: 300 bytes saved, t's and u's loads and
// b's second.
// REMARK: remark: fused launches 0..2 (add25, add25, scale25) of sequence 6 into __kfuse_fused_{{[0-9a-f]+}}_6_0_2: t in registers, u in registers; saves 300 bytes per element
// REMARK: remark: __kfuse_fused_{{[0-9a-f]+}}_6_0_2: records of a (100 bytes), b (100 bytes) loaded and of t (100 bytes), u (100 bytes), o (100 bytes) stored by consecutive threads through shared memory (25600 bytes per block)
// REMARK-NOT: remark: fused

// The fused matrix kernel loads A, B and v, 9 + 9 + 3 words per thread,
// each once and through the read-only path (no stage writes them, and the
// runtime checks them disjoint from what the group writes; unfused, mvmul33
// reloads v for every row), and never AB or ABv. The stages come twice: for
// AB and ABv both dead, storing the norm alone, and for any other mask,
// storing all three results. The block copies the records of a point in
// one loop of at most 16 words a trip (-kfuse-record-copy-batch), a 16-byte
// word counting as two: A and B, a block's 36-byte records each one range
// of 16-byte words (3 a thread) and a tail of 4-byte words, in one trip,
// v (12 bytes, three 4-byte words) in another, so each copy holds 6 + 2
// + 3 loads, twice 11; the three results go in one trip (AB's range in
// 16-byte words and its tail, ABv's and the norm's words), and the norm
// alone in one word: 9 stores.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_2(
// CHECK-COUNT-22: ld.global.nc.{{v4.b32|b32}}
// CHECK-NOT: ld.global
// CHECK: ret;
// STORES-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_2(
// STORES-COUNT-9: st.global
// STORES-NOT: st.global
// STORES: ret;

// r is written in the group: its field y is loaded plainly, a through the
// read-only path.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_2_0_1(
// CHECK-DAG: ld.global.nc.b32 {{.*}}
// CHECK-DAG: ld.global.b32 {{.*}}+4];
// CHECK: ret;

#define KM __attribute__((kfuse_map))
#define GID int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return

// A 3x3 product and a matrix-vector product per instance, one thread each:
// the matrix crosses in nine registers, the vector in three.
__global__ KM void mmul33(const float *A, const float *B, float *AB, int n) {
  GID;
  float a[9], b[9];
  for (int k = 0; k < 9; k++) { a[k] = A[9 * i + k]; b[k] = B[9 * i + k]; }
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      AB[9 * i + 3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
}
__global__ KM void mvmul33(const float *AB, const float *v, float *ABv, int n) {
  GID;
  for (int r = 0; r < 3; r++)
    ABv[3 * i + r] = AB[9 * i + 3 * r] * v[3 * i] + AB[9 * i + 3 * r + 1] * v[3 * i + 1] +
                     AB[9 * i + 3 * r + 2] * v[3 * i + 2];
}
__global__ KM void norm3(const float *x, float *nr, int n) {
  GID;
  nr[i] = __builtin_sqrtf(x[3 * i] * x[3 * i] + x[3 * i + 1] * x[3 * i + 1] + x[3 * i + 2] * x[3 * i + 2]);
}
void matrices(const float *A, const float *B, const float *v, float *AB, float *ABv, float *nr,
              int n) {
  mmul33<<<(n + 127) / 128, 128>>>(A, B, AB, n);
  mvmul33<<<(n + 127) / 128, 128>>>(AB, v, ABv, n);
  norm3<<<(n + 127) / 128, 128>>>(ABv, nr, n);
}

// A record of a float and an int: two registers of different types.
struct Particle { float x; int cell; };
__global__ KM void place(const float *x, Particle *p, int n) {
  GID;
  p[i].x = x[i];
  p[i].cell = (int)(x[i] * 16.0f);
}
__global__ KM void weigh(const Particle *p, float *w, int n) {
  GID;
  w[i] = p[i].x * (float)p[i].cell;
}
void particles(const float *x, Particle *p, float *w, int n) {
  place<<<(n + 255) / 256, 256>>>(x, p, n);
  weigh<<<(n + 255) / 256, 256>>>(p, w, n);
}

// Fields of one record: the first stage writes x, the second reads x (a
// register) and y (no stage writes it: memory) and then writes y.
__global__ KM void first(float2 *r, const float *a, int n) { GID; r[i].x = a[i]; }
__global__ KM void second(float2 *r, float *o, int n) {
  GID;
  o[i] = r[i].x + r[i].y;
  r[i].y = 0.0f;
}
void fields(float2 *r, const float *a, float *o, int n) {
  first<<<(n + 255) / 256, 256>>>(r, a, n);
  second<<<(n + 255) / 256, 256>>>(r, o, n);
}

// A double written, its upper half read as a float: not fused.
__global__ KM void wide(double *d, int n) { GID; d[i] = (double)i; }
__global__ KM void half(const double *d, float *o, int n) {
  GID;
  o[i] = ((const float *)d)[2 * i + 1];
}
void punned(double *d, float *o, int n) {
  wide<<<(n + 255) / 256, 256>>>(d, n);
  half<<<(n + 255) / 256, 256>>>(d, o, n);
}

// Three floats per thread at a stride of two: records overlap their
// neighbours', so the values cross between threads: not fused.
__global__ KM void spill(float *t, int n) {
  GID;
  t[2 * i] = 1.0f;
  t[2 * i + 1] = 2.0f;
}
__global__ KM void peek(const float *t, float *o, int n) { GID; o[i] = t[2 * i] + t[2 * i + 2]; }
void overlapping(float *t, float *o, int n) {
  spill<<<(n + 255) / 256, 256>>>(t, n);
  peek<<<(n + 255) / 256, 256>>>(t, o, n);
}

// The same field stored as a float and loaded as an int: not fused.
__global__ KM void putf(float *t, int n) { GID; t[i] = 1.5f; }
__global__ KM void geti(const float *t, int *o, int n) { GID; o[i] = ((const int *)t)[i]; }
void retyped(float *t, int *o, int n) {
  putf<<<(n + 255) / 256, 256>>>(t, n);
  geti<<<(n + 255) / 256, 256>>>(t, o, n);
}

// 5x5 matrices per instance: o = a + b, then twice more. (Unrolled: an index
// that depends on a loop counter is not analysed.)
__global__ KM void add25(const float *a, const float *b, float *o, int n) {
  GID;
#pragma unroll
  for (int k = 0; k < 25; k++)
    o[25 * i + k] = a[25 * i + k] + b[25 * i + k];
}
__global__ KM void scale25(const float *a, float *o, int n) {
  GID;
#pragma unroll
  for (int k = 0; k < 25; k++)
    o[25 * i + k] = 0.5f * a[25 * i + k];
}
void matrices55(const float *a, const float *b, float *t, float *u, float *o, int n) {
  add25<<<(n + 255) / 256, 256>>>(a, b, t, n);
  add25<<<(n + 255) / 256, 256>>>(t, b, u, n);
  scale25<<<(n + 255) / 256, 256>>>(u, o, n);
}
