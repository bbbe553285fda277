/* Helpers shared by the unit tests that work on parsed manifests (include
 * after <cmocka.h>). */
#ifndef KFUSE_MANIFEST_TESTLIB_H
#define KFUSE_MANIFEST_TESTLIB_H

#include <string.h>

#include "manifest/manifest.h"

#define MHDR "kfuse-manifest 1\n"

/* Parses @p text, failing the test when the parser rejects it. */
static inline kf__manifest_t *parse_ok(const char *text)
{
  kf__manifest_t *m = NULL;
  unsigned line = 0;
  int rc = kf__manifest_parse(text, strlen(text), &m, &line);
  if (rc != 0)
    fail_msg("manifest line %u: rc %d", line, rc);
  return m;
}

#endif
