/* SPDX-License-Identifier: MIT */
/* Lexer and recursive-descent parser of C-RASP programs (docs/LANGUAGE.md,
 * "C-RASP programs"), with the types checked as the tree is built.
 *
 *   program   := { [statement] [comment] newline }
 *   statement := '#import' NAME | NAME '=' expr
 *   expr      := and { '||' and }
 *   and       := cmp { '&&' cmp }
 *   cmp       := cond [ ('<'|'>'|'=='|'!='|'<='|'>=') cond ]
 *   cond      := sum [ 'if' expr 'else' cond ]
 *   sum       := term { ('+'|'-') term }          left associative
 *   term      := unary [ '*' term ]               left side an integer
 *   unary     := '!' unary | '#' [ '[' NAME ']' ] unary | primary
 *   primary   := STRING | INT | 'true' | 'false' | NAME
 *              | ('min'|'max') '(' expr ',' expr ')' | '(' expr ')'
 *
 * The reference grammar (coli-saar/c-rasp, antlr/crasp.g4) is ambiguous and
 * ANTLR resolves it by the order of its alternatives, which makes `!x && y`
 * mean `!(x && y)`, `a - b + c` mean `a - (b + c)` and `2*a + b` mean
 * `2*(a + b)`; here the precedence is the ordinary one (docs/LANGUAGE.md
 * lists the differences). Names, keywords and tokens are the reference's:
 * NAME [a-zA-Z_][a-zA-Z_0-9]*, keywords true false if else min max,
 * STRING '"' any characters but '"' and newline '"', INT [0-9]+.
 *
 * Predicates (#import NAME): `pred` and `predK` (K = 1..256; each is K
 * layers) are the binary predicates j = i - K of `#[predK] b`; `pos_even`,
 * `pos_odd` and `pos_modK_R` (0 <= R < K <= 65536, no leading zeros) are
 * the unary predicates i mod 2 = 0,
 * i mod 2 = 1 and i mod K = R, positions i counted from 0 as the reference
 * does. Anything else is an unknown predicate.
 *
 * Errors are one line "<what> at line L, column C" (the byte column,
 * 1-based); the first error stops the parse. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/names.h"
#include "base/text.h"
#include "lang/crasp/ast.h"
#include "lang/ltl/formula.h"

#define BOUND_MAX CR_BOUND_MAX /* integers stay below it; bounds saturate at it */
#define PRED_MAX 65536  /* periods of pos_modK_R */
#define SHIFT_MAX 256   /* predK: K nested Y, one layer each */

typedef enum tk {
  K_END, K_NL, K_NAME, K_STR, K_INT, K_IMPORT, K_HASH, K_LB, K_RB, K_LP,
  K_RP, K_COMMA, K_ASSIGN, K_NOT, K_AND, K_OR, K_PLUS, K_MINUS, K_TIMES,
  K_REL, K_TRUE, K_FALSE, K_IF, K_ELSE, K_MIN, K_MAX
} tk;

typedef struct token {
  tk k;
  size_t pos, len;
  int rel;     /* K_REL */
  int64_t v;   /* K_INT */
  int line, col;
} token;

typedef struct import {
  char *name;
  int binary;          /* 1: #[name] guard j = i - shift */
  int64_t shift, k, r; /* unary: i mod k = r */
} import;

typedef struct parser {
  hs_cursor cur;
  const char *s;   /* cur.s: the text, for the scanners */
  token tok;
  hs_crasp *p;
  hs_vocab *vocab;
  int depth;
  import *imp;
  int nimp, capimp;
  /* a name's id is k >= 0 for statement k, -(k+1) for import k */
  hs_names names;
} parser;

static int failat(parser *P, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int failat(parser *P, int line, int col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hs_cursor_vfail(&P->cur, HS_ERR_PARSE, (hs_textpos){0, line, col}, fmt, ap);
  va_end(ap);
  return -1;
}

static int oom_at(parser *P, int line, int col) {
  return hs_cursor_fail(&P->cur, HS_ERR_NOMEM, (hs_textpos){0, line, col}, "out of memory");
}
static int oom(parser *P) { return oom_at(P, P->tok.line, P->tok.col); }

/* At the current token, and at byte pos of the current line. */
#define FAIL(P, ...) failat(P, (P)->tok.line, (P)->tok.col, __VA_ARGS__)
#define FAIL_AT(P, pos, ...)                                                   \
  failat(P, (P)->cur.line, hs_cursor_at(&(P)->cur, pos).column, __VA_ARGS__)

static int is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static const char *describe(const parser *P, char *buf, size_t len) {
  const token *t = &P->tok;
  if (t->k == K_END) return "end of input";
  if (t->k == K_NL) return "end of line";
  snprintf(buf, len, "'%.*s'", t->len > 24 ? 24 : (int)t->len, P->s + t->pos);
  return buf;
}

static int kw(const char *w, size_t n, const char *k) {
  return strlen(k) == n && memcmp(w, k, n) == 0;
}

/* The current token, starting where the cursor is. */
static void settok(parser *P, tk k, size_t len, int rel, int64_t v) {
  P->tok.k = k;
  P->tok.len = len;
  P->tok.rel = rel;
  P->tok.v = v;
}

static int lex_number(parser *P, size_t i) {
  size_t j = i;
  int64_t v = 0;
  while (j < P->cur.n && is_digit(P->s[j])) {
    if (v > (BOUND_MAX - 1 - (P->s[j] - '0')) / 10)
      return FAIL(P, "integer too large (the limit is 2^31 - 1)");
    v = v * 10 + (P->s[j++] - '0');
  }
  if (j < P->cur.n && is_alpha(P->s[j]))
    return FAIL_AT(P, j, "a name cannot start with a digit");
  settok(P, K_INT, j - i, 0, v);
  return 0;
}

static int lex_string(parser *P, size_t i) {
  size_t j = i + 1;
  while (j < P->cur.n && P->s[j] != '"' && P->s[j] != '\n') j++;
  if (j >= P->cur.n || P->s[j] != '"') return FAIL(P, "unterminated token string");
  for (size_t q = i + 1; q < j; q++)
    if (P->s[q] == ' ' || P->s[q] == '\t' || P->s[q] == '\r' ||
        P->s[q] == '\v' || P->s[q] == '\f')
      return FAIL(P, "a token cannot contain whitespace (inputs are "
                  "whitespace-separated tokens)");
  if (j == i + 1) return FAIL(P, "empty token \"\"");
  settok(P, K_STR, j + 1 - i, 0, 0);
  return 0;
}

/* Two-character operators first, then one-character ones. */
static int lex_op(parser *P, size_t i) {
  static const struct { const char *t; tk k; int rel; } ops[] = {
      {"&&", K_AND, 0}, {"||", K_OR, 0}, {"==", K_REL, HS_REL_EQ},
      {"!=", K_REL, HS_REL_NE}, {"<=", K_REL, HS_REL_LE},
      {">=", K_REL, HS_REL_GE}, {"<", K_REL, HS_REL_LT},
      {">", K_REL, HS_REL_GT}, {"!", K_NOT, 0}, {"=", K_ASSIGN, 0},
      {"+", K_PLUS, 0}, {"-", K_MINUS, 0}, {"*", K_TIMES, 0},
      {"(", K_LP, 0}, {")", K_RP, 0}, {"[", K_LB, 0}, {"]", K_RB, 0},
      {",", K_COMMA, 0}};
  for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
    size_t l = strlen(ops[o].t);
    if (i + l <= P->cur.n && memcmp(P->s + i, ops[o].t, l) == 0) {
      settok(P, ops[o].k, l, ops[o].rel, 0);
      return 0;
    }
  }
  unsigned char c = (unsigned char)P->s[i];
  if (c >= 0x20 && c < 0x7f) return FAIL(P, "unexpected character '%c'", c);
  return FAIL(P, "unexpected byte 0x%02x", c);
}

/* A keyword, or a name. */
static void lex_word(parser *P, size_t i) {
  static const struct { const char *w; tk k; } kws[] = {
      {"true", K_TRUE}, {"false", K_FALSE}, {"if", K_IF}, {"else", K_ELSE},
      {"min", K_MIN}, {"max", K_MAX}};
  size_t j = i;
  while (j < P->cur.n && (is_alpha(P->s[j]) || is_digit(P->s[j]))) j++;
  tk k = K_NAME;
  for (size_t q = 0; q < sizeof kws / sizeof *kws; q++)
    if (kw(P->s + i, j - i, kws[q].w)) k = kws[q].k;
  settok(P, k, j - i, 0, 0);
}

static int lex(parser *P) {
  static const char *const comments[] = {"//", NULL};
  if (P->cur.failed) return -1;
  hs_cursor_skip(&P->cur, " \t\r", comments);
  size_t i = P->cur.pos;
  hs_textpos at = hs_cursor_here(&P->cur);
  P->tok.pos = i;
  P->tok.line = at.line;
  P->tok.col = at.column;
  int c = hs_cursor_peek(&P->cur, 0);
  if (c < 0) {
    settok(P, K_END, 0, 0, 0);
  } else if (c == '\n') {
    settok(P, K_NL, 1, 0, 0);
  } else if (is_alpha((char)c)) {
    lex_word(P, i);
  } else if (is_digit((char)c)) {
    if (lex_number(P, i)) return -1;
  } else if (c == '"') {
    if (lex_string(P, i)) return -1;
  } else if (c == '#') {
    size_t j = i + 1;
    while (j < P->cur.n && (is_alpha(P->s[j]) || is_digit(P->s[j]))) j++;
    int imp = kw(P->s + i + 1, j - i - 1, "import");
    settok(P, imp ? K_IMPORT : K_HASH, imp ? j - i : 1, 0, 0);
  } else if (lex_op(P, i)) {
    return -1;
  }
  hs_cursor_advance(&P->cur, P->tok.len);
  return 0;
}

/* ------------------------------------------------------------ the tree */

static int32_t node(parser *P, cr_kind k, int is_bool, int line, int col) {
  hs_crasp *p = P->p;
  cr_node *nn = hs_lang_grow(p->nodes, p->nnodes, &p->capnodes, sizeof *nn);
  if (!nn) return oom_at(P, line, col);
  p->nodes = nn;
  cr_node *x = &p->nodes[p->nnodes];
  memset(x, 0, sizeof *x);
  x->k = k;
  x->a = x->b = x->c = x->var = -1;
  x->is_bool = is_bool;
  x->line = line;
  x->col = col;
  return p->nnodes++;
}

static const char *kind_word(int is_bool) { return is_bool ? "Boolean" : "count"; }

/* Child `id` must have the given type. */
static int want(parser *P, int32_t id, int is_bool) {
  const cr_node *x = &P->p->nodes[id];
  if (x->is_bool == is_bool) return 0;
  return failat(P, x->line, x->col, "%s used where a %s is expected",
                kind_word(x->is_bool), kind_word(is_bool));
}

static int64_t sat(int64_t x) { return x > BOUND_MAX ? BOUND_MAX : x; }

/* Fill the value bound of count node id from its children. */
static int bound(parser *P, int32_t id) {
  cr_node *x = &P->p->nodes[id];
  const cr_node *N = P->p->nodes;
  int64_t am = 0, ad = 0;
  switch (x->k) {
  case CR_INT: ad = x->v; break;
  case CR_CVAR: am = N[P->p->stmts[x->var].root].amul; ad = N[P->p->stmts[x->var].root].add; break;
  case CR_COUNT: am = 1; break;
  case CR_SHIFT: ad = 1; break;
  case CR_ADD: case CR_SUB: case CR_MIN: case CR_MAX:
    am = sat(N[x->a].amul + N[x->b].amul); ad = sat(N[x->a].add + N[x->b].add); break;
  case CR_MUL: am = sat(x->v * N[x->a].amul); ad = sat(x->v * N[x->a].add); break;
  case CR_IF:
    am = N[x->a].amul > N[x->c].amul ? N[x->a].amul : N[x->c].amul;
    ad = N[x->a].add > N[x->c].add ? N[x->a].add : N[x->c].add;
    break;
  default: return 0;
  }
  x->amul = am;
  x->add = ad;
  return 0;
}

static int32_t bin(parser *P, cr_kind k, int32_t a, int32_t b, int is_bool,
                   int line, int col) {
  int32_t id = node(P, k, is_bool, line, col);
  if (id < 0) return -1;
  P->p->nodes[id].a = a;
  P->p->nodes[id].b = b;
  if (!is_bool && bound(P, id)) return -1;
  return id;
}

static int enter(parser *P) {
  if (++P->depth > hs_get_limits().max_depth) {
    FAIL(P, "expression nested too deeply (limit max_depth)");
    return hs_error_limit(P->cur.err, HS_LIMIT_MAX_DEPTH);
  }
  return 0;
}

static int expect(parser *P, tk k, const char *what) {
  char buf[40];
  if (P->tok.k != k) return FAIL(P, "expected %s, got %s", what, describe(P, buf, sizeof buf));
  return lex(P);
}

static int32_t parse_expr(parser *P);
static int32_t parse_cond(parser *P);
static int32_t parse_unary(parser *P);

static const char *entry_name(const parser *P, int32_t e) {
  return e >= 0 ? P->p->stmts[e].name : P->imp[-(e + 1)].name;
}

/* The entry of a name, or INT32_MIN. */
static int32_t name_find(const parser *P, const char *s, size_t n) {
  return hs_names_find(&P->names, s, n, INT32_MIN);
}

static int name_add(parser *P, int32_t e) {
  const char *nm = entry_name(P, e);
  if (hs_names_add(&P->names, nm, strlen(nm), e)) return oom(P);
  return 0;
}

static const import *find_import(const parser *P, const char *s, size_t n) {
  int32_t e = name_find(P, s, n);
  return e != INT32_MIN && e < 0 ? &P->imp[-(e + 1)] : NULL;
}

static int find_stmt(const parser *P, const char *s, size_t n) {
  int32_t e = name_find(P, s, n);
  return e >= 0 ? e : -1;
}

static int defined(const parser *P, const char *s, size_t n) {
  return name_find(P, s, n) != INT32_MIN;
}

static int32_t parse_name(parser *P) {
  token t = P->tok;
  int line = t.line, col = t.col;
  const import *im = find_import(P, P->s + t.pos, t.len);
  int st = find_stmt(P, P->s + t.pos, t.len);
  if (im && im->binary)
    return FAIL(P, "'%.*s' is a binary predicate: use it as #[%.*s] b",
                (int)t.len, P->s + t.pos, (int)t.len, P->s + t.pos);
  if (!im && st < 0) {
    /* names are parsed only inside an assignment, whose statement waits
     * at index nstmts (parse_assign) */
    if (kw(P->s + t.pos, t.len, P->p->stmts[P->p->nstmts].name))
      return FAIL(P, "'%.*s' used in its own definition", (int)t.len, P->s + t.pos);
    return FAIL(P, "undefined name '%.*s'", (int)(t.len > 64 ? 64 : t.len), P->s + t.pos);
  }
  if (lex(P)) return -1;
  if (im) {
    int32_t id = node(P, CR_MODP, 1, line, col);
    if (id < 0) return -1;
    P->p->nodes[id].mk = im->k;
    P->p->nodes[id].mr = im->r;
    return id;
  }
  int b = P->p->stmts[st].is_bool;
  int32_t id = node(P, b ? CR_BVAR : CR_CVAR, b, line, col);
  if (id < 0) return -1;
  P->p->nodes[id].var = st;
  if (!b && bound(P, id)) return -1;
  return id;
}

static int32_t parse_minmax(parser *P) {
  cr_kind k = P->tok.k == K_MIN ? CR_MIN : CR_MAX;
  int line = P->tok.line, col = P->tok.col;
  if (lex(P) || expect(P, K_LP, "'(' after min/max")) return -1;
  int32_t a = parse_expr(P);
  if (a < 0 || want(P, a, 0) || expect(P, K_COMMA, "','")) return -1;
  int32_t b = parse_expr(P);
  if (b < 0 || want(P, b, 0) || expect(P, K_RP, "')'")) return -1;
  return bin(P, k, a, b, 0, line, col);
}

static int32_t parse_primary(parser *P) {
  char buf[40];
  token t = P->tok;
  int line = t.line, col = t.col;
  int32_t id;
  switch (t.k) {
  case K_STR: {
    int b = hs_vocab_add(P->vocab, P->s + t.pos + 1, t.len - 2);
    if (b == HS_VOCAB_NOMEM) return oom(P);
    if (b < 0) return FAIL(P, "too many distinct tokens (at most 255)");
    if ((id = node(P, CR_TOK, 1, line, col)) < 0) return -1;
    P->p->nodes[id].v = b;
    return lex(P) ? -1 : id;
  }
  case K_INT:
    if ((id = node(P, CR_INT, 0, line, col)) < 0) return -1;
    P->p->nodes[id].v = t.v;
    P->p->nodes[id].add = t.v;
    return lex(P) ? -1 : id;
  case K_TRUE: case K_FALSE:
    if ((id = node(P, t.k == K_TRUE ? CR_TRUE : CR_FALSE, 1, line, col)) < 0) return -1;
    return lex(P) ? -1 : id;
  case K_NAME: return parse_name(P);
  case K_MIN: case K_MAX: return parse_minmax(P);
  case K_LP:
    if (lex(P) || (id = parse_expr(P)) < 0) return -1;
    if (P->tok.k != K_RP)
      return FAIL(P, "expected ')' (to close the '(' at column %d), got %s",
                  col, describe(P, buf, sizeof buf));
    return lex(P) ? -1 : id;
  default:
    return FAIL(P, "expected an expression, got %s", describe(P, buf, sizeof buf));
  }
}

/* '#' [ '[' NAME ']' ] unary */
static int32_t parse_count(parser *P) {
  int line = P->tok.line, col = P->tok.col;
  int64_t shift = 0;
  if (lex(P)) return -1;
  if (P->tok.k == K_LB) {
    if (lex(P)) return -1;
    if (P->tok.k != K_NAME) return FAIL(P, "expected a predicate name after '#['");
    const import *im = find_import(P, P->s + P->tok.pos, P->tok.len);
    if (!im)
      return FAIL(P, "'%.*s' is not an imported predicate (#import it first)",
                  (int)(P->tok.len > 64 ? 64 : P->tok.len), P->s + P->tok.pos);
    if (!im->binary)
      return FAIL(P, "'%s' is a unary predicate, not a guard of #[...]", im->name);
    shift = im->shift;
    if (lex(P) || expect(P, K_RB, "']'")) return -1;
  }
  int32_t a = parse_unary(P);
  if (a < 0 || want(P, a, 1)) return -1;
  int32_t id = bin(P, shift ? CR_SHIFT : CR_COUNT, a, -1, 0, line, col);
  if (id >= 0) P->p->nodes[id].v = shift;
  if (id >= 0 && bound(P, id)) return -1;
  return id;
}

static int32_t parse_unary(parser *P) {
  if (enter(P)) return -1;
  int32_t id;
  int line = P->tok.line, col = P->tok.col;
  if (P->tok.k == K_NOT) {
    int32_t a;
    if (lex(P) || (a = parse_unary(P)) < 0 || want(P, a, 1)) return -1;
    id = bin(P, CR_NOT, a, -1, 1, line, col);
  } else if (P->tok.k == K_HASH) {
    id = parse_count(P);
  } else {
    id = parse_primary(P);
  }
  P->depth--;
  return id;
}

/* unary [ '*' term ]: only an integer times a count. */
static int32_t parse_term(parser *P) {
  int line = P->tok.line, col = P->tok.col;
  int32_t a = parse_unary(P);
  if (a < 0 || P->tok.k != K_TIMES) return a;
  if (P->p->nodes[a].k != CR_INT)
    return FAIL(P, "'*' multiplies an integer and a count (write k * count)");
  if (enter(P) || lex(P)) return -1;
  int32_t b = parse_term(P);
  P->depth--;
  if (b < 0 || want(P, b, 0)) return -1;
  int32_t id = bin(P, CR_MUL, b, -1, 0, line, col);
  if (id < 0) return -1;
  P->p->nodes[id].v = P->p->nodes[a].v;
  return bound(P, id) ? -1 : id;
}

static int32_t parse_sum(parser *P) {
  int32_t a = parse_term(P);
  while (a >= 0 && (P->tok.k == K_PLUS || P->tok.k == K_MINUS)) {
    cr_kind k = P->tok.k == K_PLUS ? CR_ADD : CR_SUB;
    int line = P->tok.line, col = P->tok.col;
    int32_t b;
    if (want(P, a, 0) || lex(P) || (b = parse_term(P)) < 0 || want(P, b, 0)) return -1;
    a = bin(P, k, a, b, 0, line, col);
  }
  return a;
}

/* sum [ 'if' expr 'else' cond ] */
static int32_t parse_cond(parser *P) {
  int32_t a = parse_sum(P);
  if (a < 0 || P->tok.k != K_IF) return a;
  int line = P->tok.line, col = P->tok.col;
  int32_t b, c;
  if (want(P, a, 0) || enter(P) || lex(P)) return -1;
  if ((b = parse_expr(P)) < 0 || want(P, b, 1)) return -1;
  if (expect(P, K_ELSE, "'else'") || (c = parse_cond(P)) < 0 || want(P, c, 0)) return -1;
  P->depth--;
  int32_t id = node(P, CR_IF, 0, line, col);
  if (id < 0) return -1;
  P->p->nodes[id].a = a;
  P->p->nodes[id].b = b;
  P->p->nodes[id].c = c;
  return bound(P, id) ? -1 : id;
}

static int32_t parse_cmp(parser *P) {
  int32_t a = parse_cond(P);
  if (a < 0 || P->tok.k != K_REL) return a;
  int rel = P->tok.rel, line = P->tok.line, col = P->tok.col;
  int32_t b;
  if (want(P, a, 0) || lex(P) || (b = parse_cond(P)) < 0 || want(P, b, 0)) return -1;
  if (P->tok.k == K_REL)
    return FAIL(P, "comparisons do not chain (use && between two)");
  int32_t id = bin(P, CR_CMP, a, b, 1, line, col);
  if (id >= 0) P->p->nodes[id].rel = rel;
  return id;
}

static int32_t parse_and(parser *P) {
  int32_t a = parse_cmp(P);
  while (a >= 0 && P->tok.k == K_AND) {
    int line = P->tok.line, col = P->tok.col;
    int32_t b;
    if (want(P, a, 1) || lex(P) || (b = parse_cmp(P)) < 0 || want(P, b, 1)) return -1;
    a = bin(P, CR_AND, a, b, 1, line, col);
  }
  return a;
}

static int32_t parse_expr(parser *P) {
  if (enter(P)) return -1;
  int32_t a = parse_and(P);
  while (a >= 0 && P->tok.k == K_OR) {
    int line = P->tok.line, col = P->tok.col;
    int32_t b;
    if (want(P, a, 1) || lex(P) || (b = parse_and(P)) < 0 || want(P, b, 1)) return -1;
    a = bin(P, CR_OR, a, b, 1, line, col);
  }
  P->depth--;
  return a;
}

/* ------------------------------------------------------------ statements */

/* The predicate a name imports: 0, or -1 when unknown. */
static int predicate(const char *s, size_t n, import *im) {
  char buf[64];
  if (n >= sizeof buf) return -1;
  memcpy(buf, s, n);
  buf[n] = 0;
  long long a, b;
  int used = 0;
  memset(im, 0, sizeof *im);
  if (!strcmp(buf, "pred")) { im->binary = 1; im->shift = 1; return 0; }
  if (sscanf(buf, "pred%lld%n", &a, &used) == 1 && (size_t)used == n &&
      is_digit(buf[4]) && buf[4] != '0' && a >= 1 && a <= SHIFT_MAX) {
    im->binary = 1; im->shift = a; return 0;
  }
  if (!strcmp(buf, "pos_even")) { im->k = 2; im->r = 0; return 0; }
  if (!strcmp(buf, "pos_odd")) { im->k = 2; im->r = 1; return 0; }
  if (sscanf(buf, "pos_mod%lld_%lld%n", &a, &b, &used) == 2 && (size_t)used == n &&
      is_digit(buf[7]) && a >= 1 && a <= PRED_MAX && b >= 0 && b < a) {
    char canon[64];
    snprintf(canon, sizeof canon, "pos_mod%lld_%lld", a, b);
    if (strcmp(canon, buf)) return -1; /* no leading zeros or signs */
    im->k = a; im->r = b; return 0;
  }
  return -1;
}

static int parse_import(parser *P) {
  if (lex(P)) return -1;
  if (P->tok.k != K_NAME) return FAIL(P, "expected a predicate name after #import");
  token t = P->tok;
  import im;
  if (predicate(P->s + t.pos, t.len, &im))
    return FAIL(P, "unknown predicate '%.*s' (known: pred, predK, pos_even, "
                "pos_odd, pos_modK_R)", (int)(t.len > 64 ? 64 : t.len), P->s + t.pos);
  /* importing a predicate again changes nothing (the reference
   * interpreter accepts it too); only a statement of that name clashes */
  if (find_import(P, P->s + t.pos, t.len)) return lex(P);
  if (defined(P, P->s + t.pos, t.len))
    return FAIL(P, "'%.*s' is already defined", (int)t.len, P->s + t.pos);
  if (P->nimp == P->capimp) {
    int cap = P->capimp ? 2 * P->capimp : 8;
    import *ni = realloc(P->imp, (size_t)cap * sizeof *ni);
    if (!ni) return oom(P);
    P->imp = ni;
    P->capimp = cap;
  }
  if (!(im.name = strndup(P->s + t.pos, t.len))) return oom(P);
  P->imp[P->nimp++] = im;
  return name_add(P, -P->nimp) ? -1 : lex(P);
}

static int parse_assign(parser *P) {
  hs_crasp *p = P->p;
  token t = P->tok;
  int line = t.line, col = t.col;
  if (defined(P, P->s + t.pos, t.len))
    return FAIL(P, "'%.*s' is already defined (names are assigned once)",
                (int)(t.len > 64 ? 64 : t.len), P->s + t.pos);
  if (p->nstmts + 1 >= p->capstmts) {
    int32_t cap = p->capstmts ? 2 * p->capstmts : 16;
    cr_stmt *ns = realloc(p->stmts, (size_t)cap * sizeof *ns);
    if (!ns) return oom(P);
    /* zeroed: hs_crasp_free looks at the slot past the last statement */
    memset(ns + p->capstmts, 0, (size_t)(cap - p->capstmts) * sizeof *ns);
    p->stmts = ns;
    p->capstmts = cap;
  }
  /* the statement being defined sits one past the end while its
   * expression is parsed, so a self-reference gets its own message */
  cr_stmt *s = &p->stmts[p->nstmts];
  memset(s, 0, sizeof *s);
  if (!(s->name = strndup(P->s + t.pos, t.len))) return oom(P);
  s->line = line;
  s->col = col;
  s->first = p->nnodes;
  if (lex(P)) return -1;
  if (P->tok.k != K_ASSIGN) {
    char buf[40];
    return FAIL(P, "expected '=' after the name '%.*s', got %s",
                (int)(t.len > 64 ? 64 : t.len), P->s + t.pos, describe(P, buf, sizeof buf));
  }
  if (lex(P)) return -1;
  int32_t root = parse_expr(P);
  if (root < 0) return -1;
  s->root = root;
  s->is_bool = p->nodes[root].is_bool;
  p->nstmts++;
  return name_add(P, p->nstmts - 1);
}

static int parse_line(parser *P) {
  char buf[40];
  if (P->tok.k == K_IMPORT) {
    if (parse_import(P)) return -1;
  } else if (P->tok.k == K_NAME) {
    if (parse_assign(P)) return -1;
  } else if (P->tok.k != K_NL && P->tok.k != K_END) {
    return FAIL(P, "expected a statement NAME = expression or #import NAME, "
                "got %s", describe(P, buf, sizeof buf));
  }
  if (P->tok.k == K_NL) return lex(P);
  if (P->tok.k != K_END)
    return FAIL(P, "unexpected %s (one statement per line%s)",
                describe(P, buf, sizeof buf),
                P->tok.k == K_RP ? "; no matching '('" : "; missing operator?");
  return 0;
}

void hs_crasp_free(hs_crasp *p) {
  if (!p) return;
  for (int32_t k = 0; k < p->nstmts; k++) free(p->stmts[k].name);
  /* a statement that failed half-way keeps its name one past the end */
  if (p->stmts && p->nstmts < p->capstmts) free(p->stmts[p->nstmts].name);
  free(p->stmts);
  free(p->nodes);
  free(p);
}

hs_crasp *hs_crasp_parse(const char *text, size_t len, hs_vocab *v,
                         hs_error *err) {
  hs_error dummy;
  if (!err) err = &dummy;
  memset(err, 0, sizeof *err);
  parser P;
  memset(&P, 0, sizeof P);
  P.vocab = v;
  if (!text || !v) {
    hs_errorf(err, HS_ERR_ARG, "no program");
    return NULL;
  }
  if (len > hs_get_limits().max_formula_len) {
    hs_errorf(err, HS_ERR_LIMIT, "program too long (%zu bytes; the "
             "limit is %zu) (limit max_formula_len)", len,
             hs_get_limits().max_formula_len);
    hs_error_limit(err, HS_LIMIT_MAX_FORMULA_LEN);
    return NULL;
  }
  const char *nul = memchr(text, 0, len);
  P.s = text;
  hs_cursor_init(&P.cur, text, nul ? (size_t)(nul - text) : len, 1, err);
  if (!(P.p = calloc(1, sizeof *P.p))) {
    hs_errorf(err, HS_ERR_NOMEM, "out of memory");
    return NULL;
  }
  if (lex(&P) == 0)
    while (P.tok.k != K_END && parse_line(&P) == 0) {}
  if (!P.cur.failed && nul) FAIL_AT(&P, P.cur.n, "NUL byte in the program");
  if (!P.cur.failed && P.p->nstmts == 0)
    hs_errorf(err, HS_ERR_PARSE, "empty program (no statement NAME = "
             "expression)"), P.cur.failed = 1;
  if (!P.cur.failed && !P.p->stmts[P.p->nstmts - 1].is_bool) {
    const cr_stmt *s = &P.p->stmts[P.p->nstmts - 1];
    failat(&P, s->line, s->col, "the last statement '%s' is the program's "
           "value and must be Boolean, not a count", s->name);
  }
  for (int q = 0; q < P.nimp; q++) free(P.imp[q].name);
  free(P.imp);
  hs_names_free(&P.names);
  if (P.cur.failed) {
    hs_crasp_free(P.p);
    return NULL;
  }
  return P.p;
}

int hs_crasp_nstmts(const hs_crasp *p) { return p ? p->nstmts : 0; }

const char *hs_crasp_stmt_name(const hs_crasp *p, int k) {
  return p && k >= 0 && k < p->nstmts ? p->stmts[k].name : NULL;
}
