/* SPDX-License-Identifier: MIT */
/* The circuit stages one by one (src/circuit/): build (hash-consing gives
 * one node per distinct computation, however many nodes), schedule (a node
 * runs in the first sublayer after its inputs), weights (every gate's ReLU
 * units compute its truth table exactly, the rounding after a head maps
 * within 1/4 of 0 or 1 to exactly 0 or 1) and assemble (a circuit becomes
 * a valid model with the layers and heads the schedule asked for); and a
 * circuit built ahead (keep prunes to what the root needs and renumbers,
 * copy is independent of its original, labels, renames and depths). */
#include "common.h"
#include "circuit/circuit.h"

static hs_compile_opts opts(hs_mode mode) {
  return (hs_compile_opts){.mode = mode, .scale = 4, .sign = HS_SIGN_LAYERNORM};
}

static int atom(hs_circuit *B, uint8_t sym) {
  hs_cnode n = hs_cnode_blank(HS_C_ATOM, -1);
  n.sym = sym;
  return hs_circuit_add(B, n);
}

static void test_build_shares(void **state) {
  (void)state;
  hs_circuit B;
  hs_compile_opts o = opts(HS_MODE_HARD);
  hs_circuit_init(&B, &o);
  int a = atom(&B, 'a'), b = atom(&B, 'b');
  assert_int_equal(atom(&B, 'a'), a);
  int g = hs_circuit_gate(&B, HS_G_AND, a, b, -1);
  assert_int_equal(hs_circuit_gate(&B, HS_G_AND, a, b, 7), g);
  assert_int_equal(B.c[g].src, 7); /* a later source names an unnamed node */
  assert_int_not_equal(hs_circuit_gate(&B, HS_G_AND, b, a, -1), g);
  /* thousands of distinct nodes, each found again (the table grows) */
  int prev = a, ids[3000];
  for (int i = 0; i < 3000; i++) ids[i] = prev = hs_circuit_gate(&B, HS_G_NOT, prev, -1, -1);
  int n = B.n;
  prev = a;
  for (int i = 0; i < 3000; i++) {
    prev = hs_circuit_gate(&B, HS_G_NOT, prev, -1, -1);
    assert_int_equal(prev, ids[i]);
  }
  assert_int_equal(B.n, n);
  /* a sign is known by its source and variant */
  int ins[1] = {a};
  double coef[1] = {1};
  int s = hs_circuit_sign(&B, 3, 0, a, 1, ins, coef);
  assert_int_equal(hs_circuit_sign(&B, 3, 0, a, 1, ins, coef), s);
  assert_int_not_equal(hs_circuit_sign(&B, 3, 1, a, 1, ins, coef), s);
  assert_false(B.oom);
  hs_circuit_free(&B);
}

static int add_named(hs_prebuilt *P, hs_cnode n, int *depth, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int id = hs_prebuilt_vadd(P, n, depth, fmt, ap);
  va_end(ap);
  return id;
}

static void test_prebuilt(void **state) {
  (void)state;
  hs_prebuilt *P = hs_prebuilt_new();
  assert_non_null(P);
  int d, a = add_named(P, hs_cnode_blank(HS_C_ATOM, -1), &d, "tok %s", "a");
  assert_int_equal(d, 1);
  hs_cnode n = hs_cnode_blank(HS_C_ATOM, -1);
  n.sym = 'b';
  int unused = add_named(P, n, &d, "b");
  n = hs_cnode_blank(HS_C_GATE, -1);
  n.g = HS_G_NOT;
  n.a = a;
  int na = add_named(P, n, &d, "!a");
  assert_int_equal(d, 2);
  assert_int_equal(add_named(P, n, &d, "other name"), na); /* shared, first name kept */
  assert_string_equal(hs_prebuilt_name(P, na), "!a");
  int64_t coef[1] = {2};
  int cnt = hs_circuit_count(&P->C, 1, na, 0), r = hs_circuit_count(&P->C, 1, -1, 0);
  int sign = hs_circuit_sign_of(&P->C, hs_prebuilt_label(P, "2 #(!a) - 1 > 0"), 0, r, 1,
                                &cnt, coef, -1);
  assert_int_equal(P->C.c[sign].nin, 2);
  assert_true(P->C.c[sign].coef[0] == 2 && P->C.c[sign].coef[1] == -1.5);
  assert_int_equal(hs_prebuilt_rename(P, sign, na + 1, "R"), 0);
  assert_string_equal(hs_prebuilt_name(P, sign), "R");
  assert_int_equal(hs_prebuilt_depth(P, sign), 4);
  /* keep: the unused atom goes, every reference follows the renumbering */
  P->root = sign;
  int before = P->C.n;
  assert_int_equal(hs_circuit_keep(&P->C, &P->root), 0);
  assert_int_equal(P->C.n, before - 1);
  assert_true(unused < P->C.n && P->C.c[unused].kind == HS_C_GATE);
  const hs_cnode *s = &P->C.c[P->root];
  assert_int_equal(s->kind, HS_C_SIGN);
  assert_int_equal(P->C.c[s->ins[0]].kind, HS_C_COUNT);
  assert_int_equal(P->C.c[P->C.c[s->ins[0]].val].kind, HS_C_GATE);
  assert_int_equal(hs_circuit_gate(&P->C, HS_G_NOT, a, -1, -1), unused); /* found again */
  /* copy: the same nodes under other options, its own arrays */
  hs_circuit C;
  hs_compile_opts o = opts(HS_MODE_PE);
  assert_int_equal(hs_circuit_copy(&C, &P->C, &o), 0);
  assert_int_equal(C.n, P->C.n);
  assert_int_equal(C.o.mode, HS_MODE_PE);
  assert_ptr_not_equal(C.c[P->root].ins, P->C.c[P->root].ins);
  assert_int_equal(C.c[P->root].ins[1], P->C.c[P->root].ins[1]);
  char name[64];
  hs_circuit_name(&C, P->root, name, sizeof name);
  assert_string_equal(name, "R");
  hs_circuit_free(&C);
  hs_prebuilt_free(P);
}

static void test_schedule(void **state) {
  (void)state;
  hs_circuit B;
  hs_compile_opts o = opts(HS_MODE_HARD);
  hs_circuit_init(&B, &o);
  int a = atom(&B, 'a');
  int na = hs_circuit_gate(&B, HS_G_NOT, a, -1, -1);        /* ffn of layer 0 */
  int h = hs_circuit_head(&B, 1, HS_MASK_LE, a, a, -1);      /* attn of layer 0 */
  int h2 = hs_circuit_head(&B, 1, HS_MASK_LT, -1, na, -1);   /* attn of layer 1 */
  int g = hs_circuit_gate(&B, HS_G_OR, h, h2, -1);           /* ffn of layer 2 */
  assert_int_equal(hs_circuit_coords(&B), 0);
  assert_int_equal(hs_circuit_schedule(&B), 3);
  assert_int_equal(B.c[a].ready, -1);
  assert_int_equal(B.c[na].ffn_at, 1);
  assert_int_equal(B.c[h].attn_at, 0);
  assert_int_equal(B.c[h].ffn_at, 1); /* its rounding, same layer */
  assert_int_equal(B.c[h2].attn_at, 2);
  assert_int_equal(B.c[g].ffn_at, 5);
  /* every coordinate distinct, heads with a scratch one */
  assert_true(B.c[h].scratch >= 0 && B.c[h].scratch != B.c[h].coord);
  assert_int_not_equal(B.c[a].coord, B.c[na].coord);
  hs_circuit_free(&B);
}

/* The units' output at one position: x holds the inputs' coordinates. */
static double run_units(const hs_unit *u, int k, const double *x) {
  double out = 0;
  for (int j = 0; j < k; j++) {
    double s = u[j].bias;
    for (int c = 0; c < 3; c++)
      if (u[j].in[c] >= 0) s += u[j].w[c] * x[u[j].in[c]];
    out += u[j].out * (s > 0 ? s : 0);
  }
  return out;
}

static void test_weights_gates(void **state) {
  (void)state;
  hs_circuit B;
  hs_compile_opts o = opts(HS_MODE_HARD);
  hs_circuit_init(&B, &o);
  int a = atom(&B, 'a'), b = atom(&B, 'b');
  const hs_gkind kinds[] = {HS_G_NOT, HS_G_AND, HS_G_OR, HS_G_IMPLIES, HS_G_IFF};
  int g[5];
  for (int k = 0; k < 5; k++) g[k] = hs_circuit_gate(&B, kinds[k], a, k ? b : -1, -1);
  assert_int_equal(hs_circuit_coords(&B), 0);
  int bos = B.pf_coord[HS_PF_BOS];
  for (int k = 0; k < 5; k++) {
    hs_unit u[2];
    int nu = hs_gate_units(&B, &B.c[g[k]], u);
    for (int va = 0; va < 2; va++)
      for (int vb = 0; vb < 2; vb++) {
        double x[64] = {0};
        x[B.c[a].coord] = va, x[B.c[b].coord] = vb;
        int want[5] = {!va, va && vb, va || vb, !va || vb, va == vb};
        assert_true(run_units(u, nu, x) == want[k]);
      }
    double x[64] = {0}; /* BOS: every input 0, the output too */
    x[bos] = 1;
    assert_true(run_units(u, nu, x) == 0);
  }
  /* the rounding after a head */
  int h = hs_circuit_head(&B, 1, HS_MASK_LE, a, a, -1);
  assert_int_equal(hs_circuit_coords(&B), 0);
  hs_unit u[2];
  int nu = hs_round_units(&B, &B.c[h], u);
  for (float v = 0; v <= 1.0f; v += 1.0f / 64) {
    if (v > 0.25f && v < 0.75f) continue;
    double x[64] = {0};
    x[B.c[h].scratch] = v;
    assert_true(run_units(u, nu, x) == (v >= 0.75f));
  }
  hs_circuit_free(&B);
}

static void test_assemble(void **state) {
  (void)state;
  for (int mode = 0; mode < HS_MODE_COUNT_; mode++) {
    hs_circuit B;
    hs_compile_opts o = opts((hs_mode)mode);
    hs_circuit_init(&B, &o);
    int a = atom(&B, 'a');
    int na = hs_circuit_gate(&B, HS_G_NOT, a, -1, -1);
    int root = hs_circuit_head(&B, 1, HS_MASK_LE, na, na, -1);
    hs_model *m = hs_circuit_assemble(&B, root, NULL);
    assert_non_null(m);
    hs_error e;
    assert_int_equal(hs_model_validate(m, &e), 0);
    hs_model_info mi;
    hs_model_get_info(m, &mi);
    assert_int_equal(mi.nlayers, 2);
    assert_int_equal(mi.nheads, 1);
    assert_int_equal(mi.out_coord, B.c[root].coord);
    assert_string_equal(hs_model_mode(m), hs_mode_name((hs_mode)mode));
    hs_head_info H;
    assert_int_equal(hs_model_head_info(m, 1, 0, &H), 0);
    assert_string_equal(H.mask, "le");
    assert_string_equal(H.kind, mode == HS_MODE_HARD ? "hard_right" : "softmax");
    /* O !a at every position of "aab": 0 0 1 */
    hs_run_result r;
    hs_run_opts ro = {.precision = HS_PREC_F32};
    assert_int_equal(hs_forward(m, (const uint8_t *)"aab", 3, &ro, &r, &e), 0);
    assert_int_equal(r.bits[0], 0);
    assert_int_equal(r.bits[1], 0);
    assert_int_equal(r.bits[2], 1);
    hs_run_result_free(&r);
    hs_model_free(m);
    hs_circuit_free(&B);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_build_shares),
    cmocka_unit_test(test_prebuilt),
    cmocka_unit_test(test_schedule),
    cmocka_unit_test(test_weights_gates),
    cmocka_unit_test(test_assemble),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
