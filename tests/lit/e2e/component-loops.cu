// A thread that loops over a record of its own whose length only the
// launch knows, as codes with a run-time number of components per point
// write it (`for (c = 0; c < ncomp; c++) v[i * ncomp + c]`, ndof per node,
// species per cell). LLVM unrolls such a loop four times behind a remainder
// loop; the device pass reads a copy of the kernel made before it did
// (RolledLoops.h), in which each access runs over Coef * g + Rest + Step *
// k for k < Count. A buffer a launch writes so fuses where every launch of
// the group loops over the same elements; it stays in memory, each thread
// reading back what it wrote, and a guard checks that the records of two
// threads do not meet (Coef >= Step * Count). Another index or another
// count is refused with a remark.
// REQUIRES: cuda
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: grep '^@__kfuse_manifest' %t.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S %s -o %t.ptx 2>/dev/null
// RUN: %ptxas -arch=%cuda_arch %t.ptx -o /dev/null
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -c -Rpass=kfuse %s -o %t.o 2>%t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

KMAP void comp_scale(const double *u, double *v, double s, int n, int ncomp)
{
  IDX;
  if (i < n)
    for (int c = 0; c < ncomp; c++)
      v[i * ncomp + c] = s * u[i * ncomp + c];
}
KMAP void comp_add(const double *v, const double *w, double *o, int n, int ncomp)
{
  IDX;
  if (i < n)
    for (int c = 0; c < ncomp; c++)
      o[i * ncomp + c] = v[i * ncomp + c] + w[i * ncomp + c];
}
// REMARK-DAG: kernel 'comp_scale(double const*, double*, double, int, int)': 16 bytes and 1 flops per element; loops over its own elements of parameter 1 ('u'), parameter 2 ('v') (ncomp a thread, a number only the launch knows; fused where every launch of a group loops over the same elements, which then stay in memory); analysed and fused through a copy with its loop of a run-time trip count rolled
void components(const double *u, double *v, const double *w, double *o, int n, int ncomp)
{
  comp_scale<<<(n + 255) / 256, 256>>>(u, v, 0.5, n, ncomp);
  comp_add<<<(n + 255) / 256, 256>>>(v, w, o, n, ncomp);
}
// REMARK-DAG: fused launches 0..1 (comp_scale, comp_add) of sequence [[COMP:[0-9]+]] into __kfuse_fused_{{[0-9a-f]+}}_[[COMP]]_0_1: no carried buffer
// HOST-DAG: handed 2 launches (comp_scale, comp_add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1 when
// The records of two threads do not meet: Step * Count <= Coef; v stays in
// memory (no `dead` line: every store is kept).
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1 2
// MANIFEST: le 0 8*s4 8*s4
// The footprint runs from the first thread's record to the last's, up or
// down as the sign of the records' stride has it (a read-only buffer gets
// no guard).
// MANIFEST: footprint 0.1 w min(0,(8*s4)*(max(bx*gx,1)-1)) max(0,(8*s4)*(max(bx*gx,1)-1))+8*(max(s4,1)-1)+8{{$}}
// MANIFEST-NOT: dead
// MANIFEST: end

// Another count: the second launch loops over fewer elements.
void counts(const double *u, double *v, const double *w, double *o, int n, int ncomp)
{
  comp_scale<<<(n + 255) / 256, 256>>>(u, v, 0.5, n, ncomp);
  comp_add<<<(n + 255) / 256, 256>>>(v, w, o, n, ncomp - 1);
}
// REMARK-DAG: launches 0..1 (comp_scale, comp_add) of sequence {{[0-9]+}} at {{.*}} in 'counts' not fused: buffer 'v': launch 0 (comp_scale) writes it in a loop over the thread's elements, {{.*}} and launch 1 (comp_add) reads it at another index, over another count or as another type

// Another index: the next component.
KMAP void comp_shift(const double *v, double *o, int n, int ncomp)
{
  IDX;
  if (i < n)
    for (int c = 0; c < ncomp; c++)
      o[i * ncomp + c] = v[i * ncomp + c + 1];
}
void shifted(const double *u, double *v, double *o, int n, int ncomp)
{
  comp_scale<<<(n + 255) / 256, 256>>>(u, v, 0.5, n, ncomp);
  comp_shift<<<(n + 255) / 256, 256>>>(v, o, n, ncomp);
}
// REMARK-DAG: launches 0..1 (comp_scale, comp_shift) of sequence {{[0-9]+}} at {{.*}} in 'shifted' not fused: buffer 'v': launch 0 (comp_scale) writes it in a loop over the thread's elements, {{.*}} and launch 1 (comp_shift) reads it at another index

// A running sum over the components carries a floating-point value from
// one trip to the next: LLVM's unrolled kernel may contract a product of one
// trip with the sum of the next where the rolled loop keeps them apart, so
// the copy is not used and the kernel, whose stores vary in the loop, is not
// fused.
KMAP void comp_prefix(const double *v, double *w, int n, int ncomp)
{
  IDX;
  if (i < n) {
    double s = 0.0;
    for (int c = 0; c < ncomp; c++) {
      s += v[i * ncomp + c] * v[i * ncomp + c];
      w[i * ncomp + c] = s;
    }
  }
}
void prefixes(const double *v, double *w, double *x, int n, int ncomp)
{
  comp_prefix<<<(n + 255) / 256, 256>>>(v, w, n, ncomp);
  comp_prefix<<<(n + 255) / 256, 256>>>(w, x, n, ncomp);
}
// REMARK-DAG: kernel 'comp_prefix(double const*, double*, int, int)' cannot be fused: {{.*}}; a copy with its loop of a run-time trip count rolled is not used: the loop carries a floating-point value from one trip to the next
