/* SPDX-License-Identifier: MIT */
/* Shared by the formula tests (header-only): the suite file
 * tests/formulas.txt and a generator of random formulas. */
#ifndef HS_TEST_FORMULAS_H
#define HS_TEST_FORMULAS_H

#include "common.h"

#define SUITE_MARKER "# --- position predicates and counting ---"

/* The suite's formulas (comments and blank lines skipped); marker is the
 * index of the first formula after SUITE_MARKER, or -1. The file is
 * $HARDSOFT_FORMULAS, else formulas.txt beside this header. */
typedef struct suite { char **line; int n, marker; } suite;

static inline suite load_suite(void) {
  char path[1024];
  const char *env = getenv("HARDSOFT_FORMULAS");
  if (env) snprintf(path, sizeof path, "%s", env);
  else {
    snprintf(path, sizeof path, "%s", __FILE__);
    char *slash = strrchr(path, '/');
    size_t off = slash ? (size_t)(slash + 1 - path) : 0;
    snprintf(path + off, sizeof path - off, "formulas.txt");
  }
  FILE *fp = fopen(path, "r");
  if (!fp) fail_msg("cannot open %s", path);
  suite s = {NULL, 0, -1};
  char buf[4096];
  while (fgets(buf, sizeof buf, fp)) {
    buf[strcspn(buf, "\r\n")] = 0;
    if (!strcmp(buf, SUITE_MARKER)) { s.marker = s.n; continue; }
    if (buf[0] == '#' || buf[strspn(buf, " \t")] == 0) continue;
    s.line = realloc(s.line, (size_t)(s.n + 1) * sizeof *s.line);
    s.line[s.n] = malloc(strlen(buf) + 1);
    strcpy(s.line[s.n++], buf);
  }
  fclose(fp);
  return s;
}

static inline void free_suite(suite *s) {
  for (int i = 0; i < s->n; i++) free(s->line[i]);
  free(s->line);
}

/* The suite, loaded once per test binary (at least 40 formulas). */
static inline const suite *the_suite(void) {
  static suite s;
  if (!s.n) {
    s = load_suite();
    assert_true(s.n >= 40);
  }
  return &s;
}

/* A random string over {a, b, c, #}: half of them uniform, half favouring
 * one symbol 90% of the time, so that the witnesses of S and U lie far
 * from the query. */
static inline void hs_random_string(hs_rng *r, uint8_t *s, size_t n) {
  static const uint8_t sym[4] = {'a', 'b', 'c', '#'};
  int fav = hs_rng_next(r) % 2 ? (int)(hs_rng_next(r) % 4) : -1;
  for (size_t i = 0; i < n; i++) {
    uint64_t x = hs_rng_next(r);
    s[i] = fav >= 0 && x % 10 ? sym[fav] : sym[(x >> 8) % 4];
  }
}

typedef struct sbuf { char *s; size_t n, cap; } sbuf;
static inline void sput(sbuf *b, const char *t) {
  size_t l = strlen(t);
  if (b->n + l + 1 > b->cap) {
    b->cap = (b->n + l + 1) * 2;
    b->s = realloc(b->s, b->cap);
  }
  memcpy(b->s + b->n, t, l + 1);
  b->n += l;
}

/* A random formula over every construct, with parentheses around every
 * operand (printing removes the ones precedence makes redundant): atoms
 * from `atoms` (6 of them), integer constants below `maxconst`. */
static inline void hs_gen_formula(hs_rng *r, sbuf *b, int depth,
                           const char *const atoms[6], int maxconst) {
  int k = (int)(hs_rng_next(r) % (depth <= 0 ? 6 : 22));
  char tmp[64];
  static const char *const un[] = {"!", "X ", "Y ", "F ", "G ", "O ", "H "};
  static const char *const bin[] = {" & ", " | ", " -> ", " <-> ", " U ", " S "};
  static const char *const rel[] = {"<", "<=", "=", "!=", ">=", ">"};
  switch (k) {
  case 0: case 1: case 2: sput(b, atoms[hs_rng_next(r) % 6]); break;
  case 3: sput(b, hs_rng_next(r) % 2 ? "true" : "false"); break;
  case 4: sput(b, hs_rng_next(r) % 2 ? "@first" : "@last"); break;
  case 5:
    snprintf(tmp, sizeof tmp, "@mod(%d,%d)", 1 + (int)(hs_rng_next(r) % 4),
             (int)(hs_rng_next(r) % 5));
    sput(b, tmp);
    break;
  case 6: case 7: case 8: case 9: case 10: case 11: case 12:
    sput(b, un[k - 6]);
    sput(b, "(");
    hs_gen_formula(r, b, depth - 1, atoms, maxconst);
    sput(b, ")");
    break;
  case 13: case 14: case 15: case 16: case 17: case 18: case 19: case 20:
    sput(b, "(");
    hs_gen_formula(r, b, depth - 1, atoms, maxconst);
    sput(b, ")");
    sput(b, bin[k >= 19 ? k - 15 : (k - 13) % 6]);
    sput(b, "(");
    hs_gen_formula(r, b, depth - 1, atoms, maxconst);
    sput(b, ")");
    break;
  default:
    for (int side = 0; side < 2; side++) {
      int nf = 1 + (int)(hs_rng_next(r) % 3);
      for (int f = 0; f < nf; f++) {
        int neg = hs_rng_next(r) % 2;
        if (f) sput(b, neg ? " - " : " + ");
        else if (neg) sput(b, "-");
        int kind = (int)(hs_rng_next(r) % 3);
        if (kind == 0) {
          snprintf(tmp, sizeof tmp, "%d", (int)(hs_rng_next(r) % (uint64_t)maxconst));
          sput(b, tmp);
          continue;
        }
        if (kind == 2) {
          snprintf(tmp, sizeof tmp, "%d*", (int)(hs_rng_next(r) % 4));
          sput(b, tmp);
        }
        sput(b, hs_rng_next(r) % 2 ? "#<(" : "#>(");
        hs_gen_formula(r, b, depth - 1, atoms, maxconst);
        sput(b, ")");
      }
      if (!side) {
        sput(b, " ");
        sput(b, rel[hs_rng_next(r) % 6]);
        sput(b, " ");
      }
    }
  }
}

#endif
