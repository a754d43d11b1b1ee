# SPDX-License-Identifier: MIT
"""bench/report's roofline of the attention phase: keys/s from
sweep-paths.csv's attn_keys, attn_segments and phase_attn_s against the
ceilings of kernels.json (fma_tp, read_bw), the per-run cost of the default
path beside the dense path's per-key cost, the plot, and a plain line when
the CSV lacks the key counts."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))

from report.context import Report  # noqa: E402
from report.main import build  # noqa: E402
from test_report_phases import FakePlot, line, section  # noqa: E402

HEAD = ("formula,mode,scale,isa,precision,threads,n,seconds_median,seconds_min,seconds_max,"
        "positions_per_s,peak_bytes,agree_fraction,max_attn_error,repeat,sign,skip,"
        "skipped_fraction,phase_gemm_s,phase_bounds_s,phase_search_s,phase_attn_s,"
        "phase_finish_s,phase_wait_s")


def csv_text(keys_cols=True):
    """a S b at n = 4096 on scalar and AVX-512: the dense path takes 8e6
    keys in 4096 runs at 0.25 ns (AVX-512) or 4 ns (scalar) a key; the
    default path 2e5 keys in 5000 runs, each run costing 30 ns on top."""
    rows = []
    for isa, per_key in (("scalar", 4e-9), ("avx512", 0.25e-9)):
        for skip, keys, runs in (("auto", 200000, 5000), ("online", 8000000, 4096)):
            attn = keys * per_key + (30e-9 * runs if skip == "auto" else 0)
            tot = attn + 1e-4
            rows.append(f'"a S b",pe,4,{isa},f32,1,4096,{tot},{tot},{tot},1,1,1,nan,3,'
                        f"layernorm,{skip},nan,1e-4,0,0,{attn},0,0"
                        + (f",{keys},{runs}" if keys_cols else ""))
    return HEAD + (",attn_keys,attn_segments" if keys_cols else "") + "\n" + \
        "\n".join(rows) + "\n"


KERNELS = {"benchmarks": [
    {"name": "fma_tp/avx512/49152_median", "run_name": "fma_tp/avx512/49152",
     "aggregate_name": "median", "items_per_second": 5.5e9},
    {"name": "fma_tp/scalar/49152_median", "run_name": "fma_tp/scalar/49152",
     "aggregate_name": "median", "items_per_second": 2.2e9},
    {"name": "read_bw/avx512/262144_median", "run_name": "read_bw/avx512/262144",
     "aggregate_name": "median", "items_per_second": 1.6e11}]}


def report(tmp_path, keys_cols=True):
    (tmp_path / "sweep-paths.csv").write_text(csv_text(keys_cols), encoding="utf-8")
    (tmp_path / "kernels.json").write_text(json.dumps(KERNELS), encoding="utf-8")
    fake = FakePlot()
    return build(Report(str(tmp_path)), fake), fake


def test_roofline(tmp_path):
    text, fake = report(tmp_path)
    rf = section(text, "## Roofline of the attention phase")
    # default AVX-512: 2e5 keys * 0.25 ns + 5000 * 30 ns = 0.2 ms, 1e9 keys/s;
    # compute ceiling 5.5e9 * 16 / 11 = 8e9, read 1.6e11 / 8 = 2e10
    assert line(rf, "| default | AVX-512 |").endswith(
        "| 0.2 | 40 | 0.2 | 1 | 1 | 8 | 20 | 13% |")
    # dense scalar: 8e6 * 4 ns = 32 ms, 0.25e9 keys/s; ceiling 2.2e9 / 11
    assert line(rf, "| dense | scalar |").endswith(
        "| 8 | 1.95e+03 | 32.0 | 4 | 0.25 | 0.2 | 20 | 125% |")
    # the 30 ns a run costs on top, found from the dense path's per key
    assert line(rf, "| 4096, μ = 4 | AVX-512 | 0.25 |").endswith("| 0.25 | 30 | 75% |")
    assert line(rf, "| 4096, μ = 4 | scalar | 4 |").endswith("| 4 | 30 | 16% |")
    body = fake.bodies["roofline.png"]
    assert "set logscale xy" in body and "'AVX-512 compute ceiling'" in body
    assert "8e+09 with lines" in body and "x / (3e-08 + 2.5e-10 * x)" in body


def test_roofline_without_key_columns(tmp_path):
    text, fake = report(tmp_path, keys_cols=False)
    rf = section(text, "## Roofline of the attention phase")
    assert "no attn_keys and attn_segments columns" in rf
    assert "roofline.png" not in fake.bodies
