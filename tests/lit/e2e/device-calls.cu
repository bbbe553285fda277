// Calls of __device__ functions. The device pass runs after the inliner, so
// an ordinary helper is already part of the kernel, its accesses through the
// kernel's pointers included. A __noinline__ helper stays a call: the
// analysis looks through it when it only computes, uses its own memory
// (a local array, a pointer to the caller's local) and reads constants; a
// call that gets a kernel pointer, or a callee that touches other memory,
// recurses or reads thread indices, is refused with a remark that says why.
// The pass used to refuse every call ("calls non-intrinsic function").
// REQUIRES: cuda
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-device-only -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ll 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-device-only -S %s -o %t.ptx 2> /dev/null
// RUN: %if ptxas %{ %ptxas -c -arch=%cuda_arch %t.ptx -o %t.cubin %}

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

void chain(const float *x, float *t, float *o, float *p, int n) {
  act<<<n / 256, 256>>>(x, t, n);
  pol<<<n / 256, 256>>>(t, o, n);
  acc_local<<<n / 256, 256>>>(o, p, n);
}

// REMARK-DAG: fused launches 0..2 (act, pol, acc_local) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_2: t in registers, o in registers
// REMARK-DAG: kernel 'st_ni(float const*, float*, int)' cannot be fused: passes pointer parameter 2 ('t') to 'store_noinline(float*, int, float)', which is not inlined; kfuse analyses the accesses through a pointer parameter only in the kernel itself: let the compiler inline the function (no __noinline__), or pass it the values instead of the pointer
// REMARK-DAG: kernel 'ld_ni(float const*, float*, int)' cannot be fused: passes pointer parameter 1 ('x') to 'load_noinline(float const*, int)', which is not inlined
// REMARK-DAG: kernel 'glob(float const*, float*, int)' cannot be fused: calls 'reads_global(float)', which reads memory that is neither its own nor a constant ('table')
// REMARK-DAG: kernel 'rec(float const*, float*, int)' cannot be fused: calls 'fact(float)', which is recursive
// REMARK-DAG: kernel 'lane(float const*, float*, int)' cannot be fused: calls 'lane_helper(float)', which reads a thread, block or lane index ('llvm.nvvm.read.ptx.sreg.tid.y'); read it in the kernel and pass it as an argument
// REMARK-DAG: kernel 'ext(float const*, float*, int)' cannot be fused: calls 'extern_fn(float)', which is not defined in this module; kfuse analyses calls only into functions it can see (define it in this translation unit)
// REMARK-NOT: _Z3actPKfPfi cannot be fused
// REMARK-NOT: _Z3polPKfPfi cannot be fused
// REMARK-NOT: _Z9acc_localPKfPfi cannot be fused

// The out-of-line helpers stay calls in the fused kernel, on its own local.
// IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_2(
// IR: call {{.*}}float @_Z4polyf(
// IR: call void @_Z8sum_intoPff(ptr {{.*}}[[A:%[0-9]+]],
// IR: call {{.*}}float @_Z13from_constantf(
// IR: call void @_Z8sum_intoPff(ptr {{.*}}[[A]],
