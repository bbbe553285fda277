// Under -Rpass-missed=kfuse the plugin says why launches of map kernels that
// follow each other in a block are not one launch sequence, at the statement
// that ended it, and that launches through the runtime API are not fused.
// Nothing without the flag, nor for another pass's pattern; the host
// compilation, which finds no sequences, says nothing either.
// RUN: %clang_cuda --cuda-device-only -fsyntax-only %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin -Rpass-missed=kfuse -Xclang -verify %s
// RUN: %clang_cuda --cuda-device-only -fsyntax-only %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin -Xclang -verify=quiet %s
// RUN: %clang_cuda --cuda-device-only -fsyntax-only %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin -Rpass-missed=inline -Xclang -verify=quiet %s
// RUN: %clang_cuda --cuda-host-only -fsyntax-only -fplugin=%kfuse_clang_plugin -Rpass-missed=kfuse -Xclang -verify=quiet %s
// The remark names its flag.
// RUN: %clang_cuda --cuda-device-only -fsyntax-only %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin -Rpass-missed=kfuse %s 2>&1 | FileCheck %s
// CHECK: seq-remarks.cu:[[#@LINE+15]]:3: remark: launch of 'k2' is not fused with the launch of 'k1' before it: a call to 'opaque' ends the launch sequence [-Rpass-missed=kfuse]
// quiet-no-diagnostics

#include <cstdio>
#include <cstdlib>

__global__ __attribute__((kfuse_map)) void k1(const float *x, float *y, int n) {}
__global__ __attribute__((kfuse_map)) void k2(const float *x, float *y, int n) {}
__global__ void unmarked(float *y) {}
void opaque();
void *scratch;

// Statements between two launches that end the sequence.
void a_call(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  opaque(); // expected-remark {{launch of 'k2' is not fused with the launch of 'k1' before it: a call to 'opaque' ends the launch sequence}}
  k2<<<1, 128>>>(b, a, n);
}
void memcpy_between(float *a, float *b, float *h, int n) {
  k1<<<1, 128>>>(a, b, n);
  cudaMemcpy(h, b, n * sizeof(float), cudaMemcpyDeviceToHost); // expected-remark {{a call to 'cudaMemcpy' ends the launch sequence}}
  k2<<<1, 128>>>(b, a, n);
}
void unmarked_between(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  unmarked<<<1, 128>>>(b); // expected-remark {{a launch of 'unmarked' (not a kfuse_map kernel) ends the launch sequence}}
  k2<<<1, 128>>>(b, a, n);
}
void stores(float *a, float *b, int *cnt, int n) {
  k1<<<1, 128>>>(a, b, n);
  b = a; // expected-remark {{launch of 'k2' is not fused with the launch of 'k1' before it: an assignment to the pointer 'b' ends the launch sequence}}
  k2<<<1, 128>>>(b, a, n);
  *cnt = 1; // expected-remark {{launch of 'k1' is not fused with the launch of 'k2' before it: a store through a pointer or subscript ends the launch sequence}}
  k1<<<1, 128>>>(a, b, n);
}
void control(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  if (n > 4) // expected-remark {{launch of 'k2' is not fused with the launch of 'k1' before it: an 'if' statement ends the launch sequence}}
    n = 4;
  k2<<<1, 128>>>(a, b, n);
  { int m = n; (void)m; } // expected-remark {{a nested block ends the launch sequence}}
  k1<<<1, 128>>>(a, b, n);
}

// Only the first statement that ended the sequence is named, and only when
// another map launch follows in the block.
void first_only(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  opaque(); // expected-remark {{launch of 'k2' is not fused with the launch of 'k1' before it: a call to 'opaque' ends the launch sequence}}
  opaque();
  k2<<<1, 128>>>(b, a, n);
  opaque();
}

// A launch macro with an error check after the launch: the check ends the
// program on an error, and another follows the last launch, so the check
// stands between the launches (pass/llvm/HostChecks.h): one sequence.
#define LAUNCH_CHECKED(k, ...)                                                 \
  k<<<1, 128>>>(__VA_ARGS__);                                                  \
  if (cudaPeekAtLastError() != cudaSuccess)                                    \
    abort()
void macro_if(float *a, float *b, int n) {
  LAUNCH_CHECKED(k1, a, b, n);
  LAUNCH_CHECKED(k2, b, a, n);
}

// The usual error check after each launch, a do/while(0) macro around
// cudaGetLastError(), and the forms of the CUDA samples' helpers: each
// stands between launches. Without a check after the last launch, the last
// check crossed ends the sequence instead; a check that returns, one that
// only prints, and a bare query end it with the advice.
#define CHECK(call)                                                            \
  do {                                                                         \
    if ((call) != cudaSuccess)                                                 \
      abort();                                                                 \
  } while (0)
void error_checks(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  CHECK(cudaGetLastError());
  k2<<<1, 128>>>(b, a, n);
  CHECK(cudaGetLastError());
}

inline void gpu_assert(cudaError_t code, const char *file, int line, bool stop = true) {
  if (code != cudaSuccess) {
    fprintf(stderr, "%s:%d: %s\n", file, line, cudaGetErrorString(code));
    if (stop)
      exit(code);
  }
}
inline void last_error(const char *what) {
  if (cudaGetLastError() != cudaSuccess) {
    fprintf(stderr, "%s failed\n", what);
    exit(1);
  }
}
void helper_checks(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  gpu_assert(cudaPeekAtLastError(), __FILE__, __LINE__);
  k2<<<1, 128>>>(b, a, n);
  last_error("k2");
  k1<<<1, 128>>>(a, b, n);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    fprintf(stderr, "k1: %s\n", cudaGetErrorString(err));
    exit(1);
  }
}

void unchecked_last(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  CHECK(cudaGetLastError());
  k2<<<1, 128>>>(b, a, n);
  CHECK(cudaGetLastError()); // expected-remark {{launch of 'k1' is not fused with the launch of 'k2' before it: an error check from macro 'CHECK' ends the launch sequence, since no error check follows the last launch after it; check errors after that launch too}}
  k1<<<1, 128>>>(a, b, n);
}

int returning_check(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  if (cudaGetLastError() != cudaSuccess) // expected-remark {{launch of 'k2' is not fused with the launch of 'k1' before it: an 'if' statement ends the launch sequence; an error check may stand between launches where it ends the program on an error (exit, abort, assert) and another follows the sequence's last launch, or check once after the last launch, where cudaGetLastError() returns an error of any launch before it}}
    return 1;
  k2<<<1, 128>>>(b, a, n);
  return cudaGetLastError() != cudaSuccess;
}

void printing_check(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  if (cudaGetLastError() != cudaSuccess) // expected-remark {{launch of 'k2' is not fused with the launch of 'k1' before it: an 'if' statement ends the launch sequence; an error check may stand}}
    printf("k1 failed\n");
  k2<<<1, 128>>>(b, a, n);
  CHECK(cudaGetLastError());
}

void bare_query(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  (void)cudaGetLastError(); // expected-remark {{launch of 'k2' is not fused with the launch of 'k1' before it: a call to 'cudaGetLastError' ends the launch sequence; an error check may stand}}
  k2<<<1, 128>>>(b, a, n);
  CHECK(cudaGetLastError());
}

// A call of a function defined here that takes its arguments by value
// cannot write the caller's variables: the sequence goes on, and the host
// pass judges the body (no remark). One handed an address may write the
// local, and ends the sequence.
float halved(float v) { return v * 0.5f; }
void bump(int *m) { ++*m; }
void by_value(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  float h = halved(2.0f);
  (void)h;
  k2<<<1, 128>>>(b, a, n);
}
void by_address(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  bump(&n); // expected-remark {{launch of 'k2' is not fused with the launch of 'k1' before it: a call to 'bump' ends the launch sequence}}
  k2<<<1, 128>>>(b, a, n);
}

// A launch macro in a do/while(0): each launch is in a block of its own.
#define LAUNCH_DO(k, ...) do { k<<<1, 128>>>(__VA_ARGS__); } while (0)
void macro_do(float *a, float *b, int n) {
  LAUNCH_DO(k1, a, b, n); // expected-remark {{launch of 'k2' is not fused with the launch of 'k1' before it: the launch of 'k1' is inside a 'do' loop from macro 'LAUNCH_DO'}}
  LAUNCH_DO(k2, b, a, n);
}

// A launch after a loop of launches, and a loop after a launch.
void loops(float *a, float *b, int n, int iters) {
  k1<<<1, 128>>>(a, b, n);
  for (int i = 0; i < iters; ++i) { // expected-remark {{launch of 'k2' is not fused with the launch of 'k1' before it: the launch of 'k2' is inside a 'for' loop}}
    k2<<<1, 128>>>(a, b, n);
    k1<<<1, 128>>>(b, a, n);
  }
}

// Launches in member functions that read their object: such a call is no
// launch helper, so run()'s two calls are no sequence. Nor is a free
// function with more in it than the launch.
struct Pipeline {
  float *x, *t;
  int n;
  void stage1() { k1<<<1, 128>>>(x, t, n); }
  void stage2() { k2<<<1, 128>>>(t, x, n); }
  void run() {
    stage1(); // expected-remark {{launch of 'k2' is not fused with the launch of 'k1' before it: 'k1' is launched in 'Pipeline::stage1', which is not a launch helper (it reads members of its object)}}
    stage2();
  }
};
static void checked(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  opaque();
}
void not_helper(float *a, float *b, int n) {
  checked(a, b, n); // expected-remark {{launch of 'k2' is not fused with the launch of 'k1' before it: 'k1' is launched in 'checked', which is not a launch helper (its body does not end in a launch)}}
  k2<<<1, 128>>>(b, a, n);
}

// A sequence, a launch helper and pure host code between: no remark.
static void helper(float *a, float *b, int n) { k2<<<1, 128>>>(a, b, n); }
void fused(float *a, float *b, int n) {
  k1<<<1, 128>>>(a, b, n);
  int m = n / 2;
  helper(b, a, m);
}

// A launch through a function pointer runs whatever the pointer holds then.
void pointer(float *a, float *b, int n) {
  void (*f)(const float *, float *, int) = k1;
  f<<<1, 128>>>(a, b, n); // expected-remark {{launch of 'k1' through function pointer 'f' is not fused: kfuse fuses launches that name their kernel, in place or as the argument of a launch helper}}
  k2<<<1, 128>>>(b, a, n);
  auto *g = &k2;
  (*g)<<<1, 128>>>(b, a, n); // expected-remark {{launch of 'k2' through function pointer 'g' is not fused}}
  auto *u = &unmarked;
  u<<<1, 128>>>(b);
}
// The same through a launch helper given the pointer.
template <typename K> void launch_with(K kernel, float *a, float *b, int n) { kernel<<<1, 128>>>(a, b, n); }
void pointer_to_helper(float *a, float *b, int n) {
  void (*f)(const float *, float *, int) = k1;
  launch_with(f, a, b, n); // expected-remark {{launch of 'k1' through function pointer 'f' is not fused}}
  launch_with(k2, b, a, n);
}

// The runtime API launches a map kernel without <<<...>>>.
void runtime_api(float *a, float *b, int n, cudaStream_t s) {
  void *args[] = {&a, &b, &n};
  cudaLaunchKernel((const void *)k1, dim3(1), dim3(128), args, 0, s); // expected-remark {{launch of 'k1' through cudaLaunchKernel is not fused: kfuse fuses only <<<...>>> launches of kfuse_map kernels}}
  cudaLaunchKernel(k2, dim3(1), dim3(128), args, 0, s); // expected-remark {{launch of 'k2' through cudaLaunchKernel is not fused}}
  cudaLaunchCooperativeKernel(&k1, dim3(1), dim3(128), args, 0, s); // expected-remark {{launch of 'k1' through cudaLaunchCooperativeKernel is not fused}}
  cudaLaunchConfig_t cfg = {};
  cudaLaunchKernelEx(&cfg, k2, (const float *)a, b, n); // expected-remark {{launch of 'k2' through cudaLaunchKernelEx is not fused}}
  cudaLaunchKernel((const void *)unmarked, dim3(1), dim3(128), args, 0, s);
}
