/* SPDX-License-Identifier: MIT */
/* Ground truth (src/lang/ltl/truth.c) against a brute-force reference written
 * straight from the semantics table of docs/LANGUAGE.md: every temporal operator
 * quantifies over j directly (O(n^2) per node), every count is recounted
 * from scratch at every position. Checked on the formula suite
 * (tests/formulas.txt) for every string up to length 6 over
 * {a, b, c, other} and on random strings up to length 200 over a wider
 * alphabet, and on random formulas over every construct. */
#include "formulas.h"
#include "lang/ltl/formula.h"

__extension__ typedef __int128 i128;

/* ------------------------------------------------------------ reference */

/* rows[id] = the node's values at positions 1..n (index i-1), computed on
 * demand, children first. */
static const uint8_t *ref_row(const hs_formula *f, int32_t id, const uint8_t *w,
                              size_t n, uint8_t **rows) {
  if (rows[id]) return rows[id];
  const hs_node *nd = &f->nodes[id];
  uint8_t *o = calloc(n + 1, 1);
  const uint8_t *a = nd->a >= 0 ? ref_row(f, nd->a, w, n, rows) : NULL;
  const uint8_t *b = nd->b >= 0 ? ref_row(f, nd->b, w, n, rows) : NULL;
  for (size_t i = 1; i <= n; i++) { /* 1-based position i */
    int v = 0;
    switch (nd->op) {
    case HS_F_FALSE: v = 0; break;
    case HS_F_TRUE: v = 1; break;
    case HS_F_ATOM: v = w[i - 1] == nd->sym; break;
    case HS_F_FIRST: v = i == 1; break;
    case HS_F_LAST: v = i == n; break;
    case HS_F_MOD: v = (int64_t)(i % (uint64_t)nd->k) == nd->r; break;
    case HS_F_NOT: v = !a[i - 1]; break;
    case HS_F_AND: v = a[i - 1] && b[i - 1]; break;
    case HS_F_OR: v = a[i - 1] || b[i - 1]; break;
    case HS_F_IMPLIES: v = !a[i - 1] || b[i - 1]; break;
    case HS_F_IFF: v = !a[i - 1] == !b[i - 1]; break;
    case HS_F_NEXT: v = i < n && a[i]; break;
    case HS_F_YESTERDAY: v = i > 1 && a[i - 2]; break;
    case HS_F_EVENTUALLY: /* some j >= i */
      for (size_t j = i; j <= n; j++) v |= a[j - 1];
      break;
    case HS_F_ALWAYS: /* every j >= i */
      v = 1;
      for (size_t j = i; j <= n; j++) v &= a[j - 1];
      break;
    case HS_F_ONCE:
      for (size_t j = 1; j <= i; j++) v |= a[j - 1];
      break;
    case HS_F_HISTORICALLY:
      v = 1;
      for (size_t j = 1; j <= i; j++) v &= a[j - 1];
      break;
    case HS_F_UNTIL: /* some j >= i has psi, phi at every k in [i, j) */
      for (size_t j = i; j <= n && !v; j++) {
        int all = 1;
        for (size_t k = i; k < j && all; k++) all = a[k - 1];
        v = b[j - 1] && all;
      }
      break;
    case HS_F_SINCE: /* some j <= i has psi, phi at every k in (j, i] */
      for (size_t j = 1; j <= i && !v; j++) {
        int all = 1;
        for (size_t k = j + 1; k <= i && all; k++) all = a[k - 1];
        v = b[j - 1] && all;
      }
      break;
    case HS_F_CMP: {
      i128 sum = nd->c;
      for (int32_t t = 0; t < nd->nterms; t++) {
        const uint8_t *x = ref_row(f, nd->terms[t].arg, w, n, rows);
        int64_t cnt = 0;
        for (size_t j = 1; j <= n; j++)
          if (nd->terms[t].past ? j <= i : j >= i) cnt += x[j - 1];
        sum += (i128)nd->terms[t].coef * cnt;
      }
      switch (nd->rel) {
      case HS_REL_LT: v = sum < 0; break;
      case HS_REL_LE: v = sum <= 0; break;
      case HS_REL_EQ: v = sum == 0; break;
      case HS_REL_NE: v = sum != 0; break;
      case HS_REL_GE: v = sum >= 0; break;
      case HS_REL_GT: v = sum > 0; break;
      }
      break;
    }
    default: fail_msg("unknown op %d", nd->op);
    }
    o[i - 1] = (uint8_t)v;
  }
  rows[id] = o;
  return o;
}

/* Compare hs_truth_eval_all (every node) and hs_truth_eval (the root)
 * with the reference on w. */
static void check_string(const hs_formula *f, const uint8_t *w, size_t n) {
  uint8_t *vals = hs_truth_eval_all(f, w, n);
  assert_non_null(vals);
  uint8_t **rows = calloc((size_t)f->count, sizeof *rows);
  for (int32_t id = 0; id < f->count; id++) {
    const uint8_t *r = ref_row(f, id, w, n, rows);
    for (size_t i = 0; i < n; i++)
      if (vals[(size_t)id * n + i] != r[i]) {
        char buf[512];
        hs_formula_print(f, id, buf, sizeof buf);
        fail_msg("\"%s\" (node %d of \"%s\") on \"%.*s\" at position %zu: "
                 "got %d, want %d", buf, id, f->text, (int)n, (const char *)w,
                 i + 1, vals[(size_t)id * n + i], r[i]);
      }
  }
  uint8_t *out = malloc(n + 1);
  assert_int_equal(hs_truth_eval(f, f->root, w, n, out, NULL), 0);
  if (n) assert_memory_equal(out, rows[f->root], n);
  free(out);
  for (int32_t id = 0; id < f->count; id++) free(rows[id]);
  free(rows);
  free(vals);
}

/* ------------------------------------------------------------ the suite */

static hs_formula *must_parse(const char *s) {
  hs_error e;
  hs_formula *f = hs_formula_parse(s, &e);
  if (!f) fail_msg("parse failed for \"%s\": %s", s, e.msg);
  return f;
}

/* Every string of length 0..6 over {a, b, c, '.'} ('.' is named by no
 * atom of the suite: every atom is false there). */
static void test_suite_exhaustive(void **state) {
  (void)state;
  static const uint8_t sym[4] = {'a', 'b', 'c', '.'};
  suite s = load_suite();
  assert_true(s.n >= 40);
  uint8_t w[8];
  long checked = 0;
  for (int k = 0; k < s.n; k++) {
    hs_formula *f = must_parse(s.line[k]);
    for (size_t n = 0; n <= 6; n++) {
      size_t total = 1;
      for (size_t i = 0; i < n; i++) total *= 4;
      for (size_t code = 0; code < total; code++) {
        size_t c = code;
        for (size_t i = 0; i < n; i++, c /= 4) w[i] = sym[c % 4];
        check_string(f, w, n);
        checked++;
      }
    }
    hs_formula_free(f);
  }
  assert_true(checked == (long)s.n * 5461);
  free_suite(&s);
}

/* Random strings up to length 200 over a wider alphabet, biased runs so
 * that until/since and counts see long stretches. */
static void random_string(hs_rng *r, uint8_t *w, size_t n) {
  static const uint8_t sym[] = {'a', 'b', 'c', '#', '0', ' ', 'A', '.', 0xff};
  int bias = (int)(hs_rng_next(r) % 3);
  for (size_t i = 0; i < n; i++) {
    if (i && hs_rng_next(r) % 4 < (uint64_t)bias) w[i] = w[i - 1];
    else w[i] = sym[hs_rng_next(r) % (bias == 2 ? 3 : sizeof sym)];
  }
}

static void test_suite_random(void **state) {
  (void)state;
  suite s = load_suite();
  hs_rng r = {2024};
  uint8_t w[201];
  for (int k = 0; k < s.n; k++) {
    hs_formula *f = must_parse(s.line[k]);
    for (int it = 0; it < 40; it++) {
      size_t n = it < 20 ? 7 + hs_rng_next(&r) % 30 : hs_rng_next(&r) % 201;
      random_string(&r, w, n);
      check_string(f, w, n);
    }
    hs_formula_free(f);
  }
  free_suite(&s);
}

/* ------------------------------------------------------ random formulas */

static const char *const gen_atoms[6] = {"a", "b", "c", "'#'", "'0'", "a"};

static void test_random_formulas(void **state) {
  (void)state;
  hs_rng r = {99};
  sbuf b = {NULL, 0, 0};
  uint8_t w[201];
  for (int it = 0; it < 1500; it++) {
    b.n = 0;
    sput(&b, "");
    hs_gen_formula(&r, &b, 1 + it % 5, gen_atoms, 6);
    hs_formula *f = must_parse(b.s);
    for (int s = 0; s < 6; s++) {
      size_t n = s < 4 ? hs_rng_next(&r) % 12 : hs_rng_next(&r) % 201;
      random_string(&r, w, n);
      check_string(f, w, n);
    }
    hs_formula_free(f);
  }
  free(b.s);
}

/* ------------------------------------------------------- specific cases */

static void expect_row(const char *formula, const char *w, const char *want) {
  hs_formula *f = must_parse(formula);
  size_t n = strlen(w);
  uint8_t *out = malloc(n + 1);
  assert_int_equal(hs_truth_eval(f, f->root, (const uint8_t *)w, n, out, NULL), 0);
  for (size_t i = 0; i < n; i++)
    if (out[i] != want[i] - '0')
      fail_msg("\"%s\" on \"%s\": position %zu is %d, want %s", formula, w,
               i + 1, out[i], want);
  free(out);
  hs_formula_free(f);
}

static void test_known_values(void **state) {
  (void)state;
  expect_row("a", "abxa", "1001");
  expect_row("'x'", "abxa", "0010");
  expect_row("X a", "aab", "100");
  expect_row("Y a", "aab", "011");
  expect_row("X true", "aaa", "110");   /* X false at n */
  expect_row("Y true", "aaa", "011");   /* Y false at 1 */
  expect_row("F b", "abab", "1111");
  expect_row("F b", "abba", "1110");
  expect_row("G a", "baaa", "0111");
  expect_row("O b", "abab", "0111");
  expect_row("H a", "aaba", "1100");
  expect_row("a U b", "aabca", "11100"); /* non-strict: b itself */
  expect_row("a S b", "cbaab", "01111");
  expect_row("a S b", "baca", "1100");
  expect_row("@first", "abc", "100");
  expect_row("@last", "abc", "001");
  expect_row("@mod(2,0)", "abcde", "01010");
  expect_row("@mod(3,1)", "abcdefg", "1001001");
  expect_row("@mod(2,5)", "abcdefg", "0000000"); /* r >= k: never */
  expect_row("@mod(1,0)", "abc", "111");
  expect_row("#<(a) >= 2", "abaa", "0011");
  expect_row("#>(a) >= 2", "abaa", "1110");
  expect_row("#<(a) = #>(a)", "aba", "010");
  expect_row("#<(a) - 2*#<(b) >= 0 & Y c", "cca", "011");
  expect_row("#<(a) - 2*#<(b) >= 0 & Y c", "cbcc", "0000");
  expect_row("-2*#<(a) + 3 > 0", "aaa", "100");
  /* coefficients near 2^63: exact in 128 bits */
  expect_row("9223372036854775807*#<(a) - 9223372036854775807 > 0", "abaa", "0011");
  expect_row("9223372036854775807*#<(a) > 9223372036854775806*#<(a) + 1", "aaaa", "0111");
}

static void test_edges(void **state) {
  (void)state;
  hs_formula *f = must_parse("a U b & X @last & #<(a) > 0");
  /* n = 0: nothing to compute, nothing read */
  uint8_t *v = hs_truth_eval_all(f, NULL, 0);
  assert_non_null(v);
  free(v);
  uint8_t out[4] = {7, 7, 7, 7};
  assert_int_equal(hs_truth_eval(f, f->root, NULL, 0, out, NULL), 0);
  assert_int_equal(out[0], 7);
  /* bad arguments */
  assert_int_equal(hs_truth_eval(f, -1, (const uint8_t *)"a", 1, out, NULL), -1);
  assert_int_equal(hs_truth_eval(f, f->count, (const uint8_t *)"a", 1, out, NULL), -1);
  assert_int_equal(hs_truth_eval(NULL, 0, (const uint8_t *)"a", 1, out, NULL), -1);
  assert_null(hs_truth_eval_all(NULL, (const uint8_t *)"a", 1));
  /* n * count overflows size_t: NULL, and w is never read */
  assert_null(hs_truth_eval_all(f, (const uint8_t *)"a", SIZE_MAX / 2 + 1));
  /* length 1 */
  assert_int_equal(hs_truth_eval(f, f->root, (const uint8_t *)"b", 1, out, NULL), 0);
  assert_int_equal(out[0], 0);
  hs_formula_free(f);
  /* hs_truth_eval of an inner node matches the row from eval_all */
  f = must_parse("(a S b) & X (a S b) | G c");
  const uint8_t *w = (const uint8_t *)"abaabcacc";
  size_t n = strlen((const char *)w);
  v = hs_truth_eval_all(f, w, n);
  uint8_t row[16];
  for (int32_t id = 0; id < f->count; id++) {
    assert_int_equal(hs_truth_eval(f, id, w, n, row, NULL), 0);
    assert_memory_equal(row, v + (size_t)id * n, n);
  }
  free(v);
  hs_formula_free(f);
  /* a long string: linear time (quadratic would take minutes here) */
  f = must_parse("(a U b) & (a S b) & #<(a) > #>(b) & G F a & H O b");
  size_t N = 1 << 22;
  uint8_t *big = malloc(N);
  hs_rng r = {5};
  for (size_t i = 0; i < N; i++) big[i] = (uint8_t)"ab"[hs_rng_next(&r) % 2];
  uint8_t *res = malloc(N);
  assert_int_equal(hs_truth_eval(f, f->root, big, N, res, NULL), 0);
  free(res);
  free(big);
  hs_formula_free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_known_values),
    cmocka_unit_test(test_edges),
    cmocka_unit_test(test_suite_exhaustive),
    cmocka_unit_test(test_suite_random),
    cmocka_unit_test(test_random_formulas),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
