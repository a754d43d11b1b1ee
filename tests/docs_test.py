# SPDX-License-Identifier: MIT
"""Runs every `$ command` example of README.md and docs/*.md and compares
what it prints with what the document shows, so the documentation cannot
drift from the program.

An example is a line starting with `$ ` inside a fenced block; the lines
after it, up to the next `$ ` line or the end of the block, are its
expected output (standard output and standard error together, in order).
In the expected output a line `...` stands for any number of lines, and
`...` inside a line for any text (for what depends on the machine, such as
the instruction set).
Commands run with `sh -c` in a scratch directory in which `build`, `bench`,
`tests`, `src` and `docs` point into the checkout (`build` to $BUILD), so an
example may write files without touching the tree.

usage: docs_test.py REPO_ROOT [FILE.md ...]"""
import os
import re
import subprocess
import sys
import tempfile
from typing import List, Tuple


Example = Tuple[int, str, List[str]]
MARK = "@@hardsoft-docs-test@@"


def blocks(path: str) -> List[List[Example]]:
    """The examples of every fenced block: (line number, command, expected
    output lines)."""
    out: List[List[Example]] = []
    fence = False
    cur: List[Example] = []
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("```"):
                if fence and cur:
                    out.append(cur)
                cur = []
                fence = not fence
                continue
            if not fence:
                continue
            if line.startswith("$ "):
                cur.append((no, line[2:], []))
            elif cur:
                cur[-1][2].append(line)
    return out


def run_block(block: List[Example], cwd: str) -> List[List[str]]:
    """Runs a block's commands in one shell, in order (so `echo $?` sees
    the command before it), and returns each one's output lines."""
    # the marker keeps $? of the command before it
    script = "".join(f"hs_rc=$?; echo '{MARK}'; (exit $hs_rc)\n{cmd}\n"
                     for _, cmd, _ in block)
    r = subprocess.run(["sh", "-c", "exec 2>&1\n" + script], cwd=cwd,
                       capture_output=True, text=True, timeout=300)
    parts = r.stdout.split(MARK + "\n")[1:]
    parts += [""] * (len(block) - len(parts))
    return [p.splitlines() for p in parts]


def line_matches(want: str, got: str) -> bool:
    """A line, where '...' inside it stands for any text."""
    if "..." not in want:
        return want == got
    pattern = ".*".join(re.escape(part) for part in want.split("..."))
    return re.fullmatch(pattern, got) is not None


def matches(want: List[str], got: List[str]) -> bool:
    """want against got, where a line '...' matches any run of lines."""
    if not want:
        return not got
    if want[0] == "...":
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and line_matches(want[0], got[0]) and matches(want[1:], got[1:])


def main(argv: List[str]) -> int:
    root = os.path.abspath(argv[1])
    files = argv[2:] or [os.path.join(root, "README.md")] + sorted(
        os.path.join(root, "docs", f) for f in os.listdir(os.path.join(root, "docs"))
        if f.endswith(".md"))
    build = os.environ.get("BUILD", "build")
    failed = total = 0
    with tempfile.TemporaryDirectory() as scratch:
        for name, target in (("build", build), ("bench", "bench"), ("tests", "tests"), ("src", "src"),
                             ("docs", "docs")):
            os.symlink(os.path.join(root, target), os.path.join(scratch, name))
        for path in files:
            for block in blocks(path):
                outs = run_block(block, scratch)
                for (no, cmd, want), got in zip(block, outs):
                    total += 1
                    # the trailing blank lines of a block are not part of the output
                    while want and want[-1] == "":
                        want = want[:-1]
                    if matches(want, got):
                        continue
                    failed += 1
                    rel = os.path.relpath(path, root)
                    print(f"FAIL {rel}:{no}: $ {cmd}")
                    for w in want:
                        print(f"  want| {w}")
                    for g in got:
                        print(f"  got | {g}")
    print(f"docs: {total - failed} of {total} examples print what the documents show")
    return 1 if failed or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
