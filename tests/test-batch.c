/* SPDX-License-Identifier: MIT */
/* hs_forward_batch and the bindings' calls (the block "bindings: tokens,
 * batches" of include/hardsoft.h): a batch gives each string's answers
 * of hs_forward, laid end to end; several threads running one model at
 * once (what the Python package does, ctypes releasing the GIL) get the
 * answers of one thread alone, which a ThreadSanitizer build checks for
 * races too; the vocabulary calls read a program model's tokens. */
#include <pthread.h>

#include "common.h"

#define NSTR 6
#define NTHREADS 4
static const size_t lengths[NSTR] = {0, 1, 7, 64, 300, 1100};

typedef struct {
  const hs_model *m;
  const uint8_t *w[NSTR];
  uint8_t bits[NSTR * 1100];
  double values[NSTR * 1100];
  int rc;
} job;

static void *run_job(void *arg) {
  job *j = arg;
  hs_error e;
  for (int rep = 0; rep < 3 && j->rc == 0; rep++)
    j->rc = hs_forward_batch(j->m, NSTR, j->w, lengths, NULL, j->bits, j->values, &e);
  return NULL;
}

static hs_model *compile_text(const char *text, hs_mode mode) {
  hs_error e;
  hs_formula *f = hs_formula_parse(text, &e);
  assert_non_null(f);
  hs_compile_opts o = {mode, 6, HS_SIGN_LAYERNORM};
  hs_model *m = hs_compile(f, &o, &e);
  hs_formula_free(f);
  assert_non_null(m);
  return m;
}

static void test_batch_is_each_forward(void **state) {
  (void)state;
  hs_model *m = compile_text("G (a -> F b) | #<(a) > #<(b)", HS_MODE_TEMP);
  static uint8_t s[NSTR][1100];
  const uint8_t *w[NSTR];
  hs_rng r = {7};
  size_t total = 0;
  for (int k = 0; k < NSTR; k++) {
    for (size_t i = 0; i < lengths[k]; i++) s[k][i] = (uint8_t)"abc"[hs_rng_next(&r) % 3];
    w[k] = s[k];
    total += lengths[k];
  }
  static uint8_t bits[NSTR * 1100];
  static double values[NSTR * 1100];
  hs_error e;
  for (int p = 0; p < 2; p++) {
    hs_run_opts o = {.precision = p ? HS_PREC_F64 : HS_PREC_F32};
    assert_int_equal(hs_forward_batch(m, NSTR, w, lengths, &o, bits, values, &e), 0);
    size_t off = 0;
    for (int k = 0; k < NSTR; k++) {
      hs_run_result res;
      assert_int_equal(hs_forward(m, w[k], lengths[k], &o, &res, &e), 0);
      if (lengths[k]) {
        assert_memory_equal(bits + off, res.bits, lengths[k]);
        assert_memory_equal(values + off, res.values, lengths[k] * sizeof(double));
      }
      hs_run_result_free(&res);
      if (p == 0) { /* NULL options are the defaults, f32 */
        assert_int_equal(hs_forward(m, w[k], lengths[k], NULL, &res, &e), 0);
        if (lengths[k]) assert_memory_equal(values + off, res.values, lengths[k] * sizeof(double));
        hs_run_result_free(&res);
      }
      off += lengths[k];
    }
    assert_int_equal(off, total);
  }
  /* bits alone, values alone, no strings */
  assert_int_equal(hs_forward_batch(m, NSTR, w, lengths, NULL, bits, NULL, &e), 0);
  assert_int_equal(hs_forward_batch(m, 0, NULL, NULL, NULL, NULL, NULL, &e), 0);
  /* a string with symbols but no bytes: refused, naming it */
  const uint8_t *bad[2] = {s[0], NULL};
  const size_t badlen[2] = {1, 3};
  assert_int_equal(hs_forward_batch(m, 2, bad, badlen, NULL, bits, values, &e), -1);
  assert_non_null(strstr(e.msg, "string 1"));
  assert_int_equal(e.code, HS_ERR_ARG);
  assert_int_equal(hs_forward_batch(NULL, 1, bad, badlen, NULL, bits, values, &e), -1);

  /* threads: one model, every thread its own batch of the same strings */
  job jobs[NTHREADS];
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) {
    memset(&jobs[t], 0, sizeof jobs[t]);
    jobs[t].m = m;
    memcpy(jobs[t].w, w, sizeof w);
    assert_int_equal(pthread_create(&th[t], NULL, run_job, &jobs[t]), 0);
  }
  for (int t = 0; t < NTHREADS; t++) assert_int_equal(pthread_join(th[t], NULL), 0);
  assert_int_equal(hs_forward_batch(m, NSTR, w, lengths, NULL, bits, values, &e), 0);
  for (int t = 0; t < NTHREADS; t++) {
    assert_int_equal(jobs[t].rc, 0);
    assert_memory_equal(jobs[t].bits, bits, total);
    assert_memory_equal(jobs[t].values, values, total * sizeof(double));
  }
  hs_model_free(m);
}

static void test_vocabulary_calls(void **state) {
  (void)state;
  const char *text = "p = token \"<p>\"\nq = token \"</p>\"\n"
                     "open = rightmost j <= i : p | q ? p : false\n";
  hs_error e;
  hs_program *p = hs_program_parse(text, strlen(text), HS_LANG_BRASP, &e);
  assert_non_null(p);
  hs_compile_opts o = {HS_MODE_HARD, 4, HS_SIGN_LAYERNORM};
  hs_model *m = hs_program_compile(p, &o, &e);
  assert_non_null(m);
  assert_int_equal(hs_model_vocab_size(m), 0);
  assert_int_equal(hs_model_set_vocab(m, p, &e), 0);
  assert_int_equal(hs_model_vocab_size(m), 2);
  assert_string_equal(hs_model_vocab_token(m, 0), "<p>");
  assert_string_equal(hs_model_vocab_token(m, 1), "</p>");
  assert_null(hs_model_vocab_token(m, 2));
  assert_null(hs_model_vocab_token(m, -1));
  assert_int_equal(hs_model_vocab_byte(m, 0), hs_program_token_byte(p, 0));
  assert_int_equal(hs_model_vocab_byte(m, 2), -1);
  const char line[] = " <p> x\t</p>  ";
  uint8_t a[sizeof line], b[sizeof line];
  size_t n = hs_model_tokenize(m, line, strlen(line), a);
  assert_int_equal(n, 3);
  assert_int_equal(hs_program_tokenize(p, line, strlen(line), b), 3);
  assert_memory_equal(a, b, 3);
  assert_int_equal(a[1], hs_program_other_byte(p));
  assert_int_equal(hs_model_vocab_size(NULL), 0);
  hs_model_free(m);
  hs_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_batch_is_each_forward),
      cmocka_unit_test(test_vocabulary_calls),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
