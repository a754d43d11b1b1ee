/* SPDX-License-Identifier: MIT */
/* C-RASP programs (src/lang/crasp, src/lang/program.c): the parser accepts
 * the example programs of tests/programs and rejects malformed ones at the
 * right line and column; the interpreter gives hand-checked answers; the
 * lowering agrees with the interpreter; and compiled models agree
 * with the interpreter at every position in modes hard, pe, temp (both
 * sign methods), rel and fixed (where it is exact), on every short string
 * and on random strings up to 4096 tokens; the vocabulary survives a model
 * file and a bad one is refused naming the field. Runs from the
 * repository root (make check). */
#include "common.h"

#include <unistd.h>

#include "lang/ltl/formula.h"
#include "model/model.h"

static const char *const programs[] = {
    "dyck1", "count3", "contains_ab", "copy4", "increment", "aa_star",
    "minmax", "shifts", "longtok"};
#define NPROG (sizeof programs / sizeof *programs)

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s (run from the repository root)", path);
  char *buf = malloc(1 << 16);
  assert_non_null(buf);
  *len = fread(buf, 1, (1 << 16) - 1, f);
  buf[*len] = 0;
  fclose(f);
  return buf;
}

static hs_program *load(const char *name) {
  char path[128];
  size_t len;
  snprintf(path, sizeof path, "tests/programs/%s.cr", name);
  char *text = slurp(path, &len);
  hs_error e;
  hs_program *p = hs_program_parse(text, len, hs_lang_from_path(path), &e);
  free(text);
  if (!p) fail_msg("%s: %s", path, e.msg);
  return p;
}

static hs_program *parse_text(const char *text) {
  hs_error e;
  hs_program *p = hs_program_parse(text, strlen(text), HS_LANG_CRASP, &e);
  if (!p) fail_msg("'%s': %s", text, e.msg);
  return p;
}

/* ------------------------------------------------------------ parsing */

static void test_examples_parse(void **state) {
  (void)state;
  for (size_t k = 0; k < NPROG; k++) {
    hs_program *p = load(programs[k]);
    assert_int_equal(hs_program_lang(p), HS_LANG_CRASP);
    assert_true(hs_program_nstmts(p) >= 1);
    assert_int_equal(hs_program_lowered(p, NULL), 0);
    hs_program_free(p);
  }
}

static void test_errors(void **state) {
  (void)state;
  static const struct { const char *text, *what; int line, col; } bad[] = {
      {"A = # \"a\" < 1 &&", "expected an expression", 1, 17},
      {"A = #\"a\" > 0\nB = C", "undefined name 'C'", 2, 5},
      {"A = #\"a\" > 0\nA = true", "already defined", 2, 1},
      {"A = #\"a\"\nB = A && true", "count used where a Boolean", 2, 5},
      {"A = \"a\"\nB = A + 1 > 0", "Boolean used where a count", 2, 5},
      {"#import foo\nA = true", "unknown predicate 'foo'", 1, 9},
      {"A = #[pred] \"a\" > 0", "not an imported predicate", 1, 7},
      {"A = A", "used in its own definition", 1, 5},
      {"A = #\"a\" > 0\n\nB = (A", "expected ')'", 3, 7},
      {"A = #\"a\"", "must be Boolean", 1, 1},
      {"A = 1 < 2 < 3", "do not chain", 1, 11},
      {"A = \"a b\"", "whitespace", 1, 5},
      {"A = \"ab", "unterminated", 1, 5},
      {"// only a comment\n", "empty program", 0, 0},
      {"A = #\"a\" * 2 > 0", "'*' multiplies an integer", 1, 10},
      {"A = 1 if \"a\" > 0", "Boolean used where a count", 1, 10},
      {"A = (1 if \"a\") > 0", "expected 'else'", 1, 14},
      {"A = 99999999999 > 0", "integer too large", 1, 5},
      {"A = true\n  $", "unexpected character '$'", 2, 3},
      {"#import pos_even\nA = #[pos_even] \"a\" > 0", "unary predicate", 2, 7},
      {"#import pred\nA = pred", "binary predicate", 2, 5},
      {"A = true B = false", "one statement per line", 1, 10},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    hs_error e;
    hs_program *p = hs_program_parse(bad[k].text, strlen(bad[k].text),
                                     HS_LANG_CRASP, &e);
    if (p) fail_msg("accepted: '%s'", bad[k].text);
    if (!strstr(e.msg, bad[k].what) || e.line != bad[k].line ||
        e.column != bad[k].col)
      fail_msg("'%s': got '%s' (line %d, column %d), want '%s' at %d:%d",
               bad[k].text, e.msg, e.line, e.column, bad[k].what,
               bad[k].line, bad[k].col);
    assert_null(strchr(e.msg, '\n'));
  }
}

/* The reference grammar's alternatives give !x && y = !(x && y) and
 * a - b + c = a - (b + c); here the ordinary precedence holds. */
static void test_precedence(void **state) {
  (void)state;
  hs_program *p = parse_text(
      "S = 5 - 3 + 1 == 3\nN = !\"a\" && \"b\"\nK = 2 * 3 + 1 == 7\n"
      "I = 1 if true else 2 == 1\nR = S && K && I && N");
  uint8_t w[1] = {'b'}, out[1];
  int64_t vals[5];
  assert_int_equal(hs_program_trace(p, w, 1, vals, NULL), 0);
  assert_int_equal(vals[0], 1); /* (5 - 3) + 1 = 3 */
  assert_int_equal(vals[1], 1); /* (!a) && b on "b" */
  assert_int_equal(vals[2], 1);
  assert_int_equal(vals[3], 1); /* (1 if true else 2) == 1 */
  assert_int_equal(hs_program_truth(p, w, 1, out, NULL), 0);
  assert_int_equal(out[0], 1);
  hs_program_free(p);
}

/* -------------------------------------------------------- interpreter */

/* The value of the program (last statement) on a token line, as 0/1 per
 * position. */
static void answers(hs_program *p, const char *line, char *got) {
  size_t len = strlen(line);
  uint8_t *w = malloc(len + 1), *out = malloc(len + 1);
  size_t n = hs_program_tokenize(p, line, len, w);
  assert_int_equal(hs_program_truth(p, w, n, out, NULL), 0);
  for (size_t i = 0; i < n; i++) got[i] = out[i] ? '1' : '0';
  got[n] = 0;
  free(w);
  free(out);
}

static void test_hand_checked(void **state) {
  (void)state;
  static const struct { const char *prog, *in, *want; } cases[] = {
      {"dyck1", "( ( ) ( ) )", "000001"},
      {"dyck1", "( ) ) (", "0100"},
      {"dyck1", "( ) ( )", "0101"},
      {"count3", "a a b b c c", "000001"},
      {"count3", "a b a b c c", "000000"},
      {"count3", "a b c", "001"},
      {"contains_ab", "b a a b a", "00011"},
      {"copy4", "a b c b a b c b", "00000001"},
      {"copy4", "a b c a b c", "000000"},
      {"copy4", "a b c b a b c b a", "000000010"},
      {"increment", "0 0 0 0 1 0 0 0", "00000001"},
      {"increment", "1 1 0 0 0 0 1 0", "00000001"},
      {"increment", "1 0 0 0 1 0 0 0", "00000000"},
      {"aa_star", "a a a a", "0101"},
      {"aa_star", "a a b a", "0100"},
      {"minmax", "a b a b", "0001"},
      {"minmax", "c a a a", "1001"},
      {"shifts", "a b a a b", "00101"},
      {"longtok", "if end if if end end", "010001"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    hs_program *p = load(cases[k].prog);
    char got[64];
    answers(p, cases[k].in, got);
    if (strcmp(got, cases[k].want))
      fail_msg("%s on '%s': %s, want %s", cases[k].prog, cases[k].in, got,
               cases[k].want);
    hs_program_free(p);
  }
}

static void test_trace_counts(void **state) {
  (void)state;
  hs_program *p = load("dyck1");
  uint8_t w[8];
  size_t n = hs_program_tokenize(p, "( ) ) (", 7, w);
  assert_int_equal(n, 4);
  int k = hs_program_nstmts(p);
  assert_int_equal(k, 7);
  assert_string_equal(hs_program_stmt_name(p, 0), "C_open");
  int64_t vals[7 * 4];
  assert_int_equal(hs_program_trace(p, w, n, vals, NULL), 0);
  static const int64_t open[] = {1, 1, 1, 2}, close[] = {0, 1, 2, 2},
                       v[] = {0, 0, 1, 0}, cv[] = {0, 0, 1, 1};
  for (size_t i = 0; i < 4; i++) {
    assert_int_equal(vals[0 * 4 + i], open[i]);
    assert_int_equal(vals[1 * 4 + i], close[i]);
    assert_int_equal(vals[2 * 4 + i], v[i]);
    assert_int_equal(vals[3 * 4 + i], cv[i]);
  }
  hs_program_free(p);
}

/* -------------------------------------------------- lowering and models */

typedef struct target {
  const hs_program *p;
  hs_model *m;
  const char *what;
  size_t max_n; /* longest string the construction is exact for */
} target;

static uint8_t syms_of(const hs_program *p, uint8_t *sym) {
  int k = 0;
  for (; k < hs_program_vocab_size(p); k++) sym[k] = (uint8_t)hs_program_token_byte(p, k);
  sym[k] = (uint8_t)hs_program_other_byte(p);
  return (uint8_t)(k + 1);
}

static void agree_on(const target *t, const uint8_t *w, size_t n) {
  if (n > t->max_n) return;
  uint8_t *want = malloc(n + 1), *got = malloc(n + 1);
  assert_int_equal(hs_program_truth(t->p, w, n, want, NULL), 0);
  hs_run_opts ro = {.precision = HS_PREC_F32};
  hs_run_result r;
  hs_error he;
  if (hs_forward(t->m, w, n, &ro, &r, &he)) fail_msg("%s", he.msg);
  memcpy(got, r.bits, n);
  hs_run_result_free(&r);
  for (size_t i = 0; i < n; i++)
    if (got[i] != want[i])
      fail_msg("%s: n = %zu, position %zu: %d, interpreter %d", t->what, n,
               i + 1, got[i], want[i]);
  free(want);
  free(got);
}

/* Every string while there are at most ~1500 of a length, then random ones
 * of 64, 512 and 4096 tokens (half of them favouring one token). */
static void agree_everywhere(const target *t, int samples) {
  uint8_t sym[256], w[4096];
  int k = syms_of(t->p, sym);
  double total = 1;
  for (size_t L = 1; L <= 8; L++) {
    total *= k;
    if (total > 1500) break;
    int idx[8] = {0};
    for (;;) {
      for (size_t i = 0; i < L; i++) w[i] = sym[idx[i]];
      agree_on(t, w, L);
      size_t i = 0;
      while (i < L && ++idx[i] == k) idx[i++] = 0;
      if (i == L) break;
    }
  }
  hs_rng rng = {7};
  static const size_t lens[] = {64, 512, 4096};
  for (size_t li = 0; li < 3; li++)
    for (int s = 0; s < samples; s++) {
      int fav = (int)(hs_rng_next(&rng) % (uint64_t)k);
      for (size_t i = 0; i < lens[li]; i++) {
        uint64_t r = hs_rng_next(&rng);
        w[i] = s % 2 && r % 4 ? sym[fav] : sym[(r >> 8) % (uint64_t)k];
      }
      agree_on(t, w, lens[li]);
    }
}

/* The lowering, compiled to hard attention (exact at every n), agrees
 * with the interpreter on every short string and many long ones. */
static void test_lowering_agrees(void **state) {
  (void)state;
  for (size_t k = 0; k < NPROG; k++) {
    hs_program *p = load(programs[k]);
    hs_error he;
    hs_compile_opts o = {HS_MODE_HARD, 1, HS_SIGN_LAYERNORM};
    target t = {p, hs_program_compile(p, &o, &he), programs[k], SIZE_MAX};
    if (!t.m) fail_msg("%s: %s", programs[k], he.msg);
    agree_everywhere(&t, 8);
    hs_model_free(t.m);
    hs_program_free(p);
  }
}

static void test_models_agree(void **state) {
  (void)state;
  static const struct { hs_mode mode; hs_sign sign; double mu; } cfg[] = {
      {HS_MODE_HARD, HS_SIGN_LAYERNORM, 1}, {HS_MODE_HARD, HS_SIGN_TEMP, 16},
      {HS_MODE_PE, HS_SIGN_LAYERNORM, 16},  {HS_MODE_PE, HS_SIGN_TEMP, 16},
      {HS_MODE_TEMP, HS_SIGN_LAYERNORM, 16}, {HS_MODE_TEMP, HS_SIGN_TEMP, 16},
      {HS_MODE_REL, HS_SIGN_LAYERNORM, 16}, {HS_MODE_FIXED, HS_SIGN_LAYERNORM, 64}};
  for (size_t k = 0; k < NPROG; k++) {
    hs_program *p = load(programs[k]);
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++) {
      char what[128];
      hs_error he;
      hs_compile_opts o = {cfg[c].mode, cfg[c].mu, cfg[c].sign};
      hs_model *m = hs_program_compile(p, &o, &he);
      if (!m) fail_msg("%s %s: %s", programs[k], hs_mode_name(cfg[c].mode), he.msg);
      snprintf(what, sizeof what, "%s %s sign %d", programs[k],
               hs_mode_name(cfg[c].mode), (int)cfg[c].sign);
      /* fixed is exact only up to n = mu / ln 7 (docs/LANGUAGE.md) */
      target t = {p, m, what, cfg[c].mode == HS_MODE_FIXED ? 32 : SIZE_MAX};
      agree_everywhere(&t, 1);
      hs_model_free(m);
    }
    hs_program_free(p);
  }
}

static void test_case_limit(void **state) {
  (void)state;
  /* each max doubles the distinct linear forms (subsets of the
   * constants 2^i): 2^13 > 4096 */
  char text[2048] = "x0 = #\"a\"\n";
  for (int i = 1; i <= 13; i++)
    snprintf(text + strlen(text), sizeof text - strlen(text),
             "x%d = x%d + max(#\"b\", %d)\n", i, i - 1, 1 << i);
  snprintf(text + strlen(text), sizeof text - strlen(text), "R = x13 > 3\n");
  hs_error e;
  /* a limit of the lowering, not of the language: the program parses and
   * its interpreter runs; only compiling it is refused */
  hs_program *p = hs_program_parse(text, strlen(text), HS_LANG_CRASP, &e);
  assert_non_null(p);
  assert_null(hs_program_text(p));
  assert_int_equal(hs_program_lowered(p, &e), -1);
  assert_non_null(strstr(e.msg, "more than 4096"));
  assert_int_equal(e.line, 14); /* x13 */
  uint8_t w[3] = {'a', 'b', 'a'}, out[3];
  assert_int_equal(hs_program_truth(p, w, 3, out, &e), 0);
  assert_true(out[0] && out[1] && out[2]); /* x13 >= 2^14 - 2 > 3 */
  /* compiling it fails with the lowering's own line */
  hs_compile_opts o = {.mode = HS_MODE_HARD};
  hs_error lowered = e;
  assert_int_equal(hs_program_lowered(p, &lowered), -1);
  assert_null(hs_program_compile(p, &o, &e));
  assert_string_equal(e.msg, lowered.msg);
  assert_int_equal(e.code, lowered.code);
  assert_int_equal(e.line, 14);
  assert_null(strchr(e.msg, '\n'));
  hs_program_free(p);
}

/* Counts the lowering cannot hold (a bound A*n + B with A >= 2^31) still
 * run in the interpreter, which refuses only a string on which a value
 * leaves 64-bit integers, naming the statement and the position. */
static void test_interpreter_beyond_lowering(void **state) {
  (void)state;
  static const char big[] = "x = 65536 * 65536 * # \"a\"\nR = x > 2147483647\n";
  hs_error e;
  hs_program *p = hs_program_parse(big, sizeof big - 1, HS_LANG_CRASP, &e);
  if (!p) fail_msg("%s", e.msg);
  assert_int_equal(hs_program_lowered(p, &e), -1);
  assert_non_null(strstr(e.msg, "statement 'x' has a count bounded only by A*n + B"));
  uint8_t w[2] = {'a', 'a'}, out[2];
  int64_t vals[4];
  assert_int_equal(hs_program_truth(p, w, 2, out, &e), 0);
  assert_true(out[0] && out[1]);
  assert_int_equal(hs_program_trace(p, w, 2, vals, &e), 0);
  assert_true(vals[1] == (int64_t)1 << 33);
  hs_program_free(p);
  static const char wraps[] = "x = 2000000000 * 2000000000 * 2000000000 * # \"a\"\nR = x > 1\n";
  p = hs_program_parse(wraps, sizeof wraps - 1, HS_LANG_CRASP, &e);
  assert_non_null(p);
  uint8_t v[2] = {0xff, 'a'};
  assert_int_equal(hs_program_truth(p, v, 2, out, &e), -1);
  if (!strstr(e.msg, "statement 'x' leaves 64-bit integers at position 2")) fail_msg("%s", e.msg);
  hs_program_free(p);
}

/* ---------------------------------------------------------- the API */

static void test_api(void **state) {
  (void)state;
  assert_int_equal(hs_lang_parse("crasp"), HS_LANG_CRASP);
  assert_int_equal(hs_lang_parse("ltl"), HS_LANG_LTL);
  assert_int_equal(hs_lang_parse("CRASP"), -1);
  assert_int_equal(hs_lang_from_path("x/dyck.cr"), HS_LANG_CRASP);
  assert_int_equal(hs_lang_from_path("a.crasp"), HS_LANG_CRASP);
  assert_int_equal(hs_lang_from_path("a.brasp"), HS_LANG_BRASP);
  assert_int_equal(hs_lang_from_path("a.ltl"), HS_LANG_LTL);
  hs_error e;
  /* B-RASP goes to its own parser, whose errors carry a line and column */
  assert_null(hs_program_parse("x", 1, HS_LANG_BRASP, &e));
  assert_int_equal(e.line, 1);
  assert_true(e.column >= 1);
  /* an LTL program: the formula, bytes, one statement */
  hs_program *l = hs_program_parse("a S b", 5, HS_LANG_LTL, &e);
  assert_non_null(l);
  assert_int_equal(hs_program_vocab_size(l), 0);
  assert_int_equal(hs_program_nstmts(l), 1);
  uint8_t w[8], out[8];
  assert_int_equal(hs_program_tokenize(l, "a b ab", 6, w), 3);
  assert_int_equal(w[0], 'a');
  assert_int_not_equal(w[2], 'a');
  assert_int_not_equal(w[2], 'b');
  assert_int_equal(hs_program_truth(l, (const uint8_t *)"abaa", 4, out, NULL), 0);
  assert_memory_equal(out, "\0\1\1\1", 4);
  hs_program_free(l);
  /* one-byte tokens are their byte, longer ones from 0x80, others one byte */
  hs_program *p = load("longtok");
  assert_int_equal(hs_program_vocab_size(p), 2);
  assert_string_equal(hs_program_token(p, 0), "if");
  assert_int_equal(hs_program_token_byte(p, 0), 0x80);
  assert_int_equal(hs_program_token_byte(p, 1), 0x81);
  assert_int_equal(hs_program_tokenize(p, " if  x end\tif ", 14, w), 4);
  assert_int_equal(w[0], 0x80);
  assert_int_equal(w[2], 0x81);
  assert_int_equal(w[1], hs_program_other_byte(p));
  assert_int_not_equal(w[1], 0x80);
  assert_int_not_equal(w[1], 0x81);
  hs_program_free(p);
  /* a one-byte token that is a control byte is still its own byte */
  p = parse_text("A = \"\x01\" || \"\xff\"");
  assert_int_equal(hs_program_token_byte(p, 0), 1);
  assert_int_equal(hs_program_token_byte(p, 1), 0xff);
  assert_int_equal(hs_program_other_byte(p), 0xfe);
  hs_program_free(p);
}

static void test_vocab_file(void **state) {
  (void)state;
  hs_program *p = load("longtok");
  char path[] = "/tmp/hs-test-crasp-XXXXXX";
  hs_error he;
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  hs_compile_opts o = {HS_MODE_HARD, 1, HS_SIGN_LAYERNORM};
  hs_model *m = hs_program_compile(p, &o, &he);
  assert_non_null(m);
  assert_int_equal(hs_model_set_vocab(m, p, NULL), 0);
  assert_int_equal(hs_model_save(m, path, &he), 0);
  hs_model *r = hs_model_load(path, &he);
  if (!r) fail_msg("%s", he.msg);
  assert_int_equal(r->nvocab, 2);
  assert_string_equal(r->vocab_tok[1], "end");
  assert_int_equal(r->vocab_byte[1], 0x81);
  uint8_t w[8];
  assert_int_equal(hs_model_tokenize(r, "end if zz", 9, w), 3);
  assert_int_equal(w[0], 0x81);
  assert_int_equal(w[1], 0x80);
  hs_model_free(r);
  /* a byte out of range, same length, so the file stays well-formed */
  FILE *f = fopen(path, "r+b");
  char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf, f);
  static const char pat[] = "[\\\"end\\\",129]";
  char *at = NULL;
  for (size_t i = 0; !at && i + 13 <= n; i++)
    if (!memcmp(buf + i, pat, 13)) at = buf + i;
  assert_non_null(at);
  memcpy(at + 9, "999", 3);
  fseek(f, 0, SEEK_SET);
  fwrite(buf, 1, n, f);
  fclose(f);
  assert_null(hs_model_load(path, &he));
  assert_non_null(strstr(he.msg, "__metadata__.vocab[1]"));
  /* a model without a vocabulary reads bytes */
  hs_model_free(m);
  m = hs_program_compile(p, &o, &he);
  assert_int_equal(hs_model_save(m, path, &he), 0);
  r = hs_model_load(path, &he);
  assert_non_null(r);
  assert_int_equal(r->nvocab, 0);
  assert_int_equal(hs_model_tokenize(r, "a bc", 4, w), 2);
  assert_int_equal(w[0], 'a');
  hs_model_free(r);
  hs_model_free(m);
  unlink(path);
  hs_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_examples_parse), cmocka_unit_test(test_errors),
      cmocka_unit_test(test_precedence),     cmocka_unit_test(test_hand_checked),
      cmocka_unit_test(test_trace_counts),   cmocka_unit_test(test_lowering_agrees),
      cmocka_unit_test(test_models_agree),   cmocka_unit_test(test_case_limit),
      cmocka_unit_test(test_interpreter_beyond_lowering),
      cmocka_unit_test(test_api),            cmocka_unit_test(test_vocab_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
