/* The only file of libkfuse_rt that calls CUDA: fills the kf__cuda table
 * with runtime functions and resolves driver entry points lazily. */
#include "runtime/cuda_api.h"

#include <pthread.h>
#include <stddef.h>

#include "runtime/log.h"

void *kf__cuda[KF__CU_COUNT];

static const char *const kf__cuda_names[KF__CU_COUNT] = {
#define KF__CUDA_NAME(name) #name,
  KF__CUDA_MAP(KF__CUDA_NAME, KF__CUDA_NAME)
#undef KF__CUDA_NAME
};

static const unsigned char kf__cuda_is_driver[KF__CU_COUNT] = {
#define KF__CUDA_RT0(name) 0,
#define KF__CUDA_DRV1(name) 1,
  KF__CUDA_MAP(KF__CUDA_RT0, KF__CUDA_DRV1)
#undef KF__CUDA_RT0
#undef KF__CUDA_DRV1
};

/* Set once a driver entry point was asked for and is absent, so a missing
 * function costs one query, not one per call. */
static unsigned char kf__cuda_absent[KF__CU_COUNT];
/* Nonzero while a fake table is installed: nothing is resolved then. */
static int kf__cuda_faked;

static void kf__cuda_fill_runtime(void)
{
#define KF__CUDA_SET_RT(name) kf__cuda[KF__CU_##name] = (void *)&name;
#define KF__CUDA_SKIP(name)
  KF__CUDA_MAP(KF__CUDA_SET_RT, KF__CUDA_SKIP)
#undef KF__CUDA_SET_RT
#undef KF__CUDA_SKIP
}

static pthread_once_t kf__cuda_once = PTHREAD_ONCE_INIT;

static void kf__cuda_init(void)
{
  if (!kf__cuda_faked)
    kf__cuda_fill_runtime();
}

/* Asks the runtime for a driver entry point: first with the ABI of the
 * headers we were built with, then with 12.5, the oldest version that has
 * every function of the table (cuKernelGetLibrary is newer than 12.0). */
static void *kf__cuda_resolve(kf__cuda_fn_t fn)
{
  __typeof__(&cudaGetDriverEntryPointByVersion) query =
      (__typeof__(&cudaGetDriverEntryPointByVersion))
          __atomic_load_n(&kf__cuda[KF__CU_cudaGetDriverEntryPointByVersion], __ATOMIC_ACQUIRE);
  static const unsigned int versions[] = {CUDA_VERSION, 12050};
  if (query == NULL)
    return NULL;
  for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
    void *p = NULL;
    enum cudaDriverEntryPointQueryResult qres = cudaDriverEntryPointSymbolNotFound;
    cudaError_t err = query(kf__cuda_names[fn], &p, versions[i], cudaEnableDefault, &qres);
    if (err == cudaSuccess && qres == cudaDriverEntryPointSuccess && p != NULL)
      return p;
  }
  kf__log(KF__LOG_WARN, "driver entry point %s is not available", kf__cuda_names[fn]);
  return NULL;
}

void *kf__cuda_get(kf__cuda_fn_t fn)
{
  void *p;
  if ((unsigned)fn >= KF__CU_COUNT)
    return NULL;
  p = __atomic_load_n(&kf__cuda[fn], __ATOMIC_ACQUIRE);
  if (p != NULL)
    return p;
  pthread_once(&kf__cuda_once, kf__cuda_init);
  p = __atomic_load_n(&kf__cuda[fn], __ATOMIC_ACQUIRE);
  if (p != NULL || !kf__cuda_is_driver[fn] || kf__cuda_faked ||
      __atomic_load_n(&kf__cuda_absent[fn], __ATOMIC_RELAXED))
    return p;
  /* Two threads may both resolve: they get the same pointer, so the race is
   * harmless and needs no lock. */
  p = kf__cuda_resolve(fn);
  if (p != NULL)
    __atomic_store_n(&kf__cuda[fn], p, __ATOMIC_RELEASE);
  else
    __atomic_store_n(&kf__cuda_absent[fn], 1, __ATOMIC_RELAXED);
  return p;
}

const char *kf__cuda_name(kf__cuda_fn_t fn)
{
  return (unsigned)fn < KF__CU_COUNT ? kf__cuda_names[fn] : "?";
}

void kf__cuda_install(void *const *fakes)
{
  pthread_once(&kf__cuda_once, kf__cuda_init);
  for (int i = 0; i < KF__CU_COUNT; i++) {
    kf__cuda[i] = fakes != NULL ? fakes[i] : NULL;
    kf__cuda_absent[i] = 0;
  }
  kf__cuda_faked = fakes != NULL;
  if (fakes == NULL)
    kf__cuda_fill_runtime();
}
