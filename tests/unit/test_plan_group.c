/* Unit tests of dag.c, linearize.c and model.c: dependency kinds, convexity,
 * the linearisation with least live staging memory, allocation with
 * fragmentation, occupancy and the psi model. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include "plan_testlib.h"

static int kinds[8][8];
static void rec(void *u, int f, int t, int k)
{
  (void)u;
  kinds[f][t] = k;
}

static void test_dependency_kinds(void **state)
{
  (void)state;
  kf_problem *p;
  int x;
  kf_problem_create(&p);
  kf_problem_add_buffer(p, "x", 0, &x);
  for (int i = 0; i < 4; i++) {
    char n[4] = { 'k', (char)('0' + i), 0 };
    kf_problem_add_launch(p, n, 100, NULL);
  }
  kf_problem_add_access(p, 0, x, KF_WRITE, 4, NULL);  /* k0 writes */
  kf_problem_add_access(p, 1, x, KF_READ, 4, NULL);   /* k1 reads: RAW */
  kf_problem_add_access(p, 2, x, KF_READ, 4, NULL);   /* k2 reads: RAW */
  kf_problem_add_access(p, 3, x, KF_WRITE, 4, NULL);  /* k3: WAR, WAW */
  memset(kinds, 0, sizeof kinds);
  assert_int_equal(kf_problem_foreach_dep(p, rec, NULL), 5);
  assert_int_equal(kinds[0][1], KF_DEP_RAW);
  assert_int_equal(kinds[0][2], KF_DEP_RAW);
  assert_int_equal(kinds[1][3], KF_DEP_WAR);
  assert_int_equal(kinds[2][3], KF_DEP_WAR);
  assert_int_equal(kinds[0][3], KF_DEP_WAW);
  assert_int_equal(kinds[1][2], 0); /* read after read: no edge */
  kf__dag d;
  assert_int_equal(kf__dag_build(p, &d), 0);
  uint64_t s[3];
  int g03[2] = { 0, 3 }, g013[3] = { 0, 1, 3 }, g12[2] = { 1, 2 };
  assert_false(kf__dag_convex(&d, g03, 2, s));  /* 0 -> 1 -> 3 leaves it */
  assert_false(kf__dag_convex(&d, g013, 3, s)); /* 0 -> 2 -> 3 */
  assert_true(kf__dag_convex(&d, g12, 2, s));
  kf__dag_free(&d);
  kf_problem_destroy(p);
}

/* a produces big T1 and small T2; b consumes T1, c consumes T2, d consumes
 * b and c's outputs. Running b right after a frees T1 early. */
static void test_linearisation(void **state)
{
  (void)state;
  kf_problem *p;
  kf_problem_create(&p);
  int T1, T2, U, V, a, c, b, d;
  kf_problem_add_buffer(p, "T1", 1, &T1);
  kf_problem_add_buffer(p, "T2", 1, &T2);
  kf_problem_add_buffer(p, "U", 1, &U);
  kf_problem_add_buffer(p, "V", 1, &V);
  kf_problem_add_launch(p, "a", 100, &a);
  kf_problem_add_launch(p, "c", 100, &c);
  kf_problem_add_launch(p, "b", 100, &b);
  kf_problem_add_launch(p, "d", 100, &d);
  kf_problem_add_access(p, a, T1, KF_WRITE, 400, NULL);
  kf_problem_add_access(p, a, T2, KF_WRITE, 4, NULL);
  kf_problem_add_access(p, c, T2, KF_READ, 4, NULL);
  kf_problem_add_access(p, c, V, KF_WRITE, 400, NULL);
  kf_problem_add_access(p, b, T1, KF_READ, 400, NULL);
  kf_problem_add_access(p, b, U, KF_WRITE, 4, NULL);
  kf_problem_add_access(p, d, U, KF_READ, 4, NULL);
  kf_problem_add_access(p, d, V, KF_READ, 400, NULL);
  kf__dag dg;
  kf__dag_build(p, &dg);
  int mem[4] = { 0, 1, 2, 3 }, order[4], peak;
  assert_int_equal(kf__linearize(p, &dg, mem, 4, order, &peak), 0);
  /* launch order a c b d keeps T1 and V live together (804); a b c d not (408) */
  assert_int_equal(order[0], a);
  assert_int_equal(order[1], b);
  assert_int_equal(order[2], c);
  assert_int_equal(order[3], d);
  assert_int_equal(peak, 408);
  int in_order[4] = { a, c, b, d }, st[8], en[8], sz[8];
  int m = kf__staging_intervals(p, in_order, 4, st, en, sz, 8);
  assert_int_equal(m, 4);
  assert_true(kf__live_peak(st, en, sz, m) > peak);
  kf__dag_free(&dg);
  kf_problem_destroy(p);
}

static void test_allocation(void **state)
{
  (void)state;
  /* No overlap in time: everything at offset 0. */
  int s1[2] = { 0, 2 }, e1[2] = { 1, 3 }, z1[2] = { 100, 50 }, off[4];
  assert_int_equal(kf__allocate(s1, e1, z1, 2, off), 100);
  assert_int_equal(off[0], 0);
  assert_int_equal(off[1], 0);
  /* Classic fragmentation: A [0,1] 40, B [1,2] 40, C [2,3] 60, live peak 100
   * but A and C cannot share B's hole: extent 100 only if C reuses A's space
   * plus above B... B&B finds the optimum, which exceeds the peak. */
  int s2[4] = { 0, 1, 2, 3 }, e2[4] = { 1, 2, 3, 3 }, z2[4] = { 30, 40, 40, 30 };
  int ext = kf__allocate(s2, e2, z2, 4, off);
  int peak = kf__live_peak(s2, e2, z2, 4);
  assert_int_equal(peak, 80);
  assert_true(ext >= peak);
  /* offsets valid: intervals live together do not overlap in memory */
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++)
      if (s2[i] <= e2[j] && s2[j] <= e2[i])
        assert_true(off[i] + z2[i] <= off[j] || off[j] + z2[j] <= off[i]);
  /* A sequence where fragmentation is unavoidable: 10 [0,1], 20 [0,0],
   * 20 [1,2], 10 [2,2] ... the optimum is found and never worse than stacking. */
  int s3[4] = { 0, 0, 1, 2 }, e3[4] = { 1, 0, 2, 2 }, z3[4] = { 10, 20, 20, 10 };
  ext = kf__allocate(s3, e3, z3, 4, off);
  assert_int_equal(kf__live_peak(s3, e3, z3, 4), 30);
  assert_int_equal(ext, 30);
  assert_int_equal(kf__allocate(NULL, NULL, NULL, 0, NULL), 0);
}

static void test_model_occupancy(void **state)
{
  (void)state;
  kf_problem *p;
  kf_problem_create(&p);
  int x, y, l;
  kf_problem_add_buffer(p, "x", 0, &x);
  kf_problem_add_buffer(p, "y", 0, &y);
  kf_problem_add_launch(p, "k", 1 << 24, &l);
  kf_variant_t lean = { "lean", 1, 0, 256, 32, 0, 1, NULL, 0 };
  kf_variant_t fat = { "fat", 1, 0, 256, 255, 0, 1, NULL, 0 };
  kf_variant_t huge = { "huge", 1, 0, 256, 32, 300 * 1024, 1, NULL, 0 };
  kf_problem_add_variant(p, l, &lean);
  kf_problem_add_variant(p, l, &fat);
  kf_problem_add_variant(p, l, &huge);
  kf_problem_add_access(p, l, x, KF_READ, 4, NULL);
  kf_problem_add_access(p, l, y, KF_WRITE, 4, NULL);
  kf_model *m;
  kf_model_create(&m, NULL, KF_MODEL_ROOFLINE);
  kf_estimate_t e0, e1, e2;
  int order[1] = { l }, v0[1] = { 0 }, v1[1] = { 1 }, v2[1] = { 2 };
  assert_int_equal(kf_model_estimate(m, p, order, v0, 1, &e0), 0);
  assert_int_equal(kf_model_estimate(m, p, order, v1, 1, &e1), 0);
  assert_int_equal(kf_model_estimate(m, p, order, v2, 1, &e2), 0);
  assert_true(e0.occupancy == 1.0);
  assert_true(e1.occupancy < 0.25);
  assert_true(e1.time > e0.time);
  assert_true(isinf(e2.time)); /* more shared memory than a block may have */
  kf_profile_t d;
  kf_profile_default(&d);
  assert_true(fabs(e0.time - (8.0 * (1 << 24) / d.bandwidth + d.launch_overhead)) < 1e-12);
  int bad[1] = { 5 };
  assert_int_equal(kf_model_estimate(m, p, order, bad, 1, &e0), KF_EINVAL);
  kf_model_destroy(m);
  kf_problem_destroy(p);
}

/* A buffer carried in registers costs no shared memory: a 3x3 matrix per
 * instance (36 B) between two launches stages 36 B per instance unless the
 * buffer is marked, and then nothing, at unchanged global traffic. */
static void test_registers_not_staged(void **state)
{
  (void)state;
  for (int marked = 0; marked < 2; marked++) {
    kf_problem *p;
    kf_problem_create(&p);
    int x, t, o, a, b;
    kf_problem_add_buffer(p, "x", 0, &x);
    kf_problem_add_buffer(p, "t", 0, &t);
    kf_problem_add_buffer(p, "o", 0, &o);
    assert_int_equal(kf_problem_set_buffer_registers(p, t, marked), 0);
    kf_problem_add_launch(p, "a", 1 << 20, &a);
    kf_problem_add_launch(p, "b", 1 << 20, &b);
    kf_problem_add_access(p, a, x, KF_READ, 36, NULL);
    kf_problem_add_access(p, a, t, KF_WRITE, 36, NULL);
    kf_problem_add_access(p, b, t, KF_READ, 36, NULL);
    kf_problem_add_access(p, b, o, KF_WRITE, 4, NULL);
    kf_model *m;
    kf_model_create(&m, NULL, KF_MODEL_ROOFLINE);
    kf_estimate_t e;
    int ord[2] = { a, b }, v[2] = { 0, 0 };
    assert_int_equal(kf_model_estimate(m, p, ord, v, 2, &e), 0);
    assert_int_equal(e.staging_bytes, marked ? 0 : 36);
    assert_int_equal(e.shared_bytes, marked ? 0 : 36 * e.instances_per_block);
    assert_true(e.bytes == (36.0 + 36 + 4) * (1 << 20)); /* x, t kept, o */
    kf_model_destroy(m);
    kf_problem_destroy(p);
  }
  assert_int_equal(kf_problem_set_buffer_registers(NULL, 0, 1), KF_EINVAL);
  kf_problem *p;
  kf_problem_create(&p);
  assert_int_equal(kf_problem_set_buffer_registers(p, 0, 1), KF_EINVAL);
  kf_problem_destroy(p);
}

/* A stencil consumer (halo of 2 on t) fused with t's producer: the producer
 * runs again for the halo in every block, its loads and flops 2/ipb more;
 * alone, or with a consumer that reads t at its own element, nothing more. */
static void test_halo_recompute(void **state)
{
  (void)state;
  double bytes[2], flops[2];
  int ipb = 0;
  for (int halo = 0; halo < 2; halo++) {
    kf_problem *p;
    kf_problem_create(&p);
    int x, t, o, a, b;
    kf_problem_add_buffer(p, "x", 0, &x);
    kf_problem_add_buffer(p, "t", 0, &t);
    kf_problem_add_buffer(p, "o", 0, &o);
    kf_problem_add_launch(p, "a", 1 << 20, &a);
    kf_problem_add_launch(p, "b", 1 << 20, &b);
    kf_variant_t v = { .flops = 10 };
    kf_problem_add_variant(p, a, &v);
    kf_problem_add_access(p, a, x, KF_READ, 4, NULL);
    kf_problem_add_access(p, a, t, KF_WRITE, 4, NULL);
    kf_problem_add_access(p, b, t, KF_READ, 8, NULL);
    kf_problem_add_access(p, b, o, KF_WRITE, 4, NULL);
    if (halo)
      assert_int_equal(kf_problem_set_halo(p, b, t, 2), 0);
    kf_model *m;
    kf_model_create(&m, NULL, KF_MODEL_ROOFLINE);
    kf_estimate_t e;
    int ord[2] = { a, b }, var[2] = { 0, 0 };
    assert_int_equal(kf_model_estimate(m, p, ord, var, 2, &e), 0);
    bytes[halo] = e.bytes;
    flops[halo] = e.flops;
    ipb = e.instances_per_block;
    /* The producer alone is not recomputed. */
    assert_int_equal(kf_model_estimate(m, p, ord, var, 1, &e), 0);
    assert_true(e.bytes == 8.0 * (1 << 20));
    kf_model_destroy(m);
    /* Only a read of the buffer carries a halo. */
    assert_int_equal(kf_problem_set_halo(p, b, o, 2), KF_EINVAL);
    assert_int_equal(kf_problem_set_halo(p, a, t, 2), KF_EINVAL);
    assert_int_equal(kf_problem_set_halo(p, b, t, -1), KF_EINVAL);
    assert_int_equal(kf_problem_set_halo(p, 7, t, 2), KF_EINVAL);
    kf_problem_destroy(p);
  }
  assert_true(ipb > 0);
  assert_true(bytes[0] == (4.0 + 4 + 4) * (1 << 20)); /* x, t kept, o */
  assert_true(fabs(bytes[1] - bytes[0] - 4.0 * (1 << 20) * 2 / ipb) < 1e-3);
  assert_true(fabs(flops[1] - flops[0] - 10.0 * (1 << 20) * 2 / ipb) < 1e-3);
  assert_int_equal(kf_problem_set_halo(NULL, 0, 0, 1), KF_EINVAL);
}

static int flat_cost(void *u, const kf_problem *p, const int *o, const int *v, int n,
                     kf_estimate_t *out)
{
  (void)p, (void)o, (void)v;
  out->time = *(double *)u * n;
  return 0;
}

static void test_custom_cost_and_psi(void **state)
{
  (void)state;
  kf_problem *p;
  kf_problem_create(&p);
  int x, t, a, b;
  kf_problem_add_buffer(p, "x", 0, &x);
  kf_problem_add_buffer(p, "t", 1, &t);
  kf_problem_add_launch(p, "a", 1000, &a);
  kf_problem_add_launch(p, "b", 1000, &b);
  kf_variant_t va = { "c", 1, 32, 32, 32, 0, 10, "comp", 0 };
  kf_problem_add_variant(p, a, &va);
  kf_problem_add_variant(p, b, &va);
  kf_problem_add_access(p, a, x, KF_READ, 4, "ld");
  kf_problem_add_access(p, a, t, KF_WRITE, 4, "st");
  kf_problem_add_access(p, b, t, KF_READWRITE, 4, "ld");
  kf_problem_add_psi(p, "ld", 32, 0, 1e-6);
  kf_problem_add_psi(p, "ld", 32, 1024, 3e-6);
  kf_problem_add_psi(p, "st", 32, 0, 2e-6);
  kf_problem_add_psi(p, "comp", 32, 0, 0.5e-6);
  kf_model *m;
  kf_model_create(&m, NULL, KF_MODEL_PSI);
  kf_estimate_t e;
  int o1[1] = { a }, v[2] = { 0, 0 };
  assert_int_equal(kf_model_estimate(m, p, o1, v, 1, &e), 0);
  assert_true(fabs(e.memory_time - 3e-6) < 1e-15);  /* ld + st */
  assert_true(fabs(e.compute_time - 0.5e-6) < 1e-15);
  kf_profile_t d;
  kf_profile_default(&d);
  assert_true(fabs(e.time - (3e-6 + d.launch_overhead)) < 1e-15);
  /* fused: a's load of x runs with 4 B x 32 = 128 B extra shared memory, so
   * the 1024 B entry of ld applies; t is dead with all its accesses inside
   * the group, so neither its store nor b's load reaches global memory. */
  int o2[2] = { a, b };
  assert_int_equal(kf_model_estimate(m, p, o2, v, 2, &e), 0);
  assert_int_equal(e.staging_bytes, 4);
  assert_true(fabs(e.memory_time - 3e-6) < 1e-15);
  /* Block dispatch: charged once, overlapped: it decides only when slower
   * than the work (the group asks for 128 B of extra shared memory). */
  kf_problem_add_psi(p, KF_PSI_DISPATCH, 32, 1024, 2e-6);
  assert_int_equal(kf_model_estimate(m, p, o2, v, 2, &e), 0);
  assert_true(fabs(e.time - (3e-6 + d.launch_overhead)) < 1e-15); /* 2 us < 3 us of work */
  kf_problem_add_psi(p, KF_PSI_DISPATCH, 32, 128, 5e-6);  /* fits the request better */
  kf_problem_add_psi(p, KF_PSI_DISPATCH, 64, 0, 50e-6);   /* another ipb: not used */
  assert_int_equal(kf_model_estimate(m, p, o2, v, 2, &e), 0);
  assert_true(fabs(e.time - (5e-6 + d.launch_overhead)) < 1e-15);
  assert_true(fabs(e.memory_time - 3e-6) < 1e-15); /* the work's own terms unchanged */
  double unit = 1e-3;
  kf_model_set_cost(m, flat_cost, &unit);
  assert_int_equal(kf_model_estimate(m, p, o2, v, 2, &e), 0);
  assert_true(e.time == 2e-3);
  kf_model_destroy(m);
  kf_problem_destroy(p);
}

/* A fused block of 256 threads (kfuse's across granularities): a group
 * of a 1-thread and a 25-thread member at 64 instances per block keeps its
 * 64 instances in a block of 256 threads, the 25-thread member looping
 * over 1600 virtual threads in 7 trips; the seed paper's block would hold
 * 40 instances in 1000 threads. The psi lookups follow the instances. */
static void test_fused_block(void **state)
{
  (void)state;
  kf_problem *p;
  assert_int_equal(kf_problem_create(&p), 0);
  int x, t, y, a, b;
  kf_problem_add_buffer(p, "x", 0, &x);
  kf_problem_add_buffer(p, "t", 1, &t);
  kf_problem_add_buffer(p, "y", 0, &y);
  kf_problem_add_launch(p, "a", 1 << 20, &a);
  kf_problem_add_launch(p, "b", 1 << 20, &b);
  kf_variant_t va = { "one", 1, 64, 0, 32, 0, 100, "ca", 0 };
  kf_variant_t vb = { "many", 25, 64, 0, 32, 0, 100, "cb", 0 };
  kf_problem_add_variant(p, a, &va);
  kf_problem_add_variant(p, b, &vb);
  kf_problem_add_access(p, a, x, KF_READ, 4, NULL);
  kf_problem_add_access(p, a, t, KF_WRITE, 4, NULL);
  kf_problem_add_access(p, b, t, KF_READ, 4, NULL);
  kf_problem_add_access(p, b, y, KF_WRITE, 4, NULL);
  kf_problem_add_psi(p, "ca", 32, 0, 1e-6);
  kf_problem_add_psi(p, "ca", 64, 0, 2e-6);
  kf_problem_add_psi(p, "cb", 32, 0, 10e-6);
  kf_problem_add_psi(p, "cb", 64, 0, 20e-6);
  kf_model *m, *r;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_PSI), 0);
  assert_int_equal(kf_model_create(&r, NULL, KF_MODEL_ROOFLINE), 0);
  int o[2] = { a, b }, v[2] = { 0, 0 };
  kf_estimate_t e, paper;
  assert_int_equal(kf_model_estimate(m, p, o, v, 2, &paper), 0);
  assert_int_equal(paper.instances_per_block, 40);
  assert_int_equal(paper.threads_per_block, 1000);
  assert_true(fabs(paper.compute_time - 11e-6) < 1e-15); /* the ipb 32 entries */
  assert_int_equal(kf_problem_set_fused_block(p, -1), KF_EINVAL);
  assert_int_equal(kf_problem_set_fused_block(p, 32769), KF_EINVAL);
  assert_int_equal(kf_problem_set_fused_block(p, 256), 0);
  assert_int_equal(kf_model_estimate(m, p, o, v, 2, &e), 0);
  assert_int_equal(e.instances_per_block, 64);
  assert_int_equal(e.threads_per_block, 256);
  assert_true(fabs(e.compute_time - 22e-6) < 1e-15); /* the ipb 64 entries */
  /* Roofline: a runs 64 of 256 threads (utilisation 1/4); b 1600 virtual
   * threads in 7 trips of 256 (1600 / 1792). Its compute time is the
   * flops over those utilisations, at the same efficiency. */
  kf_estimate_t one;
  int ob[1] = { b }, v1[1] = { 0 };
  assert_int_equal(kf_model_estimate(r, p, o, v, 2, &e), 0);
  assert_int_equal(kf_model_estimate(r, p, ob, v1, 1, &one), 0);
  assert_int_equal(one.threads_per_block, 256);
  double fa = 100.0 * (1 << 20), fb = fa;
  double ratio = e.compute_time / one.compute_time;
  double want = (fa / 0.25 + fb * 1792 / 1600) / (fb * 1792 / 1600);
  assert_true(fabs(ratio - want) < 1e-9 * want);
  /* A block no larger than the members' threads: no loops, no change. */
  assert_int_equal(kf_problem_set_fused_block(p, 4096), 0);
  assert_int_equal(kf_model_estimate(m, p, o, v, 2, &e), 0);
  assert_int_equal(e.threads_per_block, 1024); /* the device's limit */
  assert_int_equal(e.instances_per_block, 64);
  kf_model_destroy(m);
  kf_model_destroy(r);
  kf_problem_destroy(p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dependency_kinds),
    cmocka_unit_test(test_linearisation),
    cmocka_unit_test(test_allocation),
    cmocka_unit_test(test_model_occupancy),
    cmocka_unit_test(test_registers_not_staged),
    cmocka_unit_test(test_halo_recompute),
    cmocka_unit_test(test_custom_cost_and_psi),
    cmocka_unit_test(test_fused_block),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
