// Remarks a user can read: kernels and host functions demangled, each
// refusal at the line that causes it (the store, the call, the asm) where
// clang tracks locations (-g, or the location tracking -Rpass turns on),
// parameters counted from 1 and named where the IR keeps names, and a run
// handed to the runtime not announced as fused.
// REQUIRES: cuda
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -g --cuda-device-only -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o /dev/null 2> %t.g
// RUN: FileCheck %s --check-prefixes=DEV,NUM < %t.g
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-device-only -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o /dev/null 2> %t.nog
// RUN: FileCheck %s --check-prefixes=DEV,NUM < %t.nog
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -fno-discard-value-names --cuda-device-only -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o /dev/null 2> %t.names
// RUN: FileCheck %s --check-prefixes=DEV,NAMED < %t.names
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 --cuda-host-only -S -emit-llvm -Rpass=kfuse %s -o /dev/null 2> %t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host
// Both sides: the host pass reads the device plan from the fatbinary.
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -c -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.o 2> %t.both
// RUN: FileCheck %s --check-prefix=BOTH < %t.both

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

namespace img {
template <typename T> KMAP void scale(const T *x, T *t, int n) { IDX; if (i < n) t[i] = x[i] * T(2); }
template <typename T> KMAP void square(const T *t, T *o, int n) { IDX; if (i < n) o[i] = t[i] * t[i]; }
} // namespace img

// The store with the index that is no polynomial.
KMAP void rows(const float *a, float *b, int nx, int ny)
{ int id = blockIdx.x * blockDim.x + threadIdx.x, row = id / (nx + 4), col = id % (nx + 4);
  if (row < ny && col < nx) b[row * nx + col] = a[id]; }
// DEV: remarks.cu:[[@LINE-1]]:47: remark: kernel 'rows(float const*, float*, int, int)' cannot be fused: has a non-affine or unknown index
// NUM-SAME: (store through parameter 2 ('b')); write the index as a polynomial in the thread and block indices
// NAMED-SAME: (store through parameter 2 ('b')); write the index as a polynomial in the thread and block indices

// The call that stays a call and gets a pointer: recursive, so that it
// stays one even in the kernel's copy with its helpers inlined.
__device__ __noinline__ float first(const float *p, int d) { return d ? p[0] + 0.5f * first(p + 1, d - 1) : 0.0f; }
KMAP void calls(const float *x, float *t, int n)
{ IDX;
  if (i < n) t[i] = first(x + i, i & 3); }
// DEV: remarks.cu:[[@LINE-1]]:21: remark: kernel 'calls(float const*, float*, int)' cannot be fused: passes pointer parameter 1
// NAMED-SAME: ('x') to 'first(float const*, int)', which is not inlined

// The asm statement.
KMAP void fenced(const float *x, float *t, int n)
{ IDX;
  if (i < n) {
    asm volatile("membar.gl;");
    t[i] = x[i]; } }
// DEV: remarks.cu:[[@LINE-2]]:5: remark: kernel 'fenced(float const*, float*, int)' cannot be fused: has inline asm that uses 'membar.gl'

void pipeline(const float *x, float *t, float *o, int n)
{
  img::scale<<<(n + 255) / 256, 256>>>(x, t, n);
  img::square<<<(n + 255) / 256, 256>>>(t, o, n);
}
// DEV: remark: fused launches 0..1 (img::scale<float>, img::square<float>) of sequence {{[0-9]+}} into __kfuse_fused_{{.*}}
// A run of which nothing fuses: the device side says why, and so does the
// host side when it has the device plan (alone, it hands the launches over).
void refused(const float *a, float *b, float *c, int n)
{
  rows<<<(n + 255) / 256, 256>>>(a, b, n, 1);
  img::square<<<(n + 255) / 256, 256>>>(b, c, n);
}
// DEV: remark: launches 0..1 (rows, img::square<float>) of sequence {{[0-9]+}} at {{.*}}remarks.cu:[[@LINE-3]]:{{[0-9]+}} in 'refused' not fused: kernel 'rows' cannot be fused
// HOST: remarks.cu:[[@LINE-12]]:3: remark: handed 2 launches (img::scale<float>, img::square<float>) to the runtime, which runs them fused where the device code has a fused kernel for them, else one by one
// HOST: remarks.cu:[[@LINE-5]]:3: remark: handed 2 launches (rows, img::square<float>) to the runtime, which runs them fused where the device code has a fused kernel for them
// BOTH: remarks.cu:[[@LINE-14]]:3: remark: handed 2 launches (img::scale<float>, img::square<float>) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_{{[0-9]+}}_0_1 when the guards hold at run time, else one by one
// BOTH: remarks.cu:[[@LINE-7]]:3: remark: 2 launches (rows, img::square<float>) left as they are: the device code has no fused kernel for them; launches 0..1 not fused: kernel 'rows' cannot be fused: has a non-affine or unknown index (store through parameter 2 ('b'))
