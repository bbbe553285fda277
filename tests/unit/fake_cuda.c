/* Fakes of every function in the kf__cuda table, backed by fake_state_t. */
#include "tests/unit/fake_cuda.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/site.h"

fake_state_t fake;
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

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

static CUresult fake_global(CUdeviceptr *dptr, size_t *bytes, const char *name, int ours)
{
  if (!ours || fake.manifest == NULL || strcmp(name, "__kfuse_manifest") != 0)
    return CUDA_ERROR_NOT_FOUND;
  *dptr = (CUdeviceptr)(uintptr_t)fake.manifest;
  *bytes = fake.manifest_bytes ? fake.manifest_bytes : strlen(fake.manifest) + 1;
  return CUDA_SUCCESS;
}

static CUresult fake_cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary lib, const char *name)
{
  return fake_global(dptr, bytes, name, lib == FAKE_LIBRARY);
}

static CUresult fake_cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule mod, const char *name)
{
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

static CUresult fake_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes)
{
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemGetAddressRange(CUdeviceptr *base, size_t *size, CUdeviceptr ptr)
{
  pthread_mutex_lock(&fake_lock);
  fake.calls_range++;
  pthread_mutex_unlock(&fake_lock);
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
  fake_record(&r);
  if (fake.launch_result != cudaSuccess)
    return fake.last_error = fake.launch_result;
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
  memset(&r, 0, sizeof r);
  r.fused = 1;
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
  if (fake.fused[i].body != NULL)
    fake.fused[i].body(params, r.grid, r.block);
  return CUDA_SUCCESS;
}

static cudaError_t fake_cudaGetLastError(void)
{
  cudaError_t e = fake.last_error;
  fake.last_error = cudaSuccess;
  return e;
}

static cudaError_t fake_cudaMalloc(void **p, size_t bytes)
{
  *p = malloc(bytes);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

static cudaError_t fake_cudaFree(void *p)
{
  free(p);
  return cudaSuccess;
}

static cudaError_t fake_cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                                        cudaStream_t s)
{
  (void)kind;
  (void)s;
  memmove(dst, src, bytes);
  return cudaSuccess;
}

static cudaError_t fake_cudaStreamSynchronize(cudaStream_t s)
{
  (void)s;
  return cudaSuccess;
}

static cudaError_t fake_cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t s)
{
  (void)s;
  memset(dst, value, bytes);
  return cudaSuccess;
}

static CUresult fake_cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t n, CUstream s)
{
  (void)s;
  for (size_t i = 0; i < n; i++)
    memcpy((char *)(uintptr_t)dst + 4 * i, &value, 4);
  return CUDA_SUCCESS;
}

static cudaError_t fake_cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *status)
{
  (void)s;
  *status = fake.capturing ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

void fake_reset(void)
{
  static void *table[KF__CU_COUNT];
  memset(&fake, 0, sizeof fake);
  memset(table, 0, sizeof table);
#define FAKE_SET(name) table[KF__CU_##name] = (void *)fake_##name;
  FAKE_SET(cudaLaunchKernel)
  FAKE_SET(cudaGetLastError)
  FAKE_SET(cudaGetKernel)
  FAKE_SET(cudaGetFuncBySymbol)
  FAKE_SET(cudaMalloc)
  FAKE_SET(cudaFree)
  FAKE_SET(cudaMemcpyAsync)
  FAKE_SET(cudaStreamSynchronize)
  FAKE_SET(cudaMemsetAsync)
  FAKE_SET(cuMemsetD32Async)
  FAKE_SET(cudaStreamIsCapturing)
  FAKE_SET(cuKernelGetLibrary)
  FAKE_SET(cuKernelGetName)
  FAKE_SET(cuLibraryGetGlobal)
  FAKE_SET(cuLibraryGetKernel)
  FAKE_SET(cuFuncGetModule)
  FAKE_SET(cuFuncGetName)
  FAKE_SET(cuModuleGetGlobal)
  FAKE_SET(cuModuleGetFunction)
  FAKE_SET(cuMemcpyDtoH)
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
