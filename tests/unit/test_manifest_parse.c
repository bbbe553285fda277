/* The manifest parser: a full valid manifest, then every kind of
 * malformed text, each of which must fail cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "manifest/manifest.h"

#define HDR "kfuse-manifest 1\n"
#define G2 "group fused_ab 2\nkernel 0 _Z1aPKfPff 3\nkernel 1 _Z1bPKfPf 2\n"

static const char valid[] =
    HDR G2
    "shape same\n"
    "stream same\n"
    "dynshmem 0\n"
    "launch 0 1 128\n"
    "equal 0.1 1.0\n"
    "footprint 0.0 r 0 4*s2\n"
    "footprint 0.1 w 0 4*s2\n"
    "footprint 1.1 rw 0 min(gx*bx,s2)*4\n"
    "disjoint 0.0 1.1\n"
    "dead 0 0.1\n"
    "predict 1500 900.5\n"
    "end\n"
    "missed _Z3runv 12 3 1 2 kernel 'c' cannot be fused: has a barrier (__syncthreads)\n"
    "group fused_c 1\nkernel 0 _Z1cv 0\nlaunch 0 0 0\nend\n";

static int parse(const char *text, unsigned *line)
{
  kf__manifest_t *m = NULL;
  int rc = kf__manifest_parse(text, strlen(text), &m, line);
  if (rc != 0)
    assert_null(m);
  kf__manifest_free(m);
  return rc;
}

static void test_valid(void **state)
{
  kf__manifest_t *m = NULL;
  const kf__group_t *g;
  unsigned line = 99;
  kf__param_ref_t r11 = {1, 1}, r10 = {1, 0};
  (void)state;
  assert_int_equal(kf__manifest_parse(valid, sizeof valid, &m, &line), 0);
  assert_int_equal(line, 0);
  assert_int_equal(m->version, 1);
  assert_int_equal(m->ngroups, 2);
  g = &m->groups[0];
  assert_string_equal(g->name, "fused_ab");
  assert_int_equal(g->nlaunches, 2);
  assert_string_equal(g->kernels[0].name, "_Z1aPKfPff");
  assert_int_equal(g->kernels[0].nparams, 3);
  assert_int_equal(g->kernels[1].nparams, 2);
  assert_int_equal(g->nparams_total, 5);
  assert_true(g->shape_same && g->stream_same && g->has_dynshmem);
  assert_int_equal(g->dynshmem, 0);
  assert_int_equal(g->grid_launch, 0);
  assert_int_equal(g->block_launch, 1);
  assert_int_equal(g->shared_bytes, 128);
  assert_int_equal(g->nequal, 1);
  assert_int_equal(g->equal[0].a.launch, 0);
  assert_int_equal(g->equal[0].a.param, 1);
  assert_int_equal(g->equal[0].b.launch, 1);
  assert_int_equal(g->equal[0].b.param, 0);
  assert_int_equal(g->nfootprints, 3);
  assert_int_equal(kf__group_footprint(g, r11)->mode, KF__FP_READ | KF__FP_WRITE);
  assert_null(kf__group_footprint(g, r10));
  assert_int_equal(g->ndisjoint, 1);
  assert_int_equal(g->ndead, 1);
  assert_int_equal(g->dead[0].bit, 0);
  assert_true(g->predict_unfused_ns == 1500 && g->predict_fused_ns == 900.5);
  g = &m->groups[1];
  assert_string_equal(g->name, "fused_c");
  assert_false(g->shape_same || g->stream_same || g->has_dynshmem);
  assert_true(g->predict_fused_ns < 0);
  assert_int_equal(m->nmissed, 1);
  assert_string_equal(m->missed[0].function, "_Z3runv");
  assert_int_equal(m->missed[0].line, 12);
  assert_int_equal(m->missed[0].length, 3);
  assert_int_equal(m->missed[0].first, 1);
  assert_int_equal(m->missed[0].last, 2);
  assert_string_equal(m->missed[0].reason, "kernel 'c' cannot be fused: has a barrier (__syncthreads)");
  kf__manifest_free(m);
}

static void test_empty_and_unterminated_last_line(void **state)
{
  (void)state;
  assert_int_equal(parse(HDR, NULL), 0);
  assert_int_equal(parse("kfuse-manifest 1", NULL), 0);
  assert_int_equal(parse(HDR G2 "launch 0 0 0\nend", NULL), 0);
}

/* `shape split`: the group's launches run side by side (docs/manifest.md). */
static void test_shape_split(void **state)
{
  static const char text[] = HDR G2 "shape split\nstream same\nlaunch 0 0 0\nend\n";
  kf__manifest_t *m = NULL;
  unsigned line = 99;
  (void)state;
  assert_int_equal(kf__manifest_parse(text, sizeof text, &m, &line), 0);
  assert_true(m->groups[0].shape_split && !m->groups[0].shape_same && m->groups[0].stream_same);
  kf__manifest_free(m);
}

static void test_version(void **state)
{
  unsigned line = 0;
  (void)state;
  assert_int_equal(parse("kfuse-manifest 2\n", &line), KF_EVERSION);
  assert_int_equal(line, 1);
  assert_int_equal(parse("kfuse-manifest 0\n" G2 "launch 0 0 0\nend\n", NULL), KF_EVERSION);
  assert_int_equal(parse("kfuse-manifest 99999999999999999999999\n", NULL), KF_EVERSION);
  assert_int_equal(parse("kfuse-manifest x\n", NULL), KF_EPARSE);
  assert_int_equal(parse("kfuse-manifest\n", NULL), KF_EPARSE);
  assert_int_equal(parse("kfuse-manifesto 1\n", NULL), KF_EPARSE);
  assert_int_equal(parse("", NULL), KF_EPARSE);
}

/* Each line is a complete text that must fail with @p want (0: any error). */
static void expect_error(const char *text, int want, unsigned want_line)
{
  unsigned line = 0;
  int rc = parse(text, &line);
  if (rc == 0)
    fail_msg("parsed: %s", text);
  if (want != 0 && rc != want)
    fail_msg("rc %d, want %d: %s", rc, want, text);
  if (want_line != 0 && line != want_line)
    fail_msg("line %u, want %u: %s", line, want_line, text);
}

static void test_malformed(void **state)
{
  (void)state;
  /* Truncated and unterminated. */
  expect_error(HDR "group g 2\nkernel 0 a 1\n", KF_EPARSE, 4);
  expect_error(HDR G2 "launch 0 0 0\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\nend\ngroup", KF_EPARSE, 7);
  expect_error(HDR G2 "end\n", KF_EPARSE, 5); /* no launch line */
  /* Unknown directives and misplaced lines. */
  expect_error(HDR G2 "launch 0 0 0\nfrobnicate 1\nend\n", KF_EPARSE, 6);
  expect_error(HDR "kernel 0 a 1\n", KF_EPARSE, 2);
  expect_error(HDR "end\n", KF_EPARSE, 2);
  expect_error(HDR "group g 2\nkernel 1 a 1\nkernel 0 b 1\nlaunch 0 0 0\nend\n", KF_EPARSE, 3);
  expect_error(HDR "group g 1\nlaunch 0 0 0\nend\n", KF_EPARSE, 3);
  /* Spacing, blank lines and carriage returns. */
  expect_error(HDR G2 "launch 0  0 0\nend\n", KF_EPARSE, 5);
  expect_error(HDR G2 "launch 0 0 0 \nend\n", KF_EPARSE, 5);
  expect_error(HDR "\n" G2 "launch 0 0 0\nend\n", KF_EPARSE, 2);
  expect_error(HDR G2 "launch 0 0 0\nend\r\n", KF_EPARSE, 6);
  /* Bad numbers and references. */
  expect_error(HDR G2 "launch 0 0 -1\nend\n", KF_EPARSE, 5);
  expect_error(HDR G2 "launch 0 0 1x\nend\n", KF_EPARSE, 5);
  expect_error(HDR G2 "launch 0 0 99999999999\nend\n", KF_ERANGE, 5);
  expect_error(HDR G2 "launch 2 0 0\nend\n", KF_EPARSE, 5);
  expect_error(HDR G2 "launch 0 0 0\nequal 0.3 1.0\nend\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\nequal 2.0 1.0\nend\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\nequal 0 1.0\nend\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\nequal 0. 1.0\nend\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\ndead 64 0.1\nend\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\nfootprint 0.1 x 0 4\nend\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\nfootprint 0.1 w 0\nend\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\nfootprint 0.1 w 0 4\nfootprint 0.1 r 0 4\nend\n", KF_EPARSE, 7);
  expect_error(HDR G2 "launch 0 0 0\npredict 1 -2\nend\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\npredict 1. 2\nend\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\nshape different\nend\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\nshape split\nshape same\nend\n", KF_EPARSE, 7);
  expect_error(HDR G2 "launch 0 0 0\nshape split\nshape split\nend\n", KF_EPARSE, 7);
  expect_error(HDR G2 "launch 0 0 0\nstream split\nend\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\nlaunch 0 0 0\nend\n", KF_EPARSE, 6);
  expect_error(HDR G2 "launch 0 0 0\nend extra\n", KF_EPARSE, 6);
  expect_error(HDR "group g 0\n", KF_EPARSE, 2);
  expect_error(HDR "group  1\n", KF_EPARSE, 2);
  expect_error(HDR "group g\x01 1\n", KF_EPARSE, 2);
}

static void test_huge_counts(void **state)
{
  (void)state;
  expect_error(HDR "group g 4000000000\n", KF_ERANGE, 2);
  expect_error(HDR "group g 18446744073709551616\n", KF_ERANGE, 2);
  expect_error(HDR "group g 1000\n", KF_ERANGE, 2);
  expect_error(HDR "group g 1\nkernel 0 a 100000\n", KF_ERANGE, 3);
}

static void test_bad_expression_is_not_fatal(void **state)
{
  kf__manifest_t *m = NULL;
  static const char text[] = HDR G2 "launch 0 0 0\nfootprint 0.1 w 0 4*frob\nend\n";
  kf__param_ref_t r = {0, 1};
  (void)state;
  assert_int_equal(kf__manifest_parse(text, sizeof text, &m, NULL), 0);
  assert_null(kf__group_footprint(&m->groups[0], r)->lo);
  kf__manifest_free(m);
}

static void test_stops_at_nul_and_length(void **state)
{
  kf__manifest_t *m = NULL;
  static const char text[] = HDR G2 "launch 0 0 0\nend\n\0garbage that is never read";
  (void)state;
  assert_int_equal(kf__manifest_parse(text, sizeof text, &m, NULL), 0);
  kf__manifest_free(m);
  /* The same text cut short by its length is truncated. */
  assert_int_equal(kf__manifest_parse(text, strlen(text) - 5, &m, NULL), KF_EPARSE);
}

/* Random corruption of a valid manifest: every result is either a clean
 * error or a manifest (under ASan, no out-of-bounds access). */
/* `plans <count> <first> <ranks>`: the group's plans and position. */
static const kf__group_t *parse_plans(const char *line, kf__manifest_t **m)
{
  char text[512];
  snprintf(text, sizeof text, HDR G2 "launch 0 0 0\n%send\n", line);
  assert_int_equal(kf__manifest_parse(text, strlen(text), m, NULL), 0);
  return &(*m)->groups[0];
}

static void test_plans(void **state)
{
  kf__manifest_t *m = NULL;
  const kf__group_t *g;
  (void)state;
  /* No line: in every plan, at any position. */
  g = parse_plans("", &m);
  assert_int_equal(g->plan_count, 0);
  for (uint32_t r = 0; r < 300; r++)
    assert_true(kf__group_in_plan(g, r));
  kf__manifest_free(m);

  g = parse_plans("plans 130 3 5 _Z3runv 0,2-5,64,127-129\n", &m);
  assert_int_equal(g->plan_count, 130);
  assert_int_equal(g->plan_first, 3);
  assert_int_equal(g->plan_length, 5);
  assert_string_equal(g->plan_function, "_Z3runv");
  {
    static const uint32_t in[] = {0, 2, 3, 4, 5, 64, 127, 128, 129};
    static const uint32_t out[] = {1, 6, 63, 65, 126};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
      assert_true(kf__group_in_plan(g, in[i]));
    for (size_t i = 0; i < sizeof out / sizeof out[0]; i++)
      assert_false(kf__group_in_plan(g, out[i]));
  }
  /* A rank the sequence does not have runs its best plan (rank 0). */
  assert_true(kf__group_in_plan(g, 130));
  assert_true(kf__group_in_plan(g, 255));
  kf__manifest_free(m);

  g = parse_plans("plans 4 0 2 main 1-2\n", &m);
  assert_false(kf__group_in_plan(g, 0));
  assert_true(kf__group_in_plan(g, 1));
  assert_false(kf__group_in_plan(g, 3));
  assert_false(kf__group_in_plan(g, 4)); /* plan 0 does not hold it */
  kf__manifest_free(m);

  g = parse_plans("plans 256 0 2 main 255\n", &m);
  assert_true(kf__group_in_plan(g, 255));
  assert_false(kf__group_in_plan(g, 254));
  kf__manifest_free(m);
}

static void test_plans_malformed(void **state)
{
  (void)state;
  static const char *const bad[] = {
    "plans 4 0 2 main\n",        /* missing ranks */
    "plans 4 0 2 main 1 2\n",    /* ranks are one field */
    "plans 4 0 2 1\n",           /* missing function */
    "plans 1 0 2 main 0\n",      /* one plan needs no line */
    "plans 257 0 2 main 0\n",    /* beyond KF__MANIFEST_MAX_PLANS */
    "plans 4 0 2 main 4\n",      /* rank out of range */
    "plans 4 0 2 main 2-1\n",    /* empty range */
    "plans 4 0 2 main 2,1\n",    /* not ascending */
    "plans 4 0 2 main 1-2,2\n",  /* overlapping */
    "plans 4 0 2 main 1,\n",     /* trailing comma */
    "plans 4 0 2 main ,1\n",     /* leading comma */
    "plans 4 0 2 main 1--2\n",
    "plans 4 0 2 main -1\n",
    "plans 4 x 2 main 1\n",
    "plans 4 256 300 main 1\n",  /* position beyond any sequence */
    "plans 4 1 2 main 1\n",      /* the group (2 launches) overruns the sequence */
    "plans 4 0 1 main 1\n",
    "plans 4 0 2 ma\x01in 1\n",  /* not a name */
    "plans 4 0 2 main 1\nplans 4 0 2 main 2\n", /* twice */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[256];
    snprintf(text, sizeof text, HDR G2 "launch 0 0 0\n%send\n", bad[i]);
    expect_error(text, KF_EPARSE, i + 1 == sizeof bad / sizeof bad[0] ? 7 : 6);
  }
}

/* `at <first> <length> <line>:<col> <function>`: the one site of the group. */
static void test_at(void **state)
{
  kf__manifest_t *m = NULL;
  const kf__group_t *g;
  (void)state;
  g = parse_plans("", &m);
  assert_null(g->at_function);
  kf__manifest_free(m);
  g = parse_plans("at 3 5 120:14 _ZZ4mainENKUliE_clEi\n", &m);
  assert_int_equal(g->at_first, 3);
  assert_int_equal(g->at_length, 5);
  assert_int_equal(g->at_line, 120);
  assert_int_equal(g->at_col, 14);
  assert_string_equal(g->at_function, "_ZZ4mainENKUliE_clEi");
  kf__manifest_free(m);
  /* With a `plans` line: both hold. */
  g = parse_plans("plans 4 0 2 main 1\nat 0 2 7:8 main\n", &m);
  assert_int_equal(g->plan_count, 4);
  assert_string_equal(g->at_function, "main");
  kf__manifest_free(m);
}

static void test_at_malformed(void **state)
{
  (void)state;
  static const char *const bad[] = {
    "at 0 2 7:8\n",             /* missing function */
    "at 0 2 7:8 main x\n",      /* one field too many */
    "at 0 2 7 main\n",          /* no column */
    "at 0 2 7: main\n",
    "at 0 2 :8 main\n",
    "at 0 2 7:8:9 main\n",
    "at 0 2 -7:8 main\n",
    "at 0 2 7:99999999999 main\n", /* beyond 32 bits */
    "at x 2 7:8 main\n",
    "at 1 2 7:8 main\n",        /* the group (2 launches) overruns the sequence */
    "at 0 1 7:8 main\n",
    "at 0 257 7:8 main\n",      /* beyond KF__MANIFEST_MAX_LAUNCHES */
    "at 0 2 7:8 ma\x01in\n",   /* not a name */
    "at 0 2 7:8 main\nat 0 2 7:8 main\n", /* twice */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[256];
    snprintf(text, sizeof text, HDR G2 "launch 0 0 0\n%send\n", bad[i]);
    expect_error(text, KF_EPARSE, i + 1 == sizeof bad / sizeof bad[0] ? 7 : 6);
  }
}

#define G3 "group fused_ac 3\nkernel 0 _Z1aPKfPff 3\nkernel 1 _Z1bPKfPf 2\nkernel 2 _Z1cPf 1\n"

/* `rider <i>`: launch i is not fused; the fused kernel's parameters are the
 * others'. */
static void test_rider(void **state)
{
  kf__manifest_t *m = NULL;
  const kf__group_t *g;
  static const char text[] = HDR G3 "rider 1\nlaunch 0 2 0\nequal 0.1 2.0\n"
                                    "footprint 1.1 w 0 4\ndisjoint 0.1 1.1\ndead 0 0.1\nend\n";
  (void)state;
  assert_int_equal(kf__manifest_parse(text, sizeof text, &m, NULL), 0);
  g = &m->groups[0];
  assert_int_equal(g->nlaunches, 3);
  assert_int_equal(g->nriders, 1);
  assert_false(kf__group_rider(g, 0));
  assert_true(kf__group_rider(g, 1));
  assert_false(kf__group_rider(g, 2));
  assert_false(kf__group_rider(g, 1000));
  assert_int_equal(g->nparams_total, 6);
  assert_int_equal(g->nparams_fused, 4);
  assert_false(kf__group_rider_before(g, 1));
  kf__manifest_free(m);
  /* `before`: the rider runs before the fused kernel. */
  static const char before[] = HDR G3 "rider 1 before\nlaunch 0 0 0\nend\n";
  assert_int_equal(kf__manifest_parse(before, sizeof before, &m, NULL), 0);
  assert_true(kf__group_rider(&m->groups[0], 1));
  assert_true(kf__group_rider_before(&m->groups[0], 1));
  kf__manifest_free(m);
  /* Without riders every parameter is the fused kernel's. */
  assert_int_equal(kf__manifest_parse(valid, sizeof valid, &m, NULL), 0);
  assert_int_equal(m->groups[0].nriders, 0);
  assert_int_equal(m->groups[0].nparams_fused, m->groups[0].nparams_total);
  kf__manifest_free(m);
}

static void test_rider_malformed(void **state)
{
  (void)state;
  static const char *const bad[] = {
    "rider 0\n",             /* the first launch is the fused kernel's */
    "rider 2\n",             /* so is the last */
    "rider 3\n",             /* beyond the group */
    "rider\n",
    "rider 1 2\n",
    "rider 1 after\n",       /* after is the default, never written */
    "rider 1 before x\n",
    "rider x\n",
    "rider 1\nrider 1\n",    /* twice */
    "rider 1\nequal 0.0 1.0\n", /* a rider's wiring is its own */
    "rider 1\ndead 0 1.1\n", /* and its stores are never skipped */
    "rider 1\nle 1 0 1\n",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[256];
    unsigned line = 0;
    snprintf(text, sizeof text, HDR G3 "launch 0 0 0\n%send\n", bad[i]);
    assert_int_equal(parse(text, &line), KF_EPARSE);
  }
  /* The fused kernel's launch shape is never a rider's. */
  assert_int_equal(parse(HDR G3 "rider 1\nlaunch 1 0 0\nend\n", NULL), KF_EPARSE);
  assert_int_equal(parse(HDR G3 "rider 1\nlaunch 0 1 0\nend\n", NULL), KF_EPARSE);
}

/* `shape gran <ipb> <t_0> ... <t_{n-1}>`: instances per block and each
 * launch's threads per instance, 0 for a rider whichever line comes first;
 * a group of the most launches has a field for each. */
static void test_shape_gran(void **state)
{
  static const char text[] = HDR G2 "shape gran 28 1 9\nstream same\nlaunch 0 1 0\nend\n";
  static const char *const riders[] = {
    HDR G3 "rider 1\nshape gran 4 2 0 8\nlaunch 0 2 0\nend\n",
    HDR G3 "shape gran 4 2 0 8\nrider 1\nlaunch 0 2 0\nend\n",
  };
  kf__manifest_t *m = NULL;
  const kf__group_t *g;
  char big[8192];
  size_t n;
  (void)state;
  assert_int_equal(kf__manifest_parse(text, sizeof text, &m, NULL), 0);
  g = &m->groups[0];
  assert_true(g->shape_gran && !g->shape_same && !g->shape_split && g->stream_same);
  assert_int_equal(g->gran_ipb, 28);
  assert_int_equal(g->gran_tpi[0], 1);
  assert_int_equal(g->gran_tpi[1], 9);
  assert_int_equal(g->gran_tpi_max, 9);
  assert_int_equal(g->gran_threads, 252);
  assert_int_equal(g->nparams_fused, 5);
  kf__manifest_free(m);
  /* Blocks of 256 threads over which a stage of 25 threads per instance
   * loops, 64 instances at a time. */
  {
    static const char loops[] = HDR G2 "shape gran 64 1 25 256\nstream same\nlaunch 0 1 0\nend\n";
    assert_int_equal(kf__manifest_parse(loops, sizeof loops, &m, NULL), 0);
    g = &m->groups[0];
    assert_int_equal(g->gran_ipb, 64);
    assert_int_equal(g->gran_tpi_max, 25);
    assert_int_equal(g->gran_threads, 256);
    kf__manifest_free(m);
  }
  for (size_t i = 0; i < sizeof riders / sizeof riders[0]; i++) {
    assert_int_equal(kf__manifest_parse(riders[i], strlen(riders[i]), &m, NULL), 0);
    g = &m->groups[0];
    assert_true(g->shape_gran && kf__group_rider(g, 1));
    assert_int_equal(g->gran_tpi[1], 0);
    assert_int_equal(g->gran_tpi_max, 8);
    assert_int_equal(g->nparams_fused, 4);
    kf__manifest_free(m);
  }
  /* A block of exactly 1024 threads is one block. */
  assert_int_equal(parse(HDR G2 "shape gran 1 1024 1\nlaunch 0 0 0\nend\n", NULL), 0);
  assert_int_equal(parse(HDR G2 "shape gran 1024 1 1\nlaunch 0 0 0\nend\n", NULL), 0);
  assert_int_equal(parse(HDR G2 "shape gran 32 32 7\nlaunch 0 0 0\nend\n", NULL), 0);
  /* KF__MANIFEST_MAX_LAUNCHES launches: 3 + 256 fields on one line. */
  n = (size_t)snprintf(big, sizeof big, HDR "group g %d\n", KF__MANIFEST_MAX_LAUNCHES);
  for (int i = 0; i < KF__MANIFEST_MAX_LAUNCHES; i++)
    n += (size_t)snprintf(big + n, sizeof big - n, "kernel %d k%d 0\n", i, i);
  n += (size_t)snprintf(big + n, sizeof big - n, "shape gran 2");
  for (int i = 0; i < KF__MANIFEST_MAX_LAUNCHES; i++)
    n += (size_t)snprintf(big + n, sizeof big - n, " %d", i == 7 ? 512 : 1);
  n += (size_t)snprintf(big + n, sizeof big - n, "\nlaunch 0 0 0\nend\n");
  assert_true(n < sizeof big);
  assert_int_equal(kf__manifest_parse(big, n, &m, NULL), 0);
  g = &m->groups[0];
  assert_int_equal(g->gran_tpi[KF__MANIFEST_MAX_LAUNCHES - 1], 1);
  assert_int_equal(g->gran_tpi[7], 512);
  assert_int_equal(g->gran_tpi_max, 512);
  kf__manifest_free(m);
}

static void test_shape_gran_malformed(void **state)
{
  /* Wrong on its own line (6: after the header, G2 and `launch`). */
  static const char *const bad[] = {
    "shape gran\n",
    "shape gran 4\n",
    "shape gran 4 1\n",     /* a number per launch */
    "shape gran 4 1 1 1 1\n", /* and at most the block's threads after them */
    "shape gran 4 1 1 0\n",   /* a block of no threads */
    "shape gran 4 1 1 5\n",   /* more threads than the widest stage has */
    "shape gran 64 1 25 1025\n",
    "shape gran 64 1 25\n",   /* 1600 threads, and no loop said */
    "shape gran 0 1 1\n",   /* no instances per block */
    "shape gran x 1 1\n",
    "shape gran 4 1 y\n",
    "shape gran 4 -1 1\n",
    "shape gran 4 1 1.5\n",
    "shape gran 4 1 99999999999\n",
    "shape gran 99999999999 1 1\n",
    "shape gran 1025 1 1\n", /* more than a block */
    "shape gran 2 513 1\n",
    "shape gran 33 1 32\n",
    "shape gran  4 1 1\n",
    "shape grain 4 1 1\n",
  };
  /* Wrong against another line: the second `shape`, or, for what only the
   * `rider` lines decide, `end`. */
  static const struct {
    const char *lines;
    unsigned line;
  } against[] = {
    {HDR G2 "launch 0 0 0\nshape gran 4 1 1\nshape gran 4 1 1\nend\n", 7},
    {HDR G2 "launch 0 0 0\nshape same\nshape gran 4 1 1\nend\n", 7},
    {HDR G2 "launch 0 0 0\nshape gran 4 1 1\nshape split\nend\n", 7},
    {HDR G2 "launch 0 0 0\nshape gran 4 0 1\nend\n", 7},    /* a member without threads */
    {HDR G2 "launch 0 0 0\nshape gran 4 1 0\nend\n", 7},
    {HDR G3 "launch 0 0 0\nshape gran 4 1 0 1\nend\n", 8},  /* 0 without `rider 1` */
    {HDR G3 "launch 0 0 0\nrider 1\nshape gran 4 1 2 1\nend\n", 9}, /* a rider's must be 0 */
    {HDR G3 "launch 0 0 0\nshape gran 4 1 2 1\nrider 1\nend\n", 9},
  };
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[256];
    snprintf(text, sizeof text, HDR G2 "launch 0 0 0\n%send\n", bad[i]);
    expect_error(text, KF_EPARSE, 6);
  }
  for (size_t i = 0; i < sizeof against / sizeof against[0]; i++)
    expect_error(against[i].lines, KF_EPARSE, against[i].line);
}

/* `impl <a>.<p> <from> <to>`: launch a's kernel replaced by an
 * implementation of `to` threads per instance, the `shape gran` line's
 * for that launch; its parameter p counts threads. */
static void test_impl(void **state)
{
  static const char text[] = HDR G3 "shape gran 4 9 0 3\nrider 1\nimpl 0.2 1 9\n"
                                    "impl 2.0 9 3\nlaunch 0 0 0\nend\n";
  static const struct {
    const char *lines;
    unsigned line;
  } against[] = {
    {HDR G2 "launch 0 0 0\nimpl 0.2 1 9\nend\n", 7},                  /* no `shape gran` */
    {HDR G2 "launch 0 0 0\nshape same\nimpl 0.2 1 9\nend\n", 8},
    {HDR G2 "launch 0 0 0\nshape gran 4 9 1\nimpl 0.2 1 3\nend\n", 8}, /* not the stage's */
    {HDR G2 "launch 0 0 0\nshape gran 4 9 1\nimpl 0.2 1 9\nimpl 0.1 1 9\nend\n", 9},
    {HDR G3 "launch 0 0 0\nshape gran 4 9 0 3\nrider 1\nimpl 1.0 1 9\nend\n", 10},
  };
  static const char *const bad[] = {
    "impl 0.2 1\n", "impl 0.2 1 9 9\n", "impl 0.3 1 9\n", "impl 2.0 1 9\n", "impl 0 1 9\n",
    "impl 0.2 0 9\n", "impl 0.2 1 0\n", "impl 0.2 1 1025\n", "impl 0.2 -1 9\n", "impl 0.2 x 9\n",
  };
  kf__manifest_t *m = NULL;
  const kf__group_t *g;
  (void)state;
  assert_int_equal(kf__manifest_parse(text, sizeof text, &m, NULL), 0);
  g = &m->groups[0];
  assert_int_equal(g->nimpl, 2);
  assert_int_equal(g->impl[0].ref.launch, 0);
  assert_int_equal(g->impl[0].ref.param, 2);
  assert_int_equal(g->impl[0].from, 1);
  assert_int_equal(g->impl[0].to, 9);
  assert_int_equal(g->impl[1].ref.launch, 2);
  assert_int_equal(g->impl[1].from, 9);
  assert_int_equal(g->impl[1].to, 3);
  kf__manifest_free(m);
  for (size_t i = 0; i < sizeof against / sizeof against[0]; i++)
    expect_error(against[i].lines, KF_EPARSE, against[i].line);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char line[256];
    snprintf(line, sizeof line, HDR G2 "launch 0 0 0\nshape gran 4 9 1\n%send\n", bad[i]);
    expect_error(line, KF_EPARSE, 7);
  }
}

/* `align <a>.<p> <bytes>`: a pointer parameter that must be a multiple of
 * a power of two. */
static void test_align(void **state)
{
  static const char text[] = HDR G2 "align 0.0 16\nalign 1.1 8\nlaunch 0 0 0\nend\n";
  static const char *const bad[] = {
    "align 0.0\n", "align 0.0 16 16\n", "align 0.3 16\n", "align 2.0 16\n", "align 0 16\n",
    "align 0.0 0\n", "align 0.0 1\n", "align 0.0 12\n", "align 0.0 8192\n", "align 0.0 x\n",
  };
  kf__manifest_t *m = NULL;
  const kf__group_t *g;
  (void)state;
  assert_int_equal(kf__manifest_parse(text, sizeof text, &m, NULL), 0);
  g = &m->groups[0];
  assert_int_equal(g->nalign, 2);
  assert_int_equal(g->align[0].ref.launch, 0);
  assert_int_equal(g->align[0].ref.param, 0);
  assert_int_equal(g->align[0].bytes, 16);
  assert_int_equal(g->align[1].ref.launch, 1);
  assert_int_equal(g->align[1].ref.param, 1);
  assert_int_equal(g->align[1].bytes, 8);
  kf__manifest_free(m);
  /* A rider's buffer is not the fused kernel's. */
  expect_error(HDR G3 "rider 1\nalign 1.0 16\nlaunch 0 0 0\nend\n", KF_EPARSE, 9);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char line[256];
    snprintf(line, sizeof line, HDR G2 "launch 0 0 0\n%send\n", bad[i]);
    expect_error(line, KF_EPARSE, 6);
  }
}

/* `equal` with byte ranges: a struct's field bytes, its padding left out. */
static void test_equal_ranges(void **state)
{
  static const char text[] =
      HDR G2 "equal 0.1 1.0 0-3,8-23\nequal 0.2 1.1 0-0\nequal 0.0 1.1 0-3,5-5,7-32767\n"
             "launch 0 0 0\nend\n";
  static const char *const bad[] = {
      "equal 0.1 1.0 \n",          "equal 0.1 1.0 3\n",          "equal 0.1 1.0 3-\n",
      "equal 0.1 1.0 -3\n",        "equal 0.1 1.0 3-1\n",        "equal 0.1 1.0 0-3,\n",
      "equal 0.1 1.0 0-3,4-7\n",   "equal 0.1 1.0 8-15,0-3\n",   "equal 0.1 1.0 0-3,2-7\n",
      "equal 0.1 1.0 0-32768\n",   "equal 0.1 1.0 0-3 8-15\n",   "equal 0.1 1.0 0-3;8-15\n",
      "equal 0.1 1.0 0-3,,8-15\n", "disjoint 0.1 1.0 0-3\n",
  };
  kf__manifest_t *m = NULL;
  const kf__group_t *g;
  char many[512];
  size_t at;
  (void)state;
  assert_int_equal(kf__manifest_parse(text, sizeof text, &m, NULL), 0);
  g = &m->groups[0];
  assert_int_equal(g->nequal, 3);
  assert_int_equal(g->equal[0].nranges, 2);
  assert_int_equal(g->equal[0].ranges[0].first, 0);
  assert_int_equal(g->equal[0].ranges[0].last, 3);
  assert_int_equal(g->equal[0].ranges[1].first, 8);
  assert_int_equal(g->equal[0].ranges[1].last, 23);
  assert_int_equal(g->equal[1].nranges, 1);
  assert_int_equal(g->equal[1].ranges[0].last, 0);
  assert_int_equal(g->equal[2].nranges, 3);
  assert_int_equal(g->equal[2].ranges[2].first, 7);
  assert_int_equal(g->equal[2].ranges[2].last, 32767);
  kf__manifest_free(m);
  /* The valid manifest's plain line compares every byte. */
  assert_int_equal(kf__manifest_parse(valid, sizeof valid, &m, NULL), 0);
  assert_int_equal(m->groups[0].equal[0].nranges, 0);
  kf__manifest_free(m);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char line[256];
    snprintf(line, sizeof line, HDR G2 "launch 0 0 0\n%send\n", bad[i]);
    expect_error(line, KF_EPARSE, 6);
  }
  /* At most KF__EQUAL_MAX_RANGES ranges. */
  for (int n = KF__EQUAL_MAX_RANGES; n <= KF__EQUAL_MAX_RANGES + 1; n++) {
    at = (size_t)snprintf(many, sizeof many, HDR G2 "equal 0.1 1.0 ");
    for (int r = 0; r < n; r++)
      at += (size_t)snprintf(many + at, sizeof many - at, "%s%d-%d", r ? "," : "", 4 * r, 4 * r + 1);
    snprintf(many + at, sizeof many - at, "\nlaunch 0 0 0\nend\n");
    if (n == KF__EQUAL_MAX_RANGES) {
      assert_int_equal(kf__manifest_parse(many, strlen(many), &m, NULL), 0);
      assert_int_equal(m->groups[0].equal[0].nranges, KF__EQUAL_MAX_RANGES);
      kf__manifest_free(m);
    } else {
      expect_error(many, KF_EPARSE, 5);
    }
  }
}

/* `field` lines: the parameters after a kernel's own, one after the other,
 * each the pointer at a byte of one of its own parameters. A reference to
 * such a parameter is valid once its line is read; the fused kernel takes
 * them after the kernel's own. */
static void test_fields(void **state)
{
  static const char text[] =
      HDR G2 "field 1.2 0 0\nfield 1.3 0 8\nfield 0.3 2 32760\n"
             "launch 0 0 0\nequal 0.1 1.3\nfootprint 1.2 r 0 8\nend\n";
  static const char *const bad[] = {
      "field 1.3 0 0\n",         /* not the next parameter */
      "field 1.1 0 0\n",         /* one of the kernel's own */
      "field 1.2 2 0\n",         /* the struct is not one of its own */
      "field 1.2 0 32761\n",     /* past the largest byte */
      "field 1.2 0\n",           "field 1.2 0 0 0\n",       "field 2.2 0 0\n",
      "field 1 0 0\n",           "field 1.x 0 0\n",         "equal 0.1 1.2\n",
  };
  kf__manifest_t *m = NULL;
  const kf__group_t *g;
  char many[2048];
  size_t at;
  (void)state;
  assert_int_equal(kf__manifest_parse(text, sizeof text, &m, NULL), 0);
  g = &m->groups[0];
  assert_int_equal(g->nfields, 3);
  assert_int_equal(g->kernels[0].nparams, 3);
  assert_int_equal(g->kernels[0].nfields, 1);
  assert_int_equal(g->kernels[1].nfields, 2);
  assert_int_equal(g->fields[1].ref.launch, 1);
  assert_int_equal(g->fields[1].ref.param, 3);
  assert_int_equal(g->fields[1].param, 0);
  assert_int_equal(g->fields[1].byte, 8);
  assert_int_equal(g->fields[2].byte, 32760);
  assert_int_equal(g->nparams_total, 8);
  assert_int_equal(g->nparams_fused, 8);
  kf__manifest_free(m);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char line[256];
    snprintf(line, sizeof line, HDR G2 "launch 0 0 0\n%send\n", bad[i]);
    expect_error(line, KF_EPARSE, 6);
  }
  /* At most KF__MANIFEST_MAX_FIELDS per launch. */
  for (int n = KF__MANIFEST_MAX_FIELDS; n <= KF__MANIFEST_MAX_FIELDS + 1; n++) {
    at = (size_t)snprintf(many, sizeof many, HDR G2);
    for (int k = 0; k < n; k++)
      at += (size_t)snprintf(many + at, sizeof many - at, "field 1.%d 0 %d\n", 2 + k, 8 * k);
    snprintf(many + at, sizeof many - at, "launch 0 0 0\nend\n");
    if (n == KF__MANIFEST_MAX_FIELDS) {
      assert_int_equal(kf__manifest_parse(many, strlen(many), &m, NULL), 0);
      assert_int_equal(m->groups[0].kernels[1].nfields, KF__MANIFEST_MAX_FIELDS);
      kf__manifest_free(m);
    } else {
      expect_error(many, KF_EPARSE, 4 + (unsigned)n);
    }
  }
}

/* A pair (`part`): two groups whose spans overlap, found together; `other`
 * riders are the other part's launches. */
#define PAIR_A "group pa 3\nkernel 0 _Z1aPKfPff 3\nkernel 1 _Z1bPKfPf 2\nkernel 2 _Z1cPf 1\n" \
               "rider 1 other\nlaunch 0 0 0\n"
#define PAIR_B "group pb 3\nkernel 0 _Z1bPKfPf 2\nkernel 1 _Z1cPf 1\nkernel 2 _Z1dPf 1\n" \
               "rider 1 before other\nlaunch 0 0 0\n"
static void test_pair(void **state)
{
  kf__manifest_t *m = NULL;
  (void)state;
  static const char text[] = HDR PAIR_A "part 0 0 7\nend\n" PAIR_B "part 1 1 7\nend\n";
  assert_int_equal(kf__manifest_parse(text, sizeof text - 1, &m, NULL), 0);
  const kf__group_t *a = &m->groups[0], *b = &m->groups[1];
  assert_ptr_equal(a->part_next, b);
  assert_null(b->part_next);
  assert_int_equal(a->part_count, 2);
  assert_int_equal(b->part_count, 2);
  assert_int_equal(a->part_span, 4);
  assert_int_equal(b->part_offset, 1);
  assert_true(kf__group_rider_other(a, 1));
  assert_false(kf__group_rider_before(a, 1));
  assert_true(kf__group_rider_other(b, 1) && kf__group_rider_before(b, 1));
  assert_false(kf__group_rider_other(b, 0));
  kf__manifest_free(m);
  static const char *const bad[] = {
    HDR PAIR_A "part 0 0 7\nend\n",                              /* alone */
    HDR PAIR_A "part 0 0 7\nend\n" PAIR_B "part 0 0 7\nend\n",   /* two part 0 */
    HDR PAIR_A "part 0 0 7\nend\n" PAIR_B "part 1 1 8\nend\n",   /* other ids */
    HDR PAIR_A "part 0 0 7\nend\n" PAIR_B "part 1 3 7\nend\n",   /* no overlap */
    HDR PAIR_A "part 0 0 7\nend\n" PAIR_B "part 1 2 7\nend\n",   /* other kernels there */
    HDR PAIR_A "part 0 1 7\nend\n" PAIR_B "part 1 1 7\nend\n",   /* part 0 starts the pair */
    HDR PAIR_A "part 0 0 0\nend\n" PAIR_B "part 1 1 0\nend\n",   /* id 0 */
    HDR PAIR_A "part 0 0 7\npart 0 0 7\nend\n" PAIR_B "part 1 1 7\nend\n",
    HDR PAIR_A "part 2 1 7\nend\n" PAIR_B "part 1 1 7\nend\n",
    HDR PAIR_A "end\n",                                           /* other without a pair */
    HDR G3 "rider 1 other before\nlaunch 0 0 0\nend\n",          /* before comes first */
    /* launch 1 run by both parts */
    HDR "group pa 3\nkernel 0 _Z1aPKfPff 3\nkernel 1 _Z1bPKfPf 2\nkernel 2 _Z1cPf 1\n"
        "rider 1\nlaunch 0 0 0\npart 0 0 7\nend\n" PAIR_B "part 1 1 7\nend\n",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (kf__manifest_parse(bad[i], strlen(bad[i]), &m, NULL) != KF_EPARSE)
      fail_msg("case %zu parsed", i);
}

/* A set of three parts: each launch of the span run by exactly one, the
 * parts linked in the order they run. */
#define K1(i, n) "kernel " #i " _Z1" n "Pf 1\n"
#define SET_P0(part) "group p0 5\n" K1(0, "a") K1(1, "b") K1(2, "c") K1(3, "d") K1(4, "e") \
  "rider 1 other\nrider 2 other\nrider 3 other\nlaunch 0 0 0\n" part "end\n"
#define SET_P1(part) "group p1 3\n" K1(0, "b") K1(1, "c") K1(2, "d") \
  "rider 1 before other\nlaunch 0 0 0\n" part "end\n"
#define SET_P2(part) "group p2 4\n" K1(0, "c") K1(1, "d") K1(2, "e") K1(3, "f") \
  "rider 1 other\nrider 2 other\nlaunch 0 0 0\n" part "end\n"
static void test_set(void **state)
{
  kf__manifest_t *m = NULL;
  (void)state;
  static const char text[] =
      HDR SET_P2("part 2 2 3\n") SET_P0("part 0 0 3\n") SET_P1("part 1 1 3\n");
  assert_int_equal(kf__manifest_parse(text, sizeof text - 1, &m, NULL), 0);
  const kf__group_t *p2 = &m->groups[0], *p0 = &m->groups[1], *p1 = &m->groups[2];
  assert_ptr_equal(p0->part_next, p1);
  assert_ptr_equal(p1->part_next, p2);
  assert_null(p2->part_next);
  assert_int_equal(p0->part_count, 3);
  assert_int_equal(p2->part_count, 3);
  assert_int_equal(p0->part_span, 6);
  kf__manifest_free(m);
  static const char planned[] = HDR SET_P0("part 0 0 3\nplans 2 0 6 f 0,1\n")
      SET_P1("part 1 1 3\nplans 2 1 6 f 0,1\n") SET_P2("part 2 2 3\nplans 2 2 6 f 0,1\n");
  assert_int_equal(kf__manifest_parse(planned, sizeof planned - 1, &m, NULL), 0);
  kf__manifest_free(m);
  static const char *const bad[] = {
    HDR SET_P0("part 0 0 3\n") SET_P1("part 1 1 3\n") SET_P2("part 3 2 3\n"), /* no part 2 */
    HDR SET_P0("part 0 0 3\n") SET_P1("part 2 1 3\n") SET_P2("part 1 2 3\n"), /* offsets descend */
    HDR SET_P0("part 0 0 3\n") SET_P1("part 1 1 3\n") SET_P2("part 2 1 3\n"), /* names differ */
    HDR SET_P0("part 0 0 3\n") SET_P1("part 1 1 3\n"),                          /* c, e run by none */
    HDR SET_P0("part 0 0 3\n") SET_P2("part 1 2 3\n") SET_P1("part 2 1 3\n"),
    HDR SET_P1("part 1 1 3\n") SET_P2("part 2 2 3\n"),                          /* no part 0 */
    HDR SET_P0("part 0 0 3\n") SET_P1("part 1 1 3\n") SET_P2("part 2 2 4\n"), /* another set */
    HDR SET_P0("part 0 0 3\n") SET_P1("part 1 1 3\n") SET_P2("part 8 2 3\n"), /* beyond the limit */
    /* parts under other plans */
    HDR SET_P0("part 0 0 3\nplans 2 0 6 f 0\n") SET_P1("part 1 1 3\nplans 2 1 6 f 1\n")
        SET_P2("part 2 2 3\nplans 2 2 6 f 0\n"),
    HDR SET_P0("part 0 0 3\nplans 2 0 6 f 0\n") SET_P1("part 1 1 3\n") SET_P2("part 2 2 3\nplans 2 2 6 f 0\n"),
    HDR SET_P0("part 0 0 3\nplans 2 0 6 f 0\n") SET_P1("part 1 1 3\nplans 2 2 6 f 0\n")
        SET_P2("part 2 2 3\nplans 2 2 6 f 0\n"), /* part 1 placed at 2 */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (kf__manifest_parse(bad[i], strlen(bad[i]), &m, NULL) != KF_EPARSE)
      fail_msg("case %zu parsed", i);
}

/* `missed` lines: between groups only, the reason to the end of the line. */
static void test_missed(void **state)
{
  kf__manifest_t *m = NULL;
  static const char *const bad[] = {
    "missed f 3 2 0 1\n",           /* no reason */
    "missed f 3 2 0 1 \n",          /* empty reason */
    "missed f 3 2 1 1 why\n",       /* first..last of one launch */
    "missed f 3 2 0 2 why\n",       /* beyond the sequence */
    "missed f 3 300 0 1 why\n",     /* longer than any sequence */
    "missed f x 2 0 1 why\n",
    "missed f 3 2 -1 1 why\n",
    "missed  3 2 0 1 why\n",        /* no function */
    "missed f 3 2 0 1 wh\x01y\n",  /* a control character */
    "missed\n",
    "missed f\n",
  };
  char text[2048];
  (void)state;
  assert_int_equal(kf__manifest_parse(HDR "missed main 7 2 0 1 a  b; c\n", 64, &m, NULL), 0);
  assert_int_equal(m->ngroups, 0);
  assert_int_equal(m->nmissed, 1);
  assert_string_equal(m->missed[0].reason, "a  b; c");
  kf__manifest_free(m);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(text, sizeof text, HDR "%s", bad[i]);
    expect_error(text, KF_EPARSE, 2);
  }
  /* Inside a group it is an unknown directive. */
  expect_error(HDR G2 "missed f 3 2 0 1 why\nlaunch 0 0 0\nend\n", KF_EPARSE, 5);
  /* A reason of KF__MANIFEST_MAX_REASON bytes, and one more. */
  for (int extra = 0; extra < 2; extra++) {
    size_t n = (size_t)snprintf(text, sizeof text, HDR "missed f 3 2 0 1 ");
    memset(text + n, 'r', KF__MANIFEST_MAX_REASON + (size_t)extra);
    text[n + KF__MANIFEST_MAX_REASON + (size_t)extra] = '\0';
    if (extra)
      expect_error(text, KF_EPARSE, 2);
    else
      assert_int_equal(parse(text, NULL), 0);
  }
}

static void test_fuzz(void **state)
{
  char buf[sizeof valid];
  unsigned seed = 12345;
  int errors = 0;
  (void)state;
  for (int iter = 0; iter < 20000; iter++) {
    kf__manifest_t *m = NULL;
    size_t len = sizeof valid - 1;
    int rc;
    memcpy(buf, valid, sizeof valid);
    for (int k = 0; k < 1 + iter % 4; k++) {
      seed = seed * 1103515245u + 12345u;
      buf[(seed >> 8) % len] = (char)(" \n.09az-()*+_\x01"[(seed >> 20) % 15]);
    }
    seed = seed * 1103515245u + 12345u;
    if (iter % 3 == 0)
      len = (seed >> 8) % len;
    rc = kf__manifest_parse(buf, len, &m, NULL);
    if (rc != 0) {
      assert_null(m);
      assert_true(rc == KF_EPARSE || rc == KF_ERANGE || rc == KF_EVERSION);
      errors++;
    }
    kf__manifest_free(m);
  }
  assert_true(errors > 1000);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_valid),
    cmocka_unit_test(test_empty_and_unterminated_last_line),
    cmocka_unit_test(test_shape_split),
    cmocka_unit_test(test_version),
    cmocka_unit_test(test_malformed),
    cmocka_unit_test(test_huge_counts),
    cmocka_unit_test(test_bad_expression_is_not_fatal),
    cmocka_unit_test(test_stops_at_nul_and_length),
    cmocka_unit_test(test_plans),
    cmocka_unit_test(test_plans_malformed),
    cmocka_unit_test(test_at),
    cmocka_unit_test(test_at_malformed),
    cmocka_unit_test(test_rider),
    cmocka_unit_test(test_rider_malformed),
    cmocka_unit_test(test_shape_gran),
    cmocka_unit_test(test_shape_gran_malformed),
    cmocka_unit_test(test_impl),
    cmocka_unit_test(test_align),
    cmocka_unit_test(test_equal_ranges),
    cmocka_unit_test(test_fields),
    cmocka_unit_test(test_pair),
    cmocka_unit_test(test_set),
    cmocka_unit_test(test_missed),
    cmocka_unit_test(test_fuzz),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
