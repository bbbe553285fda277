/* Matching a site's launches against the groups of the manifests: which
 * fused kernel covers which consecutive launches. The runtime matches at a
 * site's first call; the host pass matches the same way at compile time,
 * against the manifest of the fatbinary it embeds. */
#ifndef KFUSE_MANIFEST_MATCH_H
#define KFUSE_MANIFEST_MATCH_H

#include <stdint.h>

#include "manifest/manifest.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What discovery learnt about one launch. */
typedef struct kf__launch_id {
  const char *name;               /**< mangled kernel name; NULL when unknown */
  uint32_t nargs;
  const kf__manifest_t *manifest; /**< of the kernel's module; NULL when none */
} kf__launch_id_t;

/** A consecutive run of a site's launches: one fused group, or launches no
 * group covers (group NULL), which run unfused. */
typedef struct kf__cover {
  uint32_t first;
  uint32_t count;
  const kf__group_t *group;
} kf__cover_t;

/**
 * Covers launches 0..n-1 greedily front to back: at each launch, the group
 * of that launch's manifest with the most launches whose kernel names and
 * parameter counts equal the next launches (all from the same manifest)
 * wins, ties going to the earlier group; a launch no group starts at joins
 * an unfused cover. Only groups of plan @p rank take part
 * (kf__group_in_plan()); a group with an `at` line only at its own
 * sequence's site (@p n equal to its at_length, @p where naming its
 * at_function and at_line:at_col, see kf__where_key()) and position (launch
 * at_first); and a group with a `plans` line only at its own sequence's
 * sites (@p n equal to its plan_length, @p where naming its plan_function,
 * see kf__where_function()) and position (launch plan_first).
 * @param covers receives a malloc'd array of *ncovers covers, in launch order.
 * @returns 0 or KF_ENOMEM.
 */
int kf__match(const kf__launch_id_t *ids, uint32_t n, uint32_t rank, const char *where,
              kf__cover_t **covers, uint32_t *ncovers);

/** Nonzero when groups of the manifests of @p ids have `at` lines for this
 * very site (as kf__match() places them) and none of them is of plan @p
 * rank: the device pass planned the site's sequence, and that plan leaves
 * its launches unfused by choice. */
int kf__site_planned(const kf__launch_id_t *ids, uint32_t n, uint32_t rank, const char *where);

/** @returns how many groups of @p m without a `plans` or `at` line have the
 * kernel list of @p g (names and parameter counts, in order), @p g
 * included: the matcher binds any site of those kernels to the first of
 * them. 0 when @p g has such a line. */
uint32_t kf__group_twins(const kf__manifest_t *m, const kf__group_t *g);

/** The sequence key of a site's `where`, "<file>:<line>:<col> <function>":
 * the line and column of its first launch, which with the function and the
 * site's launch count bind it to the groups whose `at` line names them
 * (the file is not part of the key). @returns 1, or 0 with *line = *col = 0
 * for NULL or another shape ("<function> launch <i>"). */
int kf__where_key(const char *where, uint32_t *line, uint32_t *col);

/** The host function a site's `where` names: "<file>:<line>:<col> <function>"
 * or "<function> launch <i>" (pass/llvm/HostRewrite.cpp). @returns its start
 * and length in @p len; "" for NULL or another shape. */
const char *kf__where_function(const char *where, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
