/* kfuse: what user code writes to mark map kernels. One source then builds
 * fused (with the kfuse plugins) and unfused (any other compiler), warning-free. */
#ifndef KFUSE_KFUSE_H
#define KFUSE_KFUSE_H

/* __has_attribute also sees the attributes that Clang plugins register, so
 * only a compilation with -fplugin=libkfuse_clang.so (kfuse-clang++,
 * kfuse_enable()) gets the real attribute; elsewhere the marks expand to
 * nothing and clang, gcc and nvcc have no unknown attribute to warn about. */
#if defined(__has_attribute)
#if __has_attribute(kfuse_map)
#define KFUSE__HAS_MAP 1
#endif
#endif

/**
 * KFUSE_ENABLED: 1 when this compilation runs the kfuse Clang plugin, 0
 * otherwise. For code that reports which build it is; launches fuse or not
 * without it.
 */
#ifdef KFUSE__HAS_MAP
#define KFUSE_ENABLED 1
#else
#define KFUSE_ENABLED 0
#endif

/**
 * KFUSE_MAP: marks a `__global__ void` kernel as a map kernel that kfuse may
 * fuse with the launches of other map kernels around its launches:
 *
 *   __global__ KFUSE_MAP void scale(const float *x, float *t, float a, int n);
 *
 * Expands to `__attribute__((kfuse_map))` under the kfuse plugin and to
 * nothing otherwise. Defining KFUSE_MAP before this header is included
 * overrides it. The plugin rejects the mark on anything but a `__global__`
 * function (README.md, "Using kfuse on your code").
 */
#ifndef KFUSE_MAP
#ifdef KFUSE__HAS_MAP
#define KFUSE_MAP __attribute__((kfuse_map))
#else
#define KFUSE_MAP
#endif
#endif

/**
 * KFUSE_IMPL(function, threads): marks a `__global__ void` map kernel (as
 * KFUSE_MAP does) as one implementation of `function`, a string literal,
 * with `threads` threads per instance, an integer constant from 1 to 1024:
 *
 *   __global__ KFUSE_IMPL("mmul33", 1) void mmul33(const float *A, const float *B, float *C, int n);
 *   __global__ KFUSE_IMPL("mmul33", 9) void mmul33_t9(const float *A, const float *B, float *C, int m);
 *
 * The implementations of one function take the same parameters, and the
 * size each checks its global index against counts its own threads
 * (`if (i < n)` over n instances with one, `if (j < m)` over m = 9 n with
 * nine). A launch of any of them may then run, inside a fused kernel, the
 * implementation the planner chooses; alone it runs the kernel the
 * program launched (README.md, "Several implementations of one
 * function"). Expands to `__attribute__((kfuse_impl(function, threads)))`
 * under the kfuse plugin and to nothing otherwise.
 */
#ifndef KFUSE_IMPL
#ifdef KFUSE__HAS_MAP
#define KFUSE_IMPL(function, threads) __attribute__((kfuse_impl(function, threads)))
#else
#define KFUSE_IMPL(function, threads)
#endif
#endif

/**
 * KFUSE_SCRATCH: declares the buffer a host pointer variable or field holds
 * scratch between kfuse runs, where the compiler cannot prove it dead:
 *
 *   struct Work { float *tmp KFUSE_SCRATCH; int n; };
 *
 * The promise: after a run of fused launches that writes the buffer, its
 * contents are not read (by any kernel, copy, memset or host access) before
 * they are written again; only the run's own later launches read what the
 * run wrote. Fused kernels then skip their stores to it. KFUSE_VERIFY checks
 * the promise (README.md, "Scratch buffers"). Expands to
 * `__attribute__((kfuse_scratch))` under the kfuse plugin and to nothing
 * otherwise. For memory that no variable of yours declares (a library's
 * buffer), call kf_rt_scratch() from <kfuse/rt.h>.
 */
#ifndef KFUSE_SCRATCH
#ifdef KFUSE__HAS_MAP
#define KFUSE_SCRATCH __attribute__((kfuse_scratch))
#else
#define KFUSE_SCRATCH
#endif
#endif

#endif
