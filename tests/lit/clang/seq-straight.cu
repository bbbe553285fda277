// The example of docs/annotations.md: two launches on one stream, with the
// record written exactly, its variable kept internal and used, and the
// kernels still marked.
// RUN: %clang_cuda --cuda-device-only -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o - \
// RUN:   | sed -e 's/\\0A/\n/g' | FileCheck %s

__global__ __attribute__((kfuse_map)) void scale(const float *x, float *t, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = a * x[i]; }
__global__ __attribute__((kfuse_map)) void axpy(const float *t, const float *y, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = t[i] + y[i]; }

void run(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  dim3 g((n + 255) / 256), b(256);
  scale<<<g, b, 0, s>>>(x, t, 2.0f, n);
  axpy <<<g, b, 0, s>>>(t, y, o, n);
}

// The dim3 locals of one extent are their extents: g is the int value
// (n + 255) / 256 over n's value, b the constant 256.
// CHECK: @__kfuse_seq_0 = internal addrspace(1) global i8 0
// CHECK: c"kfuse.seq 1
// CHECK-NEXT: site {{.*}}seq-straight.cu:14:8 _Z3runPKfPfS0_S1_iP11CUstream_st
// CHECK-NEXT: launch 0 _Z5scalePKfPffi grid=1 block=2 shmem=3 stream=4 args=5,6,7,0
// CHECK-NEXT: launch 1 _Z4axpyPKfS0_Pfi grid=1 block=2 shmem=3 stream=4 args=6,8,9,0
// CHECK-NEXT: value 0 int n
// CHECK-NEXT: value 1 int g
// CHECK-NEXT: value 2 int 256
// CHECK-NEXT: value 3 int 0
// CHECK-NEXT: value 4 other s
// CHECK-NEXT: value 5 ptr x
// CHECK-NEXT: value 6 ptr t
// CHECK-NEXT: value 7 float 2.0f
// CHECK-NEXT: value 8 ptr y
// CHECK-NEXT: value 9 ptr o
// CHECK-NEXT: \00", section "llvm.metadata"
// CHECK: @llvm.global.annotations = {{.*}}@__kfuse_seq_0{{.*}}@_Z5scalePKfPffi{{.*}}@_Z4axpyPKfS0_Pfi
// CHECK: @llvm.compiler.used = {{.*}}@__kfuse_seq_0
// CHECK-NOT: __kfuse_seq_1
