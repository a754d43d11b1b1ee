/* SPDX-License-Identifier: MIT */
/* hardsoft — compile temporal logic into transformers and run them on CPU.
 *
 * Public API. Everything here carries the prefix hs_: the version, the
 * instruction sets and the kernel table by name, formulas (parse, the
 * ground truth), models (compile in a mode, save/load safetensors and
 * ONNX, describe, run, attention weights), simulating hard attention,
 * run-time predictions, and programs (C-RASP, B-RASP). The kernels' own
 * types and table layout are in the advanced header <hardsoft/kernels.h>.
 */
#ifndef HARDSOFT_H
#define HARDSOFT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks what the shared library exports: it is built with
 * -fvisibility=hidden, so a function without HS_API stays internal. */
#ifndef HS_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define HS_API __attribute__((visibility("default")))
#else
#define HS_API
#endif
#endif

/* --------------------------------------------------------------- version */

/* The library's version: MAJOR changes with the ABI (the SONAME is
 * libhardsoft.so.MAJOR), MINOR with additions, PATCH with fixes. */
#define HS_VERSION_MAJOR 0
#define HS_VERSION_MINOR 3
#define HS_VERSION_PATCH 0
#define HS_VERSION_STRING "0.3.0"
#define HS_VERSION_NUMBER (HS_VERSION_MAJOR * 10000 + HS_VERSION_MINOR * 100 + HS_VERSION_PATCH)
/* The version of the library linked at run time ("0.3.0"), which may
 * differ from HS_VERSION_STRING of the header a program was built with. */
HS_API const char *hs_version(void);
/* HS_VERSION_NUMBER of the library linked at run time. */
HS_API int hs_version_number(void);
/* sizeof of a public struct by its name ("hs_run_opts", "hs_run_result",
 * "hs_error", "hs_compile_opts", "hs_sim_opts", "hs_sim_result"), 0 for
 * another name: for bindings that mirror a struct's layout to check it
 * against the library they loaded. */
HS_API size_t hs_struct_size(const char *name);

/* ---------------------------------------------------------------- errors */

/* What kind of failure a call reports (hs_error.code). */
typedef enum hs_errcode {
  HS_OK = 0,
  HS_ERR_PARSE,       /* text that does not parse (line and column set) */
  HS_ERR_UNSUPPORTED, /* valid input this mode or construction cannot take */
  HS_ERR_ARG,         /* an argument out of its range */
  HS_ERR_LIMIT,       /* input past an hs_limits limit or a size the
                         library takes */
  HS_ERR_NOMEM,       /* out of memory */
  HS_ERR_IO,          /* a file could not be read or written */
  HS_ERR_FORMAT,      /* a model file that is not a valid model */
  HS_ERR_ISA          /* an instruction set unknown or not on this CPU */
} hs_errcode;

/* Every fallible call takes an hs_error * as its last argument (NULL: the
 * caller does not want the report) and fills it when it fails: the code,
 * one line naming what and where, such as "expected ')' at column 7", the
 * 1-based column (0 when no column applies) and the 1-based line of a
 * program of several lines (0 for a one-line formula). */
/* Which input limit (hs_limits) an input passed (hs_error.limit), for a
 * caller that tells its user how to raise it; the message names it too,
 * as "(limit max_depth)". */
typedef enum hs_limit_id {
  HS_LIMIT_NONE = 0, /* no limit, or one no hs_limits field raises */
  HS_LIMIT_MAX_FORMULA_LEN,
  HS_LIMIT_MAX_DEPTH,
  HS_LIMIT_MAX_HEADER_MIB,
  HS_LIMIT_MAX_TENSORS
} hs_limit_id;

typedef struct hs_error {
  char msg[256];
  int column;
  int line;
  hs_errcode code;
  hs_limit_id limit;
} hs_error;

/* A short fixed description of a code ("out of memory"). */
HS_API const char *hs_strerror(hs_errcode code);

/* ------------------------------------------------------------------ ISAs */

typedef enum hs_isa {
  HS_ISA_SCALAR = 0,
  HS_ISA_AVX2 = 1,   /* AVX2 + FMA, OS saves YMM state */
  HS_ISA_AVX512 = 2, /* AVX-512F, OS saves ZMM/opmask state */
  HS_ISA_WASM128 = 3, /* WebAssembly SIMD128: only in a build compiled with
                         it (emcc -msimd128); never on an x86 build */
  HS_ISA_NEON = 4,    /* AArch64 Advanced SIMD: in every build for aarch64,
                         where every CPU has it; never on an x86 build */
  HS_ISA_COUNT
} hs_isa;

HS_API const char *hs_isa_name(hs_isa isa);
/* Parses an ISA's name (hs_isa_name of one of the values above: "scalar",
 * "avx2", "avx512", "wasm128", "neon"); returns -1 for anything else (a
 * known name this build cannot run still parses). */
HS_API int hs_isa_parse(const char *name);
/* Whether this CPU and OS can run the ISA (CPUID + XGETBV on x86; wasm128
 * exactly when the library was compiled for SIMD128, since a WebAssembly
 * engine refuses to load a module whose instructions it lacks; neon in
 * every aarch64 build). */
HS_API int hs_isa_supported(hs_isa isa);
/* The best supported ISA. */
HS_API hs_isa hs_isa_best(void);
/* CPU brand string into buf (at least 49 bytes). */
HS_API void hs_cpu_brand(char *buf, size_t len);

/* --------------------------------------------------------------- kernels */

/* The table of kernels one ISA runs (its layout, the kernel types and their
 * contracts are in the advanced header <hardsoft/kernels.h>, for the
 * benchmarks and tests that call kernels directly). */
typedef struct hs_kernels hs_kernels;

/* The widest query/key (dk) and value (dv) of an attention head the
 * kernels take; model files with wider heads are refused. */
#define HS_ATTN_MAX_D 64

/* The kernel table of one ISA, or NULL when this CPU cannot run it. Ops
 * without a kernel for that ISA fall back to the scalar one. */
HS_API const hs_kernels *hs_kernels_for(hs_isa isa);

/* The process-wide table, chosen once: HARDSOFT_ISA if set, else the best
 * supported ISA. Returns NULL with err filled (HS_ERR_ISA) when
 * HARDSOFT_ISA names an unknown or unsupported ISA. */
HS_API const hs_kernels *hs_kernels_default(hs_error *err);

/* ------------------------------------------------------------ limits */

/* What hostile input may cost. Every limit has a default, can be raised
 * (the CLI options in brackets), and is reported in one line when
 * exceeded. Set them before parsing or loading; not thread-safe. */
typedef struct hs_limits {
  size_t max_formula_len; /* bytes of formula text (16 MiB) [--max-formula-len] */
  int max_depth;          /* parser nesting levels (10000) [--max-depth]; the
                             recursive walks need about 4 KiB of stack per
                             level, so the CLI runs on a thread whose stack
                             is sized for the limit */
  size_t max_header;      /* model file JSON header bytes (64 MiB) [--max-header-mib] */
  size_t max_tensors;     /* tensors in a model file (65536) [--max-tensors] */
} hs_limits;

#define HS_DEFAULT_DEPTH 10000
HS_API hs_limits hs_get_limits(void);
HS_API void hs_set_limits(const hs_limits *l);

/* ------------------------------------------------------------ formulas */

/* A formula (a hash-consed DAG; the language is docs/LANGUAGE.md) and a compiled model; both are
 * opaque here (src/lang/ltl/formula.h and src/model/model.h hold their layout). */
typedef struct hs_formula hs_formula;
typedef struct hs_model hs_model;

/* Parse; NULL on error (err filled). */
HS_API hs_formula *hs_formula_parse(const char *text, hs_error *err);
HS_API void hs_formula_free(hs_formula *f);
/* The text the formula was parsed from (owned by the formula). */
HS_API const char *hs_formula_text(const hs_formula *f);
/* The root's index, for hs_truth_eval. */
HS_API int32_t hs_formula_root(const hs_formula *f);
/* Bytes that some atom names: set[b] = 1. */
HS_API void hs_formula_alphabet(const hs_formula *f, uint8_t set[256]);
/* Ground truth: the value of node `id` (hs_formula_root for the formula)
 * at positions 1..n of w, into out[0..n) as 0/1. Linear time per
 * operator. Returns 0, or -1 with err filled (out of memory, no such
 * node). */
HS_API int hs_truth_eval(const hs_formula *f, int32_t id, const uint8_t *w, size_t n,
                         uint8_t *out, hs_error *err);

/* ------------------------------------------------------------ models */

typedef enum hs_mode { HS_MODE_HARD, HS_MODE_PE, HS_MODE_TEMP, HS_MODE_FIXED,
                       HS_MODE_REL, HS_MODE_COUNT_ } hs_mode;

HS_API const char *hs_mode_name(hs_mode m); /* "hard", "pe", "temp", "fixed", "rel" */
HS_API int hs_mode_parse(const char *s);   /* -1 if unknown */

/* How counting comparisons get their exact sign: layer normalization of
 * [u, -u] with epsilon 0 (exact in every mode), or softmax between BOS and
 * the other keys at tau(n) = 1/(mu n ln(n+1)) (hard mode: unique hard
 * attention; exact for every n once mu > 12). */
typedef enum hs_sign { HS_SIGN_LAYERNORM, HS_SIGN_TEMP } hs_sign;

typedef struct hs_compile_opts {
  hs_mode mode;
  double scale; /* mu > 0; ignored by hard */
  hs_sign sign; /* counting comparisons only */
} hs_compile_opts;

/* Compile the formula's root; NULL with err filled (e.g. HS_ERR_UNSUPPORTED
 * "comparisons mixing #< and #> are not available in mode fixed: ...").
 * Programs in any language: hs_program_compile. */
HS_API hs_model *hs_compile(const hs_formula *f, const hs_compile_opts *o,
                            hs_error *err);

/* The construction's attention-error bound at length n for a mode and
 * scale mu: the largest weight any of its heads may put off its hard
 * target. 0 in hard mode; 1 (no bound) when mu is not positive. */
HS_API double hs_bound_at(hs_mode mode, double scale, size_t n);
/* The largest n at which a mode's attention heads (the since/until heads
 * of the construction) are proven exact at scale mu: floor(mu / ln 7) in
 * fixed mode, INFINITY in hard mode and in pe, temp and rel once
 * mu >= ln 7, else 0. A model's counting signs may need more (its
 * smallest exact mu, hs_model_info.min_scale). */
HS_API double hs_mode_exact_max_n(hs_mode mode, double scale);
/* For a compiled model, including its counting signs: the bound that
 * holds at every length up to n. */
HS_API double hs_model_bound_at(const hs_model *m, size_t n);

typedef enum hs_precision { HS_PREC_F32, HS_PREC_F64 } hs_precision;

/* Scores (q . k, before dividing by tau) rounded to nearest even in a
 * narrower format, to see where float16 / bfloat16 score storage breaks a
 * construction. The rest stays in the working precision; this path is
 * scalar and slow, for the precision-boundary experiment only. */
typedef enum hs_score_round { HS_ROUND_NONE, HS_ROUND_F16, HS_ROUND_BF16 } hs_score_round;

/* The precisions of the boundary experiment by name: "f64", "f32",
 * "f16s" / "bf16s" (scores rounded: hs_run_opts.score_round) and
 * "f16" / "bf16" (queries, keys and values stored in that format:
 * hs_run_opts.qkv_round). Returns 0 and fills the three, or -1 for an
 * unknown name. */
HS_API int hs_precision_parse(const char *name, hs_precision *prec,
                              hs_score_round *score_round, hs_score_round *qkv_round);

/* Exact skipping of key tiles (src/run/skip-impl.h, forward-impl.h).
 * Softmax heads, f32 and f64:
 * ONLINE: the one-pass online kernel (f32/f64_attn_row), nothing skipped.
 * ON: the two-pass kernel (f32/f64_attn_row_2pass) over the visible keys
 * cut into tiles of 64 (aligned to the key index), leaving out every tile
 * whose scores are provably all more than 88 (f32; 709 in f64) below the
 * row max (their weights are exactly +0): the same bits as OFF. OFF: the
 * two-pass kernel over every tile (the reference for ON). AUTO (the
 * default): per head and layer, ON where its cost estimated from the
 * tile bounds of sampled rows (bounds per row plus the kept keys, per
 * ISA) is below ONLINE's, else ONLINE; a head's output is then the bits
 * of the one chosen, the same for every thread count. AUTO also takes
 * heads whose keys take at most four distinct vectors by exact prefix
 * sums per group in O(n) (src/run/prefix-impl.h): uniform heads (every
 * key scoring the same: the counts, softmax or average-hard) with the
 * kernels' bits while their sums are exact in the working precision
 * (below 2^24 keys in f32), closer past it; softmax heads of 2-4 key
 * values (BOS-weighted counts, --sign temp's signs) within a few
 * roundings of the kernel's values. Hard heads whose scores are
 * exact (integer weights and features, as compiled): AUTO and ON skip
 * tiles that cannot hold the chosen key(s), OFF and ONLINE scan every key;
 * the same bits either way. Relative-position heads skip the same way
 * (f32: f32_attn_row_2pass_bias, the bias in every bound); rows with
 * rounded scores (f16s, bf16s) and f64 relative-position rows, which have
 * one scalar row each, skip under ON and AUTO and are dense under OFF and
 * ONLINE, the same bits. Rows whose gap statistics are wanted (want_gaps)
 * ignore the option. */
typedef enum hs_skip { HS_SKIP_AUTO = 0, HS_SKIP_ON = 1, HS_SKIP_OFF = 2,
                       HS_SKIP_ONLINE = 3 } hs_skip;

typedef struct hs_run_opts {
  hs_precision precision;
  const hs_kernels *kernels; /* NULL: hs_kernels_default */
  int want_attn_error;       /* fill attn_error[] (a second pass over the keys
                                each row read; none for prefix-sum heads) */
  int last_only;             /* only position n's output is needed (its bit
                                and value; the others are left 0) */
  int edges_only;            /* only positions 1, 2, 3, n-2, n-1, n are needed */
  hs_score_round score_round; /* emulate scores held in a narrower type */
  int keep_layers;           /* fill layers[] (n+1)*d doubles per layer */
  int want_gaps;             /* fill head_stats[] for the hard heads */
  int threads;               /* rows split among this many threads (0, 1:
                                none); the output is the same bits for
                                every count */
  hs_skip skip;              /* exact tile skipping (default AUTO) */
  int attn_tile;             /* f32 softmax heads, online (every mask):
                                1 = 4 rows per f32_attn_tile call, -1 = one
                                row per f32_attn_row call, 0 = the default;
                                the same bits either way */
  hs_score_round qkv_round;  /* queries, keys and values stored in f16 /
                                bf16 (rounded to nearest even as each
                                projection is written; products, softmax
                                and sums stay in the working precision):
                                what inference engines do with their
                                attention inputs */
  /* Called now and then during the pass (after each chunk of 32 rows of a
   * layer, and at the end of every layer) with the rows done and the rows
   * to do in all, counting every layer's n + 1 rows; always from the
   * thread that called hs_runner_run / hs_forward, never concurrently.
   * It sees the run's progress only: results are the same bits with or
   * without it. NULL: none. */
  void (*progress)(void *ctx, uint64_t done, uint64_t total);
  void *progress_ctx;
  int phases;                /* fill hs_run_result.phase_s (costs a clock
                                read per phase change and per sampled row;
                                the same bits either way) */
} hs_run_opts;

/* Scores of one hard head over every query of a run (BOS included). */
typedef struct hs_head_stats {
  double gap;    /* smallest (maximal - best non-maximal score); INFINITY
                    when no query saw two distinct scores */
  int tied;      /* some query had two or more maximal positions */
  int nonuniform; /* some query saw two distinct scores */
} hs_head_stats;

/* The phases of a forward pass (hs_run_result.phase_s):
 *   GEMM    projections, W_o and the feed-forward products;
 *   BOUNDS  the bounds trees of skipping heads and auto's choice;
 *   SEARCH  a skipping row's bound search and tree walk (hard rows that
 *           skip: the whole row);
 *   ATTN    the attention kernels and the rows' normalisation;
 *   FINISH  embedding, biases, layer norm, ReLU, residual adds, buffers
 *           and outputs;
 *   WAIT    a thread idle while others work (serial phases, imbalance);
 *   PREFIX  the prefix sums of uniform heads (skip AUTO: heads whose scores
 *           are equal for every key, the counts) and their rows' means. */
typedef enum hs_phase { HS_PHASE_GEMM, HS_PHASE_BOUNDS, HS_PHASE_SEARCH,
                        HS_PHASE_ATTN, HS_PHASE_FINISH, HS_PHASE_WAIT,
                        HS_PHASE_PREFIX, HS_PHASE_COUNT } hs_phase;

typedef struct hs_run_result {
  uint8_t *bits;      /* [n]: decision at positions 1..n */
  double *values;     /* [n]: the output coordinate at positions 1..n */
  double *attn_error; /* [nlayers]: max weight off the hard target, or NULL */
  size_t peak_bytes;  /* most bytes the pass held at once: weights in the
                         working precision, the residual stream and every
                         head's queries, keys and values (accounted) */
  double *layers;     /* keep_layers: [nlayers][n+1][d], after each layer */
  hs_head_stats *head_stats; /* want_gaps: [heads, layer by layer] */
  uint64_t tiles_total;   /* key tiles (segments) of every softmax row on
                             the two-pass kernel (skip ON / OFF) and every
                             hard row that skipped, summed over heads and
                             rows */
  uint64_t tiles_skipped; /* of those, left out (skip ON; hard rows: never
                             given to a kernel) */
  /* hs_run_opts.phases: seconds of the pass by phase (hs_phase), each the
   * mean over the hs_run_opts.threads threads, so that they add up to the
   * pass's wall time; search and attention are split by timing a sample
   * of the rows (one in 32), the other phases are timed whole. */
  double phase_s[HS_PHASE_COUNT];
  /* keys given to the softmax kernels (two-pass, online and tile rows;
   * not hard rows nor rounded-score rows), summed over heads and rows, and
   * the runs of consecutive keys they came in: one per kept segment of a
   * two-pass row, one per online or tile row. Their ratio is the mean run
   * a kernel call gets, which sets how full its vectors are. */
  uint64_t attn_keys, attn_segments;
} hs_run_result;

/* Forward pass over w[0..n) with the options o (NULL: f32 and the
 * defaults). Returns 0, or -1 with err filled (allocation failure, a
 * string too long). res fields are allocated by the call; free
 * with hs_run_result_free. */
HS_API int hs_forward(const hs_model *m, const uint8_t *w, size_t n,
                      const hs_run_opts *o, hs_run_result *res, hs_error *err);
HS_API void hs_run_result_free(hs_run_result *r);

/* A model prepared for repeated runs (weights converted once). The model
 * must outlive the runner. With threads > 1 the runner keeps threads - 1
 * idle worker threads between runs (ended by hs_runner_free); a runner
 * runs one string at a time. */
typedef struct hs_runner hs_runner;
HS_API hs_runner *hs_runner_new(const hs_model *m, const hs_run_opts *o,
                                hs_error *err);
HS_API int hs_runner_run(hs_runner *r, const uint8_t *w, size_t n, hs_run_result *res,
                         hs_error *err);
HS_API void hs_runner_free(hs_runner *r);

/* count strings w[k][0..len[k]) through the model with the options o
 * (NULL: f32 and the defaults), its weights converted once: string k's
 * decisions and output values at positions 1..len[k] go to
 * bits[off_k ...] and values[off_k ...], off_k = len[0] + ... + len[k-1]
 * (each may be NULL; room for the sum of len). The same answers as
 * hs_forward on each string. 0, or -1 with err filled (naming the string's
 * index). Calls on one model from several threads at once are safe: the
 * model is only read. */
HS_API int hs_forward_batch(const hs_model *m, size_t count, const uint8_t *const *w,
                     const size_t *len, const hs_run_opts *o, uint8_t *bits,
                     double *values, hs_error *err);

/* ------------------------------------- model metadata and attention */

/* For callers that cannot read struct hs_model (the Python package's
 * ctypes layer): the model's shape and metadata. The strings point into
 * the model (valid while it lives); mode is "custom" when the model has
 * none, formula NULL when it was not compiled from one. */
typedef struct hs_model_info {
  int32_t d, nlayers, nheads, out_coord;
  double scale;     /* mu */
  double bound;     /* worst attention error the construction allows */
  double min_scale; /* smallest exact mu (0: any, < 0: depends on n) */
  const char *mode;
  const char *formula;
} hs_model_info;
HS_API void hs_model_get_info(const hs_model *m, hs_model_info *info);
/* The model's mode as its file names it, or NULL when it has none
 * (hs_model_info.mode says "custom" then). */
HS_API const char *hs_model_mode(const hs_model *m);
/* The construction's error bound in words ("weight off target <= ..."),
 * or NULL. */
HS_API const char *hs_model_bound_desc(const hs_model *m);
/* Where the model's answer is proven, also in finite precision, in words,
 * or NULL (hard mode, models from elsewhere). */
HS_API const char *hs_model_exact_region(const hs_model *m);
/* The largest n at which the model's counting comparisons are exact in a
 * forward pass of `bits` significand bits (24: f32, 53: f64): derived
 * from what the pass computes (each count's fraction and each product
 * rounded, summed in any order) against the sign's half-unit margin, per
 * sign method (src/model/region.c). 0 when not even n = 1 is; INFINITY
 * without comparisons. Read from the weights, so it holds for loaded
 * models too. */
HS_API double hs_model_count_max_n(const hs_model *m, int bits);
/* Why m's answer on a string of n symbols in precision prec is not
 * proven, in one line written into buf as snprintf does (returning its
 * length; 0, and buf = "", when it is proven): mu below the smallest
 * exact mu, mode fixed past n = mu / ln 7, counting comparisons past
 * hs_model_count_max_n, or absolute positions past 2^23 in f32. Nothing
 * for a model without a mode (made by hand). What the command line, the
 * Python package and the playground warn with. */
HS_API size_t hs_model_unproven(const hs_model *m, size_t n, hs_precision prec, char *buf,
                                size_t len);
/* A string of n symbols on which one of m's counting comparisons ties:
 * its integer sum c_t #_t + c is 0 (or the integer next to it), where
 * only the sign's half-unit margin decides, at the last position (counts
 * over the past) or the first (over the future), and again at the end of
 * every period before: the counts in the ratio of the coefficients
 * (p*#<(a) against q*#<(b): (a^q b^p)*, after a prefix that meets the
 * constant and symbols no count reads). k = 0, 1, ... picks the family;
 * into out[0..n). 1, or 0 when m has no k-th family (each family's
 * counts must read sets of embedded symbols, all over the past or all
 * over the future) or n is too short for it. What hardsoft check and
 * boundary add to their strings. */
HS_API int hs_model_tie_string(const hs_model *m, int k, size_t n, uint8_t *out);
/* The name of coordinate k of the residual stream, or NULL (no names, or
 * k out of range). */
HS_API const char *hs_model_coord_name(const hs_model *m, int k);
/* Tokens of the vocabulary saved in the model (0: it reads bytes). */
HS_API int hs_model_vocab_size(const hs_model *m);
/* Token k's text (NULL when k is out of range; valid while the model
 * lives) and the byte the model reads for it (-1 when out of range). */
HS_API const char *hs_model_vocab_token(const hs_model *m, int k);
HS_API int hs_model_vocab_byte(const hs_model *m, int k);
/* ReLU units of layer `layer`'s feed-forward block, or -1 when there is
 * no such layer. */
HS_API int hs_model_layer_hidden(const hs_model *m, int layer);
/* Whitespace-separated tokens of line[0..len) as the model's bytes into
 * out (room for len): a token of the vocabulary is its byte, any other a
 * byte no token uses; without a vocabulary a one-byte token is its byte.
 * Returns how many. Reads every unknown token as `other` without a word:
 * hs_model_encode is the call that refuses them. */
HS_API size_t hs_model_tokenize(const hs_model *m, const char *line, size_t len,
                                uint8_t *out);
/* What an input token the vocabulary does not name becomes
 * (hs_model_encode, hs_program_encode): an error (the default), or, when
 * the caller asks for it, `other`: a byte no token uses, on which every
 * atom is false. */
typedef enum hs_unknown { HS_UNKNOWN_ERROR = 0, HS_UNKNOWN_OTHER = 1 } hs_unknown;
/* hs_model_tokenize that refuses what it does not know: the tokens of
 * line[0..len) as bytes into out (room for len), their count in *n. A
 * token the vocabulary does not name (without a vocabulary: a token
 * longer than one byte) is an error (HS_ERR_PARSE, err->column its byte
 * offset + 1) naming it, its index and the vocabulary, and the known
 * tokens it is made of when it is several run together; with
 * HS_UNKNOWN_OTHER it is read as hs_model_other_byte. 0, or -1 with err
 * filled. */
HS_API int hs_model_encode(const hs_model *m, const char *line, size_t len,
                           hs_unknown unknown, uint8_t *out, size_t *n, hs_error *err);
/* The bytes the model tells apart from a byte nothing names: set[b] = 1
 * for its vocabulary's bytes, or, without a vocabulary, for the bytes
 * whose embedding has more than the columns every byte shares (a
 * formula's atoms). */
HS_API void hs_model_alphabet(const hs_model *m, uint8_t set[256]);
/* The byte an unknown token becomes: the highest byte not in
 * hs_model_alphabet (0 when every byte is in it). */
HS_API int hs_model_other_byte(const hs_model *m);
/* Heads of layer `layer`, or -1 when there is no such layer. */
HS_API int hs_model_layer_nheads(const hs_model *m, int layer);
/* One head's description; names as in model files ("softmax",
 * "hard_left", ...; masks "le", "lt", "ge", "gt", "none"; tau laws
 * "const", "inv_n", "inv_nlogn"); desc may be NULL. 0, or -1 (info
 * zeroed) when the layer or head does not exist. */
typedef struct hs_head_info {
  const char *kind, *target, *mask, *tau_law, *desc;
  double tau_c, bias_slope;
  int32_t dk, dv;
} hs_head_info;
HS_API int hs_model_head_info(const hs_model *m, int layer, int head,
                              hs_head_info *info);
/* The description `hardsoft compile --print` prints (formula, mode,
 * layers, heads, bound, coordinates), written into buf as snprintf does:
 * returns its full length in bytes (without the terminating NUL), and
 * writes at most len - 1 of them plus a NUL (nothing when len is 0, buf
 * may then be NULL). src/model/describe.c. */
HS_API size_t hs_model_describe(const hs_model *m, char *buf, size_t len);

/* The attention weights of every head of layer `layer` over the string
 * w[0..n), for pictures and inspection (src/run/attention.c). The model
 * runs with the options o (precision, kernels, threads; NULL: f32 and
 * the defaults) keeping its residual stream after every layer; the
 * weights are then recomputed in double from the stream entering the
 * layer, exactly as the head's law defines them (scores q_i . k_j, for
 * softmax heads divided by tau(n) plus the relative bias, over the keys
 * the mask shows plus BOS, softmax; hard heads: their hard choice).
 * Outputs, row-major, queries i = 0..n (0 = BOS), keys j = 0..n:
 *   weights [nheads][n+1][n+1]  the weights the head uses (0 off its mask)
 *   hard    [nheads][n+1][n+1]  or NULL: the hard attention the head is
 *           or stands in for (1 on the chosen key, 1/m on each of m
 *           maximal keys for hard_avg; all 0 in the rows of a softmax
 *           head with no hard counterpart)
 *   target  [nheads][n+1]       or NULL: the key the hard attention puts
 *           all its weight on, or -1 when it spreads it over several
 *           keys (hard_avg with ties) or the head has no hard counterpart
 * It takes O(n^2) memory per head and runs the model once per call: meant
 * for small n. n may be at most HS_ATTENTION_MAX_N. Returns 0, or -1
 * with err filled (no such layer, n too long, out of memory). */
#define HS_ATTENTION_MAX_N 4096
HS_API int hs_attention(const hs_model *m, const uint8_t *w, size_t n,
                        const hs_run_opts *o, int layer, double *weights,
                        double *hard, int32_t *target, hs_error *err);

/* ------------------------------------------- simulating hard attention */

/* Replacing each hard head of a model by softmax at temperature tau puts,
 * at every query, at most (n+1) e^{-gamma/tau} weight off the maximal
 * positions, where gamma is the smallest gap between a maximal score and
 * a non-maximal one (n + 1 keys at most, each non-maximal one weighing at
 * most e^{-gap/tau} relative to a maximal one). hardsoft measures gamma
 * on the actual inputs (hs_run_opts.want_gaps) and picks
 *     tau = gamma / (mu + ln(n + 1)),
 * so that bound is (n+1) e^{-mu - ln(n+1)} = e^{-mu} per head. Softmax
 * spreads the weight on the maximal positions evenly, like average-hard
 * attention: a unique-hard (leftmost/rightmost) head with tied maxima is
 * therefore NOT simulated (softmax averages the tied maxima), while tied
 * average-hard heads are. src/run/simulate.c. */

/* How a hard head behaved over a set of runs. */
typedef enum hs_head_class {
  HS_HEAD_SOFT,    /* a softmax head: not hard, left as it is */
  HS_HEAD_UNIFORM, /* every query saw all its scores equal (gap infinite):
                      softmax is exactly uniform at any temperature */
  HS_HEAD_TIELESS, /* every query had a unique maximal score */
  HS_HEAD_TIED     /* some query had two or more maximal positions and a
                      lower score too */
} hs_head_class;

HS_API const char *hs_head_class_name(hs_head_class c); /* "softmax", "uniform", ... */
/* Number of heads of a model (the length of hs_run_result.head_stats). */
HS_API int hs_model_nheads(const hs_model *m);
/* Statistics over several runs: init sets nheads entries to (gap INFINITY,
 * untied, uniform); merge folds one run's head_stats into acc (smallest
 * gap, ties and non-uniformity or-ed). */
HS_API void hs_head_stats_init(hs_head_stats *acc, int nheads);
HS_API void hs_head_stats_merge(hs_head_stats *acc, const hs_head_stats *run,
                                int nheads);
/* Head h (counted over all layers, as head_stats is). */
HS_API hs_head_class hs_head_classify(const hs_model *m, int h,
                                      const hs_head_stats *st);
/* 1 when head h is unique-hard (leftmost/rightmost) and was tied: softmax
 * would average its tied maxima, so it is not simulable. */
HS_API int hs_head_tied_unique(const hs_model *m, int h, const hs_head_stats *st);
/* gamma: the smallest gap over the hard heads of m (INFINITY when no hard
 * head ever saw two distinct scores). */
HS_API double hs_sim_gamma(const hs_model *m, const hs_head_stats *st);
/* tau = gamma / (mu + ln(n + 1)); 1 when gamma is infinite (any tau is
 * exact then). 0 when gamma or mu is not positive, or the result is not a
 * positive finite number. */
HS_API double hs_sim_tau(double gamma, double mu, size_t n);
/* A copy of `hard` whose unique-hard heads that were tied (st, measured on
 * `hard`) get a position term that makes each maximum unique, with the
 * same choice, gap >= gamma / (2n) (the law is at the top of
 * src/run/simulate.c); *broken counts them. NULL with err filled on failure. */
HS_API hs_model *hs_sim_break_ties(const hs_model *hard, const hs_head_stats *st,
                                   int *broken, hs_error *err);
/* A deep copy of `hard` in which every hard head is softmax at the
 * constant temperature tau (target = its old kind, so attention error is
 * measured against it); softmax heads are kept as they are. NULL with err
 * filled when tau is not positive and finite, or out of memory. */
HS_API hs_model *hs_simulate_soft_model(const hs_model *hard, double tau, hs_error *err);

typedef struct hs_sim_opts {
  double scale;  /* mu > 0: the bound per head is e^{-mu} */
  double gamma;  /* > 0: use this gap instead of the measured one; 0: measure */
  hs_precision precision;
  const hs_kernels *kernels; /* NULL: hs_kernels_default */
  /* Called after each forward pass with the passes done and to do: three
   * per string (hard for gamma, hard and softmax side by side), four when
   * ties were broken (the total grows when that is known). From the
   * calling thread; results are the same without it. NULL: none. */
  void (*progress)(void *ctx, uint64_t done, uint64_t total);
  void *progress_ctx;
} hs_sim_opts;

typedef struct hs_sim_result {
  size_t strings, positions, agree; /* decisions at positions 1..n */
  size_t n;                /* the longest input */
  double gamma_before;     /* measured on the model as given */
  int ties_broken;         /* unique-hard heads that were tied and got the
                              position term (src/run/simulate.c) */
  hs_head_stats *heads_before; /* [nheads], the model as given */
  double gamma_measured;   /* over every hard head, query and string, after
                              the ties were broken */
  double gamma, tau;       /* used (gamma: --gamma or measured) */
  double bound;            /* (n+1) e^{-gamma_measured/tau}: e^{-mu} when
                              gamma is measured, 0 when it is infinite */
  double attn_error;       /* largest weight the softmax run put off a
                              head's hard target (any head, query, string) */
  int nheads;
  hs_head_stats *heads;    /* [nheads], merged over the strings */
  int nlayers;
  double *deviation;       /* [nlayers]: max |soft - hard| of the residual
                              stream after each layer, positions 0..n,
                              every coordinate, every string */
  size_t bad_string, bad_pos; /* first disagreement (string index,
                              position 1..n); valid when agree < positions */
} hs_sim_result;

/* Simulate `hard` over strings w[0..count) of lengths len[]: run it with
 * want_gaps to measure gamma, pick tau, build the softmax model, run both
 * with keep_layers and compare. 0, or -1 with err filled. Free res with
 * hs_sim_result_free. */
HS_API int hs_simulate(const hs_model *hard, size_t count, const uint8_t *const *w,
                       const size_t *len, const hs_sim_opts *o, hs_sim_result *res,
                       hs_error *err);
HS_API void hs_sim_result_free(hs_sim_result *r);

HS_API void hs_model_free(hs_model *m);
/* Bytes a forward pass over n symbols needs at its peak (the accounting
 * of hs_run_result.peak_bytes, before running), or SIZE_MAX when that
 * does not fit in size_t. */
HS_API size_t hs_model_run_bytes(const hs_model *m, size_t n, hs_precision prec,
                                 int threads);
/* Predicted running time of a forward pass (src/run/estimate.c). A
 * calibration times real passes of m with the given options over strings
 * of N and 2N symbols, N = 256, 512, ... (each the best of two runs),
 * until the longer takes 20 ms and at least 3 times the shorter (the
 * O(n^2) attention showing), or 0.2 s, or 4N passes max(512, n_target / 16),
 * or the calibration has taken 0.5 s, or N = 65536 (so calibrating costs
 * a fraction of the run predicted);
 * it fits t(n) = per_pos n + per_pair n^2 through the last two points
 * (per_pair = 0 when no layer scores all rows against all keys, e.g. a
 * one-layer model with last_only, or when the longer run took less than
 * 2.3 times the shorter: a linear pass plus noise; a ratio below 3.5
 * is checked against a third length, 4N, whose pair then decides).
 * Passes are timed in process CPU seconds divided by the threads: the
 * prediction is the time on free cores, and a machine busy with other
 * work takes longer in wall time. It is an order of magnitude, not a
 * promise: it assumes the cost per pair of positions stays what it was
 * near N, which exact tile skipping (pe, temp, fixed at large n) and the
 * string's content change (long runs of one symbol skip more tiles than
 * the calibration's mixed string), and timings move with what shares the
 * cores. Measured on the development machine (2 shared cores, busy):
 * eval of a depth-3 formula at n = 65536 on one thread, hard, temp and
 * rel, predicted 2 s against 1.3 to 1.7 s of CPU time; boundary searches
 * over single-symbol strings predicted 2 to 9 times their CPU time, the
 * prediction of one command varying up to 5 times between calls
 * (docs/CLI.md, "Long runs"). */
typedef struct hs_run_cost { double per_pos, per_pair; size_t calib_n; } hs_run_cost;
/* 0, or -1 with err filled (out of memory). o->progress is not called. */
HS_API int hs_run_cost_measure(const hs_model *m, const hs_run_opts *o, size_t n_target,
                               hs_run_cost *cost, hs_error *err);
/* Seconds predicted for one pass over n symbols. */
HS_API double hs_run_cost_at(const hs_run_cost *cost, size_t n);
/* Both at once: calibrates (every call) and predicts; a negative value
 * with err filled when calibration failed. */
HS_API double hs_model_run_seconds(const hs_model *m, size_t n, hs_precision prec,
                                   const hs_kernels *kt, int threads, hs_error *err);

/* Model files (safetensors, the format is docs/MODEL-FORMAT.md). save
 * writes a temporary file and renames it; both return 0 / a model, or
 * -1 / NULL with err filled (naming the tensor or field). */
HS_API int hs_model_save(const hs_model *m, const char *path, hs_error *err);
HS_API hs_model *hs_model_load(const char *path, hs_error *err);
/* The model as one ONNX graph (opset 17) that runs at every length:
 * input "ids" int64 [N] (BOS = 256, then the bytes), output "out" float
 * [N] (the output coordinate; true where > 1/2); docs/ONNX.md describes
 * it. Every mode exports (hard heads by ArgMax / ReduceMax). Written like
 * hs_model_save (temporary file, rename); 0, or -1 with err filled. */
HS_API int hs_model_save_onnx(const hs_model *m, const char *path, hs_error *err);

/* ------------------------------------------------------------ programs */

/* A program in one of the front-end languages (docs/LANGUAGE.md): an LTL
 * formula, a C-RASP program, a B-RASP program or a regular expression.
 * Every language is parsed, interpreted directly (its own ground truth;
 * a regular expression by its minimal automaton) and lowered (a formula
 * to itself, the others straight into the compiler's circuit), which
 * hs_compile turns into a model in any mode. */
typedef enum hs_lang { HS_LANG_LTL, HS_LANG_CRASP, HS_LANG_BRASP, HS_LANG_REGEX } hs_lang;
typedef struct hs_program hs_program;

/* "ltl", "crasp", "brasp", "regex" -> the language; -1 for anything else. */
HS_API int hs_lang_parse(const char *name);
HS_API const char *hs_lang_name(hs_lang lang);
/* By the file name's extension: .cr and .crasp are C-RASP, .brasp B-RASP,
 * .re a regular expression, anything else (or NULL) LTL. */
HS_API hs_lang hs_lang_from_path(const char *path);

/* Parse text[0..len) (need not be NUL-terminated) in lang. NULL on error
 * with err filled: one line naming what and where ("... at line 3, column
 * 7"; err->line 0 for a one-line formula). An LTL program is one formula
 * over bytes (its vocabulary is empty). */
HS_API hs_program *hs_program_parse(const char *text, size_t len, hs_lang lang,
                                    hs_error *err);
/* The first language other than `lang` (LTL, C-RASP, B-RASP in that
 * order) in which text[0..len) parses, else HS_LANG_REGEX for a formula
 * that parses as a regular expression and holds an operator only those
 * have (* + [ { ?), or -1: the hint a parse error in the wrong language
 * gets on every door. */
HS_API int hs_lang_other(const char *text, size_t len, hs_lang lang);
/* What the first bytes of the file at path say it is, for a file given
 * where another kind was wanted: "a model file (safetensors)", "an ONNX
 * graph", "gzip-compressed", "a zip archive (...)", "a NumPy array
 * (.npy)", "a GGUF model (llama.cpp)", "an HDF5 file (...)", "a Python
 * pickle (...)", "text"; NULL when it cannot be read or is none of these.
 * hs_model_load names it in its error for a file that is not a model. */
HS_API const char *hs_file_kind(const char *path);
/* A regular expression over the symbols it names plus those of alphabet
 * (NULL: none; symbols written as in a class without brackets, "abc",
 * "a-z", "\"<p>\" x"), which `.`, [^...] and ~ range over. */
HS_API hs_program *hs_program_parse_regex(const char *text, size_t len,
                                          const char *alphabet, hs_error *err);
/* What the front end found about the program, for people: for a regular
 * expression its alphabet, minimal automaton and transition monoid, its
 * class with a witness a reader can check, and the size of what was built
 * or why nothing was; "" for the other languages. snprintf style: returns
 * the length of the whole text. */
HS_API size_t hs_program_explain(const hs_program *p, char *buf, size_t len);
HS_API void hs_program_free(hs_program *p);
HS_API hs_lang hs_program_lang(const hs_program *p);
/* Compile the program into a model (the caller frees it): an LTL program's
 * formula as hs_compile does, the others from the circuit their front end
 * built when the program was read. NULL with err filled: the lowering's
 * own error (hs_program_lowered) when a C-RASP or B-RASP program parsed
 * but its lowering hit a limit of its own (more comparison cases than it
 * takes, a circuit nested too deeply, coefficients the model's weights
 * cannot hold; the interpreter still runs it, hs_program_truth and
 * hs_program_trace); HS_ERR_UNSUPPORTED for a regular language outside
 * the classes compiled (its class and a witness, one line); or what
 * hs_compile reports. A model of a program with a vocabulary reads token
 * bytes: hs_model_set_vocab gives it the program's tokens. */
HS_API hs_model *hs_program_compile(const hs_program *p, const hs_compile_opts *o,
                                    hs_error *err);
/* 0 when the program has a lowering (hs_program_compile may succeed; a
 * refused regular expression has one), else -1 with err filled: the
 * lowering's own error, naming the statement, line and column. */
HS_API int hs_program_lowered(const hs_program *p, hs_error *err);
/* The program in one line, as a compiled model names its source
 * (hs_model_info.formula): an LTL formula or a regular expression as
 * given, "C-RASP program (3 statements, value x)", "B-RASP program, root
 * y". Owned by the program; NULL when hs_program_lowered fails. */
HS_API const char *hs_program_text(const hs_program *p);
/* set[b] = 1 for each byte some atom of the program's lowering reads, 0
 * for the others (a RASP program's tokens it never tests are not in it). */
HS_API void hs_program_alphabet(const hs_program *p, uint8_t set[256]);
/* The program's value at positions 1..n of w (token bytes, see the
 * vocabulary below) into out[0..n) as 0/1, by the language's own
 * interpreter (hs_truth_eval for LTL), not through the lowering: the
 * ground truth a compiled model is checked against. 0, or -1 with err
 * filled (out of memory). */
HS_API int hs_program_truth(const hs_program *p, const uint8_t *w, size_t n,
                            uint8_t *out, hs_error *err);

/* Trace: the named statements (an LTL formula has one, "formula") and
 * their values at every position, vals[k * n + i] for statement k and
 * position i + 1 (Booleans 0/1, counts as integers). 0, or -1 with err
 * filled. */
HS_API int hs_program_nstmts(const hs_program *p);
HS_API const char *hs_program_stmt_name(const hs_program *p, int k);
HS_API int hs_program_trace(const hs_program *p, const uint8_t *w, size_t n,
                            int64_t *vals, hs_error *err);

/* Vocabulary: the tokens the program names, in the order first named, and
 * the byte the model reads for each (a one-byte token is its own byte,
 * longer ones get bytes from 0x80). Every other input token is read as one
 * byte no token uses. */
HS_API int hs_program_vocab_size(const hs_program *p);
HS_API const char *hs_program_token(const hs_program *p, int k);
HS_API int hs_program_token_byte(const hs_program *p, int k);
/* The byte every token the program does not name is read as (for an LTL
 * formula: a byte no atom names). */
HS_API int hs_program_other_byte(const hs_program *p);
/* The whitespace-separated tokens of line[0..len) as bytes into out
 * (room for len bytes); returns how many. Every unknown token becomes
 * hs_program_other_byte without a word: hs_program_encode refuses them. */
HS_API size_t hs_program_tokenize(const hs_program *p, const char *line, size_t len,
                                  uint8_t *out);
/* hs_model_encode for the program's vocabulary (an LTL formula has none:
 * a one-byte token is itself, a longer one unknown): 0, or -1 with err
 * naming the unknown token. */
HS_API int hs_program_encode(const hs_program *p, const char *line, size_t len,
                             hs_unknown unknown, uint8_t *out, size_t *n, hs_error *err);
/* Give a compiled model the program's vocabulary (saved in its file,
 * used by hardsoft run --tokens). 0, or -1 with err filled. */
HS_API int hs_model_set_vocab(hs_model *m, const hs_program *p, hs_error *err);

#ifdef __cplusplus
}
#endif

#endif /* HARDSOFT_H */
