# SPDX-License-Identifier: MIT
"""Program models read tokens: a string split at whitespace as the command
line's --tokens does, or a token list; one output per token from eval,
values, truth, attention and run_batch, also on models loaded from files;
formula models keep one byte per position."""
import os
import subprocess

import numpy as np
import pytest

from conftest import BUILD, ROOT
import hardsoft

HS = os.path.join(BUILD, "hardsoft")
MULTI = os.path.join(ROOT, "tests", "programs", "multichar.brasp")
COUNT3 = os.path.join(ROOT, "tests", "programs", "count3.cr")


def program(path, lang, mode="temp"):
    with open(path, encoding="utf-8") as f:
        return hardsoft.compile(f.read(), mode=mode, scale=8, lang=lang)


def cli(args, inputs):
    r = subprocess.run([HS, "eval"] + args + ["--"] + inputs, capture_output=True,
                       text=True, check=True)
    return r.stdout.split("\n")[:len(inputs)]


def test_crasp_one_output_per_token():
    m = program(COUNT3, "crasp", "hard")
    assert m.reads_tokens and set(m.vocab) == {"a", "b", "c"}
    assert len(m.eval("a a b")) == 3
    assert m.eval("a b c").tolist() == m.eval(tokens=["a", "b", "c"]).tolist() == [0, 0, 1]
    assert m.eval("  a\tb\n c ").tolist() == [0, 0, 1]          # any whitespace
    assert len(m.values("a a b b")) == 4 and len(m.truth("a a b b")) == 4
    inputs = ["a b c", "a a b b c c", "c", "a x b"]
    want = cli(["-f", COUNT3, "--mode", "hard"], inputs)
    assert ["".join(map(str, m.eval(s))) for s in inputs] == want


def test_brasp_multicharacter_tokens():
    m = program(MULTI, "brasp")
    assert m.vocab == {"<p>": 128, "</p>": 129, "word": 130, '"q\\': 131}
    inputs = ["<p> word </p> </p>", "word </p> <p> </p> word", "", "unknown word"]
    want = cli(["-f", MULTI, "--scale", "8"], inputs)
    for s, w in zip(inputs, want):
        assert "".join(map(str, m.eval(s))) == w
        assert (m.eval(s) == m.truth(s)).all()
        assert (m.eval(tokens=s.split()) == m.eval(s)).all()
    b = m.run_batch(inputs + [["<p>", "word"]])
    assert b.lengths.tolist() == [4, 5, 0, 2, 2]
    assert ["".join(map(str, x)) for x in b.split()[:4]] == want


def test_loaded_program_models_read_tokens_and_keep_their_truth(tmp_path):
    m = program(MULTI, "brasp")
    p = tmp_path / "m.safetensors"
    m.save(p)
    back = hardsoft.load(p)
    s = "<p> word </p> </p> word"
    assert back.vocab == m.vocab and back.lang == "brasp"
    assert (back.eval(s) == m.eval(s)).all() and (back.truth(s) == m.truth(s)).all()
    # the command line reads the file Model.save wrote, tokens included
    r = subprocess.run([HS, "run", str(p), s], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "".join(map(str, m.eval(s)))
    # a file from the command line: tokens yes, the program's source no
    q = tmp_path / "cli.safetensors"
    subprocess.run([HS, "compile", "-f", MULTI, "-o", str(q)], check=True)
    c = hardsoft.load(q)
    assert c.reads_tokens and (c.eval(s) == m.eval(s)).all()
    with pytest.raises(hardsoft.Error, match="no truth"):
        c.truth(s)


def test_attention_and_pictures_label_tokens(tmp_path):
    m = program(MULTI, "brasp")
    s = "<p> word </p>"
    att = m.attention(s)
    assert att[0].labels == ["BOS", "<p>", "word", "</p>"]
    assert all(L.weights.shape[1:] == (4, 4) for L in att)
    assert (np.array([L.weights.shape[1] for L in m.attention(tokens=s.split())]) == 4).all()
    out = tmp_path / "a.svg"
    first = next(l for l, L in enumerate(att) if L.weights.shape[0])  # a layer with heads
    hardsoft.plot_attention(m, s, out, layer=first)
    assert "word" in out.read_text()


def test_formula_models_keep_bytes():
    m = hardsoft.compile("a S b", mode="pe")
    assert not m.reads_tokens and m.vocab == {}
    assert len(m.eval("a a b")) == 5
    assert m.eval(tokens=["c", "a", "b"]).tolist() == m.eval("cab").tolist()
    with pytest.raises(hardsoft.Error, match="one byte"):
        m.eval(tokens=["ab"])


def test_bad_tokens():
    m = program(MULTI, "brasp")
    for bad in (["a b"], [""], "abc", [3], None):
        with pytest.raises(hardsoft.Error):
            m.eval(tokens=bad)
    with pytest.raises(hardsoft.Error):
        m.eval("word", tokens=["word"])              # both
    with pytest.raises(hardsoft.Error):
        m.eval()                                     # neither
    with pytest.raises(hardsoft.Error):
        m.run_batch("word")


def test_package_docstring_examples():
    import doctest
    r = doctest.testmod(hardsoft, verbose=False)
    assert r.attempted >= 5 and r.failed == 0
