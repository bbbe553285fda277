// Nests of grid-stride loops, one per dimension, as 2-D codes on a fixed
// grid write them:
//   for (y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += blockDim.y * gridDim.y)
//     for (x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += blockDim.x * gridDim.x)
// Consecutive launches whose nests run the same iterations fuse into one
// nest, the outer loops jammed and then the inner ones, values in
// registers. Each access is cX * x + cY * y + r: its footprint spans x in
// [0, w) and y in [0, h), and the manifest guards that rows do not overlap
// (|cY| >= |cX| * (w - 1) + bytes). Nests that run other iterations, reads
// of another thread's element and stores that do not vary with x are
// refused with a remark.
// REQUIRES: cuda
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: grep '^@__kfuse_manifest' %t.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S %s -o %t.ptx 2>/dev/null
// RUN: %ptxas -arch=%cuda_arch %t.ptx -o /dev/null
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -c -Rpass=kfuse -Rpass-analysis=kfuse %s -o %t.o 2>%t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host
// The host compilation reads every manifest line.
// HOST-NOT: cannot be read

#define KMAP __global__ __attribute__((kfuse_map))
#define ROWS(T, V, N) for (T V = blockIdx.y * blockDim.y + threadIdx.y; V < (N); V += blockDim.y * gridDim.y)
#define COLS(T, V, N) for (T V = blockIdx.x * blockDim.x + threadIdx.x; V < (N); V += blockDim.x * gridDim.x)

// int variables, rows of w: t in registers, one nest.
KMAP void gain(const float *src, float *dst, float g, int w, int h)
{ ROWS(int, y, h) COLS(int, x, w) dst[y * w + x] = g * src[y * w + x]; }
KMAP void clamp01(const float *src, float *dst, int w, int h)
{ ROWS(int, y, h) COLS(int, x, w) { float v = src[y * w + x]; dst[y * w + x] = v < 0.f ? 0.f : v > 1.f ? 1.f : v; } }
void pipeline(const float *a, float *t, float *o, int w, int h)
{
  dim3 g(16, 16), b(32, 8);
  gain<<<g, b>>>(a, t, 1.5f, w, h);
  clamp01<<<g, b>>>(t, o, w, h);
}
// REMARK-DAG: fused launches 0..1 (gain, clamp01) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers
// The fused kernel: in each dead-mask copy one inner loop of one block
// (both stages' stores, t's in the copy that keeps every store), inside one
// outer loop.
// IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// IR: {{^}}[[X:[0-9]+]]:{{ +}}; preds = %[[X]],
// IR-NOT: {{^[0-9]+:}}
// IR: store float
// IR-NOT: {{^[0-9]+:}}
// IR: store float
// IR-NOT: {{^[0-9]+:}}
// IR: br i1 %{{[0-9]+}}, label %[[X]], label %{{[0-9]+}}, {{.*}}!llvm.loop
// IR: br i1 %{{[0-9]+}}, label %{{[0-9]+}}, label %{{[0-9]+}}, {{.*}}!llvm.loop
// IR: {{^}}[[X2:[0-9]+]]:{{ +}}; preds = %[[X2]],
// IR-NOT: {{^[0-9]+:}}
// IR: store float
// IR-NOT: store
// IR: br i1 %{{[0-9]+}}, label %[[X2]], label %{{[0-9]+}}, {{.*}}!llvm.loop
// IR: br i1 %{{[0-9]+}}, label %{{[0-9]+}}, label %{{[0-9]+}}, {{.*}}!llvm.loop
// IR-NEXT: }
// The footprints span the image; the rows guard: 4 * (w - 1) + 4 <= |4 * w|.
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_0_0_1 2
// MANIFEST: le 0 4*(max(s3,1)-1)+4 max(4*s3,-(4*s3))
// MANIFEST: footprint 0.0 r min(0,4*s3*(max(s4,1)-1)) 4*(max(s3,1)-1)+max(0,4*s3*(max(s4,1)-1))+4
// MANIFEST: footprint 0.1 w min(0,4*s3*(max(s4,1)-1)) 4*(max(s3,1)-1)+max(0,4*s3*(max(s4,1)-1))+4
// MANIFEST: footprint 1.1 w min(0,4*s2*(max(s3,1)-1)) 4*(max(s2,1)-1)+max(0,4*s2*(max(s3,1)-1))+4
// MANIFEST: dead 0 0.1 covered
// MANIFEST: end

// size_t variables, a pitch in elements and a per-row bias read as r[y]
// (a gather: read only), a third stage: u and v in registers.
KMAP void bias(const double *a, const double *r, double *u, size_t w, size_t h, size_t pitch)
{ ROWS(size_t, y, h) COLS(size_t, x, w) u[y * pitch + x] = a[y * pitch + x] + r[y]; }
KMAP void sq(const double *u, double *v, size_t w, size_t h, size_t pitch)
{ ROWS(size_t, y, h) COLS(size_t, x, w) v[y * pitch + x] = u[y * pitch + x] * u[y * pitch + x]; }
KMAP void axpy(const double *v, const double *a, double *o, size_t w, size_t h, size_t pitch)
{ ROWS(size_t, y, h) COLS(size_t, x, w) o[y * pitch + x] = 0.5 * v[y * pitch + x] + a[y * pitch + x]; }
void pitched(const double *a, const double *r, double *u, double *v, double *o, size_t w, size_t h, size_t pitch)
{
  dim3 g(8, 32), b(64, 4);
  bias<<<g, b>>>(a, r, u, w, h, pitch);
  sq<<<g, b>>>(u, v, w, h, pitch);
  axpy<<<g, b>>>(v, a, o, w, h, pitch);
}
// REMARK-DAG: fused launches 0..2 (bias, sq, axpy) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_2: u in registers, v in registers
// Rows guard over the pitch; the bias's footprint is its whole allocation
// (no footprint line), the unsigned bounds are read as they are (8 bytes).
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_1_0_2 3
// MANIFEST: le 0 8*(max(s3,1)-1)+8 max(8*s5,-(8*s5))
// MANIFEST-NOT: footprint 0.1
// MANIFEST: footprint 0.2 w min(0,8*s5*(max(s4,1)-1)) 8*(max(s3,1)-1)+max(0,8*s5*(max(s4,1)-1))+8
// MANIFEST: end

// z outside, x inside, `unsigned` variables: the bounds must not read
// negative (`le 0 0 ...`), and each loop's range is divided as a 1-D
// loop's is (manifest.md).
KMAP void zs(const float *a, float *t, unsigned w, unsigned d)
{
  for (unsigned z = blockIdx.z * blockDim.z + threadIdx.z; z < d; z += blockDim.z * gridDim.z)
    COLS(unsigned, x, w) t[z * w + x] = a[z * w + x] + 1.f;
}
KMAP void zs2(const float *t, float *o, unsigned w, unsigned d)
{
  for (unsigned z = blockIdx.z * blockDim.z + threadIdx.z; z < d; z += blockDim.z * gridDim.z)
    COLS(unsigned, x, w) o[z * w + x] = t[z * w + x] * 3.f;
}
void planes(const float *a, float *t, float *o, unsigned w, unsigned d)
{
  dim3 g(64, 1, 8), b(128, 1, 2);
  zs<<<g, b>>>(a, t, w, d);
  zs2<<<g, b>>>(t, o, w, d);
}
// REMARK-DAG: fused launches 0..1 (zs, zs2) of sequence 2 into __kfuse_fused_{{[0-9a-f]+}}_2_0_1: t in registers
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_2_0_1 2
// MANIFEST-DAG: le 0 0 s2
// MANIFEST-DAG: le 0 0 s3
// MANIFEST-DAG: footprint 0.1 w min(0,4*s2*(max(s3,1)-1)/(2*min(s3,0)+1)) 4*(max(s2,1)-1)/(2*min(s2,0)+1)+max(0,4*s2*(max(s3,1)-1)/(2*min(s3,0)+1))+4
// MANIFEST: end

// Column-major: x indexes columns of h rows each, t[x * h + y]; y is the
// faster, and the guard says so: 4 * (h - 1) + 4 <= |4 * h| (h is s3).
KMAP void colscale(const float *a, float *t, int w, int h)
{ ROWS(int, y, h) COLS(int, x, w) t[x * h + y] = 2.f * a[x * h + y]; }
KMAP void coladd(const float *t, float *o, int w, int h)
{ ROWS(int, y, h) COLS(int, x, w) o[x * h + y] = t[x * h + y] + 1.f; }
void columns(const float *a, float *t, float *o, int w, int h)
{
  dim3 g(16, 16), b(32, 8);
  colscale<<<g, b>>>(a, t, w, h);
  coladd<<<g, b>>>(t, o, w, h);
}
// REMARK-DAG: fused launches 0..1 (colscale, coladd) of sequence 3 into __kfuse_fused_{{[0-9a-f]+}}_3_0_1: t in registers
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_3_0_1 2
// MANIFEST: le 0 4*(max(s3,1)-1)+4 max(4*s3,-(4*s3))
// MANIFEST: end

// Refused: the second nest runs to another height.
KMAP void gain_h2(const float *src, float *dst, int w, int h, int h2)
{ ROWS(int, y, h2) COLS(int, x, w) dst[y * w + x] = 2.f * src[y * w + x]; }
void heights(const float *a, float *t, float *o, int w, int h, int h2)
{
  dim3 g(16, 16), b(32, 8);
  clamp01<<<g, b>>>(a, t, w, h);
  gain_h2<<<g, b>>>(t, o, w, h, h2);
}
// REMARK-DAG: launches 0..1 (clamp01, gain_h2) of sequence {{[0-9]+}} at {{.*}} in 'heights' not fused: buffer 't': the grid-stride loops of launches 0 and 1 run different iterations (start, step or bound differ)

// Refused: a nest against a 1-D grid-stride loop over the same buffer.
KMAP void flat(const float *t, float *o, int n)
{ COLS(int, i, n) o[i] = t[i] + 1.f; }
void mixed(const float *a, float *t, float *o, int w, int h)
{
  dim3 g(16, 16), b(32, 8);
  clamp01<<<g, b>>>(a, t, w, h);
  flat<<<g, b>>>(t, o, w * h);
}
// REMARK-DAG: launches 0..1 (clamp01, flat) of sequence {{[0-9]+}} at {{.*}} in 'mixed' not fused: buffer 't': the grid-stride loops of launches 0 and 1 run different iterations

// Refused: a stencil reads the row below, which another thread wrote.
KMAP void below(const float *t, float *o, int w, int h)
{ ROWS(int, y, h - 1) COLS(int, x, w) o[y * w + x] = t[(y + 1) * w + x] - t[y * w + x]; }
KMAP void gain_hm1(const float *src, float *dst, int w, int h)
{ ROWS(int, y, h - 1) COLS(int, x, w) dst[y * w + x] = 1.5f * src[y * w + x]; }
void stencil(const float *a, float *t, float *o, int w, int h)
{
  dim3 g(16, 16), b(32, 8);
  gain_hm1<<<g, b>>>(a, t, w, h);
  below<<<g, b>>>(t, o, w, h);
}
// REMARK-DAG: launches 0..1 (gain_hm1, below) of sequence {{[0-9]+}} at {{.*}} in 'stencil' not fused: buffer 't': launch 0 (gain_hm1) writes it at byte offset {{.*}}; neither the same thread nor the same block

// Refused in the analysis: a store that every thread of a row makes.
KMAP void rowsum(const float *a, float *r, int w, int h)
{ ROWS(int, y, h) COLS(int, x, w) r[y] = a[y * w + x]; }
void rows(const float *a, float *r, int w, int h)
{
  dim3 g(16, 16), b(32, 8);
  rowsum<<<g, b>>>(a, r, w, h);
  rowsum<<<g, b>>>(a, r, w, h);
}
// REMARK-DAG: kernel 'rowsum(float const*, float*, int, int)' cannot be fused: stores through parameter 2 ('r') at an index that does not vary with the inner loop's variable; in a nest of grid-stride loops, store at an index of both variables (t[y * w + x])

// Still not analysed: x outside and y inside, and three levels. The remark
// says what fuses.
KMAP void xfirst(const float *a, float *t, int w, int h)
{ COLS(int, x, w) ROWS(int, y, h) t[y * w + x] = 2.f * a[y * w + x]; }
void transposed(const float *a, float *t, float *o, int w, int h)
{
  dim3 g(16, 16), b(32, 8);
  xfirst<<<g, b>>>(a, t, w, h);
  xfirst<<<g, b>>>(t, o, w, h);
}
// REMARK-DAG: kernel 'xfirst(float const*, float*, int, int)' cannot be fused: has a non-affine or unknown index (store through parameter 2 ('t')); it varies in a nest of grid-stride loops that kfuse does not analyse: kfuse reads a nest of two, over y or z outside and x inside

// `__restrict__` pointers and a per-row value r[y]: the optimiser hoists
// the load out of the inner loop into the outer one; it is a gather of a
// buffer nothing in the group writes, read before the inner loops, which
// are one: t in registers.
KMAP void rowscale(const float *__restrict__ a, const float *__restrict__ r, float *__restrict__ t, int w, int h)
{ ROWS(int, y, h) COLS(int, x, w) t[y * w + x] = r[y] * a[y * w + x]; }
void rowscales(const float *a, const float *r, float *t, float *o, int w, int h)
{
  dim3 g(16, 16), b(32, 8);
  rowscale<<<g, b>>>(a, r, t, w, h);
  rowscale<<<g, b>>>(t, r, o, w, h);
}
// REMARK-DAG: fused launches 0..1 (rowscale, rowscale) of sequence {{[0-9]+}} into __kfuse_fused_{{.*}}: t in registers
