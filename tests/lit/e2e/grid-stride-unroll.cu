// Grid-stride loops under an unroll pragma (`#pragma unroll 4`, `#pragma
// unroll`), as bandwidth benchmarks and for_each helpers over device lambdas
// write them: LLVM's unroller copies the body four times behind a computed
// trip count, which the analysis cannot read, so the device pass reads a
// copy of the kernel made before the unroller ran, with that loop rolled
// (pass/llvm/RolledLoops.h). The kernels fuse one element a trip; launched
// alone, they keep their unrolled loops. A pragma over a loop of constant
// trip count, or `#pragma unroll 1`, makes no copy; a kernel whose rolled
// loop is still refused says why.
// REQUIRES: cuda
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk -std=c++17 --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: FileCheck %s --check-prefix=NOCOPY < %t.ll
// RUN: grep '^@__kfuse_manifest' %t.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk -std=c++17 --cuda-device-only -O2 -S %s -o %t.ptx 2>/dev/null
// RUN: %ptxas -arch=%cuda_arch %t.ptx -o /dev/null
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -std=c++17 -O2 -c -Rpass=kfuse -Rpass-analysis=kfuse %s -o %t.o 2>%t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host
// The rolled copies are gone from the module the back end gets.
// NOCOPY-NOT: kfuse.rolled
// NOCOPY-NOT: @llvm.compiler.used

#define KMAP __global__ __attribute__((kfuse_map))

KMAP void scale4(const float *x, float *t, float a, size_t n)
{
  size_t i = threadIdx.x + (size_t)blockDim.x * blockIdx.x;
#pragma unroll 4
  for (; i < n; i += (size_t)gridDim.x * blockDim.x)
    t[i] = a * x[i];
}
KMAP void add4(const float *t, const float *y, float *o, size_t n)
{
  size_t i = threadIdx.x + (size_t)blockDim.x * blockIdx.x;
#pragma unroll 4
  for (; i < n; i += (size_t)gridDim.x * blockDim.x)
    o[i] = t[i] + y[i];
}
void chain(const float *x, float *t, const float *y, float *o, size_t n)
{
  scale4<<<264, 256>>>(x, t, 2.f, n);
  add4<<<264, 256>>>(t, y, o, n);
}
// REMARK-DAG: kernel 'scale4(float const*, float*, float, unsigned long)': 8 bytes and 1 flops per element; analysed and fused through a copy with its loop of a run-time trip count rolled, one element a trip (launched alone, it keeps the unrolling that LLVM or its #pragma unroll gives it)
// REMARK-DAG: fused launches 0..1 (scale4, add4) of sequence [[CHAIN:[0-9]+]] into __kfuse_fused_{{[0-9a-f]+}}_[[CHAIN]]_0_1: t in registers
// The kernel launched alone stores four elements a trip, behind the
// unroller's remainder loop; the fused kernel one a trip, in each of its two
// copies of the body (t dead, any other mask): one back edge each.
// IR-LABEL: define dso_local ptx_kernel void @_Z6scale4PKfPffm(
// IR-COUNT-4: store float
// IR: {{^}$}}
// IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1(
// IR: !llvm.loop
// IR: !llvm.loop
// IR-NOT: !llvm.loop
// IR: {{^}$}}
// MANIFEST: kernel 0 _Z6scale4PKfPffm 4
// MANIFEST: footprint 0.1 w 0 4*(max(s3,1)-1)+4{{$}}

// An int n cast to the loop's size_t (`i < (size_t)n`) compares unsigned
// with n sign-extended: the footprint holds for n >= 0 and, divided by
// 2*min(n,0)+1, fails to evaluate (the runtime takes the whole allocation)
// for a negative n, whose loop would run over the whole address space.
KMAP void scale_n(const float *x, float *t, int n)
{
  size_t i = threadIdx.x + (size_t)blockDim.x * blockIdx.x;
#pragma unroll 4
  for (; i < (size_t)n; i += (size_t)gridDim.x * blockDim.x)
    t[i] = 2.f * x[i];
}
void cast_bound(const float *x, float *t, float *o, int n)
{
  scale_n<<<264, 256>>>(x, t, n);
  scale_n<<<264, 256>>>(t, o, n);
}
// MANIFEST-LABEL: kernel 0 _Z7scale_nPKfPfi 3
// MANIFEST: footprint 0.0 r 0 4*(max(s2,1)-1)/(2*min(s2,0)+1)+4{{$}}

// A for_each over device lambdas with the loop unrolled by a template
// argument, launched without a synchronisation between (BabelStream's
// CUDA kernels as of its version 5, in a time loop): the lambdas' captures
// are fields of the closure (FieldParams.h), b and c temporaries.
template <int Unroll, class F>
KMAP void for_each_kernel(size_t n, F f)
{
  size_t i = (size_t)threadIdx.x + (size_t)blockDim.x * blockIdx.x;
#pragma unroll Unroll
  for (; i < n; i += (size_t)gridDim.x * blockDim.x)
    f(i);
}
template <class F>
void for_each(size_t n, F f)
{
  for_each_kernel<4><<<1056, 256>>>(n, f);
}
void stream_step(double *a, double *b, double *c, double s, size_t n, int steps)
{
  for (int k = 0; k < steps; ++k) {
    for_each(n, [a, c] __device__ (size_t i) { c[i] = a[i]; });
    for_each(n, [b, c, s] __device__ (size_t i) { b[i] = s * c[i]; });
    for_each(n, [a, b, c] __device__ (size_t i) { c[i] = a[i] + b[i]; });
    for_each(n, [a, b, c, s] __device__ (size_t i) { a[i] = b[i] + s * c[i]; });
  }
}
// REMARK-DAG: kernel 'void for_each_kernel<4, stream_step(double*, double*, double*, double, unsigned long, int)::'lambda'(unsigned long)>(unsigned long, stream_step(double*, double*, double*, double, unsigned long, int)::'lambda'(unsigned long))': 16 bytes and 0 flops per element; analysed and fused through a copy with its loop of a run-time trip count rolled, one element a trip (launched alone, it keeps the unrolling that LLVM or its #pragma unroll gives it)
// REMARK-DAG: fused launches 0..3 ({{.*}}) of sequence [[STREAM:[0-9]+]] into __kfuse_fused_{{[0-9a-f]+}}_[[STREAM]]_0_3: c in registers, b in registers; saves 48 bytes per element
// HOST-DAG: handed 4 launches ({{.*}}) to the runtime, which runs launches 0..3 as __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_3 when

// `#pragma unroll` without a count over a loop of run-time trip count: the
// unroller leaves the kernel's loop as it is (and clang warns that it could
// not unroll it), so the kernel itself is read and fuses as before.
KMAP void twice(const float *a, float *b, int n)
{
#pragma unroll
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    b[i] = 2.f * a[i];
}
KMAP void plus_one(const float *b, float *c, int n)
{
#pragma unroll
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    c[i] = b[i] + 1.f;
}
void int_loops(const float *a, float *b, float *c, int n)
{
  twice<<<528, 256>>>(a, b, n);
  plus_one<<<528, 256>>>(b, c, n);
}
// REMARK-DAG: fused launches 0..1 (twice, plus_one) of sequence {{[0-9]+}} into {{.*}}: b in registers

// No copy: `#pragma unroll 1`, and a pragma over a loop of constant trip
// count (unrolled whole before the copies are made).
KMAP void once(const float *a, float *b, size_t n)
{
  size_t i = threadIdx.x + (size_t)blockDim.x * blockIdx.x;
#pragma unroll 1
  for (; i < n; i += (size_t)gridDim.x * blockDim.x)
    b[i] = a[i] + 1.f;
}
KMAP void norm3(const float *v, float *o, size_t n)
{
  size_t i = threadIdx.x + (size_t)blockDim.x * blockIdx.x;
  if (i >= n)
    return;
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < 3; ++c)
    s += v[3 * i + c] * v[3 * i + c];
  o[i] = s;
}
void uncopied(const float *a, float *b, float *v, float *o, size_t n)
{
  once<<<528, 256>>>(a, b, n);
  norm3<<<(n + 255) / 256, 256>>>(v, o, n);
}
// REMARK-DAG: kernel 'once(float const*, float*, unsigned long)': 8 bytes and 1 flops per element [-Rpass-analysis=kfuse]
// REMARK-DAG: kernel 'norm3(float const*, float*, unsigned long)': 16 bytes and 5 flops per element [-Rpass-analysis=kfuse]

// Rolled, the loop is still a scatter: the remark says so, about the loop
// as written.
KMAP void scatter4(const float *x, const int *idx, float *y, size_t n)
{
  size_t i = threadIdx.x + (size_t)blockDim.x * blockIdx.x;
#pragma unroll 4
  for (; i < n; i += (size_t)gridDim.x * blockDim.x)
    y[idx[i]] = x[i];
}
void scattered(const float *x, const int *idx, float *y, float *z, size_t n)
{
  scatter4<<<528, 256>>>(x, idx, y, n);
  scale4<<<528, 256>>>(y, z, 2.f, n);
}
// REMARK-DAG: kernel 'scatter4(float const*, int const*, float*, unsigned long)' cannot be fused: {{.*}}store through parameter 3 ('y')
