#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Copies the headline of results/REPORT.md (section "Headline": the
commit the results were measured at, the default path beside the dense
path per ISA, hardsoft against the peers) into README.md between the
markers <!-- results:begin --> and <!-- results:end -->, with how many of
its targets (section "Targets") and of the kernel targets of
results/kernels.md are met, missed or not measured and a link to each
table, so the README quotes the suite's own files, never numbers typed by
hand, and stays short.

usage: readme-results.py RESULTS_DIR README"""
import os
import re
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


def tally(table):
    """'41 met, 2 missed': the rows of a targets table by their status, the
    last bold cell of a row."""
    counts = {}
    for line in table.splitlines():
        found = re.findall(r"\|\s*\*\*([^*|]+)\*\*\s*(?=\|)", line)
        if found:
            counts[found[-1]] = counts.get(found[-1], 0) + 1
    if not counts:
        return "none listed"
    return ", ".join(f"{n} {s}" for s, n in sorted(counts.items(), key=lambda c: -c[1]))


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
    here = os.path.dirname(os.path.abspath(readme))
    rel = {f: os.path.relpath(f, here) for f in (report, kernels)}
    body = ["From `results/REPORT.md` (the forward pass; provenance, scaling, "
            "accuracy against μ and the precision boundary are there):", "",
            headline, "",
            "The targets, each stated by what it compares: for the forward pass "
            f"{tally(section(report, 'Targets'))} "
            f"([{rel[report]}, section Targets]({rel[report]}#targets)); for the kernels, "
            "against oneDNN, XNNPACK, Sleef and glibc, "
            f"{tally(section(kernels, 'Targets'))} "
            f"([{rel[kernels]}, section Targets]({rel[kernels]}#targets))."]
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
