/* SPDX-License-Identifier: MIT */
/* Circuit -> model, the stages after the schedule (hs_compile runs them):
 * the embedding and the positional features, every layer's heads and
 * ReLU units (weights.c) in the sublayers the schedule chose, then the
 * metadata people read: the bound in words, the smallest exact mu, a name
 * for every coordinate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/circuit.h"

int hs_circuit_layer(const hs_circuit *B, hs_model *m, int l) {
  hs_layer *L = &m->layers[l];
  int d = m->d, nh = 0, nu = 0, lnp = 0;
  hs_unit u[2];
  for (int i = 0; i < B->n; i++) {
    const hs_cnode *n = &B->c[i];
    if (n->attn_at == 2 * l) nh++;
    if (n->ffn_at != 2 * l + 1) continue;
    if (n->kind == HS_C_GATE) nu += hs_gate_units(B, n, u);
    else if (n->kind == HS_C_HEAD || n->scratch >= 0) nu += 2;
    else lnp += 2, nu += 4; /* layer-norm sign */
  }
  L->nheads = nh;
  L->heads = calloc((size_t)(nh ? nh : 1), sizeof *L->heads);
  L->hidden = nu;
  L->w1 = calloc((size_t)nu * d + 1, sizeof(float));
  L->b1 = calloc((size_t)nu + 1, sizeof(float));
  L->w2 = calloc((size_t)d * nu + 1, sizeof(float));
  L->b2 = calloc((size_t)d, sizeof(float));
  L->ln_pairs = lnp;
  L->ln_g = calloc((size_t)(2 * lnp + 1), sizeof(float));
  L->ln_b = calloc((size_t)(2 * lnp + 1), sizeof(float));
  if (!L->heads || !L->w1 || !L->b1 || !L->w2 || !L->b2 || !L->ln_g || !L->ln_b)
    return -1;
  int h = 0, hu = 2 * lnp, pair = 0;
  for (int i = 0; i < B->n; i++) {
    const hs_cnode *n = &B->c[i];
    if (n->attn_at == 2 * l) {
      hs_head *H = &L->heads[h++];
      if (n->kind == HS_C_HEAD ? hs_fill_head(B, n, H, d) : hs_fill_aux_head(B, n, H, d))
        return -1;
    }
    if (n->ffn_at != 2 * l + 1) continue;
    int k = 0;
    if (n->kind == HS_C_GATE) k = hs_gate_units(B, n, u);
    else if (n->kind == HS_C_HEAD || n->scratch >= 0) k = hs_round_units(B, n, u);
    else hs_ln_sign_units(B, n, L, pair, nu, d), pair += 2;
    for (int j = 0; j < k; j++, hu++) {
      for (int c = 0; c < 3; c++)
        if (u[j].in[c] >= 0) L->w1[(size_t)hu * d + u[j].in[c]] += u[j].w[c];
      L->b1[hu] = u[j].bias;
      L->w2[(size_t)n->coord * nu + hu] = u[j].out;
    }
  }
  return 0;
}

hs_model *hs_circuit_embedding(const hs_circuit *B, int nlayers) {
  hs_model *m = hs_model_new(B->d, nlayers);
  if (!m) return NULL;
  int d = B->d;
  /* atoms and true are 1 on their symbols, everything 0 at BOS */
  for (int i = 0; i < B->n; i++) {
    const hs_cnode *n = &B->c[i];
    for (int s = 0; s < 256; s++)
      if (n->kind == HS_C_TRUE || (n->kind == HS_C_ATOM && n->sym == s))
        m->embed[(size_t)s * d + n->coord] = 1;
  }
  int npf = 0;
  for (int k = 0; k < HS_PF_COUNT_; k++) npf += B->pf_coord[k] >= 0;
  npf += B->nmods;
  m->pf = calloc((size_t)npf, sizeof *m->pf);
  if (!m->pf) {
    hs_model_free(m);
    return NULL;
  }
  for (int k = 0; k < HS_PF_COUNT_; k++)
    if (B->pf_coord[k] >= 0 && k != HS_PF_MOD)
      m->pf[m->npf++] = (hs_posfeat){(hs_pf_kind)k, B->pf_coord[k], 0, 0};
  for (int k = 0; k < B->nmods; k++)
    m->pf[m->npf++] =
        (hs_posfeat){HS_PF_MOD, B->mods[k].coord, B->mods[k].k, B->mods[k].r};
  return m;
}

/* The bound in words (m->bound_desc), the bound and the smallest exact mu;
 * -1 when out of memory. */
static int describe_bound(const hs_circuit *B, hs_model *m) {
  int heads = 0;
  for (int l = 0; l < m->nlayers; l++) heads += m->layers[l].nheads;
  char buf[1024];
  double ln7 = log(7.0);
  if (B->o.mode == HS_MODE_HARD || heads == 0) {
    m->bound = 0;
    m->min_scale = 0;
    snprintf(buf, sizeof buf,
             heads ? "hard attention: exact, no bound needed"
                   : "no attention: exact");
  } else if (B->o.mode == HS_MODE_FIXED) {
    m->bound = hs_bound_at(HS_MODE_FIXED, B->o.scale, 1);
    m->min_scale = -1;
    snprintf(buf, sizeof buf,
             "weight off target <= S/(1+S), S = 2e^{-mu/n}/(1-e^{-mu/n}); "
             "< 1/4 only while n <= mu/ln 7 = %.1f: no constant mu is exact "
             "at every length",
             B->o.scale / ln7);
  } else {
    double mu = B->o.mode == HS_MODE_REL ? (double)(float)B->o.scale : B->o.scale;
    m->bound = hs_bound_at(HS_MODE_PE, mu, 1);
    m->min_scale = ln7;
    snprintf(buf, sizeof buf,
             "weight off target <= S/(1+S), S = 2e^{-mu}/(1-e^{-mu}) = %.3g "
             "at every n; exact (< 1/4) for mu >= ln 7 = 1.946",
             m->bound);
    if (B->o.mode == HS_MODE_REL) {
      size_t at = strlen(buf);
      snprintf(buf + at, sizeof buf - at,
               " (rel: logits -mu r_j, r_j = |i - j| + n [s_j = 0], the "
               "target's r the smallest, distinct within s = 1 and s = 0; "
               "bias slope %g per position, content at tau = 1/(mu n))",
               mu);
    }
  }
  if (hs_model_has_temp_sign(m) && B->o.mode != HS_MODE_FIXED) {
    size_t at = strlen(buf);
    snprintf(buf + at, sizeof buf - at,
             "; counting signs by softmax at tau = 1/(mu n ln(n+1)): weight "
             "off the sign <= (n+1)^{1-mu/4} = %.3g at n = 1, exact for mu > 12",
             hs_sign_bound(B->o.scale, 1));
    if (m->bound < hs_sign_bound(B->o.scale, 1)) m->bound = hs_sign_bound(B->o.scale, 1);
    if (m->min_scale < 12) m->min_scale = 12;
  }
  m->bound_desc = hs_cstrdup(buf);
  return m->bound_desc ? 0 : -1;
}

/* A name for every coordinate; -1 when out of memory. */
static int name_coords(const hs_circuit *B, hs_model *m) {
  char buf[1024];
  m->coord_names = calloc((size_t)m->d, sizeof *m->coord_names);
  if (!m->coord_names) return -1;
  for (int k = 0; k < m->npf; k++) {
    const hs_posfeat *p = &m->pf[k];
    if (p->kind == HS_PF_MOD)
      snprintf(buf, sizeof buf, "feature [i mod %lld = %lld]", (long long)p->k,
               (long long)p->r);
    else
      snprintf(buf, sizeof buf, "feature %s", hs_pf_kind_name(p->kind));
    if (!(m->coord_names[p->coord] = hs_cstrdup(buf))) return -1;
  }
  for (int i = 0; i < B->n; i++) {
    const hs_cnode *n = &B->c[i];
    char nm[400];
    hs_circuit_name(B, i, nm, sizeof nm);
    if (n->kind != HS_C_PF && !(m->coord_names[n->coord] = hs_cstrdup(nm))) return -1;
    if (n->scratch >= 0) {
      snprintf(buf, sizeof buf, "attention output for %s", nm);
      if (!(m->coord_names[n->scratch] = hs_cstrdup(buf))) return -1;
    }
  }
  return 0;
}

int hs_circuit_describe(const hs_circuit *B, hs_model *m, int root) {
  m->out_coord = B->c[root].coord;
  m->scale = B->o.mode == HS_MODE_HARD ? 0 : B->o.scale;
  m->formula = hs_cstrdup(B->source ? B->source : "");
  m->mode = hs_cstrdup(hs_mode_name(B->o.mode));
  if (!m->formula || !m->mode) return -1;
  return describe_bound(B, m) || name_coords(B, m) ? -1 : 0;
}
