// The CUDA math library and libdevice in map kernels: sinf, cosf, tanhf,
// erff, expf, logf, powf inline into the kernels with libdevice's register
// asm (rcp.approx, mad.lo.cc), double sin and cos keep a call of
// libdevice's slow path (__internal_trig_reduction_slowpathd: a private
// array and a constant table) and pow one of __internal_accurate_pow, and
// the fast intrinsics are NVVM intrinsics. All of it fuses; the slow paths
// stay calls in the fused kernel, and ptxas accepts it. The pass used to
// refuse every one of these kernels ("contains inline asm", "calls
// non-intrinsic function").
// REQUIRES: cuda
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-device-only -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.ll 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-device-only -S %s -o %t.ptx 2> /dev/null
// RUN: %if ptxas %{ %ptxas -arch=%cuda_arch %t.ptx -o %t.cubin %}

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

KMAP void trig(const float *x, float *t, int n) { IDX; if (i < n) t[i] = sinf(x[i]) * cosf(x[i]) + tanhf(x[i]); }
KMAP void explog(const float *t, float *u, int n) { IDX; if (i < n) u[i] = erff(t[i]) + expf(t[i]) * logf(1.0f + t[i] * t[i]); }
KMAP void powr(const float *u, float *o, int n) { IDX; if (i < n) o[i] = powf(fabsf(u[i]), 1.5f); }
KMAP void dexpsin(const double *x, double *t, int n) { IDX; if (i < n) t[i] = exp(x[i]) * sin(x[i]); }
KMAP void dpowcos(const double *t, double *o, int n) { IDX; if (i < n) o[i] = pow(fabs(t[i]), 0.75) + cos(t[i] * 1e6); }
KMAP void fastdiv(const float *x, float *t, int n) { IDX; if (i < n) t[i] = __fdividef(x[i], 3.0f) + __saturatef(x[i]); }
KMAP void rsq(const float *t, float *o, int n) { IDX; if (i < n) o[i] = rsqrtf(fabsf(t[i]) + 1.0f) * __expf(t[i]); }

void floats(const float *x, float *t, float *u, float *o, int n) {
  trig<<<n / 256, 256>>>(x, t, n);
  explog<<<n / 256, 256>>>(t, u, n);
  powr<<<n / 256, 256>>>(u, o, n);
}
void doubles(const double *x, double *t, double *o, int n) {
  dexpsin<<<n / 256, 256>>>(x, t, n);
  dpowcos<<<n / 256, 256>>>(t, o, n);
}
void intrinsics(const float *x, float *t, float *o, int n) {
  fastdiv<<<n / 256, 256>>>(x, t, n);
  rsq<<<n / 256, 256>>>(t, o, n);
}

// REMARK-NOT: cannot be fused
// REMARK-DAG: kernel 'trig(float const*, float*, int)': 8 bytes and {{[0-9]+}} flops per element{{$| }}
// REMARK-DAG: kernel 'dexpsin(double const*, double*, int)': 16 bytes and {{[0-9]+}} flops per element{{$| }}
// REMARK-DAG: fused launches 0..2 (trig, explog, powr) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_2: t in registers, u in registers
// REMARK-DAG: fused launches 0..1 (dexpsin, dpowcos) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_1: t in registers
// REMARK-DAG: fused launches 0..1 (fastdiv, rsq) of sequence 2 into __kfuse_fused_{{[0-9a-f]+}}_2_0_1: t in registers

// IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_2(
// IR: asm "rcp.approx.ftz.f32
// IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_1_0_1(
// IR-DAG: call fastcc { double, i32 } @__internal_trig_reduction_slowpathd(
// IR-DAG: call fastcc double @__internal_accurate_pow(
