// The host pass's rules for error checks between launches
// (pass/llvm/HostChecks.h), on the host compilation alone, where every run
// it finds is handed to the runtime: a query must be tested by a check that
// ends the program on an error before the next launch, and a query made
// after the run's last launch must be so tested, else the run ends at its
// last checked launch. A test of an answer asked before a launch checks
// nothing of that launch's.
// REQUIRES: cuda
// RUN: %clang_cuda --cuda-host-only -O2 -fplugin=%kfuse_clang_plugin -fpass-plugin=%kfuse_llvm_plugin \
// RUN:   -Rpass=kfuse -Rpass-missed=kfuse -S -emit-llvm %s -o %t.ll 2> %t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: FileCheck %s < %t.ll

#include <cstdio>
#include <cstdlib>

#define KMAP __global__ __attribute__((kfuse_map))
KMAP void scale(const float *x, float *y, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i]; }
KMAP void addk(const float *x, float *y, float b, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] + b; }

// REMARK-DAG: error-checks.cu:[[#@LINE+2]]:{{[0-9]+}}: remark: handed 3 launches (scale, addk, scale) to the runtime
void checked(const float *x, float *t, float *u, float *y, int n) {
  scale<<<n / 256, 256>>>(x, t, 2.f, n);
  if (cudaGetLastError() != cudaSuccess) exit(1);
  addk<<<n / 256, 256>>>(t, u, 1.f, n);
  if (cudaSuccess != cudaPeekAtLastError()) abort();
  scale<<<n / 256, 256>>>(u, y, 3.f, n);
  if (cudaGetLastError() != cudaSuccess) { printf("failed\n"); exit(1); }
}

// REMARK-DAG: error-checks.cu:[[#@LINE+3]]:{{[0-9]+}}: remark: launch of scale not handed to the runtime with the launch of addk: an error check lies between them and none follows the launch of addk, where run together their launch errors would be reported; check errors after that launch too
void stale_answer(const float *x, float *t, float *y, int n) {
  scale<<<n / 256, 256>>>(x, t, 2.f, n);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) exit(1);
  addk<<<n / 256, 256>>>(t, y, 1.f, n);
  if (e != cudaSuccess) exit(1);
}

// REMARK-DAG: error-checks.cu:[[#@LINE+3]]:{{[0-9]+}}: remark: launch of scale not handed to the runtime with the launch of addk: a query of the last error that no check ending the program tests lies between them
void bare_query(const float *x, float *t, float *y, int n) {
  scale<<<n / 256, 256>>>(x, t, 2.f, n);
  (void)cudaGetLastError();
  addk<<<n / 256, 256>>>(t, y, 1.f, n);
  if (cudaGetLastError() != cudaSuccess) exit(1);
}

// REMARK-DAG: error-checks.cu:[[#@LINE+3]]:{{[0-9]+}}: remark: launch of scale not handed to the runtime with the launch of addk: an error check whose failure path returns lies between them
int returns(const float *x, float *t, float *y, int n) {
  scale<<<n / 256, 256>>>(x, t, 2.f, n);
  if (cudaGetLastError() != cudaSuccess)
    return 1;
  addk<<<n / 256, 256>>>(t, y, 1.f, n);
  if (cudaGetLastError() != cudaSuccess) exit(1);
  return 0;
}

// REMARK-DAG: error-checks.cu:[[#@LINE+4]]:{{[0-9]+}}: remark: launch of scale not handed to the runtime with the launch of addk: a call to cudaFree on an error check's failure path lies between them
void frees(const float *x, float *t, float *y, int n) {
  scale<<<n / 256, 256>>>(x, t, 2.f, n);
  if (cudaGetLastError() != cudaSuccess) {
    cudaFree(t);
    exit(1);
  }
  addk<<<n / 256, 256>>>(t, y, 1.f, n);
  if (cudaGetLastError() != cudaSuccess) exit(1);
}

// The tested variable handed to a function between the query and the test
// may hold anything then: the branch tests no query's answer.
static void forget(cudaError_t *e) { *e = cudaSuccess; }
// REMARK-DAG: error-checks.cu:[[#@LINE+3]]:{{[0-9]+}}: remark: launch of scale not handed to the runtime with the launch of addk: a query of the last error that no check ending the program tests lies between them
void overwritten(const float *x, float *t, float *y, int n) {
  scale<<<n / 256, 256>>>(x, t, 2.f, n);
  cudaError_t e = cudaGetLastError();
  forget(&e);
  if (e != cudaSuccess) exit(1);
  addk<<<n / 256, 256>>>(t, y, 1.f, n);
  if (cudaGetLastError() != cudaSuccess) exit(1);
}

// CHECK-LABEL: define {{.*}} @_Z7checked
// CHECK: call void @kf_rt_launch_seq(ptr {{.*}}, i32 3)
// CHECK-LABEL: define {{.*}} @_Z12stale_answer
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z10bare_query
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z7returns
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z5frees
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK-LABEL: declare {{.*}}@cudaFree(
// CHECK-LABEL: define {{.*}} @_Z11overwritten
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK-LABEL: declare {{.*}}@kf_rt_launch_seq(
