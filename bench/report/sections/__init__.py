# SPDX-License-Identifier: MIT
"""One module per section of REPORT.md, each with write(rep, plot) and,
where the section has targets, targets(rep): its rows of the targets
table."""
