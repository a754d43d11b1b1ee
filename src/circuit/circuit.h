/* SPDX-License-Identifier: MIT */
/* The circuit: the language-free middle of the compiler, what every front
 * end lowers into and what the stages turn into a model:
 *   build.c     nodes, added through one hash-consing hs_circuit_add
 *   schedule.c  coordinates of the residual stream, and the sublayer each
 *               node runs in
 *   weights.c   each node's ReLU units and attention heads, per mode, with
 *               the error bounds of the constructions
 *   check.c     what the circuit asks of float32, checked before layers
 *   assemble.c  circuit -> hs_model: layers, positional features, names,
 *               the bound in words
 *
 * Every node owns one coordinate of the residual stream holding exactly
 * 0 or 1 at every position i >= 1 and exactly 0 at BOS (i = 0), except the
 * counts (#/D, see HS_C_COUNT):
 *   - embedded: atoms, true, false, position features (no layer);
 *   - gates: Boolean functions of 0/1 inputs, one feed-forward sublayer
 *     with one or two ReLU units each;
 *   - heads: "the rightmost j <= i (or < i) where sel holds" or "the
 *     leftmost j >= i (or > i) where sel holds", reading one coordinate
 *     there; one attention sublayer, then a rounding gate in the
 *     feed-forward sublayer of the same layer;
 *   - counts and signs: the counting comparisons (weights.c).
 * A node may stand for a construct of the source (src >= 0, an id the
 * front end chooses); the circuit only compares such ids and asks the
 * front end to name them (name_src). */
#ifndef HS_CIRCUIT_H
#define HS_CIRCUIT_H

#include <stdarg.h>
#include <stdint.h>

#include "base/error.h"
#include "model/model.h"

typedef enum { HS_C_ATOM, HS_C_TRUE, HS_C_FALSE, HS_C_PF, HS_C_GATE, HS_C_HEAD,
               HS_C_COUNT, HS_C_SIGN } hs_ckind;
typedef enum {
  HS_G_NOT, HS_G_AND, HS_G_OR, HS_G_IMPLIES, HS_G_IFF,
  HS_G_NONBOS, /* a feature, forced to 0 at BOS */
  HS_G_FIRST,  /* [i = 1] from the 1/(i+1) feature */
} hs_gkind;

typedef struct hs_cnode {
  hs_ckind kind;
  hs_gkind g;
  int a, b;        /* inputs (circuit ids), -1 if absent */
  uint8_t sym;     /* HS_C_ATOM */
  hs_pf_kind pf;   /* HS_C_PF */
  int64_t k, r;
  int right;       /* HS_C_HEAD: 1 = rightmost (past), 0 = leftmost (future) */
  hs_mask mask;
  int sel, val;    /* HS_C_HEAD: selector (-1: every position), value read */
  int32_t src;     /* the source construct this stands for, or -1 */
  int coord, scratch;
  int ready;       /* sublayer after which coord is final; -1 = embedded */
  int attn_at, ffn_at; /* sublayers holding its head / its ReLU units */
  /* HS_C_COUNT: attention over the past (right = 1: j <= i), the future
   * (right = 0: j >= i) or every position (right = 2), plus BOS, reading
   * val, or the BOS indicator when val < 0; uniform (k = 0: #/D with D the
   * number of visible keys) or BOS-weighted (k = 1: #/(n+1), see
   * hs_fill_aux_head). HS_C_SIGN: [u > 0] for u = sum coef[t] x[ins[t]]
   * with ins counts and the BOS reader a; src and k (the variant)
   * identify it. */
  int nin;
  int *ins;
  double *coef;
} hs_cnode;

typedef struct hs_circuit {
  hs_compile_opts o;
  hs_cnode *c;
  int n, cap;
  int *slot;       /* hash table of node ids (-1: empty), nslot a power of 2 */
  size_t nslot;
  /* positional feature coordinates, allocated on first use */
  int pf_coord[HS_PF_COUNT_];
  struct { int64_t k, r; int coord; } *mods;
  int nmods;
  int d;
  int oom;
  const char *source; /* the source text, for the model's metadata */
  /* names the construct src for people (coordinate names, head text) */
  void (*name_src)(const void *ctx, int32_t src, char *buf, size_t len);
  const void *name_ctx;
} hs_circuit;

/* ---- build.c */
void hs_circuit_init(hs_circuit *B, const hs_compile_opts *o);
void hs_circuit_free(hs_circuit *B);
hs_cnode hs_cnode_blank(hs_ckind k, int32_t src);
/* Adds a node unless an equal one exists (sharing), returns its id; on
 * allocation failure sets B->oom and returns 0. */
int hs_circuit_add(hs_circuit *B, hs_cnode n);
int hs_circuit_gate(hs_circuit *B, hs_gkind g, int a, int b, int32_t src);
int hs_circuit_head(hs_circuit *B, int right, hs_mask mask, int sel, int val,
                    int32_t src);
int hs_circuit_pf(hs_circuit *B, hs_pf_kind kind, int64_t k, int64_t r,
                  int32_t src);
int hs_circuit_count(hs_circuit *B, int past, int val, int common);
/* [u > 0], u = sum coef[t] x[ins[t]] (t < nin), identified by (src,
 * variant); r is the count node whose coordinate carries the constant. */
int hs_circuit_sign(hs_circuit *B, int32_t src, int variant, int r, int nin,
                    const int *ins, const double *coef);
/* One of the four signs that decide sum coef[t] #(cnt[t]) + c REL 0 from
 * the counts cnt[t] (over D) and r (= 1/D, carrying the constant):
 * [u > 0] for u = (sigma T + delta) / D, T the comparison's integer;
 * variant 0: T - 1/2 (T > 0), 1: T + 1/2 (T >= 0), 2: -T - 1/2 (T < 0),
 * 3: -T + 1/2 (T <= 0). Never 0, and |u| >= 1 / (2 D). Identified by
 * (src, variant); sets B->oom when out of memory. */
int hs_circuit_sign_of(hs_circuit *B, int32_t src, int variant, int r, int nt,
                       const int *cnt, const int64_t *coef, int64_t c);
/* A person's name of node id, cut to len - 1 bytes. */
void hs_circuit_name(const hs_circuit *B, int id, char *buf, size_t len);
const char *hs_mask_text(hs_mask m);
char *hs_head_desc(const hs_circuit *B, const hs_cnode *n);
char *hs_cstrdup(const char *s);

/* Keeps only the nodes *root needs, in their order, renumbered (*root
 * too); -1 when out of memory. */
int hs_circuit_keep(hs_circuit *B, int *root);
/* A copy of src's nodes (and its source text and names) under the options
 * o, to compile a circuit built ahead; 0, or -1 when out of memory. */
int hs_circuit_copy(hs_circuit *dst, const hs_circuit *src, const hs_compile_opts *o);

/* A circuit a front end builds once, when the program is read, rather
 * than from a formula at every compile (C-RASP: its counts and signs need
 * no formula), with the names of its sources (src indexes label). It stays
 * at one address: the circuit's name_ctx points at it. */
typedef struct hs_prebuilt {
  hs_circuit C;
  int root;
  char **label;
  int nlabel, caplabel;
  int *depth;      /* per node, the longest path from an input */
  int ndepth, capdepth;
  char *text;      /* owned: the program's line for the model's metadata
                      (C.source points here) */
} hs_prebuilt;
/* An empty one whose circuit names its sources by label; NULL when out
 * of memory. */
hs_prebuilt *hs_prebuilt_new(void);
/* A new source named by the printf-style text; its src id, or -1 when out
 * of memory (C.oom set). */
int hs_prebuilt_label(hs_prebuilt *P, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void hs_prebuilt_free(hs_prebuilt *P);
/* Adds n (shared when an equal node exists), names a new node by the
 * printf-style text and gives its depth (hs_prebuilt_depth) in *depth;
 * its id, or -1 when out of memory. */
int hs_prebuilt_vadd(hs_prebuilt *P, hs_cnode n, int *depth, const char *fmt,
                     va_list ap);
/* Node id's label ("?" when it has none), and the same in parentheses when
 * it is an operation (has a space), for a label built around it. */
const char *hs_prebuilt_name(const hs_prebuilt *P, int id);
const char *hs_prebuilt_operand(const hs_prebuilt *P, int id, char *buf, size_t len);
/* Names node id name, when it is a node added since node `since` (a
 * statement's value after the nodes the statement made); 0, or -1 when
 * out of memory. */
int hs_prebuilt_rename(hs_prebuilt *P, int id, int since, const char *name);
/* The longest path from an input to node id (a chain of k gates is k
 * deep, and needs k layers); -1 when out of memory. */
int hs_prebuilt_depth(hs_prebuilt *P, int id);

/* ---- schedule.c */
int hs_circuit_coord(hs_circuit *B);
int hs_circuit_feature(hs_circuit *B, hs_pf_kind kind, int64_t k, int64_t r);
/* Every node's coordinates (features first); -1 when out of memory. */
int hs_circuit_coords(hs_circuit *B);
/* Every node's sublayers; returns the number of layers. */
int hs_circuit_schedule(hs_circuit *B);

/* ---- weights.c */
/* One ReLU unit: out_coord += out * ReLU(w . x[in] + bias). */
typedef struct hs_unit { int in[3]; float w[3]; float bias, out; } hs_unit;
int hs_gate_units(const hs_circuit *B, const hs_cnode *n, hs_unit u[2]);
int hs_round_units(const hs_circuit *B, const hs_cnode *n, hs_unit u[2]);
void hs_ln_sign_units(const hs_circuit *B, const hs_cnode *n, hs_layer *L,
                      int pair, int nu, int d);
int hs_fill_head(const hs_circuit *B, const hs_cnode *n, hs_head *H, int d);
int hs_fill_aux_head(const hs_circuit *B, const hs_cnode *n, hs_head *H, int d);
hs_pf_kind hs_weight_feature(const hs_circuit *B, const hs_cnode *n);

/* ---- check.c */
/* Whether the circuit compiles exactly: every comparison's coefficients
 * and constant are float32 numbers, and mu keeps every logit finite in
 * float32; -1 with err filled when not. */
int hs_circuit_check(const hs_circuit *C, hs_error *err);

/* ---- assemble.c (after hs_circuit_coords and hs_circuit_schedule) */
/* A model of nlayers empty layers with the circuit's embedding and
 * positional features; NULL when out of memory. */
hs_model *hs_circuit_embedding(const hs_circuit *B, int nlayers);
/* Layer l's attention heads and ReLU units; -1 when out of memory. */
int hs_circuit_layer(const hs_circuit *B, hs_model *m, int l);
/* The metadata people read, with node root as the output: the source,
 * the mode, the bound in words, the smallest exact mu, every coordinate's
 * name; -1 when out of memory (the model then incomplete). */
int hs_circuit_describe(const hs_circuit *B, hs_model *m, int root);

/* ---- src/compile/compile.c */
/* The stages from hs_circuit_coords to hs_circuit_describe: the model
 * computing node root; NULL with err filled (HS_ERR_NOMEM). */
hs_model *hs_circuit_assemble(hs_circuit *B, int root, hs_error *err);
/* The circuit entry (hs_program_compile): P, built when a program was
 * read, compiled under o as hs_compile compiles a formula; NULL with err
 * filled. */
hs_model *hs_compile_circuit(const hs_prebuilt *P, const hs_compile_opts *o, hs_error *err);

#endif
