/* SPDX-License-Identifier: MIT */
/* Tokenizer and recursive-descent parser for B-RASP programs
 * (docs/LANGUAGE.md, "B-RASP programs"):
 *
 *   program := { [ stmt ] [ comment ] newline }
 *   stmt    := name "=" ( attn | expr )
 *   attn    := ( "leftmost" | "rightmost" ) "j" [ mask "i" ] ":"
 *              expr "?" expr ":" expr            (score ? value : default)
 *   mask    := "<" | "<=" | ">" | ">="
 *   expr    := and { "|" and }
 *   and     := not { "&" not }
 *   not     := "!" not | primary
 *   primary := "true" | "false" | "(" expr ")" | vector [ "[" ( "i" | "j" ) "]" ]
 *   vector  := name | "token" string
 *
 * Decisions the grammar does not settle:
 *  - A name is [A-Za-z_][A-Za-z0-9_]* other than the keywords token,
 *    leftmost, rightmost, true, false, i, j; it must be defined on an
 *    earlier line (so programs are acyclic) and only once.
 *  - A string is "..." of bytes other than space, control bytes, '"' and
 *    '\' (input tokens are whitespace-separated, so no token has spaces);
 *    \" and \\ are the escapes. Bytes >= 0x80 (UTF-8) are allowed.
 *  - In the score and value of an attention operation a vector without
 *    [i] / [j] is read at the key j, in the default at the query i; [j]
 *    in the default, and [i] / [j] outside attention, are errors.
 *  - Comments start with # or // and run to the end of the line; a
 *    statement ends at the end of its line (no continuation lines).
 *  - Parentheses and ! nest at most BR_MAX_NEST levels (or the
 *    hs_get_limits depth, when lower), and so does an expression tree (a
 *    chain of n operators is n deep), so the recursive parser, the
 *    interpreter and the lowering cannot overflow the stack; the text is
 *    at most max_formula_len bytes.
 *  - Errors are one line "<what> at line L, column C", C the 1-based byte
 *    column in its line; nothing leaks on any error path. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/names.h"
#include "base/text.h"
#include "lang/brasp/ast.h"

typedef enum tk {
  K_END, K_NL, K_NAME, K_STR, K_ASSIGN, K_NOT, K_AND, K_OR, K_LP, K_RP,
  K_LB, K_RB, K_QUEST, K_COLON, K_LT, K_LE, K_GT, K_GE,
  /* keywords (K_NAME text) */
  K_TOKEN, K_LEFT, K_RIGHT, K_TRUE, K_FALSE, K_I, K_J
} tk;

typedef struct token {
  tk k;
  size_t pos, len;  /* byte offset and length in the text */
  int line, col;
} token;

typedef struct parser {
  hs_cursor cur;
  const char *s;   /* cur.s: the text, for the scanners and messages */
  token t;
  hs_brasp *p;
  hs_vocab *v;
  int nest, maxnest;
  int in_attn;     /* 0 outside, 1 score/value, 2 default */
  hs_names names;  /* statement names to their index */
  char *sbuf;      /* decoded string of the last K_STR */
} parser;

static int fail_at(parser *q, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_at(parser *q, int line, int col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hs_cursor_vfail(&q->cur, HS_ERR_PARSE, (hs_textpos){0, line, col}, fmt, ap);
  va_end(ap);
  return -1;
}

static int oom_at(parser *q, int line, int col) {
  return hs_cursor_fail(&q->cur, HS_ERR_NOMEM, (hs_textpos){0, line, col}, "out of memory");
}

/* The token's text for messages: at most 32 bytes, printable only. */
static const char *shown(const parser *q, const token *t, char buf[40]) {
  size_t m = t->len < 32 ? t->len : 32, o = 0;
  for (size_t i = 0; i < m; i++) {
    unsigned char c = (unsigned char)q->s[t->pos + i];
    buf[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
  }
  if (t->len > m) { buf[o++] = '.'; buf[o++] = '.'; buf[o++] = '.'; }
  buf[o] = 0;
  return buf;
}

static const struct { const char *w; tk k; } keywords[] = {
  {"token", K_TOKEN}, {"leftmost", K_LEFT}, {"rightmost", K_RIGHT},
  {"true", K_TRUE}, {"false", K_FALSE}, {"i", K_I}, {"j", K_J}};

static int name_start(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int name_char(int c) { return name_start(c) || (c >= '0' && c <= '9'); }

/* A "..." string at the cursor into q->sbuf (decoded); sets t->len. */
static int scan_string(parser *q, token *t) {
  size_t i = q->cur.pos + 1, o = 0;
  for (;; i++) {
    if (i >= q->cur.n || q->s[i] == '\n')
      return fail_at(q, t->line, t->col, "unterminated string");
    unsigned char c = (unsigned char)q->s[i];
    if (c == '"') break;
    if (c == '\\') {
      if (i + 1 < q->cur.n && (q->s[i + 1] == '"' || q->s[i + 1] == '\\')) {
        q->sbuf[o++] = q->s[++i];
        continue;
      }
      return fail_at(q, q->cur.line, hs_cursor_at(&q->cur, i).column,
                     "bad escape in string (only \\\" and \\\\)");
    }
    if (c <= 0x20 || c == 0x7f)
      return fail_at(q, q->cur.line, hs_cursor_at(&q->cur, i).column,
                     "%s in a token string (tokens are separated by whitespace)",
                     c == ' ' ? "space" : "control byte");
    q->sbuf[o++] = (char)c;
  }
  q->sbuf[o] = 0;
  t->len = i + 1 - q->cur.pos;
  if (o == 0) return fail_at(q, t->line, t->col, "empty token string");
  return 0;
}

static int next(parser *q) {
  /* a comment runs to the newline, which stays a token */
  static const char *const comments[] = {"#", "//", NULL};
  hs_cursor_skip(&q->cur, " \t\r\v\f", comments);
  token *t = &q->t;
  hs_textpos at = hs_cursor_here(&q->cur);
  t->pos = at.pos;
  t->len = 1;
  t->line = at.line;
  t->col = at.column;
  int c = hs_cursor_peek(&q->cur, 0), d = hs_cursor_peek(&q->cur, 1);
  if (c < 0) { t->k = K_END; t->len = 0; return 0; }
  switch (c) {
  case '\n': t->k = K_NL; break;
  case '=': t->k = K_ASSIGN; break;
  case '!': t->k = K_NOT; break;
  case '&': t->k = K_AND; break;
  case '|': t->k = K_OR; break;
  case '(': t->k = K_LP; break;
  case ')': t->k = K_RP; break;
  case '[': t->k = K_LB; break;
  case ']': t->k = K_RB; break;
  case '?': t->k = K_QUEST; break;
  case ':': t->k = K_COLON; break;
  case '<': t->k = d == '=' ? K_LE : K_LT; t->len = d == '=' ? 2 : 1; break;
  case '>': t->k = d == '=' ? K_GE : K_GT; t->len = d == '=' ? 2 : 1; break;
  case '"':
    t->k = K_STR;
    if (scan_string(q, t)) return -1;
    break;
  default:
    if (!name_start(c)) {
      if (c >= 0x21 && c < 0x7f)
        return fail_at(q, t->line, t->col, "unexpected character '%c'", c);
      return fail_at(q, t->line, t->col, "unexpected byte 0x%02x", c);
    }
    t->k = K_NAME;
    while (hs_cursor_peek(&q->cur, t->len) >= 0 && name_char(hs_cursor_peek(&q->cur, t->len)))
      t->len++;
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
      if (strlen(keywords[k].w) == t->len && !memcmp(keywords[k].w, q->s + t->pos, t->len))
        t->k = keywords[k].k;
  }
  hs_cursor_advance(&q->cur, t->len);
  return 0;
}

static int expect(parser *q, tk k, const char *what) {
  if (q->t.k != k) {
    char b[40];
    if (q->t.k == K_END || q->t.k == K_NL)
      return fail_at(q, q->t.line, q->t.col, "expected %s before the end of the line", what);
    return fail_at(q, q->t.line, q->t.col, "expected %s, not '%s'", what, shown(q, &q->t, b));
  }
  return next(q);
}

/* ---------------------------------------------------------- expressions */

static int32_t add_expr(parser *q, br_eop op, int32_t a, int32_t b) {
  hs_brasp *p = q->p;
  br_expr *ex = hs_lang_grow(p->ex, p->nex, &p->excap, sizeof *ex);
  if (!ex) return oom_at(q, q->t.line, q->t.col);
  p->ex = ex;
  br_expr *e = &p->ex[p->nex];
  memset(e, 0, sizeof *e);
  e->op = op;
  e->a = a;
  e->b = b;
  e->ref = -1;
  int32_t d = 0;
  if (a >= 0) d = p->ex[a].depth;
  if (b >= 0 && p->ex[b].depth > d) d = p->ex[b].depth;
  e->depth = d + 1;
  if (e->depth > q->maxnest) {
    fail_at(q, q->t.line, q->t.col,
            "expression nested too deeply (more than %d levels) (limit max_depth)", q->maxnest);
    return hs_error_limit(q->cur.err, HS_LIMIT_MAX_DEPTH);
  }
  return p->nex++;
}

static int32_t parse_or(parser *q);

/* The optional [i] / [j] after a vector; the side it is read at. */
static int parse_side(parser *q, uint8_t *side) {
  *side = q->in_attn == 1 ? BR_SIDE_J : BR_SIDE_I;
  if (q->t.k != K_LB) return 0;
  token lb = q->t;
  if (!q->in_attn)
    return fail_at(q, lb.line, lb.col,
                   "'[i]' or '[j]' outside an attention operation");
  if (next(q)) return -1;
  if (q->t.k != K_I && q->t.k != K_J)
    return fail_at(q, q->t.line, q->t.col, "expected 'i' or 'j' inside '[ ]'");
  *side = q->t.k == K_J ? BR_SIDE_J : BR_SIDE_I;
  if (*side == BR_SIDE_J && q->in_attn == 2)
    return fail_at(q, q->t.line, q->t.col,
                   "key-side reference '[j]' in the default (it is read at i only)");
  if (next(q)) return -1;
  return expect(q, K_RB, "']'");
}

static int32_t parse_vector(parser *q) {
  token t = q->t;
  int32_t e;
  if (t.k == K_TOKEN) {
    if (next(q)) return -1;
    if (q->t.k != K_STR) return expect(q, K_STR, "a \"quoted\" token after 'token'");
    int b = hs_vocab_add(q->v, q->sbuf, strlen(q->sbuf));
    if (b == HS_VOCAB_NOMEM) return oom_at(q, q->t.line, q->t.col);
    if (b < 0)
      return fail_at(q, q->t.line, q->t.col, "too many distinct tokens (at most 255)");
    if (next(q) || (e = add_expr(q, BR_TOK, -1, -1)) < 0) return -1;
    q->p->ex[e].byte = (uint8_t)b;
  } else {
    int32_t k = hs_names_find(&q->names, q->s + t.pos, t.len, -1) + 1;
    char b[40];
    if (!k) return fail_at(q, t.line, t.col, "undefined name '%s'", shown(q, &t, b));
    if (next(q) || (e = add_expr(q, BR_REF, -1, -1)) < 0) return -1;
    q->p->ex[e].ref = k - 1;
  }
  uint8_t side;
  if (parse_side(q, &side)) return -1;
  q->p->ex[e].side = side;
  return e;
}

static int32_t parse_primary(parser *q) {
  int32_t e;
  char b[40];
  switch (q->t.k) {
  case K_TRUE: case K_FALSE:
    if ((e = add_expr(q, BR_CONST, -1, -1)) < 0) return -1;
    q->p->ex[e].val = q->t.k == K_TRUE;
    return next(q) ? -1 : e;
  case K_LP:
    if (next(q) || (e = parse_or(q)) < 0) return -1;
    return expect(q, K_RP, "')'") ? -1 : e;
  case K_NAME: case K_TOKEN:
    return parse_vector(q);
  case K_END: case K_NL:
    return fail_at(q, q->t.line, q->t.col, "expected an expression before the end of the line");
  default:
    return fail_at(q, q->t.line, q->t.col, "expected an expression, not '%s'",
                   shown(q, &q->t, b));
  }
}

static int32_t parse_not(parser *q) {
  if (q->t.k != K_NOT && q->t.k != K_LP) return parse_primary(q);
  if (++q->nest > q->maxnest) {
    fail_at(q, q->t.line, q->t.col, "expression nested too deeply (more than %d levels) (limit max_depth)",
            q->maxnest);
    return hs_error_limit(q->cur.err, HS_LIMIT_MAX_DEPTH);
  }
  int32_t e;
  if (q->t.k == K_NOT) {
    int32_t a;
    if (next(q) || (a = parse_not(q)) < 0) return -1;
    e = add_expr(q, BR_NOT, a, -1);
  } else {
    e = parse_primary(q);
  }
  q->nest--;
  return e;
}

static int32_t parse_and(parser *q) {
  int32_t a = parse_not(q);
  while (a >= 0 && q->t.k == K_AND) {
    int32_t b;
    if (next(q) || (b = parse_not(q)) < 0) return -1;
    a = add_expr(q, BR_AND, a, b);
  }
  return a;
}

static int32_t parse_or(parser *q) {
  int32_t a = parse_and(q);
  while (a >= 0 && q->t.k == K_OR) {
    int32_t b;
    if (next(q) || (b = parse_and(q)) < 0) return -1;
    a = add_expr(q, BR_OR, a, b);
  }
  return a;
}

/* ---------------------------------------------------------- statements */

static int parse_attn(parser *q, br_stmt *st) {
  st->attn = 1;
  st->rightmost = q->t.k == K_RIGHT;
  if (next(q) || expect(q, K_J, "'j' after leftmost/rightmost")) return -1;
  st->mask = BR_MASK_NONE;
  if (q->t.k == K_LT || q->t.k == K_LE || q->t.k == K_GT || q->t.k == K_GE) {
    static const br_mask m[] = {[K_LT] = BR_MASK_LT, [K_LE] = BR_MASK_LE,
                                [K_GT] = BR_MASK_GT, [K_GE] = BR_MASK_GE};
    st->mask = m[q->t.k];
    if (next(q) || expect(q, K_I, "'i' in the mask (j < i, j <= i, j > i or j >= i)"))
      return -1;
  } else if (q->t.k != K_COLON) {
    char b[40];
    if (q->t.k == K_END || q->t.k == K_NL)
      return fail_at(q, q->t.line, q->t.col, "bad mask: expected '<', '<=', '>', '>=' or ':' after 'j'");
    return fail_at(q, q->t.line, q->t.col,
                   "bad mask '%s': expected '<', '<=', '>', '>=' or ':' after 'j'",
                   shown(q, &q->t, b));
  }
  if (expect(q, K_COLON, "':' before the score")) return -1;
  q->in_attn = 1;
  if ((st->s = parse_or(q)) < 0 || expect(q, K_QUEST, "'?' after the score") ||
      (st->v = parse_or(q)) < 0 || expect(q, K_COLON, "':' before the default"))
    return -1;
  q->in_attn = 2;
  if ((st->d = parse_or(q)) < 0) return -1;
  q->in_attn = 0;
  return 0;
}

static int parse_stmt(parser *q) {
  token nm = q->t;
  char b[40];
  if (nm.k != K_NAME)
    return fail_at(q, nm.line, nm.col, "expected a statement name, not '%s'%s",
                   shown(q, &nm, b), nm.k >= K_TOKEN ? " (a keyword)" : "");
  int32_t prev = hs_names_find(&q->names, q->s + nm.pos, nm.len, -1);
  if (prev >= 0)
    return fail_at(q, nm.line, nm.col, "'%s' is already defined (line %d)",
                   shown(q, &nm, b), q->p->st[prev].line);
  if (next(q) || expect(q, K_ASSIGN, "'=' after the statement name")) return -1;
  br_stmt st;
  memset(&st, 0, sizeof st);
  st.line = nm.line;
  st.column = nm.col;
  st.e = st.s = st.v = st.d = -1;
  if (q->t.k == K_LEFT || q->t.k == K_RIGHT) {
    if (parse_attn(q, &st)) return -1;
  } else if ((st.e = parse_or(q)) < 0) {
    return -1;
  }
  if (q->t.k != K_NL && q->t.k != K_END)
    return fail_at(q, q->t.line, q->t.col, "expected the end of the line, not '%s'",
                   shown(q, &q->t, b));
  hs_brasp *p = q->p;
  if (p->n == p->cap) {
    int cap = p->cap ? p->cap * 2 : 16;
    br_stmt *s2 = realloc(p->st, (size_t)cap * sizeof *s2);
    if (!s2) return oom_at(q, nm.line, nm.col);
    p->st = s2;
    p->cap = cap;
  }
  st.name = malloc(nm.len + 1);
  if (!st.name) return oom_at(q, nm.line, nm.col);
  memcpy(st.name, q->s + nm.pos, nm.len);
  st.name[nm.len] = 0;
  if (hs_names_add(&q->names, st.name, nm.len, p->n)) {
    free(st.name);
    return oom_at(q, nm.line, nm.col);
  }
  p->st[p->n++] = st;
  return 0;
}

void hs_brasp_free(hs_brasp *p) {
  if (!p) return;
  for (int k = 0; k < p->n; k++) free(p->st[k].name);
  free(p->st);
  free(p->ex);
  free(p);
}

hs_brasp *hs_brasp_parse(const char *text, size_t len, hs_vocab *v,
                         hs_error *err) {
  hs_error dummy;
  if (!err) err = &dummy;
  memset(err, 0, sizeof *err);
  parser q;
  memset(&q, 0, sizeof q);
  hs_cursor_init(&q.cur, text, len, 1, err);
  q.s = text;
  q.v = v;
  hs_limits lim = hs_get_limits();
  q.maxnest = lim.max_depth < BR_MAX_NEST ? lim.max_depth : BR_MAX_NEST;
  if (!text || !v) { fail_at(&q, 0, 0, "no program"); return NULL; }
  if (len > lim.max_formula_len) {
    fail_at(&q, 1, 1, "program too long (%zu bytes, limit %zu) (limit max_formula_len)", len, lim.max_formula_len);
    hs_error_limit(err, HS_LIMIT_MAX_FORMULA_LEN);
    return NULL;
  }
  q.p = calloc(1, sizeof *q.p);
  q.sbuf = malloc(len + 1);
  if (!q.p || !q.sbuf) {
    free(q.sbuf);
    free(q.p);
    oom_at(&q, 1, 1);
    return NULL;
  }
  int rc = next(&q);
  while (!rc && q.t.k != K_END) {
    if (q.t.k == K_NL) { rc = next(&q); continue; }
    rc = parse_stmt(&q);
  }
  if (!rc && q.p->n == 0)
    rc = fail_at(&q, q.t.line, q.t.col, "empty program (no statements)");
  hs_names_free(&q.names);
  free(q.sbuf);
  if (rc || q.cur.failed) {
    hs_brasp_free(q.p);
    return NULL;
  }
  return q.p;
}

int hs_brasp_nstmts(const hs_brasp *p) { return p ? p->n : 0; }

const char *hs_brasp_stmt_name(const hs_brasp *p, int k) {
  return p && k >= 0 && k < p->n ? p->st[k].name : NULL;
}
