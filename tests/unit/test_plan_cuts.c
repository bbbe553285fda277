/* Unit tests of cuts.c, oddcycle.c, cycles.c and of the dominance pruning
 * in candidates.c: every row the solver adds holds for every acyclic plan
 * (checked over all partitions of small random instances) and cuts off what
 * it is made against (cycle cuts, clique, odd-cycle and cycle rows of any
 * length); two-way dependent pairs are all covered; a group is pruned only
 * for a refinement ordered acyclically inside it; the k best plans are the
 * k cheapest acyclic partitions into the candidates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include "lib/ilp.h"
#include "plan_testlib.h"

/* Rows to check, and the partitions that must violate some of them. */
typedef struct rowcheck {
  const kf__dag *d;
  const kf__cands *c;
  kf__rows *rows;
  int first;        /* rows from here on are checked */
  int *cols;
  int cuts_made, violated_by_source, acyclic_seen;
} rowcheck;

static int row_lhs(const kf__rows *r, int row, const int *chosen, int n)
{
  int lhs = 0;
  for (int q = r->start[row]; q < r->start[row + 1]; q++)
    for (int i = 0; i < n; i++)
      lhs += r->idx[q] == chosen[i];
  return lhs;
}

/* For each cyclic partition: its lifted cycle cut, which it must violate. */
static void make_cuts(void *user, const int *chosen, int n, int acyclic)
{
  rowcheck *rc = user;
  if (acyclic || rc->cuts_made >= 300)
    return;
  int cyc[32], topo[32], clen;
  assert_int_equal(kf__quotient_cycle(rc->d, rc->c, chosen, n, cyc, &clen, topo), 1);
  int terms, nc = kf__cycle_cut(rc->d, rc->c, rc->rows, cyc, clen, rc->cols, &terms);
  if (nc == 0) {
    assert_int_equal(kf__row_add(rc->rows, cyc, clen, 'L', clen - 1.0), 0);
  } else {
    assert_true(terms >= 2 && terms <= clen);
    assert_int_equal(kf__row_add(rc->rows, rc->cols, nc, 'L', terms - 1.0), 0);
  }
  int row = rc->rows->n - 1;
  if (row_lhs(rc->rows, row, chosen, n) > rc->rows->rhs[row])
    rc->violated_by_source++;
  rc->cuts_made++;
}

/* Every acyclic partition satisfies every row. */
static void check_rows(void *user, const int *chosen, int n, int acyclic)
{
  rowcheck *rc = user;
  if (!acyclic)
    return;
  rc->acyclic_seen++;
  for (int r = rc->first; r < rc->rows->n; r++)
    if (row_lhs(rc->rows, r, chosen, n) > rc->rows->rhs[r])
      fail_msg("row %d (rhs %g) cuts off an acyclic plan", r, rc->rows->rhs[r]);
}

/* One small instance of the row tests with its n launch rows, and room for
 * a point x and a row's columns. */
typedef struct rowinst {
  kf_problem *p;
  kf__dag d;
  kf__cands c;
  kf__rows rows;
  double *x;
  int *cols;
  int n;
} rowinst;

/* Takes p (n launches), candidate groups of up to k launches. */
static void rowinst_open(rowinst *t, kf_problem *p, int n, int k, kf_model *m)
{
  t->p = p;
  t->n = n;
  assert_int_equal(kf__dag_build(p, &t->d), 0);
  assert_int_equal(kf__cands_build(p, &t->d, m, k, 1, tl_work(), &t->c), 0);
  memset(&t->rows, 0, sizeof t->rows);
  assert_int_equal(kf__partition_rows(&t->c, n, &t->rows), 0);
  t->x = calloc((size_t)t->c.n + 1, sizeof(double));
  t->cols = malloc(sizeof(int) * (size_t)(t->c.n + 1));
  assert_non_null(t->x);
  assert_non_null(t->cols);
}

/* The instance of seed for the partition-checked tests: a synthetic or a
 * random problem of 6 to 8 launches, groups of 2 to 4. */
static void rowinst_seed(rowinst *t, unsigned seed, kf_model *m)
{
  int n = 6 + (int)(seed % 3), k = 2 + (int)(seed % 3);
  kf_problem *p = seed % 2 ? tl_synthetic(n, 2 + n / 2, seed)
                           : tl_random_problem(n, 2 + (int)(seed % 3), seed);
  rowinst_open(t, p, n, k, m);
}

static void rowinst_close(rowinst *t)
{
  free(t->x);
  free(t->cols);
  kf__rows_free(&t->rows);
  kf__cands_free(&t->c);
  kf__dag_free(&t->d);
  kf_problem_destroy(t->p);
}

/* The relaxation's point over the first nrows rows of t, into t->x. */
static void relaxation_point(rowinst *t, int nrows)
{
  double *cost = malloc(sizeof(double) * (size_t)(t->c.n + 1));
  assert_non_null(cost);
  for (int j = 0; j < t->c.n; j++)
    cost[j] = t->c.c[j].cost * 1e6;
  kf__ilp_t ilp = { t->c.n, cost, nrows, t->rows.start, t->rows.idx, t->rows.sense,
                    t->rows.rhs, 1000000, INFINITY, 0, 0 };
  kf__lp *lp;
  assert_int_equal(kf__lp_create(&ilp, &lp), 0);
  kf__lp_result_t lr = { t->x, NULL, 0, 0, 0 };
  assert_int_equal(kf__lp_solve(lp, 1000000, &lr), 0);
  kf__lp_destroy(lp);
  free(cost);
}

/* Two-way rows for every pair of groups that depend on each other both
 * ways; returns how many. */
/* Every row of t holds for every acyclic partition, and there is one. */
static void rowinst_check_rows(rowinst *t)
{
  rowcheck rc = { &t->d, &t->c, &t->rows, t->n, t->cols, 0, 0, 0 };
  tl_partitions(&t->d, &t->c, check_rows, &rc);
  assert_true(rc.acyclic_seen > 0);
}

static void test_rows_valid(void **state)
{
  (void)state;
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  int total_cuts = 0;
  for (unsigned seed = 1; seed <= 100; seed++) {
    rowinst t;
    rowinst_seed(&t, seed, m);
    int n = t.n;
    const kf__dag *d = &t.d;
    const kf__cands *c = &t.c;
    kf__rows *rows = &t.rows;
    rowcheck rc = { d, c, rows, n, t.cols, 0, 0, 0 };
    /* Lifted cycle cuts from every cyclic partition: each cuts off its
     * source; no row cuts off an acyclic plan. */
    tl_partitions(d, c, make_cuts, &rc);
    assert_int_equal(rc.violated_by_source, rc.cuts_made);
    total_cuts += rc.cuts_made;
    tl_partitions(d, c, check_rows, &rc);
    assert_true(rc.acyclic_seen > 0);
    rowinst_close(&t);
  }
  assert_true(total_cuts > 10);
  kf_model_destroy(m);
}

/* Clique rows: their groups overlap pairwise, and the row is violated by
 * the point it was separated from. */
static void test_clique_rows(void **state)
{
  (void)state;
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  int made = 0;
  for (unsigned seed = 1; seed <= 20; seed++) {
    rowinst t;
    rowinst_open(&t, tl_random_problem(12, 4, seed), 12, 3, m);
    const kf__cands *c = &t.c;
    kf__rows *rows = &t.rows;
    double *x = t.x;
    int *cols = t.cols;
    for (int j = 0; j < c->n; j++)
      x[j] = c->c[j].n > 1 ? 0.45 : 0;
    int added = kf__separate_cliques(c, rows, x, cols, 1000);
    assert_true(added >= 0);
    made += added;
    for (int r = 12; r < rows->n; r++) {
      double lhs = 0;
      for (int q = rows->start[r]; q < rows->start[r + 1]; q++) {
        lhs += x[rows->idx[q]];
        for (int q2 = rows->start[r]; q2 < q; q2++)
          assert_true(tl_mask(&c->c[rows->idx[q]]) & tl_mask(&c->c[rows->idx[q2]]));
      }
      assert_true(lhs > 1);
      assert_true(rows->rhs[r] == 1 && rows->sense[r] == 'L');
    }
    rowinst_close(&t);
  }
  assert_true(made > 0);
  kf_model_destroy(m);
}

/* Odd-cycle rows: separated from points that put 1/2 on some groups (the
 * odd cycles of overlapping halves a relaxation stops at) and from points
 * of the relaxation itself, each row is violated by its point and holds
 * for every acyclic partition (checked over all of them). */
static void test_odd_cycle_rows(void **state)
{
  (void)state;
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  int made = 0, weighted = 0;
  for (unsigned seed = 1; seed <= 60; seed++) {
    rowinst t;
    rowinst_seed(&t, seed, m);
    const kf__cands *c = &t.c;
    kf__rows *rows = &t.rows;
    double *x = t.x;
    unsigned s = seed;
    for (int trial = 0; trial < 6; trial++) {
      /* Trial 0: the relaxation's point; then random halves. */
      int first = rows->n;
      if (trial == 0) {
        relaxation_point(&t, rows->n);
      } else {
        for (int j = 0; j < c->n; j++)
          x[j] = c->c[j].n > 1 && tl_rand(&s) % 3 == 0 ? 0.5 : 0;
      }
      int added = kf__separate_odd_cycles(c, rows, x, t.cols, 1000);
      assert_true(added >= 0);
      made += added;
      for (int r = first; r < rows->n; r++) {
        double lhs = 0;
        for (int q = rows->start[r]; q < rows->start[r + 1]; q++) {
          lhs += x[rows->idx[q]];
          weighted += q > rows->start[r] && rows->idx[q] == rows->idx[q - 1];
          assert_true(q == rows->start[r] || rows->idx[q] >= rows->idx[q - 1]);
        }
        assert_true(lhs > rows->rhs[r] + 1e-6);
        assert_true(rows->sense[r] == 'L' && rows->rhs[r] >= 1 &&
                    rows->rhs[r] == floor(rows->rhs[r]));
      }
    }
    rowinst_check_rows(&t);
    rowinst_close(&t);
  }
  assert_true(made > 20);
  print_message("odd-cycle rows: %d, coefficients above 1: %d\n", made, weighted);
  kf_model_destroy(m);
}

/* Cycle rows of any length (cycles.c). */
typedef int (*separator)(const kf__dag *d, const kf__cands *c, kf__rows *rows,
                         const double *x, int *cols, int max);

/* A separator under test and the partitions offered to it as points. */
typedef struct cyclecheck {
  const kf__dag *d;
  const kf__cands *c;
  kf__rows *rows;
  double *x;
  int *cols;
  separator sep;
  int tried, found, made;
} cyclecheck;

/* Rows separated from x by sep, each violated by it: returns how many. */
static int separate_checked(separator sep, const kf__dag *d, const kf__cands *c,
                            kf__rows *rows, const double *x, int *cols)
{
  int first = rows->n;
  int added = sep(d, c, rows, x, cols, 1000);
  assert_int_equal(added, rows->n - first);
  for (int r = first; r < rows->n; r++) {
    double lhs = 0;
    for (int q = rows->start[r]; q < rows->start[r + 1]; q++)
      lhs += x[rows->idx[q]];
    assert_true(rows->sense[r] == 'L' && rows->rhs[r] >= 1 &&
                rows->rhs[r] == floor(rows->rhs[r]));
    assert_true(lhs > rows->rhs[r] + 1e-6);
  }
  return added;
}

/* The partition chosen[0..n) as a point: rows separated from it by
 * cc->sep, counted in cc. */
static void partition_point(cyclecheck *cc, const int *chosen, int n)
{
  separator sep = cc->sep;
  memset(cc->x, 0, sizeof(double) * (size_t)cc->c->n);
  for (int i = 0; i < n; i++)
    cc->x[chosen[i]] = 1;
  cc->tried++;
  int added = separate_checked(sep, cc->d, cc->c, cc->rows, cc->x, cc->cols);
  cc->found += added > 0;
  cc->made += added;
}

/* Rows separated by sep from eight random points of t (values 1/2 and 1/3
 * on a third of the groups), each violated by its point: returns how many. */
static int random_points(rowinst *t, separator sep, unsigned seed)
{
  int made = 0;
  for (int trial = 0; trial < 8; trial++) {
    double v = trial % 2 ? 0.5 : 1.0 / 3;
    for (int j = 0; j < t->c.n; j++)
      t->x[j] = t->c.c[j].n > 1 && tl_rand(&seed) % 3 == 0 ? v : 0;
    made += separate_checked(sep, &t->d, &t->c, &t->rows, t->x, t->cols);
  }
  return made;
}

/* A cyclic partition as a point: whenever its cycle lifts to a row of two
 * terms or more, the separator finds a row it violates. */
static void cyclic_points(void *user, const int *chosen, int n, int acyclic)
{
  cyclecheck *cc = user;
  if (acyclic || cc->tried >= 40)
    return;
  int cyc[32], topo[32], clen, terms;
  assert_int_equal(kf__quotient_cycle(cc->d, cc->c, chosen, n, cyc, &clen, topo), 1);
  if (kf__cycle_cut(cc->d, cc->c, cc->rows, cyc, clen, cc->cols, &terms) == 0)
    return;
  partition_point(cc, chosen, n);
}

typedef struct sepstats {
  int tried;       /* partitions offered as points */
  int made;        /* rows from them */
  int fractional;  /* rows from the relaxation's and random points */
  int wider;       /* rows with a right-hand side other than 1 */
} sepstats;

/* Over 60 small instances: rows separated by sep from the partitions that
 * points offers (each gets one), from the relaxation's point with the
 * partition rows alone and from random points with values 1/2 and 1/3;
 * each is violated by its point and holds for every acyclic partition
 * (checked over all of them). */
static sepstats check_separator(separator sep,
                                void (*points)(void *, const int *, int, int))
{
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  sepstats st = { 0, 0, 0, 0 };
  for (unsigned seed = 1; seed <= 60; seed++) {
    rowinst t;
    rowinst_seed(&t, seed, m);
    int n = t.n;
    cyclecheck cc = { &t.d, &t.c, &t.rows, t.x, t.cols, sep, 0, 0, 0 };
    tl_partitions(&t.d, &t.c, points, &cc);
    assert_int_equal(cc.found, cc.tried);
    st.tried += cc.tried;
    st.made += cc.made;
    relaxation_point(&t, n);
    st.fractional += separate_checked(sep, &t.d, &t.c, &t.rows, t.x, t.cols);
    st.fractional += random_points(&t, sep, seed);
    for (int r = n; r < t.rows.n; r++)
      st.wider += t.rows.rhs[r] != 1;
    rowinst_check_rows(&t);
    rowinst_close(&t);
  }
  kf_model_destroy(m);
  return st;
}

/* Cycle rows separated from cyclic partitions, from the relaxation's point
 * and from random fractional points are violated by their point and hold
 * for every acyclic partition; every cyclic partition whose cycle lifts
 * gets one. */
static void test_cycle_rows(void **state)
{
  (void)state;
  sepstats st = check_separator(kf__separate_cycles, cyclic_points);
  assert_true(st.tried > 20);
  assert_true(st.made + st.fractional > 20);
  print_message("cycle rows: %d (%d of three terms or more), from %d cyclic partitions\n",
                st.made + st.fractional, st.wider, st.tried);
}

/* Costs by member set, for the dominance tests: launches 0..3. */
static double set_cost[16];
static int cost_by_set(void *user, const kf_problem *p, const int *order,
                       const int *variants, int n, kf_estimate_t *out)
{
  (void)user, (void)p, (void)variants;
  unsigned mask = 0;
  for (int i = 0; i < n; i++)
    mask |= 1u << order[i];
  memset(out, 0, sizeof *out);
  out->time = set_cost[mask];
  return 0;
}

/* a -> b -> c through dead intermediates. */
static kf_problem *chain3(void)
{
  kf_problem *p;
  int t1, t2, x, y, a, b, c;
  kf_problem_create(&p);
  kf_problem_add_buffer(p, "x", 0, &x);
  kf_problem_add_buffer(p, "t1", 1, &t1);
  kf_problem_add_buffer(p, "t2", 1, &t2);
  kf_problem_add_buffer(p, "y", 0, &y);
  kf_problem_add_launch(p, "a", 1 << 20, &a);
  kf_problem_add_access(p, a, x, KF_READ, 4, NULL);
  kf_problem_add_access(p, a, t1, KF_WRITE, 4, NULL);
  kf_problem_add_launch(p, "b", 1 << 20, &b);
  kf_problem_add_access(p, b, t1, KF_READ, 4, NULL);
  kf_problem_add_access(p, b, t2, KF_WRITE, 4, NULL);
  kf_problem_add_launch(p, "c", 1 << 20, &c);
  kf_problem_add_access(p, c, t2, KF_READ, 4, NULL);
  kf_problem_add_access(p, c, y, KF_WRITE, 4, NULL);
  return p;
}

static void test_dominance_drops(void **state)
{
  (void)state;
  /* {a,b,c} costs 25, less than its launches alone (30) but more than
   * {a,b} + {c} (22): dropped, and the optimum (22) is unchanged. */
  for (int i = 0; i < 16; i++)
    set_cost[i] = 1e9;
  set_cost[1] = set_cost[2] = set_cost[4] = 10e-6;
  set_cost[3] = set_cost[6] = 12e-6;
  set_cost[7] = 25e-6;
  kf_problem *p = chain3();
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  kf_model_set_cost(m, cost_by_set, NULL);
  kf_solve_options_t o;
  kf_solve_options_init(&o);
  o.solver = KF_SOLVE_EXACT;
  kf_plan *pl;
  assert_int_equal(kf_plan_solve(p, m, &o, &pl), 0);
  kf_plan_stats_t st;
  assert_int_equal(kf_plan_stats(pl, &st), 0);
  assert_int_equal(st.enumerated, 6);
  assert_int_equal(st.candidates, 5);
  assert_true(fabs(kf_plan_time(pl, 0) - 22e-6) < 1e-12);
  assert_true(fabs(kf_plan_time(pl, 0) - tl_brute(p, m, 4)) < 1e-12);
  kf_plan_destroy(pl);
  /* At exactly the refinement's cost the group goes too (no loss). */
  set_cost[7] = 22e-6;
  assert_int_equal(kf_plan_solve(p, m, &o, &pl), 0);
  assert_int_equal(kf_plan_stats(pl, &st), 0);
  assert_int_equal(st.candidates, 5);
  kf_plan_destroy(pl);
  /* Cheaper than every refinement: kept, and chosen. */
  set_cost[7] = 21e-6;
  assert_int_equal(kf_plan_solve(p, m, &o, &pl), 0);
  assert_int_equal(kf_plan_stats(pl, &st), 0);
  assert_int_equal(st.candidates, 6);
  assert_int_equal(kf_plan_group_count(pl, 0), 1);
  kf_plan_destroy(pl);
  kf_model_destroy(m);
  kf_problem_destroy(p);
}

/* The cyclic-quotient instance (plan_testlib.h): launch ids a 0, c 1, b 2,
 * d 3; {a,d} and {b,c} depend on each other. */
static void test_dominance_needs_acyclic_order(void **state)
{
  (void)state;
  /* {a,d} + {b,c} (4 + 4) is cheaper than the whole group (10), but each
   * part waits for the other: not a refinement. Every acyclic one costs
   * more than 10, so the group stays and is the optimum. */
  for (int i = 0; i < 16; i++)
    set_cost[i] = 1e9;
  unsigned a = 1, c = 2, b = 4, d = 8;
  set_cost[a] = set_cost[b] = set_cost[c] = set_cost[d] = 5e-6;
  set_cost[a | d] = set_cost[b | c] = 4e-6;
  set_cost[a | b] = set_cost[c | d] = 6e-6;
  set_cost[a | b | c] = set_cost[a | c | d] = set_cost[a | b | d] = set_cost[b | c | d] = 9e-6;
  set_cost[a | b | c | d] = 10e-6;
  kf_problem *p = tl_cyclic_problem();
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  kf_model_set_cost(m, cost_by_set, NULL);
  kf__dag dg;
  kf__cands cs;
  assert_int_equal(kf__dag_build(p, &dg), 0);
  assert_int_equal(kf__cands_build(p, &dg, m, 4, 1, tl_work(), &cs), 0);
  int whole = 0;
  for (int i = 0; i < cs.n; i++)
    whole |= cs.c[i].n == 4;
  assert_true(whole);
  kf__cands_free(&cs);
  kf__dag_free(&dg);
  kf_solve_options_t o;
  kf_solve_options_init(&o);
  o.solver = KF_SOLVE_EXACT;
  kf_plan *pl;
  assert_int_equal(kf_plan_solve(p, m, &o, &pl), 0);
  assert_true(fabs(kf_plan_time(pl, 0) - 10e-6) < 1e-12);
  assert_true(fabs(tl_brute(p, m, 4) - 10e-6) < 1e-12);
  assert_int_equal(kf_plan_group_count(pl, 0), 1);
  kf_plan_destroy(pl);
  kf_model_destroy(m);
  kf_problem_destroy(p);
}

/* The k best plans against every acyclic partition into the candidates. */
typedef struct costs {
  const kf__cands *c;
  double v[1 << 14];
  int n;
} costs;

static void collect(void *user, const int *chosen, int n, int acyclic)
{
  costs *cs = user;
  if (!acyclic || cs->n == (int)(sizeof cs->v / sizeof cs->v[0]))
    return;
  double t = 0;
  for (int i = 0; i < n; i++)
    t += cs->c->c[chosen[i]].cost;
  cs->v[cs->n++] = t;
}

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void test_k_best_brute_force(void **state)
{
  (void)state;
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  static costs cs;
  /* The k best partitions, each group in its cheapest variant assignment;
   * then, with assignments = 6, the k best plans of partitions and
   * assignments: the partitions into the candidates that hold each group
   * in each of its 6 cheapest assignments. */
  int differ = 0;
  for (unsigned run = 0; run < 32; run++) {
    unsigned seed = run % 16 + 1;
    int alts = run < 16 ? 1 : 6;
    int n = 6 + (int)(seed % 3), k = 3;
    kf_problem *p = seed % 2 ? tl_synthetic(n, 2 + n / 2, seed)
                             : tl_random_problem(n, 3, seed);
    kf__dag d;
    kf__cands c;
    assert_int_equal(kf__dag_build(p, &d), 0);
    assert_int_equal(kf__cands_build(p, &d, m, k, alts, tl_work(), &c), 0);
    cs.c = &c;
    cs.n = 0;
    tl_partitions(&d, &c, collect, &cs);
    assert_true(cs.n < (int)(sizeof cs.v / sizeof cs.v[0]));
    qsort(cs.v, (size_t)cs.n, sizeof(double), by_value);
    kf_solve_options_t o;
    kf_solve_options_init(&o);
    o.solver = KF_SOLVE_EXACT;
    o.max_group = k;
    o.k_best = 6;
    o.assignments = alts;
    kf_plan *pl;
    assert_int_equal(kf_plan_solve(p, m, &o, &pl), 0);
    int np = kf_plan_count(pl);
    assert_int_equal(np, cs.n < 6 ? cs.n : 6);
    for (int r = 0; r < np; r++)
      if (fabs(kf_plan_time(pl, r) - cs.v[r]) > 1e-6 * cs.v[r])
        fail_msg("seed %u assignments %d rank %d: solver %.9g, brute force %.9g", seed, alts,
                 r, kf_plan_time(pl, r), cs.v[r]);
    /* The best plan does not depend on the assignments listed. */
    static double best1[17];
    if (alts == 1)
      best1[seed] = kf_plan_time(pl, 0);
    else
      assert_true(kf_plan_time(pl, 0) == best1[seed]);
    /* Somewhere a listed assignment makes a plan the partitions alone do
     * not have: a group of the same launches in other variants. */
    for (int r = 1; r < np && alts > 1; r++)
      for (int q = 0; q < r; q++) {
        int same = kf_plan_group_count(pl, r) == kf_plan_group_count(pl, q), other = 0;
        for (int g = 0; g < kf_plan_group_count(pl, r) && same; g++) {
          kf_group_info_t a, b;
          kf_plan_group(pl, r, g, &a);
          kf_plan_group(pl, q, g, &b);
          same = a.count == b.count &&
                 !memcmp(a.launches, b.launches, sizeof(int) * (size_t)a.count);
          for (int i = 0; same && i < a.count; i++)
            other |= a.variants[i] != b.variants[i];
        }
        differ += same && other;
      }
    kf_plan_destroy(pl);
    kf__cands_free(&c);
    kf__dag_free(&d);
    kf_problem_destroy(p);
  }
  print_message("k best with assignments: %d plans that differ from a better one in assignments alone\n", differ);
  assert_true(differ > 0);
  kf_model_destroy(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rows_valid),
    cmocka_unit_test(test_clique_rows),
    cmocka_unit_test(test_odd_cycle_rows),
    cmocka_unit_test(test_cycle_rows),
    cmocka_unit_test(test_dominance_drops),
    cmocka_unit_test(test_dominance_needs_acyclic_order),
    cmocka_unit_test(test_k_best_brute_force),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
