/* SPDX-License-Identifier: MIT */
/* Model files: save/load round trips bit for bit, clone, validate, and a
 * battery of corrupted files that must each be rejected with a message
 * naming what is wrong (and never crash or leak: run under ASan).
 *
 * Set HS_TEST_MODEL_DIR to keep the files a forward pass can be checked
 * on (bench/peers/forward.py): mixed.safetensors (random weights, every
 * kind of head), yesterday-a.safetensors (Y a), once-a.safetensors (O a). */
#include <dirent.h>
#include <float.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common.h"
#include "model/model.h"

static char tmpdir[256];

static const char *tpath(const char *name) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
  return buf[k];
}

/* ------------------------------------------------------------ models */

static void fill(hs_rng *r, float *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (float)hs_rng_uniform(r, -4, 4);
}

static char *dupstr(const char *s) {
  char *t = malloc(strlen(s) + 1);
  strcpy(t, s);
  return t;
}

/* d = 6, three layers: 3 heads + FFN, 1 head and no FFN, FFN only; every
 * mask, kind, tau law and positional feature; metadata with a non-finite
 * bound and a NULL coordinate name. */
static hs_model *mixed_model(void) {
  hs_rng r = {42};
  hs_model *m = hs_model_new(6, 3);
  assert_non_null(m);
  fill(&r, m->embed, HS_VOCAB * 6);
  hs_pf_kind kinds[] = {HS_PF_ONE, HS_PF_BOS, HS_PF_LAST, HS_PF_I,
                        HS_PF_N, HS_PF_I_OVER_N, HS_PF_INV_I1, HS_PF_MOD,
                        HS_PF_LN_REST, HS_PF_LN_I, HS_PF_LN_REST_OVER_N,
                        HS_PF_LN_I_OVER_N};
  for (int i = 0; i < 12; i++)
    assert_int_equal(hs_model_add_pf(m, kinds[i], i % 6, kinds[i] == HS_PF_MOD ? 3 : 0,
                                     kinds[i] == HS_PF_MOD ? 1 : 0), 0);
  struct { int l; hs_attn_kind k, t; hs_mask mk; hs_tau_law law; double c;
           int dk, dv; const char *desc; } hs[] = {
    {0, HS_ATTN_SOFTMAX, HS_ATTN_HARD_RIGHT, HS_MASK_LE, HS_TAU_INV_N, 0.25, 3, 2, "rightmost a before i"},
    {0, HS_ATTN_HARD_RIGHT, HS_ATTN_HARD_RIGHT, HS_MASK_LT, HS_TAU_CONST, 1, 1, 1, NULL},
    {0, HS_ATTN_SOFTMAX, HS_ATTN_HARD_AVG, HS_MASK_NONE, HS_TAU_INV_NLOGN, 1e-3, 6, 6, "uniform \xc3\xa9"},
    {1, HS_ATTN_HARD_LEFT, HS_ATTN_HARD_LEFT, HS_MASK_GE, HS_TAU_CONST, 0, 2, 3, "left"},
    {1, HS_ATTN_HARD_AVG, HS_ATTN_HARD_AVG, HS_MASK_GT, HS_TAU_CONST, 1, 4, 1, ""},
  };
  for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++) {
    hs_head *h = hs_model_add_head(m, hs[i].l, hs[i].dk, hs[i].dv);
    assert_non_null(h);
    h->kind = hs[i].k;
    h->target = hs[i].t;
    h->mask = hs[i].mk;
    h->tau_law = hs[i].law;
    h->tau_c = hs[i].c;
    h->desc = hs[i].desc ? dupstr(hs[i].desc) : NULL;
    if (i == 0) h->bias_slope = 2.5f; /* a relative bias (mode rel) */
    fill(&r, h->wq, (size_t)h->dk * 6);
    fill(&r, h->wk, (size_t)h->dk * 6);
    fill(&r, h->wv, (size_t)h->dv * 6);
    fill(&r, h->wo, 6 * (size_t)h->dv);
  }
  int hidden[3] = {4, 0, 2};
  for (int l = 0; l < 3; l++) {
    assert_int_equal(hs_model_set_ffn(m, l, hidden[l]), 0);
    hs_layer *L = &m->layers[l];
    if (!hidden[l]) continue;
    fill(&r, L->w1, (size_t)hidden[l] * 6);
    fill(&r, L->b1, (size_t)hidden[l]);
    fill(&r, L->w2, 6 * (size_t)hidden[l]);
    fill(&r, L->b2, 6);
  }
  m->out_coord = 5;
  m->formula = dupstr("Y(a S b) & #<(c) >= 2");
  m->mode = dupstr("custom");
  m->scale = 3.25;
  m->bound = INFINITY;
  m->min_scale = 0.1;
  m->bound_desc = dupstr("none: hand-made");
  m->coord_names = calloc(6, sizeof(char *));
  const char *names[6] = {"one", "bos", NULL, "i", "n", "out"};
  for (int i = 0; i < 6; i++)
    m->coord_names[i] = names[i] ? dupstr(names[i]) : NULL;
  return m;
}

static int streq(const char *a, const char *b) {
  return (!a && !b) || (a && b && !strcmp(a, b));
}
static int feq(const float *a, const float *b, size_t n) {
  return (!a && !b) || (a && b && !memcmp(a, b, n * sizeof(float)));
}
static int deq(double a, double b) { return !memcmp(&a, &b, sizeof a) || (isnan(a) && isnan(b)); }

/* Every field and every weight, bit for bit. */
static void assert_models_equal(const hs_model *a, const hs_model *b) {
  size_t d = (size_t)a->d;
  assert_int_equal(a->d, b->d);
  assert_true(feq(a->embed, b->embed, HS_VOCAB * d));
  assert_int_equal(a->npf, b->npf);
  for (int i = 0; i < a->npf; i++) {
    assert_int_equal(a->pf[i].kind, b->pf[i].kind);
    assert_int_equal(a->pf[i].coord, b->pf[i].coord);
    assert_int_equal(a->pf[i].k, b->pf[i].k);
    assert_int_equal(a->pf[i].r, b->pf[i].r);
  }
  assert_int_equal(a->nlayers, b->nlayers);
  for (int l = 0; l < a->nlayers; l++) {
    const hs_layer *x = &a->layers[l], *y = &b->layers[l];
    assert_int_equal(x->nheads, y->nheads);
    for (int h = 0; h < x->nheads; h++) {
      const hs_head *p = &x->heads[h], *q = &y->heads[h];
      assert_int_equal(p->kind, q->kind);
      assert_int_equal(p->target, q->target);
      assert_int_equal(p->mask, q->mask);
      assert_int_equal(p->tau_law, q->tau_law);
      assert_true(deq(p->tau_c, q->tau_c));
      assert_true(p->bias_slope == q->bias_slope);
      assert_int_equal(p->dk, q->dk);
      assert_int_equal(p->dv, q->dv);
      assert_true(feq(p->wq, q->wq, (size_t)p->dk * d));
      assert_true(feq(p->wk, q->wk, (size_t)p->dk * d));
      assert_true(feq(p->wv, q->wv, (size_t)p->dv * d));
      assert_true(feq(p->wo, q->wo, (size_t)p->dv * d));
      assert_true(streq(p->desc, q->desc));
    }
    assert_int_equal(x->hidden, y->hidden);
    size_t hid = (size_t)x->hidden;
    assert_true(feq(x->w1, y->w1, hid * d));
    assert_true(feq(x->b1, y->b1, hid));
    assert_true(feq(x->w2, y->w2, hid * d));
    assert_true(feq(x->b2, y->b2, hid ? d : 0));
  }
  assert_int_equal(a->out_coord, b->out_coord);
  assert_true(streq(a->formula, b->formula));
  assert_true(streq(a->mode, b->mode));
  assert_true(deq(a->scale, b->scale));
  assert_true(deq(a->bound, b->bound));
  assert_true(deq(a->min_scale, b->min_scale));
  assert_true(streq(a->bound_desc, b->bound_desc));
  assert_true(!a->coord_names == !b->coord_names);
  for (size_t i = 0; a->coord_names && i < d; i++)
    assert_true(streq(a->coord_names[i], b->coord_names[i]));
}

/* ------------------------------------------------------------ file bytes */

typedef struct bytes { unsigned char *p; size_t n; } bytes;

static bytes slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  bytes b = {malloc(1 << 20), 0};
  b.n = fread(b.p, 1, 1 << 20, f);
  fclose(f);
  return b;
}

/* Unlink first: on ext4, truncating and rewriting a file forces a flush
 * at close (auto_da_alloc), which made this suite wait on the disk. */
static void spit(const char *path, const void *p, size_t n) {
  unlink(path);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(p, 1, n, f), n);
  fclose(f);
}

/* A valid file's parts: the parsed header and the data buffer. */
typedef struct parts { cJSON *root; const unsigned char *data; } parts;

static parts split(bytes b) {
  uint64_t h = 0;
  for (int j = 0; j < 8; j++) h |= (uint64_t)b.p[j] << 8 * j;
  parts s = {cJSON_ParseWithLength((const char *)b.p + 8, h), b.p + 8 + h};
  assert_non_null(s.root);
  return s;
}

static cJSON *doc_of(cJSON *root) {
  cJSON *meta = cJSON_GetObjectItem(root, "__metadata__");
  return cJSON_Parse(cJSON_GetObjectItem(meta, "hardsoft")->valuestring);
}
static void set_doc(cJSON *root, cJSON *doc) {
  cJSON *meta = cJSON_GetObjectItem(root, "__metadata__");
  char *t = cJSON_PrintUnformatted(doc);
  cJSON_ReplaceItemInObject(meta, "hardsoft", cJSON_CreateString(t));
  free(t);
  cJSON_Delete(doc);
}

/* 2-byte elements written for a tensor whose dtype was set to "F16" or
 * "BF16" by repack (in order, one per F32 element it had). */
static const uint16_t *half_bits;

/* Write root as a file whose data buffer is rebuilt in root order from
 * each tensor's bytes in `data` (at its current offsets), so removing,
 * adding or reordering entries keeps the buffer packed. A tensor whose
 * dtype was set to "F64" has its F32 bytes widened; "F16" / "BF16" ones
 * get half_bits. */
static void repack(cJSON *root, const unsigned char *data, const char *path) {
  size_t cap = 1 << 20, n = 0;
  unsigned char *out = malloc(cap);
  cJSON *o;
  cJSON_ArrayForEach(o, root) {
    cJSON *off = cJSON_GetObjectItem(o, "data_offsets");
    cJSON *dt = cJSON_GetObjectItem(o, "dtype");
    if (!strcmp(o->string, "__metadata__") || !off || !dt) continue;
    size_t b = (size_t)off->child->valuedouble, e = (size_t)off->child->next->valuedouble;
    int f64 = !strcmp(dt->valuestring, "F64");
    int half = !strcmp(dt->valuestring, "F16") || !strcmp(dt->valuestring, "BF16");
    size_t start = n;
    for (size_t i = b; i < e; i += 4) {
      float f;
      memcpy(&f, data + i, 4);
      if (half) {
        uint16_t h = half_bits[(i - b) / 4];
        out[n++] = (unsigned char)(h & 0xff);
        out[n++] = (unsigned char)(h >> 8);
      } else if (f64) {
        double x = f;
        memcpy(out + n, &x, 8);
        n += 8;
      } else {
        memcpy(out + n, &f, 4);
        n += 4;
      }
    }
    cJSON_ReplaceItemInArray(off, 0, cJSON_CreateNumber((double)start));
    cJSON_ReplaceItemInArray(off, 1, cJSON_CreateNumber((double)n));
  }
  char *h = cJSON_PrintUnformatted(root);
  size_t hn = strlen(h);
  unlink(path);
  FILE *f = fopen(path, "wb");
  unsigned char len8[8];
  for (int j = 0; j < 8; j++) len8[j] = (unsigned char)((uint64_t)hn >> 8 * j);
  fwrite(len8, 1, 8, f);
  fwrite(h, 1, hn, f);
  fwrite(out, 1, n, f);
  fclose(f);
  free(h);
  free(out);
}

/* Loading path must fail with a message containing each of the given
 * fragments (NULL-terminated list). */
static void expect_reject_(const char *path, const char *const *want) {
  hs_error he;
  hs_model *m = hs_model_load(path, &he);
  if (m) fail_msg("loaded a bad file (expected '%s')", want[0] ? want[0] : "");
  assert_true(he.msg[0] != 0);
  assert_null(strchr(he.msg, '\n'));
  if (getenv("HS_TEST_VERBOSE")) printf("  rejected: %s\n", he.msg);
  for (int i = 0; want[i]; i++)
    if (!strstr(he.msg, want[i])) fail_msg("message '%s' lacks '%s'", he.msg, want[i]);
}
#define expect_reject(path, ...) \
  expect_reject_(path, (const char *const[]){__VA_ARGS__, NULL})

/* Saved once: the tests only read it. */
static const char *saved_mixed(void) {
  static char p[512];
  if (p[0]) return p;
  snprintf(p, sizeof p, "%s", tpath("mixed.safetensors"));
  hs_model *m = mixed_model();
  hs_error he;
  assert_int_equal(hs_model_save(m, p, &he), 0);
  hs_model_free(m);
  return p;
}

/* Load the mixed model, let edit() change header or metadata doc, repack,
 * and expect rejection. */
typedef void (*edit_fn)(cJSON *root);
static void edited_reject_(edit_fn edit, const char *const *want) {
  bytes b = slurp(saved_mixed());
  parts s = split(b);
  edit(s.root);
  const char *p = tpath("edited.safetensors");
  repack(s.root, s.data, p);
  cJSON_Delete(s.root);
  free(b.p);
  expect_reject_(p, want);
}
#define edited_reject(edit, ...) \
  edited_reject_(edit, (const char *const[]){__VA_ARGS__, NULL})

/* ------------------------------------------------------------ round trip */

static void test_roundtrip(void **state) {
  (void)state;
  hs_model *m = mixed_model();
  hs_error he;
  assert_int_equal(hs_model_validate(m, &he), 0);
  const char *p = tpath("rt.safetensors");
  assert_int_equal(hs_model_save(m, p, &he), 0);
  hs_model *l = hs_model_load(p, &he);
  if (!l) fail_msg("load: %s", he.msg);
  assert_models_equal(m, l);
  /* saving what was loaded gives the same bytes: the writer is a
   * function of the model alone */
  const char *p2 = tpath("rt2.safetensors");
  assert_int_equal(hs_model_save(l, p2, &he), 0);
  bytes a = slurp(p), b = slurp(p2);
  assert_int_equal(a.n, b.n);
  assert_memory_equal(a.p, b.p, a.n);
  /* header padded so the data starts 8-aligned */
  uint64_t h = 0;
  for (int j = 0; j < 8; j++) h |= (uint64_t)a.p[j] << 8 * j;
  assert_int_equal((8 + h) % 8, 0);
  const char *keep = getenv("HS_TEST_MODEL_DIR");
  if (keep) {
    char kp[512];
    snprintf(kp, sizeof kp, "%s/mixed.safetensors", keep);
    assert_int_equal(hs_model_save(m, kp, &he), 0);
  }
  free(a.p);
  free(b.p);
  hs_model_free(m);
  hs_model_free(l);
}

static void test_clone(void **state) {
  (void)state;
  hs_model *m = mixed_model();
  hs_model *c = hs_model_clone(m);
  assert_non_null(c);
  assert_models_equal(m, c);
  /* deep: no shared buffers */
  assert_ptr_not_equal(m->embed, c->embed);
  assert_ptr_not_equal(m->layers[0].heads[0].wq, c->layers[0].heads[0].wq);
  c->layers[0].heads[0].wq[0] += 1;
  assert_true(m->layers[0].heads[0].wq[0] != c->layers[0].heads[0].wq[0]);
  hs_model_free(m);
  hs_model_free(c);
  hs_model *e = hs_model_new(1, 0), *ec = hs_model_clone(e);
  assert_non_null(ec);
  assert_models_equal(e, ec);
  hs_model_free(e);
  hs_model_free(ec);
  assert_null(hs_model_clone(NULL));
}

static void test_new_and_builders(void **state) {
  (void)state;
  assert_null(hs_model_new(0, 1));
  assert_null(hs_model_new(-3, 1));
  assert_null(hs_model_new(HS_MODEL_MAX_D + 1, 1));
  assert_null(hs_model_new(4, -1));
  hs_model *m = hs_model_new(4, 2);
  assert_non_null(m);
  assert_int_equal(m->nlayers, 2);
  assert_int_equal(m->layers[1].nheads, 0);
  assert_null(hs_model_add_head(m, 2, 1, 1));
  assert_null(hs_model_add_head(m, 0, 0, 1));
  assert_null(hs_model_add_head(m, 0, 1, HS_ATTN_MAX_D + 1));
  assert_non_null(hs_model_add_head(m, 0, HS_ATTN_MAX_D, 1));
  assert_int_equal(hs_model_add_pf(m, HS_PF_ONE, 4, 0, 0), -1);
  assert_int_equal(hs_model_add_pf(m, HS_PF_COUNT_, 0, 0, 0), -1);
  assert_int_equal(hs_model_set_ffn(m, 1, 3), 0);
  assert_int_equal(hs_model_set_ffn(m, 1, 5), 0);
  assert_int_equal(m->layers[1].hidden, 5);
  assert_int_equal(hs_model_set_ffn(m, 1, 0), 0);
  assert_null(m->layers[1].w1);
  hs_error he;
  assert_int_equal(hs_model_validate(m, &he), 0);
  hs_model_free(m);
  hs_model_free(NULL);
}

static void test_enum_names(void **state) {
  (void)state;
  for (int i = 0; i < HS_MASK_COUNT_; i++)
    assert_int_equal(hs_mask_parse(hs_mask_name((hs_mask)i)), i);
  for (int i = 0; i < HS_ATTN_COUNT_; i++)
    assert_int_equal(hs_attn_kind_parse(hs_attn_kind_name((hs_attn_kind)i)), i);
  for (int i = 0; i < HS_TAU_COUNT_; i++)
    assert_int_equal(hs_tau_law_parse(hs_tau_law_name((hs_tau_law)i)), i);
  for (int i = 0; i < HS_PF_COUNT_; i++)
    assert_int_equal(hs_pf_kind_parse(hs_pf_kind_name((hs_pf_kind)i)), i);
  assert_string_equal(hs_mask_name(HS_MASK_LE), "le");
  assert_string_equal(hs_attn_kind_name(HS_ATTN_HARD_AVG), "hard_avg");
  assert_string_equal(hs_tau_law_name(HS_TAU_INV_NLOGN), "inv_nlogn");
  assert_string_equal(hs_pf_kind_name(HS_PF_I_OVER_N), "i_over_n");
  assert_string_equal(hs_mask_name((hs_mask)99), "?");
  assert_int_equal(hs_mask_parse("LE"), -1);
  assert_int_equal(hs_attn_kind_parse(""), -1);
  assert_int_equal(hs_tau_law_parse(NULL), -1);
  assert_int_equal(hs_pf_kind_parse("modd"), -1);
}

/* Each broken model fails validation with a message naming the field. */
static void test_validate(void **state) {
  (void)state;
  struct { const char *want; } cases[] = {
      {"out_coord"}, {"pos_features.0.coord"}, {"pos_features.7"},
      {"layers.0.heads.0.tau_c"}, {"layers.1.heads.0.mask"},
      {"layers.0.heads.2: dk=65"}, {"layers.2.ffn"}, {"layers.0.heads.1.kind"},
      {"d:"}, {"layers.1.heads.1.tau_law"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    hs_model *m = mixed_model();
    switch (i) {
      case 0: m->out_coord = 6; break;
      case 1: m->pf[0].coord = -1; break;
      case 2: m->pf[7].k = 0; break;
      case 3: m->layers[0].heads[0].tau_c = NAN; break;
      case 4: m->layers[1].heads[0].mask = HS_MASK_COUNT_; break;
      case 5: m->layers[0].heads[2].dk = 65; break;
      case 6: free(m->layers[2].b1); m->layers[2].b1 = NULL; break;
      case 7: m->layers[0].heads[1].kind = (hs_attn_kind)-1; break;
      case 8: m->d = 0; break;
      case 9: m->layers[1].heads[1].tau_law = HS_TAU_COUNT_; break;
    }
    hs_error he;
    assert_int_equal(hs_model_validate(m, &he), -1);
    if (!strstr(he.msg, cases[i].want)) fail_msg("case %zu: '%s'", i, he.msg);
    /* an invalid model is never written */
    const char *p = tpath("invalid.safetensors");
    he.msg[0] = 0;
    assert_int_equal(hs_model_save(m, p, &he), -1);
    assert_true(he.msg[0] != 0);
    assert_int_equal(access(p, F_OK), -1);
    if (i == 8) m->d = 6; /* free needs the true d for coord_names */
    hs_model_free(m);
  }
  assert_int_equal(hs_model_validate(NULL, NULL), -1);
}

/* ------------------------------------------------------------ saving */

static int count_tmp_files(const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strstr(e->d_name, ".tmp.")) n++;
  closedir(d);
  return n;
}

static void test_failed_save_leaves_nothing(void **state) {
  (void)state;
  hs_model *m = mixed_model();
  hs_error he;
  const char *p = tpath("no-such-dir/m.safetensors");
  assert_int_equal(hs_model_save(m, p, &he), -1);
  assert_non_null(strstr(he.msg, "temporary file"));
  assert_int_equal(access(tpath("no-such-dir"), F_OK), -1);
  /* the target is a directory: the temporary file is written, the rename
   * fails, and the temporary file is removed */
  const char *dp = tpath("a-directory");
  assert_int_equal(mkdir(dp, 0755), 0);
  he.msg[0] = 0;
  assert_int_equal(hs_model_save(m, dp, &he), -1);
  assert_non_null(strstr(he.msg, "rename"));
  assert_int_equal(count_tmp_files(tmpdir), 0);
  rmdir(dp);
  /* overwriting an existing model works and leaves no temporary file */
  const char *q = tpath("over.safetensors");
  spit(q, "junk", 4);
  assert_int_equal(hs_model_save(m, q, &he), 0);
  assert_int_equal(hs_model_save(m, q, &he), 0);
  assert_int_equal(count_tmp_files(tmpdir), 0);
  hs_model *l = hs_model_load(q, &he);
  assert_non_null(l);
  hs_model_free(l);
  hs_model_free(m);
}

/* ------------------------------------------------------------ bad files */

static void test_short_and_length(void **state) {
  (void)state;
  hs_error he;
  assert_null(hs_model_load(tpath("absent.safetensors"), &he));
  assert_non_null(strstr(he.msg, "cannot open: No such file"));
  const char *p = tpath("bad.safetensors");
  spit(p, "", 0);
  expect_reject(p, "too short");
  spit(p, "\x10\0\0\0\0\0\0", 7);
  expect_reject(p, "too short");
  bytes b = slurp(saved_mixed());
  uint64_t lens[] = {UINT64_MAX, 1ull << 62, (64ull << 20) + 1, b.n - 7, 0};
  const char *want[] = {"64 MiB", "64 MiB", "64 MiB", "larger than the file",
                        "invalid JSON"};
  for (int i = 0; i < 5; i++) {
    for (int j = 0; j < 8; j++) b.p[j] = (unsigned char)(lens[i] >> 8 * j);
    spit(p, b.p, b.n);
    expect_reject(p, "header", want[i]);
  }
  /* a directory is not a model file */
  expect_reject(tmpdir, "not a regular file");
  free(b.p);
}

/* Every prefix of a valid file is rejected. */
static void test_truncated(void **state) {
  (void)state;
  bytes b = slurp(saved_mixed());
  const char *p = tpath("trunc.safetensors");
  for (size_t n = 0; n < b.n; n += n < 4096 ? 1 : 7) {
    spit(p, b.p, n);
    expect_reject(p, "");
  }
  /* and so is one byte too many */
  b.p[b.n] = 0;
  spit(p, b.p, b.n + 1);
  expect_reject(p, "unused bytes");
  free(b.p);
}

/* Flipping header bytes must never crash; what loads is valid. */
static void test_header_flips(void **state) {
  (void)state;
  bytes b = slurp(saved_mixed());
  uint64_t h = 0;
  for (int j = 0; j < 8; j++) h |= (uint64_t)b.p[j] << 8 * j;
  const char *p = tpath("flip.safetensors");
  unsigned char vals[] = {0x00, '"', '}', '9', 0xff, ' ', '-'};
  int rejected = 0, total = 0;
  for (size_t i = 8; i < 8 + h; i++)
    for (size_t v = 0; v < sizeof vals; v++) {
      unsigned char old = b.p[i];
      if (old == vals[v]) continue;
      b.p[i] = vals[v];
      spit(p, b.p, b.n);
      hs_error he;
      hs_model *m = hs_model_load(p, &he);
      total++;
      if (m) {
        assert_int_equal(hs_model_validate(m, &he), 0);
        hs_model_free(m);
      } else {
        assert_true(he.msg[0] != 0);
        assert_null(strchr(he.msg, '\n'));
        rejected++;
      }
      b.p[i] = old;
    }
  assert_true(rejected > total / 2);
  free(b.p);
}

/* Random byte mutations over the whole file. */
static void test_random_mutations(void **state) {
  (void)state;
  bytes b = slurp(saved_mixed());
  unsigned char *orig = malloc(b.n);
  memcpy(orig, b.p, b.n);
  hs_rng r = {7};
  const char *p = tpath("mut.safetensors");
  for (int it = 0; it < 1500; it++) {
    memcpy(b.p, orig, b.n);
    int k = 1 + (int)(hs_rng_next(&r) % 4);
    for (int j = 0; j < k; j++) {
      /* mostly the header, where the structure is */
      size_t at = hs_rng_next(&r) % (j & 1 ? b.n : 3000);
      b.p[at] = (unsigned char)hs_rng_next(&r);
    }
    spit(p, b.p, b.n);
    hs_error he;
    hs_model *m = hs_model_load(p, &he);
    if (m) {
      assert_int_equal(hs_model_validate(m, &he), 0);
      hs_model_free(m);
    } else {
      assert_true(he.msg[0] != 0);
    }
  }
  free(orig);
  free(b.p);
}

static cJSON *tensor(cJSON *root, const char *name) {
  cJSON *t = cJSON_GetObjectItem(root, name);
  assert_non_null(t);
  return t;
}
static void set_shape(cJSON *root, const char *name, double a, double b) {
  cJSON *t = tensor(root, name);
  double dims[2] = {a, b};
  cJSON_ReplaceItemInObject(t, "shape", cJSON_CreateDoubleArray(dims, b < 0 ? 1 : 2));
}
static void set_offsets(cJSON *root, const char *name, double a, double b) {
  cJSON *t = tensor(root, name);
  double o[2] = {a, b};
  cJSON_ReplaceItemInObject(t, "data_offsets", cJSON_CreateDoubleArray(o, 2));
}
static double offset(cJSON *root, const char *name, int which) {
  return cJSON_GetArrayItem(cJSON_GetObjectItem(tensor(root, name), "data_offsets"),
                            which)->valuedouble;
}

/* Header edits written without repacking (offsets as edited). */
static void raw_reject_(void (*edit)(cJSON *), const char *const *want) {
  bytes b = slurp(saved_mixed());
  parts s = split(b);
  edit(s.root);
  uint64_t h = 0;
  for (int j = 0; j < 8; j++) h |= (uint64_t)b.p[j] << 8 * j;
  size_t dlen = b.n - 8 - h;
  char *t = cJSON_PrintUnformatted(s.root);
  size_t tn = strlen(t);
  unsigned char *out = malloc(8 + tn + dlen);
  for (int j = 0; j < 8; j++) out[j] = (unsigned char)((uint64_t)tn >> 8 * j);
  memcpy(out + 8, t, tn);
  memcpy(out + 8 + tn, s.data, dlen);
  const char *p = tpath("raw.safetensors");
  spit(p, out, 8 + tn + dlen);
  free(out);
  free(t);
  cJSON_Delete(s.root);
  free(b.p);
  expect_reject_(p, want);
}
#define raw_reject(edit, ...) \
  raw_reject_(edit, (const char *const[]){__VA_ARGS__, NULL})

/* I32 has F32's size: the offsets stay valid, only the dtype is wrong */
static void e_dtype_i32(cJSON *r) {
  cJSON_ReplaceItemInObject(tensor(r, "layers.0.attn.2.wv"), "dtype", cJSON_CreateString("I32"));
}
static void e_dtype_unknown(cJSON *r) {
  cJSON_ReplaceItemInObject(tensor(r, "embed"), "dtype", cJSON_CreateString("F128"));
}
static void e_dtype_missing(cJSON *r) {
  cJSON_DeleteItemFromObject(tensor(r, "embed"), "dtype");
}
/* same byte count, transposed: only the shape check can catch it */
static void e_shape_transposed(cJSON *r) { set_shape(r, "layers.0.attn.0.wq", 6, 3); }
static void e_shape_size(cJSON *r) { set_shape(r, "layers.0.attn.0.wq", 3, 9); }
static void e_shape_rank(cJSON *r) { set_shape(r, "layers.0.ffn.b1", 4, 1); }
static void e_shape_overflow(cJSON *r) {
  set_shape(r, "embed", 4294967296.0 * 65536, 4294967296.0);
}
static void e_shape_negative(cJSON *r) { set_shape(r, "embed", -257, -6); }
static void e_shape_fraction(cJSON *r) { set_shape(r, "embed", 257.5, 6); }
static void e_overlap(cJSON *r) {
  /* wk takes wq's bytes: same size, overlapping */
  set_offsets(r, "layers.0.attn.0.wk", offset(r, "layers.0.attn.0.wq", 0),
              offset(r, "layers.0.attn.0.wq", 1));
}
static void e_beyond(cJSON *r) {
  double b = offset(r, "layers.2.ffn.b2", 0);
  set_offsets(r, "layers.2.ffn.b2", b + 4, b + 28);
}
static void e_end_before_begin(cJSON *r) { set_offsets(r, "embed", 100, 50); }
static void e_offsets_huge(cJSON *r) { set_offsets(r, "embed", 1e300, 1e300); }
static void e_offsets_short(cJSON *r) {
  cJSON_ReplaceItemInObject(tensor(r, "embed"), "data_offsets", cJSON_CreateArray());
}
static void e_gap(cJSON *r) {
  /* move embed by 4 bytes into the next tensor's space; shrink nothing:
   * overlap with the next tensor */
  double b = offset(r, "embed", 0), e = offset(r, "embed", 1);
  set_offsets(r, "embed", b + 4, e + 4);
}
static void e_remove(cJSON *r) { cJSON_DeleteItemFromObject(r, "layers.1.attn.0.wv"); }
static void e_unknown(cJSON *r) {
  cJSON_AddItemToObject(r, "layers.9.attn.0.wq",
                        cJSON_Duplicate(tensor(r, "layers.0.ffn.b2"), 1));
}
static void e_ffn_absent_layer(cJSON *r) {
  cJSON_AddItemToObject(r, "layers.1.ffn.b2",
                        cJSON_Duplicate(tensor(r, "layers.0.ffn.b2"), 1));
}
static void e_duplicate(cJSON *r) {
  cJSON_AddItemToObject(r, "layers.0.ffn.b2",
                        cJSON_Duplicate(tensor(r, "layers.0.ffn.b2"), 1));
}
static void e_tensor_not_object(cJSON *r) {
  cJSON_ReplaceItemInObject(r, "embed", cJSON_CreateString("x"));
}
static void e_rank9(cJSON *r) {
  double dims[9] = {257, 6, 1, 1, 1, 1, 1, 1, 1};
  cJSON_ReplaceItemInObject(tensor(r, "embed"), "shape", cJSON_CreateDoubleArray(dims, 9));
}

static void test_tensor_table(void **state) {
  (void)state;
  edited_reject(e_dtype_i32, "tensor layers.0.attn.2.wv: dtype I32 not supported");
  raw_reject(e_dtype_unknown, "tensor embed: dtype F128 is not a safetensors dtype");
  raw_reject(e_dtype_missing, "embed", "dtype");
  edited_reject(e_shape_transposed, "tensor layers.0.attn.0.wq: shape [6, 3], expected [dk=3, d=6]");
  raw_reject(e_shape_size, "layers.0.attn.0.wq", "span");
  raw_reject(e_shape_rank, "layers.0.ffn.b1", "shape [4, 1], expected [hidden=4]");
  raw_reject(e_shape_overflow, "embed", "overflow");
  raw_reject(e_shape_negative, "embed", "shape");
  raw_reject(e_shape_fraction, "embed", "shape");
  raw_reject(e_rank9, "embed", "rank");
  raw_reject(e_overlap, "overlap", "layers.0.attn.0.wk");
  raw_reject(e_beyond, "layers.2.ffn.b2", "beyond");
  raw_reject(e_end_before_begin, "embed", "end before begin");
  raw_reject(e_offsets_huge, "embed", "data_offsets");
  raw_reject(e_offsets_short, "embed", "data_offsets");
  raw_reject(e_gap, "unused bytes", "before tensor embed");
  edited_reject(e_remove, "missing tensor layers.1.attn.0.wv");
  edited_reject(e_unknown, "unexpected tensor layers.9.attn.0.wq");
  edited_reject(e_ffn_absent_layer, "unexpected tensor layers.1.ffn.b2");
  edited_reject(e_duplicate, "duplicate tensor layers.0.ffn.b2");
  raw_reject(e_tensor_not_object, "embed", "not an object");
}

/* NaN and infinity inside weights, named with the element. */
static void test_nonfinite_weights(void **state) {
  (void)state;
  bytes b = slurp(saved_mixed());
  parts s = split(b);
  const char *p = tpath("nan.safetensors");
  struct { const char *t; size_t el; float v; const char *want; } cases[] = {
      {"embed", 5, NAN, "tensor embed contains NaN at element 5"},
      {"layers.2.ffn.w2", 11, INFINITY, "tensor layers.2.ffn.w2 contains infinity at element 11"},
      {"layers.0.attn.1.wo", 0, -INFINITY, "layers.0.attn.1.wo contains infinity at element 0"}};
  for (int i = 0; i < 3; i++) {
    size_t at = (size_t)(s.data - b.p) + (size_t)offset(s.root, cases[i].t, 0) + 4 * cases[i].el;
    unsigned char old[4];
    memcpy(old, b.p + at, 4);
    memcpy(b.p + at, &cases[i].v, 4);
    spit(p, b.p, b.n);
    expect_reject(p, cases[i].want);
    memcpy(b.p + at, old, 4);
  }
  cJSON_Delete(s.root);
  free(b.p);
}

static cJSON *head_of(cJSON *doc, int l, int h) {
  return cJSON_GetArrayItem(cJSON_GetObjectItem(
      cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "layers"), l), "heads"), h);
}
#define DOC_EDIT(name, body)            \
  static void name(cJSON *r) {          \
    cJSON *doc = doc_of(r);             \
    body;                               \
    set_doc(r, doc);                    \
  }
DOC_EDIT(m_mask, cJSON_ReplaceItemInObject(head_of(doc, 0, 1), "mask", cJSON_CreateString("foo")))
DOC_EDIT(m_kind, cJSON_ReplaceItemInObject(head_of(doc, 1, 0), "kind", cJSON_CreateString("hardest")))
DOC_EDIT(m_law, cJSON_ReplaceItemInObject(head_of(doc, 0, 0), "tau_law", cJSON_CreateString("inv_n2")))
DOC_EDIT(m_no_law, cJSON_DeleteItemFromObject(head_of(doc, 0, 0), "tau_law"))
DOC_EDIT(m_tau0, cJSON_ReplaceItemInObject(head_of(doc, 0, 2), "tau_c", cJSON_CreateNumber(0)))
DOC_EDIT(m_slope_neg, cJSON_ReplaceItemInObject(head_of(doc, 0, 0), "bias_slope", cJSON_CreateNumber(-1)))
DOC_EDIT(m_slope_big, cJSON_ReplaceItemInObject(head_of(doc, 0, 0), "bias_slope", cJSON_CreateNumber(4e6)))
DOC_EDIT(m_slope_inexact, cJSON_ReplaceItemInObject(head_of(doc, 0, 0), "bias_slope", cJSON_CreateNumber(0.1)))
DOC_EDIT(m_slope_inf, cJSON_ReplaceItemInObject(head_of(doc, 0, 0), "bias_slope", cJSON_CreateString("inf")))
DOC_EDIT(m_slope_str, cJSON_ReplaceItemInObject(head_of(doc, 0, 0), "bias_slope", cJSON_CreateString("4")))
DOC_EDIT(m_slope_hard, cJSON_AddNumberToObject(head_of(doc, 0, 1), "bias_slope", 2))
DOC_EDIT(m_slope_none, cJSON_AddNumberToObject(head_of(doc, 0, 2), "bias_slope", 2))
DOC_EDIT(m_dk65, cJSON_ReplaceItemInObject(head_of(doc, 0, 2), "dk", cJSON_CreateNumber(65)))
DOC_EDIT(m_dk_mismatch, cJSON_ReplaceItemInObject(head_of(doc, 0, 2), "dk", cJSON_CreateNumber(5)))
DOC_EDIT(m_dv_str, cJSON_ReplaceItemInObject(head_of(doc, 0, 2), "dv", cJSON_CreateString("6")))
DOC_EDIT(m_coord, cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "pos_features"), 2), "coord", cJSON_CreateNumber(6)))
DOC_EDIT(m_pf_kind, cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "pos_features"), 0), "kind", cJSON_CreateString("two")))
DOC_EDIT(m_mod_k0, cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "pos_features"), 7), "k", cJSON_CreateNumber(0)))
DOC_EDIT(m_out, cJSON_ReplaceItemInObject(doc, "out_coord", cJSON_CreateNumber(-1)))
DOC_EDIT(m_d0, cJSON_ReplaceItemInObject(doc, "d", cJSON_CreateNumber(0)))
DOC_EDIT(m_dhuge, cJSON_ReplaceItemInObject(doc, "d", cJSON_CreateNumber(1 << 20)))
DOC_EDIT(m_d7, cJSON_ReplaceItemInObject(doc, "d", cJSON_CreateNumber(7));
         cJSON_DeleteItemFromObject(doc, "coord_names"))
DOC_EDIT(m_no_layers, cJSON_DeleteItemFromObject(doc, "layers"))
DOC_EDIT(m_layer_str, cJSON_ReplaceItemInArray(cJSON_GetObjectItem(doc, "layers"), 1, cJSON_CreateString("x")))
DOC_EDIT(m_hidden_neg, cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "layers"), 0), "hidden", cJSON_CreateNumber(-1)))
DOC_EDIT(m_hidden_changed, cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "layers"), 1), "hidden", cJSON_CreateNumber(3)))
DOC_EDIT(m_names, cJSON_DeleteItemFromArray(cJSON_GetObjectItem(doc, "coord_names"), 0))
DOC_EDIT(m_scale_str, cJSON_ReplaceItemInObject(doc, "scale", cJSON_CreateString("big")))
DOC_EDIT(m_not_object, cJSON_Delete(doc); doc = cJSON_CreateIntArray((int[]){1, 2}, 2))

static void x_meta_string(cJSON *r) { cJSON_ReplaceItemInObject(r, "__metadata__", cJSON_CreateString("x")); }
static void x_meta_missing(cJSON *r) { cJSON_DeleteItemFromObject(r, "__metadata__"); }
static void x_meta_value(cJSON *r) {
  cJSON_AddNumberToObject(cJSON_GetObjectItem(r, "__metadata__"), "extra", 1);
}
static void x_format(cJSON *r) {
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(r, "__metadata__"), "format", cJSON_CreateString("hardsoft-2"));
}
static void x_doc_json(cJSON *r) {
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(r, "__metadata__"), "hardsoft", cJSON_CreateString("{\"d\": 6,, }"));
}
static void x_meta_dup(cJSON *r) {
  cJSON_AddItemToObject(r, "__metadata__", cJSON_Duplicate(cJSON_GetObjectItem(r, "__metadata__"), 1));
}

static void test_metadata(void **state) {
  (void)state;
  edited_reject(m_mask, "layers.0.heads.1.mask: unknown mask 'foo'");
  edited_reject(m_kind, "layers.1.heads.0.kind: unknown attention kind 'hardest'");
  edited_reject(m_law, "layers.0.heads.0.tau_law: unknown tau law 'inv_n2'");
  edited_reject(m_no_law, "layers.0.heads.0.tau_law: missing");
  edited_reject(m_tau0, "layers.0.heads.2.tau_c");
  edited_reject(m_slope_neg, "layers.0.heads.0.bias_slope: -1, expected a number in [0, 2^20]");
  edited_reject(m_slope_big, "layers.0.heads.0.bias_slope: 4e+06");
  edited_reject(m_slope_inexact, "layers.0.heads.0.bias_slope: 0.1", "float32");
  edited_reject(m_slope_inf, "layers.0.heads.0.bias_slope: inf");
  edited_reject(m_slope_str, "layers.0.heads.0.bias_slope: not a number");
  edited_reject(m_slope_hard, "layers.0.heads.1.bias_slope: 2 needs a softmax head");
  edited_reject(m_slope_none, "layers.0.heads.2.bias_slope: 2 needs a softmax head with mask le, lt, ge or gt");
  edited_reject(m_dk65, "layers.0.heads.2.dk", "[1, 64]");
  edited_reject(m_dk_mismatch, "tensor layers.0.attn.2.wq: shape [6, 6], expected [dk=5, d=6]");
  edited_reject(m_dv_str, "layers.0.heads.2.dv: not an integer");
  edited_reject(m_coord, "pos_features.2.coord", "out of range");
  edited_reject(m_pf_kind, "pos_features.0.kind: unknown positional feature 'two'");
  edited_reject(m_mod_k0, "pos_features.7.k");
  edited_reject(m_out, "out_coord");
  edited_reject(m_d0, "d: 0 out of range");
  edited_reject(m_dhuge, "d: 1048576 out of range");
  edited_reject(m_d7, "tensor embed: shape [257, 6], expected [vocab=257, d=7]");
  edited_reject(m_no_layers, "layers: missing");
  edited_reject(m_layer_str, "layers.1: not an object");
  edited_reject(m_hidden_neg, "layers.0.hidden");
  edited_reject(m_hidden_changed, "missing tensor layers.1.ffn");
  edited_reject(m_names, "coord_names: not an array of d=6 names");
  edited_reject(m_scale_str, "scale: not a number");
  edited_reject(m_not_object, "__metadata__.hardsoft: not a JSON object");
  edited_reject(x_meta_string, "__metadata__: not an object");
  edited_reject(x_meta_missing, "__metadata__: missing");
  edited_reject(x_meta_value, "__metadata__.extra", "not a string");
  edited_reject(x_format, "__metadata__.format: 'hardsoft-2', expected 'hardsoft-1'");
  edited_reject(x_doc_json, "__metadata__.hardsoft: invalid JSON at byte offset 9");
  edited_reject(x_meta_dup, "duplicate __metadata__");
}

/* Raw header text, for what cJSON would not print. */
static void header_reject(const char *hdr, size_t hn, const char *want) {
  unsigned char *buf = malloc(8 + hn);
  for (int j = 0; j < 8; j++) buf[j] = (unsigned char)((uint64_t)hn >> 8 * j);
  memcpy(buf + 8, hdr, hn);
  const char *p = tpath("hdr.safetensors");
  spit(p, buf, 8 + hn);
  free(buf);
  expect_reject(p, want);
}

static void test_header_text(void **state) {
  (void)state;
  header_reject("{\"a\": [1, 2}", 12, "header: invalid JSON at byte offset 19");
  header_reject("[]", 2, "header: not a JSON object");
  header_reject("{}", 2, "__metadata__: missing");
  header_reject("{} x", 4, "trailing characters");
  header_reject("{\"a\":\0}", 7, "NUL byte at byte offset 13");
  header_reject("{\"\xff\": 1}", 8, "invalid UTF-8 at byte offset 10");
  header_reject("   ", 3, "invalid JSON");
  /* deep nesting: cJSON's nesting limit stops it, not the stack */
  static char deep[5000];
  memset(deep, '[', sizeof deep);
  header_reject(deep, sizeof deep, "invalid JSON");
}

/* A user-written file: only the required fields, F64 weights, hard heads
 * without target/tau, keys in any order, unknown keys ignored. */
static void user_file(cJSON *r) {
  cJSON *doc = doc_of(r);
  const char *drop[] = {"formula", "mode", "scale", "bound", "min_scale",
                        "bound_desc", "coord_names"};
  for (int i = 0; i < 7; i++) cJSON_DeleteItemFromObject(doc, drop[i]);
  cJSON_AddStringToObject(doc, "author", "someone");
  cJSON *h = head_of(doc, 1, 0);
  cJSON_DeleteItemFromObject(h, "target");
  cJSON_DeleteItemFromObject(h, "tau_law");
  cJSON_DeleteItemFromObject(h, "tau_c");
  cJSON_DeleteItemFromObject(h, "desc");
  set_doc(r, doc);
  cJSON_AddStringToObject(cJSON_GetObjectItem(r, "__metadata__"), "note", "hi");
  cJSON_ReplaceItemInObject(tensor(r, "embed"), "dtype", cJSON_CreateString("F64"));
  /* move embed to the end of the header and the buffer */
  cJSON *e = cJSON_DetachItemFromObject(r, "embed");
  cJSON_AddItemToObject(r, "embed", e);
}

/* F16 and BF16 tensors widen exactly (normal, subnormal, the largest
 * finite, -0); their infinities and NaNs are rejected like F32's; format
 * "pt" and tensors under other names (what the Python safetensors library
 * and its users write) load, the extra tensors ignored. */
static void half_file(const char *dtype, const uint16_t *bits, const char *path) {
  bytes b = slurp(saved_mixed());
  parts s = split(b);
  cJSON_ReplaceItemInObject(tensor(s.root, "layers.0.ffn.b2"), "dtype", cJSON_CreateString(dtype));
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(s.root, "__metadata__"), "format",
                            cJSON_CreateString("pt"));
  cJSON *extra = cJSON_Duplicate(tensor(s.root, "layers.1.attn.0.wv"), 1);
  cJSON_ReplaceItemInObject(extra, "dtype", cJSON_CreateString("I32"));
  cJSON_AddItemToObject(s.root, "optimizer.state", extra);
  half_bits = bits;
  repack(s.root, s.data, path);
  cJSON_Delete(s.root);
  free(b.p);
}

static void test_half_dtypes(void **state) {
  (void)state;
  static const uint16_t f16[6] = {0x3C00, 0xC000, 0x3555, 0x7BFF, 0x0001, 0x8000};
  static const uint16_t bf16[6] = {0x3F80, 0xC040, 0x3EAB, 0x7F7F, 0x0001, 0x8000};
  const float want16[6] = {1, -2, 1365.0f / 4096, 65504, ldexpf(1, -24), -0.0f};
  float want_bf[6];
  for (int i = 0; i < 6; i++) {
    uint32_t u = (uint32_t)bf16[i] << 16;
    memcpy(&want_bf[i], &u, 4);
  }
  assert_true(want_bf[0] == 1 && want_bf[1] == -3 && want_bf[4] > 0 && want_bf[4] < FLT_MIN);
  const char *p = tpath("half.safetensors");
  hs_error he;
  for (int k = 0; k < 2; k++) {
    half_file(k ? "BF16" : "F16", k ? bf16 : f16, p);
    hs_model *l = hs_model_load(p, &he);
    if (!l) fail_msg("%s", he.msg);
    assert_memory_equal(l->layers[0].b2, k ? want_bf : want16, sizeof want16);
    hs_model *m = mixed_model(); /* everything else as saved */
    assert_true(feq(m->embed, l->embed, HS_VOCAB * 6));
    assert_true(feq(m->layers[0].w2, l->layers[0].w2, (size_t)6 * (size_t)m->layers[0].hidden));
    hs_model_free(m);
    hs_model_free(l);
  }
  static const uint16_t inf16[6] = {0x3C00, 0x3C00, 0x7C00, 0, 0, 0};
  half_file("F16", inf16, p);
  expect_reject(p, "tensor layers.0.ffn.b2 contains infinity at element 2");
  static const uint16_t nan_bf[6] = {0, 0, 0, 0, 0x7FC0, 0};
  half_file("BF16", nan_bf, p);
  expect_reject(p, "tensor layers.0.ffn.b2 contains NaN at element 4");
}

static void test_user_written(void **state) {
  (void)state;
  bytes b = slurp(saved_mixed());
  parts s = split(b);
  user_file(s.root);
  const char *p = tpath("user.safetensors");
  repack(s.root, s.data, p);
  cJSON_Delete(s.root);
  free(b.p);
  hs_error he;
  hs_model *l = hs_model_load(p, &he);
  if (!l) fail_msg("%s", he.msg);
  hs_model *m = mixed_model();
  assert_true(feq(m->embed, l->embed, HS_VOCAB * 6));
  assert_null(l->formula);
  assert_null(l->coord_names);
  assert_true(l->scale == 0 && l->bound == 0);
  hs_head *h = &l->layers[1].heads[0];
  assert_int_equal(h->target, HS_ATTN_HARD_LEFT);
  assert_int_equal(h->tau_law, HS_TAU_CONST);
  assert_true(h->tau_c == 1);
  assert_null(h->desc);
  /* with the defaults put back, it is the same model */
  h->tau_c = 0;
  h->desc = dupstr("left");
  free(m->formula); free(m->mode); free(m->bound_desc);
  m->formula = m->mode = m->bound_desc = NULL;
  m->scale = m->bound = m->min_scale = 0;
  for (int i = 0; i < 6; i++) free(m->coord_names[i]);
  free(m->coord_names);
  m->coord_names = NULL;
  assert_models_equal(m, l);
  hs_model_free(m);
  hs_model_free(l);
  /* an F64 value beyond the F32 range is rejected */
  bytes c = slurp(p);
  parts t = split(c);
  size_t at = (size_t)(t.data - c.p) + (size_t)offset(t.root, "embed", 0) + 8 * 3;
  double big = 1e39;
  memcpy(c.p + at, &big, 8);
  spit(p, c.p, c.n);
  expect_reject(p, "tensor embed: element 3", "F32 range");
  cJSON_Delete(t.root);
  free(c.p);
}

/* Utf-8 that is not: written with '?', so Python's json reads it. */
static void test_bad_utf8_string(void **state) {
  (void)state;
  hs_model *m = hs_model_new(2, 1);
  m->formula = dupstr("a\xff" "b\xc3");
  hs_head *h = hs_model_add_head(m, 0, 1, 1);
  h->kind = HS_ATTN_HARD_AVG;
  h->desc = dupstr("\xed\xa0\x80 surrogate \xe2\x82\xac");
  hs_error he;
  const char *p = tpath("utf8.safetensors");
  assert_int_equal(hs_model_save(m, p, &he), 0);
  hs_model *l = hs_model_load(p, &he);
  if (!l) fail_msg("%s", he.msg);
  assert_string_equal(l->formula, "a?b?");
  assert_string_equal(l->layers[0].heads[0].desc, "??? surrogate \xe2\x82\xac");
  hs_model_free(l);
  hs_model_free(m);
}

/* ------------------------------------------------------------ peer models */

/* Y a: a hard_right head with mask j < i and flat scores reads position
 * i-1 (BOS for i = 1); its value is [w_j = a] into the output. */
static hs_model *yesterday_a(void) {
  hs_model *m = hs_model_new(2, 1); /* 0: [w_i = a], 1: output */
  m->embed['a' * 2 + 0] = 1;
  hs_head *h = hs_model_add_head(m, 0, 1, 1);
  h->kind = h->target = HS_ATTN_HARD_RIGHT;
  h->mask = HS_MASK_LT;
  h->wv[0] = 1;          /* v = [w_j = a] */
  h->wo[1] = 1;          /* into coordinate 1 */
  h->desc = dupstr("position i-1");
  m->out_coord = 1;
  m->formula = dupstr("Y a");
  m->mode = dupstr("hard");
  return m;
}

/* O a: hard_avg over j <= i with score [w_j = a]; every maximal position
 * holds a when one exists, so the average of [w_j = a] is 1, else 0. */
static hs_model *once_a(void) {
  hs_model *m = hs_model_new(3, 1); /* 0: one, 1: [w_i = a], 2: output */
  hs_model_add_pf(m, HS_PF_ONE, 0, 0, 0);
  m->embed['a' * 3 + 1] = 1;
  hs_head *h = hs_model_add_head(m, 0, 1, 1);
  h->kind = h->target = HS_ATTN_HARD_AVG;
  h->mask = HS_MASK_LE;
  h->wq[0] = 1;  /* q = 1 */
  h->wk[1] = 1;  /* k = [w_j = a] */
  h->wv[1] = 1;  /* v = [w_j = a] */
  h->wo[2] = 1;
  m->out_coord = 2;
  m->formula = dupstr("O a");
  m->mode = dupstr("hard");
  return m;
}

static void test_peer_models(void **state) {
  (void)state;
  const char *dir = getenv("HS_TEST_MODEL_DIR");
  hs_model *ms[2] = {yesterday_a(), once_a()};
  const char *names[2] = {"yesterday-a.safetensors", "once-a.safetensors"};
  for (int i = 0; i < 2; i++) {
    char p[512];
    hs_error he;
    snprintf(p, sizeof p, "%s/%s", dir ? dir : tmpdir, names[i]);
    assert_int_equal(hs_model_save(ms[i], p, &he), 0);
    hs_model *l = hs_model_load(p, &he);
    assert_non_null(l);
    assert_models_equal(ms[i], l);
    hs_model_free(l);
    hs_model_free(ms[i]);
  }
}

/* ------------------------------------------------------------ main */

static void rm_rf(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char p[1024];
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (remove(p)) rm_rf(p), rmdir(p);
  }
  closedir(d);
  rmdir(dir);
}

int main(void) {
  const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(tmpdir, sizeof tmpdir, "%s/hs-test-st.XXXXXX", base);
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip),
      cmocka_unit_test(test_clone),
      cmocka_unit_test(test_new_and_builders),
      cmocka_unit_test(test_enum_names),
      cmocka_unit_test(test_validate),
      cmocka_unit_test(test_failed_save_leaves_nothing),
      cmocka_unit_test(test_short_and_length),
      cmocka_unit_test(test_truncated),
      cmocka_unit_test(test_header_flips),
      cmocka_unit_test(test_random_mutations),
      cmocka_unit_test(test_tensor_table),
      cmocka_unit_test(test_nonfinite_weights),
      cmocka_unit_test(test_metadata),
      cmocka_unit_test(test_header_text),
      cmocka_unit_test(test_user_written),
      cmocka_unit_test(test_half_dtypes),
      cmocka_unit_test(test_bad_utf8_string),
      cmocka_unit_test(test_peer_models),
  };
  int rc = cmocka_run_group_tests_name("safetensors", tests, NULL, NULL);
  rm_rf(tmpdir);
  return rc;
}
