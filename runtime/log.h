/* Levelled logging of libkfuse_rt to stderr, chosen by KFUSE_LOG; every
 * line starts with "kfuse: ". */
#ifndef KFUSE_RUNTIME_LOG_H
#define KFUSE_RUNTIME_LOG_H

typedef enum kf__log_level {
  KF__LOG_OFF = 0,
  KF__LOG_ERROR = 1,
  KF__LOG_WARN = 2,
  KF__LOG_INFO = 3,
  KF__LOG_DEBUG = 4
} kf__log_level_t;

/** The current level; messages above it are dropped. Defaults to OFF. */
extern int kf__log_level;

/** @returns the level named by @p text ("warn", "2", ...); OFF for NULL or unknown text. */
int kf__log_parse_level(const char *text);

/** Prints "kfuse: <message>\n" on stderr when @p level is enabled. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void kf__log_print(int level, const char *fmt, ...);

#define kf__log(level, ...)                                                   \
  do {                                                                        \
    if ((level) <= kf__log_level)                                             \
      kf__log_print((level), __VA_ARGS__);                                    \
  } while (0)

#endif
