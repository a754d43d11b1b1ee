/* SPDX-License-Identifier: MIT */
/* Out of memory is reported, never ignored: the library's allocations
 * (malloc, calloc, realloc, strdup, strndup: the Makefile links this test
 * with --wrap for each, so only the library's and this file's calls come
 * here) fail one at a time, the k-th for k = 0, 1, 2, ... until a run
 * makes fewer than k. Each run either fails with HS_ERR_NOMEM or, having
 * recovered, returns a whole result: a compiled model with its source,
 * mode, bound in words, every head's description and every coordinate's
 * name (a model that lacks one was once returned as a success). LTL in
 * every mode, C-RASP, B-RASP and a regular expression. */
#include <stdlib.h>

#include "common.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);

static long countdown = -1; /* allocations to let through; -1: all */
static int injected;        /* the failure happened in this run */
static long trial;          /* the allocation failing in this run */

static int fails(void) {
  if (countdown < 0) return 0;
  if (countdown-- > 0) return 0;
  injected = 1;
  return 1;
}
void *__wrap_malloc(size_t n) { return fails() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t k, size_t n) { return fails() ? NULL : __real_calloc(k, n); }
void *__wrap_realloc(void *p, size_t n) { return fails() ? NULL : __real_realloc(p, n); }
char *__wrap_strdup(const char *s) { return fails() ? NULL : __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { return fails() ? NULL : __real_strndup(s, n); }

/* Every piece of text a person reads of m is there. */
static int model_whole(const hs_model *m) {
  hs_model_info info;
  hs_model_get_info(m, &info);
  if (!info.formula || !hs_model_mode(m) || !hs_model_bound_desc(m)) return 0;
  for (int k = 0; k < info.d; k++)
    if (!hs_model_coord_name(m, k)) return 0;
  for (int l = 0; l < info.nlayers; l++)
    for (int h = 0; h < hs_model_layer_nheads(m, l); h++) {
      hs_head_info hi;
      if (hs_model_head_info(m, l, h, &hi) || !hi.desc) return 0;
    }
  return 1;
}

/* Reads the program (and lowers it) with the k-th allocation failing: 1
 * when it is ready to compile, 0 when it reported out of memory. */
static int read_program(const char *text, hs_lang lang, hs_program **out) {
  hs_error e;
  hs_program *p = hs_program_parse(text, strlen(text), lang, &e);
  if (p && hs_program_lowered(p, &e) == 0) {
    *out = p;
    return 1;
  }
  hs_program_free(p);
  if (!injected) fail_msg("%s: failed with no allocation failing: %s", text, e.msg);
  if (e.code != HS_ERR_NOMEM)
    fail_msg("%s: allocation %ld failed, reported as code %d: %s", text, trial, (int)e.code,
             e.msg);
  return 0;
}

static void compile_under_failures(const char *text, hs_lang lang, hs_mode mode) {
  hs_compile_opts o = {.mode = mode, .scale = 16, .sign = HS_SIGN_TEMP};
  for (long k = 0;; k++) {
    hs_program *p = NULL;
    hs_error e;
    countdown = trial = k;
    injected = 0;
    hs_model *m = read_program(text, lang, &p) ? hs_program_compile(p, &o, &e)
                                                : NULL;
    int ran_out = injected;
    countdown = -1;
    if (p && !m && (!ran_out || e.code != HS_ERR_NOMEM))
      fail_msg("%s (%s): allocation %ld failed, compile says code %d: %s", text,
               hs_mode_name(mode), k, (int)e.code, e.msg);
    if (m && !model_whole(m))
      fail_msg("%s (%s): allocation %ld failed, and the model lacks a name", text,
               hs_mode_name(mode), k);
    hs_model_free(m);
    hs_program_free(p);
    if (!ran_out) {
      /* the wrapping works: the library allocated through it */
      if (k < 20) fail_msg("%s: only %ld allocations failed in turn", text, k);
      break;
    }
  }
}

static void test_ltl(void **state) {
  (void)state;
  const char *f = "(a S b) & X(#<(a) - 2*#<(b) >= 0) & @mod(3,1) | F(@last & c)";
  for (hs_mode md = HS_MODE_HARD; md < HS_MODE_COUNT_; md++)
    if (md != HS_MODE_FIXED) compile_under_failures(f, HS_LANG_LTL, md);
  compile_under_failures("a U (b S @first)", HS_LANG_LTL, HS_MODE_FIXED);
}

static void test_crasp(void **state) {
  (void)state;
  compile_under_failures("A = #\"a\"\nB = #\"b\"\nR = A - 2 * B > 0 && A > 1\n",
                         HS_LANG_CRASP, HS_MODE_TEMP);
}

static void test_brasp(void **state) {
  (void)state;
  compile_under_failures("a = token \"a\"\nb = token \"b\"\n"
                         "prev_a = rightmost j < i : a[j] ? b[j] : a\n",
                         HS_LANG_BRASP, HS_MODE_PE);
}

static void test_regex(void **state) {
  (void)state;
  compile_under_failures("(a b)* c+ | b", HS_LANG_REGEX, HS_MODE_PE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ltl),
    cmocka_unit_test(test_crasp),
    cmocka_unit_test(test_brasp),
    cmocka_unit_test(test_regex),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
