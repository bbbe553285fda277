/* Stream capture (capture.h): cuStreamIsCapturing per distinct stream of a
 * call, and cudaThreadExchangeStreamCaptureMode in push-pop fashion. */
#include "runtime/capture.h"

int kf__capturing(const kf_launch_t *l, uint32_t n)
{
  __typeof__(&cuStreamIsCapturing) query = KF__CU(cuStreamIsCapturing);
  if (query == NULL)
    return 0;
  for (uint32_t i = 0; i < n; i++) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult res;
    int asked = 0;
    for (uint32_t j = 0; j < i && !asked; j++)
      asked = l[j].stream == l[i].stream;
    if (asked)
      continue;
    /* Other failures say nothing about capture: a thread whose first CUDA
     * work is this call has no current context to ask the legacy stream's
     * status in, and no capture can involve that stream then. */
    res = query((CUstream)l[i].stream, &status);
    if (res == CUDA_SUCCESS ? status != CU_STREAM_CAPTURE_STATUS_NONE : kf__capture_error(res))
      return 1;
  }
  return 0;
}

int kf__capture_relax(void)
{
  __typeof__(&cudaThreadExchangeStreamCaptureMode) exchange = KF__CU(cudaThreadExchangeStreamCaptureMode);
  enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  if (exchange == NULL || exchange(&mode) != cudaSuccess)
    return -1;
  return (int)mode;
}

void kf__capture_restore(int previous)
{
  __typeof__(&cudaThreadExchangeStreamCaptureMode) exchange;
  enum cudaStreamCaptureMode mode = (enum cudaStreamCaptureMode)previous;
  if (previous >= 0 && (exchange = KF__CU(cudaThreadExchangeStreamCaptureMode)) != NULL)
    (void)exchange(&mode);
}

int kf__capture_error(CUresult res)
{
  switch (res) {
  case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
  case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
  case CUDA_ERROR_STREAM_CAPTURE_MERGE:
  case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED:
  case CUDA_ERROR_STREAM_CAPTURE_UNJOINED:
  case CUDA_ERROR_STREAM_CAPTURE_ISOLATION:
  case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT:
  case CUDA_ERROR_CAPTURED_EVENT:
  case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD:
    return 1;
  default:
    return 0;
  }
}
