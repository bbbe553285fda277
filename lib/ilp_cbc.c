/* The binary program solved by COIN-OR CBC, its relaxation by Clp, both
 * through their C interfaces. The only file that includes them; the calls go
 * through a table so unit tests can fake the solvers (time-outs, failures). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <coin/Cbc_C_Interface.h>
#include <coin/Clp_C_Interface.h>
#include "kfuse/error.h"
#include "ilp.h"

static void *kf__c_new(void) { return Cbc_newModel(); }
static void kf__c_delete(void *m) { Cbc_deleteModel(m); }
static void kf__c_load(void *m, int nc, int nr, const int *st, const int *ix,
                       const double *v, const double *cl, const double *cu,
                       const double *o, const double *rl, const double *ru)
{
  Cbc_loadProblem(m, nc, nr, (const CoinBigIndex *)st, ix, v, cl, cu, o, rl, ru);
}
static void kf__c_int(void *m, int c) { Cbc_setInteger(m, c); }
static void kf__c_row(void *m, int nz, const int *c, const double *v, char s, double r)
{
  Cbc_addRow(m, "", nz, c, v, s, r);
}
static void kf__c_log(void *m, int l) { Cbc_setLogLevel(m, l); }
static void kf__c_secs(void *m, double s) { Cbc_setMaximumSeconds(m, s); }
static void kf__c_param(void *m, const char *k, const char *v) { Cbc_setParameter(m, k, v); }
static int kf__c_solve(void *m) { return Cbc_solve(m); }
static int kf__c_opt(void *m) { return Cbc_isProvenOptimal(m); }
static int kf__c_inf(void *m) { return Cbc_isProvenInfeasible(m); }
static int kf__c_tl(void *m) { return Cbc_isSecondsLimitReached(m); }
static int kf__c_nl(void *m) { return Cbc_isNodeLimitReached(m); }
static const double *kf__c_sol(void *m) { return Cbc_getColSolution(m); }
static double kf__c_obj(void *m) { return Cbc_getObjValue(m); }
static double kf__c_bound(void *m) { return Cbc_getBestPossibleObjValue(m); }
static void *kf__l_new(void) { return Clp_newModel(); }
static void kf__l_delete(void *m) { Clp_deleteModel(m); }
static int kf__l_load(void *m, int nc, const double *obj, int nr, const double *rl,
                       const double *ru, const int *st, const int *ix, const double *v)
{
  /* Clp takes the matrix by columns. */
  int nnz = st[nr];
  CoinBigIndex *cst = calloc((size_t)nc + 2, sizeof(CoinBigIndex));
  int *rows = malloc(sizeof(int) * (size_t)(nnz + 1));
  double *val = malloc(sizeof(double) * (size_t)(nnz + 1));
  double *lb = calloc((size_t)nc + 1, sizeof(double));
  double *ub = malloc(sizeof(double) * (size_t)(nc + 1));
  int rc = KF_ENOMEM;
  if (cst && rows && val && lb && ub) {
    rc = 0;
    for (int k = 0; k < nnz; k++)
      cst[ix[k] + 2]++;
    for (int c = 0; c < nc; c++) {
      cst[c + 2] += cst[c + 1];
      ub[c] = 1.0;
    }
    for (int r = 0; r < nr; r++)
      for (int k = st[r]; k < st[r + 1]; k++) {
        rows[cst[ix[k] + 1]] = r;
        val[cst[ix[k] + 1]++] = v[k];
      }
    Clp_loadProblem(m, nc, nr, cst, rows, val, lb, ub, obj, rl, ru);
  }
  free(cst);
  free(rows);
  free(val);
  free(lb);
  free(ub);
  return rc;
}
static int kf__l_add_rows(void *m, int nr, const double *rl, const double *ru,
                          const int *st, const int *ix, const double *v)
{
  CoinBigIndex *rst = malloc(sizeof(CoinBigIndex) * (size_t)(nr + 1));
  if (!rst)
    return KF_ENOMEM;
  for (int r = 0; r <= nr; r++)
    rst[r] = st[r];
  Clp_addRows(m, nr, rl, ru, rst, ix, v);
  free(rst);
  return 0;
}
static void kf__l_bounds(void *m, const double *lo, const double *hi)
{
  Clp_chgColumnLower(m, lo);
  Clp_chgColumnUpper(m, hi);
}
static void kf__l_log(void *m, int l) { Clp_setLogLevel(m, l); }
static void kf__l_secs(void *m, double s) { Clp_setMaximumSeconds(m, s); }
static int kf__l_solve(void *m)
{
  Clp_dual(m, 0);
  return Clp_status(m);
}
static double kf__l_obj(void *m) { return Clp_objectiveValue(m); }
static const double *kf__l_duals(void *m) { return Clp_getRowPrice(m); }
static const double *kf__l_sol(void *m) { return Clp_getColSolution(m); }

static const kf__cbc_api_t kf__cbc_real = {
  kf__c_new, kf__c_delete, kf__c_load, kf__c_int, kf__c_row, kf__c_log,
  kf__c_secs, kf__c_param, kf__c_solve, kf__c_opt, kf__c_inf, kf__c_tl, kf__c_nl,
  kf__c_sol, kf__c_obj, kf__c_bound,
  kf__l_new, kf__l_delete, kf__l_load, kf__l_add_rows, kf__l_bounds, kf__l_log, kf__l_secs,
  kf__l_solve, kf__l_obj, kf__l_duals, kf__l_sol,
};
static const kf__cbc_api_t *kf__cbc = &kf__cbc_real;

const kf__cbc_api_t *kf__cbc_set_api(const kf__cbc_api_t *api)
{
  const kf__cbc_api_t *old = kf__cbc;
  kf__cbc = api ? api : &kf__cbc_real;
  return old;
}

/* Checks x against the rows: CBC may return a point on time-out that is not
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

int kf__ilp_solve(const kf__ilp_t *p, kf__ilp_result_t *r)
{
  r->has_solution = 0;
  r->node_limited = 0;
  r->obj = INFINITY;
  r->bound = -INFINITY;
  void *m = kf__cbc->new_model();
  if (!m)
    return KF_ENOMEM;
  int rc = KF_ENOMEM;
  int *start = calloc((size_t)p->ncols + 1, sizeof(int));
  double *lb = calloc((size_t)p->ncols + 1, sizeof(double));
  double *ub = malloc(sizeof(double) * (size_t)(p->ncols + 1));
  double *ones = malloc(sizeof(double) * (size_t)(p->ncols + 1));
  int *idx = malloc(sizeof(int) * (size_t)(p->ncols + 1));
  if (!start || !lb || !ub || !ones || !idx)
    goto out;
  for (int c = 0; c < p->ncols; c++)
    ub[c] = 1.0, ones[c] = 1.0;
  kf__cbc->set_log_level(m, 0);
  kf__cbc->load_problem(m, p->ncols, 0, start, idx, ones, lb, ub, p->cost, NULL, NULL);
  for (int c = 0; c < p->ncols; c++)
    kf__cbc->set_integer(m, c);
  for (int row = 0; row < p->nrows; row++) {
    int b = p->row_start[row], nz = p->row_start[row + 1] - b;
    kf__cbc->add_row(m, nz, p->row_idx + b, ones, p->sense[row], p->rhs[row]);
  }
  /* CBC's own primal heuristics cost more than they find here. The caller
   * knows a plan and asks only for cheaper ones: a cutoff prunes more than a
   * start would (CBC 2.10 also drops starts that its preprocessing changes). */
  kf__cbc->set_parameter(m, "heuristics", "off");
  if (isfinite(p->cutoff)) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", p->cutoff);
    kf__cbc->set_parameter(m, "cutoff", buf);
  }
  if (p->max_nodes > 0) {
    char buf[32];
    snprintf(buf, sizeof buf, "%d", p->max_nodes);
    kf__cbc->set_parameter(m, "maxNodes", buf);
  }
  kf__cbc->set_max_seconds(m, p->time_limit > 0.01 ? p->time_limit : 0.01);
  int st = kf__cbc->solve(m);
  int limited = st != 0 && (kf__cbc->seconds_limit_reached(m) || kf__cbc->node_limit_reached(m));
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
    r->node_limited = !kf__cbc->seconds_limit_reached(m) && kf__cbc->node_limit_reached(m);
    rc = KF_ETIMEDOUT;
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
  free(start);
  free(lb);
  free(ub);
  free(ones);
  free(idx);
  return rc;
}

struct kf__lp {
  void *m;
  int ncols, nrows;
};

/* Row limits of 'E' and 'L' rows, and coefficients of 1. */
static int kf__lp_rows(int nrows, const int *start, const char *sense, const double *rhs,
                       double **rl, double **ru, double **ones)
{
  int nnz = start[nrows];
  *rl = malloc(sizeof(double) * (size_t)(nrows + 1));
  *ru = malloc(sizeof(double) * (size_t)(nrows + 1));
  *ones = malloc(sizeof(double) * (size_t)(nnz + 1));
  if (!*rl || !*ru || !*ones) {
    free(*rl);
    free(*ru);
    free(*ones);
    return KF_ENOMEM;
  }
  for (int row = 0; row < nrows; row++) {
    (*rl)[row] = sense[row] == 'E' ? rhs[row] : -DBL_MAX;
    (*ru)[row] = rhs[row];
  }
  for (int k = 0; k < nnz; k++)
    (*ones)[k] = 1.0;
  return 0;
}

int kf__lp_create(const kf__ilp_t *p, kf__lp **out)
{
  *out = NULL;
  if (!kf__cbc->lp_new)
    return KF_ESOLVER;
  kf__lp *lp = calloc(1, sizeof *lp);
  double *rl, *ru, *ones;
  if (!lp || kf__lp_rows(p->nrows, p->row_start, p->sense, p->rhs, &rl, &ru, &ones)) {
    free(lp);
    return KF_ENOMEM;
  }
  int rc = KF_ENOMEM;
  if ((lp->m = kf__cbc->lp_new()) != NULL) {
    kf__cbc->lp_log_level(lp->m, 0);
    rc = kf__cbc->lp_load(lp->m, p->ncols, p->cost, p->nrows, rl, ru, p->row_start,
                          p->row_idx, ones);
  }
  free(rl);
  free(ru);
  free(ones);
  if (rc) {
    kf__lp_destroy(lp);
    return rc;
  }
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
  double *rl, *ru, *ones;
  if (nrows <= 0)
    return 0;
  if (kf__lp_rows(nrows, start, sense, rhs, &rl, &ru, &ones))
    return KF_ENOMEM;
  /* start may be offsets into a larger array: rebase them. */
  int *st = malloc(sizeof(int) * (size_t)(nrows + 1));
  if (!st) {
    free(rl);
    free(ru);
    free(ones);
    return KF_ENOMEM;
  }
  for (int r = 0; r <= nrows; r++)
    st[r] = start[r] - start[0];
  int rc = kf__cbc->lp_add_rows(lp->m, nrows, rl, ru, st, idx + start[0], ones);
  if (!rc)
    lp->nrows += nrows;
  free(st);
  free(rl);
  free(ru);
  free(ones);
  return rc;
}

void kf__lp_set_bounds(kf__lp *lp, const double *lower, const double *upper)
{
  kf__cbc->lp_set_col_bounds(lp->m, lower, upper);
}

int kf__lp_solve(kf__lp *lp, double time_limit, kf__lp_result_t *r)
{
  r->obj = -INFINITY;
  kf__cbc->lp_set_max_seconds(lp->m, time_limit > 0.01 ? time_limit : 0.01);
  int st = kf__cbc->lp_solve(lp->m);
  if (st != 0)
    return st == 1 ? KF_EINFEASIBLE : st == 3 ? KF_ETIMEDOUT : KF_ESOLVER;
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
