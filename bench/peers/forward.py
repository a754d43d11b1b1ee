#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Independent forward pass of a hardsoft model file (format "hardsoft-1",
documented at the top of src/model/safetensors.c), for checking the C runtime.

It shares no code with the C library: the pass itself is
src/python/hardsoft/torch_module.py (pure NumPy / PyTorch, written from
the comment at the top of src/model/model.h; the Python package's
Model.to_torch() uses the same code), imported from this checkout without
loading libhardsoft. Position i (1..n) prints 1 iff x_i[out_coord] > 1/2.

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
import argparse, json, os, struct, sys, time, tracemalloc


def fail(msg):
    print("forward.py: " + msg, file=sys.stderr)
    sys.exit(2)


try:
    import numpy as np
except ImportError:
    fail("needs NumPy, which is not importable (apt-get install python3-numpy)")

# the shared pass, from src/python of the checkout this file sits in, or
# installed: PREFIX/share/hardsoft/bench/peers is four folders below the
# package's PREFIX/lib/python3/dist-packages
_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_here, "..", "..", "..", "..", "lib", "python3",
                                "dist-packages"))
sys.path.insert(0, os.path.join(_here, "..", "..", "src", "python"))
from hardsoft.torch_module import Numpy, Torch, forward, load  # noqa: E402


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
            fail("--torch needs PyTorch, which is not importable (apt-get install "
                 "python3-torch, or pip install torch)")
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
