// Halo recomputation in 2-D and 3-D: a consumer reads its producer's
// values at neighbouring cells of a row-major grid, `q[(y-1)*w + x]`,
// `q[i - pitch - 1]`, which threads of neighbouring blocks store. The fused
// block keeps its box of the buffer widened by the shifts in a shared
// tile, its threads recompute the widening in a loop, one barrier, and the
// consumers read the tile. There are no written flags: each element read
// must be proven one the producer stores (the reader's own checks keep it
// inside the producer's bounds), and the manifest checks one address per
// cell (width <= pitch), a thread per cell and the tile's size. Refused,
// each with its reason: a read the checks do not keep inside the grid, a
// producer stored under other conditions, a neighbour 40 rows away, and a
// producer that reads %laneid. A producer whose input an earlier launch of
// the group computes cell by cell has that launch recomputed for a wider
// frame (the halo grows), also through three stencils; its recomputation
// reads the earlier tile at the virtual thread's cells.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o - \
// RUN:   | grep '^@__kfuse_manifest' | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST

#define KMAP __global__ __attribute__((kfuse_map))
#define XY                                                                                   \
  int x = blockIdx.x * blockDim.x + threadIdx.x;                                             \
  int y = blockIdx.y * blockDim.y + threadIdx.y;                                             \
  if (x >= w || y >= h)                                                                      \
    return;                                                                                  \
  int i = y * pitch + x
#define XYZ                                                                                  \
  int x = blockIdx.x * blockDim.x + threadIdx.x;                                             \
  int y = blockIdx.y * blockDim.y + threadIdx.y;                                             \
  int z = blockIdx.z * blockDim.z + threadIdx.z;                                             \
  if (x >= w || y >= h || z >= d)                                                            \
    return;                                                                                  \
  int i = (z * h + y) * w + x

KMAP void heat(const float *u, float *un, float k, int w, int h, int pitch)
{ XY; if (x == 0 || y == 0 || x == w - 1 || y == h - 1) un[i] = u[i];
  else un[i] = u[i] + k * (u[i - 1] + u[i + 1] + u[i - pitch] + u[i + pitch] - 4.0f * u[i]); }
KMAP void lap9(const float *un, float *lap, int w, int h, int pitch)
{ XY; if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { lap[i] = 0.0f; return; }
  lap[i] = un[i - 1] + un[i + 1] + un[i - pitch] + un[i + pitch] + un[i - pitch - 1] +
           un[i + pitch + 1] - 6.0f * un[i]; }
KMAP void relax(const float *un, const float *lap, float *r, float dt, int w, int h, int pitch)
{ XY; r[i] = un[i] + dt * lap[i]; }
KMAP void north(const float *un, float *o, int w, int h, int pitch)
{ XY; if (y + 1 < h) o[i] = un[i + pitch]; }
KMAP void unchecked(const float *un, float *o, int w, int h, int pitch)
{ XY; if (y > 0) o[i] = un[i - pitch] + un[i - 1]; }
KMAP void masked(const float *u, float *un, const int *mask, int w, int h, int pitch)
{ XY; if (mask[i]) un[i] = 2.0f * u[i]; }
KMAP void far(const float *un, float *o, int w, int h, int pitch)
{ XY; if (y + 40 < h) o[i] = un[i + 40 * pitch]; }
KMAP void scale(const float *x0, float *u, int w, int h, int pitch)
{ XY; u[i] = 3.0f * x0[i]; }
KMAP void lanep(const float *u, float *un, int w, int h, int pitch)
{ XY; un[i] = u[i] + (float)__nvvm_read_ptx_sreg_laneid(); }
KMAP void fill3(const float *a, float *q, int w, int h, int d)
{ XYZ; q[i] = a[i] * a[i]; }
KMAP void diff3(const float *q, float *o, int w, int h, int d)
{ XYZ; if (z > 0 && z < d - 1) o[i] = q[i + w * h] - q[i - w * h]; }

void step(const float *u, float *un, float *lap, float *r, int w, int h, int pitch) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  heat<<<g, b>>>(u, un, 0.2f, w, h, pitch);
  lap9<<<g, b>>>(un, lap, w, h, pitch);
  relax<<<g, b>>>(un, lap, r, 0.05f, w, h, pitch);
}
void up(const float *u, float *un, float *o, int w, int h) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  heat<<<g, b>>>(u, un, 0.2f, w, h, w);
  north<<<g, b>>>(un, o, w, h, w);
}
void unproven(const float *u, float *un, float *o, int w, int h, int pitch) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  heat<<<g, b>>>(u, un, 0.2f, w, h, pitch);
  unchecked<<<g, b>>>(un, o, w, h, pitch);
}
void conditional(const float *u, float *un, const int *m, float *lap, int w, int h, int pitch) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  masked<<<g, b>>>(u, un, m, w, h, pitch);
  lap9<<<g, b>>>(un, lap, w, h, pitch);
}
void toofar(const float *u, float *un, float *o, int w, int h, int pitch) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  heat<<<g, b>>>(u, un, 0.2f, w, h, pitch);
  far<<<g, b>>>(un, o, w, h, pitch);
}
void fed(const float *x0, float *u, float *un, float *lap, int w, int h, int pitch) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  scale<<<g, b>>>(x0, u, w, h, pitch);
  heat<<<g, b>>>(u, un, 0.2f, w, h, pitch);
  lap9<<<g, b>>>(un, lap, w, h, pitch);
}
void lane(const float *u, float *un, float *lap, int w, int h, int pitch) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  lanep<<<g, b>>>(u, un, w, h, pitch);
  lap9<<<g, b>>>(un, lap, w, h, pitch);
}
KMAP void smooth(const float *lap, float *sl, int w, int h, int pitch)
{ XY; if (x == 0 || x == w - 1) sl[i] = lap[i]; else sl[i] = lap[i - 1] + lap[i + 1]; }
void three(const float *u, float *un, float *lap, float *sl, int w, int h, int pitch) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  heat<<<g, b>>>(u, un, 0.2f, w, h, pitch);
  lap9<<<g, b>>>(un, lap, w, h, pitch);
  smooth<<<g, b>>>(lap, sl, w, h, pitch);
}
KMAP void box27(const float *q, float *o, int w, int h, int d)
{ XYZ; if (x > 0 && x < w - 1 && y > 0 && y < h - 1 && z > 0 && z < d - 1) {
    float s = 0.0f;
    for (int c = -1; c <= 1; c++)
      for (int b = -1; b <= 1; b++)
        for (int a = -1; a <= 1; a++)
          s += q[i + (c * h + b) * w + a];
    o[i] = s; } }
void cube(const float *a, float *q, float *o, int w, int h, int d) {
  dim3 b(32, 4, 4), g((w + 31) / 32, (h + 3) / 4, (d + 3) / 4);
  fill3<<<g, b>>>(a, q, w, h, d);
  box27<<<g, b>>>(q, o, w, h, d);
}
KMAP void update(const float *lap, float *u, int w, int h, int pitch)
{ XY; u[i] += 0.1f * lap[i]; }
void inplace(float *u, float *un, float *lap, int w, int h, int pitch) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  heat<<<g, b>>>(u, un, 0.2f, w, h, pitch);
  lap9<<<g, b>>>(un, lap, w, h, pitch);
  update<<<g, b>>>(lap, u, w, h, pitch);
}
void vol(const float *a, float *q, float *o, int w, int h, int d) {
  dim3 b(32, 4, 4), g((w + 31) / 32, (h + 3) / 4, (d + 3) / 4);
  fill3<<<g, b>>>(a, q, w, h, d);
  diff3<<<g, b>>>(q, o, w, h, d);
}

// REMARK-DAG: remark: fused launches 0..2 (heat, lap9, relax) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_2: un through shared memory with a halo of 1 before and 1 after in x, 1 before and 1 after in y around each block's box, recomputed by launch 0 (heat), lap in registers, with barriers
// REMARK-DAG: remark: fused launches 0..1 (heat, north) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_1: un through shared memory with a halo of 0 before and 1 after in y around each block's box, recomputed by launch 0 (heat), with barriers
// REMARK-DAG: remark: launches 0..1 (heat, unchecked) of sequence 2 at {{.*}} not fused: buffer 'un': launch 1 (unchecked) reads it at byte offset {{.*}}, and nothing proves the element it reads is one launch 0 (heat) stores, inside [0, w) in x; in 2-D and 3-D halo fusion needs the reader's own checks to keep every neighbour inside the producer's bounds (`if (x > 0 && x < w - 1)` around a read at x - 1 and x + 1)
// REMARK-DAG: remark: launches 0..1 (masked, lap9) of sequence 3 at {{.*}} not fused: buffer 'un': later launches read it at neighbouring elements in 2-D, and launch 0 (masked) stores it under other conditions than one bound per coordinate; write the producer's check as `if (x < w && y < h)` (or `if (x >= w || y >= h) return;`) with nothing else before the store
// REMARK-DAG: remark: launches 0..1 (heat, far) of sequence 4 at {{.*}} not fused: buffer 'un': launch 1 (far) reads it at byte offset {{.*}}, more than 32 elements from its thread's own in some dimension; halo fusion recomputes at most 32 on each side of a block
// The halo grows: heat, recomputed for lap9's frame of 1, reads u at
// neighbouring cells, which scale computes: scale is recomputed for a
// frame of 2.
// REMARK-DAG: remark: fused launches 0..2 (scale, heat, lap9) of sequence 5 into __kfuse_fused_{{[0-9a-f]+}}_5_0_2: u through shared memory with a halo of 2 before and 2 after in x, 2 before and 2 after in y around each block's box, recomputed by launch 0 (scale), un through shared memory with a halo of 1 before and 1 after in x, 1 before and 1 after in y around each block's box, recomputed by launch 1 (heat), with barriers
// REMARK-DAG: remark: launches 0..1 (lanep, lap9) of sequence 6 at {{.*}} not fused: buffer 'un': later launches read it at neighbouring elements, so launch 0 (lanep) would be run again for the elements next to each block's own, by other threads than their own, but it reads %laneid, which would then differ
// Three stencils: lap's frame of 1 in x needs un's of 2 in x and 1 in y.
// REMARK-DAG: remark: fused launches 0..2 (heat, lap9, smooth) of sequence 7 into __kfuse_fused_{{[0-9a-f]+}}_7_0_2: un through shared memory with a halo of 2 before and 2 after in x, 1 before and 1 after in y around each block's box, recomputed by launch 0 (heat), lap through shared memory with a halo of 1 before and 1 after in x around each block's box, recomputed by launch 1 (lap9), with barriers
// An update in place: heat reads u at neighbouring cells, which a later
// launch writes (another block may already have updated them); heat and
// lap9 fuse without it.
// REMARK-DAG: remark: launches 0..2 (heat, lap9, update) of sequence 9 at {{.*}} not fused: buffer 'u': launch 0 (heat) reads it at byte offset {{.*}} and launch 2 (update) writes it at byte offset {{.*}}; neither the same thread nor the same block
// REMARK-DAG: remark: fused launches 0..1 (heat, lap9) of sequence 9 into
// A 27-point box: the halo on every side in all three dimensions.
// REMARK-DAG: remark: fused launches 0..1 (fill3, box27) of sequence 8 into __kfuse_fused_{{[0-9a-f]+}}_8_0_1: q through shared memory with a halo of 1 before and 1 after in x, 1 before and 1 after in y, 1 before and 1 after in z around each block's box
// REMARK-DAG: remark: fused launches 0..1 (fill3, diff3) of sequence 10 into __kfuse_fused_{{[0-9a-f]+}}_10_0_1: q through shared memory with a halo of 1 before and 1 after in z around each block's box, recomputed by launch 0 (fill3), with barriers

// The step's kernel: heat for the block's own cells into the tile and
// memory, the frame's cells in a loop over the tile's slots (each running
// heat again as the cell's own thread, if the launch has it), one barrier,
// lap9 and relax from the tile; once per version of the dead mask. No
// written flags; un is never loaded from memory (`covered` below).
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_2(
// CHECK: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_0_0_2_$_v{{[0-9]+}}_$_tile[8192];
// CHECK-NOT: written
// CHECK-NOT: bar.sync
// CHECK: st.shared.b32
// CHECK-NOT: bar.sync
// CHECK: %nctaid.{{x|y}}
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK: ret;

// The guards: the box (32+2)*(8+2) within the tile, a thread per cell in
// x and y, and the width within the pitch.
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_0_0_2 3
// MANIFEST: le 0 (bx+2)*(by+2)*(bz+0) 2048
// MANIFEST: le 0 s3 bx*gx
// MANIFEST-NEXT: le 0 s3 s5
// MANIFEST-NEXT: le 0 s4 by*gy
// MANIFEST: dead 0 0.1 covered
// The pitch is the width: no width guard.
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_1_0_1 2
// MANIFEST: le 0 (bx+0)*(by+1)*(bz+0) 2048
// MANIFEST-NEXT: le 0 s3 bx*gx
// MANIFEST-NEXT: le 0 s4 by*gy
// MANIFEST-NEXT: launch
// The box's reads of q span nine rows of three planes: a footprint longer
// than the runtime compiles is left out (the runtime then takes q's whole
// allocation).
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_8_0_1 2
// MANIFEST: le 0 (bx+2)*(by+2)*(bz+2) 2048
// MANIFEST-NOT: footprint 1.0
// MANIFEST: footprint 1.1 w
// 3-D: planes of w*h cells.
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_10_0_1 2
// MANIFEST: le 0 (bx+0)*(by+0)*(bz+2) 2048
// MANIFEST-NEXT: le 0 s2 bx*gx
// MANIFEST-NEXT: le 0 s3 by*gy
// MANIFEST-NEXT: le 0 s4 bz*gz
