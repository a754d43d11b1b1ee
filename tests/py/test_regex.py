# SPDX-License-Identifier: MIT
"""Regular expressions (lang="regex"): compile, eval against truth, the
refusal with its witness, explain, the alphabet kept through save/load;
and the automaton against an oracle written here, independently of the
C code: 200 random expressions over a, b, c (every operator, ~ and &
too) whose languages are computed as sets of strings, checked at every
position of every string of length 5 through `hardsoft eval --mode
truth`."""
import itertools
import os
import random
import subprocess

import pytest

from conftest import BUILD
import hardsoft

HS = os.path.join(BUILD, "hardsoft")
SIGMA = "abc"
L = 5
ALL = {"".join(p) for n in range(L + 1) for p in itertools.product(SIGMA, repeat=n)}


def lang(t):
    """The strings of length <= L in the language of tree t."""
    op = t[0]
    if op == "set":
        return {c for c in t[1]}
    if op == "eps":
        return {""}
    if op in ("cat", "alt", "and"):
        a, b = lang(t[1]), lang(t[2])
        if op == "alt":
            return a | b
        if op == "and":
            return a & b
        return {x + y for x in a for y in b if len(x) + len(y) <= L}
    if op == "not":
        return ALL - lang(t[1])
    a = lang(t[1])
    if op == "opt":
        return a | {""}
    power, acc = {""}, set()
    lo, hi = (0, L) if op == "star" else (1, L) if op == "plus" else (t[2], t[3])
    for k in range(hi + 1):
        if k >= lo:
            acc |= power
        power = {x + y for x in power for y in a if len(x) + len(y) <= L}
    return acc


def gen(r, depth):
    """(text, tree) of a random expression, fully parenthesised."""
    if depth == 0 or r.random() < 0.25:
        leaf = r.choice(["a", "b", "c", ".", "[ab]", "[^a]", "()"])
        sets = {".": "abc", "[ab]": "ab", "[^a]": "bc"}
        return leaf, ("eps",) if leaf == "()" else ("set", sets.get(leaf, leaf))
    k = r.randrange(9)
    x, tx = gen(r, depth - 1)
    if k < 3:
        y, ty = gen(r, depth - 1)
        op, sym = [("cat", ""), ("alt", "|"), ("and", "&")][k]
        return "(%s%s%s)" % (x, sym, y), (op, tx, ty)
    if k == 3:
        return "~(%s)" % x, ("not", tx)
    if k == 7:
        lo, hi = r.randrange(2), 1 + r.randrange(3)
        return "(%s){%d,%d}" % (x, lo, hi), ("rep", tx, lo, hi)
    if k == 8:
        return "(%s%s)*" % (x, x), ("star", ("cat", tx, tx))
    post = {4: "*", 5: "+", 6: "?"}[k]
    return "(%s)%s" % (x, post), ({"*": "star", "+": "plus", "?": "opt"}[post], tx)


def truth_bits(text, strings):
    r = subprocess.run([HS, "eval", "--lang", "regex", "--alphabet", SIGMA, text, "--mode",
                        "truth", "--"] + [" ".join(s) for s in strings],
                       capture_output=True, text=True, check=True)
    return r.stdout.split("\n")[:len(strings)]


def test_random_expressions_against_sets():
    r = random.Random(37)
    strings = sorted(s for s in ALL if len(s) == L)
    for _ in range(200):
        text, tree = gen(r, 1 + r.randrange(4))
        member = lang(tree)
        for s, bits in zip(strings, truth_bits(text, strings)):
            want = "".join("1" if s[:i + 1] in member else "0" for i in range(L))
            assert bits == want, "%s on %r: automaton %s, sets %s" % (text, s, bits, want)


def test_precedence():
    """postfix, then ~, then concatenation, then &, then |"""
    cases = [("~ab", ("cat", ("not", ("set", "a")), ("set", "b"))),
             ("~a*", ("not", ("star", ("set", "a")))),
             ("ab*", ("cat", ("set", "a"), ("star", ("set", "b")))),
             ("a|b&c", ("alt", ("set", "a"), ("and", ("set", "b"), ("set", "c")))),
             ("ab&a.|c", ("alt", ("and", ("cat", ("set", "a"), ("set", "b")),
                                  ("cat", ("set", "a"), ("set", "abc"))), ("set", "c")))]
    strings = sorted(s for s in ALL if len(s) == L)
    for text, tree in cases:
        member = lang(tree)
        for s, bits in zip(strings, truth_bits(text, strings)):
            want = "".join("1" if s[:i + 1] in member else "0" for i in range(L))
            assert bits == want, text


@pytest.mark.parametrize("mode", ["hard", "pe", "temp", "fixed", "rel"])
def test_compile_eval_truth(mode):
    m = hardsoft.compile(r"a+ b+ a+", lang="regex", mode=mode, scale=16)
    assert m.lang == "regex" and m.reads_tokens
    for s in ["a a b a", "a b", "a b a b", "b"]:
        assert list(m.eval(s)) == list(m.truth(s))
    # a token outside the alphabet is refused unless asked for; then it
    # puts the prefix it ends, and every longer one, out
    with pytest.raises(hardsoft.Error, match="unknown token 'x'"):
        m.eval("a x a")
    assert list(m.eval("a x a", unknown="other")) == list(m.truth("a x a", unknown="other")) == [0, 0, 0]
    assert list(m.eval("a a b a a")) == [0, 0, 0, 1, 1]


def test_refusal_and_explain():
    with pytest.raises(hardsoft.Error) as e:
        hardsoft.compile("(b*ab*a)*b*", lang="regex", mode="pe")
    assert "not quasi-aperiodic" in str(e.value) and 'u = "a"' in str(e.value)
    text = hardsoft.explain("(b*ab*a)*b*")
    assert "class: not quasi-aperiodic" in text and "theorem:" in text
    assert "class: quasi-aperiodic" in hardsoft.explain("(aa)*")
    m = hardsoft.compile("(aa)*", lang="regex", mode="rel", scale=16)
    assert list(m.eval("a a a a a")) == [0, 1, 0, 1, 0]
    assert "construction: a cascade" in m.explain()
    with pytest.raises(hardsoft.Error):
        hardsoft.compile("a", lang="ltl", alphabet="ab")
    with pytest.raises(hardsoft.Error) as e:
        hardsoft.compile("a(b", lang="regex")
    assert e.value.line == 1 and e.value.column == 2


def test_alphabet_saved(tmp_path):
    m = hardsoft.compile("[^a]+", lang="regex", alphabet="a-c", mode="hard")
    assert list(m.eval("b c a")) == [1, 1, 0]
    path = str(tmp_path / "m.safetensors")
    m.save(path)
    back = hardsoft.load(path)
    assert back.lang == "regex" and back.alphabet == "a-c"
    assert list(back.truth("b c a d", unknown="other")) == [1, 1, 0, 0]
    assert list(back.eval("b c a d", unknown="other")) == [1, 1, 0, 0]
    with pytest.raises(hardsoft.Error, match="unknown token 'd'"):
        back.eval("b c a d")
