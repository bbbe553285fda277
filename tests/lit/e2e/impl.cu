// Several implementations of one function (kfuse_impl): a launch of any of
// them may run, inside a fused kernel across granularities, the one the
// planner chooses; alone it runs the kernel the program launched. The psi
// table (Inputs/impl.psi) makes the nine-thread 3x3 product the cheaper of
// mmul33's and the one-thread product the cheaper of prod33's.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-psi=%S/Inputs/impl.psi -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: not grep 'PsiTableBlock\|table.s blocks' %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -mllvm -kfuse-psi=%S/Inputs/impl.psi %s -o %t.ll
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.ll
// Without the table the roofline model keeps the kernels launched.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=ROOFLINE
// A table that does not read: planned greedily, with the reason.
// A table measured in other blocks than the fused kernels' is used, with a remark.
// RUN: grep -v fused-block %S/Inputs/impl.psi > %t.paper.psi
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-psi=%t.paper.psi -Rpass-analysis=kfuse %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PAPER
// RUN: echo "fused-block 0" > %t.zero.psi
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-psi=%t.zero.psi -Rpass-missed=kfuse %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: echo "psi mmul33_c1 x 0 1" > %t.bad.psi
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-psi=%t.bad.psi -Rpass-missed=kfuse %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// REMARK-DAG: remark: kernel 'odd(float const*, float*, float)' implements 'mmul33' with other parameter types than 'mm1(float const*, float const*, float*, int)'; the implementations of a function take the same parameters, so none runs in place of another
// REMARK-DAG: remark: sequence 0 at {{.*}}impl.cu:{{[0-9]+}}:{{[0-9]+}} in 'forward': planned 3 launches for 1048576 elements each
// Why these implementations: the next cheapest choice and its margin.
// REMARK-DAG: remark: sequence 0 at {{.*}} in 'forward': launches 0..2 run implementations with 9,9,1 threads per instance, predicted [[P0:[0-9]+]] ns; the next cheapest choice, 1,9,1, is predicted 1000{{[0-9]+}} ns (+{{[0-9.]+}} %); -mllvm -kfuse-plans=K builds the K best choices to measure
// REMARK-DAG: remark: sequence 1 at {{.*}} in 'backward': launches 0..2 run implementations with 1,9,1 threads per instance, predicted {{[0-9]+}} ns; the next cheapest choice, 9,9,1, is predicted 1000{{[0-9]+}} ns
// REMARK-DAG: remark: fused launches 0..2 (mm9, sc9, tr1) of sequence 0 into __kfuse_fused_[[KEY:[0-9a-f]+]]_0_0_2_v0_1: C through shared memory, S through shared memory, with barriers; across granularities, threads per instance 9, 9, 1, 64 instances per block of 256 threads; launch 0 runs 'mm9' (9 threads per instance), another implementation of 'mmul33' than 'mm1' (1)
// The other way: the program launched nine threads per matrix.
// REMARK-DAG: remark: fused launches 0..2 (pr1, sc9, tr1) of sequence 1 into __kfuse_fused_[[KEY]]_1_0_2_v0_1: {{.*}}across granularities, threads per instance 1, 9, 1, 64 instances per block of 256 threads; launch 0 runs 'pr1' (1 thread per instance), another implementation of 'prod33' than 'pr9' (9)

// Every launch of nine threads per matrix runs its one-thread
// implementation: one granularity again, the product in registers, the
// runtime scaling both sizes.
// REMARK-DAG: remark: fused launches 0..1 (sd1, tp1) of sequence 3 into __kfuse_fused_[[KEY]]_3_0_1_v0_1: S in registers; across granularities, threads per instance 1, 1, 256 instances per block of 256 threads; launch 0 runs 'sd1' (1 thread per instance), another implementation of 'scale33b' than 'sd9' (9)

// Across granularities an output a one-thread stage writes whole, 36
// bytes per thread, goes through shared memory: the block stores it with
// consecutive threads after the last stage.
// REMARK-DAG: remark: fused launches 0..1 (sc9, tp1) of sequence 2 into __kfuse_fused_[[KEY]]_2_0_1: S through shared memory, with barriers; across granularities, threads per instance 9, 1, 64 instances per block of 256 threads; the block loads the records of C into shared memory with consecutive threads; the block stores the records of T from shared memory with consecutive threads, in 16-byte words where C and T start 16-byte aligned (the runtime checks)

// The stage runs mm9's body: one product of a row and a column per thread.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_2_v0_1(
// CHECK: bar.sync 0;
// CHECK: fma.rn.f32
// CHECK: ret;
// Sequence 2: the transposes go to the tile, then the block stores it.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_2_0_1(
// CHECK: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_2_0_1_{{\$}}_v{{[0-9]+}}_{{\$}}_out[2304];
// After the last barrier, the tile's 2304 bytes to the block's records in
// 16-byte words, 144 of the 256 threads a word each (the buffer's start
// 16-byte aligned: manifest `align`), then the words of the last whole
// record past the last whole 16-byte word, 4 bytes a thread.
// CHECK: bar.sync 0;
// CHECK: ld.shared.v4.b32 [[W:{%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+}]], [{{%rd[0-9]+}}];
// CHECK-NEXT: st.global.v4.b32 [{{%rd[0-9]+}}], [[W]];
// CHECK: st.global.b32
// CHECK: ret;

// MANIFEST: c"kfuse-manifest 1\0Agroup __kfuse_fused_{{[0-9a-f]+}}_0_0_2_v0_1 3\0Akernel 0 _Z3mm1PKfS0_Pfi 4\0Akernel 1 _Z3sc9PKfPffi 4\0Akernel 2 _Z3tr1PKfPfi 3\0Ashape gran 64 9 9 1 256\0Aimpl 0.3 1 9\0Astream same\0A
// The scaled size is stage 0's own: no `equal` line ties it to launch 2's n.
// MANIFEST-NOT: equal 0.3
// MANIFEST-SAME: \0Aequal 0.2 1.0\0Aequal 1.1 2.0\0Afootprint
// MANIFEST-SAME: group __kfuse_fused_{{[0-9a-f]+}}_1_0_2_v0_1 3\0Akernel 0 _Z3pr9PKfS0_Pfi 4\0Akernel 1 _Z3sc9PKfPffi 4\0Akernel 2 _Z3tr1PKfPfi 3\0Ashape gran 64 1 9 1 256\0Aimpl 0.3 9 1\0Astream same\0A
// MANIFEST-SAME: group __kfuse_fused_{{[0-9a-f]+}}_3_0_1_v0_1 2\0Akernel 0 _Z3sd9PKfPffi 4\0Akernel 1 _Z3tp1PKfPfi 3\0Ashape gran 256 1 1\0Aimpl 0.3 9 1\0Astream same\0A
// ROOFLINE-NOT: impl 0.3
// ROOFLINE: shape gran 64 1 9 1 256\0Astream same
// ROOFLINE-NOT: impl 0.3
// BAD: remark: {{.*}}psi table '{{.*}}bad.psi': line 1: bad number; planned greedily
// PAPER: remark: {{.*}}: the psi table '{{.*}}paper.psi' was measured in the seed paper's blocks of instances times threads per instance (it has no `fused-block` line), not in the fused kernels' blocks of 256 threads; the model prices each group in the table's blocks
// ZERO: remark: {{.*}}psi table '{{.*}}zero.psi': line 1: expected `fused-block <threads>`, 1 to 32768; planned greedily

#define KFUSE_IMPL(f, t) __attribute__((kfuse_impl(f, t)))

// The 3x3 product of instance i by one thread, and its element j % 9 by
// one of nine; two functions (mmul33, prod33) implemented by both.
__device__ inline void product1(const float *A, const float *B, float *C, int i) {
  float a[9], b[9];
#pragma unroll
  for (int k = 0; k < 9; k++)
    a[k] = A[9 * i + k], b[k] = B[9 * i + k];
#pragma unroll
  for (int r = 0; r < 3; r++)
#pragma unroll
    for (int c = 0; c < 3; c++)
      C[9 * i + 3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
}
__device__ inline void product9(const float *A, const float *B, float *C, int j) {
  int i = j / 9, r = j % 9 / 3, c = j % 3;
  const float *a = &A[9 * i + 3 * r], *b = &B[9 * i + c];
  C[j] = a[0] * b[0] + a[1] * b[3] + a[2] * b[6];
}

__global__ KFUSE_IMPL("mmul33", 1) void mm1(const float *A, const float *B, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  product1(A, B, C, i);
}
__global__ KFUSE_IMPL("mmul33", 9) void mm9(const float *A, const float *B, float *C, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m)
    return;
  product9(A, B, C, j);
}
// Not the parameters of mm1: never in its place.
__global__ KFUSE_IMPL("mmul33", 3) void odd(const float *A, float *C, float s) {}

__global__ KFUSE_IMPL("prod33", 9) void pr9(const float *A, const float *B, float *C, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m)
    return;
  product9(A, B, C, j);
}
__global__ KFUSE_IMPL("prod33", 1) void pr1(const float *A, const float *B, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  product1(A, B, C, i);
}

__global__ KFUSE_IMPL("scale33", 9) void sc9(const float *C, float *S, float alpha, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    S[j] = alpha * C[j];
}
__global__ KFUSE_IMPL("trace33", 1) void tr1(const float *S, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = S[9 * i] + S[9 * i + 4] + S[9 * i + 8];
}

void forward(const float *A, const float *B, float *C, float *S, float *t, int n, cudaStream_t s) {
  mm1<<<(n + 255) / 256, 256, 0, s>>>(A, B, C, n);
  sc9<<<(9 * n + 255) / 256, 256, 0, s>>>(C, S, 2.0f, 9 * n);
  tr1<<<(n + 255) / 256, 256, 0, s>>>(S, t, n);
}

void backward(const float *A, const float *B, float *C, float *S, float *t, int n, cudaStream_t s) {
  pr9<<<(9 * n + 255) / 256, 256, 0, s>>>(A, B, C, 9 * n);
  sc9<<<(9 * n + 255) / 256, 256, 0, s>>>(C, S, 2.0f, 9 * n);
  tr1<<<(n + 255) / 256, 256, 0, s>>>(S, t, n);
}

// The transpose of each 3x3 matrix, one thread per matrix.
__global__ KFUSE_IMPL("transpose33", 1) void tp1(const float *S, float *T, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll
  for (int r = 0; r < 3; r++)
#pragma unroll
    for (int c = 0; c < 3; c++)
      T[9 * i + 3 * c + r] = S[9 * i + 3 * r + c];
}

void transposed(const float *C, float *S, float *T, int n, cudaStream_t s) {
  sc9<<<(9 * n + 255) / 256, 256, 0, s>>>(C, S, 2.0f, 9 * n);
  tp1<<<(n + 255) / 256, 256, 0, s>>>(S, T, n);
}

// Another scaling, at nine threads per matrix and at one.
__global__ KFUSE_IMPL("scale33b", 9) void sd9(const float *C, float *S, float alpha, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    S[j] = alpha * C[j];
}
__global__ KFUSE_IMPL("scale33b", 1) void sd1(const float *C, float *S, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll
  for (int k = 0; k < 9; k++)
    S[9 * i + k] = alpha * C[9 * i + k];
}

void transposed9(const float *C, float *S, float *T, int n, cudaStream_t s) {
  sd9<<<(9 * n + 255) / 256, 256, 0, s>>>(C, S, 2.0f, 9 * n);
  tp1<<<(n + 255) / 256, 256, 0, s>>>(S, T, n);
}
