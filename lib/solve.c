/* Solving: candidates, the bounds every plan respects, the best plan of
 * consecutive groups and the heuristic as start and fallback, the exact
 * search (exact.c), and the plan object that reports the result. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include "ilp.h"
#include "plan_int.h"

void kf_solve_options_init(kf_solve_options_t *o)
{
  memset(o, 0, sizeof *o);
  o->max_group = 4;
  o->k_best = 1;
  o->work_limit = KF_WORK_LIMIT_DEFAULT;
  o->solver = KF_SOLVE_AUTO;
  o->max_exact_launches = 2000;
  o->seed = 1;
  o->assignments = 1;
}

double kf__now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Predicted times the solvers are given, in seconds (they see them in
 * microseconds, against KF__ILP_MAX_VALUE): a candidate beyond this comes
 * from sizes no device runs, and is an error rather than a plan. */
#define KF__MAX_SECONDS 1e9

void kf_plan_destroy(kf_plan *plan)
{
  if (!plan)
    return;
  for (int i = 0; i < plan->nalt; i++)
    free(plan->alt[i].g);
  free(plan->alt);
  free(plan);
}

int kf__plan_add(kf_plan *pl, const kf__cands *c, const int *chosen,
                        const int *topo, int nc)
{
  if (kf__grow((void **)&pl->alt, &pl->capalt, pl->nalt + 1, sizeof(kf__palt)))
    return KF_ENOMEM;
  kf__palt *a = &pl->alt[pl->nalt];
  a->g = calloc((size_t)nc + 1, sizeof(kf__pgroup));
  if (!a->g)
    return KF_ENOMEM;
  a->ng = nc;
  a->time = 0;
  for (int i = 0; i < nc; i++) {
    const kf__cand *k = &c->c[chosen[topo[i]]];
    kf__pgroup *g = &a->g[i];
    g->count = k->n;
    memcpy(g->launches, k->order, sizeof(int) * (size_t)k->n);
    memcpy(g->variants, k->variants, sizeof(int) * (size_t)k->n);
    g->time = k->cost;
    g->smem = k->est.shared_bytes;
    g->ipb = k->est.instances_per_block;
    g->tpb = k->est.threads_per_block;
    a->time += k->cost;
  }
  pl->nalt++;
  return 0;
}

int kf_plan_solve(const kf_problem *p, const kf_model *m,
                  const kf_solve_options_t *opts, kf_plan **out)
{
  if (!p || !out)
    return KF_EINVAL;
  *out = NULL;
  kf_solve_options_t o;
  if (opts)
    o = *opts;
  else
    kf_solve_options_init(&o);
  if (o.max_group < 1 || o.max_group > KF__MAXK || o.k_best < 1 ||
      o.work_limit < 1 || o.work_limit > KF_WORK_LIMIT_MAX || p->nl < 1 ||
      o.assignments < 1 || o.assignments > 1024)
    return KF_EINVAL;
  double t0 = kf__now();
  kf__work w = { o.work_limit, 0 };
  kf_model *own = NULL;
  if (!m) {
    int rc = kf_model_create(&own, NULL, KF_MODEL_ROOFLINE);
    if (rc)
      return rc;
    m = own;
  }
  int rc, n = p->nl;
  kf__dag d;
  kf__cands c;
  memset(&c, 0, sizeof c);
  int *topo = NULL, *cyc = NULL, *hchosen = NULL, *runs = NULL, *runs_nc = NULL;
  double *runs_cost = NULL;
  kf_plan *pl = calloc(1, sizeof *pl);
  if (!pl) {
    kf_model_destroy(own);
    return KF_ENOMEM;
  }
  if ((rc = kf__dag_build(p, &d)) != 0) {
    free(pl);
    kf_model_destroy(own);
    return rc;
  }
  /* The enumeration of groups that are not consecutive may take at most
   * half the budget: the searches need the rest. */
  kf__work ew = { o.work_limit / 2 > 0 ? o.work_limit / 2 : 1, 0 };
  /* Each group of several launches in its cheapest variant assignments, a
   * candidate each: the next best plan may then be the best one's
   * partition with other implementations. */
  rc = kf__cands_build(p, &d, m, o.max_group, o.assignments, &ew, &c);
  kf__work_charge(&w, ew.spent);
  if (rc != 0)
    goto out;
  pl->ncand = c.n;
  pl->st.enumerated = c.enumerated;
  pl->st.candidates = c.n;
  /* A replaced cost function may return anything: negative, NaN or
   * absurd times never reach the solvers. */
  rc = KF_ERANGE;
  for (int i = 0; i < c.n; i++)
    if (!(c.c[i].cost >= 0 && c.c[i].cost <= KF__MAX_SECONDS))
      goto out;
  rc = KF_ENOMEM;
  int kc = o.k_best;
  hchosen = malloc(sizeof(int) * (size_t)(n + 1));
  topo = malloc(sizeof(int) * (size_t)(n + 1));
  cyc = malloc(sizeof(int) * (size_t)(n + 1));
  runs = malloc(sizeof(int) * (size_t)kc * (size_t)n);
  runs_nc = malloc(sizeof(int) * (size_t)kc);
  runs_cost = malloc(sizeof(double) * (size_t)kc);
  double *minshare = malloc(sizeof(double) * (size_t)(n + 1));
  if (!hchosen || !topo || !cyc || !runs || !runs_nc || !runs_cost || !minshare) {
    free(minshare);
    goto out;
  }
  /* Unfused time, and the bound sum over launches of the cheapest share
   * cost/|group| of a group holding it: valid for every partition into the
   * groups enumerated. */
  pl->unfused = 0;
  for (int v = 0; v < n; v++) {
    pl->unfused += c.c[c.single[v]].cost;
    minshare[v] = c.c[c.single[v]].cost;
  }
  for (int i = 0; i < c.n; i++)
    for (int j = 0; j < c.c[i].n; j++)
      if (c.c[i].cost / c.c[i].n < minshare[c.c[i].members[j]])
        minshare[c.c[i].members[j]] = c.c[i].cost / c.c[i].n;
  double trivial = 0;
  for (int v = 0; v < n; v++)
    trivial += minshare[v];
  free(minshare);

  /* The best plans of consecutive groups, exactly: the whole answer when
   * every candidate is consecutive and none is missing, else the plan no
   * search may end worse than. */
  int only_runs = !c.truncated;
  for (int i = 0; i < c.n && only_runs; i++)
    only_runs = c.c[i].members[c.c[i].n - 1] - c.c[i].members[0] == c.c[i].n - 1;
  int nruns;
  if ((rc = kf__consecutive_best(&c, n, only_runs ? kc : 1, runs, runs_nc, runs_cost,
                                 &nruns)) != 0)
    goto out;
  if (nruns < 1) {
    rc = KF_ESOLVER; /* the singletons alone make one */
    goto out;
  }
  kf__work_charge(&w, (long)n * o.max_group * (only_runs ? kc : 1));
  int clen;
  if (only_runs) {
    for (int i = 0; i < nruns; i++) {
      for (int g = 0; g < runs_nc[i]; g++)
        topo[g] = g; /* launch order is a legal group order */
      if ((rc = kf__plan_add(pl, &c, runs + (size_t)i * (size_t)n, topo, runs_nc[i])) != 0)
        goto out;
    }
    pl->bound = pl->alt[0].time;
    rc = 0;
    goto out;
  }

  int heur_only = o.solver == KF_SOLVE_HEURISTIC ||
                  (o.solver == KF_SOLVE_AUTO && n > o.max_exact_launches);
  /* The heuristic's local search takes what is left when it is the only
   * search, else a tenth of it; its greedy pass always runs to the end, so
   * no plan is worse than the greedy one. */
  kf__work hw = { heur_only ? w.left : w.left / 10, 0 };
  double hcost;
  double th = kf__now();
  int nh = kf__heuristic(&d, &c, &hw, o.seed, hchosen, &hcost);
  kf__work_charge(&w, hw.spent);
  if (getenv("KFPLAN_TRACE"))
    fprintf(stderr, "kfplan: %d candidates (%d before pruning%s) in %.3f s; heuristic %.6g us "
            "in %.3f s; consecutive groups %.6g us\n", c.n, c.enumerated,
            c.truncated ? ", enumeration stopped by the work limit" : "", th - t0,
            nh > 0 ? hcost * 1e6 : INFINITY, kf__now() - th, runs_cost[0] * 1e6);
  if (nh < 0) {
    rc = nh;
    goto out;
  }
  if (nh == 0 || runs_cost[0] < hcost) {
    /* The consecutive groups' plan is better: it is the start. */
    nh = runs_nc[0];
    memcpy(hchosen, runs, sizeof(int) * (size_t)nh);
    hcost = runs_cost[0];
  }
  if (kf__quotient_cycle(&d, &c, hchosen, nh, cyc, &clen, topo) != 0) {
    rc = KF_ESOLVER; /* both starts are acyclic partitions */
    goto out;
  }
  if (heur_only || kf__work_out(&w)) {
    if ((rc = kf__plan_add(pl, &c, hchosen, topo, nh)) != 0)
      goto out;
    pl->heuristic = 1;
    pl->bound = c.truncated ? 0 : trivial;
    rc = !c.truncated && hcost - trivial <= 1e-9 * hcost ? 0 : KF_ELIMIT;
    goto out;
  }
  /* The exact search adds the best plan it proved or, once the budget is
   * spent, the best it knows (the start unless it found a better one). */
  pl->bound = trivial;
  rc = kf__exact(&d, &c, o.k_best, &w, hchosen, &nh, &hcost, pl);
  if (rc != 0 && rc != KF_ELIMIT)
    goto out;
  if (pl->bound > pl->alt[0].time)
    pl->bound = pl->alt[0].time;
  if (c.truncated) {
    /* Proven among the groups enumerated only: no bound holds for the
     * groups the budget left out. */
    pl->bound = 0;
    rc = KF_ELIMIT;
  }
out:
  if (rc == 0 || rc == KF_ELIMIT) {
    pl->st.seconds = kf__now() - t0;
    pl->st.work = w.spent;
    *out = pl;
  } else {
    kf_plan_destroy(pl);
  }
  kf__cands_free(&c);
  kf__dag_free(&d);
  kf_model_destroy(own);
  free(hchosen);
  free(topo);
  free(cyc);
  free(runs);
  free(runs_nc);
  free(runs_cost);
  return rc;
}

int kf_plan_count(const kf_plan *pl) { return pl ? pl->nalt : KF_EINVAL; }

int kf_plan_group_count(const kf_plan *pl, int rank)
{
  if (!pl || rank < 0 || rank >= pl->nalt)
    return KF_EINVAL;
  return pl->alt[rank].ng;
}

int kf_plan_group(const kf_plan *pl, int rank, int group, kf_group_info_t *out)
{
  if (!pl || !out || rank < 0 || rank >= pl->nalt || group < 0 ||
      group >= pl->alt[rank].ng)
    return KF_EINVAL;
  const kf__pgroup *g = &pl->alt[rank].g[group];
  out->launches = g->launches;
  out->variants = g->variants;
  out->count = g->count;
  out->time = g->time;
  out->shared_bytes = g->smem;
  out->instances_per_block = g->ipb;
  out->threads_per_block = g->tpb;
  return 0;
}

double kf_plan_time(const kf_plan *pl, int rank)
{
  return pl && rank >= 0 && rank < pl->nalt ? pl->alt[rank].time : -1.0;
}

double kf_plan_unfused_time(const kf_plan *pl) { return pl ? pl->unfused : -1.0; }

double kf_plan_gain(const kf_plan *pl, int rank)
{
  return pl && rank >= 0 && rank < pl->nalt ? pl->unfused - pl->alt[rank].time : 0.0;
}

double kf_plan_gap(const kf_plan *pl)
{
  if (!pl || pl->nalt == 0 || pl->alt[0].time <= 0)
    return 0.0;
  double g = (pl->alt[0].time - pl->bound) / pl->alt[0].time;
  return g > 0 ? g : 0.0;
}

double kf_plan_bound(const kf_plan *pl) { return pl ? pl->bound : 0.0; }
int kf_plan_candidate_count(const kf_plan *pl) { return pl ? pl->ncand : KF_EINVAL; }
int kf_plan_is_heuristic(const kf_plan *pl) { return pl ? pl->heuristic : 0; }

int kf_plan_stats(const kf_plan *pl, kf_plan_stats_t *out)
{
  if (!pl || !out)
    return KF_EINVAL;
  *out = pl->st;
  return 0;
}
