/* kfuse-bench's mapped-f-derived workload, in a translation unit of its own
 * (namespace KB_NS like kfuse_bench_workloads.cu): the mapped function as a
 * program writes it, one thread per instance, each routine marked
 * kfuse_impl with that one implementation. The implementations with more
 * threads per instance that mapped-f-impl's translation unit has written
 * by hand (mfi_mmul33_9, ...) the device pass derives here from the
 * one-thread kernels (DeriveImpl.cpp), and the planner chooses among them
 * with the same psi tables (KB_PSI). A kernel marked in the other unit is
 * not an implementation in this one: each unit's device code is compiled
 * and fused on its own. */
#include "kfuse_bench.h"
#include "kfuse_example.h"

namespace KB_NS {

/* The routines' device functions; the header's kernels, which
 * kfuse_bench_workloads.cu defines too, get a namespace of their own. */
namespace mfd {
#include "mapped_f_kernels.h"
}
using namespace mfd;

static unsigned grid_for(int n, int block) { return (unsigned)((n + block - 1) / block); }

__global__ KFUSE_IMPL("mmul33", 1) void mfd_mmul33(const float *A, const float *B, float *AB, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_mmul33_at(A, B, AB, i);
}
__global__ KFUSE_IMPL("mvmul33", 1) void mfd_mvmul33(const float *AB, const float *v, float *ABv,
                                                    int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_mvmul33_at(AB, v, ABv, i);
}
__global__ KFUSE_IMPL("norm3", 1) void mfd_norm3(const float *ABv, float *nrm, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_norm3_at(ABv, nrm, i);
}
__global__ KFUSE_IMPL("mmul55", 1) void mfd_mmul55(const float *C, const float *D, float *CD, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_mmul55_at(C, D, CD, i);
}
__global__ KFUSE_IMPL("madd55", 1) void mfd_madd55(const float *CD, const float *C, float *CDC, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_madd55_at(CD, C, CDC, i);
}
__global__ KFUSE_IMPL("smmul55", 1) void mfd_smmul55(const float *nrm, const float *CDC, float *F,
                                                    int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_smmul55_at(nrm, CDC, F, i);
}

void mapped_f_derived_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *const *i = (const float *const *)in;
  float *AB, *ABv, *nrm, *CD, *CDC;
  size_t bytes = (size_t)n * sizeof(float);
  cudaMallocAsync(&AB, 9 * bytes, s), cudaMallocAsync(&ABv, 3 * bytes, s);
  cudaMallocAsync(&nrm, bytes, s), cudaMallocAsync(&CD, 25 * bytes, s);
  cudaMallocAsync(&CDC, 25 * bytes, s);
  unsigned g = grid_for(n, block);
  mfd_mmul33<<<g, block, 0, s>>>(i[0], i[1], AB, n);
  mfd_mvmul33<<<g, block, 0, s>>>(AB, i[2], ABv, n);
  mfd_norm3<<<g, block, 0, s>>>(ABv, nrm, n);
  mfd_mmul55<<<g, block, 0, s>>>(i[3], i[4], CD, n);
  mfd_madd55<<<g, block, 0, s>>>(CD, i[3], CDC, n);
  mfd_smmul55<<<g, block, 0, s>>>(nrm, CDC, (float *)out[0], n);
  cudaFreeAsync(AB, s), cudaFreeAsync(ABv, s), cudaFreeAsync(nrm, s);
  cudaFreeAsync(CD, s), cudaFreeAsync(CDC, s);
}

} // namespace KB_NS
