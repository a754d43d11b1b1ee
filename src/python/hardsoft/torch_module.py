# SPDX-License-Identifier: MIT
"""A forward pass of a hardsoft model file written from its weights alone,
with NumPy or PyTorch: the reference bench/peers/forward.py checks the C
runtime with, and Model.to_torch()'s torch.nn.Module.

It shares no code with the C library: the file (format "hardsoft-1",
documented at the top of src/model/safetensors.c) is parsed with json and
numpy.frombuffer, and the pass follows the comment at the top of
src/model/model.h. Positions 0..n hold BOS then the input bytes; x_i is the
symbol's embedding plus the positional features; each layer adds every
head's attention output (all heads read the same x), then the FFN;
position i (1..n) decides 1 iff x_i[out_coord] > 1/2. A softmax head with
"bias_slope" (mode rel) adds -slope |i - j| to its logits after dividing
by tau (rel_bias). Only NumPy is needed; PyTorch is imported when a Torch
backend or module is made (the trainable module itself is
hardsoft.torch_nn).
"""
import json
import math
import os
import struct
import tempfile
from typing import Any, Dict, Tuple

import numpy as np

BLOCK = 256
BOS = 256      # the token id of BOS (bytes are 0..255)


def load(path: str) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """The model file's metadata document and its tensors (float32)."""
    with open(path, "rb") as f:
        raw = f.read()
    (hlen,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + hlen].decode("utf-8"))
    meta = header.pop("__metadata__")
    if meta.get("format") != "hardsoft-1":
        raise ValueError("%s: not a hardsoft-1 model file" % path)
    doc, data, t = json.loads(meta["hardsoft"]), raw[8 + hlen:], {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        dt = {"F32": "<f4", "F64": "<f8"}[e["dtype"]]
        # hardsoft keeps F32 weights (F64 files are rounded when loaded)
        t[name] = np.frombuffer(data[b:end], dtype=dt).reshape(e["shape"]).astype(np.float32)
    return doc, t


def write(path: str, header: Dict[str, Any], data: bytes, mode: Any = None) -> None:
    """A safetensors file of header (a JSON-able dict) and the tensor bytes
    data, written atomically (a temporary file renamed over path). The
    header is padded with spaces to a multiple of 8 bytes, as safetensors
    writers align it. mode: the file's permissions (None: as any new
    file, 0666 minus the umask)."""
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    if mode is None:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    fd, tmp = tempfile.mkstemp(prefix=".hardsoft-", dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text + data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def tau(head, n):
    n, c = max(n, 1), head.get("tau_c", 1.0)
    law = head.get("tau_law", "const")
    return {"const": c, "inv_n": c / n, "inv_nlogn": c / (n * math.log(n + 1))}[law]


def posfeat(p, i, n):
    """Feature p at positions i (an integer array) for length n."""
    k = p["kind"]
    if k == "one": return np.ones(len(i))
    if k == "bos": return (i == 0).astype(float)
    if k == "last": return (i == n).astype(float)
    if k == "i": return i.astype(float)
    if k == "n": return np.full(len(i), float(n))
    if k == "i_over_n": return i / n if n else np.zeros(len(i))
    if k == "inv_i1": return 1.0 / (i + 1)
    if k == "mod": return (i % p["k"] == p["r"]).astype(float)
    if k == "ln_rest": return np.log(n + 1 - i)
    if k == "ln_i": return np.log(np.maximum(i, 1))
    if k == "ln_rest_over_n": return np.log(n + 1 - i) / max(n, 1)
    if k == "ln_i_over_n": return np.log(np.maximum(i, 1)) / max(n, 1)
    raise ValueError("unknown positional feature " + k)


def visible(mask, rows, n):
    """Boolean [len(rows), n+1]: the keys each query row sees (BOS always)."""
    i, j = rows[:, None], np.arange(n + 1)[None, :]
    vis = {"none": np.ones((len(rows), n + 1), bool), "le": j <= i,
           "lt": j < i, "ge": j >= i, "gt": j > i}[mask].copy()
    vis[:, 0] = True
    return vis


def rel_bias(mask, slope, rows, n):
    """[len(rows), n+1]: the relative-position bias -slope |i - j| of a
    head (mode rel). BOS stands at position 0 for the past masks and at
    n + 1 for the future ones (ge, gt): the far end of the window."""
    j = np.arange(n + 1)
    if mask in ("ge", "gt"):
        j[0] = n + 1
    return -slope * np.abs(rows[:, None] - j[None, :]).astype(float)


class Numpy:
    def __init__(self, dtype): self.dtype = dtype
    def T(self, a): return np.asarray(a, dtype=self.dtype)
    def np(self, a): return np.asarray(a, dtype=np.float64)
    def softmax(self, s):
        e = np.exp(s - s.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)
    def cat(self, parts): return np.concatenate(parts)
    def rowmax(self, s): return s.max(1, keepdims=True)
    def where(self, c, a, b): return np.where(c, a, b)


class Torch:
    """The PyTorch backend. one_thread: torch.set_num_threads(1) (what the
    benchmark peer measures); a module made by Model.to_torch() leaves the
    caller's setting alone."""
    def __init__(self, dtype, one_thread=True):
        import torch
        if one_thread:
            torch.set_num_threads(1)
        self.t, self.dtype = torch, {np.float32: torch.float32, np.float64: torch.float64}[dtype]
    def T(self, a):
        if isinstance(a, self.t.Tensor):
            return a.to(self.dtype)
        return self.t.as_tensor(np.asarray(a), dtype=self.dtype)
    def np(self, a): return a.double().numpy()
    def softmax(self, s): return self.t.softmax(s, dim=1)
    def cat(self, parts): return self.t.cat(parts)
    def rowmax(self, s): return s.amax(1, keepdim=True)
    def where(self, c, a, b): return self.t.where(self.t.as_tensor(c), a, self.t.as_tensor(b, dtype=self.dtype))


def attention(be, head, x, Wq, Wk, Wv, n, block):
    q, k, v = x @ Wq.T, x @ Wk.T, x @ Wv.T
    out, kind = [], head["kind"]
    slope = float(head.get("bias_slope", 0.0))
    if kind == "softmax":                # scores are multiplied, as in C
        inv_tau = be.T(1.0 / tau(head, n))
    for r0 in range(0, n + 1, block):
        rows = np.arange(r0, min(r0 + block, n + 1))
        vis = visible(head["mask"], rows, n)
        s = q[r0:r0 + len(rows)] @ k.T
        if kind == "softmax":
            s = s * inv_tau
            if slope:                  # relative positions, after tau
                s = s + be.T(rel_bias(head["mask"], slope, rows, n))
            w = be.softmax(be.where(vis, s, -np.inf))
        else:
            s = be.where(vis, s, -np.inf)
            top = be.np(s == be.rowmax(s)) > 0          # all maximal keys
            if kind == "hard_left": top &= np.cumsum(top, 1) == 1
            if kind == "hard_right": top &= np.cumsum(top[:, ::-1], 1)[:, ::-1] == 1
            w = be.T(top / top.sum(1, keepdims=True))
        out.append(w @ v)
    return be.cat(out)


def forward_ids(doc, t, ids, be, block=BLOCK):
    """Values of the output coordinate at positions 0..n of the token ids
    `ids` (BOS = 256 first, then bytes); query rows in blocks of `block`."""
    ids = np.asarray(ids, dtype=np.int64)
    n, d = len(ids) - 1, doc["d"]
    pos = np.arange(n + 1)
    x = be.T(t["embed"])[ids]
    for p in doc["pos_features"]:
        col = np.zeros((n + 1, d))
        col[:, p["coord"]] = posfeat(p, pos, n)
        x = x + be.T(col)          # features rounded to the working precision
    for l, layer in enumerate(doc["layers"]):
        W = lambda name: be.T(t["layers.%d.%s" % (l, name)])
        xin = x                    # every head reads the stream before any writes
        for h, head in enumerate(layer["heads"]):
            a = "attn.%d." % h
            o = attention(be, head, xin, W(a + "wq"), W(a + "wk"), W(a + "wv"), n, block)
            x = x + o @ W(a + "wo").T
        if layer["hidden"] > 0:
            hid = x @ W("ffn.w1").T + W("ffn.b1")
            hid = layer_norm_pairs(be, layer, hid)
            hid = be.where(be.np(hid) > 0, hid, 0.0)
            x = x + (hid @ W("ffn.w2").T + W("ffn.b2"))
    return x[:, doc["out_coord"]]


def forward(doc, t, s, be, block=BLOCK):
    """Values of the output coordinate at positions 1..n of the byte
    string s (float64 NumPy); query rows in blocks of `block` (n + 1: the
    full matrix)."""
    return be.np(forward_ids(doc, t, [BOS] + list(s), be, block))[1:]


def layer_norm_pairs(be, layer, hid):
    """Hidden units 0..2k-1 normalized in pairs (k = ln_pairs): g (h - m) /
    sqrt(v + eps) + b, with m, v the pair's mean and variance (b alone
    where v + eps = 0)."""
    k = int(layer.get("ln_pairs", 0))
    if k == 0:
        return hid
    h = be.np(hid).copy()
    g = np.asarray(layer["ln_gain"], dtype=h.dtype).reshape(k, 2)
    b = np.asarray(layer["ln_bias"], dtype=h.dtype).reshape(k, 2)
    pairs = h[:, :2 * k].reshape(len(h), k, 2)
    m = pairs.mean(axis=2, keepdims=True)
    s = np.sqrt(((pairs - m) ** 2).mean(axis=2, keepdims=True) + float(layer.get("ln_eps", 0)))
    safe = np.where(s > 0, s, 1)
    normed = np.where(s > 0, g * (pairs - m) / safe + b, b)
    h[:, :2 * k] = normed.reshape(len(h), 2 * k)
    return be.T(h)


def make_module(doc, t, dtype=None, hard_tau=None):
    """A trainable torch.nn.Module of the model (doc, t):
    hardsoft.torch_nn.HardsoftModule (weights as nn.Parameters, the pass
    in torch operations, batches with a padding mask). forward(ids) on a
    LongTensor [n+1] (BOS = 256 first, then bytes) or [B, L] with a mask
    returns the output coordinate at every position; position i >= 1
    decides 1 iff its value is > 1/2. dtype: float64 by default."""
    from .torch_nn import HardsoftModule
    return HardsoftModule(doc, t, dtype, hard_tau=hard_tau)
