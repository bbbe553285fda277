/* Unit tests of ilp_cbc.c and of the solver's limits: status mapping through
 * a fake CBC table (work and node limits with and without a solution,
 * infeasible, failure, values out of range), the cutoff and the relaxation
 * on the real solvers, and kf_plan_solve's path when the work limit stops
 * it (the best plan kept, the gap reported, the caller's limit honoured,
 * the same plan every time). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include "lib/ilp.h"
#include "plan_testlib.h"

static double fake_x[1 << 16];
static void *f_new(void) { return (void *)1; }
static void f_delete(void *m) { (void)m; }
static void f_load(void *m, int nc, int nr, const int *s, const int *i, const double *v,
                   const double *cl, const double *cu, const double *o,
                   const double *rl, const double *ru)
{
  (void)m, (void)nc, (void)nr, (void)s, (void)i, (void)v, (void)cl, (void)cu, (void)o,
      (void)rl, (void)ru;
}
static void f_int(void *m, int c) { (void)m, (void)c; }
static int log_level = -1;
static void f_log(void *m, int l) { (void)m, log_level = l; }
static int nodes_given = -1;
static void f_nodes(void *m, int n) { (void)m, nodes_given = n; }
static char cutoff_given[64], passes_given[32], threads_given[16], seed_given[2][32];
static void f_param(void *m, const char *k, const char *v)
{
  (void)m;
  if (!strcmp(k, "cutoff"))
    snprintf(cutoff_given, sizeof cutoff_given, "%s", v);
  if (!strcmp(k, "passCuts"))
    snprintf(passes_given, sizeof passes_given, "%s", v);
  if (!strcmp(k, "threads"))
    snprintf(threads_given, sizeof threads_given, "%s", v);
  if (!strcmp(k, "randomCbcSeed"))
    snprintf(seed_given[0], sizeof seed_given[0], "%s", v);
  if (!strcmp(k, "randomSeed"))
    snprintf(seed_given[1], sizeof seed_given[1], "%s", v);
}
static int f_solve(void *m) { (void)m; return (int)mock(); }
static int f_opt(void *m) { (void)m; return (int)mock(); }
static int f_inf(void *m) { (void)m; return (int)mock(); }
static int f_nl(void *m) { (void)m; return (int)mock(); }
static int fake_nodes, fake_iterations;
static int f_ncount(void *m) { (void)m; return fake_nodes; }
static int f_icount(void *m) { (void)m; return fake_iterations; }
static const double *f_sol(void *m) { (void)m; return fake_x; }
static double f_obj(void *m) { (void)m; return 0; }
static double fake_bound; /* cmocka's mock values are integers */
static double f_bound(void *m) { (void)m; return fake_bound; }

/* CBC faked, no LP solver. */
static const kf__cbc_api_t fake = {
  f_new, f_delete, f_load, f_int, f_log, f_nodes, f_param, f_solve, f_opt, f_inf, f_nl,
  f_ncount, f_icount, f_sol, f_obj, f_bound,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

/* x0 + x1 = 1 (one row), costs 3 and 2. */
static const double cost[2] = { 3, 2 };
static const int rs[2] = { 0, 2 }, ri[2] = { 0, 1 };
static const char sense[1] = { 'E' };
static const double rhs[1] = { 1 };

static void test_real_cbc_tiny(void **state)
{
  (void)state;
  double x[2];
  kf__ilp_t p = { 2, cost, 1, rs, ri, sense, rhs, 1000000, INFINITY, 0, 0 };
  kf__ilp_result_t r = { x, 0, 0, 0, 0, 0 };
  assert_int_equal(kf__ilp_solve(&p, &r), 0);
  assert_true(r.has_solution);
  assert_true(x[1] > 0.5 && x[0] < 0.5);
  assert_true(r.obj == 2 && r.bound == 2);
  const char le[1] = { 'L' };
  const double two[1] = { 2 };
  const double neg[2] = { -1, -1 };
  kf__ilp_t q = { 2, neg, 1, rs, ri, le, two, 1000000, INFINITY, 0, 0 }; /* pick both */
  assert_int_equal(kf__ilp_solve(&q, &r), 0);
  assert_true(r.obj == -2);
  /* A cutoff above the optimum finds it; one below it proves there is no
   * cheaper solution: KF_EINFEASIBLE. */
  p.cutoff = 2.5;
  assert_int_equal(kf__ilp_solve(&p, &r), 0);
  assert_true(r.obj == 2);
  p.cutoff = 1.5;
  assert_int_equal(kf__ilp_solve(&p, &r), KF_EINFEASIBLE);
  assert_false(r.has_solution);
}

/* x0 + x1 + x2 = 1 over costs 3, 2, 4: the relaxation of the LP tests. */
static const double lp3_cost[3] = { 3, 2, 4 };
static const int lp3_start[2] = { 0, 3 }, lp3_idx[3] = { 0, 1, 2 };
static const char lp3_sense[1] = { 'E' };
static const double one[1] = { 1 };
static const kf__ilp_t lp3 = { 3, lp3_cost, 1, lp3_start, lp3_idx, lp3_sense, one, 1000000,
                               INFINITY, 0, 0 };

/* The relaxation: x0 + x1 + x2 = 1, x0 + x1 <= 1 over costs 3, 2, 4; then
 * a row x1 <= 0 added moves the optimum to x0. */
static void test_real_lp(void **state)
{
  (void)state;
  kf__ilp_t p = lp3;
  kf__lp *lp;
  assert_int_equal(kf__lp_create(&p, &lp), 0);
  double x[3], y[2];
  kf__lp_result_t r = { x, y, 0, 0, 0 };
  assert_int_equal(kf__lp_solve(lp, 1000000, &r), 0);
  assert_true(fabs(r.obj - 2) < 1e-9 && x[1] > 1 - 1e-9);
  assert_true(fabs(y[0] - 2) < 1e-9); /* the row's dual prices column 1 */
  const int st2[2] = { 0, 1 }, ix2[1] = { 1 };
  const char le[1] = { 'L' };
  const double zero[1] = { 0 };
  assert_int_equal(kf__lp_add_rows(lp, 1, st2, ix2, le, zero), 0);
  assert_int_equal(kf__lp_solve(lp, 1000000, &r), 0);
  assert_true(fabs(r.obj - 3) < 1e-9 && x[0] > 1 - 1e-9);
  assert_true(y[1] <= 1e-9); /* a <= row of a minimisation: dual <= 0 */
  kf__lp_destroy(lp);
  /* No LP solver in the table: KF_ESOLVER, and the planner does without. */
  const kf__cbc_api_t *old = kf__cbc_set_api(&fake);
  assert_int_equal(kf__lp_create(&p, &lp), KF_ESOLVER);
  assert_null(lp);
  kf__cbc_set_api(old);
}

/* A column listed twice in a row has coefficient 2, in CBC's program and in
 * the relaxation: x0 + x1 + x2 = 1 over costs 1, 2, 3, and 2 x0 + x1 <= 1
 * (x0 listed twice) leaves x0 out: the optimum is x1 at 2. The relaxation
 * costs 2 as well (3 - 2 x0 - x1 >= 2); read as x0 + x1 <= 1 it would
 * cost 1. */
static void test_repeated_column(void **state)
{
  (void)state;
  const double c3[3] = { 1, 2, 3 };
  const int st[3] = { 0, 3, 6 }, ix[6] = { 0, 1, 2, 0, 0, 1 };
  const char se[2] = { 'E', 'L' };
  const double rh[2] = { 1, 1 };
  double x[3], y[2];
  kf__ilp_t p = { 3, c3, 2, st, ix, se, rh, 1000000, INFINITY, 0, 0 };
  kf__ilp_result_t r = { x, 0, 0, 0, 0, 0 };
  assert_int_equal(kf__ilp_solve(&p, &r), 0);
  assert_true(r.obj == 2 && x[1] > 0.5 && x[0] < 0.5);
  /* The relaxation with the row loaded, then with it added. */
  kf__lp *lp;
  assert_int_equal(kf__lp_create(&p, &lp), 0);
  kf__lp_result_t lr = { x, y, 0, 0, 0 };
  assert_int_equal(kf__lp_solve(lp, 1000000, &lr), 0);
  assert_true(fabs(lr.obj - 2) < 1e-9);
  kf__lp_destroy(lp);
  p.nrows = 1;
  assert_int_equal(kf__lp_create(&p, &lp), 0);
  assert_int_equal(kf__lp_solve(lp, 1000000, &lr), 0);
  assert_true(fabs(lr.obj - 1) < 1e-9);
  assert_int_equal(kf__lp_add_rows(lp, 1, st + 1, ix, se + 1, rh + 1), 0);
  assert_int_equal(kf__lp_solve(lp, 1000000, &lr), 0);
  assert_true(fabs(lr.obj - 2) < 1e-9);
  kf__lp_destroy(lp);
}

static void test_fake_statuses(void **state)
{
  (void)state;
  double x[2];
  const kf__cbc_api_t *old = kf__cbc_set_api(&fake);
  kf__ilp_t p = { 2, cost, 1, rs, ri, sense, rhs, 1300, 3.5, 0, 0 };
  kf__ilp_result_t r = { x, 0, 0, 0, 0, 0 };
  /* work limit with a solution: ELIMIT, bound from CBC; the nodes allowed
   * are the budget over a node's units (10 + 2 columns + 1 row), and the
   * work charged counts nodes so and iterations one each */
  fake_x[0] = 1, fake_x[1] = 0;
  cutoff_given[0] = 0;
  fake_nodes = 7, fake_iterations = 40;
  will_return(f_solve, 1);
  fake_bound = 2.5;
  assert_int_equal(kf__ilp_solve(&p, &r), KF_ELIMIT);
  assert_int_equal(log_level, 0); /* CBC's log is silenced */
  assert_int_equal(nodes_given, 100);
  assert_int_equal(r.work, 7 * 13 + 40);
  assert_string_equal(cutoff_given, "3.5");
  assert_string_equal(passes_given, ""); /* CBC's own choice of root cut rounds */
  /* reproducible: one thread, seeds fixed (0 would take the clock) */
  assert_string_equal(threads_given, "0");
  assert_true(atoi(seed_given[0]) > 0 && atoi(seed_given[1]) > 0);
  assert_true(r.has_solution && r.obj == 3 && r.bound == 2.5 && !r.node_limited);
  /* the caller's node limit: ELIMIT too, marked as the node limit; root
   * cut rounds are passed on when asked for */
  p.root_passes = 20;
  p.max_nodes = 5;
  will_return(f_solve, 1);
  will_return(f_nl, 1);
  assert_int_equal(kf__ilp_solve(&p, &r), KF_ELIMIT);
  assert_int_equal(nodes_given, 5);
  assert_true(r.node_limited);
  assert_string_equal(passes_given, "20");
  p.root_passes = 0;
  p.max_nodes = 0;
  /* infeasible (with the cutoff: nothing cheaper) */
  will_return(f_solve, 0);
  will_return(f_opt, 0);
  will_return(f_inf, 1);
  assert_int_equal(kf__ilp_solve(&p, &r), KF_EINFEASIBLE);
  /* abandoned, not on a limit: ESOLVER */
  will_return(f_solve, 2);
  assert_int_equal(kf__ilp_solve(&p, &r), KF_ESOLVER);
  /* work limit without a solution (the point CBC returns breaks the row) */
  fake_x[0] = fake_x[1] = 0;
  will_return(f_solve, 1);
  fake_bound = 1.0;
  assert_int_equal(kf__ilp_solve(&p, &r), KF_ELIMIT);
  assert_false(r.has_solution);
  /* values the solvers cannot take never reach them (f_solve has no
   * value queued: a call would fail the test) */
  static const double huge[2] = { 1e30, 2 }, nan2[2] = { NAN, 2 };
  static const double big_rhs[1] = { INFINITY };
  kf__ilp_t bad = p;
  bad.cost = huge;
  assert_int_equal(kf__ilp_solve(&bad, &r), KF_ERANGE);
  bad.cost = nan2;
  assert_int_equal(kf__ilp_solve(&bad, &r), KF_ERANGE);
  bad = p;
  bad.rhs = big_rhs;
  assert_int_equal(kf__ilp_solve(&bad, &r), KF_ERANGE);
  bad = p;
  bad.cutoff = 1e300;
  assert_int_equal(kf__ilp_solve(&bad, &r), KF_ERANGE);
  kf__lp *lp = NULL;
  bad.cutoff = INFINITY;
  bad.cost = huge;
  assert_int_equal(kf__lp_create(&bad, &lp), KF_ERANGE);
  assert_null(lp);
  kf__cbc_set_api(old);
}

/* CBC that always stops on the clock without a solution, reporting
 * fake_bound; the LP solver is the real one (or none). */
static int t_solve(void *m) { (void)m; return 1; }
static int t_zero(void *m) { (void)m; return 0; }
static int t_calls;
static const double *t_sol(void *m)
{
  (void)m;
  t_calls++;
  fake_x[0] = -1; /* not 0/1: no solution */
  return fake_x;
}

static kf__cbc_api_t timing_out(int with_lp)
{
  const kf__cbc_api_t *real = kf__cbc_set_api(NULL);
  kf__cbc_api_t t = fake;
  t.solve = t_solve;
  t.is_proven_optimal = t_zero;
  t.is_proven_infeasible = t_zero;
  t.node_limit_reached = t_zero;
  t.col_solution = t_sol;
  if (with_lp) {
    t.lp_new = real->lp_new;
    t.lp_delete = real->lp_delete;
    t.lp_load = real->lp_load;
    t.lp_add_rows = real->lp_add_rows;
    t.lp_log_level = real->lp_log_level;
    t.lp_set_max_iterations = real->lp_set_max_iterations;
    t.lp_iterations = real->lp_iterations;
    t.lp_solve = real->lp_solve;
    t.lp_obj_value = real->lp_obj_value;
    t.lp_duals = real->lp_duals;
    t.lp_col_solution = real->lp_col_solution;
  }
  return t;
}

/* Through kf_plan_solve: CBC stops on the clock with nothing; the plan is
 * the best known (the heuristic's), the status
 * KF_ELIMIT, and the gap is measured against a valid bound. */
static void test_plan_gap_on_timeout(void **state)
{
  (void)state;
  kf_problem *p = tl_random_problem(10, 4, 5);
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  double opt = tl_brute(p, m, 3);
  kf_solve_options_t o;
  kf_solve_options_init(&o);
  o.solver = KF_SOLVE_EXACT;
  o.max_group = 3;
  size_t sweep_bytes = kf__sweep_max_bytes;
  kf__sweep_max_bytes = 0;
  for (int with_lp = 0; with_lp < 2; with_lp++) {
    kf__cbc_api_t t = timing_out(with_lp);
    const kf__cbc_api_t *old = kf__cbc_set_api(&t);
    fake_bound = opt * 1e6 * 0.5; /* microseconds, as the solver scales */
    t_calls = 0;
    kf_plan *pl;
    int rc = kf_plan_solve(p, m, &o, &pl);
    kf__cbc_set_api(old);
    kf_plan_stats_t st;
    assert_int_equal(rc, KF_ELIMIT);
    assert_non_null(pl);
    assert_true(t_calls > 0);
    assert_int_equal(kf_plan_stats(pl, &st), 0);
    assert_true(st.ilp_solves > 0);
    assert_true(kf_plan_time(pl, 0) >= opt * (1 - 1e-12));
    assert_true(kf_plan_bound(pl) <= opt * (1 + 1e-9));
    assert_true(kf_plan_gap(pl) >= 0 && kf_plan_gap(pl) < 1);
    if (kf_plan_time(pl, 0) > opt * (1 + 1e-9))
      assert_true(kf_plan_gap(pl) > 0);
    kf_plan_destroy(pl);
  }
  kf__sweep_max_bytes = sweep_bytes;
  kf_model_destroy(m);
  kf_problem_destroy(p);
}

/* The caller's work limit bounds the whole solve, CBC included: CBC is
 * allowed no more nodes than the budget left pays for. */
static int limit_seen;
static void l_nodes(void *m, int n) { (void)m, limit_seen = n; }

static void test_limit_shared(void **state)
{
  (void)state;
  kf_problem *p = tl_random_problem(30, 10, 2);
  kf__cbc_api_t t = timing_out(0);
  t.set_max_nodes = l_nodes;
  const kf__cbc_api_t *old = kf__cbc_set_api(&t);
  kf_solve_options_t o;
  kf_solve_options_init(&o);
  o.solver = KF_SOLVE_EXACT;
  o.work_limit = 200000;
  limit_seen = -1;
  kf_plan *pl;
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), KF_ELIMIT);
  kf__cbc_set_api(old);
  assert_true(limit_seen > 0 && limit_seen < 200000 / 10);
  kf_plan_stats_t st;
  assert_int_equal(kf_plan_stats(pl, &st), 0);
  assert_true(st.work > 0);
  assert_true(kf_plan_group_count(pl, 0) > 0);
  kf_plan_destroy(pl);
  kf_problem_destroy(p);
}

/* Two plans are the same: groups, order, variants and times. */
static void assert_same_plan(const kf_plan *a, const kf_plan *b)
{
  assert_int_equal(kf_plan_count(a), kf_plan_count(b));
  for (int r = 0; r < kf_plan_count(a); r++) {
    assert_int_equal(kf_plan_group_count(a, r), kf_plan_group_count(b, r));
    assert_true(kf_plan_time(a, r) == kf_plan_time(b, r));
    for (int g = 0; g < kf_plan_group_count(a, r); g++) {
      kf_group_info_t x, y;
      assert_int_equal(kf_plan_group(a, r, g, &x), 0);
      assert_int_equal(kf_plan_group(b, r, g, &y), 0);
      assert_int_equal(x.count, y.count);
      assert_memory_equal(x.launches, y.launches, sizeof(int) * (size_t)x.count);
      assert_memory_equal(x.variants, y.variants, sizeof(int) * (size_t)x.count);
    }
  }
}

static void test_tiny_real_limit(void **state)
{
  (void)state;
  /* Real, very small work limits on a mid-size instance: either proven or
   * a plan with a gap; never a crash, never a missing plan, never worse
   * than the greedy plan; and, the limit being a count, the same plan and
   * the same work on every run. */
  kf_problem *p = tl_random_problem(60, 20, 3);
  kf_solve_options_t o;
  kf_solve_options_init(&o);
  kf_problem *runs_only = tl_random_problem(60, 20, 3);
  assert_int_equal(kf_problem_set_consecutive(runs_only, 1), 0);
  kf_plan *runs;
  assert_int_equal(kf_plan_solve(runs_only, NULL, &o, &runs), 0);
  o.solver = KF_SOLVE_EXACT;
  static const long limits[] = { 1, 50, 2000, 20000 };
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
    o.work_limit = limits[i];
    kf_plan *pl, *again;
    int rc = kf_plan_solve(p, NULL, &o, &pl);
    assert_true(rc == 0 || rc == KF_ELIMIT);
    assert_int_equal(kf_plan_solve(p, NULL, &o, &again), rc);
    assert_same_plan(pl, again);
    kf_plan_stats_t s1, s2;
    kf_plan_stats(pl, &s1);
    kf_plan_stats(again, &s2);
    assert_true(s1.work == s2.work);
    assert_true(kf_plan_group_count(pl, 0) > 0);
    /* never worse than the best plan of consecutive groups */
    assert_true(kf_plan_time(pl, 0) <= kf_plan_time(runs, 0) * (1 + 1e-12));
    if (rc == 0)
      assert_true(kf_plan_gap(pl) == 0);
    else
      assert_true(kf_plan_bound(pl) <= kf_plan_time(pl, 0));
    kf_plan_destroy(pl);
    kf_plan_destroy(again);
  }
  kf_plan_destroy(runs);
  kf_problem_destroy(runs_only);
  kf_problem_destroy(p);
}

/* Without an LP solver the planner still proves the optimum (the core is
 * every column, no dive): CBC with the lp_ entries left out. */
static void test_without_lp(void **state)
{
  (void)state;
  kf__cbc_api_t t = *kf__cbc_set_api(NULL);
  t.lp_new = NULL;
  kf__cbc_set_api(&t);
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  for (unsigned seed = 1; seed <= 12; seed++) {
    kf_problem *p = seed % 2 ? tl_synthetic(9, 7, seed) : tl_random_problem(8, 3, seed);
    kf_solve_options_t o;
    kf_solve_options_init(&o);
    o.solver = KF_SOLVE_EXACT;
    o.max_group = 3;
    kf_plan *pl;
    assert_int_equal(kf_plan_solve(p, m, &o, &pl), 0);
    double want = tl_brute(p, m, 3);
    assert_true(fabs(kf_plan_time(pl, 0) - want) <= 1e-6 * want);
    kf_plan_stats_t st;
    assert_int_equal(kf_plan_stats(pl, &st), 0);
    assert_int_equal(st.conflict_rows, 0); /* nothing to separate from */
    kf_plan_destroy(pl);
    kf_problem_destroy(p);
  }
  kf_model_destroy(m);
}

static int restore(void **state)
{
  (void)state;
  kf__cbc_set_api(NULL);
  return 0;
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_real_cbc_tiny),
    cmocka_unit_test(test_real_lp),
    cmocka_unit_test(test_repeated_column),
    cmocka_unit_test_teardown(test_fake_statuses, restore),
    cmocka_unit_test_teardown(test_plan_gap_on_timeout, restore),
    cmocka_unit_test_teardown(test_limit_shared, restore),
    cmocka_unit_test(test_tiny_real_limit),
    cmocka_unit_test_teardown(test_without_lp, restore),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
