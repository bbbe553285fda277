// Launches over the same instances at different granularities (Fousek,
// Filipovic and Madzin's medium-grained mapping): one thread per 3x3 matrix,
// one per element, one per matrix again. The device pass finds the threads
// per instance from the offsets at which the stages meet (36*i written, 4*j
// read: nine to one), runs each stage on its share of a block's threads
// (looping over it where it is more than the block's 256), copies the
// inputs' records of the block's instances into shared memory, and stages
// the intermediates through shared memory with barriers; a
// per-instance scalar read by each of an instance's threads (s[j / 25]) is
// the instance's element
// (FusionCandidate::Tpi, Legality.cpp). The manifest says `shape gran` and
// guards that each launch covers its own bound. Refused: a consumer that
// reads another instance's element, a stage whose access is not under its
// `j < m` check; a grid-stride stage is not recognised as one.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.ll

// 1, 9, 1 threads per instance: 64 instances in a block of 256 threads,
// over which the nine-thread stage loops. The inputs A and B, read in
// records of 36 bytes by the product, are copied a block of 64 matrices at
// a time by consecutive threads.
// REMARK: remark: fused launches 0..2 (mmul33, scale, trace) of sequence 0 into [[K0:__kfuse_fused_[0-9a-f]+_0_0_2]]: C through shared memory, S through shared memory, with barriers; across granularities, threads per instance 1, 9, 1, 64 instances per block of 256 threads; the block loads the records of A, B into shared memory with consecutive threads, in 16-byte words where A and B start 16-byte aligned (the runtime checks); saves
// The same kernels launched with one grid over 9n threads fuse the same way.
// REMARK: remark: fused launches 0..2 (mmul33, scale, trace) of sequence 1 into {{.*}}; across granularities, threads per instance 1, 9, 1, 64 instances per block of 256 threads
// Two threads per pair, then one.
// REMARK: remark: fused launches 0..1 (square, pairsum) of sequence 2 into {{.*}}: w through shared memory, with barriers; across granularities, threads per instance 2, 1, 128 instances per block of 256 threads
// A consumer reading the next instance's element.
// REMARK: remark: launches 0..1 (mmul33, scale_next) of sequence 3 at {{.*}} not fused: buffer 'C': launch 1 (scale_next) reads it at byte offset 4*blockDim.x*blockIdx.x+4*threadIdx.x+36, which is not an element of the same instances as the other stages' (threads per instance 9)
// A grid-stride loop's offsets count its iterations: no granularity is
// found, and the launches differ in configuration.
// REMARK: remark: launches 0..1 (mmul33, scale_loop) of sequence 4 at {{.*}} not fused: launches 0 and 1 differ in launch configuration
// REMARK: remark: launches 0..1 (mmul33, scale_unguarded) of sequence 5 at {{.*}} not fused: the launches run at different granularities (threads per instance 1, 9) and launch 1 (scale_unguarded) makes an access that is not under one check `i < n`
// A per-instance scalar read by each of 25 threads, s[j / 25]: it is read
// at its instance's slot of the tile.
// REMARK: remark: fused launches 0..1 (sumsq, smul25) of sequence 6 into [[K6:__kfuse_fused_[0-9a-f]+_6_0_1]]: s through shared memory, with barriers; across granularities, threads per instance 1, 25, 64 instances per block of 256 threads

// Every element a stage reads is one an earlier stage wrote (the manifest's
// `le` guards say the launches' instances correspond): no written flags.
// A block holds 64 instances in 256 threads: the block copies A and B
// (2304 bytes each, consecutive threads, 16-byte words below the last
// whole one and the rest in 4-byte words: the buffers' starts 16-byte
// aligned, manifest `align`), the product reads them from shared memory
// only, on the first 64 threads; the scaling, 576 threads' work, loops over
// the block's threads, 256 at a time.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_2(
// CHECK: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_0_0_2_{{\$}}_v{{[0-9]+}}_{{\$}}_tile[2304];
// CHECK-NOT: _written
// CHECK: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_0_0_2_{{\$}}_v{{[0-9]+}}_{{\$}}_in[2304];
// CHECK: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_0_0_2_{{\$}}_v{{[0-9]+}}_{{\$}}_in[2304];
// CHECK-NOT: _written
// CHECK: ld.global.nc.v4.b32
// CHECK: ld.global.nc.v4.b32
// CHECK: st.shared.v4.b32
// CHECK: st.shared.v4.b32
// CHECK: ld.global.nc.b32
// CHECK: st.shared.b32
// CHECK: ld.global.nc.b32
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK-NOT: ld.global
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 256;
// CHECK-NEXT: setp.lt.u32 {{%p[0-9]+}}, {{%r[0-9]+}}, 320;
// CHECK: bar.sync 0;
// CHECK: ret;
// The scalar's tile holds 64 instances' (256 bytes); the scaling's 1600
// threads' work loops, and reads it at its instance, a quotient by 25 (a
// multiply-high).
// An input whose records no stage reads to their last byte (only the
// first three floats of each 3x3 matrix) is not copied: the copy could
// read past what the launches read.
// REMARK: remark: fused launches 0..1 (firstrow, scale) of sequence 7 into {{.*}}: C through shared memory, with barriers; across granularities, threads per instance 1, 9, 64 instances per block of 256 threads; saves
// A product with nine threads per 3x3 matrix, each reading a row of A and
// a column of B at 9 * (j / 9) + 3 * (j % 9 / 3) + k and 9 * (j / 9) + j %
// 3 + 3 * k: inside its matrix's 36 bytes (the indices are evaluated at
// each of the nine places), so A and B are copied too, and have
// footprints.
// REMARK: remark: fused launches 0..1 (mmul33_9, trace9) of sequence 8 into {{.*}}: C through shared memory, with barriers; across granularities, threads per instance 9, 1, 64 instances per block of 256 threads; the block loads the records of A, B into shared memory with consecutive threads
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_6_0_1(
// CHECK: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_6_0_1_{{\$}}_v{{[0-9]+}}_{{\$}}_tile[256];
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 256;
// CHECK: mul.hi.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1374389535;
// CHECK: ld.shared.b32
// CHECK: ld.shared.b32

// Each launch covers its own check; the scaling touches only matrices the
// product completes (ceil(m / 9) <= n), the trace only matrices whose nine
// elements the scaling completes (n <= floor(m / 9)), the product at least
// one matrix for the copy of A and B to read.
// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_0_2 3\0Akernel 0 _Z6mmul33PKfS0_Pfi 4\0Akernel 1 _Z5scalePKfPffi 4\0Akernel 2 _Z5tracePKfPfi 3\0Ashape gran 64 1 9 1 256\0Astream same\0Adynshmem 0\0Ale 0 0 s3\0Ale 0 1 s3\0Ale 0 s3 bx*gx\0Ale 1 (s3+8)/9 0 s3\0Ale 1 0 s3\0Ale 1 s3 bx*gx\0Ale 2 0 s2\0Ale 2 s2 1 s3/9\0Ale 2 s2 bx*gx\0A
// MANIFEST-SAME: \0Aalign 0.0 16\0Aalign 0.1 16\0Alaunch 0 0 0\0A
// MANIFEST-SAME: \0Ashape gran 128 2 1\0A
// MANIFEST-SAME: \0Ashape gran 64 1 25 256\0A
// The instance's scalar s[j / 25] has a footprint: the records of the
// instances below min(threads, m), a quotient (manifest `/`).
// MANIFEST-SAME: \0Afootprint 1.0 r 0 4*((max(min(bx*gx,s3),1)-1)/25)+4\0A
// Rows and columns read by a nine-thread product have footprints too.
// MANIFEST-SAME: \0Afootprint 0.0 r 0 36*((max(min(bx*gx,s3),1)-1)/9)+36\0Afootprint 0.1 r 0 36*((max(min(bx*gx,s3),1)-1)/9)+36\0A

#define KFUSE_MAP __attribute__((kfuse_map))

__global__ KFUSE_MAP void mmul33(const float *A, const float *B, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float a[9], b[9];
#pragma unroll
  for (int k = 0; k < 9; k++) {
    a[k] = A[9 * i + k];
    b[k] = B[9 * i + k];
  }
#pragma unroll
  for (int r = 0; r < 3; r++)
#pragma unroll
    for (int c = 0; c < 3; c++)
      C[9 * i + 3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
}

__global__ KFUSE_MAP void scale(const float *C, float *S, float alpha, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    S[j] = alpha * C[j];
}

__global__ KFUSE_MAP void trace(const float *S, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = S[9 * i] + S[9 * i + 4] + S[9 * i + 8];
}

__global__ KFUSE_MAP void square(const float *x, float *w, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    w[j] = x[j] * x[j] + 1.0f;
}

__global__ KFUSE_MAP void pairsum(const float *w, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = w[2 * i] + w[2 * i + 1];
}

__global__ KFUSE_MAP void scale_next(const float *C, float *S, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    S[j] = C[j + 9];
}

__global__ KFUSE_MAP void scale_loop(const float *C, float *S, int m) {
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < m; j += blockDim.x * gridDim.x)
    S[j] = 2.0f * C[j];
}

__global__ KFUSE_MAP void scale_unguarded(const float *C, float *S, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  S[j] = 2.0f * C[j];
}

__global__ KFUSE_MAP void sumsq(const float *v, float *s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    s[i] = v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2];
}

__global__ KFUSE_MAP void smul25(const float *s, const float *X, float *F, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    F[j] = s[j / 25] * X[j];
}

__global__ KFUSE_MAP void firstrow(const float *A, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll
  for (int k = 0; k < 9; k++)
    C[9 * i + k] = A[9 * i + k % 3];
}

__global__ KFUSE_MAP void mmul33_9(const float *A, const float *B, float *C, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m)
    return;
  int i = j / 9, r = j % 9 / 3, c = j % 3;
  const float *a = &A[9 * i + 3 * r], *b = &B[9 * i + c];
  C[j] = a[0] * b[0] + a[1] * b[3] + a[2] * b[6];
}

__global__ KFUSE_MAP void trace9(const float *C, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = C[9 * i] + C[9 * i + 4] + C[9 * i + 8];
}

void chain(const float *A, const float *B, float *C, float *S, float *t, int n) {
  mmul33<<<(n + 127) / 128, 128>>>(A, B, C, n);
  scale<<<(9 * n + 255) / 256, 256>>>(C, S, 0.5f, 9 * n);
  trace<<<(n + 127) / 128, 128>>>(S, t, n);
}

void one_grid(const float *A, const float *B, float *C, float *S, float *t, int n) {
  int g = (9 * n + 255) / 256;
  mmul33<<<g, 256>>>(A, B, C, n);
  scale<<<g, 256>>>(C, S, 0.5f, 9 * n);
  trace<<<g, 256>>>(S, t, n);
}

void pairs(const float *x, float *w, float *o, int n) {
  square<<<(2 * n + 255) / 256, 256>>>(x, w, 2 * n);
  pairsum<<<(n + 255) / 256, 256>>>(w, o, n);
}

void next(const float *A, const float *B, float *C, float *S, int n) {
  mmul33<<<(n + 127) / 128, 128>>>(A, B, C, n);
  scale_next<<<(9 * n + 255) / 256, 256>>>(C, S, 9 * n - 9);
}

void loop(const float *A, const float *B, float *C, float *S, int n) {
  mmul33<<<(n + 127) / 128, 128>>>(A, B, C, n);
  scale_loop<<<264, 256>>>(C, S, 9 * n);
}

void unguarded(const float *A, const float *B, float *C, float *S, int n) {
  mmul33<<<(n + 127) / 128, 128>>>(A, B, C, n);
  scale_unguarded<<<9 * n / 256, 256>>>(C, S, 9 * n);
}

void instance_scalar(const float *v, float *s, const float *X, float *F, int n) {
  sumsq<<<(n + 127) / 128, 128>>>(v, s, n);
  smul25<<<(25 * n + 255) / 256, 256>>>(s, X, F, 25 * n);
}

void partial_records(const float *A, float *C, float *S, int n) {
  firstrow<<<(n + 127) / 128, 128>>>(A, C, n);
  scale<<<(9 * n + 255) / 256, 256>>>(C, S, 0.5f, 9 * n);
}

void rows_and_columns(const float *A, const float *B, float *C, float *t, int n) {
  mmul33_9<<<(9 * n + 255) / 256, 256>>>(A, B, C, 9 * n);
  trace9<<<(n + 127) / 128, 128>>>(C, t, n);
}
