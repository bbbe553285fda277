/* Unit tests of the work budget and what keeps plans reproducible and
 * quick: candidate enumeration (complete, or cut by size under the budget),
 * the dynamic program over consecutive groups, plans that never lose to
 * the greedy plan, and absurd sizes refused before they reach the solvers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include "plan_testlib.h"

/* Marks in have[] the member mask of every candidate of c; *maxsize: the
 * largest group that is not consecutive (those are all listed first). */
static void cand_masks(const kf__cands *c, unsigned char *have, int *maxsize)
{
  *maxsize = 1;
  for (int i = 0; i < c->n; i++) {
    const kf__cand *g = &c->c[i];
    have[tl_mask(g)] = 1;
    if (g->n > *maxsize && g->members[g->n - 1] - g->members[0] != g->n - 1)
      *maxsize = g->n;
  }
}

/* want[mask] = 1 for every group the planner must list: connected or
 * consecutive, convex,
 * legal, at most k launches and cheaper than its launches alone. */
static void brute_masks(const kf_problem *p, const kf__dag *d, const kf_model *m, int k,
                        unsigned char *want)
{
  int n = p->nl;
  uint64_t scratch[3 * 4];
  double alone[32];
  kf__cand cd;
  for (int v = 0; v < n; v++) {
    assert_int_equal(kf__cand_eval(p, d, m, &v, 1, &cd), 0);
    alone[v] = cd.cost;
  }
  for (unsigned mask = 1; mask < (1u << n); mask++) {
    int mem[32], c = 0;
    double sum = 0;
    for (int v = 0; v < n; v++)
      if (mask >> v & 1)
        mem[c] = v, sum += alone[v], c++;
    want[mask] = 0;
    if (c < 2 || c > k || !tl_groupable(d, mask) || !kf__dag_convex(d, mem, c, scratch) ||
        (p->legal && !p->legal(p->legal_user, mem, c)))
      continue;
    assert_int_equal(kf__cand_eval(p, d, m, mem, c, &cd), 0);
    want[mask] = cd.cost < sum * (1 - 1e-9);
  }
}

/* With an ample budget the enumeration lists exactly the groups brute force
 * finds (the convex-hull cut loses none); with a small one it stops, says
 * so, and every group smaller than the largest it listed is there. */
static void test_enumeration_vs_subsets(void **state)
{
  (void)state;
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  static unsigned char want[1 << 12], have[1 << 12];
  int truncated_seen = 0, checked = 0;
  for (unsigned seed = 1; seed <= 24; seed++) {
    int n = 8 + (int)(seed % 5), k = 2 + (int)(seed % 7);
    kf_problem *p = seed % 3 == 0 ? tl_synthetic(n, 2 + n / 3, seed)
                    : seed % 3 == 1 ? tl_random_problem(n, 3, seed)
                                    : tl_random_problem(n, 1 + n / 2, seed);
    kf__dag d;
    assert_int_equal(kf__dag_build(p, &d), 0);
    brute_masks(p, &d, m, k, want);
    kf__cands c;
    assert_int_equal(kf__cands_build(p, &d, m, k, 1, tl_work(), &c), 0);
    assert_false(c.truncated);
    memset(have, 0, sizeof have);
    int maxsize;
    cand_masks(&c, have, &maxsize);
    int count = 0;
    for (unsigned mask = 1; mask < (1u << n); mask++) {
      count += want[mask];
      /* dominance pruning may drop a listed group, never add one */
      if (have[mask] && __builtin_popcount(mask) > 1 && !want[mask])
        fail_msg("seed %u: group %#x listed but not a candidate", seed, mask);
    }
    count += n; /* the launches alone */
    if (c.enumerated != count)
      fail_msg("seed %u (n %d, k %d): %d groups listed, brute force %d", seed, n, k,
               c.enumerated, count);
    kf__cands_free(&c);
    /* A budget of a fifth of what the full enumeration spent. */
    kf__work full = { KF_WORK_LIMIT_MAX, 0 };
    assert_int_equal(kf__cands_build(p, &d, m, k, 1, &full, &c), 0);
    kf__cands_free(&c);
    kf__work small = { full.spent / 5 + 1, 0 };
    assert_int_equal(kf__cands_build(p, &d, m, k, 1, &small, &c), 0);
    if (c.truncated) {
      /* every group smaller than the largest listed is there: those the
       * full enumeration lists with k one less (and every consecutive
       * one, which the check against brute force above covers) */
      truncated_seen++;
      memset(have, 0, sizeof have);
      cand_masks(&c, have, &maxsize);
      if (maxsize < 3) { /* the first size was cut: nothing smaller to check */
        kf__cands_free(&c);
        kf__dag_free(&d);
        kf_problem_destroy(p);
        continue;
      }
      kf__cands all;
      checked++;
      assert_int_equal(kf__cands_build(p, &d, m, maxsize - 1, 1, tl_work(), &all), 0);
      for (int i = 0; i < all.n; i++)
        if (!have[tl_mask(&all.c[i])])
          fail_msg("seed %u: a group of %d launches is missing, one of %d is listed", seed,
                   all.c[i].n, maxsize);
      kf__cands_free(&all);
    }
    kf__cands_free(&c);
    kf__dag_free(&d);
    kf_problem_destroy(p);
  }
  assert_true(truncated_seen > 0 && checked > 0);
  kf_model_destroy(m);
}

/* The cost of every plan made of the candidates of p, sorted. */
static double plan_costs[20000];
static int nplan_costs;
static const kf__cands *walk_c;
static void collect(void *user, const int *cands, int n, int acyclic)
{
  (void)user;
  double t = 0;
  for (int i = 0; i < n; i++)
    t += walk_c->c[cands[i]].cost;
  if (acyclic && nplan_costs < (int)(sizeof plan_costs / sizeof plan_costs[0]))
    plan_costs[nplan_costs++] = t;
}
static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Only consecutive groups: the dynamic program's k best plans are those of
 * every partition into consecutive candidates, and it proves them with no
 * search at all. */
static void test_consecutive_vs_partitions(void **state)
{
  (void)state;
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  for (unsigned seed = 1; seed <= 12; seed++) {
    int n = 7 + (int)(seed % 5), k = 2 + (int)(seed % 4);
    kf_problem *p = seed % 2 ? tl_synthetic(n, 2 + n / 2, seed) : tl_random_problem(n, 3, seed);
    assert_int_equal(kf_problem_set_consecutive(p, 1), 0);
    kf__dag d;
    kf__cands c;
    assert_int_equal(kf__dag_build(p, &d), 0);
    assert_int_equal(kf__cands_build(p, &d, m, k, 1, tl_work(), &c), 0);
    for (int i = 0; i < c.n; i++)
      assert_int_equal(c.c[i].members[c.c[i].n - 1] - c.c[i].members[0], c.c[i].n - 1);
    walk_c = &c;
    nplan_costs = 0;
    tl_partitions(&d, &c, collect, NULL);
    qsort(plan_costs, (size_t)nplan_costs, sizeof(double), by_value);
    kf_solve_options_t o;
    kf_solve_options_init(&o);
    o.max_group = k;
    o.k_best = 5;
    o.solver = KF_SOLVE_EXACT;
    kf_plan *pl;
    assert_int_equal(kf_plan_solve(p, m, &o, &pl), 0);
    int np = kf_plan_count(pl);
    assert_int_equal(np, nplan_costs < 5 ? nplan_costs : 5);
    for (int r = 0; r < np; r++)
      if (fabs(kf_plan_time(pl, r) - plan_costs[r]) > 1e-9 * plan_costs[r])
        fail_msg("seed %u rank %d: %.9g, partitions %.9g", seed, r, kf_plan_time(pl, r),
                 plan_costs[r]);
    kf_plan_stats_t st;
    assert_int_equal(kf_plan_stats(pl, &st), 0);
    assert_int_equal(st.ilp_solves, 0);
    assert_int_equal(st.sweep_states, 0);
    kf_plan_destroy(pl);
    kf__cands_free(&c);
    kf__dag_free(&d);
    kf_problem_destroy(p);
  }
  kf_model_destroy(m);
}

/* A chain of n launches that all read one coefficient array, each passing a
 * dead temporary to the next: every pair of launches is connected. */
static kf_problem *shared_chain(int n, int consecutive)
{
  kf_problem *p;
  assert_int_equal(kf_problem_create(&p), 0);
  int coef, prev, next, l;
  char name[32];
  assert_int_equal(kf_problem_add_buffer(p, "coef", 0, &coef), 0);
  assert_int_equal(kf_problem_add_buffer(p, "t0", 0, &prev), 0);
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "t%d", i + 1);
    assert_int_equal(kf_problem_add_buffer(p, name, i + 1 < n, &next), 0);
    snprintf(name, sizeof name, "k%d", i);
    assert_int_equal(kf_problem_add_launch(p, name, 1 << 24, &l), 0);
    assert_int_equal(kf_problem_add_access(p, l, coef, KF_READ, 4, NULL), 0);
    assert_int_equal(kf_problem_add_access(p, l, prev, KF_READ, 4, NULL), 0);
    assert_int_equal(kf_problem_add_access(p, l, next, KF_WRITE, 4, NULL), 0);
    prev = next;
  }
  assert_int_equal(kf_problem_set_consecutive(p, consecutive), 0);
  return p;
}

/* Forty launches sharing one array, groups of up to 8: the hull cut leaves
 * the runs of the chain, so the plan is proven optimal, equal to the
 * dynamic program's, with a few thousand units of work; the same on every
 * run. */
static void test_shared_chain(void **state)
{
  (void)state;
  kf_problem *p = shared_chain(40, 0), *runs = shared_chain(40, 1);
  kf_solve_options_t o;
  kf_solve_options_init(&o);
  o.max_group = 8;
  kf_plan *pl, *again, *dp;
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), 0);
  assert_int_equal(kf_plan_solve(p, NULL, &o, &again), 0);
  assert_int_equal(kf_plan_solve(runs, NULL, &o, &dp), 0);
  assert_true(kf_plan_time(pl, 0) == kf_plan_time(dp, 0));
  assert_true(kf_plan_time(pl, 0) == kf_plan_time(again, 0));
  assert_int_equal(kf_plan_group_count(pl, 0), 5);
  kf_plan_stats_t st, st2, sdp;
  kf_plan_stats(pl, &st);
  kf_plan_stats(again, &st2);
  kf_plan_stats(dp, &sdp);
  assert_true(st.work == st2.work);
  assert_true(st.work < 50000);
  assert_true(sdp.work < 10000);
  kf_plan_destroy(pl);
  kf_plan_destroy(again);
  kf_plan_destroy(dp);
  kf_problem_destroy(p);
  kf_problem_destroy(runs);
}

/* At any budget the plan is never worse than the greedy plan (the
 * heuristic with no budget for its local search) nor than the best plan of
 * consecutive groups, and the same plan and work come back on every run. */
static void test_never_worse_than_greedy(void **state)
{
  (void)state;
  for (unsigned seed = 1; seed <= 3; seed++) {
    kf_problem *p = seed == 3 ? shared_chain(24, 0) : tl_random_problem(50, 16, seed);
    kf_solve_options_t o;
    kf_solve_options_init(&o);
    o.max_group = 5;
    o.solver = KF_SOLVE_HEURISTIC;
    o.work_limit = 1;
    kf_plan *greedy;
    int rc = kf_plan_solve(p, NULL, &o, &greedy);
    assert_true(rc == 0 || rc == KF_ELIMIT);
    o.solver = KF_SOLVE_EXACT;
    static const long limits[] = { 1, 30, 1000, 30000, KF_WORK_LIMIT_DEFAULT };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
      o.work_limit = limits[i];
      kf_plan *pl, *again;
      rc = kf_plan_solve(p, NULL, &o, &pl);
      assert_true(rc == 0 || rc == KF_ELIMIT);
      assert_int_equal(kf_plan_solve(p, NULL, &o, &again), rc);
      if (kf_plan_time(pl, 0) > kf_plan_time(greedy, 0) * (1 + 1e-12))
        fail_msg("seed %u, limit %ld: %.9g us, greedy %.9g us", seed, limits[i],
                 kf_plan_time(pl, 0) * 1e6, kf_plan_time(greedy, 0) * 1e6);
      assert_true(kf_plan_time(pl, 0) == kf_plan_time(again, 0));
      assert_int_equal(kf_plan_group_count(pl, 0), kf_plan_group_count(again, 0));
      for (int g = 0; g < kf_plan_group_count(pl, 0); g++) {
        kf_group_info_t x, y;
        kf_plan_group(pl, 0, g, &x);
        kf_plan_group(again, 0, g, &y);
        assert_int_equal(x.count, y.count);
        assert_memory_equal(x.launches, y.launches, sizeof(int) * (size_t)x.count);
      }
      kf_plan_stats_t s1, s2;
      kf_plan_stats(pl, &s1);
      kf_plan_stats(again, &s2);
      assert_true(s1.work == s2.work);
      assert_true(kf_plan_bound(pl) <= kf_plan_time(pl, 0) * (1 + 1e-12));
      kf_plan_destroy(pl);
      kf_plan_destroy(again);
    }
    kf_plan_destroy(greedy);
    kf_problem_destroy(p);
  }
}

static int cost_value_calls;
static double cost_value, single_value = 1e-5;
static int fixed_cost(void *user, const kf_problem *p, const int *order, const int *variants,
                      int n, kf_estimate_t *out)
{
  (void)user, (void)p, (void)order, (void)variants;
  cost_value_calls++;
  memset(out, 0, sizeof *out);
  out->time = n == 1 ? single_value : cost_value;
  return 0;
}

/* Sizes and times the solvers cannot handle are refused with KF_ERANGE: at
 * the API, from the product of sizes in range, from a replaced cost
 * function, from a profile; never a crash inside Clp or CBC. */
static void test_absurd_sizes(void **state)
{
  (void)state;
  kf_problem *p;
  int a, b, x;
  assert_int_equal(kf_problem_create(&p), 0);
  assert_int_equal(kf_problem_add_buffer(p, "x", 0, &x), 0);
  assert_int_equal(kf_problem_add_launch(p, "big", 1e32, &a), KF_ERANGE);
  assert_int_equal(kf_problem_add_launch(p, "inf", INFINITY, &a), KF_EINVAL);
  assert_int_equal(kf_problem_add_launch(p, "nan", NAN, &a), KF_EINVAL);
  assert_int_equal(kf_problem_add_launch(p, "a", KF_MAX_INSTANCES, &a), 0);
  assert_int_equal(kf_problem_add_access(p, a, x, KF_READ, 1e30, NULL), KF_ERANGE);
  assert_int_equal(kf_problem_add_access(p, a, x, KF_READ, NAN, NULL), KF_EINVAL);
  kf_variant_t v = { "v", 1, 256, 256, 32, 0, 1e300, NULL, 0 };
  assert_int_equal(kf_problem_add_variant(p, a, &v), KF_ERANGE);
  assert_int_equal(kf_problem_add_psi(p, "r", 32, 0, 1e30), KF_ERANGE);
  /* each number in range, their product not: 1e15 instances of 1e9 bytes */
  assert_int_equal(kf_problem_add_access(p, a, x, KF_READ, KF_MAX_BYTES_PER_INSTANCE, NULL), 0);
  kf_plan *pl = (kf_plan *)1;
  assert_int_equal(kf_plan_solve(p, NULL, NULL, &pl), KF_ERANGE);
  assert_null(pl);
  kf_problem_destroy(p);

  /* a replaced cost function returning what no device takes */
  assert_int_equal(kf_problem_create(&p), 0);
  assert_int_equal(kf_problem_add_buffer(p, "x", 0, &x), 0);
  assert_int_equal(kf_problem_add_launch(p, "a", 1024, &a), 0);
  assert_int_equal(kf_problem_add_launch(p, "b", 1024, &b), 0);
  assert_int_equal(kf_problem_add_access(p, a, x, KF_WRITE, 4, NULL), 0);
  assert_int_equal(kf_problem_add_access(p, b, x, KF_READ, 4, NULL), 0);
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  kf_model_set_cost(m, fixed_cost, NULL);
  static const double bad[] = { -1e-5, NAN };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cost_value = bad[i];
    cost_value_calls = 0;
    assert_int_equal(kf_plan_solve(p, m, NULL, &pl), KF_ERANGE);
    assert_true(cost_value_calls > 0);
  }
  /* a group dearer than its launches is no candidate; a launch alone that
   * takes longer than any device runs is an error */
  cost_value = 1e300;
  assert_int_equal(kf_plan_solve(p, m, NULL, &pl), 0);
  assert_int_equal(kf_plan_group_count(pl, 0), 2);
  kf_plan_destroy(pl);
  single_value = 1e300;
  assert_int_equal(kf_plan_solve(p, m, NULL, &pl), KF_ERANGE);
  single_value = 1e-5;
  cost_value = 1e-5; /* the pair as dear as one launch alone: fused */
  assert_int_equal(kf_plan_solve(p, m, NULL, &pl), 0);
  assert_int_equal(kf_plan_group_count(pl, 0), 1);
  kf_plan_destroy(pl);
  kf_model_destroy(m);
  kf_problem_destroy(p);

  /* profiles: only numbers a profile file could hold */
  kf_profile_t prof;
  kf_profile_default(&prof);
  prof.bandwidth = 0;
  assert_int_equal(kf_model_create(&m, &prof, KF_MODEL_ROOFLINE), KF_ERANGE);
  kf_profile_default(&prof);
  prof.clock_hz = NAN;
  assert_int_equal(kf_model_create(&m, &prof, KF_MODEL_ROOFLINE), KF_ERANGE);
  kf_profile_default(&prof);
  prof.sm_count = -3;
  assert_int_equal(kf_model_create(&m, &prof, KF_MODEL_ROOFLINE), KF_ERANGE);
  kf_profile_default(&prof);
  prof.shared_per_block = prof.shared_per_sm + 1;
  assert_int_equal(kf_model_create(&m, &prof, KF_MODEL_ROOFLINE), KF_ERANGE);
  kf_profile_default(&prof);
  assert_int_equal(kf_model_create(&m, &prof, KF_MODEL_ROOFLINE), 0);
  kf_model_destroy(m);
}

/* The options: a work limit of 0 or beyond KF_WORK_LIMIT_MAX is refused. */
static void test_work_limit_option(void **state)
{
  (void)state;
  kf_problem *p = shared_chain(4, 0);
  kf_solve_options_t o;
  kf_solve_options_init(&o);
  assert_true(o.work_limit == KF_WORK_LIMIT_DEFAULT);
  kf_plan *pl;
  o.work_limit = 0;
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), KF_EINVAL);
  o.work_limit = -5;
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), KF_EINVAL);
  o.work_limit = KF_WORK_LIMIT_MAX + 1;
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), KF_EINVAL);
  o.work_limit = KF_WORK_LIMIT_MAX;
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), 0);
  kf_plan_destroy(pl);
  kf_problem_destroy(p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_enumeration_vs_subsets),
    cmocka_unit_test(test_consecutive_vs_partitions),
    cmocka_unit_test(test_shared_chain),
    cmocka_unit_test(test_never_worse_than_greedy),
    cmocka_unit_test(test_absurd_sizes),
    cmocka_unit_test(test_work_limit_option),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
