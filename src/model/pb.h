/* SPDX-License-Identifier: MIT */
/* A minimal protocol-buffers encoder (internal): just what the ONNX writer
 * (src/model/onnx.c) needs. A message is built in a growing byte buffer;
 * a nested message is built in its own buffer and appended as a
 * length-delimited field. Wire types: 0 varint, 1 fixed64, 2
 * length-delimited, 5 fixed32. Out of memory is sticky: every later call
 * on the buffer does nothing and hs_pb_buf.oom stays set, so a writer checks
 * once at the end. */
#ifndef HS_PB_H
#define HS_PB_H

#include <stddef.h>
#include <stdint.h>

typedef struct hs_pb_buf {
  uint8_t *p;
  size_t n, cap;
  int oom;
} hs_pb_buf;

void hs_pb_free(hs_pb_buf *b);
/* Raw bytes (no tag). */
void hs_pb_raw(hs_pb_buf *b, const void *data, size_t len);
void hs_pb_varint(hs_pb_buf *b, uint64_t v);
/* Field `field` as a varint (int32/int64/enum: negative values take ten
 * bytes, as protobuf encodes them). */
void hs_pb_int(hs_pb_buf *b, uint32_t field, int64_t v);
/* Field as fixed32 holding a float's bits (little-endian). */
void hs_pb_float(hs_pb_buf *b, uint32_t field, float v);
/* Length-delimited field: bytes, a string (without its NUL), or a nested
 * message (sub's bytes; sub's oom carries over to b). */
void hs_pb_bytes(hs_pb_buf *b, uint32_t field, const void *data, size_t len);
void hs_pb_str(hs_pb_buf *b, uint32_t field, const char *s);
void hs_pb_msg(hs_pb_buf *b, uint32_t field, const hs_pb_buf *sub);

#endif
