/* SPDX-License-Identifier: MIT */
/* hs_model_save_onnx: a model as one ONNX graph (docs/ONNX.md) that runs at
 * every length, written with the hand-made protobuf encoder of pb.h.
 *
 * The graph mirrors the forward pass of src/run/forward-impl.h in float32
 * (the reference, bench/peers/forward.py, is the same pass in numpy):
 *   ids int64 [N] (BOS = 256 first, then the bytes), n = N - 1;
 *   X = embed[ids] + the positional features, computed from N in the graph
 *       (the logarithms and the temperatures in float64, as the C code);
 *   per layer, every head reads the same X:
 *     softmax: P = softmax(mask(Q K^T * (1/tau(n)) - slope |i - j'|)),
 *     hard: the leftmost / rightmost maximal key (ArgMax) or the average of
 *       all maximal keys (ReduceMax, Equal), of the masked Q K^T;
 *     X += (P V) W_O^T;
 *   then X += W2 ReLU(LN(W1 X + b1)) + b2, LN on the pairs of hidden units
 *   0..2 ln_pairs - 1 (b alone where the pair's deviation is 0);
 *   out float [N] = X[:, out_coord] (true where > 1/2).
 * Masks add -inf outside the visible keys; BOS (key 0) is visible to every
 * query, so no row is all -inf. Opset 17, IR version 8. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "model/model.h"
#include "model/pb.h"

#define ONNX_IR_VERSION 8
#define ONNX_OPSET 17

/* TensorProto.DataType and AttributeProto.AttributeType values. */
enum { DT_FLOAT = 1, DT_BOOL = 9, DT_INT64 = 7, DT_DOUBLE = 11 };
enum { AT_FLOAT = 1, AT_INT = 2, AT_INTS = 7 };

typedef struct val { char s[16]; } val; /* the name of a value in the graph */

typedef struct ob {
  hs_pb_buf g;  /* the GraphProto: nodes and initializers, in any order */
  int next;  /* values are named v0, v1, ... */
  /* values every positional feature, mask and temperature is made from,
   * each made when first used (FN base), so the graph has no dead node */
  val ids, bv[12];
  int have_bv[12];
  val mask[HS_MASK_COUNT_]; /* visible keys per mask, made when first used */
  int have_mask[HS_MASK_COUNT_];
  val dist[2];              /* |i - j'| as float: past, future */
  int have_dist[2];
} ob;

static val fresh(ob *b) {
  val v;
  snprintf(v.s, sizeof v.s, "v%d", b->next++);
  return v;
}

/* ---------------------------------------------------------------- nodes */

/* NodeProto: inputs (1), outputs (2), op_type (4), attributes (5). attrs
 * holds AttributeProto entries already tagged as field 5. */
static val node_to(ob *b, const char *op, int nin, const val *in,
                   const hs_pb_buf *attrs, const char *out_name) {
  hs_pb_buf nb = {0};
  val out = fresh(b);
  if (out_name) snprintf(out.s, sizeof out.s, "%s", out_name);
  for (int k = 0; k < nin; k++) hs_pb_str(&nb, 1, in[k].s);
  hs_pb_str(&nb, 2, out.s);
  hs_pb_str(&nb, 4, op);
  if (attrs) {
    hs_pb_raw(&nb, attrs->p, attrs->n);
    if (attrs->oom) nb.oom = 1;
  }
  hs_pb_msg(&b->g, 1, &nb);
  hs_pb_free(&nb);
  return out;
}

static val node(ob *b, const char *op, int nin, const val *in, hs_pb_buf *attrs) {
  val v = node_to(b, op, nin, in, attrs, NULL);
  if (attrs) hs_pb_free(attrs);
  return v;
}

static val op1(ob *b, const char *op, val x) { return node(b, op, 1, &x, NULL); }
static val op2(ob *b, const char *op, val x, val y) {
  val in[2] = {x, y};
  return node(b, op, 2, in, NULL);
}
static val op3(ob *b, const char *op, val x, val y, val z) {
  val in[3] = {x, y, z};
  return node(b, op, 3, in, NULL);
}

/* AttributeProto: name (1), type (20), f (2), i (3), ints (8). */
static void attr_int(hs_pb_buf *a, const char *name, int64_t v) {
  hs_pb_buf t = {0};
  hs_pb_str(&t, 1, name);
  hs_pb_int(&t, 20, AT_INT);
  hs_pb_int(&t, 3, v);
  hs_pb_msg(a, 5, &t);
  hs_pb_free(&t);
}

static void attr_ints(hs_pb_buf *a, const char *name, const int64_t *v, int cnt) {
  hs_pb_buf t = {0};
  hs_pb_str(&t, 1, name);
  hs_pb_int(&t, 20, AT_INTS);
  for (int k = 0; k < cnt; k++) hs_pb_int(&t, 8, v[k]);
  hs_pb_msg(a, 5, &t);
  hs_pb_free(&t);
}

static val op_cast(ob *b, val x, int to) {
  hs_pb_buf a = {0};
  attr_int(&a, "to", to);
  return node(b, "Cast", 1, &x, &a);
}

/* ---------------------------------------------------------- initializers */

/* TensorProto: dims (1), data_type (2), name (8), raw_data (9, fixed
 * width little-endian). */
static val init_raw(ob *b, int dtype, const int64_t *dims, int nd,
                    const uint8_t *le, size_t bytes) {
  hs_pb_buf t = {0};
  val v = fresh(b);
  for (int k = 0; k < nd; k++) hs_pb_int(&t, 1, dims[k]);
  hs_pb_int(&t, 2, dtype);
  hs_pb_str(&t, 8, v.s);
  hs_pb_bytes(&t, 9, le, bytes);
  hs_pb_msg(&b->g, 5, &t);
  hs_pb_free(&t);
  return v;
}

/* cnt elements of `size` bytes each (the host's order) into little-endian. */
static val init_elems(ob *b, int dtype, const int64_t *dims, int nd,
                      const void *data, size_t cnt, size_t size) {
  uint8_t *le = malloc(cnt * size > 0 ? cnt * size : 1);
  if (!le) {
    b->g.oom = 1;
    return fresh(b);
  }
  const uint8_t *src = data;
  const uint16_t probe = 1;
  int little = *(const uint8_t *)&probe == 1;
  for (size_t e = 0; e < cnt; e++)
    for (size_t k = 0; k < size; k++)
      le[e * size + k] = src[e * size + (little ? k : size - 1 - k)];
  val v = init_raw(b, dtype, dims, nd, le, cnt * size);
  free(le);
  return v;
}

static val init_f32(ob *b, const int64_t *dims, int nd, const float *x) {
  size_t cnt = 1;
  for (int k = 0; k < nd; k++) cnt *= (size_t)dims[k];
  return init_elems(b, DT_FLOAT, dims, nd, x, cnt, sizeof *x);
}
static val scalar_f32(ob *b, float x) { return init_elems(b, DT_FLOAT, NULL, 0, &x, 1, 4); }
static val scalar_f64(ob *b, double x) { return init_elems(b, DT_DOUBLE, NULL, 0, &x, 1, 8); }
static val scalar_i64(ob *b, int64_t x) { return init_elems(b, DT_INT64, NULL, 0, &x, 1, 8); }
static val vec_i64(ob *b, const int64_t *x, int cnt) {
  int64_t dim = cnt;
  return init_elems(b, DT_INT64, &dim, 1, x, (size_t)cnt, 8);
}
static val mat_f32(ob *b, int64_t r, int64_t c, const float *x) {
  int64_t dims[2] = {r, c};
  return init_f32(b, dims, 2, x);
}
static val vec_f32(ob *b, int64_t c, const float *x) { return init_f32(b, &c, 1, x); }

/* x with a new axis of length 1 at `axis` (Unsqueeze-13: axes as input). */
static val unsqueeze(ob *b, val x, int64_t axis) {
  return op2(b, "Unsqueeze", x, vec_i64(b, &axis, 1));
}

/* A [rows, cols] = x W^T (+ bias): Gemm with transB, W stored [cols][k]. */
static val linear(ob *b, val x, const float *w, int64_t cols, int64_t k,
                  const float *bias) {
  hs_pb_buf a = {0};
  attr_int(&a, "transB", 1);
  val in[3] = {x, mat_f32(b, cols, k, w)};
  if (bias) in[2] = vec_f32(b, cols, bias);
  return node(b, "Gemm", bias ? 3 : 2, in, &a);
}

/* ---------------------------------------------------- positions, masks */

/* The values every feature is made from: N, n = N - 1, nn = max(n, 1) (the
 * n of tau(0) and of the features over n), the positions i = 0..n as a
 * column (ic) and a row (jr), some cast to float or double. */
enum { B_SHAPE, B_N, B_n, B_nn, B_POS, B_IC, B_JR, B_POS_F, B_POS_D, B_NN_D,
       B_NN_F, B_REST_D };

static val base(ob *b, int k) {
  if (b->have_bv[k]) return b->bv[k];
  val v;
  switch (k) {
    case B_SHAPE: v = op1(b, "Shape", b->ids); break;
    case B_N: v = op2(b, "Gather", base(b, B_SHAPE), scalar_i64(b, 0)); break;
    case B_n: v = op2(b, "Sub", base(b, B_N), scalar_i64(b, 1)); break;
    case B_nn: v = op2(b, "Max", base(b, B_n), scalar_i64(b, 1)); break;
    case B_POS: v = op3(b, "Range", scalar_i64(b, 0), base(b, B_N), scalar_i64(b, 1)); break;
    case B_IC: v = unsqueeze(b, base(b, B_POS), 1); break;
    case B_JR: v = unsqueeze(b, base(b, B_POS), 0); break;
    case B_POS_F: v = op_cast(b, base(b, B_POS), DT_FLOAT); break;
    case B_POS_D: v = op_cast(b, base(b, B_POS), DT_DOUBLE); break;
    case B_NN_D: v = op_cast(b, base(b, B_nn), DT_DOUBLE); break;
    case B_NN_F: v = op_cast(b, base(b, B_nn), DT_FLOAT); break;
    default: /* n + 1 - i */
      v = op_cast(b, op2(b, "Sub", base(b, B_N), base(b, B_POS)), DT_DOUBLE);
  }
  b->bv[k] = v;
  b->have_bv[k] = 1;
  return v;
}

/* Feature p at every position, float [N], as FN(embed) computes it: in
 * float, except the logarithms (double, rounded once to float). */
static val feature(ob *b, const hs_posfeat *p) {
  switch (p->kind) {
    case HS_PF_ONE: return op2(b, "Expand", scalar_f32(b, 1), base(b, B_SHAPE));
    case HS_PF_BOS:
      return op_cast(b, op2(b, "Equal", base(b, B_POS), scalar_i64(b, 0)), DT_FLOAT);
    case HS_PF_LAST: return op_cast(b, op2(b, "Equal", base(b, B_POS), base(b, B_n)), DT_FLOAT);
    case HS_PF_I: return base(b, B_POS_F);
    case HS_PF_N: return op2(b, "Expand", op_cast(b, base(b, B_n), DT_FLOAT), base(b, B_SHAPE));
    case HS_PF_I_OVER_N: return op2(b, "Div", base(b, B_POS_F), base(b, B_NN_F)); /* i = 0 when n = 0 */
    case HS_PF_INV_I1: {
      val one_f = scalar_f32(b, 1);
      return op2(b, "Div", one_f, op2(b, "Add", base(b, B_POS_F), one_f));
    }
    case HS_PF_MOD: {
      val m = op2(b, "Mod", base(b, B_POS), scalar_i64(b, p->k));
      return op_cast(b, op2(b, "Equal", m, scalar_i64(b, p->r)), DT_FLOAT);
    }
    case HS_PF_LN_REST: return op_cast(b, op1(b, "Log", base(b, B_REST_D)), DT_FLOAT);
    case HS_PF_LN_I:
      return op_cast(b, op1(b, "Log", op2(b, "Max", base(b, B_POS_D), scalar_f64(b, 1))),
                     DT_FLOAT);
    case HS_PF_LN_REST_OVER_N:
      return op_cast(b, op2(b, "Div", op1(b, "Log", base(b, B_REST_D)), base(b, B_NN_D)), DT_FLOAT);
    case HS_PF_LN_I_OVER_N: {
      val l = op1(b, "Log", op2(b, "Max", base(b, B_POS_D), scalar_f64(b, 1)));
      return op_cast(b, op2(b, "Div", l, base(b, B_NN_D)), DT_FLOAT);
    }
    default: return scalar_f32(b, 0); /* hs_model_validate refused it */
  }
}

/* Bool [N, N]: key j visible to query i under mask k, BOS (j = 0) always. */
static val visible(ob *b, hs_mask k) {
  static const char *const cmp[HS_MASK_COUNT_] = {
      [HS_MASK_LE] = "LessOrEqual", [HS_MASK_LT] = "Less",
      [HS_MASK_GE] = "GreaterOrEqual", [HS_MASK_GT] = "Greater"};
  if (!b->have_mask[k]) {
    val bos = op2(b, "Equal", base(b, B_JR), scalar_i64(b, 0));
    b->mask[k] = op2(b, "Or", op2(b, cmp[k], base(b, B_JR), base(b, B_IC)), bos);
    b->have_mask[k] = 1;
  }
  return b->mask[k];
}

/* Float [N, N]: |i - j'|, j' = j except BOS under a future mask, which
 * stands at n + 1 (hs_head.bias_slope): the far end of the window. */
static val distance(ob *b, int future) {
  if (!b->have_dist[future]) {
    val jp = base(b, B_JR);
    if (future)
      jp = op3(b, "Where", op2(b, "Equal", base(b, B_JR), scalar_i64(b, 0)), base(b, B_N), base(b, B_JR));
    b->dist[future] = op_cast(b, op1(b, "Abs", op2(b, "Sub", base(b, B_IC), jp)), DT_FLOAT);
    b->have_dist[future] = 1;
  }
  return b->dist[future];
}

/* 1/tau(n) in float, computed in double as FN(head_inv_tau). */
static val inv_tau(ob *b, const hs_head *H) {
  if (H->tau_law == HS_TAU_CONST) return scalar_f32(b, (float)(1.0 / H->tau_c));
  val den = base(b, B_NN_D); /* tau = c / nn, or c / (nn ln(nn + 1)) */
  if (H->tau_law == HS_TAU_INV_NLOGN)
    den = op2(b, "Mul", base(b, B_NN_D),
              op1(b, "Log", op2(b, "Add", base(b, B_NN_D), scalar_f64(b, 1))));
  val tau = op2(b, "Div", scalar_f64(b, H->tau_c), den);
  return op_cast(b, op2(b, "Div", scalar_f64(b, 1), tau), DT_FLOAT);
}

/* ---------------------------------------------------------------- layers */

/* Head H's output (P V) [N, dv]. */
static val head(ob *b, const hs_head *H, val x, int64_t d) {
  val q = linear(b, x, H->wq, H->dk, d, NULL);
  val k = linear(b, x, H->wk, H->dk, d, NULL);
  val v = linear(b, x, H->wv, H->dv, d, NULL);
  hs_pb_buf a = {0};
  attr_int(&a, "transB", 1);
  val qk[2] = {q, k};
  val s = node(b, "Gemm", 2, qk, &a);
  int soft = H->kind == HS_ATTN_SOFTMAX;
  if (soft) {
    s = op2(b, "Mul", s, inv_tau(b, H));
    if (H->bias_slope != 0) {
      int future = H->mask == HS_MASK_GE || H->mask == HS_MASK_GT;
      s = op2(b, "Add", s, op2(b, "Mul", distance(b, future),
                               scalar_f32(b, -H->bias_slope)));
    }
  }
  if (H->mask != HS_MASK_NONE)
    s = op3(b, "Where", visible(b, H->mask), s, scalar_f32(b, -INFINITY));
  if (soft) {
    attr_int(&a, "axis", -1);
    val p = node(b, "Softmax", 1, &s, &a);
    return op2(b, "MatMul", p, v);
  }
  if (H->kind == HS_ATTN_HARD_AVG) {
    /* the mean of the maximal keys' values: their sum, then / count, as
     * FN(hard_row) */
    int64_t ax = 1;
    attr_ints(&a, "axes", &ax, 1);
    attr_int(&a, "keepdims", 1);
    val top = op_cast(b, op2(b, "Equal", s, node(b, "ReduceMax", 1, &s, &a)), DT_FLOAT);
    attr_int(&a, "keepdims", 1);
    val cin[2] = {top, vec_i64(b, &ax, 1)};
    val cnt = node(b, "ReduceSum", 2, cin, &a);
    return op2(b, "Div", op2(b, "MatMul", top, v), cnt);
  }
  attr_int(&a, "axis", 1);
  attr_int(&a, "keepdims", 0);
  attr_int(&a, "select_last_index", H->kind == HS_ATTN_HARD_RIGHT);
  val idx = node(b, "ArgMax", 1, &s, &a);
  return op2(b, "Gather", v, idx); /* axis 0: row idx[i] of V */
}

/* Layer normalization of the hidden pairs (hs_layer.ln_pairs), as
 * FN(ln_pair): [N, hidden] in, [N, hidden] out. */
static val ln_pairs(ob *b, const hs_layer *L, val h) {
  int64_t k = L->ln_pairs, two = 2 * k, ax = 2, one = 1, zero = 0;
  int64_t shp3[3] = {-1, k, 2}, shp2[2] = {-1, two};
  val p = h;
  if (L->hidden > two)
    p = node(b, "Slice", 4,
             (val[]){h, vec_i64(b, &zero, 1), vec_i64(b, &two, 1), vec_i64(b, &one, 1)},
             NULL);
  p = op2(b, "Reshape", p, vec_i64(b, shp3, 3));
  hs_pb_buf a = {0};
  attr_ints(&a, "axes", &ax, 1);
  attr_int(&a, "keepdims", 1);
  val dev = op2(b, "Sub", p, node(b, "ReduceMean", 1, &p, &a));
  attr_ints(&a, "axes", &ax, 1);
  attr_int(&a, "keepdims", 1);
  val sq = op2(b, "Mul", dev, dev);
  val var = node(b, "ReduceMean", 1, &sq, &a);
  val sd = op_cast(b, op1(b, "Sqrt", op2(b, "Add", op_cast(b, var, DT_DOUBLE),
                                         scalar_f64(b, L->ln_eps))), DT_FLOAT);
  int64_t gd[2] = {k, 2};
  val g = init_f32(b, gd, 2, L->ln_g), bias = init_f32(b, gd, 2, L->ln_b);
  val normed = op2(b, "Add", op2(b, "Mul", g, op2(b, "Div", dev, sd)), bias);
  val pos = op2(b, "Greater", sd, scalar_f32(b, 0)); /* else b alone */
  val out = op2(b, "Reshape", op3(b, "Where", pos, normed, bias), vec_i64(b, shp2, 2));
  if (L->hidden > two) {
    int64_t end = L->hidden;
    val rest = node(b, "Slice", 4,
                    (val[]){h, vec_i64(b, &two, 1), vec_i64(b, &end, 1), vec_i64(b, &one, 1)},
                    NULL);
    attr_int(&a, "axis", 1);
    out = node(b, "Concat", 2, (val[]){out, rest}, &a);
  }
  return out;
}

static val layer(ob *b, const hs_layer *L, val x, int64_t d) {
  val xin = x; /* every head reads the stream before any writes */
  for (int h = 0; h < L->nheads; h++) {
    const hs_head *H = &L->heads[h];
    val o = head(b, H, xin, d);
    x = op2(b, "Add", x, linear(b, o, H->wo, d, H->dv, NULL));
  }
  if (L->hidden > 0) {
    val h = linear(b, x, L->w1, L->hidden, d, L->b1);
    if (L->ln_pairs > 0) h = ln_pairs(b, L, h);
    h = op1(b, "Relu", h);
    x = op2(b, "Add", x, linear(b, h, L->w2, d, L->hidden, L->b2));
  }
  return x;
}

/* ---------------------------------------------------------------- model */

/* ValueInfoProto: name (1), type (2): TypeProto.tensor_type (1) with
 * elem_type (1) and shape (2) of one dimension named "N" (dim_param, 2). */
static void value_info(hs_pb_buf *g, uint32_t field, const char *name, int dtype) {
  hs_pb_buf vi = {0}, ty = {0}, tt = {0}, sh = {0}, dim = {0};
  hs_pb_str(&dim, 2, "N");
  hs_pb_msg(&sh, 1, &dim);
  hs_pb_int(&tt, 1, dtype);
  hs_pb_msg(&tt, 2, &sh);
  hs_pb_msg(&ty, 1, &tt);
  hs_pb_str(&vi, 1, name);
  hs_pb_msg(&vi, 2, &ty);
  hs_pb_msg(g, field, &vi);
  hs_pb_free(&vi), hs_pb_free(&ty), hs_pb_free(&tt), hs_pb_free(&sh), hs_pb_free(&dim);
}

/* The GraphProto of m into b->g. */
static void graph(ob *b, const hs_model *m) {
  int64_t d = m->d, vd[2] = {HS_VOCAB, d};
  snprintf(b->ids.s, sizeof b->ids.s, "ids");
  val x = op2(b, "Gather", init_f32(b, vd, 2, m->embed), b->ids);
  for (int32_t k = 0; k < m->npf; k++) {
    float *hot = calloc((size_t)d, sizeof *hot);
    if (!hot) { b->g.oom = 1; return; }
    hot[m->pf[k].coord] = 1;
    int64_t hd[2] = {1, d};
    val col = unsqueeze(b, feature(b, &m->pf[k]), 1);
    x = op2(b, "Add", x, op2(b, "Mul", col, init_f32(b, hd, 2, hot)));
    free(hot);
  }
  for (int32_t l = 0; l < m->nlayers; l++) x = layer(b, &m->layers[l], x, d);
  hs_pb_buf a = {0};
  attr_int(&a, "axis", 1);
  val in[2] = {x, scalar_i64(b, m->out_coord)};
  node_to(b, "Gather", 2, in, &a, "out");
  hs_pb_free(&a);
  hs_pb_str(&b->g, 2, "hardsoft");
  value_info(&b->g, 11, "ids", DT_INT64);
  value_info(&b->g, 12, "out", DT_FLOAT);
}

/* StringStringEntryProto key (1), value (2) as ModelProto.metadata_props. */
static void meta(hs_pb_buf *mp, const char *key, const char *value) {
  hs_pb_buf e = {0};
  hs_pb_str(&e, 1, key);
  hs_pb_str(&e, 2, value);
  hs_pb_msg(mp, 14, &e);
  hs_pb_free(&e);
}

/* ModelProto: ir_version (1), producer_name (2), producer_version (3),
 * graph (7), opset_import (8: domain "" implied, version 2), metadata. */
static int model_bytes(const hs_model *m, hs_pb_buf *mp) {
  ob b = {0};
  graph(&b, m);
  hs_pb_buf op = {0};
  hs_pb_int(&op, 2, ONNX_OPSET);
  hs_pb_int(mp, 1, ONNX_IR_VERSION);
  hs_pb_str(mp, 2, "hardsoft");
  hs_pb_str(mp, 3, hs_version());
  hs_pb_msg(mp, 7, &b.g);
  hs_pb_msg(mp, 8, &op);
  char num[64];
  if (m->formula) meta(mp, "hardsoft.formula", m->formula);
  if (m->mode) meta(mp, "hardsoft.mode", m->mode);
  snprintf(num, sizeof num, "%.17g", m->scale);
  meta(mp, "hardsoft.scale", num);
  hs_pb_free(&b.g);
  hs_pb_free(&op);
  return mp->oom ? -1 : 0;
}

/* data into path by a temporary file beside it and rename(), mode 0666
 * minus the umask, as hs_model_save: never a partial file at path. */
static int write_atomic(const char *path, const hs_pb_buf *data, hs_error *err) {
  size_t plen = strlen(path);
  char *tmp = malloc(plen + sizeof ".tmp.XXXXXX");
  if (!tmp) return hs_errorf(err, HS_ERR_NOMEM, "save: out of memory");
  memcpy(tmp, path, plen);
  memcpy(tmp + plen, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
  int rc = -1, fd = mkstemp(tmp);
  if (fd < 0) {
    hs_errorf(err, HS_ERR_IO, "cannot create a temporary file beside it: %s", strerror(errno));
    free(tmp);
    return -1;
  }
  mode_t um = umask(0);
  umask(um);
  fchmod(fd, 0666 & ~um);
  FILE *f = fdopen(fd, "wb");
  if (!f) close(fd);
  int werr = !f || fwrite(data->p, 1, data->n, f) != data->n || fflush(f);
  int e = errno;
  if ((f && fclose(f)) || werr)
    hs_errorf(err, HS_ERR_IO, "cannot write %s: %s", tmp, strerror(werr ? e : errno));
  else if (rename(tmp, path))
    hs_errorf(err, HS_ERR_IO, "cannot rename the temporary file into place: %s", strerror(errno));
  else
    rc = 0;
  if (rc) remove(tmp);
  free(tmp);
  return rc;
}

int hs_model_save_onnx(const hs_model *m, const char *path, hs_error *err) {
  hs_error ve;
  if (!path || !*path) return hs_errorf(err, HS_ERR_ARG, "save: empty path");
  if (hs_model_validate(m, &ve))
    return hs_errorf(err, HS_ERR_FORMAT, "cannot export an invalid model: %s", ve.msg);
  hs_pb_buf mp = {0};
  if (model_bytes(m, &mp)) {
    hs_pb_free(&mp);
    return hs_errorf(err, HS_ERR_NOMEM, "export: out of memory");
  }
  int rc = write_atomic(path, &mp, err);
  hs_pb_free(&mp);
  return rc;
}
