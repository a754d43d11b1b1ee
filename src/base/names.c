/* SPDX-License-Identifier: MIT */
#include "base/names.h"

#include <stdlib.h>
#include <string.h>

static size_t hash(const char *s, size_t len) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
  return (size_t)h;
}

/* The slot holding s, or the empty one it would go in (cap > 0). */
static hs_name_slot *slot_of(const hs_names *t, const char *s, size_t len) {
  size_t m = t->cap - 1;
  for (size_t i = hash(s, len) & m;; i = (i + 1) & m) {
    hs_name_slot *x = &t->slot[i];
    if (!x->s || (x->len == len && !memcmp(x->s, s, len))) return x;
  }
}

int32_t hs_names_find(const hs_names *t, const char *s, size_t len, int32_t none) {
  if (!t->cap) return none;
  const hs_name_slot *x = slot_of(t, s, len);
  return x->s ? x->id : none;
}

static int grow(hs_names *t) {
  hs_names g = {calloc(t->cap ? 2 * t->cap : 64, sizeof *g.slot), t->cap ? 2 * t->cap : 64, t->n};
  if (!g.slot) return -1;
  for (size_t i = 0; i < t->cap; i++)
    if (t->slot[i].s) *slot_of(&g, t->slot[i].s, t->slot[i].len) = t->slot[i];
  free(t->slot);
  *t = g;
  return 0;
}

int hs_names_add(hs_names *t, const char *s, size_t len, int32_t id) {
  if ((t->n + 1) * 2 > t->cap && grow(t)) return -1;
  *slot_of(t, s, len) = (hs_name_slot){s, len, id};
  t->n++;
  return 0;
}

void hs_names_free(hs_names *t) {
  free(t->slot);
  memset(t, 0, sizeof *t);
}
