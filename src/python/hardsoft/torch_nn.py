# SPDX-License-Identifier: MIT
"""A compiled hardsoft model as a trainable torch.nn.Module.

HardsoftModule holds the model's weights as nn.Parameters under the names
of the model file (embed, layers.L.attn.H.wq, ..., layers.L.ffn.w1, and
layers.L.ln_gain / ln_bias where a layer normalizes hidden pairs), and its
forward pass is torch operations only, so autograd, torch.jit.trace and
torch.onnx.export see all of it:

    x_i = embed[id_i] + positional features(i, n)
    per layer: every head reads the same x; x += softmax or hard
    attention(x) @ wo^T; then x += relu(LN(x W1^T + b1)) W2^T + b2
    value_i = x_i[out_coord]; position i decides 1 iff value_i > 1/2

The input is a LongTensor of token ids, BOS (256) first, then the bytes
the model reads (Model.token_ids / Model.token_batch), as [n+1] or as a
padded batch [B, L] with a boolean mask [B, L] (True on BOS and the
symbols). Each row keeps its own length n: positional features,
temperatures tau(n) and the masks ge / gt use it, and padded keys get no
weight. The output has the input's shape.

What is differentiable: softmax heads (modes pe, temp, fixed, rel: the
scores divided by tau(n), plus the relative bias, softmax), the
embeddings, every value / output projection, the feed-forward layers and
the layer normalization. Hard heads (mode hard, and every hard head a
counting construction uses) pick their keys by comparing scores for
equality with the row's maximum: the choice is a mask, exact at the
compiled weights, with no gradient to wq / wk (their values and outputs
still get one). HardsoftModule(..., hard_tau=t) (Model.to_torch(hard_tau=t))
replaces each hard head by softmax at the constant temperature t, which
is differentiable everywhere and equal to the hard choice while the score
gaps stay large against t (hs_simulate's law: at most (n+1) e^{-gap/t} off
the maximal keys); compiling in a softmax mode is the other way.
"""
import json
import math
import warnings
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np
import torch
from torch import nn

from .torch_module import write

BOS = 256
_FAR = 1 << 40        # an index past every key (a constant, so traced graphs
                      # keep working at every length)
MASK_KINDS = ("none", "le", "lt", "ge", "gt")


def _dtype(dtype: Any) -> torch.dtype:
    if dtype is None:
        return torch.float64
    if isinstance(dtype, torch.dtype):
        return dtype
    names = {"float32": torch.float32, "float64": torch.float64, "f32": torch.float32,
             "f64": torch.float64}
    key = dtype if isinstance(dtype, str) else np.dtype(dtype).name
    if key not in names:
        raise ValueError("dtype %r is not float32 or float64" % (dtype,))
    return names[key]


def _posfeat(kind: str, k: int, r: int, i: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    """Feature `kind` at positions i [1, L] for lengths n [B, 1], float64.
    Padded positions (i > n) get finite values: their keys are masked, but
    a NaN there would still poison 0-weight products."""
    n1 = torch.clamp(n, min=1.0)
    rest = torch.clamp(n + 1 - i, min=1.0)
    ilog = torch.log(torch.clamp(i, min=1.0))
    if kind == "one": return torch.ones_like(i + n)
    if kind == "bos": return (i == 0).to(i.dtype) + 0 * n
    if kind == "last": return (i == n).to(i.dtype)
    if kind == "i": return i + 0 * n
    if kind == "n": return n + 0 * i
    if kind == "i_over_n": return torch.where(n > 0, i / n1, torch.zeros_like(i + n))
    if kind == "inv_i1": return 1.0 / (i + 1) + 0 * n
    if kind == "mod": return (torch.remainder(i, float(k)) == float(r)).to(i.dtype) + 0 * n
    if kind == "ln_rest": return torch.log(rest)
    if kind == "ln_i": return ilog + 0 * n
    if kind == "ln_rest_over_n": return torch.log(rest) / n1
    if kind == "ln_i_over_n": return ilog / n1
    raise ValueError("unknown positional feature " + kind)


class Head(nn.Module):
    """One attention head: wq [dk, d], wk [dk, d], wv [dv, d], wo [d, dv]
    as Parameters; kind, mask, temperature law and relative bias as
    plain attributes (the construction, not trained)."""

    def __init__(self, spec: Dict[str, Any], w: Dict[str, np.ndarray], hard_tau: Optional[float]):
        super().__init__()
        for name in ("wq", "wk", "wv", "wo"):
            setattr(self, name, nn.Parameter(torch.from_numpy(np.array(w[name], dtype=np.float64))))
        self.kind = spec["kind"]
        self.mask = spec.get("mask", "none")
        if self.mask not in MASK_KINDS:
            raise ValueError("unknown mask " + self.mask)
        self.law = spec.get("tau_law", "const")
        self.tau_c = float(spec.get("tau_c", 1.0))
        self.slope = float(spec.get("bias_slope", 0.0) or 0.0)
        self.hard_tau = hard_tau

    def inv_tau(self, n: torch.Tensor) -> torch.Tensor:
        """1 / tau(n) per row, [B, 1, 1], float64."""
        if self.kind != "softmax":
            return torch.full_like(n, 1.0 / self.hard_tau).view(-1, 1, 1)
        n1 = torch.clamp(n, min=1.0)
        if self.law == "const": tau = torch.full_like(n, self.tau_c)
        elif self.law == "inv_n": tau = self.tau_c / n1
        elif self.law == "inv_nlogn": tau = self.tau_c / (n1 * torch.log(n1 + 1))
        else: raise ValueError("unknown temperature law " + self.law)
        return (1.0 / tau).view(-1, 1, 1)

    def visible(self, L: int, n: torch.Tensor, device) -> torch.Tensor:
        """[B, L, L]: the keys each query sees (its mask, within the row's
        length; BOS always)."""
        i = torch.arange(L, device=device).unsqueeze(0).unsqueeze(-1)
        j = torch.arange(L, device=device).unsqueeze(0).unsqueeze(0)
        rel = {"none": (j >= 0) & (i >= 0), "le": j <= i, "lt": j < i,
               "ge": j >= i, "gt": j > i}[self.mask]
        inside = j.to(n.dtype) <= n.view(-1, 1, 1)
        return (rel & inside) | (j == 0)

    def weights(self, x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        """The attention weights [B, L, L] of this head over x [B, L, d]."""
        B, L, _ = x.shape
        s = (x @ self.wq.t()) @ (x @ self.wk.t()).transpose(1, 2)
        vis = self.visible(L, n, x.device)
        if self.kind == "softmax" or self.hard_tau is not None:
            s = s * self.inv_tau(n).to(x.dtype)
            if self.slope and self.kind == "softmax":
                i = torch.arange(L, device=x.device, dtype=torch.float64).unsqueeze(0).unsqueeze(-1)
                j = torch.arange(L, device=x.device, dtype=torch.float64).unsqueeze(0).unsqueeze(0)
                if self.mask in ("ge", "gt"):   # BOS stands at n + 1 for the future masks
                    j = torch.where(j == 0, n.view(-1, 1, 1) + 1, j + 0 * n.view(-1, 1, 1))
                s = s + (-self.slope * torch.abs(i - j)).to(x.dtype)
            return torch.softmax(s.masked_fill(~vis, float("-inf")), dim=-1)
        s = s.masked_fill(~vis, float("-inf"))
        top = (s == s.amax(dim=-1, keepdim=True)) & vis
        j = torch.arange(L, device=x.device).unsqueeze(0).unsqueeze(0)
        if self.kind == "hard_left":
            pick = torch.where(top, j, torch.full_like(j, _FAR)).amin(dim=-1, keepdim=True)
            top = j == pick
        elif self.kind == "hard_right":
            pick = torch.where(top, j, torch.full_like(j, -1)).amax(dim=-1, keepdim=True)
            top = j == pick
        elif self.kind != "hard_avg":
            raise ValueError("unknown head kind " + self.kind)
        w = top.to(x.dtype)
        return w / w.sum(dim=-1, keepdim=True)

    def forward(self, x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        """What the head adds to the residual stream, [B, L, d]."""
        return (self.weights(x, n) @ (x @ self.wv.t())) @ self.wo.t()


class Layer(nn.Module):
    """Heads (attn), then the feed-forward sublayer (ffn: w1, b1, w2, b2)
    with layer normalization of its first 2 ln_pairs hidden units."""

    def __init__(self, spec: Dict[str, Any], t: Dict[str, np.ndarray], prefix: str,
                 hard_tau: Optional[float]):
        super().__init__()
        heads = []
        for h, hs in enumerate(spec["heads"]):
            a = "%sattn.%d." % (prefix, h)
            heads.append(Head(hs, {k: t[a + k] for k in ("wq", "wk", "wv", "wo")}, hard_tau))
        self.attn = nn.ModuleList(heads)
        self.hidden = int(spec.get("hidden", 0))
        self.ffn = nn.Module()
        if self.hidden > 0:
            for k in ("w1", "b1", "w2", "b2"):
                p = nn.Parameter(torch.from_numpy(np.array(t[prefix + "ffn." + k], dtype=np.float64)))
                setattr(self.ffn, k, p)
        self.ln_pairs = int(spec.get("ln_pairs", 0))
        self.ln_eps = float(spec.get("ln_eps", 0.0))
        if self.ln_pairs:
            g = np.asarray(spec["ln_gain"], dtype=np.float64).reshape(self.ln_pairs, 2)
            b = np.asarray(spec["ln_bias"], dtype=np.float64).reshape(self.ln_pairs, 2)
            self.ln_gain = nn.Parameter(torch.from_numpy(g))
            self.ln_bias = nn.Parameter(torch.from_numpy(b))

    def norm(self, hid: torch.Tensor) -> torch.Tensor:
        """Units 0..2k-1 normalized in pairs: g (h - m) / sqrt(v + eps) + b,
        b alone where v + eps = 0 (the construction's exact sign)."""
        k = self.ln_pairs
        B, L = hid.shape[0], hid.shape[1]
        pairs = hid[..., :2 * k].reshape(B, L, k, 2)
        m = pairs.mean(dim=-1, keepdim=True)
        v = ((pairs - m) ** 2).mean(dim=-1, keepdim=True) + self.ln_eps
        pos = v > 0
        # sqrt of a guarded argument: where() alone would let the infinite
        # slope of sqrt at 0 turn a zero gradient into NaN
        s = torch.sqrt(torch.where(pos, v, torch.ones_like(v)))
        normed = torch.where(pos, self.ln_gain * (pairs - m) / s + self.ln_bias,
                             self.ln_bias + 0 * pairs)
        return torch.cat([normed.reshape(B, L, 2 * k), hid[..., 2 * k:]], dim=-1)

    def forward(self, x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        out = x
        for head in self.attn:
            out = out + head(x, n)
        if self.hidden > 0:
            hid = out @ self.ffn.w1.t() + self.ffn.b1
            if self.ln_pairs:
                hid = self.norm(hid)
            out = out + torch.relu(hid) @ self.ffn.w2.t() + self.ffn.b2
        return out


class HardsoftModule(nn.Module):
    """A hardsoft model (its file's document `doc` and tensors `t`) as a
    torch.nn.Module; see the module's docstring. dtype: torch.float32 or
    torch.float64 (module.float() / .double() switch it later)."""

    def __init__(self, doc: Dict[str, Any], t: Dict[str, np.ndarray], dtype: Any = None,
                 hard_tau: Optional[float] = None):
        super().__init__()
        if hard_tau is not None and not (math.isfinite(hard_tau) and hard_tau > 0):
            raise ValueError("hard_tau must be a positive number, got %r" % (hard_tau,))
        self.doc = doc
        self.d, self.out_coord = int(doc["d"]), int(doc["out_coord"])
        self.pos_features = [(p["kind"], int(p["coord"]), int(p.get("k", 0)), int(p.get("r", 0)))
                             for p in doc["pos_features"]]
        self.embed = nn.Parameter(torch.from_numpy(np.array(t["embed"], dtype=np.float64)))
        self.layers = nn.ModuleList([Layer(spec, t, "layers.%d." % l, hard_tau)
                                     for l, spec in enumerate(doc["layers"])])
        self.to(_dtype(dtype))

    def forward(self, ids: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        """The output coordinate at every position of ids ([L] or [B, L],
        BOS first); mask [B, L] (or [L]): True on BOS and the symbols of
        each row, False on padding (None: no padding)."""
        one = ids.dim() == 1
        if one:
            ids = ids.unsqueeze(0)
            mask = mask.unsqueeze(0) if mask is not None else None
        if not torch.jit.is_tracing():
            self._check(ids, mask)
        B, L = ids.shape
        if mask is None:
            n = torch.ones_like(ids, dtype=torch.float64).sum(dim=1, keepdim=True) - 1
        else:
            n = mask.to(torch.float64).sum(dim=1, keepdim=True) - 1
        x = self.embed[ids]
        i = torch.arange(L, device=ids.device, dtype=torch.float64).unsqueeze(0)
        for kind, coord, k, r in self.pos_features:
            col = torch.zeros(self.d, dtype=x.dtype, device=x.device)
            col[coord] = 1
            x = x + _posfeat(kind, k, r, i, n).to(x.dtype).unsqueeze(-1) * col
        for layer in self.layers:
            x = layer(x, n)
        out = x[..., self.out_coord]
        return out.squeeze(0) if one else out

    def _check(self, ids: torch.Tensor, mask: Optional[torch.Tensor]) -> None:
        if ids.dtype != torch.int64:
            raise TypeError("token ids must be a LongTensor (torch.int64)")
        if ids.dim() != 2 or ids.shape[1] < 1:
            raise ValueError("expected token ids [n+1] or [B, L], BOS first")
        if mask is not None and (mask.shape != ids.shape or mask.dtype != torch.bool):
            raise ValueError("mask must be a bool tensor of the ids' shape")
        if (ids[:, 0] != BOS).any() or ((ids[:, 1:] < 0) | (ids[:, 1:] > 255)).any():
            raise ValueError("token ids: BOS (256) first, then bytes 0..255")

    def decide(self, ids: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Decisions (bool) at every position: value > 1/2."""
        return self.forward(ids, mask) > 0.5

    def export_onnx(self, path: str, opset: int = 17) -> None:
        """The module as an ONNX graph through torch.onnx.export, with the
        interface of `hardsoft export`: input "ids" int64 [N] (BOS = 256,
        then the bytes), output "out" [N] in the module's dtype, every
        length."""
        example = torch.tensor([BOS, 97, 98, 97], dtype=torch.int64)
        with torch.no_grad(), warnings.catch_warnings():
            # torch 1.13 warns of every constant it cannot infer a shape for;
            # the graph is checked against the library where it matters
            warnings.filterwarnings("ignore", message="The shape inference of prim::Constant")
            torch.onnx.export(self, (example,), path, input_names=["ids"],
                              output_names=["out"], opset_version=opset,
                              dynamic_axes={"ids": {0: "N"}, "out": {0: "N"}})

    def state_tensors(self) -> Dict[str, np.ndarray]:
        """The weights under the model file's tensor names (float64 NumPy),
        with the document's layer-normalization gains and biases."""
        out = {"embed": self.embed.detach().cpu().double().numpy()}
        for l, layer in enumerate(self.layers):
            for h, head in enumerate(layer.attn):
                for k in ("wq", "wk", "wv", "wo"):
                    out["layers.%d.attn.%d.%s" % (l, h, k)] = getattr(head, k).detach().cpu().double().numpy()
            if layer.hidden > 0:
                for k in ("w1", "b1", "w2", "b2"):
                    out["layers.%d.ffn.%s" % (l, k)] = getattr(layer.ffn, k).detach().cpu().double().numpy()
        return out

    def save(self, path: str) -> None:
        """Write the (trained) weights as a hardsoft model file that
        hardsoft.load and the command line run: the original document
        (positional features, heads, vocabulary) with the new layer-norm
        gains and biases, tensors in F32 (the library runs F32 weights)."""
        doc = json.loads(json.dumps(self.doc))
        for l, layer in enumerate(self.layers):
            if layer.ln_pairs:
                doc["layers"][l]["ln_gain"] = layer.ln_gain.detach().double().flatten().tolist()
                doc["layers"][l]["ln_bias"] = layer.ln_bias.detach().double().flatten().tolist()
        write_file(path, doc, self.state_tensors(), getattr(self, "file_meta", {}))


def write_file(path: str, doc: Dict[str, Any], tensors: Dict[str, np.ndarray],
               meta: Optional[Dict[str, str]] = None) -> None:
    """A safetensors file in format hardsoft-1 (F32 tensors), atomically."""
    header: Dict[str, Any] = {"__metadata__": dict(meta or {}, format="hardsoft-1",
                                                    hardsoft=json.dumps(doc))}
    blobs, off = [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype="<f4")
        if not np.isfinite(a).all():
            raise ValueError("tensor %s has a non-finite weight" % name)
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [off, off + a.nbytes]}
        blobs.append(a.tobytes())
        off += a.nbytes
    write(path, header, b"".join(blobs))


def pad(seqs: Sequence[torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
    """A batch of id tensors of different lengths as (ids [B, L], mask
    [B, L]): padded with byte 0 after each row, mask True on real ids."""
    L = max(len(s) for s in seqs)
    ids = torch.zeros((len(seqs), L), dtype=torch.int64)
    mask = torch.zeros((len(seqs), L), dtype=torch.bool)
    for k, s in enumerate(seqs):
        ids[k, :len(s)] = s
        mask[k, :len(s)] = True
    return ids, mask
