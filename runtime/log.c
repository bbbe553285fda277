/* KFUSE_LOG: levelled messages on stderr. One fprintf per line so lines of
 * concurrent threads do not interleave within a line. */
#include "runtime/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int kf__log_level = KF__LOG_OFF;

int kf__log_parse_level(const char *text)
{
  static const char *const names[] = {"off", "error", "warn", "info", "debug"};
  if (text == NULL || text[0] == '\0')
    return KF__LOG_OFF;
  if (text[0] >= '0' && text[0] <= '4' && text[1] == '\0')
    return text[0] - '0';
  for (int i = 0; i < 5; i++)
    if (strcmp(text, names[i]) == 0)
      return i;
  if (strcmp(text, "warning") == 0)
    return KF__LOG_WARN;
  return KF__LOG_OFF;
}

void kf__log_print(int level, const char *fmt, ...)
{
  char line[1024];
  va_list ap;
  (void)level;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "kfuse: %s\n", line);
}
