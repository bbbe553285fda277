/* ldst_order: a micro-benchmark (not a test) of one GPU hazard that fused
 * code can hit: in a warp whose lanes split between loading elements of a
 * buffer and storing other elements of the same lines, the stores wait for
 * the loads in flight when the loads issue first (bench/HISTORY.md, GPU run 13).
 * Each kernel is one variant of forwarding.cu's two_stores -> store_then_read
 * group written by hand; 16M floats, 256 threads per block, median of 20
 * event-timed runs after 5 warm-ups. Every kernel takes the dead mask (0)
 * so that one loop times them all; only G and H read it. Build here, run on
 * the GPU machine:
 *   clang++-22 -x cuda --cuda-path=/usr/local/cuda --cuda-gpu-arch=sm_90 \
 *     -Wno-unknown-cuda-version -O2 bench/ldst_order.cu -o ldst_order \
 *     -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lpthread */
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

// Every variant has this signature and stops threads past n.
#define KERNEL(name)                                                                        \
  __global__ void name(const float *x, const float *y, float *t, float *o, int n,             \
                       unsigned long long dead)
#define INDEX                                                                              \
  int i = blockIdx.x * blockDim.x + threadIdx.x;                                           \
  if (i >= n)                                                                              \
    return

// The producer, two_stores: t[i] = 2v where v > 0.5, v - 3 where v < -0.5;
// returns the value stored and sets st where it stored.
__device__ __forceinline__ float produce(float v, float *t, int i, bool &st) {
  float r = 0;
  if (v > 0.5f) { r = v * 2.0f; t[i] = r; st = true; }
  if (v < -0.5f) { r = v - 3.0f; t[i] = r; st = true; }
  return r;
}

// A: producer stores, the consumer store, then the fallback load (store first).
KERNEL(kA) {
  INDEX;
  bool st = false; float v = x[i], r = produce(v, t, i, st);
  float w = y[i];
  if (w < 0.0f) { t[i] = w; r = w; } else if (!st) r = t[i];
  o[i] = r + 1.0f;
}
// B: the fallback load before the consumer's store.
KERNEL(kB) {
  INDEX;
  bool st = false; float v = x[i], r = produce(v, t, i, st);
  float w = y[i];
  if (!(w < 0.0f) && !st) r = t[i];
  if (w < 0.0f) { t[i] = w; r = w; }
  o[i] = r + 1.0f;
}
// C: the fallback load first of all (before the producer's stores), when it may be needed.
KERNEL(kC) {
  INDEX;
  float v = x[i]; float w = y[i];
  float m = (!(v > 0.5f) && !(v < -0.5f) && !(w < 0.0f)) ? t[i] : 0.0f;
  float r = m;
  if (v > 0.5f) { r = v * 2.0f; t[i] = r; }
  if (v < -0.5f) { r = v - 3.0f; t[i] = r; }
  if (w < 0.0f) { t[i] = w; r = w; }
  o[i] = r + 1.0f;
}
// D: no producer stores; consumer store then load (the unfused consumer's order).
KERNEL(kD) {
  INDEX;
  float w = y[i];
  if (w < 0.0f) t[i] = w;
  o[i] = t[i] + 1.0f;
}
// E: producer stores, then load of t where not stored, no consumer store (fused_0-like).
KERNEL(kE) {
  INDEX;
  bool st = false; float v = x[i], r = produce(v, t, i, st);
  float w = y[i];
  if (!st) r = t[i];
  if (w > 0.0f) t[i] = r + w;
  o[i] = r * 0.5f;
}
// F: A with only one producer store (v > 0.5).
KERNEL(kF) {
  INDEX;
  float v = x[i]; float r = 0; bool st = false;
  if (v > 0.5f) { r = v * 2.0f; t[i] = r; st = true; }
  float w = y[i];
  if (w < 0.0f) { t[i] = w; r = w; } else if (!st) r = t[i];
  o[i] = r + 1.0f;
}

__device__ __forceinline__ float ld_cg(const float *p) { float v; asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory"); return v; }
// B with the fallback load through the non-coherent path.
KERNEL(kBnc) {
  INDEX;
  bool st = false; float v = x[i], r = produce(v, t, i, st);
  float w = y[i];
  if (!(w < 0.0f) && !st) r = __ldg(&t[i]);
  if (w < 0.0f) { t[i] = w; r = w; }
  o[i] = r + 1.0f;
}
// B with the fallback load cached in L2 only.
KERNEL(kBcg) {
  INDEX;
  bool st = false; float v = x[i], r = produce(v, t, i, st);
  float w = y[i];
  if (!(w < 0.0f) && !st) r = ld_cg(&t[i]);
  if (w < 0.0f) { t[i] = w; r = w; }
  o[i] = r + 1.0f;
}
// B without the producer's stores: is the in-flight conflict alone enough?
KERNEL(kBnp) {
  INDEX;
  float v = x[i]; float r = 0; bool st = v > 0.5f || v < -0.5f;
  float w = y[i];
  if (!(w < 0.0f) && !st) r = t[i];
  if (w < 0.0f) { t[i] = w; r = w; }
  o[i] = r + 1.0f;
}
// The unfused store_then_read written load-first: o = t + 1 read before the store.
KERNEL(kDrev) {
  INDEX;
  float w = y[i];
  float r = w < 0.0f ? w : t[i];
  if (w < 0.0f) t[i] = w;
  o[i] = r + 1.0f;
}
// G: A with the store behind a uniform test of a dead-mask bit, as the
// fused kernel has it.
KERNEL(kG) {
  INDEX;
  float v = x[i]; float r = 0; bool st = false;
  if (v > 0.5f) { r = v * 2.0f; if (!(dead & 1)) t[i] = r; st = true; }
  if (v < -0.5f) { r = v - 3.0f; if (!(dead & 1)) t[i] = r; st = true; }
  float w = y[i];
  if (w < 0.0f) { if (!(dead & 1)) t[i] = w; r = w; } else if (!st) r = t[i];
  o[i] = r + 1.0f;
}
// H: G with the dead bit folded into the consumer store's condition.
KERNEL(kH) {
  INDEX;
  float v = x[i]; float r = 0; bool st = false;
  if (v > 0.5f) { r = v * 2.0f; if (!(dead & 1)) t[i] = r; st = true; }
  if (v < -0.5f) { r = v - 3.0f; if (!(dead & 1)) t[i] = r; st = true; }
  float w = y[i];
  bool keep = !(dead & 1);
  if (w < 0.0f && keep) t[i] = w;
  r = w < 0.0f ? w : (st ? r : t[i]);
  o[i] = r + 1.0f;
}
// S2: the fallback load made unconditional where it stands (the else side
// of the consumer's own diamond): `flag ? slot : load` as a select.
KERNEL(kS2) {
  INDEX;
  bool st = false; float v = x[i], r = produce(v, t, i, st);
  float w = y[i];
  if (w < 0.0f) { t[i] = w; r = w; } else { float m = t[i]; r = st ? r : m; }
  o[i] = r + 1.0f;
}
__device__ __forceinline__ float ld_plain(const float *p) { float v; asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory"); return v; }
// S3: the consumer's load where the unfused consumer has it, after its own
// store, in every lane (the store not forwarded to it).
KERNEL(kS3) {
  INDEX;
  bool st = false; float v = x[i], r = produce(v, t, i, st);
  float w = y[i];
  if (w < 0.0f) t[i] = w;
  float m = ld_plain(&t[i]);
  r = w < 0.0f ? w : (st ? r : m);
  o[i] = r + 1.0f;
}
// S4: an unconditional load of t before any store of the group.
KERNEL(kS4) {
  INDEX;
  float m = t[i];
  bool st = false; float v = x[i], r = produce(v, t, i, st);
  float w = y[i];
  if (w < 0.0f) { t[i] = w; r = w; } else r = st ? r : m;
  o[i] = r + 1.0f;
}
// S5: the fallback load right after the producer's stores, before the
// consumer reads y (where the producer's "stored" flag is final).
KERNEL(kS5) {
  INDEX;
  bool st = false; float v = x[i], r = produce(v, t, i, st);
  if (!st) r = t[i];
  float w = y[i];
  if (w < 0.0f) { t[i] = w; r = w; }
  o[i] = r + 1.0f;
}
typedef void (*K)(const float *, const float *, float *, float *, int, unsigned long long);
int main() {
  const int n = 1 << 24; size_t b = n * sizeof(float);
  std::vector<float> h(n); unsigned s = 1;
  for (auto &e : h) { s = s * 1664525u + 1013904223u; e = (s >> 8) * (4.0f / 16777216.0f) - 2.0f; }
  float *x, *y, *t, *t0, *o; cudaMalloc(&x, b); cudaMalloc(&y, b); cudaMalloc(&t, b); cudaMalloc(&t0, b); cudaMalloc(&o, b);
  cudaMemcpy(x, h.data(), b, cudaMemcpyHostToDevice); std::reverse(h.begin(), h.end());
  cudaMemcpy(y, h.data(), b, cudaMemcpyHostToDevice); cudaMemcpy(t0, h.data(), b, cudaMemcpyHostToDevice);
  K ks[] = {kA, kB, kC, kD, kE, kF, kBnc, kBcg, kBnp, kDrev, kG, kH, kS2, kS3, kS4, kS5};
  const char *names[] = {"A store, then load", "B load, then store", "C load first",
                         "D consumer only (store, load)", "E load, then dependent store",
                         "F one producer store", "B with ld.global.nc", "B with ld.global.cg",
                         "B without producer stores", "D load-first (select)",
                         "G store behind a dead-bit test", "H dead bit folded into the condition",
                         "S2 fallback load as a select", "S3 load after the store, every lane",
                         "S4 unconditional load before every store", "S5 fallback load after the producer"};
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int k = 0; k < (int)(sizeof ks / sizeof *ks); k++) {
    std::vector<float> ms;
    for (int r = 0; r < 25; r++) {
      cudaMemcpy(t, t0, b, cudaMemcpyDeviceToDevice);
      cudaEventRecord(e0); ks[k]<<<n / 256, 256>>>(x, y, t, o, n, 0); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float m; cudaEventElapsedTime(&m, e0, e1); if (r >= 5) ms.push_back(m);
    }
    std::sort(ms.begin(), ms.end());
    printf("%-40s median %.1f us\n", names[k], ms[ms.size() / 2] * 1000);
  }
  cudaError_t err = cudaGetLastError(); printf("status %s\n", cudaGetErrorString(err));
}
