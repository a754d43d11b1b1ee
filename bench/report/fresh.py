# SPDX-License-Identifier: MIT
"""Do the published results describe the code that publishes them?

A file cannot name the commit that contains it, so each machine's folder
results/machines/ID names the commit its numbers were measured at (every
CSV row's `commit`, kernels.json, hyperfine.md), and this check compares
that commit with the commit that last changed the content of the measured
data (the CSVs, kernels.json, hyperfine.md, the stopped-run notes; not
REPORT.md, machine.json, the plots or the LaTeX tables, which bench/report
regenerates from the data at any time). A commit that only moves a file
(a rename with the same content) does not publish it anew, so results
moved into a machine's folder keep their publishing commit. Each folder
is judged on its own: a later `make bench` on another machine leaves an
earlier folder's answer alone.
Between the two, nothing that affects the numbers may differ: src/ (but
the Python binding), simd/, include/, the suite's run code (bench/ but the
report, the peers' code, bench/formulas.txt and bench/models/, the ort
peer in tests/onnx/, the C-RASP programs it times) and the Makefile's
compiler and flag variables.

The check reads git objects only, so it answers the same for every
checkout of a commit: code committed after the results is not a failure
(later code is described by the next `make bench`), and neither is a
working tree changed by a local `make bench`. It fails when a commit
publishes results measured at a commit whose code differs, measured on
uncommitted code (+dirty), or measured at a commit this history lacks.
It is skipped where it cannot be answered: outside a git checkout, in a
shallow clone that lacks the measured commit, or before any results are
committed.

    python3 bench/report --check-fresh [REPO]
"""
import csv
import io
import json
import re
import subprocess


def policy(commit):
    """The sentence REPORT.md and the README's results block carry."""
    return ("These numbers describe the code of the commit they were measured at: "
            "`make check` (tests/py/test_report_fresh.py) fails when a file that "
            "affects them — src/, simd/, include/, the suite's run code, the "
            "Makefile's compiler flags — differs between that commit and the commit "
            "that published these CSVs. What changed since: "
            f"`git diff --stat {commit} -- src simd include`.")


MEASURED = ["src", ":(exclude)src/python", "simd", "include", "bench",
            ":(exclude)bench/report", ":(exclude)bench/readme-results.py",
            ":(exclude)bench/kernels-report.py", ":(exclude)bench/kernels.gp",
            "tests/onnx/ort-run.js", "tests/programs"]
# (a pathspec's * matches across folders: these cover results/machines/*/)
DATA = ["results/*.csv", "results/*.json", "results/*hyperfine.md", "results/*-stopped.txt",
        ":(exclude)results/*machine.json", ":(exclude)results/*run.json"]
# Makefile variables whose value reaches the measured binaries or peers
FLAG_VARS = ["CC", "CXX", "OPT", "CFLAGS_ALL", "CXXFLAGS_ALL", "LDFLAGS_ALL", "KERNEL_FLAGS",
             "AVX2_FLAGS", "AVX512_FLAGS", "LIBS", "BENCH_LIBS", "OPENBLAS_FLAGS", "OPENBLAS_LIBS",
             "ORT_NODE_VERSION"]


class Unanswerable(Exception):
    """The check cannot be made here (reason in the message)."""


def git(repo, *args, check=True):
    p = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True,
                       timeout=60)
    if check and p.returncode != 0:
        raise Unanswerable(f"git {' '.join(args)}: {p.stderr.strip() or p.returncode}")
    return p.stdout if p.returncode == 0 else None


def commits_in(name, text):
    """The commits a data file names: the `commit` column of a CSV,
    kernels.json's context, hyperfine.md's commit row."""
    if name.endswith(".csv"):
        rows = csv.DictReader(io.StringIO(text))
        if not rows.fieldnames or "commit" not in rows.fieldnames:
            return set()
        return {r["commit"] for r in rows if r.get("commit")}
    if name.endswith(".json"):
        try:
            g = json.loads(text)["context"]["hardsoft"]["git"]
        except (ValueError, KeyError, TypeError):
            return set()
        return {g["commit"] + ("+dirty" if g.get("dirty") else "")} if g.get("commit") \
            else set()
    m = re.search(r"^\| commit \| `([^`]+)` \|", text, re.M)
    return {m.group(1)} if m else set()


def flag_lines(makefile):
    """{variable: its definition, continuation lines joined} of FLAG_VARS."""
    logical, cur = [], ""
    for line in makefile.splitlines():
        cur += line.rstrip("\\").rstrip() + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            logical.append(cur)
            cur = ""
    out = {}
    for line in logical:
        m = re.match(r"^([A-Z0-9_]+)\s*[?:]?=\s*(.*)$", line)
        if m and m.group(1) in FLAG_VARS:
            out[m.group(1)] = " ".join(m.group(2).split())
    return out


def last_change(repo, path):
    """(the commit that last changed path's content, the file's name
    there), following renames: a commit that only moved it (R100) is
    passed over."""
    log = git(repo, "log", "--follow", "-M", "--format=C %H", "--name-status", "--",
              path) or ""
    commit = None
    for line in log.splitlines():
        if line.startswith("C "):
            commit = line[2:].strip()
        elif line.strip() and commit and not line.startswith("R100\t"):
            return commit, line.split("\t")[-1]
    return None, path


def folder(path):
    """The machine a data file belongs to (results/machines/ID/...), or ''
    for the files directly under results/."""
    parts = path.split("/")
    return parts[2] if len(parts) > 3 and parts[1] == "machines" else ""


def published(repo):
    """{data file: (the commit that last changed it, the commits it
    names)}: each file is judged against its own publishing commit, since
    different sweeps (the suite, the wasm rows) and different machines are
    measured and published at different times."""
    out = {}
    for path in git(repo, "ls-files", "--", *DATA).split():
        base = path.rsplit("/", 1)[-1]
        if not (base.endswith((".csv", ".json")) or base == "hyperfine.md"):
            continue
        pub, then = last_change(repo, path)
        if pub:
            out[path] = (pub, commits_in(base, git(repo, "show", f"{pub}:{then}")))
    return out


def compare(repo, measured, pub, shallow):
    """Problems between a measured commit and the commit publishing it."""
    base = measured.split("+")[0]
    if "+dirty" in measured:
        return [f"{measured}: measured on uncommitted changes, which no commit holds"]
    full = git(repo, "rev-parse", "--verify", "--quiet", base + "^{commit}", check=False)
    if full is None:
        if shallow == "true":
            raise Unanswerable(f"shallow clone: the measured commit {base} is not in it")
        return [f"{base}: the measured commit is not in this repository"]
    full, problems = full.strip(), []
    changed = git(repo, "diff", "--name-only", full, pub, "--", *MEASURED).split()
    if changed:
        problems.append(f"{base}: {len(changed)} file(s) that affect the results differ "
                        f"in {pub[:12]}, which publishes them: " + ", ".join(changed[:8])
                        + (" ..." if len(changed) > 8 else ""))
    was = flag_lines(git(repo, "show", f"{full}:Makefile", check=False) or "")
    now = flag_lines(git(repo, "show", f"{pub}:Makefile", check=False) or "")
    flags = sorted(v for v in set(was) | set(now) if was.get(v) != now.get(v))
    if flags:
        problems.append(f"{base}: the Makefile's {', '.join(flags)} differ in "
                        f"{pub[:12]}, which publishes the results")
    return problems


def check(repo):
    """(newest publishing commit, measured commits, problems); Unanswerable
    where the question cannot be answered in this checkout."""
    if git(repo, "rev-parse", "--is-inside-work-tree", check=False) is None:
        raise Unanswerable("not a git checkout")
    files = published(repo)
    if not files:
        raise Unanswerable("no commit has published results/ yet")
    shallow = (git(repo, "rev-parse", "--is-shallow-repository", check=False) or "").strip()
    problems, commits, seen = [], set(), set()
    for path, (pub, named) in sorted(files.items()):
        commits |= named
        where = folder(path)
        for c in sorted(named):
            if (where, c, pub) not in seen:
                seen.add((where, c, pub))
                problems += [f"{where}: {p}" if where else p
                             for p in compare(repo, c, pub, shallow)]
    if not commits:
        problems.append("the published results name no commit")
    return newest(repo, [pub for pub, _ in files.values()]), sorted(commits), problems


def newest(repo, commits):
    """The latest of some commits, by committer date."""
    return max(commits, key=lambda c: int(git(repo, "log", "-1", "--format=%ct", c).strip()
                                          or 0))


def per_folder(repo):
    """{machine folder ('' for results/ itself): (its newest publishing
    commit, the commits its files name)}, for the summary line of each."""
    pubs, names = {}, {}
    for path, (pub, named) in published(repo).items():
        pubs.setdefault(folder(path), []).append(pub)
        names.setdefault(folder(path), set()).update(named)
    return {f: (newest(repo, pubs[f]), names[f]) for f in pubs}


def main(repo):
    try:
        pub, commits, problems = check(repo)
    except Unanswerable as e:
        print(f"results freshness: not checked: {e}")
        return 0
    for p in problems:
        print(f"results freshness: {p}")
    if not problems:
        for where, (p, named) in sorted(per_folder(repo).items()):
            print(f"results freshness: {where + ': ' if where else ''}measured at "
                  f"{', '.join(sorted(named))}; nothing that affects them differs in "
                  f"{p[:12]}, which publishes them")
    return 1 if problems else 0
