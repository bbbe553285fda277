/* Unit tests of solve.c: known optima, random instances against brute force
 * over all set partitions, the cyclic-quotient counterexample, k best plans
 * and the heuristic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include "plan_testlib.h"

static kf_solve_options_t opts(int k, int kbest)
{
  kf_solve_options_t o;
  kf_solve_options_init(&o);
  o.max_group = k;
  o.k_best = kbest;
  o.work_limit = 100000000;
  o.solver = KF_SOLVE_EXACT;
  return o;
}

/* Launch a reads x and writes t (dead after the sequence), launch b reads
 * t and writes y; each launch with the variants vs[0..nv) (none: the
 * default). */
static kf_problem *chain_problem(const char *na, const char *nb, const kf_variant_t *vs, int nv,
                                 int *a, int *b)
{
  kf_problem *p;
  int x, t, y;
  assert_int_equal(kf_problem_create(&p), 0);
  kf_problem_add_buffer(p, "x", 0, &x);
  kf_problem_add_buffer(p, "t", 1, &t);
  kf_problem_add_buffer(p, "y", 0, &y);
  kf_problem_add_launch(p, na, 1 << 24, a);
  for (int v = 0; v < nv; v++)
    kf_problem_add_variant(p, *a, &vs[v]);
  kf_problem_add_access(p, *a, x, KF_READ, 4, NULL);
  kf_problem_add_access(p, *a, t, KF_WRITE, 4, NULL);
  kf_problem_add_launch(p, nb, 1 << 24, b);
  for (int v = 0; v < nv; v++)
    kf_problem_add_variant(p, *b, &vs[v]);
  kf_problem_add_access(p, *b, t, KF_READ, 4, NULL);
  kf_problem_add_access(p, *b, y, KF_WRITE, 4, NULL);
  return p;
}

/* The best plan of a chain_problem that fuses: one group, both launches. */
static kf_group_info_t one_group_of_two(const kf_plan *pl)
{
  assert_int_equal(kf_plan_group_count(pl, 0), 1);
  kf_group_info_t g;
  assert_int_equal(kf_plan_group(pl, 0, 0, &g), 0);
  assert_int_equal(g.count, 2);
  return g;
}

/* producer -> consumer through a dead intermediate: one fused kernel. */
static void test_chain_fuses(void **state)
{
  (void)state;
  int a, b;
  kf_problem *p = chain_problem("scale", "axpy", NULL, 0, &a, &b);
  kf_solve_options_t o = opts(4, 1);
  kf_plan *pl;
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), 0);
  kf_group_info_t g = one_group_of_two(pl);
  assert_int_equal(g.launches[0], a);
  /* unfused: 16 B/elem each + 2 launches; fused: 8 B/elem + 1 launch */
  kf_profile_t d;
  kf_profile_default(&d);
  double bw = d.bandwidth, n = 1 << 24;
  assert_true(fabs(kf_plan_unfused_time(pl) - (2 * 8 * n / bw + 2 * d.launch_overhead)) < 1e-9);
  assert_true(fabs(kf_plan_time(pl, 0) - (8 * n / bw + d.launch_overhead)) < 1e-9);
  assert_true(kf_plan_gain(pl, 0) > 0);
  assert_true(kf_plan_gap(pl) == 0);
  assert_int_equal(kf_plan_group(pl, 0, 1, &g), KF_EINVAL);
  kf_plan_destroy(pl);
  kf_problem_destroy(p);
}

static int forbid_all(void *u, const int *g, int n)
{
  (void)u, (void)g, (void)n;
  return 0;
}

static void test_legality_callback(void **state)
{
  (void)state;
  kf_problem *p = tl_random_problem(6, 3, 7);
  kf_problem_set_legality(p, forbid_all, NULL);
  kf_solve_options_t o = opts(4, 1);
  kf_plan *pl;
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), 0);
  assert_int_equal(kf_plan_group_count(pl, 0), 6);
  assert_true(fabs(kf_plan_gain(pl, 0)) < 1e-12);
  kf_plan_destroy(pl);
  kf_problem_destroy(p);
}

static int forbid_all_variants(void *u, const int *g, const int *v, int n)
{
  (void)u, (void)g, (void)v, (void)n;
  return 0;
}

/* Variant legality: launches alone only in variant 0 ("slow"), and in a
 * group every variant but b's "fast". The callback sees members in launch
 * order with their variants. */
static int calls_bad_order;
static int variants_rule(void *u, const int *g, const int *v, int n)
{
  (void)u;
  for (int i = 1; i < n; i++)
    calls_bad_order |= g[i] <= g[i - 1];
  if (n == 1)
    return v[0] == 0;
  for (int i = 0; i < n; i++)
    if (g[i] == 1 && v[i] == 1)
      return 0;
  return 1;
}

static void test_variant_legality(void **state)
{
  (void)state;
  int a, b;
  const kf_variant_t vs[2] = {{"slow", 1, 0, 256, 32, 0, 20000, NULL, 0},
                              {"fast", 1, 0, 256, 32, 0, 1, NULL, 0}};
  kf_problem *p = chain_problem("a", "b", vs, 2, &a, &b);
  kf_solve_options_t o = opts(4, 1);
  kf_plan *free_pl, *pl;
  /* Without the rule both run fast, fused or not. */
  assert_int_equal(kf_plan_solve(p, NULL, &o, &free_pl), 0);
  kf_problem_set_variant_legality(p, variants_rule, NULL);
  calls_bad_order = 0;
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), 0);
  assert_int_equal(calls_bad_order, 0);
  assert_true(kf_plan_unfused_time(pl) > kf_plan_unfused_time(free_pl) * 1.5);
  kf_group_info_t g = one_group_of_two(pl);
  for (int i = 0; i < 2; i++)
    assert_int_equal(g.variants[i], g.launches[i] == a ? 1 : 0);
  kf_plan_destroy(pl);
  kf_plan_destroy(free_pl);
  /* No variant of b alone is legal: infeasible. */
  kf_problem_set_variant_legality(p, forbid_all_variants, NULL);
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), KF_EINFEASIBLE);
  kf_problem_destroy(p);
}

/* Variants predicted alike: of a group's assignments the one whose tie
 * ranks sum lowest is chosen, whichever the odometer meets first. */
static void test_variant_tie_rank(void **state)
{
  (void)state;
  int a, b;
  kf_variant_t vs[2] = {{"written", 1, 0, 256, 32, 0, 1, NULL, 0},
                        {"derived", 1, 0, 256, 32, 0, 1, NULL, 0}};
  kf_solve_options_t o = opts(4, 1);
  for (int favoured = 0; favoured < 2; favoured++) {
    vs[0].tie_rank = favoured == 0 ? 0 : 1;
    vs[1].tie_rank = favoured == 1 ? 0 : 1;
    kf_problem *p = chain_problem("a", "b", vs, 2, &a, &b);
    kf_plan *pl;
    assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), 0);
    kf_group_info_t g = one_group_of_two(pl);
    for (int i = 0; i < 2; i++)
      assert_int_equal(g.variants[i], favoured);
    kf_plan_destroy(pl);
    kf_problem_destroy(p);
  }
  /* Out of range. */
  kf_problem *p;
  assert_int_equal(kf_problem_create(&p), 0);
  kf_problem_add_launch(p, "a", 1, &a);
  vs[0].tie_rank = -1;
  assert_int_equal(kf_problem_add_variant(p, a, &vs[0]), KF_EINVAL);
  vs[0].tie_rank = KF_VARIANT_MAX_TIE_RANK + 1;
  assert_int_equal(kf_problem_add_variant(p, a, &vs[0]), KF_EINVAL);
  kf_problem_destroy(p);
}

static void check_groups_partition(const kf_plan *pl, int rank, int n)
{
  int seen[32] = { 0 };
  for (int g = 0; g < kf_plan_group_count(pl, rank); g++) {
    kf_group_info_t gi;
    assert_int_equal(kf_plan_group(pl, rank, g, &gi), 0);
    for (int i = 0; i < gi.count; i++)
      seen[gi.launches[i]]++;
  }
  for (int v = 0; v < n; v++)
    assert_int_equal(seen[v], 1);
}

/* Solves p (n launches) with groups of up to k, checks the best plan's cost
 * against brute force (relative tolerance rtol) and that its groups
 * partition the launches; returns the plan for further checks. */
static kf_plan *solve_vs_brute(kf_problem *p, kf_model *m, int n, int k, double rtol,
                               const char *what, unsigned seed)
{
  assert_non_null(p);
  kf_solve_options_t o = opts(k, 1);
  kf_plan *pl;
  assert_int_equal(kf_plan_solve(p, m, &o, &pl), 0);
  double want = tl_brute(p, m, k), got = kf_plan_time(pl, 0);
  if (fabs(want - got) > rtol * want)
    fail_msg("%s seed %u n %d k %d: solver %.9g, brute force %.9g", what, seed, n, k, got,
             want);
  check_groups_partition(pl, 0, n);
  return pl;
}

/* Every instance twice: proven by the sweep, and by the searches that take
 * over where the sweep runs out of memory. */
static void test_random_vs_brute_force(void **state)
{
  (void)state;
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  size_t sweep_bytes = kf__sweep_max_bytes;
  for (int sweep = 0; sweep < 2; sweep++) {
  kf__sweep_max_bytes = sweep ? sweep_bytes : 0;
  long states = 0;
  int ilp = 0;
  for (unsigned seed = 1; seed <= 40; seed++) {
    int n = 4 + (int)(seed % 7); /* 4..10 */
    int k = 2 + (int)(seed % 3);
    kf_problem *p = tl_random_problem(n, 2 + (int)(seed % 5), seed);
    kf_plan_destroy(solve_vs_brute(p, m, n, k, 1e-9, "random", seed));
    kf_problem_destroy(p);
  }
  /* Synthetic instances: horizontal sharing, so cyclic group orders that
   * the cycle rows must exclude. */
  int cut = 0;
  for (unsigned seed = 1; seed <= 60; seed++) {
    int n = 8 + (int)(seed % 5); /* 8..12 */
    int k = 3 + (int)(seed % 2);
    kf_problem *p = tl_synthetic(n, 3 + n / 2, seed);
    kf_plan *pl = solve_vs_brute(p, m, n, k, 1e-6, "synthetic", seed);
    kf_plan_stats_t st;
    assert_int_equal(kf_plan_stats(pl, &st), 0);
    assert_true(st.candidates <= st.enumerated && st.candidates > n);
    cut += st.conflict_rows + st.cycle_cuts;
    states += st.sweep_states;
    ilp += st.ilp_solves;
    kf_plan_destroy(pl);
    kf_problem_destroy(p);
  }
  assert_true(cut > 0);
  /* Larger synthetic instances at k = 4, where the relaxation stops at odd
   * cycles of overlapping groups and the odd-cycle rows take part. */
  for (unsigned seed = 61; seed <= 90; seed++) {
    int n = 13 + (int)(seed % 3); /* 13..15 */
    kf_problem *p = tl_synthetic(n, 3 + n / 2, seed);
    kf_plan_destroy(solve_vs_brute(p, m, n, 4, 1e-6, "synthetic", seed));
    kf_problem_destroy(p);
  }
  /* The sweep proves every synthetic instance alone; without it, the
   * searches run. */
  if (sweep)
    assert_true(states > 0 && ilp == 0);
  else
    assert_true(states == 0 && ilp > 0);
  }
  kf__sweep_max_bytes = sweep_bytes;
  kf_model_destroy(m);
}

/* An instance for the sweep's tests: its DAG, candidates, their costs in
 * microseconds and room for reduced costs. */
typedef struct sweep_inst {
  kf__dag d;
  kf__cands c;
  double *cost, *rc;
} sweep_inst;

static void sweep_inst_open(sweep_inst *in, const kf_problem *p, const kf_model *m, int k)
{
  memset(in, 0, sizeof *in);
  assert_int_equal(kf__dag_build(p, &in->d), 0);
  assert_int_equal(kf__cands_build(p, &in->d, m, k, 1, tl_work(), &in->c), 0);
  in->cost = malloc(sizeof(double) * (size_t)in->c.n);
  in->rc = malloc(sizeof(double) * (size_t)in->c.n);
  assert_true(in->cost && in->rc);
  for (int j = 0; j < in->c.n; j++)
    in->cost[j] = in->c.c[j].cost * 1e6;
}

static void sweep_inst_close(sweep_inst *in)
{
  free(in->cost);
  free(in->rc);
  kf__cands_free(&in->c);
  kf__dag_free(&in->d);
}

/* The sweep against every partition into candidates. Without pruning
 * (reduced costs 0) it returns the acyclic optimum. With reduced costs d
 * from random duals y of the partition rows and the bound L they give
 * (cost.x >= L + sum of max(d, 0) over the chosen groups, as in exact.c),
 * and a random limit, it returns the acyclic optimum whenever that costs
 * less than L + limit; whatever it returns is an acyclic partition of its
 * cost, its reduced costs below the limit. The instances have horizontal
 * sharing, so some have cyclic partitions cheaper than any acyclic one,
 * which it must pass over. */
typedef struct sweep_ref {
  const double *cost;
  double all, acyclic;
} sweep_ref;

static void sweep_visit(void *user, const int *cands, int n, int acyclic)
{
  sweep_ref *r = user;
  double t = 0;
  for (int i = 0; i < n; i++)
    t += r->cost[cands[i]];
  r->all = fmin(r->all, t);
  if (acyclic)
    r->acyclic = fmin(r->acyclic, t);
}

static void test_sweep_vs_partitions(void **state)
{
  (void)state;
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  int cyclic_cheaper = 0, none = 0, plans = 0, pruned = 0, oom = 0;
  unsigned rs = 12345;
  for (unsigned seed = 1; seed <= 120; seed++) {
    int n = 6 + (int)(seed % 7), k = 3 + (int)(seed % 2); /* 6..12 launches */
    kf_problem *p = seed % 5 ? tl_synthetic(n, 3 + n / 2, seed) : tl_random_problem(n, 3, seed);
    sweep_inst in;
    sweep_inst_open(&in, p, m, k);
    const kf__dag *d = &in.d;
    const kf__cands *c = &in.c;
    double *cost = in.cost, *rc = in.rc;
    int chosen[32], nc;
    sweep_ref r = { cost, INFINITY, INFINITY };
    tl_partitions(d, c, sweep_visit, &r);
    cyclic_cheaper += r.all < r.acyclic - 1e-9 * r.acyclic;
    for (int trial = 0; trial < 4; trial++) {
      double lower = 0, limit = 1, y[32];
      for (int v = 0; v < n; v++)
        y[v] = cost[c->single[v]] * (0.3 + 0.8 * (double)(tl_rand(&rs) % 1000) / 1000.0);
      for (int v = 0; v < n; v++)
        lower += trial ? y[v] : 0;
      for (int j = 0; j < c->n; j++) {
        rc[j] = 0;
        if (trial) {
          rc[j] = cost[j];
          for (int q = 0; q < c->c[j].n; q++)
            rc[j] -= y[c->c[j].members[q]];
          lower += fmin(rc[j], 0);
        }
      }
      if (trial)
        limit = (r.acyclic - lower) * (0.05 + 1.6 * (double)(tl_rand(&rs) % 1000) / 1000.0);
      double best = INFINITY;
      long states;
      int found;
      int src = kf__sweep(d, c, cost, rc, limit, 1, tl_work(), chosen, &nc, &best,
                          &found, &states);
      assert_int_equal(src, 0);
      assert_true(states > 0 && (found == 1 || (found == 0 && !isfinite(best))));
      int must = !trial || r.acyclic < lower + limit;
      if (must && fabs(best - r.acyclic) > 1e-9 * r.acyclic)
        fail_msg("seed %u trial %d: sweep %.9g, acyclic optimum %.9g below L + limit %.9g",
                 seed, trial, best, r.acyclic, lower + limit);
      assert_true(best >= r.acyclic * (1 - 1e-9));
      pruned += !must;
      if (!found) {
        none++;
        continue;
      }
      plans++;
      /* The plan itself: a partition, acyclic, of that cost, below the limit. */
      int seen[32] = { 0 }, cyc[32], topo[32], clen;
      double t = 0, dr = 0;
      for (int i = 0; i < nc; i++) {
        for (int q = 0; q < c->c[chosen[i]].n; q++)
          seen[c->c[chosen[i]].members[q]]++;
        t += cost[chosen[i]], dr += fmax(rc[chosen[i]], 0);
      }
      for (int v = 0; v < n; v++)
        assert_int_equal(seen[v], 1);
      assert_int_equal(kf__quotient_cycle(d, c, chosen, nc, cyc, &clen, topo), 0);
      assert_true(fabs(t - best) <= 1e-9 * best && dr < limit);
    }
    /* Out of memory, at once or part way: says so (or, with room enough,
     * proves the optimum), and the planner proves the optimum anyway. */
    size_t sweep_bytes = kf__sweep_max_bytes;
    for (size_t budget = 256; budget <= 65536; budget *= 4) {
      kf__sweep_max_bytes = budget;
      double best;
      long states;
      int found;
      for (int j = 0; j < c->n; j++)
        rc[j] = 0;
      int src = kf__sweep(d, c, cost, rc, 1, 1, tl_work(), chosen, &nc, &best, &found,
                          &states);
      assert_true(src == 1 || (src == 0 && fabs(best - r.acyclic) <= 1e-9 * r.acyclic));
      if (budget == 256)
        assert_int_equal(src, 1);
      oom += src == 1 && states > 0;
    }
    if (seed % 10 == 0)
      kf_plan_destroy(solve_vs_brute(p, m, n, k, 1e-6, "sweep out of memory", seed));
    kf__sweep_max_bytes = sweep_bytes;
    sweep_inst_close(&in);
    kf_problem_destroy(p);
  }
  print_message("sweep: %d plans found, %d limits with none, %d limits below the optimum, %d "
                "out of memory part way, "
                "%d instances with a cyclic partition cheaper than the acyclic optimum\n",
                plans, none, pruned, oom, cyclic_cheaper);
  assert_true(cyclic_cheaper >= 5 && none >= 5 && pruned >= 50 && plans >= 300 && oom >= 20);
  kf_model_destroy(m);
}

/* CBC against the sweep: on synthetic instances of 16 to 24 launches at
 * k = 4 (sharing sets up to 8, relaxations that end 1-5 % below the
 * optimum, too many partitions for brute force), CBC over the core, where
 * the sweep runs out of memory, proves the optimum the sweep proves. */
static void test_cbc_vs_sweep(void **state)
{
  (void)state;
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  kf_solve_options_t o;
  kf_solve_options_init(&o);
  o.solver = KF_SOLVE_EXACT;
  o.max_group = 4;
  size_t sweep_bytes = kf__sweep_max_bytes;
  int solves = 0, cuts = 0, swept_some = 0;
  for (unsigned seed = 1; seed <= 80; seed++) {
    int n = 16 + 4 * (int)(seed % 3);
    kf_problem *p = tl_synthetic_sharing(n, n / 2, 8, seed);
    assert_non_null(p);
    kf_plan *cbc, *swept;
    assert_int_equal(kf_plan_solve(p, m, &o, &swept), 0);
    kf__sweep_max_bytes = 0;
    assert_int_equal(kf_plan_solve(p, m, &o, &cbc), 0);
    kf__sweep_max_bytes = sweep_bytes;
    double b = kf_plan_time(cbc, 0), w = kf_plan_time(swept, 0);
    if (fabs(w - b) > 1e-7 * b)
      fail_msg("seed %u (%d launches): CBC %.9g s, sweep %.9g s", seed, n, b, w);
    check_groups_partition(swept, 0, n);
    check_groups_partition(cbc, 0, n);
    kf_plan_stats_t st;
    assert_int_equal(kf_plan_stats(swept, &st), 0);
    swept_some += st.sweep_states > 0;
    assert_int_equal(st.ilp_solves, 0);
    assert_int_equal(kf_plan_stats(cbc, &st), 0);
    assert_int_equal(st.sweep_states, 0);
    solves += st.ilp_solves;
    cuts += st.cycle_cuts;
    kf_plan_destroy(swept);
    kf_plan_destroy(cbc);
    kf_problem_destroy(p);
  }
  assert_true(swept_some >= 40 && solves >= 40);
  print_message("CBC: %d runs, %d cycle cuts over 80 instances; the sweep searched %d of "
                "them\n", solves, cuts, swept_some);
  kf_model_destroy(m);
}

static int only_pairs_ad_bc(void *u, const int *g, int n)
{
  (void)u;
  /* launch ids: a 0, c 1, b 2, d 3 */
  return n == 2 && ((g[0] == 0 && g[1] == 3) || (g[0] == 1 && g[1] == 2));
}

static void test_cyclic_quotient_rejected(void **state)
{
  (void)state;
  kf_problem *p = tl_cyclic_problem();
  kf_problem_set_legality(p, only_pairs_ad_bc, NULL);
  kf__dag d;
  assert_int_equal(kf__dag_build(p, &d), 0);
  uint64_t scratch[3];
  int ad[2] = { 0, 3 }, bc[2] = { 1, 2 };
  assert_true(kf__dag_convex(&d, ad, 2, scratch));
  assert_true(kf__dag_convex(&d, bc, 2, scratch));
  kf_model *m;
  kf_model_create(&m, NULL, KF_MODEL_ROOFLINE);
  kf__cands c = { 0 };
  assert_int_equal(kf__cands_build(p, &d, m, 2, 1, tl_work(), &c), 0);
  int chosen[2] = { -1, -1 };
  for (int i = 0; i < c.n; i++)
    if (c.c[i].n == 2)
      chosen[c.c[i].members[0] == 0 ? 0 : 1] = i;
  assert_true(chosen[0] >= 0 && chosen[1] >= 0);
  int cyc[4], clen = 0, topo[4];
  assert_int_equal(kf__quotient_cycle(&d, &c, chosen, 2, cyc, &clen, topo), 1);
  assert_int_equal(clen, 2);
  /* The two groups beat everything else, yet the solver must not pick both. */
  kf_solve_options_t o = opts(2, 1);
  kf_plan *pl;
  assert_int_equal(kf_plan_solve(p, m, &o, &pl), 0);
  assert_int_equal(kf_plan_group_count(pl, 0), 3);
  double both = c.c[chosen[0]].cost + c.c[chosen[1]].cost;
  assert_true(kf_plan_time(pl, 0) > both);
  assert_true(fabs(kf_plan_time(pl, 0) - tl_brute(p, m, 2)) < 1e-12);
  kf_plan_stats_t st;
  assert_int_equal(kf_plan_stats(pl, &st), 0);
  assert_true(st.conflict_rows + st.cycle_cuts >= 1); /* the pair was cut off */
  kf_plan_destroy(pl);
  o.solver = KF_SOLVE_HEURISTIC;
  o.work_limit = 100000;
  int rc = kf_plan_solve(p, m, &o, &pl);
  assert_true(rc == 0 || rc == KF_ELIMIT);
  assert_int_equal(kf_plan_group_count(pl, 0), 3);
  kf_plan_destroy(pl);
  kf__cands_free(&c);
  kf__dag_free(&d);
  kf_model_destroy(m);
  kf_problem_destroy(p);
}

/* The k best plans against every acyclic partition: the sweep alone
 * (without pruning, and with reduced costs from random duals and a random
 * limit: the k best whenever the k-th costs less than L + limit), and
 * kf_plan_solve with and without the sweep (no-good rows and CBC). */
typedef struct costs_ref {
  const double *cost;
  double *t;
  int n, cap;
} costs_ref;

static void costs_visit(void *user, const int *cands, int n, int acyclic)
{
  costs_ref *r = user;
  if (!acyclic)
    return;
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 64;
    r->t = realloc(r->t, sizeof(double) * (size_t)r->cap);
    assert_non_null(r->t);
  }
  double t = 0;
  for (int i = 0; i < n; i++)
    t += r->cost[cands[i]];
  r->t[r->n++] = t;
}

static int dbl_cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Nonzero if the partitions a[0..na) and b[0..nb) (candidate indices) are
 * the same set of groups. */
static int same_partition(const int *a, int na, const int *b, int nb)
{
  if (na != nb)
    return 0;
  for (int i = 0; i < na; i++) {
    int in = 0;
    for (int j = 0; j < nb; j++)
      in |= a[i] == b[j];
    if (!in)
      return 0;
  }
  return 1;
}

static void test_k_best_vs_partitions(void **state)
{
  (void)state;
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  enum { K = 6 };
  unsigned rs = 777;
  int exact = 0, fewer = 0;
  for (unsigned seed = 1; seed <= 60; seed++) {
    /* 2 or 3 launches every 20th: fewer plans than asked */
    int n = seed % 20 ? 5 + (int)(seed % 7) : 2 + (int)(seed / 20 % 2);
    int k = 2 + (int)(seed % 3), kb = seed % 20 ? 2 + (int)(seed % (K - 1)) : K;
    kf_problem *p = seed % 4 ? tl_synthetic(n, 3 + n / 2, seed) : tl_random_problem(n, 3, seed);
    sweep_inst in;
    sweep_inst_open(&in, p, m, k);
    const kf__dag *d = &in.d;
    const kf__cands *c = &in.c;
    double *cost = in.cost, *rc = in.rc;
    costs_ref r = { cost, NULL, 0, 0 };
    tl_partitions(d, c, costs_visit, &r);
    qsort(r.t, (size_t)r.n, sizeof(double), dbl_cmp);
    fewer += r.n < kb;
    for (int trial = 0; trial < 3; trial++) {
      double lower = 0, limit = 1e30, y[32];
      for (int v = 0; v < n; v++)
        y[v] = trial ? cost[c->single[v]] * (0.3 + 0.8 * (double)(tl_rand(&rs) % 1000) / 1000.0)
                     : 0;
      for (int v = 0; v < n; v++)
        lower += y[v];
      for (int j = 0; j < c->n; j++) {
        rc[j] = cost[j];
        for (int q = 0; q < c->c[j].n; q++)
          rc[j] -= y[c->c[j].members[q]];
        lower += fmin(rc[j], 0);
      }
      double kth = r.t[(r.n < kb ? r.n : kb) - 1];
      if (trial)
        limit = (kth - lower) * (0.5 + (double)(tl_rand(&rs) % 1000) / 1000.0);
      int chosen[K * 32], nc[K], found;
      double best[K];
      long states;
      assert_int_equal(kf__sweep(d, c, cost, rc, limit, kb, tl_work(), chosen, nc, best,
                                 &found, &states), 0);
      int must = kth < lower + limit;
      exact += must;
      if (must)
        assert_int_equal(found, r.n < kb ? r.n : kb);
      for (int i = 0; i < found; i++) {
        /* plan i: the i-th cost when the k-th is below L + limit, never
         * cheaper than it; acyclic, a partition, distinct from the others */
        const int *pi = chosen + (size_t)i * (size_t)n;
        int seen[32] = { 0 }, cyc[32], topo[32], clen;
        double t = 0;
        for (int g = 0; g < nc[i]; g++) {
          t += cost[pi[g]];
          for (int q = 0; q < c->c[pi[g]].n; q++)
            seen[c->c[pi[g]].members[q]]++;
        }
        for (int v = 0; v < n; v++)
          assert_int_equal(seen[v], 1);
        assert_int_equal(kf__quotient_cycle(d, c, pi, nc[i], cyc, &clen, topo), 0);
        assert_true(fabs(t - best[i]) <= 1e-9 * t && (i == 0 || best[i] >= best[i - 1]));
        assert_true(best[i] >= r.t[i] * (1 - 1e-9));
        if (must && fabs(best[i] - r.t[i]) > 1e-9 * r.t[i])
          fail_msg("seed %u trial %d: plan %d of %d costs %.9g, the %d-th partition %.9g", seed,
                   trial, i + 1, kb, best[i], i + 1, r.t[i]);
        for (int h = 0; h < i; h++)
          assert_false(same_partition(pi, nc[i], chosen + (size_t)h * (size_t)n, nc[h]));
      }
    }
    /* Through kf_plan_solve, with the sweep and without. */
    size_t sweep_bytes = kf__sweep_max_bytes;
    for (int sweep = 0; sweep < 2; sweep++) {
      kf__sweep_max_bytes = sweep ? sweep_bytes : 0;
      kf_solve_options_t o = opts(k, kb);
      kf_plan *pl;
      assert_int_equal(kf_plan_solve(p, m, &o, &pl), 0);
      assert_int_equal(kf_plan_count(pl), r.n < kb ? r.n : kb);
      for (int i = 0; i < kf_plan_count(pl); i++) {
        double t = kf_plan_time(pl, i) * 1e6;
        if (fabs(t - r.t[i]) > 1e-7 * r.t[i])
          fail_msg("seed %u (%s): plan %d of %d costs %.9g, the %d-th partition %.9g", seed,
                   sweep ? "sweep" : "no-good rows", i + 1, kb, t, i + 1, r.t[i]);
        check_groups_partition(pl, i, n);
      }
      kf_plan_stats_t st;
      assert_int_equal(kf_plan_stats(pl, &st), 0);
      assert_true(sweep ? st.ilp_solves == 0 : st.sweep_states == 0);
      kf_plan_destroy(pl);
    }
    kf__sweep_max_bytes = sweep_bytes;
    free(r.t);
    sweep_inst_close(&in);
    kf_problem_destroy(p);
  }
  print_message("k best: %d sweeps with the k-th plan below L + limit, %d instances with "
                "fewer plans than asked\n", exact, fewer);
  assert_true(exact >= 100 && fewer >= 1);
  kf_model_destroy(m);
}

static void test_k_best(void **state)
{
  (void)state;
  kf_problem *p = tl_random_problem(8, 3, 11);
  kf_solve_options_t o = opts(3, 5);
  kf_plan *pl;
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), 0);
  int np = kf_plan_count(pl);
  assert_true(np >= 2);
  for (int r = 1; r < np; r++) {
    assert_true(kf_plan_time(pl, r) >= kf_plan_time(pl, r - 1) * (1 - 1e-12));
    check_groups_partition(pl, r, 8);
  }
  /* Ranks are distinct partitions: compare launch-to-group maps. */
  for (int r = 1; r < np; r++) {
    int same = kf_plan_group_count(pl, r) == kf_plan_group_count(pl, 0);
    for (int g = 0; g < kf_plan_group_count(pl, r) && same; g++) {
      kf_group_info_t a, b;
      kf_plan_group(pl, r, g, &a);
      int found = 0;
      for (int h = 0; h < kf_plan_group_count(pl, 0) && !found; h++) {
        kf_plan_group(pl, 0, h, &b);
        if (a.count == b.count) {
          int eq = 1;
          for (int i = 0; i < a.count; i++) {
            int in = 0;
            for (int j = 0; j < b.count; j++)
              in |= a.launches[i] == b.launches[j];
            eq &= in;
          }
          found = eq;
        }
      }
      same = found;
    }
    assert_false(same);
  }
  kf_plan_destroy(pl);
  kf_problem_destroy(p);
}

static void test_heuristic_valid(void **state)
{
  (void)state;
  for (unsigned seed = 1; seed <= 10; seed++) {
    kf_problem *p = tl_random_problem(30, 12, seed);
    kf_solve_options_t o = opts(4, 1);
    o.solver = KF_SOLVE_HEURISTIC;
    o.work_limit = 100000;
    kf_plan *pl;
    int rc = kf_plan_solve(p, NULL, &o, &pl);
    assert_true(rc == 0 || rc == KF_ELIMIT);
    assert_true(kf_plan_is_heuristic(pl));
    assert_true(kf_plan_time(pl, 0) <= kf_plan_unfused_time(pl) * (1 + 1e-12));
    assert_true(kf_plan_bound(pl) <= kf_plan_time(pl, 0) * (1 + 1e-12));
    check_groups_partition(pl, 0, 30);
    o.solver = KF_SOLVE_EXACT;
    o.work_limit = 100000000;
    kf_plan *ex;
    assert_int_equal(kf_plan_solve(p, NULL, &o, &ex), 0);
    assert_true(kf_plan_time(ex, 0) <= kf_plan_time(pl, 0) * (1 + 1e-12));
    assert_true(kf_plan_time(ex, 0) >= kf_plan_bound(pl) * (1 - 1e-12));
    kf_plan_destroy(ex);
    kf_plan_destroy(pl);
    kf_problem_destroy(p);
  }
}

static void test_bad_arguments(void **state)
{
  (void)state;
  kf_plan *pl;
  kf_problem *p;
  assert_int_equal(kf_plan_solve(NULL, NULL, NULL, &pl), KF_EINVAL);
  kf_problem_create(&p);
  assert_int_equal(kf_plan_solve(p, NULL, NULL, &pl), KF_EINVAL); /* empty */
  kf_problem_add_launch(p, "k", 10, NULL);
  kf_solve_options_t o = opts(9, 1);
  assert_int_equal(kf_plan_solve(p, NULL, &o, &pl), KF_EINVAL);
  assert_int_equal(kf_plan_count(NULL), KF_EINVAL);
  kf_problem_destroy(p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_chain_fuses),
    cmocka_unit_test(test_legality_callback),
    cmocka_unit_test(test_variant_legality),
    cmocka_unit_test(test_variant_tie_rank),
    cmocka_unit_test(test_random_vs_brute_force),
    cmocka_unit_test(test_sweep_vs_partitions),
    cmocka_unit_test(test_cbc_vs_sweep),
    cmocka_unit_test(test_cyclic_quotient_rejected),
    cmocka_unit_test(test_k_best),
    cmocka_unit_test(test_k_best_vs_partitions),
    cmocka_unit_test(test_heuristic_valid),
    cmocka_unit_test(test_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
