/* SPDX-License-Identifier: MIT */
/* Input lines as the bytes a model reads (hs_model_encode,
 * hs_program_encode): whitespace-separated tokens, each the byte its
 * vocabulary gives it, or itself when there is no vocabulary and it is one
 * byte long. Anything else is an unknown token: an error naming it, its
 * place and the vocabulary, unless the caller asked for `other` (a byte
 * no token uses, which makes every atom false). The message is built to
 * fit hs_error.msg whole: the token, the split and the vocabulary are
 * each cut to a share of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/model.h"

static int space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static int find(const hs_tokens *t, const char *s, size_t len) {
  for (int k = 0; k < t->n; k++)
    if (strlen(t->tok[k]) == len && memcmp(t->tok[k], s, len) == 0) return k;
  return -1;
}

/* s[0..len) quoted for a message, at most `max` bytes of it (then "..."),
 * control bytes and bytes past 0x7e as \xNN. */
static void quote(char *buf, size_t cap, const char *s, size_t len, size_t max) {
  size_t o = 0;
  for (size_t i = 0; i < len && i < max && o + 8 < cap; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c > 0x7e) o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c);
    else buf[o++] = (char)c;
  }
  if (len > max && o + 4 < cap) memcpy(buf + o, "...", 3), o += 3;
  buf[o] = 0;
}

/* The tokens whose concatenation is s[0..len), spaced, into buf (cut
 * at a token with "..." when long); 0 when there is no such split or it
 * is one token. Dynamic programming over the prefixes. */
static int split(const hs_tokens *t, const char *s, size_t len, char *buf, size_t cap) {
  if (t->bytes || len > 4096) return 0;
  int *from = malloc((len + 1) * sizeof *from); /* token ending a split prefix */
  if (!from) return 0;
  for (size_t i = 0; i <= len; i++) from[i] = -2;
  from[0] = -1;
  for (size_t i = 0; i < len; i++) {
    if (from[i] == -2) continue;
    for (int k = 0; k < t->n; k++) {
      size_t l = strlen(t->tok[k]);
      if (l <= len - i && from[i + l] == -2 && memcmp(t->tok[k], s + i, l) == 0)
        from[i + l] = k;
    }
  }
  int ok = from[len] >= 0 && strlen(t->tok[from[len]]) < len;
  int *seq = ok ? malloc(len * sizeof *seq) : NULL;
  size_t m = 0, o = 0;
  for (size_t i = len; seq && i > 0; i -= strlen(t->tok[from[i]])) seq[m++] = from[i];
  for (size_t j = m; seq && j-- > 0;) {
    const char *tok = t->tok[seq[j]];
    if (o + strlen(tok) + 5 >= cap) {
      snprintf(buf + o, cap - o, " ...");
      break;
    }
    o += (size_t)snprintf(buf + o, cap - o, "%s%s", j + 1 < m ? " " : "", tok);
  }
  free(seq);
  free(from);
  return ok && m > 0;
}

/* The vocabulary as "a b c" (cut with ", ... (N tokens)" when long). */
static void vocab_text(const hs_tokens *t, char *buf, size_t cap) {
  size_t o = 0;
  int k = 0;
  if (t->n == 0) snprintf(buf, cap, "(empty: the program names no token)");
  for (; k < t->n; k++) {
    char q[48];
    quote(q, sizeof q, t->tok[k], strlen(t->tok[k]), 24);
    if (o + strlen(q) + 24 >= cap) break;
    o += (size_t)snprintf(buf + o, cap - o, "%s%s", k ? " " : "", q);
  }
  if (k < t->n) snprintf(buf + o, cap - o, " ... (%d tokens)", t->n);
}

static int unknown_token(const hs_tokens *t, const char *tok, size_t len, size_t index,
                         size_t at, hs_error *err) {
  /* each part cut to a share of hs_error.msg: the longest message, every
   * part at its cap, is 238 bytes */
  char q[40], sp[48], voc[112];
  quote(q, sizeof q, tok, len, 30);
  int column = at + 1 <= 0x7fffffff ? (int)(at + 1) : 0;
  if (t->bytes)
    return hs_error_at(err, HS_ERR_PARSE, 0, column,
                       "token '%s' (token %zu, byte %zu) is longer than one byte: a "
                       "model without a vocabulary reads one byte per token", q,
                       index, at + 1);
  if (split(t, tok, len, sp, sizeof sp)) {
    vocab_text(t, voc, 48);
    return hs_error_at(err, HS_ERR_PARSE, 0, column,
                       "unknown token '%s' (token %zu, byte %zu): it is '%s' run "
                       "together; separate tokens by spaces (vocabulary: %s)", q,
                       index, at + 1, sp, voc);
  }
  vocab_text(t, voc, sizeof voc);
  return hs_error_at(err, HS_ERR_PARSE, 0, column,
                     "unknown token '%s' (token %zu, byte %zu): not in the "
                     "vocabulary %s", q, index, at + 1, voc);
}

int hs_tokens_encode(const hs_tokens *t, const char *line, size_t len,
                     hs_unknown unknown, uint8_t *out, size_t *n, hs_error *err) {
  size_t k = 0;
  *n = 0;
  for (size_t i = 0; i < len;) {
    while (i < len && space(line[i])) i++;
    size_t j = i;
    while (j < len && !space(line[j])) j++;
    if (j == i) break;
    int v = find(t, line + i, j - i);
    int b = v >= 0 ? t->byte[v] : t->bytes && j - i == 1 ? (uint8_t)line[i] : -1;
    if (b < 0 && unknown != HS_UNKNOWN_OTHER)
      return unknown_token(t, line + i, j - i, k + 1, i, err);
    out[k++] = (uint8_t)(b >= 0 ? b : t->other);
    i = j;
  }
  *n = k;
  return 0;
}
