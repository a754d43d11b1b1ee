#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Copies the headline of results/REPORT.md (section "Headline": the
commit the results were measured at, the default path beside the dense
path per ISA, hardsoft against the peers), its targets (section "Targets")
and the kernel targets of results/kernels.md into README.md between the
markers <!-- results:begin --> and <!-- results:end -->, so the README
quotes the suite's own files, never numbers typed by hand.

usage: readme-results.py RESULTS_DIR README"""
import os
import sys


def section(path, start):
    """Lines of the markdown section whose heading starts with `start`,
    without the heading, up to the next heading of the same level."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out, inside = [], False
    for line in lines:
        if line.startswith("## "):
            if inside:
                break
            inside = line[3:].startswith(start)
            continue
        if inside:
            out.append(line)
    if not out:
        sys.exit(f"readme-results.py: error: {path}: no section '{start}'")
    return "\n".join(out).strip()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    res, readme = sys.argv[1], sys.argv[2]
    report = os.path.join(res, "REPORT.md")
    kernels = os.path.join(res, "kernels.md")
    headline = section(report, "Headline")
    # the ratios never travel without the commit they describe, the check
    # that holds them to it, and what the peers compute
    musts = [] if "sweep-scaling.csv: not measured" in headline else \
        ["What each column computes"]
    if "not measured." not in headline.splitlines()[0]:
        musts += ["Measured on", "make check"]
    for must in musts:
        if must not in headline:
            sys.exit(f"readme-results.py: error: {report}: the headline lacks "
                     f"'{must}' (regenerate it with bench/report)")
    body = [f"From `{report}` (the forward pass; provenance, scaling, "
            "accuracy against μ and the precision boundary are there):", "",
            headline, "",
            "Every forward-pass target, each stated by what it compares, from the "
            f"same run (`{report}`, section Targets; the sections before it "
            "show the runs):", "",
            section(report, "Targets"), "",
            f"From `{kernels}` (kernel microbenchmarks against oneDNN, "
            "XNNPACK, Sleef and glibc):", "", section(kernels, "Targets")]
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    b, e = "<!-- results:begin -->", "<!-- results:end -->"
    if b not in text or e not in text:
        sys.exit(f"readme-results.py: error: {readme}: markers missing")
    new = text[:text.index(b) + len(b)] + "\n" + "\n".join(body) + "\n" + text[text.index(e):]
    tmp = readme + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(tmp, readme)


if __name__ == "__main__":
    main()
