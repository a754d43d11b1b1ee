#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Independent forward pass of a hardsoft model file (format "hardsoft-1",
documented at the top of src/model/safetensors.c), for checking the C runtime.

It shares no code with hardsoft: the file is parsed with json and
numpy.frombuffer, and the pass follows the comment at the top of
src/model/model.h. Positions 0..n hold BOS then the input bytes; x_i is the
symbol's embedding plus the positional features; each layer adds every
head's attention output (all heads read the same x), then the FFN;
position i (1..n) prints 1 iff x_i[out_coord] > 1/2. A softmax head with
"bias_slope" (mode rel) adds -slope |i - j| to its logits after dividing
by tau (rel_bias).

    forward.py MODEL [--precision f32|f64] [--torch] [--dump] STRING...
    forward.py MODEL --time R --input FILE [--precision f32|f64] [--torch]

The first form prints one line of 0/1 per string, like `hardsoft run` (an
empty line for the empty string); --dump prints the output coordinate's
values instead. float64 by default (the reference); f32 computes
everything in float32. --torch runs the same pass with PyTorch on one
thread (exit 2 if absent). Query rows are processed in blocks, so memory
is O(block * n), not O(n^2). --input FILE adds the string on FILE's first
line (without its newline) to the STRINGs.

The second form is the peer `hardsoft bench --isas numpy,torch` runs. It
computes each head the way a researcher would write it: the full
(n+1) x (n+1) score matrix, the mask applied with -inf, softmax along the
rows, then P @ V (O(n^2) memory). After one untimed warm-up pass it times
R passes over the string (time.perf_counter, seconds per pass, weights
converted to the working precision inside the pass) and prints one line
    {"seconds": [t1, ..., tR], "peak_bytes": N, "bits": "0101...",
     "version": "PyTorch 2.1.2 eager, 1 thread; NumPy 1.24.2"}
bits: the decisions at positions 1..n; version: what ran. peak_bytes is measured on the
warm-up pass: numpy: tracemalloc's peak (numpy reports its array buffers
to tracemalloc); torch: the peak of the bytes PyTorch's CPU allocator held
during the pass (torch.profiler with profile_memory=True: the running sum
of its allocation and free events) plus tracemalloc's peak for the numpy
arrays the pass makes (an upper bound, as the two peaks may not
coincide); 0 if the profiler gives no memory events. Errors: one line on
stderr, exit 2.
"""
import argparse, json, math, os, struct, sys, time, tracemalloc
import numpy as np

BLOCK = 256


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    (hlen,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + hlen].decode("utf-8"))
    meta = header.pop("__metadata__")
    if meta.get("format") != "hardsoft-1":
        fail("%s: not a hardsoft-1 model file" % path)
    doc, data, t = json.loads(meta["hardsoft"]), raw[8 + hlen:], {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        dt = {"F32": "<f4", "F64": "<f8"}[e["dtype"]]
        # hardsoft keeps F32 weights (F64 files are rounded when loaded)
        t[name] = np.frombuffer(data[b:end], dtype=dt).reshape(e["shape"]).astype(np.float32)
    return doc, t


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
    def __init__(self, dtype):
        import torch
        torch.set_num_threads(1)
        self.t, self.dtype = torch, {np.float32: torch.float32, np.float64: torch.float64}[dtype]
    def T(self, a): return self.t.as_tensor(np.asarray(a), dtype=self.dtype)
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


def forward(doc, t, s, be, block=BLOCK):
    """Values of the output coordinate at positions 1..n of the byte
    string s; query rows in blocks of `block` (n + 1: the full matrix)."""
    n, d = len(s), doc["d"]
    pos = np.arange(n + 1)
    x = be.T(t["embed"][[256] + list(s)])
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
    return be.np(x)[1:, doc["out_coord"]]


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


def fail(msg):
    print("forward.py: " + msg, file=sys.stderr)
    sys.exit(2)


def mem_available():
    """MemAvailable in bytes, or None if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def torch_peak(run):
    """run() under torch.profiler: its result, and the peak of the bytes
    PyTorch's CPU allocator held meanwhile (0 if no memory was recorded)."""
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        out = run()
    try:
        mem = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    except AttributeError:   # another torch version: no way to measure
        return out, 0
    held = peak = 0
    for e in sorted(mem, key=lambda e: e.start_us()):   # stable: ties keep order
        held += e.nbytes()
        peak = max(peak, held)
    return out, peak


def timed(doc, t, s, be, reps, dtype):
    """One untimed warm-up pass (which measures peak_bytes), then reps
    timed passes over the full score matrices; returns the report dict."""
    n = len(s)
    # the full pass holds a few (n+1)^2 arrays at once (scores, masked
    # scores or weights, the boolean mask; int64 cumsums for hard heads):
    # measured at most 2 * itemsize + 15 bytes per entry; refuse what
    # cannot fit rather than swap or crash
    need = (n + 1) ** 2 * (4 * np.dtype(dtype).itemsize + 8)
    avail = mem_available()
    if avail is not None and need > avail:
        fail("n = %d needs about %d MiB for the (n+1)^2 score matrices, more "
             "than the %d MiB available" % (n, need >> 20, avail >> 20))
    run = lambda: forward(doc, t, s, be, block=n + 1)
    tracemalloc.start()
    vals, tpeak = torch_peak(run) if isinstance(be, Torch) else (run(), 0)
    peak = tracemalloc.get_traced_memory()[1] + tpeak
    tracemalloc.stop()
    secs = []
    for _ in range(reps):
        t0 = time.perf_counter()
        vals = run()
        secs.append(time.perf_counter() - t0)
    bits = "".join("1" if v > 0.5 else "0" for v in vals)
    return {"seconds": secs, "peak_bytes": int(peak), "bits": bits,
            "version": version(be)}


def version(be):
    """What ran, for the CSV's version column: eager PyTorch or NumPy and
    their versions (NumPy's matmul calls the BLAS it was built with)."""
    v = "NumPy %s" % np.__version__
    if isinstance(be, Torch):
        return "PyTorch %s eager, %d thread; %s" % (be.t.__version__, be.t.get_num_threads(), v)
    if isinstance(be, Numpy):
        return v
    # another backend names itself (a version attribute), never as NumPy
    return "%s; %s" % (getattr(be, "version", type(be).__name__ + " (version unknown)"), v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("strings", nargs="*")
    ap.add_argument("--precision", choices=["f32", "f64"], default="f64")
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--time", type=int, metavar="R",
                    help="time R passes over one string; print a JSON report")
    ap.add_argument("--input", metavar="FILE",
                    help="add the string on FILE's first line")
    a = ap.parse_intermixed_args()  # options may follow the model or the strings
    dtype = np.float32 if a.precision == "f32" else np.float64
    strings = [os.fsencode(s) for s in a.strings]
    if a.input is not None:
        try:
            with open(a.input, "rb") as f:
                line = f.readline()
        except OSError as e:
            fail("%s: %s" % (a.input, e.strerror))
        strings.append(line[:-1] if line.endswith(b"\n") else line)
    if a.time is not None and not (1 <= a.time <= 1000 and len(strings) == 1 and not a.dump):
        fail("--time R needs 1 <= R <= 1000 and exactly one string (--input FILE)")
    if a.torch:
        try:
            be = Torch(dtype)
        except ImportError:
            fail("--torch needs PyTorch, which is not importable")
    else:
        be = Numpy(dtype)
    try:
        doc, t = load(a.model)
    except (OSError, ValueError, KeyError, struct.error) as e:
        fail("%s: cannot load: %s" % (a.model, e))
    with np.errstate(invalid="ignore", over="ignore"):
        if a.time is not None:
            print(json.dumps(timed(doc, t, strings[0], be, a.time, dtype)))
            return
        for s in strings:
            vals = forward(doc, t, s, be)
            if a.dump:
                print(" ".join(repr(float(v)) for v in vals))
            else:
                print("".join("1" if v > 0.5 else "0" for v in vals))


if __name__ == "__main__":
    main()
