/* Fakes of every function in the kf__cuda table, backed by fake_state_t. */
#include "tests/unit/fake_cuda.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/site.h"

fake_state_t fake;
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local enum cudaStreamCaptureMode fake_mode = cudaStreamCaptureModeGlobal;
static pthread_t fake_capture_thread;

static void fake_violate(const char *name)
{
  pthread_mutex_lock(&fake_lock);
  fake.violations++;
  fake.invalidated = 1;
  if (fake.violation == NULL)
    fake.violation = name;
  pthread_mutex_unlock(&fake_lock);
}

/* A potentially unsafe call (allocation, synchronisation, module loading):
 * prohibited while a global capture runs anywhere, or a thread-local one in
 * this thread, unless this thread is in relaxed mode. Nonzero: violated. */
static int fake_unsafe(const char *name)
{
  if (!fake.capturing || fake.capture_mode == cudaStreamCaptureModeRelaxed ||
      fake_mode == cudaStreamCaptureModeRelaxed)
    return 0;
  if (fake.capture_mode == cudaStreamCaptureModeThreadLocal && !pthread_equal(pthread_self(), fake_capture_thread))
    return 0;
  fake_violate(name);
  return 1;
}

static int fake_is_legacy(const void *s) { return s == NULL || s == (const void *)CU_STREAM_LEGACY; }

/* Stream work other than a launch on @p s: 0 run it, 1 recorded into the
 * capture (not run), -1 a violation (a synchronisation of the capturing
 * stream, or anything on the legacy stream while a blocking stream captures). */
static int fake_stream_work(const void *s, const char *name, int sync)
{
  if (!fake.capturing)
    return 0;
  if (fake_is_legacy(s) || (sync && s == fake.capture_stream)) {
    fake_violate(name);
    return -1;
  }
  if (s == fake.capture_stream) {
    pthread_mutex_lock(&fake_lock);
    fake.captured_ops++;
    pthread_mutex_unlock(&fake_lock);
    return 1;
  }
  return 0;
}

#define FAKE_LIBRARY ((CUlibrary)(uintptr_t)0x1000)
#define FAKE_OTHER_LIBRARY ((CUlibrary)(uintptr_t)0x2000)
#define FAKE_MODULE ((CUmodule)(uintptr_t)0x3000)

/* Kernel and function handles are 1 + index into fake.kernels (originals)
 * or 0x100 + index into fake.fused. */
static int fake_kernel_index(const void *stub)
{
  for (int i = 0; i < fake.nkernels; i++)
    if (fake.kernels[i].stub == stub)
      return i;
  return -1;
}

static cudaError_t fake_cudaGetKernel(cudaKernel_t *k, const void *stub)
{
  int i = fake_kernel_index(stub);
  pthread_mutex_lock(&fake_lock);
  fake.calls_get_kernel++;
  pthread_mutex_unlock(&fake_lock);
  if (fake.module_path || i < 0)
    return fake.last_error = cudaErrorInvalidDeviceFunction;
  *k = (cudaKernel_t)(uintptr_t)(1 + i);
  return cudaSuccess;
}

static cudaError_t fake_cudaGetFuncBySymbol(cudaFunction_t *f, const void *stub)
{
  int i = fake_kernel_index(stub);
  if (i < 0)
    return fake.last_error = cudaErrorInvalidDeviceFunction;
  *f = (cudaFunction_t)(uintptr_t)(1 + i);
  return cudaSuccess;
}

static CUresult fake_cuKernelGetLibrary(CUlibrary *lib, CUkernel k)
{
  int i = (int)(uintptr_t)k - 1;
  *lib = fake.kernels[i].other_library ? FAKE_OTHER_LIBRARY : FAKE_LIBRARY;
  return CUDA_SUCCESS;
}

static CUresult fake_cuFuncGetModule(CUmodule *mod, CUfunction f)
{
  (void)f;
  *mod = FAKE_MODULE;
  return CUDA_SUCCESS;
}

static CUresult fake_name(const char **name, uintptr_t h)
{
  if (h >= 1 && h <= (uintptr_t)fake.nkernels) {
    *name = fake.kernels[h - 1].name;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_HANDLE;
}

static CUresult fake_cuKernelGetName(const char **name, CUkernel k) { return fake_name(name, (uintptr_t)k); }
static CUresult fake_cuFuncGetName(const char **name, CUfunction f) { return fake_name(name, (uintptr_t)f); }

static CUresult fake_global_lookup(CUdeviceptr *dptr, size_t *bytes, const char *name, int ours)
{
  if (!ours)
    return CUDA_ERROR_NOT_FOUND;
  for (int i = 0; i < fake.nmore; i++)
    if (strcmp(name, fake.more[i].symbol) == 0) {
      *dptr = (CUdeviceptr)(uintptr_t)fake.more[i].text;
      *bytes = strlen(fake.more[i].text) + 1;
      return CUDA_SUCCESS;
    }
  if (fake.manifest == NULL ||
      strcmp(name, fake.manifest_symbol != NULL ? fake.manifest_symbol : "__kfuse_manifest") != 0)
    return CUDA_ERROR_NOT_FOUND;
  *dptr = (CUdeviceptr)(uintptr_t)fake.manifest;
  *bytes = fake.manifest_bytes ? fake.manifest_bytes : strlen(fake.manifest) + 1;
  return CUDA_SUCCESS;
}

static CUresult fake_global(CUdeviceptr *dptr, size_t *bytes, const char *name, int ours)
{
  CUresult res = fake_global_lookup(dptr, bytes, name, ours);
  if (res == CUDA_ERROR_NOT_FOUND) {
    pthread_mutex_lock(&fake_lock);
    fake.global_misses++;
    pthread_mutex_unlock(&fake_lock);
  }
  return res;
}

static CUresult fake_cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary lib, const char *name)
{
  if (fake_unsafe("cuLibraryGetGlobal"))
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (fake.global_result != CUDA_SUCCESS)
    return fake.global_result;
  return fake_global(dptr, bytes, name, lib == FAKE_LIBRARY);
}

static CUresult fake_cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule mod, const char *name)
{
  if (fake_unsafe("cuModuleGetGlobal"))
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (fake.global_result != CUDA_SUCCESS)
    return fake.global_result;
  return fake_global(dptr, bytes, name, mod == FAKE_MODULE);
}

static CUresult fake_fused_handle(uintptr_t *h, const char *name)
{
  for (int i = 0; i < fake.nfused; i++)
    if (strcmp(fake.fused[i].name, name) == 0) {
      *h = 0x100 + (uintptr_t)i;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

static CUresult fake_cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name)
{
  uintptr_t h = 0;
  CUresult r = lib == FAKE_LIBRARY ? fake_fused_handle(&h, name) : CUDA_ERROR_NOT_FOUND;
  *k = (CUkernel)h;
  return r;
}

static CUresult fake_cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name)
{
  uintptr_t h = 0;
  CUresult r = mod == FAKE_MODULE ? fake_fused_handle(&h, name) : CUDA_ERROR_NOT_FOUND;
  *f = (CUfunction)h;
  return r;
}

static CUresult fake_cuKernelGetFunction(CUfunction *f, CUkernel k)
{
  if (fake_unsafe("cuKernelGetFunction"))
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  *f = (CUfunction)k;
  return CUDA_SUCCESS;
}

static CUresult fake_cuFuncLoad(CUfunction f)
{
  (void)f;
  if (fake_unsafe("cuFuncLoad"))
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  pthread_mutex_lock(&fake_lock);
  fake.preloads++;
  pthread_mutex_unlock(&fake_lock);
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamCreate(CUstream *s, unsigned int flags)
{
  (void)flags;
  if (fake_unsafe("cuStreamCreate"))
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  pthread_mutex_lock(&fake_lock);
  *s = (CUstream)(uintptr_t)(0x7000 + ++fake.streams_created);
  pthread_mutex_unlock(&fake_lock);
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamDestroy(CUstream s)
{
  (void)s;
  pthread_mutex_lock(&fake_lock);
  fake.streams_destroyed++;
  pthread_mutex_unlock(&fake_lock);
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamSynchronize(CUstream s)
{
  if (fake_unsafe("cuStreamSynchronize") || fake_stream_work(s, "cuStreamSynchronize", 1) < 0)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *status)
{
  *status = CU_STREAM_CAPTURE_STATUS_NONE;
  pthread_mutex_lock(&fake_lock);
  fake.calls_is_capturing++;
  pthread_mutex_unlock(&fake_lock);
  if (fake.is_capturing_result != CUDA_SUCCESS)
    return fake.is_capturing_result;
  if (fake.capturing && fake_is_legacy(s))
    return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  if (fake.capturing && s == fake.capture_stream)
    *status = fake.invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
  int w;
  if (fake_unsafe("cuMemcpyDtoHAsync") || (w = fake_stream_work(s, "cuMemcpyDtoHAsync", 0)) < 0)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (fake.copy_result != CUDA_SUCCESS)
    return fake.copy_result;
  if (w == 0)
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

static cudaError_t fake_cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
  enum cudaStreamCaptureMode old = fake_mode;
  fake_mode = *mode;
  *mode = old;
  return cudaSuccess;
}

static CUresult fake_cuMemGetAddressRange(CUdeviceptr *base, size_t *size, CUdeviceptr ptr)
{
  pthread_mutex_lock(&fake_lock);
  fake.calls_range++;
  pthread_mutex_unlock(&fake_lock);
  if (fake_unsafe("cuMemGetAddressRange"))
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  for (int i = 0; i < fake.nallocs; i++)
    if (ptr >= fake.allocs[i].base && ptr < fake.allocs[i].base + fake.allocs[i].size) {
      if (base != NULL)
        *base = fake.allocs[i].base;
      if (size != NULL)
        *size = fake.allocs[i].size;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

static void fake_record(const fake_record_t *r)
{
  pthread_mutex_lock(&fake_lock);
  if (fake.nlog < (int)(sizeof fake.log / sizeof fake.log[0]))
    fake.log[fake.nlog++] = *r;
  pthread_mutex_unlock(&fake_lock);
}

static cudaError_t fake_cudaLaunchKernel(const void *stub, dim3 grid, dim3 block, void **args, size_t shmem,
                                         cudaStream_t stream)
{
  int i = fake_kernel_index(stub);
  fake_record_t r;
  memset(&r, 0, sizeof r);
  r.name = i >= 0 ? fake.kernels[i].name : "?";
  r.grid[0] = grid.x, r.grid[1] = grid.y, r.grid[2] = grid.z;
  r.block[0] = block.x, r.block[1] = block.y, r.block[2] = block.z;
  r.shmem = shmem;
  r.stream = stream;
  r.args[0] = args != NULL ? args[0] : NULL;
  r.argv = args;
  r.captured = fake.capturing && stream == fake.capture_stream;
  if (fake.capturing && fake_is_legacy(stream)) {
    fake_violate("cudaLaunchKernel on the legacy stream");
    return fake.last_error = cudaErrorStreamCaptureImplicit;
  }
  if (r.captured && fake.invalidated)
    return fake.last_error = cudaErrorStreamCaptureInvalidated;
  fake_record(&r);
  if (fake.launch_result != cudaSuccess)
    return fake.last_error = fake.launch_result;
  if (r.captured)
    return cudaSuccess;
  if (i >= 0 && fake.kernels[i].body != NULL)
    fake.kernels[i].body(args, r.grid, r.block);
  return cudaSuccess;
}

static CUresult fake_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                    unsigned bz, unsigned shmem, CUstream stream, void **params, void **extra)
{
  int i = (int)((uintptr_t)f - 0x100);
  fake_record_t r;
  (void)extra;
  if (fake.fused_result != CUDA_SUCCESS)
    return fake.fused_result;
  if (fake.capturing && fake_is_legacy(stream)) {
    fake_violate("cuLaunchKernel on the legacy stream");
    return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  }
  if (fake.capturing && stream == fake.capture_stream && fake.invalidated)
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  memset(&r, 0, sizeof r);
  r.fused = 1;
  r.captured = fake.capturing && stream == fake.capture_stream;
  r.name = fake.fused[i].name;
  r.grid[0] = gx, r.grid[1] = gy, r.grid[2] = gz;
  r.block[0] = bx, r.block[1] = by, r.block[2] = bz;
  r.shmem = shmem;
  r.stream = stream;
  r.nargs = fake.fused[i].nparams;
  for (uint32_t p = 0; p < r.nargs && p < 16; p++)
    r.args[p] = params[p];
  memcpy(&r.dead_mask, params[r.nargs], sizeof r.dead_mask);
  fake_record(&r);
  if (!r.captured && fake.fused[i].body != NULL)
    fake.fused[i].body(params, r.grid, r.block);
  return CUDA_SUCCESS;
}

static cudaError_t fake_cudaGetLastError(void)
{
  cudaError_t e = fake.last_error;
  fake.last_error = cudaSuccess;
  return e;
}

static cudaError_t fake_cudaPeekAtLastError(void)
{
  return fake.last_error;
}

static cudaError_t fake_cudaMalloc(void **p, size_t bytes)
{
  if (fake_unsafe("cudaMalloc"))
    return fake.last_error = cudaErrorStreamCaptureUnsupported;
  *p = malloc(bytes);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

static cudaError_t fake_cudaFree(void *p)
{
  if (fake_unsafe("cudaFree"))
    return fake.last_error = cudaErrorStreamCaptureUnsupported;
  free(p);
  return cudaSuccess;
}

static cudaError_t fake_cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                                        cudaStream_t s)
{
  int w;
  (void)kind;
  if (fake_unsafe("cudaMemcpyAsync") || (w = fake_stream_work(s, "cudaMemcpyAsync", 0)) < 0)
    return fake.last_error = cudaErrorStreamCaptureUnsupported;
  if (w == 0)
    memmove(dst, src, bytes);
  return cudaSuccess;
}

static cudaError_t fake_cudaStreamSynchronize(cudaStream_t s)
{
  if (fake_unsafe("cudaStreamSynchronize") || fake_stream_work(s, "cudaStreamSynchronize", 1) < 0)
    return fake.last_error = cudaErrorStreamCaptureUnsupported;
  return cudaSuccess;
}

static cudaError_t fake_cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t s)
{
  int w = fake_stream_work(s, "cudaMemsetAsync", 0);
  if (w < 0)
    return fake.last_error = cudaErrorStreamCaptureImplicit;
  if (w == 0)
    memset(dst, value, bytes);
  return cudaSuccess;
}

static CUresult fake_cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t n, CUstream s)
{
  int w = fake_stream_work(s, "cuMemsetD32Async", 0);
  if (w < 0)
    return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  for (size_t i = 0; i < n && w == 0; i++)
    memcpy((char *)(uintptr_t)dst + 4 * i, &value, 4);
  return CUDA_SUCCESS;
}

void fake_reset(void)
{
  static void *table[KF__CU_COUNT];
  memset(&fake, 0, sizeof fake);
  memset(table, 0, sizeof table);
  fake_mode = cudaStreamCaptureModeGlobal;
#define FAKE_SET(name) table[KF__CU_##name] = (void *)fake_##name;
  FAKE_SET(cudaLaunchKernel)
  FAKE_SET(cudaGetLastError)
  FAKE_SET(cudaPeekAtLastError)
  FAKE_SET(cudaGetKernel)
  FAKE_SET(cudaGetFuncBySymbol)
  FAKE_SET(cudaMalloc)
  FAKE_SET(cudaFree)
  FAKE_SET(cudaMemcpyAsync)
  FAKE_SET(cudaStreamSynchronize)
  FAKE_SET(cudaMemsetAsync)
  FAKE_SET(cuMemsetD32Async)
  FAKE_SET(cudaThreadExchangeStreamCaptureMode)
  FAKE_SET(cuKernelGetLibrary)
  FAKE_SET(cuKernelGetName)
  FAKE_SET(cuLibraryGetGlobal)
  FAKE_SET(cuLibraryGetKernel)
  FAKE_SET(cuFuncGetModule)
  FAKE_SET(cuFuncGetName)
  FAKE_SET(cuModuleGetGlobal)
  FAKE_SET(cuModuleGetFunction)
  FAKE_SET(cuKernelGetFunction)
  FAKE_SET(cuFuncLoad)
  FAKE_SET(cuStreamCreate)
  FAKE_SET(cuStreamDestroy)
  FAKE_SET(cuStreamSynchronize)
  FAKE_SET(cuStreamIsCapturing)
  FAKE_SET(cuMemcpyDtoHAsync)
  FAKE_SET(cuMemGetAddressRange)
  FAKE_SET(cuLaunchKernel)
#undef FAKE_SET
  kf__cuda_install(table);
  kf__rt_test_reset();
}

void fake_kernel(const void *stub, const char *name, fake_body_t body)
{
  fake.kernels[fake.nkernels].stub = stub;
  fake.kernels[fake.nkernels].name = name;
  fake.kernels[fake.nkernels].body = body;
  fake.nkernels++;
}

void fake_fused(const char *name, uint32_t nparams, fake_body_t body)
{
  fake.fused[fake.nfused].name = name;
  fake.fused[fake.nfused].nparams = nparams;
  fake.fused[fake.nfused].body = body;
  fake.nfused++;
}

void fake_alloc(const void *base, size_t size)
{
  fake.allocs[fake.nallocs].base = (uint64_t)(uintptr_t)base;
  fake.allocs[fake.nallocs].size = size;
  fake.nallocs++;
}

void fake_begin_capture(void *stream, enum cudaStreamCaptureMode mode)
{
  fake.capturing = 1;
  fake.capture_stream = stream;
  fake.capture_mode = mode;
  fake.invalidated = 0;
  fake_capture_thread = pthread_self();
}

int fake_end_capture(void)
{
  int n = 0;
  fake.capturing = 0;
  for (int i = 0; i < fake.nlog; i++)
    n += fake.log[i].captured;
  return n;
}

void fake_replay(void)
{
  for (int i = 0; i < fake.nlog; i++) {
    fake_record_t *r = &fake.log[i];
    if (!r->captured)
      continue;
    if (r->fused) {
      void *params[17];
      for (uint32_t p = 0; p < r->nargs && p < 16; p++)
        params[p] = r->args[p];
      params[r->nargs] = &r->dead_mask;
      for (int k = 0; k < fake.nfused; k++)
        if (strcmp(fake.fused[k].name, r->name) == 0 && fake.fused[k].body != NULL)
          fake.fused[k].body(params, r->grid, r->block);
    } else {
      for (int k = 0; k < fake.nkernels; k++)
        if (strcmp(fake.kernels[k].name, r->name) == 0 && fake.kernels[k].body != NULL)
          fake.kernels[k].body(r->argv, r->grid, r->block);
    }
  }
}

enum cudaStreamCaptureMode fake_thread_mode(void)
{
  return fake_mode;
}
