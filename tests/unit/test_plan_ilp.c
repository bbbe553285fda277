/* Unit tests of ilp_cbc.c: status mapping through a fake CBC table (time
 * limit with and without an incumbent, infeasible, failure) and the gap a
 * time-limited solve reports; plus the real CBC on a tiny program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include "lib/ilp.h"
#include "plan_testlib.h"

static double fake_x[4096];
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
static void f_row(void *m, int nz, const int *c, const double *v, char s, double r)
{
  (void)m, (void)nz, (void)c, (void)v, (void)s, (void)r;
}
static int log_level = -1;
static void f_log(void *m, int l) { (void)m, log_level = l; }
static void f_secs(void *m, double s) { (void)m, (void)s; }
static void f_param(void *m, const char *k, const char *v) { (void)m, (void)k, (void)v; }
static void f_start(void *m, int n, const int *c, const double *v)
{
  (void)m, (void)c;
  for (int i = 0; i < n && i < 4096; i++)
    fake_x[i] = v[i]; /* the fake "finds" the start it was given */
}
static int f_solve(void *m) { (void)m; return (int)mock(); }
static int f_opt(void *m) { (void)m; return (int)mock(); }
static int f_inf(void *m) { (void)m; return (int)mock(); }
static int f_tl(void *m) { (void)m; return (int)mock(); }
static const double *f_sol(void *m) { (void)m; return fake_x; }
static double f_obj(void *m) { (void)m; return 0; }
static double fake_bound; /* cmocka's mock values are integers */
static double f_bound(void *m) { (void)m; return fake_bound; }

static const kf__cbc_api_t fake = {
  f_new, f_delete, f_load, f_int, f_row, f_log, f_secs, f_param, f_start, f_solve,
  f_opt, f_inf, f_tl, f_sol, f_obj, f_bound,
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
  kf__ilp_t p = { 2, cost, 1, rs, ri, sense, rhs, NULL, 5.0 };
  kf__ilp_result_t r = { x, 0, 0, 0 };
  assert_int_equal(kf__ilp_solve(&p, &r), 0);
  assert_true(r.has_solution);
  assert_true(x[1] > 0.5 && x[0] < 0.5);
  assert_true(r.obj == 2 && r.bound == 2);
  const char le[1] = { 'L' };
  const double two[1] = { 2 };
  const double neg[2] = { -1, -1 };
  kf__ilp_t q = { 2, neg, 1, rs, ri, le, two, NULL, 5.0 }; /* pick both */
  assert_int_equal(kf__ilp_solve(&q, &r), 0);
  assert_true(r.obj == -2);
}

static void test_fake_statuses(void **state)
{
  (void)state;
  double x[2];
  const kf__cbc_api_t *old = kf__cbc_set_api(&fake);
  double start[2] = { 1, 0 };
  kf__ilp_t p = { 2, cost, 1, rs, ri, sense, rhs, start, 1.0 };
  kf__ilp_result_t r = { x, 0, 0, 0 };
  /* time limit with an incumbent: ETIMEDOUT, bound from CBC */
  will_return(f_solve, 1);
  will_return(f_opt, 0);
  will_return(f_inf, 0);
  will_return_count(f_tl, 1, 2); /* asked after solve and for the status */
  fake_bound = 2.5;
  assert_int_equal(kf__ilp_solve(&p, &r), KF_ETIMEDOUT);
  assert_int_equal(log_level, 0); /* CBC's log is silenced */
  assert_true(r.has_solution && r.obj == 3 && r.bound == 2.5);
  /* infeasible */
  will_return(f_solve, 0);
  will_return(f_opt, 0);
  will_return(f_inf, 1);
  assert_int_equal(kf__ilp_solve(&p, &r), KF_EINFEASIBLE);
  /* abandoned, not on time: ESOLVER */
  will_return(f_solve, 2);
  will_return(f_tl, 0);
  assert_int_equal(kf__ilp_solve(&p, &r), KF_ESOLVER);
  /* time limit without a solution */
  fake_x[0] = fake_x[1] = 0;
  kf__ilp_t q = { 2, cost, 1, rs, ri, sense, rhs, NULL, 1.0 };
  will_return(f_solve, 1);
  will_return(f_opt, 0);
  will_return(f_inf, 0);
  will_return_count(f_tl, 1, 2); /* asked after solve and for the status */
  fake_bound = 1.0;
  assert_int_equal(kf__ilp_solve(&q, &r), KF_ETIMEDOUT);
  assert_false(r.has_solution);
  kf__cbc_set_api(old);
}

/* Through kf_plan_solve: a timed-out CBC keeps the heuristic's plan (the fake
 * returns the start) and reports the gap to CBC's bound. */
static void test_plan_gap_on_timeout(void **state)
{
  (void)state;
  kf_problem *p = tl_random_problem(8, 3, 5);
  kf_solve_options_t o;
  kf_solve_options_init(&o);
  o.solver = KF_SOLVE_EXACT;
  kf_plan *ex;
  assert_int_equal(kf_plan_solve(p, NULL, &o, &ex), 0); /* real CBC */
  double opt = kf_plan_time(ex, 0);
  kf_plan_destroy(ex);
  const kf__cbc_api_t *old = kf__cbc_set_api(&fake);
  will_return(f_solve, 1);
  will_return(f_opt, 0);
  will_return(f_inf, 0);
  will_return_count(f_tl, 1, 2); /* asked after solve and for the status */
  fake_bound = opt * 1e6 * 0.5; /* microseconds, as the solver scales */
  kf_plan *pl;
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), KF_ETIMEDOUT);
  kf__cbc_set_api(old);
  assert_non_null(pl);
  assert_true(kf_plan_time(pl, 0) >= opt * (1 - 1e-12));
  assert_true(kf_plan_gap(pl) > 0 && kf_plan_gap(pl) < 1);
  assert_true(kf_plan_bound(pl) <= opt * (1 + 1e-12));
  kf_plan_destroy(pl);
  kf_problem_destroy(p);
}

static void test_tiny_real_limit(void **state)
{
  (void)state;
  /* A real, very short limit on a mid-size instance: either proven or a
   * plan with a gap; never a crash, never a missing plan. */
  kf_problem *p = tl_random_problem(60, 20, 3);
  kf_solve_options_t o;
  kf_solve_options_init(&o);
  o.solver = KF_SOLVE_EXACT;
  o.time_limit = 0.02;
  kf_plan *pl;
  int rc = kf_plan_solve(p, NULL, &o, &pl);
  assert_true(rc == 0 || rc == KF_ETIMEDOUT);
  assert_true(kf_plan_group_count(pl, 0) > 0);
  if (rc == 0)
    assert_true(kf_plan_gap(pl) == 0);
  kf_plan_destroy(pl);
  kf_problem_destroy(p);
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
    cmocka_unit_test_teardown(test_fake_statuses, restore),
    cmocka_unit_test_teardown(test_plan_gap_on_timeout, restore),
    cmocka_unit_test(test_tiny_real_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
