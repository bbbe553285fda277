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

typedef struct kf__buffer {
  char *name;
  int dead_after;
  int users; /* launches that access it */
} kf__buffer;

typedef struct kf__access {
  int buffer;
  int mode;
  double bytes;
  char *psi;
} kf__access;

typedef struct kf__variant {
  char *name;
  int tpi, ipb, block, regs, smem;
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
  kf_estimate_t est;
} kf__cand;

typedef struct kf__cands {
  kf__cand *c;
  int n, cap;
  int *single;   /* index of the singleton candidate of each launch */
} kf__cands;

/* Enumerates connected, convex, legal groups of up to k launches, costs them
 * and keeps singletons plus groups cheaper than their launches alone. */
int kf__cands_build(const kf_problem *p, const kf__dag *d, const kf_model *m,
                    int k, kf__cands *out);
void kf__cands_free(kf__cands *c);
/* Costs one group (members ascending) into c; c->cost INFINITY if it cannot run. */
int kf__cand_eval(const kf_problem *p, const kf__dag *d, const kf_model *m,
                  const int *members, int n, kf__cand *c);

/* Quotient check: chosen[0..nc) candidate indices partition the launches.
 * Returns 1 and fills cycle (candidate indices, *clen) if the group graph has
 * a cycle; 0 if acyclic and then topo receives a legal group order. */
int kf__quotient_cycle(const kf__dag *d, const kf__cands *c, const int *chosen,
                       int nc, int *cycle, int *clen, int *topo);

/* Greedy + local search under a deadline (seconds since an arbitrary epoch,
 * see kf__now). chosen receives candidate indices, returns their count. */
int kf__heuristic(const kf__dag *d, const kf__cands *c, double deadline,
                  unsigned seed, int *chosen, double *cost);
double kf__now(void);
/* Reads a whole file; *text is malloc'd. 0, KF_EIO or KF_ENOMEM. */
int kf__read_file(const char *path, char **text, size_t *len);

#endif
