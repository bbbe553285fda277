// A memory-bandwidth benchmark's five kernels written back to back fuse
// into one kernel that moves the minimum: a read once, c, b and a written
// once each, 32 bytes per element. The fused kernel's pointers are
// noalias (the runtime checks the group's buffers disjoint wherever one is
// written), so a is not reloaded after the stores to c and b, and the
// stores a later stage overwrites at the same element (copy's c, triad's
// a) go. The remarks, the planner's prediction and the code count the same
// bytes. With every buffer dead (the full dead mask) nothing is left to do.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-analysis=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=%cuda_arch %t.ptx -o /dev/null
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --check-prefix=IR < %t.ll

template <class T> __global__ __attribute__((kfuse_map)) void copy_k(const T *a, T *c, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i]; }
template <class T> __global__ __attribute__((kfuse_map)) void mul_k(T *b, const T *c, T s, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = s * c[i]; }
template <class T> __global__ __attribute__((kfuse_map)) void add_k(const T *a, const T *b, T *c, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }
template <class T> __global__ __attribute__((kfuse_map)) void triad_k(T *a, const T *b, const T *c, T s, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = b[i] + s * c[i]; }
template <class T> __global__ __attribute__((kfuse_map)) void nstream_k(T *a, const T *b, const T *c, T s, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += b[i] + s * c[i]; }

void stream(double *a, double *b, double *c, double s, int n, cudaStream_t st) {
  int g = (n + 1023) / 1024;
  copy_k<<<g, 1024, 0, st>>>(a, c, n);
  mul_k<<<g, 1024, 0, st>>>(b, c, s, n);
  add_k<<<g, 1024, 0, st>>>(a, b, c, n);
  triad_k<<<g, 1024, 0, st>>>(a, b, c, s, n);
  nstream_k<<<g, 1024, 0, st>>>(a, b, c, s, n);
}

// 32 bytes: the planner's 181972 ns for 2^24 elements is 32 bytes each at
// its bandwidth, 112 bytes unfused.
// REMARK: remark: sequence 0 at {{.*}}: launches 0..4: predicted 181972 ns fused, 641475 ns unfused
// REMARK: remark: fused launches 0..4 (copy_k<double>, mul_k<double>, add_k<double>, triad_k<double>, nstream_k<double>) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_4: a in registers, c in registers, b in registers; saves 80 bytes per element
// REMARK-NEXT: remark: __kfuse_fused_{{[0-9a-f]+}}_0_0_4: the store of launch 0 (copy_k<double>) to c, its parameter 2, is dropped: launch 2 (add_k<double>) stores the same element later, and nothing reads it in between
// REMARK-NEXT: remark: __kfuse_fused_{{[0-9a-f]+}}_0_0_4: the store of launch 3 (triad_k<double>) to a, its parameter 1, is dropped: launch 4 (nstream_k<double>) stores the same element later, and nothing reads it in between
// REMARK-NEXT: remark: __kfuse_fused_{{[0-9a-f]+}}_0_0_4: 112 bytes per element unfused, 32 fused (8 where the dead buffers' stores are skipped), 7 flops per element

// IR: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_4(ptr noalias %{{.*}}, ptr noalias %{{.*}}, i32 %{{.*}}, ptr noalias

// With every bit set nothing is left to do; for any other mask, one load
// and three stores of 8 bytes.
// CHECK-LABEL: .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_4(
// CHECK: setp.eq.b64 {{%p[0-9]+}}, {{%rd[0-9]+}}, 7;
// CHECK-NEXT: @{{%p[0-9]+}} bra [[RET:\$L__BB[0-9_]+]];
// CHECK-NOT: ld.global
// CHECK: ld.global.b64
// CHECK-NOT: ld.global
// CHECK: st.global.b64
// CHECK-NOT: ld.global
// CHECK: st.global.b64
// CHECK-NOT: ld.global
// CHECK: st.global.b64
// CHECK-NOT: {{ld|st}}.global
// CHECK: [[RET]]:
// CHECK-NEXT: ret;
