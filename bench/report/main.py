# SPDX-License-Identifier: MIT
"""The entry point: REPORT.md, its plots and its LaTeX tables from a
results directory, or the freshness check of the published results."""
import argparse
import os
import sys
import tempfile

from . import across, fresh, machine, machines
from .context import REPO, Report
from .plots import NODATA, Plotter
from .reading import ReportError, package_version
from .sections import (accuracy, boundary, boundary_formulas, counting, counting_scale, custom,
                       depth, hard_f64, headline, phases, programs, provenance, quoted, repeats,
                       roofline, scaling, simulate, skipping, suite, targets, tasks, threads,
                       widths)

# the sections of REPORT.md, in order
SECTIONS = [provenance.write, headline.write, scaling.write, accuracy.write, suite.write,
            boundary.write, boundary.write_rel_time, quoted.write, quoted.write_hyperfine,
            simulate.write, counting.write, threads.write, widths.write, skipping.write,
            phases.write, roofline.write, hard_f64.write, depth.write, programs.write,
            counting_scale.write, boundary_formulas.write, tasks.write, custom.write, repeats.write,
            targets.write]
# a folder of a user's own CSVs only (no file of the suite): these
CUSTOM_ONLY = [provenance.write, custom.write, repeats.write]
ORT_PACKAGE = os.path.join("node", "node_modules", "onnxruntime-node", "package.json")


def build(rep, plot):
    """The text of REPORT.md; rep.plots and rep.tex filled on the way."""
    plot.stamp = provenance.stamp(rep)
    for section in SECTIONS if rep.suite_files() or not rep.custom else CUSTOM_ONLY:
        section(rep, plot)
    rep.w("## Plots", "")
    for name, err, what in rep.plots:
        if err is None:
            rep.w(f"![{what}]({name})", "", f"*{name}*: {what}.", "")
        else:
            rep.w(f"- {name} ({what}): not drawn — {err.lstrip(NODATA)}.")
    if rep.tex:
        rep.w("", "The main tables are also written as booktabs LaTeX beside this file, "
              "for a paper to `\\input` (with `\\usepackage{booktabs}`): "
              + ", ".join(f"[{n}.tex]({n}.tex)" for n in rep.tex) + ".")
    rep.w("")
    return "\n".join(rep.out).rstrip("\n") + "\n"


def write_atomic(path, text):
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def report(d, build_dir):
    if not os.path.isdir(d):
        raise ReportError(f"{d}: not a directory")
    rep = Report(d, package_version(os.path.join(build_dir, ORT_PACKAGE)))
    with tempfile.TemporaryDirectory(prefix="hs-report-") as work:
        text = build(rep, Plotter(d, work))
    for name, body in rep.tex.items():
        write_atomic(os.path.join(d, name + ".tex"), body)
    if rep.machine:
        machine.write(d, rep.machine)
    write_atomic(os.path.join(d, "REPORT.md"), text)
    for n, e, _ in rep.plots:
        if e and not e.startswith(NODATA):
            print(f"report: warning: {n} not drawn: {e}", file=sys.stderr)
    drawn = sum(1 for _, e, _ in rep.plots if not e)
    print(f"report: wrote {os.path.join(d, 'REPORT.md')}, {drawn} plot(s) and "
          f"{len(rep.tex)} LaTeX table(s)", file=sys.stderr)
    return 0


def report_machines(results, extra, build_dir):
    """RESULTS/REPORT.md across the machine folders under RESULTS/machines
    and those named in extra; nothing written when a folder is refused."""
    ort = package_version(os.path.join(build_dir, ORT_PACKAGE))
    got, refused = machines.load([results] + list(extra), ort)
    for line in refused:
        print(f"report: refused: {line}", file=sys.stderr)
    if refused:
        return 1
    if not got:
        raise ReportError(f"{results}: no machine folder (results/machines/ID) to report on")
    with tempfile.TemporaryDirectory(prefix="hs-report-") as work:
        text = across.write(results, got, Plotter(results, work))
    write_atomic(os.path.join(results, "REPORT.md"), text)
    print(f"report: wrote {os.path.join(results, 'REPORT.md')} across {len(got)} machine(s): "
          + ", ".join(p["id"] for p, _ in got), file=sys.stderr)
    return 0


def run(argv):
    ap = argparse.ArgumentParser(
        prog="report", description="Write RESULTS_DIR/REPORT.md, its plots (gnuplot) and "
        "its main tables as LaTeX from the CSV files of make bench; or, with "
        "--check-fresh, check that the published results describe their code.")
    ap.add_argument("results", nargs="?", help="the results directory")
    ap.add_argument("--build", default=os.path.join(REPO, os.environ.get("BUILD", "build")),
                    help="the build directory whose onnxruntime-node the suite ran "
                    "(its version goes into the report; default: $BUILD or build)")
    ap.add_argument("--check-fresh", metavar="REPO", nargs="?", const=REPO,
                    help="check the results committed in REPO (default: this checkout)")
    ap.add_argument("--machines", metavar="FOLDER", nargs="*",
                    help="write RESULTS/REPORT.md across the machine folders under "
                    "RESULTS/machines and these (a machine's folder, or a folder holding "
                    "machine folders); a malformed folder is refused with one line")
    a = ap.parse_args(argv[1:])
    if a.check_fresh:
        return fresh.main(a.check_fresh)
    if not a.results:
        ap.print_usage(sys.stderr)
        return 2
    try:
        if a.machines is not None:
            return report_machines(a.results, a.machines, a.build)
        return report(a.results, a.build)
    except (ReportError, OSError) as e:
        print(f"report: error: {e}", file=sys.stderr)
        return 1
