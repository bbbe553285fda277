/* Rows of the plan's binary program beyond "each launch once": cuts against
 * cyclic group orders (lifted from a cycle found in a plan, and two-term
 * ones separated from the relaxation) and clique rows. Every row holds for
 * every acyclic plan, so adding them never changes the optimum. */
#include <stdint.h>
#include <string.h>
#include "plan_int.h"

int kf__row_add(kf__rows *r, const int *cols, int n, char sense, double rhs)
{
  if (kf__grow((void **)&r->start, &r->capr, r->n + 2, sizeof(int)) ||
      kf__grow((void **)&r->idx, &r->capi, r->nnz + n + 1, sizeof(int)) ||
      kf__grow((void **)&r->sense, &r->caps, r->n + 1, 1) ||
      kf__grow((void **)&r->rhs, &r->caprhs, r->n + 1, sizeof(double)))
    return KF_ENOMEM;
  if (r->n == 0)
    r->start[0] = 0;
  memcpy(r->idx + r->nnz, cols, sizeof(int) * (size_t)n);
  r->nnz += n;
  r->sense[r->n] = sense;
  r->rhs[r->n] = rhs;
  r->start[++r->n] = r->nnz;
  return 0;
}

void kf__rows_free(kf__rows *r)
{
  free(r->start);
  free(r->idx);
  free(r->sense);
  free(r->rhs);
  memset(r, 0, sizeof *r);
}

/* One row per launch: covered exactly once. */
int kf__partition_rows(const kf__cands *c, int n, kf__rows *rows)
{
  int *at = calloc((size_t)n + 2, sizeof(int));
  int total = 0;
  for (int i = 0; i < c->n; i++)
    total += c->c[i].n;
  int *flat = malloc(sizeof(int) * (size_t)(total + 1));
  int rc = KF_ENOMEM;
  if (!at || !flat)
    goto out;
  for (int i = 0; i < c->n; i++)
    for (int j = 0; j < c->c[i].n; j++)
      at[c->c[i].members[j] + 2]++;
  for (int v = 0; v < n; v++)
    at[v + 2] += at[v + 1];
  for (int i = 0; i < c->n; i++)
    for (int j = 0; j < c->c[i].n; j++)
      flat[at[c->c[i].members[j] + 1]++] = i;
  rc = 0;
  for (int v = 0; v < n && !rc; v++)
    rc = kf__row_add(rows, flat + at[v], at[v + 1] - at[v], 'E', 1.0);
out:
  free(at);
  free(flat);
  return rc;
}

/* Whether candidate g holds launch v. */
static int kf__holds(const kf__cand *g, int v)
{
  for (int i = 0; i < g->n; i++)
    if (g->members[i] == v)
      return 1;
  return 0;
}

/* The cut against a cycle G1 -> ... -> Gm -> G1 of the group graph
 * (cyc[0..clen) in that order), lifted from the groups to launches: an edge
 * out(i-1) -> in(i) enters each Gi and out(i) -> in(i+1) leaves it, so any
 * plan with groups that hold in(i) and out(i) for every i has a cycle too,
 * whatever else those groups hold. A group entered and left through one
 * launch is passed by a path of the DAG and needs no term. The row: the sum,
 * over the terms, of the groups that hold the term's launches and none of
 * another term's, is at most (terms - 1); the groups of a plan that meets
 * every term are distinct, so the row holds for every acyclic plan. part is
 * the partition rows (the candidates holding each launch). Writes the row's
 * columns to cols and returns their count, or 0 if fewer than two terms. */
int kf__cycle_cut(const kf__dag *d, const kf__cands *c, const kf__rows *part,
                  const int *cyc, int clen, int *cols, int *nterms)
{
  int in[KF__MAXK * 64], out[KF__MAXK * 64], m = 0;
  if (clen > KF__MAXK * 64)
    return 0;
  for (int i = 0; i < clen; i++) {
    const kf__cand *g = &c->c[cyc[i]], *h = &c->c[cyc[(i + 1) % clen]];
    out[i] = in[(i + 1) % clen] = -1;
    for (int a = 0; a < g->n && out[i] < 0; a++)
      for (int q = d->succ_start[g->members[a]]; q < d->succ_start[g->members[a] + 1]; q++)
        if (kf__holds(h, d->succ[q])) {
          out[i] = g->members[a];
          in[(i + 1) % clen] = d->succ[q];
          break;
        }
    if (out[i] < 0)
      return 0; /* not a cycle of the group graph */
  }
  for (int i = 0; i < clen; i++)
    if (in[i] != out[i])
      in[m] = in[i], out[m] = out[i], m++;
  *nterms = m;
  if (m < 2)
    return 0;
  return kf__terms_row(c, part, in, out, m, cols);
}

int kf__terms_row(const kf__cands *c, const kf__rows *part, const int *in,
                  const int *out, int m, int *cols)
{
  int nc = 0;
  for (int i = 0; i < m; i++)
    for (int q = part->start[in[i]]; q < part->start[in[i] + 1]; q++) {
      const kf__cand *g = &c->c[part->idx[q]];
      int ok = kf__holds(g, out[i]);
      for (int j = 0; j < m && ok; j++)
        if (j != i && (kf__holds(g, in[j]) || kf__holds(g, out[j])))
          ok = 0;
      if (ok)
        cols[nc++] = part->idx[q];
    }
  return nc;
}

static int kf__pair_by_launches(const void *p, const void *q)
{
  const kf__pair *x = p, *y = q;
  if (x->a != y->a)
    return x->a < y->a ? -1 : 1;
  return (x->b > y->b) - (x->b < y->b);
}

int kf__held_pairs(const kf__cands *c, const double *x, int ordered, kf__pair **out)
{
  int np = 0;
  for (int j = 0; j < c->n; j++)
    if (x[j] > 1e-6)
      np += c->c[j].n * (c->c[j].n - 1);
  kf__pair *pr = malloc(sizeof(kf__pair) * (size_t)(np + 1));
  *out = pr;
  if (!pr)
    return KF_ENOMEM;
  np = 0;
  for (int j = 0; j < c->n; j++)
    if (x[j] > 1e-6)
      for (int p = 0; p < c->c[j].n; p++)
        for (int q = ordered ? 0 : p + 1; q < c->c[j].n; q++)
          if (p != q)
            pr[np++] = (kf__pair){ c->c[j].members[p], c->c[j].members[q], x[j] };
  qsort(pr, (size_t)np, sizeof *pr, kf__pair_by_launches);
  int m = 0;
  for (int i = 0; i < np; i++) {
    if (m && pr[m - 1].a == pr[i].a && pr[m - 1].b == pr[i].b)
      pr[m - 1].t += pr[i].t;
    else
      pr[m++] = pr[i];
  }
  return m;
}

static int kf__pair_by_weight(const void *p, const void *q)
{
  const kf__pair *x = p, *y = q;
  return (x->t < y->t) - (x->t > y->t);
}

/* The two-term row of launch pairs {l[0], l[1]} and {l[2], l[3]}: the
 * groups holding one pair and nothing of the other. Writes its columns to
 * cols and returns their count; rows starts with the partition rows. */
static int kf__pair_row(const kf__cands *c, const kf__rows *rows, const int *l, int *cols)
{
  int nc = 0;
  for (int t = 0; t < 4; t += 2)
    for (int q = rows->start[l[t]]; q < rows->start[l[t] + 1]; q++) {
      const kf__cand *g = &c->c[rows->idx[q]];
      if (kf__holds(g, l[t + 1]) && !kf__holds(g, l[2 - t]) && !kf__holds(g, l[3 - t]))
        cols[nc++] = rows->idx[q];
    }
  return nc;
}

/* Two-term cycle rows violated by a solution x of the relaxation. For
 * launch pairs P and Q that reach each other in the DAG, a group holding P
 * (and nothing of Q) and one holding Q (and nothing of P) would reach each
 * other: at most one of them is in a plan. The pairs are those held
 * together by groups with x > 0, weighted by the sum of those x; a row can
 * be violated only if the weights of its pairs add up to more than 1. Adds
 * at most max rows after the first n (the partition rows, which list the
 * groups holding each launch); returns how many, or KF_ENOMEM. */
int kf__separate_pairs(const kf__dag *d, const kf__cands *c, kf__rows *rows,
                       const double *x, int *cols, int max)
{
  int added = 0;
  kf__pair *pr;
  int m = kf__held_pairs(c, x, 0, &pr);
  if (m < 0)
    return m;
  qsort(pr, (size_t)m, sizeof *pr, kf__pair_by_weight);
  for (int i = 0; i < m && added < max; i++)
    for (int j = i + 1; j < m && added < max; j++) {
      if (pr[i].t + pr[j].t <= 1 + 1e-6)
        break;
      int l[4] = { pr[i].a, pr[i].b, pr[j].a, pr[j].b };
      if (l[2] == l[0] || l[2] == l[1] || l[3] == l[0] || l[3] == l[1])
        continue;
      int fwd = 0, back = 0;
      for (int u = 0; u < 2; u++)
        for (int v = 2; v < 4; v++) {
          fwd |= kf__reaches(d, l[u], l[v]);
          back |= kf__reaches(d, l[v], l[u]);
        }
      if (!fwd || !back)
        continue;
      int nc = kf__pair_row(c, rows, l, cols);
      double lhs = 0;
      for (int q = 0; q < nc; q++)
        lhs += x[cols[q]];
      if (lhs > 1 + 1e-6) {
        if (kf__row_add(rows, cols, nc, 'L', 1.0)) {
          free(pr);
          return KF_ENOMEM;
        }
        added++;
      }
    }
  free(pr);
  return added;
}

static int kf__overlap(const kf__cand *g, const kf__cand *h)
{
  for (int i = 0; i < g->n; i++)
    if (kf__holds(h, g->members[i]))
      return 1;
  return 0;
}

static const double *kf__by_x_key;
static int kf__by_x(const void *a, const void *b)
{
  double p = kf__by_x_key[*(const int *)a], q = kf__by_x_key[*(const int *)b];
  return (p < q) - (p > q);
}

/* Clique rows violated by a solution x of the relaxation: groups that
 * overlap pairwise cannot share a plan, so at most one of them is in it.
 * From each fractional group, a clique grows greedily over the fractional
 * groups, most valued first; if its values add up to more than 1 it is
 * extended by every other group that overlaps all its members (a stronger
 * row) and added. A group already in a row added now seeds no other. Adds
 * at most max rows; returns how many, or KF_ENOMEM. */
int kf__separate_cliques(const kf__cands *c, kf__rows *rows, const double *x,
                         int *cols, int max)
{
  int nf = 0, added = 0;
  int *f = malloc(sizeof(int) * (size_t)(c->n + 1));
  char *used = calloc((size_t)c->n + 1, 1);
  if (!f || !used) {
    free(f);
    free(used);
    return KF_ENOMEM;
  }
  for (int j = 0; j < c->n; j++)
    if (x[j] > 1e-6 && x[j] < 1 - 1e-6)
      f[nf++] = j;
  kf__by_x_key = x;
  qsort(f, (size_t)nf, sizeof(int), kf__by_x);
  for (int a = 0; a < nf && added < max; a++) {
    if (used[f[a]])
      continue;
    int nc = 1;
    double lhs = x[f[a]];
    cols[0] = f[a];
    for (int b = 0; b < nf; b++) {
      int all = b != a;
      for (int i = 0; i < nc && all; i++)
        all = kf__overlap(&c->c[f[b]], &c->c[cols[i]]);
      if (all) {
        cols[nc++] = f[b];
        lhs += x[f[b]];
      }
    }
    if (lhs <= 1 + 1e-6)
      continue;
    int nfrac = nc;
    for (int j = 0; j < c->n; j++) {
      if (x[j] > 1e-6 && x[j] < 1 - 1e-6)
        continue;
      int all = 1;
      for (int i = 0; i < nc && all; i++)
        all = cols[i] != j && kf__overlap(&c->c[j], &c->c[cols[i]]);
      if (all)
        cols[nc++] = j;
    }
    for (int i = 0; i < nfrac; i++)
      used[cols[i]] = 1;
    if (kf__row_add(rows, cols, nc, 'L', 1.0)) {
      added = KF_ENOMEM;
      break;
    }
    added++;
  }
  free(f);
  free(used);
  return added;
}
