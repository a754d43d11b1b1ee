/* SPDX-License-Identifier: MIT */
/* A layer's rows: the job and part types, a row's keys under its mask.
 * Written once for REAL = float and double; included by forward-impl.h. */

/* Everything one layer's rows need after the queries, keys and values of
 * all its heads exist. A row's attention (every head, in head order) and
 * its feed-forward touch only that row of X, so rows can be split among
 * threads and every thread count gives the same bits. */
typedef struct FN(job) {
  const hs_model *m;
  const hs_layer *L;
  const FN(wts) *w;
  const hs_kernels *kt;
  const hs_run_opts *o;
  REAL *X, **Q, **K, **V;
  size_t n, np, d, nq;
  const size_t *qs;
  int sparse, hbase;
  size_t maxhid;
  size_t ow; /* sum of this layer's dv: one row of attention outputs */
  hs_head_stats *stats; /* this layer's heads, or NULL */
  FN(btree) *const *bt;      /* skip ON / AUTO: per head its bounds tree
                                (FN(bt_make)), or NULL */
  const unsigned char *two_pass; /* per head: rows on the two-pass kernel
                                    (skip ON / OFF, or AUTO's choice) */
  size_t ntiles;             /* key tiles of a row: ceil((n + 2) / 64) */
  uint64_t *tiles_total, *tiles_skipped; /* merged into after the rows */
  uint64_t *attn_keys, *attn_segs;       /* hs_run_result's, likewise */
  /* hs_run_opts.progress: rows done over the whole pass (every thread adds
   * its chunks; part 0, on the calling thread, reports), and their total */
  atomic_uint_fast64_t *prog_done;
  uint64_t prog_total;
  uint64_t *ph; /* hs_run_opts.phases: the parts' work, by phase */
  int demote;   /* FN(proj_range) demotes future heads' keys and values */
  /* per head: its keys' groups and rows' sums when its keys take a few
   * values (prefix-impl.h), else NULL */
  struct FN(few) *const *few;
} FN(job);

/* A part's state of one head that selects by position (select-impl.h):
 * the next row, the next key, the sums so far; on = 0 before the first. */
typedef struct FN(selc) {
  size_t i, j;
  double N[8], D;
  int on;
} FN(selc);

typedef struct FN(part) {
  /* a line of its own: the parts' counters change on every row */
  _Alignas(HS_SPLIT_LINE) const FN(job) *J;
  int k, T;             /* part k of T */
  hs_split *split;      /* the chunks of rows, hs_split (a row's bits do not
                           depend on which part takes it); NULL: one part,
                           which takes them in order from `seq` */
  uint64_t seq;
  double err;
  hs_head_stats *stats; /* private copy, merged after */
  int rc;
  /* skipping rows: the segment lists (HS_SEG_ROWS rows' of FN(seg_cap)
   * each), each head's bounds kept from row to row, counters (merged
   * after), whether DAZ is on in this thread */
  size_t *seg;
  FN(btc) *btc;
  FN(selc) *selc; /* per head, select-impl.h */
  uint64_t total, skipped;
  uint64_t keys, segs; /* hs_run_result.attn_keys, attn_segments */
  int daz;
  hs_phclock clk;   /* hs_run_opts.phases */
  hs_phsample smp;
} FN(part);

/* rows whose segment lists are built before one kernel call takes them
 * all (FN(attend_multi)) */
#define HS_SEG_ROWS 4
/* the size_t's of one row's segment list: at most ntiles segments, and
 * room for the BOS pair FN(rounded_segs) puts first */
static size_t FN(seg_cap)(const FN(job) *J) { return 2 * (J->ntiles + 1); }

/* rows per chunk: the unit of work handed to a thread and of the batched
 * W_o and feed-forward products; small enough that the last chunk handed
 * out (the costliest, for past masks) leaves the threads within ~1.5% of
 * each other at n = 4096 */
#define HS_ROW_CHUNK 32
/* multiply-adds below which a phase without attention runs on one thread:
 * a wake-up of the pool costs about what ~2^15 of them do (measured: a S b
 * n = 4096, 2 threads, 1.15 ms with its feed-forward-only layer and
 * projections on one thread at 2^22, 1.14 ms with them split) */
#define HS_PAR_MIN ((size_t)1 << 15)

/* The cut of FN(bt_row): exp(x) is exactly +0 in every f32 kernel once
 * x <= -88 (skip-impl.h), in every f64 two-pass kernel once x <= -88
 * (HS_F64_SKIP_CUT); the extra 1e-4 covers the rounding of the double
 * comparison m_lo - U > cut. */
#if REAL_F32
#define SKIP_CUT 88.0001
#else
#define SKIP_CUT (HS_F64_SKIP_CUT + 1e-4)
#endif

/* hs_run_opts.phases: a row's search is timed when the row is sampled
 * (hs_ph_sampled); search_begin returns its start (0: not timed). */
static inline uint64_t FN(search_begin)(FN(part) *p, size_t i) {
  if (!p->clk.on) return 0;
  p->smp.rows++;
  return hs_ph_sampled(i) ? hs_ticks() : 0;
}

/* The ticks two clock reads around nothing take: the least of a few
 * pairs, once per process. A row's search (10-30 ns) is about as long as
 * one clock read (measured ~8 ns, 16-22 ticks, on an Intel Xeon family 6
 * model 167), so the sampled rows' time less this is the search's; with
 * the pair's time kept in, the search phase read up to 40% high. */
static uint64_t FN(search_clock_cost)(void) {
  static _Atomic uint64_t cost = UINT64_MAX;
  uint64_t c = atomic_load_explicit(&cost, memory_order_relaxed);
  if (c != UINT64_MAX) return c;
  for (int k = 0; k < 32; k++) {
    uint64_t t0 = hs_ticks(), d = hs_ticks() - t0;
    if (d < c) c = d;
  }
  atomic_store_explicit(&cost, c, memory_order_relaxed);
  return c;
}

static inline void FN(search_end)(FN(part) *p, uint64_t t0) {
  if (!t0) return;
  uint64_t d = hs_ticks() - t0, c = FN(search_clock_cost)();
  p->smp.ticks += d > c ? d - c : 0;
  p->smp.sampled++;
}

/* 1 / tau of head H at string length n. */
static REAL FN(head_inv_tau)(const hs_head *H, size_t n) {
  double nn = (double)(n ? n : 1), tau = H->tau_c;
  if (H->tau_law == HS_TAU_INV_N) tau = H->tau_c / nn;
  if (H->tau_law == HS_TAU_INV_NLOGN) tau = H->tau_c / (nn * log(nn + 1));
  return (REAL)(1.0 / tau);
}

/* Keys lo..hi of row i under H's mask (empty when lo > hi), plus BOS. */
static void FN(head_range)(const hs_head *H, size_t i, size_t n, size_t *lo_,
                           size_t *hi_) {
  size_t lo = 1, hi = n;
  switch (H->mask) {
    case HS_MASK_LE: hi = i; break;
    case HS_MASK_LT: hi = i - 1; break; /* i = 0: wraps, lo > hi */
    case HS_MASK_GE: lo = i > 1 ? i : 1; break;
    case HS_MASK_GT: lo = i + 1; break;
    default: break;
  }
  if (i == 0 && H->mask == HS_MASK_LT) hi = 0;
  *lo_ = lo;
  *hi_ = hi;
}

/* The cut of rounded rows (FN(rounded_row)): there a weight is
 * (REAL)exp((double)(s - m)), exactly +0 in float once s - m <= -105
 * (e^-105 < 2^-150, half the smallest subnormal) and in double once
 * s - m <= -746 (e^-746 < 2^-1075); the extra 1e-4 as for SKIP_CUT. */
#if REAL_F32
#define ROUNDED_CUT 105.0001
#else
#define ROUNDED_CUT 746.0001
#endif

/* Row i's visible keys of head h as one range [*a, *b]: [0, hi] for past
 * masks, [lo, n + 1] (the BOS copy last) for future ones. */
static int FN(key_span)(const FN(job) *J, const hs_head *H, size_t lo, size_t hi,
                        size_t *a, size_t *b) {
  int past = H->mask == HS_MASK_LE || H->mask == HS_MASK_LT || H->mask == HS_MASK_NONE;
  *a = past ? 0 : (lo <= J->n ? lo : J->np);
  *b = past ? (lo <= hi ? hi : 0) : J->np;
  return past;
}
