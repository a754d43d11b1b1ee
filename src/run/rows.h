/* SPDX-License-Identifier: MIT */
/* Which layers of a pass compute every row. A layer's row i reads row i
 * of the stream and, through its heads' keys and values, every row of
 * it; so when only some positions' outputs are wanted (last_only,
 * edges_only), every layer from the last one with heads on needs just
 * those rows: the layers after it read the stream row by row, and its
 * own heads' keys and values come from the stream before it, which the
 * layers before computed in full. Each row gets the same bits either way
 * (a row's computation never depends on which other rows are computed).
 * Options that report on every row (keep_layers, want_attn_error,
 * want_gaps) keep that to the last layer, as it always was. */
#ifndef HS_RUN_ROWS_H
#define HS_RUN_ROWS_H

#include "model/model.h"

/* The first layer that computes only the asked positions (nlayers: none). */
static inline int hs_sparse_from(const hs_model *m, const hs_run_opts *o) {
  if (!o->last_only && !o->edges_only) return m->nlayers;
  if (o->keep_layers || o->want_attn_error || o->want_gaps)
    return m->nlayers > 0 ? m->nlayers - 1 : 0;
  int l = m->nlayers - 1;
  while (l > 0 && m->layers[l].nheads == 0) l--;
  return l > 0 ? l : 0;
}
#endif
