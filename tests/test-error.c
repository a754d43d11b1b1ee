/* SPDX-License-Identifier: MIT */
/* The one error report (hs_error): every kind of failure a public call can
 * meet fills the code, one line of message, and the place in the text for
 * the parsers; the code's description comes from hs_strerror. Uses only
 * the public header. */
#include <unistd.h>

#include "common.h"

static void test_strerror(void **state) {
  (void)state;
  const hs_errcode all[] = {HS_OK, HS_ERR_PARSE, HS_ERR_UNSUPPORTED, HS_ERR_ARG,
                            HS_ERR_LIMIT, HS_ERR_NOMEM, HS_ERR_IO, HS_ERR_FORMAT,
                            HS_ERR_ISA};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    for (size_t j = 0; j < i; j++)
      assert_string_not_equal(hs_strerror(all[i]), hs_strerror(all[j]));
  assert_string_equal(hs_strerror(HS_ERR_NOMEM), "out of memory");
  assert_string_equal(hs_strerror((hs_errcode)999), "unknown error code");
}

static void test_parse_errors(void **state) {
  (void)state;
  hs_error e;
  assert_null(hs_formula_parse("a & (b", &e));
  assert_int_equal(e.code, HS_ERR_PARSE);
  assert_int_equal(e.line, 0);
  assert_true(e.column > 0);
  assert_null(strchr(e.msg, '\n'));
  const char *prog = "A = #\"a\" > 1\nB = A &&& \"b\"\n";
  assert_null(hs_program_parse(prog, strlen(prog), HS_LANG_CRASP, &e));
  assert_int_equal(e.code, HS_ERR_PARSE);
  assert_int_equal(e.line, 2);
  assert_non_null(strstr(e.msg, "at line 2, column"));
  prog = "x = token \"a\"\ny = leftmost j < i : x ? x\n";
  assert_null(hs_program_parse(prog, strlen(prog), HS_LANG_BRASP, &e));
  assert_int_equal(e.code, HS_ERR_PARSE);
  assert_int_equal(e.line, 2);
  /* a NULL report is allowed */
  assert_null(hs_formula_parse("(", NULL));
}

/* The code says the kind of failure, whatever the message's words: a limit
 * passed is HS_ERR_LIMIT, a construction the compiler cannot take is
 * HS_ERR_UNSUPPORTED, text that does not parse is HS_ERR_PARSE. */
static int wrong_code(const char *text, hs_errcode code, const char *words) {
  hs_error e;
  hs_formula *f = hs_formula_parse(text, &e);
  if (!f && e.code == code && strstr(e.msg, words)) return 0;
  print_error("%s: code %d (want %d): %s\n", text, f ? -1 : (int)e.code, (int)code,
              f ? "parsed" : e.msg);
  hs_formula_free(f);
  return 1;
}

static void test_codes_by_kind(void **state) {
  (void)state;
  int bad = wrong_code("#<(a) > 99999999999999999999", HS_ERR_LIMIT, "integer too large");
  bad += wrong_code("9223372036854775807*#<(a) + 9223372036854775807*#<(b) > 0",
                    HS_ERR_LIMIT, "coefficients too large");
  bad += wrong_code("a & ", HS_ERR_PARSE, "unexpected end of formula");
  bad += wrong_code("a too b", HS_ERR_PARSE, "unknown word 'too'");
  hs_limits saved = hs_get_limits(), small = saved;
  small.max_depth = 4;
  hs_set_limits(&small);
  bad += wrong_code("!(!(!(!(!(!(a))))))", HS_ERR_LIMIT, "nested too deeply");
  small = saved;
  small.max_formula_len = 4;
  hs_set_limits(&small);
  bad += wrong_code("a & b & c", HS_ERR_LIMIT, "formula too long");
  hs_set_limits(&saved);
  assert_int_equal(bad, 0);
  /* a C-RASP program refused by its lowering, for its size */
  char prog[512] = "x0 = #\"a\"\n";
  for (int i = 1; i <= 13; i++)
    snprintf(prog + strlen(prog), sizeof prog - strlen(prog),
             "x%d = x%d + max(#\"b\", %d)\n", i, i - 1, 1 << i);
  strcat(prog, "R = x13 > 3\n");
  hs_error e;
  hs_program *p = hs_program_parse(prog, strlen(prog), HS_LANG_CRASP, &e);
  assert_non_null(p);
  assert_int_equal(hs_program_lowered(p, &e), -1);
  assert_int_equal(e.code, HS_ERR_UNSUPPORTED);
  assert_non_null(strstr(e.msg, "comparison cases"));
  hs_program_free(p);
}

static void test_call_errors(void **state) {
  (void)state;
  hs_error e;
  hs_formula *f = hs_formula_parse("(#<(a) > #>(b))", &e);
  assert_non_null(f);
  hs_compile_opts o = {.mode = HS_MODE_FIXED, .scale = 4};
  assert_null(hs_compile(f, &o, &e));
  assert_int_equal(e.code, HS_ERR_UNSUPPORTED);
  o.mode = HS_MODE_PE;
  o.scale = -1;
  assert_null(hs_compile(f, &o, &e));
  assert_int_equal(e.code, HS_ERR_ARG);
  uint8_t out[4];
  assert_int_equal(hs_truth_eval(f, 1000, (const uint8_t *)"ab", 2, out, &e), -1);
  assert_int_equal(e.code, HS_ERR_ARG);
  o.scale = 4;
  hs_model *m = hs_compile(f, &o, &e);
  assert_non_null(m);
  assert_null(hs_simulate_soft_model(m, -1, &e));
  assert_int_equal(e.code, HS_ERR_ARG);
  double w[4];
  assert_int_equal(hs_attention(m, (const uint8_t *)"a", 1, NULL, 99, w, NULL, NULL, &e), -1);
  assert_int_equal(e.code, HS_ERR_ARG);
  assert_int_equal(hs_model_save(m, "/nonexistent-dir/x.st", &e), -1);
  assert_int_equal(e.code, HS_ERR_IO);
  hs_model_free(m);
  hs_formula_free(f);
  assert_null(hs_model_load("/nonexistent-dir/x.st", &e));
  assert_int_equal(e.code, HS_ERR_IO);
  assert_non_null(strstr(e.msg, "cannot open"));
  char path[] = "/tmp/hs-test-error-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  /* a header of 5 bytes that is not JSON */
  assert_int_equal(write(fd, "\5\0\0\0\0\0\0\0{oops", 13), 13);
  close(fd);
  assert_null(hs_model_load(path, &e));
  assert_int_equal(e.code, HS_ERR_FORMAT);
  remove(path);
}

/* Messages are whole: a long statement name or comparison is shortened
 * so that the reason and the place after it fit, and a message that would
 * still not fit is cut at a space, never inside a word (the longest ones
 * the front ends make). */
static void test_messages_whole(void **state) {
  (void)state;
  char prog[4096] = "x0 = #\"a\"\n", name[160];
  memset(name, 's', 150);
  name[150] = 0;
  for (int i = 1; i <= 12; i++)
    snprintf(prog + strlen(prog), sizeof prog - strlen(prog),
             "x%d = x%d + max(#\"b\", %d)\n", i, i - 1, 1 << i);
  snprintf(prog + strlen(prog), sizeof prog - strlen(prog),
           "%s = x12 + max(#\"b\", 8192)\nR = %s > 3\n", name, name);
  hs_error e;
  hs_program *p = hs_program_parse(prog, strlen(prog), HS_LANG_CRASP, &e);
  assert_non_null(p);
  assert_int_equal(hs_program_lowered(p, &e), -1);
  if (!strstr(e.msg, "lowers to more than 4096 comparison cases (min, max, if and #[pred] "
                     "multiply them; split it into Boolean statements) at line 14, column 1"))
    fail_msg("cut: %s", e.msg);
  hs_program_free(p);
  /* a comparison of 400 bytes refused for its constant: its text shortened */
  char f[1024] = "#<(";
  for (int i = 0; i < 100; i++) strcat(f, i ? " | a" : "a");
  strcat(f, ") < 10000000");
  hs_formula *g = hs_formula_parse(f, &e);
  assert_non_null(g);
  hs_compile_opts o = {.mode = HS_MODE_PE, .scale = 4};
  assert_null(hs_compile(g, &o, &e));
  if (!strstr(e.msg, " ...: the constant 10000000 is beyond what the model's float32 weights "
                     "hold beside the sign's half (|constant| <= 2^23 - 1 = 8388607)"))
    fail_msg("cut: %s", e.msg);
  hs_formula_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_strerror),
    cmocka_unit_test(test_parse_errors),
    cmocka_unit_test(test_codes_by_kind),
    cmocka_unit_test(test_messages_whole),
    cmocka_unit_test(test_call_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
