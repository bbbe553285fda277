// What ends a launch sequence (docs/annotations.md): a call, a cudaMemcpy, a
// store to a buffer pointer, a nested block, control flow. A lone launch is
// no sequence. Pure host computations between launches do not end it.
// RUN: %clang_cuda --cuda-device-only -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o - \
// RUN:   | sed -e 's/\\0A/\n/g' | FileCheck %s

__global__ __attribute__((kfuse_map)) void k1(const float *x, float *y, int n) {}
__global__ __attribute__((kfuse_map)) void k2(const float *x, float *y, int n) {}
__global__ void unmarked(float *y) {}
void opaque();
constexpr int half(int v) { return v / 2; }

// Two sequences in one function, split by a cudaMemcpy.
void memcpy_split(float *a, float *b, float *c, float *h, int n) {
  k1<<<1, 128>>>(a, b, n);
  k2<<<1, 128>>>(b, c, n);
  cudaMemcpy(h, c, n * sizeof(float), cudaMemcpyDeviceToHost);
  k1<<<1, 128>>>(c, a, n);
  k2<<<1, 128>>>(a, b, n);
}
// CHECK: site {{.*}}seq-breaks.cu:15:5 _Z12memcpy_splitPfS_S_S_i
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,5
// CHECK-NEXT: launch 1 _Z2k2PKfPfi grid=0 block=1 shmem=2 stream=2 args=4,6,5
// CHECK-NOT: launch 2
// CHECK: site {{.*}}seq-breaks.cu:18:5 _Z12memcpy_splitPfS_S_S_i
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,5
// CHECK-NEXT: launch 1 _Z2k2PKfPfi grid=0 block=1 shmem=2 stream=2 args=4,6,5
// CHECK-NEXT: value 0 int 1
// CHECK-NEXT: value 1 int 128
// CHECK-NEXT: value 2 int 0
// CHECK-NEXT: value 3 ptr c
// CHECK-NEXT: value 4 ptr a
// CHECK-NEXT: value 5 int n
// CHECK-NEXT: value 6 ptr b

// A call to an ordinary function ends it; the launches around it are lone.
void call_split(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  opaque();
  k2<<<1, 128>>>(b, a, n);
}
// CHECK-NOT: _Z10call_splitPfS_i

// So does a launch of an unmarked kernel.
void unmarked_split(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  unmarked<<<1, 128>>>(b);
  k2<<<1, 128>>>(b, a, n);
}
// CHECK-NOT: _Z14unmarked_splitPfS_i

// Assigning a buffer pointer ends the first sequence, and a second one starts
// after it.
void pointer_store(float *a, float *b, float *c, int n) {
  k1<<<1, 128>>>(a, b, n);
  k2<<<1, 128>>>(b, c, n);
  b = c;
  k1<<<1, 128>>>(a, b, n);
  k2<<<1, 128>>>(b, c, n);
}
// CHECK: site {{.*}}seq-breaks.cu:55:5 _Z13pointer_storePfS_S_i
// CHECK-NEXT: launch 0
// CHECK-NEXT: launch 1
// CHECK-NEXT: value
// CHECK: site {{.*}}seq-breaks.cu:58:5 _Z13pointer_storePfS_S_i

// Stores through a pointer, a subscript or a reference end it; so does
// pointer arithmetic in place.
void indirect_stores(float *a, float *b, int *cnt, int &ref, int n) {
  k1<<<1, 128>>>(a, b, n);
  *cnt = 1;
  k2<<<1, 128>>>(a, b, n);
  cnt[0] = 2;
  k1<<<1, 128>>>(a, b, n);
  ref = 3;
  k2<<<1, 128>>>(a, b, n);
  a++;
  k1<<<1, 128>>>(a, b, n);
}
// CHECK-NOT: _Z15indirect_storesPfS_PiRii

// A nested block, an if and a return end it.
void control(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  { int m = n; (void)m; }
  k2<<<1, 128>>>(a, b, n);
  if (n > 4)
    n = 4;
  k1<<<1, 128>>>(a, b, n);
}
// CHECK-NOT: _Z7controlPfS_i

// Declarations, scalar arithmetic, constexpr and builtin calls, dim3 values
// and empty statements keep the sequence going.
void pure_between(float *a, float *b, float *c, int n) {
  k1<<<1, 128>>>(a, b, n);
  int m = half(n) + __builtin_abs(n);
  dim3 g(m);
  float *alias = c;
  ;
  k2<<<g, 128>>>(b, alias, n);
}
// CHECK: site {{.*}}seq-breaks.cu:96:5 _Z12pure_betweenPfS_S_i
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,5
// CHECK-NEXT: launch 1 _Z2k2PKfPfi grid=6 block=1 shmem=2 stream=2 args=4,7,5
// The dim3 g of one extent is the int m, with g's spelling.
// CHECK: value 6 int g
// CHECK-NEXT: value 7 ptr alias
// CHECK-NOT: site
