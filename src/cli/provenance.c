/* SPDX-License-Identifier: MIT */
/* What every CSV row says about the machine that wrote it: the CPU's model
 * name, the logical CPUs online, the memory and the kernel. A reader of a
 * results file must be able to tell which machine made it without asking. */
#include "cli/cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* The first processor's fields of /proc/cpuinfo that name the CPU. */
typedef struct cpu_fields {
  char name[256], vendor[64];
  int fam, mod, step;
} cpu_fields;

static void read_cpuinfo(cpu_fields *c) {
  char line[512];
  FILE *f = fopen("/proc/cpuinfo", "r");
  c->name[0] = c->vendor[0] = 0;
  c->fam = c->mod = c->step = -1;
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!colon) {
      if (c->name[0]) break; /* the blank line after the first processor */
      continue;
    }
    const char *v = colon + 1 + strspn(colon + 1, " \t");
    int vn = (int)strcspn(v, "\n");
    size_t k = strcspn(line, "\t:");
    if (k == 10 && !strncmp(line, "model name", 10) && !c->name[0]) {
      snprintf(c->name, sizeof c->name, "%.*s", vn, v);
    } else if (k == 9 && !strncmp(line, "vendor_id", 9) && !c->vendor[0]) {
      snprintf(c->vendor, sizeof c->vendor, "%.*s", vn, v);
    } else if (k == 10 && !strncmp(line, "cpu family", 10)) {
      c->fam = atoi(v);
    } else if (k == 5 && !strncmp(line, "model", 5)) {
      c->mod = atoi(v);
    } else if (k == 8 && !strncmp(line, "stepping", 8)) {
      c->step = atoi(v);
    }
  }
  if (f) fclose(f);
}

/* /proc/cpuinfo's "model name" can be only the vendor and the series
 * ("AMD EPYC" under some hypervisors); family, model and stepping still
 * name the microarchitecture, so they are always appended, and cpuid's
 * brand string too where it says something else. */
void cli_cpu_model(char *buf, size_t len) {
  cpu_fields c;
  if (len == 0) return;
  buf[0] = 0;
  read_cpuinfo(&c);
  char brand[64], extra[128] = "";
  hs_cpu_brand(brand, sizeof brand);
  if (!c.name[0]) snprintf(c.name, sizeof c.name, "%s", brand); /* no /proc */
  else if (brand[0] && strcmp(brand, c.name))
    snprintf(extra, sizeof extra, "; cpuid brand: %s", brand); /* a hypervisor's rewrite */
  const char *name = c.name[0] ? c.name : "unknown";
  if (c.fam >= 0 && c.mod >= 0)
    snprintf(buf, len, "%s (family %d model %d stepping %d%s)", name, c.fam, c.mod,
             c.step, extra);
  else
    snprintf(buf, len, "%s%s%s%s", name, extra[0] ? " (" : "", extra[0] ? extra + 2 : "",
             extra[0] ? ")" : "");
}

/* A name for this machine's results folder (results/machines/ID) that a
 * reader recognises: vendor, family, model, stepping and the widest
 * instruction set hardsoft runs here, e.g. amd-f25-m17-s1-avx512. Two CPUs
 * with the same ID run the same microarchitecture with the same kernels;
 * HARDSOFT_MACHINE_ID names a machine the fields cannot tell apart; -1 when
 * it is not a folder name (letters, digits, '.', '_', '-', not first '.'). */
int cli_machine_id(char *buf, size_t len) {
  static const struct { const char *id, *name; } vendors[] = {
      {"GenuineIntel", "intel"}, {"AuthenticAMD", "amd"}, {"HygonGenuine", "hygon"},
      {"CentaurHauls", "centaur"}, {"  Shanghai  ", "zhaoxin"}};
  const char *env = getenv("HARDSOFT_MACHINE_ID");
  if (len == 0) return -1;
  if (env && *env) {
    int ok = env[0] != '.' && strlen(env) < len && strlen(env) <= 100;
    for (const char *s = env; ok && *s; s++)
      ok = isalnum((unsigned char)*s) || strchr("._-", *s);
    snprintf(buf, len, "%s", ok ? env : "");
    return ok ? 0 : -1;
  }
  cpu_fields c;
  read_cpuinfo(&c);
  char vendor[64] = "";
  for (size_t i = 0; i < sizeof vendors / sizeof *vendors && !vendor[0]; i++)
    if (!strcmp(c.vendor, vendors[i].id)) snprintf(vendor, sizeof vendor, "%s", vendors[i].name);
  if (!vendor[0]) { /* another vendor: its id, folded to lower-case letters and digits */
    size_t k = 0;
    for (const char *s = c.vendor; *s && k + 1 < sizeof vendor; s++)
      if (isalnum((unsigned char)*s)) vendor[k++] = (char)tolower((unsigned char)*s);
    vendor[k] = 0;
  }
  if (!vendor[0]) {
    struct utsname u;
    snprintf(vendor, sizeof vendor, "%.40s", uname(&u) == 0 ? u.machine : "cpu");
  }
  const char *isa = "scalar";
  for (int i = 0; i < HS_ISA_COUNT; i++)
    if (hs_isa_supported((hs_isa)i)) isa = hs_isa_name((hs_isa)i); /* widest last */
  if (c.fam >= 0 && c.mod >= 0 && c.step >= 0)
    snprintf(buf, len, "%s-f%d-m%d-s%d-%s", vendor, c.fam, c.mod, c.step, isa);
  else
    snprintf(buf, len, "%s-%s", vendor, isa);
  return 0;
}

long cli_cpu_count(void) { return sysconf(_SC_NPROCESSORS_ONLN); }

/* MemTotal, else pages times the page size; 0 if neither is known. */
unsigned long long cli_mem_bytes(void) {
  char line[256];
  unsigned long long kb = 0;
  FILE *f = fopen("/proc/meminfo", "r");
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) break;
  if (f) fclose(f);
  if (kb) return kb * 1024;
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (unsigned long long)pages * (unsigned long long)size : 0;
}

void cli_kernel(char *buf, size_t len) {
  struct utsname u;
  if (len == 0) return;
  if (uname(&u) == 0)
    snprintf(buf, len, "%s %s %s", u.sysname, u.release, u.machine);
  else
    snprintf(buf, len, "unknown");
}

void cli_provenance_line(char *buf, size_t len, int repeat, int full) {
  char cpu[320], id[128], date[32];
  time_t t = time(NULL);
  struct tm tm;
  cli_cpu_model(cpu, sizeof cpu);
  if (cli_machine_id(id, sizeof id)) snprintf(id, sizeof id, "unknown");
  gmtime_r(&t, &tm);
  strftime(date, sizeof date, full ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%d", &tm);
  const char *build = cli_build();
  /* short: the compiler without its flags */
  int blen = full ? (int)strlen(build) : (int)strcspn(build, ";");
  snprintf(buf, len,
           "hardsoft %s bench on %s, %ld CPUs%s%s%s; built with %.*s; commit %s; %s; "
           "each time the median of %d timed run%s after one warm-up",
           hs_version(), cpu, cli_cpu_count(), full ? " (machine " : "", full ? id : "",
           full ? ")" : "", blen, build, cli_commit(), date, repeat, repeat == 1 ? "" : "s");
}
