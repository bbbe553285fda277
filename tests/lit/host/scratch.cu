// kfuse_scratch: a pointer the liveness pass cannot prove dead (a field of a
// caller's struct, a global, a local copy of a parameter) gets its record's
// dead bit (offset 72; record 1 at 152) on the declaration, a remark that
// says where it is declared, and the site's scratch table (kf_site_t.scratch)
// lists it; an undeclared pointer of the same run stays live.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -S -emit-llvm -Rpass-analysis=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ll

// CHECK-DAG: %kfuse.site = type { ptr, ptr, i32, i32, ptr, ptr, ptr, i32, ptr }
// CHECK-DAG: @kfuse.manifest = private unnamed_addr constant [34 x i8] c"__kfuse_manifest_{{[0-9a-f]+}}\00"
// CHECK-DAG: %kfuse.scratch = type { i32, i32, ptr, ptr }
// CHECK-DAG: @[[SITE_F:kfuse.site[.0-9]*]] = private global %kfuse.site { ptr @{{kfuse.where[.0-9]*}}, ptr null, i32 2, i32 2, ptr @[[TAB_F:kfuse.scratch[.0-9]*]], ptr @kfuse.manifest, ptr null, i32 0, ptr null }
// CHECK-DAG: @[[TAB_F]] = private constant [2 x %kfuse.scratch] [%kfuse.scratch { i32 0, i32 1, ptr @[[NAME_F:kfuse.scratch.name[.0-9]*]], ptr @[[AT_F:kfuse.scratch.at[.0-9]*]] }, %kfuse.scratch { i32 1, i32 0, ptr @[[NAME_F]], ptr @[[AT_F]] }]
// CHECK-DAG: @[[NAME_F]] = private unnamed_addr constant [7 x i8] c"Ctx::t\00"
// CHECK-DAG: @[[AT_F]] = private unnamed_addr constant [{{[0-9]+}} x i8] c"{{.*}}scratch.cu:26\00"
// CHECK-DAG: @[[SITE_U:kfuse.site[.0-9]*]] = private global %kfuse.site { ptr @{{kfuse.where[.0-9]*}}, ptr null, i32 2, i32 0, ptr null, ptr @kfuse.manifest, ptr null, i32 0, ptr null }
#include <cuda_runtime.h>
#define KFUSE_MAP __attribute__((kfuse_map))
__global__ KFUSE_MAP void k1(const float *x, float *t, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = 2.0f * x[i]; }
__global__ KFUSE_MAP void k2(const float *t, const float *y, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = t[i] + y[i]; }

struct Ctx {
  float *t __attribute__((kfuse_scratch)); // CTX_LINE
  int n;
};

// CHECK-LABEL: define {{.*}} @_Z5fieldR3CtxPKfS2_Pf
// CHECK-DAG: [[D0:%.*]] = getelementptr inbounds nuw i8, ptr [[REC:%.*]], i64 72
// CHECK-DAG: [[D1:%.*]] = getelementptr inbounds nuw i8, ptr [[REC]], i64 152
// CHECK-DAG: store i64 2, ptr [[D0]]
// CHECK-DAG: store i64 1, ptr [[D1]]
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @[[SITE_F]]
void field(Ctx &c, const float *x, const float *y, float *o)
{
  // REMARK: scratch.cu:[[#@LINE+3]]:3: remark: parameter 2 ('t') of launch 0 (k1) is dead after the run: 'Ctx::t' is declared scratch at {{.*}}scratch.cu:26 (its contents are not read before they are written again; KFUSE_VERIFY checks it)
  // REMARK: scratch.cu:[[#@LINE+2]]:3: remark: parameter 1 ('t') of launch 1 (k2) is dead after the run: 'Ctx::t' is declared scratch at {{.*}}scratch.cu:26
  // REMARK: scratch.cu:[[#@LINE+1]]:3: remark: parameter 3 ('o') of launch 1 (k2) stays live after the run: its pointer comes from outside this function
  k1<<<(c.n + 255) / 256, 256>>>(x, c.t, c.n);
  k2<<<(c.n + 255) / 256, 256>>>(c.t, y, o, c.n);
}

float *global_t __attribute__((kfuse_scratch));

// CHECK-LABEL: define {{.*}} @_Z6globalPKfS0_Pfi
// CHECK-DAG: store i64 2, ptr {{%.*}}
// CHECK-DAG: store i64 1, ptr {{%.*}}
// CHECK: call void @kf_rt_launch_seq(
void global(const float *x, const float *y, float *o, int n)
{
  // REMARK: scratch.cu:[[#@LINE+1]]:3: remark: the buffer of parameter 2 ('t') of launch 0 (k1) and parameter 1 ('t') of launch 1 (k2) is dead after the run: 'global_t' is declared scratch at {{.*}}scratch.cu:45
  k1<<<(n + 255) / 256, 256>>>(x, global_t, n);
  k2<<<(n + 255) / 256, 256>>>(global_t, y, o, n);
}

// A parameter cannot be declared; a local copy of it can, in a time loop.
// CHECK-LABEL: define {{.*}} @_Z10param_loopPfPKfS1_S_ii
// CHECK: call void @kf_rt_launch_seq(
void param_loop(float *tp, const float *x, const float *y, float *o, int n, int steps)
{
  float *t __attribute__((kfuse_scratch)) = tp;
  for (int s = 0; s < steps; ++s) {
    // REMARK: scratch.cu:[[#@LINE+1]]:5: remark: the buffer of parameter 2 ('t') of launch 0 (k1) and parameter 1 ('t') of launch 1 (k2) is dead after the run: 't' is declared scratch at {{.*}}scratch.cu:63
    k1<<<(n + 255) / 256, 256>>>(x, t, n);
    k2<<<(n + 255) / 256, 256>>>(t, y, o, n);
  }
}

// Undeclared: stays live, no table.
// CHECK-LABEL: define {{.*}} @_Z10undeclaredPfPKfS1_S_i
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @[[SITE_U]]
void undeclared(float *t, const float *x, const float *y, float *o, int n)
{
  // REMARK: scratch.cu:[[#@LINE+1]]:3: remark: the buffer of parameter 2 ('t') of launch 0 (k1) and parameter 1 ('t') of launch 1 (k2) stays live after the run: its pointer comes from outside this function
  k1<<<(n + 255) / 256, 256>>>(x, t, n);
  k2<<<(n + 255) / 256, 256>>>(t, y, o, n);
}
