// A sequence in a lambda of host code reads the same with and without
// -fgpu-rdc. Under -fgpu-rdc the device compilation takes the lambda for
// __host__ __device__ and its launches for launches from device code, whose
// configuration call is cudaLaunchDevice(func, params, grid, block, shmem,
// stream); the record still names the grid, block, shared memory and
// stream, as the host compilation's does, so that both sides agree.
// RUN: %clang_cuda --cuda-device-only -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o - \
// RUN:   | sed -e 's/\\0A/\n/g' | FileCheck %s
// RUN: %clang_cuda --cuda-device-only -fgpu-rdc -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o - \
// RUN:   | sed -e 's/\\0A/\n/g' | FileCheck %s

__global__ __attribute__((kfuse_map)) void k1(const float *x, float *t, int n) {}

void run(const float *x, float *t, int n, unsigned grid, int block, cudaStream_t s) {
  auto step = [&] {
    k1<<<grid, block, 64, s>>>(x, t, n);
    k1<<<grid, block, 64, s>>>(t, t, n);
  };
  step();
}

// CHECK: site {{.*}}seq-rdc-lambda.cu:16:7 _ZZ3runPKfPfijiP11CUstream_stENKUlvE_clEv
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=3 args=4,5,6
// CHECK-NEXT: launch 1 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=3 args=5,5,6
// CHECK-NEXT: value 0 int grid
// CHECK-NEXT: value 1 int block
// CHECK-NEXT: value 2 int 64
// CHECK-NEXT: value 3 other s
// CHECK-NEXT: value 4 ptr x
// CHECK-NEXT: value 5 ptr t
// CHECK-NEXT: value 6 int n
