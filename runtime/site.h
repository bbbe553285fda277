/* What libkfuse_rt keeps per call site (the published match and the
 * KFUSE_STATS counters) and the configuration read from the environment. */
#ifndef KFUSE_RUNTIME_SITE_H
#define KFUSE_RUNTIME_SITE_H

#include <stdint.h>
#include <stdio.h>

#include "kfuse/rt.h"
#include "manifest/manifest.h"
#include "runtime/cuda_api.h"

/** The environment, read once at the first call. */
typedef struct kf__config {
  int disable; /**< KFUSE_DISABLE */
  int stats;   /**< KFUSE_STATS */
  int verify;  /**< KFUSE_VERIFY=1: compare fused with unfused */
  int poison;  /**< KFUSE_VERIFY=1 or =scratch: poison scratch buffers (poison.h) */
  /** stats, verify or poison: a call asks whether it is being captured. */
  int observe;
  /** KFUSE_PLAN, then kf_rt_select_plan(); read with relaxed atomics. */
  uint32_t plan;
} kf__config_t;

extern kf__config_t kf__config;

/** Bumped by kf_rt_select_plan(): a site state of an older generation is
 * matched again at its site's next call. */
extern uint32_t kf__generation;

/** A cover of a site's launches (manifest/match.h: one fused group, or
 * launches no group covers, group NULL, which run unfused) and what the
 * runtime keeps for it. */
typedef struct kf__segment {
  uint32_t first;
  uint32_t count;
  const kf__group_t *group;
  CUfunction fused; /**< the group's kernel; a CUkernel cast when found in a library */
  /** A set (`part`): group is its part 0, count the launches the set
   * covers; the kernels of parts 1, 2, ... (group->part_next on) and their
   * scratch bits. */
  CUfunction fused_later[KF__MANIFEST_MAX_PARTS - 1];
  uint64_t declared_later[KF__MANIFEST_MAX_PARTS - 1];
  /** Bits of the group's `dead` lines whose (launch, param) the site's
   * scratch table lists: a `dead` bit there is a declaration, not a proof. */
  uint64_t declared;
  /** Last pure guard pass (memo.h); NULL until one; published atomically. */
  struct kf__memo *memo;
} kf__segment_t;

/** The runtime's half of a kf_site_t, published once in site->cache. */
typedef struct kf__site_state {
  const char *where;
  uint32_t n;
  /** KF_FALLBACK_COUNT, or a reason that sends every call to the originals
   * (DISABLED, NO_MANIFEST, CAPTURE). */
  kf_fallback_t whole;
  /** Nonzero for a provisional state: discovery could not finish while a
   * launch's stream was capturing (whole is CAPTURE). The next call
   * discovers again and, when it gets further, publishes its state as this
   * one's successor. */
  int retry;
  /** The state that replaced this provisional one (KFUSE_STATS adds this
   * one's counters to it); NULL otherwise. Published atomically. */
  struct kf__site_state *successor;
  /** Set once KFUSE_VERIFY said that it skips this site's captured calls. */
  int capture_noted;
  uint32_t nsegs;
  kf__segment_t *segs;
  /** Some segment's group has an `at` line: the segments are the plan the
   * device pass made for this very sequence, and launches no group covers
   * are ones it chose to leave unfused (not a `no-match` fallback). */
  int planned;
  char **names; /**< n original kernel names (NULL entries when unknown) */
  uint32_t plan;       /**< the plan rank the segments were matched for */
  uint32_t generation; /**< kf__generation when matched */
  struct kf__site_state *next; /**< the KFUSE_STATS registry */
  /* Counters, updated with relaxed atomics. */
  uint64_t calls;
  uint64_t fused;
  uint64_t fallback;
  uint64_t reasons[KF_FALLBACK_COUNT];
  uint64_t scratch;       /**< fused runs that skipped stores on a scratch declaration */
  uint64_t poisoned;      /**< buffers poisoned after runs (KFUSE_VERIFY) */
  uint64_t scratch_reads; /**< reads of poison reported at this site */
  uint64_t captured;      /**< calls made while a launch's stream captured a graph */
} kf__site_state_t;

/** Frees @p st (not its manifests, which the module cache owns). */
void kf__site_state_free(kf__site_state_t *st);

/** Counts one fallback of @p st for @p reason. */
void kf__site_count_fallback(kf__site_state_t *st, kf_fallback_t reason);

/** Writes one KFUSE_STATS line per registered site to @p f, in first-call order. */
void kf__stats_print(FILE *f);

/** Test hook: forgets every site state, module and statistic and reads the
 * environment again. Sites passed before must be zeroed by the caller. */
void kf__rt_test_reset(void);

/** Duplicates @p s with malloc (NULL for NULL or no memory). */
char *kf__strdup(const char *s);

#endif
