# SPDX-License-Identifier: MIT
"""The Python package (src/python/hardsoft): answers against the logic and
the command line, the attention weights against their laws, files, the
PyTorch module, and every kind of bad input (hardsoft.Error, never a
crash)."""
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from conftest import BUILD, ROOT
import hardsoft

HS = os.path.join(BUILD, "hardsoft")
FORMULAS = ["a S b", "a U b", "G (a -> F b)", "X a | Y b", "H (a | Y b) & O c",
            "@first | (@mod(3,1) & a) | X @last", "#<(a) > #<(b)"]


def rand_strings(seed, count, longest, alphabet="abc#"):
    r = random.Random(seed)
    return ["".join(r.choice(alphabet) for _ in range(r.randint(0, longest)))
            for _ in range(count)]


def test_readme_example():
    m = hardsoft.compile("a S b", mode="pe", scale=4)
    assert m.eval("cabba").tolist() == [0, 0, 1, 1, 1]
    assert m.eval("cabba").dtype == np.uint8
    assert m.eval(b"cabba").tolist() == [0, 0, 1, 1, 1]
    assert [x.tolist() for x in m.eval(["ab", "", "ba"])] == [[0, 1], [], [1, 1]]


@pytest.mark.parametrize("mode", ["hard", "pe", "temp", "rel"])
def test_eval_agrees_with_truth_and_cli(mode):
    strings = rand_strings(7, 12, 40)
    for f in FORMULAS:
        m = hardsoft.compile(f, mode=mode, scale=8)
        cli = subprocess.run([HS, "eval", f, "--mode", mode, "--scale", "8", "--"]
                             + [s for s in strings if s], capture_output=True,
                             text=True, check=True).stdout.split()
        for s, want in zip([s for s in strings if s], cli):
            assert "".join(map(str, m.eval(s))) == want, (f, mode, s)
        for s in strings:
            assert (m.eval(s) == m.truth(s)).all(), (f, mode, s)
            assert (m.eval(s, precision="f64") == m.truth(s)).all()


def test_values_decide_at_one_half():
    m = hardsoft.compile("a U b", mode="temp", scale=6)
    s = "aabcab"
    assert ((m.values(s) > 0.5).astype(np.uint8) == m.eval(s)).all()


def test_info_and_describe_match_the_cli():
    m = hardsoft.compile("a S b", mode="pe", scale=4)
    assert (m.mode, m.scale, m.formula) == ("pe", 4.0, "a S b")
    assert m.nlayers == 2 and m.nheads == 1 and m.d > 0
    info = m.info()
    assert info["heads"] == 1 and 0 < info["bound"] < 1
    h = m.head_info(1, 0)
    assert (h["kind"], h["target"], h["mask"]) == ("softmax", "hard_right", "le")
    cli = subprocess.run([HS, "compile", "a S b", "--mode", "pe", "--scale", "4",
                          "--print"], capture_output=True, text=True, check=True).stdout
    assert m.describe() == cli
    assert hardsoft.compile("a", mode="hard").describe().startswith("formula: a\nmode: hard\n")


def test_save_load_round_trip(tmp_path):
    m = hardsoft.compile("G (a -> F b)", mode="rel", scale=6)
    p = tmp_path / "m.safetensors"
    m.save(p)
    back = hardsoft.load(p)
    assert back.describe() == m.describe()
    for s in rand_strings(3, 10, 30, "ab"):
        assert (back.eval(s) == m.eval(s)).all()
        assert (back.truth(s) == m.truth(s)).all()    # from the formula it carries
    cli = subprocess.run([HS, "run", str(p), "abba"], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert "".join(map(str, back.eval("abba"))) == cli


def visible(mask, n):
    i, j = np.arange(n + 1)[:, None], np.arange(n + 1)[None, :]
    v = {"none": np.ones((n + 1, n + 1), bool), "le": j <= i, "lt": j < i,
         "ge": j >= i, "gt": j > i}[mask].copy()
    v[:, 0] = True
    return v


@pytest.mark.parametrize("mode", ["hard", "pe", "temp", "rel"])
def test_attention_obeys_its_laws(mode):
    s = "abcabbaacb"
    n = len(s)
    for f in ["a S b", "a U b", "G (a -> F b)", "X a | Y b", "#<(a) > #<(b)"]:
        m = hardsoft.compile(f, mode=mode, scale=8)
        layers = m.attention(s)
        assert len(layers) == m.nlayers
        assert sum(len(L.heads) for L in layers) == m.nheads
        for L in layers:
            assert L.weights.shape == (len(L.heads), n + 1, n + 1)
            assert L.target.shape == (len(L.heads), n + 1)
            for h, info in enumerate(L.heads):
                w, hard, t = L.weights[h], L.hard[h], L.target[h]
                vis = visible(info["mask"], n)
                assert np.allclose(w.sum(1), 1) and (w[~vis] == 0).all()
                if info["kind"] != "softmax":
                    assert (w == hard).all()
                if info["target"] == "softmax":       # no hard counterpart
                    assert (hard == 0).all() and (t == -1).all()
                    continue
                assert np.allclose(hard.sum(1), 1) and (hard[~vis] == 0).all()
                one = t >= 0
                assert (hard[np.arange(n + 1)[one], t[one]] == 1).all()
                # the construction's bound on the weight off the target
                off = 1 - (w * (hard > 0)).sum(1)
                assert off[1:].max() <= m.info()["bound"] + 1e-9, (f, mode)


def test_attention_sharpens_with_mu():
    s = "aabcabbacab"
    off = []
    for mu in (1, 2, 4, 8):
        L = hardsoft.compile("a S b", mode="pe", scale=mu).attention(s)[1]
        off.append((1 - (L.weights[0] * (L.hard[0] > 0)).sum(1)).max())
    assert off[0] > off[1] > off[2] > off[3] and off[0] > 0.1 and off[3] < 1e-3


def test_torch_module_agrees():
    import torch
    for f in FORMULAS:
        for mode in ("hard", "pe", "temp", "rel"):
            m = hardsoft.compile(f, mode=mode, scale=8)
            mod = m.to_torch()
            assert isinstance(mod, torch.nn.Module)
            for s in rand_strings(11, 6, 50):
                v = mod(hardsoft.Model.token_ids(s))
                assert v.shape == (len(s) + 1,)
                bits = (v[1:] > 0.5).numpy().astype(np.uint8)
                assert (bits == m.eval(s)).all(), (f, mode, s)
    batch = torch.stack([hardsoft.Model.token_ids("abab"), hardsoft.Model.token_ids("bbaa")])
    assert mod(batch).shape == (2, 5)
    with pytest.raises(ValueError):
        mod(torch.tensor([1, 2, 3]))     # no BOS first


def test_plot_attention_png(tmp_path):
    m = hardsoft.compile("a S b", mode="pe", scale=4)
    out = tmp_path / "a.png"
    hardsoft.plot_attention(m, "aabab", out, scales=[1, 8])
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
    with pytest.raises(hardsoft.Error):
        hardsoft.plot_attention(m, "a" * 300, tmp_path / "b.png")
    assert not (tmp_path / "b.png").exists()


def test_plot_attention_titles_the_decisions(tmp_path, monkeypatch):
    from hardsoft import plot
    seen = {}
    monkeypatch.setattr(plot, "draw", lambda data, out: seen.update(data))
    m = hardsoft.compile("a S b", mode="pe", scale=8)
    hardsoft.plot_attention(m, "aabaa", tmp_path / "c.png")
    assert seen["bits"] == "00111"


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize("text,column", [("a S", 4), ("a & (b", 7), ("(", 2),
                                         ("a ) b", 3)])
def test_malformed_formula(text, column):
    with pytest.raises(hardsoft.Error) as e:
        hardsoft.compile(text)
    assert e.value.column == column and "column %d" % column in str(e.value)
    assert isinstance(e.value, ValueError)


def test_error_lives_below_the_model():
    # the ctypes layer makes hardsoft.Error itself: it imports nothing of
    # the package above it (it once imported Error from model, in a cycle)
    from hardsoft import _lib
    assert hardsoft.Error is _lib.Error
    with open(_lib.__file__) as f:
        assert "from .model" not in f.read()
    assert isinstance(_lib.fail(None), hardsoft.Error)


@pytest.mark.parametrize("kw", [{"mode": "soft"}, {"mode": None}, {"scale": 0},
                                {"scale": -1}, {"scale": float("nan")},
                                {"scale": float("inf")}, {"scale": "x"},
                                {"sign": "abs"}, {"lang": "python"}])
def test_bad_options(kw):
    with pytest.raises(hardsoft.Error):
        hardsoft.compile("a S b", **kw)


def test_formula_with_nul_and_non_text():
    with pytest.raises(hardsoft.Error, match="empty formula"):
        hardsoft.compile("")
    with pytest.raises(hardsoft.Error):
        hardsoft.compile("a\0b")
    for bad in (None, 5, ["a"]):
        with pytest.raises(hardsoft.Error):
            hardsoft.compile(bad)


def test_program_errors_carry_line_and_column():
    with pytest.raises(hardsoft.Error) as e:
        hardsoft.compile('A = #"a"\nB = A && true\n', lang="crasp")
    assert (e.value.line, e.value.column) == (2, 5)
    with pytest.raises(hardsoft.Error) as e:
        hardsoft.compile("x", lang="brasp")
    assert e.value.line == 1 and e.value.column >= 1


def test_bad_strings():
    m = hardsoft.compile("a S b")
    for bad in (None, 3, 2.5, object()):
        with pytest.raises(hardsoft.Error):
            m.eval(bad)
        with pytest.raises(hardsoft.Error):
            m.truth(bad)
    for prec in ("f8", "F32", None):
        with pytest.raises(hardsoft.Error):
            m.eval("ab", precision=prec)
    for prec in ("f16", "bf16", "f16s", "bf16s"):     # the boundary experiment's
        assert (m.eval("abba", precision=prec) == m.truth("abba")).all()
    with pytest.raises(hardsoft.Error, match="too long"):
        m.attention("a" * 4097)
    with pytest.raises(hardsoft.Error):
        m.head_info(0, 5)


def test_bad_files(tmp_path):
    with pytest.raises(hardsoft.Error, match="nonexistent"):
        hardsoft.load(tmp_path / "nonexistent")
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"\x10\0\0\0\0\0\0\0{not json at all")
    with pytest.raises(hardsoft.Error):
        hardsoft.load(junk)
    good = tmp_path / "good.safetensors"
    hardsoft.compile("a S b").save(good)
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(good.read_bytes()[:-7])
    with pytest.raises(hardsoft.Error):
        hardsoft.load(cut)
    with pytest.raises(hardsoft.Error):
        hardsoft.load(None)
    with pytest.raises(hardsoft.Error):
        hardsoft.compile("a").save(tmp_path / "no" / "dir" / "m.safetensors")
    assert not (tmp_path / "no").exists()


def test_missing_library_is_an_error():
    code = "import hardsoft\ntry:\n hardsoft.compile('a')\nexcept hardsoft.Error as e:\n print(e)"
    env = dict(os.environ, HARDSOFT_LIB="/nonexistent/libhardsoft.so",
               PYTHONPATH=os.path.join(ROOT, "src", "python"))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and "cannot find libhardsoft" in r.stdout


def test_forward_py_needs_no_library(tmp_path):
    # bench/peers/forward.py imports the package's pass, not libhardsoft
    p = tmp_path / "m.safetensors"
    m = hardsoft.compile("a U b", mode="pe", scale=6)
    m.save(p)
    env = dict(os.environ, HARDSOFT_LIB="/nonexistent/libhardsoft.so")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "peers", "forward.py"),
                        str(p), "abcab", "bba"], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["".join(map(str, m.eval(s))) for s in ("abcab", "bba")]


@pytest.mark.parametrize("path,lang,alphabet", [
    ("tests/programs/dyck1.cr", "crasp", "()x"),
    ("tests/programs/count3.cr", "crasp", "abcx"),
    ("tests/programs/since.brasp", "brasp", "abcx"),
    ("tests/programs/dyck2.brasp", "brasp", "()x"),
])
@pytest.mark.parametrize("mode", ["hard", "pe", "temp"])
def test_programs_agree_with_their_interpreter(path, lang, alphabet, mode):
    # a program model reads tokens: a list, or one string split at whitespace;
    # x is a token the program does not name, read as `other` on request
    with open(os.path.join(ROOT, path)) as f:
        m = hardsoft.compile(f.read(), mode=mode, scale=16, lang=lang)
    for s in rand_strings(7, 20, 300, alphabet):
        assert (m.eval(tokens=list(s), unknown="other") ==
                m.truth(" ".join(s), unknown="other")).all(), (path, mode, s)


def test_struct_layouts_match_the_library():
    lib = hardsoft._lib.lib()
    for name, mirror in (("hs_run_opts", hardsoft._lib.HsRunOpts),
                         ("hs_run_result", hardsoft._lib.HsRunResult),
                         ("hs_error", hardsoft._lib.HsError)):
        assert lib.hs_struct_size(name.encode()) == __import__("ctypes").sizeof(mirror)
    assert lib.hs_struct_size(b"no_such_struct") == 0
