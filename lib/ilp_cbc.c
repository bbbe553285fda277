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
static const unsigned char *kf__l_status(void *m)
{
  return Clp_statusExists(m) ? Clp_statusArray(m) : NULL;
}
static void kf__l_set_status(void *m, const unsigned char *st) { Clp_copyinStatus(m, st); }
static void kf__l_cutoff(void *m, double limit) { Clp_setDualObjectiveLimit(m, limit); }

static const kf__cbc_api_t kf__cbc_real = {
  kf__c_new, kf__c_delete, kf__c_load, kf__c_int, kf__c_log, kf__c_secs, kf__c_param,
  kf__c_solve, kf__c_opt, kf__c_inf, kf__c_tl, kf__c_nl, kf__c_sol, kf__c_obj, kf__c_bound,
  kf__l_new, kf__l_delete, kf__l_load, kf__l_add_rows, kf__l_bounds, kf__l_log, kf__l_secs,
  kf__l_solve, kf__l_obj, kf__l_duals, kf__l_sol, kf__l_status, kf__l_set_status,
  kf__l_cutoff,
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
  if (p->max_nodes > 0) {
    char buf[32];
    snprintf(buf, sizeof buf, "%d", p->max_nodes);
    kf__cbc->set_parameter(m, "maxNodes", buf);
  }
  if (p->root_passes > 0) {
    char buf[32];
    snprintf(buf, sizeof buf, "%d", p->root_passes);
    kf__cbc->set_parameter(m, "passCuts", buf);
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
  return rc;
}

struct kf__lp {
  void *m;
  int ncols, nrows;
};

int kf__lp_create(const kf__ilp_t *p, kf__lp **out)
{
  *out = NULL;
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

unsigned char *kf__lp_basis(kf__lp *lp, int *n)
{
  *n = lp->ncols + lp->nrows;
  const unsigned char *st = kf__cbc->lp_status ? kf__cbc->lp_status(lp->m) : NULL;
  unsigned char *b = st ? malloc((size_t)*n) : NULL;
  if (b)
    memcpy(b, st, (size_t)*n);
  return b;
}

void kf__lp_set_basis(kf__lp *lp, const unsigned char *basis, int n)
{
  int all = lp->ncols + lp->nrows;
  unsigned char *st = basis && kf__cbc->lp_set_status && n <= all ? malloc((size_t)all) : NULL;
  if (!st)
    return;
  memcpy(st, basis, (size_t)n);
  memset(st + n, 1, (size_t)(all - n)); /* the new rows' slacks: basic */
  kf__cbc->lp_set_status(lp->m, st);
  free(st);
}

void kf__lp_set_cutoff(kf__lp *lp, double limit)
{
  if (kf__cbc->lp_set_cutoff)
    kf__cbc->lp_set_cutoff(lp->m, limit);
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
