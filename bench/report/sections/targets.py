# SPDX-License-Identifier: MIT
"""Every target of the forward pass in one table, each row from the
section (and the CSV) that measures it."""
from ..compare import TARGET_HEAD
from . import (boundary, counting_scale, depth, hard_f64, headline, quoted, skipping, threads,
               widths)

SOURCES = [headline, skipping, threads, widths, depth, hard_f64, boundary, counting_scale,
           quoted]


def rows(rep):
    return [r for m in SOURCES for r in m.targets(rep)]


def write(rep, plot):
    rep.w("## Targets", "")
    rep.w("Each row compares runs of one `hardsoft bench` invocation (same "
          "process, same string, interleaved in time); ratios are of medians. Each "
          "target names what it compares; the sections above show the runs.", "")
    rep.table(TARGET_HEAD, rows(rep), tex_name="targets",
              note="forward-pass targets: runs compared, ratio of medians")
    rep.w("Peak memory is the forward pass's own accounting of the buffers it "
          "holds at once (the CSV `peak_bytes`), not the process's resident size.", "")
