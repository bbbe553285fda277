/* Text input shared by the profile and problem readers: whole files, lines
 * under the same limits, and numbers checked the same way, so that both
 * formats refuse the same malformed input with a line number. */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "plan_int.h"

int kf__lines_next(kf__lines *l, char *buf, size_t cap, char *err, size_t errlen)
{
  if (l->pos >= l->len)
    return 0;
  l->line++;
  size_t e = l->pos;
  while (e < l->len && l->text[e] != '\n')
    e++;
  size_t n = e - l->pos;
  const char *at = l->text + l->pos;
  l->pos = e + 1;
  if (n >= cap) {
    kf__text_error(err, errlen, l->line, "line longer than %zu characters", cap - 1);
    return KF_EPARSE;
  }
  /* A NUL would end the line early and hide the rest: a binary or
   * truncated file, never one to read as a shorter one. */
  if (memchr(at, 0, n)) {
    kf__text_error(err, errlen, l->line, "NUL byte in line");
    return KF_EPARSE;
  }
  memcpy(buf, at, n);
  buf[n] = 0;
  if (n && buf[n - 1] == '\r')
    buf[n - 1] = 0; /* CRLF files */
  char *hash = strchr(buf, '#');
  if (hash)
    *hash = 0;
  return 1;
}

void kf__text_error(char *err, size_t errlen, int line, const char *fmt, ...)
{
  if (!err || !errlen)
    return;
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line > 0)
    snprintf(err, errlen, "line %d: %s", line, msg);
  else
    snprintf(err, errlen, "%s", msg);
}

int kf_parse_number(const char *v, double lo, double hi, int integer, double *out)
{
  if (!v || !out)
    return KF_EINVAL;
  char *e;
  errno = 0;
  double x = strtod(v, &e);
  /* strtod also takes "inf", "nan" and hexadecimal floats: finite decimal
   * numbers only. */
  if (!*v || *e || strpbrk(v, "xXnN"))
    return KF_EPARSE;
  if (errno == ERANGE && x != 0)
    return KF_ERANGE; /* overflow (1e999); underflow to 0 is a 0 */
  if (!isfinite(x))
    return KF_EPARSE; /* "inf", "infinity" */
  if (x < lo || x > hi)
    return KF_ERANGE;
  if (integer && x != floor(x))
    return KF_EPARSE;
  *out = x;
  return 0;
}

int kf__read_file(const char *path, char **text, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return KF_EIO;
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  for (;;) {
    if (!b) {
      fclose(f);
      return KF_ENOMEM;
    }
    n += fread(b + n, 1, cap - n, f);
    if (n < cap)
      break;
    cap *= 2;
    char *nb = realloc(b, cap);
    if (!nb)
      free(b);
    b = nb;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(b);
    return KF_EIO;
  }
  *text = b;
  *len = n;
  return 0;
}

int kf__load_file(const char *path, char *err, size_t errlen,
                  int (*parse)(void *obj, const char *text, size_t len, char *err, size_t errlen),
                  void *obj)
{
  char *t;
  size_t n;
  int rc = kf__read_file(path, &t, &n);
  if (rc) {
    if (err && errlen)
      snprintf(err, errlen, "%s: cannot read", path);
    return rc;
  }
  rc = parse(obj, t, n, err, errlen);
  free(t);
  return rc;
}

