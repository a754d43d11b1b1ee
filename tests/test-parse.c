/* SPDX-License-Identifier: MIT */
/* Parser and formula utilities (src/lang/ltl/parse.c, src/lang/ltl/formula.c): precedence and
 * associativity, every error class with its exact column, hash-consing,
 * comparison normalisation, the print round-trip, the formula suite file,
 * nesting limits, and fuzzing with random bytes and random token soups
 * (every input must either parse or give a one-line error whose column is
 * in range; sanitizer builds catch anything worse). */
#include "formulas.h"
#include "base/error.h"
#include "lang/ltl/formula.h"

/* internal to the library (src/lang/ltl/formula.c): equality over the fields an op
 * uses, as hash-consing compares */
int hs_node_equal_(const hs_node *x, const hs_node *y);

/* ------------------------------------------------------------- helpers */

static hs_formula *must_parse(const char *s) {
  hs_error e;
  hs_formula *f = hs_formula_parse(s, &e);
  if (!f) fail_msg("parse failed for \"%s\": %s", s, e.msg);
  return f;
}

/* Structural equality of two nodes in possibly different formulas. */
static int same(const hs_formula *f, int32_t x, const hs_formula *g, int32_t y) {
  const hs_node *a = &f->nodes[x], *b = &g->nodes[y];
  if (a->op != b->op) return 0;
  switch (a->op) {
  case HS_F_ATOM: return a->sym == b->sym;
  case HS_F_MOD: return a->k == b->k && a->r == b->r;
  case HS_F_CMP: {
    /* Terms are sorted by node index and the sign is fixed by the first
     * term, so two numberings of one formula may list the terms in another
     * order, or negated with the relation flipped. */
    static const hs_rel flip[] = {HS_REL_GT, HS_REL_GE, HS_REL_EQ, HS_REL_NE,
                                  HS_REL_LE, HS_REL_LT};
    if (a->nterms != b->nterms) return 0;
    for (int sgn = 1; sgn >= -1; sgn -= 2) {
      if (a->c != sgn * b->c || a->rel != (sgn > 0 ? b->rel : flip[b->rel])) continue;
      int ok = 1;
      for (int32_t t = 0; t < a->nterms && ok; t++) {
        int found = 0;
        for (int32_t u = 0; u < b->nterms && !found; u++)
          found = a->terms[t].coef == sgn * b->terms[u].coef &&
                  a->terms[t].past == b->terms[u].past &&
                  same(f, a->terms[t].arg, g, b->terms[u].arg);
        ok = found;
      }
      if (ok) return 1;
    }
    return 0;
  }
  default:
    if ((a->a < 0) != (b->a < 0) || (a->b < 0) != (b->b < 0)) return 0;
    if (a->a >= 0 && !same(f, a->a, g, b->a)) return 0;
    if (a->b >= 0 && !same(f, a->b, g, b->b)) return 0;
    return 1;
  }
}

/* Identical DAGs: same node arrays index by index (what hash-consing plus
 * a deterministic parse order should give for a printed formula). */
static int identical(const hs_formula *f, const hs_formula *g) {
  if (f->count != g->count || f->root != g->root) return 0;
  for (int32_t i = 0; i < f->count; i++) {
    const hs_node *a = &f->nodes[i], *b = &g->nodes[i];
    if (a->op != b->op || a->a != b->a || a->b != b->b || a->sym != b->sym ||
        a->k != b->k || a->r != b->r || a->c != b->c || a->nterms != b->nterms)
      return 0;
    if (a->op == HS_F_CMP && a->rel != b->rel) return 0;
    for (int32_t t = 0; t < a->nterms; t++)
      if (a->terms[t].coef != b->terms[t].coef ||
          a->terms[t].past != b->terms[t].past ||
          a->terms[t].arg != b->terms[t].arg)
        return 0;
  }
  return 1;
}

/* Invariants every parsed formula satisfies. */
static void check_invariants(const hs_formula *f) {
  assert_true(f->count >= 1);
  assert_int_equal(f->root, f->count - 1); /* compacted: the root is last */
  for (int32_t i = 0; i < f->count; i++) {
    const hs_node *n = &f->nodes[i];
    assert_true(n->a < i && n->b < i);
    for (int32_t t = 0; t < n->nterms; t++) {
      assert_true(n->terms[t].arg >= 0 && n->terms[t].arg < i);
      assert_true(n->terms[t].coef != 0);
      if (t) /* sorted, like terms merged */
        assert_true(n->terms[t - 1].arg < n->terms[t].arg ||
                    (n->terms[t - 1].arg == n->terms[t].arg &&
                     n->terms[t - 1].past < n->terms[t].past));
    }
    if (n->op == HS_F_CMP) {
      assert_true(n->nterms > 0);
      assert_true(n->terms[0].coef > 0);
    }
    for (int32_t j = 0; j < i; j++) /* hash-consing: no duplicates */
      if (hs_node_equal_(&f->nodes[j], n)) fail_msg("nodes %d and %d equal", j, i);
  }
}

/* print -> parse gives the same DAG, index for index. */
static void check_roundtrip(const hs_formula *f) {
  size_t len = hs_formula_print(f, f->root, NULL, 0);
  char *buf = malloc(len + 1);
  assert_non_null(buf);
  assert_int_equal(hs_formula_print(f, f->root, buf, len + 1), len);
  assert_int_equal(strlen(buf), len);
  hs_error e;
  hs_formula *g = hs_formula_parse(buf, &e);
  if (!g) fail_msg("re-parse of \"%s\" failed: %s", buf, e.msg);
  if (!same(f, f->root, g, g->root))
    fail_msg("re-parse of \"%s\" differs (from \"%s\")", buf, f->text ? f->text : "?");
  /* Without counting, node numbering is the post-order of first
   * occurrence, which printing preserves: the DAGs agree index for index.
   * (With counting they agree only up to the order of comparison terms,
   * which are sorted by node index.) */
  if (!strchr(f->text, '#') && !identical(f, g))
    fail_msg("re-parse of \"%s\" numbers nodes differently", buf);
  char *buf2 = NULL;
  free(buf);
  free(buf2);
  hs_formula_free(g);
}

static char *print_root(const hs_formula *f) {
  size_t len = hs_formula_print(f, f->root, NULL, 0);
  char *buf = malloc(len + 1);
  if (!buf) abort();
  hs_formula_print(f, f->root, buf, len + 1);
  return buf;
}

/* ------------------------------------------------ suite file (formulas.txt) */

/* ------------------------------------------------------------ the tests */

/* Pairs that must parse to the same DAG. */
static void test_precedence(void **state) {
  (void)state;
  static const char *const eq[][2] = {
    {"a U b U c", "a U (b U c)"},
    {"a S b S c", "a S (b S c)"},
    {"a U b S c", "a U (b S c)"},
    {"a S b U c", "a S (b U c)"},
    {"a -> b -> c", "a -> (b -> c)"},
    {"a <-> b <-> c", "(a <-> b) <-> c"},
    {"a | b | c", "(a | b) | c"},
    {"a & b & c", "(a & b) & c"},
    {"!a U b", "(!a) U b"},
    {"X a & b", "(X a) & b"},
    {"X a U b", "(X a) U b"},
    {"a & b | c", "(a & b) | c"},
    {"a | b & c", "a | (b & c)"},
    {"a & b U c", "a & (b U c)"},
    {"a U b & c", "(a U b) & c"},
    {"a | b -> c", "(a | b) -> c"},
    {"a -> b | c", "a -> (b | c)"},
    {"a <-> b -> c", "a <-> (b -> c)"},
    {"a -> b <-> c", "(a -> b) <-> c"},
    {"!X a", "!(X a)"},
    {"G F a", "G (F a)"},
    {"GFa", "G F a"},
    {"aUb", "a U b"},
    {"!!a", "!(!a)"},
    {"X Y F G O H a", "X(Y(F(G(O(H(a))))))"},
    {"! #<(a) > 0", "!(#<(a) > 0)"},
    {"#<(a) > 0 & b", "(#<(a) > 0) & b"},
    {"#<(a) > 0 -> b", "(#<(a) > 0) -> b"},
    {"X #<(a) > 0", "X (#<(a) > 0)"},
    {"#<(a) - 2*#<(b) >= 0 & Y c", "(#<(a) - 2*#<(b) >= 0) & (Y c)"},
    {"#<(a) > #<(b)", "#<(a) - #<(b) > 0"},
    {"#<(a) > #<(b)", "0 < #<(a) - #<(b)"},
    {"#<(a) > #<(b)", "-#<(a) < -#<(b)"},
    {"#<(a) > #<(b)", "#<(a) + 0 > #<(b) + 1 - 1"},
    {"#<(a) + #<(a) = 2", "2*#<(a) = 2"},
    {"#<(a)<-1", "#<(a) < -1"},
    {"3 > 2", "true"},
    {"2 > 3", "false"},
    {"#<(a) - #<(a) = 0", "true"},
    {"#<(a) - #<(a) + #>(b) > 0", "#>(b) > 0"},
    {"'a'", "a"},
    {" \t\na\r\n ", "a"},
    {"@mod( 3 , 1 )", "@mod(3,1)"},
    {"((((a))))", "a"},
  };
  for (size_t i = 0; i < sizeof eq / sizeof *eq; i++) {
    hs_formula *f = must_parse(eq[i][0]), *g = must_parse(eq[i][1]);
    if (!same(f, f->root, g, g->root))
      fail_msg("\"%s\" and \"%s\" should parse alike", eq[i][0], eq[i][1]);
    hs_formula_free(f);
    hs_formula_free(g);
  }
  /* and pairs that must differ */
  static const char *const ne[][2] = {
    {"a U b & c", "a U (b & c)"},
    {"a -> b -> c", "(a -> b) -> c"},
    {"a <-> b <-> c", "a <-> (b <-> c)"},
    {"!a U b", "!(a U b)"},
    {"X a & b", "X (a & b)"},
    {"a U b U c", "(a U b) U c"},
    {"#<(a) > 0", "#>(a) > 0"},
  };
  for (size_t i = 0; i < sizeof ne / sizeof *ne; i++) {
    hs_formula *f = must_parse(ne[i][0]), *g = must_parse(ne[i][1]);
    if (same(f, f->root, g, g->root))
      fail_msg("\"%s\" and \"%s\" should differ", ne[i][0], ne[i][1]);
    hs_formula_free(f);
    hs_formula_free(g);
  }
}

/* The shape of a few parses, node by node. */
static void test_shapes(void **state) {
  (void)state;
  hs_formula *f = must_parse("a U b U c");
  const hs_node *r = &f->nodes[f->root];
  assert_int_equal(r->op, HS_F_UNTIL);
  assert_int_equal(f->nodes[r->a].op, HS_F_ATOM);
  assert_int_equal(f->nodes[r->a].sym, 'a');
  assert_int_equal(f->nodes[r->b].op, HS_F_UNTIL);
  assert_string_equal(f->text, "a U b U c");
  hs_formula_free(f);

  f = must_parse("'0' | ' ' | 'A' | '~'");
  uint8_t set[256];
  hs_formula_alphabet(f, set);
  int n = 0;
  for (int i = 0; i < 256; i++) n += set[i];
  assert_int_equal(n, 4);
  assert_true(set['0'] && set[' '] && set['A'] && set['~']);
  hs_formula_free(f);

  f = must_parse("@mod(7,9)"); /* r >= k is accepted: false everywhere */
  assert_int_equal(f->nodes[f->root].op, HS_F_MOD);
  assert_int_equal(f->nodes[f->root].k, 7);
  assert_int_equal(f->nodes[f->root].r, 9);
  hs_formula_free(f);

  f = must_parse("@mod(9223372036854775807,0)");
  assert_int_equal(f->nodes[f->root].k, INT64_MAX);
  hs_formula_free(f);
}

static void test_hash_consing(void **state) {
  (void)state;
  hs_formula *f = must_parse("(a S b) & X (a S b)");
  int s = 0;
  for (int32_t i = 0; i < f->count; i++) s += f->nodes[i].op == HS_F_SINCE;
  assert_int_equal(s, 1);
  assert_int_equal(f->count, 5); /* a b S X & */
  check_invariants(f);
  hs_formula_free(f);

  f = must_parse("a & a & a | 'a'");
  assert_int_equal(f->count, 4); /* a, a&a, (a&a)&a, | */
  hs_formula_free(f);

  /* the same comparison written three ways is one node */
  f = must_parse("(#<(a) > #<(b)) & (#<(b) < #<(a)) & (#<(a) - #<(b) > 0)");
  int c = 0;
  for (int32_t i = 0; i < f->count; i++) c += f->nodes[i].op == HS_F_CMP;
  assert_int_equal(c, 1);
  hs_formula_free(f);

  /* hs_formula_intern: garbage in unused fields is ignored; an equal node
   * gets the old index; invalid children are refused. */
  f = must_parse("a & b");
  hs_node n;
  memset(&n, 0x5a, sizeof n);
  n.op = HS_F_ATOM;
  n.sym = 'b';
  n.terms = NULL;
  int32_t ib = hs_formula_intern(f, &n);
  assert_true(ib >= 0 && ib < 2);
  n.sym = 'z';
  int32_t iz = hs_formula_intern(f, &n);
  assert_int_equal(iz, 3);
  assert_int_equal(f->nodes[iz].a, -1);
  assert_int_equal(f->nodes[iz].k, 0);
  memset(&n, 0, sizeof n);
  n.op = HS_F_AND;
  n.a = 0;
  n.b = 1;
  assert_int_equal(hs_formula_intern(f, &n), 2);
  n.b = 99;
  assert_int_equal(hs_formula_intern(f, &n), -1);
  n.op = (hs_fop)1000;
  assert_int_equal(hs_formula_intern(f, &n), -1);
  hs_count_term t[2] = {{3, 1, 0}, {-1, 7, 3}};
  memset(&n, 0, sizeof n);
  n.op = HS_F_CMP;
  n.rel = HS_REL_GE;
  n.c = -2;
  n.nterms = 2;
  n.terms = t;
  int32_t ic = hs_formula_intern(f, &n);
  assert_int_equal(ic, 4);
  assert_ptr_not_equal(f->nodes[ic].terms, t); /* copied */
  assert_int_equal(f->nodes[ic].terms[1].past, 1);
  t[1].past = 1; /* "past" is a flag: 7 and 1 are the same */
  assert_int_equal(hs_formula_intern(f, &n), ic);
  char buf[128];
  hs_formula_print(f, ic, buf, sizeof buf);
  assert_string_equal(buf, "3*#<(a) - #<(z) - 2 >= 0");
  hs_formula_free(f);
}

static void test_cmp_normalise(void **state) {
  (void)state;
  hs_formula *f = must_parse("#<(a) - 2*#<(b) >= 0 & Y c");
  const hs_node *r = &f->nodes[f->root];
  assert_int_equal(r->op, HS_F_AND);
  const hs_node *c = &f->nodes[r->a];
  assert_int_equal(c->op, HS_F_CMP);
  assert_int_equal(c->rel, HS_REL_GE);
  assert_int_equal(c->c, 0);
  assert_int_equal(c->nterms, 2);
  assert_int_equal(c->terms[0].coef, 1);
  assert_int_equal(c->terms[0].past, 1);
  assert_int_equal(f->nodes[c->terms[0].arg].sym, 'a');
  assert_int_equal(c->terms[1].coef, -2);
  assert_int_equal(f->nodes[c->terms[1].arg].sym, 'b');
  hs_formula_free(f);

  /* leading minus, constants on both sides, like terms merged, sign flip */
  f = must_parse("-2*#<(a) + 3 > #>(a) - #>(a) + 5 - 3*#<(a)");
  c = &f->nodes[f->root];
  /* -2A + 3 - 5 + 3A > 0  ->  A - 2 > 0 */
  assert_int_equal(c->op, HS_F_CMP);
  assert_int_equal(c->nterms, 1);
  assert_int_equal(c->terms[0].coef, 1);
  assert_int_equal(c->c, -2);
  assert_int_equal(c->rel, HS_REL_GT);
  assert_int_equal(f->count, 2); /* the #>(a) terms cancelled; a is shared */
  hs_formula_free(f);

  f = must_parse("2*#>(b) < 3*#<(a)");
  c = &f->nodes[f->root];
  /* 2B - 3A < 0; a is created after b, terms sorted by node index */
  assert_int_equal(c->nterms, 2);
  assert_int_equal(f->nodes[c->terms[0].arg].sym, 'b');
  assert_int_equal(c->terms[0].coef, 2);
  assert_int_equal(c->terms[0].past, 0);
  assert_int_equal(c->terms[1].coef, -3);
  assert_int_equal(c->rel, HS_REL_LT);
  hs_formula_free(f);

  f = must_parse("#<(b) - 2 < 3*#<(b)"); /* -2B - 2 < 0 -> 2B + 2 > 0 */
  c = &f->nodes[f->root];
  assert_int_equal(c->terms[0].coef, 2);
  assert_int_equal(c->c, 2);
  assert_int_equal(c->rel, HS_REL_GT);
  hs_formula_free(f);

  static const struct { const char *in; hs_rel rel; } flips[] = {
    {"-#<(a) < 0", HS_REL_GT}, {"-#<(a) <= 0", HS_REL_GE},
    {"-#<(a) = 0", HS_REL_EQ}, {"-#<(a) != 0", HS_REL_NE},
    {"-#<(a) >= 0", HS_REL_LE}, {"-#<(a) > 0", HS_REL_LT}};
  for (size_t i = 0; i < 6; i++) {
    f = must_parse(flips[i].in);
    assert_int_equal(f->nodes[f->root].rel, flips[i].rel);
    assert_int_equal(f->nodes[f->root].terms[0].coef, 1);
    hs_formula_free(f);
  }

  /* folding drops the orphaned arguments: only b remains */
  f = must_parse("(#<(a U c) - #<(a U c) = 0) & b");
  assert_int_equal(f->count, 3);
  assert_int_equal(f->nodes[0].op, HS_F_TRUE);
  uint8_t set[256];
  hs_formula_alphabet(f, set);
  assert_false(set['a']);
  assert_true(set['b']);
  assert_false(hs_formula_has_op(f, HS_F_UNTIL));
  check_invariants(f);
  hs_formula_free(f);

  /* extremes that still fit */
  f = must_parse("9223372036854775807*#<(a) - 9223372036854775807 > 0");
  assert_int_equal(f->nodes[f->root].terms[0].coef, INT64_MAX);
  assert_int_equal(f->nodes[f->root].c, -INT64_MAX);
  hs_formula_free(f);
  f = must_parse("9223372036854775807*#<(a) + 9223372036854775807*#<(b) "
                 "- 9223372036854775807*#<(b) > 0");
  assert_int_equal(f->nodes[f->root].nterms, 1);
  hs_formula_free(f);
  f = must_parse("4611686018427387904*#<(a) - 4611686018427387903*#>(a) > 1");
  hs_formula_free(f);
}

typedef struct err_case { const char *in; int column; const char *msg; } err_case;

static void test_errors(void **state) {
  (void)state;
  static const err_case cases[] = {
    {"", 0, "empty formula"},
    {"  \t\n ", 0, "empty formula"},
    {"ab", 1, "unknown word 'ab' at column 1 (atoms are single letters; quote other characters)"},
    {"a & ab", 5, "unknown word 'ab' at column 5"},
    {"trues", 1, "unknown word 'trues'"},
    {"X", 2, "unexpected end of formula at column 2"},
    {"a &", 4, "unexpected end of formula at column 4"},
    {"a U", 4, "unexpected end of formula at column 4"},
    {"F G", 4, "unexpected end of formula at column 4"},
    {"(a", 3, "expected ')' at column 3"},
    {"(a & b", 7, "expected ')' at column 7"},
    {"#<(a", 5, "expected ')' at column 5"},
    {"a $", 3, "unknown character '$' at column 3"},
    {"A", 1, "unknown character 'A' at column 1"},
    {"a & \x80", 5, "unknown character 0x80 at column 5"},
    {"a & b\x07", 6, "unknown character 0x07 at column 6"},
    {"99999999999999999999 > 0", 1, "integer too large at column 1"},
    {"#<(a) > 9223372036854775808", 9, "integer too large at column 9"},
    {"#<(a) a", 7, "counting comparison needs a relation (<, <=, =, !=, >=, >) at column 7"},
    {"#<(a)", 6, "counting comparison needs a relation (<, <=, =, !=, >=, >) at column 6"},
    {"(#<(a)) > 0", 7, "counting comparison needs a relation"},
    {"3", 1, "a number at column 1 where a formula goes: digits are the integers of "
          "counting comparisons (#<(a) > 1); the symbol 3 is written '3'"},
    {"3*#<(a)", 8, "counting comparison needs a relation"},
    {"#<(a) -> b", 7, "counting comparison needs a relation"},
    {"#<(a) > 0 +", 12, "unexpected end of formula at column 12"},
    {"#<(a) > 0 + b", 13, "expected an integer or a count"},
    {"-a", 2, "expected an integer or a count"},
    {"- -2 < #<(a)", 3, "expected an integer or a count"},
    {"2*3 > 0", 3, "expected a count #<(...) or #>(...) after '*' at column 3"},
    {"#<(a)*2 > 0", 6, "counting comparison needs a relation"},
    {"#<a > 0", 3, "expected '(' after '#<' at column 3"},
    {"#>", 3, "expected '(' after '#>' at column 3"},
    {"#(a) > 0", 1, "'#' must be followed by '<' or '>' at column 1"},
    {"# <(a) > 0", 1, "'#' must be followed by '<' or '>'"},
    {"9223372036854775807*#<(a) + 9223372036854775807*#<(b) > 0", 1,
     "counting comparison coefficients too large at column 1"},
    {"a | 1 + #<(a) > -9223372036854775807", 5,
     "counting comparison coefficients too large at column 5"},
    {"@mod(0,1)", 6, "@mod needs k >= 1 at column 6"},
    {"@mod(2,-1)", 8, "@mod needs r >= 0 at column 8"},
    {"@mod(2 1)", 8, "expected ',' at column 8"},
    {"@mod 3", 6, "expected '(' after @mod at column 6"},
    {"@mod(2,1", 9, "expected ')' at column 9"},
    {"@mod(a,1)", 6, "expected an integer k >= 1 at column 6"},
    {"@mod(1,b)", 8, "expected an integer r >= 0 at column 8"},
    {"@foo", 1, "unknown position predicate '@foo' at column 1"},
    {"a | @", 5, "unknown position predicate '@' at column 5"},
    {"@First", 1, "unknown position predicate"},
    {"a b", 3, "unexpected atom b at column 3"},
    {"a)", 2, "unexpected ')' at column 2"},
    {"true1", 5, "unexpected integer 1 at column 5"},
    {"#<(a) >= #<(b) >= 1", 16, "unexpected '>=' at column 16"},
    {")", 1, "expected a formula, found ')' at column 1"},
    {"a & & b", 5, "expected a formula, found '&' at column 5"},
    {"a = b", 3, "unexpected '=' at column 3"},
    {"'ab'", 3, "expected ' to close the quoted atom at column 3"},
    {"'", 1, "unterminated quoted atom at column 1"},
    {"a | '", 5, "unterminated quoted atom at column 5"},
    {"''", 1, "empty quoted atom at column 1"},
    {"'\\'", 2, "a backslash cannot be quoted at column 2"},
    {"'\x01'", 2, "quoted atom must be a printable ASCII character at column 2"},
    {"'\t'", 2, "quoted atom must be a printable ASCII character"},
    {"'a", 3, "expected ' to close the quoted atom at column 3"},
    {"a U b U", 8, "unexpected end of formula at column 8"},
    {"!", 2, "unexpected end of formula"},
    {"()", 2, "expected a formula, found ')' at column 2"},
    {"a <- b", 3, "unexpected '<' at column 3"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    hs_error e;
    memset(&e, 0x7f, sizeof e);
    hs_formula *f = hs_formula_parse(cases[i].in, &e);
    if (f) fail_msg("\"%s\" should not parse", cases[i].in);
    if (e.column != cases[i].column || !strstr(e.msg, cases[i].msg))
      fail_msg("\"%s\": got column %d \"%s\", want column %d \"%s\"",
               cases[i].in, e.column, e.msg, cases[i].column, cases[i].msg);
    assert_null(strchr(e.msg, '\n'));
    if (e.column > 0) {
      char at[32];
      snprintf(at, sizeof at, "at column %d", e.column);
      assert_non_null(strstr(e.msg, at));
    }
  }
  /* NULL text, NULL error report */
  hs_error e;
  assert_null(hs_formula_parse(NULL, &e));
  assert_string_equal(e.msg, "no formula");
  assert_null(hs_formula_parse("a &", NULL));
  hs_formula *f = hs_formula_parse("a", NULL);
  assert_non_null(f);
  hs_formula_free(f);
  hs_formula_free(NULL);
  /* the word in the message is truncated */
  char longword[200];
  memset(longword, 'q', sizeof longword - 1);
  longword[sizeof longword - 1] = 0;
  assert_null(hs_formula_parse(longword, &e));
  assert_int_equal(e.column, 1);
  assert_non_null(strstr(e.msg, "...'"));
}

/* Deep nesting ends in an error, never in a stack overflow. */
static void test_nesting_limits(void **state) {
  (void)state;
  size_t N = 30000;
  char *s = malloc(3 * N + 16);
  hs_error e;
  /* 9999 parentheses: fine; 10001: too deep */
  for (int k = 0; k < 2; k++) {
    size_t d = k ? 10001 : 9999, p = 0;
    for (size_t i = 0; i < d; i++) s[p++] = '(';
    s[p++] = 'a';
    for (size_t i = 0; i < d; i++) s[p++] = ')';
    s[p] = 0;
    hs_formula *f = hs_formula_parse(s, &e);
    if (k) {
      assert_null(f);
      assert_non_null(strstr(e.msg, "formula nested too deeply"));
      assert_int_equal(e.column, 10001);
    } else {
      assert_non_null(f);
      hs_formula_free(f);
    }
  }
  /* prefix operators: 9999 fine (temporal depth 9999), 20000 not */
  for (int k = 0; k < 2; k++) {
    size_t d = k ? 20000 : 9999, p = 0;
    for (size_t i = 0; i < d; i++) s[p++] = "XYFGOH!"[i % 7];
    s[p++] = 'a';
    s[p] = 0;
    hs_formula *f = hs_formula_parse(s, &e);
    if (k) {
      assert_null(f);
      assert_non_null(strstr(e.msg, "formula nested too deeply"));
    } else {
      assert_non_null(f);
      assert_int_equal(hs_formula_temporal_depth(f, f->root), 9999 - 9999 / 7);
      check_roundtrip(f);
      hs_formula_free(f);
    }
  }
  /* long operator chains: the tree depth is the limit */
  static const char *const ops[] = {" & ", " | ", " -> ", " <-> ", " U ", " S "};
  for (size_t o = 0; o < 6; o++)
    for (int k = 0; k < 2; k++) {
      size_t d = k ? 10001 : 9999, p = 0;
      for (size_t i = 0; i < d; i++) {
        s[p++] = (char)('a' + i % 3);
        if (i + 1 < d) { strcpy(s + p, ops[o]); p += strlen(ops[o]); }
      }
      s[p] = 0;
      hs_formula *f = hs_formula_parse(s, &e);
      if (k) {
        if (f) fail_msg("chain of %zu '%s' should be too deep", d, ops[o]);
        assert_non_null(strstr(e.msg, "formula nested too deeply"));
      } else {
        if (!f) fail_msg("chain of %zu '%s': %s", d, ops[o], e.msg);
        check_roundtrip(f);
        hs_formula_free(f);
      }
    }
  /* nested counts: each costs three levels */
  for (int k = 0; k < 2; k++) {
    size_t d = k ? 3400 : 3300, p = 0;
    for (size_t i = 0; i < d; i++) { memcpy(s + p, "#<(", 3); p += 3; }
    s[p++] = 'a';
    for (size_t i = 0; i < d; i++) { memcpy(s + p, ")>0", 3); p += 3; }
    s[p] = 0;
    hs_formula *f = hs_formula_parse(s, &e);
    if (k) {
      assert_null(f);
      assert_non_null(strstr(e.msg, "formula nested too deeply"));
    } else {
      if (!f) fail_msg("%s", e.msg);
      assert_int_equal(hs_formula_temporal_depth(f, f->root), (int)d);
      hs_formula_free(f);
    }
  }
  free(s);
}

static void balanced(char *s, size_t *p, int d, int *leaf) {
  if (d == 0) {
    int k = (*leaf)++;
    *p += (size_t)sprintf(s + *p, "%d*#>(%c)<%d", k % 7 + 1, 'a' + k % 26, k);
    return;
  }
  s[(*p)++] = '(';
  balanced(s, p, d - 1, leaf);
  s[(*p)++] = d % 2 ? '&' : '|';
  balanced(s, p, d - 1, leaf);
  s[(*p)++] = ')';
}

/* Long inputs: linear work, no quadratic blow-up, no crash. */
static void test_long_input(void **state) {
  (void)state;
  size_t N = 1 << 20;
  char *s = malloc(N + 1);
  hs_error e;
  memset(s, ' ', N);
  s[N - 1] = 'a';
  s[N] = 0;
  hs_formula *f = hs_formula_parse(s, &e);
  assert_non_null(f);
  hs_formula_free(f);
  /* a balanced tree of 2^16 distinct comparisons: long but shallow */
  size_t p = 0;
  int leaf = 0;
  balanced(s, &p, 16, &leaf);
  s[p] = 0;
  assert_true(p > N / 2 && p < N);
  f = hs_formula_parse(s, &e);
  if (!f) fail_msg("%s", e.msg);
  assert_true(f->count > 65536);
  check_roundtrip(f);
  hs_formula_free(f);
  /* a megabyte of garbage */
  hs_rng r = {42};
  for (size_t i = 0; i < N; i++) s[i] = (char)(1 + hs_rng_next(&r) % 255);
  s[N] = 0;
  assert_null(hs_formula_parse(s, &e));
  assert_true(e.column >= 1 && e.column <= (int)N + 1);
  free(s);
}

static void test_print(void **state) {
  (void)state;
  static const char *const cases[][2] = {
    {"a U b U c", "a U b U c"},
    {"a U (b S c)", "a U b S c"},
    {"(a U b) U c", "(a U b) U c"},
    {"a & b U c", "a & (b U c)"},
    {"(a U b) -> c S d", "(a U b) -> (c S d)"},
    {"X (a U b)", "X (a U b)"},
    {"(a S b) & X (a S b)", "(a S b) & X (a S b)"},
    {"a & b | c", "a & b | c"},
    {"a & (b | c)", "a & (b | c)"},
    {"(a -> b) -> c", "(a -> b) -> c"},
    {"a -> b -> c", "a -> b -> c"},
    {"a <-> (b <-> c)", "a <-> (b <-> c)"},
    {"!(a & b)", "!(a & b)"},
    {"!X a", "!X a"},
    {"X !a", "X !a"},
    {"!#<(a) > 0", "!(#<(a) > 0)"},
    {"'#' | ' ' | 'a'", "'#' | ' ' | a"},
    {"@mod(3,1) & @first | @last", "@mod(3,1) & @first | @last"},
    {"#<(a) - 2*#<(b) >= 0 & Y c", "#<(a) - 2*#<(b) >= 0 & Y c"},
    {"-2*#<(a) + 3 > 0", "2*#<(a) - 3 < 0"},
    {"#>(a) + #>(a) > 1", "2*#>(a) - 1 > 0"},
    {"#<(a U b) = 1", "#<(a U b) - 1 = 0"},
    {"3 > 2", "true"},
    {"false", "false"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    hs_formula *f = must_parse(cases[i][0]);
    char *s = print_root(f);
    if (strcmp(s, cases[i][1]))
      fail_msg("print(\"%s\") = \"%s\", want \"%s\"", cases[i][0], s, cases[i][1]);
    check_roundtrip(f);
    free(s);
    hs_formula_free(f);
  }
  /* snprintf-like: the full length is returned, the buffer truncated and
   * terminated */
  hs_formula *f = must_parse("a U b U c");
  char buf[8];
  memset(buf, 'x', sizeof buf);
  assert_int_equal(hs_formula_print(f, f->root, buf, 5), 9);
  assert_string_equal(buf, "a U ");
  assert_int_equal(buf[5], 'x');
  assert_int_equal(hs_formula_print(f, f->root, buf, 1), 9);
  assert_string_equal(buf, "");
  assert_int_equal(hs_formula_print(f, f->root, NULL, 0), 9);
  assert_int_equal(hs_formula_print(f, 0, buf, sizeof buf), 1);
  assert_string_equal(buf, "a");
  assert_int_equal(hs_formula_print(f, 99, buf, sizeof buf), 0);
  assert_string_equal(buf, "");
  hs_formula_free(f);
}

static void test_queries(void **state) {
  (void)state;
  static const struct { const char *in; int depth; } d[] = {
    {"a", 0}, {"a & !b -> c", 0}, {"X a", 1}, {"a U b", 1},
    {"X Y F G O H a", 6}, {"G F a | X a", 2}, {"#<(a) > 0", 1},
    {"#<(X a) > #>(b)", 2}, {"#<(#<(a) > 1) = 1", 2}, {"@mod(2,1) & @first", 0},
    {"F (a & X (b U (c & Y (a S O b))))", 6}, {"(a S b) & X (a S b)", 2},
    {"3 > 2", 0},
  };
  for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
    hs_formula *f = must_parse(d[i].in);
    if (hs_formula_temporal_depth(f, f->root) != d[i].depth)
      fail_msg("depth(\"%s\") = %d, want %d", d[i].in,
               hs_formula_temporal_depth(f, f->root), d[i].depth);
    hs_formula_free(f);
  }
  hs_formula *f = must_parse("X a & #<(b) > 0 | @last");
  assert_true(hs_formula_has_op(f, HS_F_NEXT));
  assert_true(hs_formula_has_op(f, HS_F_CMP));
  assert_true(hs_formula_has_op(f, HS_F_LAST));
  assert_true(hs_formula_has_op(f, HS_F_ATOM));
  assert_false(hs_formula_has_op(f, HS_F_UNTIL));
  assert_false(hs_formula_has_op(f, HS_F_MOD));
  assert_int_equal(hs_formula_temporal_depth(f, -1), -1);
  assert_int_equal(hs_formula_temporal_depth(f, f->count), -1);
  uint8_t set[256];
  hs_formula_alphabet(f, set);
  for (int i = 0; i < 256; i++) assert_int_equal(set[i], i == 'a' || i == 'b');
  hs_formula_free(f);
}

static void test_suite_file(void **state) {
  (void)state;
  suite s = load_suite();
  assert_true(s.n >= 40);
  assert_true(s.marker > 0 && s.marker < s.n);
  int maxdepth = 0;
  for (int i = 0; i < s.n; i++) {
    assert_true(s.line[i][0] != '#');
    hs_formula *f = must_parse(s.line[i]);
    check_invariants(f);
    check_roundtrip(f);
    int extended = hs_formula_has_op(f, HS_F_FIRST) || hs_formula_has_op(f, HS_F_LAST) ||
                   hs_formula_has_op(f, HS_F_MOD) || hs_formula_has_op(f, HS_F_CMP);
    int lexical = strchr(s.line[i], '@') || strstr(s.line[i], "#<") ||
                  strstr(s.line[i], "#>");
    if (i < s.marker) { /* LTL only */
      if (extended || lexical)
        fail_msg("\"%s\" is before the marker but not pure LTL", s.line[i]);
      int d = hs_formula_temporal_depth(f, f->root);
      if (d > maxdepth) maxdepth = d;
    } else if (!lexical) {
      fail_msg("\"%s\" is after the marker but uses no @ or counting", s.line[i]);
    }
    hs_formula_free(f);
  }
  assert_int_equal(maxdepth, 6);
  /* every operator occurs somewhere in the suite */
  int seen[HS_F_COUNT_] = {0};
  for (int i = 0; i < s.n; i++) {
    hs_formula *f = must_parse(s.line[i]);
    for (int op = 0; op < HS_F_COUNT_; op++) seen[op] |= hs_formula_has_op(f, (hs_fop)op);
    hs_formula_free(f);
  }
  for (int op = 0; op < HS_F_COUNT_; op++)
    if (!seen[op]) fail_msg("op %d missing from the suite", op);
  free_suite(&s);
}

/* ------------------------------------------------ random formulas, fuzz */

static const char *const gen_atoms[6] = {"a", "b", "c", "'#'", "'0'", "' '"};


static void test_random_roundtrip(void **state) {
  (void)state;
  hs_rng r = {12345};
  sbuf b = {NULL, 0, 0};
  for (int it = 0; it < 3000; it++) {
    b.n = 0;
    sput(&b, "");
    hs_gen_formula(&r, &b, 1 + it % 6, gen_atoms, 4);
    hs_error e;
    hs_formula *f = hs_formula_parse(b.s, &e);
    if (!f) fail_msg("\"%s\": %s", b.s, e.msg);
    check_invariants(f);
    check_roundtrip(f);
    assert_string_equal(f->text, b.s);
    hs_formula_free(f);
  }
  free(b.s);
}

static void check_fuzz_result(const char *s, hs_formula *f, const hs_error *e) {
  size_t len = strlen(s);
  if (f) {
    check_invariants(f);
    check_roundtrip(f);
    hs_formula_free(f);
    return;
  }
  assert_true(e->msg[0] != 0);
  assert_null(strchr(e->msg, '\n'));
  if (e->column < 0 || e->column > (int)len + 1)
    fail_msg("column %d out of range for \"%s\" (%s)", e->column, s, e->msg);
  if (e->column == 0)
    assert_true(!strcmp(e->msg, "empty formula"));
}

static void test_fuzz_bytes(void **state) {
  (void)state;
  hs_rng r = {777};
  char s[80];
  static const char spice[] = "abcXYFGOHUS!&|-<>=()#@'*+, 0123456789";
  int parsed = 0;
  for (int it = 0; it < 20000; it++) {
    size_t len = hs_rng_next(&r) % 64;
    for (size_t i = 0; i < len; i++)
      s[i] = it % 2 ? (char)(1 + hs_rng_next(&r) % 255)
                    : spice[hs_rng_next(&r) % (sizeof spice - 1)];
    s[len] = 0;
    hs_error e;
    hs_formula *f = hs_formula_parse(s, &e);
    parsed += f != NULL;
    check_fuzz_result(s, f, &e);
  }
  assert_true(parsed > 0);
}

static void test_fuzz_tokens(void **state) {
  (void)state;
  static const char *const tok[] = {
    "a", "b", "'#'", "'0'", "true", "false", "!", "&", "|", "->", "<->",
    "X", "Y", "F", "G", "O", "H", "U", "S", "@first", "@last", "@mod(2,1)",
    "@mod(", ",", "(", ")", "(", ")", "#<(", "#>(", "1", "2", "*", "+", "-",
    "<", "<=", "=", "!=", ">=", ">", "9223372036854775807", "ab", "'", "@",
  };
  size_t ntok = sizeof tok / sizeof *tok;
  hs_rng r = {4242};
  char s[512];
  int parsed = 0;
  for (int it = 0; it < 30000; it++) {
    size_t p = 0, nt = 1 + hs_rng_next(&r) % 24;
    for (size_t i = 0; i < nt; i++) {
      const char *t = tok[hs_rng_next(&r) % ntok];
      size_t l = strlen(t);
      memcpy(s + p, t, l);
      p += l;
      if (hs_rng_next(&r) % 3) s[p++] = ' ';
    }
    s[p] = 0;
    hs_error e;
    hs_formula *f = hs_formula_parse(s, &e);
    parsed += f != NULL;
    check_fuzz_result(s, f, &e);
  }
  assert_true(parsed > 100);
}

/* The one interning path: after parsing (which compacts the DAG and
 * drops the index), hs_formula_intern rebuilds the index and finds every
 * parsed node; a new node is added once. */
static void test_intern_after_parse(void **state) {
  (void)state;
  hs_error e;
  hs_formula *f = hs_formula_parse("(a S b) & X (a S b) | !c", &e);
  assert_non_null(f);
  int32_t n0 = f->count;
  for (int32_t i = 0; i < n0; i++) {
    hs_node n = f->nodes[i];
    assert_int_equal(hs_formula_intern(f, &n), i);
  }
  assert_int_equal(f->count, n0);
  hs_node y = {.op = HS_F_YESTERDAY, .a = f->root, .b = -1};
  int32_t id = hs_formula_intern(f, &y);
  assert_int_equal(id, n0);
  assert_int_equal(hs_formula_intern(f, &y), id);
  assert_int_equal(f->count, n0 + 1);
  hs_formula_free(f);
}

/* A message that fills hs_error is cut at a space, never inside a word
 * (hs_cut_whole, which every library message goes through). */
static void test_messages_cut_whole(void **state) {
  (void)state;
  char words[600] = "";
  while (strlen(words) < 500) strcat(words, "counting comparison ");
  hs_error e;
  hs_errorf(&e, HS_ERR_ARG, "%s", words);
  size_t n = strlen(e.msg);
  assert_true(n < sizeof e.msg && n > 200);
  assert_string_equal(e.msg + n - 4, " ...");
  assert_memory_equal(e.msg, words, n - 4);
  assert_true(words[n - 4] == ' '); /* the cut fell between words */
  hs_errorf(&e, HS_ERR_ARG, "short");
  assert_string_equal(e.msg, "short");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_precedence),
    cmocka_unit_test(test_shapes),
    cmocka_unit_test(test_hash_consing),
    cmocka_unit_test(test_intern_after_parse),
    cmocka_unit_test(test_cmp_normalise),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_messages_cut_whole),
    cmocka_unit_test(test_nesting_limits),
    cmocka_unit_test(test_long_input),
    cmocka_unit_test(test_print),
    cmocka_unit_test(test_queries),
    cmocka_unit_test(test_suite_file),
    cmocka_unit_test(test_random_roundtrip),
    cmocka_unit_test(test_fuzz_bytes),
    cmocka_unit_test(test_fuzz_tokens),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
