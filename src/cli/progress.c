/* SPDX-License-Identifier: MIT */
/* Long work is never silent: the predicted time and memory of a run,
 * printed before it starts when it is long and refused past --max-time,
 * and progress on standard error while it runs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

/* The line "hardsoft: about T, M for WHAT" is printed when a prediction
 * passes this many seconds. */
#define CLI_SAY_SECONDS 5.0
/* Below this many symbols a pass is milliseconds on any model hardsoft
 * compiles, so nothing is calibrated unless --max-time asks. */
#define CLI_PREDICT_MIN_N 4096

double cli_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *cli_duration(double s, char *buf, size_t len) {
  if (!(s < 1e12)) snprintf(buf, len, "forever");
  else if (s < 1) snprintf(buf, len, "%.2g s", s);
  else if (s < 90) snprintf(buf, len, "%.0f s", s);
  else if (s < 90 * 60) snprintf(buf, len, "%.0f min", s / 60);
  else if (s < 48 * 3600) snprintf(buf, len, "%.1f h", s / 3600);
  else snprintf(buf, len, "%.0f days", s / 86400);
  return buf;
}

static const char *bytes_text(double b, char *buf, size_t len) {
  if (b >= 1073741824.0) snprintf(buf, len, "%.1f GiB", b / 1073741824.0);
  else snprintf(buf, len, "%.0f MiB", b / 1048576.0 < 1 ? 1 : b / 1048576.0);
  return buf;
}

int cli_predict_many(const cli_opts *o, const hs_model *m, const hs_run_opts *ro,
                     int k, const size_t *n, const double *passes, const char *what) {
  return cli_predict_runs(o, m, ro, k, n, passes, 1, what);
}

int cli_predict_runs(const cli_opts *o, const hs_model *m, const hs_run_opts *ro,
                     int k, const size_t *n, const double *passes, int copies,
                     const char *what) {
  /* calibrated once per model: a command runs one model (with one set of
   * run options) for the life of the process */
  static hs_run_cost cost;
  static const hs_model *measured; /* the model `cost` belongs to */
  size_t longest = 0, bytes = 0;
  for (int i = 0; i < k; i++) {
    size_t b = hs_model_run_bytes(m, n[i], o->prec, o->threads);
    if (n[i] > longest) longest = n[i];
    if (b > bytes) bytes = b;
  }
  bytes = copies > 1 && bytes < SIZE_MAX / (size_t)copies ? bytes * (size_t)copies : bytes;
  if (longest < CLI_PREDICT_MIN_N && o->max_time <= 0) return 0;
  char t[32], b[32];
  hs_error he;
  if (measured != m) {
    if (hs_run_cost_measure(m, ro, longest, &cost, &he) != 0)
      return cli_error("%s", he.msg);
    measured = m;
  }
  double secs = 0;
  for (int i = 0; i < k; i++) secs += passes[i] * hs_run_cost_at(&cost, n[i]);
  if (o->max_time > 0 && secs > o->max_time)
    return cli_error("%s: predicted to take about %s, more than the limit of "
                     "%g s (--max-time SECONDS)", what,
                     cli_duration(secs, t, sizeof t), o->max_time);
  if (secs > CLI_SAY_SECONDS && !o->quiet)
    fprintf(stderr, "hardsoft: about %s, %s for %s; --max-time to refuse\n",
            cli_duration(secs, t, sizeof t),
            bytes_text((double)bytes, b, sizeof b), what);
  return 0;
}

int cli_predict(const cli_opts *o, const hs_model *m, const hs_run_opts *ro,
                size_t n, double passes, const char *what) {
  return cli_predict_many(o, m, ro, 1, &n, &passes, what);
}

void cli_progress_start(cli_progress *p, const cli_opts *o, const char *unit) {
  memset(p, 0, sizeof *p);
  const char *env = getenv("HARDSOFT_PROGRESS");
  p->force = env && !strcmp(env, "1");
  p->on = !(o && o->quiet) && !(env && !strcmp(env, "0")) &&
          (p->force || isatty(2));
  p->unit = unit;
  p->t0 = cli_now();
  p->last = p->t0;
}

void cli_progress_show(cli_progress *p, uint64_t done, uint64_t total,
                       const char *label) {
  if (!p->on) return;
  double t = cli_now();
  /* a first line after a second (runs shorter say nothing), then five a
   * second; HARDSOFT_PROGRESS=1 shows every update from the start */
  if (!p->force && (t - p->t0 < 1 || (p->width && t - p->last < 0.2))) return;
  p->last = t;
  char left[48] = "", dur[32], line[256];
  double rate = (t - p->t0) > 0 ? (double)done / (t - p->t0) : 0;
  if (rate > 0 && done < total && (double)(total - done) / rate >= 1)
    snprintf(left, sizeof left, ", about %s left",
             cli_duration((double)(total - done) / rate, dur, sizeof dur));
  int w = snprintf(line, sizeof line, "hardsoft: %llu/%llu %s (%.0f%%), %.3g %s/s%s%s%s",
                   (unsigned long long)done, (unsigned long long)total, p->unit,
                   total ? 100.0 * (double)done / (double)total : 100.0, rate,
                   p->unit, left, label ? ", " : "", label ? label : "");
  if (w < 0) return;
  if (w >= (int)sizeof line) w = (int)sizeof line - 1;
  fprintf(stderr, "\r%s%*s", line, p->width > w ? p->width - w : 0, "");
  if (w > p->width) p->width = w;
  fflush(stderr);
}

void cli_progress_end(cli_progress *p) {
  if (p->on && p->width) fprintf(stderr, "\r%*s\r", p->width, "");
  p->width = 0;
}

void cli_progress_rows(void *ctx, uint64_t done, uint64_t total) {
  cli_progress_show(ctx, done, total, NULL);
}
