# SPDX-License-Identifier: MIT
"""A walk through the Python package, as a notebook would go, run as a
test: compile a formula, run it, compare it with the logic, look at its
attention, describe it, save and load it, and run it again in PyTorch."""
import random

import numpy as np

import hardsoft


def test_walkthrough(tmp_path):
    # 1. Compile "a S b" (a b was seen, and only a's since) with positional
    #    embeddings at mu = 4, and run it on one string.
    m = hardsoft.compile("a S b", mode="pe", scale=4)
    bits = m.eval("cabba")
    assert bits.tolist() == [0, 0, 1, 1, 1]

    # 2. The logic's own answer: the transformer agrees with it.
    assert (m.truth("cabba") == bits).all()

    # 3. The model: two layers, one softmax head standing in for unique
    #    hard attention to the rightmost key where (a) -> (b) holds.
    text = m.describe()
    assert "head 0: softmax (tau = 1, standing in for hard_right), mask le" in text
    assert m.mode == "pe" and m.scale == 4 and m.nheads == 1

    # 4. Its attention over a string: the head's weights, query by key,
    #    close to the hard target (the construction's bound, below 0.04 at
    #    mu = 4), and closer as mu grows.
    s = "aabcabbacab"
    layer = m.attention(s)[1]
    w, hard, target = layer.weights[0], layer.hard[0], layer.target[0]
    assert w.shape == (len(s) + 1, len(s) + 1)
    on_target = w[np.arange(len(s) + 1), target]
    assert (on_target >= 1 - m.info()["bound"]).all()
    sharp = hardsoft.compile("a S b", mode="pe", scale=16).attention(s)[1]
    assert (sharp.weights[0][np.arange(len(s) + 1), target] > on_target - 1e-12).all()
    # the hard target of query i is the last position j <= i where
    # (a) -> (b) holds (positions 1..n are keys 1..n); when none does, every
    # key scores the same and the rightmost, i itself, is picked
    for i in range(1, len(s) + 1):
        holds = [j for j in range(1, i + 1) if s[j - 1] != "a"]
        assert target[i] == (holds[-1] if holds else i)

    # 5. A picture of it (PNG), at mu = 1, 2, 4, 8 side by side.
    png = tmp_path / "asb.png"
    hardsoft.plot_attention(m, s, png, scales=[1, 2, 4, 8])
    assert png.read_bytes()[:4] == b"\x89PNG"

    # 6. Save, load, and get the same answers.
    path = tmp_path / "asb.safetensors"
    m.save(path)
    back = hardsoft.load(path)
    assert back.describe() == text
    r = random.Random(1)
    strings = ["".join(r.choice("abc") for _ in range(r.randint(1, 60))) for _ in range(20)]
    for x in strings:
        assert (back.eval(x) == m.eval(x)).all()

    # 7. The same model as a torch.nn.Module, from its weights alone: same
    #    decisions as the C runtime on random strings.
    module = back.to_torch()
    for x in strings:
        values = module(hardsoft.Model.token_ids(x))
        assert ((values[1:] > 0.5).numpy() == m.eval(x).astype(bool)).all()
