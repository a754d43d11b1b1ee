/* SPDX-License-Identifier: MIT */
/* The version of the library as built (a program may have been compiled
 * against another header). */
#include <string.h>

#include "hardsoft.h"

const char *hs_version(void) { return HS_VERSION_STRING; }
int hs_version_number(void) { return HS_VERSION_NUMBER; }

/* Bindings that mirror the option and result structs (the Python package's
 * ctypes layer) check their layout against the library they loaded. */
size_t hs_struct_size(const char *name) {
  static const struct { const char *name; size_t size; } sizes[] = {
      {"hs_run_opts", sizeof(hs_run_opts)}, {"hs_run_result", sizeof(hs_run_result)},
      {"hs_error", sizeof(hs_error)},       {"hs_compile_opts", sizeof(hs_compile_opts)},
      {"hs_sim_opts", sizeof(hs_sim_opts)}, {"hs_sim_result", sizeof(hs_sim_result)},
  };
  for (size_t i = 0; name && i < sizeof sizes / sizeof *sizes; i++)
    if (!strcmp(name, sizes[i].name)) return sizes[i].size;
  return 0;
}
