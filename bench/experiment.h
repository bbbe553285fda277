// What the standalone GPU experiments of bench/ share: a check of every CUDA
// call, and the median time of a launch by CUDA events after warm-up.
#ifndef KFUSE_BENCH_EXPERIMENT_H
#define KFUSE_BENCH_EXPERIMENT_H

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

/* The median of reps timed runs of launch() on the legacy stream, in ms,
 * after 5 untimed ones. */
template <typename Launch> double median_ms(Launch &&launch, int reps = 30)
{
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 5; i++)
    launch();
  std::vector<float> ms;
  for (int i = 0; i < reps; i++) {
    CK(cudaEventRecord(e0));
    launch();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float m;
    CK(cudaEventElapsedTime(&m, e0, e1));
    ms.push_back(m);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(ms.begin(), ms.end());
  return (double)ms[reps / 2];
}

#endif
