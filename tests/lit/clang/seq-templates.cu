// Sequences of template kernels and kernels in a namespace, found in a host
// function template's instantiations; names are the device-side manglings.
// RUN: %clang_cuda --cuda-device-only -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o - \
// RUN:   | sed -e 's/\\0A/\n/g' | FileCheck %s

namespace blas {
template <typename T>
__global__ __attribute__((kfuse_map)) void scale(const T *x, T *y, T a, int n) {}
template <typename T, int B>
__global__ __attribute__((kfuse_map)) void add(const T *x, const T *y, T *z, int n = B) {}
} // namespace blas

template <typename T> void pipeline(const T *x, T *t, T *z, int n) {
  blas::scale<T><<<n / 256, 256>>>(x, t, T(2), n);
  blas::add<T, 256><<<n / 256, 256>>>(t, x, z);
}
template void pipeline<float>(const float *, float *, float *, int);
template void pipeline<double>(const double *, double *, double *, int);

// CHECK: site {{.*}}seq-templates.cu:14:17 _Z8pipelineIfEvPKT_PS0_S3_i
// CHECK-NEXT: launch 0 _ZN4blas5scaleIfEEvPKT_PS1_S1_i grid=1 block=2 shmem=3 stream=3 args=4,5,6,0
// CHECK-NEXT: launch 1 _ZN4blas3addIfLi256EEEvPKT_S3_PS1_i grid=1 block=2 shmem=3 stream=3 args=5,4,7,2
// CHECK-NEXT: value 0 int n
// CHECK-NEXT: value 1 int n / 256
// CHECK-NEXT: value 2 int 256
// CHECK-NEXT: value 3 int 0
// CHECK-NEXT: value 4 ptr x
// CHECK-NEXT: value 5 ptr t
// CHECK-NEXT: value 6 float T(2)
// CHECK-NEXT: value 7 ptr z
// CHECK: site {{.*}}seq-templates.cu:14:17 _Z8pipelineIdEvPKT_PS0_S3_i
// CHECK-NEXT: launch 0 _ZN4blas5scaleIdEEvPKT_PS1_S1_i
// CHECK-NEXT: launch 1 _ZN4blas3addIdLi256EEEvPKT_S3_PS1_i
