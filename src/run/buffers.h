/* SPDX-License-Identifier: MIT */
/* The run layer's buffers and the padded width of a head's queries and
 * keys, shared by both precisions' passes. */
#ifndef HS_RUN_BUFFERS_H
#define HS_RUN_BUFFERS_H

#include <stdlib.h>
#ifdef __linux__
#include <sys/mman.h> /* madvise: the includer defines _DEFAULT_SOURCE */
#endif

#include "model/model.h"

/* The width a head's queries and keys are stored and scored with: a
 * softmax head's dk of 3 is padded to 4 and 5..7 to 8, the extra rows of
 * W_q and W_k zero, so every such head takes the kernels' contiguous
 * fast paths (dk in {1, 2, 4, 8}: plain loads and lane sums instead of
 * masked 4-float chunks). The extra terms are 0 * 0 = +0, which leave
 * every score's value as it is up to the order of the sum. Profiled: the
 * depth-4 formula's two dk = 3 heads took over half its time. */
static inline size_t hs_dkp(const hs_head *H) {
  if (H->kind != HS_ATTN_SOFTMAX) return (size_t)H->dk;
  if (H->dk == 3) return 4;
  if (H->dk > 4 && H->dk < 8) return 8;
  return (size_t)H->dk;
}

/* A buffer of `bytes` for the pass (free() releases it): from 4 MiB on,
 * aligned to 2 MiB and advised to the kernel as huge pages, where it has
 * them (Linux, transparent huge pages on madvise): a long string's
 * buffers are touched first by the pass, and faulting them in 4 KiB
 * pages took a fifth of a pass at n = 2^20 (perf: page faults, zeroing,
 * the page allocator), against a few percent at 2^16. (NumPy advises its
 * arrays of 4 MiB and more alike.) On a machine short of free huge pages
 * the kernel may compact memory at the first touch instead: measured on
 * the busy development machine, system time per pass varied by up to 2x
 * between runs either way. */
static inline void *hs_big_alloc(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const size_t huge = (size_t)1 << 21;
  if (bytes >= 2 * huge) {
    size_t sz = (bytes + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, sz);
    if (p) madvise(p, sz, MADV_HUGEPAGE);
    return p;
  }
#endif
  return malloc(bytes ? bytes : 1);
}

/* *p holding at least `bytes` (*cap: what it holds): kept when it does,
 * else replaced. A buffer reused from layer to layer keeps its pages: a
 * fresh one of a long string is page faults and zeroing on first touch
 * (a fifth of a 4-layer pass at n = 2^20, perf). 0, or -1 out of memory. */
static inline int hs_reserve(void **p, size_t *cap, size_t bytes) {
  if (*p && bytes <= *cap) return 0;
  free(*p);
  *p = hs_big_alloc(bytes);
  *cap = *p ? bytes : 0;
  return *p ? 0 : -1;
}
#endif
