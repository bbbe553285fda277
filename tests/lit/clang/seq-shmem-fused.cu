// The Clang plugin's records of equal configurations written differently
// let the device pass fuse: a grid from a const block size and the same
// grid with the literal, dim3 and int block sizes, and a dynamic shared
// memory size from sizeof and a constexpr against the literal, which the
// manifest carries as its value.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ll

__global__ __attribute__((kfuse_map)) void scale(const float *x, float *t, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = a * x[i]; }
__global__ __attribute__((kfuse_map)) void axpy(const float *t, const float *y, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = t[i] + y[i]; }

constexpr int BS = 256;
void run(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  const int bs = 256;
  scale<<<(n + bs - 1) / bs, dim3(bs), BS * sizeof(float), s>>>(x, t, 2.0f, n);
  axpy<<<dim3((n + 256 - 1) / 256), 256, 1024, s>>>(t, y, o, n);
}

// REMARK: remark: fused launches 0..1 ({{.*}}) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1
// REMARK-NOT: not fused
// CHECK: @__kfuse_manifest_{{[0-9a-f]+}} = {{.*}}\0Adynshmem 1024\0A
