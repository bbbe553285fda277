/* Solving: the set-partition binary program over the candidate groups, with
 * lazy cuts against cyclic group orders (two convex groups may still depend
 * on each other), no-good cuts for the k best plans, the heuristic as start
 * and fallback, and the plan object that reports the result. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ilp.h"
#include "plan_int.h"

typedef struct kf__pgroup {
  int launches[KF__MAXK], variants[KF__MAXK], count;
  double time;
  int smem, ipb, tpb;
} kf__pgroup;

typedef struct kf__palt {
  kf__pgroup *g;
  int ng;
  double time;
} kf__palt;

struct kf_plan {
  kf__palt *alt;
  int nalt, capalt;
  double unfused, bound;
  int ncand, heuristic;
};

void kf_solve_options_init(kf_solve_options_t *o)
{
  memset(o, 0, sizeof *o);
  o->max_group = 4;
  o->k_best = 1;
  o->time_limit = 10.0;
  o->solver = KF_SOLVE_AUTO;
  o->max_exact_launches = 2000;
  o->seed = 1;
}

void kf_plan_destroy(kf_plan *plan)
{
  if (!plan)
    return;
  for (int i = 0; i < plan->nalt; i++)
    free(plan->alt[i].g);
  free(plan->alt);
  free(plan);
}

/* Appends the partition chosen[0..nc) as the next alternative, its groups in
 * the acyclic order topo. */
static int kf__plan_add(kf_plan *pl, const kf__cands *c, const int *chosen,
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

typedef struct kf__rows {
  int *start, *idx;
  char *sense;
  double *rhs;
  int n, nnz, capr, capi, caps, caprhs;
} kf__rows;

static int kf__row_add(kf__rows *r, const int *cols, int n, char sense, double rhs)
{
  if (kf__grow((void **)&r->start, &r->capr, r->n + 2, sizeof(int)) ||
      kf__grow((void **)&r->idx, &r->capi, r->nnz + n + 1, sizeof(int)) ||
      kf__grow((void **)&r->sense, &r->caps, r->n + 1, 1) ||
      kf__grow((void **)&r->rhs, &r->caprhs, r->n + 1, sizeof(double)))
    return KF_ENOMEM;
  if (r->n == 0)
    r->start[0] = 0;
  memcpy(r->idx + r->nnz, cols, sizeof(int) * (size_t)n);
  r->nnz += n;
  r->sense[r->n] = sense;
  r->rhs[r->n] = rhs;
  r->start[++r->n] = r->nnz;
  return 0;
}

static void kf__rows_free(kf__rows *r)
{
  free(r->start);
  free(r->idx);
  free(r->sense);
  free(r->rhs);
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
      !(o.time_limit > 0) || p->nl < 1)
    return KF_EINVAL;
  double t0 = kf__now(), deadline = t0 + o.time_limit;
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
  kf__rows rows;
  memset(&rows, 0, sizeof rows);
  memset(&c, 0, sizeof c);
  int *chosen = NULL, *topo = NULL, *cyc = NULL, *cols = NULL, *hchosen = NULL;
  double *cost = NULL, *x = NULL, *start = NULL;
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
  if ((rc = kf__cands_build(p, &d, m, o.max_group, &c)) != 0)
    goto out;
  pl->ncand = c.n;
  rc = KF_ENOMEM;
  chosen = malloc(sizeof(int) * (size_t)(n + 1));
  hchosen = malloc(sizeof(int) * (size_t)(n + 1));
  topo = malloc(sizeof(int) * (size_t)(n + 1));
  cyc = malloc(sizeof(int) * (size_t)(n + 1));
  cols = malloc(sizeof(int) * (size_t)(c.n + 1));
  cost = malloc(sizeof(double) * (size_t)(c.n + 1));
  x = malloc(sizeof(double) * (size_t)(c.n + 1));
  start = calloc((size_t)c.n + 1, sizeof(double));
  double *minshare = malloc(sizeof(double) * (size_t)(n + 1));
  if (!chosen || !hchosen || !topo || !cyc || !cols || !cost || !x || !start || !minshare) {
    free(minshare);
    goto out;
  }
  /* Unfused time, and the bound sum over launches of the cheapest share
   * cost/|group| of a group holding it: valid for every partition. */
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

  int heur_only = o.solver == KF_SOLVE_HEURISTIC ||
                  (o.solver == KF_SOLVE_AUTO && n > o.max_exact_launches);
  double hdead = heur_only ? deadline : t0 + fmin(0.1 * o.time_limit, 1.0);
  double hcost;
  int nh = kf__heuristic(&d, &c, hdead, o.seed, hchosen, &hcost);
  if (nh < 0) {
    rc = nh;
    goto out;
  }
  int clen;
  if (kf__quotient_cycle(&d, &c, hchosen, nh, cyc, &clen, topo) != 0) {
    rc = KF_ESOLVER; /* the heuristic only keeps acyclic partitions */
    goto out;
  }
  if (heur_only) {
    if ((rc = kf__plan_add(pl, &c, hchosen, topo, nh)) != 0)
      goto out;
    pl->heuristic = 1;
    pl->bound = trivial;
    rc = hcost - trivial <= 1e-9 * hcost ? 0 : KF_ETIMEDOUT;
    goto out;
  }
  /* Exact: one row per launch (covered exactly once), then cuts. Costs in
   * microseconds keep CBC's absolute tolerances meaningful. */
  for (int i = 0; i < c.n; i++)
    cost[i] = c.c[i].cost * 1e6;
  {
    int *at = calloc((size_t)n + 2, sizeof(int));
    int total = 0;
    for (int i = 0; i < c.n; i++)
      total += c.c[i].n;
    int *flat = malloc(sizeof(int) * (size_t)(total + 1));
    if (!at || !flat) {
      free(at);
      free(flat);
      rc = KF_ENOMEM;
      goto out;
    }
    for (int i = 0; i < c.n; i++)
      for (int j = 0; j < c.c[i].n; j++)
        at[c.c[i].members[j] + 2]++;
    for (int v = 0; v < n; v++)
      at[v + 2] += at[v + 1];
    for (int i = 0; i < c.n; i++)
      for (int j = 0; j < c.c[i].n; j++)
        flat[at[c.c[i].members[j] + 1]++] = i;
    for (int v = 0; v < n; v++)
      if (kf__row_add(&rows, flat + at[v], at[v + 1] - at[v], 'E', 1.0) != 0)
        break;
    rc = rows.n == n ? 0 : KF_ENOMEM;
    free(at);
    free(flat);
    if (rc)
      goto out;
  }
  for (int i = 0; i < nh; i++)
    start[hchosen[i]] = 1.0;
  int timed_out = 0;
  pl->bound = trivial;
  while (pl->nalt < o.k_best) {
    double left = deadline - kf__now();
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    kf__ilp_t ilp = { c.n, cost, rows.n, rows.start, rows.idx, rows.sense, rows.rhs,
                      pl->nalt == 0 ? start : NULL, left };
    kf__ilp_result_t r = { x, 0, 0, 0 };
    double ts = kf__now();
    int src = kf__ilp_solve(&ilp, &r);
    if (getenv("KFPLAN_TRACE"))
      fprintf(stderr, "kfplan: ilp %d cols %d rows: %s obj %.6g bound %.6g in %.3f s\n",
              c.n, rows.n, kf_err_name(src), r.obj, r.bound, kf__now() - ts);
    if (src == KF_EINFEASIBLE)
      break; /* no further distinct plan */
    if (src != 0 && src != KF_ETIMEDOUT) {
      rc = src;
      goto out;
    }
    if (pl->nalt == 0 && r.bound * 1e-6 > pl->bound)
      pl->bound = r.bound * 1e-6;
    if (!r.has_solution) {
      timed_out = 1;
      break;
    }
    int nc = 0;
    for (int i = 0; i < c.n; i++)
      if (x[i] > 0.5)
        chosen[nc++] = i;
    if (kf__quotient_cycle(&d, &c, chosen, nc, cyc, &clen, topo) != 0) {
      /* Cyclic group order: forbid each cycle's combination of groups, and
       * repair the solution (dissolve a group of each cycle into singletons)
       * into the start of the next solve. */
      int guard = 0;
      do {
        if ((rc = kf__row_add(&rows, cyc, clen, 'L', clen - 1.0)) != 0)
          goto out;
        int big = cyc[0];
        for (int i = 1; i < clen; i++)
          if (c.c[cyc[i]].n > c.c[big].n)
            big = cyc[i];
        int w = 0;
        for (int i = 0; i < nc; i++)
          if (chosen[i] != big)
            chosen[w++] = chosen[i];
        for (int i = 0; i < c.c[big].n; i++)
          chosen[w++] = c.single[c.c[big].members[i]];
        nc = w;
      } while (++guard < n && kf__quotient_cycle(&d, &c, chosen, nc, cyc, &clen, topo) != 0);
      double rcost = 0;
      for (int i = 0; i < nc; i++)
        rcost += c.c[chosen[i]].cost;
      if (pl->nalt == 0 && rcost < hcost) {
        hcost = rcost;
        nh = nc;
        memcpy(hchosen, chosen, sizeof(int) * (size_t)nc);
        memset(start, 0, sizeof(double) * (size_t)c.n);
        for (int i = 0; i < nh; i++)
          start[hchosen[i]] = 1.0;
      }
      if (src == KF_ETIMEDOUT) {
        timed_out = 1;
        break;
      }
      continue;
    }
    if (pl->nalt == 0 && src == KF_ETIMEDOUT && hcost < r.obj * 1e-6) {
      timed_out = 1; /* the heuristic's plan is better than CBC's incumbent */
      break;
    }
    if ((rc = kf__plan_add(pl, &c, chosen, topo, nc)) != 0)
      goto out;
    if (pl->nalt == 1 && src == 0)
      pl->bound = pl->alt[0].time;
    if (src == KF_ETIMEDOUT) {
      timed_out = 1;
      break;
    }
    /* No-good cut: the next plan differs in at least one group. */
    if ((rc = kf__row_add(&rows, chosen, nc, 'L', nc - 1.0)) != 0)
      goto out;
  }
  if (pl->nalt == 0) {
    if (!timed_out) {
      rc = KF_EINFEASIBLE;
      goto out;
    }
    kf__quotient_cycle(&d, &c, hchosen, nh, cyc, &clen, topo);
    if ((rc = kf__plan_add(pl, &c, hchosen, topo, nh)) != 0)
      goto out;
    pl->heuristic = 1;
  }
  if (pl->bound > pl->alt[0].time)
    pl->bound = pl->alt[0].time;
  rc = timed_out ? KF_ETIMEDOUT : 0;
out:
  if (rc == 0 || rc == KF_ETIMEDOUT) {
    *out = pl;
  } else {
    kf_plan_destroy(pl);
  }
  kf__rows_free(&rows);
  kf__cands_free(&c);
  kf__dag_free(&d);
  kf_model_destroy(own);
  free(chosen);
  free(hchosen);
  free(topo);
  free(cyc);
  free(cols);
  free(cost);
  free(x);
  free(start);
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
