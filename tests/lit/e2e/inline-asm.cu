// Inline asm in map kernels is judged by its text: asm that only computes on
// registers fuses (clang marks every CUDA asm convergent, which alone refuses
// nothing); asm with a memory clobber or operand, a memory, synchronisation
// or lane opcode, or a special register is refused, and the remark names
// the asm and says what to change. The pass used to refuse all of them with
// "contains inline asm".
// REQUIRES: cuda
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-device-only -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ll 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=IR < %t.ll

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

__device__ float mad_asm(float a, float b) {
  float r;
  asm("{ .reg .f32 t; mul.rn.f32 t, %1, %2; add.rn.f32 %0, t, %1; }" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
KMAP void reg_asm(const float *x, float *t, int n) { IDX; if (i < n) t[i] = mad_asm(x[i], 2.0f); }
KMAP void brev_asm(const float *t, float *o, int n)
{ IDX; if (i < n) { unsigned u; asm volatile("brev.b32 %0, %1;" : "=r"(u) : "r"(i)); o[i] = t[i] + (float)(u & 7); } }

KMAP void clobber(const float *x, float *t, int n) { IDX; if (i < n) { asm volatile("" ::: "memory"); t[i] = x[i]; } }
KMAP void mem_operand(const float *x, float *t, int n) { IDX; if (i < n) { float v = x[i]; asm("" : "+m"(v)); t[i] = v; } }
KMAP void ld_text(const float *x, float *t, int n)
{ IDX; if (i < n) { float v; asm("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(x + i)); t[i] = v; } }
KMAP void st_text(const float *x, float *t, int n)
{ IDX; if (i < n) asm volatile("{ st.global.f32 [%0], %1; st.global.f32 [%0+4], %1; }" :: "l"(t + i), "f"(x[i])); }
KMAP void red_text(const float *x, float *t, int n)
{ IDX; if (i < n) asm volatile("red.global.add.f32 [%0], %1;" :: "l"(t + i), "f"(x[i])); }
KMAP void bar_text(const float *x, float *t, int n) { IDX; if (i < n) { asm volatile("bar.sync 0;"); t[i] = x[i]; } }
KMAP void shfl_text(const float *x, float *t, int n)
{ IDX; if (i < n) { float v; asm volatile("shfl.sync.bfly.b32 %0, %1, 1, 31, -1;" : "=f"(v) : "f"(x[i])); t[i] = v; } }
KMAP void lane_text(const float *x, float *t, int n)
{ IDX; if (i < n) { unsigned l; asm("mov.u32 %0, %%laneid;" : "=r"(l)); t[i] = x[i] + l; } }
KMAP void ptr_operand(const float *x, float *t, int n)
{ IDX; if (i < n) { const float *q; asm("mov.b64 %0, %1;" : "=l"(q) : "l"(x)); t[i] = q[i]; } }

void fused(const float *x, float *t, float *o, int n) {
  reg_asm<<<n / 256, 256>>>(x, t, n);
  brev_asm<<<n / 256, 256>>>(t, o, n);
}

// REMARK-DAG: kernel 'clobber(float const*, float*, int)' cannot be fused: has inline asm with a memory clobber (an empty asm statement); kfuse fuses inline asm that only computes on registers: drop the "memory" clobber if the asm does not touch memory
// REMARK-DAG: kernel 'mem_operand(float const*, float*, int)' cannot be fused: has inline asm with a memory operand (an empty asm statement); kfuse fuses inline asm that only computes on registers
// REMARK-DAG: kernel 'ld_text(float const*, float*, int)' cannot be fused: has inline asm that uses 'ld.global.nc.L1::no_allocate.f32' ('ld.global.nc.L1::no_allocate.f32 $0, [$1];'), which accesses memory, synchronises or leaves the thread; kfuse fuses inline asm that only computes on registers
// REMARK-DAG: kernel 'st_text(float const*, float*, int)' cannot be fused: has inline asm that uses 'st.global.f32' ('{ st.global.f32 [$0], $1; st.global.f32 [$0+4], $1; }'), which accesses memory, synchronises or leaves the thread
// REMARK-DAG: kernel 'red_text(float const*, float*, int)' cannot be fused: has inline asm that uses 'red.global.add.f32' ('red.global.add.f32 [$0], $1;')
// REMARK-DAG: kernel 'bar_text(float const*, float*, int)' cannot be fused: has inline asm that uses 'bar.sync' ('bar.sync 0;'), which accesses memory, synchronises or leaves the thread
// REMARK-DAG: kernel 'shfl_text(float const*, float*, int)' cannot be fused: has inline asm that uses 'shfl.sync.bfly.b32' ('shfl.sync.bfly.b32 $0, $1, 1, 31, -1;')
// REMARK-DAG: kernel 'lane_text(float const*, float*, int)' cannot be fused: has inline asm that reads special register '%laneid' ('mov.u32 $0, %laneid;'); kfuse fuses inline asm that only computes on registers; read threadIdx, blockIdx and friends in C++ instead
// REMARK-DAG: kernel 'ptr_operand(float const*, float*, int)' cannot be fused: passes a pointer to inline asm ('mov.b64 $0, $1;'); kfuse fuses inline asm that only computes on registers, and the one-scalar cache-hint loads and stores (ld.global.cs, st.global.wt, ...)
// REMARK-DAG: fused launches 0..1 (reg_asm, brev_asm) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers
// REMARK-NOT: _Z7reg_asmPKfPfi cannot be fused
// REMARK-NOT: _Z8brev_asmPKfPfi cannot be fused

// IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// IR: asm "{ .reg .f32 t; mul.rn.f32 t, $1, $2; add.rn.f32 $0, t, $1; }"
// IR: asm sideeffect "brev.b32 $0, $1;"
