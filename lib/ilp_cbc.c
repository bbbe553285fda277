/* The binary program solved by COIN-OR CBC, its relaxation by Clp, both
 * through their C interfaces. The only file that includes them; the calls go
 * through a table so unit tests can fake the solvers (limits, failures).
 * Neither solver is given a time limit: both stop on counts of nodes and
 * simplex iterations, so their answers do not depend on the machine. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <coin/Cbc_C_Interface.h>
#include <coin/Clp_C_Interface.h>
#include "kfuse/error.h"
#include "ilp.h"

/* Both libraries index matrix starts with CoinBigIndex: int in this build
 * (COIN_BIG_INDEX 0), which the table's int arrays rely on. */
typedef char kf__big_index_is_int[sizeof(CoinBigIndex) == sizeof(int) ? 1 : -1];

static void *kf__c_new(void) { return Cbc_newModel(); }
static void kf__c_delete(void *m) { Cbc_deleteModel(m); }
static void kf__c_load(void *m, int nc, int nr, const int *st, const int *ix,
                       const double *v, const double *cl, const double *cu,
                       const double *o, const double *rl, const double *ru)
{
  Cbc_loadProblem(m, nc, nr, st, ix, v, cl, cu, o, rl, ru);
}
static void kf__c_int(void *m, int c) { Cbc_setInteger(m, c); }
static void kf__c_log(void *m, int l) { Cbc_setLogLevel(m, l); }
static void kf__c_nodes(void *m, int n) { Cbc_setMaximumNodes(m, n); }
static void kf__c_param(void *m, const char *k, const char *v) { Cbc_setParameter(m, k, v); }
static int kf__c_solve(void *m) { return Cbc_solve(m); }
static int kf__c_opt(void *m) { return Cbc_isProvenOptimal(m); }
static int kf__c_inf(void *m) { return Cbc_isProvenInfeasible(m); }
static int kf__c_nl(void *m) { return Cbc_isNodeLimitReached(m); }
static int kf__c_ncount(void *m) { return Cbc_getNodeCount(m); }
static int kf__c_icount(void *m) { return Cbc_getIterationCount(m); }
static const double *kf__c_sol(void *m) { return Cbc_getColSolution(m); }
static double kf__c_obj(void *m) { return Cbc_getObjValue(m); }
static double kf__c_bound(void *m) { return Cbc_getBestPossibleObjValue(m); }
static void *kf__l_new(void) { return Clp_newModel(); }
static void kf__l_delete(void *m) { Clp_deleteModel(m); }
static void kf__l_load(void *m, int nc, int nr, const int *st, const int *ix,
                       const double *v, const double *cl, const double *cu,
                       const double *o, const double *rl, const double *ru)
{
  Clp_loadProblem(m, nc, nr, st, ix, v, cl, cu, o, rl, ru);
}
static void kf__l_add_rows(void *m, int nr, const double *rl, const double *ru,
                           const int *st, const int *ix, const double *v)
{
  Clp_addRows(m, nr, rl, ru, st, ix, v);
}
static void kf__l_log(void *m, int l) { Clp_setLogLevel(m, l); }
static void kf__l_iters(void *m, int n) { Clp_setMaximumIterations(m, n); }
static int kf__l_icount(void *m) { return Clp_numberIterations(m); }
static int kf__l_solve(void *m)
{
  Clp_dual(m, 0);
  return Clp_status(m);
}
static double kf__l_obj(void *m) { return Clp_objectiveValue(m); }
static const double *kf__l_duals(void *m) { return Clp_getRowPrice(m); }
static const double *kf__l_sol(void *m) { return Clp_getColSolution(m); }

static const kf__cbc_api_t kf__cbc_real = {
  kf__c_new, kf__c_delete, kf__c_load, kf__c_int, kf__c_log, kf__c_nodes, kf__c_param,
  kf__c_solve, kf__c_opt, kf__c_inf, kf__c_nl, kf__c_ncount, kf__c_icount, kf__c_sol,
  kf__c_obj, kf__c_bound,
  kf__l_new, kf__l_delete, kf__l_load, kf__l_add_rows, kf__l_log, kf__l_iters, kf__l_icount,
  kf__l_solve, kf__l_obj, kf__l_duals, kf__l_sol,
};
static const kf__cbc_api_t *kf__cbc = &kf__cbc_real;

const kf__cbc_api_t *kf__cbc_set_api(const kf__cbc_api_t *api)
{
  const kf__cbc_api_t *old = kf__cbc;
  kf__cbc = api ? api : &kf__cbc_real;
  return old;
}

/* The program's matrix by columns (what both libraries load), all
 * coefficients 1, and the row limits: 'E' rows [rhs, rhs], 'L' rows
 * [-inf, rhs]. Also 0/1 column bounds. */
typedef struct kf__cols {
  int *start, *row;
  double *val, *rl, *ru, *lb, *ub;
} kf__cols;

static void kf__cols_free(kf__cols *m)
{
  free(m->start);
  free(m->row);
  free(m->val);
  free(m->rl);
  free(m->ru);
  free(m->lb);
  free(m->ub);
}

static int kf__cols_build(const kf__ilp_t *p, kf__cols *m)
{
  int nnz = p->row_start[p->nrows];
  m->start = calloc((size_t)p->ncols + 2, sizeof(int));
  m->row = malloc(sizeof(int) * (size_t)(nnz + 1));
  m->val = malloc(sizeof(double) * (size_t)(nnz + 1));
  m->rl = malloc(sizeof(double) * (size_t)(p->nrows + 1));
  m->ru = malloc(sizeof(double) * (size_t)(p->nrows + 1));
  m->lb = calloc((size_t)p->ncols + 1, sizeof(double));
  m->ub = malloc(sizeof(double) * (size_t)(p->ncols + 1));
  if (!m->start || !m->row || !m->val || !m->rl || !m->ru || !m->lb || !m->ub) {
    kf__cols_free(m);
    return KF_ENOMEM;
  }
  for (int k = 0; k < nnz; k++)
    m->start[p->row_idx[k] + 2]++;
  for (int c = 0; c < p->ncols; c++) {
    m->start[c + 2] += m->start[c + 1];
    m->ub[c] = 1.0;
  }
  for (int r = 0; r < p->nrows; r++) {
    m->rl[r] = p->sense[r] == 'E' ? p->rhs[r] : -DBL_MAX;
    m->ru[r] = p->rhs[r];
    for (int k = p->row_start[r]; k < p->row_start[r + 1]; k++) {
      int at = m->start[p->row_idx[k] + 1]++;
      m->row[at] = r;
      m->val[at] = 1.0;
    }
  }
  /* A column listed t times in a row has coefficient t: the entries of a
   * column are in row order, so repeats are adjacent; merge them. */
  int w = 0;
  for (int c = 0, from = 0; c < p->ncols; c++) {
    int to = m->start[c + 1];
    m->start[c] = w;
    for (int k = from; k < to; k++) {
      if (w > m->start[c] && m->row[w - 1] == m->row[k]) {
        m->val[w - 1] += 1.0;
      } else {
        m->row[w] = m->row[k];
        m->val[w++] = 1.0;
      }
    }
    from = to;
  }
  m->start[p->ncols] = w;
  return 0;
}

/* Checks x against the rows: CBC may return a point at a limit that is not
 * a solution. */
static int kf__feasible(const kf__ilp_t *p, const double *x)
{
  for (int r = 0; r < p->nrows; r++) {
    double s = 0;
    for (int k = p->row_start[r]; k < p->row_start[r + 1]; k++)
      s += x[p->row_idx[k]] > 0.5;
    if (p->sense[r] == 'E' ? fabs(s - p->rhs[r]) > 1e-6 : s > p->rhs[r] + 1e-6)
      return 0;
  }
  return 1;
}

/* Every cost and right-hand side finite and within KF__ILP_MAX_VALUE. */
static int kf__values_ok(const kf__ilp_t *p)
{
  for (int c = 0; c < p->ncols; c++)
    if (!(fabs(p->cost[c]) <= KF__ILP_MAX_VALUE))
      return 0;
  for (int r = 0; r < p->nrows; r++)
    if (!(fabs(p->rhs[r]) <= KF__ILP_MAX_VALUE))
      return 0;
  return 1;
}

long kf__ilp_node_work(const kf__ilp_t *p) { return 10L + p->ncols + p->nrows; }
long kf__iteration_work(int ncols) { return 1L + (ncols > 0 ? (ncols - 1) / 1024 : 0); }

/* A count for the solvers' int parameters. */
static int kf__clamp_int(long v) { return v < 1 ? 1 : v > INT_MAX ? INT_MAX : (int)v; }

int kf__ilp_solve(const kf__ilp_t *p, kf__ilp_result_t *r)
{
  r->has_solution = 0;
  r->node_limited = 0;
  r->work = 0;
  r->obj = INFINITY;
  r->bound = -INFINITY;
  if (!kf__values_ok(p) || !(p->cutoff == INFINITY || fabs(p->cutoff) <= KF__ILP_MAX_VALUE))
    return KF_ERANGE;
  void *m = kf__cbc->new_model();
  if (!m)
    return KF_ENOMEM;
  kf__cols cm;
  int rc = kf__cols_build(p, &cm);
  if (rc) {
    kf__cbc->delete_model(m);
    return rc;
  }
  kf__cbc->set_log_level(m, 0);
  /* One load with every row: adding rows one by one through the C
   * interface took seconds on programs of 10^5 columns. */
  kf__cbc->load_problem(m, p->ncols, p->nrows, cm.start, cm.row, cm.val, cm.lb, cm.ub,
                        p->cost, cm.rl, cm.ru);
  kf__cols_free(&cm);
  for (int c = 0; c < p->ncols; c++)
    kf__cbc->set_integer(m, c);
  /* CBC's own primal heuristics cost more than they find here. The caller
   * knows a plan and asks only for cheaper ones: a cutoff prunes more than a
   * start would (CBC 2.10 also drops starts that its preprocessing changes). */
  kf__cbc->set_parameter(m, "heuristics", "off");
  if (isfinite(p->cutoff)) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", p->cutoff);
    kf__cbc->set_parameter(m, "cutoff", buf);
  }
  /* Reproducible runs: one thread, and CBC's and Clp's random seeds fixed
   * (their value 0 would seed them from the clock). */
  kf__cbc->set_parameter(m, "threads", "0");
  kf__cbc->set_parameter(m, "randomCbcSeed", "1234567");
  kf__cbc->set_parameter(m, "randomSeed", "1234567");
  /* A node re-solves the relaxation and runs cut and branching rounds over
   * every column and row: it is charged as that many units, so the node
   * limit keeps CBC's run proportionate to the budget. */
  char buf[32];
  long budget = p->max_work > 0 ? p->max_work : 1;
  long per_node = kf__ilp_node_work(p);
  long nodes = budget / per_node > 0 ? budget / per_node : 1;
  if (p->max_nodes > 0 && p->max_nodes < nodes)
    nodes = p->max_nodes;
  kf__cbc->set_max_nodes(m, kf__clamp_int(nodes));
  snprintf(buf, sizeof buf, "%d", kf__clamp_int(nodes));
  kf__cbc->set_parameter(m, "maxNodes", buf);
  long per_iter = kf__iteration_work(p->ncols);
  snprintf(buf, sizeof buf, "%d", kf__clamp_int(budget / per_iter));
  kf__cbc->set_parameter(m, "maxIterations", buf);
  if (p->root_passes > 0) {
    snprintf(buf, sizeof buf, "%d", p->root_passes);
    kf__cbc->set_parameter(m, "passCuts", buf);
  }
  int st = kf__cbc->solve(m);
  r->work = (long)kf__cbc->node_count(m) * per_node +
            (long)kf__cbc->iteration_count(m) * per_iter;
  /* Status 1: stopped on a limit (nodes or iterations, the only ones set). */
  int limited = st == 1;
  if (st != 0 && !limited) {
    rc = KF_ESOLVER;
    goto out;
  }
  /* A point CBC returns counts only if it satisfies the rows and, with a
   * cutoff, beats it (CBC may return the relaxation's integral point). */
  const double *x = kf__cbc->col_solution(m);
  if (x && kf__feasible(p, x)) {
    double obj = 0;
    for (int c = 0; c < p->ncols; c++)
      if (x[c] > 0.5)
        obj += p->cost[c];
    if (!(obj >= p->cutoff)) {
      memcpy(r->x, x, sizeof(double) * (size_t)p->ncols);
      r->has_solution = 1;
      r->obj = obj;
    }
  }
  if (limited) {
    double b = kf__cbc->best_possible(m);
    r->bound = isfinite(b) ? b : -INFINITY;
    r->node_limited = p->max_nodes > 0 && p->max_nodes < budget / per_node &&
                      kf__cbc->node_limit_reached(m);
    rc = KF_ELIMIT;
  } else if (kf__cbc->is_proven_optimal(m) && r->has_solution) {
    r->bound = r->obj;
    rc = 0;
  } else if (kf__cbc->is_proven_infeasible(m) || (isfinite(p->cutoff) && !r->has_solution)) {
    rc = KF_EINFEASIBLE; /* with a cutoff: nothing cheaper than it */
  } else {
    rc = KF_ESOLVER;
  }
out:
  kf__cbc->delete_model(m);
  return rc;
}

struct kf__lp {
  void *m;
  int ncols, nrows;
};

int kf__lp_create(const kf__ilp_t *p, kf__lp **out)
{
  *out = NULL;
  if (!kf__values_ok(p))
    return KF_ERANGE;
  if (!kf__cbc->lp_new)
    return KF_ESOLVER;
  kf__lp *lp = calloc(1, sizeof *lp);
  kf__cols cm;
  if (!lp || kf__cols_build(p, &cm)) {
    free(lp);
    return KF_ENOMEM;
  }
  if (!(lp->m = kf__cbc->lp_new())) {
    kf__cols_free(&cm);
    free(lp);
    return KF_ENOMEM;
  }
  kf__cbc->lp_log_level(lp->m, 0);
  kf__cbc->lp_load(lp->m, p->ncols, p->nrows, cm.start, cm.row, cm.val, cm.lb, cm.ub,
                   p->cost, cm.rl, cm.ru);
  kf__cols_free(&cm);
  lp->ncols = p->ncols;
  lp->nrows = p->nrows;
  *out = lp;
  return 0;
}

void kf__lp_destroy(kf__lp *lp)
{
  if (!lp)
    return;
  if (lp->m)
    kf__cbc->lp_delete(lp->m);
  free(lp);
}

int kf__lp_add_rows(kf__lp *lp, int nrows, const int *start, const int *idx,
                    const char *sense, const double *rhs)
{
  if (nrows <= 0)
    return 0;
  int nnz = start[nrows] - start[0];
  int *st = malloc(sizeof(int) * (size_t)(nrows + 1));
  double *rl = malloc(sizeof(double) * (size_t)(nrows + 1));
  double *ru = malloc(sizeof(double) * (size_t)(nrows + 1));
  double *ones = malloc(sizeof(double) * (size_t)(nnz + 1));
  int *cidx = malloc(sizeof(int) * (size_t)(nnz + 1));
  int rc = KF_ENOMEM;
  if (st && rl && ru && ones && cidx) {
    /* start may be offsets into a larger array: rebase them. */
    for (int r = 0; r <= nrows; r++)
      st[r] = start[r] - start[0];
    for (int r = 0; r < nrows; r++) {
      rl[r] = sense[r] == 'E' ? rhs[r] : -DBL_MAX;
      ru[r] = rhs[r];
    }
    /* Repeats of a column in a row (consecutive) add up to its
     * coefficient. */
    int w = 0;
    for (int r = 0, from = 0; r < nrows; r++) {
      int to = st[r + 1];
      st[r] = w;
      for (int k = from; k < to; k++) {
        int c = idx[start[0] + k];
        if (w > st[r] && cidx[w - 1] == c) {
          ones[w - 1] += 1.0;
        } else {
          cidx[w] = c;
          ones[w++] = 1.0;
        }
      }
      from = to;
    }
    st[nrows] = w;
    kf__cbc->lp_add_rows(lp->m, nrows, rl, ru, st, cidx, ones);
    lp->nrows += nrows;
    rc = 0;
  }
  free(st);
  free(rl);
  free(ru);
  free(ones);
  free(cidx);
  return rc;
}


int kf__lp_solve(kf__lp *lp, long max_work, kf__lp_result_t *r)
{
  r->obj = -INFINITY;
  long per = kf__iteration_work(lp->ncols);
  kf__cbc->lp_set_max_iterations(lp->m, kf__clamp_int(max_work / per));
  int st = kf__cbc->lp_solve(lp->m);
  r->iterations = kf__cbc->lp_iterations(lp->m);
  r->work = r->iterations * per;
  if (st != 0)
    return st == 1 ? KF_EINFEASIBLE : st == 3 ? KF_ELIMIT : KF_ESOLVER;
  const double *y = kf__cbc->lp_duals(lp->m);
  const double *x = kf__cbc->lp_col_solution(lp->m);
  if ((r->dual && !y) || (r->x && !x))
    return KF_ESOLVER;
  if (r->dual)
    memcpy(r->dual, y, sizeof(double) * (size_t)lp->nrows);
  if (r->x)
    memcpy(r->x, x, sizeof(double) * (size_t)lp->ncols);
  r->obj = kf__cbc->lp_obj_value(lp->m);
  return 0;
}
