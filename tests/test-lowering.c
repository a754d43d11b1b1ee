/* SPDX-License-Identifier: MIT */
/* Random programs against their language's own interpreter, for the
 * front ends whose lowering B-RASP's test (test-brasp.c) does not cover:
 *
 *  - C-RASP: seeded random programs over the tokens a, b, c with counts,
 *    #[pred] shifts, + - and k*, min, max, if/else, nested counts,
 *    comparisons of every relation with the constant or the count on
 *    either side, negative (0 - x) and zero coefficients, position
 *    predicates; every Boolean statement (the program cut after it) is
 *    compiled in hard mode and in one softmax mode;
 *  - LTL: seeded random formulas with past and future operators,
 *    position predicates and counting comparisons in every syntactic form
 *    (k*#<, #>, mixed, sums, constants on either side, unary minus),
 *    compiled in hard mode and one softmax mode.
 *
 * Each model is compared with the interpreter at every position of every
 * string over a, b, c and one byte no token or atom names, up to a length
 * (small coefficients make exact ties, where a lowering that is wrong
 * only at ties shows). The modes and signs rotate with the program
 * number. make check runs a bounded number; HARDSOFT_EXHAUSTIVE=1 (make
 * check-exhaustive) many more, and longer strings. */
#include "common.h"

#include "lang/ltl/formula.h"

static int exhaustive(void) { return getenv("HARDSOFT_EXHAUSTIVE") != NULL; }

/* ------------------------------------------------------------ strings */

/* Every string over sym[0..k) of length 0..L, laid end to end. */
typedef struct strings {
  uint8_t *buf;
  const uint8_t **w;
  size_t *len, count, total;
} strings;

static void all_strings(strings *S, const uint8_t *sym, int k, int L) {
  size_t count = 0, total = 0, pw = 1;
  for (int n = 0; n <= L; n++, pw *= (size_t)k) count += pw, total += pw * (size_t)n;
  S->buf = malloc(total + 1);
  S->w = malloc(count * sizeof *S->w);
  S->len = malloc(count * sizeof *S->len);
  S->count = S->total = 0;
  for (int n = 0; n <= L; n++) {
    int idx[16] = {0};
    for (;;) {
      uint8_t *s = S->buf + S->total;
      for (int i = 0; i < n; i++) s[i] = sym[idx[i]];
      S->w[S->count] = s, S->len[S->count++] = (size_t)n, S->total += (size_t)n;
      int i = 0;
      while (i < n && ++idx[i] == k) idx[i++] = 0;
      if (i == n) break;
    }
  }
}

static void strings_free(strings *S) {
  free(S->buf);
  free(S->w);
  free(S->len);
}

static const char *show(const uint8_t *s, size_t n) {
  static char buf[64];
  size_t o = 0;
  for (size_t i = 0; i < n && o + 5 < sizeof buf; i++)
    o += (size_t)snprintf(buf + o, sizeof buf - o, s[i] >= 0x20 && s[i] < 0x7f ? "%c" : "\\x%02x",
                          s[i]);
  buf[o] = 0;
  return buf;
}

/* The model of f in the given mode and sign over every string of S
 * against truth[] (the interpreter's answers, end to end); fails naming
 * the first disagreement. */
static void model_agrees(const char *what, const hs_formula *f, const hs_program *p,
                         hs_mode mode, hs_sign sign, const strings *S, const uint8_t *truth) {
  hs_error e;
  hs_compile_opts o = {.mode = mode, .scale = 16, .sign = sign};
  hs_model *m = p ? hs_program_compile(p, &o, &e) : hs_compile(f, &o, &e);
  if (!m) fail_msg("%s\ncompile in %s: %s", what, hs_mode_name(mode), e.msg);
  uint8_t *bits = malloc(S->total + 1);
  if (hs_forward_batch(m, S->count, S->w, S->len, NULL, bits, NULL, &e))
    fail_msg("%s: %s", what, e.msg);
  for (size_t k = 0, off = 0; k < S->count; off += S->len[k++])
    for (size_t i = 0; i < S->len[k]; i++)
      if (bits[off + i] != truth[off + i])
        fail_msg("%s\nmode %s, sign %s: string '%s', position %zu: model %d, interpreter %d",
                 what, hs_mode_name(mode), sign ? "temp" : "layernorm",
                 show(S->w[k], S->len[k]), i + 1, bits[off + i], truth[off + i]);
  free(bits);
  hs_model_free(m);
}

/* The softmax mode and sign of program t: pe, temp, rel in turn, the sign
 * method alternating (temp at mu = 16 > 12, exact). */
static hs_mode soft_mode(int t) {
  static const hs_mode m[] = {HS_MODE_PE, HS_MODE_TEMP, HS_MODE_REL};
  return m[t % 3];
}

/* ------------------------------------------------------------ C-RASP */

typedef struct gen {
  hs_rng *r;
  char *s;
  size_t cap;
  int nst, is_bool[16];
} gen;

static int pick(gen *g, int n) { return (int)(hs_rng_next(g->r) % (uint64_t)n); }

static void put(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(gen *g, const char *fmt, ...) {
  size_t o = strlen(g->s);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g->s + o, g->cap - o, fmt, ap);
  va_end(ap);
}

/* A statement of the wanted kind defined so far, or -1. */
static int stmt_of(gen *g, int boolean) {
  int k = g->nst ? pick(g, g->nst) : 0;
  for (int j = 0; j < g->nst; j++, k = (k + 1) % g->nst)
    if (g->is_bool[k] == boolean) return k;
  return -1;
}

static void cr_bool(gen *g, int depth);

static void cr_count(gen *g, int depth) {
  int k = pick(g, depth <= 0 ? 4 : 11), s;
  switch (k) {
  case 0: put(g, "%d", pick(g, 4)); break;
  case 1: put(g, "# \"%c\"", "abc"[pick(g, 3)]); break;
  case 2:
    if ((s = stmt_of(g, 0)) >= 0) { put(g, "s%d", s); break; }
    /* fall through */
  case 3: put(g, "#[pred%d] \"%c\"", 1 + pick(g, 2), "abc"[pick(g, 3)]); break;
  case 4: case 5:
    put(g, "(");
    cr_count(g, depth - 1);
    put(g, k == 4 ? " + " : " - ");
    cr_count(g, depth - 1);
    put(g, ")");
    break;
  case 6: put(g, "%d * ", pick(g, 4)); cr_count(g, depth - 1); break;
  case 7: case 8:
    put(g, k == 7 ? "min(" : "max(");
    cr_count(g, depth - 1);
    put(g, ", ");
    cr_count(g, depth - 1);
    put(g, ")");
    break;
  case 9:
    put(g, "(");
    cr_count(g, depth - 1);
    put(g, " if ");
    cr_bool(g, depth - 1);
    put(g, " else ");
    cr_count(g, depth - 1);
    put(g, ")");
    break;
  default: put(g, "# "); cr_bool(g, depth - 1); break; /* a nested count */
  }
}

/* x REL y with the constant or the count on either side, and 0 - x for a
 * negative coefficient. */
static void cr_cmp(gen *g, int depth) {
  static const char *const rels[] = {"<", "<=", "==", "!=", ">=", ">"};
  int form = pick(g, 4);
  put(g, "(");
  if (form == 1) put(g, "%d", pick(g, 4));
  else if (form == 2) { put(g, "0 - "); cr_count(g, depth); }
  else cr_count(g, depth);
  put(g, " %s ", rels[pick(g, 6)]);
  if (form == 0) put(g, "%d", pick(g, 4));
  else cr_count(g, depth);
  put(g, ")");
}

static void cr_bool(gen *g, int depth) {
  int k = pick(g, depth <= 0 ? 5 : 9), s;
  switch (k) {
  case 0: case 1: put(g, "\"%c\"", "abc"[pick(g, 3)]); break;
  case 2:
    if ((s = stmt_of(g, 1)) >= 0) { put(g, "s%d", s); break; }
    put(g, pick(g, 2) ? "true" : "false");
    break;
  case 3: put(g, pick(g, 2) ? "pos_even" : "pos_mod3_%d", pick(g, 3)); break;
  case 4: case 5: case 6: cr_cmp(g, depth < 1 ? 1 : depth); break;
  case 7: put(g, "!"); cr_bool(g, depth - 1); break;
  default:
    put(g, "(");
    cr_bool(g, depth - 1);
    put(g, pick(g, 2) ? " && " : " || ");
    cr_bool(g, depth - 1);
    put(g, ")");
  }
}

/* A program of 3 to 6 statements, the last Boolean; *ends[k] is where
 * statement k's line ends in the text. */
static int cr_program(hs_rng *r, char *text, size_t cap, size_t *ends, int *is_bool) {
  gen g = {r, text, cap, 0, {0}};
  text[0] = 0;
  put(&g, "#import pred1\n#import pred2\n#import pos_even\n#import pos_mod3_0\n"
          "#import pos_mod3_1\n#import pos_mod3_2\n");
  int n = 3 + pick(&g, 4);
  for (int k = 0; k < n; k++) {
    int b = k == n - 1 || pick(&g, 2);
    put(&g, "s%d = ", k);
    if (b) cr_bool(&g, 2);
    else cr_count(&g, 2);
    put(&g, "\n");
    ends[k] = strlen(text);
    is_bool[k] = g.is_bool[g.nst++] = b;
  }
  return n;
}

/* The program text cut after statement k, compiled and compared. */
static void cr_statement(const char *text, size_t len, int t, const strings *S) {
  hs_error e;
  hs_program *p = hs_program_parse(text, len, HS_LANG_CRASP, &e);
  if (!p) fail_msg("random program does not parse: %s\n%.*s", e.msg, (int)len, text);
  uint8_t *truth = malloc(S->total + 1);
  for (size_t k = 0, off = 0; k < S->count; off += S->len[k++])
    assert_int_equal(hs_program_truth(p, S->w[k], S->len[k], truth + off, NULL), 0);
  char what[4200];
  snprintf(what, sizeof what, "C-RASP program %d, cut after its last statement:\n%.*s", t,
           (int)len, text);
  model_agrees(what, NULL, p, HS_MODE_HARD, (hs_sign)(t % 2), S, truth);
  model_agrees(what, NULL, p, soft_mode(t), (hs_sign)(t / 3 % 2), S, truth);
  free(truth);
  hs_program_free(p);
}

static void test_crasp_random_programs(void **state) {
  (void)state;
  hs_rng r = {36};
  static const uint8_t sym[] = {'a', 'b', 'c', 0xff};
  strings S;
  all_strings(&S, sym, 4, exhaustive() ? 5 : 4);
  char text[4096];
  size_t ends[8];
  int is_bool[8], programs = exhaustive() ? 1500 : 150;
  for (int t = 0; t < programs; t++) {
    int n = cr_program(&r, text, sizeof text, ends, is_bool);
    for (int k = 0; k < n; k++)
      if (is_bool[k]) cr_statement(text, ends[k], t, &S);
  }
  strings_free(&S);
}

/* ------------------------------------------------------------ LTL */

static void ltl_formula(gen *g, int depth);

/* A counting term: [-] factor {(+|-) factor}, factors k*#<(f), #>(f), k. */
static void ltl_term(gen *g, int depth, int past_only) {
  if (pick(g, 4) == 0) put(g, "-");
  int nf = 1 + pick(g, 2);
  for (int f = 0; f < nf; f++) {
    if (f) put(g, pick(g, 2) ? " + " : " - ");
    int k = pick(g, 5);
    if (k == 0) { put(g, "%d", pick(g, 4)); continue; }
    if (k >= 3) put(g, "%d*", 1 + pick(g, 3));
    put(g, past_only || pick(g, 3) ? "#<(" : "#>(");
    ltl_formula(g, depth - 1);
    put(g, ")");
  }
}

static void ltl_cmp(gen *g, int depth) {
  static const char *const rels[] = {"<", "<=", "=", "!=", ">=", ">"};
  int past_only = pick(g, 3) != 0; /* mixed #< and #> a third of the time */
  put(g, "(");
  ltl_term(g, depth, past_only);
  put(g, " %s ", rels[pick(g, 6)]);
  ltl_term(g, depth, past_only);
  put(g, ")");
}

static void ltl_formula(gen *g, int depth) {
  static const char *const un[] = {"!", "X", "Y", "F", "G", "O", "H"};
  static const char *const bin[] = {" & ", " | ", " -> ", " <-> ", " U ", " S "};
  int k = pick(g, depth <= 0 ? 4 : 10);
  switch (k) {
  case 0: case 1: put(g, "%c", "abc"[pick(g, 3)]); break;
  case 2: put(g, "%s", (const char *[]){"true", "false", "@first", "@last"}[pick(g, 4)]); break;
  case 3: put(g, "@mod(%d,%d)", 2 + pick(g, 2), pick(g, 3)); break;
  case 4: case 5: put(g, "%s", un[pick(g, 7)]); ltl_formula(g, depth - 1); break;
  case 6: case 7: ltl_cmp(g, depth - 1); break;
  default:
    put(g, "(");
    ltl_formula(g, depth - 1);
    put(g, "%s", bin[pick(g, 6)]);
    ltl_formula(g, depth - 1);
    put(g, ")");
  }
}

static void test_ltl_random_formulas(void **state) {
  (void)state;
  hs_rng r = {37};
  static const uint8_t sym[] = {'a', 'b', 'c', '#'};
  strings S;
  all_strings(&S, sym, 4, exhaustive() ? 6 : 5);
  char text[2048];
  int formulas = exhaustive() ? 3000 : 300;
  uint8_t *truth = malloc(S.total + 1);
  for (int t = 0; t < formulas; t++) {
    gen g = {&r, text, sizeof text, 0, {0}};
    text[0] = 0;
    ltl_formula(&g, 3);
    hs_error e;
    hs_formula *f = hs_formula_parse(text, &e);
    if (!f) fail_msg("random formula does not parse: %s\n%s", e.msg, text);
    for (size_t k = 0, off = 0; k < S.count; off += S.len[k++])
      assert_int_equal(hs_truth_eval(f, hs_formula_root(f), S.w[k], S.len[k], truth + off, NULL), 0);
    char what[2100];
    snprintf(what, sizeof what, "formula %d: %s", t, text);
    model_agrees(what, f, NULL, HS_MODE_HARD, (hs_sign)(t % 2), &S, truth);
    model_agrees(what, f, NULL, soft_mode(t), (hs_sign)(t / 3 % 2), &S, truth);
    hs_formula_free(f);
  }
  free(truth);
  strings_free(&S);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crasp_random_programs),
      cmocka_unit_test(test_ltl_random_formulas),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
