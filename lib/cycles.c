/* Cycle rows of any length separated from the relaxation: the lifted cycle
 * cut of cuts.c over launch pairs that the relaxation's groups keep
 * together, found as short cycles of a graph on the launches. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plan_int.h"

/* Why they hold (kf__cycle_cut): launch pairs (in_i, out_i), i < m, all
 * 2m launches distinct, with out_i reaching in_{i+1} in the DAG (indices
 * mod m). A plan with, for every i, a group G_i holding in_i and out_i and
 * no launch of another term has distinct groups G_1 -> G_2 -> ... -> G_1:
 * a cycle. So the groups of term i (S_i) summed over all terms are at most
 * m - 1. With m = 2 this is the two-term row.
 *
 * Separation. Let t(a, b) be the sum of x over the groups holding launches
 * a and b. A violated row needs sum_i (1 - t(in_i, out_i)) < 1. Nodes are
 * (launch, state): state 1 just after a pair arc, 0 after a DAG edge, 2
 * after DAG edges from the source before any pair arc. DAG edges weigh 0;
 * a "pair arc" (a, 0 or 2) -> (b, 1) for every pair held together weighs
 * 1 - t(a, b). A closed walk that alternates pair arcs with DAG paths of at
 * least one edge is a chain of terms; its weight is sum_i (1 - t_i). For
 * each launch b, Dijkstra from (b, 1) gives the shortest path to every
 * (a, 0) through at least one more pair arc (state 2 keeps the path inside
 * the closing pair's own group out: one term is no cycle), and each pair
 * arc a -> b closes a cycle; those under 1 become rows when their launches
 * are distinct and the row itself (which counts only
 * S_i) is violated at x. */


/* How much the row of m terms with columns cols[0..nc) exceeds m - 1 at x. */
static double kf__excess(const double *x, const int *cols, int nc, int m)
{
  double lhs = 0;
  for (int i = 0; i < nc; i++)
    lhs += x[cols[i]];
  return lhs - (m - 1);
}

/* Merges neighbouring terms while that makes the row more violated: terms
 * i and i + 1 become (in_i, out_{i+1}), still a cycle (out_{i+1} reaches
 * in_{i+2}, out_{i-1} reaches in_i). A shortest cycle may pass through one
 * group twice (a pair arc, a DAG edge inside the group, another pair arc),
 * and then the group counts for neither term until they are one. Returns
 * the new number of terms. */
static int kf__merge_terms(const kf__cands *c, const kf__rows *rows, const double *x,
                           int *in, int *out, int m, int *cols)
{
  double best = kf__excess(x, cols, kf__terms_row(c, rows, in, out, m, cols), m);
  while (m > 2) {
    int pick = -1;
    for (int i = 0; i < m; i++) {
      int j = (i + 1) % m, o = out[i];
      out[i] = out[j];
      /* term i takes term j's out; term j leaves, and comes back after */
      int sin = in[j], sout = out[j];
      for (int q = j; q < m - 1; q++)
        in[q] = in[q + 1], out[q] = out[q + 1];
      double e = kf__excess(x, cols, kf__terms_row(c, rows, in, out, m - 1, cols), m - 1);
      for (int q = m - 1; q > j; q--)
        in[q] = in[q - 1], out[q] = out[q - 1];
      in[j] = sin, out[j] = sout;
      out[i] = o;
      if (e > best + 1e-9)
        best = e, pick = i;
    }
    if (pick < 0)
      break;
    int j = (pick + 1) % m;
    out[pick] = out[j];
    for (int q = j; q < m - 1; q++)
      in[q] = in[q + 1], out[q] = out[q + 1];
    m--;
  }
  return m;
}

int kf__separate_cycles(const kf__dag *d, const kf__cands *c, kf__rows *rows,
                        const double *x, int *cols, int max)
{
  int n = d->n, added = 0, rc = KF_ENOMEM;
  kf__pair *pa;
  int np = kf__held_pairs(c, x, 1, &pa);
  if (np < 0)
    return np;
  int *pstart = calloc((size_t)n + 1, sizeof(int));
  int *prev = malloc(sizeof(int) * (size_t)(3 * n));
  int *parc = malloc(sizeof(int) * (size_t)(3 * n));
  double *dist = malloc(sizeof(double) * (size_t)(3 * n));
  char *used = NULL, *mark = calloc((size_t)n, 1);
  int *in = malloc(sizeof(int) * (size_t)(n + 1));
  int *out = malloc(sizeof(int) * (size_t)(n + 1));
  int nedge = d->succ_start[n];
  kf__heap h = { malloc(sizeof(double) * (size_t)(3 * nedge + 2 * np + 2)),
                 malloc(sizeof(int) * (size_t)(3 * nedge + 2 * np + 2)), 0 };
  if (!pstart || !prev || !parc || !dist || !mark || !in || !out || !h.key || !h.node)
    goto out;
  for (int i = 0; i < np; i++)
    pstart[pa[i].a + 1]++;
  for (int v = 0; v < n; v++)
    pstart[v + 1] += pstart[v];
  used = calloc((size_t)np + 1, 1);
  if (!used)
    goto out;
  /* Pair arcs by head b: the arcs a -> b close cycles from source b. They
   * are the reverses of the arcs b -> a (the list is symmetric). */
  for (int b = 0; b < n && added < max; b++) {
    int closing = 0;
    for (int q = pstart[b]; q < pstart[b + 1]; q++)
      closing |= !used[q];
    if (!closing)
      continue;
    for (int v = 0; v < 3 * n; v++)
      dist[v] = INFINITY, prev[v] = -1;
    int src = 3 * b + 1;
    dist[src] = 0;
    h.n = 0;
    kf__heap_push(&h, 0, src);
    while (h.n > 0) {
      double du;
      int u = kf__heap_pop(&h, &du);
      if (du > dist[u])
        continue;
      int v = u / 3, st = u % 3;
      /* DAG edges: state 2 until a pair arc is taken, 0 after. */
      for (int q = d->succ_start[v]; q < d->succ_start[v + 1]; q++) {
        int w = 3 * d->succ[q] + (u == src || st == 2 ? 2 : 0);
        if (du < dist[w]) {
          dist[w] = du;
          prev[w] = u, parc[w] = -1;
          kf__heap_push(&h, du, w);
        }
      }
      if (st == 1)
        continue;
      for (int q = pstart[v]; q < pstart[v + 1]; q++) {
        int w = 3 * pa[q].b + 1;
        double nd = du + (pa[q].t < 1 ? 1 - pa[q].t : 0);
        if (nd < dist[w] && nd < 1 - 1e-6) {
          dist[w] = nd;
          prev[w] = u, parc[w] = q;
          kf__heap_push(&h, nd, w);
        }
      }
    }
    for (int q0 = pstart[b]; q0 < pstart[b + 1] && added < max; q0++) {
      int a = pa[q0].b; /* the closing arc a -> b has the weight of b -> a */
      double w0 = pa[q0].t < 1 ? 1 - pa[q0].t : 0;
      if (used[q0] || !(dist[3 * a] + w0 < 1 - 1e-6))
        continue;
      /* Terms backwards from (a, 0): the closing arc is a -> b. */
      int nt = 0, ok = 1;
      in[nt] = a, out[nt] = b, nt++;
      for (int u = 3 * a; u != src && ok; u = prev[u]) {
        ok = prev[u] >= 0 && nt < n / 2;
        if (ok && parc[u] >= 0)
          in[nt] = pa[parc[u]].a, out[nt] = pa[parc[u]].b, nt++;
      }
      if (!ok || nt < 2)
        continue;
      /* Found backwards: out_{i+1} reaches in_i. Turn them round. */
      for (int i = 0, j = nt - 1; i < j; i++, j--) {
        int t = in[i];
        in[i] = in[j], in[j] = t;
        t = out[i];
        out[i] = out[j], out[j] = t;
      }
      for (int i = 0; i < nt && ok; i++) {
        ok &= !mark[in[i]] && !mark[out[i]];
        mark[in[i]] = mark[out[i]] = 1;
      }
      for (int i = 0; i < nt; i++)
        mark[in[i]] = mark[out[i]] = 0;
      if (!ok)
        continue;
      nt = kf__merge_terms(c, rows, x, in, out, nt, cols);
      int nc = kf__terms_row(c, rows, in, out, nt, cols);
      if (!(kf__excess(x, cols, nc, nt) > 1e-6))
        continue;
      if (kf__row_add(rows, cols, nc, 'L', nt - 1.0))
        goto out;
      added++;
      /* Each arc of the cycle would find it again, either way round. */
      for (int i = 0; i < nt; i++)
        for (int q = pstart[in[i]]; q < pstart[in[i] + 1]; q++)
          if (pa[q].b == out[i])
            used[q] = 1;
      for (int i = 0; i < nt; i++)
        for (int q = pstart[out[i]]; q < pstart[out[i] + 1]; q++)
          if (pa[q].b == in[i])
            used[q] = 1;
    }
  }
  rc = 0;
out:
  free(pa);
  free(pstart);
  free(prev);
  free(parc);
  free(dist);
  free(used);
  free(mark);
  free(in);
  free(out);
  free(h.key);
  free(h.node);
  return rc ? rc : added;
}
