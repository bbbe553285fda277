// Every kfuse_map kernel is listed in llvm.global.annotations with the string
// "kfuse_map": the kernel in device IR, its __device_stub__ in host IR; a
// second entry, "kfuse_params" and the parameters' names, names them in
// remarks where the IR has no names (-O2 without -g).
// Template instantiations inherit the mark; unmarked kernels get none.
// RUN: %clang_cuda --cuda-device-only -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o - | FileCheck %s --check-prefix=DEV
// RUN: %clang_cuda --cuda-host-only -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin %s -o - | FileCheck %s --check-prefix=HOST

__global__ __attribute__((kfuse_map)) void gnu(float *p) {}
[[kfuse_map]] __global__ void cxx11(float *p) {}
[[kfuse::map]] __global__ void namespaced(float *p) {}
__attribute__((kfuse_map)) __global__ void before(float *p) {}
__global__ void redecl(float *p);
__global__ __attribute__((kfuse_map)) void redecl(float *p) {}
__global__ void plain(float *p) {}
namespace ns {
template <typename T> __global__ __attribute__((kfuse_map)) void tmpl(T *p) {}
}

// The unmarked launch between keeps these from being a sequence.
void launch(float *f, int *i) {
  ns::tmpl<<<1, 1>>>(f);
  plain<<<1, 1>>>(f);
  ns::tmpl<<<1, 1>>>(i);
}

// DEV-NOT: kfuse.seq
// DEV-DAG: [[MARK:@.*]] = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
// DEV-DAG: [[PARAMS:@.*]] = private unnamed_addr constant [15 x i8] c"kfuse_params p\00", section "llvm.metadata"
// DEV: @llvm.global.annotations = appending global [15 x
// DEV-SAME: @__kfuse_tu
// DEV-SAME: { ptr @_Z3gnuPf, ptr [[MARK]],
// DEV-SAME: { ptr @_Z3gnuPf, ptr [[PARAMS]],
// DEV-SAME: { ptr @_Z5cxx11Pf, ptr [[MARK]],
// DEV-SAME: { ptr @_Z5cxx11Pf, ptr [[PARAMS]],
// DEV-SAME: { ptr @_Z10namespacedPf, ptr [[MARK]],
// DEV-SAME: { ptr @_Z10namespacedPf, ptr [[PARAMS]],
// DEV-SAME: { ptr @_Z6beforePf, ptr [[MARK]],
// DEV-SAME: { ptr @_Z6beforePf, ptr [[PARAMS]],
// DEV-SAME: { ptr @_Z6redeclPf, ptr [[MARK]],
// DEV-SAME: { ptr @_Z6redeclPf, ptr [[PARAMS]],
// DEV-SAME: { ptr @_ZN2ns4tmplIfEEvPT_, ptr [[MARK]],
// DEV-SAME: { ptr @_ZN2ns4tmplIfEEvPT_, ptr [[PARAMS]],
// DEV-SAME: { ptr @_ZN2ns4tmplIiEEvPT_, ptr [[MARK]],
// DEV-SAME: { ptr @_ZN2ns4tmplIiEEvPT_, ptr [[PARAMS]],
// DEV: define{{.*}} ptx_kernel void @_Z3gnuPf(

// HOST-DAG: [[MARK:@.*]] = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
// HOST-DAG: [[PARAMS:@.*]] = private unnamed_addr constant [15 x i8] c"kfuse_params p\00", section "llvm.metadata"
// The plugin lists where each host function launches (host/launch-sites.cu).
// HOST-DAG: [[LOCS:@.*]] = private unnamed_addr constant [{{[0-9]+}} x i8] c"kfuse.launch-sites 1\0Afn _Z6launchPfPi {{.*}}kernel-marks.cu\0Alaunch _ZN2ns19__device_stub__tmplIfEEvPT_ 22:11\0Alaunch _Z20__device_stub__plainPf 23:8\0Alaunch _ZN2ns19__device_stub__tmplIiEEvPT_ 24:11\0A\00", section "llvm.metadata"
// HOST: @llvm.global.annotations = appending global [16 x
// HOST-SAME: { ptr @__kfuse_tu,
// HOST-SAME: { ptr @__kfuse_tu, ptr [[LOCS]],
// HOST-SAME: { ptr @_Z18__device_stub__gnuPf, ptr [[MARK]],
// HOST-SAME: { ptr @_Z18__device_stub__gnuPf, ptr [[PARAMS]],
// HOST-SAME: { ptr @_Z20__device_stub__cxx11Pf, ptr [[MARK]],
// HOST-SAME: { ptr @_Z20__device_stub__cxx11Pf, ptr [[PARAMS]],
// HOST-SAME: { ptr @_Z25__device_stub__namespacedPf, ptr [[MARK]],
// HOST-SAME: { ptr @_Z25__device_stub__namespacedPf, ptr [[PARAMS]],
// HOST-SAME: { ptr @_Z21__device_stub__beforePf, ptr [[MARK]],
// HOST-SAME: { ptr @_Z21__device_stub__beforePf, ptr [[PARAMS]],
// HOST-SAME: { ptr @_Z21__device_stub__redeclPf, ptr [[MARK]],
// HOST-SAME: { ptr @_Z21__device_stub__redeclPf, ptr [[PARAMS]],
// HOST-SAME: ptr @_ZN2ns19__device_stub__tmplIfEEvPT_, ptr [[MARK]],
// HOST-SAME: ptr @_ZN2ns19__device_stub__tmplIfEEvPT_, ptr [[PARAMS]],
// HOST-SAME: ptr @_ZN2ns19__device_stub__tmplIiEEvPT_, ptr [[MARK]],
// HOST-SAME: ptr @_ZN2ns19__device_stub__tmplIiEEvPT_, ptr [[PARAMS]],
