/* SPDX-License-Identifier: MIT */
/* Names to ids, the one table every parser keeps its definitions in: open
 * addressing over FNV-1a hashes, at most half full. The table points at
 * the names rather than copying them, so a name must stay in place while
 * the table lives (the parsers' names live in their trees). */
#ifndef HS_BASE_NAMES_H
#define HS_BASE_NAMES_H

#include <stddef.h>
#include <stdint.h>

typedef struct hs_name_slot { const char *s; size_t len; int32_t id; } hs_name_slot;
typedef struct hs_names { hs_name_slot *slot; size_t cap, n; } hs_names;

/* The id of the name s[0..len), or `none` when it is not in the table. */
int32_t hs_names_find(const hs_names *t, const char *s, size_t len, int32_t none);
/* Adds a name not in the table; 0, or -1 when out of memory. */
int hs_names_add(hs_names *t, const char *s, size_t len, int32_t id);
void hs_names_free(hs_names *t);

#endif
