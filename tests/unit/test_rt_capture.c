/* kf_rt_launch_seq() during stream capture, against the fake table's model
 * of it (fake_cuda.h): a site's first call inside a capture, capture modes,
 * failures that must not be cached, KFUSE_VERIFY and KFUSE_STATS. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#include <cmocka.h>

#include "kfuse/rt.h"
#include "runtime/site.h"
#include "tests/unit/fake_cuda.h"
#include "tests/unit/rt_testlib.h"

#define STREAM ((void *)0x5)

/* Nothing the runtime did broke the capture, put work of its own into it,
 * or left the thread's capture mode changed. */
static void assert_capture_intact(void)
{
  if (fake.violations != 0)
    fail_msg("%d capture violation(s), the first by %s", fake.violations, fake.violation);
  assert_int_equal(fake.captured_ops, 0);
  assert_int_equal(fake_thread_mode(), cudaStreamCaptureModeGlobal);
  assert_int_equal(fake.streams_created, fake.streams_destroyed);
}

/* The outputs are still the poison fill_inputs() left: nothing ran yet. */
static void assert_not_run(void)
{
  assert_true(obuf[0] == -1 && obuf[N - 1] == -1);
}

static void first_call_in_capture(enum cudaStreamCaptureMode mode, const char *where)
{
  kf_site_t site = {where, NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  char expect[256];
  call_init(&c, "sa");
  fake_begin_capture(STREAM, mode);
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_int_equal(fake_end_capture(), 1);
  assert_capture_intact();
  assert_log("F:fused_sa");
  assert_true(fake.log[0].captured);
  /* The manifest came over a private stream, the fused kernel was loaded. */
  assert_int_equal(fake.streams_created, 1);
  assert_int_equal(fake.preloads, 1);
  assert_not_run();
  fake_replay();
  check_results();
  snprintf(expect, sizeof expect, "kfuse-stats: %s: calls=1 fused=1 fallback=0 captured=1", where);
  assert_string_equal(stats_of(where), expect);
  /* The match holds outside the capture too: no second discovery. */
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_int_equal(fake.calls_get_kernel, 2);
  assert_false(fake.log[1].captured);
  snprintf(expect, sizeof expect, "kfuse-stats: %s: calls=2 fused=2 fallback=0 captured=1", where);
  assert_string_equal(stats_of(where), expect);
}

static void test_first_call_global(void **state)
{
  (void)state;
  first_call_in_capture(cudaStreamCaptureModeGlobal, "global");
}

static void test_first_call_thread_local(void **state)
{
  (void)state;
  first_call_in_capture(cudaStreamCaptureModeThreadLocal, "local");
}

static void test_first_call_relaxed(void **state)
{
  (void)state;
  first_call_in_capture(cudaStreamCaptureModeRelaxed, "relaxed");
}

/* A thread that set its own mode gets it back. */
static void test_mode_restored(void **state)
{
  static kf_site_t site = {"mode", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  enum cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal;
  call_t c;
  (void)state;
  call_init(&c, "sa");
  assert_int_equal(KF__CU(cudaThreadExchangeStreamCaptureMode)(&mode), cudaSuccess);
  fake_begin_capture(STREAM, cudaStreamCaptureModeThreadLocal);
  kf_rt_launch_seq(&site, c.l, c.nl);
  fake_end_capture();
  assert_int_equal(fake.violations, 0);
  assert_int_equal(fake_thread_mode(), cudaStreamCaptureModeThreadLocal);
}

/* A manifest read that fails during a capture is not taken for "no
 * manifest": the call runs the originals (recorded), the next call outside
 * the capture reads the manifest and fuses, and KFUSE_STATS shows one line. */
static void failure_not_cached(CUresult *knob, CUresult failure, const char *where)
{
  kf_site_t site = {where, NULL, 2, 0, NULL, NULL, NULL, 0, NULL}, other = {"other", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  char expect[256];
  call_init(&c, "sa");
  *knob = failure;
  fake_begin_capture(STREAM, cudaStreamCaptureModeGlobal);
  kf_rt_launch_seq(&site, c.l, c.nl);
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_int_equal(fake_end_capture(), 4);
  assert_capture_intact();
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi _Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  /* Discovery ran for both calls (the failure was not cached). */
  assert_int_equal(fake.calls_get_kernel, 4);
  fake_replay();
  check_results();
  *knob = CUDA_SUCCESS;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_string_equal(fake.log[fake.nlog - 1].name, "fused_sa");
  kf_rt_launch_seq(&other, c.l, c.nl);
  assert_string_equal(fake.log[fake.nlog - 1].name, "fused_sa");
  snprintf(expect, sizeof expect, "kfuse-stats: %s: calls=3 fused=1 fallback=2 capture=2 captured=2", where);
  assert_string_equal(stats_of(where), expect);
}

static void test_copy_failure_not_cached(void **state)
{
  (void)state;
  failure_not_cached(&fake.copy_result, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "copy");
}

static void test_load_failure_not_cached(void **state)
{
  (void)state;
  /* Any CUDA error while capturing, not only the capture codes. */
  failure_not_cached(&fake.global_result, CUDA_ERROR_OUT_OF_MEMORY, "load");
}

/* One provisional state however many captured calls fail: one stats line. */
static void test_one_provisional_line(void **state)
{
  static kf_site_t site = {"prov", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  void *first;
  call_t c;
  char buf[1024];
  FILE *f;
  size_t n;
  (void)state;
  call_init(&c, "sa");
  fake.copy_result = CUDA_ERROR_UNKNOWN;
  fake_begin_capture(STREAM, cudaStreamCaptureModeGlobal);
  kf_rt_launch_seq(&site, c.l, c.nl);
  first = site.cache;
  kf_rt_launch_seq(&site, c.l, c.nl);
  kf_rt_launch_seq(&site, c.l, c.nl);
  fake_end_capture();
  assert_ptr_equal(site.cache, first); /* retried, but not republished */
  assert_int_equal(fake.calls_get_kernel, 6);
  fake.copy_result = CUDA_SUCCESS;
  kf_rt_launch_seq(&site, c.l, c.nl);
  kf_rt_launch_seq(&(kf_site_t){"next", NULL, 2, 0, NULL, NULL, NULL, 0, NULL}, c.l, c.nl);
  f = tmpfile();
  kf__stats_print(f);
  rewind(f);
  n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  assert_string_equal(buf, "kfuse-stats: prov: calls=4 fused=1 fallback=3 capture=3 captured=3\n"
                           "kfuse-stats: next: calls=1 fused=1 fallback=0\n");
}

/* What is an answer stays cached: a module without a manifest, and a
 * failure outside capture that is no capture error. */
static void test_answers_cached(void **state)
{
  static kf_site_t site = {"none", NULL, 2, 0, NULL, NULL, NULL, 0, NULL}, later = {"fails", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  call_init(&c, "sa");
  fake.manifest = NULL;
  fake_begin_capture(STREAM, cudaStreamCaptureModeGlobal);
  kf_rt_launch_seq(&site, c.l, c.nl);
  kf_rt_launch_seq(&site, c.l, c.nl);
  fake_end_capture();
  assert_int_equal(fake.calls_get_kernel, 2);
  assert_string_equal(stats_of("none"), "kfuse-stats: none: calls=2 fused=0 fallback=2 no-manifest=2 captured=2");
  /* The library was cached without a manifest: a new site finds none. */
  fake.manifest = manifest;
  kf_rt_launch_seq(&later, c.l, c.nl);
  assert_string_equal(stats_of("fails"), "kfuse-stats: fails: calls=1 fused=0 fallback=1 no-manifest=1");
}

static void test_failure_outside_capture_cached(void **state)
{
  static kf_site_t site = {"plain", NULL, 2, 0, NULL, NULL, NULL, 0, NULL}, later = {"later", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  call_init(&c, "sa");
  fake.copy_result = CUDA_ERROR_UNKNOWN;
  kf_rt_launch_seq(&site, c.l, c.nl);
  fake.copy_result = CUDA_SUCCESS;
  kf_rt_launch_seq(&site, c.l, c.nl);
  kf_rt_launch_seq(&later, c.l, c.nl);
  assert_string_equal(stats_of("plain"), "kfuse-stats: plain: calls=2 fused=0 fallback=2 no-manifest=2");
  assert_string_equal(stats_of("later"), "kfuse-stats: later: calls=1 fused=0 fallback=1 no-manifest=1");
}

/* A capture error code is never cached, captured stream or not (a global
 * capture of another thread). */
static void test_capture_error_never_cached(void **state)
{
  static kf_site_t site = {"code", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  call_init(&c, "sa");
  fake.copy_result = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  kf_rt_launch_seq(&site, c.l, c.nl);
  fake.copy_result = CUDA_SUCCESS;
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi F:fused_sa");
  assert_string_equal(stats_of("code"), "kfuse-stats: code: calls=2 fused=1 fallback=1 capture=1");
}

static void verify_two_captured_calls(void)
{
  kf_site_t site = {"vc", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  call_init(&c, "sa");
  fake_begin_capture(STREAM, cudaStreamCaptureModeGlobal);
  kf_rt_launch_seq(&site, c.l, c.nl);
  kf_rt_launch_seq(&site, c.l, c.nl);
  fake_end_capture();
  /* Outside the capture the same site is verified again. */
  kf_rt_launch_seq(&site, c.l, c.nl);
}

/* KFUSE_VERIFY=1 records the fused kernel unverified and says so once. */
static void test_verify_skipped(void **state)
{
  char err[1024];
  (void)state;
  setenv("KFUSE_VERIFY", "1", 1);
  kf__rt_test_reset();
  capture_stderr(verify_two_captured_calls, err, sizeof err);
  unsetenv("KFUSE_VERIFY");
  assert_string_equal(err, "kfuse-verify: vc: skipped: the launches are being captured into a CUDA graph, which "
                           "runs them unchecked\n");
  assert_int_equal(fake.violations, 0);
  assert_int_equal(fake.captured_ops, 0);
  assert_log("F:fused_sa F:fused_sa _Z5scalePKfPffi _Z4axpyPKfS0_Pfi F:fused_sa");
  assert_true(fake.log[0].captured && fake.log[1].captured && !fake.log[2].captured);
  assert_string_equal(stats_of("vc"), "kfuse-stats: vc: calls=3 fused=3 fallback=0 captured=2");
}

/* KFUSE_VERIFY=scratch: no poison, no poison check, inside a capture. */
static void poison_in_capture(void)
{
  static kf_site_t site = {"cap", NULL, 2, 2, t_decl, NULL, NULL, 0, NULL}, reader = {"rd", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  call_init(&c, "sa");
  c.l[0].dead = 1u << 1, c.l[1].dead = 1u << 0;
  fake_begin_capture(STREAM, cudaStreamCaptureModeGlobal);
  kf_rt_launch_seq(&site, c.l, c.nl);
  fake_end_capture();
  assert_false(all_poisoned(tbuf));
  /* Poisoned outside, then read inside a capture: nothing is checked there
   * (the read happens at replay, and looking would synchronise). */
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_true(all_poisoned(tbuf));
  call_init(&c, "sa");
  c.x = tbuf, c.t = t2buf, c.t1 = t2buf;
  fake_begin_capture(STREAM, cudaStreamCaptureModeGlobal);
  kf_rt_launch_seq(&reader, c.l, c.nl);
  fake_end_capture();
}

static void test_scratch_poison_capture(void **state)
{
  char err[1024];
  (void)state;
  reset_with("scratch", NULL);
  capture_stderr(poison_in_capture, err, sizeof err);
  unsetenv("KFUSE_VERIFY");
  assert_non_null(strstr(err, "kfuse-verify: cap: skipped: the launches are being captured"));
  assert_non_null(strstr(err, "kfuse-verify: rd: skipped: the launches are being captured"));
  assert_null(strstr(err, "is read by"));
  assert_int_equal(fake.violations, 0);
  assert_int_equal(fake.captured_ops, 0);
  assert_string_equal(stats_of("cap"), "kfuse-stats: cap: calls=2 fused=2 fallback=0 captured=1 scratch=2 poisoned=1");
  assert_string_equal(stats_of("rd"), "kfuse-stats: rd: calls=1 fused=1 fallback=0 captured=1");
}

/* A guard that asks the driver for an allocation (no footprint) during a
 * global capture. */
static void test_driver_guard_in_capture(void **state)
{
  static const char nofp[] = HDR
      "group fused_sa 2\nkernel 0 _Z5scalePKfPffi 4\nkernel 1 _Z4axpyPKfS0_Pfi 4\n"
      "shape same\nstream same\ndynshmem 0\nlaunch 0 1 32\n"
      "equal 0.1 1.0\nequal 0.3 1.3\n"
      "footprint 0.1 w 0 4*s3\nfootprint 1.0 r 0 4*s3\n"
      "footprint 1.1 r 0 4*s3\nfootprint 1.2 w 0 4*s3\n"
      "disjoint 0.0 0.1\ndisjoint 1.2 0.0\ndisjoint 1.2 1.1\ndisjoint 1.2 1.0\n"
      "dead 0 0.1\nend\n";
  static kf_site_t site = {"nofp", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  fake.manifest = nofp;
  call_init(&c, "sa");
  fake_begin_capture(STREAM, cudaStreamCaptureModeGlobal);
  kf_rt_launch_seq(&site, c.l, c.nl);
  kf_rt_launch_seq(&site, c.l, c.nl);
  fake_end_capture();
  assert_true(fake.calls_range > 0);
  assert_capture_intact();
  assert_log("F:fused_sa F:fused_sa");
}

/* The fused launch finds no context: binding one (cudaFree(NULL)) must not
 * break a strict capture; the originals are recorded instead. */
static void test_context_retry_in_capture(void **state)
{
  static kf_site_t site = {"ctx", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  call_init(&c, "sa");
  fake.fused_result = CUDA_ERROR_INVALID_CONTEXT;
  fake_begin_capture(STREAM, cudaStreamCaptureModeGlobal);
  kf_rt_launch_seq(&site, c.l, c.nl);
  assert_int_equal(fake_end_capture(), 2);
  assert_capture_intact();
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi");
  fake_replay();
  check_results();
  assert_string_equal(stats_of("ctx"), "kfuse-stats: ctx: calls=1 fused=0 fallback=1 launch-failed=1 captured=1");
}

/* Launches on the legacy stream while a blocking stream captures: the
 * runtime's own work (discovery, the status query) breaks nothing; the
 * launches fail as the originals would, with the originals' error. */
static void test_legacy_stream_in_capture(void **state)
{
  static kf_site_t site = {"legacy", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  call_init(&c, "sa");
  c.l[0].stream = c.l[1].stream = NULL;
  fake_begin_capture(STREAM, cudaStreamCaptureModeGlobal);
  kf_rt_launch_seq(&site, c.l, c.nl);
  fake_end_capture();
  assert_string_equal(fake.violation, "cuLaunchKernel on the legacy stream");
  assert_int_equal(fake.last_error, cudaErrorStreamCaptureImplicit);
  assert_int_equal(fake.captured_ops, 0);
  assert_string_equal(stats_of("legacy"), "kfuse-stats: legacy: calls=1 fused=0 fallback=1 launch-failed=1 captured=1");
}

/* Without KFUSE_STATS or KFUSE_VERIFY a call asks no stream status: only
 * discovery does. */
static void test_plain_path_asks_nothing(void **state)
{
  static kf_site_t site = {"quiet", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  int after_first;
  (void)state;
  unsetenv("KFUSE_STATS");
  kf__rt_test_reset();
  call_init(&c, "sa");
  fake_begin_capture(STREAM, cudaStreamCaptureModeGlobal);
  kf_rt_launch_seq(&site, c.l, c.nl);
  after_first = fake.calls_is_capturing;
  for (int i = 0; i < 5; i++)
    kf_rt_launch_seq(&site, c.l, c.nl);
  assert_int_equal(fake_end_capture(), 6);
  assert_int_equal(after_first, 1);
  assert_int_equal(fake.calls_is_capturing, 1);
  assert_capture_intact();
}

/* A thread without a current context cannot ask the legacy stream: that
 * is no capture (the call is verified and not counted as captured). */
static void test_status_unknown_without_context(void **state)
{
  static kf_site_t site = {"noctx", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)state;
  setenv("KFUSE_VERIFY", "1", 1);
  kf__rt_test_reset();
  call_init(&c, "sa");
  c.l[0].stream = c.l[1].stream = NULL;
  fake.is_capturing_result = CUDA_ERROR_INVALID_CONTEXT;
  kf_rt_launch_seq(&site, c.l, c.nl);
  unsetenv("KFUSE_VERIFY");
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi F:fused_sa");
  assert_string_equal(stats_of("noctx"), "kfuse-stats: noctx: calls=1 fused=1 fallback=0");
}

/* Another thread's site, first called on a stream of its own while this
 * thread captures in global mode: discovery and KFUSE_VERIFY's allocations
 * and synchronisations there must not invalidate this thread's capture. */
static void *other_thread(void *arg)
{
  kf_site_t site = {"thread", NULL, 2, 0, NULL, NULL, NULL, 0, NULL};
  call_t c;
  (void)arg;
  call_init(&c, "sa");
  c.l[0].stream = c.l[1].stream = (void *)0x9;
  kf_rt_launch_seq(&site, c.l, c.nl);
  return NULL;
}

static void test_other_thread_during_global_capture(void **state)
{
  pthread_t th;
  (void)state;
  setenv("KFUSE_VERIFY", "1", 1);
  kf__rt_test_reset();
  fake_begin_capture(STREAM, cudaStreamCaptureModeGlobal);
  assert_int_equal(pthread_create(&th, NULL, other_thread, NULL), 0);
  pthread_join(th, NULL);
  fake_end_capture();
  unsetenv("KFUSE_VERIFY");
  assert_capture_intact();
  assert_log("_Z5scalePKfPffi _Z4axpyPKfS0_Pfi F:fused_sa");
  check_results();
  assert_string_equal(stats_of("thread"), "kfuse-stats: thread: calls=1 fused=1 fallback=0");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(test_first_call_global, setup),
    cmocka_unit_test_setup(test_first_call_thread_local, setup),
    cmocka_unit_test_setup(test_first_call_relaxed, setup),
    cmocka_unit_test_setup(test_mode_restored, setup),
    cmocka_unit_test_setup(test_copy_failure_not_cached, setup),
    cmocka_unit_test_setup(test_load_failure_not_cached, setup),
    cmocka_unit_test_setup(test_one_provisional_line, setup),
    cmocka_unit_test_setup(test_answers_cached, setup),
    cmocka_unit_test_setup(test_failure_outside_capture_cached, setup),
    cmocka_unit_test_setup(test_capture_error_never_cached, setup),
    cmocka_unit_test_setup(test_verify_skipped, setup),
    cmocka_unit_test_setup(test_scratch_poison_capture, setup),
    cmocka_unit_test_setup(test_driver_guard_in_capture, setup),
    cmocka_unit_test_setup(test_context_retry_in_capture, setup),
    cmocka_unit_test_setup(test_legacy_stream_in_capture, setup),
    cmocka_unit_test_setup(test_plain_path_asks_nothing, setup),
    cmocka_unit_test_setup(test_status_unknown_without_context, setup),
    cmocka_unit_test_setup(test_other_thread_during_global_capture, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
