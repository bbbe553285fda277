/* The binary program of the planner, independent of the solver library:
 * minimise cost.x subject to sparse rows (= or <=), x binary. Implemented
 * by ilp_cbc.c, the one file that includes CBC's C interface. */
#ifndef KFUSE_ILP_H
#define KFUSE_ILP_H

typedef struct kf__ilp {
  int ncols;
  const double *cost;
  int nrows;
  const int *row_start; /* nrows + 1 offsets into row_idx */
  const int *row_idx;
  const char *sense;    /* 'E' (= rhs) or 'L' (<= rhs) per row */
  const double *rhs;
  const double *start;  /* optional feasible 0/1 start, or NULL */
  double time_limit;    /* seconds, > 0 */
} kf__ilp_t;

typedef struct kf__ilp_result {
  double *x;            /* caller's array of ncols */
  int has_solution;
  double obj;
  double bound;         /* proven lower bound */
} kf__ilp_result_t;

/* Returns 0 (proven optimal), KF_ETIMEDOUT (stopped by the limit; maybe a
 * solution), KF_EINFEASIBLE, KF_ESOLVER or KF_ENOMEM. */
int kf__ilp_solve(const kf__ilp_t *p, kf__ilp_result_t *r);

/* The CBC entry points ilp_cbc.c uses, as a table tests can replace. */
typedef struct kf__cbc_api {
  void *(*new_model)(void);
  void (*delete_model)(void *m);
  void (*load_problem)(void *m, int ncols, int nrows, const int *start,
                       const int *index, const double *value,
                       const double *collb, const double *colub,
                       const double *obj, const double *rowlb,
                       const double *rowub);
  void (*set_integer)(void *m, int col);
  void (*add_row)(void *m, int nz, const int *cols, const double *coefs,
                  char sense, double rhs);
  void (*set_log_level)(void *m, int level);
  void (*set_max_seconds)(void *m, double s);
  void (*set_parameter)(void *m, const char *name, const char *value);
  void (*set_mip_start)(void *m, int count, const int *cols, const double *vals);
  int (*solve)(void *m);
  int (*is_proven_optimal)(void *m);
  int (*is_proven_infeasible)(void *m);
  int (*seconds_limit_reached)(void *m);
  const double *(*col_solution)(void *m);
  double (*obj_value)(void *m);
  double (*best_possible)(void *m);
} kf__cbc_api_t;

/* Installs @p api (NULL: the real CBC) and returns the previous table. */
const kf__cbc_api_t *kf__cbc_set_api(const kf__cbc_api_t *api);

#endif
