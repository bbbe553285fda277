// Rows taken from the linear index by a division that the index does not
// put back together with the remainder, as CloverLeaf's CUDA kernels index
// the arrays one element wider than the rows the grid counts:
//   glob_id = threadIdx.x + blockIdx.x * blockDim.x;
//   row = glob_id / (x_max + 4);  column = glob_id % (x_max + 4);
//   a[glob_id + x + y * (x_max + 4) + (row + y)]   (THARR2D(x, y, 1))
// The offset is 8 * g + 8 * (g / (x_max + 4)) + rest: not a polynomial, but
// it grows with g by at least an element a thread, so each thread has its
// own elements. A buffer a launch writes so fuses where every launch of the
// group accesses it at that same index (forwarded in a register); a
// neighbour's element, or the buffer at another index, is refused with a
// remark. Footprints divide by the row length; a guard checks it positive.
// REQUIRES: cuda
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: grep '^@__kfuse_manifest' %t.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S %s -o %t.ptx 2>/dev/null
// RUN: %ptxas -arch=%cuda_arch %t.ptx -o /dev/null
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -c -Rpass=kfuse %s -o %t.o 2>%t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host

#define KMAP __global__ __attribute__((kfuse_map))
#define INDEXES                                                                \
  const int glob_id = threadIdx.x + blockIdx.x * blockDim.x;                   \
  const int row = glob_id / (x_max + 4);                                       \
  const int column = glob_id % (x_max + 4);
#define THARR2D(x, y, big_row) (glob_id + (x) + (y) * (x_max + 4) + (big_row) * (row + (y)))
#define INSIDE (row <= y_max + 2 && column <= x_max + 2)

KMAP void pre_vol(int x_min, int x_max, int y_min, int y_max, const double *volume,
                  const double *vol_flux_x, double *pre_vol)
{
  INDEXES
  if (INSIDE)
    pre_vol[THARR2D(0, 0, 1)] =
        volume[THARR2D(0, 0, 0)] + vol_flux_x[THARR2D(1, 0, 1)] - vol_flux_x[THARR2D(0, 0, 1)];
}
KMAP void post_vol(int x_min, int x_max, int y_min, int y_max, const double *pre_vol,
                   const double *vol_flux_x, double *post_vol)
{
  INDEXES
  if (INSIDE)
    post_vol[THARR2D(0, 0, 1)] = pre_vol[THARR2D(0, 0, 1)] - vol_flux_x[THARR2D(0, 0, 1)];
}
// REMARK-DAG: kernel 'pre_vol(int, int, int, int, double const*, double const*, double*)': 32 bytes and 2 flops per element; indexes parameter 6 ('vol_flux_x') and parameter 7 ('pre_vol') by a row of its linear index, (blockIdx.x*blockDim.x + threadIdx.x) / (x_max+4), that the index does not put back together with the remainder (fused where every launch of a group accesses such a buffer at that same index)
void volumes(int x_min, int x_max, int y_min, int y_max, const double *volume,
             const double *flux, double *work1, double *work2, int blocks)
{
  pre_vol<<<blocks, 256>>>(x_min, x_max, y_min, y_max, volume, flux, work1);
  post_vol<<<blocks, 256>>>(x_min, x_max, y_min, y_max, work1, flux, work2);
}
// REMARK-DAG: fused launches 0..1 (pre_vol, post_vol) of sequence [[VOL:[0-9]+]] into __kfuse_fused_{{[0-9a-f]+}}_[[VOL]]_0_1: work1 in registers; saves 16 bytes per element
// HOST-DAG: handed 2 launches (pre_vol, post_vol) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1 when
// The second stage reads work1 from the register: three loads in each
// copy of the body (volume, and vol_flux_x at two elements, which both
// stages read), none of work1; the copy for work1 dead has no store of it.
// IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1(
// IR-COUNT-3: load double
// IR-COUNT-2: store double
// IR-COUNT-3: load double
// IR-COUNT-1: store double
// IR-NOT: {{load|store}} double
// IR: {{^}$}}
// The footprints: from the rest (here 0 and the neighbour's 8) to the last
// thread's element, by the row length s1+4; the guard keeps it positive.
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1 2
// MANIFEST: le 0 1 s1+4
// MANIFEST: footprint 0.6 w 0 8*(max(bx*gx,1)-1)+8*((max(bx*gx,1)-1)/(s1+4))+8{{$}}
// MANIFEST: footprint 1.6 w 0 8*(max(bx*gx,1)-1)+8*((max(bx*gx,1)-1)/(s1+4))+8{{$}}
// MANIFEST: dead 0 0.6 covered
// MANIFEST: end

// A later launch reads a neighbour's element (THARR2D(1, 0, 1)) of what the
// first wrote: another thread's, refused.
KMAP void east(int x_min, int x_max, int y_min, int y_max, const double *pre_vol, double *out)
{
  INDEXES
  if (INSIDE)
    out[THARR2D(0, 0, 0)] = pre_vol[THARR2D(1, 0, 1)];
}
void neighbours(int x_min, int x_max, int y_min, int y_max, const double *volume,
                const double *flux, double *work1, double *out, int blocks)
{
  pre_vol<<<blocks, 256>>>(x_min, x_max, y_min, y_max, volume, flux, work1);
  east<<<blocks, 256>>>(x_min, x_max, y_min, y_max, work1, out);
}
// REMARK-DAG: launches 0..1 (pre_vol, east) of sequence {{[0-9]+}} at {{.*}} not fused: buffer 'work1': launch 0 (pre_vol) writes it at a row of its linear index, (blockIdx.x*blockDim.x + threadIdx.x) / (x_max+4), that the index does not put back together with the remainder, and launch 1 (east) reads it at another index or as another type; to fuse, every kernel must access the buffer at the same index, so that each thread reads the elements it wrote itself

// The same buffer read at the cell's plain index (THARR2D(0, 0, 0)).
KMAP void cell(int x_min, int x_max, int y_min, int y_max, const double *pre_vol, double *out)
{
  INDEXES
  if (INSIDE)
    out[THARR2D(0, 0, 0)] = 2.0 * pre_vol[THARR2D(0, 0, 0)];
}
void plain(int x_min, int x_max, int y_min, int y_max, const double *volume, const double *flux,
           double *work1, double *out, int blocks)
{
  pre_vol<<<blocks, 256>>>(x_min, x_max, y_min, y_max, volume, flux, work1);
  cell<<<blocks, 256>>>(x_min, x_max, y_min, y_max, work1, out);
}
// REMARK-DAG: launches 0..1 (pre_vol, cell) of sequence {{[0-9]+}} at {{.*}} not fused: buffer 'work1': launch 0 (pre_vol) writes it at a row of its linear index, {{.*}} and launch 1 (cell) reads it at another index or as another type

// A row scaled by a parameter (`big_row` passed in) is no constant step: the
// kernel is not analysed.
KMAP void scaled(int x_min, int x_max, int y_min, int y_max, int big, double *a)
{
  INDEXES
  if (INSIDE)
    a[THARR2D(0, 0, big)] = 1.0;
}
void scaled_rows(int x_max, int y_max, double *a, double *b, int blocks)
{
  scaled<<<blocks, 256>>>(0, x_max, 0, y_max, 1, a);
  scaled<<<blocks, 256>>>(0, x_max, 0, y_max, 1, b);
}
// REMARK-DAG: kernel 'scaled(int, int, int, int, int, double*)' cannot be fused: has a non-affine or unknown index (store through parameter 6 ('a'))

// A group that recomputes a stage for the elements around each block (a
// halo: smooth reads its neighbours of t) would run that stage for other
// threads' rows too: refused while it writes a buffer at rows.
KMAP void both(int x_min, int x_max, int y_min, int y_max, const double *a, double *t, double *w)
{
  INDEXES
  if (glob_id < (x_max + 4) * (y_max + 4)) {
    t[glob_id] = 2.0 * a[glob_id];
    w[THARR2D(0, 0, 1)] = a[glob_id];
  }
}
KMAP void smooth(int x_min, int x_max, int y_min, int y_max, const double *t, const double *w,
                 double *o)
{
  INDEXES
  if (glob_id > 0 && glob_id + 1 < (x_max + 4) * (y_max + 4))
    o[glob_id] = t[glob_id - 1] + t[glob_id + 1] + w[THARR2D(0, 0, 1)];
}
void halo_rows(int x_max, int y_max, const double *a, double *t, double *w, double *o, int blocks)
{
  both<<<blocks, 256>>>(0, x_max, 0, y_max, a, t, w);
  smooth<<<blocks, 256>>>(0, x_max, 0, y_max, t, w, o);
}
// REMARK-DAG: launches 0..1 (both, smooth) of sequence {{[0-9]+}} at {{.*}} not fused: buffer 'w' is written at a row of the linear index that the index does not put back together or in a loop over the thread's elements, in a group that recomputes a stage for the elements around each block
