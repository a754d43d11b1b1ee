/* SPDX-License-Identifier: MIT */
/* Every numeric option of every command and its range, in one table: the
 * one place a value is checked (cli_whole, cli_real), and what
 * `hardsoft --options` prints, from which tests/test-options.sh tries each
 * bound on every command that takes the option (the completion's lists
 * name which). A value outside its range is refused when the command
 * line is read, before anything runs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

typedef struct num_opt {
  const char *name;
  int whole;            /* a whole number (lo..hi), else a real above rlo */
  uint64_t lo, hi;
  double rlo;           /* reals: the value must be above it */
  const char *what;
} num_opt;

static const num_opt opts[] = {
    {"--scale", 0, 0, 0, 0, "the scale mu"},
    {"--scales", 0, 0, 0, 0, "each scale mu of the list"},
    {"--max-time", 0, 0, 0, 0, "seconds"},
    {"--gamma", 0, 0, 0, 0, "the score gap, or auto"},
    {"--threads", 1, 1, 256, 0, "threads"},
    {"--max-memory", 1, 1, (uint64_t)1 << 40, 0, "MiB"},
    {"--max-len", 1, 0, 16, 0, "the longest exhaustive string"},
    {"--lengths", 1, 1, (uint64_t)1 << 32, 0, "each length of the list"},
    {"--samples", 1, 1, 1000000, 0, "random strings per length"},
    {"--seed", 1, 0, UINT64_MAX, 0, "the random seed"},
    {"--repeat", 1, 1, 1000, 0, "timed runs per point"},
    {"--error-max-n", 1, 0, (uint64_t)1 << 32, 0, "the longest n whose error is measured"},
    {"--max-n", 1, 1, (uint64_t)1 << 30, 0, "the longest length tried"},
    {"--layer", 1, 0, 1000000, 0, "a layer"},
    {"--head", 1, 0, 1000000, 0, "a head"},
    {"--max-formula-len", 1, 1, (uint64_t)1 << 40, 0, "bytes"},
    /* 10^6 levels run on a 3.9 GiB stack (about 4 KiB a level, main.c):
     * 10^7 asked for one no machine here could give */
    {"--max-depth", 1, 1, 1000000, 0, "nesting levels"},
    {"--max-header-mib", 1, 1, 4096, 0, "MiB"},
    {"--max-tensors", 1, 1, (uint64_t)1 << 40, 0, "tensors"},
};

static const num_opt *find(const char *name) {
  for (size_t k = 0; k < sizeof opts / sizeof *opts; k++)
    if (!strcmp(opts[k].name, name)) return &opts[k];
  return NULL;
}

int cli_whole(const char *opt, const char *v, uint64_t *out) {
  const num_opt *o = find(opt);
  char *end;
  errno = 0;
  unsigned long long x = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : 0;
  int ok = v[0] >= '0' && v[0] <= '9' && !*end && !errno;
  if (o && ok && x >= o->lo && x <= o->hi) {
    *out = x;
    return 0;
  }
  if (!o) return cli_error("%s: not a numeric option (internal)", opt);
  return cli_error("%s expects a whole number from %llu to %llu (%s), got '%s'", opt,
                   (unsigned long long)o->lo, (unsigned long long)o->hi, o->what, v);
}

int cli_list(const char *opt, const char *v) {
  size_t n = strlen(v);
  if (n && v[0] != ',' && v[n - 1] != ',' && !strstr(v, ",,")) return 0;
  return cli_error("%s expects a list of values separated by single commas, got '%s'", opt, v);
}

int cli_real(const char *opt, const char *v, double *out) {
  const num_opt *o = find(opt);
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (o && *v && !*end && !errno && isfinite(x) && x > o->rlo) {
    *out = x;
    return 0;
  }
  if (!o) return cli_error("%s: not a numeric option (internal)", opt);
  return cli_error("%s expects a number above %g (%s), got '%s'", opt, o->rlo, o->what, v);
}

void cli_print_options(void) {
  for (size_t k = 0; k < sizeof opts / sizeof *opts; k++) {
    const num_opt *o = &opts[k];
    if (o->whole)
      printf("%s whole %llu %llu\n", o->name, (unsigned long long)o->lo,
             (unsigned long long)o->hi);
    else
      printf("%s real >%g inf\n", o->name, o->rlo);
  }
}
