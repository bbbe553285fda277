// Buffers whose addresses are fields of a struct passed by value, and
// pointers a device lambda captures (the fields of its closure): the
// device pass analyses and fuses each kernel through a copy that takes those
// fields as pointer parameters after its own, the manifest's `field` lines
// tell the runtime where each lies in the launch's argument, and the Clang
// plugin names each field's value (`fields=` in the sequence record), so a
// buffer a lambda captures, a struct holds and another launch passes is one
// buffer to the guards and to forwarding.
// REQUIRES: cuda
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Xclang -disable-llvm-passes %s -o - \
// RUN:   | grep -o 'kfuse.seq 1[^"]*' | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=RECORD
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: grep '^@__kfuse_manifest' %t.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S %s -o %t.ptx 2>/dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=%cuda_arch %t.ptx -o /dev/null %}
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -c -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.o 2>%t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-host-only -S -emit-llvm %s -o - | FileCheck %s --check-prefix=HOSTIR
// HOST-NOT: cannot be read

#define KMAP __global__ __attribute__((kfuse_map))

// A kernel templated on a device lambda, launched with two lambdas in a row.
template <class F> KMAP void for_each(int n, F f)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) f(i); }

void lambdas(const float *x, float *t, const float *y, float *o, float a, int n) {
  for_each<<<(n + 255) / 256, 256>>>(n, [=] __device__(int i) { t[i] = a * x[i]; });
  for_each<<<(n + 255) / 256, 256>>>(n, [=] __device__(int i) { o[i] = t[i] + y[i]; });
}
// Each capture is the value of the variable it copies: t is value 5 in both
// closures, at byte 0 of the first and byte 8 of the second.
// RECORD-LABEL: site {{.*}} _Z7lambdasPKfPfS0_S1_fi
// RECORD: launch 0 {{.*}} args=0,4 fields=1+0:5,1+16:6
// RECORD: launch 1 {{.*}} args=0,7 fields=1+0:8,1+8:5,1+16:9
// RECORD: value 5 ptr t
// RECORD: value 6 ptr x
// REMARK-DAG: remark: fused launches 0..1 (for_each<lambdas({{.*}})::'lambda'(int)>, for_each<lambdas({{.*}})::'lambda0'(int)>) of sequence {{[0-9]+}} into __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1: t in registers
// MANIFEST-LABEL: group __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1 2
// MANIFEST-NEXT: kernel 0 _Z8for_eachIZ7lambdasPKfPfS1_S2_fiEUliE_EviT_ 2
// MANIFEST-NEXT: kernel 1 _Z8for_eachIZ7lambdasPKfPfS1_S2_fiEUliE0_EviT_ 2
// MANIFEST-NEXT: field 0.2 1 0
// MANIFEST-NEXT: field 0.3 1 16
// MANIFEST-NEXT: field 1.2 1 0
// MANIFEST-NEXT: field 1.3 1 8
// MANIFEST-NEXT: field 1.4 1 16
// MANIFEST: equal 0.2 1.3
// MANIFEST: footprint 0.2 w 0 min(4*bx*gx,4*s0)
// MANIFEST: disjoint 0.2 0.3
// MANIFEST: at 0 2 {{[0-9]+}}:{{[0-9]+}} _Z7lambdasPKfPfS0_S1_fi
// The fused kernel takes each launch's parameters, then its fields.
// PTX-LABEL: .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// PTX-NEXT: .param .u32 {{.*}}_param_0,
// PTX-NEXT: .param .align 8 .b8 {{.*}}_param_1[24],
// PTX-NEXT: .param .u64 .ptr .align 1 {{.*}}_param_2,
// PTX-NEXT: .param .u64 .ptr .align 1 {{.*}}_param_3,
// PTX-NEXT: .param .u32 {{.*}}_param_4,
// PTX-NEXT: .param .align 8 .b8 {{.*}}_param_5[24],
// HOST-DAG: remark: handed 2 launches (for_each<lambdas({{.*}})::'lambda'(int)>, for_each<lambdas({{.*}})::'lambda0'(int)>) to the runtime, which runs launches 0..1 as __kfuse_fused_

// The same through a launch helper, with a lambda declared between the
// launches (making a closure runs nothing).
template <class F> void launch(int n, F f) { for_each<<<(n + 255) / 256, 256>>>(n, f); }
void helpers(const float *x, float *t, const float *y, float *o, float a, int n) {
  launch(n, [=] __device__(int i) { t[i] = a * x[i]; });
  auto g = [=] __device__(int i) { o[i] = t[i] + y[i]; };
  launch(n, g);
}
// RECORD-LABEL: site {{.*}} _Z7helpersPKfPfS0_S1_fi
// RECORD: launch 0 {{.*}} fields=1+0:[[T:[0-9]+]],1+16:{{[0-9]+}}
// RECORD: launch 1 {{.*}} fields=1+0:{{[0-9]+}},1+8:[[T]],1+16:{{[0-9]+}}
// REMARK-DAG: remark: fused launches 0..1 (for_each<helpers({{.*}})::'lambda'(int)>, for_each<helpers({{.*}})::'lambda0'(int)>) of sequence {{[0-9]+}} into __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1: t in registers
// HOST-DAG: remark: handed 2 launches (for_each<helpers({{.*}})::'lambda'(int)>, for_each<helpers({{.*}})::'lambda0'(int)>) to the runtime

// A struct of buffers passed whole, and one of its fields passed alone.
struct State { const float *x; float *t; float *o; int n; float a; };
KMAP void s1(State s)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < s.n) s.t[i] = s.a * s.x[i]; }
KMAP void s2(State s, const float *y)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < s.n) s.o[i] = s.t[i] + y[i]; }
KMAP void s3(const float *t, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = t[i] * 2.0f; }
void structs(State s, const float *y, float *z) {
  s1<<<(s.n + 255) / 256, 256>>>(s);
  s2<<<(s.n + 255) / 256, 256>>>(s, y);
  s3<<<(s.n + 255) / 256, 256>>>(s.t, z, s.n);
}
// `s.t` is the field at byte 8 of s, in the struct and alone.
// RECORD-LABEL: site {{.*}} _Z7structs5StatePKfPf
// RECORD: launch 0 {{.*}} args=[[S:[0-9]+]] fields=0+0:{{[0-9]+}},0+8:[[ST:[0-9]+]],0+16:{{[0-9]+}}
// RECORD: launch 1 {{.*}} args=[[S]],{{[0-9]+}} fields=0+0:{{[0-9]+}},0+8:[[ST]],0+16:{{[0-9]+}}
// RECORD: launch 2 {{.*}} args=[[ST]],
// RECORD: value [[ST]] ptr s.t
// REMARK-DAG: remark: fused launches 0..2 (s1, s2, s3) of sequence {{[0-9]+}} into __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_2: s.t in registers
// MANIFEST-LABEL: kernel 0 _Z2s15State 1
// MANIFEST-NEXT: kernel 1 _Z2s25StatePKf 2
// MANIFEST-NEXT: kernel 2 _Z2s3PKfPfi 3
// MANIFEST-NEXT: field 0.1 0 0
// MANIFEST-NEXT: field 0.2 0 8
// MANIFEST-NEXT: field 1.2 0 8
// MANIFEST-NEXT: field 1.3 0 16
// MANIFEST: equal 0.2 1.2
// MANIFEST: equal 0.2 2.0
// HOST-DAG: remark: handed 3 launches (s1, s2, s3) to the runtime

// A struct written as an aggregate: its field is what initialised it.
struct Pair { const float *in; float *out; int n; };
KMAP void twice(Pair p)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < p.n) p.out[i] = 2.0f * p.in[i]; }
KMAP void plus1(const float *u, float *w, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) w[i] = u[i] + 1.0f; }
void aggregate(const float *x, float *u, float *w, int n) {
  Pair p{x, u, n};
  twice<<<(n + 255) / 256, 256>>>(p);
  plus1<<<(n + 255) / 256, 256>>>(u, w, n);
}
// REMARK-DAG: remark: fused launches 0..1 (twice, plus1) of sequence {{[0-9]+}} into __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1: u in registers

// Functors written as aggregates in the launch (`Axpy{a, x, y}`): each
// field is what initialised it, so y, which the first updates and the
// second reads, is one buffer.
struct Axpy { float a; const float *x; float *y;
  __device__ void operator()(int i) const { y[i] = a * x[i] + y[i]; } };
struct Scale { float s; const float *y; float *z;
  __device__ void operator()(int i) const { z[i] = s * y[i]; } };
void functors(const float *x, float *y, float *z, float a, int n) {
  for_each<<<(n + 255) / 256, 256>>>(n, Axpy{a, x, y});
  for_each<<<(n + 255) / 256, 256>>>(n, Scale{2.0f, y, z});
}
// RECORD-LABEL: site {{.*}} _Z8functorsPKfPfS1_fi
// RECORD: launch 0 {{.*}} fields=1+8:[[X:[0-9]+]],1+16:[[Y:[0-9]+]]
// RECORD: launch 1 {{.*}} fields=1+8:[[Y]],1+16:{{[0-9]+}}
// REMARK-DAG: remark: fused launches 0..1 (for_each<Axpy>, for_each<Scale>) of sequence {{[0-9]+}} into __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1: y in registers

// A struct held by an object, launched in place and through helpers that
// take it by const reference: the helpers' grids, (f.n + 255) / 256, are
// one value (the field n of the caller's st_), and so are the fields.
static void run1(const State &f) { s1<<<(f.n + 255) / 256, 256>>>(f); }
static void run2(const State &f, const float *y) { s2<<<(f.n + 255) / 256, 256>>>(f, y); }
class Model {
  State st_;
public:
  void step(const float *y) { run1(st_); run2(st_, y); }
};
void member(Model &m, const float *y) { m.step(y); }
// REMARK-DAG: remark: fused launches 0..1 (s1, s2) of sequence {{[0-9]+}} into __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1: f.t in registers

// Remarks name a field by its byte and struct parameter: a gather through
// a field, which the other launch writes, keeps the pair apart.
struct Gathered { float *h, *u; const int *idx; int n; };
KMAP void gw(Gathered f) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < f.n) f.h[i] = 2.0f * f.u[i]; }
KMAP void gg(Gathered f) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < f.n) f.u[i] = f.h[f.idx[i]]; }
void gathered(Gathered f) {
  gw<<<(f.n + 255) / 256, 256>>>(f);
  gg<<<(f.n + 255) / 256, 256>>>(f);
}
// REMARK-DAG: remark: launches 0..1 (gw, gg) of sequence {{[0-9]+}} at {{.*}} in 'gathered' not fused: buffer 'f.h': launch 1 (gg) reads it at an unknown index (a gather) and launch 0 (gw) writes it
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass-analysis=kfuse %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANALYSIS
// ANALYSIS: remark: kernel 'gg(Gathered)': {{.*}}; gathers (unknown index) through the pointer at byte 0 of parameter 1 ('f')

// What stays refused, with the reason: a kernel that changes its struct,
// and a buffer picked from the struct by a variable.
struct Swap { float *a, *b; int n; };
__device__ __noinline__ void shrink(Swap *s) { s->n -= 1; }
KMAP void swapped(Swap s)
{ int i = blockIdx.x * blockDim.x + threadIdx.x;
  shrink(&s);
  if (i < s.n) s.a[i] = s.b[i]; }
struct Rows { float *r[4]; int n; };
KMAP void picked(Rows r, int k)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < r.n) r.r[k][i] = 0.0f; }
void refused(Swap s, Rows r, float *t, int n) {
  swapped<<<dim3(4, 2), 256>>>(s);
  picked<<<4, 256>>>(r, 1);
  plus1<<<4, 256>>>(t, t, n);
}
// REMARK-DAG: remark: kernel 'swapped(Swap)' cannot be fused: accesses a buffer whose address is a field of by-value parameter 1 ('s'), a Swap, which the kernel changes; kfuse reads buffers from the fields of structs that the kernel only reads
// REMARK-DAG: remark: kernel 'picked(Rows, int)' cannot be fused: accesses a buffer whose address is a field of by-value parameter 1 ('r'), a Rows, at a byte that varies; kfuse reads buffers from fields at constant bytes (r.a, not r.a[k] with k a variable)

// A temporary that only lambdas capture, freed after the run: the host pass
// finds the pointers stored into each closure, proves t dead and lists every
// such pointer in the site's field table (the runtime also reads them to see
// which buffers a run's later launches get); the device pass gives t a `dead`
// line, whose bit the runtime sets from the table.
#include <cuda_runtime.h>
void temporaries(const float *x, const float *y, float *o, float a, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  for_each<<<(n + 255) / 256, 256>>>(n, [=] __device__(int i) { t[i] = a * x[i]; });
  for_each<<<(n + 255) / 256, 256>>>(n, [=] __device__(int i) { o[i] = t[i] + y[i]; });
  cudaFree(t);
}
// MANIFEST-LABEL: kernel 0 _Z8for_eachIZ11temporariesPKfS1_PffiEUliE_EviT_ 2
// MANIFEST: field 0.2 1 0
// MANIFEST: dead 0 0.2 covered
// HOST-DAG: remark: the buffer of the pointer at byte 0 of parameter 2 ('f') of launch 0 (for_each<temporaries({{.*}})::'lambda'(int)>) and the pointer at byte 8 of parameter 2 ('f') of launch 1 (for_each<temporaries({{.*}})::'lambda0'(int)>) is dead after the run: it is freed or lost before anything reads it
// HOSTIR: = private global %kfuse.site { {{.*}}, i32 5, ptr @kfuse.fields{{[.0-9]*}} }
// HOSTIR: @kfuse.fields{{[.0-9]*}} = private constant [5 x %kfuse.fieldptr] [%kfuse.fieldptr { i32 0, i32 1, i32 0, i32 1 }, %kfuse.fieldptr { i32 0, i32 1, i32 16, i32 0 }, %kfuse.fieldptr { i32 1, i32 1, i32 0, i32 0 }, %kfuse.fieldptr { i32 1, i32 1, i32 8, i32 1 }, %kfuse.fieldptr { i32 1, i32 1, i32 16, i32 0 }]
