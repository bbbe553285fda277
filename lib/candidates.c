/* Candidate groups: convex (no path leaves the group and re-enters), at
 * most k launches, legal per the caller's callback, and either consecutive
 * or connected (through dependencies or shared buffers); each costed in its
 * best linearisation and variant assignment (and, for the k best plans, in
 * its next best assignments too, a candidate each). Consecutive groups are listed
 * first and completely (n * k of them), the others under the work budget: a sequence of launches
 * that all share one buffer has C(n, k) connected groups of k launches.
 * Also the quotient-graph cycle check of a partition. */
#include <math.h>
#include <string.h>
#include "plan_int.h"

/* Nonzero if assignment a is before b: cheaper, then of the lower tie rank
 * (kf_variant_t.tie_rank), then first in the odometer's order below (the
 * variant of the last launch of the linearised order most significant), so
 * that of equal costs and ranks the first found stays first. */
static int kf__alt_less(const kf__cand *a, const kf__cand *b)
{
  if (a->cost != b->cost)
    return a->cost < b->cost;
  if (a->tie != b->tie)
    return a->tie < b->tie;
  for (int i = a->n - 1; i >= 0; i--)
    if (a->variants[i] != b->variants[i])
      return a->variants[i] < b->variants[i];
  return 0;
}

int kf__cand_eval_alts(const kf_problem *p, const kf__dag *d, const kf_model *m,
                       const int *members, int n, int alts, kf__cand *c, int *nc)
{
  memset(c, 0, sizeof *c);
  c->n = n;
  memcpy(c->members, members, sizeof(int) * (size_t)n);
  c->cost = INFINITY;
  *nc = 1;
  int rc = kf__linearize(p, d, members, n, c->order, NULL);
  if (rc)
    return rc;
  /* Every variant assignment, as an odometer; capped for safety. The
   * variant callback sees the members in launch order: pos[j] is where
   * members[j] (ascending) stands in the linearised order. */
  int var[KF__MAXK] = { 0 }, pos[KF__MAXK], byl[KF__MAXK];
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      if (c->order[i] == members[j])
        pos[j] = i;
  int have = 0;
  for (long it = 0; it < 6561; it++) {
    kf_estimate_t e;
    int allowed = 1;
    if (p->legal_variants) {
      for (int j = 0; j < n; j++)
        byl[j] = var[pos[j]];
      allowed = p->legal_variants(p->legal_variants_user, members, byl, n) != 0;
    }
    rc = allowed ? kf_model_estimate(m, p, c->order, var, n, &e) : 0;
    if (rc)
      return rc;
    if (allowed && (isnan(e.time) || e.time < 0))
      return KF_ERANGE; /* a replaced cost function's nonsense */
    if (allowed && e.time < INFINITY) {
      /* Into the sorted list c[0..have) of at most alts. */
      kf__cand x = c[0];
      x.cost = e.time;
      x.est = e;
      x.tie = 0;
      for (int i = 0; i < n; i++)
        x.tie += kf__variant_of(p, c->order[i], var[i])->tie_rank;
      memcpy(x.variants, var, sizeof(int) * (size_t)n);
      if (have < alts || kf__alt_less(&x, &c[have - 1])) {
        int i = have < alts ? have++ : have - 1;
        for (; i > 0 && kf__alt_less(&x, &c[i - 1]); i--)
          c[i] = c[i - 1];
        c[i] = x;
      }
    }
    int i = 0;
    while (i < n && ++var[i] == kf__variant_count(p, c->order[i]))
      var[i++] = 0;
    if (i == n)
      break;
  }
  if (have) {
    *nc = have;
  } else {
    memset(c->variants, 0, sizeof c->variants);
    memset(&c->est, 0, sizeof c->est);
  }
  return 0;
}

int kf__cand_eval(const kf_problem *p, const kf__dag *d, const kf_model *m,
                  const int *members, int n, kf__cand *c)
{
  int nc;
  return kf__cand_eval_alts(p, d, m, members, n, 1, c, &nc);
}

typedef struct kf__esu {
  const kf_problem *p;
  const kf__dag *d;
  const kf_model *m;
  kf__cands *out;
  int k, root;
  int set[KF__MAXK], n;
  int *near;        /* members of set or adjacent to it, counted */
  uint64_t *scratch;
  kf__work *w;      /* charged one unit per group visited */
  int alts;         /* variant assignments kept per group of several launches */
  int rc;
} kf__esu;

static int kf__icmp(const void *a, const void *b)
{
  return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Work units a costed group counts for (a set visited counts one). */
#define KF__EVAL_WORK 16

static void kf__esu_record(kf__esu *s)
{
  int mem[KF__MAXK];
  memcpy(mem, s->set, sizeof(int) * (size_t)s->n);
  qsort(mem, (size_t)s->n, sizeof(int), kf__icmp);
  if (s->n > 1) {
    if (!kf__dag_convex(s->d, mem, s->n, s->scratch))
      return;
    if (s->p->legal && !s->p->legal(s->p->legal_user, mem, s->n))
      return;
  }
  /* Costing a group (its orders, staging allocation and variants) takes
   * about as long as visiting a few dozen sets. */
  kf__work_charge(s->w, KF__EVAL_WORK);
  kf__cand one, *c = &one;
  int nc = 1, alts = s->n > 1 ? s->alts : 1;
  if (alts > 1 && !(c = malloc(sizeof(kf__cand) * (size_t)alts))) {
    s->rc = KF_ENOMEM;
    return;
  }
  int rc = kf__cand_eval_alts(s->p, s->d, s->m, mem, s->n, alts, c, &nc);
  if (rc) {
    s->rc = rc;
  } else if (s->n == 1 && !isfinite(c[0].cost)) {
    s->rc = KF_EINFEASIBLE; /* a launch that cannot run even alone */
  } else {
    /* Keep a group only if it beats its launches alone: a group that does
     * not can be split into singletons with no loss and no new cycle. */
    double alone = 0;
    for (int i = 0; i < s->n && s->n > 1; i++)
      alone += s->out->c[s->out->single[mem[i]]].cost;
    for (int a = 0; a < nc; a++) {
      if (s->n > 1 && !(c[a].cost < alone * (1 - 1e-9)))
        break; /* the later ones cost as much or more */
      if (kf__grow((void **)&s->out->c, &s->out->cap, s->out->n + 1, sizeof(kf__cand))) {
        s->rc = KF_ENOMEM;
        break;
      }
      s->out->c[s->out->n++] = c[a];
    }
  }
  if (c != &one)
    free(c);
}

static void kf__near_add(kf__esu *s, int w, int delta)
{
  s->near[w] += delta;
  for (int q = s->d->nb_start[w]; q < s->d->nb_start[w + 1]; q++)
    s->near[s->d->nb[q]] += delta;
}

/* Nonzero if the launches of set[0..n) are consecutive (i..j). */
static int kf__is_run(const int *set, int n)
{
  int lo = set[0], hi = set[0];
  for (int i = 1; i < n; i++) {
    lo = set[i] < lo ? set[i] : lo;
    hi = set[i] > hi ? set[i] : hi;
  }
  return hi - lo == n - 1; /* the members are distinct */
}

/* The size of the convex hull of set[0..n): the members and every launch
 * on a path between two of them. A group holding the set holds its hull
 * too, so past k no superset is a candidate. */
static int kf__hull_size(const kf__esu *s)
{
  const kf__dag *d = s->d;
  int W = d->words, size = 0;
  uint64_t *out = s->scratch, *in = s->scratch + W;
  memset(out, 0, sizeof(uint64_t) * 2 * (size_t)W);
  for (int i = 0; i < s->n; i++) {
    int v = s->set[i];
    for (int w = 0; w < W; w++) {
      out[w] |= d->desc[(size_t)v * W + w];
      in[w] |= d->anc[(size_t)v * W + w];
    }
  }
  for (int i = 0; i < s->n; i++) /* members are on no such path themselves */
    out[s->set[i] / 64] &= ~(1ull << (s->set[i] % 64));
  for (int w = 0; w < W; w++)
    size += __builtin_popcountll(out[w] & in[w]);
  return size + s->n;
}

/* ESU (Wernicke): every connected set containing root as its smallest
 * vertex is produced exactly once; those of exactly s->k launches that
 * are not consecutive (kf__runs recorded those) are recorded. A set whose
 * convex hull exceeds the group size ends its branch: in a chain of
 * launches that all read one array, launches 0 and 9 are connected, but
 * every group holding both holds 1..8 too. The walk stops, with
 * s->out->truncated set, when the work budget is spent, one unit per set
 * visited. */
static void kf__esu_extend(kf__esu *s, const int *ext, int next)
{
  if (kf__work_charge(s->w, 1)) {
    s->out->truncated = 1;
    return;
  }
  if (s->n >= 2 && kf__hull_size(s) > s->k)
    return;
  if (s->n == s->k) {
    if (!kf__is_run(s->set, s->n))
      kf__esu_record(s);
    return;
  }
  if (s->rc || s->out->truncated)
    return;
  int local[KF__MAXK * 64 + 64];
  int nl = next < (int)(sizeof local / sizeof local[0]) ? next : (int)(sizeof local / sizeof local[0]);
  memcpy(local, ext, sizeof(int) * (size_t)nl);
  while (nl > 0 && !s->rc && !s->out->truncated) {
    int w = local[--nl];
    int ext2[KF__MAXK * 64 + 64];
    int n2 = nl;
    memcpy(ext2, local, sizeof(int) * (size_t)nl);
    for (int q = s->d->nb_start[w]; q < s->d->nb_start[w + 1]; q++) {
      int u = s->d->nb[q];
      if (u > s->root && s->near[u] == 0 && n2 < (int)(sizeof ext2 / sizeof ext2[0]))
        ext2[n2++] = u;
    }
    s->set[s->n++] = w;
    kf__near_add(s, w, 1);
    kf__esu_extend(s, ext2, n2);
    kf__near_add(s, w, -1);
    s->n--;
  }
}

/* Member sets of the candidates, hashed, to find a group's subsets. */
typedef struct kf__cset {
  const kf__cands *c;
  int *slot; /* candidate index + 1, 0 when empty */
  size_t mask;
} kf__cset;

static size_t kf__members_hash(const int *mem, int n)
{
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < n; i++)
    h = (h ^ (uint64_t)(unsigned)mem[i]) * 1099511628211ull;
  return (size_t)(h ^ h >> 29);
}

static int kf__cset_build(kf__cset *s, const kf__cands *c)
{
  size_t cap = 16;
  while (cap < 2 * (size_t)c->n)
    cap *= 2;
  s->c = c;
  s->mask = cap - 1;
  s->slot = calloc(cap, sizeof(int));
  if (!s->slot)
    return KF_ENOMEM;
  for (int i = 0; i < c->n; i++) {
    size_t h = kf__members_hash(c->c[i].members, c->c[i].n) & s->mask;
    while (s->slot[h])
      h = (h + 1) & s->mask;
    s->slot[h] = i + 1;
  }
  return 0;
}

/* The candidate with exactly members mem[0..n) (ascending), or -1. */
static int kf__cset_find(const kf__cset *s, const int *mem, int n)
{
  size_t h = kf__members_hash(mem, n) & s->mask;
  for (; s->slot[h]; h = (h + 1) & s->mask) {
    const kf__cand *g = &s->c->c[s->slot[h] - 1];
    if (g->n == n && !memcmp(g->members, mem, sizeof(int) * (size_t)n))
      return s->slot[h] - 1;
  }
  return -1;
}

/* Cost of the cheapest refinement of group g into smaller listed candidates
 * whose order inside g is acyclic: a dynamic program over the down-closed
 * subsets of g (each step adds a part none of whose predecessors in g is
 * left out). */
static double kf__refinement_cost(const kf__dag *d, const kf__cset *s, const kf__cand *g)
{
  int n = g->n, full = (1 << n) - 1;
  unsigned pred[KF__MAXK] = { 0 };
  for (int i = 0; i < n; i++)
    for (int q = d->succ_start[g->members[i]]; q < d->succ_start[g->members[i] + 1]; q++)
      for (int j = 0; j < n; j++)
        if (g->members[j] == d->succ[q])
          pred[j] |= 1u << i;
  double part[1 << KF__MAXK], best[1 << KF__MAXK];
  for (int sub = 1; sub < full; sub++) {
    int mem[KF__MAXK], c = 0;
    for (int i = 0; i < n; i++)
      if (sub >> i & 1)
        mem[c++] = g->members[i];
    int at = kf__cset_find(s, mem, c);
    part[sub] = at < 0 ? INFINITY : s->c->c[at].cost;
  }
  for (int sub = 0; sub <= full; sub++)
    best[sub] = INFINITY;
  best[0] = 0;
  for (int done = 0; done < full; done++) {
    if (!isfinite(best[done]))
      continue;
    int left = full & ~done;
    for (int sub = left; sub; sub = (sub - 1) & left) {
      if (sub == full || !isfinite(part[sub]))
        continue;
      int ok = 1;
      for (int i = 0; i < n && ok; i++)
        if ((sub >> i & 1) && (pred[i] & ~(unsigned)(done | sub)))
          ok = 0;
      if (ok && best[done] + part[sub] < best[done | sub])
        best[done | sub] = best[done] + part[sub];
    }
  }
  return best[full];
}

/* Dominance: a group that costs at least its cheapest acyclic refinement is
 * dropped. In a plan it can be replaced by its parts: edges between the
 * parts follow their order inside the group and every other edge of the
 * plan's group graph is unchanged, so no cycle appears and the cost does not
 * rise. The refinement may use groups that are dropped themselves; refining
 * those in turn ends at kept groups (the parts shrink), so the optimum is
 * kept. */
static int kf__cands_prune(const kf__dag *d, kf__cands *c)
{
  kf__cset s;
  if (kf__cset_build(&s, c))
    return KF_ENOMEM;
  char *drop = calloc((size_t)c->n + 1, 1);
  if (!drop) {
    free(s.slot);
    return KF_ENOMEM;
  }
  for (int i = 0; i < c->n; i++)
    if (c->c[i].n > 1)
      drop[i] = !(c->c[i].cost < kf__refinement_cost(d, &s, &c->c[i]) * (1 - 1e-9));
  free(s.slot);
  int w = 0;
  for (int i = 0; i < c->n; i++) {
    if (drop[i])
      continue;
    if (c->c[i].n == 1)
      c->single[c->c[i].members[0]] = w;
    c->c[w++] = c->c[i];
  }
  c->n = w;
  free(drop);
  return 0;
}

/* The consecutive groups of 2..k launches, all of them: each is convex
 * (dependencies point forward in launch order), so only legality and cost
 * decide. A run need not be connected: launches that share nothing fuse
 * horizontally (one launch, each thread running every member), which the
 * model credits with the launches it saves. */
static void kf__runs(kf__esu *s, int n)
{
  for (int first = 0; first < n && !s->rc; first++)
    for (int len = 2; len <= s->k && first + len <= n && !s->rc; len++) {
      for (int i = 0; i < len; i++)
        s->set[i] = first + i;
      s->n = len;
      kf__esu_record(s);
    }
}

int kf__cands_build(const kf_problem *p, const kf__dag *d, const kf_model *m,
                    int k, int alts, kf__work *w, kf__cands *out)
{
  memset(out, 0, sizeof *out);
  if (k < 1 || k > KF__MAXK || alts < 1)
    return KF_EINVAL;
  int n = p->nl;
  out->single = malloc(sizeof(int) * (size_t)(n + 1));
  kf__esu s;
  memset(&s, 0, sizeof s);
  s.near = calloc((size_t)n + 1, sizeof(int));
  s.scratch = malloc(sizeof(uint64_t) * 3 * (size_t)(d->words + 1));
  if (!out->single || !s.near || !s.scratch) {
    free(s.near);
    free(s.scratch);
    kf__cands_free(out);
    return KF_ENOMEM;
  }
  s.p = p;
  s.d = d;
  s.m = m;
  s.out = out;
  s.w = w;
  s.alts = alts;
  s.k = 1;
  /* Singletons first: groups are compared against them. */
  for (int v = 0; v < n && !s.rc; v++) {
    out->single[v] = out->n;
    s.set[0] = v;
    s.n = 1;
    kf__esu_record(&s);
  }
  s.k = k;
  kf__runs(&s, n);
  /* The other groups by size, smallest first, while the budget lasts: a
   * budget too small for every group of k launches still yields all the
   * smaller ones, and more budget only adds larger groups. */
  for (int size = 2; size <= k && !s.rc && !p->consecutive && !out->truncated; size++) {
    s.k = size;
    for (int v = 0; v < n && !s.rc && !out->truncated; v++) {
      s.root = v;
      s.set[0] = v;
      s.n = 1;
      kf__near_add(&s, v, 1);
      int ext[KF__MAXK * 64 + 64], ne = 0;
      for (int q = d->nb_start[v]; q < d->nb_start[v + 1]; q++)
        if (d->nb[q] > v && ne < (int)(sizeof ext / sizeof ext[0]))
          ext[ne++] = d->nb[q];
      kf__esu_extend(&s, ext, ne);
      kf__near_add(&s, v, -1);
    }
  }
  free(s.near);
  free(s.scratch);
  out->enumerated = out->n;
  if (!s.rc && k > 1)
    s.rc = kf__cands_prune(d, out);
  if (s.rc)
    kf__cands_free(out);
  return s.rc;
}

void kf__cands_free(kf__cands *c)
{
  free(c->c);
  free(c->single);
  memset(c, 0, sizeof *c);
}

int kf__quotient_cycle(const kf__dag *d, const kf__cands *c, const int *chosen,
                       int nc, int *cycle, int *clen, int *topo)
{
  int n = d->n, found = 0;
  int *gof = malloc(sizeof(int) * (size_t)(n + 1));
  int *indeg = calloc((size_t)nc + 1, sizeof(int));
  int *head = malloc(sizeof(int) * (size_t)(nc + 1));
  int *nxt = malloc(sizeof(int) * (size_t)(d->nedges + 1));
  int *to = malloc(sizeof(int) * (size_t)(d->nedges + 1));
  int *state = calloc((size_t)nc + 1, sizeof(int));
  int *stack = malloc(sizeof(int) * (size_t)(nc + 1));
  int *it = malloc(sizeof(int) * (size_t)(nc + 1));
  int *queue = malloc(sizeof(int) * (size_t)(nc + 1));
  if (!gof || !indeg || !head || !nxt || !to || !state || !stack || !it || !queue) {
    found = KF_ENOMEM;
    goto out;
  }
  for (int g = 0; g < nc; g++) {
    head[g] = -1;
    const kf__cand *cg = &c->c[chosen[g]];
    for (int i = 0; i < cg->n; i++)
      gof[cg->members[i]] = g;
  }
  int ne = 0;
  for (int e = 0; e < d->nedges; e++) {
    int a = gof[d->efrom[e]], b = gof[d->eto[e]];
    if (a == b)
      continue;
    to[ne] = b;
    nxt[ne] = head[a];
    head[a] = ne++;
    indeg[b]++;
  }
  /* Kahn's order; if it stalls, find a cycle by DFS for the cut. */
  int qh = 0, qt = 0;
  for (int g = 0; g < nc; g++)
    if (!indeg[g])
      queue[qt++] = g;
  while (qh < qt) {
    int g = queue[qh++];
    for (int e = head[g]; e >= 0; e = nxt[e])
      if (--indeg[to[e]] == 0)
        queue[qt++] = to[e];
  }
  if (qt == nc) {
    if (topo)
      memcpy(topo, queue, sizeof(int) * (size_t)nc);
    goto out;
  }
  found = 1;
  for (int r = 0; r < nc && found == 1; r++) {
    if (state[r] || indeg[r] == 0)
      continue;
    int sp = 0;
    stack[sp] = r;
    it[sp] = head[r];
    state[r] = 1;
    while (sp >= 0) {
      int g = stack[sp];
      if (it[sp] < 0) {
        state[g] = 2;
        sp--;
        continue;
      }
      int e = it[sp];
      it[sp] = nxt[e];
      int h = to[e];
      if (state[h] == 1) {
        int k = 0, q = sp;
        while (stack[q] != h)
          q--;
        for (; q <= sp; q++)
          cycle[k++] = chosen[stack[q]];
        *clen = k;
        found = 2;
        break;
      }
      if (state[h] == 0) {
        state[h] = 1;
        stack[++sp] = h;
        it[sp] = head[h];
      }
    }
  }
  found = 1;
out:
  free(gof);
  free(indeg);
  free(head);
  free(nxt);
  free(to);
  free(state);
  free(stack);
  free(it);
  free(queue);
  return found;
}
