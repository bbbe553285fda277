/* Unit tests of tools/calibrate_fit.c with fake measurements: medians, the
 * hide_occupancy rule, profile text that reads back as it was written, and
 * psi tables that the problem reader and the psi model read back. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "calibrate_fit.h"
#include "kfuse/model.h"
#include "kfuse/plan.h"

static void test_median(void **state)
{
  (void)state;
  double m = -1;
  double odd[] = { 5, 1, 4, 2, 3 };
  assert_int_equal(kf_cal_median(odd, 5, &m), 0);
  assert_true(m == 3);
  assert_true(odd[0] == 1 && odd[4] == 5); /* sorted in place */
  double even[] = { 4, 1, 3, 2 };
  assert_int_equal(kf_cal_median(even, 4, &m), 0);
  assert_true(m == 2.5);
  double one[] = { 7e-6 };
  assert_int_equal(kf_cal_median(one, 1, &m), 0);
  assert_true(m == 7e-6);
  double dup[] = { 2, 2, 9, 2, 1, 2 };
  assert_int_equal(kf_cal_median(dup, 6, &m), 0);
  assert_true(m == 2);
}

static void test_median_degenerate(void **state)
{
  (void)state;
  double m = 42;
  double x[] = { 1, NAN, 3 };
  assert_int_equal(kf_cal_median(x, 0, &m), KF_EINVAL);
  assert_int_equal(kf_cal_median(NULL, 3, &m), KF_EINVAL);
  assert_int_equal(kf_cal_median(x, 3, NULL), KF_EINVAL);
  assert_int_equal(kf_cal_median(x, 3, &m), KF_EINVAL);
  double inf[] = { 1, INFINITY };
  assert_int_equal(kf_cal_median(inf, 2, &m), KF_EINVAL);
  assert_true(m == 42); /* untouched on error */
}

/* Occupancy levels as kfuse-calibrate measures them on an H100 (32nds of 64
 * warps), with a made-up curve that saturates near 3 TB/s. */
static const double occ[] = { 1 / 32.0, 2 / 32.0, 4 / 32.0, 6 / 32.0, 8 / 32.0, 10 / 32.0,
                              12 / 32.0, 16 / 32.0, 20 / 32.0, 24 / 32.0, 1.0 };
#define NOCC (sizeof occ / sizeof occ[0])

static void curve(kf_cal_point_t *pts, const double *gbps)
{
  for (size_t i = 0; i < NOCC; i++) {
    pts[i].occupancy = occ[i];
    pts[i].bandwidth = gbps[i] * 1e9;
  }
}

static void test_hide_typical(void **state)
{
  (void)state;
  kf_cal_point_t pts[NOCC];
  char err[128] = "";
  double h = -1;
  const double sat[] = { 180, 350, 700, 1050, 1600, 2300, 2750, 2900, 2950, 2980, 3000 };
  curve(pts, sat);
  assert_int_equal(kf_cal_hide_occupancy(pts, NOCC, KF_CAL_HIDE_FRACTION, &h, err, sizeof err), 0);
  assert_true(h == 12 / 32.0); /* 2750 >= 2700 = 0.9 x 3000; 2300 is not */
  /* Exactly 90 % counts. */
  const double edge[] = { 180, 350, 700, 1050, 1600, 2700, 2750, 2900, 2950, 2980, 3000 };
  curve(pts, edge);
  assert_int_equal(kf_cal_hide_occupancy(pts, NOCC, 0.9, &h, err, sizeof err), 0);
  assert_true(h == 10 / 32.0);
  /* Another fraction moves the knee. */
  curve(pts, sat);
  assert_int_equal(kf_cal_hide_occupancy(pts, NOCC, 0.5, &h, err, sizeof err), 0);
  assert_true(h == 8 / 32.0);
  /* A flat curve: the lowest occupancy already hides latency. */
  const double flat[] = { 2990, 3000, 2995, 3000, 3001, 2999, 3000, 3000, 3000, 3000, 3000 };
  curve(pts, flat);
  assert_int_equal(kf_cal_hide_occupancy(pts, NOCC, 0.9, &h, err, sizeof err), 0);
  assert_true(h == 1 / 32.0);
  /* Only the full-occupancy point. */
  kf_cal_point_t full = { 1.0, 3e12 };
  assert_int_equal(kf_cal_hide_occupancy(&full, 1, 0.9, &h, err, sizeof err), 0);
  assert_true(h == 1.0);
}

static void test_hide_not_monotone_bandwidth(void **state)
{
  (void)state;
  kf_cal_point_t pts[NOCC];
  char err[128] = "";
  double h = -1;
  /* A fast outlier at 4/32 followed by slow points: the knee is where the
   * curve stays above 90 %, not the first point that touched it. */
  const double spike[] = { 180, 350, 2900, 1050, 1600, 2300, 2750, 2900, 2950, 2980, 3000 };
  curve(pts, spike);
  assert_int_equal(kf_cal_hide_occupancy(pts, NOCC, 0.9, &h, err, sizeof err), 0);
  assert_true(h == 12 / 32.0);
  /* A dip after the knee moves the knee past the dip. */
  const double dip[] = { 180, 350, 700, 1050, 2800, 2850, 2600, 2900, 2950, 2980, 3000 };
  curve(pts, dip);
  assert_int_equal(kf_cal_hide_occupancy(pts, NOCC, 0.9, &h, err, sizeof err), 0);
  assert_true(h == 16 / 32.0);
  /* The full-occupancy point below the others: the reference is still it. */
  const double drop[] = { 180, 350, 700, 1050, 1600, 2300, 2750, 3100, 3100, 3100, 2500 };
  curve(pts, drop);
  assert_int_equal(kf_cal_hide_occupancy(pts, NOCC, 0.9, &h, err, sizeof err), 0);
  assert_true(h == 10 / 32.0);
}

static void test_hide_degenerate(void **state)
{
  (void)state;
  char err[128];
  double h = 42;
  kf_cal_point_t good[] = { { 0.25, 1e12 }, { 0.5, 2e12 }, { 1.0, 3e12 } };
  static const struct {
    kf_cal_point_t p[3];
    size_t n;
    const char *msg;
  } bad[] = {
    { { { 0.25, 1e12 }, { 0.5, 0 }, { 1.0, 3e12 } }, 3, "point 1: bandwidth 0 is not positive" },
    { { { 0.25, -1e12 }, { 0.5, 2e12 }, { 1.0, 3e12 } }, 3, "point 0: bandwidth" },
    { { { 0.25, 1e12 }, { 0.5, NAN }, { 1.0, 3e12 } }, 3, "point 1: bandwidth" },
    { { { 0.25, 1e12 }, { 0.5, 2e12 }, { 1.0, INFINITY } }, 3, "point 2: bandwidth" },
    { { { 0, 1e12 }, { 0.5, 2e12 }, { 1.0, 3e12 } }, 3, "point 0: occupancy 0 outside (0, 1]" },
    { { { 0.25, 1e12 }, { 0.5, 2e12 }, { 1.5, 3e12 } }, 3, "point 2: occupancy 1.5 outside" },
    { { { 0.25, 1e12 }, { NAN, 2e12 }, { 1.0, 3e12 } }, 3, "point 1: occupancy" },
    { { { 0.5, 1e12 }, { 0.25, 2e12 }, { 1.0, 3e12 } }, 3, "point 1: occupancies not increasing" },
    { { { 0.5, 1e12 }, { 0.5, 2e12 }, { 1.0, 3e12 } }, 3, "point 1: occupancies not increasing" },
    { { { 0.25, 1e12 }, { 0.5, 2e12 }, { 0.75, 3e12 } }, 3, "no measurement at full occupancy" },
    { { { 0.25, 1e12 } }, 0, "no occupancy measurements" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    int rc = kf_cal_hide_occupancy(bad[i].p, bad[i].n, 0.9, &h, err, sizeof err);
    if (rc != KF_EINVAL || !strstr(err, bad[i].msg))
      fail_msg("case %zu: rc %d err '%s', want '%s'", i, rc, err, bad[i].msg);
  }
  assert_int_equal(kf_cal_hide_occupancy(NULL, 3, 0.9, &h, err, sizeof err), KF_EINVAL);
  assert_non_null(strstr(err, "no occupancy measurements"));
  assert_int_equal(kf_cal_hide_occupancy(good, 3, 0, &h, err, sizeof err), KF_EINVAL);
  assert_non_null(strstr(err, "fraction 0 outside"));
  assert_int_equal(kf_cal_hide_occupancy(good, 3, 1.1, &h, NULL, 0), KF_EINVAL);
  assert_int_equal(kf_cal_hide_occupancy(good, 3, 0.9, NULL, err, sizeof err), KF_EINVAL);
  assert_true(h == 42); /* untouched on error */
  assert_int_equal(kf_cal_hide_occupancy(good, 3, 0.9, &h, err, 4), 0); /* short err is fine */
  assert_true(h == 1.0);
}

static void test_flops_per_cycle(void **state)
{
  (void)state;
  double f = 0;
  /* An H100 at 1.98 GHz doing 256 flops per cycle per SM for 10 ms. */
  double flops = 132 * 1.98e9 * 256 * 0.01;
  assert_int_equal(kf_cal_flops_per_cycle(flops, 0.01, 132, 1.98e9, &f), 0);
  assert_true(fabs(f - 256) < 1e-9);
  assert_int_equal(kf_cal_flops_per_cycle(flops, 0, 132, 1.98e9, &f), KF_EINVAL);
  assert_int_equal(kf_cal_flops_per_cycle(0, 0.01, 132, 1.98e9, &f), KF_EINVAL);
  assert_int_equal(kf_cal_flops_per_cycle(flops, 0.01, 0, 1.98e9, &f), KF_EINVAL);
  assert_int_equal(kf_cal_flops_per_cycle(flops, 0.01, 132, 0, &f), KF_EINVAL);
  assert_int_equal(kf_cal_flops_per_cycle(flops, NAN, 132, 1.98e9, &f), KF_EINVAL);
  assert_int_equal(kf_cal_flops_per_cycle(flops, 0.01, 132, 1.98e9, NULL), KF_EINVAL);
}

/* A profile as kfuse-calibrate would fill it on an H100. */
static kf_profile_t measured(void)
{
  kf_profile_t p;
  kf_profile_default(&p);
  snprintf(p.name, sizeof p.name, "NVIDIA H100 80GB HBM3");
  p.bandwidth = 2.9187654321e12;
  p.launch_overhead = 2.0412345e-6;
  p.clock_hz = 1.9799876e9;
  p.flops_per_cycle_per_sm = 251.123456;
  p.hide_occupancy = 0.1875;
  return p;
}

static const char header[] =
  "kfuse device profile measured by kfuse-calibrate\n"
  "device 0: NVIDIA H100 80GB HBM3\n"
  "\n"
  "  copy, 4 B, occupancy 1  2.919e+12 -> bandwidth\n";

static void test_format_round_trip(void **state)
{
  (void)state;
  kf_profile_t p = measured(), back;
  char text[4096], err[160] = "", what[32] = "";
  size_t len = 0;
  assert_int_equal(kf_cal_format_profile(&p, header, text, sizeof text, &len, err, sizeof err), 0);
  assert_int_equal(len, strlen(text));
  assert_int_equal(kf_profile_parse(&back, text, len, err, sizeof err), 0);
  assert_int_equal(kf_cal_profile_diff(&p, &back, 1e-5, what, sizeof what), 0);
  /* Every header line became a comment; every key is written. */
  assert_non_null(strstr(text, "# kfuse device profile measured by kfuse-calibrate\n"));
  assert_non_null(strstr(text, "\n#\n#   copy, 4 B, occupancy 1"));
  assert_non_null(strstr(text, "\nname = NVIDIA H100 80GB HBM3\n"));
  static const char *const keys[] = {
    "bandwidth", "launch_overhead", "sm_count", "shared_per_sm", "shared_per_block",
    "regs_per_sm", "max_threads_per_sm", "max_blocks_per_sm", "max_threads_per_block",
    "l2_bytes", "clock_hz", "flops_per_cycle_per_sm", "hide_occupancy",
  };
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    char k[64];
    snprintf(k, sizeof k, "\n%s = ", keys[i]);
    if (!strstr(text, k))
      fail_msg("key %s not written", keys[i]);
  }
  /* Values that differ from the defaults, so none came back by default. */
  assert_true(fabs(back.bandwidth - 2.9187654321e12) <= 1e-5 * 2.92e12);
  assert_true(back.hide_occupancy == 0.1875);

  /* Through a file, as the tool reads it back. */
  char path[] = "/tmp/kfuse_calibrate_test_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
  kf_profile_t file;
  assert_int_equal(kf_profile_load(&file, path, err, sizeof err), 0);
  unlink(path);
  assert_int_equal(kf_cal_profile_diff(&back, &file, 0, what, sizeof what), 0);

  /* A header line longer than the reader takes is cut, not an error. */
  char longline[1200];
  memset(longline, 'x', sizeof longline - 1);
  longline[sizeof longline - 1] = 0;
  assert_int_equal(kf_cal_format_profile(&p, longline, text, sizeof text, &len, err, sizeof err),
                   0);
  assert_true(strchr(text, '\n') - text == 402); /* "# " and 400 bytes */

  /* No header at all, and the default profile. */
  kf_profile_default(&p);
  assert_int_equal(kf_cal_format_profile(&p, NULL, text, sizeof text, &len, err, sizeof err), 0);
  assert_int_equal(strncmp(text, "name = ", 7), 0);
  assert_int_equal(kf_profile_parse(&back, text, len, err, sizeof err), 0);
  assert_int_equal(kf_cal_profile_diff(&p, &back, 1e-5, what, sizeof what), 0);
}

static void test_format_name(void **state)
{
  (void)state;
  kf_profile_t p = measured(), back;
  char text[4096], err[160] = "";
  size_t len;
  /* '#' would start a comment and a newline a new line: both become blanks. */
  snprintf(p.name, sizeof p.name, "  GPU #1\nsm_count = 3 ");
  assert_int_equal(kf_cal_format_profile(&p, NULL, text, sizeof text, &len, err, sizeof err), 0);
  assert_int_equal(kf_profile_parse(&back, text, len, err, sizeof err), 0);
  assert_string_equal(back.name, "GPU  1 sm_count = 3");
  assert_int_equal(back.sm_count, 132);
  snprintf(p.name, sizeof p.name, "###");
  assert_int_equal(kf_cal_format_profile(&p, NULL, text, sizeof text, &len, err, sizeof err), 0);
  assert_int_equal(kf_profile_parse(&back, text, len, err, sizeof err), 0);
  assert_string_equal(back.name, "unnamed device");
}

static void test_format_degenerate(void **state)
{
  (void)state;
  kf_profile_t p = measured();
  char text[4096], err[160];
  size_t len = 12345;
  static const struct {
    const char *field;
    double value;
    const char *msg;
  } bad[] = {
    { "bandwidth", 0, "value out of range for: bandwidth" },
    { "bandwidth", NAN, "not a number" },
    { "bandwidth", INFINITY, "not a number" },
    { "launch_overhead", -1e-6, "out of range for: launch_overhead" },
    { "hide_occupancy", 0, "out of range for: hide_occupancy" },
    { "hide_occupancy", 1.5, "out of range for: hide_occupancy" },
    { "clock_hz", 0, "out of range for: clock_hz" },
    { "flops_per_cycle_per_sm", NAN, "not a number" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    kf_profile_t q = p;
    if (!strcmp(bad[i].field, "bandwidth"))
      q.bandwidth = bad[i].value;
    else if (!strcmp(bad[i].field, "launch_overhead"))
      q.launch_overhead = bad[i].value;
    else if (!strcmp(bad[i].field, "hide_occupancy"))
      q.hide_occupancy = bad[i].value;
    else if (!strcmp(bad[i].field, "clock_hz"))
      q.clock_hz = bad[i].value;
    else
      q.flops_per_cycle_per_sm = bad[i].value;
    err[0] = 0;
    int rc = kf_cal_format_profile(&q, header, text, sizeof text, &len, err, sizeof err);
    if (rc != KF_EPARSE || !strstr(err, "does not parse") || !strstr(err, bad[i].msg))
      fail_msg("case %zu: rc %d err '%s', want '%s'", i, rc, err, bad[i].msg);
  }
  kf_profile_t q = p;
  q.sm_count = 0;
  assert_int_equal(kf_cal_format_profile(&q, NULL, text, sizeof text, &len, err, sizeof err),
                   KF_EPARSE);
  assert_non_null(strstr(err, "sm_count"));
  q = p;
  q.shared_per_block = q.shared_per_sm + 1;
  assert_int_equal(kf_cal_format_profile(&q, NULL, text, sizeof text, &len, err, sizeof err),
                   KF_EPARSE);
  assert_non_null(strstr(err, "exceeds shared_per_sm"));
  assert_int_equal(len, 12345); /* untouched on error */

  /* Buffers too small, down to one byte: an error, never an overrun. */
  for (size_t n = 1; n < 400; n += 37) {
    char *small = malloc(n);
    assert_non_null(small);
    assert_int_equal(kf_cal_format_profile(&p, header, small, n, &len, err, sizeof err),
                     KF_ERANGE);
    assert_non_null(strstr(err, "longer than"));
    free(small);
  }
  assert_int_equal(kf_cal_format_profile(NULL, NULL, text, sizeof text, &len, err, sizeof err),
                   KF_EINVAL);
  assert_int_equal(kf_cal_format_profile(&p, NULL, NULL, 0, &len, NULL, 0), KF_EINVAL);
  assert_int_equal(kf_cal_format_profile(&p, NULL, text, 0, &len, NULL, 0), KF_EINVAL);
}

static void test_profile_diff(void **state)
{
  (void)state;
  kf_profile_t a = measured(), b = a;
  char what[32] = "";
  assert_int_equal(kf_cal_profile_diff(&a, &b, 0, what, sizeof what), 0);
  b.bandwidth *= 1 + 1e-7;
  assert_int_equal(kf_cal_profile_diff(&a, &b, 1e-5, what, sizeof what), 0);
  assert_int_equal(kf_cal_profile_diff(&a, &b, 0, what, sizeof what), KF_EMISMATCH);
  assert_string_equal(what, "bandwidth");
  b = a;
  b.max_blocks_per_sm = 16;
  assert_int_equal(kf_cal_profile_diff(&a, &b, 1e-5, what, sizeof what), KF_EMISMATCH);
  assert_string_equal(what, "max_blocks_per_sm");
  b = a;
  b.hide_occupancy = NAN;
  assert_int_equal(kf_cal_profile_diff(&a, &b, 1e-5, what, sizeof what), KF_EMISMATCH);
  assert_string_equal(what, "hide_occupancy");
  b = a;
  b.name[0] = 'X';
  assert_int_equal(kf_cal_profile_diff(&a, &b, 1e-5, NULL, 0), KF_EMISMATCH);
  assert_int_equal(kf_cal_profile_diff(NULL, &b, 1e-5, what, sizeof what), KF_EINVAL);
}

/* The shipped default parses and survives a format/parse round trip. */
static void test_shipped_profile(void **state)
{
  (void)state;
  kf_profile_t p, back;
  char text[4096], err[160] = "", what[32];
  size_t len;
  assert_int_equal(kf_profile_load(&p, KFUSE_SOURCE_DIR "/profiles/h100.prof", err, sizeof err), 0);
  assert_int_equal(kf_cal_format_profile(&p, "shipped", text, sizeof text, &len, err, sizeof err),
                   0);
  assert_int_equal(kf_profile_parse(&back, text, len, err, sizeof err), 0);
  assert_int_equal(kf_cal_profile_diff(&p, &back, 1e-5, what, sizeof what), 0);
}

static void test_psi_ipb_set(void **state)
{
  (void)state;
  int ipb[16];
  /* Compute routines: blocks of ipb x tpi threads, at most 1024. */
  assert_int_equal(kf_cal_psi_ipb_set(1, 1, 1024, ipb, 16), 6);
  assert_true(ipb[0] == 8 && ipb[5] == 256);
  assert_int_equal(kf_cal_psi_ipb_set(3, 1, 1024, ipb, 16), 6); /* 256 x 3 = 768 */
  assert_int_equal(kf_cal_psi_ipb_set(5, 1, 1024, ipb, 16), 5); /* 128 x 5 = 640 */
  assert_int_equal(ipb[4], 128);
  assert_int_equal(kf_cal_psi_ipb_set(9, 1, 1024, ipb, 16), 4); /* 64 x 9 = 576 */
  assert_int_equal(kf_cal_psi_ipb_set(25, 1, 1024, ipb, 16), 3); /* 32 x 25 = 800 */
  assert_true(ipb[0] == 8 && ipb[1] == 16 && ipb[2] == 32);
  assert_int_equal(kf_cal_psi_ipb_set(200, 1, 1024, ipb, 16), 0); /* 8 x 200 > 1024 */
  /* Memory routines: one warp at least; a smaller device limit cuts the set. */
  assert_int_equal(kf_cal_psi_ipb_set(1, 32, 1024, ipb, 16), 6);
  assert_int_equal(kf_cal_psi_ipb_set(1, 32, 100, ipb, 16), 4);
  assert_int_equal(ipb[3], 64);
  assert_int_equal(kf_cal_psi_ipb_set(1, 64, 32, ipb, 16), 0); /* the floor does not fit */
  /* The count does not depend on the room given. */
  assert_int_equal(kf_cal_psi_ipb_set(1, 1, 1024, ipb, 2), 6);
  assert_int_equal(kf_cal_psi_ipb_set(1, 1, 1024, NULL, 0), 6);
  assert_int_equal(kf_cal_psi_ipb_set(0, 1, 1024, ipb, 16), KF_EINVAL);
  assert_int_equal(kf_cal_psi_ipb_set(1, 1, 0, ipb, 16), KF_EINVAL);
  /* Fused blocks: every routine at the powers of two to 64 and at the
   * block's shares above 64, whatever its threads per instance. */
  assert_int_equal(kf_cal_psi_ipb_set_fused(256, ipb, 16), 7);
  static const int at256[] = { 8, 16, 32, 64, 85, 128, 256 };
  for (int i = 0; i < 7; i++)
    assert_int_equal(ipb[i], at256[i]);
  assert_int_equal(kf_cal_psi_ipb_set_fused(128, ipb, 16), 5); /* 42 and 64 are not above 64 */
  assert_int_equal(ipb[4], 128);
  assert_int_equal(kf_cal_psi_ipb_set_fused(32, ipb, 16), 4); /* the powers of two only */
  assert_int_equal(ipb[3], 64);
  assert_int_equal(kf_cal_psi_ipb_set_fused(1024, ipb, 2), 7);
  assert_int_equal(kf_cal_psi_ipb_set_fused(1024, NULL, 0), 7);
  assert_int_equal(kf_cal_psi_ipb_set_fused(0, ipb, 16), KF_EINVAL);
  assert_int_equal(kf_cal_psi_ipb_set_fused(32769, ipb, 16), KF_EINVAL);
  assert_int_equal(kf_cal_psi_ipb_set_fused(256, NULL, 4), KF_EINVAL);
  assert_int_equal(kf_cal_psi_ipb_set(1, 1, 1024, NULL, 16), KF_EINVAL);
}

static void test_psi_seconds(void **state)
{
  (void)state;
  double s = -1;
  assert_int_equal(kf_cal_psi_seconds(30e-6, 4e-6, &s), 0);
  assert_true(fabs(s - 26e-6) < 1e-18);
  assert_int_equal(kf_cal_psi_seconds(3e-6, 4e-6, &s), 0); /* noise below the harness */
  assert_true(s == 0);
  assert_int_equal(kf_cal_psi_seconds(0, 0, &s), 0);
  assert_true(s == 0);
  s = 42;
  assert_int_equal(kf_cal_psi_seconds(-1e-6, 0, &s), KF_EINVAL);
  assert_int_equal(kf_cal_psi_seconds(1e-6, -1e-6, &s), KF_EINVAL);
  assert_int_equal(kf_cal_psi_seconds(NAN, 0, &s), KF_EINVAL);
  assert_int_equal(kf_cal_psi_seconds(1e-6, INFINITY, &s), KF_EINVAL);
  assert_int_equal(kf_cal_psi_seconds(1e-6, 0, NULL), KF_EINVAL);
  assert_true(s == 42); /* untouched on error */
}

/* A psi table as kfuse-calibrate would write it for a few routines. */
static const kf_cal_psi_t psi_good[] = {
  { "load33", 8, 0, 1.2345678e-5 },   { "load33", 8, 16384, 1.5e-5 },
  { "load33", 128, 0, 1.19e-5 },      { "mmul33_c1", 128, 0, 3.25e-6 },
  { "mmul33_c1", 128, 32768, 4.5e-6 }, { "mmul33_c9", 32, 8192, 2.0e-6 },
  { "store1", 256, 0, 0 },            { "_x9", 1, 1000000000, 7e-3 },
};
#define NPSI_GOOD (sizeof psi_good / sizeof psi_good[0])

/* psi(routine, ipb, extra) as the psi model reads it from @p table: a group
 * of a launch whose variant names the routine and a launch whose own shared
 * memory is @p extra, so that the first one's extra shared memory is @p extra
 * (lib/model.c: the group's shared memory minus the variant's own). */
static double psi_through_model(const char *table, const char *routine, int ipb, int extra)
{
  char text[8192], err[160] = "";
  int n = snprintf(text, sizeof text,
                   "kfuse-plan 1\n"
                   "launch probe\n  variant v ipb=%d psi=%s\n"
                   "launch pad\n  variant w ipb=%d smem=%d\n%s",
                   ipb, routine, ipb, extra, table);
  assert_true(n > 0 && (size_t)n < sizeof text);
  kf_problem *p;
  if (kf_problem_parse(&p, text, (size_t)n, err, sizeof err) != 0)
    fail_msg("does not parse: %s", err);
  kf_model *m;
  assert_int_equal(kf_model_create(&m, NULL, KF_MODEL_PSI), 0);
  int order[] = { 0, 1 }, var[] = { 0, 0 };
  kf_estimate_t est;
  assert_int_equal(kf_model_estimate(m, p, order, var, 2, &est), 0);
  assert_int_equal(est.instances_per_block, ipb);
  kf_model_destroy(m);
  kf_problem_destroy(p);
  return est.compute_time; /* the pad launch has no flops: 0 */
}

static void test_psi_format_round_trip(void **state)
{
  (void)state;
  char text[4096], err[200] = "";
  size_t len = 0;
  const char *comment = "kfuse psi table\ndevice 0: NVIDIA H100 80GB HBM3\n\ninstances 1048576";
  assert_int_equal(
    kf_cal_format_psi(psi_good, NPSI_GOOD, comment, 0, text, sizeof text, &len, err, sizeof err),
    0);
  assert_int_equal(len, strlen(text));
  static const char start[] = "# kfuse psi table\n# device 0: NVIDIA H100 80GB HBM3\n#\n"
                              "# instances 1048576\npsi load33 8 0 1.23457e-05\n";
  assert_int_equal(strncmp(text, start, sizeof start - 1), 0);
  assert_non_null(strstr(text, "\npsi store1 256 0 0\n"));
  assert_non_null(strstr(text, "\npsi _x9 1 1000000000 0.007\n"));
  /* Every entry reads back through the problem reader and the psi model. */
  for (size_t i = 0; i < NPSI_GOOD; i++) {
    const kf_cal_psi_t *e = &psi_good[i];
    if (e->extra_shared > 65536)
      continue; /* more than a block can have: the model would not run it */
    double got = psi_through_model(text, e->routine, e->ipb, e->extra_shared);
    if (!(fabs(got - e->seconds) <= 5e-6 * e->seconds)) /* 6 significant digits */
      fail_msg("%s %d %d: read back %g, wrote %g", e->routine, e->ipb, e->extra_shared, got,
               e->seconds);
  }
  /* No comment; seconds under a femtosecond become 0. */
  kf_cal_psi_t tiny = { "norm3_c1", 64, 0, 1e-300 };
  assert_int_equal(kf_cal_format_psi(&tiny, 1, NULL, 0, text, sizeof text, &len, err, sizeof err),
                   0);
  assert_string_equal(text, "psi norm3_c1 64 0 0\n");
  /* Tables of fused blocks say so in a statement the problem reader takes. */
  assert_int_equal(kf_cal_format_psi(&tiny, 1, "c", 256, text, sizeof text, &len, err,
                                     sizeof err), 0);
  assert_string_equal(text, "# c\nfused-block 256\npsi norm3_c1 64 0 0\n");
  assert_int_equal(kf_cal_format_psi(&tiny, 1, NULL, -1, text, sizeof text, &len, err,
                                     sizeof err), KF_EINVAL);
  assert_int_equal(kf_cal_format_psi(&tiny, 1, NULL, 32769, text, sizeof text, &len, err,
                                     sizeof err), KF_EINVAL);
  /* A long comment line is cut, not an error; the exact size fits. */
  char longline[1200];
  memset(longline, 'x', sizeof longline - 1);
  longline[sizeof longline - 1] = 0;
  assert_int_equal(
    kf_cal_format_psi(psi_good, 1, longline, 0, text, sizeof text, &len, err, sizeof err), 0);
  assert_true(strchr(text, '\n') - text == 402);
  char exact[512];
  assert_true(len + 1 <= sizeof exact);
  assert_int_equal(
    kf_cal_format_psi(psi_good, 1, longline, 0, exact, len + 1, &len, err, sizeof err), 0);
  assert_string_equal(exact, text);
}

static void test_psi_format_bad(void **state)
{
  (void)state;
  char text[4096], err[200];
  size_t len = 12345;
  char longname[KF_CAL_PSI_NAME_MAX + 2];
  memset(longname, 'r', sizeof longname - 1);
  longname[sizeof longname - 1] = 0;
  const struct {
    kf_cal_psi_t e;
    const char *msg;
  } bad[] = {
    { { NULL, 8, 0, 1e-6 }, "routine '(null)' is not an identifier" },
    { { "", 8, 0, 1e-6 }, "routine '' is not an identifier" },
    { { "9lives", 8, 0, 1e-6 }, "is not an identifier" },
    { { "load 33", 8, 0, 1e-6 }, "is not an identifier" },
    { { "load#33", 8, 0, 1e-6 }, "is not an identifier" },
    { { "load-33", 8, 0, 1e-6 }, "is not an identifier" },
    { { "load33\n", 8, 0, 1e-6 }, "is not an identifier" },
    { { longname, 8, 0, 1e-6 }, "at most 63 characters" },
    { { "load33", 0, 0, 1e-6 }, "instances per block 0 outside" },
    { { "load33", -8, 0, 1e-6 }, "instances per block -8 outside" },
    { { "load33", 1000000001, 0, 1e-6 }, "outside 1..1000000000" },
    { { "load33", 8, -1, 1e-6 }, "extra shared memory -1 outside" },
    { { "load33", 8, 0, -1e-6 }, "not a finite number" },
    { { "load33", 8, 0, NAN }, "not a finite number" },
    { { "load33", 8, 0, INFINITY }, "not a finite number" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    /* The bad entry after two good ones: its index is in the message. */
    kf_cal_psi_t t[3] = { psi_good[0], psi_good[1], bad[i].e };
    err[0] = 0;
    int rc = kf_cal_format_psi(t, 3, NULL, 0, text, sizeof text, &len, err, sizeof err);
    if (rc != KF_EINVAL || !strstr(err, "entry 2") || !strstr(err, bad[i].msg))
      fail_msg("case %zu: rc %d err '%s', want '%s'", i, rc, err, bad[i].msg);
  }
  /* The same routine, ipb and extra twice: the model would see only one. */
  kf_cal_psi_t dup[] = { psi_good[0], psi_good[1], psi_good[0] };
  dup[2].seconds = 2e-5;
  assert_int_equal(kf_cal_format_psi(dup, 3, NULL, 0, text, sizeof text, &len, err, sizeof err),
                   KF_EINVAL);
  assert_non_null(strstr(err, "entry 2 repeats entry 0: load33 8 0"));
  /* Same routine at another ipb or extra, or another routine: no repeat. */
  kf_cal_psi_t other[] = {
    { "a", 8, 0, 1 }, { "a", 16, 0, 1 }, { "a", 8, 8192, 1 }, { "b", 8, 0, 1 },
  };
  assert_int_equal(kf_cal_format_psi(other, 4, NULL, 0, text, sizeof text, &len, err, sizeof err),
                   0);
  len = 12345;
  assert_int_equal(kf_cal_format_psi(psi_good, 0, NULL, 0, text, sizeof text, &len, err, sizeof err),
                   KF_EINVAL);
  assert_non_null(strstr(err, "no psi entries"));
  assert_int_equal(kf_cal_format_psi(NULL, 3, NULL, 0, text, sizeof text, &len, err, sizeof err),
                   KF_EINVAL);
  assert_int_equal(kf_cal_format_psi(psi_good, 3, NULL, 0, NULL, 0, &len, NULL, 0), KF_EINVAL);
  assert_int_equal(kf_cal_format_psi(psi_good, 3, NULL, 0, text, 0, &len, NULL, 0), KF_EINVAL);
  assert_int_equal(len, 12345); /* untouched on error */
  /* Buffers too small, down to one byte: an error, never an overrun. */
  size_t need = 0;
  assert_int_equal(kf_cal_format_psi(psi_good, NPSI_GOOD, "header", 0, text, sizeof text, &need,
                                     err, sizeof err),
                   0);
  for (size_t n = 1; n <= need; n += (n < need - 3 ? 23 : 1)) {
    char *small = malloc(n);
    assert_non_null(small);
    int rc = kf_cal_format_psi(psi_good, NPSI_GOOD, "header", 0, small, n, &len, err, sizeof err);
    if (rc != KF_ERANGE || !strstr(err, "longer than"))
      fail_msg("buffer of %zu bytes (text needs %zu + 1): rc %d err '%s'", n, need, rc, err);
    free(small);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_median),
    cmocka_unit_test(test_median_degenerate),
    cmocka_unit_test(test_hide_typical),
    cmocka_unit_test(test_hide_not_monotone_bandwidth),
    cmocka_unit_test(test_hide_degenerate),
    cmocka_unit_test(test_flops_per_cycle),
    cmocka_unit_test(test_format_round_trip),
    cmocka_unit_test(test_format_name),
    cmocka_unit_test(test_format_degenerate),
    cmocka_unit_test(test_profile_diff),
    cmocka_unit_test(test_shipped_profile),
    cmocka_unit_test(test_psi_ipb_set),
    cmocka_unit_test(test_psi_seconds),
    cmocka_unit_test(test_psi_format_round_trip),
    cmocka_unit_test(test_psi_format_bad),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
