// Error checks between launches (pass/llvm/HostChecks.h): a check that ends
// the program on an error may stand between two launches when another
// follows the last launch. The Clang plugin keeps such launches one
// sequence, the device pass fuses them, and the host pass hands them to the
// runtime with the checks where they were: each then sees the errors of the
// code before the run, and the check after the last launch those of every
// launch in it. Written as programs write them: a do/while(0) macro with
// cudaDeviceReset before exit, the CUDA samples' getLastCudaError helper,
// gpuErrchk around cudaPeekAtLastError with gpuAssert's abort defaulted to
// true, assert, and a variable assigned then tested. Refused: a check whose
// failure path goes on (gpuAssert with abort false), one that returns, a bare
// query, a run whose last launch is unchecked (cut back to its last checked
// launch), and a check that touches device memory before exiting.
// REQUIRES: cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -c %s -o %t/dev.cubin
// RUN: %fatbinary -64 --create %t/dev.fatbin --image3=kind=elf,sm=%cuda_sm,file=%t/dev.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/dev.fatbin \
// RUN:   -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t/host.ll 2> %t/remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t/remarks
// RUN: FileCheck %s < %t/host.ll
// A host compilation at -O0 alike (the device code fuses from -O1).
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O0 -Xclang -fcuda-include-gpubinary -Xclang %t/dev.fatbin \
// RUN:   -S -emit-llvm %s -o %t/host0.ll
// RUN: FileCheck %s < %t/host0.ll

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

#define KMAP __global__ __attribute__((kfuse_map))
KMAP void scale(const float *x, float *y, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i]; }
KMAP void addk(const float *x, float *y, float b, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] + b; }
#define GRID(n) ((n) + 255) / 256, 256

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));        \
      cudaDeviceReset();                                                                  \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char *file, int line, bool abort = true) {
  if (code != cudaSuccess) {
    fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
    if (abort) exit(code);
  }
}

#define getLastCudaError(msg) __getLastCudaError(msg, __FILE__, __LINE__)
inline void __getLastCudaError(const char *errorMessage, const char *file, const int line) {
  cudaError_t err = cudaGetLastError();
  if (cudaSuccess != err) {
    fprintf(stderr, "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line,
            errorMessage, (int)err, cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
}

// REMARK-DAG: error-checks.cu:[[#@LINE+2]]:{{[0-9]+}}: remark: handed 3 launches (scale, addk, scale) to the runtime, which runs launches 0..2 as
void macro_check(const float *x, float *t, float *u, float *y, int n) {
  scale<<<GRID(n)>>>(x, t, 2.f, n);
  CHECK(cudaGetLastError());
  addk<<<GRID(n)>>>(t, u, 1.f, n);
  CHECK(cudaGetLastError());
  scale<<<GRID(n)>>>(u, y, 3.f, n);
  CHECK(cudaGetLastError());
}
// REMARK-DAG: error-checks.cu:[[#@LINE+2]]:{{[0-9]+}}: remark: handed 2 launches (scale, addk) to the runtime, which runs launches 0..1 as
void samples_helpers(const float *x, float *t, float *y, int n) {
  scale<<<GRID(n)>>>(x, t, 2.f, n);
  getLastCudaError("scale failed");
  addk<<<GRID(n)>>>(t, y, 1.f, n);
  getLastCudaError("addk failed");
}
// REMARK-DAG: error-checks.cu:[[#@LINE+2]]:{{[0-9]+}}: remark: handed 2 launches (scale, addk) to the runtime, which runs launches 0..1 as
void gpu_errchk(const float *x, float *t, float *y, int n) {
  scale<<<GRID(n)>>>(x, t, 2.f, n);
  gpuErrchk(cudaPeekAtLastError());
  addk<<<GRID(n)>>>(t, y, 1.f, n);
  gpuErrchk(cudaPeekAtLastError());
}
// REMARK-DAG: error-checks.cu:[[#@LINE+2]]:{{[0-9]+}}: remark: handed 2 launches (scale, addk) to the runtime, which runs launches 0..1 as
void asserted(const float *x, float *t, float *y, int n) {
  scale<<<GRID(n)>>>(x, t, 2.f, n);
  assert(cudaGetLastError() == cudaSuccess);
  addk<<<GRID(n)>>>(t, y, 1.f, n);
  assert(cudaGetLastError() == cudaSuccess);
}
// REMARK-DAG: error-checks.cu:[[#@LINE+3]]:{{[0-9]+}}: remark: handed 2 launches (scale, addk) to the runtime, which runs launches 0..1 as
void assigned_then_tested(const float *x, float *t, float *y, int n) {
  cudaError_t err = cudaSuccess;
  scale<<<GRID(n)>>>(x, t, 2.f, n);
  err = cudaGetLastError();
  if (err != cudaSuccess) { fprintf(stderr, "scale: %s\n", cudaGetErrorString(err)); exit(EXIT_FAILURE); }
  addk<<<GRID(n)>>>(t, y, 1.f, n);
  err = cudaGetLastError();
  if (err != cudaSuccess) { fprintf(stderr, "addk: %s\n", cudaGetErrorString(err)); exit(EXIT_FAILURE); }
}

// Output to std::cerr on the way out, in an `if` with an initialiser.
// REMARK-DAG: error-checks.cu:[[#@LINE+2]]:{{[0-9]+}}: remark: handed 2 launches (scale, addk) to the runtime, which runs launches 0..1 as
void streamed(const float *x, float *t, float *y, int n) {
  scale<<<GRID(n)>>>(x, t, 2.f, n);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) { std::cerr << "scale: " << cudaGetErrorString(e) << std::endl; std::exit(1); }
  addk<<<GRID(n)>>>(t, y, 1.f, n);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) { std::cerr << "addk: " << cudaGetErrorString(e) << std::endl; std::exit(1); }
}

// The device side fuses these (the plugin cannot tell); the host pass
// refuses, at the check, and the launches stay as they are.
// REMARK-DAG: error-checks.cu:[[#@LINE+3]]:{{[0-9]+}}: remark: launch of scale not handed to the runtime with the launch of addk: an error check whose failure path goes on lies between them
void goes_on(const float *x, float *t, float *y, int n) {
  scale<<<GRID(n)>>>(x, t, 2.f, n);
  gpuAssert(cudaGetLastError(), __FILE__, __LINE__, false);
  addk<<<GRID(n)>>>(t, y, 1.f, n);
  gpuAssert(cudaGetLastError(), __FILE__, __LINE__, false);
}
// REMARK-DAG: error-checks.cu:[[#@LINE+5]]:{{[0-9]+}}: remark: launch of scale not handed to the runtime with the launch of addk: a call to cudaMemcpy on an error check's failure path lies between them
void reads_back(const float *x, float *t, float *y, float *h, int n) {
  scale<<<GRID(n)>>>(x, t, 2.f, n);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    cudaMemcpy(h, t, sizeof(float), cudaMemcpyDeviceToHost);
    exit(1);
  }
  addk<<<GRID(n)>>>(t, y, 1.f, n);
  CHECK(cudaGetLastError());
}

// A check that throws ends the sequence: a caller that catches the
// exception would find the launches after the failing one run.
// REMARK-DAG: error-checks.cu:[[#@LINE+3]]:{{[0-9]+}}: remark: launch of scale not handed to the runtime with the launch of addk: an error check whose failure path throws lies between them
void throwing(const float *x, float *t, float *y, int n) {
  scale<<<GRID(n)>>>(x, t, 2.f, n);
  if (cudaGetLastError() != cudaSuccess) throw std::runtime_error("scale");
  addk<<<GRID(n)>>>(t, y, 1.f, n);
  if (cudaGetLastError() != cudaSuccess) throw std::runtime_error("addk");
}

// Checked between, not after: the run ends at its last checked launch.
// REMARK-DAG: error-checks.cu:[[#@LINE+3]]:{{[0-9]+}}: remark: handed 2 launches (scale, addk) to the runtime, which runs launches 0..1 as
// REMARK-DAG: error-checks.cu:[[#@LINE+5]]:{{[0-9]+}}: remark: launch of addk not handed to the runtime with the launch of scale: an error check lies between them and none follows the launch of scale, where run together their launch errors would be reported; check errors after that launch too
void last_unchecked(const float *x, float *t, float *u, float *y, int n) {
  scale<<<GRID(n)>>>(x, t, 2.f, n);
  CHECK(cudaGetLastError());
  addk<<<GRID(n)>>>(t, u, 1.f, n);
  CHECK(cudaGetLastError());
  scale<<<GRID(n)>>>(u, y, 3.f, n);
}

// CHECK-LABEL: define {{.*}} @_Z11macro_check
// CHECK: call i32 @cudaGetLastError()
// CHECK: call i32 @cudaGetLastError()
// CHECK: call void @kf_rt_launch_seq(
// CHECK: call i32 @cudaGetLastError()
// CHECK-NOT: __device_stub
// CHECK-LABEL: define {{.*}} @_Z15samples_helpers
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z10gpu_errchk
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z8asserted
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z20assigned_then_tested
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z8streamed
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z7goes_on
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z10reads_back
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z8throwing
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z14last_unchecked
// CHECK: call void @kf_rt_launch_seq(
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK: call {{.*}}__device_stub__scale
// CHECK-LABEL: define
