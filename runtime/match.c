/* Greedy front-to-back cover of a site's launches by manifest groups. */
#include "runtime/match.h"

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

int kf__match(const kf__launch_id_t *ids, uint32_t n, uint32_t rank, kf__segment_t **segs,
              uint32_t *nsegs)
{
  kf__segment_t *s = calloc(n ? n : 1, sizeof *s); /* at most one segment per launch */
  uint32_t ns = 0;
  *segs = NULL;
  *nsegs = 0;
  if (s == NULL)
    return KF_ENOMEM;
  for (uint32_t i = 0; i < n;) {
    const kf__manifest_t *m = ids[i].manifest;
    const kf__group_t *best = NULL;
    for (uint32_t k = 0; m != NULL && k < m->ngroups; k++) {
      const kf__group_t *g = &m->groups[k];
      if ((best == NULL || g->nlaunches > best->nlaunches) && kf__group_in_plan(g, rank) &&
          (g->plan_count == 0 || g->plan_first == i) && kf__group_fits(g, m, ids, i, n))
        best = g;
    }
    if (best != NULL) {
      s[ns].first = i;
      s[ns].count = best->nlaunches;
      s[ns].group = best;
      ns++;
      i += best->nlaunches;
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
  *segs = s;
  *nsegs = ns;
  return 0;
}
