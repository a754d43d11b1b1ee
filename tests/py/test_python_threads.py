# SPDX-License-Identifier: MIT
"""Several Python threads calling one model at once get the answers one
thread gets alone: the library keeps each call's state to itself and only
reads the model (ctypes releases the GIL around every library call, so
the calls really overlap)."""
import random
import threading

import numpy as np

import hardsoft


def inputs(seed, count, longest, alphabet="abc"):
    r = random.Random(seed)
    return ["".join(r.choice(alphabet) for _ in range(r.randint(0, longest)))
            for _ in range(count)]


def run_threads(jobs, nthreads=4):
    """Each thread runs every job in its own order; returns per-thread
    results in job order and any exception a thread raised."""
    out, errors = [None] * nthreads, []
    start = threading.Barrier(nthreads)

    def work(t):
        try:
            order = list(range(len(jobs)))
            random.Random(t).shuffle(order)
            start.wait()
            res = [None] * len(jobs)
            for k in order:
                res[k] = jobs[k]()
            out[t] = res
        except Exception as e:       # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(nthreads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return out, errors


def same(a, b):
    if isinstance(a, hardsoft.Batch):
        return (a.bits == b.bits).all() and (a.values == b.values).all()
    if isinstance(a, list):
        return all(same(x, y) for x, y in zip(a, b)) and len(a) == len(b)
    if isinstance(a, hardsoft.LayerAttention):
        return (a.weights == b.weights).all() and (a.target == b.target).all()
    return np.array_equal(a, b)


def test_concurrent_calls_on_one_model_agree_with_one_at_a_time():
    m = hardsoft.compile("G (a -> F b) | #<(a) > #<(b)", mode="temp", scale=6)
    p = hardsoft.compile('maj = #"a" > #"b"', lang="crasp", mode="pe", scale=8)
    ss = inputs(1, 12, 3000)
    toks = [" ".join(s) for s in inputs(2, 6, 400)]
    jobs = ([lambda s=s: m.eval(s) for s in ss] +
            [lambda s=s: m.values(s, "f64") for s in ss[:4]] +
            [lambda: m.run_batch(ss)] +
            [lambda s=s: m.truth(s) for s in ss[:4]] +
            [lambda: m.attention("abcabba")] +
            [lambda s=s: p.eval(s, unknown="other") for s in toks] +
            [lambda s=s: p.truth(s, unknown="other") for s in toks])
    alone = [job() for job in jobs]
    got, errors = run_threads(jobs)
    assert not errors, errors
    for res in got:
        for k, (a, b) in enumerate(zip(alone, res)):
            assert same(a, b), k


def test_library_calls_release_the_gil():
    # ctypes calls a CDLL's functions with the GIL released and a PyDLL's
    # with it held (the _FUNCFLAG_PYTHONAPI flag): the package must load
    # the library the first way for threads to overlap
    import ctypes
    lib = hardsoft._lib.lib()
    assert isinstance(lib, ctypes.CDLL) and not isinstance(lib, ctypes.PyDLL)
    assert not lib._func_flags_ & ctypes._FUNCFLAG_PYTHONAPI
    assert not lib.hs_forward_batch._flags_ & ctypes._FUNCFLAG_PYTHONAPI
