/* The planner for instances too large for CBC: greedy merging of the most
 * profitable disjoint groups that keep the group order acyclic (always to
 * the end), then local search (insert a group, dissolve what it overlaps)
 * while its work budget lasts. */
#include <math.h>
#include <string.h>
#include "plan_int.h"

typedef struct kf__hs {
  const kf__dag *d;
  const kf__cands *c;
  int *owner;     /* launch -> candidate index */
  int *list;      /* scratch: distinct owners */
  int *cyc, *topo;
  double *gain;
} kf__hs;

static int kf__collect(kf__hs *s, int *list)
{
  int n = 0;
  for (int v = 0; v < s->d->n; v++) {
    const kf__cand *g = &s->c->c[s->owner[v]];
    if (g->members[0] == v) /* count each group once, at its first member */
      list[n++] = s->owner[v];
  }
  return n;
}

static int kf__acyclic(kf__hs *s)
{
  int n = kf__collect(s, s->list), len = 0;
  return kf__quotient_cycle(s->d, s->c, s->list, n, s->cyc, &len, s->topo) == 0;
}

static double kf__owner_cost(kf__hs *s)
{
  double t = 0;
  int n = kf__collect(s, s->list);
  for (int i = 0; i < n; i++)
    t += s->c->c[s->list[i]].cost;
  return t;
}

/* Puts candidate ci in the partition, dissolving overlapped groups into
 * singletons. */
static void kf__place(kf__hs *s, int ci)
{
  const kf__cand *g = &s->c->c[ci];
  for (int i = 0; i < g->n; i++) {
    const kf__cand *o = &s->c->c[s->owner[g->members[i]]];
    for (int j = 0; j < o->n; j++)
      s->owner[o->members[j]] = s->c->single[o->members[j]];
  }
  for (int i = 0; i < g->n; i++)
    s->owner[g->members[i]] = ci;
}

/* Largest gain first; equal gains in candidate order, so the order does not
 * depend on the C library's sort. */
static const double *kf__sort_key;
static int kf__by_gain(const void *a, const void *b)
{
  int i = *(const int *)a, j = *(const int *)b;
  double x = kf__sort_key[i], y = kf__sort_key[j];
  if (x != y)
    return x < y ? 1 : -1;
  return (i > j) - (i < j);
}

int kf__heuristic(const kf__dag *d, const kf__cands *c, kf__work *w,
                  unsigned seed, int *chosen, double *cost)
{
  int n = d->n, nc = c->n;
  kf__hs s = { d, c, NULL, NULL, NULL, NULL, NULL };
  s.owner = malloc(sizeof(int) * (size_t)(n + 1));
  s.list = malloc(sizeof(int) * (size_t)(n + 1));
  s.cyc = malloc(sizeof(int) * (size_t)(n + 1));
  s.topo = malloc(sizeof(int) * (size_t)(n + 1));
  s.gain = malloc(sizeof(double) * (size_t)(nc + 1));
  int *ord = malloc(sizeof(int) * (size_t)(nc + 1));
  int *saved = malloc(sizeof(int) * (size_t)(n + 1));
  int rc = KF_ENOMEM;
  if (!s.owner || !s.list || !s.cyc || !s.topo || !s.gain || !ord || !saved)
    goto out;
  for (int v = 0; v < n; v++)
    s.owner[v] = c->single[v];
  int ng = 0;
  for (int i = 0; i < nc; i++) {
    const kf__cand *g = &c->c[i];
    if (g->n < 2)
      continue;
    double alone = 0;
    for (int j = 0; j < g->n; j++)
      alone += c->c[c->single[g->members[j]]].cost;
    s.gain[i] = alone - g->cost;
    ord[ng++] = i;
  }
  kf__sort_key = s.gain;
  qsort(ord, (size_t)ng, sizeof(int), kf__by_gain);
  /* Greedy: largest gain first, among groups disjoint from those taken. */
  for (int k = 0; k < ng; k++) {
    const kf__cand *g = &c->c[ord[k]];
    int free_ = 1;
    for (int j = 0; j < g->n && free_; j++)
      if (c->c[s.owner[g->members[j]]].n > 1)
        free_ = 0;
    if (!free_)
      continue;
    memcpy(saved, s.owner, sizeof(int) * (size_t)n);
    kf__place(&s, ord[k]);
    if (!kf__acyclic(&s))
      memcpy(s.owner, saved, sizeof(int) * (size_t)n);
    kf__work_charge(w, 1); /* the greedy pass always ends: every plan is
                              measured against it */
  }
  double best = kf__owner_cost(&s);
  /* Local search: try each profitable group in random order; keep a move
   * that lowers the total and leaves the order acyclic. */
  unsigned x = seed ? seed : 1;
  int stale = 0;
  while (ng > 0 && !kf__work_charge(w, 1) && stale < 4 * ng + 100) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    int ci = ord[x % (unsigned)ng];
    if (s.owner[c->c[ci].members[0]] == ci) {
      stale++;
      continue;
    }
    memcpy(saved, s.owner, sizeof(int) * (size_t)n);
    kf__place(&s, ci);
    double t = kf__owner_cost(&s);
    if (t < best * (1 - 1e-12) && kf__acyclic(&s)) {
      best = t;
      stale = 0;
    } else {
      memcpy(s.owner, saved, sizeof(int) * (size_t)n);
      stale++;
    }
  }
  rc = kf__collect(&s, chosen);
  *cost = best;
out:
  free(s.owner);
  free(s.list);
  free(s.cyc);
  free(s.topo);
  free(s.gain);
  free(ord);
  free(saved);
  return rc;
}
