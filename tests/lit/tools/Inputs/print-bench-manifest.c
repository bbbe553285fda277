/* Prints the manifest text that tests/unit/bench_rt_overhead.c feeds the
 * runtime (tests/unit/bench_rt_manifest.h). */
#include <stdio.h>

#include "tests/unit/bench_rt_manifest.h"

int main(void)
{
  fputs(bench_manifest, stdout);
  return 0;
}
