/* SPDX-License-Identifier: MIT */
/* The B-RASP front end (src/lang/brasp): the programs of tests/programs
 * parse; malformed programs are refused with the right line and column;
 * the interpreter gives hand-checked values; every statement's lowering,
 * compiled to hard attention (exact at every n), equals the interpreter on
 * every string up to length 7 (6 beyond three tokens) over the program's
 * tokens plus one unnamed token (and so do random programs, up to length
 * 5: a model per statement costs far more than the formula evaluation
 * this replaced), and the formula that carries it
 * refuses to be evaluated;
 * the compiled models agree with the interpreter at every position of
 * random strings up to 4096 in modes hard, pe, temp, rel (and fixed where
 * it is exact), with every layer's attention error within the mode's
 * bound; programs that fold to constants and random programs compile in
 * every mode and agree too. */
#include "common.h"

#include <dirent.h>

#include "circuit/circuit.h"
#include "lang/brasp/ast.h"
#include "lang/brasp/brasp.h"
#include "model/model.h"

/* ------------------------------------------------------------ helpers */

typedef struct prog {
  char name[64];
  char *text;
  hs_vocab v;
  hs_brasp *p;
  uint8_t sym[257]; /* the program's token bytes, then `other` */
  int nsym;
} prog;

static void programs_dir(char *path, size_t len) {
  snprintf(path, len, "%s", __FILE__);
  char *slash = strrchr(path, '/');
  size_t off = slash ? (size_t)(slash + 1 - path) : 0;
  snprintf(path + off, len - off, "programs");
}

static hs_brasp *parse_text(const char *text, hs_vocab *v) {
  hs_error e;
  hs_brasp *p = hs_brasp_parse(text, strlen(text), v, &e);
  if (!p) fail_msg("parse failed: %s\n%s", e.msg, text);
  return p;
}

static void load(prog *g, const char *name) {
  char path[1024];
  programs_dir(path, sizeof path);
  snprintf(path + strlen(path), sizeof path - strlen(path), "/%s", name);
  snprintf(g->name, sizeof g->name, "%s", name);
  g->text = hs_test_read_text(path);
  memset(&g->v, 0, sizeof g->v);
  g->p = parse_text(g->text, &g->v);
  g->nsym = 0;
  for (int k = 0; k < g->v.n; k++) g->sym[g->nsym++] = g->v.byte[k];
  g->sym[g->nsym++] = hs_vocab_other(&g->v);
}

static void unload(prog *g) {
  hs_brasp_free(g->p);
  hs_vocab_free(&g->v);
  free(g->text);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.brasp files of tests/programs, sorted. */
static int list_programs(char ***names) {
  char path[1024];
  programs_dir(path, sizeof path);
  DIR *d = opendir(path);
  if (!d) fail_msg("cannot open %s", path);
  int n = 0;
  *names = NULL;
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t l = strlen(de->d_name);
    if (l < 7 || strcmp(de->d_name + l - 6, ".brasp")) continue;
    *names = realloc(*names, (size_t)(n + 1) * sizeof **names);
    (*names)[n] = malloc(l + 1);
    memcpy((*names)[n++], de->d_name, l + 1);
  }
  closedir(d);
  qsort(*names, (size_t)n, sizeof **names, cmp_str);
  return n;
}

static void free_names(char **names, int n) {
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}

/* Statement k's lowering (the program cut after statement k) as a
 * hard-attention model; its formula carries the circuit and has no nodes
 * to evaluate. */
static hs_model *lower_upto(hs_brasp *p, int k) {
  int n = p->n;
  p->n = k + 1;
  hs_error e;
  hs_prebuilt *f = hs_brasp_lower(p, &e);
  p->n = n;
  if (!f) fail_msg("lower (statement %d): %s", k, e.msg);
  hs_compile_opts o = {.mode = HS_MODE_HARD, .scale = 1};
  hs_model *m = hs_compile_circuit(f, &o, &e);
  if (!m) fail_msg("compile (statement %d): %s", k, e.msg);
  hs_prebuilt_free(f);
  return m;
}

static int64_t *interp(const hs_brasp *p, const uint8_t *w, size_t n) {
  int64_t *vals = malloc(((size_t)hs_brasp_nstmts(p) * n + 1) * sizeof *vals);
  assert_int_equal(hs_brasp_eval_all(p, w, n, vals), 0);
  return vals;
}

/* Values of statement `name` on the token line `line`, as a 0/1 string. */
static void values_of(const char *program, const char *name, const char *line,
                      char *out) {
  hs_vocab v;
  memset(&v, 0, sizeof v);
  hs_brasp *p = parse_text(program, &v);
  uint8_t w[256];
  hs_tokens t = {v.n, v.tok, v.byte, hs_vocab_other(&v), 0};
  size_t n;
  assert_int_equal(hs_tokens_encode(&t, line, strlen(line), HS_UNKNOWN_OTHER, w, &n, NULL), 0);
  int64_t *vals = interp(p, w, n);
  int k = 0;
  while (k < p->n && strcmp(p->st[k].name, name)) k++;
  if (k == p->n) fail_msg("no statement %s", name);
  for (size_t i = 0; i < n; i++) out[i] = vals[(size_t)k * n + i] ? '1' : '0';
  out[n] = 0;
  free(vals);
  hs_brasp_free(p);
  hs_vocab_free(&v);
}

/* ------------------------------------------------------------ parsing */

static void test_programs_parse(void **state) {
  (void)state;
  char **names;
  int n = list_programs(&names);
  assert_true(n >= 10);
  for (int i = 0; i < n; i++) {
    prog g;
    load(&g, names[i]);
    assert_true(hs_brasp_nstmts(g.p) >= 3);
    assert_non_null(hs_brasp_stmt_name(g.p, 0));
    assert_null(hs_brasp_stmt_name(g.p, hs_brasp_nstmts(g.p)));
    unload(&g);
  }
  free_names(names, n);
  /* names in order; tokens into the vocabulary (one-byte tokens are
   * their byte, longer ones from 0x80) */
  hs_vocab v;
  memset(&v, 0, sizeof v);
  hs_brasp *p = parse_text("x = token \"a\"\n\n  // c\ny = token \"<<\" | x # c\n", &v);
  assert_int_equal(hs_brasp_nstmts(p), 2);
  assert_string_equal(hs_brasp_stmt_name(p, 0), "x");
  assert_string_equal(hs_brasp_stmt_name(p, 1), "y");
  assert_int_equal(hs_vocab_find(&v, "a", 1), 'a');
  assert_int_equal(hs_vocab_find(&v, "<<", 2), 0x80);
  hs_brasp_free(p);
  hs_vocab_free(&v);
}

typedef struct bad { const char *text; int line, col; const char *what; } bad;

static void test_parse_errors(void **state) {
  (void)state;
  static const bad cases[] = {
    {"", 1, 1, "empty program"},
    {"# only a comment\n", 2, 1, "empty program"},
    {"a = token \"a\"\nb = c", 2, 5, "undefined name 'c'"},
    {"a = token \"a\"\na = !a", 2, 1, "'a' is already defined (line 1)"},
    {"a = a", 1, 5, "undefined name 'a'"},
    {"a token \"a\"", 1, 3, "expected '='"},
    {"a = token a", 1, 11, "expected a \"quoted\" token"},
    {"a = token \"a", 1, 11, "unterminated string"},
    {"a = token \"\"", 1, 11, "empty token string"},
    {"a = token \"a b\"", 1, 13, "space in a token string"},
    {"a = token \"a\\n\"", 1, 13, "bad escape"},
    {"a = token \"a\"\nb = rightmost j < k : a ? a : a", 2, 19, "expected 'i' in the mask"},
    {"a = token \"a\"\nb = rightmost j = i : a ? a : a", 2, 17, "bad mask '='"},
    {"a = token \"a\"\nb = rightmost i < j : a ? a : a", 2, 15, "expected 'j'"},
    {"a = token \"a\"\nb = leftmost j < i : a ? a : a[j]", 2, 32, "key-side reference '[j]' in the default"},
    {"a = token \"a\"\nb = a[i]", 2, 6, "outside an attention operation"},
    {"a = token \"a\"\nb = leftmost j : a[k] ? a : a", 2, 20, "expected 'i' or 'j'"},
    {"a = token \"a\"\nb = leftmost j : a ? a", 2, 23, "expected ':' before the default before the end of the line"},
    {"a = token \"a\"\nb = leftmost j : a : a", 2, 20, "expected '?' after the score"},
    {"a = token \"a\"\nb = a &", 2, 8, "expected an expression before the end"},
    {"a = token \"a\"\nb = (a | a", 2, 11, "expected ')'"},
    {"a = token \"a\"\nb = a a", 2, 7, "expected the end of the line, not 'a'"},
    {"a = token \"a\"\nb = a $ a", 2, 7, "unexpected character '$'"},
    {"true = token \"a\"", 1, 1, "expected a statement name, not 'true' (a keyword)"},
    {"i = token \"a\"", 1, 1, "(a keyword)"},
    {"a = token \"a\"\nb = leftmost j : a ? (leftmost j : a ? a : a) : a", 2, 23, "expected an expression, not 'leftmost'"},
    {"a = token \"a\"\n\tb = !", 2, 7, "expected an expression before the end"},
    {"a = token \"a\"\nb = a\x01", 2, 6, "unexpected byte 0x01"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    hs_vocab v;
    memset(&v, 0, sizeof v);
    hs_error e;
    hs_brasp *p = hs_brasp_parse(cases[c].text, strlen(cases[c].text), &v, &e);
    if (p) fail_msg("case %zu parsed: %s", c, cases[c].text);
    char want[64];
    snprintf(want, sizeof want, " at line %d, column %d", cases[c].line, cases[c].col);
    if (!strstr(e.msg, cases[c].what) || !strstr(e.msg, want) ||
        e.line != cases[c].line || e.column != cases[c].col || strchr(e.msg, '\n'))
      fail_msg("case %zu '%s': got '%s' (line %d, column %d), want '%s'%s",
               c, cases[c].text, e.msg, e.line, e.column, cases[c].what, want);
    hs_vocab_free(&v);
  }
}

/* Nesting beyond the limit and more than 10 query-side vectors. */
static void test_limits(void **state) {
  (void)state;
  hs_vocab v;
  memset(&v, 0, sizeof v);
  hs_error e;
  size_t deep = 1100;
  char *s = malloc(deep * 2 + 64);
  strcpy(s, "a = token \"a\"\nb = ");
  size_t o = strlen(s);
  for (size_t i = 0; i < deep; i++) s[o++] = '(';
  s[o++] = 'a';
  for (size_t i = 0; i < deep; i++) s[o++] = ')';
  s[o] = 0;
  assert_null(hs_brasp_parse(s, o, &v, &e));
  assert_non_null(strstr(e.msg, "nested too deeply"));
  assert_int_equal(e.line, 2);
  /* a chain of & is a deep tree too */
  strcpy(s, "a = token \"a\"\nb = a");
  o = strlen(s);
  for (size_t i = 0; i < deep; i++) { s[o++] = '&'; s[o++] = 'a'; }
  s[o] = 0;
  assert_null(hs_brasp_parse(s, o, &v, &e));
  assert_non_null(strstr(e.msg, "nested too deeply"));
  free(s);
  /* 11 query-side vectors: parses and interprets, the lowering refuses
   * (before any 2^m expansion: 11 compiled to width 36,580 in 4.7 GB) */
  char prog13[2048] = "";
  for (int k = 0; k < 11; k++)
    snprintf(prog13 + strlen(prog13), sizeof prog13 - strlen(prog13),
             "t%d = token \"t%d\"\n", k, k);
  strcat(prog13, "x = leftmost j < i : t0[i]");
  for (int k = 1; k < 11; k++)
    snprintf(prog13 + strlen(prog13), sizeof prog13 - strlen(prog13), " | t%d[i]", k);
  strcat(prog13, " ? true : false\n");
  hs_brasp *p = parse_text(prog13, &v);
  assert_null(hs_brasp_lower(p, &e));
  if (!strstr(e.msg, "more than 10 query-side vectors in its score and value (its model grows "
              "like 2^m: split the attention) at line 12, column 1"))
    fail_msg("%s", e.msg);
  hs_brasp_free(p);
  /* 10 query-side vectors giving 1024 different scores in each of 40
   * statements: beyond the node limit, refused at the statement */
  char big[16384] = "x0 = true\n";
  for (int k = 0; k < 10; k++)
    snprintf(big + strlen(big), sizeof big - strlen(big), "t%d = token \"t%d\"\n", k, k);
  for (int s = 1; s <= 40; s++) {
    snprintf(big + strlen(big), sizeof big - strlen(big), "x%d = leftmost j < i : false", s);
    for (int k = 0; k < 10; k++)
      snprintf(big + strlen(big), sizeof big - strlen(big), " | t%d[i] & t%d[j]", k, k);
    snprintf(big + strlen(big), sizeof big - strlen(big), " ? x%d : false\n", s - 1);
  }
  p = parse_text(big, &v);
  assert_null(hs_brasp_lower(p, &e));
  if (!strstr(e.msg, "too large to lower") || e.line < 12 || e.column != 1)
    fail_msg("%s", e.msg);
  hs_brasp_free(p);
  hs_vocab_free(&v);
}

/* ------------------------------------------------------------ interpreter */

static void expect_values(const char *file, const char *stmt, const char *line,
                          const char *want) {
  prog g;
  load(&g, file);
  char got[256];
  values_of(g.text, stmt, line, got);
  if (strcmp(got, want))
    fail_msg("%s %s on '%s': got %s, want %s", file, stmt, line, got, want);
  unload(&g);
}

static void test_interpreter_by_hand(void **state) {
  (void)state;
  /* a since b: positions 1..7 of "a b a a c b a" */
  expect_values("since.brasp", "since", "a b a a c b a", "0111011");
  expect_values("since.brasp", "since_strict", "a b a a c b a", "0011101");
  expect_values("until.brasp", "until", "a a b c a b", "111011");
  expect_values("until.brasp", "until_strict", "a a b c a b", "110110");
  expect_values("first-last.brasp", "first", "x y z", "100");
  expect_values("first-last.brasp", "last", "x y z", "001");
  expect_values("first-last.brasp", "only", "x", "1");
  /* leftmost a-or-b: positions of "c b a c" are 1..4; the a/b are 2, 3 */
  expect_values("leftmost-masks.brasp", "l_lt", "c b a c", "1011");
  expect_values("leftmost-masks.brasp", "l_le", "c b b c", "1111");
  expect_values("leftmost-masks.brasp", "l_gt", "c b a c", "1001");
  expect_values("leftmost-masks.brasp", "l_ge", "c a b c", "0011");
  expect_values("leftmost-masks.brasp", "l_all", "c a b c", "0000");
  expect_values("rightmost-masks.brasp", "r_lt", "c b a c", "1010");
  expect_values("rightmost-masks.brasp", "r_le", "c b a c", "1100");
  expect_values("rightmost-masks.brasp", "r_gt", "c b a c", "0001");
  expect_values("rightmost-masks.brasp", "r_ge", "c b a c", "0001");
  expect_values("rightmost-masks.brasp", "r_all", "c a b c", "1111");
  expect_values("mask-none.brasp", "starts_a", "a b b", "111");
  expect_values("mask-none.brasp", "ends_b", "a b a", "000");
  expect_values("query-score.brasp", "same_before", "a b b a c a", "001101");
  expect_values("default-query.brasp", "prev_c", "a c b c x", "10111");
  expect_values("default-query.brasp", "prev_c", "a x b", "101");
  expect_values("multichar.brasp", "ok", "<p> word </p> word \"q\\ </p>", "001110");
  expect_values("multichar.brasp", "inside", "<p> word </p> <p>", "1101");
}

/* dyck2.brasp against a counter: the last position is 1 iff the string is
 * balanced with depth never above 2; every string over ( ) up to 12. */
static void test_dyck2_language(void **state) {
  (void)state;
  prog g;
  load(&g, "dyck2.brasp");
  uint8_t w[12];
  int accepted = 0;
  for (int L = 1; L <= 12; L++)
    for (uint32_t m = 0; m < (1u << L); m++) {
      int d = 0, ok = 1;
      for (int i = 0; i < L; i++) {
        w[i] = (m >> i) & 1 ? ')' : '(';
        d += w[i] == '(' ? 1 : -1;
        if (d < 0 || d > 2) ok = 0;
      }
      ok = ok && d == 0;
      int64_t *vals = interp(g.p, w, (size_t)L);
      int got = vals[(size_t)(g.p->n - 1) * L + L - 1] != 0;
      if (got != ok) fail_msg("dyck2 on %.*s: %d, want %d", L, (char *)w, got, ok);
      accepted += ok;
      free(vals);
    }
  assert_true(accepted > 20);
  unload(&g);
}

/* ------------------------------------------------------------ lowering */

/* A short token-byte string for messages: printable bytes as they are,
 * others as \xHH. */
static const char *show(const uint8_t *w, size_t n) {
  static char buf[256];
  size_t o = 0;
  for (size_t i = 0; i < n && o + 5 < sizeof buf; i++)
    o += (size_t)snprintf(buf + o, sizeof buf - o,
                          w[i] > 0x20 && w[i] < 0x7f ? "%c" : "\\x%02x", w[i]);
  buf[o] = 0;
  return buf;
}

/* Every statement's lowering equals the interpreter at every position of
 * every string over g's symbols of length 1..maxlen. */
static void lowered_equals_interp(prog *g, int maxlen) {
  int K = g->p->n;
  hs_model **f = malloc((size_t)K * sizeof *f);
  for (int k = 0; k < K; k++) f[k] = lower_upto(g->p, k);
  uint8_t w[16];
  for (int L = 1; L <= maxlen; L++) {
    int idx[16] = {0};
    for (;;) {
      for (int i = 0; i < L; i++) w[i] = g->sym[idx[i]];
      int64_t *vals = interp(g->p, w, (size_t)L);
      for (int k = 0; k < K; k++) {
        hs_run_opts ro = {.precision = HS_PREC_F32};
        hs_run_result r;
        hs_error he;
        if (hs_forward(f[k], w, (size_t)L, &ro, &r, &he)) fail_msg("%s", he.msg);
        for (int i = 0; i < L; i++)
          if (r.bits[i] != (vals[(size_t)k * L + i] != 0))
            fail_msg("%s statement %s, string %s, position %d: lowering %d, "
                     "interpreter %d", g->name, g->p->st[k].name,
                     show(w, (size_t)L), i + 1, r.bits[i],
                     (int)vals[(size_t)k * L + i]);
        hs_run_result_free(&r);
      }
      free(vals);
      int i = 0;
      while (i < L && ++idx[i] == g->nsym) idx[i++] = 0;
      if (i == L) break;
    }
  }
  for (int k = 0; k < K; k++) hs_model_free(f[k]);
  free(f);
}

/* The longest length whose strings (all lengths up to it) stay within
 * `budget`, at most 7. */
static int max_len_for(int nsym, double budget) {
  double total = 0, pow = 1;
  int L = 0;
  while (L < 7) {
    pow *= nsym;
    if (total + pow > budget) break;
    total += pow;
    L++;
  }
  return L;
}

static void test_lowering_exhaustive(void **state) {
  (void)state;
  char **names;
  int n = list_programs(&names);
  for (int i = 0; i < n; i++) {
    prog g;
    load(&g, names[i]);
    int L = max_len_for(g.nsym, 2e4);
    assert_true(L >= 5);
    lowered_equals_interp(&g, L);
    unload(&g);
  }
  free_names(names, n);
}

/* A random program: tokens a b c, then statements over earlier ones with
 * every construct (sides, masks, directions, constants). */
static void gen_expr(hs_rng *r, char *s, size_t cap, int depth, int nst,
                     int ctx) {
  static const char *const toks[] = {"token \"a\"", "token \"b\"", "token \"c\""};
  int k = (int)(hs_rng_next(r) % (depth <= 0 ? 3 : 7));
  size_t o = strlen(s);
  switch (k) {
  case 0: case 1: {
    int which = (int)(hs_rng_next(r) % (uint64_t)(nst + 3));
    const char *side = "";
    if (ctx == 1) side = hs_rng_next(r) % 2 ? "[i]" : (hs_rng_next(r) % 2 ? "[j]" : "");
    if (ctx == 2 && hs_rng_next(r) % 2) side = "[i]";
    if (which < 3) snprintf(s + o, cap - o, "%s%s", toks[which], side);
    else snprintf(s + o, cap - o, "s%d%s", which - 3, side);
    break;
  }
  case 2: snprintf(s + o, cap - o, "%s", hs_rng_next(r) % 2 ? "true" : "false"); break;
  case 3: case 4:
    snprintf(s + o, cap - o, "!(");
    gen_expr(r, s, cap, depth - 1, nst, ctx);
    strncat(s, ")", cap - strlen(s) - 1);
    break;
  default:
    strncat(s, "(", cap - strlen(s) - 1);
    gen_expr(r, s, cap, depth - 1, nst, ctx);
    strncat(s, k == 5 ? ") & (" : ") | (", cap - strlen(s) - 1);
    gen_expr(r, s, cap, depth - 1, nst, ctx);
    strncat(s, ")", cap - strlen(s) - 1);
  }
}

static void gen_program(hs_rng *r, char *s, size_t cap) {
  static const char *const masks[] = {"", " < i", " <= i", " > i", " >= i"};
  s[0] = 0;
  int nst = 2 + (int)(hs_rng_next(r) % 4);
  for (int k = 0; k < nst; k++) {
    snprintf(s + strlen(s), cap - strlen(s), "s%d = ", k);
    if (hs_rng_next(r) % 4) {
      snprintf(s + strlen(s), cap - strlen(s), "%s j%s : ",
               hs_rng_next(r) % 2 ? "leftmost" : "rightmost", masks[hs_rng_next(r) % 5]);
      gen_expr(r, s, cap, 2, k, 1);
      strncat(s, " ? ", cap - strlen(s) - 1);
      gen_expr(r, s, cap, 2, k, 1);
      strncat(s, " : ", cap - strlen(s) - 1);
      gen_expr(r, s, cap, 1, k, 2);
    } else {
      gen_expr(r, s, cap, 2, k, 0);
    }
    strncat(s, "\n", cap - strlen(s) - 1);
  }
}

static void test_lowering_random_programs(void **state) {
  (void)state;
  hs_rng r = {2024};
  char text[8192];
  for (int t = 0; t < 300; t++) {
    gen_program(&r, text, sizeof text);
    prog g;
    snprintf(g.name, sizeof g.name, "random program %d", t);
    memset(&g.v, 0, sizeof g.v);
    hs_error e;
    g.p = hs_brasp_parse(text, strlen(text), &g.v, &e);
    if (!g.p) fail_msg("random program does not parse: %s\n%s", e.msg, text);
    g.nsym = 0;
    /* every program names a, b, c in the same bytes; `other` as well */
    const uint8_t syms[4] = {'a', 'b', 'c', hs_vocab_other(&g.v)};
    memcpy(g.sym, syms, 4);
    g.nsym = 4;
    g.text = NULL;
    lowered_equals_interp(&g, 5);
    hs_brasp_free(g.p);
    hs_vocab_free(&g.v);
  }
}

/* ------------------------------------------------------------ models */

/* Strings of three kinds over g's symbols: uniform, one symbol 90% of the
 * time, and a short random word repeated with rare changes (so that long
 * strings keep structure, e.g. (ab)* or balanced brackets). */
static void random_string(hs_rng *r, const prog *g, uint8_t *s, size_t n,
                          int kind) {
  uint8_t word[6];
  size_t wl = 1 + hs_rng_next(r) % 6;
  for (size_t k = 0; k < wl; k++) word[k] = g->sym[hs_rng_next(r) % (uint64_t)g->nsym];
  uint8_t fav = g->sym[hs_rng_next(r) % (uint64_t)g->nsym];
  for (size_t i = 0; i < n; i++) {
    uint64_t x = hs_rng_next(r);
    uint8_t u = g->sym[(x >> 8) % (uint64_t)g->nsym];
    if (kind == 0) s[i] = u;
    else if (kind == 1) s[i] = x % 10 ? fav : u;
    else s[i] = x % 200 ? word[i % wl] : u;
  }
}

static hs_model *compile_mode(const hs_prebuilt *f, hs_mode mode, double mu,
                              const char *name) {
  hs_error he;
  hs_compile_opts o = {.mode = mode, .scale = mu};
  hs_model *m = hs_compile_circuit(f, &o, &he);
  if (!m) fail_msg("%s: compile in %s: %s", name, hs_mode_name(mode), he.msg);
  return m;
}

/* Every position of the root against the interpreter; up to n = 512 also
 * the attention error of every layer against the mode's stated bound. */
static void model_agrees(const prog *g, const hs_model *m, const char *mode,
                         const uint8_t *w, size_t n) {
  hs_error he;
  hs_run_opts ro = {.precision = HS_PREC_F32, .want_attn_error = n <= 512};
  hs_run_result res;
  if (hs_forward(m, w, n, &ro, &res, &he)) fail_msg("%s", he.msg);
  for (int l = 0; ro.want_attn_error && l < m->nlayers; l++)
    if (res.attn_error[l] > hs_model_bound_at(m, n) * (1 + 1e-3) + 1e-6)
      fail_msg("%s mode %s, n = %zu, layer %d: attention error %g above the "
               "bound %g", g->name, mode, n, l, res.attn_error[l],
               hs_model_bound_at(m, n));
  int64_t *vals = interp(g->p, w, n);
  size_t root = (size_t)(g->p->n - 1) * n;
  for (size_t i = 0; i < n; i++)
    if (res.bits[i] != (vals[root + i] != 0))
      fail_msg("%s mode %s, n = %zu, position %zu: model %d (value %g), "
               "interpreter %d", g->name, mode, n, i + 1, res.bits[i],
               res.values[i], (int)vals[root + i]);
  free(vals);
  hs_run_result_free(&res);
}

static void test_models_agree(void **state) {
  (void)state;
  static const hs_mode modes[] = {HS_MODE_HARD, HS_MODE_PE, HS_MODE_TEMP, HS_MODE_REL};
  static const size_t lens[] = {64, 512, 4096};
  char **names;
  int n = list_programs(&names);
  hs_rng r = {99};
  uint8_t *w = malloc(4096);
  for (int p = 0; p < n; p++) {
    prog g;
    load(&g, names[p]);
    hs_error e;
    hs_prebuilt *f = hs_brasp_lower(g.p, &e);
    if (!f) fail_msg("%s: %s", g.name, e.msg);
    for (size_t mi = 0; mi < sizeof modes / sizeof *modes; mi++) {
      hs_model *m = compile_mode(f, modes[mi], 4, g.name);
      for (size_t li = 0; li < sizeof lens / sizeof *lens; li++)
        for (int kind = 0; kind < 3; kind++) {
          if (lens[li] == 4096 && kind != 2) continue;
          random_string(&r, &g, w, lens[li], kind);
          model_agrees(&g, m, hs_mode_name(modes[mi]), w, lens[li]);
        }
      hs_model_free(m);
    }
    /* fixed: exact while n <= mu / ln 7; mu = 32 covers n <= 16 */
    hs_model *m = compile_mode(f, HS_MODE_FIXED, 32, g.name);
    for (size_t len = 1; len <= 16; len++) {
      random_string(&r, &g, w, len, (int)(len % 3));
      model_agrees(&g, m, "fixed", w, len);
    }
    hs_model_free(m);
    hs_prebuilt_free(f);
    unload(&g);
  }
  free(w);
  free_names(names, n);
}

/* Programs whose formula folds to a constant or a bare atom, and random
 * programs, compile in every mode and agree with the interpreter. */
static void test_models_small_and_random(void **state) {
  (void)state;
  static const char *const progs[] = {
    "x = true\n", "x = false\n", "a = token \"a\"\n",
    "a = token \"a\"\nx = leftmost j : false ? a : !a\n",
    "a = token \"a\"\nx = rightmost j <= i : true ? a : false\n"};
  hs_rng r = {5};
  char text[8192];
  uint8_t w[300];
  for (int t = 0; t < 5 + 40; t++) {
    prog g;
    memset(&g, 0, sizeof g);
    if (t < 5) snprintf(text, sizeof text, "%s", progs[t]);
    else gen_program(&r, text, sizeof text);
    snprintf(g.name, sizeof g.name, "program %d", t);
    g.p = parse_text(text, &g.v);
    const uint8_t syms[4] = {'a', 'b', 'c', hs_vocab_other(&g.v)};
    memcpy(g.sym, syms, 4);
    g.nsym = 4;
    hs_error e;
    hs_prebuilt *f = hs_brasp_lower(g.p, &e);
    if (!f) fail_msg("%s: %s", text, e.msg);
    for (int mode = 0; mode < HS_MODE_COUNT_; mode++) {
      hs_model *m = compile_mode(f, (hs_mode)mode, mode == HS_MODE_FIXED ? 32 : 4, text);
      size_t n = mode == HS_MODE_FIXED ? 16 : 1 + hs_rng_next(&r) % 300;
      for (int kind = 0; kind < 3; kind++) {
        random_string(&r, &g, w, n, kind);
        model_agrees(&g, m, hs_mode_name((hs_mode)mode), w, n);
      }
      hs_model_free(m);
    }
    hs_prebuilt_free(f);
    hs_brasp_free(g.p);
    hs_vocab_free(&g.v);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_programs_parse),
    cmocka_unit_test(test_parse_errors),
    cmocka_unit_test(test_limits),
    cmocka_unit_test(test_interpreter_by_hand),
    cmocka_unit_test(test_dyck2_language),
    cmocka_unit_test(test_lowering_exhaustive),
    cmocka_unit_test(test_lowering_random_programs),
    cmocka_unit_test(test_models_agree),
    cmocka_unit_test(test_models_small_and_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
