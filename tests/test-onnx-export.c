/* SPDX-License-Identifier: MIT */
/* The ONNX writer: the protobuf encoder's bytes against hand-encoded
 * ones, the structure of a written model read back by a small decoder
 * (ir_version, opset, the graph's input and output, the metadata), and
 * hs_model_save_onnx's errors: one message, no file, no temporary left.
 * That ONNX Runtime computes what hardsoft does is tests/test-onnx.sh. */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "lang/ltl/formula.h"
#include "model/model.h"
#include "model/model.h"
#include "model/pb.h"

static char tmpdir[] = "/tmp/hs-onnx-test-XXXXXX";

static void expect(const hs_pb_buf *b, const char *hex) {
  char got[256] = {0};
  assert_false(b->oom);
  for (size_t i = 0; i < b->n && 2 * i + 2 < sizeof got; i++)
    snprintf(got + 2 * i, 3, "%02x", b->p[i]);
  assert_string_equal(got, hex);
}

static void test_varints(void **state) {
  (void)state;
  struct { uint64_t v; const char *hex; } cases[] = {
      {0, "00"}, {1, "01"}, {127, "7f"}, {128, "8001"}, {300, "ac02"},
      {UINT64_MAX, "ffffffffffffffffff01"}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    hs_pb_buf b = {0};
    hs_pb_varint(&b, cases[k].v);
    expect(&b, cases[k].hex);
    hs_pb_free(&b);
  }
}

static void test_fields(void **state) {
  (void)state;
  hs_pb_buf b = {0}, sub = {0};
  hs_pb_int(&b, 1, 8); /* tag (1 << 3) | 0 */
  hs_pb_int(&b, 3, -1); /* int64 -1: ten bytes */
  hs_pb_float(&b, 2, 1.0f); /* tag (2 << 3) | 5, little-endian bits */
  hs_pb_str(&b, 1, "ab");
  hs_pb_int(&sub, 2, 17);
  hs_pb_msg(&b, 8, &sub); /* tag (8 << 3) | 2, length, bytes */
  hs_pb_int(&b, 20, 2); /* a two-byte tag */
  expect(&b, "0808" "18ffffffffffffffffff01" "150000803f" "0a026162" "42021011" "a00102");
  hs_pb_free(&b);
  hs_pb_free(&sub);
}

/* ---------------------------------------------------------------- decoder */

typedef struct { const uint8_t *p, *end; } rd;

static uint64_t rd_varint(rd *r) {
  uint64_t v = 0;
  for (int s = 0; r->p < r->end && s < 64; s += 7) {
    uint8_t c = *r->p++;
    v |= (uint64_t)(c & 0x7f) << s;
    if (!(c & 0x80)) return v;
  }
  fail_msg("truncated varint");
  return 0;
}

/* The next field: its number, wire type, varint value or bytes. */
static int rd_field(rd *r, uint32_t *field, uint64_t *v, rd *bytes) {
  if (r->p >= r->end) return 0;
  uint64_t tag = rd_varint(r);
  *field = (uint32_t)(tag >> 3);
  switch (tag & 7) {
    case 0: *v = rd_varint(r); break;
    case 2: {
      uint64_t n = rd_varint(r);
      assert_true(n <= (uint64_t)(r->end - r->p));
      bytes->p = r->p, bytes->end = r->p + n;
      r->p += n;
      break;
    }
    case 5: assert_true(r->end - r->p >= 4); r->p += 4; break;
    case 1: assert_true(r->end - r->p >= 8); r->p += 8; break;
    default: fail_msg("wire type %d", (int)(tag & 7));
  }
  return 1;
}

static int rd_is(const rd *b, const char *s) {
  return (size_t)(b->end - b->p) == strlen(s) && !memcmp(b->p, s, strlen(s));
}

/* A ValueInfoProto's name (field 1). */
static int value_named(rd vi, const char *name) {
  uint32_t f;
  uint64_t v;
  rd b;
  while (rd_field(&vi, &f, &v, &b))
    if (f == 1) return rd_is(&b, name);
  return 0;
}

static void check_graph(rd g, int *ops_softmax) {
  uint32_t f;
  uint64_t v;
  rd b;
  int inputs = 0, outputs = 0, ids = 0, out = 0, nodes = 0, inits = 0;
  while (rd_field(&g, &f, &v, &b)) {
    if (f == 11) inputs++, ids += value_named(b, "ids");
    if (f == 12) outputs++, out += value_named(b, "out");
    if (f == 5) inits++;
    if (f == 1) {
      nodes++;
      uint32_t nf;
      rd nb;
      while (rd_field(&b, &nf, &v, &nb))
        if (nf == 4 && rd_is(&nb, "Softmax")) ++*ops_softmax;
    }
  }
  assert_int_equal(inputs, 1);
  assert_int_equal(ids, 1);
  assert_int_equal(outputs, 1);
  assert_int_equal(out, 1);
  assert_true(nodes > 10 && inits > 3);
}

static void test_structure(void **state) {
  (void)state;
  char path[256];
  hs_error he;
  hs_error err;
  hs_formula *f = hs_formula_parse("a S b", &err);
  assert_non_null(f);
  hs_compile_opts co = {.mode = HS_MODE_PE, .scale = 4};
  hs_model *m = hs_compile(f, &co, &he);
  assert_non_null(m);
  snprintf(path, sizeof path, "%s/asb.onnx", tmpdir);
  assert_int_equal(hs_model_save_onnx(m, path, &he), 0);
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  static uint8_t data[1 << 20];
  size_t n = fread(data, 1, sizeof data, fp);
  fclose(fp);
  assert_true(n > 100 && n < sizeof data);
  rd r = {data, data + n}, b;
  uint32_t fld;
  uint64_t v;
  int ir = 0, opset = 0, graphs = 0, softmax = 0, formula = 0;
  while (rd_field(&r, &fld, &v, &b)) {
    if (fld == 1) ir = (int)v;
    if (fld == 7) graphs++, check_graph(b, &softmax);
    if (fld == 8) {
      uint32_t of;
      rd ob;
      while (rd_field(&b, &of, &v, &ob))
        if (of == 2) opset = (int)v;
    }
    if (fld == 14) {
      uint32_t mf;
      rd mb;
      int key = 0;
      while (rd_field(&b, &mf, &v, &mb)) {
        if (mf == 1) key = rd_is(&mb, "hardsoft.formula");
        if (mf == 2 && key) formula = rd_is(&mb, "a S b");
      }
    }
  }
  assert_int_equal(ir, 8);
  assert_int_equal(opset, 17);
  assert_int_equal(graphs, 1);
  assert_int_equal(formula, 1);
  int heads = 0;
  for (int l = 0; l < m->nlayers; l++) heads += m->layers[l].nheads;
  assert_int_equal(softmax, heads);
  hs_model_free(m);
  hs_formula_free(f);
  unlink(path);
}

/* ---------------------------------------------------------------- errors */

static int entries(const char *dir) {
  DIR *d = opendir(dir);
  int k = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) k++;
  if (d) closedir(d);
  return k;
}

static void test_errors(void **state) {
  (void)state;
  char path[256];
  hs_error he;
  hs_model *m = hs_model_new(3, 0);
  assert_non_null(m);
  snprintf(path, sizeof path, "%s/x.onnx", tmpdir);
  assert_int_equal(hs_model_save_onnx(m, "", &he), -1);
  assert_string_equal(he.msg, "save: empty path");
  m->out_coord = 3; /* out of range */
  assert_int_equal(hs_model_save_onnx(m, path, &he), -1);
  assert_non_null(strstr(he.msg, "out_coord"));
  m->out_coord = 2;
  snprintf(path, sizeof path, "%s/missing/x.onnx", tmpdir);
  assert_int_equal(hs_model_save_onnx(m, path, &he), -1);
  assert_non_null(strstr(he.msg, "temporary file"));
  assert_int_equal(entries(tmpdir), 0); /* no file, no temporary */
  /* a model with no layers is still a graph: out = embed[ids][:, 2] */
  snprintf(path, sizeof path, "%s/x.onnx", tmpdir);
  mode_t um = umask(027);
  assert_int_equal(hs_model_save_onnx(m, path, &he), 0);
  umask(um);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0640);
  assert_int_equal(entries(tmpdir), 1);
  unlink(path);
  hs_model_free(m);
}

int main(void) {
  if (!mkdtemp(tmpdir)) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_varints), cmocka_unit_test(test_fields),
      cmocka_unit_test(test_structure), cmocka_unit_test(test_errors)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  rmdir(tmpdir);
  return rc;
}
