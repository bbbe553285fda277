/* Helpers shared by the planner's unit tests: random problems and the
 * brute-force optimum over all set partitions with an acyclic group order. */
#ifndef KFUSE_PLAN_TESTLIB_H
#define KFUSE_PLAN_TESTLIB_H

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "lib/plan_int.h"

/* A fresh work budget no test reaches, for the internal searches. */
static inline kf__work *tl_work(void)
{
  static kf__work w;
  w.left = KF_WORK_LIMIT_MAX;
  w.spent = 0;
  return &w;
}

static inline unsigned tl_rand(unsigned *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* n launches over m buffers with 1..3 random accesses each, 1..2 variants. */
static inline kf_problem *tl_random_problem(int n, int m, unsigned seed)
{
  kf_problem *p;
  unsigned s = seed * 747796405u + 1u;
  if (kf_problem_create(&p))
    return NULL;
  char name[32];
  for (int b = 0; b < m; b++) {
    snprintf(name, sizeof name, "b%d", b);
    kf_problem_add_buffer(p, name, tl_rand(&s) % 2, NULL);
  }
  for (int i = 0; i < n; i++) {
    int id;
    snprintf(name, sizeof name, "k%d", i);
    kf_problem_add_launch(p, name, 1 << 20, &id);
    int nv = 1 + tl_rand(&s) % 2;
    for (int v = 0; v < nv; v++) {
      kf_variant_t var = { NULL, 1 + (int)(tl_rand(&s) % 3), 0, 256,
                           16 + 8 * (int)(tl_rand(&s) % 8), 0,
                           (double)(tl_rand(&s) % 200), NULL, 0 };
      kf_problem_add_variant(p, id, &var);
    }
    int na = 1 + tl_rand(&s) % 3;
    for (int a = 0; a < na; a++)
      kf_problem_add_access(p, id, (int)(tl_rand(&s) % (unsigned)m),
                            (kf_access_mode_t)(1 + tl_rand(&s) % 3),
                            4.0 * (1 + tl_rand(&s) % 4), NULL);
  }
  return p;
}

/* An instance of the synthetic suite (kf_problem_write_synthetic) with
 * sharing sets of 2 to max_share launches: its horizontal sharing makes
 * groups that depend on each other both ways common. NULL on failure. */
static inline kf_problem *tl_synthetic_sharing(int kernels, int arrays, int max_share,
                                               unsigned seed)
{
  FILE *f = tmpfile();
  kf_problem *p = NULL;
  if (!f)
    return NULL;
  if (kf_problem_write_synthetic(f, kernels, arrays, 2, max_share, seed) == 0) {
    long len = ftell(f);
    char *text = len > 0 ? malloc((size_t)len + 1) : NULL;
    rewind(f);
    if (text && fread(text, 1, (size_t)len, f) == (size_t)len &&
        kf_problem_parse(&p, text, (size_t)len, NULL, 0) != 0)
      p = NULL;
    free(text);
  }
  fclose(f);
  return p;
}

/* A small instance of the synthetic suite, sharing sets of 2 to 4. */
static inline kf_problem *tl_synthetic(int kernels, int arrays, unsigned seed)
{
  return tl_synthetic_sharing(kernels, arrays, 4, seed);
}

/* Cost of every subset (bitmask) usable as a group, INFINITY otherwise. */
static inline int tl_connected(const kf__dag *d, unsigned mask)
{
  unsigned seen = mask & (~mask + 1), grow = 1;
  while (grow) {
    grow = 0;
    for (int v = 0; v < d->n; v++)
      if (seen >> v & 1)
        for (int q = d->nb_start[v]; q < d->nb_start[v + 1]; q++)
          if ((mask >> d->nb[q] & 1) && !(seen >> d->nb[q] & 1))
            seen |= 1u << d->nb[q], grow = 1;
  }
  return seen == mask;
}

typedef struct tl_bf {
  const kf__dag *d;
  double *cost;   /* per mask */
  int n;
  unsigned blocks[16];
  int nblocks;
  double best;
} tl_bf;

static inline int tl_acyclic(tl_bf *b)
{
  /* Quotient graph on blocks; repeatedly remove blocks with no incoming edge. */
  unsigned alive = (1u << b->nblocks) - 1;
  for (int round = 0; round < b->nblocks; round++) {
    int removed = 0;
    for (int i = 0; i < b->nblocks; i++) {
      if (!(alive >> i & 1))
        continue;
      int has_in = 0;
      for (int e = 0; e < b->d->nedges && !has_in; e++) {
        unsigned f = 1u << b->d->efrom[e], t = 1u << b->d->eto[e];
        if ((t & b->blocks[i]) && !(f & b->blocks[i]))
          for (int j = 0; j < b->nblocks; j++)
            if ((alive >> j & 1) && j != i && (f & b->blocks[j]))
              has_in = 1;
      }
      if (!has_in) {
        alive &= ~(1u << i);
        removed = 1;
      }
    }
    if (!removed)
      return alive == 0;
  }
  return 1;
}

static inline void tl_rec(tl_bf *b, unsigned left, double acc)
{
  if (acc >= b->best)
    return;
  if (!left) {
    if (tl_acyclic(b))
      b->best = acc;
    return;
  }
  unsigned low = left & (~left + 1);
  unsigned rest = left & ~low;
  /* every subset of rest joined with the lowest remaining launch */
  for (unsigned sub = rest;; sub = (sub - 1) & rest) {
    unsigned blk = sub | low;
    if (isfinite(b->cost[blk])) {
      b->blocks[b->nblocks++] = blk;
      tl_rec(b, left & ~blk, acc + b->cost[blk]);
      b->nblocks--;
    }
    if (!sub)
      break;
  }
}

/* Every partition of the launches into candidates of c, with whether its
 * group order is acyclic: fn(user, candidate indices, count, acyclic). */
typedef void (*tl_visit_fn)(void *user, const int *cands, int n, int acyclic);

typedef struct tl_walk {
  const kf__dag *d;
  const kf__cands *c;
  tl_visit_fn fn;
  void *user;
  int chosen[32], nchosen;
  int cyc[32], topo[32];
} tl_walk;

static inline unsigned tl_mask(const kf__cand *g)
{
  unsigned m = 0;
  for (int i = 0; i < g->n; i++)
    m |= 1u << g->members[i];
  return m;
}

static inline void tl_walk_rec(tl_walk *w, unsigned left)
{
  if (!left) {
    int clen;
    int cyclic = kf__quotient_cycle(w->d, w->c, w->chosen, w->nchosen, w->cyc, &clen,
                                    w->topo);
    w->fn(w->user, w->chosen, w->nchosen, cyclic == 0);
    return;
  }
  unsigned low = left & (~left + 1);
  for (int i = 0; i < w->c->n; i++) {
    unsigned m = tl_mask(&w->c->c[i]);
    if ((m & low) && (m & left) == m) {
      w->chosen[w->nchosen++] = i;
      tl_walk_rec(w, left & ~m);
      w->nchosen--;
    }
  }
}

static inline void tl_partitions(const kf__dag *d, const kf__cands *c, tl_visit_fn fn,
                                 void *user)
{
  tl_walk w;
  memset(&w, 0, sizeof w);
  w.d = d, w.c = c, w.fn = fn, w.user = user;
  tl_walk_rec(&w, (1u << d->n) - 1);
}

/* Whether the planner may group the launches of mask: connected, or
 * consecutive (a horizontal group of launches that share nothing). */
static inline int tl_groupable(const kf__dag *d, unsigned mask)
{
  unsigned low = mask & (~mask + 1);
  return ((mask + low) & mask) == 0 || tl_connected(d, mask);
}

/* Brute-force optimum of p with groups up to k under model m. */
static inline double tl_brute(const kf_problem *p, const kf_model *m, int k)
{
  kf__dag d;
  if (kf__dag_build(p, &d))
    return -1;
  int n = p->nl;
  double *cost = malloc(sizeof(double) << n);
  uint64_t scratch[3 * 4];
  for (unsigned mask = 1; mask < (1u << n); mask++) {
    int mem[32], c = 0;
    for (int v = 0; v < n; v++)
      if (mask >> v & 1)
        mem[c++] = v;
    cost[mask] = INFINITY;
    if (c > k)
      continue;
    if (c > 1 && (!tl_groupable(&d, mask) || !kf__dag_convex(&d, mem, c, scratch) ||
                  (p->legal && !p->legal(p->legal_user, mem, c))))
      continue;
    kf__cand cd;
    if (kf__cand_eval(p, &d, m, mem, c, &cd) == 0)
      cost[mask] = cd.cost;
  }
  tl_bf b = { &d, cost, n, { 0 }, 0, INFINITY };
  tl_rec(&b, (1u << n) - 1, 0.0);
  free(cost);
  kf__dag_free(&d);
  return b.best;
}

/* a -> b and c -> d; {a,d} share a large input S and {b,c} a large input T,
 * so {a,d} + {b,c} is cheapest of all, but each group then waits for the
 * other: the quotient graph has a cycle and the plan must be rejected.
 * Launch ids: a 0, c 1, b 2, d 3. */
static inline kf_problem *tl_cyclic_problem(void)
{
  kf_problem *p;
  int S, T, X, Y, O1, O2, a, b, c, d;
  kf_problem_create(&p);
  kf_problem_add_buffer(p, "S", 0, &S);
  kf_problem_add_buffer(p, "T", 0, &T);
  kf_problem_add_buffer(p, "X", 0, &X);
  kf_problem_add_buffer(p, "Y", 0, &Y);
  kf_problem_add_buffer(p, "O1", 0, &O1);
  kf_problem_add_buffer(p, "O2", 0, &O2);
  kf_problem_add_launch(p, "a", 1 << 22, &a);
  kf_problem_add_launch(p, "c", 1 << 22, &c);
  kf_problem_add_launch(p, "b", 1 << 22, &b);
  kf_problem_add_launch(p, "d", 1 << 22, &d);
  kf_problem_add_access(p, a, S, KF_READ, 64, NULL);
  kf_problem_add_access(p, a, X, KF_WRITE, 4, NULL);
  kf_problem_add_access(p, c, T, KF_READ, 64, NULL);
  kf_problem_add_access(p, c, Y, KF_WRITE, 4, NULL);
  kf_problem_add_access(p, b, X, KF_READ, 4, NULL);
  kf_problem_add_access(p, b, T, KF_READ, 64, NULL);
  kf_problem_add_access(p, b, O1, KF_WRITE, 4, NULL);
  kf_problem_add_access(p, d, Y, KF_READ, 4, NULL);
  kf_problem_add_access(p, d, S, KF_READ, 64, NULL);
  kf_problem_add_access(p, d, O2, KF_WRITE, 4, NULL);
  return p;
}

#endif
