// The host pass binds launches to the device side's sequences by the line
// and column of their first launch. Where the host compilation has no debug
// locations (no -g, no remark flag), the Clang plugin lists where each host
// function launches, and calls functions that launch, in source order
// (`kfuse.launch-sites 1` on __kfuse_tu); the host pass gives the k-th
// launch of each kernel, and the k-th call of each such function, the k-th
// location listed, binds the launches and strips the locations again. The
// object is what it would be without them, and no location tracking slows
// the rest of the compilation. A -g build keeps its debug information, and
// remarks keep clang's own locations (host/clang-o2.cu, host/device-plan.cu).
// REQUIRES: ptxas, fatbinary
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -c %s -o %t/dev.cubin
// RUN: %fatbinary -64 --create %t/dev.fatbin --image3=kind=elf,sm=%cuda_sm,file=%t/dev.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/dev.fatbin \
// RUN:   -S -emit-llvm %s -o %t/host.ll
// RUN: FileCheck %s --check-prefixes=CHECK,STRIP,FOLDED < %t/host.ll
// Under -g the debug information stays, and the launches bind alike.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -g -Xclang -fcuda-include-gpubinary -Xclang %t/dev.fatbin \
// RUN:   -S -emit-llvm %s -o %t/host-g.ll
// RUN: FileCheck %s --check-prefixes=CHECK,DEBUG,GFOLDED < %t/host-g.ll
// With a remark flag clang tracks locations itself: no list.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O0 -Rpass-missed=kfuse -Xclang -disable-llvm-passes \
// RUN:   -S -emit-llvm %s -o - 2>/dev/null | FileCheck %s --check-prefix=TRACKED
// A CUDA file without kfuse_map kernels pays nothing either.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -DNO_MARKS -S -emit-llvm %s -o %t/plain.ll
// RUN: FileCheck %s --check-prefix=STRIP < %t/plain.ll
// The list the plugin writes, and the pass alone on it.
// RUN: %clang_cuda -fplugin=%kfuse_clang_plugin %kfuse_cuda_sdk --cuda-host-only -O0 -Xclang -disable-O0-optnone \
// RUN:   -S -emit-llvm %s -o %t/listed.ll
// RUN: FileCheck %s --check-prefix=LISTED < %t/listed.ll
// RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host -S %t/listed.ll | FileCheck %s --check-prefix=STRIP
// Remarks during the pass see the placed locations; they go all the same.
// RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host -pass-remarks=kfuse -S %t/listed.ll 2>%t/remarks \
// RUN:   | FileCheck %s --check-prefix=STRIP
// RUN: FileCheck %s --check-prefix=REMARK < %t/remarks

#ifdef NO_MARKS
#define KMAP __global__
#else
#define KMAP __global__ __attribute__((kfuse_map))
#endif
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

KMAP void scale(const float *x, float *t, int n) { IDX; if (i < n) t[i] = 2.0f * x[i]; }
KMAP void axpy(const float *t, const float *y, float *o, int n) { IDX; if (i < n) o[i] = t[i] + y[i]; }

// CHECK-LABEL: define {{.*}}@_Z3runPKfPfS0_S1_i(
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @kfuse.site
void run(const float *x, float *t, const float *y, float *o, int n) {
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  axpy<<<(n + 255) / 256, 256>>>(t, y, o, n);
}

// A launch helper, called twice: the calls carry the sequence's locations.
void step(const float *x, float *t, int n) { scale<<<(n + 255) / 256, 256>>>(x, t, n); }
void finish(const float *t, const float *y, float *o, int n) { axpy<<<(n + 255) / 256, 256>>>(t, y, o, n); }
// CHECK-LABEL: define {{.*}}@_Z7helpersPKfPfS0_S1_i(
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @kfuse.site
void helpers(const float *x, float *t, const float *y, float *o, int n) {
  step(x, t, n);
  finish(t, y, o, n);
}

// Code clang does not emit is not listed: the arm of a constant condition,
// what follows a return. The increment of a `for` is listed after its body,
// where clang emits it.
void skipped(const float *x, float *t, const float *y, float *o, int n) {
  if (sizeof(int) == 2)
    scale<<<1, 1>>>(x, t, n);
  for (int k = 0; k < 2; axpy<<<1, 1>>>(t, y, o, n), ++k)
    scale<<<1, 1>>>(x, t, n);
  return;
  axpy<<<1, 1>>>(t, y, o, n);
}

// A kernel that clang emits another number of times than the list says (a
// switch on a constant keeps one case) gets no location: its launches stay
// as they are, unfused, and never take another launch's sequence. Under -g
// clang's own locations bind them.
// FOLDED-LABEL: define {{.*}}@_Z6foldedPKfPfS0_S1_i(
// FOLDED-NOT: kf_rt_launch_seq
// FOLDED: ret void
// GFOLDED-LABEL: define {{.*}}@_Z6foldedPKfPfS0_S1_i(
// GFOLDED: call void @kf_rt_launch_seq(ptr nonnull @kfuse.site
void folded(const float *x, float *t, const float *y, float *o, int n) {
  switch (1) {
  case 0:
    scale<<<1, 1>>>(x, t, n);
    break;
  case 1:
    scale<<<(n + 255) / 256, 256>>>(x, t, n);
    axpy<<<(n + 255) / 256, 256>>>(t, y, o, n);
    break;
  }
}

// A template, a member function and a lambda are functions of their own,
// each listed under its symbol, and bind alike.
template <class T> void tmplf(const T *x, T *t, const T *y, T *o, int n) {
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  axpy<<<(n + 255) / 256, 256>>>(t, y, o, n);
}
struct Solver {
  const float *x, *y;
  float *t, *o;
  int n;
  void step();
};
// CHECK-LABEL: define {{.*}}@_ZN6Solver4stepEv(
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @kfuse.site
void Solver::step() {
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  axpy<<<(n + 255) / 256, 256>>>(t, y, o, n);
}
// The template's and the lambda's runs, inlined here at -O2.
// CHECK-LABEL: define {{.*}}@_Z5usersPKfPfS0_S1_i(
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @kfuse.site
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @kfuse.site
void users(const float *x, float *t, const float *y, float *o, int n) {
  tmplf(x, t, y, o, n);
  auto each = [&] {
    scale<<<(n + 255) / 256, 256>>>(x, t, n);
    axpy<<<(n + 255) / 256, 256>>>(t, y, o, n);
  };
  each();
}

// LISTED: c"kfuse.launch-sites 1\0Afn _Z3runPKfPfS0_S1_i {{[^ ]*}}launch-sites.cu\0Alaunch _Z20__device_stub__scalePKfPfi 51:8\0Alaunch _Z19__device_stub__axpyPKfS0_Pfi 52:7\0A
// LISTED-SAME: fn _Z4stepPKfPfi {{[^ ]*}}launch-sites.cu\0Alaunch _Z20__device_stub__scalePKfPfi 56:51\0A
// LISTED-SAME: fn _Z6finishPKfS0_Pfi {{[^ ]*}}launch-sites.cu\0Alaunch _Z19__device_stub__axpyPKfS0_Pfi 57:68\0A
// LISTED-SAME: fn _Z7helpersPKfPfS0_S1_i {{[^ ]*}}launch-sites.cu\0Acall _Z4stepPKfPfi 61:3\0Acall _Z6finishPKfS0_Pfi 62:3\0A
// LISTED-SAME: fn _Z7skippedPKfPfS0_S1_i {{[^ ]*}}launch-sites.cu\0Alaunch _Z20__device_stub__scalePKfPfi 72:10\0Alaunch _Z19__device_stub__axpyPKfS0_Pfi 71:30\0A
// LISTED-SAME: fn _Z6foldedPKfPfS0_S1_i {{[^ ]*}}launch-sites.cu\0Alaunch _Z20__device_stub__scalePKfPfi 89:10\0Alaunch _Z20__device_stub__scalePKfPfi 92:10\0Alaunch _Z19__device_stub__axpyPKfS0_Pfi 93:9\0A
// LISTED-SAME: fn _Z5tmplfIfEvPKT_PS0_S2_S3_i {{[^ ]*}}launch-sites.cu\0Alaunch _Z20__device_stub__scalePKfPfi 101:8\0Alaunch _Z19__device_stub__axpyPKfS0_Pfi 102:7\0A
// LISTED-SAME: fn _ZN6Solver4stepEv {{[^ ]*}}launch-sites.cu\0Alaunch _Z20__device_stub__scalePKfPfi 113:8\0Alaunch _Z19__device_stub__axpyPKfS0_Pfi 114:7\0A
// LISTED-SAME: fn _ZZ5usersPKfPfS0_S1_iENKUlvE_clEv {{[^ ]*}}launch-sites.cu\0Alaunch _Z20__device_stub__scalePKfPfi 123:10\0Alaunch _Z19__device_stub__axpyPKfS0_Pfi 124:9\0A
// LISTED-SAME: fn _Z5usersPKfPfS0_S1_i {{[^ ]*}}launch-sites.cu\0Acall _Z5tmplfIfEvPKT_PS0_S2_S3_i 121:3\0Acall _ZZ5usersPKfPfS0_S1_iENKUlvE_clEv 126:3\0A\00"
// LISTED-NOT: !dbg
// LISTED-NOT: DICompileUnit

// STRIP-NOT: __kfuse_tu
// STRIP-NOT: kfuse.launch-sites
// STRIP-NOT: !dbg
// STRIP-NOT: !llvm.dbg.cu
// STRIP-NOT: DICompileUnit

// DEBUG-NOT: kfuse.launch-sites
// DEBUG: !llvm.dbg.cu = !{![[CU:[0-9]+]]}
// DEBUG: ![[CU]] = distinct !DICompileUnit({{.*}}emissionKind: FullDebug

// TRACKED-NOT: kfuse.launch-sites
// TRACKED: !dbg

// The remarks of the pass name the lines of the launches.
// REMARK-DAG: launch-sites.cu:51:8: {{.*}}2 launches (scale, axpy)
// REMARK-DAG: launch-sites.cu:61:3: {{.*}}2 launches (scale, axpy)
// REMARK-DAG: launch-sites.cu:72:10: {{.*}}2 launches (scale, axpy)
