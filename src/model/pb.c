/* SPDX-License-Identifier: MIT */
/* The protocol-buffers encoder of pb.h. */
#include "model/pb.h"

#include <stdlib.h>
#include <string.h>

void hs_pb_free(hs_pb_buf *b) {
  free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}

static int pb_grow(hs_pb_buf *b, size_t more) {
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

void hs_pb_raw(hs_pb_buf *b, const void *data, size_t len) {
  if (len == 0 || pb_grow(b, len)) return;
  memcpy(b->p + b->n, data, len);
  b->n += len;
}

void hs_pb_varint(hs_pb_buf *b, uint64_t v) {
  uint8_t tmp[10];
  size_t k = 0;
  do {
    tmp[k] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) tmp[k] |= 0x80;
    k++;
  } while (v);
  hs_pb_raw(b, tmp, k);
}

static void pb_tag(hs_pb_buf *b, uint32_t field, unsigned wire) {
  hs_pb_varint(b, (uint64_t)field << 3 | wire);
}

void hs_pb_int(hs_pb_buf *b, uint32_t field, int64_t v) {
  pb_tag(b, field, 0);
  hs_pb_varint(b, (uint64_t)v);
}

void hs_pb_float(hs_pb_buf *b, uint32_t field, float v) {
  uint32_t u;
  uint8_t le[4];
  memcpy(&u, &v, 4);
  for (int k = 0; k < 4; k++) le[k] = (uint8_t)(u >> 8 * k);
  pb_tag(b, field, 5);
  hs_pb_raw(b, le, 4);
}

void hs_pb_bytes(hs_pb_buf *b, uint32_t field, const void *data, size_t len) {
  pb_tag(b, field, 2);
  hs_pb_varint(b, len);
  hs_pb_raw(b, data, len);
}

void hs_pb_str(hs_pb_buf *b, uint32_t field, const char *s) {
  hs_pb_bytes(b, field, s, strlen(s));
}

void hs_pb_msg(hs_pb_buf *b, uint32_t field, const hs_pb_buf *sub) {
  if (sub->oom) b->oom = 1;
  hs_pb_bytes(b, field, sub->p, sub->n);
}
