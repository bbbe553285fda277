/* Odd-cycle rows of the plan's binary program: {0, 1/2} Chvátal-Gomory cuts
 * over rows of the form "at most one of these groups", found as odd cycles
 * of fractional groups in which neighbours share such a row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plan_int.h"

/* Why they hold. Take rows R1..Rm (m odd, a row may repeat) of the form
 * sum_{j in Ri} x_j <= 1 with 0/1 coefficients: the launch rows (= 1), the
 * two-term cycle rows, clique rows, any row with right-hand side 1. Half
 * their sum is sum_j (c_j / 2) x_j <= m / 2, c_j the number of the Ri that
 * hold column j. With x >= 0, rounding the coefficients down keeps it valid,
 * and then the left side is an integer for a 0/1 x, so
 *   sum_j floor(c_j / 2) x_j <= (m - 1) / 2
 * holds for every plan that satisfies the rows. It is the odd-hole row of
 * the conflict graph lifted to every group that two of the rows hold: with
 * launch rows, every group holding two launches of an odd launch set (k = 2
 * makes these Edmonds' blossom rows).
 *
 * Separation (as for odd holes): fractional groups are nodes, two of them
 * adjacent when some row with right-hand side 1 holds both (that row is the
 * edge's witness), at weight 1 - x_a - x_b >= 0. A closed walk of odd length
 * m and weight w through groups g1..gm has sum x_gi = (m - w) / 2 > (m - 1) / 2
 * exactly when w < 1; the shortest odd closed walk from each group is a
 * shortest path in the bipartite double cover, cut at weight 1. The row is
 * built from the walk's witnesses, so its left side at x is at least the
 * walk's and the violation is checked on the row itself. */

typedef struct kf__oedge {
  int a, b, row;
  double w;
} kf__oedge;

static int kf__oedge_cmp(const void *p, const void *q)
{
  const kf__oedge *x = p, *y = q;
  if (x->a != y->a)
    return x->a < y->a ? -1 : 1;
  if (x->b != y->b)
    return x->b < y->b ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

void kf__heap_push(kf__heap *h, double k, int v)
{
  int i = h->n++;
  while (i > 0 && h->key[(i - 1) / 2] > k) {
    h->key[i] = h->key[(i - 1) / 2];
    h->node[i] = h->node[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->key[i] = k;
  h->node[i] = v;
}

int kf__heap_pop(kf__heap *h, double *k)
{
  int top = h->node[0];
  *k = h->key[0];
  double lk = h->key[--h->n];
  int lv = h->node[h->n], i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= h->n)
      break;
    if (c + 1 < h->n && h->key[c + 1] < h->key[c])
      c++;
    if (h->key[c] >= lk)
      break;
    h->key[i] = h->key[c];
    h->node[i] = h->node[c];
    i = c;
  }
  h->key[i] = lk;
  h->node[i] = lv;
  return top;
}

/* Shortens the closed walk node[0..len] (node[0] == node[len], edge i
 * from node[i-1] to node[i] with witness row[i]) of odd length to a simple
 * odd cycle: a node met twice splits it into two closed walks, one of them
 * odd. A walk with a tail would count the tail's rows twice. Returns the
 * new length; node and row are rewritten in place. */
static int kf__simple_odd(int *node, int *row, int len)
{
again:
  for (int i = 0; i < len; i++)
    for (int j = i + 1; j <= len; j++) {
      if (node[i] != node[j] || (i == 0 && j == len))
        continue;
      if ((j - i) % 2) {
        /* keep node[i..j] */
        memmove(node, node + i, sizeof(int) * (size_t)(j - i + 1));
        memmove(row + 1, row + i + 1, sizeof(int) * (size_t)(j - i));
        len = j - i;
      } else {
        /* drop the even loop node[i..j) */
        memmove(node + i, node + j, sizeof(int) * (size_t)(len - j + 1));
        memmove(row + i + 1, row + j + 1, sizeof(int) * (size_t)(len - j));
        len -= j - i;
      }
      goto again;
    }
  return len;
}

static int kf__int_cmp(const void *p, const void *q)
{
  int a = *(const int *)p, b = *(const int *)q;
  return (a > b) - (a < b);
}

static const double *kf__ocycle_x;
static const int *kf__ocycle_f;
static int kf__by_value(const void *p, const void *q)
{
  double a = kf__ocycle_x[kf__ocycle_f[*(const int *)p]];
  double b = kf__ocycle_x[kf__ocycle_f[*(const int *)q]];
  return (a < b) - (a > b);
}

int kf__separate_odd_cycles(const kf__cands *c, kf__rows *rows, const double *x,
                            int *cols, int max)
{
  int nf = 0, ne = 0, cape = 0, added = 0, rc = KF_ENOMEM;
  int *fpos = malloc(sizeof(int) * (size_t)(c->n + 1));
  int *f = malloc(sizeof(int) * (size_t)(c->n + 1));
  int *count = calloc((size_t)c->n + 1, sizeof(int));
  char *used = NULL;
  kf__oedge *e = NULL;
  int *adj_start = NULL, *prev = NULL, *fr = NULL, *walk = NULL, *wrow = NULL;
  double *dist = NULL;
  kf__heap h = { NULL, NULL, 0 };
  if (!fpos || !f || !count)
    goto out;
  for (int j = 0; j < c->n; j++) {
    fpos[j] = -1;
    if (x[j] > 1e-6 && x[j] < 1 - 1e-6)
      fpos[j] = nf, f[nf++] = j;
  }
  if (nf < 3) {
    rc = 0;
    goto out;
  }
  /* Edges: pairs of fractional groups in a row with right-hand side 1, one
   * witness per pair (the first row: launch rows come first). */
  fr = malloc(sizeof(int) * (size_t)(nf + 1));
  if (!fr)
    goto out;
  for (int r = 0; r < rows->n; r++) {
    if (rows->rhs[r] != 1.0)
      continue;
    int m = 0;
    for (int q = rows->start[r]; q < rows->start[r + 1]; q++)
      if (fpos[rows->idx[q]] >= 0)
        fr[m++] = fpos[rows->idx[q]];
    for (int i = 0; i < m; i++)
      for (int k = 0; k < m; k++) {
        if (i == k)
          continue;
        if (kf__grow((void **)&e, &cape, ne + 1, sizeof *e))
          goto out;
        double w = 1 - x[f[fr[i]]] - x[f[fr[k]]];
        e[ne++] = (kf__oedge){ fr[i], fr[k], r, w > 0 ? w : 0 };
      }
  }
  if (ne > 1)
    qsort(e, (size_t)ne, sizeof *e, kf__oedge_cmp);
  int m = 0;
  for (int i = 0; i < ne; i++)
    if (!m || e[m - 1].a != e[i].a || e[m - 1].b != e[i].b)
      e[m++] = e[i];
  ne = m;
  adj_start = calloc((size_t)nf + 1, sizeof(int));
  dist = malloc(sizeof(double) * (size_t)(2 * nf));
  prev = malloc(sizeof(int) * (size_t)(2 * nf));
  walk = malloc(sizeof(int) * (size_t)(2 * nf + 1));
  wrow = malloc(sizeof(int) * (size_t)(2 * nf + 1));
  used = calloc((size_t)nf, 1);
  h.key = malloc(sizeof(double) * (size_t)(2 * ne + 2));
  h.node = malloc(sizeof(int) * (size_t)(2 * ne + 2));
  if (!adj_start || !dist || !prev || !walk || !wrow || !used || !h.key || !h.node)
    goto out;
  for (int i = 0; i < ne; i++)
    adj_start[e[i].a + 1]++;
  for (int v = 0; v < nf; v++)
    adj_start[v + 1] += adj_start[v];
  /* Most valued groups first: they sit on the most violated cycles. */
  for (int i = 0; i < nf; i++)
    fr[i] = i;
  kf__ocycle_x = x;
  kf__ocycle_f = f;
  qsort(fr, (size_t)nf, sizeof(int), kf__by_value);
  for (int si = 0; si < nf && added < max; si++) {
    int s = fr[si];
    if (used[s])
      continue;
    /* Double cover: node 2v + parity (edges used so far, mod 2). */
    for (int v = 0; v < 2 * nf; v++)
      dist[v] = INFINITY, prev[v] = -1;
    dist[2 * s] = 0;
    h.n = 0;
    kf__heap_push(&h, 0, 2 * s);
    while (h.n > 0) {
      double dv;
      int u = kf__heap_pop(&h, &dv);
      if (dv > dist[u])
        continue;
      if (u == 2 * s + 1)
        break;
      for (int q = adj_start[u / 2]; q < adj_start[u / 2 + 1]; q++) {
        int v = 2 * e[q].b + (1 - u % 2);
        double nd = dv + e[q].w;
        if (nd < dist[v] && nd < 1 - 1e-6) {
          dist[v] = nd;
          prev[v] = q; /* the edge that reached v */
          kf__heap_push(&h, nd, v);
        }
      }
    }
    if (!(dist[2 * s + 1] < 1 - 1e-6))
      continue;
    /* The walk: nodes walk[0..len] from s to s, edge i (walk[i-1] to
     * walk[i]) witnessed by row wrow[i]. */
    int len = 0;
    for (int v = 2 * s + 1; v != 2 * s; v = 2 * e[prev[v]].a + (1 - v % 2))
      len++;
    walk[0] = walk[len] = s;
    for (int v = 2 * s + 1, i = len; v != 2 * s; v = 2 * e[prev[v]].a + (1 - v % 2), i--) {
      wrow[i] = e[prev[v]].row;
      walk[i - 1] = e[prev[v]].a;
    }
    len = kf__simple_odd(walk, wrow, len);
    /* c_j over every column, then the row floor(c_j / 2) x_j <= (len - 1) / 2. */
    int nc = 0, ok = 1;
    for (int i = 1; i <= len; i++)
      for (int q = rows->start[wrow[i]]; q < rows->start[wrow[i] + 1]; q++) {
        int j = rows->idx[q];
        if (count[j]++ == 1)
          cols[nc++] = j;
      }
    /* A coefficient t is the column listed t times, consecutively. */
    double lhs = 0;
    int ncoef = nc;
    for (int i = 0; i < nc; i++) {
      int j = cols[i], t = count[j] / 2;
      lhs += t * x[j];
      ok &= t <= KF__MAXK;
      for (int r = 1; r < t && ok; r++)
        if ((ok = ncoef < c->n))
          cols[ncoef++] = j;
    }
    qsort(cols, (size_t)ncoef, sizeof(int), kf__int_cmp);
    nc = ncoef;
    for (int i = 1; i <= len; i++)
      for (int q = rows->start[wrow[i]]; q < rows->start[wrow[i] + 1]; q++)
        count[rows->idx[q]] = 0;
    if (!ok || !(lhs > (len - 1) / 2.0 + 1e-6))
      continue;
    if (kf__row_add(rows, cols, nc, 'L', (len - 1) / 2.0))
      goto out;
    for (int i = 0; i < len; i++)
      used[walk[i]] = 1;
    added++;
  }
  rc = 0;
out:
  free(fpos);
  free(f);
  free(count);
  free(used);
  free(e);
  free(adj_start);
  free(dist);
  free(prev);
  free(walk);
  free(wrow);
  free(fr);
  free(h.key);
  free(h.node);
  return rc ? rc : added;
}
