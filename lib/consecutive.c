/* The best plans made of consecutive groups (launches i..j): a dynamic
 * program over the prefixes of the launch sequence. Exact where only such
 * groups can fuse, and the floor every other search starts from. */
#include <math.h>
#include <string.h>
#include "plan_int.h"

/* One of the k cheapest partitions of a prefix 0..v-1: its cost, its last
 * group, and which partition of the prefix before that group it extends. */
typedef struct kf__dpent {
  double cost;
  int cand, from;
} kf__dpent;

/* Cost first, then the last group's candidate index, then the entry it
 * extends: a total order, so the plans and their ranks never depend on
 * the order the candidates are looked at in. */
static int kf__dpent_less(const kf__dpent *a, const kf__dpent *b)
{
  if (a->cost != b->cost)
    return a->cost < b->cost;
  if (a->cand != b->cand)
    return a->cand < b->cand;
  return a->from < b->from;
}

/* Inserts e into the sorted list l[0..*n) that keeps at most k entries. */
static void kf__dp_offer(kf__dpent *l, int *n, int k, kf__dpent e)
{
  if (*n == k && !kf__dpent_less(&e, &l[k - 1]))
    return;
  int i = *n < k ? (*n)++ : k - 1;
  for (; i > 0 && kf__dpent_less(&e, &l[i - 1]); i--)
    l[i] = l[i - 1];
  l[i] = e;
}

int kf__consecutive_best(const kf__cands *c, int n, int k, int *chosen, int *nc,
                         double *best, int *found)
{
  *found = 0;
  /* The consecutive candidates by last launch, as a CSR. */
  int *start = calloc((size_t)n + 2, sizeof(int));
  int *byend = malloc(sizeof(int) * (size_t)(c->n + 1));
  kf__dpent *dp = malloc(sizeof(kf__dpent) * ((size_t)n + 1) * (size_t)k);
  int *len = calloc((size_t)n + 1, sizeof(int));
  if (!start || !byend || !dp || !len) {
    free(start);
    free(byend);
    free(dp);
    free(len);
    return KF_ENOMEM;
  }
  for (int j = 0; j < c->n; j++) {
    const kf__cand *g = &c->c[j];
    if (g->members[g->n - 1] - g->members[0] == g->n - 1)
      start[g->members[g->n - 1] + 2]++;
  }
  for (int v = 0; v <= n; v++)
    start[v + 1] += start[v];
  for (int j = 0; j < c->n; j++) {
    const kf__cand *g = &c->c[j];
    if (g->members[g->n - 1] - g->members[0] == g->n - 1)
      byend[start[g->members[g->n - 1] + 1]++] = j;
  }
  /* dp[v * k ..]: the k cheapest partitions of launches 0..v-1. */
  dp[0] = (kf__dpent){ 0.0, -1, -1 };
  len[0] = 1;
  for (int v = 1; v <= n; v++) {
    kf__dpent *l = dp + (size_t)v * (size_t)k;
    for (int q = start[v - 1]; q < start[v]; q++) {
      const kf__cand *g = &c->c[byend[q]];
      int f = g->members[0];
      const kf__dpent *pl = dp + (size_t)f * (size_t)k;
      for (int e = 0; e < len[f]; e++)
        kf__dp_offer(l, &len[v], k, (kf__dpent){ pl[e].cost + g->cost, byend[q], e });
    }
  }
  /* Each plan back from its last group, then into launch order. */
  const kf__dpent *last = dp + (size_t)n * (size_t)k;
  for (int i = 0; i < len[n]; i++) {
    int *out = chosen + (size_t)i * (size_t)n, m = 0;
    for (int v = n, e = i; v > 0;) {
      const kf__dpent *x = dp + (size_t)v * (size_t)k + e;
      out[m++] = x->cand;
      e = x->from;
      v = c->c[x->cand].members[0];
    }
    for (int a = 0, b = m - 1; a < b; a++, b--) {
      int t = out[a];
      out[a] = out[b];
      out[b] = t;
    }
    nc[i] = m;
    best[i] = last[i].cost;
  }
  *found = len[n];
  free(start);
  free(byend);
  free(dp);
  free(len);
  return 0;
}
