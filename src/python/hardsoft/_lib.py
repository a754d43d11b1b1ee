# SPDX-License-Identifier: MIT
"""Every ctypes prototype of the C library in one place, and where the
library is found.

The library is $HARDSOFT_LIB (a path) when that is set; else, in order: the
copy inside the package (pip install .); the checkout
this package sits in (src/python/hardsoft -> build/libhardsoft.so, after
`make`); the prefix it was installed into (PREFIX/lib/python3/dist-packages/
hardsoft -> PREFIX/lib/libhardsoft.so.0, after `make install`); then the
dynamic linker's own search (libhardsoft.so.0).
"""
import ctypes as C
import os
from typing import List, Optional

_lib: Optional[C.CDLL] = None


class HsError(C.Structure):
    # include/hardsoft.h, struct hs_error: every fallible call fills one
    _fields_ = [("msg", C.c_char * 256), ("column", C.c_int), ("line", C.c_int),
                ("code", C.c_int), ("limit", C.c_int)]


class HsLimits(C.Structure):
    # include/hardsoft.h, struct hs_limits
    _fields_ = [("max_formula_len", C.c_size_t), ("max_depth", C.c_int),
                ("max_header", C.c_size_t), ("max_tensors", C.c_size_t)]


class HsCompileOpts(C.Structure):
    _fields_ = [("mode", C.c_int), ("scale", C.c_double), ("sign", C.c_int)]


class HsRunOpts(C.Structure):
    # include/hardsoft.h, struct hs_run_opts, field for field
    _fields_ = [("precision", C.c_int), ("kernels", C.c_void_p),
                ("want_attn_error", C.c_int), ("last_only", C.c_int),
                ("edges_only", C.c_int), ("score_round", C.c_int),
                ("keep_layers", C.c_int), ("want_gaps", C.c_int),
                ("threads", C.c_int), ("skip", C.c_int),
                ("attn_tile", C.c_int), ("qkv_round", C.c_int),
                ("progress", C.c_void_p), ("progress_ctx", C.c_void_p),
                ("phases", C.c_int)]


class HsRunResult(C.Structure):
    _fields_ = [("bits", C.POINTER(C.c_uint8)), ("values", C.POINTER(C.c_double)),
                ("attn_error", C.POINTER(C.c_double)), ("peak_bytes", C.c_size_t),
                ("layers", C.POINTER(C.c_double)), ("head_stats", C.c_void_p),
                ("tiles_total", C.c_uint64), ("tiles_skipped", C.c_uint64),
                ("phase_s", C.c_double * 7),  # HS_PHASE_COUNT
                ("attn_keys", C.c_uint64), ("attn_segments", C.c_uint64)]


class HsModelInfo(C.Structure):
    _fields_ = [("d", C.c_int32), ("nlayers", C.c_int32), ("nheads", C.c_int32),
                ("out_coord", C.c_int32), ("scale", C.c_double),
                ("bound", C.c_double), ("min_scale", C.c_double),
                ("mode", C.c_char_p), ("formula", C.c_char_p)]


class HsHeadInfo(C.Structure):
    _fields_ = [("kind", C.c_char_p), ("target", C.c_char_p), ("mask", C.c_char_p),
                ("tau_law", C.c_char_p), ("desc", C.c_char_p),
                ("tau_c", C.c_double), ("bias_slope", C.c_double),
                ("dk", C.c_int32), ("dv", C.c_int32)]


P = C.c_void_p          # opaque hs_formula *, hs_model *, hs_program *
BYTES = C.POINTER(C.c_uint8)

# name: (restype, argtypes); the optional ones are looked up only if present
_PROTOS = {
    "hs_version": (C.c_char_p, []),
    "hs_strerror": (C.c_char_p, [C.c_int]),
    "hs_formula_parse": (P, [C.c_char_p, C.POINTER(HsError)]),
    "hs_formula_free": (None, [P]),
    "hs_formula_root": (C.c_int32, [P]),
    "hs_truth_eval": (C.c_int, [P, C.c_int32, BYTES, C.c_size_t, BYTES, C.POINTER(HsError)]),
    "hs_mode_parse": (C.c_int, [C.c_char_p]),
    "hs_compile": (P, [P, C.POINTER(HsCompileOpts), C.POINTER(HsError)]),
    "hs_model_free": (None, [P]),
    "hs_model_save": (C.c_int, [P, C.c_char_p, C.POINTER(HsError)]),
    "hs_model_load": (P, [C.c_char_p, C.POINTER(HsError)]),
    "hs_forward": (C.c_int, [P, BYTES, C.c_size_t, C.POINTER(HsRunOpts),
                             C.POINTER(HsRunResult), C.POINTER(HsError)]),
    "hs_run_result_free": (None, [C.POINTER(HsRunResult)]),
    "hs_model_get_info": (None, [P, C.POINTER(HsModelInfo)]),
    "hs_model_layer_nheads": (C.c_int, [P, C.c_int]),
    "hs_model_head_info": (C.c_int, [P, C.c_int, C.c_int, C.POINTER(HsHeadInfo)]),
    "hs_model_describe": (C.c_size_t, [P, C.c_char_p, C.c_size_t]),
    "hs_struct_size": (C.c_size_t, [C.c_char_p]),
    "hs_attention": (C.c_int, [P, BYTES, C.c_size_t, C.POINTER(HsRunOpts), C.c_int,
                               C.POINTER(C.c_double), C.POINTER(C.c_double),
                               C.POINTER(C.c_int32), C.POINTER(HsError)]),
}
# the program API (C-RASP / B-RASP front ends), in builds that have it
_OPTIONAL = {
    "hs_program_parse": (P, [C.c_char_p, C.c_size_t, C.c_int, C.POINTER(HsError)]),
    "hs_program_lowered": (C.c_int, [P, C.POINTER(HsError)]),
    "hs_program_compile": (P, [P, C.POINTER(HsCompileOpts), C.POINTER(HsError)]),
    "hs_program_truth": (C.c_int, [P, BYTES, C.c_size_t, BYTES, C.POINTER(HsError)]),
    "hs_program_free": (None, [P]),
    # regular expressions (lang "regex")
    "hs_program_parse_regex": (P, [C.c_char_p, C.c_size_t, C.c_char_p, C.POINTER(HsError)]),
    "hs_program_explain": (C.c_size_t, [P, C.c_char_p, C.c_size_t]),
}


class Error(ValueError):
    """What libhardsoft refused: message as the C library words it, and the
    1-based column (and line, for programs of several lines; 0 when none
    applies)."""

    def __init__(self, message: str, column: int = 0, line: int = 0):
        super().__init__(message)
        self.message, self.column, self.line = message, column, line


Error.__module__ = "hardsoft"  # its public name, in tracebacks too


def candidates() -> List[str]:
    """Where the library is looked for, in order ($HARDSOFT_LIB alone when
    it is set)."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("HARDSOFT_LIB")
    if env:
        return [env]
    out = []
    # pip install . puts the library inside the package (setup.py)
    out.append(os.path.join(here, "libhardsoft.so"))
    out.append(os.path.join(here, "..", "..", "..", "build", "libhardsoft.so"))
    out.append(os.path.join(here, "..", "..", "..", "libhardsoft.so.0"))
    out.append("libhardsoft.so.0")
    return out


def lib() -> C.CDLL:
    """The loaded library with every prototype set (loaded once)."""
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for path in candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            handle = C.CDLL(path)
            break
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    else:
        raise Error("cannot find libhardsoft (run make, or set HARDSOFT_LIB); "
                    "tried: " + "; ".join(tried))
    for table, required in ((_PROTOS, True), (_OPTIONAL, False)):
        for name, (res, args) in table.items():
            if not hasattr(handle, name):
                if required:
                    raise Error("%s lacks %s: it is older than this package "
                                "(rebuild with make)" % (handle._name, name))
                continue
            fn = getattr(handle, name)
            fn.restype, fn.argtypes = res, args
    # a struct passed by pointer must have the library's layout, or the
    # library reads past it (a field added at the end is such a change)
    for cname, mirror in (("hs_run_opts", HsRunOpts), ("hs_run_result", HsRunResult),
                          ("hs_error", HsError), ("hs_compile_opts", HsCompileOpts)):
        want = handle.hs_struct_size(cname.encode())
        if want != C.sizeof(mirror):
            raise Error("%s: struct %s is %d bytes in the library but %d in this "
                        "package (rebuild with make, or update hardsoft/_lib.py)"
                        % (handle._name, cname, want, C.sizeof(mirror)))
    _lib = handle
    return handle


def has(name: str) -> bool:
    return hasattr(lib(), name)


# ------------------------------------------------------------------------
# Bindings added with the token, batch and packaging work (the model's
# vocabulary, hs_forward_batch) and a few older calls the package had not
# bound yet. They join the required table, so lib() sets them up with the
# rest.
import threading

_PROTOS.update({
    "hs_model_vocab_size": (C.c_int, [P]),
    "hs_model_vocab_token": (C.c_char_p, [P, C.c_int]),
    "hs_model_vocab_byte": (C.c_int, [P, C.c_int]),
    "hs_model_tokenize": (C.c_size_t, [P, C.c_char_p, C.c_size_t, BYTES]),
    "hs_model_encode": (C.c_int, [P, C.c_char_p, C.c_size_t, C.c_int, BYTES,
                                  C.POINTER(C.c_size_t), C.POINTER(HsError)]),
    "hs_model_alphabet": (None, [P, BYTES]),
    "hs_model_other_byte": (C.c_int, [P]),
    "hs_model_count_max_n": (C.c_double, [P, C.c_int]),
    "hs_program_lowered": (C.c_int, [P, C.POINTER(HsError)]),
    "hs_lang_other": (C.c_int, [C.c_char_p, C.c_size_t, C.c_int]),
    "hs_file_kind": (C.c_char_p, [C.c_char_p]),
    "hs_get_limits": (HsLimits, []),
    "hs_set_limits": (None, [C.POINTER(HsLimits)]),
    "hs_model_exact_region": (C.c_char_p, [P]),
    "hs_model_unproven": (C.c_size_t, [P, C.c_size_t, C.c_int, C.c_char_p, C.c_size_t]),
    "hs_model_tie_string": (C.c_int, [P, C.c_int, C.c_size_t, BYTES]),
    "hs_model_set_vocab": (C.c_int, [P, P, C.POINTER(HsError)]),
    "hs_forward_batch": (C.c_int, [P, C.c_size_t, C.POINTER(BYTES),
                                   C.POINTER(C.c_size_t), C.POINTER(HsRunOpts),
                                   BYTES, C.POINTER(C.c_double), C.POINTER(HsError)]),
    "hs_kernels_default": (C.c_void_p, [C.POINTER(HsError)]),
    "hs_model_save_onnx": (C.c_int, [P, C.c_char_p, C.POINTER(HsError)]),
    "hs_program_vocab_size": (C.c_int, [P]),
    "hs_precision_parse": (C.c_int, [C.c_char_p, C.POINTER(C.c_int), C.POINTER(C.c_int),
                                     C.POINTER(C.c_int)]),
})

_load_lock = threading.Lock()
_load_once = lib
_ready: Optional[C.CDLL] = None


def lib() -> C.CDLL:  # noqa: F811 (wraps the loader above)
    """The loaded library with every prototype set, loaded once under a
    lock. The first load also picks the kernel table (hs_kernels_default)
    while no other thread can call in: the library fills that table on
    first use without a guard, and ctypes lets Python threads run library
    calls at the same time (it releases the GIL around each call)."""
    global _ready
    if _ready is not None:
        return _ready
    with _load_lock:
        if _ready is None:
            handle = _load_once()
            handle.hs_kernels_default(None)
            _ready = handle
        return _ready


# Each input limit an error says it passed (hs_error.limit, hs_limit_id:
# 1 max_formula_len, 2 max_depth, 3 max_header_mib, 4 max_tensors), as the
# message names it ("(limit NAME)"), and the call whose argument raises it
RAISED_BY = {1: ("max_formula_len", "hardsoft.compile"), 2: ("max_depth", "hardsoft.compile"),
             3: ("max_header_mib", "hardsoft.load"), 4: ("max_tensors", "hardsoft.load")}


def fail(err: Optional["HsError"] = None, prefix: str = "") -> Exception:
    """The one place a library error becomes a Python exception: err is the
    HsError the call filled (message, code, line, column); prefix (e.g. a
    path) goes before the message. A limit the input passed (err.limit),
    which the message names "(limit NAME)", becomes the argument that
    raises it (RAISED_BY). Returns the hardsoft.Error for the caller to
    raise."""
    if err is None:
        return Error(prefix + "libhardsoft failed without a message", 0, 0)
    msg = err.msg.decode("utf-8", "replace")
    if err.limit in RAISED_BY:
        name, call = RAISED_BY[err.limit]
        msg = msg.replace("(limit %s)" % name, "(%s(..., %s=...) raises it)" % (call, name))
    return Error(prefix + msg, err.column, err.line)
