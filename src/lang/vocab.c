/* SPDX-License-Identifier: MIT */
/* Token vocabularies (the contract is in src/lang/lang.h). */
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"

int hs_vocab_find(const hs_vocab *v, const char *tok, size_t len) {
  for (int k = 0; k < v->n; k++)
    if (strlen(v->tok[k]) == len && memcmp(v->tok[k], tok, len) == 0) return v->byte[k];
  return -1;
}

int hs_vocab_add(hs_vocab *v, const char *tok, size_t len) {
  int b = hs_vocab_find(v, tok, len);
  if (b >= 0) return b;
  /* keep one byte free for `other` */
  if (v->n >= 255 || len == 0) return HS_VOCAB_FULL;
  if (len == 1 && !v->used[(uint8_t)tok[0]]) {
    b = (uint8_t)tok[0];
  } else {
    for (b = 0x80; b < 256 && v->used[b]; b++) {}
    if (b == 256) {
      for (b = 1; b < 0x80 && v->used[b]; b++) {}
      if (b == 0x80) return HS_VOCAB_FULL;
    }
  }
  char *copy = malloc(len + 1);
  if (!copy) return HS_VOCAB_NOMEM;
  memcpy(copy, tok, len);
  copy[len] = 0;
  v->tok[v->n] = copy;
  v->byte[v->n++] = (uint8_t)b;
  v->used[b] = 1;
  return b;
}

uint8_t hs_vocab_other(const hs_vocab *v) {
  for (int b = 255; b > 0; b--)
    if (!v->used[b]) return (uint8_t)b;
  return 0;
}

void hs_vocab_free(hs_vocab *v) {
  for (int k = 0; k < v->n; k++) free(v->tok[k]);
  v->n = 0;
}
