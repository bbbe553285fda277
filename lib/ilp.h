/* The binary program of the planner, independent of the solver library:
 * minimise cost.x subject to sparse rows (= or <=), x binary, and its linear
 * relaxation. Implemented by ilp_cbc.c, the one file that includes the
 * interfaces of CBC and of its LP solver, Clp. */
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
  long max_work;        /* work CBC may spend, > 0: each branch-and-bound
                           node counts kf__ilp_node_work() units, each
                           simplex iteration one */
  double cutoff;        /* only solutions cheaper than this are wanted (then
                           KF_EINFEASIBLE means none is); INFINITY: any */
  int max_nodes;        /* branch-and-bound nodes, 0: no limit */
  int root_passes;      /* rounds of cuts at the root, 0: the solver's choice */
} kf__ilp_t;

typedef struct kf__ilp_result {
  double *x;            /* caller's array of ncols */
  int has_solution;
  double obj;
  double bound;         /* proven lower bound */
  int node_limited;     /* stopped by max_nodes, not by max_work */
  long work;            /* work CBC spent, counted as for max_work */
} kf__ilp_result_t;

/* Units a node of CBC's branch and bound counts for: 10 plus the program's
 * columns and rows (it re-solves the relaxation and runs cut and branching
 * rounds over all of them). */
long kf__ilp_node_work(const kf__ilp_t *p);
/* Units a simplex iteration over @p ncols columns counts for: 1 per 1024
 * columns begun (an iteration prices every column), so the budget bounds
 * the time of a relaxation over a million candidate groups as it does one
 * over a thousand. */
long kf__iteration_work(int ncols);

/* Largest magnitude of a cost or right-hand side handed to the solvers:
 * past it their tolerances, which are absolute, lose meaning (and Clp
 * aborts on some such programs). Costs reach them in microseconds. */
#define KF__ILP_MAX_VALUE 1e15

/* Returns 0 (proven optimal), KF_ELIMIT (stopped by the work or node
 * limit; maybe a solution), KF_EINFEASIBLE, KF_ERANGE (a cost or
 * right-hand side not finite or beyond KF__ILP_MAX_VALUE), KF_ESOLVER or
 * KF_ENOMEM. CBC runs on one thread with fixed random seeds: the same
 * program and limits give the same answer on any machine. */
int kf__ilp_solve(const kf__ilp_t *p, kf__ilp_result_t *r);

/* The linear relaxation (0 <= x <= 1) of the same program, kept across
 * solves: rows can be added and column bounds changed, and each solve starts
 * from the last basis. A solve gives the optimum, a solution and the row
 * duals (cost = reduced cost + duals . column); the caller turns duals into
 * a bound itself, so their accuracy only affects how tight it is. */
typedef struct kf__lp kf__lp;

typedef struct kf__lp_result {
  double *x;            /* caller's array of ncols, or NULL */
  double *dual;         /* caller's array of nrows (all rows so far), or NULL */
  double obj;
  long iterations;
  long work;            /* iterations * kf__iteration_work(columns) */
} kf__lp_result_t;

/* Loads the relaxation of p (its max_work, cutoff and max_nodes are not
 * used). Returns 0, KF_ENOMEM, KF_ERANGE (as kf__ilp_solve), or KF_ESOLVER
 * when no LP solver is available. */
int kf__lp_create(const kf__ilp_t *p, kf__lp **out);
void kf__lp_destroy(kf__lp *lp);
/* Appends rows (same form as kf__ilp_t's). 0 or KF_ENOMEM. */
int kf__lp_add_rows(kf__lp *lp, int nrows, const int *start, const int *idx,
                    const char *sense, const double *rhs);
/* Runs simplex iterations worth at most @p max_work units (> 0; at least
 * one iteration). Returns 0 (optimal), KF_ELIMIT, KF_EINFEASIBLE or
 * KF_ESOLVER; the result is filled only on 0, except r->iterations and
 * r->work, what was spent, always. */
int kf__lp_solve(kf__lp *lp, long max_work, kf__lp_result_t *r);

/* The CBC and Clp entry points ilp_cbc.c uses, as a table tests can replace.
 * The lp_ entries may be NULL: kf__lp_create then answers KF_ESOLVER. */
typedef struct kf__cbc_api {
  void *(*new_model)(void);
  void (*delete_model)(void *m);
  /* The matrix by columns (start: ncols + 1 offsets), column and row limits */
  void (*load_problem)(void *m, int ncols, int nrows, const int *start,
                       const int *index, const double *value,
                       const double *collb, const double *colub,
                       const double *obj, const double *rowlb,
                       const double *rowub);
  void (*set_integer)(void *m, int col);
  void (*set_log_level)(void *m, int level);
  void (*set_max_nodes)(void *m, int nodes);
  void (*set_parameter)(void *m, const char *name, const char *value);
  int (*solve)(void *m);
  int (*is_proven_optimal)(void *m);
  int (*is_proven_infeasible)(void *m);
  int (*node_limit_reached)(void *m);
  int (*node_count)(void *m);
  int (*iteration_count)(void *m);
  const double *(*col_solution)(void *m);
  double (*obj_value)(void *m);
  double (*best_possible)(void *m);
  void *(*lp_new)(void);
  void (*lp_delete)(void *m);
  /* as load_problem */
  void (*lp_load)(void *m, int ncols, int nrows, const int *start, const int *index,
                  const double *value, const double *collb, const double *colub,
                  const double *obj, const double *rowlb, const double *rowub);
  /* more rows, by rows (start: nrows + 1 offsets) */
  void (*lp_add_rows)(void *m, int nrows, const double *rowlb, const double *rowub,
                      const int *start, const int *index, const double *value);
  void (*lp_log_level)(void *m, int level);
  void (*lp_set_max_iterations)(void *m, int iterations);
  int (*lp_iterations)(void *m); /* of the last solve */
  int (*lp_solve)(void *m);     /* Clp's status: 0 optimal, 1 infeasible,
                                   3 stopped by the limit, other: failed */
  double (*lp_obj_value)(void *m);
  const double *(*lp_duals)(void *m);
  const double *(*lp_col_solution)(void *m);
} kf__cbc_api_t;

/* Installs @p api (NULL: the real CBC) and returns the previous table. */
const kf__cbc_api_t *kf__cbc_set_api(const kf__cbc_api_t *api);

#endif
