/* Matching a site's launches against the groups of the manifests: which
 * fused kernel covers which consecutive launches. */
#ifndef KFUSE_RUNTIME_MATCH_H
#define KFUSE_RUNTIME_MATCH_H

#include <stdint.h>

#include "runtime/manifest.h"
#include "runtime/site.h"

/** What discovery learnt about one launch. */
typedef struct kf__launch_id {
  const char *name;               /**< mangled kernel name; NULL when unknown */
  uint32_t nargs;
  const kf__manifest_t *manifest; /**< of the kernel's module; NULL when none */
} kf__launch_id_t;

/**
 * Covers launches 0..n-1 greedily front to back: at each launch, the group
 * of that launch's manifest with the most launches whose kernel names and
 * parameter counts equal the next launches (all from the same manifest)
 * wins, ties going to the earlier group; a launch no group starts at joins
 * an unfused segment. Only groups of plan @p rank take part
 * (kf__group_in_plan()), and a group with a `plans` line only at its own
 * position (launch plan_first of the site).
 * @param segs receives a malloc'd array of *nsegs segments (fused = NULL).
 * @returns 0 or KF_ENOMEM.
 */
int kf__match(const kf__launch_id_t *ids, uint32_t n, uint32_t rank, kf__segment_t **segs,
              uint32_t *nsegs);

#endif
