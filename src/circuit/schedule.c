/* SPDX-License-Identifier: MIT */
/* Where each node lives: its coordinate of the residual stream (and a
 * scratch coordinate for a head's raw output), and the sublayer it runs
 * in, as early as its inputs allow. */
#include <stdlib.h>

#include "circuit/circuit.h"


int hs_circuit_coord(hs_circuit *B) { return B->d++; }

int hs_circuit_feature(hs_circuit *B, hs_pf_kind kind, int64_t k, int64_t r) {
  if (kind != HS_PF_MOD) {
    if (B->pf_coord[kind] < 0) B->pf_coord[kind] = hs_circuit_coord(B);
    return B->pf_coord[kind];
  }
  for (int i = 0; i < B->nmods; i++)
    if (B->mods[i].k == k && B->mods[i].r == r) return B->mods[i].coord;
  void *p = realloc(B->mods, (size_t)(B->nmods + 1) * sizeof *B->mods);
  if (!p) { B->oom = 1; return 0; }
  B->mods = p;
  B->mods[B->nmods].k = k;
  B->mods[B->nmods].r = r;
  return B->mods[B->nmods++].coord = hs_circuit_coord(B);
}

static int maxi(int a, int b) { return a > b ? a : b; }

/* Sublayer schedule: sublayer 2l is layer l's attention, 2l+1 its
 * feed-forward. A gate runs in the first feed-forward sublayer after its
 * inputs are final; a head's attention in the first attention sublayer
 * after its selector and value are final, its rounding right after. A
 * count is final right after its attention (no rounding: it holds #/D). */
static int first_ffn(int r) { return (r + 1) | 1; }
static int first_attn(int r) { return (r + 2) & ~1; }

static void schedule_nodes(hs_circuit *B) {
  for (int i = 0; i < B->n; i++) {
    hs_cnode *n = &B->c[i];
    int r = -1;
    n->attn_at = n->ffn_at = -1;
    switch (n->kind) {
      case HS_C_GATE:
        r = B->c[n->a].ready;
        if (n->b >= 0) r = maxi(r, B->c[n->b].ready);
        n->ready = n->ffn_at = first_ffn(r);
        break;
      case HS_C_HEAD:
        r = B->c[n->val].ready;
        if (n->sel >= 0) r = maxi(r, B->c[n->sel].ready);
        n->attn_at = first_attn(r);
        n->ready = n->ffn_at = n->attn_at + 1;
        break;
      case HS_C_COUNT:
        r = n->val >= 0 ? B->c[n->val].ready : -1;
        n->ready = n->attn_at = first_attn(r);
        break;
      case HS_C_SIGN:
        for (int t = 0; t < n->nin; t++) r = maxi(r, B->c[n->ins[t]].ready);
        if (B->o.sign == HS_SIGN_TEMP) {
          n->attn_at = first_attn(r);
          n->ready = n->ffn_at = n->attn_at + 1;
        } else {
          n->ready = n->ffn_at = first_ffn(r);
        }
        break;
      default: n->ready = -1;
    }
  }
}

int hs_circuit_coords(hs_circuit *B) {
  /* coordinates: features first, then every circuit node, heads with a
   * scratch coordinate for the raw attention output */
  hs_circuit_feature(B, HS_PF_ONE, 0, 0);
  hs_circuit_feature(B, HS_PF_BOS, 0, 0);
  int nheads_total = 0;
  for (int i = 0; i < B->n; i++) nheads_total += B->c[i].kind == HS_C_HEAD;
  if (B->o.sign == HS_SIGN_TEMP)
    for (int i = 0; i < B->n; i++)
      if (B->c[i].kind == HS_C_SIGN) B->c[i].scratch = -2; /* wants one */
  if (nheads_total > 0) {
    if (B->o.mode == HS_MODE_PE) {
      hs_circuit_feature(B, HS_PF_I, 0, 0);
      hs_circuit_feature(B, HS_PF_N, 0, 0);
    } else if (B->o.mode != HS_MODE_HARD && B->o.mode != HS_MODE_REL) {
      hs_circuit_feature(B, HS_PF_I_OVER_N, 0, 0);
    }
  }
  for (int i = 0; i < B->n; i++)
    if (B->c[i].kind == HS_C_COUNT && B->c[i].k == 1)
      hs_circuit_feature(B, hs_weight_feature(B, &B->c[i]), 0, 0);
  for (int i = 0; i < B->n; i++) {
    hs_cnode *n = &B->c[i];
    if (n->kind == HS_C_PF) n->coord = hs_circuit_feature(B, n->pf, n->k, n->r);
    else n->coord = hs_circuit_coord(B);
    if (n->kind == HS_C_HEAD || n->scratch == -2) n->scratch = hs_circuit_coord(B);
  }
  return B->oom ? -1 : 0;
}

int hs_circuit_schedule(hs_circuit *B) {
  schedule_nodes(B);
  int last = -1;
  for (int i = 0; i < B->n; i++) last = maxi(last, B->c[i].ready);
  return last < 0 ? 0 : last / 2 + 1;
}
