// Halo recomputation (1-D): a consumer reads its producer's values at
// neighbouring elements, t[i-1] and t[i+1], which threads of the next and
// previous blocks store. The fused block recomputes the producer for the
// elements next to its own (the halo) into a shared tile with its own
// elements, synchronises, and runs the consumers from the tile. A producer
// fed by an earlier stage grows that stage's halo: the earlier stage is
// recomputed too, as far as the recomputation reads (three stages of
// stencils: a flux, its difference, the difference's difference). Refused:
// a producer whose inputs a later launch of the group writes (an in-place
// update: recomputing it would read values another block may have
// changed), a producer that reads a special register other than the thread
// and block indices and extents (%laneid), a neighbour farther than 32
// elements. A 2-D neighbour fuses too (lit e2e/halo2d.cu).
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o - \
// RUN:   | grep '^@__kfuse_manifest' | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

KMAP void flux(const float *u, float *f, float c, int n) { IDX; if (i < n) f[i] = c * u[i] * u[i]; }
// The boundary stores and the interior's become one store whose index is a
// phi of `sext i` and `zext nneg i`: the same index on both paths.
KMAP void diff(const float *f, float *d, int n)
{ IDX; if (i >= n) return; if (i == 0 || i == n - 1) d[i] = 0.0f; else d[i] = f[i + 1] - f[i - 1]; }
KMAP void clip(const float *d, float *o, float lo, float hi, int n)
{ IDX; if (i < n) o[i] = d[i] < lo ? lo : (d[i] > hi ? hi : d[i]); }
KMAP void wide(const float *f, float *e, int n) { IDX; if (i >= 2 && i + 3 < n) e[i] = f[i - 2] + f[i + 3]; }
KMAP void update(const float *f, float *u, float dt, int n) { IDX; if (i < n - 1) u[i] -= dt * (f[i + 1] - f[i]); }
KMAP void far(const float *f, float *d, int n) { IDX; if (i + 40 < n) d[i] = f[i + 40]; }
// Checked against m, not the n below which the producer stores: an element
// no thread stores may be read, from memory, as unfused.
KMAP void next_m(const float *f, float *d, int m) { IDX; if (i + 1 < m) d[i] = f[i + 1]; }
KMAP void scale(const float *x, float *u, int n) { IDX; if (i < n) u[i] = 3.0f * x[i]; }
KMAP void lanep(const float *u, float *f, int n) { IDX; if (i < n) f[i] = u[i] + (float)__nvvm_read_ptx_sreg_laneid(); }
KMAP void diff2(const float *d, float *e, int n) { IDX; if (i > 1 && i < n - 2) e[i] = d[i + 1] - d[i - 1]; }
KMAP void fill2d(const float *x, float *q, int w, int h)
{ int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < w && r < h) q[r * w + c] = 2.0f * x[r * w + c]; }
KMAP void lap2d(const float *q, float *l, int w, int h)
{ int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c > 0 && c < w - 1 && r > 0 && r < h - 1)
    l[r * w + c] = q[(r - 1) * w + c] + q[(r + 1) * w + c] - 2.0f * q[r * w + c]; }

void chain(const float *u, float *f, float *d, float *o, int n) {
  int g = (n + 255) / 256;
  flux<<<g, 256>>>(u, f, 0.5f, n);
  diff<<<g, 256>>>(f, d, n);
  clip<<<g, 256>>>(d, o, -1.0f, 1.0f, n);
}
void two(const float *u, float *f, float *d, float *e, int n) {
  flux<<<n / 256, 256>>>(u, f, 0.5f, n);
  diff<<<n / 256, 256>>>(f, d, n);
  wide<<<n / 256, 256>>>(f, e, n);
}
void inplace(float *u, float *f, int n) {
  flux<<<n / 256, 256>>>(u, f, 0.5f, n);
  update<<<n / 256, 256>>>(f, u, 0.1f, n);
}
void toofar(const float *u, float *f, float *d, int n) {
  flux<<<n / 256, 256>>>(u, f, 0.5f, n);
  far<<<n / 256, 256>>>(f, d, n);
}
void unproven(const float *u, float *f, float *d, int n, int m) {
  flux<<<n / 256, 256>>>(u, f, 0.5f, n);
  next_m<<<n / 256, 256>>>(f, d, m);
}
void twod(const float *x, float *q, float *l, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  fill2d<<<g, b>>>(x, q, w, h);
  lap2d<<<g, b>>>(q, l, w, h);
}
void fed(const float *x, float *u, float *f, float *d, int n) {
  scale<<<n / 256, 256>>>(x, u, n);
  flux<<<n / 256, 256>>>(u, f, 0.5f, n);
  diff<<<n / 256, 256>>>(f, d, n);
}
void lane(const float *u, float *f, float *d, int n) {
  lanep<<<n / 256, 256>>>(u, f, n);
  diff<<<n / 256, 256>>>(f, d, n);
}
void stencils(const float *u, float *f, float *d, float *e, int n) {
  flux<<<n / 256, 256>>>(u, f, 0.5f, n);
  diff<<<n / 256, 256>>>(f, d, n);
  diff2<<<n / 256, 256>>>(d, e, n);
}

// REMARK-DAG: remark: fused launches 0..2 (flux, diff, clip) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_2: f through shared memory with a halo of 1 element before and 1 after each block's, recomputed by launch 0 (flux), d in registers, with barriers; saves 12 bytes per element
// The widest reads of all consumers: two before, three after.
// REMARK-DAG: remark: fused launches 0..2 (flux, diff, wide) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_2: f through shared memory with a halo of 2 elements before and 3 after each block's, recomputed by launch 0 (flux), with barriers
// REMARK-DAG: remark: launches 0..1 (flux, update) of sequence 2 at {{.*}} not fused: buffer 'f': later launches read it at neighbouring elements, so launch 0 (flux) would be run again for the elements next to each block's own, but it reads 'u', which a launch of the group writes other than one element per thread before it; recomputing needs inputs that no launch of the group changes, or that an earlier one computes element by element (write the result to another buffer)
// REMARK-DAG: remark: launches 0..1 (flux, far) of sequence 3 at {{.*}} not fused: buffer 'f': launch 1 (far) reads it at byte offset 4*blockDim.x*blockIdx.x+4*threadIdx.x+160, 40 elements from its thread's own; halo fusion recomputes at most 32 elements on each side of a block
// REMARK-DAG: remark: fused launches 0..1 (flux, next_m) of sequence 4 into __kfuse_fused_{{[0-9a-f]+}}_4_0_1: f through shared memory with a halo of 0 elements before and 1 after
// 2-D neighbours: lit e2e/halo2d.cu.
// REMARK-DAG: remark: fused launches 0..1 (fill2d, lap2d) of sequence 5 into __kfuse_fused_{{[0-9a-f]+}}_5_0_1: q through shared memory with a halo of 1 before and 1 after in y around each block's box
// u is computed element by element before flux: scale is recomputed for
// the halo as well.
// REMARK-DAG: remark: fused launches 0..2 (scale, flux, diff) of sequence 6 into __kfuse_fused_{{[0-9a-f]+}}_6_0_2: u through shared memory with a halo of 1 element before and 1 after each block's, recomputed by launch 0 (scale), f through shared memory with a halo of 1 element before and 1 after each block's, recomputed by launch 1 (flux), with barriers
// A producer that reads %laneid would compute other values when another
// thread runs it for a neighbour's element.
// REMARK-DAG: remark: launches 0..1 (lanep, diff) of sequence 7 at {{.*}} not fused: buffer 'f': later launches read it at neighbouring elements, so launch 0 (lanep) would be run again for the elements next to each block's own, by other threads than their own, but it reads %laneid, which would then differ
// Three stages of stencils: d's halo of 1 needs f at 2 on each side.
// REMARK-DAG: remark: fused launches 0..2 (flux, diff, diff2) of sequence 8 into __kfuse_fused_{{[0-9a-f]+}}_8_0_2: f through shared memory with a halo of 2 elements before and 2 after each block's, recomputed by launch 0 (flux), d through shared memory with a halo of 1 element before and 1 after each block's, recomputed by launch 1 (diff), with barriers

// The chain's kernel: diff reads f[i-1] and f[i+1] under `i > 0` and
// `i < n - 1` (the boundary test's false side), flux stores f[i] for every
// i < n: every element read is stored, so the tile has no written flags
// and diff never reads f from memory. The block's own fluxes, then the
// halo's, then the one barrier; diff reads the tile.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_2(
// CHECK: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_0_0_2_$_v{{[0-9]+}}_$_tile[4104];
// CHECK-NOT: written
// CHECK-NOT: bar.sync
// CHECK: st.shared.b32
// CHECK: %nctaid.x
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK-NOT: bar.sync
// CHECK: ld.shared.b32
// CHECK: ret;
// next_m's read of f[i+1] is not proven stored: flags, cleared before a
// first barrier, and a read of memory where the flag is clear.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_4_0_1(
// CHECK: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_4_0_1_$_v{{[0-9]+}}_$_tile[4100];
// CHECK: .shared .align 1 .b8 __kfuse_fused_{{[0-9a-f]+}}_4_0_1_$_v{{[0-9]+}}_$_written[1025];
// CHECK: st.shared.b8 {{.*}}, 0;
// CHECK: bar.sync 0;
// CHECK: st.shared.b8 {{.*}}, 1;
// CHECK: bar.sync 0;
// CHECK: ld.shared.b8
// CHECK: ld.global.b32
// CHECK: ret;

// The recomputing threads, Lo + Hi of them, must fit in the block.
// The three stencils: flux for the block and 2 on each side, a barrier,
// diff for the block and 1 on each side (its recomputation reading f from
// the tile), a barrier, diff2 from d's tile.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_8_0_2(
// CHECK-DAG: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_8_0_2_$_v{{[0-9]+}}_$_tile[4112];
// CHECK-DAG: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_8_0_2_$_v{{[0-9]+}}_$_tile[4104];
// CHECK-NOT: written
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK: ld.shared.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK: ret;

// Exact halos rely on one thread per element below n (s3 of flux); the
// fused kernel never reads f (nor d) from memory: covered, so the runtime
// may skip their stores where they are dead.
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_0_0_2 3
// MANIFEST: le 0 2 bx
// MANIFEST-NEXT: le 0 s3 bx*gx
// MANIFEST: dead 0 0.1 covered
// MANIFEST-NEXT: dead 1 1.1 covered
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_1_0_2 3
// MANIFEST: le 0 5 bx
// MANIFEST-NEXT: le 0 s3 bx*gx
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_4_0_1 2
// MANIFEST: le 0 1 bx
// MANIFEST-NOT: bx*gx
// MANIFEST: launch 0 0 0
// MANIFEST: dead 0 0.1{{$}}
