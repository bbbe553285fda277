// Across granularities a fused block holds 64 instances at least, its
// stages looping over their threads; where the tiles of 64 instances do
// not fit in a block's 48 KB of shared memory, it holds 256 / max(threads
// per instance) instances instead, no stage looping. Here two
// intermediates' records of 400 bytes (100 floats) per instance would take
// 51 KB at 64 instances: the block holds two, in 200 threads. The greedy
// planner forms the group whatever the cost model predicts.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-planner=greedy -Rpass=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -mllvm -kfuse-planner=greedy %s -o %t.ll
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.ll

// REMARK: remark: fused launches 0..1 (wide, add) of sequence 0 into {{.*}}: C through shared memory, D through shared memory, with barriers; across granularities, threads per instance 1, 100, 2 instances per block of 200 threads; the block loads the records of A into shared memory with consecutive threads
// With records of 40 bytes, 64 instances fit: the 100-thread stage loops.
// REMARK: remark: fused launches 0..1 (narrow, scale) of sequence 1 into {{.*}}: C through shared memory, with barriers; across granularities, threads per instance 1, 10, 64 instances per block of 256 threads

// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// CHECK: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_0_0_1_{{\$}}_v{{[0-9]+}}_{{\$}}_tile[800];
// CHECK: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_0_0_1_{{\$}}_v{{[0-9]+}}_{{\$}}_tile[800];

// No block's threads after the threads per instance: no stage loops.
// MANIFEST: \0Ashape gran 2 1 100\0A
// MANIFEST-SAME: \0Ashape gran 64 1 10 256\0A

#define KFUSE_MAP __attribute__((kfuse_map))

__global__ KFUSE_MAP void wide(const float *A, float *C, float *D, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll
  for (int k = 0; k < 100; k++) {
    C[100 * i + k] = 2.0f * A[100 * i + k];
    D[100 * i + k] = A[100 * i + k] - 1.0f;
  }
}

__global__ KFUSE_MAP void add(const float *C, const float *D, float *S, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    S[j] = C[j] + D[j];
}

__global__ KFUSE_MAP void narrow(const float *A, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll
  for (int k = 0; k < 10; k++)
    C[10 * i + k] = 2.0f * A[10 * i + k];
}

__global__ KFUSE_MAP void scale(const float *C, float *S, float alpha, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    S[j] = alpha * C[j];
}

void wide_records(const float *A, float *C, float *D, float *S, int n) {
  wide<<<(n + 127) / 128, 128>>>(A, C, D, n);
  add<<<(100 * n + 255) / 256, 256>>>(C, D, S, 100 * n);
}

void narrow_records(const float *A, float *C, float *S, int n) {
  narrow<<<(n + 127) / 128, 128>>>(A, C, n);
  scale<<<(10 * n + 255) / 256, 256>>>(C, S, 0.5f, 10 * n);
}
