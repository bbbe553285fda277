// Implementations the device pass derives (DeriveImpl.cpp): a kfuse_impl
// kernel whose thread writes several values of its instance, each computed
// alike from loads at offsets that follow the value's place, gets
// implementations with more threads per instance, each thread writing some
// of the values. The psi table (Inputs/derived-impl.psi) makes the planner
// choose the 3x3 product with nine threads per instance and the
// matrix-vector product with three, neither of which the program wrote.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-psi=%S/Inputs/derived-impl.psi -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -mllvm -kfuse-psi=%S/Inputs/derived-impl.psi %s -o %t.ll
// RUN: sed -e 's/\\0A/\n/g' %t.ll | FileCheck %s --check-prefix=MANIFEST
// Nothing derived is left in the module: the fused kernel holds its copy.
// RUN: not grep -q 'kfuse.split' %t.ll
// Without a table, or with -kfuse-derive-impls=0, nothing is derived.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-analysis=kfuse %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-psi=%S/Inputs/derived-impl.psi -mllvm -kfuse-derive-impls=0 -Rpass=kfuse -Rpass-analysis=kfuse %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// The product split three ways (a row per thread): each thread reads its
// row of A, 12 bytes, which the block still loads as the instances'
// 36-byte records with consecutive threads.
// RUN: sed -e 's/^psi mm_c3 .*/psi mm_c3 64 0 1e-10/' %S/Inputs/derived-impl.psi > %t.rows.psi
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-psi=%t.rows.psi -Rpass=kfuse %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: remark: fused launches 0..2 (mm1 split 3 ways, mv1 split 3 ways, nrm1) of sequence 0 {{.*}}threads per instance 3, 3, 1,{{.*}}; the block loads the records of A, B, x into shared memory with consecutive threads
// A split the table has no routine for is not derived: the model could
// price it only by the roofline, whose times are not the table's.
// RUN: grep -v '^psi mm_c3 \|^psi mv_c3 ' %S/Inputs/derived-impl.psi > %t.noc3.psi
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-psi=%t.noc3.psi -Rpass-analysis=kfuse %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNPRICED
// UNPRICED-DAG: remark: no implementation of 'mv' with more threads per instance derived from kernel 'mv1(float const*, float const*, float*, int)': the psi table has no routine for any of its splits ('mv_c3')
// UNPRICED-DAG: remark: kernel 'mm1(float const*, float const*, float*, int)' writes 9 values of its instance per thread, computed alike: derived the implementations of 'mm' with 9 threads per instance, each thread writing some of the values; not those the psi table has no routine for ('mm_c3')
// The compiler's output is the same from one run to the next.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-psi=%S/Inputs/derived-impl.psi %s -o %t.again.ptx
// RUN: cmp %t.ptx %t.again.ptx

// REMARK-DAG: remark: kernel 'mm1(float const*, float const*, float*, int)' writes 9 values of its instance per thread, computed alike: derived the implementations of 'mm' with 3 and 9 threads per instance, each thread writing some of the values
// REMARK-DAG: remark: kernel 'mv1(float const*, float const*, float*, int)' writes 3 values of its instance per thread, computed alike: derived the implementations of 'mv' with 3 threads per instance
// REMARK-DAG: remark: no implementation of 'nrm' with more threads per instance derived from kernel 'nrm1(float const*, float*, int)': each thread stores one value
// REMARK-DAG: remark: no implementation of 'sp' with more threads per instance derived from kernel 'sp1(float const*, float*, int)': its values are not computed alike: value 1 of each thread differs from value 0 in more than constants
// REMARK-DAG: remark: no implementation of 'perm' with more threads per instance derived from kernel 'perm1(float const*, float*, int)': a constant of its values' computation does not follow the value's place in the instance (a * (k / q) + b * (k % q) + c)
// REMARK-DAG: remark: no implementation of 'twice' with more threads per instance derived from kernel 'twice1(float*, int)': it reads a parameter it writes
// REMARK-DAG: remark: no implementation of 'dup' with more threads per instance derived from kernel 'dup1(float const*, float*, int)': two of its stores write overlapping bytes
// REMARK-DAG: remark: no implementation of 'gs' with more threads per instance derived from kernel 'gs1(float const*, float*, int)': its thread runs a grid-stride loop, whose iterations are its instances
// REMARK-DAG: remark: no implementation of 'tw' with more threads per instance derived from kernel 'tw1(float const*, float*, int)': it is fused through a copy with its out-of-line helpers inlined, which is not split
// REMARK-DAG: remark: no implementation of 'clip' with more threads per instance derived from kernel 'clip1(float const*, float*, int)': its code is not one block of straight-line code under its bounds check
// REMARK-DAG: remark: fused launches 0..2 (mm1 split 9 ways, mv1 split 3 ways, nrm1) of sequence 0 into __kfuse_fused_[[KEY:[0-9a-f]+]]_0_0_2_v0_2_v1_1: C through shared memory, y through shared memory, with barriers; across granularities, threads per instance 9, 3, 1, 64 instances per block of 256 threads; launch 0 runs 'mm1' with 9 threads per instance, an implementation of 'mm' that kfuse derived from it (launched with 1); launch 1 runs 'mv1' with 3 threads per instance, an implementation of 'mv' that kfuse derived from it (launched with 1)
// The program's nine-thread product runs as rows derived from its
// one-thread one; no nine-way split of mq1 is derived, the program wrote one.
// REMARK-DAG: remark: kernel 'mq1(float const*, float const*, float*, int)' writes 9 values of its instance per thread, computed alike: derived the implementations of 'mq' with 3 threads per instance, each thread writing some of the values
// REMARK-DAG: remark: fused launches 0..2 (mq1 split 3 ways, mv1 split 3 ways, nrm1) of sequence {{[0-9]+}} into {{.*}}; launch 0 runs 'mq1' with 3 threads per instance, an implementation of 'mq' that kfuse derived from it, in place of 'mq9' (9);
// The product into its own operand keeps one thread per instance.
// REMARK-DAG: remark: fused launches 0..2 (mm1, mv1 split 3 ways, nrm1) of sequence {{[0-9]+}} into __kfuse_fused_[[KEY]]_{{[0-9]+}}_0_2_v1_1: {{.*}}threads per instance 1, 3, 1,
// OFF-NOT: derived the implementations
// OFF-NOT: split {{[0-9]+}} ways
// OFF: remark: fused launches 0..2 (mm1, mv1, nrm1) of sequence 0
// OFF-NOT: split {{[0-9]+}} ways

// The runtime passes each derived stage its size times its split.
// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_0_2_v0_2_v1_1 3
// MANIFEST-NEXT: kernel 0 _Z3mm1PKfS0_Pfi 4
// MANIFEST-NEXT: kernel 1 _Z3mv1PKfS0_Pfi 4
// MANIFEST-NEXT: kernel 2 _Z4nrm1PKfPfi 3
// MANIFEST-NEXT: shape gran 64 9 3 1 256
// MANIFEST-NEXT: impl 0.3 1 9
// MANIFEST-NEXT: impl 1.3 1 3

#define KFUSE_IMPL(f, t) __attribute__((kfuse_impl(f, t)))

// One thread per 3x3 matrix: nine values, each a row of A times a column of B.
__device__ inline void product33(const float *A, const float *B, float *C, int i) {
#pragma unroll
  for (int r = 0; r < 3; r++)
#pragma unroll
    for (int c = 0; c < 3; c++) {
      float s = A[9 * i + 3 * r] * B[9 * i + c];
#pragma unroll
      for (int k = 1; k < 3; k++)
        s += A[9 * i + 3 * r + k] * B[9 * i + 3 * k + c];
      C[9 * i + 3 * r + c] = s;
    }
}
__global__ KFUSE_IMPL("mm", 1) void mm1(const float *A, const float *B, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    product33(A, B, C, i);
}
// Another function, "mq", of the same product: the program wrote it with
// one thread per matrix and with nine, one per element (j % 9 of instance
// j / 9); kfuse derives the rows, three threads per matrix.
__global__ KFUSE_IMPL("mq", 1) void mq1(const float *A, const float *B, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    product33(A, B, C, i);
}
__global__ KFUSE_IMPL("mq", 9) void mq9(const float *A, const float *B, float *C, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    int i = j / 9, r = j % 9 / 3, c = j % 3;
    float s = A[9 * i + 3 * r] * B[9 * i + c];
#pragma unroll
    for (int k = 1; k < 3; k++)
      s += A[9 * i + 3 * r + k] * B[9 * i + 3 * k + c];
    C[j] = s;
  }
}
// Three values per instance: the matrix times a vector.
__global__ KFUSE_IMPL("mv", 1) void mv1(const float *M, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll
  for (int r = 0; r < 3; r++)
    y[3 * i + r] = M[9 * i + 3 * r] * x[3 * i] + M[9 * i + 3 * r + 1] * x[3 * i + 1] +
                   M[9 * i + 3 * r + 2] * x[3 * i + 2];
}
// One value per instance (the squared norm): nothing to split.
__global__ KFUSE_IMPL("nrm", 1) void nrm1(const float *y, float *s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    s[i] = y[3 * i] * y[3 * i] + y[3 * i + 1] * y[3 * i + 1] + y[3 * i + 2] * y[3 * i + 2];
}
// Values computed differently: a sum and a product.
__global__ KFUSE_IMPL("sp", 1) void sp1(const float *a, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    o[2 * i] = a[2 * i] + a[2 * i + 1];
    o[2 * i + 1] = a[2 * i] * a[2 * i + 1];
  }
}
// A permutation no a * (k / q) + b * (k % q) + c describes.
__global__ KFUSE_IMPL("perm", 1) void perm1(const float *a, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    o[3 * i] = a[3 * i + 2];
    o[3 * i + 1] = a[3 * i];
    o[3 * i + 2] = a[3 * i + 1];
  }
}
// In place: it reads the values it writes.
__global__ KFUSE_IMPL("twice", 1) void twice1(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[2 * i] *= 2.0f;
    a[2 * i + 1] *= 2.0f;
  }
}
// A loop the compiler keeps.
__global__ KFUSE_IMPL("rows", 1) void rows1(const float *a, float *o, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < m; k++)
      o[i * m + k] = 2.0f * a[i * m + k];
}

void chain(const float *A, const float *B, const float *x, float *C, float *y, float *s, int n) {
  int g = (n + 255) / 256;
  mm1<<<g, 256>>>(A, B, C, n);
  mv1<<<g, 256>>>(C, x, y, n);
  nrm1<<<g, 256>>>(y, s, n);
}
void others(const float *a, float *o, float *p, float *q, int m, int n) {
  int g = (n + 255) / 256;
  sp1<<<g, 256>>>(a, o, n);
  perm1<<<g, 256>>>(a, p, n);
  twice1<<<g, 256>>>(q, n);
  rows1<<<g, 256>>>(a, q, m, n);
}
// Launched with nine threads per matrix: the fused kernel runs mq1's rows
// in its place.
void nine(const float *A, const float *B, const float *x, float *C, float *y, float *s, int n) {
  mq9<<<(9 * n + 255) / 256, 256>>>(A, B, C, 9 * n);
  mv1<<<(n + 255) / 256, 256>>>(C, x, y, n);
  nrm1<<<(n + 255) / 256, 256>>>(y, s, n);
}
// The product written into its own first operand: its derived
// implementations would read what other threads of the instance write.
void inplace(float *A, const float *B, const float *x, float *y, float *s, int n) {
  int g = (n + 255) / 256;
  mm1<<<g, 256>>>(A, B, A, n);
  mv1<<<g, 256>>>(A, x, y, n);
  nrm1<<<g, 256>>>(y, s, n);
}
// Two stores to one place (the load between them may read it, so both
// stay): split over threads, they would race.
__global__ KFUSE_IMPL("dup", 1) void dup1(const float *a, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    o[2 * i] = a[2 * i];
    o[2 * i] = a[2 * i + 1];
  }
}
void duplicated(const float *a, float *o, float *p, int n) {
  int g = (n + 255) / 256;
  dup1<<<g, 256>>>(a, o, n);
  sp1<<<g, 256>>>(o, p, n);
}
// A grid-stride loop: each iteration is an instance of its own.
__global__ KFUSE_IMPL("gs", 1) void gs1(const float *a, float *o, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    o[2 * i] = a[2 * i];
    o[2 * i + 1] = a[2 * i + 1];
  }
}
void strided(const float *a, float *o, float *p, int n) {
  gs1<<<132, 256>>>(a, o, n);
  sp1<<<132, 256>>>(o, p, n);
}
// Its stores in a helper kept out of line.
__device__ __noinline__ void put2(const float *a, float *o, int i) {
  o[2 * i] = a[2 * i];
  o[2 * i + 1] = a[2 * i + 1];
}
__global__ KFUSE_IMPL("tw", 1) void tw1(const float *a, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    put2(a, o, i);
}
void helped(const float *a, float *o, float *p, int n) {
  int g = (n + 255) / 256;
  tw1<<<g, 256>>>(a, o, n);
  sp1<<<g, 256>>>(o, p, n);
}
// A branch in the body.
__global__ KFUSE_IMPL("clip", 1) void clip1(const float *a, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (a[2 * i] > 0.0f)
      o[2 * i] = a[2 * i];
    o[2 * i + 1] = a[2 * i + 1];
  }
}
void clipped(const float *a, float *o, float *p, int n) {
  int g = (n + 255) / 256;
  clip1<<<g, 256>>>(a, o, n);
  sp1<<<g, 256>>>(o, p, n);
}
// The product in loops the compiler keeps: the implementations derive from
// the kernel's copy with its loops unrolled (ThreadLoops.h).
__global__ KFUSE_IMPL("ml", 1) void ml1(const float *A, const float *B, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
#pragma unroll 1
    for (int r = 0; r < 3; r++)
#pragma unroll 1
      for (int c = 0; c < 3; c++) {
        float s = A[9 * i + 3 * r] * B[9 * i + c];
#pragma unroll
        for (int k = 1; k < 3; k++)
          s += A[9 * i + 3 * r + k] * B[9 * i + 3 * k + c];
        C[9 * i + 3 * r + c] = s;
      }
}
// REMARK-DAG: remark: kernel 'ml1(float const*, float const*, float*, int)': 108 bytes and 45 flops per element; analysed and fused with its 2 loops of constant trip count unrolled (launched alone, it keeps them)
// REMARK-DAG: remark: kernel 'ml1(float const*, float const*, float*, int)' writes 9 values of its instance per thread, computed alike: derived the implementations of 'ml' with 3 and 9 threads per instance
// REMARK-DAG: remark: fused launches 0..2 (ml1 split 9 ways, mv1 split 3 ways, nrm1) of sequence {{[0-9]+}} into {{.*}}threads per instance 9, 3, 1,
void looped(const float *A, const float *B, const float *x, float *C, float *y, float *s, int n) {
  int g = (n + 255) / 256;
  ml1<<<g, 256>>>(A, B, C, n);
  mv1<<<g, 256>>>(C, x, y, n);
  nrm1<<<g, 256>>>(y, s, n);
}
