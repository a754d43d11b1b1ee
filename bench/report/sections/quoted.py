# SPDX-License-Identifier: MIT
"""What the report quotes from other tools' files: the kernel targets of
kernels.md (bench/run-kernels.sh) and the tables of hyperfine.md."""
import re

from ..fmt import NM


def write(rep, plot):
    rep.w("## Kernels", "")
    if rep.kernels_md is None:
        rep.w(f"kernels.md: {NM}" + (" (kernels.json is present)" if rep.kernels_json
                                      else "") + ".", "")
        return
    rep.w("The kernel microbenchmarks (Google Benchmark, `bench/run-kernels.sh`) are "
           "reported in [kernels.md](kernels.md)"
           + (" (raw data: [kernels.json](kernels.json))" if rep.kernels_json else "")
           + ". Its targets section, quoted:", "")
    lines = rep.kernels_md.splitlines()
    start = next((i for i, l in enumerate(lines)
                  if re.match(r"^#+\s*targets\b", l.strip(), re.I)), None)
    if start is None:
        rep.w("(kernels.md has no targets section)", "")
        return
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end = next((j for j in range(start + 1, len(lines))
                if re.match(r"^#{1,%d}\s" % level, lines[j])), len(lines))
    body = lines[start + 1:end]
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    rep.w(*[("> " + l) if l.strip() else ">" for l in body], "")

# ---------------------------------------------------------- g hyperfine
def write_hyperfine(rep, plot):
    rep.w("## Whole-process timings (hyperfine)", "")
    if rep.hyperfine is None:
        rep.w(f"hyperfine.md: {NM}.", "")
        return
    lines = rep.hyperfine.splitlines()
    # from the first table heading on; the header block is in the file
    start = next((i for i, l in enumerate(lines) if l.startswith("### ")), None)
    rep.w("From [hyperfine.md](hyperfine.md) (`bench/hyperfine.sh`; machine, commit and "
           "the exact command are in its header):", "")
    if start is None:
        rep.w("(hyperfine.md has no tables)", "")
    else:
        rep.w(*lines[start:], "")
