/* The sweep: the exact plan by dynamic programming over the launches in
 * program order, pruned by reduced costs.
 *
 * Launch numbers are a topological order (every edge goes from a lower to a
 * higher number). A plan is built group by group, each time taking the
 * group of the lowest launch m not yet covered, so every partition is built
 * exactly once. A group chosen earlier is "open" while it holds a launch at
 * or above m, "closed" once all its launches are below m. No path from an
 * uncovered launch (all at or above m) reaches a closed group except through
 * an open one, so whether a later group closes a cycle depends only on the
 * covered set and, for each open group O, on R(O), the uncovered launches
 * O reaches in the quotient of the groups chosen so far (dependency edges
 * plus moves inside a chosen group). A new group G closes a cycle exactly
 * when the launches its dependents reach, reach(G) (G is convex, so that is
 * the union of its members' descendants outside G), meet an open group O
 * whose R(O) meets G. Otherwise G's own reach is reach(G) \ covered plus
 * R(O) of each open O it enters; an open group that reaches G reaches all
 * of that too. Open groups whose reach is empty can never be part of a
 * cycle, and two with the same reach act as one.
 *
 * So a state is (covered launches; for each distinct reach among the open
 * groups, the members at or above m that enter it, and the reach), two
 * partial plans in the same state have the same completions, and a state
 * keeps the cheapest.
 *
 * The states are pruned by reduced costs: for duals of rows that every
 * acyclic partition satisfies, cost.x >= L + sum of max(d, 0) over the
 * chosen groups (see exact.c), so a partial plan whose reduced costs reach
 * limit has no completion below L + limit. Keeping only the cheapest
 * partial plan of a state loses nothing below that: if an optimal plan
 * costs less than L + limit, replacing its part up to any state by the
 * state's cheapest gives a plan no dearer, hence optimal, hence with
 * reduced costs below the limit, so it survives the pruning. The sweep
 * thus returns an optimal plan whenever one costs less than L + limit, and
 * otherwise some plan or none. For the k best plans a state keeps its k
 * cheapest partial plans (distinct plans: a partition reaches each state
 * along one path), and a plan among the k best that a state drops has k
 * cheaper plans through that state. How many states there are grows fast
 * with the limit; the caller raises it step by step from a small value.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plan_int.h"

size_t kf__sweep_max_bytes = KF__SWEEP_BYTES;

typedef struct kf__sstate {
  size_t off;  /* key in the layer's arena: covered, count, (enter, reach)... */
  int len;     /* key words */
  int nent;    /* partial plans kept, at most k */
} kf__sstate;

/* A partial plan kept in a state: its cost, reduced cost and record. */
typedef struct kf__sent {
  double cost, rc;
  int rec;
} kf__sent;

/* The states whose lowest uncovered launch is the same. */
typedef struct kf__layer {
  uint64_t *key;
  size_t nkey, capkey;
  kf__sstate *st;
  int n, cap;
  kf__sent *ent; /* k per state, cheapest first */
  size_t capent;
  int *tab; /* open addressing over st, -1 empty; capacity a power of two */
  int tcap;
} kf__layer;

typedef struct kf__sweep_t {
  int k;             /* partial plans kept per state */
  size_t bytes;      /* held by layers and records */
  kf__layer *layer;  /* n + 1 */
  int *parent, *col; /* records: the previous record and the group added */
  int nrec, caprec;
} kf__sweep_t;

/* A group below the limit: lowest launch, reduced cost, column. */
typedef struct kf__sgroup {
  int v;
  double r;
  int j;
} kf__sgroup;

static int kf__group_cmp(const void *a, const void *b)
{
  const kf__sgroup *x = a, *y = b;
  if (x->v != y->v)
    return x->v < y->v ? -1 : 1;
  if (x->r != y->r)
    return x->r < y->r ? -1 : 1;
  return (x->j > y->j) - (x->j < y->j);
}

static int kf__any(const uint64_t *a, const uint64_t *b, int w)
{
  for (int i = 0; i < w; i++)
    if (a[i] & b[i])
      return 1;
  return 0;
}

static int kf__nonzero(const uint64_t *a, int w)
{
  for (int i = 0; i < w; i++)
    if (a[i])
      return 1;
  return 0;
}

static uint64_t kf__hash(const uint64_t *k, int len)
{
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)len;
  for (int i = 0; i < len; i++) {
    h ^= k[i];
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return h;
}

/* Grows *p (of *cap elements of sz bytes) to at least need elements,
 * counting the bytes; 0, or 1 past the budget, or KF_ENOMEM. */
static int kf__sgrow(kf__sweep_t *s, void **p, size_t *cap, size_t need, size_t sz)
{
  if (need <= *cap)
    return 0;
  size_t nc = *cap ? *cap : 64;
  while (nc < need)
    nc *= 2;
  if (s->bytes + (nc - *cap) * sz > kf__sweep_max_bytes)
    return 1;
  void *q = realloc(*p, nc * sz);
  if (!q)
    return KF_ENOMEM;
  s->bytes += (nc - *cap) * sz;
  *p = q;
  *cap = nc;
  return 0;
}

static int kf__record(kf__sweep_t *s, int parent, int col)
{
  size_t cap = (size_t)s->caprec, cap2 = cap;
  int rc = kf__sgrow(s, (void **)&s->parent, &cap, (size_t)s->nrec + 1, sizeof(int));
  if (!rc)
    rc = kf__sgrow(s, (void **)&s->col, &cap2, (size_t)s->nrec + 1, sizeof(int));
  if (rc)
    return rc;
  s->caprec = (int)cap;
  s->parent[s->nrec] = parent;
  s->col[s->nrec] = col;
  return ++s->nrec, 0;
}

static void kf__layer_free(kf__sweep_t *s, kf__layer *l)
{
  s->bytes -= l->capkey * sizeof(uint64_t) + (size_t)l->cap * sizeof(kf__sstate) +
              l->capent * sizeof(kf__sent) + (size_t)l->tcap * sizeof(int);
  free(l->key);
  free(l->st);
  free(l->ent);
  free(l->tab);
  memset(l, 0, sizeof *l);
}

static int kf__layer_rehash(kf__sweep_t *s, kf__layer *l)
{
  int tcap = l->tcap ? 2 * l->tcap : 256;
  if (s->bytes + (size_t)(tcap - l->tcap) * sizeof(int) > kf__sweep_max_bytes)
    return 1;
  int *tab = malloc(sizeof(int) * (size_t)tcap);
  if (!tab)
    return KF_ENOMEM;
  for (int i = 0; i < tcap; i++)
    tab[i] = -1;
  for (int i = 0; i < l->n; i++) {
    size_t h = (size_t)kf__hash(l->key + l->st[i].off, l->st[i].len) & (size_t)(tcap - 1);
    while (tab[h] >= 0)
      h = (h + 1) & (size_t)(tcap - 1);
    tab[h] = i;
  }
  s->bytes += (size_t)(tcap - l->tcap) * sizeof(int);
  free(l->tab);
  l->tab = tab;
  l->tcap = tcap;
  return 0;
}

/* The state key[0..len) of layer l, added (with no partial plan) if new:
 * its index in *at. 0, 1 past the budget, or KF_ENOMEM. */
static int kf__state(kf__sweep_t *s, kf__layer *l, const uint64_t *key, int len, int *at)
{
  int r;
  if (2 * (l->n + 1) > l->tcap && (r = kf__layer_rehash(s, l)) != 0)
    return r;
  size_t h = (size_t)kf__hash(key, len) & (size_t)(l->tcap - 1);
  for (; l->tab[h] >= 0; h = (h + 1) & (size_t)(l->tcap - 1)) {
    const kf__sstate *t = &l->st[l->tab[h]];
    if (t->len == len && !memcmp(l->key + t->off, key, sizeof(uint64_t) * (size_t)len)) {
      *at = l->tab[h];
      return 0;
    }
  }
  size_t cap = (size_t)l->cap;
  if ((r = kf__sgrow(s, (void **)&l->key, &l->capkey, l->nkey + (size_t)len,
                     sizeof(uint64_t))) != 0 ||
      (r = kf__sgrow(s, (void **)&l->ent, &l->capent, (size_t)(l->n + 1) * (size_t)s->k,
                     sizeof(kf__sent))) != 0 ||
      (r = kf__sgrow(s, (void **)&l->st, &cap, (size_t)l->n + 1, sizeof(kf__sstate))) != 0)
    return r;
  l->cap = (int)cap;
  memcpy(l->key + l->nkey, key, sizeof(uint64_t) * (size_t)len);
  l->st[l->n] = (kf__sstate){ l->nkey, len, 0 };
  l->nkey += (size_t)len;
  *at = l->n;
  l->tab[h] = l->n++;
  return 0;
}

/* Offers the partial plan (record parent + group col, cost, rc) to state
 * at of layer l, which keeps its k cheapest. 0, 1 past the budget, or
 * KF_ENOMEM. */
static int kf__offer_plan(kf__sweep_t *s, kf__layer *l, int at, double cost, double rc,
                          int parent, int col)
{
  kf__sent *e = l->ent + (size_t)at * (size_t)s->k;
  int *nent = &l->st[at].nent, i = *nent < s->k ? *nent : s->k - 1, r;
  if (*nent == s->k && cost >= e[s->k - 1].cost)
    return 0;
  if ((r = kf__record(s, parent, col)) != 0)
    return r;
  for (; i > 0 && e[i - 1].cost > cost; i--)
    e[i] = e[i - 1];
  e[i] = (kf__sent){ cost, rc, s->nrec - 1 };
  if (*nent < s->k)
    ++*nent;
  return 0;
}

/* Adds the open entry (enter, reach) to the sorted list at key[0..*cnt)
 * (pairs of w words each), merging entries with equal reach. */
static void kf__open_insert(uint64_t *list, int *cnt, const uint64_t *enter,
                            const uint64_t *reach, int w)
{
  int i = 0, c = 0;
  for (; i < *cnt; i++) {
    const uint64_t *r = list + (size_t)(2 * i + 1) * (size_t)w;
    c = 0;
    for (int k = 0; k < w && !c; k++)
      c = r[k] < reach[k] ? -1 : r[k] > reach[k];
    if (c >= 0)
      break;
  }
  uint64_t *e = list + (size_t)(2 * i) * (size_t)w;
  if (i < *cnt && c == 0) {
    for (int k = 0; k < w; k++)
      e[k] |= enter[k];
    return;
  }
  memmove(e + 2 * w, e, sizeof(uint64_t) * (size_t)(2 * w) * (size_t)(*cnt - i));
  memcpy(e, enter, sizeof(uint64_t) * (size_t)w);
  memcpy(e + w, reach, sizeof(uint64_t) * (size_t)w);
  ++*cnt;
}

/* A state's key keeps the words from the one of its lowest uncovered
 * launch on: below it the covered set is all ones, entries and reaches all
 * zeros. full: covered (w words), count, count pairs (enter, reach). */
static int kf__pack(const uint64_t *full, int w, int base, uint64_t *out)
{
  int ww = w - base, cnt = (int)full[w], len = 0;
  memcpy(out, full + base, sizeof(uint64_t) * (size_t)ww);
  len += ww;
  out[len++] = (uint64_t)cnt;
  for (int i = 0; i < 2 * cnt; i++, len += ww)
    memcpy(out + len, full + w + 1 + (size_t)i * (size_t)w + base, sizeof(uint64_t) * (size_t)ww);
  return len;
}

static void kf__unpack(const uint64_t *key, int w, int base, uint64_t *full)
{
  int ww = w - base;
  for (int x = 0; x < base; x++)
    full[x] = ~0ull;
  memcpy(full + base, key, sizeof(uint64_t) * (size_t)ww);
  int cnt = (int)key[ww];
  full[w] = (uint64_t)cnt;
  for (int i = 0; i < 2 * cnt; i++) {
    uint64_t *f = full + w + 1 + (size_t)i * (size_t)w;
    memset(f, 0, sizeof(uint64_t) * (size_t)base);
    memcpy(f + base, key + ww + 1 + (size_t)i * (size_t)ww, sizeof(uint64_t) * (size_t)ww);
  }
}

int kf__sweep(const kf__dag *d, const kf__cands *c, const double *cost, const double *rc,
              double limit, int k, kf__work *work, int *chosen, int *nc, double *best,
              int *found, long *states)
{
  int n = d->n, w = d->words, r = KF_ENOMEM, at;
  long done = 0;
  *found = 0;
  kf__sweep_t s;
  memset(&s, 0, sizeof s);
  s.k = k;
  /* The groups below the limit, by lowest launch, cheapest reduced cost
   * first; each with its members and its dependents' reach. */
  int *start = calloc((size_t)n + 2, sizeof(int));
  kf__sgroup *order = malloc(sizeof *order * (size_t)(c->n + 1));
  uint64_t *gm = calloc((size_t)(c->n + 1) * (size_t)w, sizeof(uint64_t));
  uint64_t *gr = calloc((size_t)(c->n + 1) * (size_t)w, sizeof(uint64_t));
  size_t keymax = (size_t)w * (2 * (size_t)n + 3) + 1;
  uint64_t *key = malloc(sizeof(uint64_t) * keymax), *rg = malloc(sizeof(uint64_t) * (size_t)w);
  uint64_t *cur = malloc(sizeof(uint64_t) * keymax), *pk = malloc(sizeof(uint64_t) * keymax);
  uint64_t *tmpe = malloc(sizeof(uint64_t) * (size_t)w);
  uint64_t *tmpr = malloc(sizeof(uint64_t) * (size_t)w);
  s.layer = calloc((size_t)n + 1, sizeof(kf__layer));
  if (!start || !order || !gm || !gr || !key || !cur || !pk || !rg || !tmpe || !tmpr ||
      !s.layer)
    goto out;
  int ng = 0;
  for (int j = 0; j < c->n; j++)
    if (fmax(rc[j], 0) < limit) {
      start[c->c[j].members[0] + 1]++;
      order[ng++] = (kf__sgroup){ c->c[j].members[0], fmax(rc[j], 0), j };
    }
  for (int v = 0; v < n; v++)
    start[v + 1] += start[v];
  qsort(order, (size_t)ng, sizeof *order, kf__group_cmp);
  for (int i = 0; i < ng; i++) {
    const kf__cand *cand = &c->c[order[i].j];
    uint64_t *m = gm + (size_t)i * (size_t)w, *re = gr + (size_t)i * (size_t)w;
    for (int q = 0; q < cand->n; q++)
      m[cand->members[q] / 64] |= 1ull << (cand->members[q] % 64);
    for (int q = 0; q < cand->n; q++)
      for (int x = 0; x < w; x++)
        re[x] |= d->desc[(size_t)cand->members[q] * (size_t)w + (size_t)x];
    for (int x = 0; x < w; x++)
      re[x] &= ~m[x];
  }
  memset(key, 0, sizeof(uint64_t) * (size_t)(w + 1));
  if ((r = kf__state(&s, &s.layer[0], key, w + 1, &at)) != 0 ||
      (r = kf__offer_plan(&s, &s.layer[0], at, 0, 0, -1, -1)) != 0)
    goto out; /* the root: record 0 */
  for (int m = 0; m < n; m++) {
    kf__layer *l = &s.layer[m];
    for (int si = 0; si < l->n; si++) {
      ++done;
      if (kf__work_charge(work, 1)) {
        r = KF_ELIMIT;
        goto out;
      }
      kf__sstate st = l->st[si];
      const kf__sent *es = l->ent + (size_t)si * (size_t)k;
      double least = INFINITY; /* reduced cost */
      for (int e = 0; e < st.nent; e++)
        least = fmin(least, es[e].rc);
      kf__unpack(l->key + st.off, w, m / 64, cur);
      const uint64_t *cov = cur;
      int nopen = (int)cov[w];
      const uint64_t *open = cov + w + 1;
      for (int gi = start[m]; gi < start[m + 1]; gi++) {
        int j = order[gi].j;
        if (!(least + order[gi].r < limit))
          break;
        const uint64_t *g = gm + (size_t)gi * (size_t)w, *re = gr + (size_t)gi * (size_t)w;
        if (kf__any(g, cov, w))
          continue;
        for (int x = 0; x < w; x++)
          rg[x] = re[x] & ~cov[x];
        int o = 0;
        for (; o < nopen; o++) {
          const uint64_t *oe = open + (size_t)(2 * o) * (size_t)w, *orr = oe + w;
          if (!kf__any(oe, re, w))
            continue;
          if (kf__any(orr, g, w))
            break; /* G reaches O, which reaches G: a cycle */
          for (int x = 0; x < w; x++)
            rg[x] |= orr[x];
        }
        if (o < nopen)
          continue;
        /* The new state: covered, next lowest uncovered launch, opens. */
        uint64_t *nk = key;
        for (int x = 0; x < w; x++)
          nk[x] = cov[x] | g[x];
        int m2 = m;
        while (m2 < n && (nk[m2 / 64] >> (m2 % 64) & 1))
          m2++;
        for (int x = 0; x < w; x++)
          rg[x] &= ~nk[x];
        uint64_t *list = nk + w + 1;
        int cnt = 0;
        for (o = 0; o <= nopen; o++) {
          const uint64_t *oe = o < nopen ? open + (size_t)(2 * o) * (size_t)w : g;
          int reaches_g = o < nopen && kf__any(oe + w, g, w);
          for (int x = 0; x < w; x++) {
            uint64_t lo = x < m2 / 64 ? 0 : x == m2 / 64 ? ~0ull << (m2 % 64) : ~0ull;
            tmpe[x] = oe[x] & lo;
            tmpr[x] = o == nopen ? rg[x] : ((oe[w + x] | (reaches_g ? rg[x] : 0)) & ~nk[x]);
          }
          if (kf__nonzero(tmpe, w) && kf__nonzero(tmpr, w))
            kf__open_insert(list, &cnt, tmpe, tmpr, w);
        }
        nk[w] = (uint64_t)cnt;
        if ((r = kf__state(&s, &s.layer[m2], pk, kf__pack(nk, w, m2 / 64, pk), &at)) != 0)
          goto out;
        for (int e = 0; e < st.nent; e++)
          if (es[e].rc + order[gi].r < limit &&
              (r = kf__offer_plan(&s, &s.layer[m2], at, es[e].cost + cost[j],
                                  es[e].rc + order[gi].r, es[e].rec, j)) != 0)
            goto out;
      }
    }
    kf__layer_free(&s, l);
  }
  r = 0;
  for (int e = 0; s.layer[n].n && e < s.layer[n].st[0].nent; e++) {
    const kf__sent *es = s.layer[n].ent + e;
    best[e] = es->cost;
    nc[e] = 0;
    for (int q = es->rec; s.col[q] >= 0; q = s.parent[q])
      chosen[(size_t)e * (size_t)n + (size_t)nc[e]++] = s.col[q];
    ++*found;
  }
out:
  *states = done;
  if (s.layer)
    for (int m = 0; m <= n; m++)
      free(s.layer[m].key), free(s.layer[m].st), free(s.layer[m].ent), free(s.layer[m].tab);
  free(s.layer);
  free(s.parent);
  free(s.col);
  free(start);
  free(order);
  free(gm);
  free(gr);
  free(key);
  free(cur);
  free(pk);
  free(rg);
  free(tmpe);
  free(tmpr);
  return r;
}
