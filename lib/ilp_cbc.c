/* The binary program solved by COIN-OR CBC through its C interface. The only
 * file that includes Cbc_C_Interface.h; its calls go through a table so unit
 * tests can fake the solver (time-outs, failures). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <coin/Cbc_C_Interface.h>
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
static void kf__c_start(void *m, int n, const int *c, const double *v)
{
  Cbc_setMIPStartI(m, n, c, v);
}
static int kf__c_solve(void *m) { return Cbc_solve(m); }
static int kf__c_opt(void *m) { return Cbc_isProvenOptimal(m); }
static int kf__c_inf(void *m) { return Cbc_isProvenInfeasible(m); }
static int kf__c_tl(void *m) { return Cbc_isSecondsLimitReached(m); }
static const double *kf__c_sol(void *m) { return Cbc_getColSolution(m); }
static double kf__c_obj(void *m) { return Cbc_getObjValue(m); }
static double kf__c_bound(void *m) { return Cbc_getBestPossibleObjValue(m); }

static const kf__cbc_api_t kf__cbc_real = {
  kf__c_new, kf__c_delete, kf__c_load, kf__c_int, kf__c_row, kf__c_log,
  kf__c_secs, kf__c_param, kf__c_start, kf__c_solve, kf__c_opt, kf__c_inf, kf__c_tl,
  kf__c_sol, kf__c_obj, kf__c_bound,
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
  if (p->start) {
    int n = 0;
    for (int c = 0; c < p->ncols; c++)
      idx[n++] = c;
    kf__cbc->set_mip_start(m, n, idx, p->start);
  }
  /* CBC's own primal heuristics cost more than they find here: the caller
   * passes the heuristic's plan as the start. */
  kf__cbc->set_parameter(m, "heuristics", "off");
  kf__cbc->set_max_seconds(m, p->time_limit > 0.01 ? p->time_limit : 0.01);
  if (kf__cbc->solve(m) != 0 && !kf__cbc->seconds_limit_reached(m)) {
    rc = KF_ESOLVER;
    goto out;
  }
  const double *x = kf__cbc->col_solution(m);
  if (x && kf__feasible(p, x)) {
    memcpy(r->x, x, sizeof(double) * (size_t)p->ncols);
    r->has_solution = 1;
    r->obj = 0;
    for (int c = 0; c < p->ncols; c++)
      if (x[c] > 0.5)
        r->obj += p->cost[c];
  }
  if (kf__cbc->is_proven_optimal(m) && r->has_solution) {
    r->bound = r->obj;
    rc = 0;
  } else if (kf__cbc->is_proven_infeasible(m)) {
    rc = KF_EINFEASIBLE;
  } else if (kf__cbc->seconds_limit_reached(m)) {
    double b = kf__cbc->best_possible(m);
    r->bound = isfinite(b) ? b : -INFINITY;
    rc = KF_ETIMEDOUT;
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
