#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Copies the report across machines (RESULTS/REPORT.md, written by
`bench/report RESULTS --machines`) into README.md between the markers
<!-- results:begin --> and <!-- results:end -->: its opening (how the
machines are compared, and the check that holds each machine's numbers to
its commit), the machines, each one's targets counted, and the range of
every headline ratio across the machines with each machine's own; the
tables with a column per machine stay in the report, linked. So the
README quotes the suite's own files, never numbers typed by hand, and
stays short.

usage: readme-results.py RESULTS_DIR README"""
import os
import re
import sys

# (heading in REPORT.md, heading in the README)
QUOTED = [("Machines", "Machines"), ("Targets per machine", "Targets per machine"),
          ("Ranges across the machines", "Ranges across the machines")]


def sections(path):
    """(the text before the first section, {heading: its lines})."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    opening, out, cur = [], {}, None
    for line in lines[1:]:  # the title
        if line.startswith("## "):
            cur = line[3:]
            out[cur] = []
        elif cur is None:
            opening.append(line)
        else:
            out[cur].append(line)
    return "\n".join(opening).strip(), {k: "\n".join(v).strip() for k, v in out.items()}


def section(secs, path, start):
    got = [v for k, v in secs.items() if k.startswith(start)]
    if not got:
        sys.exit(f"readme-results.py: error: {path}: no section '{start}'")
    return got[0]


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped,
    spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def relink(text, res, readme):
    """The report's relative links, made relative to the README."""
    base = os.path.relpath(res, os.path.dirname(os.path.abspath(readme)) or ".")
    return re.sub(r"\]\((?![a-z]+:|#|/)([^)]+)\)",
                  lambda m: "](" + os.path.normpath(os.path.join(base, m.group(1))) + ")", text)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    res, readme = sys.argv[1], sys.argv[2]
    report = os.path.join(res, "REPORT.md")
    opening, secs = sections(report)
    # the ratios never travel without the check that holds them to their
    # commit and the statement of what each column is
    for must in ["every ratio is computed within one machine's run", "make check"]:
        if must not in opening:
            sys.exit(f"readme-results.py: error: {report}: its opening lacks '{must}' "
                     "(regenerate it with bench/report RESULTS --machines)")
    body = [f"From `{report}`, the machines side by side (each machine's whole report, "
            "with provenance, scaling, accuracy against μ and the precision boundary, is "
            "linked there):", "", opening]
    for start, heading in QUOTED:
        body += ["", f"### {heading}", "", section(secs, report, start)]
    tables = [k for k in secs if k not in [q for q, _ in QUOTED]
              and not k.startswith("Machine `")]
    body += ["", "In the report, with a column per machine: "
             + ", ".join(f"[{k}](REPORT.md#{anchor(k)})" for k in tables) + "."]
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    b, e = "<!-- results:begin -->", "<!-- results:end -->"
    if b not in text or e not in text:
        sys.exit(f"readme-results.py: error: {readme}: markers missing")
    quoted = relink("\n".join(body), os.path.abspath(res), readme)
    new = text[:text.index(b) + len(b)] + "\n" + quoted + "\n" + text[text.index(e):]
    tmp = readme + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(tmp, readme)


if __name__ == "__main__":
    main()
