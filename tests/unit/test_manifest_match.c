/* The matcher (manifest/match.c): which groups cover which launches of a
 * site, as the runtime decides at a site's first call and the host pass at
 * compile time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "manifest/match.h"
#include "tests/unit/manifest_testlib.h"

static const char match_text[] =
    MHDR
    "group f_ab 2\nkernel 0 a 2\nkernel 1 b 2\nlaunch 0 0 0\nend\n"
    "group f_bc 2\nkernel 0 b 2\nkernel 1 c 2\nlaunch 0 0 0\nend\n"
    "group f_abc 3\nkernel 0 a 2\nkernel 1 b 2\nkernel 2 c 2\nlaunch 0 0 0\nend\n"
    "group f_de 2\nkernel 0 d 1\nkernel 1 e 1\nlaunch 0 0 0\nend\n";

static void match(const kf__manifest_t *m, const char *names, const uint32_t *nargs, kf__cover_t **segs,
                  uint32_t *nsegs)
{
  kf__launch_id_t ids[16];
  static char one[16][2];
  uint32_t n = (uint32_t)strlen(names);
  for (uint32_t i = 0; i < n; i++) {
    one[i][0] = names[i];
    one[i][1] = '\0';
    ids[i].name = names[i] == '?' ? NULL : one[i];
    ids[i].nargs = nargs != NULL ? nargs[i] : (names[i] == 'd' || names[i] == 'e' ? 1 : 2);
    ids[i].manifest = m;
  }
  assert_int_equal(kf__match(ids, n, 0, NULL, segs, nsegs), 0);
}

/* Renders segments as "f_ab[0,2) -[2,3)" for compact assertions. */
static const char *render(const kf__cover_t *s, uint32_t n)
{
  static char buf[256];
  size_t len = 0;
  buf[0] = '\0';
  for (uint32_t i = 0; i < n; i++)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s[%u,%u)", i ? " " : "",
                            s[i].group ? s[i].group->name : "-", s[i].first, s[i].first + s[i].count);
  return buf;
}

static void test_match_windows(void **state)
{
  kf__manifest_t *m = parse_ok(match_text);
  kf__cover_t *s;
  uint32_t ns;
  static const uint32_t wrong_nargs[] = {2, 3};
  (void)state;
  /* The longest group wins at a position. */
  match(m, "abc", NULL, &s, &ns);
  assert_string_equal(render(s, ns), "f_abc[0,3)");
  free(s);
  /* A group in the middle of a longer run; unmatched neighbours merge. */
  match(m, "xxabyy", NULL, &s, &ns);
  assert_string_equal(render(s, ns), "-[0,2) f_ab[2,4) -[4,6)");
  free(s);
  /* Two groups back to back, and overlapping candidates: greedy front to back. */
  match(m, "abde", NULL, &s, &ns);
  assert_string_equal(render(s, ns), "f_ab[0,2) f_de[2,4)");
  free(s);
  match(m, "xbcab", NULL, &s, &ns);
  assert_string_equal(render(s, ns), "-[0,1) f_bc[1,3) f_ab[3,5)");
  free(s);
  match(m, "abab", NULL, &s, &ns);
  assert_string_equal(render(s, ns), "f_ab[0,2) f_ab[2,4)");
  free(s);
  /* Parameter counts must match too; unknown names never match. */
  match(m, "ab", wrong_nargs, &s, &ns);
  assert_string_equal(render(s, ns), "-[0,2)");
  free(s);
  match(m, "a?c", NULL, &s, &ns);
  assert_string_equal(render(s, ns), "-[0,3)");
  free(s);
  /* A group longer than what is left does not match. */
  match(m, "d", NULL, &s, &ns);
  assert_string_equal(render(s, ns), "-[0,1)");
  free(s);
  kf__manifest_free(m);
}

static void test_match_needs_one_manifest(void **state)
{
  kf__manifest_t *m = parse_ok(match_text);
  kf__manifest_t *other = parse_ok(match_text);
  kf__launch_id_t ids[2] = {{"a", 2, m}, {"b", 2, other}};
  kf__cover_t *s;
  uint32_t ns;
  (void)state;
  assert_int_equal(kf__match(ids, 2, 0, NULL, &s, &ns), 0);
  assert_string_equal(render(s, ns), "-[0,2)");
  free(s);
  kf__manifest_free(m);
  kf__manifest_free(other);
}

static void test_where_function(void **state)
{
  static const struct {
    const char *where, *fn;
  } cases[] = {
    {"app.cu:12:3 _Z3runv", "_Z3runv"},
    {"/a b/app.cu:12:3 main", "main"},
    {"_Z3runv launch 0", "_Z3runv"},
    {"_Z3runv launch 17", "_Z3runv"},
    {"x launch y", "y"},
    {"main launch ", ""},
    {"nospace", ""},
    {"", ""},
  };
  size_t len;
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *fn = kf__where_function(cases[i].where, &len);
    assert_int_equal(len, strlen(cases[i].fn));
    assert_memory_equal(fn, cases[i].fn, len);
  }
  assert_int_equal(kf__where_function(NULL, &len)[0], '\0');
  assert_int_equal(len, 0);
}

/* Groups of the same kernels: a site of them is bound to the first. */
static void test_twins(void **state)
{
  kf__manifest_t *m = parse_ok(MHDR "group f1 2\nkernel 0 a 2\nkernel 1 b 2\nlaunch 0 0 0\nend\n"
                                    "group f2 2\nkernel 0 a 2\nkernel 1 b 2\nlaunch 0 0 0\nend\n"
                                    "group f3 2\nkernel 0 a 2\nkernel 1 b 3\nlaunch 0 0 0\nend\n"
                                    "group f4 3\nkernel 0 a 2\nkernel 1 b 2\nkernel 2 c 1\nlaunch 0 0 0\nend\n"
                                    "group f5 2\nkernel 0 a 2\nkernel 1 b 2\nlaunch 0 0 0\n"
                                    "plans 2 0 2 main 1\nend\n");
  kf__launch_id_t ids[2] = {{"a", 2, m}, {"b", 2, m}};
  kf__cover_t *s;
  uint32_t ns;
  (void)state;
  assert_int_equal(kf__group_twins(m, &m->groups[0]), 2);
  assert_int_equal(kf__group_twins(m, &m->groups[1]), 2);
  assert_int_equal(kf__group_twins(m, &m->groups[2]), 1); /* other parameter count */
  assert_int_equal(kf__group_twins(m, &m->groups[3]), 1);
  assert_int_equal(kf__group_twins(m, &m->groups[4]), 2); /* a plan's group counts the others */
  assert_int_equal(kf__match(ids, 2, 0, NULL, &s, &ns), 0);
  assert_string_equal(render(s, ns), "f1[0,2)");
  free(s);
  kf__manifest_free(m);
}

static void test_where_key(void **state)
{
  static const struct {
    const char *where;
    int ok;
    uint32_t line, col;
  } cases[] = {
    {"app.cu:12:3 _Z3runv", 1, 12, 3},
    {"/a b/c:d/app.cu:120:45 main", 1, 120, 45},
    {"app.cu:12 _Z3runv", 0, 0, 0},  /* no column */
    {":12:3 f", 1, 12, 3},           /* no file: still a key */
    {"12:3 f", 0, 0, 0},             /* no file separator */
    {"app.cu:x:3 f", 0, 0, 0},
    {"app.cu:12: f", 0, 0, 0},
    {"_Z3runv launch 0", 0, 0, 0},
    {"app.cu:1234567890:3 f", 0, 0, 0}, /* beyond nine digits */
    {"nospace", 0, 0, 0},
    {"", 0, 0, 0},
  };
  uint32_t line = 7, col = 7;
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(kf__where_key(cases[i].where, &line, &col), cases[i].ok);
    assert_int_equal(line, cases[i].line);
    assert_int_equal(col, cases[i].col);
  }
  assert_int_equal(kf__where_key(NULL, &line, &col), 0);
}

/* Three sequences of the same kernels, in two functions, each with its own
 * group bound by `at`: each site gets its own group, never another's; a
 * site no `at` line names gets none, whatever its kernels. */
static void test_at_binds_own_site(void **state)
{
  kf__manifest_t *m = parse_ok(MHDR "group f1 2\nkernel 0 a 2\nkernel 1 b 2\nlaunch 0 0 0\n"
                                    "at 0 2 10:8 _Z3onev\nend\n"
                                    "group f2 2\nkernel 0 a 2\nkernel 1 b 2\nlaunch 0 0 0\n"
                                    "at 0 2 14:8 _Z3onev\nend\n"
                                    "group f3 2\nkernel 0 a 2\nkernel 1 b 2\nlaunch 0 0 0\n"
                                    "at 1 3 20:8 _Z3twov\nend\n");
  kf__launch_id_t ids[3] = {{"a", 2, m}, {"b", 2, m}, {"b", 2, m}};
  kf__launch_id_t ids3[3] = {{"c", 2, m}, {"a", 2, m}, {"b", 2, m}};
  static const struct {
    const char *where;
    uint32_t n;
    const char *want;
  } cases[] = {
    {"x.cu:10:8 _Z3onev", 2, "f1[0,2)"},
    {"/elsewhere/x.cu:14:8 _Z3onev", 2, "f2[0,2)"}, /* the file is no part of the key */
    {"x.cu:14:9 _Z3onev", 2, "-[0,2)"},              /* another column */
    {"x.cu:10:8 _Z3twov", 2, "-[0,2)"},              /* another function */
    {"x.cu:10:8 _Z3onev", 3, "-[0,3)"},              /* another length */
    {"_Z3onev launch 0", 2, "-[0,2)"},               /* no position: no key */
    {"x.cu:99:1 _Z5otherv", 2, "-[0,2)"},
  };
  kf__cover_t *s;
  uint32_t ns;
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(kf__match(ids, cases[i].n, 0, cases[i].where, &s, &ns), 0);
    assert_string_equal(render(s, ns), cases[i].want);
    free(s);
  }
  /* At its own position only: launch 1 of the sequence of three. */
  assert_int_equal(kf__match(ids3, 3, 0, "x.cu:20:8 _Z3twov", &s, &ns), 0);
  assert_string_equal(render(s, ns), "-[0,1) f3[1,3)");
  free(s);
  assert_int_equal(kf__match(ids, 3, 0, "x.cu:20:8 _Z3twov", &s, &ns), 0);
  assert_string_equal(render(s, ns), "-[0,3)");
  free(s);
  /* Bound groups are nobody's twins. */
  assert_int_equal(kf__group_twins(m, &m->groups[0]), 0);
  kf__manifest_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_where_function),
    cmocka_unit_test(test_match_windows),
    cmocka_unit_test(test_match_needs_one_manifest),
    cmocka_unit_test(test_twins),
    cmocka_unit_test(test_where_key),
    cmocka_unit_test(test_at_binds_own_site),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
