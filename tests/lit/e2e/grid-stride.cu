// Grid-stride loops: `for (i = blockIdx.x*blockDim.x + threadIdx.x; i < n;
// i += blockDim.x*gridDim.x)`, size_t and int, an int variable against a
// size_t n too. Consecutive launches whose
// loops run the same iterations fuse; the fused kernel runs one loop, the
// stages of an iteration in launch order, values in registers. Loops over
// other bounds, loops of another shape and accesses outside the loop are
// refused with a remark that says so.
// REQUIRES: cuda
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: grep '^@__kfuse_manifest' %t.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S %s -o %t.ptx 2>/dev/null
// RUN: %ptxas -arch=%cuda_arch %t.ptx -o /dev/null
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -c -Rpass=kfuse -Rpass-analysis=kfuse %s -o %t.o 2>%t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host
// The host compilation reads the manifest, `equal` lines with byte ranges too.
// HOST-NOT: cannot be read

#define KMAP __global__ __attribute__((kfuse_map))
#define GRID_STRIDE(T, i, n) \
  for (T i = blockIdx.x * (T)blockDim.x + threadIdx.x; i < n; i += (T)blockDim.x * gridDim.x)

KMAP void scale(const float *x, float *t, float a, size_t n) { GRID_STRIDE(size_t, i, n) t[i] = a * x[i]; }
KMAP void add(const float *t, const float *y, float *o, size_t n) { GRID_STRIDE(size_t, i, n) o[i] = t[i] + y[i]; }
KMAP void square_pos(const float *o, float *p, size_t n)
{ GRID_STRIDE(size_t, i, n) { float v = o[i]; if (v > 0.f) p[i] = v * v; } }
void chain(const float *x, float *t, const float *y, float *o, float *p, size_t n)
{
  scale<<<264, 256>>>(x, t, 2.f, n);
  add<<<264, 256>>>(t, y, o, n);
  square_pos<<<264, 256>>>(o, p, n);
}
// REMARK-DAG: fused launches 0..2 (scale, add, square_pos) of sequence [[CHAIN:[0-9]+]] into __kfuse_fused_{{[0-9a-f]+}}_[[CHAIN]]_0_2: t in registers, o in registers
// One loop, in each of the two copies of the body (for t and o both dead,
// for any other mask): one back edge each, where three loops would have
// three.
// IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_2(
// IR: call float @llvm.nvvm.mul.rn.f(
// IR: br i1 %{{[0-9]+}}, label %{{[0-9]+}}, label %{{[0-9]+}}{{.*}}, !llvm.loop
// IR: call float @llvm.nvvm.mul.rn.f(
// IR: br i1 %{{[0-9]+}}, label %{{[0-9]+}}, label %{{[0-9]+}}{{.*}}, !llvm.loop
// IR-NOT: !llvm.loop
// IR: {{^}$}}
// The footprints are the loop's bound, n elements.
// MANIFEST: kernel 0 _Z5scalePKfPffm 4
// MANIFEST: footprint 0.1 w 0 4*(max(s3,1)-1)+4{{$}}
// MANIFEST: end

KMAP void twice(const double *a, double *b, int n) { GRID_STRIDE(int, i, n) b[i] = a[i] * 2.0; }
KMAP void plus_one(const double *b, double *c, int n) { GRID_STRIDE(int, i, n) c[i] = b[i] + 1.0; }
void int_loops(const double *a, double *b, double *c, int n)
{
  twice<<<528, 256>>>(a, b, n);
  plus_one<<<528, 256>>>(b, c, n);
}
// REMARK-DAG: fused launches 0..1 (twice, plus_one) of sequence {{[0-9]+}} into {{.*}}: b in registers

// An int variable against a size_t bound: the loop tests sext(i) < n, and
// the optimiser keeps a 64-bit twin of i for the indices. The loops fuse
// and jam, each variable with its twin: one loop in each copy of the body.
KMAP void twice_n(const float *a, float *b, size_t n)
{ for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) b[i] = a[i] * 2.f; }
KMAP void plus_n(const float *b, float *c, size_t n)
{ for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = b[i] + 1.f; }
void narrow_loops(const float *a, float *b, float *c, size_t n)
{
  twice_n<<<528, 256>>>(a, b, n);
  plus_n<<<528, 256>>>(b, c, n);
}
// REMARK-DAG: fused launches 0..1 (twice_n, plus_n) of sequence 2 into __kfuse_fused_{{[0-9a-f]+}}_2_0_1: b in registers
// IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_2_0_1(
// IR: sext i32
// IR: br i1 %{{[0-9]+}}, label %{{[0-9]+}}, label %{{[0-9]+}}{{.*}}, !llvm.loop
// IR: br i1 %{{[0-9]+}}, label %{{[0-9]+}}, label %{{[0-9]+}}{{.*}}, !llvm.loop
// IR-NOT: !llvm.loop
// IR: {{^}$}}

// An int loop and a size_t loop over the same n run the same iterations but
// with variables of two widths: they stay two loops, t moves through memory
// with every store kept, and the remark says so.
KMAP void twice_i(const float *a, float *b, size_t n)
{ for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) b[i] = a[i] * 2.f; }
void mixed_widths(const float *a, float *t, float *c, size_t n)
{
  twice_i<<<528, 256>>>(a, t, n);
  square_pos<<<528, 256>>>(t, c, n);
}
// REMARK-DAG: fused launches 0..1 (twice_i, square_pos) of sequence 3 into __kfuse_fused_{{[0-9a-f]+}}_3_0_1: t through memory (the grid-stride loops that write and read it could not be made one loop); saves 0 bytes per element

// Two bounds: a thread's later iterations are not the same elements.
void two_bounds(const float *x, float *t, const float *y, float *o, size_t n, size_t m)
{
  scale<<<264, 256>>>(x, t, 2.f, n);
  add<<<264, 256>>>(t, y, o, m);
}
// REMARK-DAG: launches 0..1 (scale, add) of sequence {{[0-9]+}} at {{.*}} not fused: buffer 't': the grid-stride loops of launches 0 and 1 run different iterations (start, step or bound differ)

// A loop that strides by a constant is no grid-stride loop.
KMAP void by_block(const float *x, float *t, size_t n)
{ for (size_t i = threadIdx.x; i < n; i += 256) t[i] = x[i]; }
// REMARK-DAG: kernel 'by_block(float const*, float*, unsigned long)' cannot be fused: has a non-affine or unknown index (store through parameter 2 ('t')); it varies in a loop that is not a grid-stride loop
// An access after the loop.
KMAP void with_tail(const float *x, float *t, size_t n)
{ GRID_STRIDE(size_t, i, n) t[i] = x[i]; if (threadIdx.x == 0) t[0] = 0.f; }
// REMARK-DAG: kernel 'with_tail(float const*, float*, unsigned long)' cannot be fused: stores through parameter 2 ('t') outside its grid-stride loop
void refused(const float *x, float *t, float *u, size_t n)
{
  by_block<<<1, 256>>>(x, t, n);
  with_tail<<<1, 256>>>(t, u, n);
}

// A grid-stride loop bounded by an integer field of a struct passed by
// value that the kernel does not change fuses as one bounded by an integer
// parameter: the loops jam (t in registers), the stages read one copy of
// the struct (`equal`), and the footprints read the field.
struct Extent { size_t n; float a, b; };
KMAP void field_scale(const float *x, float *t, Extent e)
{ GRID_STRIDE(size_t, i, e.n) t[i] = e.a * x[i]; }
KMAP void field_add(const float *t, float *u, Extent e)
{ GRID_STRIDE(size_t, i, e.n) u[i] = t[i] + e.a; }
// REMARK-DAG: fused launches 0..1 (field_scale, field_add) of sequence {{[0-9]+}} into __kfuse_fused_{{.*}}: t in registers
// MANIFEST: kernel 0 _Z11field_scalePKfPf6Extent 3
// MANIFEST: equal 0.2 1.2
// MANIFEST: footprint 0.1 w 0 4*(max(s2.0.8,1)-1)+4{{$}}
// MANIFEST: footprint 1.1 w 0 4*(max(s2.0.8,1)-1)+4{{$}}
// A struct with padding is shared too: the runtime compares the bytes of
// its fields alone (`equal` with byte ranges), since a struct passed in
// registers is put back together around uninitialised padding. Padding at
// the end (Padded: 12 bytes of fields in 16) and between fields (Gappy: an
// int, 4 bytes of padding, a double and a size_t).
struct Padded { size_t n; float a; };
KMAP void pad_scale(const float *x, float *t, Padded e)
{ GRID_STRIDE(size_t, i, e.n) t[i] = e.a * x[i]; }
KMAP void pad_add(const float *t, float *u, Padded e)
{ GRID_STRIDE(size_t, i, e.n) u[i] = t[i] + e.a; }
// REMARK-DAG: fused launches 0..1 (pad_scale, pad_add) of sequence {{[0-9]+}} into __kfuse_fused_{{.*}}: t in registers
struct Gappy { int k; double g; size_t n; };
KMAP void gap_scale(const double *x, double *t, Gappy e)
{ GRID_STRIDE(size_t, i, e.n) t[i] = e.g * x[i] + e.k; }
KMAP void gap_add(const double *t, double *u, Gappy e)
{ GRID_STRIDE(size_t, i, e.n) u[i] = t[i] - e.g; }
// REMARK-DAG: fused launches 0..1 (gap_scale, gap_add) of sequence {{[0-9]+}} into __kfuse_fused_{{.*}}: t in registers
// A stage that loads bytes of the padding (Gappy's first 8 bytes as one
// word: k and the 4 bytes after it) keeps its own copy: the runtime does
// not compare padding, so its struct is not read from another launch's
// copy; the loops stay two, t through memory.
KMAP void word_scale(const double *x, double *t, Gappy e)
{
  unsigned long long w;
  __builtin_memcpy(&w, &e, 8);
  GRID_STRIDE(size_t, i, e.n) t[i] = x[i] * (double)(w >> 16);
}
// REMARK-DAG: fused launches 0..1 (word_scale, gap_add) of sequence {{[0-9]+}} into __kfuse_fused_{{.*}}: t through memory (the grid-stride loops that write and read it could not be made one loop; launch 0 (word_scale) reads its bound from its own copy of by-value parameter 3 ('e'), which it does not share: the kernel loads bytes of its padding)
// A bound that is an expression that may wrap (a sum of two size_t): the
// remark names it.
KMAP void sum_bound(const float *x, float *t, size_t n, size_t m)
{ GRID_STRIDE(size_t, i, n + m) t[i] = x[i]; }
// REMARK-DAG: kernel 'sum_bound(float const*, float*, unsigned long, unsigned long)' cannot be fused: has a non-affine or unknown index (store through parameter 2 ('t')); it varies in a grid-stride loop whose bound is not an integer parameter, a field of a struct passed by value, or a sum or product of them that cannot wrap: kfuse reads the bound of a grid-stride loop from integer parameters and fields of a struct passed by value that the kernel does not change, added or multiplied in signed arithmetic (w * h with int w, h)
void bounds(const float *x, float *t, float *u, float *v, Extent e, size_t n)
{
  field_scale<<<264, 256>>>(x, t, e);
  field_add<<<264, 256>>>(t, u, e);
  sum_bound<<<264, 256>>>(u, v, n, n);
}
void padded(const float *x, float *t, float *u, Padded e)
{
  pad_scale<<<264, 256>>>(x, t, e);
  pad_add<<<264, 256>>>(t, u, e);
}
// HOST-DAG: remark: handed 2 launches (pad_scale, pad_add) to the runtime, which runs launches 0..1 as __kfuse_fused_
// MANIFEST: kernel 0 _Z9pad_scalePKfPf6Padded 3
// MANIFEST: equal 0.2 1.2 0-11{{$}}
// MANIFEST: footprint 0.1 w 0 4*(max(s2.0.8,1)-1)+4{{$}}
void gappy(const double *x, double *t, double *u, Gappy e)
{
  gap_scale<<<264, 256>>>(x, t, e);
  gap_add<<<264, 256>>>(t, u, e);
}
// HOST-DAG: remark: handed 2 launches (gap_scale, gap_add) to the runtime, which runs launches 0..1 as __kfuse_fused_
// MANIFEST: kernel 0 _Z9gap_scalePKdPd5Gappy 3
// MANIFEST: equal 0.2 1.2 0-3,8-23{{$}}
// MANIFEST: footprint 0.1 w 0 8*(max(s2.16.8,1)-1)+8{{$}}
void word(const double *x, double *t, double *u, Gappy e)
{
  word_scale<<<264, 256>>>(x, t, e);
  gap_add<<<264, 256>>>(t, u, e);
}
// MANIFEST: kernel 0 _Z10word_scalePKdPd5Gappy 3
// MANIFEST-NOT: equal 0.2 1.2
// MANIFEST: end

// Bounds that are expressions of parameters the kernel computes without
// wrapping: a product of ints (`w * h`, signed arithmetic) and a product of
// two ints widened to 64 bits (`(size_t)w * h`, too small to wrap), whose
// footprint is guarded against a negative product as an unsigned bound.
KMAP void area_scale(const float *x, float *t, int w, int h)
{ GRID_STRIDE(int, i, w * h) t[i] = 2.f * x[i]; }
KMAP void area_add(const float *t, float *u, int w, int h)
{ GRID_STRIDE(int, i, w * h) u[i] = t[i] + 1.f; }
KMAP void wide_scale(const float *x, float *t, int w, int h)
{ GRID_STRIDE(size_t, i, (size_t)w * h) t[i] = 2.f * x[i]; }
KMAP void wide_add(const float *t, float *u, int w, int h)
{ GRID_STRIDE(size_t, i, (size_t)w * h) u[i] = t[i] + 1.f; }
// Unsigned products wrap: not a bound kfuse reads.
KMAP void uarea(const float *x, float *t, unsigned w, unsigned h)
{ GRID_STRIDE(unsigned, i, w * h) t[i] = x[i]; }
// Another bound, `w * h - 1`: other iterations.
KMAP void area_less(const float *t, float *u, int w, int h)
{ GRID_STRIDE(int, i, w * h - 1) u[i] = t[i] + 1.f; }
void area(const float *x, float *t, float *u, int w, int h)
{
  area_scale<<<264, 256>>>(x, t, w, h);
  area_add<<<264, 256>>>(t, u, w, h);
}
// REMARK-DAG: fused launches 0..1 (area_scale, area_add) of sequence {{[0-9]+}} into __kfuse_fused_{{.*}}: t in registers
// MANIFEST: kernel 0 _Z10area_scalePKfPfii 4
// MANIFEST: footprint 0.1 w 0 4*(max(s2*s3,1)-1)+4{{$}}
// MANIFEST: dead 0 0.1 covered
void wide(const float *x, float *t, float *u, int w, int h)
{
  wide_scale<<<264, 256>>>(x, t, w, h);
  wide_add<<<264, 256>>>(t, u, w, h);
}
// REMARK-DAG: fused launches 0..1 (wide_scale, wide_add) of sequence {{[0-9]+}} into __kfuse_fused_{{.*}}: t in registers
// MANIFEST: kernel 0 _Z10wide_scalePKfPfii 4
// MANIFEST: footprint 0.1 w 0 4*(max(s2*s3,1)-1)/(2*min(s2*s3,0)+1)+4{{$}}
void unsigned_area(const float *x, float *t, float *u, unsigned w, unsigned h)
{
  uarea<<<264, 256>>>(x, t, w, h);
  uarea<<<264, 256>>>(t, u, w, h);
}
// REMARK-DAG: kernel 'uarea(float const*, float*, unsigned int, unsigned int)' cannot be fused: has a non-affine or unknown index (store through parameter 2 ('t')); it varies in a grid-stride loop whose bound is not an integer parameter, a field of a struct passed by value, or a sum or product of them that cannot wrap
void area_other(const float *x, float *t, float *u, int w, int h)
{
  area_scale<<<264, 256>>>(x, t, w, h);
  area_less<<<264, 256>>>(t, u, w, h);
}
// REMARK-DAG: launches 0..1 (area_scale, area_less) of sequence {{[0-9]+}} at {{.*}} in 'area_other' not fused: buffer 't': the grid-stride loops of launches 0 and 1 run different iterations (start, step or bound differ)

// Outside a loop, a check against such an expression (`if (i < w * h)`, a
// flat image) bounds the access's footprint as a parameter does, so that
// arrays carved from one allocation do not seem to overlap where the grid
// runs past w * h; compared unsigned, a negative product bounds nothing.
KMAP void flat_scale(const float *x, float *t, int w, int h)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < w * h) t[i] = 2.f * x[i]; }
KMAP void flat_add(const float *t, float *u, int w, int h)
{ unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < (unsigned)(w * h)) u[i] = t[i] + 1.f; }
void flat(const float *x, float *t, float *u, int w, int h)
{
  flat_scale<<<(w * h + 255) / 256, 256>>>(x, t, w, h);
  flat_add<<<(w * h + 255) / 256, 256>>>(t, u, w, h);
}
// MANIFEST: kernel 0 _Z10flat_scalePKfPfii 4
// MANIFEST: footprint 0.1 w 0 min(4*bx*gx,4*(s2*s3)){{$}}
// MANIFEST: footprint 1.1 w 0 max(min(4*bx*gx,4*(s2*s3)),min(4*bx*gx,-(s2*s3)*(4*bx*gx))){{$}}

// The stride written in either order, `blockDim.x * gridDim.x` and
// `gridDim.x * blockDim.x`: one loop.
KMAP void stride_ab(const float *x, float *t, int n)
{ for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) t[i] = 2.f * x[i]; }
KMAP void stride_ba(const float *t, float *u, int n)
{ for (int i = threadIdx.x + blockDim.x * blockIdx.x; i < n; i += gridDim.x * blockDim.x) u[i] = t[i] + 1.f; }
void strides(const float *x, float *t, float *u, int n)
{
  stride_ab<<<264, 256>>>(x, t, n);
  stride_ba<<<264, 256>>>(t, u, n);
}
// REMARK-DAG: fused launches 0..1 (stride_ab, stride_ba) of sequence {{[0-9]+}} into __kfuse_fused_{{.*}}: t in registers

// `__restrict__` pointers, as performance code writes them: the optimiser
// hoists the loads of coefficients out of the loop, before it, and
// inlining each stage leaves scope declarations between the loops. The
// loads are read before the loop (nothing in the group writes c), and the
// loops are one, t in registers.
KMAP void coef_axpb(const float *__restrict__ x, const float *__restrict__ c, float *__restrict__ t, int n)
{ for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) t[i] = c[0] * x[i] + c[1]; }
void coefs(const float *x, const float *c, float *t, float *o, int n)
{
  coef_axpb<<<264, 256>>>(x, c, t, n);
  coef_axpb<<<264, 256>>>(t, c, o, n);
}
// REMARK-DAG: fused launches 0..1 (coef_axpb, coef_axpb) of sequence {{[0-9]+}} into __kfuse_fused_{{.*}}: t in registers
// A coefficient the group writes is another thread's: not fused.
KMAP void coef_set(const float *__restrict__ x, float *__restrict__ c, int n)
{ for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = 2.f * x[i]; }
void coefs_written(const float *x, float *c, float *o, int n)
{
  coef_set<<<264, 256>>>(x, c, n);
  coef_axpb<<<264, 256>>>(x, c, o, n);
}
// REMARK-DAG: launches 0..1 (coef_set, coef_axpb) of sequence {{[0-9]+}} at {{.*}} in 'coefs_written' not fused: buffer 'c': {{.*}}neither the same thread nor the same block

// A stage whose loop runs under a test of its own (`if (flag)`) is not
// jammed into the loop before it: the jammed loop would run its body
// whatever the flag. The loops run one after the other, t through memory.
KMAP void plain_scale(const float *x, float *t, int n)
{ for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) t[i] = 2.f * x[i]; }
KMAP void maybe_add(const float *t, float *o, int n, int flag)
{
  if (flag)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) o[i] = t[i] + 1.f;
}
void flagged(const float *x, float *t, float *o, int n, int flag)
{
  plain_scale<<<264, 256>>>(x, t, n);
  maybe_add<<<264, 256>>>(t, o, n, flag);
}
// REMARK-DAG: fused launches 0..1 (plain_scale, maybe_add) of sequence {{[0-9]+}} into __kfuse_fused_{{.*}}: t through memory (the grid-stride loops that write and read it could not be made one loop)
