/* SPDX-License-Identifier: MIT */
/* Model files: hs_model_save / hs_model_load. The format ("hardsoft-1":
 * safetensors with the model's structure in its metadata), its dtypes,
 * tensors, metadata keys and limits are docs/MODEL-FORMAT.md; this file
 * implements that page and nothing more. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/error.h"
#include "model/model.h"

#define ST_MAX_FILE (4ull << 30)
#define ST_MAX_LAYERS 4096
#define ST_MAX_HEADS 4096
#define ST_MAX_HIDDEN (1 << 24)
#define ST_MAX_PF 65536
#define ST_MAX_RANK 8
#define ST_MAX_EXACT 9007199254740992.0 /* 2^53 */
#define FORMAT_NAME "hardsoft-1"

/* A name or value from the file, made safe for a one-line message:
 * printable ASCII only, at most 60 characters. */
typedef struct { char s[72]; } shown_t;
static shown_t shown(const char *s) {
  shown_t o;
  size_t i = 0;
  for (; s && s[i] && i < 60; i++) {
    unsigned char c = (unsigned char)s[i];
    o.s[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
  }
  if (s && s[i]) memcpy(o.s + i, "...", 4);
  else o.s[i] = 0;
  return o;
}

/* Offset of the first byte that breaks UTF-8 (overlong forms, surrogates
 * and code points above U+10FFFF included), or n when the text is valid. */
static size_t utf8_bad(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i], cp, min;
    size_t k;
    if (c < 0x80) {
      i++;
      continue;
    }
    if ((c & 0xe0) == 0xc0) k = 1, cp = c & 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0) k = 2, cp = c & 0x0f, min = 0x800;
    else if ((c & 0xf8) == 0xf0) k = 3, cp = c & 0x07, min = 0x10000;
    else return i;
    if (n - i <= k) return i; /* truncated sequence */
    for (size_t j = 1; j <= k; j++) {
      if ((s[i + j] & 0xc0) != 0x80) return i;
      cp = cp << 6 | (s[i + j] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += k + 1;
  }
  return n;
}

/* ================================================================ save */

typedef struct st_out {
  char name[64];
  const float *data;
  int ndim;
  size_t dim[2];
} st_out;

/* The tensors of m, in file order. Returns the count; out has room for
 * 1 + 4 * (heads + layers). */
static size_t list_tensors(const hs_model *m, st_out *out) {
  size_t n = 0, d = (size_t)m->d;
  out[n++] = (st_out){"embed", m->embed, 2, {HS_VOCAB, d}};
  for (int32_t l = 0; l < m->nlayers; l++) {
    const hs_layer *L = &m->layers[l];
    for (int32_t h = 0; h < L->nheads; h++) {
      const hs_head *H = &L->heads[h];
      static const char *const part[4] = {"wq", "wk", "wv", "wo"};
      const float *p[4] = {H->wq, H->wk, H->wv, H->wo};
      size_t r[4] = {(size_t)H->dk, (size_t)H->dk, (size_t)H->dv, d};
      size_t c[4] = {d, d, d, (size_t)H->dv};
      for (int t = 0; t < 4; t++) {
        out[n] = (st_out){"", p[t], 2, {r[t], c[t]}};
        snprintf(out[n].name, sizeof out[n].name, "layers.%d.attn.%d.%s",
                 (int)l, (int)h, part[t]);
        n++;
      }
    }
    if (L->hidden > 0) {
      size_t hid = (size_t)L->hidden;
      static const char *const part[4] = {"w1", "b1", "w2", "b2"};
      const float *p[4] = {L->w1, L->b1, L->w2, L->b2};
      int nd[4] = {2, 1, 2, 1};
      size_t r[4] = {hid, hid, d, d}, c[4] = {d, 0, hid, 0};
      for (int t = 0; t < 4; t++) {
        out[n] = (st_out){"", p[t], nd[t], {r[t], c[t]}};
        snprintf(out[n].name, sizeof out[n].name, "layers.%d.ffn.%s", (int)l,
                 part[t]);
        n++;
      }
    }
  }
  return n;
}

/* cJSON builders that remember an allocation failure instead of making
 * every call site check. */
typedef struct jb { int oom; } jb;
static cJSON *jb_add(jb *b, cJSON *parent, const char *key, cJSON *item) {
  if (!item) {
    b->oom = 1;
    return NULL;
  }
  int ok = key ? cJSON_AddItemToObject(parent, key, item)
               : cJSON_AddItemToArray(parent, item);
  if (!ok) {
    cJSON_Delete(item);
    b->oom = 1;
    return NULL;
  }
  return item;
}
static void jb_num(jb *b, cJSON *o, const char *key, double v) {
  if (isfinite(v)) jb_add(b, o, key, cJSON_CreateNumber(v));
  else jb_add(b, o, key, cJSON_CreateString(isnan(v) ? "nan" : v > 0 ? "inf"
                                                                     : "-inf"));
}
static void jb_str(jb *b, cJSON *o, const char *key, const char *s) {
  if (!s) {
    jb_add(b, o, key, cJSON_CreateNull());
    return;
  }
  size_t n = strlen(s);
  char *t = malloc(n + 1);
  if (!t) {
    b->oom = 1;
    return;
  }
  memcpy(t, s, n + 1);
  /* replace each byte that breaks UTF-8, then look again after it */
  for (size_t i = 0; (i += utf8_bad((unsigned char *)t + i, n - i)) < n; i++)
    t[i] = '?';
  jb_add(b, o, key, cJSON_CreateString(t));
  free(t);
}

static cJSON *build_doc(const hs_model *m, jb *b) {
  cJSON *doc = cJSON_CreateObject();
  if (!doc) {
    b->oom = 1;
    return NULL;
  }
  jb_num(b, doc, "d", m->d);
  jb_num(b, doc, "out_coord", m->out_coord);
  cJSON *pfs = jb_add(b, doc, "pos_features", cJSON_CreateArray());
  for (int32_t i = 0; pfs && i < m->npf; i++) {
    const hs_posfeat *p = &m->pf[i];
    cJSON *o = jb_add(b, pfs, NULL, cJSON_CreateObject());
    jb_add(b, o, "kind", cJSON_CreateString(hs_pf_kind_name(p->kind)));
    jb_num(b, o, "coord", p->coord);
    if (p->kind == HS_PF_MOD) {
      jb_num(b, o, "k", (double)p->k);
      jb_num(b, o, "r", (double)p->r);
    }
  }
  cJSON *layers = jb_add(b, doc, "layers", cJSON_CreateArray());
  for (int32_t l = 0; layers && l < m->nlayers; l++) {
    const hs_layer *L = &m->layers[l];
    cJSON *lo = jb_add(b, layers, NULL, cJSON_CreateObject());
    cJSON *heads = jb_add(b, lo, "heads", cJSON_CreateArray());
    for (int32_t h = 0; heads && h < L->nheads; h++) {
      const hs_head *H = &L->heads[h];
      cJSON *o = jb_add(b, heads, NULL, cJSON_CreateObject());
      jb_add(b, o, "kind", cJSON_CreateString(hs_attn_kind_name(H->kind)));
      jb_add(b, o, "target",
             cJSON_CreateString(hs_attn_kind_name(H->target)));
      jb_add(b, o, "mask", cJSON_CreateString(hs_mask_name(H->mask)));
      jb_add(b, o, "tau_law",
             cJSON_CreateString(hs_tau_law_name(H->tau_law)));
      jb_num(b, o, "tau_c", H->tau_c);
      jb_num(b, o, "dk", H->dk);
      jb_num(b, o, "dv", H->dv);
      if (H->bias_slope != 0) jb_num(b, o, "bias_slope", H->bias_slope);
      if (H->desc) jb_str(b, o, "desc", H->desc);
    }
    jb_num(b, lo, "hidden", L->hidden);
    if (L->ln_pairs > 0) {
      jb_num(b, lo, "ln_pairs", L->ln_pairs);
      jb_num(b, lo, "ln_eps", L->ln_eps);
      cJSON *g = jb_add(b, lo, "ln_gain", cJSON_CreateArray());
      cJSON *bi = jb_add(b, lo, "ln_bias", cJSON_CreateArray());
      for (int32_t k = 0; g && bi && k < 2 * L->ln_pairs; k++) {
        jb_num(b, g, NULL, L->ln_g[k]);
        jb_num(b, bi, NULL, L->ln_b[k]);
      }
    }
  }
  if (m->formula) jb_str(b, doc, "formula", m->formula);
  if (m->mode) jb_str(b, doc, "mode", m->mode);
  jb_num(b, doc, "scale", m->scale);
  jb_num(b, doc, "bound", m->bound);
  jb_num(b, doc, "min_scale", m->min_scale);
  if (m->bound_desc) jb_str(b, doc, "bound_desc", m->bound_desc);
  if (isfinite(hs_model_count_max_n(m, 24))) { /* for people: loading recomputes it */
    cJSON *r = jb_add(b, doc, "count_exact_n", cJSON_CreateObject());
    jb_num(b, r, "f32", hs_model_count_max_n(m, 24));
    jb_num(b, r, "f64", hs_model_count_max_n(m, 53));
  }
  if (m->coord_names) {
    cJSON *cn = jb_add(b, doc, "coord_names", cJSON_CreateArray());
    for (int32_t i = 0; cn && i < m->d; i++)
      jb_str(b, cn, NULL, m->coord_names[i]);
  }
  return doc;
}

/* The whole header text, padded with spaces so the data buffer starts at
 * a multiple of 8 (what the official writer does). NULL when out of
 * memory. */
static char *build_header(const hs_model *m, const st_out *t, size_t nt,
                          size_t *hlen) {
  jb b = {0};
  cJSON *root = cJSON_CreateObject(), *doc = build_doc(m, &b);
  char *doc_text = doc ? cJSON_PrintUnformatted(doc) : NULL;
  cJSON_Delete(doc);
  cJSON *meta = root ? jb_add(&b, root, "__metadata__", cJSON_CreateObject())
                     : NULL;
  if (meta && doc_text) {
    jb_add(&b, meta, "format", cJSON_CreateString(FORMAT_NAME));
    jb_add(&b, meta, "hardsoft", cJSON_CreateString(doc_text));
  }
  if (meta && m->nvocab > 0) {
    cJSON *voc = cJSON_CreateArray();
    for (int32_t k = 0; voc && k < m->nvocab; k++) {
      cJSON *pair = jb_add(&b, voc, NULL, cJSON_CreateArray());
      if (pair) jb_str(&b, pair, NULL, m->vocab_tok[k]);
      if (pair) jb_num(&b, pair, NULL, m->vocab_byte[k]);
    }
    char *voc_text = voc ? cJSON_PrintUnformatted(voc) : NULL;
    cJSON_Delete(voc);
    if (voc_text) jb_add(&b, meta, "vocab", cJSON_CreateString(voc_text));
    else b.oom = 1;
    free(voc_text);
  }
  free(doc_text);
  size_t off = 0;
  for (size_t i = 0; meta && i < nt; i++) {
    cJSON *o = jb_add(&b, root, t[i].name, cJSON_CreateObject());
    jb_add(&b, o, "dtype", cJSON_CreateString("F32"));
    cJSON *shape = jb_add(&b, o, "shape", cJSON_CreateArray());
    size_t count = 1;
    for (int k = 0; k < t[i].ndim; k++) {
      jb_num(&b, shape, NULL, (double)t[i].dim[k]);
      count *= t[i].dim[k];
    }
    cJSON *offs = jb_add(&b, o, "data_offsets", cJSON_CreateArray());
    jb_num(&b, offs, NULL, (double)off);
    off += count * 4;
    jb_num(&b, offs, NULL, (double)off);
  }
  char *text = (root && meta && !b.oom) ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  if (!text) return NULL;
  size_t n = strlen(text), padded = n + (8 - (8 + n) % 8) % 8;
  char *out = realloc(text, padded + 1);
  if (!out) {
    free(text);
    return NULL;
  }
  memset(out + n, ' ', padded - n);
  out[padded] = 0;
  *hlen = padded;
  return out;
}

/* Floats as little-endian bytes whatever the host order, in chunks. */
static int write_f32(FILE *f, const float *p, size_t n) {
  unsigned char buf[4096];
  while (n) {
    size_t k = n < sizeof buf / 4 ? n : sizeof buf / 4;
    for (size_t i = 0; i < k; i++) {
      uint32_t u;
      memcpy(&u, &p[i], 4);
      for (int j = 0; j < 4; j++) buf[4 * i + j] = (unsigned char)(u >> 8 * j);
    }
    if (fwrite(buf, 4, k, f) != k) return -1;
    p += k;
    n -= k;
  }
  return 0;
}

static int write_all(FILE *f, const char *hdr, size_t hlen, const st_out *t,
                     size_t nt) {
  unsigned char len8[8];
  for (int j = 0; j < 8; j++) len8[j] = (unsigned char)((uint64_t)hlen >> 8 * j);
  if (fwrite(len8, 1, 8, f) != 8 || fwrite(hdr, 1, hlen, f) != hlen) return -1;
  for (size_t i = 0; i < nt; i++)
    if (write_f32(f, t[i].data, t[i].dim[0] * (t[i].ndim == 2 ? t[i].dim[1] : 1)))
      return -1;
  return 0;
}

int hs_model_save(const hs_model *m, const char *path, hs_error *err) {
  hs_error ve;
  if (!path || !*path) return hs_errorf(err, HS_ERR_ARG, "save: empty path");
  if (hs_model_validate(m, &ve))
    return hs_errorf(err, HS_ERR_FORMAT, "cannot save an invalid model: %s", ve.msg);
  for (int32_t i = 0; i < m->npf; i++)
    if (m->pf[i].kind == HS_PF_MOD &&
        (m->pf[i].k > (int64_t)ST_MAX_EXACT || m->pf[i].r > (int64_t)ST_MAX_EXACT))
      return hs_errorf(err, HS_ERR_FORMAT, "pos_features.%d: k or r above 2^53", (int)i);
  size_t maxt = 1;
  for (int32_t l = 0; l < m->nlayers; l++)
    maxt += 4 * ((size_t)m->layers[l].nheads + 1);
  st_out *t = malloc(maxt * sizeof *t);
  if (!t) return hs_errorf(err, HS_ERR_NOMEM, "save: out of memory");
  size_t nt = list_tensors(m, t), hlen = 0;
  char *hdr = build_header(m, t, nt, &hlen);
  size_t plen = strlen(path);
  char *tmp = malloc(plen + sizeof ".tmp.XXXXXX");
  if (!hdr || !tmp) {
    free(t);
    free(hdr);
    free(tmp);
    return hs_errorf(err, HS_ERR_NOMEM, "save: out of memory");
  }
  memcpy(tmp, path, plen);
  memcpy(tmp + plen, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
  int rc = -1, fd = mkstemp(tmp);
  if (fd < 0) {
    hs_errorf(err, HS_ERR_IO, "cannot create a temporary file beside it: %s",
         strerror(errno));
  } else {
    /* mkstemp gives 0600; like every file a Unix tool creates, a model
     * gets 0666 minus the umask (read back by setting it twice) */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    FILE *f = fdopen(fd, "wb");
    if (!f) close(fd);
    /* no fsync: rename() already keeps a partial file from ever being
     * seen at path; durability across power loss is not worth the
     * latency when benchmarks save many models */
    int werr = !f || write_all(f, hdr, hlen, t, nt) || fflush(f);
    int e = errno;
    if ((f && fclose(f)) || werr) {
      hs_errorf(err, HS_ERR_IO, "cannot write %s: %s", tmp, strerror(werr ? e : errno));
    } else if (rename(tmp, path)) {
      hs_errorf(err, HS_ERR_IO, "cannot rename the temporary file into place: %s",
           strerror(errno));
    } else {
      rc = 0;
    }
    if (rc) remove(tmp);
  }
  free(t);
  free(hdr);
  free(tmp);
  return rc;
}

/* ================================================================ load */

/* The dtypes safetensors defines, with their element sizes; hardsoft
 * converts the first four to F32 (the file format above). */
enum { DT_F32, DT_F64, DT_F16, DT_BF16, DT_OTHER };
static const struct { const char *name; int size, kind; } st_dtypes[] = {
    {"F32", 4, DT_F32},   {"F64", 8, DT_F64},    {"F16", 2, DT_F16},
    {"BF16", 2, DT_BF16}, {"BOOL", 1, DT_OTHER}, {"U8", 1, DT_OTHER},
    {"I8", 1, DT_OTHER},  {"F8_E5M2", 1, DT_OTHER}, {"F8_E4M3", 1, DT_OTHER},
    {"I16", 2, DT_OTHER}, {"U16", 2, DT_OTHER},  {"I32", 4, DT_OTHER},
    {"U32", 4, DT_OTHER}, {"I64", 8, DT_OTHER},  {"U64", 8, DT_OTHER},
};

typedef struct st_in {
  const char *name;
  int dt;               /* index into st_dtypes */
  int ndim;
  uint64_t dim[ST_MAX_RANK];
  uint64_t begin, end;  /* within the data buffer */
  int used;
} st_in;

/* A JSON number that is an integer in [lo, hi]. */
static int json_int(const cJSON *v, double lo, double hi, int64_t *out) {
  if (!cJSON_IsNumber(v)) return -1;
  double x = v->valuedouble;
  if (!(x >= lo && x <= hi) || x != floor(x)) return -1;
  *out = (int64_t)x;
  return 0;
}

static int parse_shape(const cJSON *o, st_in *e, hs_error *err) {
  /* a named copy: shown() returns a temporary */
  shown_t nm_ = shown(e->name);
  const char *nm = nm_.s;
  const cJSON *dt = cJSON_GetObjectItemCaseSensitive(o, "dtype");
  const cJSON *sh = cJSON_GetObjectItemCaseSensitive(o, "shape");
  const cJSON *of = cJSON_GetObjectItemCaseSensitive(o, "data_offsets");
  if (!cJSON_IsString(dt))
    return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: missing dtype", nm);
  e->dt = -1;
  for (int k = 0; k < (int)(sizeof st_dtypes / sizeof *st_dtypes); k++)
    if (!strcmp(dt->valuestring, st_dtypes[k].name)) e->dt = k;
  if (e->dt < 0)
    return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: dtype %s is not a safetensors dtype",
                   nm, shown(dt->valuestring).s);
  if (!cJSON_IsArray(sh))
    return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: missing shape", nm);
  int nd = cJSON_GetArraySize(sh);
  if (nd > ST_MAX_RANK)
    return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: rank %d above %d", nm, nd, ST_MAX_RANK);
  e->ndim = nd;
  uint64_t count = 1;
  int k = 0;
  const cJSON *v;
  cJSON_ArrayForEach(v, sh) {
    int64_t x;
    if (json_int(v, 0, ST_MAX_EXACT, &x))
      return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: shape entry %d is not a "
                  "non-negative integer", nm, k);
    e->dim[k++] = (uint64_t)x;
    /* overflow is checked before multiplying: the product bounds bytes */
    if (x && count > UINT64_MAX / 8 / (uint64_t)x)
      return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: shape product overflows", nm);
    count *= (uint64_t)x;
  }
  int64_t b, en;
  if (!cJSON_IsArray(of) || cJSON_GetArraySize(of) != 2 ||
      json_int(of->child, 0, ST_MAX_EXACT, &b) ||
      json_int(of->child->next, 0, ST_MAX_EXACT, &en))
    return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: data_offsets must be [begin, end], "
                "two non-negative integers", nm);
  if (en < b)
    return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: data_offsets [%lld, %lld] end before "
                "begin", nm, (long long)b, (long long)en);
  e->begin = (uint64_t)b;
  e->end = (uint64_t)en;
  uint64_t need = count * (uint64_t)st_dtypes[e->dt].size;
  if (e->end - e->begin != need)
    return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: data_offsets span %llu bytes, shape "
                "needs %llu", nm, (unsigned long long)(e->end - e->begin),
                (unsigned long long)need);
  return 0;
}

static int cmp_name(const void *a, const void *b) {
  return strcmp(((const st_in *)a)->name, ((const st_in *)b)->name);
}
static int cmp_begin(const void *a, const void *b) {
  const st_in *x = a, *y = b;
  if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

/* Tensor table: every entry checked on its own, then sorted by name for
 * lookup, with no duplicates. */
static int parse_tensors(const cJSON *root, st_in *e, size_t ne,
                         uint64_t dlen, uint64_t dstart, hs_error *err) {
  size_t i = 0;
  const cJSON *o;
  cJSON_ArrayForEach(o, root) {
    if (strcmp(o->string, "__metadata__") == 0) continue;
    e[i] = (st_in){.name = o->string};
    if (!cJSON_IsObject(o))
      return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: entry is not an object",
                  shown(o->string).s);
    if (parse_shape(o, &e[i], err)) return -1;
    if (e[i].end > dlen)
      return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: data_offsets [%llu, %llu] beyond the "
                  "data buffer (%llu bytes from file offset %llu)",
                  shown(e[i].name).s, (unsigned long long)e[i].begin,
                  (unsigned long long)e[i].end, (unsigned long long)dlen,
                  (unsigned long long)dstart);
    i++;
  }
  qsort(e, ne, sizeof *e, cmp_name);
  for (i = 1; i < ne; i++)
    if (strcmp(e[i - 1].name, e[i].name) == 0)
      return hs_errorf(err, HS_ERR_FORMAT, "duplicate tensor %s", shown(e[i].name).s);
  return 0;
}

/* The tensors tile the data buffer exactly: no overlap (two tensors
 * sharing bytes), no gap, nothing after the last (as the official reader
 * demands). */
static int check_packing(const st_in *e, size_t ne, uint64_t dlen,
                         uint64_t dstart, hs_error *err) {
  st_in *s = malloc((ne ? ne : 1) * sizeof *s);
  if (!s) return hs_errorf(err, HS_ERR_NOMEM, "out of memory");
  memcpy(s, e, ne * sizeof *s);
  qsort(s, ne, sizeof *s, cmp_begin);
  uint64_t pos = 0;
  int rc = 0;
  for (size_t i = 0; !rc && i < ne; i++) {
    if (s[i].begin < pos)
      rc = hs_errorf(err, HS_ERR_FORMAT, "tensors %s and %s overlap at file offset %llu",
                shown(s[i - 1].name).s, shown(s[i].name).s,
                (unsigned long long)(dstart + s[i].begin));
    else if (s[i].begin > pos)
      rc = hs_errorf(err, HS_ERR_FORMAT, "data buffer has unused bytes at file offset %llu "
                "(before tensor %s)", (unsigned long long)(dstart + pos),
                shown(s[i].name).s);
    pos = s[i].end;
  }
  if (!rc && pos != dlen)
    rc = hs_errorf(err, HS_ERR_FORMAT, "data buffer has %llu unused bytes at file offset "
              "%llu (after the last tensor)", (unsigned long long)(dlen - pos),
              (unsigned long long)(dstart + pos));
  free(s);
  return rc;
}

/* ---------------------------------------------------- metadata fields */

/* Field readers: `path` names the enclosing object ("" at the top, else
 * e.g. "layers.0.heads.1"), so every message names the field in full. */
static const char *dot(const char *path) { return *path ? "." : ""; }

static int get_int(const cJSON *o, const char *path, const char *key,
                   int required, int64_t lo, int64_t hi, int64_t *out,
                   hs_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v) {
    if (required)
      return hs_errorf(err, HS_ERR_FORMAT, "%s%s%s: missing", path, dot(path), key);
    return 0;
  }
  if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
      !isfinite(v->valuedouble))
    return hs_errorf(err, HS_ERR_FORMAT, "%s%s%s: not an integer", path, dot(path), key);
  if (json_int(v, (double)lo, (double)hi, out))
    return hs_errorf(err, HS_ERR_FORMAT, "%s%s%s: %.17g out of range [%lld, %lld]", path,
                dot(path), key, v->valuedouble, (long long)lo, (long long)hi);
  return 0;
}

static int get_i32(const cJSON *o, const char *path, const char *key,
                   int required, int64_t lo, int64_t hi, int32_t *out,
                   hs_error *err) {
  int64_t x = *out;
  if (get_int(o, path, key, required, lo, hi, &x, err)) return -1;
  *out = (int32_t)x;
  return 0;
}

/* A number, or "inf" / "-inf" / "nan" standing in for what JSON lacks. */
static int get_num(const cJSON *o, const char *path, const char *key,
                   int required, double *out, hs_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v) {
    if (required)
      return hs_errorf(err, HS_ERR_FORMAT, "%s%s%s: missing", path, dot(path), key);
    return 0;
  }
  if (cJSON_IsNumber(v)) *out = v->valuedouble;
  else if (cJSON_IsString(v) && !strcmp(v->valuestring, "inf")) *out = INFINITY;
  else if (cJSON_IsString(v) && !strcmp(v->valuestring, "-inf")) *out = -INFINITY;
  else if (cJSON_IsString(v) && !strcmp(v->valuestring, "nan")) *out = NAN;
  else return hs_errorf(err, HS_ERR_FORMAT, "%s%s%s: not a number", path, dot(path), key);
  return 0;
}

/* An optional string, copied; JSON null counts as absent. */
static int get_str(const cJSON *v, const char *path, const char *key,
                   char **out, hs_error *err) {
  *out = NULL;
  if (!v || cJSON_IsNull(v)) return 0;
  if (!cJSON_IsString(v))
    return hs_errorf(err, HS_ERR_FORMAT, "%s%s%s: not a string", path, dot(path), key);
  size_t n = strlen(v->valuestring) + 1;
  if (!(*out = malloc(n))) return hs_errorf(err, HS_ERR_NOMEM, "out of memory");
  memcpy(*out, v->valuestring, n);
  return 0;
}

/* An enum spelled by name: -1 when absent and optional. */
static int get_enum(const cJSON *o, const char *path, const char *key,
                    int required, int (*parse)(const char *),
                    const char *what, int *out, hs_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  *out = -1;
  if (!v) {
    if (required)
      return hs_errorf(err, HS_ERR_FORMAT, "%s%s%s: missing", path, dot(path), key);
    return 0;
  }
  if (!cJSON_IsString(v))
    return hs_errorf(err, HS_ERR_FORMAT, "%s%s%s: not a string", path, dot(path), key);
  if ((*out = parse(v->valuestring)) < 0)
    return hs_errorf(err, HS_ERR_FORMAT, "%s%s%s: unknown %s '%s'", path, dot(path), key,
                what, shown(v->valuestring).s);
  return 0;
}

static int parse_pf(const cJSON *o, hs_posfeat *p, int32_t d, int i,
                    hs_error *err) {
  char path[48];
  snprintf(path, sizeof path, "pos_features.%d", i);
  int kind;
  if (!cJSON_IsObject(o)) return hs_errorf(err, HS_ERR_FORMAT, "%s: not an object", path);
  if (get_enum(o, path, "kind", 1, hs_pf_kind_parse, "positional feature",
               &kind, err) ||
      get_i32(o, path, "coord", 1, 0, d - 1, &p->coord, err))
    return -1;
  p->kind = (hs_pf_kind)kind;
  p->k = p->r = 0;
  if (kind == HS_PF_MOD &&
      (get_int(o, path, "k", 1, 1, (int64_t)ST_MAX_EXACT, &p->k, err) ||
       get_int(o, path, "r", 1, 0, (int64_t)ST_MAX_EXACT, &p->r, err)))
    return -1;
  return 0;
}

static int parse_head(const cJSON *o, hs_head *h, int l, int i, hs_error *err) {
  char path[48];
  snprintf(path, sizeof path, "layers.%d.heads.%d", l, i);
  if (!cJSON_IsObject(o)) return hs_errorf(err, HS_ERR_FORMAT, "%s: not an object", path);
  int kind, target, mask, law;
  if (get_enum(o, path, "kind", 1, hs_attn_kind_parse, "attention kind",
               &kind, err) ||
      get_enum(o, path, "target", 0, hs_attn_kind_parse, "attention kind",
               &target, err) ||
      get_enum(o, path, "mask", 1, hs_mask_parse, "mask", &mask, err))
    return -1;
  int soft = kind == HS_ATTN_SOFTMAX;
  double slope = 0;
  h->tau_c = 1;
  if (get_enum(o, path, "tau_law", soft, hs_tau_law_parse, "tau law", &law,
               err) ||
      get_num(o, path, "tau_c", soft, &h->tau_c, err) ||
      get_num(o, path, "bias_slope", 0, &slope, err) ||
      get_i32(o, path, "dk", 1, 1, HS_ATTN_MAX_D, &h->dk, err) ||
      get_i32(o, path, "dv", 1, 1, HS_ATTN_MAX_D, &h->dv, err) ||
      get_str(cJSON_GetObjectItemCaseSensitive(o, "desc"), path, "desc",
              &h->desc, err))
    return -1;
  h->kind = (hs_attn_kind)kind;
  h->target = (hs_attn_kind)(target >= 0 ? target
                             : soft ? HS_ATTN_HARD_AVG : kind);
  h->mask = (hs_mask)mask;
  h->tau_law = (hs_tau_law)(law >= 0 ? law : HS_TAU_CONST);
  /* the slope is kept as a float: it must be one exactly (the kernels
   * multiply by it in f32) */
  if (!(slope >= 0 && slope <= 0x1p20) || (double)(float)slope != slope)
    return hs_errorf(err, HS_ERR_FORMAT, "%s.bias_slope: %g, expected a number in [0, "
                "2^20] exactly representable as a float32", path, slope);
  h->bias_slope = (float)slope;
  if (soft && !(isfinite(h->tau_c) && h->tau_c > 0))
    return hs_errorf(err, HS_ERR_FORMAT, "%s.tau_c: %g, a softmax head needs a finite "
                "tau_c > 0", path, h->tau_c);
  return 0;
}

static int parse_layer(const cJSON *o, hs_layer *L, int l, hs_error *err) {
  char path[32];
  snprintf(path, sizeof path, "layers.%d", l);
  if (!cJSON_IsObject(o)) return hs_errorf(err, HS_ERR_FORMAT, "%s: not an object", path);
  const cJSON *heads = cJSON_GetObjectItemCaseSensitive(o, "heads");
  if (!cJSON_IsArray(heads))
    return hs_errorf(err, HS_ERR_FORMAT, "%s.heads: missing or not an array", path);
  int nh = cJSON_GetArraySize(heads);
  if (nh > ST_MAX_HEADS)
    return hs_errorf(err, HS_ERR_LIMIT, "%s.heads: %d heads, limit %d", path, nh,
                ST_MAX_HEADS);
  if (get_i32(o, path, "hidden", 1, 0, ST_MAX_HIDDEN, &L->hidden, err))
    return -1;
  if (get_i32(o, path, "ln_pairs", 0, 0, L->hidden / 2, &L->ln_pairs, err) ||
      get_num(o, path, "ln_eps", 0, &L->ln_eps, err))
    return -1;
  if (L->ln_pairs > 0) {
    static const char *const key[2] = {"ln_gain", "ln_bias"};
    float **dst[2] = {&L->ln_g, &L->ln_b};
    for (int t = 0; t < 2; t++) {
      const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key[t]), *x;
      if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 2 * L->ln_pairs)
        return hs_errorf(err, HS_ERR_FORMAT, "%s.%s: expected an array of %d numbers", path,
                    key[t], 2 * L->ln_pairs);
      if (!(*dst[t] = calloc(2 * (size_t)L->ln_pairs, sizeof(float))))
        return hs_errorf(err, HS_ERR_NOMEM, "out of memory");
      int k = 0;
      cJSON_ArrayForEach(x, a) {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) ||
            fabs(x->valuedouble) > FLT_MAX)
          return hs_errorf(err, HS_ERR_FORMAT, "%s.%s[%d]: not a finite number", path, key[t], k);
        (*dst[t])[k++] = (float)x->valuedouble;
      }
    }
  }
  if (nh && !(L->heads = calloc((size_t)nh, sizeof(hs_head))))
    return hs_errorf(err, HS_ERR_NOMEM, "out of memory");
  L->nheads = nh;
  int i = 0;
  const cJSON *h;
  cJSON_ArrayForEach(h, heads) {
    if (parse_head(h, &L->heads[i], l, i, err)) return -1;
    i++;
  }
  return 0;
}

/* The "hardsoft" document into m (no weights yet). */
static int parse_doc(const cJSON *doc, hs_model *m, hs_error *err) {
  if (!cJSON_IsObject(doc))
    return hs_errorf(err, HS_ERR_FORMAT, "__metadata__.hardsoft: not a JSON object");
  if (get_i32(doc, "", "d", 1, 1, HS_MODEL_MAX_D, &m->d, err) ||
      get_i32(doc, "", "out_coord", 1, 0, m->d - 1, &m->out_coord, err))
    return -1;
  const cJSON *pfs = cJSON_GetObjectItemCaseSensitive(doc, "pos_features");
  const cJSON *layers = cJSON_GetObjectItemCaseSensitive(doc, "layers");
  if (!cJSON_IsArray(pfs))
    return hs_errorf(err, HS_ERR_FORMAT, "pos_features: missing or not an array");
  if (!cJSON_IsArray(layers))
    return hs_errorf(err, HS_ERR_FORMAT, "layers: missing or not an array");
  int npf = cJSON_GetArraySize(pfs), nl = cJSON_GetArraySize(layers);
  if (npf > ST_MAX_PF)
    return hs_errorf(err, HS_ERR_LIMIT, "pos_features: %d features, limit %d", npf,
                ST_MAX_PF);
  if (nl > ST_MAX_LAYERS)
    return hs_errorf(err, HS_ERR_LIMIT, "layers: %d layers, limit %d", nl, ST_MAX_LAYERS);
  if ((npf && !(m->pf = calloc((size_t)npf, sizeof(hs_posfeat)))) ||
      (nl && !(m->layers = calloc((size_t)nl, sizeof(hs_layer)))))
    return hs_errorf(err, HS_ERR_NOMEM, "out of memory");
  m->npf = npf;
  m->nlayers = nl;
  int i = 0;
  const cJSON *v;
  cJSON_ArrayForEach(v, pfs) {
    if (parse_pf(v, &m->pf[i], m->d, i, err)) return -1;
    i++;
  }
  i = 0;
  cJSON_ArrayForEach(v, layers) {
    if (parse_layer(v, &m->layers[i], i, err)) return -1;
    i++;
  }
  if (get_str(cJSON_GetObjectItemCaseSensitive(doc, "formula"), "",
              "formula", &m->formula, err) ||
      get_str(cJSON_GetObjectItemCaseSensitive(doc, "mode"), "", "mode",
              &m->mode, err) ||
      get_str(cJSON_GetObjectItemCaseSensitive(doc, "bound_desc"), "",
              "bound_desc", &m->bound_desc, err) ||
      get_num(doc, "", "scale", 0, &m->scale, err) ||
      get_num(doc, "", "bound", 0, &m->bound, err) ||
      get_num(doc, "", "min_scale", 0, &m->min_scale, err))
    return -1;
  const cJSON *cn = cJSON_GetObjectItemCaseSensitive(doc, "coord_names");
  if (cn && !cJSON_IsNull(cn)) {
    if (!cJSON_IsArray(cn) || cJSON_GetArraySize(cn) != m->d)
      return hs_errorf(err, HS_ERR_FORMAT, "coord_names: not an array of d=%d names", m->d);
    if (!(m->coord_names = calloc((size_t)m->d, sizeof(char *))))
      return hs_errorf(err, HS_ERR_NOMEM, "out of memory");
    i = 0;
    cJSON_ArrayForEach(v, cn) {
      char key[32];
      snprintf(key, sizeof key, "coord_names.%d", i);
      if (get_str(v, "", key, &m->coord_names[i], err)) return -1;
      i++;
    }
  }
  return 0;
}

/* Parse JSON text of n bytes that must hold one value and nothing but
 * whitespace after it. base is the text's offset in the file, for the
 * message. */
static cJSON *parse_json(const char *text, size_t n, const char *what,
                         size_t base, hs_error *err) {
  const char *end = NULL;
  cJSON *j = cJSON_ParseWithLengthOpts(text, n, &end, 0);
  size_t at = end && end >= text && (size_t)(end - text) <= n
                  ? (size_t)(end - text) : n;
  if (j)
    while (at < n && strchr(" \t\r\n", text[at]) && text[at]) at++;
  if (!j || at < n) {
    cJSON_Delete(j);
    hs_errorf(err, HS_ERR_FORMAT, "%s: %s at byte offset %zu", what,
         j ? "trailing characters after the JSON value" : "invalid JSON",
         base + at);
    return NULL;
  }
  return j;
}

/* ------------------------------------------------------------- weights */

/* One expected tensor: its name, shape, and where its floats go. */
typedef struct want {
  char name[64];
  int ndim;
  uint64_t dim[2];
  const char *label[2]; /* e.g. "dk", "d" for the shape message */
  float **dst;
  st_in *found;
} want;

static size_t list_wants(hs_model *m, want *w) {
  size_t n = 0, d = (size_t)m->d;
  w[n++] = (want){"embed", 2, {HS_VOCAB, d}, {"vocab", "d"}, &m->embed, NULL};
  for (int32_t l = 0; l < m->nlayers; l++) {
    hs_layer *L = &m->layers[l];
    for (int32_t h = 0; h < L->nheads; h++) {
      hs_head *H = &L->heads[h];
      static const char *const part[4] = {"wq", "wk", "wv", "wo"};
      float **dst[4] = {&H->wq, &H->wk, &H->wv, &H->wo};
      uint64_t r[4] = {(uint64_t)H->dk, (uint64_t)H->dk, (uint64_t)H->dv, d};
      uint64_t c[4] = {d, d, d, (uint64_t)H->dv};
      const char *lr[4] = {"dk", "dk", "dv", "d"}, *lc[4] = {"d", "d", "d", "dv"};
      for (int t = 0; t < 4; t++) {
        w[n] = (want){"", 2, {r[t], c[t]}, {lr[t], lc[t]}, dst[t], NULL};
        snprintf(w[n].name, sizeof w[n].name, "layers.%d.attn.%d.%s", (int)l,
                 (int)h, part[t]);
        n++;
      }
    }
    if (L->hidden > 0) {
      uint64_t hid = (uint64_t)L->hidden;
      static const char *const part[4] = {"w1", "b1", "w2", "b2"};
      float **dst[4] = {&L->w1, &L->b1, &L->w2, &L->b2};
      int nd[4] = {2, 1, 2, 1};
      uint64_t r[4] = {hid, hid, d, d}, c[4] = {d, 0, hid, 0};
      const char *lr[4] = {"hidden", "hidden", "d", "d"};
      const char *lc[4] = {"d", NULL, "hidden", NULL};
      for (int t = 0; t < 4; t++) {
        w[n] = (want){"", nd[t], {r[t], c[t]}, {lr[t], lc[t]}, dst[t], NULL};
        snprintf(w[n].name, sizeof w[n].name, "layers.%d.ffn.%s", (int)l,
                 part[t]);
        n++;
      }
    }
  }
  return n;
}

static void fmt_shape(char *buf, size_t n, const st_in *e) {
  size_t at = (size_t)snprintf(buf, n, "[");
  for (int k = 0; k < e->ndim && at < n; k++)
    at += (size_t)snprintf(buf + at, n - at, "%s%llu", k ? ", " : "",
                           (unsigned long long)e->dim[k]);
  if (at < n) snprintf(buf + at, n - at, "]");
}

static int match_shape(const want *w, hs_error *err) {
  const st_in *e = w->found;
  int ok = e->ndim == w->ndim;
  for (int k = 0; ok && k < w->ndim; k++) ok = e->dim[k] == w->dim[k];
  if (ok) return 0;
  char got[160], want_s[96];
  fmt_shape(got, sizeof got, e);
  if (w->ndim == 2)
    snprintf(want_s, sizeof want_s, "[%s=%llu, %s=%llu]", w->label[0],
             (unsigned long long)w->dim[0], w->label[1],
             (unsigned long long)w->dim[1]);
  else
    snprintf(want_s, sizeof want_s, "[%s=%llu]", w->label[0],
             (unsigned long long)w->dim[0]);
  return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: shape %s, expected %s", w->name, got,
              want_s);
}

/* Element i of little-endian data p in the dtype kind, as a double (F16:
 * 1 sign, 5 exponent bits with bias 15, 10 fraction bits; BF16: the upper
 * half of an F32). */
static double st_elem(const unsigned char *p, int kind, size_t i) {
  int size = kind == DT_F64 ? 8 : kind == DT_F32 ? 4 : 2;
  uint64_t u = 0;
  for (int j = 0; j < size; j++) u |= (uint64_t)p[(size_t)size * i + (size_t)j] << 8 * j;
  if (kind == DT_F64) {
    double x;
    memcpy(&x, &u, 8);
    return x;
  }
  if (kind == DT_F16) {
    int ex = (int)(u >> 10 & 31);
    double frac = (double)(u & 1023);
    double x = ex == 31 ? (frac ? NAN : INFINITY)
               : ex ? ldexp(frac + 1024, ex - 25) : ldexp(frac, -24);
    return u >> 15 ? -x : x;
  }
  uint32_t b = kind == DT_BF16 ? (uint32_t)u << 16 : (uint32_t)u;
  float f;
  memcpy(&f, &b, 4);
  return f;
}

static int read_tensor(const want *w, const unsigned char *data, hs_error *err) {
  const st_in *e = w->found;
  int kind = st_dtypes[e->dt].kind;
  if (kind == DT_OTHER)
    return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: dtype %s not supported (F32, F16, "
                   "BF16, or F64 rounded to F32)", w->name, st_dtypes[e->dt].name);
  size_t count = (size_t)w->dim[0] * (w->ndim == 2 ? (size_t)w->dim[1] : 1);
  float *f = malloc(count ? count * sizeof(float) : 1);
  if (!f) return hs_errorf(err, HS_ERR_NOMEM, "tensor %s: out of memory", w->name);
  *w->dst = f;
  const unsigned char *p = data + e->begin;
  for (size_t i = 0; i < count; i++) {
    double x = st_elem(p, kind, i);
    if (isnan(x))
      return hs_errorf(err, HS_ERR_FORMAT, "tensor %s contains NaN at element %zu", w->name, i);
    if (isinf(x))
      return hs_errorf(err, HS_ERR_FORMAT, "tensor %s contains infinity at element %zu",
                  w->name, i);
    if (fabs(x) > FLT_MAX)
      return hs_errorf(err, HS_ERR_FORMAT, "tensor %s: element %zu (%g) is beyond the F32 "
                  "range", w->name, i, x);
    f[i] = (float)x;
  }
  return 0;
}

static int cmp_key(const void *key, const void *elem) {
  return strcmp(key, ((const st_in *)elem)->name);
}

/* Every expected tensor present with the right shape and nothing else,
 * then the packing, all checked before any weight is allocated; then the
 * weights. Names first: a missing tensor also leaves a gap, and "missing
 * tensor X" is the more useful message. */
static int load_weights(hs_model *m, st_in *e, size_t ne,
                        const unsigned char *data, uint64_t dlen,
                        uint64_t dstart, hs_error *err) {
  size_t nw = 1;
  for (int32_t l = 0; l < m->nlayers; l++)
    nw += 4 * ((size_t)m->layers[l].nheads + 1);
  want *w = malloc(nw * sizeof *w);
  if (!w) return hs_errorf(err, HS_ERR_NOMEM, "out of memory");
  nw = list_wants(m, w);
  int rc = 0;
  for (size_t i = 0; !rc && i < nw; i++) {
    w[i].found = bsearch(w[i].name, e, ne, sizeof *e, cmp_key);
    if (!w[i].found) rc = hs_errorf(err, HS_ERR_FORMAT, "missing tensor %s", w[i].name);
    else {
      w[i].found->used = 1;
      rc = match_shape(&w[i], err);
    }
  }
  for (size_t i = 0; !rc && i < ne; i++)
    if (!e[i].used && (!strncmp(e[i].name, "embed", 5) ||
                       !strncmp(e[i].name, "layers.", 7)))
      rc = hs_errorf(err, HS_ERR_FORMAT, "unexpected tensor %s (not in the model the "
                "metadata describes)", shown(e[i].name).s);
  if (!rc) rc = check_packing(e, ne, dlen, dstart, err);
  for (size_t i = 0; !rc && i < nw; i++) rc = read_tensor(&w[i], data, err);
  free(w);
  return rc;
}

/* ------------------------------------------------------------ the file */

/* The whole file in memory, size-checked before reading. */
static unsigned char *read_file(const char *path, size_t *size, hs_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    hs_errorf(err, HS_ERR_IO, "cannot open: %s", strerror(errno));
    return NULL;
  }
  struct stat st;
  unsigned char *buf = NULL;
  if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode))
    hs_errorf(err, HS_ERR_FORMAT, "not a regular file");
  else if ((uint64_t)st.st_size > ST_MAX_FILE)
    hs_errorf(err, HS_ERR_LIMIT, "%lld bytes, above the 4 GiB limit", (long long)st.st_size);
  else if (st.st_size < 8)
    hs_errorf(err, HS_ERR_FORMAT, "file too short (%lld bytes): a safetensors file starts "
         "with an 8-byte header length", (long long)st.st_size);
  else if (!(buf = malloc((size_t)st.st_size)))
    hs_errorf(err, HS_ERR_NOMEM, "out of memory for %lld bytes", (long long)st.st_size);
  else if (fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
    hs_errorf(err, HS_ERR_IO, "cannot read: %s",
         ferror(f) ? strerror(errno) : "file shrank while reading");
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *size = buf ? (size_t)st.st_size : 0;
  return buf;
}

static int check_metadata(const cJSON *meta, cJSON **doc, hs_error *err) {
  if (!meta) return hs_errorf(err, HS_ERR_FORMAT, "__metadata__: missing (not a hardsoft "
                         "model file)");
  if (!cJSON_IsObject(meta))
    return hs_errorf(err, HS_ERR_FORMAT, "__metadata__: not an object");
  const cJSON *v;
  cJSON_ArrayForEach(v, meta) if (!cJSON_IsString(v))
    return hs_errorf(err, HS_ERR_FORMAT, "__metadata__.%s: value is not a string "
                "(safetensors metadata maps strings to strings)",
                shown(v->string).s);
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(meta, "format");
  const cJSON *hs = cJSON_GetObjectItemCaseSensitive(meta, "hardsoft");
  if (!fmt) return hs_errorf(err, HS_ERR_FORMAT, "__metadata__.format: missing");
  /* "pt" and "np": what files written with the safetensors library carry */
  if (strcmp(fmt->valuestring, FORMAT_NAME) && strcmp(fmt->valuestring, "pt") &&
      strcmp(fmt->valuestring, "np"))
    return hs_errorf(err, HS_ERR_FORMAT, "__metadata__.format: '%s', expected '%s' (or "
                   "'pt' or 'np')", shown(fmt->valuestring).s, FORMAT_NAME);
  if (!hs) return hs_errorf(err, HS_ERR_FORMAT, "__metadata__.hardsoft: missing");
  *doc = parse_json(hs->valuestring, strlen(hs->valuestring),
                    "__metadata__.hardsoft", 0, err);
  if (*doc) return 0;
  /* the offset is within the string: say so */
  size_t n = err ? strlen(err->msg) : 0;
  if (err && n + 24 < sizeof err->msg) strcat(err->msg, " of the string");
  return -1;
}

/* __metadata__.vocab (optional): a JSON array of [token, byte] pairs, the
 * tokens distinct, non-empty and without whitespace, the bytes distinct
 * integers 0..255, at most 255 pairs (src/lang/lang.h). */
static int load_vocab(const cJSON *meta, hs_model *m, hs_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, "vocab");
  if (!v) return 0;
  cJSON *a = parse_json(v->valuestring, strlen(v->valuestring),
                        "__metadata__.vocab", 0, err);
  if (!a) return -1;
  int n = cJSON_GetArraySize(a), rc = -1;
  const char *tok[255];
  uint8_t byte[255];
  if (!cJSON_IsArray(a) || n > 255) {
    hs_errorf(err, HS_ERR_FORMAT, "__metadata__.vocab: not an array of at most 255 "
            "[token, byte] pairs");
    goto out;
  }
  for (int k = 0; k < n; k++) {
    const cJSON *p = cJSON_GetArrayItem(a, k);
    const cJSON *t = cJSON_GetArrayItem(p, 0), *b = cJSON_GetArrayItem(p, 1);
    if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 2 || !cJSON_IsString(t) ||
        !cJSON_IsNumber(b) || b->valuedouble < 0 || b->valuedouble > 255 ||
        b->valuedouble != (double)(int)b->valuedouble) {
      hs_errorf(err, HS_ERR_FORMAT, "__metadata__.vocab[%d]: not a [token, byte] pair with "
              "a byte 0..255", k);
      goto out;
    }
    tok[k] = t->valuestring;
    byte[k] = (uint8_t)b->valueint;
  }
  if (hs_model_vocab_set(m, n, tok, byte))
    hs_errorf(err, HS_ERR_FORMAT, "__metadata__.vocab: tokens must be distinct, non-empty, "
            "without whitespace, and their bytes distinct");
  else rc = 0;
out:
  cJSON_Delete(a);
  return rc;
}

/* Everything after the file is read: header, metadata, tensors. */
static hs_model *load_buf(const unsigned char *buf, size_t size, hs_error *err) {
  uint64_t hlen = 0;
  for (int j = 0; j < 8; j++) hlen |= (uint64_t)buf[j] << 8 * j;
  if (hlen > hs_get_limits().max_header) {
    hs_errorf(err, HS_ERR_LIMIT, "header length %llu above the %zu MiB limit "
         "(limit max_header_mib)", (unsigned long long)hlen,
         hs_get_limits().max_header >> 20);
    hs_error_limit(err, HS_LIMIT_MAX_HEADER_MIB);
    return NULL;
  }
  if (hlen > size - 8) {
    hs_errorf(err, HS_ERR_FORMAT, "header length %llu larger than the file (%zu bytes "
         "after the length)", (unsigned long long)hlen, size - 8);
    return NULL;
  }
  const char *hdr = (const char *)buf + 8;
  /* cJSON reads strings up to a NUL: none may hide inside the header */
  const char *nul = memchr(hdr, 0, hlen);
  size_t bad = utf8_bad((const unsigned char *)hdr, hlen);
  if (nul || bad < hlen) {
    hs_errorf(err, HS_ERR_FORMAT, "header: %s at byte offset %zu",
         nul ? "NUL byte" : "invalid UTF-8",
         8 + (nul ? (size_t)(nul - hdr) : bad));
    return NULL;
  }
  cJSON *root = parse_json(hdr, hlen, "header", 8, err), *doc = NULL;
  if (!root) return NULL;
  hs_model *m = calloc(1, sizeof *m);
  st_in *e = NULL;
  size_t ne = 0;
  int rc = -1;
  const cJSON *v, *meta = NULL;
  if (!m) {
    hs_errorf(err, HS_ERR_NOMEM, "out of memory");
    goto out;
  }
  if (!cJSON_IsObject(root)) {
    hs_errorf(err, HS_ERR_FORMAT, "header: not a JSON object");
    goto out;
  }
  cJSON_ArrayForEach(v, root) {
    if (strcmp(v->string, "__metadata__")) ne++;
    else if (meta) {
      hs_errorf(err, HS_ERR_FORMAT, "header: duplicate __metadata__");
      goto out;
    } else meta = v;
  }
  if (ne > hs_get_limits().max_tensors) {
    hs_errorf(err, HS_ERR_LIMIT, "header: %zu tensors, above the limit of %zu "
         "(limit max_tensors)", ne, hs_get_limits().max_tensors);
    hs_error_limit(err, HS_LIMIT_MAX_TENSORS);
    goto out;
  }
  if (check_metadata(meta, &doc, err) || parse_doc(doc, m, err) ||
      load_vocab(meta, m, err))
    goto out;
  if (!(e = calloc(ne ? ne : 1, sizeof *e))) {
    hs_errorf(err, HS_ERR_NOMEM, "out of memory");
    goto out;
  }
  if (parse_tensors(root, e, ne, size - 8 - hlen, 8 + hlen, err) ||
      load_weights(m, e, ne, buf + 8 + hlen, size - 8 - hlen, 8 + hlen, err))
    goto out;
  hs_error ve;
  if (hs_model_validate(m, &ve))
    hs_errorf(err, HS_ERR_FORMAT, "invalid model: %.199s", ve.msg);
  else rc = 0;
out:
  free(e);
  cJSON_Delete(doc);
  cJSON_Delete(root);
  if (rc) {
    hs_model_free(m);
    return NULL;
  }
  return m;
}

hs_model *hs_model_load(const char *path, hs_error *err) {
  if (!path) {
    hs_errorf(err, HS_ERR_FORMAT, "load: no path");
    return NULL;
  }
  size_t size;
  unsigned char *buf = read_file(path, &size, err);
  hs_model *m = buf ? load_buf(buf, size, err) : NULL;
  free(buf);
  /* a file in another format fails somewhere in its "header" (or is too
   * short for one): say what it is instead */
  const char *kind = m || !err || err->code == HS_ERR_IO || err->code == HS_ERR_NOMEM
                         ? NULL : hs_file_kind(path);
  if (kind && strncmp(kind, "a model file", 12) != 0)
    hs_errorf(err, HS_ERR_FORMAT, "this file is %s, not a hardsoft model", kind);
  return m;
}
