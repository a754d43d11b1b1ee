/* SPDX-License-Identifier: MIT */
/* f32_vexp on every float, checked against exp in double.
 *
 * With HARDSOFT_EXHAUSTIVE=1 (make check-exhaustive) the test is
 * test_every_float: EVERY float in [-87.34, 0] and in [0, 88.73] (about
 * 2.2e9 values, the whole range where exp is a normal float, plus the
 * cutoffs' neighbourhoods), on every ISA, a few minutes. make check runs
 * test_sampled instead, which is not exhaustive and says so: every float
 * of the four binades [-2, -1/2] and [1/2, 2] (the reduced argument's
 * whole range, each polynomial input many times over), every float within
 * 2^16 of each cutoff and of 0, and every 1009th float elsewhere, about 36
 * million values, a few seconds. Special values are checked in both.
 *
 * Stated bounds, asserted: 2 ULP for AVX2 and AVX-512, 2.5 ULP for scalar,
 * against the exact value (the ULP of its binade); x < -0x1.5D589Ep6 gives
 * +0, x > 0x1.62E42Ep6 gives +inf, and every other finite result is a
 * normal float. The measured maximum per ISA is printed. */
#include <float.h>

#include "common.h"

#define LO_CUT (-0x1.5D589Ep6f)
#define HI_CUT (0x1.62E42Ep6f)
#define CHUNK 8192

/* per ISA, in hs_isa's order: wasm128 has no fused multiply-add, each step
 * rounds as in scalar */
static const double bound_ulp[] = {2.5, 2.0, 2.0, 2.5, 2.0};
_Static_assert(sizeof bound_ulp / sizeof *bound_ulp == HS_ISA_COUNT, "a bound per ISA");
static double max_ulp[HS_ISA_COUNT];
static float max_at[HS_ISA_COUNT];
static uint64_t checked;

static float from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint32_t to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* Checks n inputs on every ISA; the reference is computed once. */
static void check_chunk(size_t n, const float *x) {
  static double want[CHUNK];
  static float y[CHUNK];
  for (size_t i = 0; i < n; i++) want[i] = exp((double)x[i]);
  HS_FOR_EACH_ISA(kt) {
    const hs_isa isa = kt->isa;
    kt->f32_vexp(n, x, y);
    for (size_t i = 0; i < n; i++) {
      const float v = x[i], g = y[i];
      if (isnan(v)) {
        if (!isnan(g)) fail_msg("%s: exp(NaN) = %a", hs_isa_name(isa), g);
      } else if (v < LO_CUT) {
        if (!(g == 0.0f && !signbit(g)))
          fail_msg("%s: exp(%a) = %a, want +0", hs_isa_name(isa), v, g);
      } else if (v > HI_CUT) {
        if (g != INFINITY) fail_msg("%s: exp(%a) = %a, want +inf", hs_isa_name(isa), v, g);
      } else {
        if (!(g >= FLT_MIN && g <= FLT_MAX))
          fail_msg("%s: exp(%a) = %a, not a normal float", hs_isa_name(isa), v, g);
        int e;
        frexp(want[i], &e);
        const double u = fabs((double)g - want[i]) / ldexp(1.0, e - 24);
        if (u > max_ulp[isa]) {
          max_ulp[isa] = u;
          max_at[isa] = v;
        }
        if (u > bound_ulp[isa])
          fail_msg("%s: exp(%a) = %a, error %.4f ULP > %.1f", hs_isa_name(isa), v,
                   g, u, bound_ulp[isa]);
      }
    }
  }
  checked += n;
}

/* every `stride`-th float with bits in [lo_bits, hi_bits] (one sign) */
static void sweep(uint32_t lo_bits, uint32_t hi_bits, uint32_t stride) {
  static float x[CHUNK];
  size_t k = 0;
  for (uint64_t b = lo_bits; b <= hi_bits; b += stride) {
    x[k++] = from_bits((uint32_t)b);
    if (k == CHUNK) {
      check_chunk(k, x);
      k = 0;
    }
  }
  if (k) check_chunk(k, x);
}

static int exhaustive(void) {
  const char *e = getenv("HARDSOFT_EXHAUSTIVE");
  return e && strcmp(e, "1") == 0;
}

/* negative floats: bits 0x80000000 (-0) up to -87.34 (and a bit past);
 * positive floats: bits 0 (+0) up to just past the overflow cutoff */
static void sweep_all(uint32_t stride) {
  sweep(0x80000000u, to_bits(-87.34f), stride);
  sweep(0, to_bits(88.73f), stride);
}

static void test_every_float(void **state) {
  (void)state;
  sweep_all(1);
}

static void test_sampled(void **state) {
  (void)state;
  sweep_all(1009);
  /* whole binades, every float */
  sweep(to_bits(0.5f), to_bits(2.0f), 1);
  sweep(to_bits(-0.5f), to_bits(-2.0f), 1);
  /* the neighbourhoods of the cutoffs and of zero, every float */
  const uint32_t w = 1u << 16;
  sweep(to_bits(LO_CUT) - w, to_bits(LO_CUT) + w, 1);
  sweep(to_bits(HI_CUT) - w, to_bits(HI_CUT) + w, 1);
  sweep(0, w, 1);
  sweep(0x80000000u, 0x80000000u + w, 1);
  sweep(to_bits(0x1p-25f) - w, to_bits(0x1p-25f) + w, 1);
}

static void test_special(void **state) {
  (void)state;
  const float v[] = {INFINITY, -INFINITY, NAN, -NAN, from_bits(0x7FC00001u),
                     from_bits(0x7F800001u), from_bits(0xFFC12345u), FLT_MAX,
                     -FLT_MAX, 1e30f, -1e30f, 0x1p22f, -0x1p22f, 0x1p-149f,
                     -0x1p-149f, FLT_MIN, -FLT_MIN, 0.0f, -0.0f};
  check_chunk(sizeof v / sizeof v[0], v);
}

static int report(void **state) {
  (void)state;
  printf("exp %s: %llu inputs checked per ISA\n",
         exhaustive() ? "every float"
                      : "sampled, not exhaustive (HARDSOFT_EXHAUSTIVE=1 for every float)",
         (unsigned long long)checked);
  for (int i = 0; i < HS_ISA_COUNT; i++)
    if (hs_kernels_for((hs_isa)i) && !(hs_test_not_run_ & (1u << i)))
      printf("f32_vexp %-7s max error %.4f ULP at x = %a (bound %.1f)\n",
             hs_isa_name((hs_isa)i), max_ulp[i], max_at[i], bound_ulp[i]);
  return 0;
}

int main(void) {
  const struct CMUnitTest every[] = {
      cmocka_unit_test(test_every_float),
      cmocka_unit_test(test_special),
  };
  const struct CMUnitTest sampled[] = {
      cmocka_unit_test(test_sampled),
      cmocka_unit_test(test_special),
  };
  return exhaustive() ? cmocka_run_group_tests(every, NULL, report)
                      : cmocka_run_group_tests(sampled, NULL, report);
}
