/* SPDX-License-Identifier: MIT */
/* The part of cmocka's API the kernel tests use, for their WebAssembly
 * build (make check-wasm): Debian ships cmocka for the host only, and the
 * tests' own code must stay one source for both builds. Same macros, same
 * result lines ("[  PASSED  ] N test(s).", "[  FAILED  ] ...",
 * "[  SKIPPED ] ..."), which tests/run.sh counts. A failed assertion ends
 * its test by longjmp, as cmocka's does; a test that returns without one
 * passes. Header-only: each test program is one translation unit. */
#ifndef HS_WASM_CMOCKA_H
#define HS_WASM_CMOCKA_H

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct CMUnitTest {
  const char *name;
  void (*test_func)(void **state);
};
typedef int (*CMFixtureFunction)(void **state);

#define cmocka_unit_test(f) {#f, f}

static jmp_buf cm_jump_;
static int cm_outcome_; /* 1 failed, 2 skipped */

static void cm_end_(int outcome, const char *file, int line, const char *what) {
  if (outcome == 1) printf("[   ERROR  ] --- %s\n[   LINE   ] --- %s:%d: error: Failure!\n", what, file, line);
  cm_outcome_ = outcome;
  longjmp(cm_jump_, 1);
}

#define fail() cm_end_(1, __FILE__, __LINE__, "fail()")
#define fail_msg(...) \
  do { printf("[   ERROR  ] --- "); printf(__VA_ARGS__); printf("\n"); fail(); } while (0)
#define skip() cm_end_(2, __FILE__, __LINE__, "skip()")
#define assert_true(c) \
  do { if (!(c)) cm_end_(1, __FILE__, __LINE__, #c " is not true"); } while (0)
#define assert_false(c) \
  do { if (c) cm_end_(1, __FILE__, __LINE__, #c " is not false"); } while (0)
#define assert_non_null(p) \
  do { if ((p) == NULL) cm_end_(1, __FILE__, __LINE__, #p " is NULL"); } while (0)
#define assert_null(p) \
  do { if ((p) != NULL) cm_end_(1, __FILE__, __LINE__, #p " is not NULL"); } while (0)
#define assert_int_equal(a, b)                                            \
  do {                                                                    \
    const intmax_t cm_a_ = (intmax_t)(a), cm_b_ = (intmax_t)(b);          \
    if (cm_a_ != cm_b_) {                                                 \
      printf("[   ERROR  ] --- %jd != %jd\n", cm_a_, cm_b_);              \
      cm_end_(1, __FILE__, __LINE__, #a " != " #b);                       \
    }                                                                     \
  } while (0)
#define assert_int_not_equal(a, b) assert_true((intmax_t)(a) != (intmax_t)(b))
#define assert_memory_equal(a, b, n) \
  do { if (memcmp((a), (b), (n)) != 0) cm_end_(1, __FILE__, __LINE__, "memory of " #a " and " #b " differs"); } while (0)
#define assert_string_equal(a, b) assert_true(strcmp((a), (b)) == 0)

static int cm_run_(const char *group, const struct CMUnitTest *t, size_t n,
                   CMFixtureFunction setup, CMFixtureFunction teardown) {
  void *state = NULL;
  size_t passed = 0, failed = 0, skipped = 0;
  /* volatile: read after a longjmp back into this frame */
  volatile size_t i;
  char outcome[256];
  (void)group;
  printf("[==========] Running %zu test(s).\n", n);
  if (setup && setup(&state) != 0) {
    printf("[  ERROR   ] group setup failed\n");
    return 1;
  }
  for (i = 0; i < n; i++) {
    printf("[ RUN      ] %s\n", t[i].name);
    fflush(stdout);
    cm_outcome_ = 0;
    if (setjmp(cm_jump_) == 0) t[i].test_func(&state);
    if (cm_outcome_ == 0) passed++, printf("[       OK ] %s\n", t[i].name);
    else if (cm_outcome_ == 2) skipped++, printf("[  SKIPPED ] %s\n", t[i].name);
    else failed++, printf("[  FAILED  ] %s\n", t[i].name);
    outcome[i < sizeof outcome ? i : sizeof outcome - 1] = (char)cm_outcome_;
  }
  if (teardown && teardown(&state) != 0) failed++;
  printf("[==========] %zu test(s) run.\n", n);
  printf("[  PASSED  ] %zu test(s).\n", passed);
  if (skipped) {
    printf("[  SKIPPED ] %zu test(s), listed below:\n", skipped);
    for (size_t j = 0; j < n && j < sizeof outcome; j++)
      if (outcome[j] == 2) printf("[  SKIPPED ] %s\n", t[j].name);
  }
  if (failed) {
    printf("[  FAILED  ] %zu test(s), listed below:\n", failed);
    for (size_t j = 0; j < n && j < sizeof outcome; j++)
      if (outcome[j] == 1) printf("[  FAILED  ] %s\n", t[j].name);
  }
  fflush(stdout);
  return (int)failed;
}

#define cmocka_run_group_tests(tests, setup, teardown) \
  cm_run_(#tests, tests, sizeof(tests) / sizeof((tests)[0]), setup, teardown)
#define cmocka_run_group_tests_name(name, tests, setup, teardown) \
  cm_run_(name, tests, sizeof(tests) / sizeof((tests)[0]), setup, teardown)

#endif
