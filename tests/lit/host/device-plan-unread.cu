// Where the host compilation cannot read the device plan, the host pass
// hands every run to the runtime as before and an analysis remark says why:
// no device binary (--cuda-host-only), a truncated or foreign fatbinary, a
// compressed cubin, PTX only, a manifest of another version. A fatbinary it can read decides: a cubin
// without a manifest fuses nothing, and with several cubins any that fuses
// the run is enough (the driver loads one of them at run time).
// REQUIRES: ptxas, fatbinary
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -c %s -o %t/dev.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S %s -o %t/dev.ptx
// RUN: %fatbinary -64 --create %t/dev.fatbin --image3=kind=elf,sm=%cuda_sm,file=%t/dev.cubin
// RUN: %fatbinary -64 --create %t/zstd.fatbin --compress-all --image3=kind=elf,sm=%cuda_sm,file=%t/dev.cubin
// RUN: %fatbinary -64 --create %t/ptx.fatbin --image3=kind=ptx,sm=%cuda_sm,file=%t/dev.ptx
// RUN: head -c 600 %t/dev.fatbin > %t/truncated.fatbin
// RUN: cp %t/dev.cubin %t/cubin.fatbin
// RUN: perl -0777 -pe 's/kfuse-manifest 1/kfuse-manifest 9/' %t/dev.cubin > %t/v9.cubin
// RUN: %fatbinary -64 --create %t/v9.fatbin --image3=kind=elf,sm=%cuda_sm,file=%t/v9.cubin
// RUN: %clang_cuda %kfuse_cuda_sdk -Wno-unknown-attributes --cuda-device-only -O2 -c %s -o %t/plain.cubin
// RUN: %fatbinary -64 --create %t/plain.fatbin --image3=kind=elf,sm=%cuda_sm,file=%t/plain.cubin
// RUN: %clang_cuda %kfuse_cuda_sdk -Wno-unknown-attributes --no-cuda-gpu-arch=%cuda_arch --cuda-gpu-arch=sm_80 --cuda-device-only -O2 -c %s -o %t/plain80.cubin
// RUN: %fatbinary -64 --create %t/two.fatbin --image3=kind=elf,sm=80,file=%t/plain80.cubin --image3=kind=elf,sm=%cuda_sm,file=%t/dev.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t/none.ll 2> %t/none.txt
// RUN: FileCheck %s --check-prefixes=REMARK,NONE < %t/none.txt
// RUN: FileCheck %s --check-prefix=HANDED < %t/none.ll
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/truncated.fatbin -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t/truncated.ll 2> %t/truncated.txt
// RUN: FileCheck %s --check-prefixes=REMARK,TRUNCATED < %t/truncated.txt
// RUN: FileCheck %s --check-prefix=HANDED < %t/truncated.ll
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/cubin.fatbin -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t/cubin.ll 2> %t/cubin.txt
// RUN: FileCheck %s --check-prefixes=REMARK,FOREIGN < %t/cubin.txt
// RUN: FileCheck %s --check-prefix=HANDED < %t/cubin.ll
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/zstd.fatbin -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t/zstd.ll 2> %t/zstd.txt
// RUN: FileCheck %s --check-prefixes=REMARK,COMPRESSED < %t/zstd.txt
// RUN: FileCheck %s --check-prefix=HANDED < %t/zstd.ll
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/ptx.fatbin -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t/ptx.ll 2> %t/ptx.txt
// RUN: FileCheck %s --check-prefixes=REMARK,PTX < %t/ptx.txt
// RUN: FileCheck %s --check-prefix=HANDED < %t/ptx.ll
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/v9.fatbin -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t/v9.ll 2> %t/v9.txt
// RUN: FileCheck %s --check-prefixes=REMARK,VERSION < %t/v9.txt
// RUN: FileCheck %s --check-prefix=HANDED < %t/v9.ll
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/plain.fatbin -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t/plain.ll 2> %t/plain.txt
// RUN: FileCheck %s --check-prefix=PLAIN < %t/plain.txt
// RUN: FileCheck %s --check-prefix=LEFT < %t/plain.ll
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/two.fatbin -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t/two.ll 2> %t/two.txt
// RUN: FileCheck %s --check-prefix=TWO < %t/two.txt
// RUN: FileCheck %s --check-prefixes=HANDED,NOANCHOR < %t/two.ll
// A device side compiled under another macro has another translation-unit
// key: its manifest is not the one this file's sites will name.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -DOTHER_KEY=1 -c %s -o %t/other.cubin
// RUN: %fatbinary -64 --create %t/other.fatbin --image3=kind=elf,sm=%cuda_sm,file=%t/other.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -Xclang -fcuda-include-gpubinary -Xclang %t/other.fatbin -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t/other.ll 2> %t/other.txt
// RUN: FileCheck %s --check-prefixes=REMARK,KEY < %t/other.txt
// RUN: FileCheck %s --check-prefix=HANDED < %t/other.ll

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

KMAP void scale(const float *x, float *t, int n) { IDX; if (i < n) t[i] = 2.0f * x[i]; }
KMAP void axpy(const float *t, const float *y, float *o, int n) { IDX; if (i < n) o[i] = t[i] + y[i]; }

// NONE: remark: the device plan cannot be read here: the host module embeds no device code (--cuda-host-only, or IR compiled without its device side); launch runs are handed to the runtime, which finds their fused kernels at run time [-Rpass-analysis=kfuse]
// TRUNCATED: remark: the device plan cannot be read here: the embedded fatbinary cannot be read: truncated fatbinary: its header announces {{[0-9]+}} bytes, 600 are there;
// FOREIGN: remark: the device plan cannot be read here: the embedded fatbinary cannot be read: not a fatbinary (magic 0x464c457f);
// COMPRESSED: remark: the device plan cannot be read here: the embedded fatbinary cannot be read: the sm_{{[0-9]+}} cubin of the fatbinary is compressed;
// PTX: remark: the device plan cannot be read here: the embedded fatbinary cannot be read: the fatbinary holds no cubin, only PTX;
// KEY: remark: the device plan cannot be read here: the device code's manifest is __kfuse_manifest_{{[0-9a-f]+}}, but this compilation's key names __kfuse_manifest_{{[0-9a-f]+}}: the device and host compilations of this file saw different sources or macros, so the runtime will not find the manifest;
// VERSION: remark: the device plan cannot be read here: the manifest of the sm_{{[0-9]+}} cubin is malformed (line 1: unsupported format version);
// No anchor where the fused kernel is not in every cubin: registering a
// kernel the loaded cubin lacks would be an error at run time.
// NOANCHOR-NOT: kfuse.anchor
// NOANCHOR: @kfuse.site = private global %kfuse.site { {{.*}}, ptr null }
// NOANCHOR-NOT: kfuse.anchor
// HANDED-LABEL: define {{.*}}void @_Z3runPKfPfS0_S1_i(
// HANDED: call void @kf_rt_launch_seq(
// LEFT-NOT: kf_rt_launch_seq
void run(const float *x, float *t, const float *y, float *o, int n) {
  // REMARK: device-plan-unread.cu:[[@LINE+3]]:3: remark: handed 2 launches (scale, axpy) to the runtime, which runs them fused where the device code has a fused kernel for them, else one by one [-Rpass=kfuse]
  // PLAIN: device-plan-unread.cu:[[@LINE+2]]:3: remark: 2 launches (scale, axpy) left as they are: the device code has no fused kernel (no kfuse manifest in its cubin) [-Rpass-missed=kfuse]
  // TWO: device-plan-unread.cu:[[@LINE+1]]:3: remark: handed 2 launches (scale, axpy) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_0_0_1 when the guards hold at run time, else one by one (sm_{{[0-9]+}}; other architectures or plans cover them differently) [-Rpass=kfuse]
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  axpy<<<(n + 255) / 256, 256>>>(t, y, o, n);
}
