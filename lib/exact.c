/* The exact plan: the set-partition binary program over the candidate groups,
 * solved by CBC over a core of columns that LP reduced costs show can matter,
 * with lazy cuts against cyclic group orders and no-good cuts for k best. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ilp.h"
#include "plan_int.h"

/* Relative tolerance of the search: a plan is proven optimal when no plan
 * is cheaper by more than this fraction (0.1 ppm: far below the model's
 * precision, far above rounding in sums of a few thousand costs). */
#define KF__TOL 1e-7

/* The core: the columns the binary program is given. Reduced costs d from
 * any row duals y (y <= 0 on <= rows) give, for every 0/1 solution x of the
 * rows, cost.x >= L + sum over chosen columns of max(d, 0) with
 * L = y.rhs + sum min(d, 0). So a plan that costs at most U uses only
 * columns with d <= U - L: those form the core, and a plan found in it is
 * the optimum of the whole program whenever its cost is at most L plus the
 * threshold the core covers. */
typedef struct kf__core {
  double *d;       /* reduced cost per column */
  double lower;    /* L; -INFINITY without duals (then the core is everything) */
  double covered;  /* every column with d <= covered is in the core */
  char *in;
  int *col, *pos;  /* core index -> column, column -> core index or -1 */
  int ncol;
  double *cost;    /* the core's costs, in core order */
  kf__rows rows;   /* the rows restricted to the core */
} kf__core;

static int kf__core_alloc(kf__core *k, int ncols)
{
  memset(k, 0, sizeof *k);
  k->lower = -INFINITY;
  k->covered = INFINITY;
  k->d = calloc((size_t)ncols + 1, sizeof(double));
  k->in = calloc((size_t)ncols + 1, 1);
  k->col = malloc(sizeof(int) * (size_t)(ncols + 1));
  k->pos = malloc(sizeof(int) * (size_t)(ncols + 1));
  k->cost = malloc(sizeof(double) * (size_t)(ncols + 1));
  return k->d && k->in && k->col && k->pos && k->cost ? 0 : KF_ENOMEM;
}

static void kf__core_free(kf__core *k)
{
  free(k->d);
  free(k->in);
  free(k->col);
  free(k->pos);
  free(k->cost);
  kf__rows_free(&k->rows);
}

/* Reduced costs d = cost - y.A from duals y of rows, taken as y <= 0 on
 * <= rows whatever the solver's accuracy; returns y.rhs (see kf__core). */
static double kf__price(const double *cost, int ncols, const kf__rows *rows,
                        const double *y, double *d)
{
  double lower = 0;
  for (int j = 0; j < ncols; j++)
    d[j] = cost[j];
  for (int r = 0; r < rows->n; r++) {
    double yr = rows->sense[r] == 'L' && y[r] > 0 ? 0 : y[r];
    lower += yr * rows->rhs[r];
    for (int q = rows->start[r]; q < rows->start[r + 1]; q++)
      d[rows->idx[q]] -= yr;
  }
  return lower;
}

/* Reduced costs and L from duals y of rows (see kf__core). */
static void kf__core_price(kf__core *k, const double *cost, int ncols,
                           const kf__rows *rows, const double *y)
{
  double lower = kf__price(cost, ncols, rows, y, k->d);
  for (int j = 0; j < ncols; j++)
    if (k->d[j] < 0)
      lower += k->d[j];
  k->lower = lower;
}

/* Takes into the core the columns with d <= threshold (all of them when the
 * threshold is infinite or there are no duals), every singleton (so the
 * core always has a plan) and the columns of must[0..nmust). */
static void kf__core_select(kf__core *k, const kf__cands *c, int n, double threshold,
                            const int *must, int nmust)
{
  int all = !isfinite(threshold) || !isfinite(k->lower);
  k->covered = all ? INFINITY : threshold;
  for (int j = 0; j < c->n; j++)
    k->in[j] = all || k->d[j] <= threshold;
  for (int v = 0; v < n; v++)
    k->in[c->single[v]] = 1;
  for (int i = 0; i < nmust; i++)
    k->in[must[i]] = 1;
  k->ncol = 0;
  for (int j = 0; j < c->n; j++)
    k->pos[j] = k->in[j] ? k->ncol : -1, k->ncol += k->in[j];
  for (int j = 0; j < c->n; j++)
    if (k->in[j])
      k->col[k->pos[j]] = j;
}

/* Smallest d outside the core: plans that leave it cost at least L + that. */
static double kf__core_outside(const kf__core *k, int ncols)
{
  double m = INFINITY;
  for (int j = 0; j < ncols; j++)
    if (!k->in[j] && k->d[j] < m)
      m = k->d[j];
  return m;
}

/* The rows restricted to the core (a column outside it is 0) and the costs
 * in core order. */
static int kf__core_project(kf__core *k, const kf__rows *rows, const double *cost)
{
  kf__rows_free(&k->rows);
  int *buf = malloc(sizeof(int) * (size_t)(k->ncol + 1));
  if (!buf)
    return KF_ENOMEM;
  int rc = 0;
  for (int r = 0; r < rows->n && !rc; r++) {
    int m = 0;
    for (int q = rows->start[r]; q < rows->start[r + 1]; q++)
      if (k->pos[rows->idx[q]] >= 0)
        buf[m++] = k->pos[rows->idx[q]];
    if (m > 0 || rows->sense[r] == 'E')
      rc = kf__row_add(&k->rows, buf, m, rows->sense[r], rows->rhs[r]);
  }
  free(buf);
  for (int i = 0; i < k->ncol; i++)
    k->cost[i] = cost[k->col[i]];
  return rc;
}

/* The groups CBC chose, as candidate indices; returns their count. */
static int kf__solution(const kf__core *k, const double *x, int *chosen)
{
  int nc = 0;
  for (int i = 0; i < k->ncol; i++)
    if (x[i] > 0.5)
      chosen[nc++] = k->col[i];
  return nc;
}

/* The state of the exact search. Costs are in microseconds, which keeps
 * CBC's absolute tolerances meaningful. */
typedef struct kf__search {
  const kf__dag *d;
  const kf__cands *c;
  kf_plan *pl;
  kf__rows rows;        /* every row so far, over all columns */
  kf__core k;
  double *cost, *x;
  int *chosen, *topo, *cyc, *cutcols;
  int *inc, ninc;       /* the incumbent: the best acyclic plan known */
  double inc_cost;
  int improved;         /* the incumbent is no longer the heuristic's */
  int *rowbuf;          /* a row's columns in core order */
  kf__work *w;          /* the solve's work budget */
  int k_best;           /* plans wanted */
} kf__search;

/* One LP solve charged to the search's budget: at most what is left. */
static int kf__lp_run(kf__search *s, kf__lp *lp, kf__lp_result_t *r)
{
  if (kf__work_out(s->w))
    return KF_ELIMIT;
  int rc = kf__lp_solve(lp, s->w->left, r);
  kf__work_charge(s->w, r->work > 0 ? r->work : 1);
  return rc;
}

static void kf__trace(const char *what, int ncols, int nrows, int src, double obj,
                      double bound, double secs)
{
  if (getenv("KFPLAN_TRACE"))
    fprintf(stderr, "kfplan: %s %d cols %d rows: %s obj %.6g bound %.6g in %.3f s\n",
            what, ncols, nrows, src ? kf_err_name(src) : "OK", obj, bound, secs);
}

static double kf__plan_cost(const kf__search *s, const int *chosen, int nc)
{
  double t = 0;
  for (int i = 0; i < nc; i++)
    t += s->cost[chosen[i]];
  return t;
}

static void kf__incumbent(kf__search *s, const int *chosen, int nc, double cost)
{
  s->inc_cost = cost;
  s->ninc = nc;
  memcpy(s->inc, chosen, sizeof(int) * (size_t)nc);
  s->improved = 1;
}

/* The partition chosen[0..nc) from a solver, cyclic: adds a cut against
 * each cycle met while repairing it (of each cycle, the group whose
 * dissolution into singletons costs least is dissolved, until the order is
 * acyclic). If offer, the repaired plan replaces the incumbent if cheaper.
 * 0 or KF_ENOMEM. */
static int kf__cut_cycles(kf__search *s, int *chosen, int nc, int offer)
{
  const kf__cands *c = s->c;
  int clen, guard = 0, q = kf__quotient_cycle(s->d, c, chosen, nc, s->cyc, &clen, s->topo);
  while (q > 0 && guard++ < s->d->n) {
    int terms, ncut = kf__cycle_cut(s->d, c, &s->rows, s->cyc, clen, s->cutcols, &terms);
    int rc = ncut > 0 ? kf__row_add(&s->rows, s->cutcols, ncut, 'L', terms - 1.0)
                      : kf__row_add(&s->rows, s->cyc, clen, 'L', clen - 1.0);
    if (rc)
      return rc;
    s->pl->st.cycle_cuts++;
    int worst = -1;
    double least = INFINITY;
    for (int i = 0; i < clen; i++) {
      const kf__cand *g = &c->c[s->cyc[i]];
      if (g->n < 2)
        continue; /* a launch alone is passed through; some group is not */
      double more = -s->cost[s->cyc[i]];
      for (int j = 0; j < g->n; j++)
        more += s->cost[c->single[g->members[j]]];
      if (more < least)
        least = more, worst = s->cyc[i];
    }
    int w = 0;
    for (int i = 0; i < nc; i++)
      if (chosen[i] != worst)
        chosen[w++] = chosen[i];
    for (int i = 0; i < c->c[worst].n; i++)
      chosen[w++] = c->single[c->c[worst].members[i]];
    nc = w;
    q = kf__quotient_cycle(s->d, c, chosen, nc, s->cyc, &clen, s->topo);
  }
  if (q < 0)
    return q;
  double t = kf__plan_cost(s, chosen, nc);
  if (offer && q == 0 && t < s->inc_cost)
    kf__incumbent(s, chosen, nc, t);
  return 0;
}

/* Offers the partition chosen[0..nc) of cost t as incumbent. Returns 1 if
 * its order is acyclic, 0 if it was cyclic (cuts added), or KF_ENOMEM. */
static int kf__offer(kf__search *s, int *chosen, int nc, double t)
{
  int clen, q = kf__quotient_cycle(s->d, s->c, chosen, nc, s->cyc, &clen, s->topo);
  if (q < 0)
    return q;
  if (q == 0) {
    if (t < s->inc_cost)
      kf__incumbent(s, chosen, nc, t);
    return 1;
  }
  int rc = kf__cut_cycles(s, chosen, nc, 1);
  return rc ? rc : 0;
}

/* Adds the acyclic partition chosen[0..nc) to the plan in a legal order. */
static int kf__plan_add_acyclic(kf__search *s, const int *chosen, int nc)
{
  int clen, q = kf__quotient_cycle(s->d, s->c, chosen, nc, s->cyc, &clen, s->topo);
  if (q != 0)
    return q < 0 ? q : KF_ESOLVER;
  return kf__plan_add(s->pl, s->c, chosen, s->topo, nc);
}

/* The row families of the relaxation separated from x (over every
 * column), cheaper families first: two-term, clique and odd-cycle rows;
 * where those find nothing, cycle rows of any length. Appends at most max of each to s->rows;
 * returns how many, or KF_ENOMEM. */
static int kf__separate(kf__search *s, const double *x, int max)
{
  int added = kf__separate_pairs(s->d, s->c, &s->rows, x, s->cutcols, max);
  if (added >= 0) {
    int more = kf__separate_cliques(s->c, &s->rows, x, s->cutcols, max);
    added = more < 0 ? more : added + more;
  }
  if (added >= 0) {
    int more = kf__separate_odd_cycles(s->c, &s->rows, x, s->cutcols, max);
    added = more < 0 ? more : added + more;
  }
  /* Then cycle rows of any length (a shortest-path search from every
   * launch), once the families before them have nothing left to cut. */
  if (added == 0) {
    int more = kf__separate_cycles(s->d, s->c, &s->rows, x, s->cutcols, max);
    added = more < 0 ? more : added + more;
  }
  return added;
}

/* CBC over the current core and rows. */
static int kf__solve_core(kf__search *s, double cutoff, kf__ilp_result_t *r, int *nc)
{
  *r = (kf__ilp_result_t){ s->x, 0, 0, 0, 0, 0 };
  *nc = 0;
  if (kf__work_out(s->w))
    return KF_ELIMIT;
  int rc = kf__core_project(&s->k, &s->rows, s->cost);
  if (rc)
    return rc;
  /* CBC counts nodes and simplex iterations against what is left. */
  kf__ilp_t ilp = { s->k.ncol, s->k.cost, s->k.rows.n, s->k.rows.start, s->k.rows.idx,
                    s->k.rows.sense, s->k.rows.rhs, s->w->left, cutoff, 0, 0 };
  double ts = kf__now();
  rc = kf__ilp_solve(&ilp, r);
  kf__work_charge(s->w, r->work > 0 ? r->work : 1);
  s->pl->st.ilp_solves++;
  kf__trace("ilp", s->k.ncol, s->k.rows.n, rc, r->obj,
            r->bound, kf__now() - ts);
  *nc = 0;
  if (r->has_solution)
    *nc = kf__solution(&s->k, s->x, s->chosen);
  return rc;
}

/* The relaxation over every column, tightened by the cycle and clique rows
 * its solutions violate, prices the columns (sets L and d); without an LP
 * solver or time, the core stays every column. The LP is left in *lp for
 * the caller to destroy. */
static int kf__relax(kf__search *s, kf__lp **lp)
{
  const kf__cands *c = s->c;
  int n = s->d->n, rc, lp_rows;
  kf__ilp_t p = { c->n, s->cost, s->rows.n, s->rows.start, s->rows.idx, s->rows.sense,
                  s->rows.rhs, 0, INFINITY, 0, 0 };
  *lp = NULL;
  rc = kf__lp_create(&p, lp);
  if (rc)
    return rc == KF_ESOLVER ? 0 : rc;
  lp_rows = s->rows.n;
  for (int round = 0;; round++) {
    double *y = malloc(sizeof(double) * (size_t)(s->rows.n + 1));
    if (!y)
      return KF_ENOMEM;
    kf__lp_result_t lr = { s->x, y, 0, 0, 0 };
    double ts = kf__now();
    int lrc = kf__lp_run(s, *lp, &lr);
    if (lrc == 0)
      kf__core_price(&s->k, s->cost, c->n, &s->rows, y);
    free(y);
    kf__trace("lp", c->n, s->rows.n, lrc, lr.obj, s->k.lower, kf__now() - ts);
    if (lrc != 0 || round == 50)
      return 0;
    /* A bound that reaches the incumbent proves it: rows would only cut
     * fractional points of the same cost (with 32 launches that all read
     * one array, dozens of rounds over 41 448 columns for nothing). The k
     * best need the rows. */
    if (s->k_best == 1 && s->k.lower >= s->inc_cost - KF__TOL * fabs(s->inc_cost))
      return 0;
    int added = kf__separate(s, s->x, 4 * n);
    if (added < 0)
      return added;
    s->pl->st.conflict_rows += added;
    if (added == 0)
      return 0;
    if ((rc = kf__lp_add_rows(*lp, s->rows.n - lp_rows, s->rows.start + lp_rows,
                              s->rows.idx, s->rows.sense + lp_rows, s->rows.rhs + lp_rows)))
      return rc;
    lp_rows = s->rows.n;
  }
}

/* Raises the plan's bound after a CBC run on the core with the incumbent's
 * cost as cutoff: plans inside the core cost at least CBC's bound or the
 * cutoff, plans that leave it at least L plus the smallest reduced cost
 * left out. */
static void kf__raise_bound(kf__search *s, double core_bound)
{
  double b = fmin(core_bound, s->inc_cost);
  if (isfinite(s->k.covered))
    b = fmin(b, s->k.lower + kf__core_outside(&s->k, s->c->n));
  b *= 1e-6;
  if (b > s->pl->bound)
    s->pl->bound = b;
}

/* The best plan, where the sweep could not prove it: CBC over the core of
 * every column that a plan cheaper than the incumbent could use (reduced
 * cost at most the incumbent's cost less L), asked only for plans cheaper
 * than the incumbent (a cutoff). A cyclic solution gets cycle rows and CBC
 * runs again. A cheaper plan found shrinks what the core must hold, so the
 * first run that finds nothing cheaper is the proof. Returns 0 when the
 * incumbent is proven optimal, KF_ELIMIT once the work budget is spent, or
 * an error. */
static int kf__best(kf__search *s)
{
  const kf__cands *c = s->c;
  int n = s->d->n, rc, nc;
  kf__core_select(&s->k, c, n, s->inc_cost - s->k.lower + KF__TOL * fabs(s->inc_cost), s->inc,
                  s->ninc);
  for (;;) {
    kf__ilp_result_t r;
    rc = kf__solve_core(s, s->inc_cost * (1 - KF__TOL), &r, &nc);
    if (rc != 0 && rc != KF_ELIMIT && rc != KF_EINFEASIBLE)
      return rc;
    kf__raise_bound(s, rc == KF_EINFEASIBLE ? s->inc_cost : r.bound);
    int acyclic = 1;
    if (r.has_solution && (acyclic = kf__offer(s, s->chosen, nc, r.obj)) < 0)
      return acyclic;
    if (rc == KF_ELIMIT)
      return KF_ELIMIT;
    if (!acyclic)
      continue; /* cut off; look again in the same core */
    if (s->inc_cost - s->k.lower <= s->k.covered)
      return 0;
    kf__core_select(&s->k, c, n, s->inc_cost - s->k.lower + KF__TOL * fabs(s->inc_cost),
                    s->inc, s->ninc);
  }
}

/* The sweep's first limit on reduced costs, as a fraction of the
 * relaxation's bound L, and its growth while it proves nothing. On the
 * 142-kernel instances of bench/HISTORY.md the optimum lies 0.1-0.45 % above
 * L, and the states grow 2- to 7-fold each time the limit doubles: the
 * small first limits cost little, and a limit too large for the gap can
 * cost more than all of them (1000 kernels: 0.1 % of L ran out of memory
 * where 0.06 % proved the optimum). */
#define KF__SWEEP_START 1e-4
#define KF__SWEEP_GROW 2.0

/* The best plan, or the k_best best, by the sweep (sweep.c) over the
 * relaxation's reduced costs: the limit starts small, where the sweep is
 * quick and finds plans close to the optimum, and grows until it covers
 * the gap between the incumbent (with k_best > 1, the k-th plan found) and
 * L. The best plan found becomes the incumbent. Returns 0 when the
 * incumbent is proven optimal (with k_best > 1, when the plans found, added
 * to the plan in order, are proven the k_best best or all there are), 1
 * when the sweep's states outgrew their memory (the other searches go on
 * from the incumbent and bound it leaves), KF_ELIMIT or KF_ENOMEM. */
static int kf__sweep_best(kf__search *s, int k_best)
{
  int n = s->d->n, rc, found, *nc = malloc(sizeof(int) * (size_t)k_best);
  int *chosen = malloc(sizeof(int) * (size_t)k_best * (size_t)n);
  double *best = malloc(sizeof(double) * (size_t)k_best), *most = NULL;
  double lower = s->k.lower, lam = fmax(KF__SWEEP_START * fabs(lower), 1e-3), all = 0;
  rc = KF_ENOMEM;
  if (!nc || !chosen || !best)
    goto done;
  if (k_best > 1) {
    /* No plan's reduced costs sum above all (each group's is at most that
     * of any of its launches' dearest group): past it the sweep sees every
     * plan. */
    if (!(most = calloc((size_t)n, sizeof(double))))
      goto done;
    for (int j = 0; j < s->c->n; j++)
      for (int q = 0; q < s->c->c[j].n; q++)
        most[s->c->c[j].members[q]] = fmax(most[s->c->c[j].members[q]], s->k.d[j]);
    for (int v = 0; v < n; v++)
      all += most[v];
  }
  for (;;) {
    double tol = KF__TOL * fabs(s->inc_cost), ts = kf__now();
    double lim = k_best > 1 ? lam : fmin(lam, s->inc_cost - tol - lower);
    if (!(lim > 0)) {
      rc = 0; /* the incumbent is within the tolerance of the bound */
      break;
    }
    long states;
    rc = kf__sweep(s->d, s->c, s->cost, s->k.d, lim, k_best, s->w, chosen, nc, best,
                   &found, &states);
    s->pl->st.sweep_states += states;
    if (getenv("KFPLAN_TRACE"))
      fprintf(stderr, "kfplan: sweep below %.6g: %s, %ld states, %d plans, best %.6g in %.3f s\n",
              lim, rc == 1 ? "out of memory budget" : rc ? kf_err_name(rc) : "OK", states,
              rc ? 0 : found, rc || !found ? INFINITY : best[0], kf__now() - ts);
    if (rc)
      break;
    /* The sweep's plans are acyclic by construction; one that is not is
     * not trusted, and the other searches take over. */
    int clen, cyclic = 0;
    for (int i = 0; i < found && !cyclic; i++)
      cyclic = kf__quotient_cycle(s->d, s->c, chosen + (size_t)i * (size_t)n, nc[i], s->cyc,
                                  &clen, s->topo) != 0;
    if (cyclic) {
      rc = 1;
      break;
    }
    if (found && best[0] < s->inc_cost)
      kf__incumbent(s, chosen, nc[0], best[0]);
    /* Every plan the sweep did not return costs at least L + lim or as
     * much as its last. */
    if (k_best == 1 ? s->inc_cost - tol <= lower + lim
                    : found == k_best ? best[k_best - 1] - tol <= lower + lim : lim > all) {
      for (int i = 0; k_best > 1 && i < found && !rc; i++)
        rc = kf__plan_add_acyclic(s, chosen + (size_t)i * (size_t)n, nc[i]);
      break;
    }
    if (fmin(s->inc_cost, lower + lim) * 1e-6 > s->pl->bound)
      s->pl->bound = fmin(s->inc_cost, lower + lim) * 1e-6;
    lam *= KF__SWEEP_GROW;
  }
done:
  free(nc);
  free(chosen);
  free(best);
  free(most);
  return rc;
}

/* Ranks 2 and on: the next plans, each cut off by a no-good row once found
 * (the plan differs in at least one group). The core widens until it holds
 * every column a plan as cheap as the one found could use. Returns 0,
 * KF_ELIMIT or an error. */
static int kf__next(kf__search *s, int k_best)
{
  const kf__cands *c = s->c;
  int n = s->d->n, rc, nc;
  while (s->pl->nalt < k_best) {
    if (kf__work_out(s->w))
      return KF_ELIMIT;
    kf__ilp_result_t r;
    int src = kf__solve_core(s, INFINITY, &r, &nc);
    if (src == KF_EINFEASIBLE) {
      if (!isfinite(s->k.covered))
        return 0; /* no further distinct plan */
      kf__core_select(&s->k, c, n, INFINITY, NULL, 0);
      continue;
    }
    if (src != 0 && src != KF_ELIMIT)
      return src;
    if (!r.has_solution)
      return KF_ELIMIT;
    int clen, q = kf__quotient_cycle(s->d, c, s->chosen, nc, s->cyc, &clen, s->topo);
    if (q < 0)
      return q;
    if (q > 0) {
      /* cuts only: the incumbent is rank 1's */
      if ((rc = kf__cut_cycles(s, s->chosen, nc, 0)) != 0)
        return rc;
      if (src == KF_ELIMIT)
        return KF_ELIMIT;
      continue;
    }
    if (src == 0 && r.obj > s->k.lower + s->k.covered) {
      /* A plan as cheap could use a column outside the core. */
      kf__core_select(&s->k, c, n, r.obj - s->k.lower + KF__TOL * fabs(r.obj), s->chosen,
                      nc);
      continue;
    }
    if ((rc = kf__plan_add(s->pl, c, s->chosen, s->topo, nc)) != 0)
      return rc;
    if (src == KF_ELIMIT)
      return KF_ELIMIT;
    if ((rc = kf__row_add(&s->rows, s->chosen, nc, 'L', nc - 1.0)) != 0)
      return rc;
  }
  return 0;
}

int kf__exact(const kf__dag *d, const kf__cands *c, int k_best, kf__work *w,
              int *hchosen, int *nh, double *hcost, kf_plan *pl)
{
  int n = d->n, rc = KF_ENOMEM;
  kf__search s;
  memset(&s, 0, sizeof s);
  s.d = d;
  s.c = c;
  s.pl = pl;
  s.w = w;
  s.k_best = k_best;
  s.inc = hchosen;
  s.ninc = *nh;
  s.inc_cost = *hcost * 1e6;
  s.cost = malloc(sizeof(double) * (size_t)(c->n + 1));
  s.x = malloc(sizeof(double) * (size_t)(c->n + 1));
  s.chosen = malloc(sizeof(int) * (size_t)(n + 1));
  s.topo = malloc(sizeof(int) * (size_t)(n + 1));
  s.cyc = malloc(sizeof(int) * (size_t)(n + 1));
  s.cutcols = malloc(sizeof(int) * (size_t)(c->n + 1));
  s.rowbuf = malloc(sizeof(int) * (size_t)(c->n + 1));
  kf__lp *lp = NULL;
  if (kf__core_alloc(&s.k, c->n) || !s.cost || !s.x || !s.chosen || !s.topo || !s.cyc ||
      !s.cutcols || !s.rowbuf)
    goto out;
  for (int i = 0; i < c->n; i++)
    s.cost[i] = c->c[i].cost * 1e6;
  if ((rc = kf__partition_rows(c, n, &s.rows)) != 0)
    goto out;
  if ((rc = kf__relax(&s, &lp)) != 0)
    goto out;
  int proven = 0;
  if (isfinite(s.k.lower)) {
    if (s.k.lower * 1e-6 > pl->bound)
      pl->bound = s.k.lower * 1e-6; /* the relaxation's bound */
    /* The sweep first; where its states outgrow their memory, CBC. */
    if (kf__sweep_max_bytes > 0) {
      rc = kf__sweep_best(&s, k_best);
      if (rc < 0 && rc != KF_ELIMIT)
        goto out;
      proven = rc == 0;
    }
  }
  kf__lp_destroy(lp);
  lp = NULL;
  rc = proven ? 0 : kf__best(&s);
  if (rc != 0 && rc != KF_ELIMIT)
    goto out;
  int timed_out = rc == KF_ELIMIT;
  if (proven && k_best > 1 && pl->nalt > 0) { /* the sweep added the k best, or all */
    pl->bound = pl->alt[0].time;
    goto out;
  }
  if ((rc = kf__plan_add_acyclic(&s, s.inc, s.ninc)) != 0)
    goto out;
  if (timed_out) {
    pl->heuristic = !s.improved;
    rc = KF_ELIMIT;
    goto out;
  }
  pl->bound = pl->alt[0].time;
  if (k_best > 1) {
    if ((rc = kf__row_add(&s.rows, s.inc, s.ninc, 'L', s.ninc - 1.0)) != 0)
      goto out;
    rc = kf__next(&s, k_best);
  }
out:
  *nh = s.ninc;
  *hcost = s.inc_cost * 1e-6;
  kf__lp_destroy(lp);
  kf__rows_free(&s.rows);
  kf__core_free(&s.k);
  free(s.cost);
  free(s.x);
  free(s.chosen);
  free(s.topo);
  free(s.cyc);
  free(s.cutcols);
  free(s.rowbuf);
  return rc;
}
