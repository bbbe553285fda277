/* Unit tests for the shared error table (include/kfuse/error.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "kfuse/error.h"

static void test_every_code_has_a_name_and_message(void **state)
{
  (void)state;
  for (int e = -1; e >= KF_ERRNO_MIN; e--) {
    assert_string_not_equal(kf_err_name(e), "UNKNOWN");
    assert_string_not_equal(kf_strerror(e), "unknown error");
  }
}

static void test_unknown_codes(void **state)
{
  (void)state;
  assert_string_equal(kf_err_name(0), "UNKNOWN");
  assert_string_equal(kf_err_name(KF_ERRNO_MIN - 1), "UNKNOWN");
  assert_string_equal(kf_strerror(12345), "unknown error");
}

static void test_names(void **state)
{
  (void)state;
  assert_string_equal(kf_err_name(KF_EPARSE), "EPARSE");
  assert_string_equal(kf_strerror(KF_ENOMEM), "out of memory");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_code_has_a_name_and_message),
    cmocka_unit_test(test_unknown_codes),
    cmocka_unit_test(test_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
