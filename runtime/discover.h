/* First call of a site: from the launches' host stubs to their CUDA
 * modules, the modules' manifests (cached per module) and the match. */
#ifndef KFUSE_RUNTIME_DISCOVER_H
#define KFUSE_RUNTIME_DISCOVER_H

#include <stdint.h>

#include "kfuse/rt.h"
#include "runtime/site.h"

/**
 * Builds the state of @p site from its @p n launches: kernel names, the
 * manifest the site names (kf_site_t.manifest; NULL: KF__MANIFEST_SYMBOL)
 * in the module of the site's anchor (kf_site_t.anchor), or without one in
 * each launch's module, match for plan @p plan (kf__match()), fused kernel
 * handles (loaded into the current context). Never fails for CUDA reasons:
 * what it cannot find turns into fallback reasons inside the state. Runs
 * with the thread's capture mode relaxed and reads manifests on a private
 * non-blocking stream, so it is legal while streams capture. @p capturing
 * (kf__capturing() of the launches): a CUDA failure then is not taken for
 * a missing manifest; the module is not cached and the state comes back
 * provisional (retry, whole = CAPTURE). A stream-capture error code is
 * never cached either, whatever @p capturing says.
 * @returns 0 and a new state in @p out, or KF_ENOMEM.
 */
int kf__site_discover(const kf_site_t *site, const kf_launch_t *l, uint32_t n, uint32_t plan,
                      int capturing, kf__site_state_t **out);

/** Test hook: frees every cached module and manifest. */
void kf__modules_reset(void);

#endif
