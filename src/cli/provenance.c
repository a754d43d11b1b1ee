/* SPDX-License-Identifier: MIT */
/* What every CSV row says about the machine that wrote it: the CPU's model
 * name, the logical CPUs online, the memory and the kernel. A reader of a
 * results file must be able to tell which machine made it without asking. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* /proc/cpuinfo's "model name" can be only the vendor and the series
 * ("AMD EPYC" under some hypervisors); family, model and stepping still
 * name the microarchitecture, so they are always appended, and cpuid's
 * brand string too where it says something else. */
void cli_cpu_model(char *buf, size_t len) {
  char line[512], name[256] = "";
  int fam = -1, mod = -1, step = -1;
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (len == 0) return;
  buf[0] = 0;
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!colon) {
      if (name[0]) break; /* the blank line after the first processor */
      continue;
    }
    const char *v = colon + 1 + strspn(colon + 1, " \t");
    size_t k = strcspn(line, "\t:");
    if (k == 10 && !strncmp(line, "model name", 10) && !name[0]) {
      snprintf(name, sizeof name, "%.*s", (int)strcspn(v, "\n"), v);
    } else if (k == 10 && !strncmp(line, "cpu family", 10)) {
      fam = atoi(v);
    } else if (k == 5 && !strncmp(line, "model", 5)) {
      mod = atoi(v);
    } else if (k == 8 && !strncmp(line, "stepping", 8)) {
      step = atoi(v);
    }
  }
  if (f) fclose(f);
  char brand[64], extra[128] = "";
  hs_cpu_brand(brand, sizeof brand);
  if (!name[0]) snprintf(name, sizeof name, "%s", brand); /* no /proc */
  else if (brand[0] && strcmp(brand, name))
    snprintf(extra, sizeof extra, "; cpuid brand: %s", brand); /* a hypervisor's rewrite */
  if (fam >= 0 && mod >= 0)
    snprintf(buf, len, "%s (family %d model %d stepping %d%s)", name[0] ? name : "unknown",
             fam, mod, step, extra);
  else
    snprintf(buf, len, "%s%s%s%s", name[0] ? name : "unknown", extra[0] ? " (" : "",
             extra[0] ? extra + 2 : "", extra[0] ? ")" : "");
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
