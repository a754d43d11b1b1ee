# SPDX-License-Identifier: MIT
"""Models: compile, load, run, inspect (a thin layer over libhardsoft).

Inputs are strings of symbols. A formula model (lang "ltl") reads one
byte per position: "cabba" is five positions. A program model (C-RASP,
B-RASP, or any model whose file carries a vocabulary) reads tokens: a
string is split at whitespace, as `hardsoft run --tokens` does ("a a b"
is three positions, "<p> word </p>" three as well), or the tokens are
given as a list (tokens=[...]). A token the program does not name is an
error (hardsoft.Error naming it) unless the call says unknown="other":
then it is read as one symbol no token uses. A formula model reads every
byte, and a byte no atom names makes every atom false: allowed, but
warned about (InputWarning) unless unknown="other".
"""
import contextlib
import ctypes as C
import json
import math
import os
import struct
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _lib
from ._lib import Error

MODES = ("hard", "pe", "temp", "fixed", "rel")
SIGNS = {"layernorm": 0, "temp": 1}
LANGS = {"ltl": 0, "crasp": 1, "brasp": 2, "regex": 3}   # hs_lang of the program API
PRECISIONS = {"f32": 0, "f64": 1}
PRECISION_NAMES = ("f32", "f64", "f16", "bf16", "f16s", "bf16s")
UNKNOWN = {"error": 0, "other": 1}   # hs_unknown

Text = Union[str, bytes, bytearray, memoryview]
PathLike = Union[str, bytes, "os.PathLike[str]"]

# __metadata__ keys Model.save adds to a program model's file so that
# load() can rebuild its ground truth (the library ignores other keys)
_META_SOURCE, _META_LANG = "hardsoft_program", "hardsoft_lang"
_META_ALPHABET = "hardsoft_alphabet"   # a regular expression's --alphabet


class UnprovenWarning(UserWarning):
    """A run outside what the model's construction proves exact (the
    library's hs_model_unproven: mu below the smallest exact mu, mode fixed
    past n = mu / ln 7, counting comparisons past their exact region in
    the run's precision, absolute positions past 2^23 in f32). It still
    runs; the answer is not guaranteed."""


class InputWarning(UserWarning):
    """An input a formula model reads, but maybe not as meant: a byte no atom
    of the formula names (every atom is false there). unknown="other" says
    it is meant."""


def _unknown(unknown: str) -> int:
    if not isinstance(unknown, str) or unknown not in UNKNOWN:
        raise Error("unknown=%r is not 'error' or 'other'" % (unknown,))
    return UNKNOWN[unknown]


def _bytes(s: Any, what: str = "input string") -> bytes:
    """A string of symbols as bytes: str is encoded as UTF-8 (one position
    per byte, as the command line takes its arguments)."""
    if isinstance(s, str):
        return s.encode("utf-8")
    if isinstance(s, (bytes, bytearray, memoryview)):
        return bytes(s)
    raise Error("%s must be str or bytes, not %s" % (what, type(s).__name__))


def _outside() -> int:
    """warnings.warn's stacklevel naming the first caller outside this
    package (the user's line)."""
    f, level = sys._getframe(1), 1
    here = os.path.dirname(os.path.abspath(__file__))
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == here:
        f, level = f.f_back, level + 1
    return level


def _buf(s: bytes):
    return (C.c_uint8 * max(len(s), 1)).from_buffer_copy(s or b"\0")


def _run_opts(precision: str, threads: int = 0) -> _lib.HsRunOpts:
    """Options of a run in one of the precisions PRECISION_NAMES: f32, f64,
    or f32 with the queries, keys and values stored in f16 / bf16, or
    with the scores q.k rounded to f16 / bf16 (f16s, bf16s): the
    precision-boundary experiment (`hardsoft boundary --precision`)."""
    if not isinstance(precision, str) or precision not in PRECISION_NAMES:
        raise Error("precision '%s' is not one of %s" % (precision, ", ".join(PRECISION_NAMES)))
    prec, score, qkv = C.c_int(), C.c_int(), C.c_int()
    if _lib.lib().hs_precision_parse(precision.encode(), C.byref(prec), C.byref(score),
                                     C.byref(qkv)) != 0:
        raise Error("precision '%s' is not in this build of libhardsoft" % precision)
    o = _lib.HsRunOpts()
    o.precision, o.threads = prec.value, threads
    o.score_round, o.qkv_round = score.value, qkv.value
    return o


@dataclass
class LayerAttention:
    """The attention of one layer over a string of n symbols: for each head
    h, weights[h, i, j] is the weight query i (0 = BOS, 1..n the
    positions) puts on key j (0 = BOS); hard[h] the hard attention the
    head is or stands in for; target[h, i] the key that hard attention
    picks (-1: spread over several keys, or no hard counterpart); heads[h]
    the head's kind, target kind, mask and description; labels the n + 1
    axis labels ("BOS", then each position's symbol or token)."""
    layer: int
    weights: np.ndarray
    hard: np.ndarray
    target: np.ndarray
    heads: List[Dict[str, Any]] = field(default_factory=list)
    labels: List[str] = field(default_factory=list)


@dataclass
class Batch:
    """The answers for many strings at once (Model.run_batch): bits and
    values laid end to end, string k's at offsets[k] .. offsets[k] +
    lengths[k]. split() gives one array per string."""
    bits: np.ndarray      # uint8, every string's decisions in order
    values: np.ndarray    # float64, the output coordinate
    lengths: np.ndarray   # int64, positions of each string

    @property
    def offsets(self) -> np.ndarray:
        """Where each string's answers start."""
        return np.concatenate([[0], np.cumsum(self.lengths)[:-1]]).astype(np.int64)

    def split(self, what: str = "bits") -> List[np.ndarray]:
        """One array per string: of the decisions ("bits") or the values."""
        a = self.bits if what == "bits" else self.values
        return np.split(a, np.cumsum(self.lengths)[:-1]) if len(self.lengths) else []


Tokens = Optional[Sequence[Text]]


class Model:
    """A compiled transformer (the C library's hs_model). Made by
    hardsoft.compile or hardsoft.load; freed with the object.

    Every call that runs the model (eval, values, truth, attention,
    run_batch) takes the input as a string s or as tokens=[...]; calls
    from several threads on one model at once are safe and run in
    parallel (the library only reads the model; ctypes releases the GIL
    during each call).

    Attributes: source (the text compiled, None for a loaded model
    without it), lang ("ltl", "crasp", "brasp", "regex"; None when a
    loaded file does not say), sign, alphabet (a regular expression's
    extra symbols, or None)."""

    def __init__(self, ptr: int, source: Optional[str] = None, lang: Optional[str] = "ltl",
                 sign: str = "layernorm", formula: Optional[int] = None,
                 program: Optional[int] = None):
        self._ptr = ptr
        self._formula, self._program = formula, program
        self.source, self.lang, self.sign = source, lang, sign
        self.alphabet: Optional[str] = None

    def __del__(self):
        lib = _lib._lib
        if lib is None:
            return
        if getattr(self, "_ptr", None):
            lib.hs_model_free(self._ptr)
        if getattr(self, "_program", None):
            lib.hs_program_free(self._program)
        elif getattr(self, "_formula", None):
            lib.hs_formula_free(self._formula)
        self._ptr = self._program = self._formula = None

    # ---------------------------------------------------------- metadata
    def _info(self) -> _lib.HsModelInfo:
        info = _lib.HsModelInfo()
        _lib.lib().hs_model_get_info(self._ptr, C.byref(info))
        return info

    @property
    def mode(self) -> str:
        """hard, pe, temp, fixed or rel ("custom" for a hand-made file)."""
        return self._info().mode.decode()

    @property
    def scale(self) -> float:
        """mu, the construction's scale."""
        return self._info().scale

    @property
    def d(self) -> int:
        """Width of the residual stream."""
        return self._info().d

    @property
    def nlayers(self) -> int:
        return self._info().nlayers

    @property
    def nheads(self) -> int:
        """Attention heads over all layers."""
        return self._info().nheads

    @property
    def formula(self) -> Optional[str]:
        """The formula compiled (for a program: "C-RASP program, root X")."""
        f = self._info().formula
        return f.decode("utf-8", "replace") if f is not None else None

    @property
    def vocab(self) -> Dict[str, int]:
        """The program's tokens and the byte the model reads for each, in
        the order the program names them ({} for a formula over bytes)."""
        lib = _lib.lib()
        return {lib.hs_model_vocab_token(self._ptr, k).decode("utf-8", "replace"):
                lib.hs_model_vocab_byte(self._ptr, k)
                for k in range(lib.hs_model_vocab_size(self._ptr))}

    @property
    def reads_tokens(self) -> bool:
        """True when a string is a whitespace-separated list of tokens (a
        program model), False when every byte is a position (a formula)."""
        return self.lang not in ("ltl", None) or _lib.lib().hs_model_vocab_size(self._ptr) > 0

    def info(self) -> Dict[str, Any]:
        """mode, scale, d, layers, heads, out_coord, bound, min_scale, formula,
        exact_region (in words, or None) and count_exact_n (the largest n at
        which the counting comparisons are proven exact, {"f32": n, "f64": n};
        None without comparisons)."""
        i, lib = self._info(), _lib.lib()
        region = lib.hs_model_exact_region(self._ptr)
        n32 = lib.hs_model_count_max_n(self._ptr, 24)
        counts = None if math.isinf(n32) else {
            "f32": int(n32), "f64": int(lib.hs_model_count_max_n(self._ptr, 53))}
        return {"mode": i.mode.decode(), "scale": i.scale, "d": i.d,
                "layers": i.nlayers, "heads": i.nheads, "out_coord": i.out_coord,
                "bound": i.bound, "min_scale": i.min_scale, "formula": self.formula,
                "exact_region": region.decode() if region is not None else None,
                "count_exact_n": counts}

    def _warn_unproven(self, n: int, o: "_lib.HsRunOpts") -> None:
        """UnprovenWarning when a run over n symbols in o's precision is
        outside what the model proves exact."""
        buf = C.create_string_buffer(512)
        if _lib.lib().hs_model_unproven(self._ptr, n, o.precision, buf, len(buf)):
            warnings.warn(buf.value.decode(), UnprovenWarning, stacklevel=_outside())

    def head_info(self, layer: int, head: int) -> Dict[str, Any]:
        """One head: kind, target, mask, tau law and constant, relative
        bias slope, dk, dv, description."""
        h = _lib.HsHeadInfo()
        if _lib.lib().hs_model_head_info(self._ptr, layer, head, C.byref(h)) != 0:
            raise Error("layer %d has no head %d" % (layer, head))
        dec = lambda b: b.decode("utf-8", "replace") if b is not None else None
        return {"layer": layer, "head": head, "kind": dec(h.kind),
                "target": dec(h.target), "mask": dec(h.mask),
                "tau_law": dec(h.tau_law), "tau_c": h.tau_c,
                "bias_slope": h.bias_slope, "dk": h.dk, "dv": h.dv,
                "desc": dec(h.desc)}

    def describe(self) -> str:
        """What `hardsoft compile --print` prints."""
        lib = _lib.lib()
        n = lib.hs_model_describe(self._ptr, None, 0)
        buf = C.create_string_buffer(n + 1)
        lib.hs_model_describe(self._ptr, buf, n + 1)
        return buf.value.decode("utf-8", "replace")

    def __repr__(self) -> str:
        i = self._info()
        return "<hardsoft.Model %r mode=%s scale=%g d=%d layers=%d heads=%d>" % (
            self.formula, i.mode.decode(), i.scale, i.d, i.nlayers, i.nheads)

    # ---------------------------------------------------------- input
    def encode(self, s: Optional[Text] = None, tokens: Tokens = None,
               unknown: str = "error") -> bytes:
        """The bytes the model reads for s (or for the token list), one per
        position: a program model's tokens as their bytes, a formula
        model's string as it is. A token the vocabulary does not name (a
        formula's token longer than one byte) raises Error naming it,
        unless unknown="other": then it is the one byte no token uses. A
        formula model warns (InputWarning) about a byte no atom names,
        unless unknown="other"."""
        u = _unknown(unknown)
        if (s is None) == (tokens is None):
            raise Error("give the input as a string or as tokens=[...], not %s"
                        % ("both" if s is not None else "neither"))
        if tokens is not None:
            if isinstance(tokens, (str, bytes)) or not isinstance(tokens, (list, tuple)):
                raise Error("tokens must be a list of strings, not %s" % type(tokens).__name__)
            toks = [_bytes(t, "token") for t in tokens]
            for k, t in enumerate(toks):
                if not t or any(c in b" \t\n\v\f\r" for c in t):
                    raise Error("token %d (%r) is empty or holds whitespace" % (k, t))
            w = self._encode_line(b" ".join(toks), u)
        else:
            w = _bytes(s)
            if self.reads_tokens:
                w = self._encode_line(w, u)
        if not self.reads_tokens and not u:
            self._warn_unnamed(w)
        return w

    def _encode_line(self, line: bytes, unknown: int) -> bytes:
        out, n, err = (C.c_uint8 * max(len(line), 1))(), C.c_size_t(), _lib.HsError()
        if _lib.lib().hs_model_encode(self._ptr, line, len(line), unknown, out,
                                      C.byref(n), C.byref(err)) != 0:
            e = _lib.fail(err)
            e.args = (e.message + " (unknown='other' reads unknown tokens as one "
                      "symbol no token names)",)
            e.message = e.args[0]
            raise e
        return bytes(out[:n.value])

    def _warn_unnamed(self, w: bytes) -> None:
        if getattr(self, "_alphabet", None) is None:
            set_ = (C.c_uint8 * 256)()
            _lib.lib().hs_model_alphabet(self._ptr, set_)
            self._alphabet = bytes(set_)
        if not any(self._alphabet):
            return                       # no atom: nothing reads the bytes
        bad = sorted({b for b in w if not self._alphabet[b]})
        if bad:
            sym = "'%c'" % bad[0] if 32 <= bad[0] < 127 else "\\x%02x" % bad[0]
            warnings.warn("no atom of the formula names the byte %s: every atom is "
                          "false there (unknown='other' allows such bytes without "
                          "this warning)" % sym, InputWarning, stacklevel=_outside())

    def labels(self, s: Optional[Text] = None, tokens: Tokens = None) -> List[str]:
        """Axis labels of the positions 1..n: each token (program models)
        or each symbol (formulas)."""
        if tokens is not None:
            return [t if isinstance(t, str) else _bytes(t).decode("utf-8", "replace")
                    for t in tokens]
        w = _bytes(s)
        if self.reads_tokens:
            return [t.decode("utf-8", "replace") for t in w.split()]
        return [chr(b) if 32 < b < 127 else "\\x%02x" % b for b in w]

    # ---------------------------------------------------------- running
    def eval(self, s: Union[Text, Sequence[Text], None] = None, precision: str = "f32",
             *, tokens: Tokens = None, unknown: str = "error"):
        """The model's decision (0/1, numpy uint8) at positions 1..n of s
        (or of tokens=[...]); a list of arrays for a list of strings (run
        in one library call, see run_batch). unknown: see encode."""
        if isinstance(s, (list, tuple)):
            return self.run_batch(s, precision, unknown=unknown).split("bits")
        return self._forward(self.encode(s, tokens, unknown), precision)[0]

    def values(self, s: Optional[Text] = None, precision: str = "f32", *,
               tokens: Tokens = None, unknown: str = "error") -> np.ndarray:
        """The output coordinate (float64) at positions 1..n: the decision
        is value > 1/2."""
        return self._forward(self.encode(s, tokens, unknown), precision)[1]

    def run_batch(self, strings: Sequence[Union[Text, Sequence[Text]]],
                  precision: str = "f32", *, unknown: str = "error") -> Batch:
        """Many inputs in one library call (hs_forward_batch: the weights
        are prepared once): each item a string, or a list of tokens.
        Returns a Batch: the decisions and values end to end and each
        input's length."""
        if isinstance(strings, (str, bytes)) or not isinstance(strings, (list, tuple)):
            raise Error("run_batch takes a list of strings, not %s" % type(strings).__name__)
        enc = [self.encode(tokens=x, unknown=unknown) if isinstance(x, (list, tuple))
               else self.encode(x, unknown=unknown) for x in strings]
        lens = np.array([len(w) for w in enc], dtype=np.int64)
        total = int(lens.sum())
        flat = _buf(b"".join(enc))
        base = C.addressof(flat)
        ptrs = (_lib.BYTES * max(len(enc), 1))()
        offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        for k in range(len(enc)):
            ptrs[k] = C.cast(base + int(offs[k]), _lib.BYTES)
        clens = (C.c_size_t * max(len(enc), 1))(*[int(x) for x in lens])
        bits = np.zeros(max(total, 1), dtype=np.uint8)
        vals = np.zeros(max(total, 1), dtype=np.float64)
        o, err = _run_opts(precision), _lib.HsError()
        self._warn_unproven(int(lens.max()) if len(lens) else 0, o)
        if _lib.lib().hs_forward_batch(self._ptr, len(enc), ptrs, clens, C.byref(o),
                                       bits.ctypes.data_as(_lib.BYTES),
                                       vals.ctypes.data_as(C.POINTER(C.c_double)),
                                       C.byref(err)) != 0:
            raise _lib.fail(err)
        return Batch(bits[:total], vals[:total], lens)

    def _forward(self, w: bytes, precision: str):
        lib, n = _lib.lib(), len(w)
        o, r = _run_opts(precision), _lib.HsRunResult()
        err = _lib.HsError()
        self._warn_unproven(n, o)
        if lib.hs_forward(self._ptr, _buf(w), n, C.byref(o), C.byref(r), C.byref(err)) != 0:
            raise _lib.fail(err)
        try:
            bits = np.ctypeslib.as_array(r.bits, (max(n, 1),))[:n].copy()
            vals = np.ctypeslib.as_array(r.values, (max(n, 1),))[:n].copy()
        finally:
            lib.hs_run_result_free(C.byref(r))
        return bits.astype(np.uint8), vals

    def truth(self, s: Union[Text, Sequence[Text], None] = None, *,
              tokens: Tokens = None, unknown: str = "error"):
        """The logic's own answer (0/1, numpy uint8) at positions 1..n: the
        formula's evaluator or the program's interpreter, no transformer
        involved; a list of arrays for a list of strings."""
        if isinstance(s, (list, tuple)):
            return [self.truth(x, unknown=unknown) for x in s]
        w, lib = self.encode(s, tokens, unknown), _lib.lib()
        if self._formula is None and self._program is None:
            if self.formula is None or self.reads_tokens:
                raise Error("this model carries neither a formula nor its program's "
                            "source, so it has no truth to compare with")
            self._formula = _parse_ltl(self.formula)   # a loaded model: its source
        out = (C.c_uint8 * max(len(w), 1))()
        err = _lib.HsError()
        if self._program is not None:
            rc = lib.hs_program_truth(self._program, _buf(w), len(w), out, C.byref(err))
        else:
            rc = lib.hs_truth_eval(self._formula, lib.hs_formula_root(self._formula),
                                   _buf(w), len(w), out, C.byref(err))
        if rc != 0:
            raise _lib.fail(err)
        return np.frombuffer(out, dtype=np.uint8)[:len(w)].copy()

    def attention(self, s: Optional[Text] = None, precision: str = "f32", *,
                  tokens: Tokens = None, unknown: str = "error") -> List[LayerAttention]:
        """Per layer, the attention weights every head uses over s (see
        LayerAttention): computed by the C library (hs_attention) from the
        residual stream the forward pass keeps; O(n^2) memory per head,
        n at most 4096."""
        w, lib = self.encode(s, tokens, unknown), _lib.lib()
        labels = ["BOS"] + self.labels(s, tokens)
        n, out = len(w), []
        o = _run_opts(precision)
        self._warn_unproven(n, o)
        msg = _lib.HsError()
        for layer in range(self.nlayers):
            nh = lib.hs_model_layer_nheads(self._ptr, layer)
            weights = np.zeros((nh, n + 1, n + 1))
            hard = np.zeros((nh, n + 1, n + 1))
            target = np.zeros((nh, n + 1), dtype=np.int32)
            dp = C.POINTER(C.c_double)
            if lib.hs_attention(self._ptr, _buf(w), n, C.byref(o), layer,
                                weights.ctypes.data_as(dp), hard.ctypes.data_as(dp),
                                target.ctypes.data_as(C.POINTER(C.c_int32)),
                                C.byref(msg)) != 0:
                raise _lib.fail(msg)
            heads = [self.head_info(layer, h) for h in range(nh)]
            out.append(LayerAttention(layer, weights, hard, target, heads, labels))
        return out

    # ---------------------------------------------------------- files
    def save(self, path: PathLike) -> None:
        """Write the model file (safetensors), atomically. A program
        model's file also keeps the program's source, so that load() can
        give its truth."""
        msg = _lib.HsError()
        p = os.fsencode(path)
        if _lib.lib().hs_model_save(self._ptr, p, C.byref(msg)) != 0:
            raise _lib.fail(msg, "%s: " % os.fsdecode(p))
        if self._program is not None and self.source is not None:
            _meta_add(os.fsdecode(p), self._meta())

    def _meta(self) -> Dict[str, str]:
        """What a file needs to give the program back on load."""
        meta = {_META_SOURCE: self.source, _META_LANG: self.lang}
        if self.alphabet is not None:
            meta[_META_ALPHABET] = self.alphabet
        return meta

    def explain(self) -> str:
        """What the front end found (`hardsoft compile --explain`): for a
        regular expression its automaton, monoid, class and witness, and
        the construction's size; "" for other languages."""
        return _explain(self._program) if self._program is not None else ""

    def save_onnx(self, path: PathLike) -> None:
        """Write the library's own ONNX graph of the model (`hardsoft
        export`): input "ids" int64 [N] (BOS = 256, then the bytes),
        output "out" float [N]."""
        msg = _lib.HsError()
        p = os.fsencode(path)
        if _lib.lib().hs_model_save_onnx(self._ptr, p, C.byref(msg)) != 0:
            raise _lib.fail(msg, "%s: " % os.fsdecode(p))

    def to_torch(self, dtype: Any = None, hard_tau: Optional[float] = None):
        """A trainable torch.nn.Module computing this model (see
        hardsoft.torch_module.HardsoftModule): the weights are
        nn.Parameters, the forward pass is torch operations only, over a
        batch with a padding mask. dtype: torch.float32 or torch.float64
        (the default; numpy dtypes are taken too). hard_tau: replace every
        hard head by softmax at this constant temperature (differentiable
        through its scores too; exact only while the score gaps stay large
        against hard_tau)."""
        from . import torch_module
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "model.safetensors")
            msg = _lib.HsError()
            if _lib.lib().hs_model_save(self._ptr, path.encode(), C.byref(msg)) != 0:
                raise _lib.fail(msg)
            doc, t = torch_module.load(path)
            meta = {k: v for k, v in _meta_read(path).items() if k == "vocab"}
        module = torch_module.make_module(doc, t, dtype, hard_tau=hard_tau)
        if self._program is not None and self.source is not None:
            meta.update(self._meta())
        module.file_meta = meta     # written back by module.save
        return module

    @staticmethod
    def token_ids(s: Text):
        """The LongTensor of ids to_torch's module takes for a string of
        bytes: BOS (256), then the bytes of s (a program model's tokens:
        Model.ids)."""
        import torch
        return torch.tensor([256] + list(_bytes(s)), dtype=torch.int64)

    def ids(self, s: Optional[Text] = None, tokens: Tokens = None,
            unknown: str = "error"):
        """The LongTensor of ids to_torch's module takes for the input s
        (or tokens) as this model reads it: BOS (256), then one id per
        position."""
        import torch
        return torch.tensor([256] + list(self.encode(s, tokens, unknown)), dtype=torch.int64)

    def token_batch(self, strings: Sequence[Union[Text, Sequence[Text]]],
                    unknown: str = "error"):
        """(ids [B, L], mask [B, L]) for to_torch's module: each input's
        ids padded after its end, mask True on BOS and the symbols."""
        from .torch_nn import pad
        return pad([self.ids(tokens=x, unknown=unknown) if isinstance(x, (list, tuple))
                    else self.ids(x, unknown=unknown) for x in strings])


def _parse_ltl(text: Text) -> int:
    t = _bytes(text, "formula")
    if b"\0" in t:
        raise Error("the formula contains a NUL byte at column %d" % (t.index(b"\0") + 1),
                    t.index(b"\0") + 1)
    err = _lib.HsError()
    f = _lib.lib().hs_formula_parse(t, C.byref(err))
    if not f:
        raise _lib.fail(err)
    return f


def _parse_program(text: Text, lang: str, alphabet: Optional[Text] = None):
    """The parsed program (hs_program) of a C-RASP / B-RASP program or a regular
    expression (with its alphabet), by the program API when the loaded
    library has it."""
    call = "hs_program_parse_regex" if lang == "regex" else "hs_program_parse"
    if not _lib.has(call):
        raise Error("language '%s' is not in this build of libhardsoft (only "
                    "ltl is)" % lang)
    t = _bytes(text, "program")
    err = _lib.HsError()
    lib = _lib.lib()
    if lang == "regex":
        a = None if alphabet is None else _bytes(alphabet, "alphabet")
        if a is not None and b"\0" in a:
            raise Error("the alphabet contains a NUL byte")
        p = lib.hs_program_parse_regex(t, len(t), a, C.byref(err))
    else:
        p = lib.hs_program_parse(t, len(t), LANGS[lang], C.byref(err))
    if not p:
        raise _lib.fail(err)
    if lib.hs_program_lowered(p, C.byref(err)) != 0:
        # it parsed, but its lowering hit a limit of its own
        lib.hs_program_free(p)
        raise _lib.fail(err)
    return p


@contextlib.contextmanager
def _limits(**kw: Optional[int]):
    """The library's input limits (hs_limits) set for one call and put back:
    max_formula_len (bytes), max_depth (levels), max_header_mib, max_tensors.
    The limits are process-wide: a call that raises one should not run
    beside another that relies on the default."""
    lib = _lib.lib()
    old = lib.hs_get_limits()
    new = _lib.HsLimits(old.max_formula_len, old.max_depth, old.max_header, old.max_tensors)
    for name, v in kw.items():
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise Error("%s must be a whole number of at least 1, got %r" % (name, v))
        if name == "max_header_mib":
            new.max_header = v << 20
        else:
            setattr(new, name, v)
    lib.hs_set_limits(C.byref(new))
    try:
        yield
    finally:
        lib.hs_set_limits(C.byref(old))


def _other_language(text: Text, lang: str) -> str:
    """The hint a parse error in the wrong language gets: the language it
    parses in (hs_lang_other), as compile's lang= argument."""
    t = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    other = _lib.lib().hs_lang_other(t, len(t), LANGS[lang])
    names = {0: ("a formula", "ltl"), 1: ("C-RASP", "crasp"), 2: ("B-RASP", "brasp"),
             3: ("a regular expression", "regex")}
    return " (it parses as %s: pass lang=%r)" % names[other] if other in names else ""


def _looks_like_model(text: Text) -> bool:
    b = text.encode("utf-8", "replace") if isinstance(text, str) else bytes(text)
    return len(b) >= 9 and b[8:9] == b"{" and b[5:8] == b"\0\0\0"


def compile(text: Text, mode: str = "temp", scale: float = 4.0, lang: str = "ltl",
            sign: str = "layernorm", alphabet: Optional[Text] = None, *,
            max_depth: Optional[int] = None, max_formula_len: Optional[int] = None) -> Model:
    """Compile a formula (lang "ltl"), a C-RASP / B-RASP program (lang
    "crasp", "brasp") or a regular expression (lang "regex", over the
    symbols it names plus `alphabet`; docs/LANGUAGE.md) into a
    transformer in one of the modes hard, pe, temp, fixed, rel at scale
    mu > 0. sign: how counting comparisons get their sign, "layernorm" or
    "temp". A program model keeps the program's vocabulary (its inputs
    are tokens). A regular language outside the classes hardsoft
    compiles raises Error with its witness (hardsoft.explain says more).
    max_depth and max_formula_len raise the parser's limits (10000
    levels, 16 MiB) for this call."""
    with _limits(max_depth=max_depth, max_formula_len=max_formula_len):
        return _compile(text, mode, scale, lang, sign, alphabet)


def _compile(text: Text, mode: str, scale: float, lang: str, sign: str,
             alphabet: Optional[Text]) -> Model:
    lib = _lib.lib()
    if not isinstance(mode, str) or mode not in MODES:
        raise Error("mode '%s' is not a mode (expected hard, pe, temp, fixed or rel)" % (mode,))
    if not isinstance(sign, str) or sign not in SIGNS:
        raise Error("sign '%s' is not layernorm or temp" % (sign,))
    if not isinstance(lang, str) or lang not in LANGS:
        raise Error("language '%s' is not ltl, crasp, brasp or regex" % (lang,))
    if alphabet is not None and lang != "regex":
        raise Error("alphabet is for regular expressions (lang \"regex\")")
    try:
        mu = float(scale)
    except (TypeError, ValueError):
        raise Error("scale must be a positive number, got %r" % (scale,)) from None
    if not (math.isfinite(mu) and mu > 0):
        raise Error("scale must be a positive number, got %r" % (scale,))
    program = None
    if isinstance(text, (str, bytes, bytearray, memoryview)) and _looks_like_model(text):
        raise Error("this text is a model file (safetensors), not a formula or program: "
                    "hardsoft.load(path) reads it")
    f = None
    try:
        if lang == "ltl":
            f = _parse_ltl(text)
        else:
            program = _parse_program(text, lang, alphabet)
    except Error as e:
        hint = _other_language(text, lang) if e.line or e.column else ""
        if hint:
            e.message += hint
            e.args = (e.message,)
        raise
    o = _lib.HsCompileOpts(lib.hs_mode_parse(mode.encode()), mu, SIGNS[sign])
    msg = _lib.HsError()
    m = (lib.hs_program_compile(program, C.byref(o), C.byref(msg)) if program is not None
         else lib.hs_compile(f, C.byref(o), C.byref(msg)))
    src = text if isinstance(text, str) else _bytes(text).decode("utf-8", "replace")
    if m and program is not None and lib.hs_model_set_vocab(m, program, C.byref(msg)) != 0:
        lib.hs_model_free(m)
        m = None
    if not m:
        if program is not None:
            lib.hs_program_free(program)
        else:
            lib.hs_formula_free(f)
        raise _lib.fail(msg)
    model = Model(m, src, lang, sign, formula=f, program=program)
    if alphabet is not None:
        model.alphabet = alphabet if isinstance(alphabet, str) else _bytes(alphabet).decode()
    return model


def _explain(program: int) -> str:
    lib = _lib.lib()
    n = lib.hs_program_explain(program, None, 0)
    buf = C.create_string_buffer(n + 1)
    lib.hs_program_explain(program, buf, n + 1)
    return buf.value.decode("utf-8", "replace")


def explain(text: Text, lang: str = "regex", alphabet: Optional[Text] = None) -> str:
    """What the front end finds in a program without compiling it (as
    `hardsoft compile --explain`): for a regular expression its minimal
    automaton, transition monoid, class with a witness a reader can check,
    and the size of the construction or why there is none."""
    if not isinstance(lang, str) or lang not in LANGS or lang == "ltl":
        raise Error("explain takes a program language (crasp, brasp or regex), not %r" % (lang,))
    program = _parse_program(text, lang, alphabet)
    try:
        return _explain(program)
    finally:
        _lib.lib().hs_program_free(program)


# What to do with a file of this kind (hs_file_kind) instead of loading it
_LOAD_ADVICE = {
    "text": ": a formula or program is compiled with hardsoft.compile(open(path).read())",
    "an ONNX graph": ": hardsoft.load reads the .safetensors files Model.save and "
                     "hardsoft compile -o write; run an ONNX graph with onnxruntime",
    "gzip-compressed": ": decompress it first (gzip.open)",
}


def load(path: PathLike, *, max_header_mib: Optional[int] = None,
         max_tensors: Optional[int] = None) -> Model:
    """Load a model file (safetensors) written by Model.save or
    `hardsoft compile -o`. A program model saved by Model.save gets its
    program back (for truth); one written by the command line has its
    vocabulary but not its source. A file of another kind (text, ONNX,
    zip, npy, GGUF, ...) is named as such. max_header_mib and max_tensors
    raise the loader's limits (64 MiB, 65536) for this call."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise Error("path must be str, bytes or os.PathLike, not %s" % type(path).__name__)
    msg = _lib.HsError()
    p = os.fsencode(path)
    if b"\0" in p:
        raise Error("path contains a NUL byte")
    with _limits(max_header_mib=max_header_mib, max_tensors=max_tensors):
        m = _lib.lib().hs_model_load(p, C.byref(msg))
    if not m:
        kind = _lib.lib().hs_file_kind(p)
        kind = kind.decode() if kind is not None else None
        if kind is None and not os.path.exists(p) and _parses(path):
            raise Error("%r is a formula, not a model file: hardsoft.compile(%r) compiles it"
                        % (os.fsdecode(p), os.fsdecode(p)))
        e = _lib.fail(msg, "%s: " % os.fsdecode(p))
        e.message += _LOAD_ADVICE.get(kind, "")
        e.args = (e.message,)
        raise e
    model = Model(m, lang=None)
    meta = _meta_read(os.fsdecode(p))
    src, lang = meta.get(_META_SOURCE), meta.get(_META_LANG)
    alphabet = meta.get(_META_ALPHABET) if lang == "regex" else None
    if isinstance(src, str) and lang in ("crasp", "brasp", "regex"):
        model._program = _parse_program(src, lang, alphabet)
        model.source, model.lang, model.alphabet = src, lang, alphabet
    return model


def _parses(text: PathLike) -> bool:
    """Whether text parses as a formula (a formula given where a path goes)."""
    t = os.fsencode(text)
    f = _lib.lib().hs_formula_parse(t, None)
    if f:
        _lib.lib().hs_formula_free(f)
    return bool(f)


def _meta_read(path: str) -> Dict[str, Any]:
    """__metadata__ of a safetensors file ({} when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            head = json.loads(f.read(n).decode("utf-8"))
        meta = head.get("__metadata__", {})
        return meta if isinstance(meta, dict) else {}
    except (OSError, ValueError, struct.error):
        return {}


def _meta_add(path: str, extra: Dict[str, str]) -> None:
    """Add string entries to a safetensors file's __metadata__, atomically,
    keeping its permissions. Tensor offsets count from the end of the
    header, so the tensor bytes stay as they are."""
    from .torch_module import write
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    head = json.loads(raw[8:8 + n].decode("utf-8"))
    head.setdefault("__metadata__", {}).update(extra)
    write(path, head, raw[8 + n:], os.stat(path).st_mode & 0o777)


def version() -> str:
    """The version of the loaded libhardsoft."""
    return _lib.lib().hs_version().decode()
