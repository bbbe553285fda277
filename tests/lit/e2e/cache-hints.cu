// Cache-hint loads and stores. __ldg is a load from the global space; the
// others (__ldcs, __ldcg, __ldcv from clang, __ldca, __ldlu, __stcs, __stcg
// from cuda_fp16.h / cuda_bf16.h, __stwt) are one-line inline asm with the
// address as a 64-bit register operand, memory(none) for clang where there
// is no memory clobber. The analysis reads the asm text and treats each as
// a load or a store at its address; the fused kernel forwards through them
// and keeps the asm, so the hint stays in the PTX. The pass used to refuse
// these kernels (a pointer parameter "escapes" into the asm), and the
// vector forms until they were split into lanes.
// REQUIRES: cuda
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-device-only -S -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ptx 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=%cuda_arch %t.ptx -o %t.cubin %}

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

KMAP void ldcs_scale(const float *x, float *t, int n) { IDX; if (i < n) __stwt(&t[i], 2.0f * __ldcs(&x[i])); }
KMAP void ldcg_add(const float *t, const float *y, float *o, int n) { IDX; if (i < n) o[i] = __ldcg(&t[i]) + __ldg(&y[i]); }
KMAP void ldcv_neg(const float *o, float *p, int n) { IDX; if (i < n) p[i] = -__ldcv(&o[i]); }
KMAP void h_ldca(const __half *x, __half *h, int n) { IDX; if (i < n) __stcs(&h[i], __hadd(__ldca(&x[i]), __ldlu(&x[i]))); }
KMAP void h_ldcs(const __half *h, __nv_bfloat16 *b, int n)
{ IDX; if (i < n) __stcg(&b[i], __float2bfloat16(__half2float(__ldcs(&h[i])))); }
KMAP void b_ldcg(const __nv_bfloat16 *b, float *f, int n) { IDX; if (i < n) f[i] = __bfloat162float(__ldcg(&b[i])); }
// Another thread's element through a hint: staged in shared memory, the
// fallback load keeps its hint.
KMAP void rev_ldcs(const float *t, float *o, int n)
{ int b = blockIdx.x * blockDim.x; int i = b + threadIdx.x; if (i < n) o[i] = __ldcs(&t[b + blockDim.x - 1 - threadIdx.x]); }
// The vector forms: the analysis sees each as one access per lane (clang
// writes a plain float4 access as four scalar ones), the fused kernel
// forwards lane by lane, and where the lanes of one access still go
// together in the fused kernel they are one vector access again.
KMAP void vec4(const float4 *x, float4 *t, int n) { IDX; if (i < n) t[i] = __ldcs(&x[i]); }
KMAP void vec4_add(const float4 *t, const float4 *y, float4 *o, int n)
{ IDX; if (i < n) { float4 a = __ldcs(&t[i]), b = __ldcg(&y[i]); __stwt(&o[i], make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w)); } }
KMAP void vec4_scale(const float4 *o, float4 *p, int n)
{ IDX; if (i < n) { float4 a = o[i]; p[i] = make_float4(2.0f * a.x, 2.0f * a.y, 2.0f * a.z, 2.0f * a.w); } }
KMAP void vec2_half(const __half2 *x, __half2 *h, int n) { IDX; if (i < n) __stcs(&h[i], __hadd2(__ldcs(&x[i]), __ldcs(&x[i]))); }

void floats(const float *x, float *t, const float *y, float *o, float *p, int n) {
  ldcs_scale<<<n / 256, 256>>>(x, t, n);
  ldcg_add<<<n / 256, 256>>>(t, y, o, n);
  ldcv_neg<<<n / 256, 256>>>(o, p, n);
}
void halves(const __half *x, __half *h, __nv_bfloat16 *b, float *f, int n) {
  h_ldca<<<n / 256, 256>>>(x, h, n);
  h_ldcs<<<n / 256, 256>>>(h, b, n);
  b_ldcg<<<n / 256, 256>>>(b, f, n);
}
void vectors(const float4 *x, float4 *t, const float4 *y, float4 *o, float4 *p, int n) {
  vec4<<<n / 256, 256>>>(x, t, n);
  vec4_add<<<n / 256, 256>>>(t, y, o, n);
  vec4_scale<<<n / 256, 256>>>(o, p, n);
}
void reversed(const float *x, float *t, float *o, int n) {
  ldcs_scale<<<n / 256, 256>>>(x, t, n);
  rev_ldcs<<<n / 256, 256>>>(t, o, n);
}

// REMARK-DAG: fused launches 0..2 (ldcs_scale, ldcg_add, ldcv_neg) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_2: t in registers, o in registers
// REMARK-DAG: fused launches 0..2 (h_ldca, h_ldcs, b_ldcg) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_2: h in registers, b in registers
// REMARK-DAG: fused launches 0..1 (ldcs_scale, rev_ldcs) of sequence 3 into __kfuse_fused_{{[0-9a-f]+}}_3_0_1: t through shared memory, with barriers
// REMARK-DAG: fused launches 0..2 (vec4, vec4_add, vec4_scale) of sequence 2 into __kfuse_fused_{{[0-9a-f]+}}_2_0_2: t in registers, o in registers
// No kernel here is refused, vec2_half's __half2 forms (ld.global.cs.b32
// of two halves as one b32) included.
// REMARK-NOT: cannot be fused

// The originals keep their vector accesses, and so does the fused kernel (below).
// PTX-LABEL: .entry _Z8vec4_addPK6float4S1_PS_i(
// PTX: ld.global.cs.v4.f32
// PTX: ld.global.cg.v4.f32
// PTX: st.global.wt.v4.f32
// PTX-LABEL: .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_2(
// PTX: ld.global.cs.f32
// PTX: st.global.wt.f32
// PTX: ld.global.nc
// PTX-LABEL: .entry __kfuse_fused_{{[0-9a-f]+}}_1_0_2(
// PTX: ld.global.ca.b16
// PTX: ld.global.lu.b16
// PTX: st.global.cs.b16
// PTX: st.global.cg.b16
// Its copies for the dead masks (versionOnDead): all dead (t and o not
// stored, p's plain float4 store vectorised by the backend), and any other
// mask (o's __stwt one vector store again, every store kept).
// PTX-LABEL: .entry __kfuse_fused_{{[0-9a-f]+}}_2_0_2(
// PTX-NOT: ld.global.cs.f32
// PTX: ld.global.cs.v4.f32
// PTX: ld.global.cg.v4.f32
// PTX: st.global.v4.b32
// PTX: ld.global.cs.v4.f32
// PTX: st.global.v4.b32
// PTX: ld.global.cg.v4.f32
// PTX: st.global.wt.v4.f32
// PTX: st.global.v4.b32
// PTX-NOT: ld.global.cs.f32
// PTX-NOT: st.global.wt.f32
// PTX-LABEL: .entry __kfuse_fused_{{[0-9a-f]+}}_3_0_1(
// PTX: ld.global.cs.f32
// PTX: st.global.wt.f32
// PTX: bar.sync
// PTX: ld.global.cs.f32
