// Kernels whose thread loops a constant number of times over elements of
// its own, in loops the compiler kept (ThreadLoops.cpp): the analysis reads
// a copy with the loops unrolled, and the fused kernel clones it; launched
// alone the kernels keep their loops.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// The same PTX from a second compile.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S %s -o %t.again.ptx
// RUN: cmp %t.ptx %t.again.ptx
// No unrolled copy is left in the module.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o %t.ll
// RUN: not grep -q 'kfuse.unrolled' %t.ll
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.ll
// -kfuse-record-vector-copy=0: 4-byte words, no alignment guard.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -mllvm -kfuse-record-vector-copy=0 -Rpass=kfuse %s -o %t.scalar.ll 2>%t.scalar.remarks
// RUN: cat %t.scalar.remarks %t.scalar.ll | FileCheck %s --check-prefix=SCALAR
// -kfuse-unroll-limit=0 unrolls nothing; a small limit refuses the larger loops.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-unroll-limit=0 -Rpass-missed=kfuse %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-unroll-limit=40 -Rpass-missed=kfuse %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

// Each thread owns 16 consecutive values.
KMAP void bell(const float *x, float *t, int n) {
  IDX;
  if (i < n)
#pragma unroll 1
    for (int k = 0; k < 16; k++) t[16 * i + k] = 0.5f * x[16 * i + k] * x[16 * i + k] + 1.f;
}
KMAP void blend(const float *t, const float *y, float *o, int n) {
  IDX;
  if (i < n)
#pragma unroll 1
    for (int k = 0; k < 16; k++) o[16 * i + k] = t[16 * i + k] * y[16 * i + k] + t[16 * i + k];
}
// REMARK-DAG: remark: kernel 'bell(float const*, float*, int)': 128 bytes and {{[0-9]+}} flops per element; analysed and fused with its loop of constant trip count unrolled (launched alone, it keeps it)
// REMARK-DAG: remark: kernel 'blend(float const*, float const*, float*, int)': 192 bytes and 32 flops per element; analysed and fused with its loop of constant trip count unrolled
// REMARK-DAG: remark: fused launches 0..1 (bell, blend) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers
// The block moves the 64-byte records through shared memory in 16-byte
// words, each record in 80 bytes of the tile (an odd number of words: no
// bank conflicts when each thread copies its own): 256 instances, 20480
// bytes. The words need each buffer's start 16-byte aligned, which the
// runtime checks (`align`); without the vector copy, 4-byte words and 68
// bytes a record.
// REMARK-DAG: remark: __kfuse_fused_{{[0-9a-f]+}}_0_0_1: records of x (64 bytes), y (64 bytes) loaded and of t (64 bytes), o (64 bytes) stored by consecutive threads through shared memory (20480 bytes per block), in 16-byte words: the runtime checks x, t, y and o 16-byte aligned, and runs the original launches where they are not [-Rpass=kfuse]
// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_0_1 2\0Akernel 0 _Z4bellPKfPfi 3\0Akernel 1 _Z5blendPKfS0_Pfi 4\0Ashape same\0Astream same\0Adynshmem 0\0Aalign 0.0 16\0Aalign 0.1 16\0Aalign 1.1 16\0Aalign 1.2 16\0Alaunch 0 0 0\0A
// SCALAR: remark: __kfuse_fused_{{[0-9a-f]+}}_0_0_1: records of x (64 bytes), y (64 bytes) loaded and of t (64 bytes), o (64 bytes) stored by consecutive threads through shared memory (17408 bytes per block) [-Rpass=kfuse]
// SCALAR-NOT: align 0.0
void blocked(const float *x, float *t, const float *y, float *o, int n) {
  bell<<<(n + 255) / 256, 256>>>(x, t, n);
  blend<<<(n + 255) / 256, 256>>>(t, y, o, n);
}

// Two nested loops: an element's 8 nodes at each of its 8 points.
KMAP void integrate(const float *u, const float *w, float *s, int n) {
  IDX;
  if (i >= n)
    return;
  float acc = 0.f;
#pragma unroll 1
  for (int q = 0; q < 8; q++) {
    float uq = 0.f;
#pragma unroll 1
    for (int a = 0; a < 8; a++)
      uq += w[8 * q + a] * u[8 * i + a];
    acc += uq;
  }
  s[i] = acc;
}
KMAP void scale(const float *s, float *r, int n) { IDX; if (i < n) r[i] = 0.5f * s[i]; }
// REMARK-DAG: remark: kernel 'integrate(float const*, float const*, float*, int)': {{[0-9]+}} bytes and {{[0-9]+}} flops per element; analysed and fused with its 2 loops of constant trip count unrolled (launched alone, it keeps them)
// REMARK-DAG: remark: fused launches 0..1 (integrate, scale) of sequence 1 into {{.*}}: s in registers
// Two 16-byte words a record, padded to three in the tile (48 bytes).
// REMARK-DAG: remark: __kfuse_fused_{{[0-9a-f]+}}_1_0_1: records of u (32 bytes) loaded by consecutive threads through shared memory (12288 bytes per block)
void element(const float *u, const float *w, float *s, float *r, int n) {
  integrate<<<(n + 127) / 128, 128>>>(u, w, s, n);
  scale<<<(n + 127) / 128, 128>>>(s, r, n);
}

// A grid-stride loop with a loop over the point's 3 components inside.
KMAP void axpy3(const float *p, const float *q, float *v, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
#pragma unroll 1
    for (int c = 0; c < 3; c++) v[3 * i + c] = 2.f * p[3 * i + c] + q[3 * i + c];
}
KMAP void twice3(const float *v, float *o, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
#pragma unroll 1
    for (int c = 0; c < 3; c++) o[3 * i + c] = v[3 * i + c] + v[3 * i + c];
}
// REMARK-DAG: remark: fused launches 0..1 (axpy3, twice3) of sequence 2 into {{.*}}: v in registers
void vectors(const float *p, const float *q, float *v, float *o, int n) {
  axpy3<<<528, 256>>>(p, q, v, n);
  twice3<<<528, 256>>>(v, o, n);
}

// A trip count known only at run time: not unrolled; the thread loops over
// a record of its own of m elements, which fuses where every launch of a
// group loops over the same elements (component-loops.cu).
KMAP void runtime_trips(const float *x, float *t, int n, int m) {
  IDX;
  if (i < n)
    for (int k = 0; k < m; k++) t[m * i + k] = 2.f * x[m * i + k];
}
// REMARK-DAG: remark: kernel 'runtime_trips(float const*, float*, int, int)': 8 bytes and 1 flops per element; loops over its own elements of parameter 1 ('x'), parameter 2 ('t') (m a thread, a number only the launch knows

// A product of one trip added in the next: unrolled, LLVM could contract
// the two where ptxas, given the loop, may not; the kernel is not fused.
KMAP void carried(const float *x, float *t, int n) {
  IDX;
  if (i < n) {
    float s = 0.f, p = 0.f;
#pragma unroll 1
    for (int k = 0; k < 8; k++) {
      s = s + p;
      p = x[8 * i + k] * x[8 * i + k];
      t[8 * i + k] = s;
    }
  }
}
// REMARK-DAG: remark: kernel 'carried(float const*, float*, int)' cannot be fused: a product computed in one trip of a loop is added in another trip or outside the loop (through a variable or an array); kfuse fuses such loops unrolled, and ptxas, given the loop, may contract the two into one FMA or not, so a fused kernel could not promise the same bits: keep each trip's multiply and add in the same trip
// So through an array, and from before the loop into it.
KMAP void staged(const float *x, float *t, int n) {
  IDX;
  if (i >= n)
    return;
  float r[8];
#pragma unroll 1
  for (int k = 0; k < 8; k++) r[k] = x[8 * i + k] * 2.f;
#pragma unroll 1
  for (int k = 0; k < 8; k++) t[8 * i + k] = r[7 - k] + r[k];
}
KMAP void hoisted(const float *x, float *t, float a, float b, int n) {
  IDX;
  if (i >= n)
    return;
  const float base = a * b;
#pragma unroll 1
  for (int k = 0; k < 8; k++) t[8 * i + k] = base + x[8 * i + k];
}
// A product used in a multiply of a later trip is no crossing into an add.
KMAP void weighted(const float *x, float *t, float a, float b, int n) {
  IDX;
  if (i >= n)
    return;
  const float w = a * b;
#pragma unroll 1
  for (int k = 0; k < 8; k++) t[8 * i + k] = w * x[8 * i + k] + 1.f;
}
// REMARK-DAG: remark: kernel 'staged(float const*, float*, int)' cannot be fused: a product computed in one trip of a loop is added in another trip or outside the loop
// REMARK-DAG: remark: kernel 'hoisted(float const*, float*, float, float, int)' cannot be fused: a product computed in one trip of a loop is added in another trip or outside the loop
// REMARK-DAG: remark: kernel 'weighted(float const*, float*, float, float, int)': 64 bytes and {{[0-9]+}} flops per element; analysed and fused with its loop of constant trip count unrolled
void others(const float *x, float *t, float *u, float *v, float *w, float *z, int n, int m) {
  runtime_trips<<<(n + 255) / 256, 256>>>(x, t, n, m);
  carried<<<(n + 255) / 256, 256>>>(t, u, n);
  staged<<<(n + 255) / 256, 256>>>(u, v, n);
  hoisted<<<(n + 255) / 256, 256>>>(v, w, 2.f, 3.f, n);
  weighted<<<(n + 255) / 256, 256>>>(w, z, 2.f, 3.f, n);
}

// The kernels, launched alone, keep their loops; the fused kernel is there.
// PTX: .entry _Z4bellPKfPfi(
// PTX: .entry _Z5blendPKfS0_Pfi(
// PTX: .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// Its block copies move 16-byte words, and so does each thread's copy of
// its own record out of the tile.
// PTX: ld.global.nc.v4.b32
// PTX: st.shared.v4.b32
// PTX: ld.shared.v4.b32
// PTX: st.global.v4.b32

// OFF: remark: kernel 'bell(float const*, float*, int)' cannot be fused: has a non-affine or unknown index (store through parameter 2 ('t')); it varies in a loop that is not a grid-stride loop
// LIMIT: remark: kernel 'bell(float const*, float*, int)' cannot be fused: {{.*}}; its loops of constant trip count, which kfuse unrolls in the copy it fuses, would take about {{[0-9]+}} instructions unrolled, more than -mllvm -kfuse-unroll-limit=40
