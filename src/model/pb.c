/* SPDX-License-Identifier: MIT */
/* The protocol-buffers encoder of pb.h. */
#include "model/pb.h"

#include <stdlib.h>
#include <string.h>

void pb_free(pb_buf *b) {
  free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}

static int pb_grow(pb_buf *b, size_t more) {
  if (b->oom) return -1;
  if (more <= b->cap - b->n) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->n < more) {
    if (cap > SIZE_MAX / 2) { b->oom = 1; return -1; }
    cap *= 2;
  }
  uint8_t *p = realloc(b->p, cap);
  if (!p) { b->oom = 1; return -1; }
  b->p = p;
  b->cap = cap;
  return 0;
}

void pb_raw(pb_buf *b, const void *data, size_t len) {
  if (len == 0 || pb_grow(b, len)) return;
  memcpy(b->p + b->n, data, len);
  b->n += len;
}

void pb_varint(pb_buf *b, uint64_t v) {
  uint8_t tmp[10];
  size_t k = 0;
  do {
    tmp[k] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) tmp[k] |= 0x80;
    k++;
  } while (v);
  pb_raw(b, tmp, k);
}

static void pb_tag(pb_buf *b, uint32_t field, unsigned wire) {
  pb_varint(b, (uint64_t)field << 3 | wire);
}

void pb_int(pb_buf *b, uint32_t field, int64_t v) {
  pb_tag(b, field, 0);
  pb_varint(b, (uint64_t)v);
}

void pb_float(pb_buf *b, uint32_t field, float v) {
  uint32_t u;
  uint8_t le[4];
  memcpy(&u, &v, 4);
  for (int k = 0; k < 4; k++) le[k] = (uint8_t)(u >> 8 * k);
  pb_tag(b, field, 5);
  pb_raw(b, le, 4);
}

void pb_bytes(pb_buf *b, uint32_t field, const void *data, size_t len) {
  pb_tag(b, field, 2);
  pb_varint(b, len);
  pb_raw(b, data, len);
}

void pb_str(pb_buf *b, uint32_t field, const char *s) {
  pb_bytes(b, field, s, strlen(s));
}

void pb_msg(pb_buf *b, uint32_t field, const pb_buf *sub) {
  if (sub->oom) b->oom = 1;
  pb_bytes(b, field, sub->p, sub->n);
}
