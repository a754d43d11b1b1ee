#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Hand-written hard-attention transformers for `hardsoft simulate`.

    /usr/bin/python3 bench/models/make_models.py [OUT_DIR]

writes majority.safetensors, first-equals-last.safetensors,
dyck1-prefix.safetensors and after-last-b.safetensors into OUT_DIR (default:
this script's directory). None of them comes from a formula: they are
written weight by weight, the way a user would write a hard-attention model
with numpy, and they follow the file format "hardsoft-1" documented at the
top of src/model/safetensors.c exactly (an 8-byte little-endian header length,
a JSON header padded with spaces to a multiple of 8, then the F32 tensors
packed back to back). Python standard library + numpy only; the output is
byte-for-byte deterministic.

Conventions (src/model/model.h): positions 0..n, position 0 holds BOS (embedding
row 256), positions 1..n the input bytes. Every head sees BOS whatever its
mask. A layer adds every head's W_O-projected output to the residual
stream, then W2 ReLU(W1 x + b1) + b2. The decision at position i is
x_i[out_coord] > 1/2. Every coordinate a later layer reads, and every
output coordinate, is exactly 0 or 1 in the hard model; where an attention
output feeds another layer a feed-forward sublayer first rounds it,
    round(v) = ReLU(2v - 1/2) - ReLU(2v - 3/2)   (0 for v <= 1/4, 1 for v >= 3/4),
into a fresh coordinate, so that the softmax version (whose attention
outputs are off by at most e^-mu) feeds the next layer exact 0/1 too.

The models (over the alphabet {a, b}; any other byte is neither):

majority           decision at i: #a > #b in w_1..w_i.
  layer 0  one average-hard head, all scores 0 (UNIFORM): averages
           [a]-[b] and [BOS] over j <= i (BOS included), giving
           (#a - #b)/(i+1) and 1/(i+1).
  layer 1  one average-hard head (TIED, gap >= 1/(2(n+1))): query
           u = (#a - #b - 1/2)/(i+1) - [i = 0], key [j >= 1], value [j >= 1].
           u > 0 (#a > #b): every non-BOS key is maximal and the head
           reads 1; u < 0: BOS alone is maximal and it reads 0. The gap is
           |u| >= 1/(2(i+1)), so gamma shrinks like 1/n.

first-equals-last  decision at i: w_1 = w_i (and w_i is a or b); at the last
           position: the first symbol equals the last.
  layer 0  one unique-hard LEFTMOST head over j <= i (TIELESS, gap 1):
           score -j for j >= 1 (from the unbounded positional feature i)
           and -2 for BOS, so position 1 wins with a margin of exactly 1;
           it reads the one-hot symbol. The feed-forward layer compares
           the two one-hot pairs, rounded: out = sum over s in {a, b} of
           ReLU(2(f_s + c_s) - 5/2) - ReLU(2(f_s + c_s) - 7/2).

dyck1-prefix       decision at i: no prefix of w_1..w_i has more b than a
           (a = open, b = close: the Dyck-1 prefix condition).
  layer 0  as in majority (UNIFORM): (#a - #b)/(i+1), 1/(i+1).
  layer 1  average-hard sign head (TIED): query (#a - #b + 1/2)/(i+1) -
           [i = 0], key and value [j >= 1]: s_i = [#a - #b >= 0]; the
           feed-forward layer rounds s_i into a fresh coordinate.
  layer 2  average-hard "historically s" head over j <= i (TIED: every
           j with not s_j is maximal; gap 1): query 1, key and value
           [j >= 1 and not s_j], so it reads 1 iff some j <= i has
           not s_j, and all scores are 0 otherwise (BOS included). The
           feed-forward layer writes 1 - round(read). Ties here are
           harmless: softmax averages the tied maxima just as
           average-hard attention does.

after-last-b       decision at i: some b occurs before i, and the symbol
           right after the last b before i is a (w_{k+1} = a for the
           largest k < i with w_k = b).
  layer 0  one unique-hard RIGHTMOST head over j' < j (TIELESS, gap 1):
           score j' (BOS 0), so it reads position j - 1; value [b]:
           p_j = [w_{j-1} = b], rounded by the feed-forward layer.
  layer 1  one unique-hard RIGHTMOST head over j <= i (TIELESS, gap >= 1):
           query (n + 1, 1) from the unbounded feature n, key (p_j + [j =
           0], j): score (n+1) p_j + j, and n + 1 for BOS. The rightmost j
           with p_j = 1 wins by at least 1 over every other key (each other
           p = 1 key is at least 1 lower, each p = 0 key is at most n);
           with none, BOS wins (every j <= n is below n + 1). Value [a]
           (0 at BOS).

Check a file with `build/hardsoft run FILE STRING...`, with the independent
numpy pass `bench/peers/forward.py FILE STRING...`, and simulate it with
`build/hardsoft simulate FILE --alphabet ab --lengths 16,256`.
"""
import json
import os
import struct
import sys

import numpy as np

VOCAB, BOS = 257, 256


class Model:
    """A hardsoft-1 model under construction: coordinates by name,
    weights as float64 numpy arrays (written as F32)."""

    def __init__(self, coords):
        self.coords = list(coords)
        self.c = {name: k for k, name in enumerate(self.coords)}
        self.d = len(self.coords)
        self.embed = np.zeros((VOCAB, self.d))
        self.pf = []
        self.layers = []

    def onehot(self, symbol, coord):
        self.embed[ord(symbol), self.c[coord]] = 1.0

    def feature(self, kind, coord):
        self.pf.append({"kind": kind, "coord": self.c[coord]})

    def layer(self):
        self.layers.append({"heads": [], "ffn": None})
        return len(self.layers) - 1

    def head(self, layer, kind, mask, q, k, v, out, desc):
        """q, k: lists (one per score dimension) of {coord: weight};
        v: list of {coord: weight}, value row r written to coordinate
        out[r] of the residual stream."""
        d = self.d
        wq, wk = np.zeros((len(q), d)), np.zeros((len(k), d))
        wv, wo = np.zeros((len(v), d)), np.zeros((d, len(v)))
        for r, row in enumerate(q):
            for name, w in row.items():
                wq[r, self.c[name]] = w
        for r, row in enumerate(k):
            for name, w in row.items():
                wk[r, self.c[name]] = w
        for r, row in enumerate(v):
            for name, w in row.items():
                wv[r, self.c[name]] = w
            wo[self.c[out[r]], r] = 1.0
        self.layers[layer]["heads"].append(
            {"kind": kind, "mask": mask, "desc": desc,
             "wq": wq, "wk": wk, "wv": wv, "wo": wo})

    def ffn(self, layer, units, bias=None):
        """units: list of (input {coord: weight}, input bias,
        output {coord: weight}) — one ReLU unit each; bias: {coord: b2}."""
        d, h = self.d, len(units)
        w1, b1 = np.zeros((h, d)), np.zeros(h)
        w2, b2 = np.zeros((d, h)), np.zeros(d)
        for u, (inp, b, outp) in enumerate(units):
            for name, w in inp.items():
                w1[u, self.c[name]] = w
            b1[u] = b
            for name, w in outp.items():
                w2[self.c[name], u] = w
        for name, b in (bias or {}).items():
            b2[self.c[name]] = b
        self.layers[layer]["ffn"] = (w1, b1, w2, b2)

    @staticmethod
    def round_into(src, dst, scale=1.0):
        """Two FFN units adding scale * round(src) to dst,
        round(v) = ReLU(2v - 1/2) - ReLU(2v - 3/2)."""
        return [({src: 2.0}, -0.5, {dst: scale}), ({src: 2.0}, -1.5, {dst: -scale})]

    # ------------------------------------------------------------ writing
    def save(self, path, out, what):
        tensors = [("embed", self.embed)]
        doc_layers = []
        for l, L in enumerate(self.layers):
            heads = []
            for h, H in enumerate(L["heads"]):
                for part in ("wq", "wk", "wv", "wo"):
                    tensors.append((f"layers.{l}.attn.{h}.{part}", H[part]))
                # hard heads: target = the kind itself, tau law unused
                heads.append({"kind": H["kind"], "target": H["kind"], "mask": H["mask"],
                              "tau_law": "const", "tau_c": 1, "dk": H["wq"].shape[0],
                              "dv": H["wv"].shape[0], "desc": H["desc"]})
            hidden = 0
            if L["ffn"] is not None:
                w1, b1, w2, b2 = L["ffn"]
                hidden = w1.shape[0]
                for name, t in (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)):
                    tensors.append((f"layers.{l}.ffn.{name}", t))
            doc_layers.append({"heads": heads, "hidden": hidden})
        doc = {"d": self.d, "out_coord": self.c[out], "pos_features": self.pf,
               "layers": doc_layers, "mode": "hard", "bound_desc":
               "hard attention, written by hand (bench/models/make_models.py): " + what,
               "coord_names": self.coords}
        header = {"__metadata__": {"format": "hardsoft-1",
                                   "hardsoft": json.dumps(doc, separators=(",", ":"))}}
        data, off = [], 0
        for name, t in tensors:
            b = np.ascontiguousarray(t, dtype="<f4").tobytes()
            header[name] = {"dtype": "F32", "shape": list(t.shape),
                            "data_offsets": [off, off + len(b)]}
            data.append(b)
            off += len(b)
        text = json.dumps(header, separators=(",", ":")).encode("utf-8")
        text += b" " * (-len(text) % 8)   # the data buffer starts at a multiple of 8
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(struct.pack("<Q", len(text)))
            f.write(text)
            for b in data:
                f.write(b)
        os.replace(tmp, path)


def base(extra):
    """Coordinates one, bos, a, b (one-hot symbols), then `extra`."""
    m = Model(["one", "bos", "a", "b"] + extra)
    m.feature("one", "one")
    m.feature("bos", "bos")
    m.onehot("a", "a")
    m.onehot("b", "b")
    return m


def counts(m, l):
    """Layer l: the uniform average-hard head giving diff = (#a-#b)/(i+1)
    and inv = 1/(i+1) (the average of [j = 0] over j <= i)."""
    m.head(l, "hard_avg", "le", q=[{}], k=[{}], v=[{"a": 1, "b": -1}, {"bos": 1}],
           out=["diff", "inv"],
           desc="uniform over j <= i: (#a - #b)/(i+1) and 1/(i+1)")


def sign_head(m, l, half, out, desc):
    """Average-hard sign: query (#a - #b + half)/(i+1) - [i = 0] against
    key [j >= 1]; reads [j >= 1] averaged over the maximal keys, i.e. 1
    when the query is positive (all non-BOS keys maximal) and 0 when it
    is negative (BOS alone)."""
    m.head(l, "hard_avg", "le", q=[{"diff": 1, "inv": half, "bos": -1}],
           k=[{"one": 1, "bos": -1}], v=[{"one": 1, "bos": -1}], out=[out], desc=desc)


def majority():
    m = base(["diff", "inv", "s"])
    counts(m, m.layer())
    sign_head(m, m.layer(), -0.5, "s",
              "sign of (#a - #b - 1/2)/(i+1): all non-BOS keys (reads 1) or BOS (reads 0)")
    return m, "s", "#a > #b in the prefix"


def first_equals_last():
    m = base(["i", "first_a", "first_b", "out"])
    m.feature("i", "i")
    l = m.layer()
    m.head(l, "hard_left", "le", q=[{"one": 1}], k=[{"i": -1, "bos": -2}],
           v=[{"a": 1}, {"b": 1}], out=["first_a", "first_b"],
           desc="leftmost j <= i of score -j (BOS -2): position 1; reads its symbol")
    units = []
    for s in ("a", "b"):
        f = "first_" + s
        units += [({f: 2, s: 2}, -2.5, {"out": 1}), ({f: 2, s: 2}, -3.5, {"out": -1})]
    m.ffn(l, units)
    return m, "out", "w_1 = w_i"


def dyck1_prefix():
    m = base(["diff", "inv", "s_attn", "s", "bad", "out"])
    counts(m, m.layer())
    l = m.layer()
    sign_head(m, l, 0.5, "s_attn", "sign of (#a - #b + 1/2)/(i+1): [#a >= #b]")
    m.ffn(l, m.round_into("s_attn", "s"))
    l = m.layer()
    m.head(l, "hard_avg", "le", q=[{"one": 1}], k=[{"one": 1, "bos": -1, "s": -1}],
           v=[{"one": 1, "bos": -1, "s": -1}], out=["bad"],
           desc="every j <= i where not s_j (or all, when none): reads [not s_j]")
    m.ffn(l, m.round_into("bad", "out", scale=-1.0), bias={"out": 1.0})
    return m, "out", "no prefix has more b than a"


def after_last_b():
    m = base(["i", "n", "p_attn", "p", "out"])
    m.feature("i", "i")
    m.feature("n", "n")
    l = m.layer()
    m.head(l, "hard_right", "lt", q=[{"one": 1}], k=[{"i": 1}], v=[{"b": 1}],
           out=["p_attn"], desc="rightmost j' < j of score j': position j - 1; reads [b]")
    m.ffn(l, m.round_into("p_attn", "p"))
    l = m.layer()
    m.head(l, "hard_right", "le", q=[{"n": 1, "one": 1}, {"one": 1}],
           k=[{"p": 1, "bos": 1}, {"i": 1}], v=[{"a": 1}], out=["out"],
           desc="rightmost j <= i right after a b (score (n+1) p_j + j; BOS n+1); reads [a]")
    return m, "out", "the symbol right after the last b before i is a"


MODELS = {"majority": majority, "first-equals-last": first_equals_last,
          "dyck1-prefix": dyck1_prefix, "after-last-b": after_last_b}


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, make in MODELS.items():
        m, coord, what = make()
        path = os.path.join(out, name + ".safetensors")
        m.save(path, coord, what)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
