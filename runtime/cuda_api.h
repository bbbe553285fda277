/* The one door to CUDA: an enum-indexed table of the runtime and driver
 * functions libkfuse_rt calls, so tests can replace every one with a fake. */
#ifndef KFUSE_RUNTIME_CUDA_API_H
#define KFUSE_RUNTIME_CUDA_API_H

/* Types only: every call goes through kf__cuda, never to these headers'
 * functions directly (cuda_api.c is the one exception). */
#include <cuda.h>
#include <cuda_runtime_api.h>

/* RT(name): a runtime function, taken directly from libcudart_static.
 * DRV(name): a driver function, resolved on first use through
 * cudaGetDriverEntryPointByVersion (so programs need no -lcuda). Names are the
 * unversioned ones; cuda.h maps e.g. cuMemcpyDtoHAsync to the _v2 prototype, which
 * is also the ABI the entry-point query returns. */
#define KF__CUDA_MAP(RT, DRV)                                                 \
  RT(cudaGetDriverEntryPointByVersion)                                        \
  RT(cudaLaunchKernel)                                                        \
  RT(cudaGetLastError)                                                        \
  RT(cudaPeekAtLastError)                                                     \
  RT(cudaGetKernel)                                                           \
  RT(cudaGetFuncBySymbol)                                                     \
  RT(cudaMalloc)                                                              \
  RT(cudaFree)                                                                \
  RT(cudaMemcpyAsync)                                                         \
  RT(cudaStreamSynchronize)                                                   \
  RT(cudaMemsetAsync)                                                         \
  RT(cudaThreadExchangeStreamCaptureMode)                                     \
  DRV(cuKernelGetLibrary)                                                     \
  DRV(cuKernelGetName)                                                        \
  DRV(cuLibraryGetGlobal)                                                     \
  DRV(cuLibraryGetKernel)                                                     \
  DRV(cuFuncGetModule)                                                        \
  DRV(cuFuncGetName)                                                          \
  DRV(cuModuleGetGlobal)                                                      \
  DRV(cuModuleGetFunction)                                                    \
  DRV(cuKernelGetFunction)                                                    \
  DRV(cuFuncLoad)                                                             \
  DRV(cuStreamCreate)                                                         \
  DRV(cuStreamDestroy)                                                        \
  DRV(cuStreamSynchronize)                                                    \
  DRV(cuStreamIsCapturing)                                                    \
  DRV(cuMemcpyDtoHAsync)                                                      \
  DRV(cuMemGetAddressRange)                                                   \
  DRV(cuMemsetD32Async)                                                       \
  DRV(cuLaunchKernel)

typedef enum kf__cuda_fn {
#define KF__CUDA_ENUM(name) KF__CU_##name,
  KF__CUDA_MAP(KF__CUDA_ENUM, KF__CUDA_ENUM)
#undef KF__CUDA_ENUM
  KF__CU_COUNT
} kf__cuda_fn_t;

/** The table, indexed by kf__cuda_fn_t. Read it through KF__CU(). */
extern void *kf__cuda[KF__CU_COUNT];

/**
 * @returns the function for @p fn, resolving a driver entry point on first
 * use; NULL when the driver does not provide it (callers treat that as a
 * failed CUDA call). Thread-safe; after the first resolution it is one
 * atomic load.
 */
void *kf__cuda_get(kf__cuda_fn_t fn);

/** @returns the exported name of @p fn ("cuLaunchKernel"), "?" out of range. */
const char *kf__cuda_name(kf__cuda_fn_t fn);

/**
 * Test hook: replaces the whole table with @p fakes (KF__CU_COUNT entries,
 * NULL meaning "the driver lacks this function"; nothing is resolved lazily
 * afterwards). NULL restores the real functions. Not thread-safe: call it
 * while no launch is in flight.
 */
void kf__cuda_install(void *const *fakes);

/** The typed function for @p name, e.g. KF__CU(cuLaunchKernel)(...); may be NULL. */
#define KF__CU(name) ((__typeof__(&name))kf__cuda_get(KF__CU_##name))

#endif
