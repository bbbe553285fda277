/* Error codes shared by libkfplan and libkfuse_rt. Every public function
 * returns 0 or one of these negative codes. */
#ifndef KFUSE_ERROR_H
#define KFUSE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(KF_BUILDING) && defined(KF_MODULE_LOCAL) && defined(__GNUC__)
/* libkfuse_rt: one copy in each module that links it, exported by none. */
#define KF_EXTERN __attribute__((visibility("hidden")))
#elif defined(KF_BUILDING) && defined(__GNUC__)
#define KF_EXTERN __attribute__((visibility("default")))
#else
#define KF_EXTERN
#endif

/* XX(name, code, message): the one table of error codes. */
#define KF_ERRNO_MAP(XX)                                                      \
  XX(EINVAL, -1, "invalid argument")                                          \
  XX(ENOMEM, -2, "out of memory")                                             \
  XX(EPARSE, -3, "malformed input")                                           \
  XX(EVERSION, -4, "unsupported format version")                              \
  XX(ENOENT, -5, "not found")                                                 \
  XX(ERANGE, -6, "value out of range")                                        \
  XX(ENOTSUP, -7, "not supported")                                            \
  XX(EIO, -8, "input/output error")                                           \
  XX(ESOLVER, -9, "solver failed")                                            \
  XX(ELIMIT, -10, "work limit reached before optimality was proven")       \
  XX(EINFEASIBLE, -11, "no feasible plan")                                    \
  XX(ECUDA, -12, "CUDA call failed")                                          \
  XX(EMISMATCH, -13, "results differ")

typedef enum kf_errno {
#define KF__ERRNO_ENUM(name, code, msg) KF_##name = (code),
  KF_ERRNO_MAP(KF__ERRNO_ENUM)
#undef KF__ERRNO_ENUM
  KF_ERRNO_MIN = -13
} kf_errno_t;

/** @returns a static message for @p err; "unknown error" for codes not in the table. */
KF_EXTERN const char *kf_strerror(int err);
/** @returns the code's name without prefix ("EINVAL"); "UNKNOWN" for others. */
KF_EXTERN const char *kf_err_name(int err);

#ifdef __cplusplus
}
#endif
#endif
