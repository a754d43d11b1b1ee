# SPDX-License-Identifier: MIT
"""Model.to_torch(): a trainable torch.nn.Module whose decisions are the
library's on the formula suite (tests/formulas.txt, every mode) and the
program suite (tests/programs), in float32 and float64, over padded
batches; gradients reach the parameters; torch.jit.trace and
torch.onnx.export give the same decisions (ONNX Runtime through
tests/onnx/ort-run.js); trained weights save back into a model file the
library runs."""
import glob
import os
import random
import subprocess

import numpy as np
import pytest
import torch

from conftest import BUILD, ROOT
import hardsoft

# values this close to 1/2 may round either way: the library and torch sum
# in different orders (the rule of tests/onnx/check_ort.py)
NEAR = 1e-3
CONFIGS = [("hard", 4, "layernorm"), ("pe", 4, "layernorm"), ("temp", 4, "layernorm"),
           ("fixed", 4, "layernorm"), ("rel", 4, "layernorm"), ("temp", 16, "temp")]


def formulas():
    with open(os.path.join(ROOT, "tests", "formulas.txt"), encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]


def programs():
    out = []
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "programs", "*"))):
        lang = {".cr": "crasp", ".crasp": "crasp", ".brasp": "brasp"}.get(os.path.splitext(p)[1])
        if lang:
            out.append((p, lang))
    return out


def rand_inputs(model, seed, count=6, longest=40):
    """Random inputs the model reads: strings over a few bytes for a
    formula, token lists over its vocabulary plus one unknown token for a
    program (read as `other`: the callers pass unknown="other"); lengths 0,
    1 and random up to longest."""
    r = random.Random(seed)
    sym = list(model.vocab) + ["zz"] if model.reads_tokens else list("abc#x")
    lens = [0, 1] + [r.randint(2, longest) for _ in range(count - 2)]
    items = [[r.choice(sym) for _ in range(n)] for n in lens]
    return items if model.reads_tokens else ["".join(x) for x in items]


def compare(model, module, inputs, precision):
    """Positions where the module's decision differs from the library's
    (those within NEAR of 1/2 excepted), and the near ones."""
    ids, mask = model.token_batch(inputs, unknown="other")
    with torch.no_grad():
        v = module(ids, mask).double().numpy()
    want = model.run_batch(inputs, precision, unknown="other").split("bits")
    bad = near = 0
    for k, w in enumerate(want):
        got = v[k, 1:len(w) + 1]
        diff = (got > 0.5) != w.astype(bool)
        close = np.abs(got - 0.5) <= NEAR
        bad += int((diff & ~close).sum())
        near += int((diff & close).sum())
    return bad, near


def compiled(text, mode, scale, sign="layernorm", lang="ltl"):
    try:
        return hardsoft.compile(text, mode=mode, scale=scale, sign=sign, lang=lang)
    except hardsoft.Error:
        return None     # a construction the mode refuses, as the CLI does


@pytest.mark.parametrize("mode,scale,sign", CONFIGS)
def test_decisions_equal_the_library_on_the_formula_suite(mode, scale, sign):
    checked = 0
    for k, f in enumerate(formulas()):
        m = compiled(f, mode, scale, sign)
        if m is None:
            continue
        inputs = rand_inputs(m, k)
        for dtype, prec in ((torch.float32, "f32"), (torch.float64, "f64")):
            bad, _ = compare(m, m.to_torch(dtype), inputs, prec)
            assert bad == 0, (f, mode, scale, sign, prec)
        checked += 1
    assert checked >= 60      # most of the suite compiles in every mode


@pytest.mark.parametrize("mode", ["hard", "pe", "temp", "rel"])
def test_decisions_equal_the_library_on_the_program_suite(mode):
    checked = 0
    for k, (path, lang) in enumerate(programs()):
        with open(path, encoding="utf-8") as f:
            m = compiled(f.read(), mode, 16, lang=lang)
        if m is None:
            continue
        assert m.reads_tokens
        inputs = rand_inputs(m, 100 + k, longest=30)
        for dtype, prec in ((torch.float32, "f32"), (torch.float64, "f64")):
            bad, _ = compare(m, m.to_torch(dtype), inputs, prec)
            assert bad == 0, (path, mode, prec)
        checked += 1
    assert checked >= len(programs()) // 2


def test_a_batch_is_its_rows():
    m = hardsoft.compile("a U b & Y a", mode="rel", scale=4)
    mod = m.to_torch()
    inputs = ["abba", "", "babbbaab", "a"]
    ids, mask = m.token_batch(inputs)
    batch = mod(ids, mask)
    for k, s in enumerate(inputs):
        alone = mod(m.ids(s))
        assert torch.equal(batch[k, :len(s) + 1], alone), s


def test_parameters_are_trainable_and_gradients_flow():
    m = hardsoft.compile("#<(a) > #<(b) | a S b", mode="temp", scale=4)
    mod = m.to_torch(torch.float32)
    params = dict(mod.named_parameters())
    assert len(params) > 5 and all(p.requires_grad for p in params.values())
    assert not list(mod.buffers())
    assert "embed" in params and "layers.1.attn.0.wq" in params
    assert all(p.dtype == torch.float32 for p in params.values())
    ids, mask = m.token_batch(["abbab", "aab", "bbbaaa"])
    v = mod(ids, mask)
    target = torch.tensor([[0.2] * v.shape[1]] * 3)
    loss = (((v - target) ** 2) * mask).sum()
    loss.backward()
    grads = [p.grad for p in mod.parameters() if p.grad is not None]
    assert grads and all(torch.isfinite(g).all() for g in grads)
    assert sum(float(g.abs().sum()) for g in grads) > 0
    # through the attention (its output projection) and into the embeddings
    assert float(params["layers.1.attn.0.wo"].grad.abs().sum()) > 0
    assert float(params["embed"].grad.abs().sum()) > 0


def test_hard_heads_are_masks_unless_hard_tau():
    m = hardsoft.compile("a S b", mode="hard")
    s = "abbaab"
    for tau in (None, 0.05):
        mod = m.to_torch(hard_tau=tau)
        v = mod(m.ids(s))
        assert ((v[1:] > 0.5).numpy() == m.eval(s).astype(bool)).all()
        v.sum().backward()
        head = mod.layers[1].attn[0]
        # a hard choice is a mask: no gradient reaches the head's query
        assert (head.wq.grad is None) == (tau is None)
        if tau is not None:      # softmax at hard_tau: its weights move with wq
            x = torch.randn(1, len(s) + 1, mod.d, dtype=torch.float64,
                            generator=torch.Generator().manual_seed(2))
            n = torch.tensor([[float(len(s))]], dtype=torch.float64)
            w = head.weights(x, n)
            (g,) = torch.autograd.grad((w * torch.arange(len(s) + 1.0)).sum(), head.wq)
            assert torch.isfinite(g).all() and float(g.abs().sum()) > 0


def test_jit_trace_runs_at_other_lengths():
    m = hardsoft.compile("G (a -> F b) | @mod(3,1)", mode="pe", scale=8)
    mod = m.to_torch(torch.float32)
    traced = torch.jit.trace(mod, (m.ids("abab"),))
    for s in ("", "b", "aabbbaababbbab" * 3):
        assert torch.equal(traced(m.ids(s)), mod(m.ids(s)))
    ids, mask = m.token_batch(["ab", "babba"])
    traced2 = torch.jit.trace(mod, (ids, mask))
    ids, mask = m.token_batch(["aabbaab", "", "ba"])
    assert torch.equal(traced2(ids, mask), mod(ids, mask))


def ort_bits(onnx_paths, lines):
    """Decisions of ONNX Runtime (tests/onnx/ort-run.js) for every graph and
    input line (bytes), as strings of 0/1, graph by graph."""
    ort = os.path.join(BUILD, "node", "node_modules", "onnxruntime-node")
    assert os.path.isdir(ort), "%s is missing (make check installs it)" % ort
    # node is not under test: without the sanitizer runtime a sanitizer
    # build's test run preloads into this interpreter
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run(["node", os.path.join(ROOT, "tests", "onnx", "ort-run.js"),
                        "--ort", ort] + onnx_paths, env=env,
                       input=b"".join(l + b"\n" for l in lines), capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    return r.stdout.decode().split("\n")[:len(onnx_paths) * len(lines)]


def test_onnx_export_runs_in_onnx_runtime(tmp_path):
    cases = [("a S b", "ltl", "hard"), ("a U b & Y a", "ltl", "rel"),
             ("#<(a) > #<(b)", "ltl", "temp"), ("@first | (@mod(3,1) & a) | X @last", "ltl", "pe"),
             (os.path.join(ROOT, "tests", "programs", "multichar.brasp"), "brasp", "temp"),
             (os.path.join(ROOT, "tests", "programs", "count3.cr"), "crasp", "hard")]
    paths, models = [], []
    for k, (text, lang, mode) in enumerate(cases):
        if lang != "ltl":
            with open(text, encoding="utf-8") as f:
                text = f.read()
        m = hardsoft.compile(text, mode=mode, scale=8, lang=lang)
        p = str(tmp_path / ("m%d.onnx" % k))
        m.to_torch(torch.float32).export_onnx(p)
        paths.append(p)
        models.append(m)
    inputs = {}
    for k, m in enumerate(models):
        inputs[k] = [m.encode(tokens=x, unknown="other") if m.reads_tokens
                     else m.encode(x, unknown="other")
                     for x in rand_inputs(m, 40 + k, count=5, longest=60)]
    for k, m in enumerate(models):
        got = ort_bits([paths[k]], inputs[k])
        for w, g in zip(inputs[k], got):
            vals = m.run_batch([w] if not m.reads_tokens else [[]], "f32").values \
                if not m.reads_tokens else _values_of_bytes(m, w)
            want = "".join("1" if v > 0.5 else "0" for v in vals)
            close = [abs(v - 0.5) <= NEAR for v in vals]
            assert len(g) == len(want)
            assert all(a == b or c for a, b, c in zip(g, want, close)), (cases[k], w)


def _values_of_bytes(model, w):
    """The library's values for input bytes as the model reads them (a
    program's token bytes, given back as the tokens they stand for)."""
    names = {b: t for t, b in model.vocab.items()}
    return model.values(tokens=[names.get(b, "zz") for b in w], unknown="other")


def test_trained_weights_save_into_a_model_file(tmp_path):
    src = open(os.path.join(ROOT, "tests", "programs", "multichar.brasp"), encoding="utf-8").read()
    m = hardsoft.compile(src, mode="temp", scale=4, lang="brasp")
    mod = m.to_torch(torch.float32)
    with torch.no_grad():
        mod.embed.add_(0.01 * torch.randn(mod.embed.shape, generator=torch.Generator().manual_seed(1)))
    p = tmp_path / "tuned.safetensors"
    mod.save(str(p))
    back = hardsoft.load(p)
    assert back.vocab == m.vocab          # the vocabulary and the source travel
    inputs = rand_inputs(m, 9, count=6, longest=30)
    bad, _ = compare(back, mod, inputs, "f32")
    assert bad == 0
    assert (back.truth(tokens=inputs[3], unknown="other") ==
            m.truth(tokens=inputs[3], unknown="other")).all()


def test_bad_module_input():
    m = hardsoft.compile("a S b", mode="pe")
    mod = m.to_torch()
    with pytest.raises(ValueError):
        mod(torch.tensor([1, 2, 3]))                 # no BOS first
    with pytest.raises(TypeError):
        mod(torch.tensor([256.0, 97.0]))
    ids, mask = m.token_batch(["ab", "a"])
    with pytest.raises(ValueError):
        mod(ids, mask.int())
    with pytest.raises(ValueError):
        m.to_torch(dtype="float16")
    with pytest.raises(ValueError):
        m.to_torch(hard_tau=0)
