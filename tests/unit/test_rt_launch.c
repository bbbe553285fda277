/* kf_rt_launch_seq() end to end against the fake CUDA table: discovery,
 * fused launches, every fallback, KFUSE_DISABLE/STATS/VERIFY, threads. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#include <cmocka.h>

#include "kfuse/rt.h"
#include "runtime/site.h"
#include "runtime/poison.h"
#include "tests/unit/fake_cuda.h"
#include "tests/unit/rt_testlib.h"

/* The fused launch @p r got launch 0's four arguments, then launch 1's (the
 * fused launches of @p c), then the dead mask. */
static void assert_fused_args(const fake_record_t *r, const call_t *c)
{
  assert_int_equal(r->nargs, 8);
  for (int p = 0; p < 4; p++) {
    assert_ptr_equal(r->args[p], c->args0[p]);
    assert_ptr_equal(r->args[4 + p], c->args1[p]);
  }
}

static void test_fused(void **state)
{
  static kf_site_t site = {"t.cu:10:3 main", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  const fake_record_t *r;
  (void)state;
  memset((void *)&site.cache, 0, sizeof site.cache);
  call_init(&c, "sa");
  c.l[1].block[0] = 32;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sa");
  r = &fake.log[0];
  /* grid of launch 0, block of launch 1, the manifest's shared bytes, the stream */
  assert_int_equal(r->grid[0], 2);
  assert_int_equal(r->block[0], 32);
  assert_int_equal(r->shmem, 32);
  assert_ptr_equal(r->stream, (void *)0x5);
  assert_fused_args(r, &c);
  assert_int_equal(r->dead_mask, 0);
  check_results();
  assert_string_equal(stats_of("t.cu:10:3 main"), "kfuse-stats: t.cu:10:3 main: calls=1 fused=1 fallback=0");
}

/* `shape split`: independent launches of different grids, their blocks side
 * by side along x. The fused launch's grid.x is the sum; each launch's
 * grid.x follows the launches' arguments, before the dead mask. Blocks that
 * differ, a grid.y or grid.z that differs, an empty grid (whose launch
 * fails unfused) or a sum beyond 2^31 - 1 fall back to the original
 * launches. */
static const char split_manifest[] =
    HDR "group fused_so 2\nkernel 0 _Z5scalePKfPffi 4\nkernel 1 _Z5otherPKf 1\n"
        "shape split\nstream same\ndynshmem 0\nlaunch 0 0 0\n"
        "footprint 0.0 r 0 4*s3\nfootprint 0.1 w 0 4*s3\n"
        "disjoint 0.0 0.1\ndisjoint 0.1 1.0\nend\n";

static void split_call(call_t *c, uint32_t g0, uint32_t g1)
{
  call_init(c, "so");
  c->l[0].grid[0] = g0;
  c->l[1].grid[0] = g1;
}

static void test_split(void **state)
{
  static kf_site_t site = {"split", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  const fake_record_t *r;
  (void)state;
  fake.manifest = split_manifest;
  fake_fused("fused_so", 4 + 1 + 2, NULL);
  split_call(&c, 2, 5);
  c.l[0].grid[1] = c.l[1].grid[1] = 3;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_so");
  r = &fake.log[0];
  assert_int_equal(r->grid[0], 7);
  assert_int_equal(r->grid[1], 3);
  assert_int_equal(r->grid[2], 1);
  assert_int_equal(r->block[0], 32);
  assert_int_equal(r->nargs, 7);
  for (int p = 0; p < 4; p++)
    assert_ptr_equal(r->args[p], c.args0[p]);
  assert_ptr_equal(r->args[4], c.argsq[0]);
  assert_int_equal(*(const uint32_t *)r->args[5], 2);
  assert_int_equal(*(const uint32_t *)r->args[6], 5);
  assert_int_equal(r->dead_mask, 0);

  fake.nlog = 0;
  split_call(&c, 2, 5);
  c.l[1].block[0] = 64;
  kf_rt_launch_seq(&site, c.l, c.nl);
  split_call(&c, 2, 5);
  c.l[1].grid[2] = 2;
  kf_rt_launch_seq(&site, c.l, c.nl);
  split_call(&c, 0x7fffffffu, 1);
  kf_rt_launch_seq(&site, c.l, c.nl);
  split_call(&c, 0, 5);
  kf_rt_launch_seq(&site, c.l, c.nl);
  split_call(&c, 0x7ffffffeu, 1);
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z5otherPKf _Z5scalePKfPffi _Z5otherPKf _Z5scalePKfPffi _Z5otherPKf "
             "_Z5scalePKfPffi _Z5otherPKf F:fused_so");
  assert_int_equal(fake.log[8].grid[0], 0x7fffffffu);
  assert_string_equal(stats_of("split"),
                      "kfuse-stats: split: calls=6 fused=2 fallback=4 shape=4");
}

/* `shape gran`: scale with one thread per instance, axpy with nine, 28
 * instances per block. The fused launch gets one line of blocks of 9 * 28
 * threads, as many as the launch that needs the most, and the arguments of
 * `shape same`; the `launch` line's grid and block launches play no part.
 * A launch that is not 1-D, or a grid beyond 2^31 - 1 blocks, falls back. */
static const char gran_manifest[] =
    HDR "group fused_sg 2\nkernel 0 _Z5scalePKfPffi 4\nkernel 1 _Z4axpyPKfS0_Pfi 4\n"
        "shape gran 28 1 9\nstream same\ndynshmem 0\nlaunch 0 1 32\n"
        "equal 0.1 1.0\nequal 0.3 1.3\n"
        "footprint 0.0 r 0 4*s3\nfootprint 0.1 w 0 4*s3\nfootprint 1.0 r 0 4*s3\n"
        "footprint 1.1 r 0 4*s3\nfootprint 1.2 w 0 4*s3\n"
        "disjoint 0.0 0.1\ndisjoint 1.2 0.0\ndisjoint 1.2 1.1\ndisjoint 1.2 1.0\n"
        "dead 0 0.1\nend\n";

static void gran_call(call_t *c, uint32_t gx0, uint32_t gx1)
{
  call_init(c, "sa");
  c->l[0].grid[0] = gx0, c->l[0].block[0] = 128;
  c->l[1].grid[0] = gx1, c->l[1].block[0] = 128;
}

static void test_gran(void **state)
{
  static kf_site_t site = {"gran", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  const fake_record_t *r;
  (void)state;
  fake.manifest = gran_manifest;
  fake_fused("fused_sg", 8, body_fused);
  gran_call(&c, 8, 72); /* ceil(1024 / 28) = ceil(9216 / 252) = 37 */
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sg");
  r = &fake.log[0];
  assert_int_equal(r->grid[0], 37);
  assert_int_equal(r->grid[1], 1);
  assert_int_equal(r->grid[2], 1);
  assert_int_equal(r->block[0], 252);
  assert_int_equal(r->block[1], 1);
  assert_int_equal(r->block[2], 1);
  assert_int_equal(r->shmem, 32);
  assert_ptr_equal(r->stream, (void *)0x5);
  assert_fused_args(r, &c);
  assert_int_equal(r->dead_mask, 0);
  check_results();

  /* Launch 1 needs more blocks: ceil(10240 / 252) = 41; the memo of the
   * last call does not keep its grid. */
  fake.nlog = 0;
  gran_call(&c, 8, 80);
  kf_rt_launch_seq(&site, c.l, c.nl);
  gran_call(&c, 8, 80);
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sg F:fused_sg");
  assert_int_equal(fake.log[0].grid[0], 41);
  assert_int_equal(fake.log[1].grid[0], 41);
  assert_int_equal(fake.log[1].block[0], 252);

  fake.nlog = 0;
  gran_call(&c, 8, 72);
  c.l[1].grid[1] = 2;
  kf_rt_launch_seq(&site, c.l, c.nl);
  gran_call(&c, 8, 72);
  c.l[0].block[2] = 2;
  kf_rt_launch_seq(&site, c.l, c.nl);
  gran_call(&c, 0x7fffffffu, 72); /* 2^38 - 128 threads of 28: past 2^31 - 1 blocks */
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi _Z5scalePKfPffi _Z4axpyPKfS0_Pfi "
             "_Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  assert_string_equal(stats_of("gran"), "kfuse-stats: gran: calls=6 fused=3 fallback=3 shape=3");
}

/* `shape gran` with the block's threads given: 64 instances per block of
 * 256 threads, over which the nine-thread stage loops. The grid counts
 * blocks of 64 instances; the block is 256 threads, not 9 * 64. */
static void test_gran_loops(void **state)
{
  static kf_site_t site = {"granloop", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  static char text[sizeof gran_manifest + 16];
  const char *at = strstr(gran_manifest, "shape gran 28 1 9\n");
  call_t c;
  (void)state;
  assert_non_null(at);
  snprintf(text, sizeof text, "%.*sshape gran 64 1 9 256\n%s", (int)(at - gran_manifest),
           gran_manifest, at + strlen("shape gran 28 1 9\n"));
  fake.manifest = text;
  fake_fused("fused_sg", 8, body_fused);
  gran_call(&c, 8, 80); /* ceil(1024 / 64) = 16, ceil(10240 / 576) = 18 */
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sg");
  assert_int_equal(fake.log[0].grid[0], 18);
  assert_int_equal(fake.log[0].block[0], 256);
  assert_fused_args(&fake.log[0], &c);
  check_results();
}

/* `impl 0.3 1 9`: launch 0 ran one thread per instance, n0 = N of them;
 * the fused kernel's stage 0 is an implementation with nine, so it gets
 * 9 * N for its parameter 3 and the grid counts 9 * 8 blocks of 128 for
 * it. Launch 1 is left as it is. A size that is not a multiple of
 * `from`, or that the launch's threads do not cover, falls back. */
/* Removes the first @p cut from @p s; replaces @p from by @p to, no longer. */
static void kf_str_cut(char *s, const char *cut)
{
  char *at = strstr(s, cut);
  assert_non_null(at);
  memmove(at, at + strlen(cut), strlen(at + strlen(cut)) + 1);
}
static void kf_str_swap(char *s, const char *from, const char *to)
{
  char *at = strstr(s, from);
  size_t nf = strlen(from), nt = strlen(to);
  assert_non_null(at);
  assert_true(nt >= nf);
  memmove(at + nt, at + nf, strlen(at + nf) + 1);
  memcpy(at, to, nt);
}

static int impl_n0_seen;
static void body_impl(void **a, const uint32_t *g, const uint32_t *b)
{
  /* The nine-thread stage computes what the one-thread kernel did. */
  void *own[9]; /* eight parameters and the dead mask */
  int n0;
  memcpy(&impl_n0_seen, a[3], sizeof impl_n0_seen);
  n0 = impl_n0_seen / 9;
  memcpy(own, a, sizeof own);
  own[3] = &n0;
  body_fused(own, g, b);
}

static void test_gran_impl(void **state)
{
  static kf_site_t site = {"granimpl", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  static char text[sizeof gran_manifest + 96];
  const char *at = strstr(gran_manifest, "shape gran 28 1 9\n");
  call_t c;
  const fake_record_t *r;
  (void)state;
  assert_non_null(at);
  snprintf(text, sizeof text, "%.*sshape gran 28 9 9\nimpl 0.3 1 9\n%s", (int)(at - gran_manifest),
           gran_manifest, at + strlen("shape gran 28 1 9\n"));
  /* The stage's parameter 3 is its own: no `equal` with launch 1's; its
   * footprints are in its own threads, four bytes per instance. */
  kf_str_cut(text, "equal 0.3 1.3\n");
  kf_str_swap(text, "footprint 0.0 r 0 4*s3", "footprint 0.0 r 0 4*(s3/9)");
  kf_str_swap(text, "footprint 0.1 w 0 4*s3", "footprint 0.1 w 0 4*(s3/9)");
  fake.manifest = text;
  fake_fused("fused_sg", 8, body_impl);
  gran_call(&c, 8, 72); /* ceil(9 * 1024 / 252) = 37 */
  impl_n0_seen = -1;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sg");
  r = &fake.log[0];
  assert_int_equal(r->grid[0], 37);
  assert_int_equal(r->block[0], 252);
  assert_int_equal(impl_n0_seen, 9 * N);
  assert_int_equal(c.n0, N); /* the program's arguments are left alone */
  for (int p = 0; p < 3; p++)
    assert_ptr_equal(r->args[p], c.args0[p]);
  for (int p = 0; p < 4; p++)
    assert_ptr_equal(r->args[4 + p], c.args1[p]);
  check_results();

  /* 32 threads of launch 0 do not cover its N instances: the originals
   * run. */
  fake.nlog = 0;
  gran_call(&c, 1, 72);
  c.l[0].block[0] = 32;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  assert_string_equal(stats_of("granimpl"),
                      "kfuse-stats: granimpl: calls=2 fused=1 fallback=1 layout=1");
}

/* A rider: launch 1 (other) lies between the fused launches and is not
 * fused. The fused kernel gets launches 0 and 2's arguments; the rider runs
 * after it, with its own shape, and only when its footprint is disjoint
 * from what the others write: else all three run in program order. A dead
 * buffer the rider gets is not skipped. */
static const char rider_manifest[] =
    HDR "group fused_sa 3\nkernel 0 _Z5scalePKfPffi 4\nkernel 1 _Z5otherPKf 1\n"
        "kernel 2 _Z4axpyPKfS0_Pfi 4\nrider 1\n"
        "shape same\nstream same\ndynshmem 0\nlaunch 0 2 32\n"
        "equal 0.1 2.0\nequal 0.3 2.3\n"
        "footprint 0.0 r 0 4*s3\nfootprint 0.1 w 0 4*s3\nfootprint 2.0 r 0 4*s3\n"
        "footprint 2.1 r 0 4*s3\nfootprint 2.2 w 0 4*s3\nfootprint 1.0 r 0 4\n"
        "disjoint 0.0 0.1\ndisjoint 2.2 0.0\ndisjoint 2.2 2.1\ndisjoint 2.2 2.0\n"
        "disjoint 1.0 0.1\ndisjoint 1.0 2.2\n"
        "dead 0 0.1\nend\n";

static void test_rider(void **state)
{
  static kf_site_t site = {"rider", NULL, 3, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  const fake_record_t *r;
  (void)state;
  fake.manifest = rider_manifest;
  call_init(&c, "soa");
  c.l[1].grid[0] = 7; /* a rider keeps its own shape */
  c.l[1].block[0] = 64;
  c.l[0].dead = 1u << 1;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sa _Z5otherPKf");
  r = &fake.log[0];
  assert_int_equal(r->grid[0], 2);
  assert_int_equal(r->block[0], 32);
  assert_fused_args(r, &c);
  assert_int_equal(r->dead_mask, 1);
  assert_int_equal(fake.log[1].grid[0], 7);
  assert_int_equal(fake.log[1].block[0], 64);
  assert_ptr_equal(fake.log[1].argv, c.argsq);

  /* The rider reads t, which launch 0 writes: program order. */
  fake.nlog = 0;
  call_init(&c, "soa");
  c.q = tbuf;
  c.l[0].dead = 1u << 1;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z5otherPKf _Z4axpyPKfS0_Pfi");
  check_results();
  assert_string_equal(stats_of("rider"), "kfuse-stats: rider: calls=2 fused=1 fallback=1 overlap=1");
}

/* `rider 1 before`: the rider runs before the fused kernel. When the fused
 * launch fails, the launches that have not run follow in program order: the
 * rider does not run twice. */
static void test_rider_before(void **state)
{
  static kf_site_t site = {"before", NULL, 3, 0, NULL, NULL, NULL, 0, NULL};
  static char text[sizeof rider_manifest + 16];
  char *at;
  call_t c;
  (void)state;
  memcpy(text, rider_manifest, sizeof rider_manifest);
  at = strstr(text, "rider 1\n");
  assert_non_null(at);
  memmove(at + 14, at + 7, strlen(at + 7) + 1);
  memcpy(at, "rider 1 before", 14);
  fake.manifest = text;
  call_init(&c, "soa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5otherPKf F:fused_sa");
  check_results();
  fake.nlog = 0;
  fake.fused_result = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5otherPKf _Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  check_results();
  assert_string_equal(stats_of("before"),
                      "kfuse-stats: before: calls=2 fused=1 fallback=1 launch-failed=1");
}

/* A pair: launches scale, other, axpy, other, as the groups {0, 2} (fused_sa,
 * launch 1 the other part's) and {1, 3} (fused_oo, whose rider 2 ran with
 * the first part), run one after the other. The guards of both run before
 * either; when one fails, all four run in program order. When a part's
 * fused launch fails, that part's own launches run unfused, and the pair
 * goes on in its order; no launch runs twice. */
static const char pair_manifest[] =
    HDR "group fused_sa 3\nkernel 0 _Z5scalePKfPffi 4\nkernel 1 _Z5otherPKf 1\n"
        "kernel 2 _Z4axpyPKfS0_Pfi 4\nrider 1 other\npart 0 0 1\n"
        "shape same\nstream same\ndynshmem 0\nlaunch 0 2 32\n"
        "equal 0.1 2.0\nequal 0.3 2.3\n"
        "footprint 0.0 r 0 4*s3\nfootprint 0.1 w 0 4*s3\nfootprint 2.0 r 0 4*s3\n"
        "footprint 2.1 r 0 4*s3\nfootprint 2.2 w 0 4*s3\nfootprint 1.0 r 0 4\n"
        "disjoint 0.0 0.1\ndisjoint 2.2 0.0\ndisjoint 2.2 2.1\ndisjoint 2.2 2.0\n"
        "disjoint 1.0 0.1\ndisjoint 1.0 2.2\nend\n"
        "group fused_oo 3\nkernel 0 _Z5otherPKf 1\nkernel 1 _Z4axpyPKfS0_Pfi 4\n"
        "kernel 2 _Z5otherPKf 1\nrider 1 before other\npart 1 1 1\n"
        "shape same\nstream same\ndynshmem 0\nlaunch 0 0 0\n"
        "footprint 0.0 r 0 4\nfootprint 2.0 r 0 4\nfootprint 1.2 w 0 4*s3\n"
        "disjoint 1.2 0.0\ndisjoint 1.2 2.0\nend\n";

static void test_pair(void **state)
{
  static kf_site_t site = {"pair", NULL, 4, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.manifest = pair_manifest;
  fake_fused("fused_oo", 2, NULL);
  call_init(&c, "soao");
  c.l[1].grid[0] = c.l[3].grid[0] = 5; /* part 1's shape is its members' */
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sa F:fused_oo");
  check_results();
  assert_int_equal(fake.log[1].grid[0], 5);
  assert_ptr_equal(fake.log[1].args[0], c.argsq[0]);
  assert_ptr_equal(fake.log[1].args[1], c.argsq[0]);
  /* The other launches read what axpy writes: every guard of the pair
   * runs first, and the four run in program order. */
  fake.nlog = 0;
  fill_inputs();
  c.q = obuf;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z5otherPKf _Z4axpyPKfS0_Pfi _Z5otherPKf");
  check_results();
  /* A failed fused launch: each part's own launches, in the pair's order. */
  fake.nlog = 0;
  fill_inputs();
  c.q = ybuf;
  fake.fused_result = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi _Z5otherPKf _Z5otherPKf");
  check_results();
  assert_string_equal(stats_of("pair"),
                      "kfuse-stats: pair: calls=3 fused=1 fallback=2 overlap=1 launch-failed=1");
}

/* A set of three: launches scale, other, axpy, other, other, other as the
 * groups {0, 2} (fused_sa), {1, 4} (fused_ob, axpy before it, launch 3
 * the third part's) and {3, 5} (fused_oc, launch 4 before it, the second
 * part's), run in that order. Every launch runs once, fused or not. */
static const char set_manifest[] =
    HDR "group fused_sa 3\nkernel 0 _Z5scalePKfPffi 4\nkernel 1 _Z5otherPKf 1\n"
        "kernel 2 _Z4axpyPKfS0_Pfi 4\nrider 1 other\npart 0 0 1\n"
        "shape same\nstream same\ndynshmem 0\nlaunch 0 2 32\n"
        "equal 0.1 2.0\nequal 0.3 2.3\n"
        "footprint 0.0 r 0 4*s3\nfootprint 0.1 w 0 4*s3\nfootprint 2.0 r 0 4*s3\n"
        "footprint 2.1 r 0 4*s3\nfootprint 2.2 w 0 4*s3\nfootprint 1.0 r 0 4\n"
        "disjoint 0.0 0.1\ndisjoint 2.2 0.0\ndisjoint 2.2 2.1\ndisjoint 2.2 2.0\n"
        "disjoint 1.0 0.1\ndisjoint 1.0 2.2\nend\n"
        "group fused_ob 4\nkernel 0 _Z5otherPKf 1\nkernel 1 _Z4axpyPKfS0_Pfi 4\n"
        "kernel 2 _Z5otherPKf 1\nkernel 3 _Z5otherPKf 1\nrider 1 before other\nrider 2 other\n"
        "part 1 1 1\nshape same\nstream same\ndynshmem 0\nlaunch 0 0 0\n"
        "footprint 0.0 r 0 4\nfootprint 3.0 r 0 4\nfootprint 2.0 r 0 4\nfootprint 1.2 w 0 4*s3\n"
        "disjoint 1.2 0.0\ndisjoint 1.2 3.0\ndisjoint 1.2 2.0\nend\n"
        "group fused_oc 3\nkernel 0 _Z5otherPKf 1\nkernel 1 _Z5otherPKf 1\n"
        "kernel 2 _Z5otherPKf 1\nrider 1 before other\npart 2 3 1\n"
        "shape same\nstream same\ndynshmem 0\nlaunch 0 0 0\n"
        "footprint 0.0 r 0 4\nfootprint 2.0 r 0 4\nfootprint 1.0 r 0 4\nend\n";

static void test_set(void **state)
{
  static kf_site_t site = {"set", NULL, 6, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.manifest = set_manifest;
  fake_fused("fused_ob", 2, NULL);
  fake_fused("fused_oc", 2, NULL);
  call_init(&c, "soaooo");
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sa F:fused_ob F:fused_oc");
  check_results();
  /* The other launches read what axpy writes: the first part's guard
   * fails, and all six run in program order. */
  fake.nlog = 0;
  fill_inputs();
  c.q = obuf;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z5otherPKf _Z4axpyPKfS0_Pfi _Z5otherPKf _Z5otherPKf _Z5otherPKf");
  check_results();
  /* Failed fused launches: each part's own launches, in the set's order. */
  fake.nlog = 0;
  fill_inputs();
  c.q = ybuf;
  fake.fused_result = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi _Z5otherPKf _Z5otherPKf _Z5otherPKf _Z5otherPKf");
  check_results();
  assert_string_equal(stats_of("set"),
                      "kfuse-stats: set: calls=3 fused=1 fallback=2 overlap=1 launch-failed=1");
}

static void test_dead_mask_passed(void **state)
{
  static kf_site_t site = {"dead", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  call_init(&c, "sa");
  c.l[0].dead = 1u << 1; /* t is dead after the run */
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sa");
  assert_int_equal(fake.log[0].dead_mask, 1);
  assert_true(tbuf[3] == -1); /* the fused kernel skipped the stores */
}

/* `field` lines: kick(Fields f) reads f.h and writes f.u, which its fused
 * stage takes as parameters 1 and 2, the addresses of those bytes of the
 * launch's struct; other(q) reads q, which must be f.u. The guards see the
 * fields as they see pointer parameters: a wiring that differs, an overlap,
 * or a field past the argument's bytes runs the launches unfused. */
struct fields {
  float *h, *u;
  int n;
};
static const char stub_kick;
static const char fields_manifest[] =
    HDR "group fused_ko 2\nkernel 0 _Z4kick6Fields 1\nkernel 1 _Z5otherPKf 1\n"
        "field 0.1 0 0\nfield 0.2 0 8\n"
        "shape same\nstream same\ndynshmem 0\nlaunch 0 0 0\n"
        "equal 0.2 1.0\n"
        "footprint 0.1 r 0 4*s0.16.4\nfootprint 0.2 w 0 4*s0.16.4\n"
        "disjoint 0.1 0.2\ndead 0 0.2 covered\nend\n";

/* The fake table's kick and the fused kernel of fields_manifest. */
static void fields_fake(void)
{
  fake.manifest = fields_manifest;
  fake_kernel(&stub_kick, "_Z4kick6Fields", NULL);
  fake_fused("fused_ko", 4, NULL);
}

static void fields_call(kf_launch_t l[2], struct fields *f, void *args0[1], const float **q, void *args1[1],
                        const uint32_t *size0)
{
  args0[0] = f;
  args1[0] = (void *)q;
  launch_init(&l[0], &stub_kick, args0, size0, 1);
  launch_init(&l[1], &stub_other, args1, sizes1, 1);
}

static void test_fields(void **state)
{
  static kf_site_t site = {"fields", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  static const uint32_t size24[1] = {24}, size12[1] = {12};
  struct fields f = {xbuf, tbuf, N};
  const float *q = tbuf;
  void *args0[1], *args1[1];
  kf_launch_t l[2];
  const fake_record_t *r;
  (void)state;
  fields_fake();
  fields_call(l, &f, args0, &q, args1, size24);
  kf_rt_launch_seq(&site, l, 2);
  assert_log("F:fused_ko");
  r = &fake.log[0];
  assert_int_equal(r->nargs, 4);
  assert_ptr_equal(r->args[0], &f);
  assert_ptr_equal(r->args[1], &f.h);
  assert_ptr_equal(r->args[2], &f.u);
  assert_ptr_equal(r->args[3], &q);
  /* The originals' records are the program's, unchanged. */
  assert_int_equal(l[0].nargs, 1);
  assert_ptr_equal(l[0].args, args0);

  fake.nlog = 0;
  q = ybuf; /* other reads another buffer than kick's f.u */
  kf_rt_launch_seq(&site, l, 2);
  q = tbuf;
  f.h = tbuf; /* f.h and f.u overlap */
  kf_rt_launch_seq(&site, l, 2);
  f.h = xbuf;
  fields_call(l, &f, args0, &q, args1, size12); /* f.u lies past the 12 bytes */
  kf_rt_launch_seq(&site, l, 2);
  assert_log("_Z4kick6Fields _Z5otherPKf _Z4kick6Fields _Z5otherPKf _Z4kick6Fields _Z5otherPKf");
  /* The originals run with the program's arrays. */
  assert_ptr_equal(fake.log[4].argv, args0);
  assert_string_equal(stats_of("fields"),
                      "kfuse-stats: fields: calls=4 fused=1 fallback=3 wiring=1 overlap=1 layout=1");
  assert_int_equal(fake.log[0].dead_mask, 0); /* the site says nothing dead */
}

/* The host pass's table of the pointers a run passes in struct fields: f.u
 * dead after the run sets the `dead` bit of the field's parameter, read
 * only by the run's next execution its `rerun` bit; the same buffer in the
 * struct of a later launch of the run keeps its stores. */
static void test_fields_dead(void **state)
{
  static const kf_field_ptr_t dead_u[] = {{0, 0, 0, KF_FIELD_LIVE}, {0, 0, 8, KF_FIELD_DEAD}};
  static const kf_field_ptr_t rerun_u[] = {{0, 0, 0, KF_FIELD_LIVE}, {0, 0, 8, KF_FIELD_RERUN}};
  static const kf_field_ptr_t read_later[] = {
      {0, 0, 0, KF_FIELD_LIVE}, {0, 0, 8, KF_FIELD_DEAD}, {2, 0, 8, KF_FIELD_LIVE}};
  static kf_site_t site = {"dead-field", NULL, 2, 0, NULL, NULL, NULL, 2, dead_u},
                   rerun = {"rerun-field", NULL, 2, 0, NULL, NULL, NULL, 2, rerun_u},
                   later = {"read-later", NULL, 3, 0, NULL, NULL, NULL, 3, read_later};
  static const uint32_t size24[1] = {24};
  struct fields f = {xbuf, tbuf, N};
  const float *q = tbuf;
  void *args0[1], *args1[1];
  kf_launch_t l[3];
  (void)state;
  fields_fake();
  fields_call(l, &f, args0, &q, args1, size24);
  kf_rt_launch_seq(&site, l, 2);
  assert_log("F:fused_ko");
  assert_int_equal(fake.log[0].dead_mask, 1);
  assert_int_equal(l[0].dead, 0); /* the program's record is unchanged */

  /* Read after the run only by its next execution (a time loop), and every
   * execution writes it first (`covered`). */
  fake.nlog = 0;
  kf_rt_launch_seq(&rerun, l, 2);
  assert_log("F:fused_ko");
  assert_int_equal(fake.log[0].dead_mask, 1);
  assert_int_equal(l[0].rerun, 0);

  fake.nlog = 0;
  l[2] = l[0];
  kf_rt_launch_seq(&later, l, 3);
  assert_log("F:fused_ko _Z4kick6Fields");
  assert_int_equal(fake.log[0].dead_mask, 0);

  /* A run of 60 launches: its records do not fit the runtime's stack
   * buffer, and the copy is allocated. */
  {
    static kf_site_t run60 = {"run-60", NULL, 60, 0, NULL, NULL, NULL, 2, dead_u};
    kf_launch_t many[60];
    many[0] = l[0], many[1] = l[1];
    for (int i = 2; i < 60; i++)
      many[i] = l[1];
    fake.nlog = 0;
    kf_rt_launch_seq(&run60, many, 60);
    assert_int_equal(fake.nlog, 59);
    assert_true(fake.log[0].fused);
    assert_string_equal(fake.log[0].name, "fused_ko");
    assert_ptr_equal(fake.log[0].args[2], &f.u);
    assert_int_equal(fake.log[0].dead_mask, 0); /* the later launches read f.u as q */
  }
}

static void test_discovery_once_per_site(void **state)
{
  static kf_site_t site = {"once", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  call_init(&c, "sa");
  for (int i = 0; i < 5; i++)
    kf_rt_launch_seq(&site, c.l, c.nl);
  assert_int_equal(fake.calls_get_kernel, 2);
  assert_int_equal(fake.nlog, 5);
  assert_string_equal(stats_of("once"), "kfuse-stats: once: calls=5 fused=5 fallback=0");
}

static void test_module_path(void **state)
{
  static kf_site_t site = {"module", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.module_path = 1;
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sa");
  check_results();
  /* Discovery's failed cudaGetKernel probes do not leak into the program's error. */
  assert_int_equal(fake.last_error, cudaSuccess);
}

/* An error the program has not read yet when a site is first called: a
 * failed probe of discovery would replace it, and clearing the probe's
 * would clear it too. Discovery waits: the launches run as written, the
 * error stays for the program's cudaGetLastError(), and the first call
 * without a pending error fuses. */
static void test_pending_error(void **state)
{
  static kf_site_t site = {"pending", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.module_path = 1;
  fake.last_error = cudaErrorInvalidValue;
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_int_equal(fake.calls_get_kernel, 0);
  assert_int_equal(fake.last_error, cudaErrorInvalidValue);
  fake.last_error = cudaSuccess;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi _Z5scalePKfPffi _Z4axpyPKfS0_Pfi F:fused_sa");
  assert_int_equal(fake.last_error, cudaSuccess);
  assert_string_equal(stats_of("pending"),
                      "kfuse-stats: pending: calls=3 fused=1 fallback=2 pending-error=2");
}

/* -fgpu-rdc: one library holds every file's manifest. Two files define
 * kernels of the same names (static kernels whose names clang made alike);
 * each site reads the manifest its own file's key names and launches its
 * own file's fused kernel; a site whose file has no manifest there, or
 * whose kernels another file's manifest lists, stays unfused. */
static void test_manifest_per_file(void **state)
{
  static kf_site_t site_a = {"a.cu:5:3 run_a", NULL, 2, 0, NULL, "__kfuse_manifest_aaaaaaaaaaaaaaaa", NULL, 0, NULL};
  static kf_site_t site_b = {"b.cu:7:3 run_b", NULL, 2, 0, NULL, "__kfuse_manifest_bbbbbbbbbbbbbbbb", NULL, 0, NULL};
  static kf_site_t site_c = {"c.cu:9:3 run_c", NULL, 2, 0, NULL, "__kfuse_manifest_cccccccccccccccc", NULL, 0, NULL};
  static const char manifest_b[] = HDR
      "group fused_b 2\nkernel 0 _Z5scalePKfPffi 4\nkernel 1 _Z4axpyPKfS0_Pfi 4\n"
      "shape same\nstream same\ndynshmem 0\nlaunch 0 1 32\n"
      "equal 0.1 1.0\nequal 0.3 1.3\n"
      "footprint 0.0 r 0 4*s3\nfootprint 0.1 w 0 4*s3\nfootprint 1.0 r 0 4*s3\n"
      "footprint 1.1 r 0 4*s3\nfootprint 1.2 w 0 4*s3\n"
      "disjoint 0.0 0.1\ndisjoint 1.2 0.0\ndisjoint 1.2 1.1\ndisjoint 1.2 1.0\n"
      "predict 2000 1200\nend\n";
  call_t c;
  (void)state;
  fake.manifest_symbol = "__kfuse_manifest_aaaaaaaaaaaaaaaa";
  fake.more[0].symbol = "__kfuse_manifest_bbbbbbbbbbbbbbbb";
  fake.more[0].text = manifest_b;
  fake.nmore = 1;
  fake_fused("fused_b", 8, body_fused);
  call_init(&c, "sa");
  kf_rt_launch_seq(&site_a, c.l, c.nl);
  kf_rt_launch_seq(&site_b, c.l, c.nl);
  kf_rt_launch_seq(&site_c, c.l, c.nl);
  kf_rt_launch_seq(&site_a, c.l, c.nl);
  assert_log("F:fused_sa F:fused_b _Z5scalePKfPffi _Z4axpyPKfS0_Pfi F:fused_sa");
  check_results();
  assert_string_equal(stats_of("a.cu:5:3 run_a"), "kfuse-stats: a.cu:5:3 run_a: calls=2 fused=2 fallback=0");
  assert_string_equal(stats_of("b.cu:7:3 run_b"), "kfuse-stats: b.cu:7:3 run_b: calls=1 fused=1 fallback=0");
  assert_string_equal(stats_of("c.cu:9:3 run_c"),
                      "kfuse-stats: c.cu:9:3 run_c: calls=1 fused=0 fallback=1 no-manifest=1");
}

/* Whole-program build of two files that both launch the same template
 * kernels: the linker keeps one file's host stubs, so both files' launches
 * lead to the other file's library, where this file's manifest is not.
 * The site's anchor (a host address registered for one of this file's
 * fused kernels) leads to this file's library: the site fuses, and no
 * manifest is looked for where it is not (a NOT_FOUND API error that
 * compute-sanitizer reports). Without an anchor the site stays unfused. */
static void test_anchor_whole_program(void **state)
{
  static const char anchor = 0;
  static kf_site_t anchored = {"b.cu:5:3 run_b", NULL, 2, 0, NULL, "__kfuse_manifest_bbbbbbbbbbbbbbbb", &anchor, 0, NULL};
  static kf_site_t plain = {"b.cu:9:3 run_b", NULL, 2, 0, NULL, "__kfuse_manifest_bbbbbbbbbbbbbbbb", NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.manifest_symbol = "__kfuse_manifest_bbbbbbbbbbbbbbbb";
  for (int i = 0; i < fake.nkernels; i++)
    fake.kernels[i].other_library = 1;
  fake_kernel(&anchor, "fused_sa", NULL);
  call_init(&c, "sa");
  kf_rt_launch_seq(&anchored, c.l, c.nl);
  kf_rt_launch_seq(&anchored, c.l, c.nl);
  assert_log("F:fused_sa F:fused_sa");
  check_results();
  assert_int_equal(fake.global_misses, 0);
  assert_string_equal(stats_of("b.cu:5:3 run_b"), "kfuse-stats: b.cu:5:3 run_b: calls=2 fused=2 fallback=0");
  fake.nlog = 0;
  kf_rt_launch_seq(&plain, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  assert_int_equal(fake.global_misses, 1);
  assert_string_equal(stats_of("b.cu:9:3 run_b"),
                      "kfuse-stats: b.cu:9:3 run_b: calls=1 fused=0 fallback=1 no-manifest=1");
}

/* An anchor the runtime does not know (not registered): the launches'
 * own modules are asked, as without one. */
static void test_anchor_unknown(void **state)
{
  static const char stray = 0;
  static kf_site_t site = {"stray", NULL, 2, 0, NULL, NULL, &stray, 0, NULL};
  call_t c;
  (void)state;
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sa");
  check_results();
  assert_int_equal(fake.last_error, cudaSuccess);
}

static void test_no_manifest(void **state)
{
  static kf_site_t site = {"nomani", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.manifest = NULL;
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi _Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  check_results();
  assert_string_equal(stats_of("nomani"), "kfuse-stats: nomani: calls=2 fused=0 fallback=2 no-manifest=2");
}

static void run_with_manifest(const char *text, const char *where)
{
  kf_site_t site = {where, NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  fake.manifest = text;
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  check_results();
}

static void test_bad_manifests(void **state)
{
  (void)state;
  run_with_manifest("kfuse-manifest 2\n" GROUP, "v2");
  assert_string_equal(stats_of("v2"), "kfuse-stats: v2: calls=1 fused=0 fallback=1 no-manifest=1");
  fake.nlog = 0;
  run_with_manifest(HDR "group fused_sa 2\nkernel 0 _Z5scalePKfPffi 4\n", "trunc");
  assert_string_equal(stats_of("trunc"), "kfuse-stats: trunc: calls=1 fused=0 fallback=1 no-manifest=1");
  fake.nlog = 0;
  run_with_manifest(HDR GROUP "bogus\n", "bogus");
  assert_string_equal(stats_of("bogus"), "kfuse-stats: bogus: calls=1 fused=0 fallback=1 no-manifest=1");
}

static void test_manifest_bytes_limits(void **state)
{
  (void)state;
  /* A global whose size says more than 16 MiB is not read at all. */
  fake.manifest_bytes = (size_t)64 << 20;
  run_with_manifest(manifest, "huge");
  assert_string_equal(stats_of("huge"), "kfuse-stats: huge: calls=1 fused=0 fallback=1 no-manifest=1");
}

static void test_fused_kernel_missing(void **state)
{
  static kf_site_t site = {"nofused", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.nfused = 0;
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  assert_string_equal(stats_of("nofused"), "kfuse-stats: nofused: calls=1 fused=0 fallback=1 no-match=1");
}

static void test_uncovered_launches(void **state)
{
  static kf_site_t site = {"mixed", NULL, 4, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  call_init(&c, "osao");
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5otherPKf F:fused_sa _Z5otherPKf");
  /* no-match once per call, however many launches ran unfused */
  assert_string_equal(stats_of("mixed"), "kfuse-stats: mixed: calls=1 fused=1 fallback=1 no-match=1");
}

/* The group of the sequence at t.cu:3:5 of main (launches 1..2 of 4) with
 * an `at` line: bound to that site alone. */
static const char manifest_at[] =
    HDR "group fused_sa 2\nkernel 0 _Z5scalePKfPffi 4\nkernel 1 _Z4axpyPKfS0_Pfi 4\n"
        "shape same\nstream same\ndynshmem 0\nlaunch 0 1 32\n"
        "equal 0.1 1.0\nequal 0.3 1.3\n"
        "footprint 0.0 r 0 4*s3\nfootprint 0.1 w 0 4*s3\nfootprint 1.0 r 0 4*s3\n"
        "footprint 1.1 r 0 4*s3\nfootprint 1.2 w 0 4*s3\n"
        "disjoint 0.0 0.1\ndisjoint 1.2 0.0\ndisjoint 1.2 1.1\ndisjoint 1.2 1.0\n"
        "dead 0 0.1\npredict 2000 1200\nat 1 4 3:5 main\nend\n";

/* A bound site runs its own group; launches its plan leaves unfused are the
 * plan, not a `no-match` fallback. A site of the same kernels anywhere else
 * is never bound to that group: its launches run as they are, no-match. */
static void test_at_bound_site(void **state)
{
  static kf_site_t own = {"/src/t.cu:3:5 main", NULL, 4, 0, NULL, NULL, NULL, 0, NULL},
                   other = {"t.cu:9:5 main", NULL, 4, 0, NULL, NULL, NULL, 0, NULL}, pair = {"t.cu:3:5 main", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.manifest = manifest_at;
  call_init(&c, "osao");
  kf_rt_launch_seq(&own, c.l, c.nl);
  kf_rt_launch_seq(&other, c.l, c.nl);
  call_init(&c, "sa");
  kf_rt_launch_seq(&pair, c.l, c.nl);
  assert_log("_Z5otherPKf F:fused_sa _Z5otherPKf "
             "_Z5otherPKf _Z5scalePKfPffi _Z4axpyPKfS0_Pfi _Z5otherPKf "
             "_Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  assert_string_equal(stats_of("/src/t.cu:3:5 main"), "kfuse-stats: /src/t.cu:3:5 main: calls=1 fused=1 fallback=0");
  assert_string_equal(stats_of("t.cu:9:5 main"), "kfuse-stats: t.cu:9:5 main: calls=1 fused=0 fallback=1 no-match=1");
  assert_string_equal(stats_of("t.cu:3:5 main"), "kfuse-stats: t.cu:3:5 main: calls=1 fused=0 fallback=1 no-match=1");
}

static void test_dead_bit_cleared_for_later_reader(void **state)
{
  static kf_site_t site = {"later", NULL, 3, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  call_init(&c, "sao");
  c.q = tbuf; /* the launch after the group reads t */
  c.l[0].dead = 1u << 1;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sa _Z5otherPKf");
  assert_int_equal(fake.log[0].dead_mask, 0);
}

/* Each guard failing on its own, through the whole path. */
static void guard_case(const char *where, void (*spoil)(call_t *), const char *expect_stats)
{
  kf_site_t site = {where, NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  fake.nlog = 0;
  fill_inputs();
  call_init(&c, "sa");
  spoil(&c);
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  assert_string_equal(stats_of(where), expect_stats);
}

static void spoil_wiring(call_t *c) { c->t1 = ybuf; }
static void spoil_scalar(call_t *c) { c->n1 = N / 2; }
static void spoil_overlap(call_t *c) { c->o = (float *)c->x; }
static void spoil_shape(call_t *c) { c->l[1].grid[0] = 3; }
static void spoil_stream(call_t *c) { c->l[1].stream = NULL; }
static void spoil_shmem(call_t *c) { c->l[0].shmem = c->l[1].shmem = 8; }

static void test_guards(void **state)
{
  (void)state;
  guard_case("g-wiring", spoil_wiring, "kfuse-stats: g-wiring: calls=1 fused=0 fallback=1 wiring=1");
  guard_case("g-scalar", spoil_scalar, "kfuse-stats: g-scalar: calls=1 fused=0 fallback=1 scalar=1");
  guard_case("g-overlap", spoil_overlap, "kfuse-stats: g-overlap: calls=1 fused=0 fallback=1 overlap=1");
  guard_case("g-shape", spoil_shape, "kfuse-stats: g-shape: calls=1 fused=0 fallback=1 shape=1");
  guard_case("g-stream", spoil_stream, "kfuse-stats: g-stream: calls=1 fused=0 fallback=1 stream=1");
  guard_case("g-shmem", spoil_shmem, "kfuse-stats: g-shmem: calls=1 fused=0 fallback=1 shmem=1");
}

/* The guard memo: a site whose last call passed must still check a call
 * that differs, whichever guard it breaks, and fuse again afterwards. */
static void memo_case(const char *where, void (*spoil)(call_t *), const char *expect_stats)
{
  kf_site_t site = {where, NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  fake.nlog = 0;
  fill_inputs();
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  kf_rt_launch_seq(&site, c.l, c.nl); /* the memo answers this one */
  spoil(&c);
  kf_rt_launch_seq(&site, c.l, c.nl);
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sa F:fused_sa _Z5scalePKfPffi _Z4axpyPKfS0_Pfi F:fused_sa");
  assert_string_equal(stats_of(where), expect_stats);
}

static void test_guards_after_memo(void **state)
{
  (void)state;
  memo_case("m-wiring", spoil_wiring, "kfuse-stats: m-wiring: calls=4 fused=3 fallback=1 wiring=1");
  memo_case("m-scalar", spoil_scalar, "kfuse-stats: m-scalar: calls=4 fused=3 fallback=1 scalar=1");
  memo_case("m-overlap", spoil_overlap, "kfuse-stats: m-overlap: calls=4 fused=3 fallback=1 overlap=1");
  memo_case("m-shape", spoil_shape, "kfuse-stats: m-shape: calls=4 fused=3 fallback=1 shape=1");
  memo_case("m-stream", spoil_stream, "kfuse-stats: m-stream: calls=4 fused=3 fallback=1 stream=1");
  memo_case("m-shmem", spoil_shmem, "kfuse-stats: m-shmem: calls=4 fused=3 fallback=1 shmem=1");
}

/* A disjointness decided from allocation ranges is never memoized: the
 * driver's answer may change as memory is freed and allocated. */
static void test_no_memo_from_allocations(void **state)
{
  static const char nofp[] = HDR
      "group fused_sa 2\nkernel 0 _Z5scalePKfPffi 4\nkernel 1 _Z4axpyPKfS0_Pfi 4\n"
      "shape same\nstream same\ndynshmem 0\nlaunch 0 1 32\n"
      "equal 0.1 1.0\nequal 0.3 1.3\n"
      "footprint 0.1 w 0 4*s3\nfootprint 1.0 r 0 4*s3\n"
      "footprint 1.1 r 0 4*s3\nfootprint 1.2 w 0 4*s3\n"
      "disjoint 0.0 0.1\ndisjoint 1.2 0.0\ndisjoint 1.2 1.1\ndisjoint 1.2 1.0\n"
      "dead 0 0.1\nend\n";
  static kf_site_t site = {"allocs", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  int after_first;
  (void)state;
  fake.manifest = nofp;
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  after_first = fake.calls_range;
  assert_true(after_first > 0);
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_int_equal(fake.calls_range, 2 * after_first);
  assert_log("F:fused_sa F:fused_sa");
}

static void test_fused_launch_fails(void **state)
{
  static kf_site_t site = {"lfail", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.fused_result = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  check_results();
  assert_int_equal(fake.last_error, cudaSuccess); /* the originals succeeded */
  /* When the originals fail too, their error is what the program sees. */
  fake.launch_result = cudaErrorInvalidConfiguration;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_int_equal(fake.last_error, cudaErrorInvalidConfiguration);
  assert_string_equal(stats_of("lfail"), "kfuse-stats: lfail: calls=2 fused=0 fallback=2 launch-failed=2");
}

/* Scratch declarations and KFUSE_VERIFY's poison. */

static void test_scratch_declared_site(void **state)
{
  static kf_site_t site = {"decl", NULL, 2, 2, t_decl, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  call_init(&c, "sa");
  c.l[0].dead = 1u << 1, c.l[1].dead = 1u << 0; /* what the host pass sets */
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("F:fused_sa");
  assert_int_equal(fake.log[0].dead_mask, 1);
  /* No KFUSE_VERIFY: counted, not poisoned. */
  assert_false(all_poisoned(tbuf));
  assert_string_equal(stats_of("decl"), "kfuse-stats: decl: calls=1 fused=1 fallback=0 scratch=1");
}

static void test_scratch_range(void **state)
{
  static kf_site_t site = {"range", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  assert_int_equal(kf_rt_scratch(tbuf, sizeof tbuf), 0);
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_int_equal(fake.log[0].dead_mask, 1);
  /* A later launch of the run gets t: its stores stay. */
  call_init(&c, "sao");
  c.q = tbuf;
  kf_rt_launch_seq(&(kf_site_t){"range3", NULL, 3, 0, NULL, NULL, NULL, 0, NULL}, c.l, c.nl);
  assert_int_equal(fake.log[1].dead_mask, 0);
  /* Ended: stored again. */
  assert_int_equal(kf_rt_scratch_end(tbuf), 0);
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_int_equal(fake.log[fake.nlog - 1].dead_mask, 0);
  assert_string_equal(stats_of("range"), "kfuse-stats: range: calls=2 fused=2 fallback=0 scratch=1");
}

static void test_scratch_poison(void **state)
{
  static kf_site_t site = {"p1", NULL, 2, 2, t_decl, NULL, NULL, 0, NULL}, reader = {"p2", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  reset_with("scratch", NULL);
  call_init(&c, "sa");
  c.l[0].dead = 1u << 1, c.l[1].dead = 1u << 0;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_true(all_poisoned(tbuf));
  for (int i = 0; i < N; i++) /* the output is the fused kernel's */
    assert_true(obuf[i] == 2.5f * (float)i);
  /* The same run again writes t before reading it: nothing to report. */
  kf_rt_launch_seq(&site, c.l, c.nl);
  /* Another site reads t (as x) before anything writes it. */
  call_init(&c, "sa");
  c.x = tbuf, c.t = t2buf, c.t1 = t2buf;
  kf_rt_launch_seq(&reader, c.l, c.nl);
  unsetenv("KFUSE_VERIFY");
  assert_string_equal(stats_of("p1"), "kfuse-stats: p1: calls=2 fused=2 fallback=0 scratch=2 poisoned=2");
  assert_string_equal(stats_of("p2"), "kfuse-stats: p2: calls=1 fused=1 fallback=0 poison-read=1");
}

static void test_scratch_poison_overwritten(void **state)
{
  static kf_site_t site = {"w1", NULL, 2, 2, t_decl, NULL, NULL, 0, NULL}, reader = {"w2", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  reset_with("1", NULL);
  call_init(&c, "sa");
  c.l[0].dead = 1u << 1, c.l[1].dead = 1u << 0;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_true(all_poisoned(tbuf));
  /* The program rewrites t (a copy the runtime does not see): no report. */
  for (int i = 0; i < N; i++)
    tbuf[i] = 1.0f;
  call_init(&c, "sa");
  c.x = tbuf, c.t = t2buf, c.t1 = t2buf;
  kf_rt_launch_seq(&reader, c.l, c.nl);
  unsetenv("KFUSE_VERIFY");
  assert_string_equal(stats_of("w2"), "kfuse-stats: w2: calls=1 fused=1 fallback=0");
}

static void test_scratch_poison_disabled(void **state)
{
  static kf_site_t site = {"d1", NULL, 2, 2, t_decl, NULL, NULL, 0, NULL}, reader = {"d2", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  reset_with("scratch", "1");
  call_init(&c, "sa");
  c.l[0].dead = 1u << 1, c.l[1].dead = 1u << 0;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  assert_true(all_poisoned(tbuf)); /* the reference run is poisoned as the fused one */
  for (int i = 0; i < N; i++)
    assert_true(obuf[i] == 2.5f * (float)i);
  call_init(&c, "sa");
  c.x = tbuf, c.t = t2buf, c.t1 = t2buf;
  kf_rt_launch_seq(&reader, c.l, c.nl);
  unsetenv("KFUSE_VERIFY");
  unsetenv("KFUSE_DISABLE");
  assert_string_equal(stats_of("d1"), "kfuse-stats: d1: calls=1 fused=0 fallback=1 disabled=1 poisoned=1");
  assert_string_equal(stats_of("d2"), "kfuse-stats: d2: calls=1 fused=0 fallback=1 disabled=1 poison-read=1");
}

static void test_disable(void **state)
{
  static kf_site_t site = {"off", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  setenv("KFUSE_DISABLE", "1", 1);
  fake_reset();
  fake_kernel(&stub_scale, "_Z5scalePKfPffi", body_scale);
  fake_kernel(&stub_axpy, "_Z4axpyPKfS0_Pfi", body_axpy);
  fake_fused("fused_sa", 8, body_fused);
  fake.manifest = manifest;
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl);
  unsetenv("KFUSE_DISABLE");
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  assert_int_equal(fake.calls_get_kernel, 0); /* no discovery at all */
  assert_string_equal(stats_of("off"), "kfuse-stats: off: calls=1 fused=0 fallback=1 disabled=1");
}

static void test_stats_order_and_silence(void **state)
{
  kf_site_t a = {"first", NULL, 2, 0, NULL, NULL, NULL, 0, NULL}, b = {"second", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  char buf[512];
  FILE *f;
  size_t n;
  (void)state;
  call_init(&c, "sa");
  kf_rt_launch_seq(&a, c.l, c.nl);
  kf_rt_launch_seq(&b, c.l, c.nl);
  f = tmpfile();
  kf__stats_print(f);
  rewind(f);
  n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  assert_string_equal(buf, "kfuse-stats: first: calls=1 fused=1 fallback=0\n"
                           "kfuse-stats: second: calls=1 fused=1 fallback=0\n");
  /* Without KFUSE_STATS nothing is printed. */
  unsetenv("KFUSE_STATS");
  kf__rt_test_reset();
  f = tmpfile();
  kf__stats_print(f);
  assert_int_equal(ftell(f), 0);
  fclose(f);
}

/* The group of plan 1 of 3 (plans 0 and 2 run unfused), for launches 0..1. */
static const char manifest_plans[] =
    HDR "group fused_sa 2\nkernel 0 _Z5scalePKfPffi 4\nkernel 1 _Z4axpyPKfS0_Pfi 4\n"
        "shape same\nstream same\ndynshmem 0\nlaunch 0 1 32\n"
        "equal 0.1 1.0\nequal 0.3 1.3\n"
        "footprint 0.0 r 0 4*s3\nfootprint 0.1 w 0 4*s3\nfootprint 1.0 r 0 4*s3\n"
        "footprint 1.1 r 0 4*s3\nfootprint 1.2 w 0 4*s3\n"
        "disjoint 0.0 0.1\ndisjoint 1.2 0.0\ndisjoint 1.2 1.1\ndisjoint 1.2 1.0\n"
        "dead 0 0.1\npredict 2000 1200\nplans 3 0 2 main 1\nend\n";

static void test_select_plan(void **state)
{
  static kf_site_t site = {"t.cu:3:5 main", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.manifest = manifest_plans;
  call_init(&c, "sa");
  assert_int_equal(kf_rt_selected_plan(), 0);
  kf_rt_launch_seq(&site, c.l, c.nl); /* plan 0: unfused */
  kf_rt_select_plan(1);
  assert_int_equal(kf_rt_selected_plan(), 1);
  kf_rt_launch_seq(&site, c.l, c.nl); /* plan 1: the group */
  kf_rt_launch_seq(&site, c.l, c.nl);
  kf_rt_select_plan(2);
  kf_rt_launch_seq(&site, c.l, c.nl); /* plan 2: unfused */
  kf_rt_select_plan(7);                /* the sequence has 3: its best, unfused */
  kf_rt_launch_seq(&site, c.l, c.nl);
  kf_rt_select_plan(KF_RT_MAX_PLANS); /* out of range: plan 0 */
  assert_int_equal(kf_rt_selected_plan(), 0);
  kf_rt_select_plan(1);
  check_results();
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi F:fused_sa F:fused_sa "
             "_Z5scalePKfPffi _Z4axpyPKfS0_Pfi _Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  /* One KFUSE_STATS line per plan the site ran, tagged when not plan 0. */
  assert_string_equal(stats_text(), "kfuse-stats: t.cu:3:5 main: calls=1 fused=0 fallback=1 no-match=1\n"
                                    "kfuse-stats: t.cu:3:5 main: calls=2 fused=2 fallback=0 plan=1\n"
                                    "kfuse-stats: t.cu:3:5 main: calls=1 fused=0 fallback=1 no-match=1 plan=2\n"
                                    "kfuse-stats: t.cu:3:5 main: calls=1 fused=0 fallback=1 no-match=1 plan=7\n");
  kf_rt_select_plan(0);
}

/* The same group bound to its site (`at`): the device pass planned this
 * sequence, so plans 0 and 2, which fuse none of it, run it unfused by
 * choice, not as a `no-match`. */
static const char manifest_plans_at[] =
    HDR "group fused_sa 2\nkernel 0 _Z5scalePKfPffi 4\nkernel 1 _Z4axpyPKfS0_Pfi 4\n"
        "shape same\nstream same\ndynshmem 0\nlaunch 0 1 32\n"
        "equal 0.1 1.0\nequal 0.3 1.3\n"
        "footprint 0.0 r 0 4*s3\nfootprint 0.1 w 0 4*s3\nfootprint 1.0 r 0 4*s3\n"
        "footprint 1.1 r 0 4*s3\nfootprint 1.2 w 0 4*s3\n"
        "disjoint 0.0 0.1\ndisjoint 1.2 0.0\ndisjoint 1.2 1.1\ndisjoint 1.2 1.0\n"
        "dead 0 0.1\npredict 2000 1200\nat 0 2 3:5 main\nplans 3 0 2 main 1\nend\n";

static void test_plan_unfused_by_choice(void **state)
{
  static kf_site_t site = {"t.cu:3:5 main", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.manifest = manifest_plans_at;
  call_init(&c, "sa");
  kf_rt_launch_seq(&site, c.l, c.nl); /* plan 0: unfused, as planned */
  kf_rt_select_plan(1);
  kf_rt_launch_seq(&site, c.l, c.nl); /* plan 1: the group */
  check_results();
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi F:fused_sa");
  assert_string_equal(stats_text(), "kfuse-stats: t.cu:3:5 main: calls=1 fused=0 fallback=0\n"
                                    "kfuse-stats: t.cu:3:5 main: calls=1 fused=1 fallback=0 plan=1\n");
  kf_rt_select_plan(0);
}

/* A group with a `plans` line runs only at its own sequence's sites (same
 * host function, same length) and at its own position there. */
static void test_plan_group_placement(void **state)
{
  static kf_site_t shifted = {"t.cu:3:5 main", NULL, 3, 0, NULL, NULL, NULL, 0, NULL}, other_fn = {"t.cu:3:5 mainx", NULL, 2, 0, NULL, NULL, NULL, 0, NULL},
                   no_debug = {"main launch 4", NULL, 2, 0, NULL, NULL, NULL, 0, NULL}, other_nd = {"xmain launch 4", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.manifest = manifest_plans;
  kf_rt_select_plan(1);
  call_init(&c, "osa"); /* scale, add at launch 1 of 3: not the sequence */
  kf_rt_launch_seq(&shifted, c.l, c.nl);
  call_init(&c, "sa");
  kf_rt_launch_seq(&other_fn, c.l, c.nl);
  kf_rt_launch_seq(&no_debug, c.l, c.nl); /* without debug info: "<fn> launch <i>" */
  kf_rt_launch_seq(&other_nd, c.l, c.nl);
  kf_rt_select_plan(0);
  assert_log("_Z5otherPKf _Z5scalePKfPffi _Z4axpyPKfS0_Pfi _Z5scalePKfPffi _Z4axpyPKfS0_Pfi "
             "F:fused_sa _Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
}

/* KFUSE_PLAN selects the plan from the start; a bad value means plan 0. */
static void test_plan_env(void **state)
{
  static kf_site_t a = {"env.cu:1:1 main", NULL, 2, 0, NULL, NULL, NULL, 0, NULL}, b = {"env.cu:9:1 main", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  setenv("KFUSE_PLAN", "1", 1);
  kf__rt_test_reset();
  fake.manifest = manifest_plans;
  call_init(&c, "sa");
  assert_int_equal(kf_rt_selected_plan(), 1);
  kf_rt_launch_seq(&a, c.l, c.nl);
  assert_log("F:fused_sa");
  static const char *const bad[] = {"x", "-1", "+1", "1x", "256", "99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    setenv("KFUSE_PLAN", bad[i], 1);
    kf__rt_test_reset();
    assert_int_equal(kf_rt_selected_plan(), 0);
  }
  unsetenv("KFUSE_PLAN");
  kf__rt_test_reset();
  fake.manifest = manifest_plans;
  fake.nlog = 0;
  memset((void *)&b.cache, 0, sizeof b.cache);
  kf_rt_launch_seq(&b, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
}

static void test_fallback_names(void **state)
{
  (void)state;
  assert_string_equal(kf_rt_fallback_name(KF_FALLBACK_DISABLED), "disabled");
  assert_string_equal(kf_rt_fallback_name(KF_FALLBACK_LAUNCH), "launch-failed");
  assert_string_equal(kf_rt_fallback_name(KF_FALLBACK_MISMATCH), "verify-mismatch");
  assert_string_equal(kf_rt_fallback_name(KF_FALLBACK_COUNT), "?");
  assert_string_equal(kf_rt_fallback_name((kf_fallback_t)-1), "?");
}

static void verify_call(void)
{
  kf_site_t site = {"v.cu:5:1 f", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  call_init(&c, "sa");
  c.l[0].dead = 1u << 1; /* dead buffers are not compared */
  kf_rt_launch_seq(&site, c.l, c.nl);
}

static void test_verify(void **state)
{
  char err[1024];
  (void)state;
  setenv("KFUSE_VERIFY", "1", 1);
  kf__rt_test_reset();
  capture_stderr(verify_call, err, sizeof err);
  assert_string_equal(err, "");
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi F:fused_sa");
  check_results(); /* the unfused results, t included */
  assert_string_equal(stats_of("v.cu:5:1 f"), "kfuse-stats: v.cu:5:1 f: calls=1 fused=1 fallback=0");

  kf__rt_test_reset();
  fake.nlog = 0;
  fill_inputs();
  fused_bug_at = 5;
  capture_stderr(verify_call, err, sizeof err);
  unsetenv("KFUSE_VERIFY");
  /* 2.5*5 = 12.5f = 0x41480000; the fused kernel wrote 13.5f = 0x41580000:
   * byte 2 of element 5 (offset 22) differs, 0x58 against 0x48. */
  assert_string_equal(err, "kfuse-verify: v.cu:5:1 f: fused_sa: launch 1 (_Z4axpyPKfS0_Pfi) param 2 byte 22: "
                           "fused 0x58 unfused 0x48\n");
  check_results(); /* unfused results kept */
  assert_string_equal(stats_of("v.cu:5:1 f"),
                      "kfuse-stats: v.cu:5:1 f: calls=1 fused=0 fallback=1 verify-mismatch=1");
}

/* Many threads racing on the first call of one site and then calling it. */
enum { THREADS = 8, CALLS = 2000 };
static kf_site_t race_site = {"race", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};

static void *race_body(void *arg)
{
  call_t c;
  (void)arg;
  call_init(&c, "sa");
  for (int i = 0; i < CALLS; i++)
    kf_rt_launch_seq(&race_site, c.l, c.nl);
  return NULL;
}

static void test_threads(void **state)
{
  pthread_t th[THREADS];
  char expect[128];
  (void)state;
  fake.manifest = manifest;
  for (int i = 0; i < THREADS; i++)
    assert_int_equal(pthread_create(&th[i], NULL, race_body, NULL), 0);
  for (int i = 0; i < THREADS; i++)
    pthread_join(th[i], NULL);
  snprintf(expect, sizeof expect, "kfuse-stats: race: calls=%d fused=%d fallback=0", THREADS * CALLS,
           THREADS * CALLS);
  assert_string_equal(stats_of("race"), expect);
  assert_non_null(race_site.cache);
  /* Published once: the registry holds the site exactly once. */
  {
    FILE *f = tmpfile();
    char buf[4096];
    size_t n;
    int lines = 0;
    kf__stats_print(f);
    rewind(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    for (char *p = buf; (p = strstr(p, "race:")) != NULL; p++)
      lines++;
    assert_int_equal(lines, 1);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(test_fused, setup),
    cmocka_unit_test_setup(test_split, setup),
    cmocka_unit_test_setup(test_gran, setup),
    cmocka_unit_test_setup(test_gran_loops, setup),
    cmocka_unit_test_setup(test_gran_impl, setup),
    cmocka_unit_test_setup(test_rider, setup),
    cmocka_unit_test_setup(test_rider_before, setup),
    cmocka_unit_test_setup(test_pair, setup),
    cmocka_unit_test_setup(test_set, setup),
    cmocka_unit_test_setup(test_dead_mask_passed, setup),
    cmocka_unit_test_setup(test_fields, setup),
    cmocka_unit_test_setup(test_fields_dead, setup),
    cmocka_unit_test_setup(test_discovery_once_per_site, setup),
    cmocka_unit_test_setup(test_module_path, setup),
    cmocka_unit_test_setup(test_pending_error, setup),
    cmocka_unit_test_setup(test_manifest_per_file, setup),
    cmocka_unit_test_setup(test_anchor_whole_program, setup),
    cmocka_unit_test_setup(test_anchor_unknown, setup),
    cmocka_unit_test_setup(test_no_manifest, setup),
    cmocka_unit_test_setup(test_bad_manifests, setup),
    cmocka_unit_test_setup(test_manifest_bytes_limits, setup),
    cmocka_unit_test_setup(test_fused_kernel_missing, setup),
    cmocka_unit_test_setup(test_uncovered_launches, setup),
    cmocka_unit_test_setup(test_at_bound_site, setup),
    cmocka_unit_test_setup(test_dead_bit_cleared_for_later_reader, setup),
    cmocka_unit_test_setup(test_guards, setup),
    cmocka_unit_test_setup(test_guards_after_memo, setup),
    cmocka_unit_test_setup(test_no_memo_from_allocations, setup),
    cmocka_unit_test_setup(test_fused_launch_fails, setup),
    cmocka_unit_test_setup(test_disable, setup),
    cmocka_unit_test_setup(test_stats_order_and_silence, setup),
    cmocka_unit_test_setup(test_select_plan, setup),
    cmocka_unit_test_setup(test_plan_unfused_by_choice, setup),
    cmocka_unit_test_setup(test_plan_group_placement, setup),
    cmocka_unit_test_setup(test_plan_env, setup),
    cmocka_unit_test_setup(test_fallback_names, setup),
    cmocka_unit_test_setup(test_verify, setup),
    cmocka_unit_test_setup(test_threads, setup),
    cmocka_unit_test_setup(test_scratch_declared_site, setup),
    cmocka_unit_test_setup(test_scratch_range, setup),
    cmocka_unit_test_setup(test_scratch_poison, setup),
    cmocka_unit_test_setup(test_scratch_poison_overwritten, setup),
    cmocka_unit_test_setup(test_scratch_poison_disabled, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
