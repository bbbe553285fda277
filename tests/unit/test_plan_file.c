/* Unit tests of problem_file.c and profile.c: well-formed files, and each
 * malformed line reported with its number, never a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "kfuse/model.h"
#include "kfuse/plan.h"
#include "kfuse/profile.h"

static const char good[] =
  "kfuse-plan 1\n"
  "# comment\n"
  "instances 1000\n"
  "buffer x\nbuffer t dead registers\nbuffer y registers\n"
  "launch a\n  variant v1 tpi=3 ipb=32 regs=24 flops=10 tie=2\n  read x bytes=4\n  write t bytes=4\n"
  "launch b instances=500\n  read t bytes=4 psi=ld halo=2\n  readwrite y bytes=8\n"
  "psi ld 32 0 1e-6\n"
  "forbid a b\n";

static void test_good_file(void **state)
{
  (void)state;
  kf_problem *p;
  char err[128] = "";
  assert_int_equal(kf_problem_parse(&p, good, strlen(good), err, sizeof err), 0);
  assert_int_equal(kf_problem_launch_count(p), 2);
  assert_int_equal(kf_problem_buffer_count(p), 3);
  assert_string_equal(kf_problem_variant_name(p, 0, 0), "v1");
  assert_string_equal(kf_problem_variant_name(p, 1, 0), "default");
  assert_int_equal(kf_problem_foreach_dep(p, NULL, NULL), 1); /* a -> b RAW */
  /* t is marked `registers`: fusing a and b stages nothing (4 B otherwise). */
  kf_model *m;
  kf_estimate_t e;
  int ord[2] = { 0, 1 }, var[2] = { 0, 0 };
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_ROOFLINE), 0);
  assert_int_equal(kf_model_estimate(m, p, ord, var, 2, &e), 0);
  assert_int_equal(e.staging_bytes, 0);
  /* b reads t with a halo of 2: a runs again for 2 instances per block. */
  assert_true(e.flops == 10.0 * 1000 * (1 + 2.0 / e.instances_per_block));
  kf_model_destroy(m);
  kf_plan *pl; /* forbid a b: nothing fuses */
  assert_int_equal(kf_plan_solve(p, NULL, NULL, &pl), 0);
  assert_int_equal(kf_plan_group_count(pl, 0), 2);
  kf_plan_destroy(pl);
  kf_problem_destroy(p);
}

static const struct {
  const char *text;
  int rc;
  const char *msg;
} bad[] = {
  { "", KF_EPARSE, "line 1: missing header" },
  { "launch a\n", KF_EPARSE, "line 1: expected header" },
  { "kfuse-plan 2\n", KF_EVERSION, "line 1: unsupported format version" },
  { "kfuse-plan 1\nfrobnicate\n", KF_EPARSE, "line 2: unknown statement 'frobnicate'" },
  { "kfuse-plan 1\nbuffer x\nbuffer x\n", KF_EPARSE, "line 3: duplicate buffer 'x'" },
  { "kfuse-plan 1\nbuffer x purple\n", KF_EPARSE, "line 2: unknown buffer flag 'purple'" },
  { "kfuse-plan 1\nbuffer x dead dead\n", KF_EPARSE, "line 2: buffer flag 'dead' given twice" },
  { "kfuse-plan 1\nbuffer x dead registers dead\n", KF_EPARSE, "line 2: expected 'buffer NAME" },
  { "kfuse-plan 1\nbuffer x\nread x bytes=4\n", KF_EPARSE, "line 3: read before any launch" },
  { "kfuse-plan 1\nlaunch a\n  read y bytes=4\n", KF_EPARSE, "line 3: unknown buffer 'y'" },
  { "kfuse-plan 1\nbuffer x\nlaunch a\n  read x bytes=-4\n", KF_EPARSE, "line 4: bad byte count" },
  { "kfuse-plan 1\nbuffer x\nlaunch a\n  read x\n", KF_EPARSE, "line 4: expected 'read" },
  { "kfuse-plan 1\nbuffer x\nlaunch a\n  write x\tbytes=4 color=red\n", KF_EPARSE, "line 4: unknown access attribute 'color=red'" },
  { "kfuse-plan 1\nlaunch a\n  variant v tpi=0\n", KF_EPARSE, "line 3: bad value for 'tpi'" },
  { "kfuse-plan 1\nlaunch a\n  variant v warp=2\n", KF_EPARSE, "line 3: unknown variant key 'warp'" },
  { "kfuse-plan 1\nlaunch a\n  variant v\n  variant v\n", KF_EPARSE, "line 4: duplicate variant 'v'" },
  { "kfuse-plan 1\nlaunch a instances=0\n", KF_EPARSE, "line 2: bad launch attribute" },
  { "kfuse-plan 1\ninstances lots\n", KF_EPARSE, "line 2: instances needs" },
  { "kfuse-plan 1\nlaunch a\nforbid a zz\n", KF_EPARSE, "line 3: unknown launch 'zz'" },
  { "kfuse-plan 1\nlaunch a\npsi r 0 0 1\n", KF_EPARSE, "line 3: expected 'psi" },
  { "kfuse-plan 1\n# nothing\n", KF_EPARSE, "no launches" },
  { "kfuse-plan 1\nlaunch a\nvariant v flops=1e999\n", KF_EPARSE, "line 3: bad value for 'flops'" },
  { "kfuse-plan 1\nlaunch a\nvariant v ipb=1000000000\n", KF_EPARSE, "line 3: bad value for 'ipb'" },
  { "kfuse-plan 1\nlaunch a\nvariant v tpi=32769\n", KF_EPARSE, "line 3: bad value for 'tpi'" },
  { "kfuse-plan 1\nlaunch a\nvariant v regs=65537\n", KF_EPARSE, "line 3: bad value for 'regs'" },
  { "kfuse-plan 1\nlaunch a\nvariant v tie=1001\n", KF_EPARSE, "line 3: bad value for 'tie'" },
  { "kfuse-plan 1\nlaunch a\nvariant v tie=-1\n", KF_EPARSE, "line 3: bad value for 'tie'" },
  /* absurd numbers: out of range, with the range, or not numbers at all */
  { "kfuse-plan 1\ninstances 1e32\n", KF_EPARSE, "line 2: instances needs one positive number: 1e32 out of range (1 to 1e+15)" },
  { "kfuse-plan 1\ninstances inf\n", KF_EPARSE, "line 2: instances needs one positive number: 'inf' is not a number" },
  { "kfuse-plan 1\ninstances 0x100\n", KF_EPARSE, "line 2: instances needs one positive number: '0x100' is not a number" },
  { "kfuse-plan 1\nlaunch a instances=1e300\n", KF_EPARSE, "line 2: bad launch attribute 'instances=1e300': 1e300 out of range" },
  { "kfuse-plan 1\nlaunch a instances=nan\n", KF_EPARSE, "line 2: bad launch attribute 'instances=nan': 'nan' is not a number" },
  { "kfuse-plan 1\nbuffer x\nlaunch a\n  read x bytes=1e30\n", KF_EPARSE, "line 4: bad byte count: 1e30 out of range (0 to 1e+09)" },
  { "kfuse-plan 1\nbuffer x\nlaunch a\n  read x bytes=1e999\n", KF_EPARSE, "line 4: bad byte count: 1e999 out of range" },
  { "kfuse-plan 1\nbuffer x\nlaunch a\n  read x bytes=-inf\n", KF_EPARSE, "line 4: bad byte count: '-inf' is not a number" },
  { "kfuse-plan 1\nlaunch a\nvariant v flops=1e13\n", KF_EPARSE, "line 3: bad value for 'flops': 1e13 out of range (0 to 1e+12)" },
  { "kfuse-plan 1\nlaunch a\nvariant v smem=4294967296\n", KF_EPARSE, "line 3: bad value for 'smem': 4294967296 out of range" },
  { "kfuse-plan 1\nlaunch a\nvariant v tpi=1.5\n", KF_EPARSE, "line 3: bad value for 'tpi': '1.5' is not an integer" },
  { "kfuse-plan 1\nlaunch a\npsi r 32 0 1e30\n", KF_EPARSE, "line 3: expected 'psi ROUTINE IPB EXTRA_SHARED SECONDS': 1e30 out of range (0 to 1e+06)" },
  { "kfuse-plan 1\nlaunch a\npsi r 32 1e12 1\n", KF_EPARSE, "line 3: expected 'psi ROUTINE IPB EXTRA_SHARED SECONDS': 1e12 out of range" },
  { "kfuse-plan 1\nbuffer x\nlaunch a\n  read x bytes=4 halo=-1\n", KF_EPARSE, "line 4: bad halo" },
  { "kfuse-plan 1\nbuffer x\nlaunch a\n  write x bytes=4 halo=2\n", KF_EPARSE, "line 4: unknown access attribute 'halo=2'" },
  { "kfuse-plan 1\nlaunch a\nconsecutive yes\n", KF_EPARSE, "line 3: expected 'consecutive' alone" },
  { "kfuse-plan 1\nlaunch a\nfused-block\n", KF_EPARSE, "line 3: expected 'fused-block THREADS'" },
  { "kfuse-plan 1\nlaunch a\nfused-block 0\n", KF_EPARSE, "line 3: fused-block: 0 out of range (1 to 32768)" },
  { "kfuse-plan 1\nlaunch a\nfused-block 25.6\n", KF_EPARSE, "line 3: fused-block: '25.6' is not an integer" },
  { "kfuse-plan 1\nlaunch a\0\n", KF_EPARSE, "line 2: NUL byte in line" },
};

static void test_malformed_files(void **state)
{
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    kf_problem *p = (kf_problem *)1;
    char err[160] = "";
    size_t len = strlen(bad[i].text);
    if (strstr(bad[i].msg, "NUL"))
      len += 1 + strlen(bad[i].text + len + 1); /* past the NUL */
    int rc = kf_problem_parse(&p, bad[i].text, len, err, sizeof err);
    if (rc != bad[i].rc || !strstr(err, bad[i].msg))
      fail_msg("case %zu: rc %d err '%s', want %d '%s'", i, rc, err, bad[i].rc, bad[i].msg);
    assert_null(p);
  }
}

static void test_binary_garbage(void **state)
{
  (void)state;
  char junk[3000];
  unsigned s = 12345;
  for (int round = 0; round < 50; round++) {
    for (size_t i = 0; i < sizeof junk; i++) {
      s = s * 1103515245u + 12345u;
      junk[i] = (char)(s >> 16);
    }
    memcpy(junk, "kfuse-plan 1\n", 13);
    kf_problem *p;
    char err[160];
    int rc = kf_problem_parse(&p, junk, sizeof junk, err, sizeof err);
    if (rc == 0)
      kf_problem_destroy(p);
    else
      assert_non_null(strstr(err, "line "));
  }
}

/* Line- and token-level mutations of a good file (lines dropped,
 * repeated or cut short, words swapped for hostile values): each parses or
 * fails with a line-numbered message, and what parses plans without error. */
static void test_mutations(void **state)
{
  (void)state;
  static const char base[] =
    "kfuse-plan 1\n"
    "instances 4096\n"
    "buffer x\nbuffer t dead\nbuffer u dead registers\nbuffer y\n"
    "launch a\n  variant v1 tpi=3 ipb=32 regs=24 flops=10\n  variant v2 block=256 regs=40\n"
    "  read x bytes=4\n  write t bytes=4\n"
    "launch b instances=2048\n  read t bytes=4 psi=ld\n  write u bytes=8\n"
    "launch c\n  read u bytes=8\n  readwrite y bytes=4\n"
    "psi ld 32 0 1e-6\n"
    "forbid a c\n";
  static const char *const words[] = {
    "-1", "0", "1e308", "nan", "inf", "x", "=", "bytes=", "tpi=0", "ipb=0", "regs=-5",
    "flops=nan", "psi=", "#", "launch", "buffer", "read", "write", "variant", "dead", "t",
    "bytes=4294967296", "ipb=1000000000", "instances=-3", "99999999999999999999", "",
  };
  enum { MAXL = 64 };
  unsigned seed = 2024;
  int parsed = 0, failed = 0;
  for (int iter = 0; iter < 3000; iter++) {
    char lines[MAXL][128];
    int n = 0;
    for (const char *q = base; *q && n < MAXL; n++) {
      const char *e = strchr(q, '\n');
      snprintf(lines[n], sizeof lines[n], "%.*s", (int)(e - q), q);
      q = e + 1;
    }
    for (int k = 0; k < 1 + iter % 5; k++) {
      seed = seed * 1103515245u + 12345u;
      int i = (int)((seed >> 8) % (unsigned)n), op = (int)((seed >> 20) % 4);
      if (op == 0 && n > 1) { /* drop a line */
        memmove(lines[i], lines[i + 1], sizeof lines[0] * (size_t)(n - i - 1));
        n--;
      } else if (op == 1 && n < MAXL) { /* repeat one */
        memmove(lines[i + 1], lines[i], sizeof lines[0] * (size_t)(n - i));
        n++;
      } else if (op == 2) { /* cut it short */
        lines[i][(seed >> 12) % (strlen(lines[i]) + 1)] = 0;
      } else { /* a word replaced */
        char out[128] = "";
        int w = 0, pick = (int)((seed >> 4) % 4);
        size_t o = 0;
        for (const char *q = lines[i]; *q;) {
          size_t len = strcspn(q, " ");
          if (len > 0) {
            const char *put = q;
            size_t plen = len;
            if (w++ == pick) {
              put = words[(seed >> 16) % (sizeof words / sizeof *words)];
              plen = strlen(put);
            }
            if (o + plen + 2 < sizeof out)
              o += (size_t)snprintf(out + o, sizeof out - o, "%s%.*s", o ? " " : "", (int)plen, put);
          }
          q += len + (q[len] == ' ');
        }
        snprintf(lines[i], sizeof lines[i], "%s", out);
      }
    }
    char text[MAXL * 130];
    size_t len = 0;
    for (int i = 0; i < n; i++)
      len += (size_t)snprintf(text + len, sizeof text - len, "%s\n", lines[i]);
    kf_problem *p = NULL;
    char err[200] = "";
    int rc = kf_problem_parse(&p, text, len, err, sizeof err);
    if (rc != 0) {
      assert_null(p);
      if (!strstr(err, "line ") && !strstr(err, "no launches"))
        fail_msg("iteration %d: rc %d, message without a line: '%s'\n%s", iter, rc, err, text);
      failed++;
      continue;
    }
    parsed++;
    kf_solve_options_t o;
    kf_solve_options_init(&o);
    o.work_limit = 2000000;
    o.k_best = 1 + iter % 3;
    kf_plan *pl = NULL;
    rc = kf_plan_solve(p, NULL, &o, &pl);
    if (rc != 0 && rc != KF_ELIMIT)
      fail_msg("iteration %d: a parsed file does not plan: rc %d\n%s", iter, rc, text);
    assert_true(kf_plan_group_count(pl, 0) >= 1);
    kf_plan_destroy(pl);
    kf_problem_destroy(p);
  }
  assert_true(parsed > 300 && failed > 300);
}

static void test_profile(void **state)
{
  (void)state;
  kf_profile_t p;
  char err[128] = "";
  const char *t = "# H100\nname = test gpu\nbandwidth = 2.5e12  # B/s\nsm_count=100\n\n";
  assert_int_equal(kf_profile_parse(&p, t, strlen(t), err, sizeof err), 0);
  assert_string_equal(p.name, "test gpu");
  assert_true(p.bandwidth == 2.5e12);
  assert_int_equal(p.sm_count, 100);
  assert_int_equal(p.regs_per_sm, 65536); /* default kept */
  const char *bads[][2] = {
    { "bandwidth 3\n", "line 1: expected key = value" },
    { "\nwarp_size = 32\n", "line 2: unknown key: warp_size" },
    { "sm_count = 1.5\n", "line 1: expected an integer" },
    { "bandwidth = fast\n", "line 1: not a number" },
    { "hide_occupancy = 2\n", "line 1: value out of range" },
    { "shared_per_block = 300000\n", "exceeds shared_per_sm" },
    /* absurd numbers */
    { "bandwidth = 1e300\n", "line 1: value out of range for: bandwidth = 1e300 (1e+06 to 1e+16)" },
    { "bandwidth = inf\n", "line 1: not a number: inf" },
    { "clock_hz = nan\n", "line 1: not a number: nan" },
    { "sm_count = 1e30\n", "line 1: value out of range for: sm_count = 1e30" },
    { "sm_count = 0x84\n", "line 1: expected an integer for: sm_count" },
    { "launch_overhead = 1e-999999\n# underflow is 0: in range\nl2_bytes = -1\n", "line 3: value out of range for: l2_bytes" },
    /* a NUL byte is never read as the end of the file */
    { "sm_count = 100\n\0bandwidth = 1\n", "line 2: NUL byte in line" },
    { "bandwidth = 2e12\0garbage\n", "line 1: NUL byte in line" },
  };
  for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
    size_t len = strlen(bads[i][0]);
    if (strstr(bads[i][1], "NUL"))
      len += 1 + strlen(bads[i][0] + len + 1); /* past the NUL */
    assert_int_equal(kf_profile_parse(&p, bads[i][0], len, err, sizeof err), KF_EPARSE);
    if (!strstr(err, bads[i][1]))
      fail_msg("profile case %zu: '%s'", i, err);
  }
  /* a line longer than any the readers take */
  static char longline[6000];
  memset(longline, ' ', sizeof longline - 2);
  memcpy(longline, "name = x", 8);
  longline[sizeof longline - 2] = '\n';
  assert_int_equal(kf_profile_parse(&p, longline, strlen(longline), err, sizeof err), KF_EPARSE);
  assert_non_null(strstr(err, "line 1: line longer than 4095 characters"));
  assert_int_equal(kf_profile_load(&p, "/nonexistent/x.prof", err, sizeof err), KF_EIO);
  assert_int_equal(kf_profile_load(&p, KFUSE_SOURCE_DIR "/profiles/h100.prof", err, sizeof err), 0);
  kf_profile_t d;
  kf_profile_default(&d);
  assert_true(p.bandwidth == d.bandwidth && p.sm_count == d.sm_count &&
              p.shared_per_sm == d.shared_per_sm && p.shared_per_block == d.shared_per_block &&
              p.l2_bytes == d.l2_bytes && p.clock_hz == d.clock_hz);
}

static void test_example_file(void **state)
{
  (void)state;
  kf_problem *p;
  char err[160] = "";
  assert_int_equal(kf_problem_load(&p, KFUSE_SOURCE_DIR "/examples/plans/mapped-f.plan",
                                   err, sizeof err), 0);
  assert_int_equal(kf_problem_launch_count(p), 6);
  kf_plan *pl;
  assert_int_equal(kf_plan_solve(p, NULL, NULL, &pl), 0);
  assert_true(kf_plan_gain(pl, 0) > 0);
  kf_plan_destroy(pl);
  kf_problem_destroy(p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_good_file),
    cmocka_unit_test(test_malformed_files),
    cmocka_unit_test(test_binary_garbage),
    cmocka_unit_test(test_mutations),
    cmocka_unit_test(test_profile),
    cmocka_unit_test(test_example_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
