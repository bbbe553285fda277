#!/bin/sh
# Compile-time benchmark (not a test) at the scale of Wahib and Maruyama's
# application (142 kernels): writes one function of 142 launches of ten
# map kernels over 64 arrays (each launch reads two arrays and writes a
# third, chosen by a fixed pseudo-random sequence, so every run compiles
# the same file), and times it with bench/compile-time.sh (plain clang
# against clang with the kfuse plugins, REPS times each). It also checks
# that the object is the same compiled twice. With `mixed`, a third of the
# launches are of a 2-D surface field (16 arrays, another grid and block)
# between those of the 3-D fields (48 arrays), as an atmospheric model's
# step is: the planner then poses groups that leave launches out (riders).
# Usage:
#   sh bench/compile-142.sh [build-dir] [reps] [mixed]
set -e
B=${1:-build}
REPS=${2:-5}
MIXED=0
[ "${3:-}" = mixed ] && MIXED=1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=${TMPDIR:-/tmp}/kf142.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
awk -v mixed="$MIXED" 'BEGIN {
  n = split("a * x[i] + y[i]|x[i] * y[i] - a|fmaxf(x[i], y[i]) * a|x[i] + a * a * y[i]|" \
            "sqrtf(fabsf(x[i])) + y[i]|x[i] * a|expf(-x[i] * x[i]) * y[i]|x[i] - y[i] * 0.5f|" \
            "fminf(x[i] + y[i], a)|tanhf(x[i]) + a * y[i]", op, "|")
  print "#include <kfuse/kfuse.h>"
  for (k = 1; k <= n; k++)
    printf "__global__ KFUSE_MAP void k%d(const float *x, const float *y, float *o, float a, int n)" \
           " { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = %s; }\n", k - 1, op[k]
  if (mixed) {
    print "void step(float **f, float **s2, int n, int n2, cudaStream_t s) {"
    print "  unsigned g = (n + 255) / 256, g2 = (n2 + 127) / 128;"
  } else {
    print "void step(float **f, int n, cudaStream_t s) {"
    print "  unsigned g = (n + 255) / 256;"
  }
  seed = 7
  for (l = 0; l < 142; l++) {
    seed = (seed * 1103515245 + 12345) % 2147483648; k = int(seed / 65536) % n
    sfc = 0
    if (mixed) { seed = (seed * 1103515245 + 12345) % 2147483648; sfc = int(seed / 65536) % 3 == 0 }
    m = mixed ? (sfc ? 16 : 48) : 64
    seed = (seed * 1103515245 + 12345) % 2147483648; a = int(seed / 65536) % m
    seed = (seed * 1103515245 + 12345) % 2147483648; b = int(seed / 65536) % m
    do { seed = (seed * 1103515245 + 12345) % 2147483648; o = int(seed / 65536) % m } while (o == a || o == b)
    if (sfc)
      printf "  k%d<<<g2, 128, 0, s>>>(s2[%d], s2[%d], s2[%d], %.2ff, n2);\n", k, a, b, o, 0.5 + l * 0.01
    else
      printf "  k%d<<<g, 256, 0, s>>>(f[%d], f[%d], f[%d], %.2ff, n);\n", k, a, b, o, 0.5 + l * 0.01
  }
  print "}"
}' > "$T/seq142.cu"
sh "$ROOT/bench/compile-time.sh" "$B" "$REPS" "$T/seq142.cu"
CLANG=${KFUSE_CLANGXX:-clang++-22}
command -v "$CLANG" >/dev/null 2>&1 || CLANG=/usr/lib/llvm-22/bin/clang++
for k in 1 2; do
  "$CLANG" -x cuda --cuda-path="${CUDA_PATH:-/usr/local/cuda}" --cuda-gpu-arch=sm_90 \
    -Wno-unknown-cuda-version -O2 -I"$ROOT/include" -fplugin="$B/lib/libkfuse_clang.so" \
    -fpass-plugin="$B/lib/libkfuse_llvm.so" -Rpass=kfuse -c "$T/seq142.cu" -o "$T/o$k.o" 2> "$T/r$k"
done
cmp -s "$T/o1.o" "$T/o2.o" && echo "object: the same both times" || echo "object: DIFFERS"
echo "fused groups: $(grep -c 'remark: fused' "$T/r1")"
