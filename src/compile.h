/* Formula -> transformer compiler and the forward pass (internal). */
#ifndef HS_COMPILE_H
#define HS_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "formula.h"
#include "model.h"

typedef enum hs_mode { HS_MODE_HARD, HS_MODE_PE, HS_MODE_TEMP, HS_MODE_FIXED,
                       HS_MODE_COUNT_ } hs_mode;

const char *hs_mode_name(hs_mode m); /* "hard", "pe", "temp", "fixed" */
int hs_mode_parse(const char *s);   /* -1 if unknown */

typedef struct hs_compile_opts {
  hs_mode mode;
  double scale; /* mu > 0; ignored by hard */
} hs_compile_opts;

/* Compile the formula's root; NULL with msg filled (e.g. "counting
 * comparisons are not supported yet in mode pe"). */
hs_model *hs_compile(const hs_formula *f, const hs_compile_opts *o, char *msg,
                     size_t len);

/* The construction's attention-error bound at length n for a model (or
 * for a mode and scale): the largest weight any head may put off its hard
 * target. 0 for hard heads. */
double hs_bound_at(const char *mode, double scale, size_t n);

typedef enum hs_precision { HS_PREC_F32, HS_PREC_F64 } hs_precision;

/* Scores (q . k, before dividing by tau) rounded to nearest even in a
 * narrower format, to see where float16 / bfloat16 score storage breaks a
 * construction. The rest stays in the working precision; this path is
 * scalar and slow, for the precision-boundary experiment only. */
typedef enum hs_score_round { HS_ROUND_NONE, HS_ROUND_F16, HS_ROUND_BF16 } hs_score_round;

typedef struct hs_run_opts {
  hs_precision precision;
  const hs_kernels *kernels; /* NULL: hs_kernels_default */
  int want_attn_error;       /* fill attn_error[] (costs a second pass) */
  int last_only;             /* only position n's output is needed (its bit
                                and value; the others are left 0) */
  int edges_only;            /* only positions 1, 2, 3, n-2, n-1, n are needed */
  hs_score_round score_round; /* emulate scores held in a narrower type */
} hs_run_opts;

typedef struct hs_run_result {
  uint8_t *bits;      /* [n]: decision at positions 1..n */
  double *values;     /* [n]: the output coordinate at positions 1..n */
  double *attn_error; /* [nlayers]: max weight off the hard target, or NULL */
  size_t peak_bytes;  /* most bytes the pass held at once: weights in the
                         working precision, the residual stream and every
                         head's queries, keys and values (accounted) */
} hs_run_result;

/* Forward pass over w[0..n). Returns 0, or -1 with msg filled (allocation
 * failure). res fields are allocated by the call; free with
 * hs_run_result_free. */
int hs_forward(const hs_model *m, const uint8_t *w, size_t n,
               const hs_run_opts *o, hs_run_result *res, char *msg,
               size_t len);
void hs_run_result_free(hs_run_result *r);

/* A model prepared for repeated runs (weights converted once). The model
 * must outlive the runner. */
typedef struct hs_runner hs_runner;
hs_runner *hs_runner_new(const hs_model *m, const hs_run_opts *o, char *msg,
                         size_t len);
int hs_runner_run(hs_runner *r, const uint8_t *w, size_t n, hs_run_result *res,
                  char *msg, size_t len);
void hs_runner_free(hs_runner *r);

#endif
