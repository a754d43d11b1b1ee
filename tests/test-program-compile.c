/* SPDX-License-Identifier: MIT */
/* hs_program_compile, the one entry from a program in any language to a
 * model: every language compiles to a model that agrees with the
 * language's own interpreter (hs_program_truth) on every string up to
 * length 6 over its symbols, names the program as hs_program_text does,
 * and reads the bytes hs_program_alphabet gives; a refused regular
 * expression and bad arguments get their one line (a program without a
 * lowering: test-crasp's test_case_limit). An input past a limit says
 * which in hs_error.limit, every other error HS_LIMIT_NONE. Public API
 * only. */
#include "common.h"

#include <unistd.h>

/* Every string up to length 6 over sym[0..k): the model's bits against
 * the program's interpreter. */
static void agrees(const hs_program *p, const hs_model *m, const uint8_t *sym, int k,
                   const char *what) {
  uint8_t w[6], truth[6];
  for (size_t n = 1; n <= 6; n++) {
    size_t total = 1;
    for (size_t i = 0; i < n; i++) total *= (size_t)k;
    for (size_t x = 0; x < total; x++) {
      size_t y = x;
      for (size_t i = 0; i < n; i++, y /= (size_t)k) w[i] = sym[y % (size_t)k];
      hs_error e;
      hs_run_result r;
      assert_int_equal(hs_program_truth(p, w, n, truth, &e), 0);
      if (hs_forward(m, w, n, NULL, &r, &e)) fail_msg("%s: %s", what, e.msg);
      for (size_t i = 0; i < n; i++)
        if (r.bits[i] != truth[i])
          fail_msg("%s: string %zu of length %zu, position %zu: model %d, interpreter %d",
                   what, x, n, i + 1, r.bits[i], truth[i]);
      hs_run_result_free(&r);
    }
  }
}

static hs_program *parse(const char *text, hs_lang lang) {
  hs_error e;
  hs_program *p = hs_program_parse(text, strlen(text), lang, &e);
  if (!p) fail_msg("'%s': %s", text, e.msg);
  return p;
}

static const struct {
  hs_lang lang;
  const char *text, *name, *alphabet;
} every[] = {
    {HS_LANG_LTL, "a & O b", "a & O b", "ab"},
    {HS_LANG_LTL, "#<(a) > #<(b)", "#<(a) > #<(b)", "ab"},
    {HS_LANG_CRASP, "x = #\"a\" > #\"b\"\n", "C-RASP program (1 statements, value x)", "ab"},
    {HS_LANG_BRASP, "a = token \"a\"\nb = token \"b\"\n"
                    "p = rightmost j < i : true ? a : false\nok = p & b\n",
     "B-RASP program, root ok", "ab"},
    {HS_LANG_REGEX, "a+ b+ a+", "a+ b+ a+", "ab"},  /* star-free */
    {HS_LANG_REGEX, "(aa)*", "(aa)*", "a"},         /* quasi-aperiodic */
};

static void test_every_language(void **state) {
  (void)state;
  for (size_t t = 0; t < sizeof every / sizeof *every; t++) {
    hs_program *p = parse(every[t].text, every[t].lang);
    uint8_t set[256], sym[8];
    int k = 0;
    hs_program_alphabet(p, set);
    for (int b = 0; b < 256; b++)
      if (set[b]) {
        if (k == (int)strlen(every[t].alphabet) || b != every[t].alphabet[k])
          fail_msg("'%s': byte %d in its alphabet", every[t].text, b);
        sym[k++] = (uint8_t)b;
      }
    assert_int_equal(k, (int)strlen(every[t].alphabet));
    sym[k++] = '#';
    assert_string_equal(hs_program_text(p), every[t].name);
    for (int mode = HS_MODE_HARD; mode <= HS_MODE_PE; mode++) {
      hs_error e;
      hs_compile_opts o = {.mode = (hs_mode)mode, .scale = 16};
      hs_model *m = hs_program_compile(p, &o, &e);
      if (!m) fail_msg("'%s' in %s: %s", every[t].text, hs_mode_name(o.mode), e.msg);
      hs_model_info i;
      hs_model_get_info(m, &i);
      assert_string_equal(i.formula, every[t].name);
      agrees(p, m, sym, k, every[t].text);
      hs_model_free(m);
    }
    hs_program_free(p);
  }
}

/* A regular language outside the classes compiled has a lowering (its
 * interpreter runs, hs_program_lowered is 0) and compiling refuses in one
 * line with the class and a witness. */
static void test_refused_regex(void **state) {
  (void)state;
  hs_program *p = parse("b*a(b*ab*a)*b*", HS_LANG_REGEX);
  hs_error e;
  assert_int_equal(hs_program_lowered(p, &e), 0);
  assert_string_equal(hs_program_text(p), "b*a(b*ab*a)*b*");
  hs_compile_opts o = {.mode = HS_MODE_TEMP, .scale = 16};
  assert_null(hs_program_compile(p, &o, &e));
  assert_int_equal(e.code, HS_ERR_UNSUPPORTED);
  if (strncmp(e.msg, "not compiled: not quasi-aperiodic, ", 35) || strchr(e.msg, '\n'))
    fail_msg("%s", e.msg);
  hs_program_free(p);
}

static void test_bad_arguments(void **state) {
  (void)state;
  hs_program *p = parse("x = #\"a\" > 0\n", HS_LANG_CRASP);
  hs_compile_opts o = {.mode = HS_MODE_PE, .scale = 0};
  hs_error e;
  assert_null(hs_program_compile(p, &o, &e));
  assert_int_equal(e.code, HS_ERR_ARG);
  assert_string_equal(e.msg, "--scale must be a positive number (got 0)");
  o.mode = HS_MODE_COUNT_;
  assert_null(hs_program_compile(p, &o, &e));
  assert_string_equal(e.msg, "unknown mode");
  assert_null(hs_program_compile(p, NULL, &e));
  assert_int_equal(e.code, HS_ERR_ARG);
  assert_null(hs_program_compile(NULL, &o, &e));
  assert_int_equal(e.code, HS_ERR_ARG);
  assert_null(hs_compile(NULL, &o, &e));
  assert_int_equal(e.code, HS_ERR_ARG);
  hs_program_free(p);
}

/* Which limit a parse of text in lang hit, with the limits l. */
static hs_limit_id limit_hit(const char *text, hs_lang lang, const hs_limits *l) {
  hs_limits old = hs_get_limits();
  hs_set_limits(l);
  hs_error e;
  memset(&e, 0x55, sizeof e);
  hs_program *p = hs_program_parse(text, strlen(text), lang, &e);
  hs_set_limits(&old);
  if (p) fail_msg("'%s' parsed", text);
  return e.limit;
}

static void test_limit_named(void **state) {
  (void)state;
  hs_limits shortl = hs_get_limits(), shallow = shortl;
  shortl.max_formula_len = 4;
  shallow.max_depth = 1;
  assert_int_equal(limit_hit("a & b", HS_LANG_LTL, &shortl), HS_LIMIT_MAX_FORMULA_LEN);
  assert_int_equal(limit_hit("x = #\"a\" > 0\n", HS_LANG_CRASP, &shortl),
                   HS_LIMIT_MAX_FORMULA_LEN);
  assert_int_equal(limit_hit("a = token \"a\"\n", HS_LANG_BRASP, &shortl),
                   HS_LIMIT_MAX_FORMULA_LEN);
  assert_int_equal(limit_hit("!!a", HS_LANG_LTL, &shallow), HS_LIMIT_MAX_DEPTH);
  assert_int_equal(limit_hit("x = ((\"a\"))\n", HS_LANG_CRASP, &shallow), HS_LIMIT_MAX_DEPTH);
  assert_int_equal(limit_hit("a = token \"a\"\nx = !(!(a))\n", HS_LANG_BRASP, &shallow),
                   HS_LIMIT_MAX_DEPTH);
  assert_int_equal(limit_hit("a &", HS_LANG_LTL, &shortl), HS_LIMIT_NONE);
  /* a model file past max_tensors */
  char path[] = "/tmp/hs-test-limit-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  hs_error e;
  hs_formula *f = hs_formula_parse("a S b", &e);
  hs_compile_opts o = {.mode = HS_MODE_HARD};
  hs_model *m = hs_compile(f, &o, &e);
  assert_int_equal(hs_model_save(m, path, &e), 0);
  hs_limits few = hs_get_limits(), old = few;
  few.max_tensors = 2;
  hs_set_limits(&few);
  assert_null(hs_model_load(path, &e));
  hs_set_limits(&old);
  assert_int_equal(e.limit, HS_LIMIT_MAX_TENSORS);
  assert_non_null(strstr(e.msg, "(limit max_tensors)"));
  unlink(path);
  hs_model_free(m);
  hs_formula_free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_language),
      cmocka_unit_test(test_refused_regex),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_limit_named),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
