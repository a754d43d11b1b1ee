# SPDX-License-Identifier: MIT
"""Do the published results describe the code that published them?
(bench/report/fresh.py; the policy is in its docstring.)

In short: results/ names the commit its numbers were measured at; the
commit that last changed the measured data under results/ (the CSVs,
kernels.json, hyperfine.md) publishes them, and between the two nothing
that affects the numbers may differ: src/ (not the Python binding), simd/,
include/, the suite's run code, the Makefile's compiler and flag variables.
Code committed after the results does not fail the check, nor does a
working tree changed by a local `make bench`: only git objects are read.

test_published_results checks this repository; the other tests build
small repositories that pass and fail each rule."""
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from report import fresh  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

HEADER = "formula,isa,n,seconds_median,commit\n"
MAKEFILE = "OPT ?= -O2\nCFLAGS_ALL = -std=c11 $(OPT) \\\n   -Wall\nCHECK_PKGS = gcc\n"


def git(repo, *args):
    p = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                        "-c", "commit.gpgsign=false", *args],
                       check=True, capture_output=True, text=True)
    return p.stdout.strip()


def commit(repo, files, msg):
    for path, text in files.items():
        p = repo / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", msg)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q")
    return r


def measured(c):
    return HEADER + f'"a S b",avx2,64,0.001,{c[:12]}\n'


def base(repo):
    return commit(repo, {"src/a.c": "int a;\n", "simd/k.c": "int k;\n", "Makefile": MAKEFILE,
                         "bench/run-suite.sh": "echo\n", "README.md": "x\n"}, "code")


def test_results_of_their_own_code(repo):
    m = base(repo)
    commit(repo, {"results/sweep-scaling.csv": measured(m)}, "results")
    pub, commits, problems = fresh.check(str(repo))
    assert commits == [m[:12]] and problems == []
    assert pub == git(repo, "rev-parse", "HEAD")


def test_code_after_the_results_is_no_failure(repo):
    m = base(repo)
    pub = commit(repo, {"results/sweep-scaling.csv": measured(m)}, "results")
    commit(repo, {"src/a.c": "int b;\n"}, "later code")
    (repo / "simd" / "k.c").write_text("int changed;\n")          # and a dirty tree
    (repo / "results" / "sweep-scaling.csv").write_text(measured("f" * 40))
    assert fresh.check(str(repo)) == (pub, [m[:12]], [])
    git(repo, "checkout", "--", ".")
    # the report's own files, the README, the Python binding: no matter
    commit(repo, {"results/REPORT.md": "r\n", "bench/report/x.py": "", "src/python/p.py": "",
                  "README.md": "y\n"}, "docs")
    assert fresh.check(str(repo))[2] == []


def test_results_published_with_other_code(repo):
    m = base(repo)
    commit(repo, {"src/a.c": "int b;\n", "bench/run-suite.sh": "echo 2\n",
                  "results/sweep-scaling.csv": measured(m)}, "code and results together")
    [p] = fresh.check(str(repo))[2]
    assert p.startswith(f"{m[:12]}: 2 file(s) that affect the results differ")
    assert "bench/run-suite.sh" in p and "src/a.c" in p


def test_flags(repo):
    m = base(repo)
    # a package list changes: not a flag
    commit(repo, {"Makefile": MAKEFILE.replace("gcc", "gcc clang"),
                  "results/sweep-scaling.csv": measured(m)}, "results")
    assert fresh.check(str(repo))[2] == []
    # a flag on a continuation line changes
    commit(repo, {"Makefile": MAKEFILE.replace("-Wall", "-Wall -funroll-loops"),
                  "results/sweep-scaling.csv": measured(m) + measured(m)[len(HEADER):]},
           "results again")
    [p] = fresh.check(str(repo))[2]
    assert "the Makefile's CFLAGS_ALL differ" in p


def test_dirty_and_unknown_commits(repo):
    m = base(repo)
    commit(repo, {"results/sweep-scaling.csv": measured(m).replace(m[:12], m[:12] + "+dirty")},
           "dirty results")
    [p] = fresh.check(str(repo))[2]
    assert "measured on uncommitted changes" in p
    commit(repo, {"results/sweep-scaling.csv": measured("0123456789ab")}, "foreign results")
    [p] = fresh.check(str(repo))[2]
    assert p == "0123456789ab: the measured commit is not in this repository"


def test_every_data_file_names_its_commit(repo):
    m = base(repo)
    kernels = ('{"context": {"hardsoft": {"git": {"commit": "%s", "dirty": false}}}}' % m)
    commit(repo, {"results/sweep-scaling.csv": measured(m), "results/kernels.json": kernels,
                  "results/hyperfine.md": f"| commit | `{m[:7]}` |\n"}, "results")
    assert fresh.check(str(repo))[1] == sorted({m, m[:12], m[:7]})
    m2 = commit(repo, {"src/a.c": "int c;\n"}, "code")
    commit(repo, {"results/sweep-scaling.csv": measured(m2)}, "only the sweeps rerun")
    # each file is judged against the commit that published it: the kernel
    # table and hyperfine.md, untouched, still describe their commit
    assert fresh.check(str(repo))[2] == []
    kernels2 = kernels.replace('"dirty": false', '"dirty": false, "n": 1')
    commit(repo, {"results/kernels.json": kernels2}, "republished, not remeasured")
    [p] = fresh.check(str(repo))[2]
    assert "src/a.c" in p


def test_two_sweeps_published_apart(repo):
    """A later sweep (another file) measured at a later commit does not
    make an earlier, untouched one stale."""
    m = base(repo)
    commit(repo, {"results/sweep-scaling.csv": measured(m)}, "suite")
    m2 = commit(repo, {"src/a.c": "int d;\n"}, "code")
    commit(repo, {"results/web-wasm.csv": measured(m2)}, "wasm rows")
    assert fresh.check(str(repo))[2] == []
    assert fresh.check(str(repo))[1] == sorted({m[:12], m2[:12]})


def test_moved_results_keep_their_publisher(repo):
    """Moving results into a machine's folder (a pure rename) after the
    code changed does not republish them; a move that also changes the
    content does."""
    m = base(repo)
    pub = commit(repo, {"results/sweep-scaling.csv": measured(m)}, "results")
    commit(repo, {"src/a.c": "int moved;\n"}, "code")
    git(repo, "mv", "results/sweep-scaling.csv", "results/sweep.csv")
    git(repo, "commit", "-qm", "rename")
    (repo / "results" / "machines" / "amd-f25-m17-s1-avx512").mkdir(parents=True)
    git(repo, "mv", "results/sweep.csv",
        "results/machines/amd-f25-m17-s1-avx512/sweep-scaling.csv")
    git(repo, "commit", "-qm", "move")
    assert fresh.check(str(repo)) == (pub, [m[:12]], [])
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "report"),
                        "--check-fresh", str(repo)], capture_output=True, text=True)
    assert p.returncode == 0
    assert p.stdout.startswith("results freshness: amd-f25-m17-s1-avx512: measured at ")
    path = "results/machines/amd-f25-m17-s1-avx512/sweep-scaling.csv"
    commit(repo, {path: measured(m) + measured(m)[len(HEADER):]}, "changed after the move")
    [p] = fresh.check(str(repo))[2]
    assert p.startswith(f"amd-f25-m17-s1-avx512: {m[:12]}: 1 file(s)") and "src/a.c" in p


def test_machines_judged_apart(repo):
    """A later run on another machine leaves an earlier machine's folder
    alone; a stale folder is named in its problem."""
    m = base(repo)
    commit(repo, {"results/machines/intel-f6-m167-s1-avx512/sweep-scaling.csv": measured(m)},
           "intel")
    m2 = commit(repo, {"src/a.c": "int e;\n"}, "code")
    commit(repo, {"results/machines/amd-f25-m17-s1-avx512/sweep-scaling.csv": measured(m2)},
           "amd")
    assert fresh.check(str(repo))[2] == []
    commit(repo, {"src/a.c": "int f;\n",
                  "results/machines/amd-f25-m17-s1-avx512/kernels.json":
                  '{"context": {"hardsoft": {"git": {"commit": "%s"}}}}' % m2}, "stale")
    [p] = fresh.check(str(repo))[2]
    assert p.startswith(f"amd-f25-m17-s1-avx512: {m2}: 1 file(s)")


def test_unanswerable(repo, tmp_path):
    base(repo)
    with pytest.raises(fresh.Unanswerable, match="no commit has published"):
        fresh.check(str(repo))
    with pytest.raises(fresh.Unanswerable, match="not a git checkout"):
        fresh.check(str(tmp_path / "nothing"))


def test_command_line(repo):
    m = base(repo)
    commit(repo, {"src/a.c": "int b;\n", "results/sweep-scaling.csv": measured(m)}, "r")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "report"),
                        "--check-fresh", str(repo)], capture_output=True, text=True)
    assert p.returncode == 1
    assert p.stdout.startswith(f"results freshness: {m[:12]}: 1 file(s) that affect")


def test_published_results():
    """This repository's results/ describe the code of the commit that
    published them."""
    try:
        pub, commits, problems = fresh.check(ROOT)
    except fresh.Unanswerable as e:
        pytest.skip(str(e))
    assert commits, "results/ name no commit"
    assert problems == [], "\n".join(problems)
