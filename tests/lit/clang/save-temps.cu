// Records and marks are in the IR itself: they survive -save-temps (the
// preprocessed file is compiled in a separate cc1), and opt reads them back
// from the saved device bitcode.
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %clang_cuda --cuda-device-only -save-temps -O0 -c %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o %t/out.o
// RUN: ls %t/*.cui
// RUN: %opt -S %t/*-cuda-nvptx64-nvidia-cuda-sm_*.bc -o - | sed -e 's/\\0A/\n/g' | FileCheck %s
// Both sides in one driver run: the host module has the stub marks only.
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %clang_cuda -save-temps -O0 -c %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o %t/both.o
// RUN: %opt -S %t/*-cuda-nvptx64-nvidia-cuda-sm_*.bc -o - | sed -e 's/\\0A/\n/g' | FileCheck %s
// RUN: %opt -S %t/*-host-*.bc -o - | FileCheck %s --check-prefix=HOST

__global__ __attribute__((kfuse_map)) void k1(const float *x, float *y, int n) {}
__global__ __attribute__((kfuse_map)) void k2(const float *x, float *y, int n) {}

void run(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  k2<<<1, 128>>>(b, a, n);
}

// CHECK: @__kfuse_seq_0 = internal addrspace(1) global i8 0
// CHECK: c"kfuse.seq 1
// CHECK-NEXT: site {{.*}}save-temps.cu:18:5 _Z3runPfS_i
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,5
// CHECK-NEXT: launch 1 _Z2k2PKfPfi grid=0 block=1 shmem=2 stream=2 args=4,3,5
// CHECK: @llvm.global.annotations = {{.*}}@__kfuse_seq_0{{.*}}@_Z2k1PKfPfi{{.*}}@_Z2k2PKfPfi

// HOST-NOT: kfuse.seq
// HOST: @llvm.global.annotations = {{.*}}@_Z17__device_stub__k1PKfPfi{{.*}}@_Z17__device_stub__k2PKfPfi
