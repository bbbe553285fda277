// Global indices written with __mul24 and __umul24 (LLVM reads the block
// index through a 24-bit truncation: the index itself while the grid has at
// most 2^23 blocks, which a manifest `le` line guards), and with cooperative
// groups' thread_rank() (their constructors leave asm whose values nothing
// uses; the grid's rank counts y and z, which a launch of integer grid and
// block does not have).
// REQUIRES: cuda
// __mul24 is libdevice's: the wrapper links it (%clang_cuda does not), and
// it searches the toolkit's cccl directory, which cooperative_groups.h needs.
// RUN: %kfuse_obj_root/bin/kfuse-clang++ --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: grep '^@__kfuse_manifest' %t.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST
// RUN: %kfuse_obj_root/bin/kfuse-clang++ --cuda-device-only -O2 -S %s -o %t.ptx 2>/dev/null
// RUN: %ptxas -arch=%cuda_arch %t.ptx -o /dev/null

#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define KMAP __global__ __attribute__((kfuse_map))

KMAP void axpy24(const float *x, const float *y, float *t, float a, int n)
{
  int i = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
  if (i < n)
    t[i] = a * x[i] + y[i];
}
KMAP void square24(const float *t, float *o, int n)
{
  unsigned i = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
  if (i < (unsigned)n)
    o[i] = t[i] * t[i];
}
void legacy(const float *x, const float *y, float *t, float *o, int n)
{
  axpy24<<<(n + 255) / 256, 256>>>(x, y, t, 2.f, n);
  square24<<<(n + 255) / 256, 256>>>(t, o, n);
}
// REMARK-DAG: kernel 'axpy24(float const*, float const*, float*, float, int)': 12 bytes and 2 flops per element
// REMARK-DAG: fused launches 0..1 (axpy24, square24) of sequence [[LEGACY:[0-9]+]] into __kfuse_fused_{{[0-9a-f]+}}_[[LEGACY]]_0_1: t in registers
// MANIFEST-LABEL: kernel 0 _Z6axpy24PKfS0_Pffi 5
// MANIFEST: le 0 gx 8388608
// MANIFEST: le 1 gx 8388608

KMAP void grid_rank(const float *x, float *u, int n)
{
  unsigned long long i = cg::this_grid().thread_rank();
  if (i < (unsigned long long)n)
    u[i] = 2.f * x[i] + 1.f;
}
KMAP void block_rank(const float *u, const float *y, float *p, int n)
{
  cg::thread_block b = cg::this_thread_block();
  int i = blockIdx.x * blockDim.x + (int)b.thread_rank();
  if (i < n)
    p[i] = u[i] * y[i];
}
void groups(const float *x, const float *y, float *u, float *p, int n)
{
  grid_rank<<<(n + 255) / 256, 256>>>(x, u, n);
  block_rank<<<(n + 255) / 256, 256>>>(u, y, p, n);
}
// REMARK-DAG: kernel 'grid_rank(float const*, float*, int)': 8 bytes and 2 flops per element
// REMARK-DAG: kernel 'block_rank(float const*, float const*, float*, int)': 12 bytes and 1 flops per element
// REMARK-DAG: fused launches 0..1 (grid_rank, block_rank) of sequence {{[0-9]+}} into {{.*}}: u in registers

// A grid of two rows: the grid's rank counts blockIdx.y, the block's rank
// plus blockIdx.x * blockDim.x does not: the indices differ, and the remark
// says so. (A local `dim3 g(blocks)` is the integer it is made from.)
void groups_dim3(const float *x, const float *y, float *u, float *p, int n)
{
  dim3 g((n + 511) / 512, 2), b(256);
  grid_rank<<<g, b>>>(x, u, n);
  block_rank<<<g, b>>>(u, y, p, n);
}
// REMARK-DAG: launches 0..1 (grid_rank, block_rank) of sequence {{[0-9]+}} at {{.*}} in 'groups_dim3' not fused: buffer 'u': launch 0 (grid_rank) writes it at byte offset

// Asm whose value is used still has to compute on registers only.
KMAP void uses_envreg(float *u, int n)
{
  unsigned r;
  asm("mov.u32 %0, %%envreg2;" : "=r"(r));
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    u[i] = (float)r;
}
void env(float *u, float *v, int n)
{
  uses_envreg<<<(n + 255) / 256, 256>>>(u, n);
  uses_envreg<<<(n + 255) / 256, 256>>>(v, n);
}
// REMARK-DAG: kernel 'uses_envreg(float*, int)' cannot be fused: has inline asm that reads special register '%envreg2'

// A grid-stride loop over the grid's rank, `i += grid.size()`, is a
// grid-stride loop: with integer grids and blocks the fused kernel reads no
// y or z coordinate (it runs in x alone) and the two loops become one, u in
// registers; its footprint is the bound's, [0, 4n).
KMAP void cg_scale(const float *x, float *u, int n)
{
  cg::grid_group g = cg::this_grid();
  for (unsigned long long i = g.thread_rank(); i < (unsigned long long)n; i += g.size())
    u[i] = 2.f * x[i] + 1.f;
}
KMAP void cg_mul(const float *u, const float *y, float *p, int n)
{
  auto g = cg::this_grid();
  for (auto i = g.thread_rank(); i < n; i += g.num_threads())
    p[i] = u[i] * y[i];
}
void cg_loops(const float *x, const float *y, float *u, float *p, int n, int blocks)
{
  cg_scale<<<blocks, 256>>>(x, u, n);
  cg_mul<<<blocks, 256>>>(u, y, p, n);
}
// REMARK-DAG: kernel 'cg_scale(float const*, float*, int)': 8 bytes and 2 flops per element
// REMARK-DAG: fused launches 0..1 (cg_scale, cg_mul) of sequence [[CGL:[0-9]+]] into __kfuse_fused_{{[0-9a-f]+}}_[[CGL]]_0_1: u in registers
// MANIFEST-LABEL: kernel 0 _Z8cg_scalePKfPfi 3
// MANIFEST: footprint 0.1 w 0 4*(max(s2,1)-1)/(2*min(s2,0)+1)+4{{$}}
// MANIFEST: dead 0 0.1 covered
// MANIFEST: at 0 2 {{[0-9]+}}:{{[0-9]+}} _Z8cg_loops
// RUN: FileCheck %s --check-prefix=FLAT < %t.ll
// (Sequence 4: the fifth in this file.)
// FLAT: define {{.*}}@__kfuse_fused_{{[0-9a-f]+}}_4_0_1(
// FLAT-NOT: sreg.{{n?(tid|ctaid)}}.{{y|z}}
// FLAT: ret void

// The same loops in a launch of 3-D grid and block: the rank counts every
// coordinate, alike in both loops, so they are still one loop.
void cg_loops_3d(const float *x, const float *y, float *u, float *p, int n, dim3 g, dim3 b)
{
  cg_scale<<<g, b>>>(x, u, n);
  cg_mul<<<g, b>>>(u, y, p, n);
}
// REMARK-DAG: fused launches 0..1 (cg_scale, cg_mul) of sequence {{[0-9]+}} into {{.*}}: u in registers

// Against a loop whose start is computed in 32 bits, `blockIdx.x *
// blockDim.x + threadIdx.x` widened (it wraps past 2^32 threads, the rank
// does not): fused, but the loops stay two, u through memory.
KMAP void plain_mul(const float *u, const float *y, float *p, int n)
{
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n;
       i += (size_t)blockDim.x * gridDim.x)
    p[i] = u[i] * y[i];
}
void cg_and_plain(const float *x, const float *y, float *u, float *p, int n, int blocks)
{
  cg_scale<<<blocks, 256>>>(x, u, n);
  plain_mul<<<blocks, 256>>>(u, y, p, n);
}
// REMARK-DAG: fused launches 0..1 (cg_scale, plain_mul) of sequence {{[0-9]+}} into {{.*}}: u through memory (the grid-stride loops that write and read it could not be made one loop)

// Against a loop whose start is computed in 64 bits, `blockIdx.x *
// (size_t)blockDim.x + threadIdx.x`: the same iterations, and one loop
// (the strides are the same product in another order), u in registers.
KMAP void wide_mul(const float *u, const float *y, float *p, int n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (size_t)n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = u[i] * y[i];
}
void cg_and_wide(const float *x, const float *y, float *u, float *p, int n, int blocks)
{
  cg_scale<<<blocks, 256>>>(x, u, n);
  wide_mul<<<blocks, 256>>>(u, y, p, n);
}
// REMARK-DAG: fused launches 0..1 (cg_scale, wide_mul) of sequence {{[0-9]+}} into {{.*}}: u in registers

// The loop as cooperative groups' examples write it, an `int` variable:
// `for (int i = grid.thread_rank(); i < n; i += grid.size())`. The
// optimiser keeps i in 64 bits, sign-extending its low half each trip; it is
// the rank plus k strides while no value reaches 2^31, which the manifest
// guards (n + the grid's threads, and the grid's threads, at most 2^31).
// One loop, v in registers.
KMAP void cgi_scale(const float *x, float *v, int n)
{
  cg::grid_group g = cg::this_grid();
  for (int i = g.thread_rank(); i < n; i += g.size())
    v[i] = 2.f * x[i] + 1.f;
}
KMAP void cgi_mul(const float *v, const float *y, float *p, int n)
{
  cg::grid_group g = cg::this_grid();
  for (int i = g.thread_rank(); i < n; i += g.size())
    p[i] = v[i] * y[i];
}
void cg_int(const float *x, const float *y, float *v, float *p, int n, int blocks)
{
  cgi_scale<<<blocks, 256>>>(x, v, n);
  cgi_mul<<<blocks, 256>>>(v, y, p, n);
}
// REMARK-DAG: fused launches 0..1 (cgi_scale, cgi_mul) of sequence {{[0-9]+}} into {{.*}}: v in registers
// MANIFEST-LABEL: kernel 0 _Z9cgi_scalePKfPfi 3
// MANIFEST: le 0 bx*gx*by*gy*bz*gz 2147483648{{$}}
// MANIFEST: le 0 s2+bx*gx*by*gy*bz*gz 2147483648{{$}}
// MANIFEST: le 1 s3+bx*gx*by*gy*bz*gz 2147483648{{$}}
// MANIFEST: footprint 0.1 w 0 4*(max(s2,1)-1)+4{{$}}

// The same with `unsigned i` (the variable's low half zero-extended, the
// latch comparing unsigned): below 2^32, n read as not negative.
KMAP void cgu_scale(const float *x, float *v, int n)
{
  cg::grid_group g = cg::this_grid();
  for (unsigned i = g.thread_rank(); i < (unsigned)n; i += g.size())
    v[i] = 2.f * x[i] + 1.f;
}
KMAP void cgu_mul(const float *v, const float *y, float *p, int n)
{
  cg::grid_group g = cg::this_grid();
  for (unsigned i = g.thread_rank(); i < (unsigned)n; i += g.size())
    p[i] = v[i] * y[i];
}
void cg_unsigned(const float *x, const float *y, float *v, float *p, int n, int blocks)
{
  cgu_scale<<<blocks, 256>>>(x, v, n);
  cgu_mul<<<blocks, 256>>>(v, y, p, n);
}
// REMARK-DAG: fused launches 0..1 (cgu_scale, cgu_mul) of sequence {{[0-9]+}} into {{.*}}: v in registers
// MANIFEST-LABEL: kernel 0 _Z9cgu_scalePKfPfi 3
// MANIFEST: le 0 0 s2{{$}}
// MANIFEST: le 0 bx*gx*by*gy*bz*gz 4294967296{{$}}
// MANIFEST: le 0 s2+bx*gx*by*gy*bz*gz 4294967296{{$}}
