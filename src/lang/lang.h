/* SPDX-License-Identifier: MIT */
/* What the front ends share (internal). Each language (src/lang/ltl,
 * src/lang/crasp, src/lang/brasp) is a parser, a direct interpreter (the
 * ground truth) and a lowering into the circuit (src/circuit/), through
 * the LTL formula DAG of src/lang/ltl/formula.h (LTL, for hs_compile) or
 * straight (C-RASP, B-RASP, regular expressions, for hs_program_compile),
 * from which every mode is built: nothing downstream of
 * the lowering knows which language a model came from.
 *
 * Programs read tokens, formulas read bytes; both reach the model as
 * bytes. A vocabulary gives each token a program names the byte the model
 * reads for it: a one-byte token is that byte (so a program over a, b, (
 * and ) also runs on plain byte strings), a longer token the next byte
 * from 0x80 up that no token uses. An input token the program never names
 * is refused, or, when the caller asks for it, read as `other`, a byte no
 * token uses, which makes every atom false (hs_tokens_encode,
 * src/model/tokens.c). */
#ifndef HS_LANG_H
#define HS_LANG_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "hardsoft.h"

typedef struct hs_vocab {
  int n;            /* tokens, in the order first named */
  char *tok[256];   /* NUL-terminated copies */
  uint8_t byte[256];
  uint8_t used[256]; /* used[b]: some token is byte b */
} hs_vocab;

/* The byte of token tok[0..len): an existing entry, or a new one;
 * HS_VOCAB_FULL when all 256 bytes are taken (or len is 0),
 * HS_VOCAB_NOMEM when out of memory. */
enum { HS_VOCAB_FULL = -1, HS_VOCAB_NOMEM = -2 };
int hs_vocab_add(hs_vocab *v, const char *tok, size_t len);
/* The byte of a token, or -1 when the vocabulary does not name it. */
int hs_vocab_find(const hs_vocab *v, const char *tok, size_t len);
/* A byte no token uses (the first free one from 0xFF down; 0 when all
 * 256 are used, which hs_vocab_add never allows past 255 tokens). */
uint8_t hs_vocab_other(const hs_vocab *v);
void hs_vocab_free(hs_vocab *v);

/* Room for one more in the array a of *cap elements of elem bytes, n of
 * them used, as the parsers grow their node arrays: a itself while n <
 * *cap, else a grown to twice the capacity (64 when empty). NULL when
 * out of memory or past INT32_MAX elements, with a and *cap untouched. */
static inline void *hs_lang_grow(void *a, int32_t n, int32_t *cap, size_t elem) {
  if (n < *cap) return a;
  if (*cap > INT32_MAX / 2) return NULL;
  int32_t c = *cap ? *cap * 2 : 64;
  void *b = realloc(a, (size_t)c * elem);
  if (b) *cap = c;
  return b;
}

/* What a RASP-like front end lowers into: a circuit built when the program
 * is read (src/circuit/circuit.h), which hs_program_compile compiles. */
typedef struct hs_prebuilt hs_prebuilt;
/* The circuit of a parsed program, NULL for LTL and for a program whose
 * lowering failed or was refused (src/lang/program.c). */
const hs_prebuilt *hs_program_circuit(const hs_program *p);

#endif
