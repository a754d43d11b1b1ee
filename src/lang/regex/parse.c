/* SPDX-License-Identifier: MIT */
/* Recursive-descent parser for regular expressions (docs/LANGUAGE.md,
 * "Regular expressions"):
 *
 *   regex  := alt
 *   alt    := and { "|" and }                 (an empty branch is ())
 *   and    := cat { "&" cat }                 (intersection)
 *   cat    := { unary }
 *   unary  := "~" unary | post                (complement)
 *   post   := atom { "*" | "+" | "?" | "{" m "}" | "{" m ",}" | "{" m "," n "}" }
 *   atom   := symbol | "." | "[" [ "^" ] { item } "]" | "(" alt ")"
 *   item   := symbol | char "-" char
 *   symbol := char | "\" punct | '"' token '"'
 *
 * Decisions the grammar does not settle:
 *  - Whitespace and comments (# to the end of the line) may stand between
 *    any two items, also inside brackets: a space is never a symbol.
 *  - A char is a printable ASCII byte other than the operators
 *    | & ~ * + ? { } ( ) [ ] . " \ # ^ $ (inside brackets only ] \ " - ^
 *    and # are special); \ before any printable ASCII punctuation gives
 *    that byte. A token "..." is any run of bytes but space, control
 *    bytes, " and \ (escapes \" and \\), as in B-RASP; a one-byte token
 *    is that symbol.
 *  - ^ and $ are errors: every expression matches whole prefixes already.
 *  - () is the empty string, [] the empty set; an empty text is an error.
 *  - Operators nest at most RX_MAX_NEST levels (or the hs_get_limits
 *    depth, when lower), counted as ast.h's heights, so every recursive
 *    builder stays within the stack; the text is at most max_formula_len
 *    bytes and the tree at most RX_MAX_NODES nodes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "lang/regex/ast.h"

#define RX_MAX_NEST 1000

typedef struct rp {
  hs_cursor cur;
  rx_ast *t;
  hs_vocab *v;
  int nest, maxnest;
} rp;

static int fail(rp *q, hs_errcode code, hs_textpos at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(rp *q, hs_errcode code, hs_textpos at, const char *fmt, ...) {
  char what[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (q->cur.lines) return hs_cursor_fail(&q->cur, code, at, "%s", what);
  return hs_cursor_fail(&q->cur, code, at, "--alphabet: %s at column %d", what,
                        at.column);
}

#define fail_here(q, ...) fail((q), HS_ERR_PARSE, hs_cursor_here(&(q)->cur), __VA_ARGS__)

static void skip(rp *q) {
  static const char *const comments[] = {"#", NULL};
  for (;;) {
    hs_cursor_skip(&q->cur, " \t\r\v\f", comments);
    if (hs_cursor_peek(&q->cur, 0) != '\n') return;
    hs_cursor_advance(&q->cur, 1);
  }
}

static int peek(rp *q) {
  skip(q);
  return hs_cursor_peek(&q->cur, 0);
}

/* --------------------------------------------------------------- nodes */

static int32_t add(rp *q, rx_op op, int32_t a, int32_t b, hs_textpos at) {
  rx_ast *t = q->t;
  if (t->n == RX_MAX_NODES)
    return fail(q, HS_ERR_LIMIT, at, "expression too long (more than %d operators and symbols)",
                RX_MAX_NODES);
  rx_node *nd = hs_lang_grow(t->nd, t->n, &t->cap, sizeof *nd);
  if (!nd) return fail(q, HS_ERR_NOMEM, at, "out of memory");
  t->nd = nd;
  rx_node *x = &t->nd[t->n];
  memset(x, 0, sizeof *x);
  x->op = op;
  x->a = a;
  x->b = b;
  x->set = -1;
  x->line = at.line;
  x->col = at.column;
  int32_t ha = a >= 0 ? t->nd[a].height : 0, hb = b >= 0 ? t->nd[b].height : 0;
  int spine = op == RX_CAT || op == RX_ALT || op == RX_AND;
  x->height = spine ? (ha > hb + 1 ? ha : hb + 1) : 1 + (ha > hb ? ha : hb);
  if (x->height > q->maxnest)
    return fail(q, HS_ERR_LIMIT, at, "expression nested too deeply (more than %d levels)", q->maxnest);
  return t->n++;
}

static int32_t add_set(rp *q, hs_textpos at) {
  rx_ast *t = q->t;
  if (t->nsets == t->capsets) {
    int32_t cap = t->capsets ? t->capsets * 2 : 16;
    rx_set *s = realloc(t->sets, (size_t)cap * sizeof *s);
    if (!s) return fail(q, HS_ERR_NOMEM, at, "out of memory");
    t->sets = s;
    t->capsets = cap;
  }
  memset(&t->sets[t->nsets], 0, sizeof *t->sets);
  int32_t e = add(q, RX_SET, -1, -1, at);
  if (e < 0) return -1;
  t->nd[e].set = t->nsets++;
  return e;
}

/* ------------------------------------------------------------- symbols */

/* The symbol number of token s[0..len), added to the vocabulary. */
static int symbol(rp *q, const char *s, size_t len, hs_textpos at) {
  int b = hs_vocab_add(q->v, s, len);
  if (b == HS_VOCAB_NOMEM) return fail(q, HS_ERR_NOMEM, at, "out of memory");
  if (b < 0) return fail(q, HS_ERR_PARSE, at, "too many distinct symbols (at most 255)");
  for (int k = 0; k < q->v->n; k++)
    if (strlen(q->v->tok[k]) == len && !memcmp(q->v->tok[k], s, len)) return k;
  return fail(q, HS_ERR_PARSE, at, "internal error: symbol not in the vocabulary");
}

static int punct(int c) {
  return c > 0x20 && c < 0x7f && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                                   (c >= 'A' && c <= 'Z'));
}

/* A "..." token at the cursor; its symbol number. */
static int quoted(rp *q) {
  hs_textpos at = hs_cursor_here(&q->cur);
  char buf[256];
  size_t o = 0;
  hs_cursor_advance(&q->cur, 1);
  for (;;) {
    int c = hs_cursor_peek(&q->cur, 0);
    if (c < 0 || c == '\n') return fail(q, HS_ERR_PARSE, at, "unterminated token string");
    if (c == '"') break;
    if (c == '\\') {
      int d = hs_cursor_peek(&q->cur, 1);
      if (d != '"' && d != '\\')
        return fail_here(q, "bad escape in a token string (only \\\" and \\\\)");
      hs_cursor_advance(&q->cur, 1);
      c = d;
    } else if (c <= 0x20 || c == 0x7f) {
      return fail_here(q, "%s in a token string (tokens are separated by whitespace)",
                       c == ' ' ? "space" : "control byte");
    }
    if (o == sizeof buf - 1) return fail(q, HS_ERR_PARSE, at, "token longer than 255 bytes");
    buf[o++] = (char)c;
    hs_cursor_advance(&q->cur, 1);
  }
  hs_cursor_advance(&q->cur, 1);
  if (o == 0) return fail(q, HS_ERR_PARSE, at, "empty token string");
  return symbol(q, buf, o, at);
}

/* One byte of a symbol outside quotes (plain or escaped), or -1 with the
 * error; `special` lists the bytes that need a backslash here. */
static int plain_byte(rp *q, const char *special) {
  int c = hs_cursor_peek(&q->cur, 0);
  if (c == '\\') {
    int d = hs_cursor_peek(&q->cur, 1);
    if (!punct(d)) {
      hs_cursor_advance(&q->cur, 1);
      if (d < 0) return fail_here(q, "expected a symbol after '\\'");
      return fail_here(q, "'\\' escapes punctuation only (write a letter or digit "
                       "as itself)");
    }
    hs_cursor_advance(&q->cur, 2);
    return d;
  }
  if (c >= 0x80)
    return fail(q, HS_ERR_PARSE, hs_cursor_here(&q->cur), "non-ASCII byte 0x%02x (write a multi-byte "
                "symbol as a quoted token, \"...\")", c);
  if (c < 0x21 || c == 0x7f)
    return fail(q, HS_ERR_PARSE, hs_cursor_here(&q->cur), "control byte 0x%02x", c);
  if ((c == '^' || c == '$') && strchr(special, '|'))
    return fail(q, HS_ERR_PARSE, hs_cursor_here(&q->cur), "'%c' is not needed: an expression always "
                "matches a whole prefix (write \\%c for the symbol)", c, c);
  if (strchr(special, c)) return fail(q, HS_ERR_PARSE, hs_cursor_here(&q->cur), "unexpected '%c'", c);
  hs_cursor_advance(&q->cur, 1);
  return c;
}

static void set_bit(rx_set *s, int k) { s->bits[k >> 6] |= 1ull << (k & 63); }

/* One class item into s: a symbol, a token or a range c-d. */
static int class_item(rp *q, rx_set *s) {
  hs_textpos at = hs_cursor_here(&q->cur);
  if (hs_cursor_peek(&q->cur, 0) == '"') {
    int k = quoted(q);
    if (k < 0) return -1;
    set_bit(s, k);
    return 0;
  }
  int lo = plain_byte(q, "[]-\"");
  if (lo < 0) return -1;
  int hi = lo;
  if (peek(q) == '-') {
    hs_cursor_advance(&q->cur, 1);
    skip(q);
    if (hs_cursor_peek(&q->cur, 0) == '"')
      return fail_here(q, "a range runs between one-byte symbols, not tokens");
    if ((hi = plain_byte(q, "[]-\"")) < 0) return -1;
    if (hi < lo) return fail(q, HS_ERR_PARSE, at, "range %c-%c runs backwards", lo, hi);
  }
  for (int c = lo; c <= hi; c++) {
    char b = (char)c;
    int k = symbol(q, &b, 1, at);
    if (k < 0) return -1;
    set_bit(s, k);
  }
  return 0;
}

static int32_t parse_class(rp *q) {
  hs_textpos at = hs_cursor_here(&q->cur);
  int32_t e = add_set(q, at);
  if (e < 0) return -1;
  hs_cursor_advance(&q->cur, 1);
  if (peek(q) == '^') {
    q->t->sets[q->t->nd[e].set].neg = 1;
    hs_cursor_advance(&q->cur, 1);
  }
  for (;;) {
    int c = peek(q);
    if (c < 0) return fail(q, HS_ERR_PARSE, at, "unterminated class: expected ']'");
    if (c == ']') break;
    rx_set s = q->t->sets[q->t->nd[e].set];
    if (class_item(q, &s)) return -1;
    q->t->sets[q->t->nd[e].set] = s;
  }
  hs_cursor_advance(&q->cur, 1);
  return e;
}

/* ---------------------------------------------------------- expressions */

static int32_t parse_alt(rp *q);

static int32_t parse_atom(rp *q) {
  int c = peek(q);
  hs_textpos at = hs_cursor_here(&q->cur);
  int32_t e;
  switch (c) {
  case '(':
    if (++q->nest > q->maxnest)
      return fail(q, HS_ERR_LIMIT, at, "expression nested too deeply (more than %d levels)", q->maxnest);
    hs_cursor_advance(&q->cur, 1);
    if ((e = parse_alt(q)) < 0) return -1;
    if (peek(q) != ')')
      return fail(q, HS_ERR_PARSE, at, "'(' is not closed: expected ')'");
    hs_cursor_advance(&q->cur, 1);
    q->nest--;
    return e;
  case '[': return parse_class(q);
  case '.':
    if ((e = add_set(q, at)) < 0) return -1;
    q->t->sets[q->t->nd[e].set].any = 1;
    hs_cursor_advance(&q->cur, 1);
    return e;
  case '*': case '+': case '?': case '{':
    return fail(q, HS_ERR_PARSE, at, "nothing to repeat before '%c'", c);
  case ')': return fail(q, HS_ERR_PARSE, at, "unmatched ')'");
  case ']': return fail(q, HS_ERR_PARSE, at, "unmatched ']'");
  case '}': return fail(q, HS_ERR_PARSE, at, "unmatched '}'");
  default: break;
  }
  int k;
  if (c == '"') {
    k = quoted(q);
  } else {
    int b = plain_byte(q, "|&~*+?{}()[].\"");
    char ch = (char)b;
    k = b < 0 ? -1 : symbol(q, &ch, 1, at);
  }
  if (k < 0 || (e = add_set(q, at)) < 0) return -1;
  set_bit(&q->t->sets[q->t->nd[e].set], k);
  return e;
}

/* A decimal count at the cursor, at most RX_MAX_REP. */
static int count(rp *q) {
  hs_textpos at = hs_cursor_here(&q->cur);
  int c = peek(q), v = 0;
  if (c < '0' || c > '9') return fail_here(q, "expected a count in '{ }'");
  at = hs_cursor_here(&q->cur);
  while ((c = hs_cursor_peek(&q->cur, 0)) >= '0' && c <= '9') {
    v = v * 10 + (c - '0');
    if (v > RX_MAX_REP)
      return fail(q, HS_ERR_PARSE, at, "repetition count above %d", RX_MAX_REP);
    hs_cursor_advance(&q->cur, 1);
  }
  return v;
}

static int32_t parse_repeat(rp *q, int32_t a, hs_textpos at) {
  hs_cursor_advance(&q->cur, 1);
  int lo = count(q), hi;
  if (lo < 0) return -1;
  hi = lo;
  if (peek(q) == ',') {
    hs_cursor_advance(&q->cur, 1);
    if (peek(q) == '}') hi = -1;
    else if ((hi = count(q)) < 0) return -1;
  }
  if (peek(q) != '}') return fail_here(q, "expected '}' after the count");
  hs_cursor_advance(&q->cur, 1);
  if (hi >= 0 && hi < lo) return fail(q, HS_ERR_PARSE, at, "{%d,%d}: the least count is above the most", lo, hi);
  int32_t e = add(q, RX_REP, a, -1, at);
  if (e < 0) return -1;
  q->t->nd[e].lo = lo;
  q->t->nd[e].hi = hi;
  return e;
}

static int32_t parse_post(rp *q) {
  int32_t a = parse_atom(q);
  for (;;) {
    if (a < 0) return -1;
    int c = peek(q);
    hs_textpos at = hs_cursor_here(&q->cur);
    if (c == '{') {
      a = parse_repeat(q, a, at);
      continue;
    }
    if (c != '*' && c != '+' && c != '?') return a;
    hs_cursor_advance(&q->cur, 1);
    a = add(q, c == '*' ? RX_STAR : c == '+' ? RX_PLUS : RX_OPT, a, -1, at);
  }
}

static int32_t parse_unary(rp *q) {
  if (peek(q) != '~') return parse_post(q);
  hs_textpos at = hs_cursor_here(&q->cur);
  hs_cursor_advance(&q->cur, 1);
  int c = peek(q);
  if (c < 0 || c == '|' || c == '&' || c == ')')
    return fail(q, HS_ERR_PARSE, at, "expected an expression after '~'");
  int32_t a = parse_unary(q);
  return a < 0 ? -1 : add(q, RX_NOT, a, -1, at);
}

static int ends_cat(int c) { return c < 0 || c == '|' || c == '&' || c == ')'; }

static int32_t parse_cat(rp *q) {
  hs_textpos at = hs_cursor_here(&q->cur);
  if (ends_cat(peek(q))) return add(q, RX_EPS, -1, -1, at);
  int32_t a = parse_unary(q);
  while (a >= 0 && !ends_cat(peek(q))) {
    int32_t b = parse_unary(q);
    a = b < 0 ? -1 : add(q, RX_CAT, a, b, at);
  }
  return a;
}

/* alt (level 0: "|") and and (level 1: "&"): left-deep chains of the
 * next level down. */
static int32_t parse_chain(rp *q, int level) {
  static const char sep[] = {'|', '&'};
  static const rx_op op[] = {RX_ALT, RX_AND};
  int32_t a = level ? parse_cat(q) : parse_chain(q, 1);
  while (a >= 0 && peek(q) == sep[level]) {
    hs_textpos at = hs_cursor_here(&q->cur);
    hs_cursor_advance(&q->cur, 1);
    int32_t b = level ? parse_cat(q) : parse_chain(q, 1);
    a = b < 0 ? -1 : add(q, op[level], a, b, at);
  }
  return a;
}

static int32_t parse_alt(rp *q) { return parse_chain(q, 0); }

/* ---------------------------------------------------------- entry points */

void rx_ast_free(rx_ast *t) {
  free(t->nd);
  free(t->sets);
  memset(t, 0, sizeof *t);
}

static void init(rp *q, const char *text, size_t len, int lines, hs_vocab *v,
                 rx_ast *t, hs_error *err) {
  memset(q, 0, sizeof *q);
  hs_cursor_init(&q->cur, text, len, lines, err);
  q->t = t;
  q->v = v;
  q->maxnest = hs_get_limits().max_depth < RX_MAX_NEST ? hs_get_limits().max_depth
                                                       : RX_MAX_NEST;
}

int rx_parse(const char *text, size_t len, hs_vocab *v, rx_ast *t, hs_error *err) {
  rp q;
  memset(t, 0, sizeof *t);
  init(&q, text, len, 1, v, t, err);
  if (len > hs_get_limits().max_formula_len) {
    fail(&q, HS_ERR_LIMIT, hs_cursor_here(&q.cur), "expression too long (%zu bytes, limit %zu)",
         len, hs_get_limits().max_formula_len);
  } else if (memchr(text, 0, len)) {
    fail(&q, HS_ERR_PARSE, hs_cursor_at(&q.cur, (size_t)((const char *)memchr(text, 0, len) - text)),
         "NUL byte in the expression");
  } else if (peek(&q) < 0) {
    fail(&q, HS_ERR_PARSE, hs_cursor_here(&q.cur), "empty regular expression (write () for the "
         "empty string)");
  } else if ((t->root = parse_alt(&q)) >= 0 && peek(&q) >= 0) {
    fail(&q, HS_ERR_PARSE, hs_cursor_here(&q.cur), "unmatched ')'");
  }
  if (q.cur.failed) rx_ast_free(t);
  return q.cur.failed ? -1 : 0;
}

int rx_parse_alphabet(const char *text, hs_vocab *v, hs_error *err) {
  rx_ast t;
  rp q;
  memset(&t, 0, sizeof t);
  init(&q, text, strlen(text), 0, v, &t, err);
  rx_set s;
  memset(&s, 0, sizeof s);
  while (!q.cur.failed && peek(&q) >= 0)
    class_item(&q, &s);
  rx_ast_free(&t);
  return q.cur.failed ? -1 : 0;
}
