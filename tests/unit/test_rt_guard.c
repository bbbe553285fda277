/* Each guard of a group, checked directly on parsed manifests and
 * hand-built launches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/guard.h"
#include "runtime/scratch.h"
#include "tests/unit/fake_cuda.h"
#include "tests/unit/manifest_testlib.h"

/* ---- guards ---- */

static const char guard_text[] =
    MHDR
    "group fused 2\n"
    "kernel 0 scale 4\n" /* (const float *x, float *t, float a, int n) */
    "kernel 1 axpy 4\n"  /* (const float *t, const float *y, float *o, int n) */
    "shape same\n"
    "stream same\n"
    "dynshmem 0\n"
    "launch 0 0 0\n"
    "equal 0.1 1.0\n"
    "equal 0.3 1.3\n"
    "footprint 0.0 r 0 4*s3\n"
    "footprint 0.1 w 0 4*s3\n"
    "footprint 1.0 r 0 4*s3\n"
    "footprint 1.1 r 0 4*s3\n"
    "footprint 1.2 w 0 4*s3\n"
    "disjoint 0.0 0.1\n"
    "disjoint 1.2 0.0\n"
    "disjoint 1.2 1.1\n"
    "dead 0 0.1\n"
    "end\n";

enum { N = 64 };
static _Alignas(16) float xbuf[N], tbuf[N], ybuf[N], obuf[N], big[4 * N];

typedef struct two {
  const float *x;
  float *t;
  float a;
  int n0;
  const float *t1;
  const float *y;
  float *o;
  int n1;
  void *args0[4], *args1[4];
  kf_launch_t l[2];
} two_t;

static const uint32_t sizes0[4] = {8, 8, 4, 4}; /* scale */
static const uint32_t sizes1[4] = {8, 8, 8, 4}; /* axpy */

static void two_init(two_t *w)
{
  memset(w, 0, sizeof *w);
  w->x = xbuf, w->t = tbuf, w->a = 2.0f, w->n0 = N;
  w->t1 = tbuf, w->y = ybuf, w->o = obuf, w->n1 = N;
  w->args0[0] = &w->x, w->args0[1] = &w->t, w->args0[2] = &w->a, w->args0[3] = &w->n0;
  w->args1[0] = &w->t1, w->args1[1] = &w->y, w->args1[2] = &w->o, w->args1[3] = &w->n1;
  for (int i = 0; i < 2; i++) {
    kf_launch_t *l = &w->l[i];
    l->grid[0] = 1, l->grid[1] = 1, l->grid[2] = 1;
    l->block[0] = N, l->block[1] = 1, l->block[2] = 1;
    l->args = i ? w->args1 : w->args0;
    l->arg_sizes = i ? sizes1 : sizes0;
    l->nargs = 4;
  }
}

static kf__manifest_t *gm;

static int guard_setup(void **state)
{
  (void)state;
  fake_reset();
  fake_alloc(xbuf, sizeof xbuf);
  fake_alloc(tbuf, sizeof tbuf);
  fake_alloc(ybuf, sizeof ybuf);
  fake_alloc(obuf, sizeof obuf);
  fake_alloc(big, sizeof big);
  gm = parse_ok(guard_text);
  return 0;
}

static int guard_teardown(void **state)
{
  (void)state;
  kf__manifest_free(gm);
  gm = NULL;
  return 0;
}

static kf_fallback_t check(two_t *w)
{
  return kf__guards_check(&gm->groups[0], w->l);
}

static void test_all_guards_hold(void **state)
{
  two_t w;
  (void)state;
  two_init(&w);
  assert_int_equal(check(&w), KF_FALLBACK_COUNT);
  /* Distinct buffers with footprints that do not overlap need no driver call. */
  assert_int_equal(fake.calls_range, 0);
}

static void test_wiring(void **state)
{
  two_t w;
  (void)state;
  two_init(&w);
  w.t1 = ybuf; /* axpy reads another buffer than scale wrote */
  assert_int_equal(check(&w), KF_FALLBACK_WIRING);
}

static void test_scalar(void **state)
{
  two_t w;
  (void)state;
  two_init(&w);
  w.n1 = N - 1;
  assert_int_equal(check(&w), KF_FALLBACK_SCALAR);
  two_init(&w);
  w.l[1].arg_sizes = (const uint32_t[]){8, 8, 8, 8}; /* same value, other size */
  assert_int_equal(check(&w), KF_FALLBACK_SCALAR);
}

static void test_shape(void **state)
{
  two_t w;
  (void)state;
  two_init(&w);
  w.l[1].grid[0] = 2;
  assert_int_equal(check(&w), KF_FALLBACK_SHAPE);
  two_init(&w);
  w.l[1].block[2] = 2;
  assert_int_equal(check(&w), KF_FALLBACK_SHAPE);
}

static void test_stream(void **state)
{
  two_t w;
  (void)state;
  two_init(&w);
  w.l[1].stream = (void *)0x77;
  assert_int_equal(check(&w), KF_FALLBACK_STREAM);
}

static void test_dynshmem(void **state)
{
  two_t w;
  (void)state;
  two_init(&w);
  w.l[0].shmem = 16;
  assert_int_equal(check(&w), KF_FALLBACK_SHMEM);
}

static void test_overlap(void **state)
{
  two_t w;
  (void)state;
  /* In place: the output is the input. */
  two_init(&w);
  w.o = ybuf;
  w.x = ybuf;
  assert_int_equal(check(&w), KF_FALLBACK_OVERLAP);
  /* Partial overlap inside one allocation. */
  two_init(&w);
  w.x = big;
  w.o = big + N / 2;
  assert_int_equal(check(&w), KF_FALLBACK_OVERLAP);
  /* Adjacent halves of one allocation do not overlap. */
  two_init(&w);
  w.x = big;
  w.o = big + N;
  assert_int_equal(check(&w), KF_FALLBACK_COUNT);
}

/* `le` lines: an index layout the fused code relies on (rows of a pitched
 * image that do not overlap: the row's extent is at most the pitch). */
static void test_layout(void **state)
{
  static const char text[] = MHDR "group f 2\nkernel 0 scale 4\nkernel 1 axpy 4\nshape same\n"
                                  "le 0 4*bx*gx max(4*s3,-(4*s3))\n"
                                  "le 1 by*gy 1\nlaunch 0 0 0\nend\n";
  kf__manifest_t *m = parse_ok(text);
  two_t w;
  (void)state;
  assert_int_equal(m->groups[0].nle, 2);
  two_init(&w); /* a row of bx*gx = N floats, pitch n0 = N */
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_COUNT);
  w.n0 = N - 1; /* rows overlap */
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_LAYOUT);
  w.n0 = -N; /* rows laid out downwards: |pitch| counts */
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_COUNT);
  two_init(&w);
  w.l[0].grid[1] = w.l[1].grid[1] = 2; /* threads differ in y, no index does */
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_LAYOUT);
  kf__manifest_free(m);

  /* An expression that does not compile fails the guard, not the parse. */
  m = parse_ok(MHDR "group f 2\nkernel 0 scale 4\nkernel 1 axpy 4\nle 0 4*q 1\nlaunch 0 0 0\nend\n");
  two_init(&w);
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_LAYOUT);
  kf__manifest_free(m);

  /* Across launches: launch 1 touches only instances that launch 0
   * completes, with 9 threads per instance in launch 0 and 3 in launch 1:
   * ceil(n1 / 3) <= floor(n0 / 9). */
  m = parse_ok(MHDR "group f 2\nkernel 0 scale 4\nkernel 1 axpy 4\n"
                    "le 1 (s3+2)/3 0 s3/9\nlaunch 0 0 0\nend\n");
  assert_int_equal(m->groups[0].le[0].launch, 1);
  assert_int_equal(m->groups[0].le[0].rhs_launch, 0);
  two_init(&w);
  w.n0 = 9 * 100, w.n1 = 3 * 100; /* the same 100 instances */
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_COUNT);
  w.n1 = 3 * 100 + 1; /* launch 1 begins a 101st instance */
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_LAYOUT);
  w.n1 = 3 * 100, w.n0 = 9 * 100 - 1; /* launch 0 leaves its 100th unfinished */
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_LAYOUT);
  w.n0 = 9 * 100 + 8, w.n1 = 3 * 100 - 2; /* fewer instances in launch 1 */
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_COUNT);
  kf__manifest_free(m);

  /* A launch out of range, or a field missing, is malformed. */
  {
    kf__manifest_t *bad = NULL;
    unsigned line = 0;
    static const char *const texts[] = {
        MHDR "group f 2\nkernel 0 scale 4\nkernel 1 axpy 4\nle 2 1 1\nlaunch 0 0 0\nend\n",
        MHDR "group f 2\nkernel 0 scale 4\nkernel 1 axpy 4\nle 0 1\nlaunch 0 0 0\nend\n",
        MHDR "group f 2\nkernel 0 scale 4\nkernel 1 axpy 4\nle 0 1 2 1\nlaunch 0 0 0\nend\n",
        MHDR "group f 2\nkernel 0 scale 4\nkernel 1 axpy 4\nle 0 1 x 1\nlaunch 0 0 0\nend\n",
        MHDR "group f 2\nkernel 0 scale 4\nkernel 1 axpy 4\nle 0 1 1 1 1\nlaunch 0 0 0\nend\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
      assert_int_equal(kf__manifest_parse(texts[i], strlen(texts[i]), &bad, &line), KF_EPARSE);
      assert_int_equal(line, 5);
    }
  }
}

/* `align` lines: the fused kernel moves the records of x (launch 0) and o
 * (launch 1) in 16-byte words from each buffer's start. */
static void test_align(void **state)
{
  static const char text[] = MHDR "group f 2\nkernel 0 scale 4\nkernel 1 axpy 4\nshape same\n"
                                  "align 0.0 16\nalign 1.2 16\nlaunch 0 0 0\nend\n";
  kf__manifest_t *m = parse_ok(text);
  two_t w;
  (void)state;
  assert_int_equal(m->groups[0].nalign, 2);
  assert_int_equal(m->groups[0].align[1].ref.launch, 1);
  assert_int_equal(m->groups[0].align[1].ref.param, 2);
  assert_int_equal(m->groups[0].align[1].bytes, 16);
  two_init(&w); /* every buffer 16-byte aligned */
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_COUNT);
  w.x = xbuf + 1; /* 4 bytes past a 16-byte boundary */
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_LAYOUT);
  two_init(&w);
  w.o = obuf + 2;
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_LAYOUT);
  two_init(&w);
  w.y = ybuf + 1; /* no line for y */
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_COUNT);
  kf__manifest_free(m);
}

/* `shape gran`: 28 instances per block, launch 0 with one thread each,
 * launch 1 with nine. */
static const char gran_text[] = MHDR "group f 2\nkernel 0 scale 4\nkernel 1 axpy 4\n"
                                     "shape gran 28 1 9\nstream same\nlaunch 0 0 0\nend\n";

static void gran_init(two_t *w, uint32_t gx0, uint32_t bx0, uint32_t gx1, uint32_t bx1)
{
  two_init(w);
  w->l[0].grid[0] = gx0, w->l[0].block[0] = bx0;
  w->l[1].grid[0] = gx1, w->l[1].block[0] = bx1;
}

/* The fused grid covers the launch that needs the most blocks of 28
 * instances; grids and blocks may differ. */
static void test_gran_grid(void **state)
{
  kf__manifest_t *m = parse_ok(gran_text);
  const kf__group_t *g = &m->groups[0];
  two_t w;
  (void)state;
  /* 1024 instances either way: ceil(1024 / 28) = ceil(9216 / 252) = 37. */
  gran_init(&w, 8, 128, 72, 128);
  assert_int_equal(kf__gran_grid_x(g, w.l), 37);
  assert_int_equal(kf__guards_check(g, w.l), KF_FALLBACK_COUNT);
  gran_init(&w, 4, 256, 72, 128);
  assert_int_equal(kf__gran_grid_x(g, w.l), 37);
  assert_int_equal(kf__guards_check(g, w.l), KF_FALLBACK_COUNT);
  /* Launch 1 covers more: ceil(10240 / 252) = 41 over ceil(1024 / 28). */
  gran_init(&w, 8, 128, 80, 128);
  assert_int_equal(kf__gran_grid_x(g, w.l), 41);
  /* Launch 0 covers more: ceil(2048 / 28) = 74 over 37. */
  gran_init(&w, 16, 128, 72, 128);
  assert_int_equal(kf__gran_grid_x(g, w.l), 74);
  /* Rounded up, not past a whole block: 28 and 252 threads are one block,
   * 29 two. */
  gran_init(&w, 1, 28, 1, 252);
  assert_int_equal(kf__gran_grid_x(g, w.l), 1);
  gran_init(&w, 1, 29, 1, 252);
  assert_int_equal(kf__gran_grid_x(g, w.l), 2);
  gran_init(&w, 1, 28, 1, 253);
  assert_int_equal(kf__gran_grid_x(g, w.l), 2);
  /* Every stage's global index must stay an int: 8521760 blocks of 252
   * threads end below 2^31, 8521761 do not. The product of grid.x and
   * block.x is taken in 64 bits. */
  gran_init(&w, 8521760u, 28, 1, 1);
  assert_int_equal(kf__gran_grid_x(g, w.l), 8521760u);
  assert_int_equal(kf__guards_check(g, w.l), KF_FALLBACK_COUNT);
  gran_init(&w, 8521761u, 28, 1, 1);
  assert_int_equal(kf__gran_grid_x(g, w.l), 0);
  assert_int_equal(kf__guards_check(g, w.l), KF_FALLBACK_SHAPE);
  gran_init(&w, 0x7fffffffu, 29, 1, 1);
  assert_int_equal(kf__gran_grid_x(g, w.l), 0);
  assert_int_equal(kf__guards_check(g, w.l), KF_FALLBACK_SHAPE);
  gran_init(&w, 1, 1, 0xffffffffu, 1024);
  assert_int_equal(kf__gran_grid_x(g, w.l), 0);
  assert_int_equal(kf__guards_check(g, w.l), KF_FALLBACK_SHAPE);
  kf__manifest_free(m);
  /* A group of another shape has no such grid. */
  two_init(&w);
  assert_int_equal(kf__gran_grid_x(&gm->groups[0], w.l), 0);
}

/* Every launch must be 1-D and not empty; a rider keeps its own shape. */
static void test_gran_shape(void **state)
{
  kf__manifest_t *m = parse_ok(gran_text);
  const kf__group_t *g = &m->groups[0];
  two_t w;
  kf_launch_t l[3];
  (void)state;
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 7; k++) {
      gran_init(&w, 8, 128, 72, 128);
      switch (k) {
      case 0: w.l[i].grid[1] = 2; break;
      case 1: w.l[i].grid[2] = 2; break;
      case 2: w.l[i].block[1] = 2; break;
      case 3: w.l[i].block[2] = 2; break;
      case 4: w.l[i].grid[0] = 0; break;
      case 5: w.l[i].block[0] = 0; break;
      case 6: w.l[i].grid[1] = 0; break;
      }
      assert_int_equal(kf__gran_grid_x(g, w.l), 0);
      assert_int_equal(kf__guards_check(g, w.l), KF_FALLBACK_SHAPE);
    }
  kf__manifest_free(m);

  m = parse_ok(MHDR "group f 3\nkernel 0 scale 4\nkernel 1 axpy 4\nkernel 2 axpy 4\nrider 1\n"
                    "shape gran 28 1 0 9\nstream same\nlaunch 0 0 0\nend\n");
  g = &m->groups[0];
  gran_init(&w, 8, 128, 72, 128);
  l[0] = w.l[0], l[1] = w.l[1], l[2] = w.l[1];
  l[1].grid[1] = 5, l[1].block[2] = 4; /* the rider: 2-D grid, 3-D block */
  assert_int_equal(kf__gran_grid_x(g, l), 37);
  assert_int_equal(kf__guards_check(g, l), KF_FALLBACK_COUNT);
  l[2].grid[0] = 80;
  assert_int_equal(kf__gran_grid_x(g, l), 41);
  l[2].block[1] = 2;
  assert_int_equal(kf__guards_check(g, l), KF_FALLBACK_SHAPE);
  kf__manifest_free(m);
}

static void test_footprint_errors_fail_safe(void **state)
{
  two_t w;
  char text[sizeof guard_text + 64];
  kf__manifest_t *m;
  char *p;
  (void)state;
  /* Footprint referring to a parameter that is not an integer of 1-8 bytes. */
  strcpy(text, guard_text);
  p = strstr(text, "footprint 0.0 r 0 4*s3");
  memcpy(p, "footprint 0.0 r 0 4*s0", 22); /* s0 is a pointer: still 8 bytes, evaluates */
  m = parse_ok(text);
  two_init(&w);
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_COUNT);
  kf__manifest_free(m);
  memcpy(p, "footprint 0.0 r 0 4*s9", 22); /* no param 9 */
  m = parse_ok(text);
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_OVERLAP);
  kf__manifest_free(m);
  memcpy(p, "footprint 0.0 r 0 4*q3", 22); /* unknown symbol */
  m = parse_ok(text);
  assert_int_equal(kf__guards_check(&m->groups[0], w.l), KF_FALLBACK_OVERLAP);
  kf__manifest_free(m);
}

static const char nofp_text[] =
    MHDR
    "group g 2\nkernel 0 a 1\nkernel 1 b 1\nlaunch 0 0 0\ndisjoint 0.0 1.0\nend\n";

static void test_missing_footprint_uses_allocation(void **state)
{
  kf__manifest_t *m = parse_ok(nofp_text);
  static const uint32_t sz[1] = {8};
  float *p0 = big, *p1 = big + 3 * N;
  void *a0[1] = {&p0}, *a1[1] = {&p1};
  kf_launch_t l[2] = {{NULL, {1, 1, 1}, {1, 1, 1}, 0, NULL, a0, sz, 1, 0, 0},
                      {NULL, {1, 1, 1}, {1, 1, 1}, 0, NULL, a1, sz, 1, 0, 0}};
  float host_only[4];
  (void)state;
  /* Same allocation, no footprints: the whole allocation counts, so overlap. */
  assert_int_equal(kf__guards_check(&m->groups[0], l), KF_FALLBACK_OVERLAP);
  /* Different allocations never overlap. */
  p1 = obuf;
  assert_int_equal(kf__guards_check(&m->groups[0], l), KF_FALLBACK_COUNT);
  /* An address the driver does not know: fail safe. */
  p1 = host_only;
  assert_int_equal(kf__guards_check(&m->groups[0], l), KF_FALLBACK_OVERLAP);
  kf__manifest_free(m);
}

/* The bytes of a parameter that exist: its footprint within its allocation
 * (KFUSE_VERIFY copies them). A footprint past the allocation's end (4*s3
 * with n larger than the buffer) is cut at the end; one inside is kept. */
static void test_param_bytes_within_allocation(void **state)
{
  two_t w;
  uint64_t lo, hi;
  kf__param_ref_t t = {0, 1};
  (void)state;
  two_init(&w);
  assert_int_equal(kf__param_bytes(&gm->groups[0], w.l, t, &lo, &hi), 0);
  assert_int_equal(lo, (uint64_t)(uintptr_t)tbuf);
  assert_int_equal(hi, (uint64_t)(uintptr_t)(tbuf + N));
  w.n0 = N + 100;
  assert_int_equal(kf__param_range(&gm->groups[0], w.l, t, &lo, &hi), 0);
  assert_int_equal(hi, (uint64_t)(uintptr_t)tbuf + 4 * (N + 100));
  assert_int_equal(kf__param_bytes(&gm->groups[0], w.l, t, &lo, &hi), 0);
  assert_int_equal(lo, (uint64_t)(uintptr_t)tbuf);
  assert_int_equal(hi, (uint64_t)(uintptr_t)(tbuf + N));
  w.n0 = N / 2;
  assert_int_equal(kf__param_bytes(&gm->groups[0], w.l, t, &lo, &hi), 0);
  assert_int_equal(hi, (uint64_t)(uintptr_t)(tbuf + N / 2));
}

/* `equal` with byte ranges: two launches pass a struct by value with
 * padding (an int, 4 bytes of padding, a double; then a size_t, a float
 * and 4 bytes at the end). The runtime compares the fields' bytes alone,
 * so copies that differ in their padding are equal; a field that differs
 * is not, and neither is a range the argument does not hold. */
static void test_equal_field_bytes(void **state)
{
  static const char text[] = MHDR "group fused 2\nkernel 0 ks 2\nkernel 1 kt 2\nshape same\n"
                                  "launch 0 0 0\nequal 0.0 1.0 0-3,8-15\nequal 0.1 1.1 0-11\nend\n";
  static const char whole[] = MHDR "group fused 2\nkernel 0 ks 2\nkernel 1 kt 2\nshape same\n"
                                   "launch 0 0 0\nequal 0.0 1.0\nequal 0.1 1.1\nend\n";
  unsigned char s0[16], s1[16], e0[16], e1[16];
  void *args0[2] = {s0, e0}, *args1[2] = {s1, e1};
  uint32_t sizes[2] = {16, 16}, short_sizes[2] = {16, 8};
  kf_launch_t l[2];
  int k = 7;
  double g = 9.81;
  uint64_t n = 1000;
  float a = 0.5f;
  kf__manifest_t *m = parse_ok(text), *mw = parse_ok(whole);
  (void)state;
  memset(l, 0, sizeof l);
  for (int i = 0; i < 2; i++) {
    unsigned char *s = i ? s1 : s0, *e = i ? e1 : e0;
    memset(s, i ? 0xAB : 0x00, 16); /* the padding differs */
    memset(e, i ? 0xCD : 0x11, 16);
    memcpy(s, &k, 4), memcpy(s + 8, &g, 8);
    memcpy(e, &n, 8), memcpy(e + 8, &a, 4);
    l[i].grid[0] = l[i].grid[1] = l[i].grid[2] = 1;
    l[i].block[0] = 32, l[i].block[1] = l[i].block[2] = 1;
    l[i].args = i ? args1 : args0;
    l[i].arg_sizes = sizes;
    l[i].nargs = 2;
  }
  assert_int_equal(kf__guards_check(&m->groups[0], l), KF_FALLBACK_COUNT);
  /* Every byte compared: the padding makes the same values differ. */
  assert_int_equal(kf__guards_check(&mw->groups[0], l), KF_FALLBACK_SCALAR);
  /* A field byte that differs, in each range. */
  s1[0] ^= 1;
  assert_int_equal(kf__guards_check(&m->groups[0], l), KF_FALLBACK_SCALAR);
  s1[0] ^= 1, s1[15] ^= 0x80;
  assert_int_equal(kf__guards_check(&m->groups[0], l), KF_FALLBACK_SCALAR);
  s1[15] ^= 0x80, e1[11] ^= 1;
  assert_int_equal(kf__guards_check(&m->groups[0], l), KF_FALLBACK_SCALAR);
  e1[11] ^= 1;
  assert_int_equal(kf__guards_check(&m->groups[0], l), KF_FALLBACK_COUNT);
  /* Arguments of 8 bytes: the range 0-11 reaches past them. */
  l[0].arg_sizes = l[1].arg_sizes = short_sizes;
  assert_int_equal(kf__guards_check(&m->groups[0], l), KF_FALLBACK_SCALAR);
  kf__manifest_free(m);
  kf__manifest_free(mw);
}

/* The call's launches: an optional one before the group, the group's two,
 * an optional one after it. */
static uint32_t call_of(kf_launch_t *all, const two_t *w, const kf_launch_t *before,
                        const kf_launch_t *after)
{
  uint32_t n = 0;
  if (before)
    all[n++] = *before;
  all[n++] = w->l[0];
  all[n++] = w->l[1];
  if (after)
    all[n++] = *after;
  return n;
}

static void test_dead_mask(void **state)
{
  two_t w;
  const kf__group_t *g = &gm->groups[0];
  float *later_t = tbuf;
  void *later_args[1] = {&later_t};
  static const uint32_t sz[1] = {8};
  kf_launch_t later = {NULL, {1, 1, 1}, {1, 1, 1}, 0, NULL, later_args, sz, 1, 0, 0};
  kf_launch_t all[4];
  uint32_t n;
  (void)state;
  two_init(&w);
  n = call_of(all, &w, NULL, NULL);
  assert_int_equal(kf__dead_mask(g, all, n, 0), 0); /* host pass proved nothing */
  w.l[0].dead = 1u << 1;
  n = call_of(all, &w, NULL, NULL);
  assert_int_equal(kf__dead_mask(g, all, n, 0), 1);
  /* A later launch of the same call reads t: its stores must stay. */
  n = call_of(all, &w, NULL, &later);
  assert_int_equal(kf__dead_mask(g, all, n, 0), 0);
  later_t = ybuf;
  assert_int_equal(kf__dead_mask(g, all, n, 0), 1);
  /* The bit of another parameter does not count. */
  w.l[0].dead = 1u << 0;
  n = call_of(all, &w, NULL, NULL);
  assert_int_equal(kf__dead_mask(g, all, n, 0), 0);
  /* A rerun bit needs a covered line: this one is not. */
  w.l[0].dead = 0;
  w.l[0].rerun = 1u << 1;
  n = call_of(all, &w, NULL, NULL);
  assert_int_equal(kf__dead_mask(g, all, n, 0), 0);
}

static void test_rerun_mask(void **state)
{
  two_t w;
  char text[sizeof guard_text + 16];
  const char *at = strstr(guard_text, "dead 0 0.1\n");
  kf__manifest_t *m;
  const kf__group_t *g;
  float *other_t = tbuf;
  void *other_args[1] = {&other_t};
  static const uint32_t sz[1] = {8};
  kf_launch_t other = {NULL, {1, 1, 1}, {1, 1, 1}, 0, NULL, other_args, sz, 1, 0, 0};
  kf_launch_t all[4];
  uint32_t n;
  (void)state;
  assert_non_null(at);
  snprintf(text, sizeof text, "%.*sdead 0 0.1 covered\n%s", (int)(at - guard_text), guard_text,
           at + strlen("dead 0 0.1\n"));
  m = parse_ok(text);
  g = &m->groups[0];
  assert_true(g->dead[0].covered);
  two_init(&w);
  w.l[0].rerun = 1u << 1;
  n = call_of(all, &w, NULL, NULL);
  assert_int_equal(kf__dead_mask(g, all, n, 0), 1);
  /* A launch before the group reads t in the next execution before the
   * group writes it: the stores stay. */
  n = call_of(all, &w, &other, NULL);
  assert_int_equal(kf__dead_mask(g, all, n, 1), 0);
  /* As does one after it. */
  n = call_of(all, &w, NULL, &other);
  assert_int_equal(kf__dead_mask(g, all, n, 0), 0);
  /* Launches around the group that do not get t change nothing. */
  other_t = ybuf;
  n = call_of(all, &w, &other, &other);
  assert_int_equal(kf__dead_mask(g, all, n, 1), 1);
  /* Only the parameter's own bit counts. */
  w.l[0].rerun = 1u << 0;
  n = call_of(all, &w, NULL, NULL);
  assert_int_equal(kf__dead_mask(g, all, n, 0), 0);
  kf__manifest_free(m);
}

static void test_scratch_registry(void **state)
{
  char where[64];
  uint64_t lo, hi;
  (void)state;
  assert_int_equal(kf_rt_scratch_at(NULL, 8, "r.c:1"), KF_EINVAL);
  assert_int_equal(kf_rt_scratch_at(tbuf, 0, "r.c:1"), KF_EINVAL);
  assert_int_equal(kf_rt_scratch_at((void *)(uintptr_t)(UINT64_MAX - 4), 8, "r.c:1"), KF_EINVAL);
  assert_false(kf__scratch_any());
  assert_int_equal(kf_rt_scratch_at(tbuf, sizeof tbuf, "r.c:2"), 0);
  assert_int_equal(kf_rt_scratch_at(big, sizeof big, "r.c:3"), 0);
  assert_true(kf__scratch_any());
  /* Overlaps are refused, whichever side. */
  assert_int_equal(kf_rt_scratch_at(&tbuf[N / 2], sizeof tbuf, "r.c:4"), KF_EINVAL);
  assert_int_equal(kf_rt_scratch_at(&big[1], 4, "r.c:5"), KF_EINVAL);
  /* A range inside a declared one is found, with the declaring site. */
  assert_true(kf__scratch_find((uint64_t)(uintptr_t)&tbuf[1], (uint64_t)(uintptr_t)&tbuf[N], &lo, &hi, where,
                               sizeof where));
  assert_int_equal(lo, (uint64_t)(uintptr_t)tbuf);
  assert_int_equal(hi - lo, sizeof tbuf);
  assert_string_equal(where, "r.c:2");
  /* One that leaves it is not. */
  assert_false(kf__scratch_find((uint64_t)(uintptr_t)&tbuf[1], (uint64_t)(uintptr_t)&tbuf[N] + 4, NULL, NULL,
                                NULL, 0));
  assert_false(kf__scratch_find((uint64_t)(uintptr_t)xbuf, (uint64_t)(uintptr_t)&xbuf[1], NULL, NULL, NULL, 0));
  assert_int_equal(kf_rt_scratch_end(&tbuf[1]), KF_ENOENT);
  assert_int_equal(kf_rt_scratch_end(tbuf), 0);
  assert_int_equal(kf_rt_scratch_end(tbuf), KF_ENOENT);
  assert_int_equal(kf_rt_scratch_end(big), 0);
  assert_false(kf__scratch_any());
}

/* The dead mask with declared ranges: the whole write footprint inside, no
 * later launch of the call getting the pointer, reported as declared. */
static void test_dead_mask_scratch_range(void **state)
{
  const kf__group_t *g = &gm->groups[0];
  two_t w;
  kf_launch_t all[4];
  float *later_t = tbuf;
  void *later_args[1] = {&later_t};
  static const uint32_t sz[1] = {8};
  kf_launch_t later = {NULL, {1, 1, 1}, {1, 1, 1}, 0, NULL, later_args, sz, 1, 0, 0};
  uint64_t declared = 99;
  uint32_t n;
  (void)state;
  two_init(&w);
  n = call_of(all, &w, NULL, NULL);
  assert_int_equal(kf__dead_mask_declared(g, all, n, 0, &declared), 0);
  assert_int_equal(declared, 0);
  /* Half of t declared: the footprint (4*n bytes) leaves it. */
  assert_int_equal(kf_rt_scratch_at(tbuf, sizeof tbuf / 2, "d.c:1"), 0);
  assert_int_equal(kf__dead_mask_declared(g, all, n, 0, &declared), 0);
  assert_int_equal(kf_rt_scratch_end(tbuf), 0);
  assert_int_equal(kf_rt_scratch_at(tbuf, sizeof tbuf, "d.c:2"), 0);
  assert_int_equal(kf__dead_mask_declared(g, all, n, 0, &declared), 1);
  assert_int_equal(declared, 1);
  assert_int_equal(kf__dead_mask(g, all, n, 0), 1);
  /* Proven dead as well: not a declaration's doing. */
  w.l[0].dead = 1u << 1;
  n = call_of(all, &w, NULL, NULL);
  assert_int_equal(kf__dead_mask_declared(g, all, n, 0, &declared), 1);
  assert_int_equal(declared, 0);
  /* A later launch of the call reads t: stored, declaration or not. */
  w.l[0].dead = 0;
  n = call_of(all, &w, NULL, &later);
  assert_int_equal(kf__dead_mask_declared(g, all, n, 0, &declared), 0);
  assert_int_equal(declared, 0);
  assert_int_equal(kf_rt_scratch_end(tbuf), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_param_bytes_within_allocation, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_equal_field_bytes, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_all_guards_hold, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_wiring, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_scalar, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_shape, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_stream, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_dynshmem, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_overlap, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_layout, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_align, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_gran_grid, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_gran_shape, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_footprint_errors_fail_safe, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_missing_footprint_uses_allocation, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_dead_mask, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_rerun_mask, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_scratch_registry, guard_setup, guard_teardown),
    cmocka_unit_test_setup_teardown(test_dead_mask_scratch_range, guard_setup, guard_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
