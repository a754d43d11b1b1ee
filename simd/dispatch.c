/* SPDX-License-Identifier: MIT */
/* Kernel tables, one per ISA, filled once from kernels.inc. An op with no
 * kernel for an ISA keeps the scalar one. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "isa-table.h"
#include "ukernels.h"

const char *const hs_op_names[HS_OP_COUNT] = {
#define HS_OP_NAME_(op) #op,
    HS_OPS(HS_OP_NAME_)
#undef HS_OP_NAME_
};

static hs_kernels tables[HS_ISA_COUNT];
/* Several threads may make the first call at once (a Python binding
 * releases the GIL): the tables are filled exactly once. */
static pthread_once_t filled = PTHREAD_ONCE_INIT;

static void fill_row(hs_kernels *t, hs_isa isa, hs_isa row_isa, int op,
                     void (*set)(hs_kernels *), const char *name) {
  if (row_isa != HS_ISA_SCALAR && row_isa != isa) return;
  if (row_isa == HS_ISA_SCALAR && t->name[op] != NULL) return;
  set(t);
  t->name[op] = name;
}

#define HS_KERNEL(op, isa, fn) \
  HS_BUILT_##isa(static void set_##fn(hs_kernels *t) { t->op = fn; })
#include "kernels.inc"
#undef HS_KERNEL

static void fill_all(void) {
  for (int i = 0; i < HS_ISA_COUNT; i++) {
    hs_kernels *t = &tables[i];
    t->isa = (hs_isa)i;
    /* ISA rows first, then scalar rows only where nothing was set. */
#define HS_KERNEL(op, isa, fn)                                          \
  HS_BUILT_##isa(if (HS_ISA_##isa != HS_ISA_SCALAR)                     \
    fill_row(t, (hs_isa)i, HS_ISA_##isa, HS_OP_##op, set_##fn, #fn);)
#include "kernels.inc"
#undef HS_KERNEL
#define HS_KERNEL(op, isa, fn)                                          \
  HS_BUILT_##isa(if (HS_ISA_##isa == HS_ISA_SCALAR)                     \
    fill_row(t, (hs_isa)i, HS_ISA_##isa, HS_OP_##op, set_##fn, #fn);)
#include "kernels.inc"
#undef HS_KERNEL
  }
}

const hs_kernels *hs_kernels_for(hs_isa isa) {
  if ((unsigned)isa >= HS_ISA_COUNT || !hs_isa_supported(isa)) return NULL;
  pthread_once(&filled, fill_all);
  return &tables[isa];
}

const hs_kernels *hs_kernels_default(hs_error *err) {
  const char *env = getenv("HARDSOFT_ISA");
  if (env && *env) {
    int isa = hs_isa_parse(env);
    if (isa < 0) {
      char names[128] = "";
      for (int i = 0; i < HS_ISA_COUNT; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 i == 0 ? "" : i + 1 < HS_ISA_COUNT ? ", " : " or ", hs_isa_name((hs_isa)i));
      hs_errorf(err, HS_ERR_ISA,
                 "HARDSOFT_ISA='%.64s' is not an instruction set (expected %s)", env, names);
      return NULL;
    }
    if (!hs_isa_supported((hs_isa)isa)) {
      hs_errorf(err, HS_ERR_ISA,
                 "HARDSOFT_ISA=%s: this CPU or OS cannot run %s (best "
                 "supported: %s)",
                 env, env, hs_isa_name(hs_isa_best()));
      return NULL;
    }
    return hs_kernels_for((hs_isa)isa);
  }
  return hs_kernels_for(hs_isa_best());
}
