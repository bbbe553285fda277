/* Synthetic fusion problems in the manner of Wahib and Maruyama's suite:
 * kernels over shared arrays with sharing sets of bounded size. */
#include <stdio.h>
#include <stdlib.h>
#include "plan_int.h"

static unsigned kf__rand(unsigned *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

int kf_problem_write_synthetic(FILE *f, int kernels, int arrays, int smin,
                               int smax, unsigned seed)
{
  if (!f || kernels < 1 || arrays < 1 || smin < 1 || smax < smin || smax > kernels)
    return KF_EINVAL;
  unsigned s = seed * 2654435761u + 12345u;
  if (!s)
    s = 1;
  /* users[a][*]: the sharing set of array a, ascending; writer[a] its first
   * user if the array is produced in the sequence. */
  int *mode = calloc((size_t)kernels * (size_t)arrays, sizeof(int));
  int *bytes = malloc(sizeof(int) * (size_t)arrays);
  if (!mode || !bytes) {
    free(mode);
    free(bytes);
    return KF_ENOMEM;
  }
  fprintf(f, "kfuse-plan 1\n# synthetic: kernels=%d arrays=%d sharing=%d..%d seed=%u\n",
          kernels, arrays, smin, smax, seed);
  fprintf(f, "instances 4194304\n");
  int window = smax * 3 < kernels ? smax * 3 : kernels;
  for (int a = 0; a < arrays; a++) {
    int size = smin + (int)(kf__rand(&s) % (unsigned)(smax - smin + 1));
    if (size > window)
      size = window;
    /* Sharing sets are local in launch order, as in stencil codes. */
    int base = (int)(kf__rand(&s) % (unsigned)(kernels - window + 1));
    int produced = kf__rand(&s) % 4 != 0, first = 1;
    int got = 0;
    while (got < size) {
      int k = base + (int)(kf__rand(&s) % (unsigned)window);
      if (mode[(size_t)k * arrays + a])
        continue;
      mode[(size_t)k * arrays + a] = KF_READ;
      got++;
    }
    for (int k = 0; k < kernels; k++) {
      int *m = &mode[(size_t)k * arrays + a];
      if (!*m)
        continue;
      if (first && produced)
        *m = KF_WRITE;
      else if (!first && kf__rand(&s) % 10 == 0)
        *m = KF_READWRITE;
      first = 0;
    }
    bytes[a] = kf__rand(&s) % 2 ? 4 : 8;
    fprintf(f, "buffer a%d%s\n", a, produced && kf__rand(&s) % 2 ? " dead" : "");
  }
  for (int k = 0; k < kernels; k++) {
    fprintf(f, "launch k%d\n", k);
    double flops = 2 + kf__rand(&s) % 40;
    int regs = 16 + 8 * (int)(kf__rand(&s) % 7);
    fprintf(f, "  variant base block=256 regs=%d flops=%g\n", regs, flops);
    if (kf__rand(&s) % 3 == 0)
      fprintf(f, "  variant wide tpi=2 block=256 regs=%d flops=%g\n", regs / 2 + 8, flops);
    int any = 0;
    for (int a = 0; a < arrays; a++) {
      int m = mode[(size_t)k * arrays + a];
      if (!m)
        continue;
      any = 1;
      fprintf(f, "  %s a%d bytes=%d\n",
              m == KF_READ ? "read" : m == KF_WRITE ? "write" : "readwrite", a, bytes[a]);
    }
    if (!any)
      fprintf(f, "  # uses no shared array\n");
  }
  free(mode);
  free(bytes);
  return ferror(f) ? KF_EIO : 0;
}
