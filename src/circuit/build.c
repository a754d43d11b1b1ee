/* SPDX-License-Identifier: MIT */
/* Building a circuit: nodes are hash-consed, so a sub-computation two
 * constructs share (the same gate, head or count) is computed once; and
 * naming them for people. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/circuit.h"

void hs_circuit_init(hs_circuit *B, const hs_compile_opts *o) {
  memset(B, 0, sizeof *B);
  B->o = *o;
  for (int k = 0; k < HS_PF_COUNT_; k++) B->pf_coord[k] = -1;
}

void hs_circuit_free(hs_circuit *B) {
  for (int i = 0; i < B->n; i++) {
    free(B->c[i].ins);
    free(B->c[i].coef);
  }
  free(B->c);
  free(B->slot);
  free(B->mods);
}

/* Equality is what makes two nodes one: a sign by its source and variant
 * (its terms follow from them), anything else by every field that shapes
 * its value. The hash reads the same fields. */
static int cnode_eq(const hs_cnode *x, const hs_cnode *y) {
  if (x->kind == HS_C_SIGN || y->kind == HS_C_SIGN)
    return x->kind == y->kind && x->src == y->src && x->k == y->k;
  return x->kind == y->kind && x->g == y->g && x->a == y->a && x->b == y->b &&
         x->sym == y->sym && x->pf == y->pf && x->k == y->k && x->r == y->r &&
         x->right == y->right && x->mask == y->mask && x->sel == y->sel &&
         x->val == y->val;
}

static uint64_t mix(uint64_t h, int64_t v) {
  h ^= (uint64_t)v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xBF58476D1CE4E5B9ull;
}

static uint64_t cnode_hash(const hs_cnode *x) {
  uint64_t h = mix(0, x->kind);
  if (x->kind == HS_C_SIGN) return mix(mix(h, x->src), x->k);
  int64_t f[] = {x->g, x->a, x->b, x->sym, x->pf, x->k, x->r, x->right, x->mask,
                 x->sel, x->val};
  for (size_t i = 0; i < sizeof f / sizeof *f; i++) h = mix(h, f[i]);
  return h;
}

/* The slot holding a node equal to n, or the empty slot where it goes. */
static size_t find_slot(const hs_circuit *B, const hs_cnode *n) {
  size_t i = (size_t)cnode_hash(n) & (B->nslot - 1);
  while (B->slot[i] >= 0 && !cnode_eq(&B->c[B->slot[i]], n))
    i = (i + 1) & (B->nslot - 1);
  return i;
}

static int rehash(hs_circuit *B, size_t ns) {
  int *s = malloc(ns * sizeof *s);
  if (!s) return -1;
  free(B->slot);
  B->slot = s;
  B->nslot = ns;
  for (size_t i = 0; i < ns; i++) s[i] = -1;
  for (int id = 0; id < B->n; id++) s[find_slot(B, &B->c[id])] = id;
  return 0;
}

/* Keeps the table at most half full. */
static int grow_slots(hs_circuit *B) {
  if ((size_t)(B->n + 1) * 2 <= B->nslot) return 0;
  return rehash(B, B->nslot ? 2 * B->nslot : 128);
}

int hs_circuit_add(hs_circuit *B, hs_cnode n) {
  if (B->nslot) {
    int id = B->slot[find_slot(B, &n)];
    if (id >= 0) {
      if (B->c[id].src < 0) B->c[id].src = n.src;
      return id;
    }
  }
  if (grow_slots(B) != 0) { B->oom = 1; return 0; }
  if (B->n == B->cap) {
    int cap = B->cap ? 2 * B->cap : 64;
    hs_cnode *c = realloc(B->c, (size_t)cap * sizeof *c);
    if (!c) { B->oom = 1; return 0; }
    B->c = c;
    B->cap = cap;
  }
  n.coord = n.scratch = -1;
  B->c[B->n] = n;
  B->slot[find_slot(B, &n)] = B->n;
  return B->n++;
}

hs_cnode hs_cnode_blank(hs_ckind k, int32_t src) {
  hs_cnode n;
  memset(&n, 0, sizeof n);
  n.kind = k;
  n.a = n.b = n.sel = n.val = -1;
  n.src = src;
  return n;
}

int hs_circuit_gate(hs_circuit *B, hs_gkind g, int a, int b, int32_t src) {
  hs_cnode n = hs_cnode_blank(HS_C_GATE, src);
  n.g = g;
  n.a = a;
  n.b = b;
  return hs_circuit_add(B, n);
}

int hs_circuit_head(hs_circuit *B, int right, hs_mask mask, int sel, int val,
                int32_t src) {
  hs_cnode n = hs_cnode_blank(HS_C_HEAD, src);
  n.right = right;
  n.mask = mask;
  n.sel = sel;
  n.val = val;
  return hs_circuit_add(B, n);
}

int hs_circuit_pf(hs_circuit *B, hs_pf_kind kind, int64_t k, int64_t r,
                   int32_t src) {
  hs_cnode n = hs_cnode_blank(HS_C_PF, src);
  n.pf = kind;
  n.k = k;
  n.r = r;
  return hs_circuit_add(B, n);
}

int hs_circuit_count(hs_circuit *B, int past, int val, int common) {
  hs_cnode n = hs_cnode_blank(HS_C_COUNT, -1);
  n.right = past;
  n.val = val;
  n.k = common;
  return hs_circuit_add(B, n);
}

int hs_circuit_sign(hs_circuit *B, int32_t src, int variant, int r, int nin,
                    const int *ins, const double *coef) {
  hs_cnode n = hs_cnode_blank(HS_C_SIGN, src);
  n.k = variant;
  n.a = r;
  int at = hs_circuit_add(B, n);
  if (B->oom || B->c[at].ins) return at;
  hs_cnode *s = &B->c[at];
  s->nin = nin;
  s->ins = malloc((size_t)nin * sizeof *s->ins);
  s->coef = malloc((size_t)nin * sizeof *s->coef);
  if (!s->ins || !s->coef) { B->oom = 1; return at; }
  memcpy(s->ins, ins, (size_t)nin * sizeof *ins);
  memcpy(s->coef, coef, (size_t)nin * sizeof *coef);
  return at;
}

int hs_circuit_keep(hs_circuit *B, int *root) {
  int *map = calloc((size_t)B->n + 1, sizeof *map);
  if (!map) return -1;
  map[*root] = 1;
  for (int i = B->n - 1; i >= 0; i--) { /* inputs precede their users */
    const hs_cnode *n = &B->c[i];
    if (!map[i]) continue;
    int in[] = {n->a, n->b, n->sel, n->val};
    for (int k = 0; k < 4; k++)
      if (in[k] >= 0) map[in[k]] = 1;
    for (int t = 0; t < n->nin; t++) map[n->ins[t]] = 1;
  }
  int m = 0;
  for (int i = 0; i < B->n; i++) {
    hs_cnode n = B->c[i];
    if (!map[i]) { free(n.ins); free(n.coef); continue; }
    int *in[] = {&n.a, &n.b, &n.sel, &n.val};
    for (int k = 0; k < 4; k++)
      if (*in[k] >= 0) *in[k] = map[*in[k]] - 1;
    for (int t = 0; t < n.nin; t++) n.ins[t] = map[n.ins[t]] - 1;
    B->c[m] = n;
    map[i] = ++m;
  }
  *root = map[*root] - 1;
  B->n = m;
  free(map);
  size_t ns = 128;
  while (ns < (size_t)(m + 1) * 2) ns *= 2;
  return rehash(B, ns);
}

int hs_circuit_copy(hs_circuit *dst, const hs_circuit *src, const hs_compile_opts *o) {
  hs_circuit_init(dst, o);
  dst->source = src->source;
  dst->name_src = src->name_src;
  dst->name_ctx = src->name_ctx;
  dst->c = malloc((size_t)(src->cap ? src->cap : 1) * sizeof *dst->c);
  dst->slot = malloc((src->nslot ? src->nslot : 1) * sizeof *dst->slot);
  if (!dst->c || !dst->slot) return -1;
  memcpy(dst->slot, src->slot, src->nslot * sizeof *dst->slot);
  dst->nslot = src->nslot;
  dst->cap = src->cap;
  for (int i = 0; i < src->n; i++, dst->n++) {
    hs_cnode *n = &dst->c[i];
    *n = src->c[i];
    if (!n->nin) continue;
    n->ins = malloc((size_t)n->nin * sizeof *n->ins);
    n->coef = malloc((size_t)n->nin * sizeof *n->coef);
    if (!n->ins || !n->coef) { dst->n++; return -1; }
    memcpy(n->ins, src->c[i].ins, (size_t)n->nin * sizeof *n->ins);
    memcpy(n->coef, src->c[i].coef, (size_t)n->nin * sizeof *n->coef);
  }
  return 0;
}

static void name_label(const void *ctx, int32_t src, char *buf, size_t len) {
  snprintf(buf, len, "%s", ((const hs_prebuilt *)ctx)->label[src]);
}

hs_prebuilt *hs_prebuilt_new(void) {
  hs_prebuilt *P = calloc(1, sizeof *P);
  if (!P) return NULL;
  hs_compile_opts o = {HS_MODE_HARD, 1, HS_SIGN_LAYERNORM};
  hs_circuit_init(&P->C, &o);
  P->C.name_src = name_label;
  P->C.name_ctx = P;
  P->root = -1;
  return P;
}

int hs_prebuilt_label(hs_prebuilt *P, const char *fmt, ...) {
  if (P->nlabel == P->caplabel) {
    int cap = P->caplabel ? 2 * P->caplabel : 64;
    char **l = realloc(P->label, (size_t)cap * sizeof *l);
    if (!l) { P->C.oom = 1; return -1; }
    P->label = l;
    P->caplabel = cap;
  }
  char buf[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (!(P->label[P->nlabel] = hs_cstrdup(buf))) { P->C.oom = 1; return -1; }
  return P->nlabel++;
}

void hs_prebuilt_free(hs_prebuilt *P) {
  if (!P) return;
  for (int i = 0; i < P->nlabel; i++) free(P->label[i]);
  free(P->label);
  free(P->depth);
  free(P->text);
  hs_circuit_free(&P->C);
  free(P);
}

int hs_circuit_sign_of(hs_circuit *B, int32_t src, int variant, int r, int nt,
                       const int *cnt, const int64_t *coef, int64_t c) {
  double sg = variant < 2 ? 1 : -1, delta = variant % 2 == 0 ? -0.5 : 0.5;
  int *ins = malloc((size_t)(nt + 1) * sizeof *ins), at = 0;
  double *w = malloc((size_t)(nt + 1) * sizeof *w);
  if (!ins || !w) {
    B->oom = 1;
  } else {
    for (int t = 0; t < nt; t++) {
      ins[t] = cnt[t];
      w[t] = sg * (double)coef[t];
    }
    ins[nt] = r;
    w[nt] = sg * (double)c + delta;
    at = hs_circuit_sign(B, src, variant, r, nt + 1, ins, w);
  }
  free(ins);
  free(w);
  return at;
}

int hs_prebuilt_vadd(hs_prebuilt *P, hs_cnode n, int *depth, const char *fmt,
                     va_list ap) {
  int id = hs_circuit_add(&P->C, n);
  if (!P->C.oom && P->C.c[id].src < 0) {
    char buf[200];
    vsnprintf(buf, sizeof buf, fmt, ap);
    P->C.c[id].src = hs_prebuilt_label(P, "%s", buf);
  }
  if (P->C.oom || (*depth = hs_prebuilt_depth(P, id)) < 0) return -1;
  return id;
}

const char *hs_prebuilt_name(const hs_prebuilt *P, int id) {
  int src = P->C.c[id].src;
  return src >= 0 ? P->label[src] : "?";
}

const char *hs_prebuilt_operand(const hs_prebuilt *P, int id, char *buf, size_t len) {
  const char *t = hs_prebuilt_name(P, id);
  if (!strchr(t, ' ')) return t;
  snprintf(buf, len, "(%s)", t);
  return buf;
}

int hs_prebuilt_rename(hs_prebuilt *P, int id, int since, const char *name) {
  int src = P->C.c[id].src;
  if (id < since || src < 0) return 0;
  char *s = hs_cstrdup(name);
  if (!s) return -1;
  free(P->label[src]);
  P->label[src] = s;
  return 0;
}

int hs_prebuilt_depth(hs_prebuilt *P, int id) {
  const hs_circuit *C = &P->C;
  if (C->n > P->capdepth) {
    int cap = P->capdepth ? 2 * P->capdepth : 256;
    while (cap < C->n) cap *= 2;
    int *d = realloc(P->depth, (size_t)cap * sizeof *d);
    if (!d) return -1;
    P->depth = d;
    P->capdepth = cap;
  }
  for (; P->ndepth <= id; P->ndepth++) { /* inputs precede their users */
    const hs_cnode *n = &C->c[P->ndepth];
    int d = 0, in[] = {n->a, n->b, n->sel, n->val};
    for (int k = 0; k < 4; k++)
      if (in[k] >= 0 && P->depth[in[k]] > d) d = P->depth[in[k]];
    for (int t = 0; t < n->nin; t++)
      if (P->depth[n->ins[t]] > d) d = P->depth[n->ins[t]];
    P->depth[P->ndepth] = d + 1;
  }
  return P->depth[id];
}

/* ------------------------------------------------------ naming */

char *hs_cstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

void hs_circuit_name(const hs_circuit *B, int id, char *buf, size_t len) {
  const hs_cnode *n = &B->c[id];
  if (n->src >= 0 && B->name_src) {
    B->name_src(B->name_ctx, n->src, buf, len);
    return;
  }
  char x[200] = "", y[200] = "";
  if (n->a >= 0) hs_circuit_name(B, n->a, x, sizeof x);
  if (n->b >= 0) hs_circuit_name(B, n->b, y, sizeof y);
  switch (n->kind) {
    case HS_C_GATE:
      if (n->g == HS_G_NOT) snprintf(buf, len, "!(%s)", x);
      else if (n->g == HS_G_IMPLIES) snprintf(buf, len, "(%s) -> (%s)", x, y);
      else snprintf(buf, len, "hs_circuit_gate(%s, %s)", x, y);
      return;
    case HS_C_HEAD:
      hs_circuit_name(B, n->val, x, sizeof x);
      snprintf(buf, len, "%s(%s)", n->right ? "O" : "F", x);
      return;
    case HS_C_PF: snprintf(buf, len, "%s", hs_pf_kind_name(n->pf)); return;
    case HS_C_COUNT: {
      const char *den = n->k || n->right == 2 ? "(n+1)"
                        : n->right ? "(i+1)" : "(n-i+2)";
      if (n->val >= 0) hs_circuit_name(B, n->val, x, sizeof x);
      if (n->val >= 0)
        snprintf(buf, len, "#%c(%s) / %s", n->right ? '<' : '>', x, den);
      else
        snprintf(buf, len, "1 / %s", den);
      return;
    }
    default: snprintf(buf, len, "?"); return;
  }
}

const char *hs_mask_text(hs_mask m) {
  switch (m) {
    case HS_MASK_LE: return "j <= i";
    case HS_MASK_LT: return "j < i";
    case HS_MASK_GE: return "j >= i";
    case HS_MASK_GT: return "j > i";
    default: return "all j";
  }
}

char *hs_head_desc(const hs_circuit *B, const hs_cnode *n) {
  char sel[256] = "any position", val[256], buf[700];
  if (n->sel >= 0) hs_circuit_name(B, n->sel, sel, sizeof sel);
  hs_circuit_name(B, n->val, val, sizeof val);
  snprintf(buf, sizeof buf, "%s %s where %s; reads %s",
           n->right ? "rightmost" : "leftmost", hs_mask_text(n->mask), sel, val);
  return hs_cstrdup(buf);
}
