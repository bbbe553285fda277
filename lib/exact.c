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

/* The search stage's core (columns per launch) and node limit: measured on
 * the synthetic 142-kernel instances (bench/plan-time.sh). */
#define KF__SEARCH_COLS 3
#define KF__SEARCH_NODES 50
/* Rounds of cuts at the search's root: CBC makes up to 100 on programs of
 * fewer than 500 columns (the search cores of 142 launches), which took
 * most of its time there, and 20 on larger ones. */
#define KF__SEARCH_PASSES 20
/* Cores of at most this many columns are solved by kf__bb, larger ones by
 * CBC (measured on the synthetic suite and the 142-kernel instances: at
 * 1100 columns kf__bb took 0.16 s where CBC took 0.8 s, at 1500 1.1 s
 * where CBC took 0.7 s); kf__bb's node limit in the search, and in the
 * proof, past which CBC proves instead (on the suite kf__bb proves in at
 * most 55 nodes; where it needs hundreds, CBC's cuts and strong branching
 * were faster). */
#define KF__BB_COLS 1300
#define KF__BB_SEARCH_NODES 2000
#define KF__BB_PROOF_NODES 100
int kf__bb_max_cols = KF__BB_COLS;
long kf__bb_proof_nodes = KF__BB_PROOF_NODES;

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

static int kf__dbl_cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The m-th smallest of v[0..n) (the largest if m >= n), or INFINITY. */
static double kf__kth_smallest(const double *v, int n, int m)
{
  if (n <= 0)
    return INFINITY;
  double *s = malloc(sizeof(double) * (size_t)n);
  if (!s)
    return INFINITY;
  memcpy(s, v, sizeof(double) * (size_t)n);
  qsort(s, (size_t)n, sizeof(double), kf__dbl_cmp);
  double r = s[m < n ? m : n - 1];
  free(s);
  return r;
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
 * where those find nothing, crossing rows; where those find nothing too,
 * cycle rows of any length. Appends at most max of each to s->rows;
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
  /* Then crossing rows (dense: each lists every group holding either of
   * two launches that could close a two-way pair), and longer cycles
   * last (a shortest-path search from every launch), each once the
   * families before it have nothing left to cut. */
  if (added == 0) {
    int more = kf__separate_crossing(s->d, s->c, &s->rows, x, s->cutcols, max);
    added = more < 0 ? more : added + more;
  }
  if (added == 0) {
    int more = kf__separate_cycles(s->d, s->c, &s->rows, x, s->cutcols, max);
    added = more < 0 ? more : added + more;
  }
  return added;
}

/* CBC over the current core and rows. */
static int kf__solve_core(kf__search *s, double cutoff, int max_nodes, kf__ilp_result_t *r,
                          int *nc)
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
                    s->k.rows.sense, s->k.rows.rhs, s->w->left, cutoff, max_nodes,
                    max_nodes ? KF__SEARCH_PASSES : 0 };
  double ts = kf__now();
  rc = kf__ilp_solve(&ilp, r);
  kf__work_charge(s->w, r->work > 0 ? r->work : 1);
  s->pl->st.ilp_solves++;
  kf__trace(max_nodes ? "ilp (search)" : "ilp", s->k.ncol, s->k.rows.n, rc, r->obj,
            r->bound, kf__now() - ts);
  *nc = 0;
  if (r->has_solution)
    *nc = kf__solution(&s->k, s->x, s->chosen);
  return rc;
}

/* The relaxation over every column, tightened by the cycle and clique rows
 * its solutions violate, prices the columns (sets L and d). Keeps the LP in
 * *lp for the dive; without an LP solver or time, the core stays every
 * column. */
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

/* Diving from the relaxation: fix the group with the largest fractional
 * value to 1 and solve again, until the solution is integral. A cyclic one
 * gets cycle cuts (the relaxation takes them) and the dive goes on; an
 * infeasible relaxation frees the last fix and forbids that group. Stops
 * when the relaxation costs as much as the incumbent, which a cheaper plan
 * replaces. 0 or KF_ENOMEM. */
static int kf__dive(kf__search *s, kf__lp *lp)
{
  const kf__cands *c = s->c;
  int n = s->d->n, last = -1, lp_rows = s->rows.n, rc = 0;
  double *lo = calloc((size_t)c->n + 1, sizeof(double));
  double *hi = malloc(sizeof(double) * (size_t)(c->n + 1));
  if (!lo || !hi) {
    free(lo);
    free(hi);
    return KF_ENOMEM;
  }
  for (int j = 0; j < c->n; j++)
    hi[j] = 1;
  for (int step = 0; step < 4 * n && !kf__work_out(s->w) && !rc; step++) {
    kf__lp_result_t r = { s->x, NULL, 0, 0, 0 };
    int src = kf__lp_run(s, lp, &r);
    if (src == KF_EINFEASIBLE && last >= 0) {
      lo[last] = hi[last] = 0;
      last = -1;
      kf__lp_set_bounds(lp, lo, hi);
      continue;
    }
    if (src != 0 || r.obj >= s->inc_cost * (1 - KF__TOL))
      break;
    int pick = -1, nc = 0;
    for (int j = 0; j < c->n; j++)
      if (s->x[j] > 1e-6 && s->x[j] < 1 - 1e-6 && lo[j] == 0 &&
          (pick < 0 || s->x[j] > s->x[pick] ||
           (s->x[j] == s->x[pick] && c->c[j].n > c->c[pick].n)))
        pick = j;
    if (pick >= 0) {
      lo[pick] = 1;
      last = pick;
      kf__lp_set_bounds(lp, lo, hi);
      continue;
    }
    for (int j = 0; j < c->n; j++)
      if (s->x[j] > 0.5)
        s->chosen[nc++] = j;
    rc = kf__offer(s, s->chosen, nc, kf__plan_cost(s, s->chosen, nc));
    if (rc == 1)
      break;
    last = -1;
    if (!rc && s->rows.n > lp_rows) {
      rc = kf__lp_add_rows(lp, s->rows.n - lp_rows, s->rows.start + lp_rows, s->rows.idx,
                           s->rows.sense + lp_rows, s->rows.rhs + lp_rows);
      lp_rows = s->rows.n;
    }
  }
  free(lo);
  free(hi);
  return rc < 0 ? rc : 0;
}

/* Branch and bound of our own over a small core (CBC's preprocessing,
 * cut rounds and strong branching cost it 0.2-0.9 s on cores of a few
 * hundred columns; the relaxation's rows and a pair branching prove those
 * in 0.05-0.3 s). Depth first; each node solves the core's relaxation
 * (warm-started, stopped at the incumbent's cost), separates the
 * relaxation's row families once more (50 rounds at the root), and
 * branches on the launch pair held together with value nearest 1/2
 * (Ryan-Foster: one side forbids the groups holding exactly one of the
 * two, the other those holding both); where no pair is fractional (groups
 * with equal members), on a fractional group. An integral point is a plan:
 * acyclic, it becomes the incumbent; cyclic, it gets cycle rows. Each LP
 * solve fixes the columns its duals price out of any cheaper plan
 * (kf__bb_fix), and the second side of a branch starts from the node's
 * basis rather than from wherever the first side's subtree left Clp. */
typedef struct kf__bb {
  kf__search *s;
  kf__lp *lp;
  double *lo, *hi;   /* the core's column bounds at this node */
  double *xc, *xf;   /* the node's point over the core and over every column */
  int *changed;      /* bounds changed by the branches on the path, a stack */
  int nchanged;
  int lp_rows;       /* rows of s->rows the LP holds */
  kf__rows rows;     /* the LP's rows, over the core (for pricing) */
  double *y, *d;     /* the node's row duals and reduced costs */
  long nodes, max_nodes;
} kf__bb;

/* Hands the LP the rows added to s->rows since the last call (over the
 * core; a row without core columns holds trivially). */
static int kf__bb_sync(kf__bb *b)
{
  kf__search *s = b->s;
  int rc = 0;
  for (int r = b->lp_rows; r < s->rows.n && !rc; r++) {
    int m = 0, st[2];
    for (int q = s->rows.start[r]; q < s->rows.start[r + 1]; q++)
      if (s->k.pos[s->rows.idx[q]] >= 0)
        s->rowbuf[m++] = s->k.pos[s->rows.idx[q]];
    st[0] = 0, st[1] = m;
    if (m > 0 && !(rc = kf__row_add(&b->rows, s->rowbuf, m, s->rows.sense[r], s->rows.rhs[r])))
      rc = kf__lp_add_rows(b->lp, 1, st, s->rowbuf, s->rows.sense + r, s->rows.rhs + r);
  }
  b->lp_rows = s->rows.n;
  double *y = rc ? NULL : realloc(b->y, sizeof(double) * (size_t)(b->rows.n + 1));
  if (y)
    b->y = y;
  return rc ? rc : y ? 0 : KF_ENOMEM;
}

/* Reduced-cost fixing (see plan_int.h): from duals y, the planner's own
 * bound over the box, L = y.rhs + sum over columns of min over [lo, hi] of
 * d x (kf__price), holds for every 0/1 point in the box; one that sets a
 * free column j to 1 costs at least L + d_j, one that sets it to 0 at
 * least L - d_j. */
int kf__rc_fix(const double *cost, int ncols, const kf__rows *rows, const double *y,
               double *lo, double *hi, double cutoff, double *d, int *changed)
{
  int fixed = 0;
  double lower = kf__price(cost, ncols, rows, y, d);
  for (int j = 0; j < ncols; j++)
    lower += lo[j] > 0 ? d[j] : hi[j] > 0 ? fmin(d[j], 0) : 0;
  if (!isfinite(lower))
    return 0;
  for (int j = 0; j < ncols; j++) {
    if (lo[j] > 0 || hi[j] == 0)
      continue;
    if (lower + d[j] >= cutoff) {
      hi[j] = 0;
      changed[fixed++] = 2 * j;
    } else if (lower - d[j] >= cutoff) {
      lo[j] = 1;
      changed[fixed++] = 2 * j + 1;
    }
  }
  return fixed;
}

/* Reduced-cost fixing at a node, from its duals and box: the columns fixed
 * hold for the subtree (pushed on b->changed; kf__bb_node undoes them).
 * Returns how many, or 0 without duals. */
static int kf__bb_fix(kf__bb *b, double cutoff)
{
  int fixed = kf__rc_fix(b->s->k.cost, b->s->k.ncol, &b->rows, b->y, b->lo, b->hi, cutoff,
                         b->d, b->changed + b->nchanged);
  b->nchanged += fixed;
  return fixed;
}

/* Solves the node's relaxation and tightens it. Returns 1 when the node
 * needs branching (b->xc fractional), 0 when it is done (pruned,
 * infeasible, or its plan offered), or an error. */
static int kf__bb_bound(kf__bb *b, int depth)
{
  kf__search *s = b->s;
  int nc = s->k.ncol, rounds = depth == 0 ? 50 : 1;
  kf__lp_set_bounds(b->lp, b->lo, b->hi);
  for (int round = 0;; round++) {
    double cutoff = s->inc_cost * (1 - KF__TOL);
    kf__lp_set_cutoff(b->lp, cutoff);
    kf__lp_result_t r = { b->xc, b->y, 0, 0, 0 };
    int rc = kf__lp_run(s, b->lp, &r);
    if (rc == KF_EINFEASIBLE || (rc == 0 && r.obj >= cutoff))
      return 0;
    if (rc)
      return rc;
    if (kf__bb_fix(b, cutoff) > 0)
      kf__lp_set_bounds(b->lp, b->lo, b->hi);
    int frac = 0, m = 0;
    memset(b->xf, 0, sizeof(double) * (size_t)s->c->n);
    for (int i = 0; i < nc; i++) {
      b->xf[s->k.col[i]] = b->xc[i];
      frac |= b->xc[i] > 1e-6 && b->xc[i] < 1 - 1e-6;
    }
    if (!frac) {
      for (int i = 0; i < nc; i++)
        if (b->xc[i] > 0.5)
          s->chosen[m++] = s->k.col[i];
      rc = kf__offer(s, s->chosen, m, kf__plan_cost(s, s->chosen, m));
      if (rc)
        return rc < 0 ? rc : 0; /* acyclic: nothing cheaper below */
    } else if (round < rounds) {
      rc = kf__separate(s, b->xf, s->d->n);
      if (rc < 0)
        return rc;
      if (rc == 0)
        return 1;
    } else {
      return 1;
    }
    if ((rc = kf__bb_sync(b)) != 0)
      return rc;
  }
}

/* Pushes the bound changes of one side of the branch on the launch pair
 * (u, v) (or, with u < 0, on the group v of the core); returns how many.
 * A change is 2i (upper bound of column i to 0) or 2i + 1 (lower to 1). */
static int kf__bb_side(kf__bb *b, int u, int v, int together)
{
  kf__search *s = b->s;
  int n0 = b->nchanged;
  if (u < 0) {
    b->changed[b->nchanged++] = 2 * v + together;
    if (together)
      b->lo[v] = 1;
    else
      b->hi[v] = 0;
    return 1;
  }
  for (int i = 0; i < s->k.ncol; i++) {
    const kf__cand *g = &s->c->c[s->k.col[i]];
    int hu = 0, hv = 0;
    for (int m = 0; m < g->n; m++)
      hu |= g->members[m] == u, hv |= g->members[m] == v;
    if ((together ? hu != hv : hu && hv) && b->hi[i] > 0) {
      b->hi[i] = 0;
      b->changed[b->nchanged++] = 2 * i;
    }
  }
  return b->nchanged - n0;
}

static void kf__bb_undo(kf__bb *b, int count)
{
  while (count-- > 0) {
    int ch = b->changed[--b->nchanged];
    if (ch & 1)
      b->lo[ch / 2] = 0;
    else
      b->hi[ch / 2] = 1;
  }
}

static int kf__bb_node(kf__bb *b, int depth)
{
  kf__search *s = b->s;
  if (b->max_nodes && b->nodes >= b->max_nodes)
    return KF_ELIMIT;
  if (kf__work_charge(s->w, 1))
    return KF_ELIMIT;
  b->nodes++;
  int n0 = b->nchanged, rc = kf__bb_bound(b, depth);
  if (rc <= 0) {
    kf__bb_undo(b, b->nchanged - n0);
    return rc;
  }
  kf__pair *pr;
  int np = kf__held_pairs(s->c, b->xf, 0, &pr);
  if (np < 0)
    return np;
  int u = -1, v = -1;
  double t = 0, best = 1;
  for (int i = 0; i < np; i++)
    if (pr[i].t > 1e-6 && pr[i].t < 1 - 1e-6 && fabs(pr[i].t - 0.5) < best)
      best = fabs(pr[i].t - 0.5), u = pr[i].a, v = pr[i].b, t = pr[i].t;
  free(pr);
  if (u < 0) /* no fractional pair: branch on the most fractional group */
    for (int i = 0; i < s->k.ncol; i++)
      if (b->xc[i] > 1e-6 && b->xc[i] < 1 - 1e-6 && fabs(b->xc[i] - 0.5) < best)
        best = fabs(b->xc[i] - 0.5), v = i, t = b->xc[i];
  /* The side the point leans to first; the second starts from this
   * node's basis (dual feasible there), not from the first's last leaf. */
  int nbasis;
  unsigned char *basis = kf__lp_basis(b->lp, &nbasis);
  rc = 0;
  for (int side = 0; side < 2 && rc == 0; side++) {
    if (side == 1)
      kf__lp_set_basis(b->lp, basis, nbasis);
    int count = kf__bb_side(b, u, v, (side == 0) == (t >= 0.5));
    rc = kf__bb_node(b, depth + 1);
    kf__bb_undo(b, count);
  }
  free(basis);
  kf__bb_undo(b, b->nchanged - n0);
  return rc;
}

/* The best plan in the current core, by kf__bb: 0 when the incumbent is
 * proven the cheapest plan there, KF_ELIMIT when the work budget is spent
 * or after max_nodes (0: no limit), or an error. Rows found at the nodes are kept
 * for the search only: they tighten subtrees, and CBC runs later were
 * slower with them. */
static int kf__bb_solve(kf__search *s, long max_nodes)
{
  int rc = kf__core_project(&s->k, &s->rows, s->cost), rows0 = s->rows.n;
  if (rc)
    return rc;
  kf__ilp_t p = { s->k.ncol, s->k.cost, s->k.rows.n, s->k.rows.start, s->k.rows.idx,
                  s->k.rows.sense, s->k.rows.rhs, 0, INFINITY, 0, 0 };
  kf__bb b;
  memset(&b, 0, sizeof b);
  b.s = s;
  b.max_nodes = max_nodes;
  b.lp_rows = s->rows.n;
  b.lo = calloc((size_t)s->k.ncol + 1, sizeof(double));
  b.hi = malloc(sizeof(double) * (size_t)(s->k.ncol + 1));
  b.xc = malloc(sizeof(double) * (size_t)(s->k.ncol + 1));
  b.xf = malloc(sizeof(double) * (size_t)(s->c->n + 1));
  b.changed = malloc(sizeof(int) * (size_t)(2 * s->k.ncol + 1)); /* each bound once */
  b.d = malloc(sizeof(double) * (size_t)(s->k.ncol + 1));
  b.y = malloc(sizeof(double) * (size_t)(s->k.rows.n + 1));
  for (int r = 0; r < s->k.rows.n && !rc; r++)
    rc = kf__row_add(&b.rows, s->k.rows.idx + s->k.rows.start[r],
                     s->k.rows.start[r + 1] - s->k.rows.start[r], s->k.rows.sense[r],
                     s->k.rows.rhs[r]);
  double ts = kf__now();
  if (rc || !b.lo || !b.hi || !b.xc || !b.xf || !b.changed || !b.d || !b.y) {
    rc = KF_ENOMEM;
  } else {
    for (int i = 0; i < s->k.ncol; i++)
      b.hi[i] = 1;
    rc = kf__lp_create(&p, &b.lp);
    if (!rc)
      rc = kf__bb_node(&b, 0);
  }
  s->pl->st.bb_nodes += b.nodes;
  if (getenv("KFPLAN_TRACE"))
    fprintf(stderr, "kfplan: bb %d cols %d rows: %s, %ld nodes, incumbent %.6g in %.3f s\n",
            s->k.ncol, s->rows.n, rc ? kf_err_name(rc) : "OK", b.nodes, s->inc_cost,
            kf__now() - ts);
  s->rows.n = rows0;
  s->rows.nnz = s->rows.start[rows0];
  kf__lp_destroy(b.lp);
  free(b.lo);
  free(b.hi);
  free(b.xc);
  free(b.xf);
  free(b.changed);
  free(b.d);
  free(b.y);
  kf__rows_free(&b.rows);
  return rc;
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

/* The best plan. CBC is asked only for plans cheaper than the incumbent (a
 * cutoff). First a search in a small core, the KF__SEARCH_COLS * n columns
 * of least reduced cost, with rows against every two-way dependent pair of
 * its groups (cyclic solutions cost a solve each) and a node limit: it
 * finds a good incumbent, not a proof (a restricted core has a weaker
 * relaxation, so proving its optimum can cost more than the real proof).
 * A search core that holds no cheaper plan doubles while it stays smaller
 * than the proof's (a better cutoff shrinks the proof's core and tree).
 * Then the proof in the core of every column that a cheaper plan could
 * use. Returns 0 when the incumbent is proven optimal, KF_ELIMIT once the
 * work budget is spent, or an error. */
static int kf__best(kf__search *s)
{
  const kf__cands *c = s->c;
  int n = s->d->n, rc, nc, width = KF__SEARCH_COLS, bb_gave_up = 0;
  double full = s->inc_cost - s->k.lower + KF__TOL * fabs(s->inc_cost);
  double t1 = kf__kth_smallest(s->k.d, c->n, KF__SEARCH_COLS * n);
  int search = isfinite(s->k.lower) && t1 < full;
  kf__core_select(&s->k, c, n, search ? t1 : full, s->inc, s->ninc);
  if (search) {
    rc = kf__conflict_rows(s->d, c, &s->rows, s->k.in, s->cutcols, 8 * n);
    if (rc < 0)
      return rc;
    s->pl->st.conflict_rows += rc;
  }
  for (;;) {
    if (kf__work_out(s->w))
      return KF_ELIMIT;
    if (isfinite(s->k.lower) && s->k.ncol <= kf__bb_max_cols && !bb_gave_up) {
      /* Small: our own search. In the search stage its node limit ends
       * it like CBC's; in the proof, CBC takes over. */
      rc = kf__bb_solve(s, search ? KF__BB_SEARCH_NODES : kf__bb_proof_nodes);
      if (rc == KF_ELIMIT && !kf__work_out(s->w) && !search) {
        bb_gave_up = 1;
        continue;
      }
      if (rc != 0 && !(search && rc == KF_ELIMIT && !kf__work_out(s->w)))
        return rc;
      if (rc == 0) {
        kf__raise_bound(s, s->inc_cost);
        if (s->inc_cost - s->k.lower <= s->k.covered)
          return 0;
      }
      search = 0;
      kf__core_select(&s->k, c, n, s->inc_cost - s->k.lower + KF__TOL * fabs(s->inc_cost),
                      s->inc, s->ninc);
      continue;
    }
    kf__ilp_result_t r;
    rc = kf__solve_core(s, s->inc_cost * (1 - KF__TOL), search ? KF__SEARCH_NODES : 0, &r,
                        &nc);
    if (rc != 0 && rc != KF_ELIMIT && rc != KF_EINFEASIBLE)
      return rc;
    kf__raise_bound(s, rc == KF_EINFEASIBLE ? s->inc_cost : r.bound);
    int acyclic = 1;
    if (r.has_solution && (acyclic = kf__offer(s, s->chosen, nc, r.obj)) < 0)
      return acyclic;
    if (rc == KF_ELIMIT && !r.node_limited)
      return KF_ELIMIT;
    if (!acyclic)
      continue; /* cut off; look again in the same core */
    /* No plan in the core is cheaper than the incumbent, or the search
     * stopped: proven if the core holds every column a cheaper plan could
     * use, else take them all. */
    double need = s->inc_cost - s->k.lower;
    if (rc != KF_ELIMIT && need <= s->k.covered)
      return 0;
    if (search && rc == KF_EINFEASIBLE && 2 * width * n < c->n) {
      width *= 2;
      double tw = kf__kth_smallest(s->k.d, c->n, width * n);
      if (tw < need) {
        kf__core_select(&s->k, c, n, tw, s->inc, s->ninc);
        rc = kf__conflict_rows(s->d, c, &s->rows, s->k.in, s->cutcols, 8 * n);
        if (rc < 0)
          return rc;
        s->pl->st.conflict_rows += rc;
        continue;
      }
    }
    search = 0;
    kf__core_select(&s->k, c, n, need + KF__TOL * fabs(s->inc_cost), s->inc, s->ninc);
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
    int src = kf__solve_core(s, INFINITY, 0, &r, &nc);
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
    /* The sweep first; where its states outgrow their memory, the dive and
     * the core searches. */
    if (kf__sweep_max_bytes > 0) {
      rc = kf__sweep_best(&s, k_best);
      if (rc < 0 && rc != KF_ELIMIT)
        goto out;
      proven = rc == 0;
    }
    if (!proven) {
      double ts = kf__now();
      if ((rc = kf__dive(&s, lp)) != 0)
        goto out;
      kf__trace("dive", c->n, s.rows.n, 0, s.inc_cost, s.k.lower, kf__now() - ts);
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
