// The host pass reads the device plan from the fatbinary the host module
// embeds, as clang builds it: the device side compiled to a cubin, wrapped
// by fatbinary, handed to the host compilation with -fcuda-include-gpubinary.
// It hands the runtime only runs a fused kernel can take, says which
// launches run as which kernel, and leaves the others as plain launches
// with the device pass's reason.
// REQUIRES: ptxas, fatbinary
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -c %s -o %t/dev.cubin
// RUN: %fatbinary -64 --create %t/dev.fatbin --image3=kind=elf,sm=%cuda_sm,file=%t/dev.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/dev.fatbin \
// RUN:   -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t/host.ll 2> %t/remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t/remarks
// RUN: FileCheck %s < %t/host.ll
// The same through the driver, which builds and passes the fatbinary itself.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk -O2 -c -Rpass=kfuse -Rpass-missed=kfuse %s -o %t/app.o 2> %t/driver
// RUN: grep -v '^  \|^$' %t/driver | FileCheck %s --check-prefix=REMARK
// Output does not depend on remarks being asked for.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/dev.fatbin \
// RUN:   -S -emit-llvm %s -o - | FileCheck %s

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

KMAP void scale(const float *x, float *t, int n) { IDX; if (i < n) t[i] = 2.0f * x[i]; }
KMAP void axpy(const float *t, const float *y, float *o, int n) { IDX; if (i < n) o[i] = t[i] + y[i]; }
KMAP void square(const float *t, float *o, int n) { IDX; if (i < n) o[i] = t[i] * t[i]; }
// A store at an index that is no polynomial: never fused.
KMAP void rows(const float *a, float *b, int nx, int ny)
{ int id = blockIdx.x * blockDim.x + threadIdx.x, row = id / (nx + 4), col = id % (nx + 4);
  if (row < ny && col < nx) b[row * nx + col] = a[id]; }

// The stubs are inlined at -O2: a plain launch is a push of the
// configuration and a cudaLaunchKernel of the stub.
// CHECK-LABEL: define {{.*}}void @_Z5fusedPKfPfS0_S1_i(
// CHECK-NOT: cudaLaunchKernel
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @kfuse.site{{[.0-9]*}}, ptr nonnull %{{[0-9]+}}, i32 2)
// CHECK-NOT: cudaLaunchKernel
// CHECK: ret void
void fused(const float *x, float *t, const float *y, float *o, int n) {
  // REMARK: device-plan.cu:[[@LINE+1]]:3: remark: handed 2 launches (scale, axpy) to the runtime, which runs launches 0..1 as [[FUSED:__kfuse_fused_[0-9a-f]+_[0-9]+_0_1]] when the guards hold at run time, else one by one [-Rpass=kfuse]
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  axpy<<<(n + 255) / 256, 256>>>(t, y, o, n);
}

// The device pass refuses the pair: plain launches, no runtime call.
// CHECK-LABEL: define {{.*}}void @_Z7refusedPKfPfS1_i(
// CHECK-NOT: kf_rt_launch_seq
// CHECK: call {{.*}}@cudaLaunchKernel(ptr noundef nonnull @_Z19__device_stub__rowsPKfPfii,
// CHECK-NOT: kf_rt_launch_seq
// CHECK: call {{.*}}@cudaLaunchKernel(ptr noundef nonnull @_Z21__device_stub__squarePKfPfi,
// CHECK-NOT: kf_rt_launch_seq
// CHECK: ret void
void refused(const float *a, float *b, float *c, int n) {
  // REMARK: device-plan.cu:[[@LINE+1]]:3: remark: 2 launches (rows, square) left as they are: the device code has no fused kernel for them; launches 0..1 not fused: kernel 'rows' cannot be fused: has a non-affine or unknown index (store through parameter 2 ('b')){{.*}} [-Rpass-missed=kfuse]
  rows<<<(n + 255) / 256, 256>>>(a, b, n, 1);
  square<<<(n + 255) / 256, 256>>>(b, c, n);
}

// Launches 0..1 fuse; launch 2 runs alone, and the remark says why. The
// group is this sequence's own (the same kernels as fused()'s, another
// group), bound to this site by its `at` line.
// CHECK-LABEL: define {{.*}}void @_Z7partialPKfPfS0_S1_S1_i(
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @kfuse.site{{[.0-9]*}}, ptr nonnull %{{[0-9]+}}, i32 3)
void partial(const float *x, float *t, const float *y, float *o, float *r, int n) {
  // REMARK: device-plan.cu:[[@LINE+1]]:3: remark: handed 3 launches (scale, axpy, rows) to the runtime, which runs launches 0..1 as [[PARTIAL:__kfuse_fused_[0-9a-f]+_[0-9]+_0_1]] when the guards hold at run time, else one by one; launches 0..2 not fused: kernel 'rows' cannot be fused: has a non-affine
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  axpy<<<(n + 255) / 256, 256>>>(t, y, o, n);
  rows<<<(n + 255) / 256, 256>>>(o, r, n, 1);
}

// Block sizes differ: the device pass does not fuse this pair. The groups
// of the same kernels in fused() and partial() are bound to their own
// sites, so these stay plain launches, with the device pass's reason.
// CHECK-LABEL: define {{.*}}void @_Z8borrowedPKfPfS0_S1_i(
// CHECK-NOT: kf_rt_launch_seq
// CHECK: ret void
void borrowed(const float *x, float *t, const float *y, float *o, int n) {
  // REMARK: device-plan.cu:[[@LINE+1]]:3: remark: 2 launches (scale, axpy) left as they are: the device code has no fused kernel for them; launches 0..1 not fused: launches 0 and 1 differ in launch configuration: grid ('(n + 255) / 256' and '(n + 127) / 128'), block ('256' and '128')
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  axpy<<<(n + 127) / 128, 128>>>(t, y, o, n);
}

// The Clang plugin ends a sequence at a nested block; the host pass sees one
// straight run. No group covers (square, square), and the device
// compilation has no record of it.
// CHECK-LABEL: define {{.*}}void @_Z6nestedPKfPfS1_i(
// CHECK-NOT: kf_rt_launch_seq
// CHECK: call {{.*}}@cudaLaunchKernel(ptr noundef nonnull @_Z21__device_stub__squarePKfPfi,
// CHECK-NOT: kf_rt_launch_seq
// CHECK: call {{.*}}@cudaLaunchKernel(ptr noundef nonnull @_Z21__device_stub__squarePKfPfi,
// CHECK-NOT: kf_rt_launch_seq
// CHECK: ret void
void nested(const float *a, float *b, float *c, int n) {
  // REMARK: device-plan.cu:[[@LINE+1]]:3: remark: 2 launches (square, square) left as they are: the device code has no fused kernel for them, and the device compilation recorded no reason (it saw no launch sequence of these launches here) [-Rpass-missed=kfuse]
  square<<<(n + 255) / 256, 256>>>(a, b, n);
  { square<<<(n + 255) / 256, 256>>>(b, c, n); }
}
// REMARK-NOT: device plan
// REMARK-NOT: handed
