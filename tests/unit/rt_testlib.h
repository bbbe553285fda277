/* What the runtime units share (include after <cmocka.h>): the kernels
 * scale and axpy as host bodies, their fused kernel and manifest, a call's
 * launch records, the fake table's setup and the KFUSE_STATS reader. */
#ifndef KFUSE_RT_TESTLIB_H
#define KFUSE_RT_TESTLIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfuse/rt.h"
#include "runtime/poison.h"
#include "runtime/site.h"
#include "tests/unit/fake_cuda.h"

enum { N = 64 };
static float xbuf[N], tbuf[N], ybuf[N], obuf[N];

/* Host stand-ins for the kernels' stubs: only their addresses matter. */
static const char stub_scale, stub_axpy, stub_other;

static inline void body_scale(void **a, const uint32_t *g, const uint32_t *b)
{
  const float *x = *(float **)a[0];
  float *t = *(float **)a[1];
  float s = *(float *)a[2];
  int n = *(int *)a[3];
  (void)g, (void)b;
  for (int i = 0; i < n; i++)
    t[i] = s * x[i];
}

static inline void body_axpy(void **a, const uint32_t *g, const uint32_t *b)
{
  const float *t = *(float **)a[0];
  const float *y = *(float **)a[1];
  float *o = *(float **)a[2];
  int n = *(int *)a[3];
  (void)g, (void)b;
  for (int i = 0; i < n; i++)
    o[i] = t[i] + y[i];
}

static int fused_bug_at = -1;

static inline void body_fused(void **a, const uint32_t *g, const uint32_t *b)
{
  const float *x = *(float **)a[0];
  float *t = *(float **)a[1];
  float s = *(float *)a[2];
  int n = *(int *)a[3];
  const float *y = *(float **)a[5];
  float *o = *(float **)a[6];
  uint64_t dead = *(uint64_t *)a[8];
  (void)g, (void)b;
  for (int i = 0; i < n; i++) {
    float v = s * x[i];
    if (!(dead & 1))
      t[i] = v;
    o[i] = v + y[i] + (i == fused_bug_at ? 1.0f : 0.0f);
  }
}

#define HDR "kfuse-manifest 1\n"
#define GROUP                                                                                      \
  "group fused_sa 2\nkernel 0 _Z5scalePKfPffi 4\nkernel 1 _Z4axpyPKfS0_Pfi 4\n"                    \
  "shape same\nstream same\ndynshmem 0\nlaunch 0 1 32\n"                                           \
  "equal 0.1 1.0\nequal 0.3 1.3\n"                                                                 \
  "footprint 0.0 r 0 4*s3\nfootprint 0.1 w 0 4*s3\nfootprint 1.0 r 0 4*s3\n"                       \
  "footprint 1.1 r 0 4*s3\nfootprint 1.2 w 0 4*s3\n"                                               \
  "disjoint 0.0 0.1\ndisjoint 1.2 0.0\ndisjoint 1.2 1.1\ndisjoint 1.2 1.0\n"                       \
  "dead 0 0.1\npredict 2000 1200\nend\n"

static const char manifest[] = HDR GROUP;

/* The launches of one call: scale(x, t, 2, n); axpy(t, y, o, n); with
 * optional launches of `other` before and after. */
typedef struct call {
  const float *x;
  float *t;
  float a;
  int n0;
  const float *t1, *y;
  float *o;
  int n1;
  const float *q;
  void *args0[4], *args1[4], *argsq[1];
  kf_launch_t l[8];
  uint32_t nl;
} call_t;

static const uint32_t sizes_scale[4] = {8, 8, 4, 4};
static const uint32_t sizes_axpy[4] = {8, 8, 8, 4};
static const uint32_t sizes1[1] = {8};

static inline void launch_init(kf_launch_t *l, const void *stub, void **args, const uint32_t *sizes, uint32_t nargs)
{
  memset(l, 0, sizeof *l);
  l->func = stub;
  l->grid[0] = 2, l->grid[1] = 1, l->grid[2] = 1;
  l->block[0] = 32, l->block[1] = 1, l->block[2] = 1;
  l->stream = (void *)0x5;
  l->args = args;
  l->arg_sizes = sizes;
  l->nargs = nargs;
}

/* @p shape: "sa", "osao", ... (s scale, a axpy, o other). */
static inline void call_init(call_t *c, const char *shape)
{
  memset(c, 0, sizeof *c);
  c->x = xbuf, c->t = tbuf, c->a = 2.0f, c->n0 = N;
  c->t1 = tbuf, c->y = ybuf, c->o = obuf, c->n1 = N, c->q = ybuf;
  c->args0[0] = &c->x, c->args0[1] = &c->t, c->args0[2] = &c->a, c->args0[3] = &c->n0;
  c->args1[0] = &c->t1, c->args1[1] = &c->y, c->args1[2] = &c->o, c->args1[3] = &c->n1;
  c->argsq[0] = &c->q;
  for (const char *p = shape; *p; p++) {
    kf_launch_t *l = &c->l[c->nl++];
    if (*p == 's')
      launch_init(l, &stub_scale, c->args0, sizes_scale, 4);
    else if (*p == 'a')
      launch_init(l, &stub_axpy, c->args1, sizes_axpy, 4);
    else
      launch_init(l, &stub_other, c->argsq, sizes1, 1);
  }
}

static inline void fill_inputs(void)
{
  for (int i = 0; i < N; i++) {
    xbuf[i] = (float)i;
    ybuf[i] = 0.5f * (float)i;
    tbuf[i] = -1;
    obuf[i] = -1;
  }
}

static inline int setup(void **state)
{
  (void)state;
  unsetenv("KFUSE_DISABLE");
  unsetenv("KFUSE_VERIFY");
  setenv("KFUSE_STATS", "1", 1);
  fake_reset();
  fake_kernel(&stub_scale, "_Z5scalePKfPffi", body_scale);
  fake_kernel(&stub_axpy, "_Z4axpyPKfS0_Pfi", body_axpy);
  fake_kernel(&stub_other, "_Z5otherPKf", NULL);
  fake_fused("fused_sa", 8, body_fused);
  fake_alloc(xbuf, sizeof xbuf);
  fake_alloc(tbuf, sizeof tbuf);
  fake_alloc(ybuf, sizeof ybuf);
  fake_alloc(obuf, sizeof obuf);
  fake.manifest = manifest;
  fused_bug_at = -1;
  fill_inputs();
  return 0;
}

/* The stats of @p site as KFUSE_STATS prints them (one line, no newline). */
/* Everything KFUSE_STATS prints now, in a buffer the next call reuses. */
static inline char *stats_text(void)
{
  static char buf[4096];
  FILE *f = tmpfile();
  size_t n;
  assert_non_null(f);
  kf__stats_print(f);
  rewind(f);
  n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return buf;
}

static inline const char *stats_of(const char *where)
{
  char *buf = stats_text(), *line;
  for (line = strtok(buf, "\n"); line != NULL; line = strtok(NULL, "\n")) {
    const char *p = line + strlen("kfuse-stats: ");
    if (strncmp(p, where, strlen(where)) == 0 && p[strlen(where)] == ':')
      return line;
  }
  return "";
}

static inline void assert_log(const char *expect)
{
  char got[512];
  size_t len = 0;
  got[0] = '\0';
  for (int i = 0; i < fake.nlog; i++)
    len += (size_t)snprintf(got + len, sizeof got - len, "%s%s%s", i ? " " : "", fake.log[i].fused ? "F:" : "",
                            fake.log[i].name);
  assert_string_equal(got, expect);
}

static inline void check_results(void)
{
  for (int i = 0; i < N; i++) {
    assert_true(tbuf[i] == 2.0f * (float)i);
    assert_true(obuf[i] == 2.5f * (float)i);
  }
}

static float t2buf[N];

static inline int all_poisoned(const float *b)
{
  for (int i = 0; i < N; i++) {
    uint32_t w;
    memcpy(&w, &b[i], sizeof w);
    if (w != KF__POISON_WORD)
      return 0;
  }
  return 1;
}

/* Runs scale+axpy at a site whose scratch table declares t (launch 0
 * param 1, launch 1 param 0), with the environment @p verify. */
static const kf_scratch_decl_t t_decl[2] = {{0, 1, "Ctx::t", "t.cu:3"}, {1, 0, "Ctx::t", "t.cu:3"}};

static inline void reset_with(const char *verify, const char *disable)
{
  if (verify)
    setenv("KFUSE_VERIFY", verify, 1);
  if (disable)
    setenv("KFUSE_DISABLE", disable, 1);
  fake_reset();
  fake_kernel(&stub_scale, "_Z5scalePKfPffi", body_scale);
  fake_kernel(&stub_axpy, "_Z4axpyPKfS0_Pfi", body_axpy);
  fake_fused("fused_sa", 8, body_fused);
  fake_alloc(xbuf, sizeof xbuf);
  fake_alloc(tbuf, sizeof tbuf);
  fake_alloc(t2buf, sizeof t2buf);
  fake_alloc(ybuf, sizeof ybuf);
  fake_alloc(obuf, sizeof obuf);
  fake.manifest = manifest;
  fill_inputs();
}

/* Runs @p fn with stderr sent to a buffer. */
static inline void capture_stderr(void (*fn)(void), char *out, size_t size)
{
  FILE *tmp = tmpfile();
  int saved = dup(fileno(stderr));
  size_t n;
  fflush(stderr);
  dup2(fileno(tmp), fileno(stderr));
  fn();
  fflush(stderr);
  dup2(saved, fileno(stderr));
  close(saved);
  rewind(tmp);
  n = fread(out, 1, size - 1, tmp);
  out[n] = '\0';
  fclose(tmp);
}

#endif
