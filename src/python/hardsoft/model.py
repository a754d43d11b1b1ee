# SPDX-License-Identifier: MIT
"""Models: compile, load, run, inspect (a thin layer over libhardsoft)."""
import ctypes as C
import math
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

import numpy as np

from . import _lib

MODES = ("hard", "pe", "temp", "fixed", "rel")
SIGNS = {"layernorm": 0, "temp": 1}
LANGS = {"ltl": 0, "crasp": 1, "brasp": 2}   # hs_lang of the program API
PRECISIONS = {"f32": 0, "f64": 1}

Text = Union[str, bytes, bytearray, memoryview]


class Error(ValueError):
    """What libhardsoft refused: message as the C library words it, and the
    1-based column (and line, for programs of several lines; 0 when none
    applies)."""

    def __init__(self, message: str, column: int = 0, line: int = 0):
        super().__init__(message)
        self.message, self.column, self.line = message, column, line


def _bytes(s: Any, what: str = "input string") -> bytes:
    """A string of symbols as bytes: str is encoded as UTF-8 (one position
    per byte, as the command line takes its arguments)."""
    if isinstance(s, str):
        return s.encode("utf-8")
    if isinstance(s, (bytes, bytearray, memoryview)):
        return bytes(s)
    raise Error("%s must be str or bytes, not %s" % (what, type(s).__name__))


def _buf(s: bytes):
    return (C.c_uint8 * max(len(s), 1)).from_buffer_copy(s or b"\0")


def _msg(err: _lib.HsError) -> str:
    return err.msg.decode("utf-8", "replace")


def _run_opts(precision: str, threads: int = 0) -> _lib.HsRunOpts:
    if precision not in PRECISIONS:
        raise Error("precision '%s' is not f32 or f64" % precision)
    o = _lib.HsRunOpts()
    o.precision, o.threads = PRECISIONS[precision], threads
    return o


@dataclass
class LayerAttention:
    """The attention of one layer over a string of n symbols: for each head
    h, weights[h, i, j] is the weight query i (0 = BOS, 1..n the
    positions) puts on key j (0 = BOS); hard[h] the hard attention the
    head is or stands in for; target[h, i] the key that hard attention
    picks (-1: spread over several keys, or no hard counterpart); heads[h]
    the head's kind, target kind, mask and description."""
    layer: int
    weights: np.ndarray
    hard: np.ndarray
    target: np.ndarray
    heads: List[Dict[str, Any]] = field(default_factory=list)


class Model:
    """A compiled transformer (the C library's hs_model)."""

    def __init__(self, ptr: int, source: Optional[str] = None, lang: str = "ltl",
                 sign: str = "layernorm", formula: Optional[int] = None,
                 program: Optional[int] = None):
        self._ptr = ptr
        self._formula, self._program = formula, program
        self.source, self.lang, self.sign = source, lang, sign

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
        return self._info().mode.decode()

    @property
    def scale(self) -> float:
        return self._info().scale

    @property
    def d(self) -> int:
        return self._info().d

    @property
    def nlayers(self) -> int:
        return self._info().nlayers

    @property
    def nheads(self) -> int:
        return self._info().nheads

    @property
    def formula(self) -> Optional[str]:
        f = self._info().formula
        return f.decode("utf-8", "replace") if f is not None else None

    def info(self) -> Dict[str, Any]:
        """mode, scale, d, layers, heads, out_coord, bound, min_scale, formula."""
        i = self._info()
        return {"mode": i.mode.decode(), "scale": i.scale, "d": i.d,
                "layers": i.nlayers, "heads": i.nheads, "out_coord": i.out_coord,
                "bound": i.bound, "min_scale": i.min_scale, "formula": self.formula}

    def head_info(self, layer: int, head: int) -> Dict[str, Any]:
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

    # ---------------------------------------------------------- running
    def eval(self, s: Union[Text, List[Text]], precision: str = "f32"):
        """The model's decision (0/1, numpy uint8) at positions 1..n of s;
        a list of arrays for a list of strings."""
        if isinstance(s, (list, tuple)):
            return [self.eval(x, precision) for x in s]
        return self._forward(_bytes(s), precision)[0]

    def values(self, s: Text, precision: str = "f32") -> np.ndarray:
        """The output coordinate (float64) at positions 1..n: the decision
        is value > 1/2."""
        return self._forward(_bytes(s), precision)[1]

    def _forward(self, w: bytes, precision: str):
        lib, n = _lib.lib(), len(w)
        o, r = _run_opts(precision), _lib.HsRunResult()
        msg = _lib.HsError()
        if lib.hs_forward(self._ptr, _buf(w), n, C.byref(o), C.byref(r), C.byref(msg)) != 0:
            raise Error(_msg(msg))
        try:
            bits = np.ctypeslib.as_array(r.bits, (max(n, 1),))[:n].copy()
            vals = np.ctypeslib.as_array(r.values, (max(n, 1),))[:n].copy()
        finally:
            lib.hs_run_result_free(C.byref(r))
        return bits.astype(np.uint8), vals

    def truth(self, s: Union[Text, List[Text]]):
        """The logic's own answer (0/1, numpy uint8) at positions 1..n: the
        ground-truth evaluator, no transformer involved."""
        if isinstance(s, (list, tuple)):
            return [self.truth(x) for x in s]
        w, lib = _bytes(s), _lib.lib()
        if self._formula is None and self._program is None:
            if self.formula is None:
                raise Error("this model carries no formula, so it has no truth to compare with")
            self._formula = _parse_ltl(self.formula)   # a loaded model: its source
        out = (C.c_uint8 * max(len(w), 1))()
        err = _lib.HsError()
        if self._program is not None:
            rc = lib.hs_program_truth(self._program, _buf(w), len(w), out, C.byref(err))
        else:
            rc = lib.hs_truth_eval(self._formula, lib.hs_formula_root(self._formula),
                                   _buf(w), len(w), out, C.byref(err))
        if rc != 0:
            raise Error(_msg(err))
        return np.frombuffer(out, dtype=np.uint8)[:len(w)].copy()

    def attention(self, s: Text, precision: str = "f32") -> List[LayerAttention]:
        """Per layer, the attention weights every head uses over s (see
        LayerAttention): computed by the C library (hs_attention) from the
        residual stream the forward pass keeps; O(n^2) memory per head,
        n at most 4096."""
        w, lib = _bytes(s), _lib.lib()
        n, out = len(w), []
        o = _run_opts(precision)
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
                raise Error(_msg(msg))
            heads = [self.head_info(layer, h) for h in range(nh)]
            out.append(LayerAttention(layer, weights, hard, target, heads))
        return out

    # ---------------------------------------------------------- files
    def save(self, path: Union[str, bytes, os.PathLike]) -> None:
        """Write the model file (safetensors), atomically."""
        msg = _lib.HsError()
        p = os.fsencode(path)
        if _lib.lib().hs_model_save(self._ptr, p, C.byref(msg)) != 0:
            raise Error("%s: %s" % (os.fsdecode(p), _msg(msg)))

    def to_torch(self, dtype=np.float64):
        """A torch.nn.Module computing this model from its weights with
        PyTorch (hardsoft.torch_module.make_module): forward(ids) on a
        LongTensor [n+1] of token ids, BOS = 256 first, then the bytes,
        returns the output coordinate at positions 0..n (decision: > 1/2)."""
        from . import torch_module
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "model.safetensors")
            self.save(path)
            doc, t = torch_module.load(path)
        return torch_module.make_module(doc, t, dtype)

    @staticmethod
    def token_ids(s: Text):
        """The LongTensor of token ids to_torch's module takes: BOS (256),
        then the bytes of s."""
        import torch
        return torch.tensor([256] + list(_bytes(s)), dtype=torch.int64)


def _parse_ltl(text: Text) -> int:
    t = _bytes(text, "formula")
    if b"\0" in t:
        raise Error("the formula contains a NUL byte at column %d" % (t.index(b"\0") + 1),
                    t.index(b"\0") + 1)
    err = _lib.HsError()
    f = _lib.lib().hs_formula_parse(t, C.byref(err))
    if not f:
        raise Error(err.msg.decode("utf-8", "replace"), err.column, err.line)
    return f


def _parse_program(text: Text, lang: str):
    """(formula, program) of a C-RASP / B-RASP program, by the program API
    when the loaded library has it."""
    if not _lib.has("hs_program_parse"):
        raise Error("language '%s' is not in this build of libhardsoft (only "
                    "ltl is)" % lang)
    t = _bytes(text, "program")
    err = _lib.HsError()
    lib = _lib.lib()
    p = lib.hs_program_parse(t, len(t), LANGS[lang], C.byref(err))
    if not p:
        raise Error(err.msg.decode("utf-8", "replace"), err.column, err.line)
    f = lib.hs_program_formula(p)
    if not f:
        lib.hs_program_free(p)
        raise Error("the %s program has no formula to compile" % lang)
    return f, p


def compile(text: Text, mode: str = "temp", scale: float = 4.0, lang: str = "ltl",
            sign: str = "layernorm") -> Model:
    """Compile a formula (lang "ltl"; "crasp" and "brasp" in builds with
    the program API) into a transformer in one of the modes hard, pe,
    temp, fixed, rel at scale mu > 0."""
    lib = _lib.lib()
    if not isinstance(mode, str) or mode not in MODES:
        raise Error("mode '%s' is not a mode (expected hard, pe, temp, fixed or rel)" % (mode,))
    if not isinstance(sign, str) or sign not in SIGNS:
        raise Error("sign '%s' is not layernorm or temp" % (sign,))
    if not isinstance(lang, str) or lang not in LANGS:
        raise Error("language '%s' is not ltl, crasp or brasp" % (lang,))
    try:
        mu = float(scale)
    except (TypeError, ValueError):
        raise Error("scale must be a positive number, got %r" % (scale,)) from None
    if not (math.isfinite(mu) and mu > 0):
        raise Error("scale must be a positive number, got %r" % (scale,))
    program = None
    if lang == "ltl":
        f = _parse_ltl(text)
    else:
        f, program = _parse_program(text, lang)
    o = _lib.HsCompileOpts(lib.hs_mode_parse(mode.encode()), mu, SIGNS[sign])
    msg = _lib.HsError()
    m = lib.hs_compile(f, C.byref(o), C.byref(msg))
    src = text if isinstance(text, str) else _bytes(text).decode("utf-8", "replace")
    if not m:
        if program is not None:
            lib.hs_program_free(program)
        else:
            lib.hs_formula_free(f)
        raise Error(_msg(msg))
    return Model(m, src, lang, sign, formula=f, program=program)


def load(path: Union[str, bytes, os.PathLike]) -> Model:
    """Load a model file (safetensors) written by Model.save or
    `hardsoft compile -o`."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise Error("path must be str, bytes or os.PathLike, not %s" % type(path).__name__)
    msg = _lib.HsError()
    p = os.fsencode(path)
    if b"\0" in p:
        raise Error("path contains a NUL byte")
    m = _lib.lib().hs_model_load(p, C.byref(msg))
    if not m:
        raise Error("%s: %s" % (os.fsdecode(p), _msg(msg)))
    return Model(m)


def version() -> str:
    """The version of the loaded libhardsoft."""
    return _lib.lib().hs_version().decode()
