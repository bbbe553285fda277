// Launch helpers: a call of a host function whose body is pure local
// variables and then one map launch, parameters by value or by reference,
// reads as that launch, each parameter standing for the call's argument and
// each local for its initialiser; so does a member function that does not
// read its object. Configurations are compared by their structure over the
// caller's values. Helpers with more in them end the sequence.
// RUN: %clang_cuda --cuda-device-only -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o - \
// RUN:   | sed -e 's/\\0A/\n/g' | FileCheck %s

__global__ __attribute__((kfuse_map)) void k1(const float *x, float *y, int n) {}
__global__ __attribute__((kfuse_map)) void k2(const float *x, float *y, float a, int n) {}

static void h1(const float *x, float *y, int n) { k1<<<(n + 255) / 256, 256>>>(x, y, n); }
static void h2(const float *x, float *y, float a, int len) {
  k2<<<(len + 255) / 256, 256>>>(x, y, a, len);
}
static void h1s(const float *x, float *y, int n, cudaStream_t s) { k1<<<n / 128, 128, 0, s>>>(x, y, n); }

// Two helpers, the grid computed in each from the same n.
void two(const float *x, float *t, float *o, int n) {
  h1(x, t, n);
  h2(t, o, 3.0f, n);
}
// CHECK: site {{.*}}seq-helpers.cu:21:3 _Z3twoPKfPfS1_i
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=1 block=2 shmem=3 stream=3 args=4,5,0
// CHECK-NEXT: launch 1 _Z2k2PKfPffi grid=1 block=2 shmem=3 stream=3 args=5,6,7,0
// CHECK-NEXT: value 0 int n
// CHECK-NEXT: value 1 int (n + 255) / 256 in h1
// CHECK-NEXT: value 2 int 256
// CHECK-NEXT: value 3 int 0
// CHECK-NEXT: value 4 ptr x
// CHECK-NEXT: value 5 ptr t
// CHECK-NEXT: value 6 ptr o
// CHECK-NEXT: value 7 float 3.0f
// CHECK-NEXT: \00"

// A helper, a launch written in place, the same helper again with the
// buffers swapped; the stream passed through. The grid the helper computes
// and the one written in place are one value: both are the structure
// n / 128 over the caller's n.
void mixed(float *a, float *b, int n, cudaStream_t s) {
  h1s(a, b, n, s);
  k1<<<n / 128, 128, 0, s>>>(b, a, n);
  h1s(b, a, n, s);
}
// CHECK: site {{.*}}seq-helpers.cu:{{[0-9]+}}:3 _Z5mixedPfS_iP11CUstream_st
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=1 block=2 shmem=3 stream=4 args=5,6,0
// CHECK-NEXT: launch 1 _Z2k1PKfPfi grid=1 block=2 shmem=3 stream=4 args=6,5,0
// CHECK-NEXT: launch 2 _Z2k1PKfPfi grid=1 block=2 shmem=3 stream=4 args=6,5,0
// CHECK-NEXT: value 0 int n
// CHECK-NEXT: value 1 int n / 128 in h1s
// CHECK-NEXT: value 2 int 128
// CHECK-NEXT: value 3 int 0
// CHECK-NEXT: value 4 other s
// CHECK-NEXT: value 5 ptr a
// CHECK-NEXT: value 6 ptr b
// CHECK-NEXT: \00"

// Different lengths: different grids.
void lengths(const float *x, float *t, float *o, int n, int m) {
  h1(x, t, n);
  h1(t, o, m);
}
// CHECK: site {{.*}}seq-helpers.cu:{{[0-9]+}}:3 _Z7lengthsPKfPfS1_ii
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=1 block=2 shmem=3 stream=3 args=4,5,0
// CHECK-NEXT: launch 1 _Z2k1PKfPfi grid=7 block=2 shmem=3 stream=3 args=5,8,6
// CHECK: value 6 int m
// CHECK-NEXT: value 7 int (n + 255) / 256 in h1

// A block size from a global constant, in the helpers and in the caller.
constexpr int BLOCK = 128;
static void hb1(const float *x, float *y, int n) { k1<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, y, n); }
static void hb2(const float *x, float *y, int n) { k2<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, y, 1.0f, n); }
void constant_block(const float *x, float *t, float *o, int n) {
  hb1(x, t, n);
  hb2(t, o, n);
}
// CHECK: site {{.*}}seq-helpers.cu:{{[0-9]+}}:3 _Z14constant_blockPKfPfS1_i
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=[[G:[0-9]+]] block=[[B:[0-9]+]] shmem=[[Z:[0-9]+]] stream=[[Z]] args=
// CHECK-NEXT: launch 1 _Z2k2PKfPffi grid=[[G]] block=[[B]] shmem=[[Z]] stream=[[Z]] args=

// Not helpers: a second statement, a non-void result, a local changed, a
// member function that reads its object.
static void two_statements(const float *x, float *y, int n) {
  k1<<<n / 256, 256>>>(x, y, n);
  k1<<<n / 256, 256>>>(y, y, n);
}
static int returns(const float *x, float *y, int n) { k1<<<n / 256, 256>>>(x, y, n); return 0; }
static void changes(const float *x, float *y, int n) { int g = n / 256; ++g; k1<<<g, 256>>>(x, y, n); }
struct Member {
  float *buf;
  void reads(const float *x, int n) { k1<<<n / 256, 256>>>(x, buf, n); }
};
void not_helpers(Member &m, const float *x, float *t, float *o, int n) {
  h1(x, t, n);
  two_statements(t, o, n);
  h1(x, t, n);
  returns(t, o, n);
  h1(x, t, n);
  changes(t, o, n);
  h1(x, t, n);
  m.reads(t, n);
}
// The two statements of two_statements are a sequence of their own.
// CHECK: site {{.*}}seq-helpers.cu:{{[0-9]+}}:5 _ZL14two_statementsPKfPfi
// CHECK-NOT: _Z11not_helpersR6MemberPKfPfS3_i

// Helpers: a reference parameter, locals (a dim3 among them), a member
// function of an object the caller names. Each grid is (n + 255) / 256
// over the caller's n, the value h1 computes.
static void by_reference(const float *x, float *y, const int &n) { k1<<<(n + 255) / 256, 256>>>(x, y, n); }
static void with_locals(const float *x, float *y, int n) {
  int blocks = (n + 255) / 256;
  dim3 grid(blocks);
  k1<<<grid, 256>>>(x, y, n);
}
struct Stage {
  void launch(const float *x, float *y, int n) { k1<<<(n + 255) / 256, 256>>>(x, y, n); }
};
void helpers(Stage &st, const float *x, float *t, float *u, float *o, int n) {
  h1(x, t, n);
  by_reference(t, u, n);
  with_locals(u, o, n);
  st.launch(o, t, n);
}
// CHECK: site {{.*}}seq-helpers.cu:[[@LINE-5]]:3 _Z7helpersR5StagePKfPfS3_S3_i
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=[[G:[0-9]+]] block=[[B:[0-9]+]] shmem=[[Z:[0-9]+]] stream=[[Z]] args=[[X:[0-9]+]],[[T:[0-9]+]],[[N:[0-9]+]]{{$}}
// CHECK-NEXT: launch 1 _Z2k1PKfPfi grid=[[G]] block=[[B]] shmem=[[Z]] stream=[[Z]] args=[[T]],[[U:[0-9]+]],[[N]]{{$}}
// CHECK-NEXT: launch 2 _Z2k1PKfPfi grid=[[G]] block=[[B]] shmem=[[Z]] stream=[[Z]] args=[[U]],[[O:[0-9]+]],[[N]]{{$}}
// CHECK-NEXT: launch 3 _Z2k1PKfPfi grid=[[G]] block=[[B]] shmem=[[Z]] stream=[[Z]] args=[[O]],[[T]],[[N]]{{$}}

// Helpers that launch the kernel they are given: a template taking the
// kernel and its arguments (a pack), and a generic lambda doing the same;
// the kernel is the one the call names, with or without `&`. A lambda
// without parameters launching a kernel it names is a helper too, its
// captures read as the caller's variables.
template <typename K, typename... A> void launch_on(int n, K kernel, A... a) {
  const int block = 128;
  kernel<<<(n + block - 1) / block, block>>>(a..., n);
}
void kernel_params(const float *x, float *t, float *o, int n) {
  launch_on(n, k1, x, t);
  launch_on(n, &k1, (const float *)t, o);
}
// CHECK: site {{.*}}seq-helpers.cu:[[@LINE-3]]:3 _Z13kernel_paramsPKfPfS1_i
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=[[G:[0-9]+]] block=[[B:[0-9]+]] shmem=[[Z:[0-9]+]] stream=[[Z]] args=[[X:[0-9]+]],[[T:[0-9]+]],[[N:[0-9]+]]{{$}}
// CHECK-NEXT: launch 1 _Z2k1PKfPfi grid=[[G]] block=[[B]] shmem=[[Z]] stream=[[Z]] args=[[T]],[[O:[0-9]+]],[[N]]{{$}}
// CHECK: value [[G]] int (n + block - 1) / block in launch_on

void lambdas(const float *x, float *t, float *o, float a, int n) {
  int g = (n + 255) / 256;
  auto run = [&](auto kernel, auto... args) { kernel<<<g, 256>>>(args...); };
  auto last = [=] { k2<<<g, 256>>>(t, o, a, n); };
  run(k1, x, t, n);
  run(&k1, (const float *)t, o, n);
  last();
}
// CHECK: site {{.*}}seq-helpers.cu:[[@LINE-4]]:3 _Z7lambdasPKfPfS1_fi
// CHECK-NEXT: launch 0 _Z2k1PKfPfi grid=[[G:[0-9]+]] block=[[B:[0-9]+]] shmem=[[Z:[0-9]+]] stream=[[Z]] args=[[X:[0-9]+]],[[T:[0-9]+]],[[N:[0-9]+]]{{$}}
// CHECK-NEXT: launch 1 _Z2k1PKfPfi grid=[[G]] block=[[B]] shmem=[[Z]] stream=[[Z]] args=[[T]],[[O:[0-9]+]],[[N]]{{$}}
// CHECK-NEXT: launch 2 _Z2k2PKfPffi grid=[[G]] block=[[B]] shmem=[[Z]] stream=[[Z]] args=[[T]],[[O]],{{[0-9]+}},[[N]]{{$}}

// Given no map kernel by name (an unmarked kernel, a pointer variable),
// such a helper is an ordinary call: it ends the sequence.
__global__ void plain(const float *x, float *y, int n) {}
void not_kernel_params(const float *x, float *t, float *o, int n) {
  launch_on(n, k1, x, t);
  launch_on(n, plain, (const float *)t, o);
  void (*p)(const float *, float *, int) = k1;
  launch_on(n, p, (const float *)t, o);
}
// CHECK-NOT: _Z17not_kernel_paramsPKfPfS1_i
