# SPDX-License-Identifier: MIT
"""A machine's REPORT.md, its plots, LaTeX tables and machine.json from the
CSV files of `make bench` in its folder; results/REPORT.md across the
machine folders.

    /usr/bin/python3 bench/report results/machines/ID
    /usr/bin/python3 bench/report results --machines [FOLDER...]

Modules: reading (the CSV, JSON and text inputs), fmt (cells and Markdown
tables), tex (the same tables as booktabs LaTeX), fit (growth exponents),
plots (gnuplot), compare (target rows: one run against its baseline),
context (the report being written), fresh (do the published results
describe the code that published them), machine (a folder's provenance,
machine.json), machines (the folders of the report across machines and
the checks that refuse one), across (that report), and one module per
section of a machine's report under sections/. Standard library only; deterministic: every number comes from
the files in RESULTS_DIR, nothing from a clock, git or the machine
running the report."""
