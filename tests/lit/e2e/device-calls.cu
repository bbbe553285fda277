// Calls of __device__ functions. The device pass runs after the inliner, so
// an ordinary helper is already part of the kernel, its accesses through the
// kernel's pointers included. A __noinline__ helper stays a call: the
// analysis looks through it when it only computes, uses its own memory
// (a local array, a pointer to the caller's local) and reads constants. A
// helper that gets one of the kernel's pointers is inlined into a private
// copy of the kernel, which the analysis reads and the fused kernel clones,
// every floating-point value that crossed the call fenced (no FMA across
// it); the kernel itself keeps its call. A callee that touches other
// memory, recurses or reads thread indices, or a pointer-taking helper
// that cannot be inlined (recursive), is refused with a remark that says
// why. The pass used to refuse every call ("calls non-intrinsic function").
// REQUIRES: cuda
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-device-only -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ll 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: not grep kfuse.inlined %t.ll
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-device-only -S %s -o %t.ptx 2> /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: not grep -E '__kfuse_fused_[0-9a-f]+_4_' %t.ptx
// RUN: %if ptxas %{ %ptxas -c -arch=%cuda_arch %t.ptx -o %t.cubin %}

#include <cassert>

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

__device__ float softplus(float v) { return log1pf(expf(v)); }
__device__ void store_at(float *p, int i, float v) { p[i] = v; }
__device__ __noinline__ float poly(float v) {
  float c[4] = {1.0f, 0.5f, 0.25f, 0.125f};
  float r = 0;
  for (int k = 0; k < 4; ++k)
    r = r * v + c[k];
  return r;
}
__device__ __noinline__ void sum_into(float *acc, float v) { *acc += v; }
__constant__ float coef[2] = {0.5f, 2.0f};
__device__ __noinline__ float from_constant(float v) { return v * coef[1] + coef[0]; }

__device__ __noinline__ void store_noinline(float *p, int i, float v) { p[i] = v; }
__device__ __noinline__ float load_noinline(const float *p, int i) { return p[i]; }
__device__ float table[4];
__device__ __noinline__ float reads_global(float v) { return v * table[1]; }
__device__ __noinline__ float fact(float v) { return v <= 1.0f ? 1.0f : v * fact(v - 1.0f); }
__device__ __noinline__ float lane_helper(float v) { return v + threadIdx.y; }
extern __device__ float extern_fn(float);
__device__ __noinline__ void axpy_at(float *y, const float *x, float a, int i) { y[i] = a * x[i] + y[i]; }
__device__ __noinline__ float sum_deep(const float *p, int i, int d) { return d ? p[i] + 0.5f * sum_deep(p, i, d - 1) : 0.0f; }

// Inlined helpers, the store through the kernel's pointer included.
KMAP void act(const float *x, float *t, int n) { IDX; if (i < n) store_at(t, i, softplus(x[i])); }
// Out-of-line helpers that compute, use their own memory or read a constant.
KMAP void pol(const float *t, float *o, int n) { IDX; if (i < n) o[i] = poly(t[i]); }
KMAP void acc_local(const float *o, float *p, int n)
{ IDX; if (i < n) { float a = 0; sum_into(&a, o[i]); sum_into(&a, from_constant(1.0f)); p[i] = a; } }

KMAP void st_ni(const float *x, float *t, int n) { IDX; if (i < n) store_noinline(t, i, x[i]); }
KMAP void ld_ni(const float *x, float *t, int n) { IDX; if (i < n) t[i] = load_noinline(x, i); }
KMAP void glob(const float *x, float *t, int n) { IDX; if (i < n) t[i] = reads_global(x[i]); }
KMAP void rec(const float *x, float *t, int n) { IDX; if (i < n) t[i] = fact(x[i]); }
KMAP void lane(const float *x, float *t, int n) { IDX; if (i < n) t[i] = lane_helper(x[i]); }
KMAP void ext(const float *x, float *t, int n) { IDX; if (i < n) t[i] = extern_fn(x[i]); }
KMAP void mul_ni(const float *x, float *t, float a, int n) { IDX; if (i < n) t[i] = a * x[i]; }
KMAP void axpy_ni(const float *x, float *t, float a, int n) { IDX; if (i < n) axpy_at(t, x, a, i); }
KMAP void deep(const float *x, float *t, int n) { IDX; if (i < n) t[i] = sum_deep(x, i, i & 3); }
__device__ __noinline__ float prod_at(const float *x, float a, int i) { return a * x[i]; }
KMAP void shifted(const float *x, float *t, int n) { IDX; if (i < n) t[i] = prod_at(x, 1.5f, i) + 0.5f; }
KMAP void doubled(const float *t, float *o, int n) { IDX; if (i < n) o[i] = prod_at(t, 2.0f, i) - t[i]; }

void chain(const float *x, float *t, float *o, float *p, int n) {
  act<<<n / 256, 256>>>(x, t, n);
  pol<<<n / 256, 256>>>(t, o, n);
  acc_local<<<n / 256, 256>>>(o, p, n);
}
void helpers_out_of_line(const float *x, float *t, float *u, int n) {
  st_ni<<<n / 256, 256>>>(x, t, n);
  ld_ni<<<n / 256, 256>>>(t, u, n);
}
// t = 3x, then t = 2x + t in a helper: the helper's own a * x[i] + y[i]
// may contract as it does in the helper alone, but neither the stage's
// product nor its parameter a may join it.
void fma_boundary(const float *x, float *t, int n) {
  mul_ni<<<n / 256, 256>>>(x, t, 3.0f, n);
  axpy_ni<<<n / 256, 256>>>(x, t, 2.0f, n);
}
void recursive(const float *x, float *t, float *u, int n) {
  deep<<<n / 256, 256>>>(x, t, n);
  ld_ni<<<n / 256, 256>>>(t, u, n);
}
// The helper's product crosses its return into the kernel's add (and
// subtract). In the kernel alone ptxas may inline the helper and contract
// the two into an FFMA, or not (GPU runs 25 and 28 saw both): no fused
// kernel can promise the same bits, so both kernels stay unfused, with
// the remark at the add.
void products(const float *x, float *t, float *o, int n) {
  shifted<<<n / 256, 256>>>(x, t, n);
  doubled<<<n / 256, 256>>>(t, o, n);
}

// REMARK-DAG: fused launches 0..2 (act, pol, acc_local) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_2: t in registers, o in registers
// REMARK-DAG: fused launches 0..1 (st_ni, ld_ni) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_1: t in registers
// REMARK-DAG: fused launches 0..1 (mul_ni, axpy_ni) of sequence 2 into __kfuse_fused_{{[0-9a-f]+}}_2_0_1: t in registers
// REMARK-DAG: device-calls.cu:[[#]]:97: remark: kernel 'shifted(float const*, float*, int)' cannot be fused: a product crosses its call of a function kept out of line into an addition or subtraction; in the kernel alone ptxas may contract the two into one FMA or not, so a fused kernel could not promise the same bits: keep the multiply and the add on one side of the call, or let the compiler inline the function (no __noinline__)
// REMARK-DAG: device-calls.cu:[[#]]:97: remark: kernel 'doubled(float const*, float*, int)' cannot be fused: a product crosses its call

// PTX-LABEL: .entry _Z7shiftedPKfPfi(
// PTX: call.uni (retval0), _Z7prod_atPKffi,
// REMARK-DAG: kernel 'deep(float const*, float*, int)' cannot be fused: passes pointer parameter 1 ('x') to 'sum_deep(float const*, int, int)', which is not inlined; kfuse analyses the accesses through a pointer parameter only in the kernel itself: let the compiler inline the function (no __noinline__), or pass it the values instead of the pointer
// REMARK-DAG: kernel 'glob(float const*, float*, int)' cannot be fused: calls 'reads_global(float)', which reads memory that is neither its own nor a constant ('table')
// REMARK-DAG: kernel 'rec(float const*, float*, int)' cannot be fused: calls 'fact(float)', which is recursive
// REMARK-DAG: kernel 'lane(float const*, float*, int)' cannot be fused: calls 'lane_helper(float)', which reads a thread, block or lane index ('llvm.nvvm.read.ptx.sreg.tid.y'); read it in the kernel and pass it as an argument
// REMARK-DAG: kernel 'ext(float const*, float*, int)' cannot be fused: calls 'extern_fn(float)', which is not defined in this module; kfuse analyses calls only into functions it can see (define it in this translation unit)
// REMARK-NOT: _Z3actPKfPfi cannot be fused
// REMARK-NOT: _Z3polPKfPfi cannot be fused
// REMARK-NOT: _Z9acc_localPKfPfi cannot be fused

// Launched alone, a kernel keeps its call of a pointer-taking helper.
// IR-LABEL: define dso_local ptx_kernel void @_Z7axpy_niPKfPffi(
// IR: call void @_Z7axpy_atPfPKffi(

// The out-of-line helpers stay calls in the fused kernel, on its own local.
// IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_2(
// IR: call {{.*}}float @_Z4polyf(
// IR: call void @_Z8sum_intoPff(ptr {{.*}}[[A:%[0-9]+]],
// IR: call {{.*}}float @_Z13from_constantf(
// IR: call void @_Z8sum_intoPff(ptr {{.*}}[[A]],

// Fused, the helper is inlined: the stage's product is rounded on its own
// and the parameter a fenced, so only the helper's own multiply and add
// may form an FMA, as in the helper alone.
// IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_2_0_1(
// IR-SAME: ptr noalias %{{[0-9]+}}, ptr noalias %{{[0-9]+}}, float %{{[0-9]+}}, i32 %{{[0-9]+}}, ptr noalias %{{[0-9]+}}, ptr noalias %{{[0-9]+}}, float [[A:%[0-9]+]],
// IR: [[P:%[0-9]+]] = call float @llvm.nvvm.mul.rn.f(
// IR: [[FP:%[0-9]+]] = call float @llvm.arithmetic.fence.f32(float [[P]])
// IR: [[FA:%[0-9]+]] = call float @llvm.arithmetic.fence.f32(float [[A]])
// IR: [[M:%[0-9]+]] = fmul contract float [[FA]],
// IR: fadd contract float [[M]], [[FP]]
// IR-NOT: call void @_Z7axpy_at
// IR: ret void

// assert() in a kernel (a build without NDEBUG): its failure path calls
// __assertfail, which prints the message and aborts the kernel, leaving an
// error every later CUDA call returns, fused or not. It stays in the fused
// kernel.
KMAP void checked_scale(const float *x, float *t, int n)
{
  IDX;
  assert(n > 0 && "n must be positive");
  if (i < n)
    t[i] = 3.f * x[i];
}
void asserts(const float *x, float *t, float *o, int n)
{
  checked_scale<<<(n + 255) / 256, 256>>>(x, t, n);
  checked_scale<<<(n + 255) / 256, 256>>>(t, o, n);
}
// REMARK-DAG: fused launches 0..1 (checked_scale, checked_scale) of sequence {{[0-9]+}} into {{.*}}: t in registers
// IR-DAG: call void @__assertfail(
