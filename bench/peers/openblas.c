/* SPDX-License-Identifier: MIT */
/* hs-peer-openblas: the O(n^2)-memory baseline that hardsoft's hand-fused
 * kernels are compared against -- the forward pass of a hardsoft model
 * written the way a C user with OpenBLAS would write it: every product is a
 * single-threaded cblas_sgemm / cblas_dgemm over all positions at once, and
 * each head materializes its full (n+1) x (n+1) score matrix S = Q K^T,
 * turns it row by row into attention weights P with a plain three-pass
 * masked softmax (max, sum of expf, divide; no SIMD, no online rescaling)
 * or a hard argmax, then computes P V with another gemm.
 *
 *   hs-peer-openblas MODEL --time R --precision f32|f64 --input FILE
 *   hs-peer-openblas MODEL [--precision f32|f64] STRING...
 *
 * The first form (what `hardsoft bench --isas openblas` runs) reads the
 * string on FILE's first line (without its newline), runs one untimed
 * warm-up pass and R timed passes, and prints one line of JSON:
 *   {"seconds": [t1, ..., tR], "peak_bytes": N, "bits": "0101...",
 *    "version": "OpenBLAS 0.3.21 ..."}
 * seconds per forward pass (CLOCK_MONOTONIC wall clock, buffer allocation
 * included, as in hardsoft's runner); bits = the decision at positions
 * 1..n; peak_bytes = the bytes of every buffer the pass holds at once
 * (the weights converted to the working precision, the residual stream,
 * Q/K/V of the layer's heads, the score matrix, the head output, the FFN
 * hidden and output). The second form prints one line of 0/1 per string,
 * like `hardsoft run`. Errors: one line on stderr, exit 2.
 *
 * Only the model LOADER is hardsoft's (hs_model_load, src/model/model.h); the
 * computation follows the comment at the top of src/model/model.h: positions
 * 0..n hold BOS then the input bytes; x_i = embedding + positional
 * features; per layer every head reads the same stream and adds W_O of its
 * output, then the FFN adds W2 ReLU(W1 x + b1) + b2; position i is 1 iff
 * x_i[out_coord] > 1/2. Scores are multiplied by 1/tau(n) in the working
 * precision, as hardsoft does.
 *
 * The file includes itself twice (REAL = float, then double) for the two
 * precisions. Build (Makefile rule):
 *   cc $(CFLAGS_ALL) -I/usr/include/x86_64-linux-gnu -o hs-peer-openblas \
 *      bench/peers/openblas.c libhardsoft.a -lopenblas -lcjson -lm -lpthread
 */
#ifndef PEER_BODY

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>

#include "model/model.h"

/* Declared by OpenBLAS's cblas.h; repeated in case another cblas.h wins. */
void openblas_set_num_threads(int num_threads);

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("hs-peer-openblas: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double tau_of(const hs_head *H, size_t n) {
  double nn = (double)(n ? n : 1);
  if (H->tau_law == HS_TAU_INV_N) return H->tau_c / nn;
  if (H->tau_law == HS_TAU_INV_NLOGN) return H->tau_c / (nn * log(nn + 1));
  return H->tau_c;
}

/* Visible keys of query i: BOS (j = 0) and lo..hi (empty when lo > hi). */
static void key_range(hs_mask mask, size_t i, size_t n, size_t *lo, size_t *hi) {
  *lo = 1, *hi = n;
  switch (mask) {
    case HS_MASK_LE: *hi = i; break;
    case HS_MASK_LT: *hi = i ? i - 1 : 0; break; /* i = 0: lo > hi */
    case HS_MASK_GE: *lo = i > 1 ? i : 1; break;
    case HS_MASK_GT: *lo = i + 1; break;
    default: break;
  }
}

/* a * b, or SIZE_MAX when it overflows (so sums of them stay saturated) */
static size_t mul(size_t a, size_t b) {
  return a && b > SIZE_MAX / a ? SIZE_MAX : a * b;
}
static size_t add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

/* Per-position widths of the buffers a pass holds: Q, K, V of all heads of
 * the widest layer, the widest FFN hidden layer (each at least 1). */
static void widths(const hs_model *m, size_t *qkvw, size_t *hidw, size_t *maxh) {
  *qkvw = *hidw = *maxh = 1;
  for (int l = 0; l < m->nlayers; l++) {
    const hs_layer *L = &m->layers[l];
    size_t q = 0;
    for (int h = 0; h < L->nheads; h++)
      q += 2 * (size_t)L->heads[h].dk + (size_t)L->heads[h].dv;
    if (q > *qkvw) *qkvw = q;
    if ((size_t)L->hidden > *hidw) *hidw = (size_t)L->hidden;
    if ((size_t)L->nheads > *maxh) *maxh = (size_t)L->nheads;
  }
}

/* Elements one forward pass over n positions allocates besides the weights
 * (exactly what forward() mallocs), saturating at SIZE_MAX: the (n+1)^2
 * score matrix, and per position the stream X, the FFN output T, Q/K/V,
 * the head output O and the FFN hidden layer. */
static size_t pass_elems(const hs_model *m, size_t n) {
  size_t np = n < SIZE_MAX ? n + 1 : SIZE_MAX, qkvw, hidw, maxh;
  widths(m, &qkvw, &hidw, &maxh);
  size_t per_pos = 2 * (size_t)m->d + qkvw + HS_ATTN_MAX_D + hidw;
  return add(mul(np, np), mul(np, per_pos));
}

/* MemAvailable from /proc/meminfo in bytes, or 0 if unknown. */
static size_t mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  unsigned long long kb = 0;
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
  fclose(f);
  return kb > SIZE_MAX / 1024 ? SIZE_MAX : (size_t)kb * 1024;
}

#define PEER_BODY
#define REAL float
#define SFX(name) name##_f32
#define GEMM cblas_sgemm
#define EXP expf
#include "openblas.c" /* this file again */
#undef REAL
#undef SFX
#undef GEMM
#undef EXP
#define REAL double
#define SFX(name) name##_f64
#define GEMM cblas_dgemm
#define EXP exp
#include "openblas.c" /* this file again */
#undef REAL
#undef SFX
#undef GEMM
#undef EXP

/* The first line of path, without its newline. */
static uint8_t *read_input(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) die("%s: %s", path, strerror(errno));
  size_t cap = 4096, len = 0;
  uint8_t *buf = malloc(cap);
  int c;
  while (buf && (c = getc(f)) != EOF && c != '\n') {
    if (len == cap) {
      uint8_t *nb = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
      if (!nb) { free(buf); buf = NULL; break; }
      buf = nb, cap *= 2;
    }
    buf[len++] = (uint8_t)c;
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf) die("%s: out of memory reading the input", path);
  if (bad) die("%s: read error", path);
  *n = len;
  return buf;
}

int main(int argc, char **argv) {
  const char *model = NULL, *input = NULL, *prec = "f32";
  long reps = -1;
  char **strs = calloc((size_t)argc + 1, sizeof(char *));
  int nstr = 0;
  if (!strs) die("out of memory");
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--time") || !strcmp(a, "--precision") || !strcmp(a, "--input")) {
      if (i + 1 >= argc) die("%s needs a value", a);
      const char *v = argv[++i];
      if (!strcmp(a, "--input")) input = v;
      else if (!strcmp(a, "--precision")) prec = v;
      else {
        char *e;
        errno = 0;
        reps = strtol(v, &e, 10);
        if (*v < '0' || *v > '9' || *e || errno || reps < 1 || reps > 1000)
          die("--time expects 1 to 1000, got '%s'", v);
      }
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      puts("usage: hs-peer-openblas MODEL --time R [--precision f32|f64] --input FILE\n"
           "       hs-peer-openblas MODEL [--precision f32|f64] STRING...");
      return 0;
    } else if (a[0] == '-' && a[1] == '-') {
      die("unknown option '%s'", a);
    } else if (!model) {
      model = a;
    } else {
      strs[nstr++] = argv[i];
    }
  }
  if (!model) die("usage: hs-peer-openblas MODEL --time R --precision f32|f64 --input FILE");
  if (strcmp(prec, "f32") && strcmp(prec, "f64"))
    die("--precision: '%s' is not f32 or f64", prec);
  if (reps > 0 && (!input || nstr))
    die("--time needs --input FILE and no STRING arguments");
  if (reps < 0 && input) die("--input goes with --time");
  int f64 = prec[1] == '6';

  char msg[512];
  hs_error he;
  hs_model *m = hs_model_load(model, &he);
  if (!m) die("%s: %s", model, he.msg);
  openblas_set_num_threads(1);

  int rc;
  if (reps > 0) {
    size_t n;
    uint8_t *s = read_input(input, &n);
    rc = f64 ? run_timed_f64(m, s, n, (int)reps, msg, sizeof msg)
             : run_timed_f32(m, s, n, (int)reps, msg, sizeof msg);
    free(s);
  } else {
    rc = 0;
    for (int k = 0; k < nstr && !rc; k++) {
      size_t n = strlen(strs[k]);
      rc = f64 ? run_print_f64(m, (const uint8_t *)strs[k], n, msg, sizeof msg)
               : run_print_f32(m, (const uint8_t *)strs[k], n, msg, sizeof msg);
    }
  }
  hs_model_free(m);
  free(strs);
  if (rc) die("%s", msg);
  return fflush(stdout) == 0 ? 0 : 2;
}

#else /* PEER_BODY: everything below is compiled once per REAL */

/* The model's weights in the working precision (converted once). */
typedef struct SFX(wts) {
  size_t bytes;
  REAL *embed;
  REAL **w; /* per head: wq, wk, wv, wo; per layer: w1, b1, w2, b2 */
  size_t nw;
} SFX(wts);

static REAL *SFX(conv)(SFX(wts) *W, const float *src, size_t n) {
  REAL *p = malloc((n ? n : 1) * sizeof(REAL));
  W->bytes += (n ? n : 1) * sizeof(REAL);
  if (p)
    for (size_t i = 0; i < n; i++) p[i] = (REAL)src[i];
  return p;
}

static void SFX(wts_free)(SFX(wts) *W) {
  free(W->embed);
  for (size_t k = 0; W->w && k < W->nw; k++) free(W->w[k]);
  free(W->w);
}

/* Pointers in the order heads (wq, wk, wv, wo) then FFN (w1, b1, w2, b2),
 * layer by layer. */
static int SFX(wts_make)(SFX(wts) *W, const hs_model *m) {
  size_t d = (size_t)m->d, nw = 0, k = 0;
  memset(W, 0, sizeof *W);
  for (int l = 0; l < m->nlayers; l++) nw += 4 * (size_t)m->layers[l].nheads + 4;
  W->embed = SFX(conv)(W, m->embed, HS_VOCAB * d);
  W->w = calloc(nw, sizeof(REAL *));
  W->nw = nw;
  if (!W->embed || !W->w) return -1;
  for (int l = 0; l < m->nlayers; l++) {
    const hs_layer *L = &m->layers[l];
    for (int h = 0; h < L->nheads; h++) {
      const hs_head *H = &L->heads[h];
      W->w[k++] = SFX(conv)(W, H->wq, (size_t)H->dk * d);
      W->w[k++] = SFX(conv)(W, H->wk, (size_t)H->dk * d);
      W->w[k++] = SFX(conv)(W, H->wv, (size_t)H->dv * d);
      W->w[k++] = SFX(conv)(W, H->wo, d * (size_t)H->dv);
    }
    size_t hid = (size_t)L->hidden;
    W->w[k++] = SFX(conv)(W, L->w1, hid * d);
    W->w[k++] = SFX(conv)(W, L->b1, hid);
    W->w[k++] = SFX(conv)(W, L->w2, d * hid);
    W->w[k++] = SFX(conv)(W, L->b2, hid ? d : 0);
  }
  for (k = 0; k < nw; k++)
    if (!W->w[k]) return -1;
  return 0;
}

/* C[rows][cols] = beta C + A[rows][inner] * B^T, B stored [cols][inner]
 * (the row-major "x W^T" of a linear layer). */
static void SFX(gemm_nt)(size_t rows, size_t cols, size_t inner, const REAL *A,
                         const REAL *B, REAL beta, REAL *C) {
  GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)cols, (int)inner,
       1, A, (int)inner, B, (int)inner, beta, C, (int)cols);
}

/* Turn row i of the score matrix into attention weights in place. */
static void SFX(weights_row)(const hs_head *H, REAL *row, size_t i, size_t n,
                             REAL inv_tau) {
  size_t lo, hi, np = n + 1;
  key_range(H->mask, i, n, &lo, &hi);
  /* masked keys get weight 0 */
  for (size_t j = 1; j < lo && j < np; j++) row[j] = 0;
  for (size_t j = hi + 1; j < np; j++) row[j] = 0;
  if (hi < lo) hi = 0, lo = 1; /* only BOS is visible */
  if (H->kind == HS_ATTN_SOFTMAX) {
    /* three passes: scale (and the relative bias of mode rel, -slope
     * |i - j|, BOS at 0 for past masks and n + 1 for future ones) and
     * max; exponentials and their sum; divide */
    const REAL sl = (REAL)H->bias_slope;
    const int fut = H->mask == HS_MASK_GE || H->mask == HS_MASK_GT;
#define REL(j) (sl * (REAL)((j) > i ? (j) - i : i - (j)))
    REAL mx = row[0] = row[0] * inv_tau - (sl != 0 ? REL(fut ? np : 0) : 0);
    for (size_t j = lo; j <= hi; j++)
      if ((row[j] = row[j] * inv_tau - (sl != 0 ? REL(j) : 0)) > mx) mx = row[j];
#undef REL
    REAL sum = row[0] = EXP(row[0] - mx);
    for (size_t j = lo; j <= hi; j++) sum += row[j] = EXP(row[j] - mx);
    row[0] = sum > 0 ? row[0] / sum : 0;
    for (size_t j = lo; j <= hi; j++) row[j] = sum > 0 ? row[j] / sum : 0;
  } else {
    /* hard: BOS first, then lo..hi in order, as hardsoft scans them */
    REAL best = row[0];
    size_t first = 0, last = 0, cnt = 1;
    for (size_t j = lo; j <= hi; j++) {
      if (row[j] > best) best = row[j], first = last = j, cnt = 1;
      else if (row[j] == best) last = j, cnt++;
    }
    REAL w = H->kind == HS_ATTN_HARD_AVG ? (REAL)1 / (REAL)cnt : 1;
    size_t pick = H->kind == HS_ATTN_HARD_RIGHT ? last : first;
    int avg = H->kind == HS_ATTN_HARD_AVG;
    int top0 = avg ? row[0] == best : pick == 0;
    for (size_t j = lo; j <= hi; j++)
      row[j] = (avg ? row[j] == best : j == pick) ? w : 0;
    row[0] = top0 ? w : 0;
  }
}

/* One forward pass; bits[i-1] = decision at position i. */
static int SFX(forward)(const hs_model *m, const SFX(wts) *W, const uint8_t *s,
                        size_t n, uint8_t *bits, size_t *peak, char *msg,
                        size_t len) {
  size_t d = (size_t)m->d, np = n + 1, qkvw, hidw, maxh;
  size_t elems = pass_elems(m, n), need = mul(elems, sizeof(REAL));
  size_t avail = mem_available();
  if (need == SIZE_MAX || np > (size_t)INT32_MAX) { /* also: BLAS dims are int */
    snprintf(msg, len, "n = %zu is too long for an (n+1)^2 score matrix", n);
    return -1;
  }
  if (avail && need > avail) {
    snprintf(msg, len,
             "n = %zu needs %zu MiB for the (n+1)^2 score matrix and buffers, "
             "more than the %zu MiB available",
             n, need >> 20, avail >> 20);
    return -1;
  }
  widths(m, &qkvw, &hidw, &maxh);
  /* the buffers, all held for the whole pass (pass_elems counts them) */
  REAL *X = malloc(np * d * sizeof(REAL));             /* residual stream */
  REAL *T = malloc(np * d * sizeof(REAL));             /* FFN output */
  REAL *QKV = malloc(np * qkvw * sizeof(REAL));        /* all heads' Q, K, V */
  REAL *S = malloc(np * np * sizeof(REAL));            /* scores, then weights */
  REAL *O = malloc(np * HS_ATTN_MAX_D * sizeof(REAL)); /* P V */
  REAL *Hd = malloc(np * hidw * sizeof(REAL));         /* FFN hidden */
  REAL **Qh = calloc(maxh, sizeof(REAL *)), **Kh = calloc(maxh, sizeof(REAL *)),
       **Vh = calloc(maxh, sizeof(REAL *));
  int rc = -1;
  if (!X || !T || !QKV || !S || !O || !Hd || !Qh || !Kh || !Vh) {
    snprintf(msg, len, "out of memory for n = %zu (%zu MiB)", n, need >> 20);
    goto done;
  }
  *peak = W->bytes + need;

  /* embedding and positional features */
  for (size_t i = 0; i <= n; i++) {
    unsigned sym = i == 0 ? HS_BOS : s[i - 1];
    memcpy(X + i * d, W->embed + sym * d, d * sizeof(REAL));
    for (int k = 0; k < m->npf; k++) {
      const hs_posfeat *p = &m->pf[k];
      REAL v = 0;
      switch (p->kind) {
        case HS_PF_ONE: v = 1; break;
        case HS_PF_BOS: v = i == 0; break;
        case HS_PF_LAST: v = i == n; break;
        case HS_PF_I: v = (REAL)i; break;
        case HS_PF_N: v = (REAL)n; break;
        case HS_PF_I_OVER_N: v = n ? (REAL)i / (REAL)n : 0; break;
        case HS_PF_INV_I1: v = (REAL)1 / (REAL)(i + 1); break;
        case HS_PF_MOD: v = (int64_t)(i % (uint64_t)p->k) == p->r; break;
        case HS_PF_LN_REST: v = (REAL)log((double)(n + 1 - i)); break;
        case HS_PF_LN_I: v = (REAL)log((double)(i ? i : 1)); break;
        case HS_PF_LN_REST_OVER_N:
          v = (REAL)(log((double)(n + 1 - i)) / (double)(n ? n : 1));
          break;
        case HS_PF_LN_I_OVER_N:
          v = (REAL)(log((double)(i ? i : 1)) / (double)(n ? n : 1));
          break;
        default: break;
      }
      X[i * d + (size_t)p->coord] += v;
    }
  }

  size_t k = 0; /* index into W->w */
  for (int l = 0; l < m->nlayers; l++) {
    const hs_layer *L = &m->layers[l];
    /* every head reads the stream before any head writes to it:
     * Q = X Wq^T, K = X Wk^T, V = X Wv^T for all heads first */
    REAL *q = QKV;
    for (int h = 0; h < L->nheads; h++) {
      const hs_head *H = &L->heads[h];
      size_t dk = (size_t)H->dk, dv = (size_t)H->dv;
      Qh[h] = q, q += np * dk;
      Kh[h] = q, q += np * dk;
      Vh[h] = q, q += np * dv;
      SFX(gemm_nt)(np, dk, d, X, W->w[k + 4 * (size_t)h + 0], 0, Qh[h]);
      SFX(gemm_nt)(np, dk, d, X, W->w[k + 4 * (size_t)h + 1], 0, Kh[h]);
      SFX(gemm_nt)(np, dv, d, X, W->w[k + 4 * (size_t)h + 2], 0, Vh[h]);
    }
    for (int h = 0; h < L->nheads; h++) {
      const hs_head *H = &L->heads[h];
      size_t dk = (size_t)H->dk, dv = (size_t)H->dv;
      REAL inv_tau = (REAL)(1.0 / tau_of(H, n));
      /* S = Q K^T: (n+1) x (n+1) */
      SFX(gemm_nt)(np, np, dk, Qh[h], Kh[h], 0, S);
      for (size_t i = 0; i < np; i++) SFX(weights_row)(H, S + i * np, i, n, inv_tau);
      /* O = P V: (n+1) x dv */
      GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)np, (int)dv, (int)np, 1,
           S, (int)np, Vh[h], (int)dv, 0, O, (int)dv);
      /* X += O Wo^T */
      SFX(gemm_nt)(np, d, dv, O, W->w[k + 4 * (size_t)h + 3], 1, X);
    }
    k += 4 * (size_t)L->nheads;
    if (L->hidden > 0) {
      size_t nh = (size_t)L->hidden;
      const REAL *b1 = W->w[k + 1], *b2 = W->w[k + 3];
      SFX(gemm_nt)(np, nh, d, X, W->w[k], 0, Hd); /* X W1^T */
      for (size_t i = 0; i < np; i++) {
        REAL *hd = Hd + i * nh;
        for (size_t u = 0; u < nh; u++) hd[u] += b1[u];
        /* layer normalization of the first 2 ln_pairs units, in pairs */
        for (size_t p = 0; p < (size_t)L->ln_pairs; p++) {
          REAL *h = hd + 2 * p, mu = (h[0] + h[1]) / 2;
          REAL d0 = h[0] - mu, d1 = h[1] - mu;
          REAL sd = (REAL)sqrt((double)((d0 * d0 + d1 * d1) / 2) + L->ln_eps);
          const float *g = L->ln_g + 2 * p, *b = L->ln_b + 2 * p;
          h[0] = sd > 0 ? (REAL)g[0] * (d0 / sd) + (REAL)b[0] : (REAL)b[0];
          h[1] = sd > 0 ? (REAL)g[1] * (d1 / sd) + (REAL)b[1] : (REAL)b[1];
        }
        for (size_t u = 0; u < nh; u++) hd[u] = hd[u] > 0 ? hd[u] : 0;
      }
      SFX(gemm_nt)(np, d, nh, Hd, W->w[k + 2], 0, T); /* ReLU(.) W2^T */
      for (size_t i = 0; i < np; i++)
        for (size_t c = 0; c < d; c++) X[i * d + c] += T[i * d + c] + b2[c];
    }
    k += 4;
  }
  for (size_t i = 1; i <= n; i++) bits[i - 1] = X[i * d + (size_t)m->out_coord] > (REAL)0.5;
  rc = 0;
done:
  free(X); free(T); free(QKV); free(S); free(O); free(Hd);
  free(Qh); free(Kh); free(Vh);
  return rc;
}

/* Warm-up, then reps timed passes; prints the JSON report. */
static int SFX(run_timed)(const hs_model *m, const uint8_t *s, size_t n, int reps,
                          char *msg, size_t len) {
  SFX(wts) W = {0};
  double secs[1000];
  size_t peak = 0;
  uint8_t *bits = malloc(n ? n : 1);
  int rc = bits && SFX(wts_make)(&W, m) == 0 ? 0 : -1;
  if (rc) snprintf(msg, len, "out of memory for the weights");
  for (int r = -1; r < reps && !rc; r++) {
    double t0 = now();
    rc = SFX(forward)(m, &W, s, n, bits, &peak, msg, len);
    if (r >= 0) secs[r] = now() - t0;
  }
  if (!rc) {
    printf("{\"seconds\": [");
    for (int r = 0; r < reps; r++) printf("%s%.9e", r ? ", " : "", secs[r]);
    printf("], \"peak_bytes\": %zu, \"bits\": \"", peak);
    for (size_t i = 0; i < n; i++) putchar(bits[i] ? '1' : '0');
    /* what ran, for the CSV's version column: openblas_get_config() names
     * the version, the build options and the kernel set it chose */
    printf("\", \"version\": \"%s\"}\n", openblas_get_config());
  }
  SFX(wts_free)(&W);
  free(bits);
  return rc;
}

/* One line of 0/1, like `hardsoft run`. */
static int SFX(run_print)(const hs_model *m, const uint8_t *s, size_t n, char *msg,
                          size_t len) {
  SFX(wts) W = {0};
  size_t peak;
  uint8_t *bits = malloc(n ? n : 1);
  int rc = bits && SFX(wts_make)(&W, m) == 0 ? 0 : -1;
  if (rc) snprintf(msg, len, "out of memory for the weights");
  if (!rc) rc = SFX(forward)(m, &W, s, n, bits, &peak, msg, len);
  if (!rc) {
    for (size_t i = 0; i < n; i++) putchar(bits[i] ? '1' : '0');
    putchar('\n');
  }
  SFX(wts_free)(&W);
  free(bits);
  return rc;
}

#endif /* PEER_BODY */
