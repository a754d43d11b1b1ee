/* SPDX-License-Identifier: MIT */
/* The run's memory, predicted before running (hs_model_run_bytes): what
 * the command line's --max-memory and the progress lines check. It sits
 * beside the forward pass whose allocations it mirrors; a change to those
 * belongs here too. */
#include <stdint.h>

#include "model/model.h"

/* Mirrors the accounting of the forward pass (src/run/forward-impl.h): the
 * weights in the working precision, the residual stream, each thread's
 * scratch for a chunk of 32 rows (HS_ROW_CHUNK there: attention outputs,
 * d-wide products, hidden units) and every head's queries, keys and
 * values (keys and values with their extra BOS row; softmax heads' dk
 * padded from 3 to 4 and 5..7 to 8, as hs_dkp does), plus the
 * per-position outputs of the run. */
size_t hs_model_run_bytes(const hs_model *m, size_t n, hs_precision prec,
                          int threads) {
  double r = prec == HS_PREC_F64 ? 8 : 4, d = m->d, np = (double)n + 1;
  double w = HS_VOCAB * d, qkv = 0, hid = 1, ow = 1;
  for (int l = 0; l < m->nlayers; l++) {
    const hs_layer *L = &m->layers[l];
    double layer = 0, lw = 0;
    for (int h = 0; h < L->nheads; h++) {
      const hs_head *H = &L->heads[h];
      double dk = H->dk;
      if (H->kind == HS_ATTN_SOFTMAX && H->dk == 3) dk = 4;
      if (H->kind == HS_ATTN_SOFTMAX && H->dk > 4 && H->dk < 8) dk = 8;
      w += (2.0 * dk + 2.0 * H->dv) * d;
      layer += np * dk + (np + 1) * (dk + H->dv);
      lw += H->dv;
    }
    if (layer > qkv) qkv = layer;
    if (lw > ow) ow = lw;
    w += 2.0 * L->hidden * d + L->hidden + d;
    if (L->hidden > hid) hid = L->hidden;
  }
  double t = threads > 1 ? threads : 1;
  double bytes = r * (w + np * d + qkv + t * 32 * (d + hid + ow)) +
                 (double)n * (1 + sizeof(double));
  return bytes < (double)SIZE_MAX / 2 ? (size_t)bytes : SIZE_MAX;
}
