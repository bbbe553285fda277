// Launch configurations written differently that are equal (docs/annotations.md):
// an integer constant expression is its value, with the value as its text
// (the device pass reads the shared-memory size from it); a dim3 of one
// extent is that extent, however it is built; a const variable with a
// constant initialiser is its value inside larger expressions. What can
// differ at run time stays apart.
// RUN: %clang_cuda --cuda-device-only -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o - \
// RUN:   | sed -e 's/\\0A/\n/g' | FileCheck %s

__global__ __attribute__((kfuse_map)) void k1(const float *x, float *y, int n) {}
__global__ __attribute__((kfuse_map)) void k2(const float *x, float *y, int n) {}

// Shared-memory sizes: a product with sizeof, a constexpr, a literal and a
// const local of the same value are one value, written 1024.
constexpr unsigned SHMEM = 256 * sizeof(float);
void shmem(float *a, float *b, int n) {
  const int bytes = 1024;
  k1<<<1, 128, 256 * sizeof(float)>>>(a, b, n);
  k2<<<1, 128, SHMEM>>>(b, a, n);
  k1<<<1, 128, 1024>>>(a, b, n);
  k2<<<1, 128, bytes>>>(b, a, n);
  k1<<<1, 128, 4 * 256>>>(a, b, n);
}
// CHECK: site {{.*}}seq-constants.cu:[[#@LINE-6]]:5 _Z5shmemPfS_i
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=3 args=4,5,6
// CHECK-NEXT: launch 1 _Z2k2PKfPfi grid=0 block=1 shmem=2 stream=3 args=5,4,6
// CHECK-NEXT: launch 2 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=3 args=4,5,6
// CHECK-NEXT: launch 3 _Z2k2PKfPfi grid=0 block=1 shmem=2 stream=3 args=5,4,6
// CHECK-NEXT: launch 4 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=3 args=4,5,6
// CHECK-NEXT: value 0 int 1
// CHECK-NEXT: value 1 int 128
// CHECK-NEXT: value 2 int 1024
// CHECK-NEXT: value 3 int 0

// In a template, the size computed from a template argument is its value
// in the instantiation.
template <int BLOCK> void tmpl(float *a, float *b, int n) {
  k1<<<(n + BLOCK - 1) / BLOCK, BLOCK, BLOCK * sizeof(float)>>>(a, b, n);
  k2<<<(n + 384 - 1) / 384, 384, 1536>>>(b, a, n);
}
template void tmpl<384>(float *, float *, int);
// CHECK: site {{.*}}seq-constants.cu:[[#@LINE-4]]:5 _Z4tmplILi384EEvPfS0_i
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=1 block=2 shmem=3 stream=4 args=5,6,0
// CHECK-NEXT: launch 1 _Z2k2PKfPfi grid=1 block=2 shmem=3 stream=4 args=6,5,0
// CHECK-NEXT: value 0 int n
// CHECK-NEXT: value 1 int (n + BLOCK - 1) / BLOCK
// CHECK-NEXT: value 2 int 384
// CHECK-NEXT: value 3 int 1536
// CHECK-NEXT: value 4 int 0

// Grids: g, dim3(g), dim3(g, 1, 1) and a local dim3 built from g are g; a
// dim3 block of the constant 384 is 384; (n + bs - 1) / bs with a const bs is
// the same grid as the literal spelling.
void grids(float *a, float *b, int n, int g) {
  const int bs = 384;
  dim3 grid(g);
  dim3 block = bs;
  k1<<<g, 384>>>(a, b, n);
  k2<<<dim3(g), dim3(384)>>>(b, a, n);
  k1<<<grid, block>>>(a, b, n);
  k2<<<dim3(g, 1, 1), dim3(bs, 1)>>>(b, a, n);
  k1<<<(n + bs - 1) / bs, bs>>>(a, b, n);
  k2<<<(n + 384 - 1) / 384, 384>>>(b, a, n);
}
// CHECK: site {{.*}}seq-constants.cu:[[#@LINE-7]]:5 _Z5gridsPfS_ii
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,5
// CHECK-NEXT: launch 1 _Z2k2PKfPfi grid=0 block=1 shmem=2 stream=2 args=4,3,5
// CHECK-NEXT: launch 2 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,5
// CHECK-NEXT: launch 3 _Z2k2PKfPfi grid=0 block=1 shmem=2 stream=2 args=4,3,5
// CHECK-NEXT: launch 4 _Z2k1PKfPfi grid=6 block=1 shmem=2 stream=2 args=3,4,5
// CHECK-NEXT: launch 5 _Z2k2PKfPfi grid=6 block=1 shmem=2 stream=2 args=4,3,5
// CHECK-NEXT: value 0 int g
// CHECK-NEXT: value 1 int 384
// CHECK-NEXT: value 2 int 0
// CHECK-NEXT: value 3 ptr a
// CHECK-NEXT: value 4 ptr b
// CHECK-NEXT: value 5 int n
// CHECK-NEXT: value 6 int (n + bs - 1) / bs
// CHECK-NEXT: \00"

// Not equal: a variable that is not const (m, assigned in the function),
// a dim3 changed after it is built, a dim3 of two extents against one, a
// negative constant against the unsigned one of the same bits, and
// different constants.
void apart(float *a, float *b, int n, int g) {
  int m = 384;
  dim3 grid(g);
  grid.x += 1;
  k1<<<(n + m - 1) / m, 384>>>(a, b, n);
  k2<<<(n + 384 - 1) / 384, 384>>>(b, a, n);
  k1<<<grid, 384>>>(a, b, n);
  k2<<<dim3(g, 2), 384>>>(b, a, n);
  k1<<<-1, 384, 1024>>>(a, b, n);
  k2<<<4294967295u, 384, 1025>>>(b, a, n);
  m = 0;
}
// CHECK: site {{.*}}seq-constants.cu:[[#@LINE-8]]:5 _Z5apartPfS_ii
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=2 block=3 shmem=4 stream=4 args=5,6,0
// CHECK-NEXT: launch 1 _Z2k2PKfPfi grid=7 block=3 shmem=4 stream=4 args=6,5,0
// CHECK-NEXT: launch 2 _Z2k1PKfPfi grid=8 block=3 shmem=4 stream=4 args=5,6,0
// CHECK-NEXT: launch 3 _Z2k2PKfPfi grid=10 block=3 shmem=4 stream=4 args=6,5,0
// CHECK-NEXT: launch 4 _Z2k1PKfPfi grid=11 block=3 shmem=12 stream=4 args=5,6,0
// CHECK-NEXT: launch 5 _Z2k2PKfPfi grid=13 block=3 shmem=14 stream=4 args=6,5,0
// CHECK-NEXT: value 0 int n
// CHECK-NEXT: value 1 int m
// CHECK-NEXT: value 2 int (n + m - 1) / m
// CHECK-NEXT: value 3 int 384
// CHECK-NEXT: value 4 int 0
// CHECK-NEXT: value 5 ptr a
// CHECK-NEXT: value 6 ptr b
// CHECK-NEXT: value 7 int (n + 384 - 1) / 384
// CHECK-NEXT: value 8 other grid
// CHECK-NEXT: value 9 int g
// CHECK-NEXT: value 10 other dim3(g, 2)
// CHECK-NEXT: value 11 int -1
// CHECK-NEXT: value 12 int 1024
// CHECK-NEXT: value 13 int 4294967295
// CHECK-NEXT: value 14 int 1025
// CHECK-NEXT: \00"
