// __half and __nv_bfloat16 arithmetic and conversions from cuda_fp16.h and
// cuda_bf16.h: every operation is a small register asm ("{mul.f16 $0,$1,$2;}",
// "{ cvt.rn.bf16.f32 $0, $1;}"), convergent and memory(none) for clang. The
// chain fuses. A forwarded product made by `mul.f16` / `mul.bf16` (no
// rounding mode: ptxas may contract it with the consumer's add, which the
// unfused program cannot) crosses the old boundary as a `mul.rn` copy of the
// asm; the producer keeps its own. The pass used to refuse every kernel here
// ("contains inline asm").
// REQUIRES: cuda
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-device-only -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ll 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-device-only -S %s -o %t.ptx 2> /dev/null
// RUN: %if ptxas %{ %ptxas -arch=%cuda_arch %t.ptx -o %t.cubin %}

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

KMAP void hsq(const __half *x, __half *t, int n) { IDX; if (i < n) t[i] = x[i] * x[i]; }
KMAP void hadd(const __half *t, const __half *y, __half *o, int n) { IDX; if (i < n) o[i] = t[i] + y[i]; }
KMAP void h2f(const __half *o, float *f, int n) { IDX; if (i < n) f[i] = __half2float(o[i]) * 0.5f; }
KMAP void f2b(const float *f, __nv_bfloat16 *b, int n) { IDX; if (i < n) b[i] = __float2bfloat16(f[i]); }
KMAP void bsq(const __nv_bfloat16 *b, __nv_bfloat16 *c, int n) { IDX; if (i < n) c[i] = b[i] * b[i]; }
KMAP void bfma(const __nv_bfloat16 *c, const __nv_bfloat16 *b, float *r, int n)
{ IDX; if (i < n) r[i] = __bfloat162float(__hfma(c[i], b[i], c[i]) + b[i]); }

void chain(const __half *x, __half *t, const __half *y, __half *o, float *f, __nv_bfloat16 *b,
           __nv_bfloat16 *c, float *r, int n) {
  hsq<<<n / 256, 256>>>(x, t, n);
  hadd<<<n / 256, 256>>>(t, y, o, n);
  h2f<<<n / 256, 256>>>(o, f, n);
  f2b<<<n / 256, 256>>>(f, b, n);
  bsq<<<n / 256, 256>>>(b, c, n);
  bfma<<<n / 256, 256>>>(c, b, r, n);
}

// REMARK-NOT: cannot be fused
// REMARK: fused launches 0..5 (hsq, hadd, h2f, f2b, bsq, bfma) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_5: t in registers, o in registers, f in registers, b in registers, c in registers

// The product t crosses as the mul.rn copy; the store keeps the original.
// IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_5(
// IR: [[RN:%[0-9]+]] = call i16 asm "{mul.rn.f16 $0,$1,$2;\0A}", "=h,h,h"(i16 [[X:%[0-9]+]], i16 [[X]])
// IR-NEXT: [[T:%[0-9]+]] = call i16 asm "{mul.f16 $0,$1,$2;\0A}", "=h,h,h"(i16 [[X]], i16 [[X]])
// IR: store i16 [[T]]
// IR: call i16 asm "{add.f16 $0,$1,$2;\0A}", "=h,h,h"(i16 [[RN]],
// IR: call float @llvm.arithmetic.fence.f32(
// IR: call i16 asm "{ mul.rn.bf16 $0,$1,$2; }\0A"
// IR: call i16 asm "{fma.rn.bf16 $0,$1,$2,$3;\0A}"
