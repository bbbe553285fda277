// Sequences in a member function, in a lambda (named by its call operator)
// and in main; uninstantiated templates are not read. Kernels without
// parameters have an empty args list.
// RUN: %clang_cuda --cuda-device-only -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o - \
// RUN:   | sed -e 's/\\0A/\n/g' | FileCheck %s

__global__ __attribute__((kfuse_map)) void k0() {}
__global__ __attribute__((kfuse_map)) void k1(float *p) {}

struct Runner {
  float *buf;
  void go() { k1<<<1, 1>>>(buf); k1<<<1, 1>>>(buf); }
};
template <typename T> void never_instantiated(T *p) { k1<<<1, 1>>>(p); k1<<<1, 1>>>(p); }

int main() {
  float *p = nullptr;
  auto l = [&] { k0<<<1, 1>>>(); k0<<<1, 1>>>(); };
  l();
  Runner r{p};
  r.go();
  k1<<<1, 1>>>(nullptr);
  k1<<<dim3(2, 2), 1>>>(p);
  return 0;
}

// CHECK: site {{.*}}seq-host-contexts.cu:12:17 _ZN6Runner2goEv
// CHECK-NEXT: launch 0 _Z2k1Pf grid=0 block=0 shmem=1 stream=1 args=2
// CHECK-NEXT: launch 1 _Z2k1Pf grid=0 block=0 shmem=1 stream=1 args=2
// CHECK: site {{.*}}seq-host-contexts.cu:22:5 main
// CHECK-NEXT: launch 0 _Z2k1Pf grid=0 block=0 shmem=1 stream=1 args=2
// CHECK-NEXT: launch 1 _Z2k1Pf grid=3 block=0 shmem=1 stream=1 args=4
// CHECK-NEXT: value 0 int 1
// CHECK-NEXT: value 1 int 0
// CHECK-NEXT: value 2 ptr nullptr
// CHECK-NEXT: value 3 other dim3(2, 2)
// CHECK-NEXT: value 4 ptr p
// CHECK: site {{.*}}seq-host-contexts.cu:18:20 _ZZ4mainENKUlvE_clEv
// CHECK-NEXT: launch 0 _Z2k0v grid=0 block=0 shmem=1 stream=1 args={{$}}
// CHECK-NEXT: launch 1 _Z2k0v grid=0 block=0 shmem=1 stream=1 args={{$}}
// CHECK-NOT: site
