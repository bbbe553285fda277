/* shlib's library: scale then add (map_kernels.h), t forwarded in
 * registers. The library holds its own device code, its own copy of the
 * CUDA runtime and of libkfuse_rt (both static); its site must find the
 * manifest in the library's module, not in the program's, which has
 * kernels of the same names. */
#include "map_kernels.h"
#include "shlib.h"

void shlib_chain(const float *x, const float *y, float *t, float *o, float a, int n, int block,
                 cudaStream_t s)
{
  unsigned grid = (unsigned)((n + block - 1) / block);
  scale<<<grid, block, 0, s>>>(x, t, a, n);
  add<<<grid, block, 0, s>>>(t, y, o, n);
}
