// Several launch sites of the same kernels: two in one function, one in
// another, a function template instantiated twice, a lambda, and two
// overloads of one name. The device pass fuses each sequence into a group
// of its own and binds the group, by its manifest `at` line, to the host
// function and the line and column of the sequence's first `<<<`; the host
// pass hands each run to the runtime with a site whose `where` names the
// same key, so each site runs its own fused kernel and none is bound by
// kernel names to another site's group.
// REQUIRES: ptxas, fatbinary
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o %t/dev.ll
// RUN: grep '^@__kfuse_manifest' %t/dev.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -c %s -o %t/dev.cubin
// RUN: %fatbinary -64 --create %t/dev.fatbin --image3=kind=elf,sm=%cuda_sm,file=%t/dev.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/dev.fatbin \
// RUN:   -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t/host-remarks.ll 2> %t/remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t/remarks
// Without -g or -R the host compilation still knows each launch's position
// (the Clang plugin turns on location tracking, which emits no debug
// information), and its output is the same.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/dev.fatbin \
// RUN:   -S -emit-llvm %s -o %t/host.ll
// RUN: FileCheck %s < %t/host.ll
// RUN: FileCheck %s --check-prefix=WHERE < %t/host.ll
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/dev.fatbin \
// RUN:   -c %s -o %t/host.o
// RUN: llvm-readelf -S %t/host.o | FileCheck %s --check-prefix=NODEBUG

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x
KMAP void scale(const float *x, float *t, int n) { IDX; if (i < n) t[i] = 2.0f * x[i]; }
KMAP void add(const float *a, const float *b, float *o, int n) { IDX; if (i < n) o[i] = a[i] + b[i]; }

// MANIFEST: kfuse-manifest 1

// Two sequences in one function, the second with another wiring.
// CHECK-LABEL: define {{.*}}void @_Z6one_fnPKfPfS0_S1_S1_i(
// CHECK: call void @kf_rt_launch_seq(
// CHECK: call void @kf_rt_launch_seq(
// CHECK-NOT: kf_rt_launch_seq
// CHECK: ret void
void one_fn(const float *x, float *t, const float *y, float *o, float *u, int n) {
  // MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_0_1 2
  // MANIFEST: at 0 2 [[@LINE+4]]:8 _Z6one_fnPKfPfS0_S1_S1_i
  // MANIFEST-NEXT: end
  // REMARK: site-binding.cu:[[@LINE+2]]:3: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_0_0_1 when the guards hold at run time, else one by one [-Rpass=kfuse]
  // WHERE-DAG: c"{{.*}}site-binding.cu:[[@LINE+1]]:8 _Z6one_fnPKfPfS0_S1_S1_i\00"
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  add<<<(n + 255) / 256, 256>>>(t, y, o, n);
  cudaDeviceSynchronize();
  // MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_1_0_1 2
  // MANIFEST: at 0 2 [[@LINE+4]]:8 _Z6one_fnPKfPfS0_S1_S1_i
  // MANIFEST-NEXT: end
  // REMARK: site-binding.cu:[[@LINE+2]]:3: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_1_0_1 when the guards hold at run time, else one by one [-Rpass=kfuse]
  // WHERE-DAG: c"{{.*}}site-binding.cu:[[@LINE+1]]:8 _Z6one_fnPKfPfS0_S1_S1_i\00"
  scale<<<(n + 255) / 256, 256>>>(x, u, n);
  add<<<(n + 255) / 256, 256>>>(y, u, o, n);
}

// One template, two instantiations: two functions, two groups, one line.
// CHECK-LABEL: define {{.*}}void @_Z4tmplILi128EEvPKfPfS1_S2_i(
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}}void @_Z4tmplILi256EEvPKfPfS1_S2_i(
// CHECK: call void @kf_rt_launch_seq(
template <int B> void tmpl(const float *x, float *t, const float *y, float *o, int n) {
  // MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_2_0_1 2
  // MANIFEST: at 0 2 [[@LINE+7]]:8 _Z4tmplILi128EEvPKfPfS1_S2_i
  // MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_3_0_1 2
  // MANIFEST: at 0 2 [[@LINE+5]]:8 _Z4tmplILi256EEvPKfPfS1_S2_i
  // REMARK-DAG: site-binding.cu:[[@LINE+4]]:3: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_2_0_1 when
  // REMARK-DAG: site-binding.cu:[[@LINE+3]]:3: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_3_0_1 when
  // WHERE-DAG: c"{{.*}}site-binding.cu:[[@LINE+2]]:8 _Z4tmplILi128EEvPKfPfS1_S2_i\00"
  // WHERE-DAG: c"{{.*}}site-binding.cu:[[@LINE+1]]:8 _Z4tmplILi256EEvPKfPfS1_S2_i\00"
  scale<<<(n + B - 1) / B, B>>>(x, t, n);
  add<<<(n + B - 1) / B, B>>>(t, y, o, n);
}
template void tmpl<128>(const float *, float *, const float *, float *, int);
template void tmpl<256>(const float *, float *, const float *, float *, int);

// A lambda's sequence belongs to its call operator, named alike on both
// sides (rewritten there, then inlined into its caller at -O2).
// CHECK-LABEL: define {{.*}}void @_Z9in_lambdaPKfPfS0_S1_i(
// CHECK: call void @kf_rt_launch_seq(
void in_lambda(const float *x, float *t, const float *y, float *o, int n) {
  auto f = [&](int m) {
    // MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_4_0_1 2
    // MANIFEST: at 0 2 [[@LINE+3]]:10 _ZZ9in_lambdaPKfPfS0_S1_iENKUliE_clEi
    // REMARK: site-binding.cu:[[@LINE+2]]:5: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_4_0_1 when
    // WHERE-DAG: c"{{.*}}site-binding.cu:[[@LINE+1]]:10 _ZZ9in_lambdaPKfPfS0_S1_iENKUliE_clEi\00"
    scale<<<(m + 255) / 256, 256>>>(x, t, m);
    add<<<(m + 255) / 256, 256>>>(t, y, o, m);
  };
  f(n);
}

// Two overloads of one name: the mangled names tell them apart.
// CHECK-LABEL: define {{.*}}void @_Z4overPKfPfS0_S1_i(
// CHECK: call void @kf_rt_launch_seq(
// CHECK-LABEL: define {{.*}}void @_Z4overPKfPfS0_S1_l(
// CHECK: call void @kf_rt_launch_seq(
void over(const float *x, float *t, const float *y, float *o, int n) {
  // MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_5_0_1 2
  // MANIFEST: at 0 2 [[@LINE+3]]:8 _Z4overPKfPfS0_S1_i
  // REMARK: site-binding.cu:[[@LINE+2]]:3: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_5_0_1 when
  // WHERE-DAG: c"{{.*}}site-binding.cu:[[@LINE+1]]:8 _Z4overPKfPfS0_S1_i\00"
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  add<<<(n + 255) / 256, 256>>>(t, y, o, n);
}
void over(const float *x, float *t, const float *y, float *o, long n) {
  // MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_6_0_1 2
  // MANIFEST: at 0 2 [[@LINE+3]]:8 _Z4overPKfPfS0_S1_l
  // REMARK: site-binding.cu:[[@LINE+2]]:3: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_6_0_1 when
  // WHERE-DAG: c"{{.*}}site-binding.cu:[[@LINE+1]]:8 _Z4overPKfPfS0_S1_l\00"
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  add<<<(n + 255) / 256, 256>>>(y, t, o, n);
}

// Block sizes differ: not fused on the device side. The runs of the same
// kernels above have groups, but none is this site's: plain launches.
// CHECK-LABEL: define {{.*}}void @_Z7unfusedPKfPfS0_S1_i(
// CHECK-NOT: kf_rt_launch_seq
// CHECK: ret void
void unfused(const float *x, float *t, const float *y, float *o, int n) {
  // MANIFEST: missed _Z7unfusedPKfPfS0_S1_i [[@LINE+2]] 2 0 1 launches 0 and 1 differ in launch configuration
  // REMARK: site-binding.cu:[[@LINE+1]]:3: remark: 2 launches (scale, add) left as they are: the device code has no fused kernel for them; launches 0..1 not fused: launches 0 and 1 differ in launch configuration
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  add<<<(n + 127) / 128, 128>>>(t, y, o, n);
}
// MANIFEST-NOT: group
// REMARK-NOT: handed
// NODEBUG-NOT: .debug_
