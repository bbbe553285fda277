/* Inside one group: the linearisation that minimises the staging memory live
 * at once (recursive enumeration, Kessler's scheme as in Fousek et al.) and
 * the shared-memory allocation by branch and bound, which may fragment. */
#include <limits.h>
#include <string.h>
#include "plan_int.h"

#define KF__MAXBUF 64 /* staging buffers of one group considered */

int kf__staging_intervals(const kf_problem *p, const int *order, int n,
                          int *start, int *end, int *size, int max)
{
  int m = 0;
  /* A buffer is staged from its first write in the group to the last read
   * that follows it in the group, unless it is carried in registers. */
  for (int i = 0; i < n; i++) {
    const kf__launch *l = &p->l[order[i]];
    for (int a = 0; a < l->nacc; a++) {
      if (!(l->acc[a].mode & KF_WRITE))
        continue;
      int b = l->acc[a].buffer, seen = 0;
      if (p->b[b].in_registers)
        continue;
      for (int q = 0; q < i && !seen; q++) {
        const kf__launch *lq = &p->l[order[q]];
        for (int c = 0; c < lq->nacc; c++)
          if (lq->acc[c].buffer == b && (lq->acc[c].mode & KF_WRITE))
            seen = 1;
      }
      if (seen)
        continue;
      int last = -1;
      double bytes = l->acc[a].bytes;
      for (int j = i + 1; j < n; j++) {
        const kf__launch *lj = &p->l[order[j]];
        for (int c = 0; c < lj->nacc; c++)
          if (lj->acc[c].buffer == b) {
            if (lj->acc[c].mode & KF_READ)
              last = j;
            if (lj->acc[c].bytes > bytes)
              bytes = lj->acc[c].bytes;
          }
      }
      if (last < 0 || m >= max)
        continue;
      start[m] = i;
      end[m] = last;
      size[m] = (int)(bytes + 0.5);
      m++;
    }
  }
  return m;
}

int kf__live_peak(const int *start, const int *end, const int *size, int m)
{
  int peak = 0, steps = 0;
  for (int i = 0; i < m; i++)
    if (end[i] + 1 > steps)
      steps = end[i] + 1;
  for (int t = 0; t < steps; t++) {
    int live = 0;
    for (int i = 0; i < m; i++)
      if (start[i] <= t && t <= end[i])
        live += size[i];
    if (live > peak)
      peak = live;
  }
  return peak;
}

typedef struct kf__lin {
  const kf_problem *p;
  const kf__dag *d;
  const int *members;
  int n;
  int cur[KF__MAXK], used[KF__MAXK];
  int best[KF__MAXK];
  int best_peak;
} kf__lin;

static void kf__lin_rec(kf__lin *s, int depth)
{
  if (depth == s->n) {
    int st[KF__MAXBUF], en[KF__MAXBUF], sz[KF__MAXBUF];
    int m = kf__staging_intervals(s->p, s->cur, s->n, st, en, sz, KF__MAXBUF);
    int peak = kf__live_peak(st, en, sz, m);
    if (peak < s->best_peak) {
      s->best_peak = peak;
      memcpy(s->best, s->cur, sizeof(int) * (size_t)s->n);
    }
    return;
  }
  for (int i = 0; i < s->n; i++) {
    if (s->used[i])
      continue;
    int ready = 1; /* every unplaced member that must precede it is placed */
    for (int j = 0; j < s->n && ready; j++)
      if (!s->used[j] && j != i && kf__reaches(s->d, s->members[j], s->members[i]))
        ready = 0;
    if (!ready)
      continue;
    s->used[i] = 1;
    s->cur[depth] = s->members[i];
    kf__lin_rec(s, depth + 1);
    s->used[i] = 0;
    if (s->best_peak == 0)
      return; /* nothing staged: the first order is optimal */
  }
}

int kf__linearize(const kf_problem *p, const kf__dag *d, const int *members,
                  int n, int *order, int *peak)
{
  if (n < 1 || n > KF__MAXK)
    return KF_EINVAL;
  kf__lin s;
  memset(&s, 0, sizeof s);
  s.p = p;
  s.d = d;
  s.members = members;
  s.n = n;
  s.best_peak = INT_MAX;
  kf__lin_rec(&s, 0);
  if (s.best_peak == INT_MAX)
    return KF_EINVAL; /* members form a cycle: impossible in a DAG */
  memcpy(order, s.best, sizeof(int) * (size_t)n);
  if (peak)
    *peak = s.best_peak;
  return 0;
}

typedef struct kf__alloc {
  const int *start, *end, *size;
  int m;
  int idx[KF__MAXBUF]; /* placement order: largest first */
  int off[KF__MAXBUF], best_off[KF__MAXBUF];
  int best, bound;
  long nodes;
} kf__alloc;

static int kf__conflict(const kf__alloc *a, int i, int j)
{
  return a->start[i] <= a->end[j] && a->start[j] <= a->end[i];
}

static void kf__alloc_rec(kf__alloc *a, int k, int extent)
{
  if (extent >= a->best || a->best == a->bound || ++a->nodes > 200000)
    return;
  if (k == a->m) {
    a->best = extent;
    memcpy(a->best_off, a->off, sizeof(int) * (size_t)a->m);
    return;
  }
  int i = a->idx[k];
  /* Candidate offsets: 0 and the top of each placed, conflicting buffer. */
  int cand[KF__MAXBUF + 1], nc = 0;
  cand[nc++] = 0;
  for (int q = 0; q < k; q++) {
    int j = a->idx[q];
    if (kf__conflict(a, i, j))
      cand[nc++] = a->off[j] + a->size[j];
  }
  for (int c = 0; c < nc; c++) {
    int o = cand[c], ok = 1;
    for (int q = 0; q < k && ok; q++) {
      int j = a->idx[q];
      if (kf__conflict(a, i, j) && o < a->off[j] + a->size[j] && a->off[j] < o + a->size[i])
        ok = 0;
    }
    if (!ok)
      continue;
    a->off[i] = o;
    int e = o + a->size[i] > extent ? o + a->size[i] : extent;
    kf__alloc_rec(a, k + 1, e);
  }
}

int kf__allocate(const int *start, const int *end, const int *size, int m, int *offset)
{
  if (m <= 0)
    return 0;
  if (m > KF__MAXBUF)
    m = KF__MAXBUF;
  kf__alloc a;
  memset(&a, 0, sizeof a);
  a.start = start;
  a.end = end;
  a.size = size;
  a.m = m;
  for (int i = 0; i < m; i++)
    a.idx[i] = i;
  for (int i = 1; i < m; i++) /* insertion sort, size descending */
    for (int j = i; j > 0 && size[a.idx[j]] > size[a.idx[j - 1]]; j--) {
      int t = a.idx[j];
      a.idx[j] = a.idx[j - 1];
      a.idx[j - 1] = t;
    }
  a.bound = kf__live_peak(start, end, size, m);
  /* Stacking every buffer is always feasible: the search starts above it. */
  int tot = 0;
  for (int i = 0; i < m; i++)
    a.best_off[i] = tot, tot += size[i];
  a.best = tot + 1;
  kf__alloc_rec(&a, 0, 0);
  if (a.best > tot)
    a.best = tot;
  if (offset)
    memcpy(offset, a.best_off, sizeof(int) * (size_t)m);
  return a.best;
}
