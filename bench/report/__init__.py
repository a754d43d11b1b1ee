# SPDX-License-Identifier: MIT
"""results/REPORT.md, its plots and its LaTeX tables from the CSV files of
`make bench`.

    /usr/bin/python3 bench/report RESULTS_DIR

Modules: reading (the CSV, JSON and text inputs), fmt (cells and Markdown
tables), tex (the same tables as booktabs LaTeX), fit (growth exponents),
plots (gnuplot), compare (target rows: one run against its baseline),
context (the report being written), fresh (do the published results
describe the code that published them), and one module per section under
sections/. Standard library only; deterministic: every number comes from
the files in RESULTS_DIR, nothing from a clock, git or the machine
running the report."""
