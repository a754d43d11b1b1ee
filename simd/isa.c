/* SPDX-License-Identifier: MIT */
/* Instruction-set detection. CPUID feature bits alone are not enough: the
 * OS must also save the wide registers on a context switch (CPUID.OSXSAVE,
 * then XGETBV's XCR0), or the first AVX instruction faults on some VMs. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "ukernels.h"

#include "isa-table.h"

#if defined(__x86_64__) || defined(__i386__)
#define HS_X86 1
#include <cpuid.h>
#else
#define HS_X86 0
#endif

#if HS_X86
static uint64_t xgetbv0(void) {
  uint32_t eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return ((uint64_t)edx << 32) | eax;
}

/* CPUID leaf 7's EBX when the OS saves the YMM state (and AVX and FMA are
 * there), else 0; *xcr0 the enabled state components. */
static unsigned avx_features(uint64_t *xcr0) {
  unsigned a, b, c, d;
  *xcr0 = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  int fma = (c >> 12) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
  if (!osxsave || !avx || !fma) return 0;
  *xcr0 = xgetbv0();
  if ((*xcr0 & 0x6) != 0x6) return 0; /* XMM and YMM state */
  if (__get_cpuid_max(0, 0) < 7) return 0;
  __cpuid_count(7, 0, a, b, c, d);
  return b;
}
static int hs_detect_avx2(void) {
  uint64_t xcr0;
  return (avx_features(&xcr0) >> 5) & 1;
}
/* AVX-512 also needs opmask, ZMM_Hi256 and Hi16_ZMM state (bits 5-7). */
static int hs_detect_avx512(void) {
  uint64_t xcr0;
  const unsigned b = avx_features(&xcr0);
  return ((b >> 5) & 1) && ((b >> 16) & 1) && (xcr0 & 0xe0) == 0xe0;
}
#endif

/* A build for another architecture has no CPUID to ask: a WebAssembly
 * engine without SIMD128 refuses to load a module compiled with it (being
 * compiled for it is being able to run it), and every AArch64 CPU has
 * Advanced SIMD. Detected once, whichever thread asks first (see
 * dispatch.c); isa-table.h leaves out the rows this build lacks, whose
 * entries stay 0. */
static int supported[HS_ISA_COUNT];
static pthread_once_t detected = PTHREAD_ONCE_INIT;

static void detect_all(void) {
#define HS_ISA_DETECT_(ID, name, det) HS_BUILT_##ID(supported[HS_ISA_##ID] = (det);)
  HS_ISA_TABLE(HS_ISA_DETECT_)
#undef HS_ISA_DETECT_
}

int hs_isa_supported(hs_isa isa) {
  if ((unsigned)isa >= HS_ISA_COUNT) return 0;
  pthread_once(&detected, detect_all);
  return supported[isa];
}

hs_isa hs_isa_best(void) {
  for (int i = HS_ISA_COUNT - 1; i > 0; i--)
    if (hs_isa_supported((hs_isa)i)) return (hs_isa)i;
  return HS_ISA_SCALAR;
}

static const char *const isa_names[] = {
#define HS_ISA_NAME_(ID, name, det) name,
    HS_ISA_TABLE(HS_ISA_NAME_)
#undef HS_ISA_NAME_
};
_Static_assert(sizeof isa_names / sizeof *isa_names == HS_ISA_COUNT,
               "isa-table.h has one row per value of hs_isa");
/* and in hs_isa's order */
enum {
#define HS_ISA_ROW_(ID, name, det) HS_ISA_ROW_##ID,
  HS_ISA_TABLE(HS_ISA_ROW_)
#undef HS_ISA_ROW_
};
#define HS_ISA_ORDER_(ID, name, det) \
  _Static_assert((int)HS_ISA_ROW_##ID == (int)HS_ISA_##ID, "isa-table.h row " #ID " out of hs_isa's order");
HS_ISA_TABLE(HS_ISA_ORDER_)
#undef HS_ISA_ORDER_

const char *hs_isa_name(hs_isa isa) {
  return (unsigned)isa < HS_ISA_COUNT ? isa_names[isa] : "unknown";
}

int hs_isa_parse(const char *name) {
  for (int i = 0; i < HS_ISA_COUNT; i++)
    if (name && strcmp(name, isa_names[i]) == 0) return i;
  return -1;
}

void hs_cpu_brand(char *buf, size_t len) {
  if (len == 0) return;
  buf[0] = 0;
#if HS_X86
  unsigned r[12];
  if ((unsigned)__get_cpuid_max(0x80000000u, 0) < 0x80000004u) return;
  for (unsigned i = 0; i < 3; i++)
    __get_cpuid(0x80000002 + i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2],
                &r[4 * i + 3]);
  char tmp[49];
  memcpy(tmp, r, 48);
  tmp[48] = 0;
  const char *s = tmp;
  while (*s == ' ') s++;
  size_t n = strlen(s);
  while (n && s[n - 1] == ' ') n--;
  if (n >= len) n = len - 1;
  memcpy(buf, s, n);
  buf[n] = 0;
#endif
}

static unsigned mxcsr(void) {
  unsigned v = 0; /* no MXCSR off x86: denormals are kept */
#if HS_X86
  __asm__ volatile("stmxcsr %0" : "=m"(v));
#endif
  return v;
}
int hs_ftz_enabled(void) { return (mxcsr() >> 15) & 1; }
int hs_daz_enabled(void) { return (mxcsr() >> 6) & 1; }
