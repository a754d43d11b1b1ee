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
    inputs = ["a b c", "a a b b c c", "c", "a x b"]     # x: read as `other` on request
    want = cli(["-f", COUNT3, "--mode", "hard", "--unknown", "other"], inputs)
    assert ["".join(map(str, m.eval(s, unknown="other"))) for s in inputs] == want
    with pytest.raises(hardsoft.Error, match=r"unknown token 'x' \(token 2, byte 3\)"):
        m.eval("a x b")
    with pytest.raises(hardsoft.Error, match="'a b' run together"):
        m.eval("ab")


def test_brasp_multicharacter_tokens():
    m = program(MULTI, "brasp")
    assert m.vocab == {"<p>": 128, "</p>": 129, "word": 130, '"q\\': 131}
    inputs = ["<p> word </p> </p>", "word </p> <p> </p> word", "", "unknown word"]
    want = cli(["-f", MULTI, "--scale", "8", "--unknown", "other"], inputs)
    for s, w in zip(inputs, want):
        assert "".join(map(str, m.eval(s, unknown="other"))) == w
        assert (m.eval(s, unknown="other") == m.truth(s, unknown="other")).all()
        assert (m.eval(tokens=s.split(), unknown="other") == m.eval(s, unknown="other")).all()
    b = m.run_batch(inputs + [["<p>", "word"]], unknown="other")
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


DYCK1 = os.path.join(ROOT, "tests", "programs", "dyck1.cr")


def test_unknown_tokens_are_errors_unless_asked_for(tmp_path):
    # the example: "abaa" was one unknown token, read as `other`
    m = program(DYCK1, "crasp", "pe")
    p = tmp_path / "d.safetensors"
    m.save(p)
    for model in (m, hardsoft.load(p)):
        for call in (model.eval, model.values, model.truth, model.attention, model.encode):
            with pytest.raises(hardsoft.Error, match=r"^unknown token 'abaa' \(token 1, byte 1\): "
                               r"not in the vocabulary \( \) \(unknown='other'"):
                call("abaa")
        with pytest.raises(hardsoft.Error, match=r"'\(\(\)' \(token 1, byte 1\): it is "
                           r"'\( \( \)' run together; separate tokens by spaces"):
            model.eval("(()")
        with pytest.raises(hardsoft.Error, match="unknown token 'x'"):
            model.run_batch(["( )", ["(", "x"]])
        with pytest.raises(hardsoft.Error, match="unknown token 'x'"):
            model.token_batch(["( x"])
        assert model.eval("abaa", unknown="other").tolist() == [1]
        assert model.eval("( ( )").tolist() == [0, 0, 0]
    with pytest.raises(hardsoft.Error, match="unknown='maybe' is not 'error' or 'other'"):
        m.eval("( )", unknown="maybe")
    assert "other: byte 0xff stands for every token" in m.describe()


def test_formula_models_warn_about_bytes_no_atom_names():
    m = hardsoft.compile("a S b", mode="pe")
    with pytest.warns(hardsoft.InputWarning, match="no atom of the formula names the byte 'c'"):
        assert m.eval("cabba").tolist() == [0, 0, 1, 1, 1]
    with pytest.warns(hardsoft.InputWarning, match="the byte ' '"):
        m.truth("a b")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert m.eval("cabba", unknown="other").tolist() == [0, 0, 1, 1, 1]
        m.eval("abba")
        hardsoft.compile("@first", mode="pe").eval("xyz")     # no atom: nothing to warn of
    with pytest.raises(hardsoft.Error, match=r"token 'ab' \(token 2, byte 3\) is longer than one byte"):
        m.eval(tokens=["a", "ab"])
    assert m.eval(tokens=["a", "ab"], unknown="other").tolist() == [0, 0]
