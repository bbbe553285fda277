/* Greedy front-to-back cover of a site's launches by manifest groups. */
#include "manifest/match.h"

#include <stdlib.h>
#include <string.h>

/* Nonzero when group @p g matches launches ids[i..i+g->nlaunches). */
static int kf__group_fits(const kf__group_t *g, const kf__manifest_t *m, const kf__launch_id_t *ids,
                          uint32_t i, uint32_t n)
{
  if (g->nlaunches > n - i)
    return 0;
  for (uint32_t j = 0; j < g->nlaunches; j++) {
    const kf__launch_id_t *id = &ids[i + j];
    if (id->manifest != m || id->name == NULL || id->nargs != g->kernels[j].nparams ||
        strcmp(id->name, g->kernels[j].name) != 0)
      return 0;
  }
  return 1;
}

/* The launches a group covers: its span, or its set's (`part`). */
static uint32_t kf__cover_length(const kf__group_t *g)
{
  return g->part_id != 0 ? g->part_span : g->nlaunches;
}

/* Nonzero when @p g, and the other groups of its set, match their launches
 * from ids[i] on. */
static int kf__cover_fits(const kf__group_t *g, const kf__manifest_t *m, const kf__launch_id_t *ids,
                          uint32_t i, uint32_t n)
{
  if (kf__cover_length(g) > n - i || !kf__group_fits(g, m, ids, i, n))
    return 0;
  for (const kf__group_t *p = g->part_next; p != NULL; p = p->part_next)
    if (!kf__group_fits(p, m, ids, i + p->part_offset, n))
      return 0;
  return 1;
}

uint32_t kf__group_twins(const kf__manifest_t *m, const kf__group_t *g)
{
  uint32_t n = 0;
  if (g->at_function != NULL)
    return 0;
  for (uint32_t k = 0; k < m->ngroups; k++) {
    const kf__group_t *h = &m->groups[k];
    uint32_t j = 0;
    if (h->plan_count != 0 || h->at_function != NULL || h->nlaunches != g->nlaunches)
      continue;
    while (j < h->nlaunches && h->kernels[j].nparams == g->kernels[j].nparams &&
           strcmp(h->kernels[j].name, g->kernels[j].name) == 0)
      j++;
    n += j == h->nlaunches;
  }
  return n;
}

const char *kf__where_function(const char *where, size_t *len)
{
  const char *sp, *p;
  *len = 0;
  if (where == NULL)
    return "";
  /* "<function> launch <digits>" */
  p = where + strlen(where);
  while (p > where && p[-1] >= '0' && p[-1] <= '9')
    p--;
  if (*p != '\0' && p - where > 8 && strncmp(p - 8, " launch ", 8) == 0) {
    *len = (size_t)(p - 8 - where);
    return where;
  }
  /* "<file>:<line>:<col> <function>" */
  if ((sp = strrchr(where, ' ')) == NULL)
    return "";
  *len = strlen(sp + 1);
  return sp + 1;
}

int kf__where_key(const char *where, uint32_t *line, uint32_t *col)
{
  const char *sp, *p;
  uint64_t v[2] = {0, 0};
  *line = *col = 0;
  if (where == NULL || (sp = strrchr(where, ' ')) == NULL)
    return 0;
  /* Backwards from the space: <col>, ':', <line>, ':'. */
  p = sp;
  for (int k = 1; k >= 0; k--) {
    uint64_t scale = 1;
    const char *end = p;
    while (p > where && p[-1] >= '0' && p[-1] <= '9' && end - p < 9) {
      p--;
      v[k] += (uint64_t)(*p - '0') * scale;
      scale *= 10;
    }
    if (p == end || p == where || p[-1] != ':')
      return 0;
    p--;
  }
  *line = (uint32_t)v[0];
  *col = (uint32_t)v[1];
  return 1;
}

/* Nonzero when @p g may cover launch @p i of a site of @p n launches in
 * function @p fn (@p fnlen bytes) whose first launch is at @p line : @p col
 * (0 when unknown) under plan @p rank. */
/* Nonzero when @p g's `at` line names launch @p i of this site. */
static int kf__group_at(const kf__group_t *g, uint32_t i, uint32_t n, const char *fn, size_t fnlen,
                        uint32_t line, uint32_t col)
{
  return g->at_function != NULL && line != 0 && g->at_line == line && g->at_col == col &&
         g->at_first == i && g->at_length == n && strlen(g->at_function) == fnlen &&
         memcmp(g->at_function, fn, fnlen) == 0;
}

static int kf__group_placed(const kf__group_t *g, uint32_t rank, uint32_t i, uint32_t n,
                            const char *fn, size_t fnlen, uint32_t line, uint32_t col)
{
  if (!kf__group_in_plan(g, rank))
    return 0;
  if (g->at_function != NULL && !kf__group_at(g, i, n, fn, fnlen, line, col))
    return 0;
  return g->plan_count == 0 || (g->plan_first == i && g->plan_length == n &&
                                strlen(g->plan_function) == fnlen &&
                                memcmp(g->plan_function, fn, fnlen) == 0);
}

int kf__site_planned(const kf__launch_id_t *ids, uint32_t n, uint32_t rank, const char *where)
{
  size_t fnlen;
  uint32_t line, col;
  const char *fn = kf__where_function(where, &fnlen);
  int any = 0;
  kf__where_key(where, &line, &col);
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = 0; ids[i].manifest != NULL && k < ids[i].manifest->ngroups; k++) {
      const kf__group_t *g = &ids[i].manifest->groups[k];
      if (!kf__group_at(g, i, n, fn, fnlen, line, col))
        continue;
      if (kf__group_in_plan(g, rank))
        return 0; /* a group of this plan that did not match: not by choice */
      any = 1;
    }
  return any;
}

int kf__match(const kf__launch_id_t *ids, uint32_t n, uint32_t rank, const char *where,
              kf__cover_t **covers, uint32_t *ncovers)
{
  size_t fnlen;
  uint32_t line, col;
  const char *fn = kf__where_function(where, &fnlen);
  kf__cover_t *s = calloc(n ? n : 1, sizeof *s); /* at most one cover per launch */
  uint32_t ns = 0;
  *covers = NULL;
  *ncovers = 0;
  if (s == NULL)
    return KF_ENOMEM;
  kf__where_key(where, &line, &col);
  for (uint32_t i = 0; i < n;) {
    const kf__manifest_t *m = ids[i].manifest;
    const kf__group_t *best = NULL;
    for (uint32_t k = 0; m != NULL && k < m->ngroups; k++) {
      const kf__group_t *g = &m->groups[k];
      /* A set (`part`) is found by its part 0, which runs first. */
      if (g->part_id != 0 && g->part != 0)
        continue;
      if ((best == NULL || kf__cover_length(g) > kf__cover_length(best)) &&
          kf__group_placed(g, rank, i, n, fn, fnlen, line, col) && kf__cover_fits(g, m, ids, i, n))
        best = g;
    }
    if (best != NULL) {
      s[ns].first = i;
      s[ns].count = kf__cover_length(best);
      s[ns].group = best;
      ns++;
      i += kf__cover_length(best);
    } else if (ns > 0 && s[ns - 1].group == NULL) {
      s[ns - 1].count++;
      i++;
    } else {
      s[ns].first = i;
      s[ns].count = 1;
      s[ns].group = NULL;
      ns++;
      i++;
    }
  }
  *covers = s;
  *ncovers = ns;
  return 0;
}
