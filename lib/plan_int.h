/* Internal declarations of libkfplan shared between its modules and the unit
 * tests: the problem's storage, the dependency DAG and the candidate groups. */
#ifndef KFUSE_PLAN_INT_H
#define KFUSE_PLAN_INT_H

#include <stdint.h>
#include <stdlib.h>
#include "kfuse/model.h"
#include "kfuse/plan.h"
#include "kfuse/profile.h"

#define KF__MAXK 8 /* largest group the solver accepts */

/* The work budget of a solve. Every search charges what it does, in units
 * that count the same on any machine: a candidate group enumerated, a move
 * of the heuristic, a state of the sweep, a node of a branch and bound, an
 * iteration of the simplex method. Where a search stops therefore depends
 * on the problem and the limit only, never on the clock, the machine's
 * load or memory addresses. */
typedef struct kf__work {
  long left;  /* units still allowed; the budget is spent at 0 or below */
  long spent; /* units charged so far */
} kf__work;

/* Charges @p units; returns nonzero once the budget is spent. */
static inline int kf__work_charge(kf__work *w, long units)
{
  w->spent += units;
  w->left -= units;
  return w->left <= 0;
}
static inline int kf__work_out(const kf__work *w) { return w->left <= 0; }

typedef struct kf__buffer {
  char *name;
  int dead_after;
  int in_registers; /* carried in registers: never staged */
  int users; /* launches that access it */
} kf__buffer;

typedef struct kf__access {
  int buffer;
  int mode;
  double bytes;
  char *psi;
  int halo; /* instances of other blocks read per block (kf_problem_set_halo) */
} kf__access;

typedef struct kf__variant {
  char *name;
  int tpi, ipb, block, regs, smem, tie_rank;
  double flops;
  char *psi_compute;
} kf__variant;

typedef struct kf__launch {
  char *name;
  double instances;
  kf__variant *var;
  int nvar, capvar;
  kf__access *acc;
  int nacc, capacc;
} kf__launch;

typedef struct kf__psi {
  char *routine;
  int ipb, smem;
  double seconds;
} kf__psi;

struct kf_problem {
  kf__launch *l;
  int nl, capl;
  kf__buffer *b;
  int nb, capb;
  kf__psi *psi;
  int npsi, cappsi;
  kf_legal_fn legal;
  void *legal_user;
  kf_legal_variants_fn legal_variants;
  void *legal_variants_user;
  int consecutive; /* only groups of consecutive launches may fuse */
  int fused_block; /* threads of a fused block, members looping; 0: ipb x max tpi */
  void *owned_rules; /* legality rules of a parsed file, freed with the problem */
  void (*free_rules)(void *);
};

/* Grows *arr (of *cap elements of size sz) to hold at least need; 0 or KF_ENOMEM. */
int kf__grow(void **arr, int *cap, int need, size_t sz);
char *kf__strdup(const char *s);
/* The variant of launch l, a default one if the launch has none. */
const kf__variant *kf__variant_of(const kf_problem *p, int l, int v);
int kf__variant_count(const kf_problem *p, int l);

/* The dependency DAG with transitive reachability as bitsets. */
typedef struct kf__dag {
  int n, words;
  int nedges;
  int *efrom, *eto, *ekind;  /* sorted by (from, to), kinds merged */
  int *succ_start, *succ;    /* CSR of successors */
  int *nb_start, *nb;        /* CSR of neighbours: deps either way + shared buffers */
  uint64_t *desc, *anc;      /* n x words: strict descendants / ancestors */
} kf__dag;

int kf__dag_build(const kf_problem *p, kf__dag *d);
/* Nonzero if launch u reaches launch v (v is a strict descendant). */
static inline int kf__reaches(const kf__dag *d, int u, int v)
{
  return (int)(d->desc[(size_t)u * (size_t)d->words + (size_t)v / 64] >> (v % 64) & 1);
}
void kf__dag_free(kf__dag *d);
/* Nonzero if no path leaves members[0..n) and re-enters it. */
int kf__dag_convex(const kf__dag *d, const int *members, int n, uint64_t *scratch);

/* Linearisation: the order of members[0..n) that respects the DAG and
 * minimises the peak staging memory per instance; order receives it,
 * *peak the peak. Returns 0 or KF_EINVAL. */
int kf__linearize(const kf_problem *p, const kf__dag *d, const int *members,
                  int n, int *order, int *peak);

/* Staging intervals of an ordered group: buffer i lives from step start[i]
 * to end[i] (inclusive) and needs size[i] bytes per instance. */
int kf__staging_intervals(const kf_problem *p, const int *order, int n,
                          int *start, int *end, int *size, int max);
/* Shared-memory allocation by branch and bound: offsets for the intervals
 * such that buffers live at the same time do not overlap, minimising the
 * extent; returns the extent (bytes per instance). */
int kf__allocate(const int *start, const int *end, const int *size, int m,
                 int *offset);
/* Peak of the sum of live sizes: the allocation's lower bound. */
int kf__live_peak(const int *start, const int *end, const int *size, int m);

/* A candidate group with its best order, variants and cost. */
typedef struct kf__cand {
  int n;
  int members[KF__MAXK]; /* ascending */
  int order[KF__MAXK];
  int variants[KF__MAXK];
  double cost;
  int tie; /* the variants' tie ranks, summed (kf_variant_t.tie_rank) */
  kf_estimate_t est;
} kf__cand;

typedef struct kf__cands {
  kf__cand *c;
  int n, cap;
  int enumerated; /* profitable groups found, before dominance pruning */
  int truncated;  /* the work budget stopped the enumeration of groups that
                     are not consecutive: some may be missing */
  int *single;    /* index of the singleton candidate of each launch */
} kf__cands;

/* Enumerates convex, legal groups of up to k launches, consecutive or
 * connected (a consecutive run of launches that share nothing is a
 * horizontal group), costs them (a group of several launches in each of its
 * alts cheapest variant assignments, a candidate each: the k best plans may
 * differ in assignments alone; a singleton in its cheapest)
 * and keeps singletons plus groups cheaper than their launches alone, then
 * drops groups that cost at least as much as a refinement into smaller
 * groups ordered acyclically inside them (the optimum is unchanged).
 * Consecutive groups (launches i..j) come first and always completely, so
 * kf__consecutive_best has all it needs; the other groups (none where the
 * problem admits consecutive groups only) are enumerated while @p w lasts,
 * one unit per connected set visited, and out->truncated says whether it
 * ran out. */
int kf__cands_build(const kf_problem *p, const kf__dag *d, const kf_model *m,
                    int k, int alts, kf__work *w, kf__cands *out);
void kf__cands_free(kf__cands *c);
/* Costs one group (members ascending) into c; c->cost INFINITY if it cannot run. */
int kf__cand_eval(const kf_problem *p, const kf__dag *d, const kf_model *m,
                  const int *members, int n, kf__cand *c);
/* The same with its variant assignments: the up to @p alts cheapest legal
 * ones (by cost; of equal costs, the first in the odometer's order, the
 * variant of the last launch of the linearised order most significant)
 * into c[0..*nc); *nc is 1 with c[0].cost INFINITY where none can run. */
int kf__cand_eval_alts(const kf_problem *p, const kf__dag *d, const kf_model *m,
                       const int *members, int n, int alts, kf__cand *c, int *nc);

/* Quotient check: chosen[0..nc) candidate indices partition the launches.
 * Returns 1 and fills cycle (candidate indices, *clen) if the group graph has
 * a cycle; 0 if acyclic and then topo receives a legal group order. */
int kf__quotient_cycle(const kf__dag *d, const kf__cands *c, const int *chosen,
                       int nc, int *cycle, int *clen, int *topo);

/* Rows of the binary program over the candidates (columns): coefficients 1
 * (a column listed t times in a row, consecutively, has coefficient t),
 * sense 'E' (= rhs) or 'L' (<= rhs). */
typedef struct kf__rows {
  int *start, *idx;
  char *sense;
  double *rhs;
  int n, nnz, capr, capi, caps, caprhs;
} kf__rows;

int kf__row_add(kf__rows *r, const int *cols, int n, char sense, double rhs);
/* A launch pair and the value of the groups holding it together. */
typedef struct kf__pair {
  int a, b;
  double t;
} kf__pair;
/* The launch pairs that groups with x > 0 hold together, each once with
 * the sum of those groups' x, sorted by (a, b): both orders if ordered,
 * else a < b. *out is malloc'ed; returns the count or KF_ENOMEM. */
int kf__held_pairs(const kf__cands *c, const double *x, int ordered, kf__pair **out);
void kf__rows_free(kf__rows *r);
/* One row per launch, listing the candidates that hold it (= 1). */
int kf__partition_rows(const kf__cands *c, int n, kf__rows *rows);
/* The cut against the cycle cyc[0..clen) of a plan's group graph, lifted to
 * every plan whose groups keep the launches that make the cycle together
 * (cuts.c explains). part: the partition rows. Writes the row's columns to
 * cols (room for every candidate), its right-hand side is *nterms - 1;
 * returns the column count, or 0 if the cycle cannot be lifted. */
int kf__cycle_cut(const kf__dag *d, const kf__cands *c, const kf__rows *part,
                  const int *cyc, int clen, int *cols, int *nterms);
/* Append rows (at most max) violated by a solution x of the relaxation:
 * two-term cycle rows, and clique rows of pairwise overlapping groups.
 * rows must start with the partition rows. Return the count or KF_ENOMEM. */
int kf__separate_pairs(const kf__dag *d, const kf__cands *c, kf__rows *rows,
                       const double *x, int *cols, int max);
int kf__separate_cliques(const kf__cands *c, kf__rows *rows, const double *x,
                         int *cols, int max);
/* Appends odd-cycle rows (at most max) violated by a solution x of the
 * relaxation: {0, 1/2} cuts over the rows with right-hand side 1 that
 * neighbours on an odd cycle of fractional groups share (oddcycle.c).
 * Returns the count or KF_ENOMEM. */
int kf__separate_odd_cycles(const kf__cands *c, kf__rows *rows, const double *x,
                            int *cols, int max);
/* A binary heap of (distance, node) for Dijkstra with lazy deletion; the
 * caller sizes key and node for every push. */
typedef struct kf__heap {
  double *key;
  int *node;
  int n;
} kf__heap;
void kf__heap_push(kf__heap *h, double k, int v);
/* Pops the node of least key (n > 0), its key in *k. */
int kf__heap_pop(kf__heap *h, double *k);

/* The columns of the cycle row with terms (in[i], out[i]), i < m (cuts.c,
 * kf__cycle_cut, says why it holds): per term, the groups holding both its
 * launches and none of another term's. part: the partition rows. Writes
 * them to cols and returns their count; the right-hand side is m - 1. */
int kf__terms_row(const kf__cands *c, const kf__rows *part, const int *in,
                  const int *out, int m, int *cols);
/* Appends cycle rows of any number of terms (at most max) violated by a
 * solution x of the relaxation (cycles.c). rows must start with the
 * partition rows. Returns the count or KF_ENOMEM. */
int kf__separate_cycles(const kf__dag *d, const kf__cands *c, kf__rows *rows,
                        const double *x, int *cols, int max);

/* Greedy + local search, charging one unit per move it tries to @p w
 * (stopping when it is spent). chosen receives candidate indices, returns
 * their count. */
int kf__heuristic(const kf__dag *d, const kf__cands *c, kf__work *w,
                  unsigned seed, int *chosen, double *cost);
/* Seconds on a monotonic clock, for reports (kf_plan_stats, traces) only:
 * no decision of the planner reads it. */
double kf__now(void);

/* The cheapest partition of launches 0..n-1 into consecutive groups (in
 * launch order) among the candidates, and up to k - 1 next-cheapest ones:
 * a dynamic program over the prefixes of the sequence, O(n * max group *
 * k). Such a partition is always acyclic (every dependency points forward)
 * and exists (each launch alone is a candidate). Plan i goes to chosen[i *
 * n ..] (candidate indices in launch order), nc[i] groups, cost best[i];
 * *found receives how many there are (at most k). 0 or KF_ENOMEM. */
int kf__consecutive_best(const kf__cands *c, int n, int k, int *chosen, int *nc,
                         double *best, int *found);

/* A plan under construction: the alternatives found so far and what the
 * solve reports. */
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
  kf_plan_stats_t st;
};

/* Appends the partition chosen[0..nc) (candidate indices) as the next
 * alternative, its groups in the acyclic order topo. 0 or KF_ENOMEM. */
int kf__plan_add(kf_plan *pl, const kf__cands *c, const int *chosen,
                 const int *topo, int nc);

/* The exact search (exact.c) from the heuristic plan hchosen[0..*nh) of cost
 * *hcost seconds, which it replaces by any cheaper acyclic plan it finds.
 * Adds up to k_best plans to pl and raises pl->bound. Returns 0 when they
 * are proven, KF_ELIMIT when @p w is spent (the best plan known is added,
 * pl->heuristic says whether it is still the heuristic's), KF_EINFEASIBLE,
 * KF_ESOLVER or KF_ENOMEM. */
int kf__exact(const kf__dag *d, const kf__cands *c, int k_best, kf__work *w,
              int *hchosen, int *nh, double *hcost, kf_plan *pl);

/* The sweep (sweep.c): an exact search by dynamic programming over the
 * launches in program order, pruned by reduced costs, for the k best
 * plans. rc: reduced costs from duals of rows that every acyclic partition
 * satisfies, with the bound L they give (cost.x >= L + sum of max(rc, 0)
 * over the chosen groups, see exact.c). Whenever the k-th best acyclic plan
 * (or, with fewer plans, every plan) costs less than L + limit, the sweep
 * returns the k best, cheapest first; any plan it returns is acyclic with
 * reduced costs summing below limit; so every plan it does not return
 * costs at least the smaller of its last plan's cost and L + limit.
 * Returns 0 with *found plans: plan i in chosen[i * n ..] (n launches),
 * nc[i] groups, cost best[i]; 1 when its states would take more than
 * kf__sweep_max_bytes; KF_ELIMIT when @p w is spent (one unit per state
 * expanded); KF_ENOMEM. *states: the states it expanded. */
int kf__sweep(const kf__dag *d, const kf__cands *c, const double *cost, const double *rc,
              double limit, int k, kf__work *w, int *chosen, int *nc, double *best,
              int *found, long *states);
/* Memory the sweep's states may take (tests set 0 to reach the other
 * searches). */
#define KF__SWEEP_BYTES ((size_t)256 << 20)
extern size_t kf__sweep_max_bytes;

/* The lines of a text, for the file readers (text.c): the same limits and
 * errors for every format. */
typedef struct kf__lines {
  const char *text;
  size_t len, pos;
  int line; /* number of the line last returned, from 1 */
} kf__lines;
/* The longest line the readers take, newline excluded. */
#define KF__LINE_MAX 4095
/* Copies the next line into buf (cap bytes, > KF__LINE_MAX) without its
 * newline (or CRLF) and comment (from '#'). Returns 1, 0 at the end of the
 * text, or KF_EPARSE with "line N: reason" in err for a line too long or
 * one holding a NUL byte. */
int kf__lines_next(kf__lines *l, char *buf, size_t cap, char *err, size_t errlen);
/* Writes "line N: " (when line > 0) and the printf-formatted reason. */
void kf__text_error(char *err, size_t errlen, int line, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Every number of @p p within the range a profile file may give it, and
 * shared_per_block at most shared_per_sm: 0, or KF_ERANGE with the key in
 * err. The model takes no other profile, so no absurd device number
 * reaches the solvers. */
int kf__profile_check(const kf_profile_t *p, char *err, size_t errlen);

/* Reads a whole file; *text is malloc'd. 0, KF_EIO or KF_ENOMEM. */
int kf__read_file(const char *path, char **text, size_t *len);
/* Reads @p path and hands its text to @p parse (kf_problem_parse or
 * kf_profile_parse behind a small adapter); "PATH: cannot read" in @p err
 * when it cannot be read. */
int kf__load_file(const char *path, char *err, size_t errlen,
                  int (*parse)(void *obj, const char *text, size_t len, char *err, size_t errlen),
                  void *obj);

#endif
