/* Footprint expressions: grammar, symbols, overflow, fail-safe errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "manifest/expr.h"

static int eval_text(const char *text, const kf_launch_t *l, int64_t *v)
{
  kf__expr_t *e = NULL;
  int rc = kf__expr_compile(text, strlen(text), &e);
  if (rc != 0) {
    assert_null(e);
    return rc;
  }
  rc = kf__expr_eval(e, l, v);
  kf__expr_free(e);
  return rc;
}

/* A launch with grid (10,2,1), block (256,1,1) and args: int n=1000,
 * long long m=-5, char c=-3, short h=7, float f (4 bytes), a 16-byte struct. */
static int32_t n_val = 1000;
static int64_t m_val = -5;
static int8_t c_val = -3;
static int16_t h_val = 7;
static float f_val = 1.5f;
static char big_val[16];
static void *args[] = {&n_val, &m_val, &c_val, &h_val, &f_val, big_val};
static const uint32_t sizes[] = {4, 8, 1, 2, 4, 16};
static const kf_launch_t launch = {NULL, {10, 2, 1}, {256, 1, 1}, 0, NULL, args, sizes, 6, 0, 0};

static int64_t ev(const char *text)
{
  int64_t v = 0;
  assert_int_equal(eval_text(text, &launch, &v), 0);
  return v;
}

static void test_constants_and_precedence(void **state)
{
  (void)state;
  assert_int_equal(ev("0"), 0);
  assert_int_equal(ev("42"), 42);
  assert_int_equal(ev("2+3*4"), 14);
  assert_int_equal(ev("(2+3)*4"), 20);
  assert_int_equal(ev("10-4-3"), 3);
  assert_int_equal(ev("-5+2"), -3);
  assert_int_equal(ev("2*-3"), -6);
  assert_int_equal(ev("9223372036854775807"), INT64_MAX);
}

static void test_symbols(void **state)
{
  (void)state;
  assert_int_equal(ev("gx*bx"), 2560);
  assert_int_equal(ev("gy+gz+by+bz"), 5);
  assert_int_equal(ev("4*s0"), 4000);
  assert_int_equal(ev("s1"), -5);
  assert_int_equal(ev("s2"), -3);
  assert_int_equal(ev("s3*2"), 14);
  assert_int_equal(ev("min(gx*bx,s0)*4"), 4000);
  assert_int_equal(ev("max(gx*bx,s0)*4"), 10240);
  assert_int_equal(ev("min(max(1,2),min(3,4))"), 2);
  /* The device pass's bound of a remainder gather b[i % c] (4-byte
   * elements): 4*min(threads-1, |c|-1)+4 bytes, whatever c's sign. */
  assert_int_equal(ev("4*min(bx*gx-1,max(s3,-s3)-1)+4"), 28);   /* c = 7 */
  assert_int_equal(ev("4*min(bx*gx-1,max(s1,-s1)-1)+4"), 20);   /* c = -5 */
  assert_int_equal(ev("4*min(bx*gx-1,max(s0,-s0)-1)+4"), 4000); /* c = 1000 < 2560 */
  assert_int_equal(ev("4*min(bx*gx-1,max(s0,-s0)*9-1)+4"), 10240); /* c > threads */
  /* An unsigned bound i < n: n itself, or the grid where n (2^31 or more,
   * read sign-extended) is negative. */
  assert_int_equal(ev("max(min(4*bx*gx,4*s0),min(4*bx*gx,-s0*(4*bx*gx)))"), 4000);
  assert_int_equal(ev("max(min(4*bx*gx,4*s1),min(4*bx*gx,-s1*(4*bx*gx)))"), 10240);
  /* An unsigned remainder i % c by a parameter: c - 1, or the index's own
   * bound where c reads negative. */
  assert_int_equal(ev("max(min(bx*gx-1+1,s3),min(bx*gx-1+1,-s3*(bx*gx-1+1)))-1"), 6);
  assert_int_equal(ev("max(min(bx*gx-1+1,s1),min(bx*gx-1+1,-s1*(bx*gx-1+1)))-1"), 2559);
}

/* Floor division by a positive divisor: a count of complete instances
 * (n / r) and of instances begun ((n + r - 1) / r), for the guards of a
 * group across granularities. */
static void test_division(void **state)
{
  int64_t v;
  (void)state;
  assert_int_equal(ev("7/2"), 3);
  assert_int_equal(ev("8/2"), 4);
  assert_int_equal(ev("-7/2"), -4); /* toward minus infinity, not zero */
  assert_int_equal(ev("-8/2"), -4);
  assert_int_equal(ev("0/5"), 0);
  assert_int_equal(ev("s0/9"), 111);
  assert_int_equal(ev("(s0+8)/9"), 112);
  assert_int_equal(ev("(9*s0+8)/9"), 1000);
  assert_int_equal(ev("s1/2"), -3);
  assert_int_equal(ev("2*s0/3"), 666); /* left to right: (2*s0)/3 */
  assert_int_equal(ev("s0/3*2"), 666);
  assert_int_equal(ev("1+s0/7"), 143);
  assert_int_equal(ev("9223372036854775807/1"), INT64_MAX);
  /* Intermediates beyond int64 divide in 128 bits. */
  assert_int_equal(ev("9223372036854775807*4/4"), INT64_MAX);
  /* A divisor that is not positive fails the evaluation (and so the guard). */
  assert_int_equal(eval_text("1/0", &launch, &v), KF_ERANGE);
  assert_int_equal(eval_text("s0/s1", &launch, &v), KF_ERANGE);
  assert_int_equal(eval_text("5/-1", &launch, &v), KF_ERANGE);
  /* So a bound read sign-extended holds only where it is not negative: a
   * grid-stride loop's `i < (size_t)n` (Manifest.cpp loopRange). */
  assert_int_equal(ev("4*(max(s0,1)-1)/(2*min(s0,0)+1)+4"), 4000);
  assert_int_equal(eval_text("4*(max(s1,1)-1)/(2*min(s1,0)+1)+4", &launch, &v), KF_ERANGE);
  assert_int_not_equal(eval_text("1//2", &launch, &v), 0);
  assert_int_not_equal(eval_text("/2", &launch, &v), 0);
  assert_int_not_equal(eval_text("2/", &launch, &v), 0);
}

static void test_malformed(void **state)
{
  static const char *const bad[] = {"", "(", ")", "1+", "+1", "1 + 2", "1)", "(1", "foo", "gw", "s",
                                    "sx", "s1a", "min(1)", "min(1,2", "max1,2)", "1**2", "4*", "0x10",
                                    "1,2", "min(1,2,3)", "s99999", "gx(1)"};
  int64_t v;
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = eval_text(bad[i], &launch, &v);
    if (rc != KF_EPARSE && rc != KF_ERANGE)
      fail_msg("\"%s\" compiled (rc %d)", bad[i], rc);
  }
}

static void test_overflow(void **state)
{
  int64_t v;
  char deep[400];
  (void)state;
  assert_int_equal(eval_text("9223372036854775808", &launch, &v), KF_ERANGE);
  /* Fits in 128 bits, not in the int64 result. */
  assert_int_equal(eval_text("9223372036854775807+1", &launch, &v), KF_ERANGE);
  /* Beyond 128 bits in the middle. */
  assert_int_equal(eval_text("9223372036854775807*9223372036854775807*9223372036854775807", &launch, &v),
                   KF_ERANGE);
  /* Intermediates beyond int64 that come back are fine in 128 bits. */
  assert_int_equal(eval_text("9223372036854775807*4-9223372036854775807*3", &launch, &v), 0);
  assert_int_equal(v, INT64_MAX);
  /* Nesting deeper than the parser allows is an error, not a stack overflow. */
  memset(deep, '(', 200);
  deep[200] = '1';
  memset(deep + 201, ')', 198);
  deep[399] = '\0';
  assert_int_not_equal(eval_text(deep, &launch, &v), 0);
}

static void test_bad_scalars(void **state)
{
  int64_t v;
  (void)state;
  assert_int_equal(eval_text("s6", &launch, &v), KF_EINVAL);   /* no such param */
  assert_int_equal(eval_text("s5", &launch, &v), KF_EINVAL);   /* 16 bytes */
  assert_int_equal(eval_text("s4", &launch, &v), 0);           /* 4 bytes: read as int32 */
  {
    int32_t bits;
    memcpy(&bits, &f_val, 4);
    assert_int_equal(v, bits);
  }
}

/* s<p>.<off>.<bytes>: an integer field of a by-value struct, read
 * sign-extended at its offset; out of the argument, or of another width, it
 * does not evaluate or does not compile. */
static void test_fields(void **state)
{
  int64_t v;
  int32_t nx = 3000, ny = -7;
  int64_t big = -123456789012LL;
  int16_t h = -2;
  (void)state;
  memcpy(big_val + 0, &h, 2);
  memcpy(big_val + 4, &nx, 4);
  memcpy(big_val + 8, &big, 8);
  assert_int_equal(ev("s5.4.4"), 3000);
  assert_int_equal(ev("s5.8.8"), -123456789012LL);
  assert_int_equal(ev("s5.0.2"), -2);
  assert_int_equal(ev("4*s5.4.4*(gy-1)+max(min(bx*gx,s5.4.4),1)"), 12000 + 2560);
  assert_int_equal(ev("-s5.4.4"), -3000);
  memcpy(big_val + 12, &ny, 4);
  assert_int_equal(ev("s5.12.4"), -7);
  assert_int_equal(eval_text("s5.13.4", &launch, &v), KF_EINVAL); /* past the 16 bytes */
  assert_int_equal(eval_text("s0.2.4", &launch, &v), KF_EINVAL);  /* past int n's 4 */
  assert_int_equal(eval_text("s9.0.4", &launch, &v), KF_EINVAL);  /* no such param */
  static const char *const bad[] = {"s5.4", "s5.4.3", "s5.4.16", "s5..4", "s5.4.4.4", "s5.x.4",
                                    "s5.99999999.4"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = eval_text(bad[i], &launch, &v);
    if (rc != KF_EPARSE && rc != KF_ERANGE)
      fail_msg("\"%s\" compiled (rc %d)", bad[i], rc);
  }
  memset(big_val, 0, sizeof big_val);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_constants_and_precedence),
    cmocka_unit_test(test_symbols),
    cmocka_unit_test(test_division),
    cmocka_unit_test(test_malformed),
    cmocka_unit_test(test_overflow),
    cmocka_unit_test(test_bad_scalars),
    cmocka_unit_test(test_fields),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
