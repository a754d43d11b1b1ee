# SPDX-License-Identifier: MIT
"""bench/kernels-report.py's time per item: the first argument of most
families is the item count, but the skipping families' first argument is
dk, and their time per key comes from the benchmark's own key count."""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "bench", "kernels-report.py")


def load():
    spec = importlib.util.spec_from_file_location("kernels_report", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def row(name, cpu_ns, ips=None):
    r = {"name": name, "run_name": name, "run_type": "iteration",
         "cpu_time": cpu_ns, "real_time": cpu_ns, "time_unit": "ns"}
    if ips is not None:
        r["items_per_second"] = ips
    return r


def test_ns_per_item():
    kr = load()
    res = kr.parse([
        # 1024 elements in 2048 ns: 2 ns an element
        row("softmax/avx2/1024", 2048.0, ips=5e8),
        # dk = 4, but 40000 keys in 80000 ns: 2 ns a key, not 20000
        row("attn_2pass_skip/avx2/4", 80000.0, ips=5e8),
        row("attn_rows_2pass_skip_f64/avx512/2", 30000.0, ips=1e9),
    ])
    assert res[("softmax", "avx2", (1024,))]["ns"] == 2.0
    assert abs(res[("attn_2pass_skip", "avx2", (4,))]["ns"] - 2.0) < 1e-12
    assert abs(res[("attn_rows_2pass_skip_f64", "avx512", (2,))]["ns"] - 1.0) < 1e-12


def test_every_skipping_family_is_listed():
    kr = load()
    names = {f[0] for f in kr.FAMILIES}
    assert kr.PER_COUNTED_ITEM <= names
