/* SPDX-License-Identifier: MIT */
/* The transition monoid of a minimal automaton and the class of its
 * language (internal, monoid.c). */
#ifndef HS_REGEX_MONOID_H
#define HS_REGEX_MONOID_H

#include <stdint.h>

#include "lang/regex/dfa.h"

typedef enum rx_cls {
  RX_STAR_FREE,       /* aperiodic: m^K = m^(K+1) for every element */
  RX_QUASI_APERIODIC, /* not aperiodic, but the image of the words of
                         the stable length holds no group but {e} */
  RX_NEITHER,         /* a non-trivial group in that image */
  RX_UNKNOWN          /* a monoid past the limits: why says which */
} rx_cls;

/* The most elements, and element-states (elements times states), a
 * monoid may have before the class is left unknown. */
#define RX_MAX_MONOID (1 << 18)
#define RX_MAX_CELLS ((int64_t)1 << 22)

typedef struct rx_class {
  rx_cls cls;
  int64_t size;      /* elements of the monoid */
  int32_t index;     /* the least K with m^K = m^(K+1) for every
                        aperiodic element (every element, star-free) */
  int32_t stable;    /* s: the least s >= 1 with eta(A^s) = eta(A^2s) */
  int32_t stable_size; /* elements of eta(A^s) */
  int32_t modulus;   /* quasi-aperiodic: the least d >= 1 such that every
                        word whose length is a positive multiple of d maps
                        to an aperiodic element (d <= s): positions mod d
                        are all a construction needs */
  /* Not star-free: for words x, u, z (symbol numbers), x u^k z is in the
   * language iff pattern[k mod period] (period > 1 the least period).
   * RX_NEITHER: |u| is a multiple of stable. */
  int32_t *x, *u, *z;
  int32_t nx, nu, nz;
  int32_t period;
  uint8_t *pattern;
  char why[160];     /* RX_UNKNOWN */
} rx_class;

/* Classifies the language of d (complete, minimal, start 0). 0, or -1
 * out of memory; a limit passed gives RX_UNKNOWN, not an error. */
int rx_classify(const rx_dfa *d, rx_class *c);
void rx_class_free(rx_class *c);

/* The transition monoid, enumerated breadth-first from the identity (so
 * word[m] is a shortest word for m): element m maps state q to
 * map[m * n + q]; right[m * k + c] is m followed by symbol c. */
typedef struct rx_monoid {
  int32_t n, k, size;
  int32_t *map, *right, *parent, *sym; /* parent/sym: the last step of word[m] */
} rx_monoid;
/* 0, -1 out of memory, 1 past the limits (why filled). */
int rx_monoid_build(const rx_dfa *d, rx_monoid *M, char *why, size_t whylen);
void rx_monoid_free(rx_monoid *M);

#endif
