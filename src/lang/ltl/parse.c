/* SPDX-License-Identifier: MIT */
/* Tokenizer and recursive-descent parser for the formula language of
 * docs/LANGUAGE.md, building a hash-consed DAG (src/lang/ltl/formula.h).
 *
 * Grammar (precedence loosest first; docs/LANGUAGE.md):
 *   formula := iff
 *   iff     := imp ('<->' imp)*              left associative
 *   imp     := or ('->' imp)?                right associative
 *   or      := and ('|' and)*                left
 *   and     := us ('&' us)*                  left
 *   us      := unary (('U'|'S') us)?         right, U and S one level
 *   unary   := ('!'|'X'|'Y'|'F'|'G'|'O'|'H') unary | primary
 *   primary := atom | 'true' | 'false' | '@first' | '@last'
 *            | '@mod' '(' int ',' int ')' | '(' formula ')' | term rel term
 *   term    := ['-'] factor (('+'|'-') factor)*
 *   factor  := int | count | int '*' count
 *   count   := '#<' '(' formula ')' | '#>' '(' formula ')'
 *   rel     := '<' | '<=' | '=' | '!=' | '>=' | '>'
 * The binary levels are parsed by precedence climbing (one function), so a
 * parenthesis costs three stack frames, not seven.
 *
 * Decisions the grammar alone does not settle (docs/LANGUAGE.md repeats them):
 *  - Whitespace is space, \t, \n, \r, \v, \f. Tokens need no separating
 *    whitespace: `aUb`, `GFa`, `!Xa` are fine. A run of two or more
 *    lowercase letters is one word; only `true` and `false` are words, so
 *    `ab` is an error, not `a b`. Uppercase letters other than the
 *    operators X Y F G O H U S are errors (quote them: 'A').
 *  - A quoted atom is one printable ASCII character 0x20..0x7e (space
 *    included) other than ' and \ between single quotes. Quoting a
 *    lowercase letter is allowed and is the same atom: 'a' = a.
 *  - `@mod(k,r)` needs k >= 1 and r >= 0; r >= k is accepted
 *    and is false at every position (i mod k < k). No whitespace rules
 *    beyond the global ones: `@mod ( 3 , 1 )` is fine, but `@`, `#<` and
 *    `#>` are single tokens (`# <` is an error).
 *  - A term may start with one unary minus: `-2*#<(a) + 3 > 0`. Only k*count
 *    is a product (not count*k, not k*k); terms take no parentheses.
 *  - Integers are decimal and must fit in int64; the normalised comparison
 *    sum coef*count + c REL 0 (like terms merged, zero coefficients
 *    dropped, terms sorted by (argument node, direction), sign chosen so
 *    the first coefficient is positive, flipping the relation) must have
 *    |c| <= INT64_MAX and sum |coef| <= INT64_MAX, so that the evaluator's
 *    128-bit sums cannot overflow for any string length.
 *  - A comparison whose counts all cancel (`3 > 2`, `#<(a) - #<(a) = 0`) is
 *    folded to `true` or `false`; the then-unused subformulas are dropped
 *    from the DAG, so every node is reachable from the root.
 *  - Limits (hs_get_limits): text up to max_formula_len bytes (16 MiB); at
 *    most max_depth (10000)
 *    levels of parser recursion (each parenthesis, prefix operator or
 *    right-hand side of a binary operator is one level, a counting term
 *    three) and a syntax tree at most 10000 deep (a chain of n binary
 *    operators is n deep), so neither the parser (< 5 MB of stack even
 *    under AddressSanitizer) nor a recursive walk of the DAG can overflow
 *    the stack. Beyond either: "formula nested too deeply at column N".
 *  - Errors are one line, "<what> at column N[ (hint)]" with N the 1-based
 *    byte column of the offending token (length+1 at end of input); column
 *    0 only for "empty formula", "no formula" (NULL text), "formula too
 *    long" and "out of memory". Nothing leaks on any error path.
 *  - Comparison terms are ordered by node index, so hash-consing shares
 *    equal comparisons within one formula; two formulas that number their
 *    nodes differently may list the same terms in another order.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "lang/ltl/formula.h"

#define HS_COUNT_NEST_COST 3
#define NOINLINE __attribute__((noinline))

typedef enum tok_kind {
  T_END, T_ATOM, T_TRUE, T_FALSE, T_NOT, T_AND, T_OR, T_IMP, T_IFF,
  T_X, T_Y, T_F, T_G, T_O, T_H, T_U, T_S, T_FIRST, T_LAST, T_MOD,
  T_LP, T_RP, T_COMMA, T_INT, T_CPAST, T_CFUT, T_STAR, T_PLUS, T_MINUS,
  T_LT, T_LE, T_EQ, T_NE, T_GE, T_GT, T_ERR
} tok_kind;

typedef struct token {
  tok_kind k;
  size_t pos, len; /* byte offset and length in the text */
  int64_t v;       /* T_INT */
  uint8_t sym;     /* T_ATOM */
} token;

typedef struct parser {
  hs_cursor cur;   /* a one-line text: columns count from its first byte */
  token tok;       /* current token (one token of lookahead) */
  hs_formula *f;
  int32_t *depth;  /* syntax-tree depth per node */
  size_t depthcap;
  int nest;        /* recursion levels in use */
} parser;

/* A counting term being accumulated: 128-bit so merging cannot overflow
 * before the final range check. */
typedef struct acc_term { int32_t arg; int past; hs_i128 coef; } acc_term;
typedef struct acc { acc_term *t; size_t n, cap; hs_i128 c; } acc;

static int col(size_t pos) { return (int)pos + 1; }

static NOINLINE int fail(parser *p, hs_errcode code, int column, const char *fmt, ...) {
  hs_textpos at = {column > 0 ? (size_t)column - 1 : 0, 0, column};
  va_list ap;
  va_start(ap, fmt);
  hs_cursor_vfail(&p->cur, code, at, fmt, ap);
  va_end(ap);
  return -1;
}

static int oom(parser *p) { return fail(p, HS_ERR_NOMEM, 0, "out of memory"); }

/* A token as quoted in an error message: its source text, truncated. */
static const char *describe(const parser *p, const token *t, char *buf,
                            size_t len) {
  if (t->k == T_END) return "end of formula";
  size_t L = t->len > 24 ? 24 : t->len;
  if (t->k == T_ATOM)
    snprintf(buf, len, "atom %.*s", (int)L, p->cur.s + t->pos);
  else if (t->k == T_INT)
    snprintf(buf, len, "integer %.*s%s", (int)L, p->cur.s + t->pos,
             t->len > L ? "..." : "");
  else
    snprintf(buf, len, "'%.*s'", (int)L, p->cur.s + t->pos);
  return buf;
}

/* ---------------------------------------------------------------- lexer */

/* Each lex_* scans one kind of token starting at s[i] into *t and *len
 * (the token's bytes); 0, or -1 with the error at its column. */

/* atoms (one lowercase letter), true, false */
static int lex_word(parser *p, size_t i, token *t, size_t *len) {
  const char *s = p->cur.s;
  size_t n = p->cur.n;
  while (i + *len < n && s[i + *len] >= 'a' && s[i + *len] <= 'z') ++*len;
  if (*len == 1) {
    t->k = T_ATOM;
    t->sym = (unsigned char)s[i];
  } else if (*len == 4 && !memcmp(s + i, "true", 4)) {
    t->k = T_TRUE;
  } else if (*len == 5 && !memcmp(s + i, "false", 5)) {
    t->k = T_FALSE;
  } else {
    return fail(p, HS_ERR_PARSE, col(i),
                "unknown word '%.*s%s' at column %d (atoms are single "
                "letters; quote other characters)",
                (int)(*len > 32 ? 32 : *len), s + i, *len > 32 ? "..." : "",
                col(i));
  }
  return 0;
}

/* the temporal operators X Y F G O H U S */
static int lex_upper(parser *p, size_t i, token *t) {
  unsigned char c = (unsigned char)p->cur.s[i];
  switch (c) {
  case 'X': t->k = T_X; break;
  case 'Y': t->k = T_Y; break;
  case 'F': t->k = T_F; break;
  case 'G': t->k = T_G; break;
  case 'O': t->k = T_O; break;
  case 'H': t->k = T_H; break;
  case 'U': t->k = T_U; break;
  case 'S': t->k = T_S; break;
  default:
    return fail(p, HS_ERR_PARSE, col(i),
                "unknown character '%c' at column %d (the uppercase "
                "letters are X Y F G O H U S; write the atom as '%c')",
                c, col(i), c);
  }
  return 0;
}

static int lex_int(parser *p, size_t i, token *t, size_t *len) {
  const char *s = p->cur.s;
  int64_t v = 0;
  for (*len = 0; i + *len < p->cur.n && s[i + *len] >= '0' && s[i + *len] <= '9'; ++*len) {
    int d = s[i + *len] - '0';
    if (v > (INT64_MAX - d) / 10)
      return fail(p, HS_ERR_LIMIT, col(i), "integer too large at column %d (the limit is "
                  "%lld)", col(i), (long long)INT64_MAX);
    v = v * 10 + d;
  }
  t->k = T_INT;
  t->v = v;
  return 0;
}

/* 'c': one printable character other than the quote and the backslash */
static int lex_quote(parser *p, size_t i, token *t, size_t *len) {
  size_t n = p->cur.n;
  if (i + 1 >= n)
    return fail(p, HS_ERR_PARSE, col(i), "unterminated quoted atom at column %d", col(i));
  unsigned char q = (unsigned char)p->cur.s[i + 1];
  if (q == '\'')
    return fail(p, HS_ERR_PARSE, col(i), "empty quoted atom at column %d", col(i));
  if (q == '\\')
    return fail(p, HS_ERR_PARSE, col(i + 1), "a backslash cannot be quoted at column %d "
                "(there is no escape syntax)", col(i + 1));
  if (q < 0x20 || q > 0x7e)
    return fail(p, HS_ERR_PARSE, col(i + 1), "quoted atom must be a printable ASCII "
                "character at column %d", col(i + 1));
  if (i + 2 >= n || p->cur.s[i + 2] != '\'')
    return fail(p, HS_ERR_PARSE, col(i + 2), "expected ' to close the quoted atom at "
                "column %d (a quoted atom is one character)", col(i + 2));
  t->k = T_ATOM;
  t->sym = q;
  *len = 3;
  return 0;
}

/* @first, @last, @mod */
static int lex_at(parser *p, size_t i, token *t, size_t *len) {
  const char *s = p->cur.s;
  while (i + *len < p->cur.n && s[i + *len] >= 'a' && s[i + *len] <= 'z') ++*len;
  if (*len == 6 && !memcmp(s + i, "@first", 6)) t->k = T_FIRST;
  else if (*len == 5 && !memcmp(s + i, "@last", 5)) t->k = T_LAST;
  else if (*len == 4 && !memcmp(s + i, "@mod", 4)) t->k = T_MOD;
  else
    return fail(p, HS_ERR_PARSE, col(i), "unknown position predicate '%.*s%s' at column "
                "%d (expected @first, @last or @mod(k,r))",
                (int)(*len > 32 ? 32 : *len), s + i, *len > 32 ? "..." : "",
                col(i));
  return 0;
}

/* operators and punctuation, the longest match first */
static int lex_punct(parser *p, size_t i, token *t, size_t *len) {
  unsigned char c = (unsigned char)p->cur.s[i];
  char n1 = i + 1 < p->cur.n ? p->cur.s[i + 1] : 0, n2 = i + 2 < p->cur.n ? p->cur.s[i + 2] : 0;
  switch (c) {
  case '\'': return lex_quote(p, i, t, len);
  case '@': return lex_at(p, i, t, len);
  case '!':
    if (n1 == '=') { t->k = T_NE; *len = 2; } else t->k = T_NOT;
    break;
  case '&': t->k = T_AND; break;
  case '|': t->k = T_OR; break;
  case '-':
    if (n1 == '>') { t->k = T_IMP; *len = 2; } else t->k = T_MINUS;
    break;
  case '<':
    if (n1 == '-' && n2 == '>') { t->k = T_IFF; *len = 3; }
    else if (n1 == '=') { t->k = T_LE; *len = 2; }
    else t->k = T_LT;
    break;
  case '>':
    if (n1 == '=') { t->k = T_GE; *len = 2; } else t->k = T_GT;
    break;
  case '=': t->k = T_EQ; break;
  case '(': t->k = T_LP; break;
  case ')': t->k = T_RP; break;
  case ',': t->k = T_COMMA; break;
  case '*': t->k = T_STAR; break;
  case '+': t->k = T_PLUS; break;
  case '#':
    if (n1 == '<') t->k = T_CPAST;
    else if (n1 == '>') t->k = T_CFUT;
    else
      return fail(p, HS_ERR_PARSE, col(i), "'#' must be followed by '<' or '>' at column "
                  "%d (counting terms are #<(...) and #>(...))", col(i));
    *len = 2;
    break;
  default:
    if (c >= 0x20 && c <= 0x7e)
      return fail(p, HS_ERR_PARSE, col(i), "unknown character '%c' at column %d", c, col(i));
    return fail(p, HS_ERR_PARSE, col(i), "unknown character 0x%02x at column %d", c, col(i));
  }
  return 0;
}

/* Scan the next token into p->tok. -1 (and T_ERR) on a lexical error. */
static NOINLINE int lex(parser *p) {
  hs_cursor_skip(&p->cur, " \t\n\r\v\f", NULL);
  size_t i = p->cur.pos;
  token t = {T_END, i, 0, 0, 0};
  p->tok.k = T_ERR;
  int c = hs_cursor_peek(&p->cur, 0);
  if (c < 0) {
    p->tok = t;
    return 0;
  }
  size_t len = 1;
  int rc = c >= 'a' && c <= 'z'   ? lex_word(p, i, &t, &len)
           : c >= 'A' && c <= 'Z' ? lex_upper(p, i, &t)
           : c >= '0' && c <= '9' ? lex_int(p, i, &t, &len)
                                  : lex_punct(p, i, &t, &len);
  if (rc) return -1;
  t.len = len;
  p->tok = t;
  hs_cursor_advance(&p->cur, len);
  return 0;
}

/* ------------------------------------------------------------- interning */

static int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }

/* Intern n (hash-consed); `pos` is the operator's offset for errors. */
static NOINLINE int32_t intern(parser *p, const hs_node *n, size_t pos) {
  hs_formula *f = p->f;
  int32_t d = 0;
  if (n->a >= 0) d = max32(d, p->depth[n->a]);
  if (n->b >= 0) d = max32(d, p->depth[n->b]);
  if (n->op == HS_F_CMP)
    for (int32_t t = 0; t < n->nterms; t++) d = max32(d, p->depth[n->terms[t].arg]);
  d++;
  if (d > hs_get_limits().max_depth) {
    fail(p, HS_ERR_LIMIT, col(pos), "formula nested too deeply at column %d (the "
         "limit is %d levels) (limit max_depth)", col(pos), hs_get_limits().max_depth);
    return hs_error_limit(p->cur.err, HS_LIMIT_MAX_DEPTH);
  }
  int32_t found = hs_formula_find(f, n);
  if (found != -1) return found >= 0 ? found : oom(p);
  if ((size_t)f->count >= p->depthcap) {
    size_t cap = p->depthcap ? p->depthcap * 2 : 64;
    int32_t *nd = realloc(p->depth, cap * sizeof *nd);
    if (!nd) return oom(p);
    p->depth = nd;
    p->depthcap = cap;
  }
  int32_t id = hs_formula_add(f, n);
  if (id < 0) return oom(p);
  p->depth[id] = d;
  return id;
}

static hs_node blank(hs_fop op) {
  hs_node n;
  memset(&n, 0, sizeof n);
  n.op = op;
  n.a = n.b = -1;
  return n;
}

static NOINLINE int32_t mk(parser *p, hs_fop op, int32_t a, int32_t b, size_t pos) {
  hs_node n = blank(op);
  n.a = a;
  n.b = b;
  return intern(p, &n, pos);
}

/* ---------------------------------------------------------------- parser */

static int next(parser *p) { return lex(p); }

/* One more nesting level (`cost` levels for a counting term, whose parse
 * goes through more, larger frames). */
static NOINLINE int enter(parser *p, int cost) {
  p->nest += cost;
  if (p->nest > hs_get_limits().max_depth) {
    fail(p, HS_ERR_LIMIT, col(p->tok.pos), "formula nested too deeply at column %d "
         "(the limit is %d levels) (limit max_depth)", col(p->tok.pos),
         hs_get_limits().max_depth);
    return hs_error_limit(p->cur.err, HS_LIMIT_MAX_DEPTH);
  }
  return 0;
}

static NOINLINE int expect(parser *p, tok_kind k, const char *what) {
  if (p->tok.k == k) return next(p);
  return fail(p, HS_ERR_PARSE, col(p->tok.pos), "expected %s at column %d", what,
              col(p->tok.pos));
}

static int32_t parse_bin(parser *p, int minlev);

/* '#<' '(' formula ')' or '#>' ...: the argument node, -1 on error. */
static int32_t parse_count(parser *p, int *past) {
  *past = p->tok.k == T_CPAST;
  if (next(p)) return -1;
  if (p->tok.k != T_LP)
    return fail(p, HS_ERR_PARSE, col(p->tok.pos), "expected '(' after '#%c' at column %d",
                *past ? '<' : '>', col(p->tok.pos));
  if (next(p) || enter(p, HS_COUNT_NEST_COST - 1)) return -1;
  int32_t a = parse_bin(p, 0);
  p->nest -= HS_COUNT_NEST_COST - 1;
  if (a < 0 || expect(p, T_RP, "')'")) return -1;
  return a;
}

static NOINLINE int add_term(parser *p, acc *A, int32_t arg, int past, hs_i128 coef) {
  if (A->n == A->cap) {
    size_t cap = A->cap ? A->cap * 2 : 8;
    acc_term *t = realloc(A->t, cap * sizeof *t);
    if (!t) return oom(p);
    A->t = t;
    A->cap = cap;
  }
  A->t[A->n++] = (acc_term){arg, past, coef};
  return 0;
}

/* factor := int | count | int '*' count, added to A with sign sgn. */
static int parse_factor(parser *p, acc *A, int sgn) {
  hs_i128 k = 1;
  if (p->tok.k == T_INT) {
    k = p->tok.v;
    if (next(p)) return -1;
    if (p->tok.k != T_STAR) {
      A->c += sgn * k;
      return 0;
    }
    if (next(p)) return -1;
    if (p->tok.k != T_CPAST && p->tok.k != T_CFUT)
      return fail(p, HS_ERR_PARSE, col(p->tok.pos), "expected a count #<(...) or #>(...) "
                  "after '*' at column %d", col(p->tok.pos));
  } else if (p->tok.k != T_CPAST && p->tok.k != T_CFUT) {
    if (p->tok.k == T_END)
      return fail(p, HS_ERR_PARSE, col(p->tok.pos), "unexpected end of formula at column %d "
                  "(expected an integer or a count)", col(p->tok.pos));
    return fail(p, HS_ERR_PARSE, col(p->tok.pos), "expected an integer or a count #<(...) "
                "or #>(...) at column %d", col(p->tok.pos));
  }
  int past;
  int32_t arg = parse_count(p, &past);
  if (arg < 0) return -1;
  return add_term(p, A, arg, past, sgn * k);
}

/* term := ['-'] factor (('+'|'-') factor)*, added to A times side. */
static int parse_term(parser *p, acc *A, int side) {
  int sgn = side;
  if (p->tok.k == T_MINUS) {
    sgn = -side;
    if (next(p)) return -1;
  }
  for (;;) {
    if (parse_factor(p, A, sgn)) return -1;
    if (p->tok.k == T_PLUS) sgn = side;
    else if (p->tok.k == T_MINUS) sgn = -side;
    else return 0;
    if (next(p)) return -1;
  }
}

static int cmp_acc(const void *x, const void *y) {
  const acc_term *a = x, *b = y;
  if (a->arg != b->arg) return a->arg < b->arg ? -1 : 1;
  return (a->past > b->past) - (a->past < b->past);
}

/* Normalise the accumulated comparison (A = left - right) to
 * sum coef*count + c REL 0 and intern it; frees nothing (caller owns A). */
static NOINLINE int32_t finish_cmp(parser *p, acc *A, hs_rel rel, size_t start) {
  /* Merge like terms (same argument, same direction), drop zeros. At most
   * 2^30 factors of magnitude < 2^63 each: the 128-bit sums are exact. */
  if (A->n) qsort(A->t, A->n, sizeof *A->t, cmp_acc);
  size_t m = 0;
  for (size_t t = 0; t < A->n; t++) {
    if (m && A->t[m - 1].arg == A->t[t].arg && A->t[m - 1].past == A->t[t].past)
      A->t[m - 1].coef += A->t[t].coef;
    else
      A->t[m++] = A->t[t];
  }
  size_t kept = 0;
  for (size_t t = 0; t < m; t++)
    if (A->t[t].coef != 0) A->t[kept++] = A->t[t];
  m = kept;
  if (m == 0) /* no counts left: a constant, folded */
    return mk(p, hs_rel_holds(rel, A->c) ? HS_F_TRUE : HS_F_FALSE, -1, -1, start);
  /* Canonical sign: the first coefficient positive, so `#<(a) < #<(b)`
   * and `#<(b) > #<(a)` are one node. */
  if (A->t[0].coef < 0) {
    static const hs_rel flip[] = {HS_REL_GT, HS_REL_GE, HS_REL_EQ, HS_REL_NE,
                                  HS_REL_LE, HS_REL_LT};
    for (size_t t = 0; t < m; t++) A->t[t].coef = -A->t[t].coef;
    A->c = -A->c;
    rel = flip[rel];
  }
  hs_i128 sum = 0;
  for (size_t t = 0; t < m; t++)
    sum += A->t[t].coef < 0 ? -A->t[t].coef : A->t[t].coef;
  if (sum > INT64_MAX || A->c > INT64_MAX || A->c < -(hs_i128)INT64_MAX ||
      m > INT32_MAX)
    return fail(p, HS_ERR_LIMIT, col(start), "counting comparison coefficients too large at "
                "column %d (the sum of |coefficients| and the constant must "
                "stay below 2^63)", col(start));
  hs_count_term *terms = malloc(m * sizeof *terms);
  if (!terms) return oom(p);
  for (size_t t = 0; t < m; t++)
    terms[t] = (hs_count_term){(int64_t)A->t[t].coef, A->t[t].past, A->t[t].arg};
  hs_node n = blank(HS_F_CMP);
  n.rel = rel;
  n.c = (int64_t)A->c;
  n.nterms = (int32_t)m;
  n.terms = terms;
  int32_t id = intern(p, &n, start);
  free(terms); /* intern copies */
  return id;
}

static NOINLINE int fail_rel(parser *p, const acc *A, size_t start) {
  /* a bare number where a formula goes: meant as a symbol, most likely */
  if (A->n == 0 && p->cur.s[start] >= '0' && p->cur.s[start] <= '9')
    return fail(p, HS_ERR_PARSE, col(start), "a number at column %d where a formula goes: digits are "
                "the integers of counting comparisons (#<(a) > 1); the symbol %c is "
                "written '%c'", col(start), p->cur.s[start], p->cur.s[start]);
  return fail(p, HS_ERR_PARSE, col(p->tok.pos), "counting comparison needs a relation (<, "
              "<=, =, !=, >=, >) at column %d", col(p->tok.pos));
}

/* term rel term, normalised to sum coef*count + c REL 0. */
static int32_t parse_cmp(parser *p) {
  static const int8_t rels[] = {[T_LT] = HS_REL_LT + 1, [T_LE] = HS_REL_LE + 1,
                                [T_EQ] = HS_REL_EQ + 1, [T_NE] = HS_REL_NE + 1,
                                [T_GE] = HS_REL_GE + 1, [T_GT] = HS_REL_GT + 1,
                                [T_ERR] = 0};
  size_t start = p->tok.pos;
  acc A = {NULL, 0, 0, 0};
  int32_t id = -1;
  if (parse_term(p, &A, 1) == 0) {
    int r = rels[p->tok.k];
    if (!r) fail_rel(p, &A, start);
    else if (next(p) == 0 && parse_term(p, &A, -1) == 0)
      id = finish_cmp(p, &A, (hs_rel)(r - 1), start);
  }
  free(A.t);
  return p->cur.failed ? -1 : id;
}

/* The functions on the recursion path (parse_bin, parse_unary,
 * parse_primary, and for counts parse_cmp/parse_term/parse_factor/
 * parse_count) keep their frames small: everything with a large frame
 * (node construction, message formatting) lives in NOINLINE helpers that
 * are called only after the recursion below them has returned. */
/* A leaf: atom, constant or position predicate; the token is current. */
static NOINLINE int32_t parse_leaf(parser *p) {
  token t = p->tok;
  hs_node n = blank(HS_F_FALSE);
  switch (t.k) {
  case T_ATOM: n.op = HS_F_ATOM; n.sym = t.sym; break;
  case T_TRUE: n.op = HS_F_TRUE; break;
  case T_FALSE: n.op = HS_F_FALSE; break;
  case T_FIRST: n.op = HS_F_FIRST; break;
  case T_LAST: n.op = HS_F_LAST; break;
  default: /* T_MOD */
    n.op = HS_F_MOD;
    if (next(p) || expect(p, T_LP, "'(' after @mod")) return -1;
    if (p->tok.k != T_INT)
      return fail(p, HS_ERR_PARSE, col(p->tok.pos), "expected an integer k >= 1 at column %d "
                  "(@mod(k,r))", col(p->tok.pos));
    if (p->tok.v < 1)
      return fail(p, HS_ERR_PARSE, col(p->tok.pos), "@mod needs k >= 1 at column %d",
                  col(p->tok.pos));
    n.k = p->tok.v;
    if (next(p) || expect(p, T_COMMA, "','")) return -1;
    if (p->tok.k == T_MINUS)
      return fail(p, HS_ERR_PARSE, col(p->tok.pos), "@mod needs r >= 0 at column %d",
                  col(p->tok.pos));
    if (p->tok.k != T_INT)
      return fail(p, HS_ERR_PARSE, col(p->tok.pos), "expected an integer r >= 0 at column %d "
                  "(@mod(k,r))", col(p->tok.pos));
    n.r = p->tok.v;
    if (next(p) || expect(p, T_RP, "')'")) return -1;
    return intern(p, &n, t.pos);
  }
  if (next(p)) return -1;
  return intern(p, &n, t.pos);
}

/* No formula can start with the current token. */
static NOINLINE int32_t fail_primary(parser *p) {
  token t = p->tok;
  if (t.k == T_END)
    return fail(p, HS_ERR_PARSE, col(t.pos), "unexpected end of formula at column %d",
                col(t.pos));
  char buf[64];
  return fail(p, HS_ERR_PARSE, col(t.pos), "expected a formula, found %s at column %d",
              describe(p, &t, buf, sizeof buf), col(t.pos));
}

static int32_t parse_primary(parser *p) {
  int32_t id;
  switch (p->tok.k) {
  case T_ATOM: case T_TRUE: case T_FALSE: case T_FIRST: case T_LAST: case T_MOD:
    return parse_leaf(p);
  case T_LP:
    if (next(p)) return -1;
    id = parse_bin(p, 0);
    if (id < 0 || expect(p, T_RP, "')'")) return -1;
    return id;
  case T_INT: case T_MINUS: case T_CPAST: case T_CFUT:
    return parse_cmp(p);
  default:
    return fail_primary(p);
  }
}

static int32_t parse_unary(parser *p) {
  hs_fop op;
  switch (p->tok.k) {
  case T_NOT: op = HS_F_NOT; break;
  case T_X: op = HS_F_NEXT; break;
  case T_Y: op = HS_F_YESTERDAY; break;
  case T_F: op = HS_F_EVENTUALLY; break;
  case T_G: op = HS_F_ALWAYS; break;
  case T_O: op = HS_F_ONCE; break;
  case T_H: op = HS_F_HISTORICALLY; break;
  default: return parse_primary(p);
  }
  size_t pos = p->tok.pos;
  if (next(p) || enter(p, 1)) return -1;
  int32_t a = parse_unary(p);
  p->nest--;
  if (a < 0) return -1;
  return mk(p, op, a, -1, pos);
}

/* Binary levels, loosest first, and their associativity. */
enum { L_IFF = 1, L_IMP, L_OR, L_AND, L_US };

static int binop(tok_kind k, hs_fop *op) {
  switch (k) {
  case T_IFF: *op = HS_F_IFF; return L_IFF;
  case T_IMP: *op = HS_F_IMPLIES; return L_IMP;
  case T_OR: *op = HS_F_OR; return L_OR;
  case T_AND: *op = HS_F_AND; return L_AND;
  case T_U: *op = HS_F_UNTIL; return L_US;
  case T_S: *op = HS_F_SINCE; return L_US;
  default: return 0;
  }
}

/* Precedence climbing: operators of level >= minlev. A right-associative
 * operator parses its right side at its own level (recursion, counted as
 * a nesting level); a left-associative one at the next level and loops. */
static int32_t parse_bin(parser *p, int minlev) {
  if (enter(p, 1)) { p->nest--; return -1; }
  int32_t l = parse_unary(p);
  while (l >= 0) {
    hs_fop op;
    int lev = binop(p->tok.k, &op);
    if (!lev || lev < minlev) break;
    size_t pos = p->tok.pos;
    if (next(p)) { l = -1; break; }
    int right = lev == L_IMP || lev == L_US;
    int32_t r = parse_bin(p, right ? lev : lev + 1);
    if (r < 0) { l = -1; break; }
    l = mk(p, op, l, r, pos);
  }
  p->nest--;
  return l;
}

/* Keep only the nodes reachable from the root (constant folding can orphan
 * a comparison's arguments). Index order is preserved, so children still
 * precede parents and sorted term lists stay sorted. */
static int compact(parser *p, int32_t *root) {
  hs_formula *f = p->f;
  int32_t nn = f->count;
  int32_t *map = calloc((size_t)nn, sizeof *map);
  if (!map) return oom(p);
  map[*root] = 1;
  for (int32_t i = nn - 1; i >= 0; i--) {
    if (!map[i]) continue;
    const hs_node *n = &f->nodes[i];
    if (n->a >= 0) map[n->a] = 1;
    if (n->b >= 0) map[n->b] = 1;
    for (int32_t t = 0; t < n->nterms; t++) map[n->terms[t].arg] = 1;
  }
  int32_t m = 0;
  for (int32_t i = 0; i < nn; i++) {
    if (!map[i]) {
      free(f->nodes[i].terms);
      map[i] = -1;
      continue;
    }
    hs_node n = f->nodes[i];
    if (n.a >= 0) n.a = map[n.a];
    if (n.b >= 0) n.b = map[n.b];
    for (int32_t t = 0; t < n.nterms; t++) n.terms[t].arg = map[n.terms[t].arg];
    f->nodes[m] = n;
    map[i] = m++;
  }
  *root = map[*root];
  f->count = m;
  hs_formula_drop_index(f);
  free(map);
  return 0;
}

hs_formula *hs_formula_parse(const char *text, hs_error *err) {
  hs_error dummy;
  if (!err) err = &dummy;
  hs_error_clear(err);
  parser P;
  memset(&P, 0, sizeof P);
  parser *p = &P;
  size_t n = text ? strlen(text) : 0;
  hs_cursor_init(&P.cur, text, n, 0, err);
  if (!text) {
    fail(p, HS_ERR_PARSE, 0, "no formula");
    return NULL;
  }
  if (n > hs_get_limits().max_formula_len) {
    fail(p, HS_ERR_LIMIT, 0, "formula too long (%zu bytes; the limit is %zu) "
         "(limit max_formula_len)", n, hs_get_limits().max_formula_len);
    hs_error_limit(err, HS_LIMIT_MAX_FORMULA_LEN);
    return NULL;
  }
  P.f = calloc(1, sizeof *P.f);
  if (!P.f) { oom(p); return NULL; }
  P.f->root = -1;
  int32_t root = -1;
  if (lex(p)) goto out;
  if (P.tok.k == T_END) {
    fail(p, HS_ERR_PARSE, 0, "empty formula");
    goto out;
  }
  root = parse_bin(p, 0);
  if (root < 0) goto out;
  if (P.tok.k != T_END) {
    char buf[64];
    fail(p, HS_ERR_PARSE, col(P.tok.pos), "unexpected %s at column %d%s",
         describe(p, &P.tok, buf, sizeof buf), col(P.tok.pos),
         P.tok.k == T_RP ? " (no matching '(')" : " (missing operator?)");
    goto out;
  }
  if (compact(p, &root)) goto out;
  P.f->root = root;
  P.f->text = malloc(n + 1);
  if (!P.f->text) { oom(p); goto out; }
  memcpy(P.f->text, text, n + 1);
out:
  free(P.depth);
  if (P.cur.failed) {
    hs_formula_free(P.f);
    return NULL;
  }
  return P.f;
}
