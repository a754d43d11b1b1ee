/* SPDX-License-Identifier: MIT */
/* Replays every saved fuzz input through the fuzz targets' own logic
 * (tests/fuzz/targets.h), with the normal compiler, so `make check` (and
 * `make check-sanitize`) keeps every bug the fuzzers found fixed:
 *   tests/fuzz/crashes/fuzz-<target>-<name>   regression inputs
 *   tests/fuzz/corpus-<target>/...            the seed corpora
 * <target> is parse, model, input, brasp, crasp or regex. A crash input whose name ends in
 * ".open" is a known bug in a file this test's owner does not own (see
 * tests/fuzz/README.md); it is skipped, not failed, until it is fixed and
 * renamed. A failure aborts (the targets' checks call abort()) or is
 * reported by the sanitizers. HS_FUZZ_DIR overrides the directory (default
 * tests/fuzz, relative to the repository root where `make check` runs). */
#include "common.h"

#include <dirent.h>

#include "fuzz/targets.h"
#include "fuzz/target-brasp.h"
#include "fuzz/target-crasp.h"
#include "fuzz/target-regex.h"

typedef int (*target_fn)(const uint8_t *, size_t);

static const struct { const char *name; target_fn fn; } targets[] = {
    {"parse", hs_fuzz_parse}, {"model", hs_fuzz_model}, {"input", hs_fuzz_input},
    {"brasp", hs_fuzz_brasp},
    {"crasp", hs_fuzz_crasp}, {"regex", hs_fuzz_regex}};

static const char *fuzz_dir(void) {
  const char *d = getenv("HS_FUZZ_DIR");
  return d && *d ? d : "tests/fuzz";
}

static uint8_t *read_all(const char *path, size_t *size) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  for (;;) {
    if (!buf) break;
    n += fread(buf + n, 1, cap - n, fp);
    if (n < cap) break;
    uint8_t *nb = realloc(buf, cap * 2);
    if (!nb) { free(buf); buf = NULL; break; }
    buf = nb;
    cap *= 2;
  }
  int err = ferror(fp);
  fclose(fp);
  if (err) { free(buf); return NULL; }
  *size = n;
  return buf;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the regular entries of dir (not starting with '.'). */
static char **list_dir(const char *dir, size_t *count) {
  *count = 0;
  DIR *d = opendir(dir);
  if (!d) return NULL;
  size_t cap = 16;
  char **names = malloc(cap * sizeof *names);
  assert_non_null(names);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (*count == cap) {
      cap *= 2;
      names = realloc(names, cap * sizeof *names);
      assert_non_null(names);
    }
    names[*count] = strdup(e->d_name);
    assert_non_null(names[*count]);
    (*count)++;
  }
  closedir(d);
  qsort(names, *count, sizeof *names, cmp_str);
  return names;
}

static void replay(const char *path, target_fn fn) {
  size_t size = 0;
  uint8_t *data = read_all(path, &size);
  if (!data) fail_msg("cannot read %s", path);
  fprintf(stderr, "replaying %s (%zu bytes)\n", path, size);
  fn(data, size);
  free(data);
}

/* Every file in crashes/ belongs to a target by its name. */
static void test_crashes(void **state) {
  (void)state;
  char dir[1024], path[2048];
  snprintf(dir, sizeof dir, "%s/crashes", fuzz_dir());
  size_t n;
  char **names = list_dir(dir, &n);
  if (!names) fail_msg("cannot open %s (run from the repository root or set "
                       "HS_FUZZ_DIR)", dir);
  size_t ran = 0, open = 0;
  for (size_t i = 0; i < n; i++) {
    const char *nm = names[i];
    size_t L = strlen(nm);
    if (L > 3 && strcmp(nm + L - 3, ".md") == 0) goto next;
    if (L > 5 && strcmp(nm + L - 5, ".open") == 0) { open++; goto next; }
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
      char prefix[32];
      snprintf(prefix, sizeof prefix, "fuzz-%s-", targets[t].name);
      if (strncmp(nm, prefix, strlen(prefix)) == 0) {
        snprintf(path, sizeof path, "%s/%s", dir, nm);
        replay(path, targets[t].fn);
        ran++;
        goto next;
      }
    }
    fail_msg("%s/%s: name must start with fuzz-parse-, fuzz-model-, fuzz-brasp-, "
             "fuzz-crasp-, fuzz-regex- or fuzz-input-", dir, nm);
  next:
    free(names[i]);
  }
  free(names);
  printf("replayed %zu crash inputs (%zu open, skipped)\n", ran, open);
}

static void test_corpus(void **state) {
  (void)state;
  size_t total = 0;
  for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
    char dir[1024], path[2048];
    snprintf(dir, sizeof dir, "%s/corpus-%s", fuzz_dir(), targets[t].name);
    size_t n;
    char **names = list_dir(dir, &n);
    if (!names) fail_msg("cannot open %s", dir);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
      snprintf(path, sizeof path, "%s/%s", dir, names[i]);
      replay(path, targets[t].fn);
      free(names[i]);
    }
    free(names);
    total += n;
  }
  printf("replayed %zu seed inputs\n", total);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crashes),
      cmocka_unit_test(test_corpus),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
