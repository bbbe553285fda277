/* Recording fakes for the kf__cuda table: kernels are host functions,
 * "device" memory is host memory, launches are logged for the tests. */
#ifndef KFUSE_TESTS_FAKE_CUDA_H
#define KFUSE_TESTS_FAKE_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/cuda_api.h"

#define FAKE_MAX 64

/** A kernel body run on the host: @p args as cudaLaunchKernel receives them. */
typedef void (*fake_body_t)(void **args, const uint32_t grid[3], const uint32_t block[3]);

typedef struct fake_record {
  int fused;              /* 0: cudaLaunchKernel, 1: cuLaunchKernel */
  int captured;           /* recorded into the capture, not run (fake_replay() runs it) */
  void **argv;            /* originals: the argument array, for fake_replay() */
  const char *name;
  uint32_t grid[3], block[3];
  size_t shmem;
  void *stream;
  uint32_t nargs;         /* fused: params without the dead mask */
  void *args[16];
  uint64_t dead_mask;     /* fused only */
} fake_record_t;

typedef struct fake_state {
  /* Kernels the program registered: stub address -> name, param count, body. */
  struct { const void *stub; const char *name; fake_body_t body; int other_library; } kernels[FAKE_MAX];
  int nkernels;
  /* Fused kernels present in the library. */
  struct { const char *name; uint32_t nparams; fake_body_t body; } fused[FAKE_MAX];
  int nfused;
  const char *manifest;     /* NULL: no manifest global */
  size_t manifest_bytes;    /* 0: strlen + 1 */
  const char *manifest_symbol; /* its name; NULL: "__kfuse_manifest" */
  /* More manifests of the same library, by symbol (the files of a
   * -fgpu-rdc program). */
  struct { const char *symbol, *text; } more[4];
  int nmore;
  int module_path;          /* cudaGetKernel fails: only the module path works */
  CUresult fused_result;    /* what cuLaunchKernel returns */
  cudaError_t launch_result; /* what cudaLaunchKernel returns (and records as last error) */
  cudaError_t last_error;
  struct { uint64_t base, size; } allocs[FAKE_MAX];
  int nallocs;
  fake_record_t log[256];
  int nlog;
  int calls_get_kernel; /* cudaGetKernel calls: discovery must run once per site */
  int calls_range;      /* cuMemGetAddressRange calls */
  CUresult global_result; /* what cuLibraryGetGlobal/cuModuleGetGlobal return when not SUCCESS */
  int global_misses;      /* cuLibraryGetGlobal/cuModuleGetGlobal answered NOT_FOUND: an API
                             error compute-sanitizer reports */
  CUresult copy_result;   /* what cuMemcpyDtoHAsync returns when not SUCCESS */
  /* Stream capture (fake_begin_capture()): a capture of capture_stream, a
   * blocking stream, in capture_mode. While it lasts, launches there are
   * recorded, not run; the legacy stream (NULL) fails with
   * CUDA_ERROR_STREAM_CAPTURE_IMPLICIT; a potentially unsafe call from a
   * thread not in relaxed mode (unless the capture is relaxed), and any
   * synchronisation of or copy into the capturing or legacy stream, is a
   * violation that invalidates the capture. */
  int capturing;
  void *capture_stream;
  enum cudaStreamCaptureMode capture_mode;
  int invalidated;          /* a violation happened */
  int violations;
  const char *violation;    /* the first violating call */
  int captured_ops;         /* copies and memsets recorded into the capture */
  int streams_created, streams_destroyed;
  int preloads;             /* cuFuncLoad calls */
  int calls_is_capturing;   /* cuStreamIsCapturing calls */
  CUresult is_capturing_result; /* what cuStreamIsCapturing returns when not SUCCESS */
} fake_state_t;

extern fake_state_t fake;

/** Clears @p fake, installs the fake table and resets the runtime. */
void fake_reset(void);
void fake_kernel(const void *stub, const char *name, fake_body_t body);
void fake_fused(const char *name, uint32_t nparams, fake_body_t body);
void fake_alloc(const void *base, size_t size);
/** Starts a capture of @p stream in @p mode (see fake_state_t). */
void fake_begin_capture(void *stream, enum cudaStreamCaptureMode mode);
/** Ends the capture; @returns the number of records it captured. */
int fake_end_capture(void);
/** Runs every captured record's body, in order, as a graph launch would. */
void fake_replay(void);
/** @returns the calling thread's capture mode (cudaThreadExchangeStreamCaptureMode). */
enum cudaStreamCaptureMode fake_thread_mode(void);

#endif
