# SPDX-License-Identifier: MIT
"""The golden corpus: what the command line prints and writes for every
program of tests/programs/, every formula of bench/formulas.txt and
tests/formulas.txt, in every mode, recorded once and compared on every
`make check`, so that moving code around inside the library cannot change
a model unnoticed.

For each source and mode it records `compile --print`, the SHA-256 of the
model file `compile -o` writes (the file holds no version or date, so
every byte must stay) and `eval` on a few strings: the bits, and the
output values to 6 significant digits (the last bits of a value may move
with the kernels; the decisions may not). Counting sources are also
compiled with `--sign temp`.

    golden.py check    compare with tests/golden/expected/ (exit 1 on a
                       difference, naming the first differing line)
    golden.py update   rewrite tests/golden/expected/
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPECTED = os.path.join(ROOT, "tests", "golden", "expected")
HS = os.path.join(ROOT, os.environ.get("BUILD", "build"), "hardsoft")
MODES = ["hard", "pe", "temp", "fixed", "rel"]
LTL_STRINGS = ["", "a", "abcab", "ccab#b0Aa", "aabbccabcabc#bbaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbba"]


def formulas(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.strip() and not line.startswith("#"):
                yield line


def program_strings(path):
    """Token strings over the tokens the program names (plus one it does
    not), a few shapes: short, alternating, long runs."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    toks = sorted({t for t in re.findall(r'"([^"\s\\]+)"', text)}) or ["a", "b"]
    toks.append("zz")
    k = len(toks)
    seqs = [[toks[0]], toks[:], [toks[i % k] for i in range(2 * k + 1)],
            [toks[(i * 7 + 3) % k] for i in range(13)],
            [toks[0]] * 9 + [toks[-2]] * 3]
    return [" ".join(s) for s in seqs]


def run(args):
    p = subprocess.run([HS] + args, capture_output=True, text=True)
    out = p.stdout if p.returncode == 0 else ""
    err = p.stderr.strip() if p.returncode != 0 else ""
    return p.returncode, out, err


def eval_lines(src_args, mode_args, strings):
    # a program's strings hold one token it does not name, read as `other`
    rc, out, err = run(["eval"] + mode_args + ["--json", "--quiet", "--threads", "1",
                                               "--unknown", "other"] + src_args + strings)
    if rc != 0:
        return ["eval: exit %d: %s" % (rc, err)]
    lines = []
    for r in json.loads(out)["results"]:
        vals = " ".join("%.6g" % v for v in r.get("values", []))
        lines.append("eval %r: %s [%s]" % (r["input"], r["bits"], vals))
    return lines


def record(src_args, strings, counting, tmp):
    """Every mode (and --sign temp for counting sources) of one source;
    src_args end with "--" (or the formula after it), the strings follow."""
    variants = [["--mode", m] for m in MODES]
    if counting:
        variants += [["--mode", m, "--sign", "temp"] for m in ("hard", "temp")]
    lines = []
    for v in variants:
        lines.append("--- " + " ".join(v))
        rc, out, err = run(["compile"] + v + ["--print"] + src_args)
        if rc != 0:
            lines.append("compile: exit %d: %s" % (rc, err))
            continue
        lines.extend(out.rstrip("\n").split("\n"))
        path = os.path.join(tmp, "m.st")
        rc, _, err = run(["compile"] + v + ["-o", path] + src_args)
        if rc != 0:
            lines.append("save: exit %d: %s" % (rc, err))
        else:
            with open(path, "rb") as f:
                lines.append("file sha256 " + hashlib.sha256(f.read()).hexdigest())
            os.unlink(path)
        lines.extend(eval_lines(src_args, v, strings))
    return lines


def corpus(tmp):
    """(name of the expected file, its lines)."""
    for fname, stem in (("bench/formulas.txt", "bench-formulas"),
                        ("tests/formulas.txt", "tests-formulas")):
        lines = []
        for f in formulas(fname):
            lines.append("=== " + f)
            lines += record(["--", f], LTL_STRINGS, "#<" in f or "#>" in f, tmp)
        yield stem + ".txt", lines
    pdir = os.path.join(ROOT, "tests", "programs")
    for name in sorted(os.listdir(pdir)):
        path = os.path.join(pdir, name)
        lines = ["=== " + name] + record(["-f", path, "--"], program_strings(path),
                                         name.endswith(".cr"), tmp)
        yield "program-" + name + ".txt", lines


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    if mode not in ("check", "update"):
        sys.exit("usage: golden.py check|update")
    bad = 0
    seen = set()
    with tempfile.TemporaryDirectory() as tmp:
        for name, lines in corpus(tmp):
            seen.add(name)
            text = "\n".join(lines) + "\n"
            path = os.path.join(EXPECTED, name)
            if mode == "update":
                os.makedirs(EXPECTED, exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    want = f.read()
            except OSError:
                print("golden: %s: no expected file (golden.py update records it)" % name)
                bad += 1
                continue
            if want != text:
                bad += 1
                w, g = want.split("\n"), text.split("\n")
                i = next((k for k in range(min(len(w), len(g))) if w[k] != g[k]), min(len(w), len(g)))
                head = next((w[k] for k in range(i, -1, -1) if k < len(w) and w[k].startswith("===")), "")
                print("golden: %s line %d (%s): want %r, got %r" %
                      (name, i + 1, head, w[i] if i < len(w) else "<end>", g[i] if i < len(g) else "<end>"))
    if mode == "check":
        for extra in sorted(set(os.listdir(EXPECTED)) - seen):
            print("golden: %s: expected file without a source" % extra)
            bad += 1
    print("golden: %d files, %d differ" % (len(seen), bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
