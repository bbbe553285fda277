/* Reads an LLVM IR file, decodes the initializer of @__kfuse_manifest_<key> and
 * parses it with the runtime's own parser (manifest/manifest.c), then prints
 * what it understood, one line per group and per `missed` line. Exit status 1 when the module has
 * no manifest, 2 when the parser rejects it, 3 when a footprint expression
 * does not compile (the runtime would then fail that group's guards).
 * With --text first, prints the decoded manifest text as it is instead. */
#include "manifest/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hex(int c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

int main(int argc, char **argv)
{
  int as_text = argc > 1 && strcmp(argv[1], "--text") == 0;
  if (as_text) {
    argc--;
    argv++;
  }
  FILE *f = argc > 1 ? fopen(argv[1], "rb") : stdin;
  static char ir[1 << 24];
  size_t n = f ? fread(ir, 1, sizeof ir - 1, f) : 0;
  ir[n] = 0;
  /* @__kfuse_manifest_<16 hex digits> = ... */
  char *p = strstr(ir, "@__kfuse_manifest_");
  if (p && strncmp(p + 18 + 16, " = ", 3) != 0)
    p = NULL;
  if (!p || !(p = strstr(p, "c\""))) {
    fprintf(stderr, "no @__kfuse_manifest_<key>\n");
    return 1;
  }
  p += 2;
  char *text = malloc(n + 1);
  size_t len = 0;
  for (; *p && *p != '"'; p++) {
    if (*p == '\\' && hex(p[1]) >= 0 && hex(p[2]) >= 0) {
      text[len++] = (char)(hex(p[1]) * 16 + hex(p[2]));
      p += 2;
    } else {
      text[len++] = *p;
    }
  }
  if (as_text) {
    while (len > 0 && text[len - 1] == 0) /* the C string's terminator */
      len--;
    fwrite(text, 1, len, stdout);
    free(text);
    return 0;
  }
  kf__manifest_t *m = NULL;
  unsigned line = 0;
  int rc = kf__manifest_parse(text, len, &m, &line);
  if (rc != 0) {
    fprintf(stderr, "manifest rejected: error %d at line %u\n", rc, line);
    return 2;
  }
  int bad = 0;
  printf("manifest version %u, %u groups\n", m->version, m->ngroups);
  for (uint32_t g = 0; g < m->ngroups; g++) {
    const kf__group_t *G = &m->groups[g];
    printf("group %s launches=%u params=%u equal=%u footprints=%u disjoint=%u dead=%u\n",
           G->name, G->nlaunches, G->nparams_total, G->nequal, G->nfootprints, G->ndisjoint,
           G->ndead);
    if (G->plan_count != 0) {
      printf("  plans %u at %u of %u in %s:", G->plan_count, G->plan_first, G->plan_length,
             G->plan_function);
      for (uint32_t r = 0; r < G->plan_count; r++)
        if (kf__group_in_plan(G, r))
          printf(" %u", r);
      printf("\n");
    }
    for (uint32_t i = 0; i < G->nfootprints; i++)
      if (G->footprints[i].lo == NULL || G->footprints[i].hi == NULL) {
        fprintf(stderr, "group %s: footprint %u.%u does not compile\n", G->name,
                G->footprints[i].ref.launch, G->footprints[i].ref.param);
        bad = 1;
      }
  }
  for (uint32_t i = 0; i < m->nmissed; i++) {
    const kf__missed_t *x = &m->missed[i];
    printf("missed %u..%u of %u at line %u of %s: %s\n", x->first, x->last, x->length, x->line,
           x->function, x->reason);
  }
  kf__manifest_free(m);
  free(text);
  return bad ? 3 : 0;
}
