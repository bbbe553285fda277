// A call in a launch's own arguments runs between the launches, after the
// first one was queued: the host pass must not hand the two to the runtime,
// and says so (the run breaks inside the second launch's argument
// evaluation, and the remark names that launch).
// REQUIRES: cuda
// RUN: %clang_cuda --cuda-host-only -O2 -fplugin=%kfuse_clang_plugin -fpass-plugin=%kfuse_llvm_plugin \
// RUN:   -Rpass=kfuse -Rpass-missed=kfuse -S -emit-llvm %s -o %t.ll 2> %t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: FileCheck %s < %t.ll

__global__ __attribute__((kfuse_map)) void p(const float *x, float *t, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = 2.0f * x[i]; }
__global__ __attribute__((kfuse_map)) void q(const float *t, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = t[i] + 1.0f; }
float *bump(float *t, int n);
int count(int n);

void in_pointer(const float *x, float *t, float *o, int n) {
  p<<<n / 256, 256>>>(x, t, n);
  q<<<n / 256, 256>>>(bump(t, n), o, n);
}
void in_scalar(const float *x, float *t, float *o, int n) {
  p<<<n / 256, 256>>>(x, t, n);
  q<<<n / 256, 256>>>(t, o, count(n));
}
// REMARK: call-in-args.cu:[[#@LINE-6]]:{{[0-9]+}}: remark: launch of p not handed to the runtime with the launch of q: a call to bump lies between them
// REMARK: call-in-args.cu:[[#@LINE-3]]:{{[0-9]+}}: remark: launch of p not handed to the runtime with the launch of q: a call to count lies between them
// CHECK-LABEL: define {{.*}} @_Z10in_pointer
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z9in_scalar
// CHECK-NOT: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z8accessor
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}} @_Z7counted
// CHECK-NOT: call void @kf_rt_launch_seq(

// An accessor the file defines is looked into: one that only reads memory,
// writes its own locals, cannot throw and cannot loop lies between the
// launches harmlessly, as `buf.get()` of an RAII buffer does; one that
// counts its calls in a global, or calls what the file does not define,
// still ends the run.
template <class T> struct Buffer {
  T *p;
  T *get() const { return p; }
  T *data() const { T *q = get(); return q + 0; }
};
int uses;
struct Counted {
  float *p;
  float *get() { ++uses; return p; }
};
// REMARK: call-in-args.cu:[[#@LINE+2]]:{{[0-9]+}}: remark: handed 2 launches (p, q) to the runtime
void accessor(const float *x, const Buffer<float> &t, float *o, int n) {
  p<<<n / 256, 256>>>(x, t.get(), n);
  q<<<n / 256, 256>>>(t.data(), o, n);
}
void counted(const float *x, Counted &t, float *o, int n) {
  p<<<n / 256, 256>>>(x, t.p, n);
  q<<<n / 256, 256>>>(t.get(), o, n);
}
// REMARK: call-in-args.cu:[[#@LINE-2]]:{{[0-9]+}}: remark: launch of p not handed to the runtime with the launch of q: a call to Counted::get lies between them
