# SPDX-License-Identifier: MIT
"""The samples in examples/ give the outputs examples/expected.tsv lists:
through the Python package in every mode, through its ground truth, and
through the command line; every sample formula and program has a row."""
import glob
import os
import subprocess

import pytest

from conftest import BUILD, ROOT
import hardsoft

EX = os.path.join(ROOT, "examples")
LANG = {".cr": "crasp", ".brasp": "brasp"}


def rows():
    with open(os.path.join(EX, "expected.tsv"), encoding="utf-8") as f:
        return [tuple(l.rstrip("\n").split("\t")) for l in f
                if l.strip() and not l.startswith("# ")]


def source(src):
    """(text, lang, CLI arguments) of a row's source."""
    lang = LANG.get(os.path.splitext(src)[1])
    if lang:
        path = os.path.join(EX, src)
        with open(path, encoding="utf-8") as f:
            return f.read(), lang, ["-f", path]
    return src, "ltl", [src]


def test_every_sample_has_expected_outputs():
    sources = {r[0] for r in rows()}
    assert all(len(r) == 3 for r in rows())
    with open(os.path.join(EX, "formulas.txt"), encoding="utf-8") as f:
        formulas = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    programs = [os.path.relpath(p, EX) for p in glob.glob(os.path.join(EX, "programs", "*"))]
    assert formulas and programs
    assert set(formulas) | set(programs) <= sources


@pytest.mark.parametrize("mode", ["hard", "pe", "temp", "rel"])
def test_samples_give_the_expected_outputs(mode):
    for src, text_in, want in rows():
        text, lang, _ = source(src)
        m = hardsoft.compile(text, mode=mode, scale=8, lang=lang)
        got = m.eval(text_in, unknown="other")
        assert "".join(map(str, got)) == want, (src, mode, text_in)
        assert "".join(map(str, m.truth(text_in, unknown="other"))) == want, (src, text_in)


def test_samples_on_the_command_line():
    for src, text_in, want in rows():
        _, _, args = source(src)
        r = subprocess.run([os.path.join(BUILD, "hardsoft"), "eval"] + args +
                           ["--mode", "temp", "--scale", "8", "--unknown", "other",
                            "--", text_in],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == want, (src, text_in)
