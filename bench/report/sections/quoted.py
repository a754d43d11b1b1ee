# SPDX-License-Identifier: MIT
"""What the report quotes from other tools' files: the kernel targets of
kernels.md (bench/run-kernels.sh) and the tables of hyperfine.md."""
import re

from ..fmt import NM, mark, quote_md


def write(rep, plot):
    rep.w("## Kernels", "")
    write_targets(rep)
    write_compare(rep)


def write_targets(rep):
    """kernels.md's targets section, quoted."""
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


COMPARE_TARGET = "no kernel row slower than at this machine's last published results"


def compare_rows(rep):
    """The comparison's rows if kernels-compare.json is whole, else None."""
    c = rep.kernels_compare
    if not isinstance(c, dict) or not isinstance(c.get("summary"), dict) \
            or not isinstance(c.get("rows"), list):
        return None
    return c


def no_earlier(rep):
    """"no earlier results for this machine (ID)" when the comparison had
    no results of this machine to compare with, else None."""
    c = rep.kernels_compare
    if isinstance(c, dict) and isinstance(c.get("no_earlier"), str):
        return f"{c['no_earlier']} (`{c.get('machine') or '?'}`)"
    return None


def write_compare(rep):
    """The kernel rows at this commit against the last published ones,
    run side by side (bench/compare-kernels.sh): the summary and the
    slower rows."""
    c = compare_rows(rep)
    if c is None:
        none = no_earlier(rep)
        rep.w("Kernel rows against this machine's last published ones: "
              + (f"{none}: nothing to compare with." if none else
                 f"{NM} (kernels-compare.json)."), "")
        return
    s = c["summary"]
    here = (rep.machine or {}).get("id")
    if c.get("machine") and here and c["machine"] != here:
        rep.w(f"kernels-compare.json was measured on `{c['machine']}`, not on this folder's "
              f"machine `{here}`: it does not belong here.", "")
        return
    rep.w("Against this machine's last published kernels ([kernels-compare.md]"
          f"(kernels-compare.md), `bench/compare-kernels.sh`): `{c['base_commit'][:12]}`'s "
          "hs-bench-kernels "
          f"and this commit's run in turn on this machine ({c['settings']}), each row's "
          f"fastest round compared: {s['rows']} rows, {len(s['slower'])} slower by more "
          f"than {100 * c['threshold']:.0f}%, {s['faster']} faster, median ratio new / "
          f"base {s['median_ratio']:.3f}.", "")
    same = s.get("same_code") or []
    if same:
        rep.w(f"{len(same)} more rows were slower by more than "
              f"{100 * c['threshold']:.0f}% with their kernel's object code identical in "
              "both builds (*same code*: only the two binaries' layout differs, see "
              "kernels-compare.md); they do not count as slower.", "")
    slow = [r for r in c["rows"] if r.get("verdict") in ("slower", "same code")]
    if slow:
        rep.table(["slower row", "base ns", "new ns", "new / base", "verdict"],
                  [[f"`{r['name']}`", f"{r['base']:.4g}", f"{r['new']:.4g}",
                    f"{r['ratio']:.2f}×", r["verdict"]] for r in slow],
                  ["---", "--:", "--:", "--:", "---"])


def targets(rep):
    c = compare_rows(rep)
    run = "kernel rows, base and new hs-bench-kernels in turn"
    here = (rep.machine or {}).get("id")
    if c is not None and c.get("machine") and here and c["machine"] != here:
        return [[COMPARE_TARGET, run, f"measured on `{c['machine']}`, not `{here}`", "—",
                 f"**{NM}**"]]
    if c is None:
        return [[COMPARE_TARGET, run, no_earlier(rep) or NM, "—", f"**{NM}**"]]
    s = c["summary"]
    got = (f"{len(s['slower'])} of {s['rows']} rows slower than at "
           f"{c['base_commit'][:12]} by > {100 * c['threshold']:.0f}%")
    if s.get("same_code"):
        got += f" ({len(s['same_code'])} more with identical kernel code)"
    return [[COMPARE_TARGET, run, got, f"{s['median_ratio']:.2f}× (median)",
             mark(not s["slower"])]]

# ---------------------------------------------------------- g hyperfine
def write_hyperfine(rep, plot):
    rep.w("## Whole-process timings (hyperfine)", "")
    # from the first table heading on; the header block is in the file
    quote_md(rep, "hyperfine.md", rep.hyperfine, "### ",
             "From [hyperfine.md](hyperfine.md) (`bench/hyperfine.sh`; machine, commit and "
             "the exact command are in its header):", "(hyperfine.md has no tables)")
