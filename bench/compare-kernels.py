# SPDX-License-Identifier: MIT
"""Merges the Google Benchmark JSON files of bench/compare-kernels.sh
(base=FILE and new=FILE, one per binary and round) into one comparison:
per row the fastest round of each side's time per iteration and their
ratio: on a shared machine other work only adds time, so a side's fastest
round is its least disturbed one. A row is *slower* when the new time
exceeds the base's by more than SLOWER (10%), *faster* the other way
round, otherwise the same within the noise. With --base-objs and
--new-objs (the two builds' object directories), a row slower beyond
SLOWER whose kernel (the symbol its label names) comes from an object with
the same instructions and constants in both builds is *same code*
instead: its kernel did not change, so the difference comes from where
the two binaries put their code and data (small rows move by up to ~30%
with placement alone), not from the kernel. Writes the JSON and a Markdown table, each
through a temporary file (no partial output); with --list-slower, only
prints the names of the rows slower so far, one a line (the script re-runs
those rows more rounds before its verdict). With --no-earlier, writes that
the machine (--machine ID) has no earlier results to compare with."""
import argparse
import json
import os
import statistics
import subprocess
import sys

SLOWER = 0.10
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def read_runs(specs):
    """{side: {name: [ns per iteration, one per round]}}, the context of
    the first new file and {name: label} (the kernel's symbol for
    hardsoft's rows)."""
    out, context, labels = {"base": {}, "new": {}}, {}, {}
    for spec in specs:
        side, _, path = spec.partition("=")
        if side not in out or not path:
            sys.exit(f"compare-kernels.py: '{spec}': expected base=FILE or new=FILE")
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"compare-kernels.py: {path}: {e}")
        if side == "new" and not context:
            context = data.get("context", {})
        for b in data.get("benchmarks", []):
            if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
                continue
            ns = b["real_time"] * UNIT_NS.get(b.get("time_unit", "ns"), 1.0)
            out[side].setdefault(b["name"], []).append(ns)
            if b.get("label"):
                labels[b["name"]] = b["label"]
    return out, context, labels


def tool(*argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"compare-kernels.py: {' '.join(argv)}: {e}")


class Objects:
    """The objects of one build (every .o under a directory): which one
    defines a symbol, and its code: the disassembly with relocations and
    the bytes of its constant and data sections, without the file name in
    the header and without debug sections (they name the build's paths)."""

    def __init__(self, root):
        if not os.path.isdir(root):
            sys.exit(f"compare-kernels.py: {root}: not a directory")
        self.where, self.cache = {}, {}
        paths = sorted(os.path.join(d, n) for d, _, names in os.walk(root)
                       for n in names if n.endswith(".o"))
        # one nm for all: "path:address type symbol" per line
        for line in (tool("nm", "-A", "--defined-only", *paths) if paths else "").splitlines():
            head, _, rest = line.rpartition(":")
            f = rest.split()
            if len(f) == 3 and f[1] in "TtWw":
                self.where.setdefault(f[2], head)

    def code(self, symbol):
        path = self.where.get(symbol)
        if path is None:
            return None
        if path not in self.cache:
            text = tool("objdump", "-d", "-r", "--no-show-raw-insn", path).splitlines()
            text = [l for l in text if "file format" not in l]
            for line in tool("objdump", "-h", path).splitlines():
                f = line.split()
                if len(f) >= 7 and f[0].isdigit() and f[1].startswith((".rodata", ".data")):
                    text += [l for l in tool("objdump", "-s", "-j", f[1], path).splitlines()
                             if "file format" not in l]
            self.cache[path] = "\n".join(text)
        return self.cache[path]


def same_code(label, base_objs, new_objs):
    """True when the symbol `label` is defined in both builds by objects
    with the same code."""
    if not label or base_objs is None or new_objs is None:
        return False
    a, b = base_objs.code(label), new_objs.code(label)
    return a is not None and a == b


def compare(runs, labels=None, base_objs=None, new_objs=None):
    rows = []
    for name in sorted(set(runs["base"]) & set(runs["new"])):
        base, new = runs["base"][name], runs["new"][name]
        mb, mn = min(base), min(new)
        ratio = mn / mb if mb > 0 else float("nan")
        slower, faster = ratio > 1 + SLOWER, ratio < 1 / (1 + SLOWER)
        verdict = "slower" if slower else "faster" if faster else "same"
        if slower and same_code((labels or {}).get(name), base_objs, new_objs):
            verdict = "same code"
        rows.append({"name": name, "base_ns": base, "new_ns": new, "base": mb, "new": mn,
                     "ratio": ratio, "verdict": verdict})
    return rows


def fmt_ns(v):
    return f"{v:.4g}"


NO_EARLIER = "no earlier results for this machine"


def markdown_none(doc):
    return ("# Kernels against this machine's earlier results\n\n"
            f"{NO_EARLIER[0].upper() + NO_EARLIER[1:]} (`{doc['machine']}`): this "
            f"checkout's history holds no results/machines/{doc['machine']}/kernels.json, so "
            "no kernel table measured on this CPU names a commit to compare with. The "
            "next `make bench` here compares with this run's.\n")


def markdown(doc):
    s = doc["summary"]
    lines = ["# Kernels against an earlier commit, side by side", "",
             f"Base: `{doc['base_commit'][:12]}` (the kernels of this machine's last "
             f"published results, results/machines/{doc.get('machine', '?')}); new: "
             f"`{doc['new_commit'][:13]}`. Machine: {doc['cpu']}. "
             f"Settings: {doc['settings']}; {doc['seconds']} s in all. Command: "
             "`sh bench/compare-kernels.sh` (run by `make bench`).", "",
             "Each side's time is its fastest round (other work on this shared machine "
             "only adds time). A row is *slower* when its new time exceeds the base's "
             f"by more than {100 * SLOWER:.0f}%, *faster* the other way round, "
             "otherwise *same* (within the noise). A row slower beyond that whose "
             "kernel's object code (instructions and constants) is identical in the two "
             "builds is *same code*: the kernel did not change, only where the two "
             "binaries put code and data, which moves small rows by up to ~30%.", "",
             "## Summary", "",
             f"- rows compared: {s['rows']}; slower: {len(s['slower'])}; faster: "
             f"{s['faster']}; same: {s['same']}; same code (slower, kernel unchanged): "
             f"{len(s['same_code'])}",
             f"- median ratio new / base over the rows: {s['median_ratio']:.3f}",
             f"- rows only at base: {len(doc['only_base'])}; only new: "
             f"{len(doc['only_new'])}", ""]
    if s["slower"]:
        lines += ["Slower rows: " + ", ".join(f"`{n}`" for n in s["slower"]) + ".", ""]
    if s["same_code"]:
        lines += ["Slower with the same kernel code: "
                  + ", ".join(f"`{n}`" for n in s["same_code"]) + ".", ""]
    lines += ["## Rows", "", "| row | base ns | new ns | new / base | verdict |",
              "|---|--:|--:|--:|---|"]
    for r in doc["rows"]:
        v = f"**{r['verdict']}**" if r["verdict"] == "slower" else r["verdict"]
        lines.append(f"| `{r['name']}` | {fmt_ns(r['base'])} | {fmt_ns(r['new'])} | "
                     f"{r['ratio']:.3f} | {v} |")
    return "\n".join(lines) + "\n"


def write_atomic(path, text):
    tmp = os.path.join(os.path.dirname(path) or ".", "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-commit")
    ap.add_argument("--new-commit")
    ap.add_argument("--settings", default="")
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--md")
    ap.add_argument("--base-objs", help="the base build's object directory")
    ap.add_argument("--new-objs", help="the new build's object directory")
    ap.add_argument("--list-slower", action="store_true",
                    help="print the slower rows' names, write nothing")
    ap.add_argument("--machine", help="the machine's ID (its folder results/machines/ID)")
    ap.add_argument("--no-earlier", action="store_true",
                    help="write that the machine has no earlier results; compare nothing")
    ap.add_argument("runs", nargs="*", help="base=FILE or new=FILE, one per round")
    a = ap.parse_args(argv)
    if a.no_earlier:
        if not (a.machine and a.json and a.md):
            ap.error("--no-earlier needs --machine, --json and --md")
        doc = {"machine": a.machine, "no_earlier": NO_EARLIER}
        write_atomic(a.json, json.dumps(doc, indent=1) + "\n")
        write_atomic(a.md, markdown_none(doc))
        return
    if not a.runs:
        ap.error("base=FILE and new=FILE are required")
    if not a.list_slower and not (a.json and a.md and a.base_commit and a.new_commit):
        ap.error("--base-commit, --new-commit, --json and --md are required "
                 "(or --list-slower)")
    runs, context, labels = read_runs(a.runs)
    if (a.base_objs is None) != (a.new_objs is None):
        ap.error("--base-objs and --new-objs go together")
    objs = (Objects(a.base_objs), Objects(a.new_objs)) if a.base_objs else (None, None)
    rows = compare(runs, labels, *objs)
    if a.list_slower:
        for r in rows:
            if r["verdict"] == "slower":
                print(r["name"])
        return
    if not rows:
        sys.exit("compare-kernels.py: the two sides have no row in common")
    verdicts = [r["verdict"] for r in rows]
    doc = {"machine": a.machine, "base_commit": a.base_commit, "new_commit": a.new_commit,
           "cpu": (context.get("hardsoft") or {}).get("cpu_model")
           or context.get("cpu_model", "unknown"),
           "settings": a.settings, "seconds": a.seconds, "threshold": SLOWER,
           "summary": {"rows": len(rows),
                       "slower": [r["name"] for r in rows if r["verdict"] == "slower"],
                       "faster": verdicts.count("faster"), "same": verdicts.count("same"),
                       "same_code": [r["name"] for r in rows if r["verdict"] == "same code"],
                       "median_ratio": statistics.median(r["ratio"] for r in rows)},
           "only_base": sorted(set(runs["base"]) - set(runs["new"])),
           "only_new": sorted(set(runs["new"]) - set(runs["base"])),
           "rows": rows}
    write_atomic(a.json, json.dumps(doc, indent=1) + "\n")
    write_atomic(a.md, markdown(doc))
    print(f"compare kernels: {len(rows)} rows, {len(doc['summary']['slower'])} slower, "
          f"{len(doc['summary']['same_code'])} slower with the same kernel code, "
          f"{doc['summary']['faster']} faster; wrote {a.md}")


if __name__ == "__main__":
    main()
