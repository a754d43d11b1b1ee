/* SPDX-License-Identifier: MIT */
/* What a file's first bytes say it is (hs_file_kind): the formats people
 * keep weights in, a model file where text was wanted, text where a model
 * was wanted. The doors word the advice (what to run instead). */
#include <stdio.h>
#include <string.h>

#include "hardsoft.h"

const char *hs_file_kind(const char *path) {
  unsigned char b[16] = {0};
  FILE *f = path ? fopen(path, "rb") : NULL;
  if (!f) return NULL;
  size_t n = fread(b, 1, sizeof b, f);
  fclose(f);
  const char *slash = strrchr(path, '/'), *dot = strrchr(slash ? slash : path, '.');
  /* safetensors: an 8-byte little-endian header length, then '{' */
  if (n >= 9 && b[8] == '{' && b[5] == 0 && b[6] == 0 && b[7] == 0) return "a model file (safetensors)";
  /* an ONNX ModelProto opens with ir_version (field 1, a small varint)
   * and then producer_name, a graph or an opset (fields 2, 7, 8) */
  int onnx = n >= 3 && b[0] == 0x08 && b[1] >= 1 && b[1] < 0x40 &&
             (b[2] == 0x12 || b[2] == 0x1a || b[2] == 0x3a || b[2] == 0x42);
  if (onnx || (dot && !strcmp(dot, ".onnx"))) return "an ONNX graph";
  if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) return "gzip-compressed";
  if (n >= 4 && !memcmp(b, "PK\3\4", 4)) return "a zip archive (a PyTorch .pt/.pth checkpoint is one)";
  if (n >= 6 && !memcmp(b, "\x93NUMPY", 6)) return "a NumPy array (.npy)";
  if (n >= 4 && !memcmp(b, "GGUF", 4)) return "a GGUF model (llama.cpp)";
  if (n >= 8 && !memcmp(b, "\x89HDF\r\n\x1a\n", 8)) return "an HDF5 file (Keras .h5?)";
  if (n >= 2 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5)
    return "a Python pickle (an older PyTorch checkpoint?)";
  size_t text = 0;
  for (size_t i = 0; i < n; i++)
    text += (b[i] >= 0x20 && b[i] < 0x7f) || b[i] == '\n' || b[i] == '\t' || b[i] == '\r';
  return n > 0 && text == n ? "text" : NULL;
}
