#include <cuda_runtime.h>
#define KM __global__ __attribute__((annotate("kfuse_map")))
struct S12 { float a, b, c; };
struct S16 { int a, b, c, d; };
struct Big { double v[8]; };
struct F2 { float2 f; };
KM void kb(bool b, char c, short s, double d, float *o) { o[0] = b + c + s + d; }
KM void ks(S12 x, S16 y, Big z, float2 w, float *o) { o[0] = x.a + y.a + z.v[0] + w.x; }
void run(float *o, S12 x, S16 y, Big z, float2 w, bool b, cudaStream_t s) {
  kb<<<1, 32>>>(b, 'c', 3, 1.5, o);
  ks<<<dim3(4,5,6), 32, 64, s>>>(x, y, z, w, o);
}
