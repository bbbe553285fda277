// The Clang plugin turns on location tracking in the host compilation, since
// the host pass binds launches to the device side's sequences by the line
// and column of their first launch. Where nothing else asked for the
// locations (no -g, no remark flag), the host pass strips them once it has
// bound the launches: the object is what it would be without them, and the
// rest of the pipeline does not carry them. A -g build keeps its debug
// information, and remarks keep their locations (host/clang-o2.cu,
// host/device-plan.cu).
// REQUIRES: ptxas, fatbinary
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -c %s -o %t/dev.cubin
// RUN: %fatbinary -64 --create %t/dev.fatbin --image3=kind=elf,sm=%cuda_sm,file=%t/dev.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/dev.fatbin \
// RUN:   -S -emit-llvm %s -o %t/host.ll
// RUN: FileCheck %s --check-prefixes=CHECK,STRIP < %t/host.ll
// Under -g the debug information stays, and the launches bind alike.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -g -Xclang -fcuda-include-gpubinary -Xclang %t/dev.fatbin \
// RUN:   -S -emit-llvm %s -o %t/host-g.ll
// RUN: FileCheck %s --check-prefixes=CHECK,DEBUG < %t/host-g.ll
// A CUDA file without kfuse_map kernels pays nothing either.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -DNO_MARKS -S -emit-llvm %s -o %t/plain.ll
// RUN: FileCheck %s --check-prefix=STRIP < %t/plain.ll
// And the pass alone, on IR whose mark says the plugin added the locations.
// RUN: %clang_cuda -fplugin=%kfuse_clang_plugin %kfuse_cuda_sdk --cuda-host-only -O0 -Xclang -disable-O0-optnone \
// RUN:   -S -emit-llvm %s -o %t/marked.ll
// RUN: FileCheck %s --check-prefix=MARKED < %t/marked.ll
// RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host -S %t/marked.ll | FileCheck %s --check-prefix=STRIP
// RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host -pass-remarks-missed=kfuse -S %t/marked.ll 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=KEPT

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

// MARKED: c"kfuse.loc-tracking\00"
// MARKED: !llvm.dbg.cu = !{![[CU:[0-9]+]]}
// MARKED: ![[CU]] = distinct !DICompileUnit({{.*}}emissionKind: NoDebug

// STRIP-NOT: __kfuse_tu
// STRIP-NOT: kfuse.loc-tracking
// STRIP-NOT: !dbg
// STRIP-NOT: !llvm.dbg.cu
// STRIP-NOT: DICompileUnit

// DEBUG: !llvm.dbg.cu = !{![[CU:[0-9]+]]}
// DEBUG: ![[CU]] = distinct !DICompileUnit({{.*}}emissionKind: FullDebug

// KEPT: !dbg
// KEPT: !llvm.dbg.cu
