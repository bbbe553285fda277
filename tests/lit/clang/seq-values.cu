// Value numbering of configuration and argument expressions: structural
// equality plus variable versions; streams, loops and expression arguments.
// RUN: %clang_cuda --cuda-device-only -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o - \
// RUN:   | sed -e 's/\\0A/\n/g' | FileCheck %s

__global__ __attribute__((kfuse_map)) void k1(const float *x, float *y, int n) {}
__global__ __attribute__((kfuse_map)) void k2(const float *x, float *y, float a, int n) {}

// In a loop body; a missing shmem or stream is the literal 0, the same value
// as an explicit 0.
void in_loop(float *a, float *b, int n, int iters) {
  for (int it = 0; it < iters; ++it) {
    k1<<<(n + 127) / 128, 128>>>(a, b, n);
    k1<<<(n + 127) / 128, 128, 0>>>(b, a, n);
  }
}
// CHECK: site {{.*}}seq-values.cu:13:7 _Z7in_loopPfS_ii
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=1 block=2 shmem=3 stream=3 args=4,5,0
// CHECK-NEXT: launch 1 _Z2k1PKfPfi grid=1 block=2 shmem=3 stream=3 args=5,4,0
// CHECK-NEXT: value 0 int n
// CHECK-NEXT: value 1 int (n + 127) / 128
// CHECK-NEXT: value 2 int 128
// CHECK-NEXT: value 3 int 0
// CHECK-NEXT: value 4 ptr a
// CHECK-NEXT: value 5 ptr b
// CHECK-NEXT: \00"

// Launches on different streams record different stream values.
void streams(float *a, float *b, int n, cudaStream_t s1, cudaStream_t s2) {
  k1<<<1, 128, 0, s1>>>(a, b, n);
  k1<<<1, 128, 0, s2>>>(b, a, n);
  k1<<<1, 128, 0, s1>>>(a, b, n);
}
// CHECK: site {{.*}}seq-values.cu:30:5 _Z7streamsPfS_iP11CUstream_stS1_
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=3 args=4,5,6
// CHECK-NEXT: launch 1 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=7 args=5,4,6
// CHECK-NEXT: launch 2 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=3 args=4,5,6
// CHECK: value 3 other s1
// CHECK: value 7 other s2

// Arguments that are expressions: equal when written alike and nothing they
// read was assigned in between; spacing and parentheses do not matter.
void expressions(float *x, float *y, int off, int n) {
  k1<<<1, 128>>>(x + off, y, n - off);
  k1<<<1, 128>>>(y, (x+off), n - off);
  k1<<<1, 128>>>(x + off + 1, y, n);
}
// CHECK: site {{.*}}seq-values.cu:44:5 _Z11expressionsPfS_ii
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=5,6,8
// CHECK-NEXT: launch 1 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=6,5,8
// CHECK-NEXT: launch 2 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=9,6,7
// CHECK: value 3 ptr x
// CHECK-NEXT: value 4 int off
// CHECK-NEXT: value 5 ptr x + off
// CHECK-NEXT: value 6 ptr y
// CHECK-NEXT: value 7 int n
// CHECK-NEXT: value 8 int n - off
// CHECK-NEXT: value 9 ptr x + off + 1

// A scalar reassigned between launches gets a new value number, and so does
// everything that reads it; a member store to a local struct versions the
// struct (a field read by `.` is that field of the struct's value, which
// gets a value line of its own). The launch configuration keeps its numbers.
struct Params { float a; int n; };
void reassigned(float *x, float *y, float a, int n) {
  Params p = {a, n};
  k2<<<1, 128>>>(x, y, a, n);
  a = a * 2.0f;
  n += 1;
  k2<<<1, 128>>>(y, x, a, n);
  k2<<<1, 128>>>(x, y, p.a, p.n);
  p.n = 7;
  k2<<<1, 128>>>(x, y, p.a, p.n);
}
// CHECK: site {{.*}}seq-values.cu:{{[0-9]+}}:5 _Z10reassignedPfS_fi
// CHECK-NEXT: launch 0 _Z2k2PKfPffi grid=0 block=1 shmem=2 stream=2 args=3,4,5,6
// CHECK-NEXT: launch 1 _Z2k2PKfPffi grid=0 block=1 shmem=2 stream=2 args=4,3,7,8
// CHECK-NEXT: launch 2 _Z2k2PKfPffi grid=0 block=1 shmem=2 stream=2 args=3,4,10,11
// CHECK-NEXT: launch 3 _Z2k2PKfPffi grid=0 block=1 shmem=2 stream=2 args=3,4,13,14
// CHECK-NEXT: value 0 int 1
// CHECK-NEXT: value 1 int 128
// CHECK-NEXT: value 2 int 0
// CHECK-NEXT: value 3 ptr x
// CHECK-NEXT: value 4 ptr y
// CHECK-NEXT: value 5 float a
// CHECK-NEXT: value 6 int n
// CHECK-NEXT: value 7 float a
// CHECK-NEXT: value 8 int n
// CHECK-NEXT: value 9 other p
// CHECK-NEXT: value 10 float p.a
// CHECK-NEXT: value 11 int p.n
// CHECK-NEXT: value 12 other p
// CHECK-NEXT: value 13 float p.a
// CHECK-NEXT: value 14 int p.n
// CHECK-NEXT: \00"

// A pointer cast keeps the address, so `(const float *)b`, `(float *)b` and
// a cast through void * name b; a cast to another kind (an integer read as
// an address, a float truncated to int) is a value of its own.
__global__ __attribute__((kfuse_map)) void k3(const float *x, float *y, int n) {}
void casts(float *a, float *b, unsigned long long addr, float f, int n) {
  k1<<<1, 128>>>(a, b, n);
  k3<<<1, 128>>>((const float *)b, (float *)(void *)a, n);
  k3<<<1, 128>>>(reinterpret_cast<const float *>(addr), static_cast<float *>(b), (int)f);
}
// CHECK: site {{.*}}seq-values.cu:[[#@LINE-4]]:5 _Z5castsPfS_yfi
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,5
// CHECK-NEXT: launch 1 _Z2k3PKfPfi grid=0 block=1 shmem=2 stream=2 args=4,3,5
// CHECK-NEXT: launch 2 _Z2k3PKfPfi grid=0 block=1 shmem=2 stream=2 args=7,4,9
// CHECK: value 3 ptr a
// CHECK-NEXT: value 4 ptr b
// CHECK-NEXT: value 5 int n
// CHECK-NEXT: value 6 int addr
// CHECK-NEXT: value 7 ptr reinterpret_cast<const float *>(addr)
// CHECK-NEXT: value 8 float f
// CHECK-NEXT: value 9 int (int)f

// A local copy that nothing in the function changes names what it copies
// (through pointer casts too): tmp and ctmp are b, m is n, half is n / 2. A
// copy assigned anywhere in the function (moved), a copy through a
// conversion that changes the value (narrow), and a copy of a variable that
// changes (late) are values of their own. A value's text is its first
// spelling.
void copies(float *a, float *b, float *c, long big, int n, int k) {
  float *tmp = b;
  const float *ctmp = (const float *)tmp;
  float *moved = c;
  int m = n;
  int narrow = big;
  int half = n / 2;
  int late = k;
  k1<<<1, 128>>>(a, tmp, n);
  k1<<<1, 128>>>(ctmp, a, m);
  k1<<<1, 128>>>(b, moved, narrow);
  k1<<<1, 128>>>(a, b, half);
  k1<<<1, 128>>>(a, b, n / 2);
  k1<<<1, 128>>>(a, b, late);
  k1<<<1, 128>>>(a, b, k);
  k1<<<1, 128>>>(a, b, big);
  moved = a;
  k += 1;
}
// CHECK: site {{.*}}seq-values.cu:{{[0-9]+}}:5 _Z6copiesPfS_S_lii
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,5
// CHECK-NEXT: launch 1 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=4,3,5
// CHECK-NEXT: launch 2 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=4,6,8
// CHECK-NEXT: launch 3 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,9
// CHECK-NEXT: launch 4 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,9
// CHECK-NEXT: launch 5 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,10
// CHECK-NEXT: launch 6 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,11
// CHECK-NEXT: launch 7 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,7
// CHECK: value 3 ptr a
// CHECK-NEXT: value 4 ptr tmp
// CHECK-NEXT: value 5 int n
// CHECK-NEXT: value 6 ptr moved
// CHECK-NEXT: value 7 int big
// CHECK-NEXT: value 8 int narrow
// CHECK-NEXT: value 9 int half
// CHECK-NEXT: value 10 int late
// CHECK-NEXT: value 11 int k
// CHECK-NEXT: \00"

// An increment inside a launch's arguments gives the variable a new version:
// the n of the third launch is not the n of the first (n++ itself is a value
// of its own).
void bumped(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  k1<<<1, 128>>>(b, a, n++);
  k1<<<1, 128>>>(a, b, n);
}
// CHECK: site {{.*}}seq-values.cu:{{[0-9]+}}:5 _Z6bumpedPfS_i
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,5
// CHECK-NEXT: launch 1 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=4,3,6
// CHECK-NEXT: launch 2 _Z2k1PKfPfi grid=0 block=1 shmem=2 stream=2 args=3,4,7
// CHECK: value 5 int n
// CHECK-NEXT: value 6 int n++
// CHECK-NEXT: value 7 int n
// CHECK-NEXT: \00"
