/* SPDX-License-Identifier: MIT */
/* The regular-expression front end in a row (regex.h): parse, the
 * minimal automaton, its class, and the lowering the class allows; the
 * automaton is also the interpreter (the ground truth of `--mode truth`
 * and `check`), so a wrong construction shows as a disagreement.
 *
 * Lowering by class (docs/LANGUAGE.md, "Regular expressions"):
 *  - star-free: the cascade of the automaton itself (cascade.c);
 *  - quasi-aperiodic with stable length s: the cascade of the automaton
 *    that reads each symbol tagged with its position mod s (rx_tagged),
 *    whose monoid is aperiodic exactly when eta(A^s) holds no group:
 *    a tagged word u of length L acts as eta(u) when L is a multiple of
 *    s and its tags run on, and sends everything to the reject state
 *    when repeated otherwise. Tagged symbol (c, r) is c ∧ @mod(s, r);
 *  - anything else: refused, with the class and the witness. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/circuit.h"
#include "lang/regex/cascade.h"
#include "lang/regex/monoid.h"
#include "lang/regex/regex.h"

struct hs_regex {
  char *text;
  const hs_vocab *v; /* the program's, for the explanation's words */
  rx_dfa dfa;        /* over the alphabet and the other token (symbol k) */
  int32_t k;
  uint8_t sym[256];  /* byte -> symbol */
  rx_class cls;
  int lowered;       /* 1 built, -1 refused */
  int32_t modulus;   /* 1, or s for a quasi-aperiodic language */
  rx_cascade_info info;
  char refuse[256];
};

void hs_regex_free(hs_regex *r) {
  if (!r) return;
  free(r->text);
  rx_dfa_free(&r->dfa);
  rx_class_free(&r->cls);
  free(r);
}

hs_regex *hs_regex_parse(const char *text, size_t len, const char *alphabet,
                         hs_vocab *v, hs_error *err) {
  rx_ast t;
  hs_regex *r = calloc(1, sizeof *r);
  if (!r || !(r->text = malloc(len + 1))) {
    hs_errorf(err, HS_ERR_NOMEM, "out of memory");
    hs_regex_free(r);
    return NULL;
  }
  memcpy(r->text, text, len);
  r->text[len] = 0;
  r->v = v;
  int rc = rx_parse(text, len, v, &t, err);
  if (!rc && alphabet && (rc = rx_parse_alphabet(alphabet, v, err))) rx_ast_free(&t);
  if (!rc) {
    r->k = v->n;
    rc = rx_build(&t, r->k, &r->dfa, err);
    rx_ast_free(&t);
  }
  if (!rc && (rx_add_other(&r->dfa) || rx_classify(&r->dfa, &r->cls)))
    rc = hs_errorf(err, HS_ERR_NOMEM, "out of memory classifying the automaton");
  if (rc) {
    hs_regex_free(r);
    return NULL;
  }
  memset(r->sym, (int)r->k, sizeof r->sym);
  for (int32_t c = 0; c < r->k; c++) r->sym[v->byte[c]] = (uint8_t)c;
  return r;
}

int hs_regex_eval_all(const hs_regex *r, const uint8_t *w, size_t n, int64_t *vals) {
  if (!r || (n && (!w || !vals))) return -1;
  int32_t q = 0;
  for (size_t i = 0; i < n; i++) {
    q = r->dfa.next[(size_t)q * (size_t)r->dfa.k + r->sym[w[i]]];
    vals[i] = q;
    vals[n + i] = r->dfa.acc[q];
  }
  return 0;
}

/* ------------------------------------------------------------- words */

typedef struct out { char *buf; size_t len, pos; } out;

static void say(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(o->pos < o->len ? o->buf + o->pos : NULL, o->pos < o->len ? o->len - o->pos : 0,
                    fmt, ap);
  va_end(ap);
  if (m > 0) o->pos += (size_t)m;
}

/* A word as the strings it stands for: "aab" when every token is one
 * byte, else its tokens with spaces; at most max bytes, then "...". */
static void word(out *o, const hs_regex *r, const int32_t *w, int32_t n, size_t max) {
  int single = 1;
  for (int32_t i = 0; i < n; i++)
    single &= w[i] < r->k && strlen(r->v->tok[w[i]]) == 1;
  size_t start = o->pos;
  say(o, "\"");
  for (int32_t i = 0; i < n; i++) {
    if (o->pos - start > max) { say(o, "..."); break; }
    say(o, "%s%s", single || !i ? "" : " ", w[i] < r->k ? r->v->tok[w[i]] : "<other>");
  }
  say(o, "\"");
}

/* "iff k mod p = r" or "iff k mod p is one of r1, r2, ..." */
static void cycle(out *o, const rx_class *c) {
  int32_t ones = 0;
  for (int32_t j = 0; j < c->period; j++) ones += c->pattern[j];
  say(o, "x u^k z is in the language iff k mod %d %s", c->period, ones == 1 ? "=" : "is one of");
  for (int32_t j = 0, first = 1; j < c->period; j++)
    if (c->pattern[j]) say(o, "%s%d", first ? " " : ", ", j), first = 0;
}

static void witness(out *o, const hs_regex *r, size_t max) {
  const rx_class *c = &r->cls;
  cycle(o, c);
  say(o, " (x = ");
  word(o, r, c->x, c->nx, max);
  say(o, ", u = ");
  word(o, r, c->u, c->nu, max);
  say(o, ", z = ");
  word(o, r, c->z, c->nz, max);
  say(o, ")");
}

/* The one line hs_compile refuses with (fits hs_error.msg). */
static void refusal(hs_regex *r, const char *why) {
  out o = {r->refuse, sizeof r->refuse, 0};
  const rx_class *c = &r->cls;
  switch (c->cls) {
  case RX_NEITHER:
    say(&o, "not compiled: not quasi-aperiodic, ");
    witness(&o, r, 12);
    say(&o, ", |u| a multiple of the stable length %d: outside FO[<, MOD], all that "
        "masked hard attention with position features computes (compile --explain)", c->stable);
    break;
  case RX_QUASI_APERIODIC:
    say(&o, "not compiled: quasi-aperiodic, expressible with @mod(%d, r) position "
        "predicates (docs/LANGUAGE.md, \"Regular expressions\", writes one by hand); the "
        "automatic construction is past a limit: %s", c->modulus, why);
    break;
  case RX_STAR_FREE:
    say(&o, "not compiled: star-free, but its construction is past a limit: %s", why);
    break;
  default:
    say(&o, "not compiled: the class of the language is unknown: %s", c->why);
  }
}

/* ------------------------------------------------------------ lowering */

/* The cascade of d (read with positions mod `mod`) into *out; 0, 1 past
 * a limit (why), -1 out of memory. */
static int build(hs_regex *r, const rx_dfa *d, int32_t mod, hs_prebuilt **out, char *why,
                 size_t whylen) {
  hs_prebuilt *P = hs_prebuilt_new();
  if (!P) return -1;
  int rc = rx_cascade(d, r->v, mod, P, &P->root, &r->info, why, whylen);
  if (!rc && !(P->text = malloc(strlen(r->text) + 1))) rc = -1;
  if (rc) {
    hs_prebuilt_free(P);
    return rc;
  }
  strcpy(P->text, r->text);
  P->C.source = P->text;
  *out = P;
  r->modulus = mod;
  return 0;
}

int hs_regex_lower(hs_regex *r, hs_prebuilt **out, hs_error *err) {
  char why[160] = "";
  int rc = 0;
  *out = NULL;
  if (r->cls.cls == RX_STAR_FREE) {
    rc = build(r, &r->dfa, 1, out, why, sizeof why);
  } else if (r->cls.cls == RX_QUASI_APERIODIC) {
    rx_dfa tagged;
    memset(&tagged, 0, sizeof tagged);
    rc = rx_tagged(&r->dfa, r->cls.modulus, &tagged);
    if (rc > 0)
      snprintf(why, sizeof why, "the automaton reading positions mod %d has more than "
               "%d states", r->cls.modulus, RX_MAX_STATES);
    if (!rc) rc = build(r, &tagged, r->cls.modulus, out, why, sizeof why);
    rx_dfa_free(&tagged);
  } else {
    rc = 1;
  }
  r->lowered = rc ? -1 : 1;
  if (rc > 0) refusal(r, why);
  if (rc < 0)
    return hs_errorf(err, HS_ERR_NOMEM, "out of memory lowering the regular expression");
  return 0;
}

const char *hs_regex_refusal(const hs_regex *r) { return r->lowered < 0 ? r->refuse : NULL; }
const char *hs_regex_text(const hs_regex *r) { return r->text; }

/* ------------------------------------------------------------- explain */

static void explain_class(out *o, const hs_regex *r) {
  const rx_class *c = &r->cls;
  switch (c->cls) {
  case RX_STAR_FREE:
    say(o, "class: star-free (the monoid is aperiodic: m^%d = m^%d for every element m)\n",
        c->index, c->index + 1);
    return;
  case RX_QUASI_APERIODIC:
    say(o, "class: quasi-aperiodic, not star-free: first-order with the position predicates "
        "i mod d = r, not without them\n  witness of a counter: ");
    witness(o, r, 200);
    say(o, "\n  stable length s = %d: the words of length %d map to %d element%s, no group "
        "among them; every word whose length is a multiple of %d maps to an aperiodic "
        "element, so positions mod %d see all the counting\n", c->stable, c->stable,
        c->stable_size, c->stable_size == 1 ? "" : "s", c->modulus, c->modulus);
    return;
  case RX_NEITHER:
    say(o, "class: not quasi-aperiodic (neither star-free nor first-order with modular "
        "predicates)\n  witness of a group: ");
    witness(o, r, 200);
    say(o, "\n  |u| = %d is a multiple of the stable length s = %d: positions mod any d cannot "
        "tell these strings apart, and membership counts u's modulo %d\n  theorem: a regular "
        "language is first-order with modular predicates iff its stable semigroup holds no "
        "group (Barrington, Compton, Straubing and Therien 1992), and masked hard-attention "
        "transformers recognize exactly the star-free languages, with position features of "
        "finite image (such as @mod) exactly those of FO[<, MOD] (Yang, Chiang and Angluin "
        "2024): no model built of heads that select positions, as every construction here "
        "is, recognizes it; counting heads reach some such languages as properties of the "
        "whole string (docs/LANGUAGE.md, \"Regular expressions\")\n",
        c->nu, c->stable, c->period);
    return;
  default:
    say(o, "class: unknown (%s)\n", c->why);
  }
}

size_t hs_regex_explain(const hs_regex *r, char *buf, size_t len) {
  out o = {buf, buf ? len : 0, 0};
  if (buf && len) buf[0] = 0;
  if (!r) return 0;
  int32_t nacc = 0;
  for (int32_t q = 0; q < r->dfa.n; q++) nacc += r->dfa.acc[q];
  say(&o, "alphabet: %d symbol%s:", r->k, r->k == 1 ? "" : "s");
  for (int32_t c = 0; c < r->k; c++) say(&o, " %s", r->v->tok[c]);
  say(&o, " (any other token rejects the prefix it ends and every longer one)\n");
  say(&o, "minimal automaton: %d state%s, %d accepting\n", r->dfa.n, r->dfa.n == 1 ? "" : "s",
      nacc);
  if (r->cls.size) say(&o, "transition monoid: %lld elements (the syntactic monoid)\n",
                       (long long)r->cls.size);
  explain_class(&o, r);
  if (r->lowered > 0) {
    say(&o, "construction: a cascade of %d reset level%s (holonomy: %d image sets in %d "
        "classes, %d letters%s); circuit: %d nodes, %d attention head%s\n", r->info.levels,
        r->info.levels == 1 ? "" : "s", r->info.sets, r->info.classes, r->info.letters,
        r->modulus > 1 ? ", each symbol with its position mod d" : "", r->info.nodes,
        r->info.heads, r->info.heads == 1 ? "" : "s");
  } else if (r->lowered < 0) {
    say(&o, "%s\n", r->refuse);
  }
  if (buf && len) buf[o.pos < len ? o.pos : len - 1] = 0;
  return o.pos;
}
