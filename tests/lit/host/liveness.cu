// Which buffers a run leaves unread, decided after inlining (HostLiveness.cpp):
// the record's rerun mask (offset 68, record 1 at 148) for a temporary that
// only the same run reads again, in the next iteration of a time loop (held
// in a lambda's capture or a member of an object on the stack); its dead
// mask (offset 72) for one freed or lost; the rerun mask too for a
// file-local global whose pointer only this run and cudaFree use; neither
// where anything else may read it: a copy to the host every fourth step, a
// buffer allocated again in the loop, a file-local global another function
// copies to the host, a global other files may use, a buffer returned to
// the caller.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -S -emit-llvm -Rpass-analysis=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ll

// CHECK-LABEL: define {{.*}} @_Z11lambda_loop
// CHECK-DAG: [[R0:%.*]] = getelementptr inbounds nuw i8, ptr [[REC:%.*]], i64 68
// CHECK-DAG: [[R1:%.*]] = getelementptr inbounds nuw i8, ptr [[REC]], i64 148
// CHECK-DAG: store i32 2, ptr [[R0]]
// CHECK-DAG: store i32 1, ptr [[R1]]
// CHECK: call void @kf_rt_launch_seq(
#include <cuda_runtime.h>
#define KFUSE_MAP __attribute__((kfuse_map))
__global__ KFUSE_MAP void k1(const float *x, float *t, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = 2.0f * x[i]; }
__global__ KFUSE_MAP void k2(const float *t, const float *y, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = t[i] + y[i]; }

void lambda_loop(const float *x, const float *y, float *o, int n, int steps)
{
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  auto run = [&] {
    // REMARK: liveness.cu:[[#@LINE+2]]:5: remark: parameter 1 ('x') of launch 0 (k1) stays live after the run: its pointer comes from outside this function
    // REMARK: liveness.cu:[[#@LINE+1]]:5: remark: the buffer of parameter 2 ('t') of launch 0 (k1) and parameter 1 ('t') of launch 1 (k2) is read after the run only by this run's next execution
    k1<<<(n + 255) / 256, 256>>>(x, t, n);
    k2<<<(n + 255) / 256, 256>>>(t, y, o, n);
  };
  for (int s = 0; s < steps; ++s)
    run();
  cudaFree(t);
}

struct Bufs { float *t, *u; };
void checked_every_fourth(const float *x, const float *y, float *o, int n, int steps, float *h)
{
  Bufs b;
  cudaMalloc(&b.t, n * sizeof(float));
  for (int s = 0; s < steps; ++s) {
    // REMARK: liveness.cu:[[#@LINE+1]]:5: remark: the buffer of parameter 2 ('t') of launch 0 (k1) and parameter 1 ('t') of launch 1 (k2) stays live after the run: it may be read after the run by a call to cudaMemcpy at line [[#@LINE+4]]
    k1<<<(n + 255) / 256, 256>>>(x, b.t, n);
    k2<<<(n + 255) / 256, 256>>>(b.t, y, o, n);
    if (s % 4 == 0)
      cudaMemcpy(h, b.t, n * sizeof(float), cudaMemcpyDeviceToHost);
  }
  cudaFree(b.t);
}

class Pipeline {
public:
  explicit Pipeline(int n) : n_(n) { cudaMalloc(&t_, n * sizeof(float)); }
  ~Pipeline() { cudaFree(t_); }
  void step(const float *x, const float *y, float *o)
  {
    // REMARK: liveness.cu:[[#@LINE+1]]:5: remark: the buffer of parameter 2 ('t') of launch 0 (k1) and parameter 1 ('t') of launch 1 (k2) is read after the run only by this run's next execution
    k1<<<(n_ + 255) / 256, 256>>>(x, t_, n_);
    k2<<<(n_ + 255) / 256, 256>>>(t_, y, o, n_);
  }
private:
  float *t_;
  int n_;
};
void member_loop(const float *x, const float *y, float *o, int n, int steps)
{
  Pipeline p(n);
  for (int s = 0; s < steps; ++s)
    p.step(x, y, o);
}

void fresh_each_step(const float *x, const float *y, float *o, int n, int steps)
{
  for (int s = 0; s < steps; ++s) {
    float *t;
    cudaMalloc(&t, n * sizeof(float));
    // REMARK: liveness.cu:[[#@LINE+1]]:5: remark: the buffer of parameter 2 ('t') of launch 0 (k1) and parameter 1 ('t') of launch 1 (k2) stays live after the run: its variable is assigned again after the run
    k1<<<(n + 255) / 256, 256>>>(x, t, n);
    k2<<<(n + 255) / 256, 256>>>(t, y, o, n);
    cudaFree(t);
  }
}

// A file-local global is a slot of the whole file: set up and torn down
// elsewhere, read nowhere but by this run.
static float *g_t;
void global_setup(int n) { cudaMalloc(&g_t, n * sizeof(float)); }
void global_teardown() { cudaFree(g_t); g_t = nullptr; }
void global_temp(const float *x, const float *y, float *o, int n)
{
  // REMARK: liveness.cu:[[#@LINE+1]]:3: remark: the buffer of parameter 2 ('t') of launch 0 (k1) and parameter 1 ('t') of launch 1 (k2) is read after the run only by this run's next execution
  k1<<<(n + 255) / 256, 256>>>(x, g_t, n);
  k2<<<(n + 255) / 256, 256>>>(g_t, y, o, n);
}

// Another function of the file copies it to the host: live, and the remark
// says where.
static float *g_w;
void watched_setup(int n) { cudaMalloc(&g_w, n * sizeof(float)); }
void watched_temp(const float *x, const float *y, float *o, int n)
{
  // REMARK: liveness.cu:[[#@LINE+1]]:3: remark: the buffer of parameter 2 ('t') of launch 0 (k1) and parameter 1 ('t') of launch 1 (k2) stays live after the run: its global's pointer is used by a call to cudaMemcpy in watched_peek at line [[#@LINE+5]]
  k1<<<(n + 255) / 256, 256>>>(x, g_w, n);
  k2<<<(n + 255) / 256, 256>>>(g_w, y, o, n);
}
void watched_peek(float *h, int n)
{ cudaMemcpy(h, g_w, n * sizeof(float), cudaMemcpyDeviceToHost); }

// Other files may use a global with external linkage.
float *g_shared;
void shared_temp(const float *x, const float *y, float *o, int n)
{
  // REMARK: liveness.cu:[[#@LINE+1]]:3: remark: the buffer of parameter 2 ('t') of launch 0 (k1) and parameter 1 ('t') of launch 1 (k2) stays live after the run: its pointer is held in a global that other files may use
  k1<<<(n + 255) / 256, 256>>>(x, g_shared, n);
  k2<<<(n + 255) / 256, 256>>>(g_shared, y, o, n);
}

float *handed_back(const float *x, const float *y, float *o, int n, int steps)
{
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  for (int s = 0; s < steps; ++s) {
    // REMARK: liveness.cu:[[#@LINE+1]]:5: remark: the buffer of parameter 2 ('t') of launch 0 (k1) and parameter 1 ('t') of launch 1 (k2) stays live after the run: the function returns it at line [[#@LINE+4]]
    k1<<<(n + 255) / 256, 256>>>(x, t, n);
    k2<<<(n + 255) / 256, 256>>>(t, y, o, n);
  }
  return t;
}

// A run in a helper inlined at two places says each thing about it once.
static void helper_run(const float *x, const float *y, float *t, float *o, int n)
{
  // REMARK: liveness.cu:[[#@LINE+2]]:3: remark: the buffer of parameter 2 ('t') of launch 0 (k1) and parameter 1 ('t') of launch 1 (k2) stays live after the run: its pointer comes from outside this function
  // REMARK-NOT: liveness.cu:[[#@LINE+1]]:3: remark: the buffer of
  k1<<<(n + 255) / 256, 256>>>(x, t, n);
  k2<<<(n + 255) / 256, 256>>>(t, y, o, n);
}
void twice(const float *x, const float *y, float *t, float *o, int n, float **keep)
{
  helper_run(x, y, t, o, n);
  helper_run(y, x, t, o, n);
  *keep = t;
}

// Nothing is marked in the functions where the buffer stays live.
// CHECK-LABEL: define {{.*}} @_Z20checked_every_fourth
// CHECK-NOT: store i32 {{[12]}}, ptr %{{.*}}, align 4{{$}}
// CHECK: call void @kf_rt_launch_seq(
