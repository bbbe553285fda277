#define K __global__ __attribute__((annotate("kfuse_map")))
#define I int i = blockIdx.x * blockDim.x + threadIdx.x
K void scale(const float *x, float *t, float a, int n) { I; if (i < n) t[i] = a * x[i]; }
K void axpy(const float *t, const float *y, float *o, int n) { I; if (i < n) o[i] = t[i] + y[i]; }
K void addone(const float *t, float *o, int n) { I; if (i < n) o[i] = t[i] + 1.0f; }
K void rev(const float *t, float *o, int n) { I; int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x); if (i < n && j < n) o[i] = t[j]; }
K void shift(const float *t, float *o, int n) { I; if (i + 1 < n) o[i] = t[i + 1]; }
K void accum(const float *t, float *o, int n) { I; if (i < n) atomicAdd(o, t[i]); }
K void gather(const int *idx, const float *t, float *o, int n) { I; if (i < n) o[i] = t[idx[i]]; }
K void mirror(const float *t, float *o, int n) { I; if (i < n) o[n - 1 - i] = t[i]; }
__device__ __attribute__((noinline)) float helper(float v) { return v * v + 1.0f; }
K void callk(const float *t, float *o, int n) { I; if (i < n) o[i] = helper(t[i]); }
