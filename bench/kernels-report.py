#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Merge the kernel benchmark JSON passes and write the published results.

    kernels-report.py --bin build/hs-bench-kernels --json results/kernels.json
        --md results/kernels.md --plot results/kernels-softmax.png
        [--gnuplot bench/kernels.gp] [--settings TEXT] [--seconds S]
        [--workdir DIR] PASS.json [PASS.json ...]

results/kernels.json stays Google Benchmark JSON (context + benchmarks, so
its tools still read it) with the passes' rows concatenated and a
"hardsoft" object added to the context: machine, compiler and flags of every
kernel (read from the DWARF producer strings of the binary), commit, the ISA
table (from `hs-bench-kernels --print-isa-table`) and the targets.
results/kernels.md has one table per family (ns per item, median of the
repetitions, and the speed-up over scalar) and the targets, each met or
missed with its measured ratio. Standard library only.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys

FAMILIES = [
    # family, argument names, item name, title
    ("softmax", ["n"], "element", "softmax, scores uniform in [-10, 10]"),
    ("softmax_spread", ["n", "spread"], "element",
     "softmax, scores uniform in [-spread, 0]"),
    ("exp", ["n"], "element", "exp, x uniform in [-10, 10]"),
    ("exp_spread", ["n", "spread"], "element", "exp, x uniform in [-spread, 0]"),
    ("dot", ["d"], "element", "dot product of two vectors of length d"),
    ("attn_row", ["n", "d"], "key",
     "one attention row: one query, n keys, dk = dv = d, online softmax"),
    ("attn_hard", ["n", "d"], "key",
     "one hard attention row (rightmost unique-hard, no exp): one query, n "
     "keys, dk = d, dv = 1; d = 1 keys 0/1 (ties everywhere, as compiled "
     "since/until heads), d = 8 uniform (no ties)"),
    ("attn_hard_f64", ["n", "d"], "key",
     "the same in double: <isa> = f64_attn_hard, <isa>_dot = one f64_dot "
     "call per key (what the f64 forward pass ran before f64_attn_hard)"),
    ("attn_2pass_f64", ["n", "d"], "key",
     "one attention row in double over segments of 64 keys (exact "
     "skipping's tiles, none left out), dk = dv = d: <isa> = "
     "f64_attn_row_2pass, <isa>_online = f64_attn_row over the same keys, "
     "<isa>_f32 = f32_attn_row_2pass on the same data in float"),
    ("attn_2pass_skip", ["dk"], "key",
     "the skipping path's usual rows: 1024 queries, each against a few kept "
     "64-key tiles (about 48 keys: a ragged first tile, whole tiles, "
     "sometimes the 2-key BOS copy), contiguous keys, dv = 1: <isa> = "
     "f32_attn_row_2pass, <isa>_bias = f32_attn_row_2pass_bias"),
    ("attn_rows_2pass_skip", ["dk"], "key",
     "attn_2pass_skip's rows four per call, as the forward pass makes them: "
     "<isa> = f32_attn_rows_2pass, <isa>_bias = its _bias rows (every "
     "row's bits those of the one-row call)"),
    ("attn_2pass_skip_f64", ["dk"], "key",
     "attn_2pass_skip's rows and data in double: f64_attn_row_2pass"),
    ("attn_rows_2pass_skip_f64", ["dk"], "key",
     "the same f64 rows four per f64_attn_rows_2pass call, as the f64 "
     "forward pass makes them"),
    ("read_bw", ["bytes"], "byte",
     "read bandwidth: a buffer summed with 256-bit (avx2) or 512-bit (avx512) "
     "loads into 8 named accumulators (in cache after the first pass); the "
     "read roofline of the attn_row target"),
    ("fma_tp", ["fmas"], "FMA",
     "256-bit FMA throughput: 12 independent FMA chains of 4096 steps; the "
     "compute roofline of the attn_row target"),
    ("attn_past", ["n", "dk"], "row",
     "past-mask attention: n rows, row i against keys 0..i, dv = 1; "
     "<isa>_tile = f32_attn_tile (4 rows per call), <isa>_row = f32_attn_row, "
     "the same bits"),
    ("attn_future", ["n", "dk"], "row",
     "future-mask attention: n rows, row i against keys i..n-1 (blocks "
     "anchored at key n-1), dv = 1; <isa>_tile = f32_attn_tile end = 1 "
     "(4 rows per call), <isa>_row = f32_attn_row (two calls a row), "
     "the same bits"),
    ("attn_past_bias", ["n", "dk"], "row",
     "the same as attn_past with the relative-position bias of mode rel "
     "(slope 4, key j of row i at j - i): f32_attn_tile_bias / "
     "f32_attn_row_bias"),
    ("attn_future_bias", ["n", "dk"], "row",
     "the same as attn_future with the relative-position bias of mode rel: "
     "f32_attn_tile_bias / f32_attn_row_bias"),
    ("gemm", ["rows", "m", "k"], "row",
     "batched gemv Y = X A^T (the forward pass's projections): rows of X, "
     "m outputs, k inputs"),
    ("gemm_f64", ["rows", "m", "k"], "row",
     "the same in double: <isa> = f64_gemm, <isa>_gemv = one f64_gemv per "
     "row (what the f64 forward pass ran before f64_gemm)"),
    ("bounds", ["nodes", "dk"], "node",
     "exact skipping's tree: the score bounds of a group of 16 sibling "
     "nodes (f64_bounds), dk dimensions"),
    ("bounds_test", ["nodes", "bias"], "node",
     "the walk's keep test on a group of 16 node bounds (f64_bound_test), "
     "without (0) and with (1) the relative bias of mode rel"),
]
IMPL_ORDER = ["scalar", "avx2", "avx512", "libm", "sleef", "onednn",
              "onednn_avx2", "xnnpack", "loop", "openblas"]
HS_IMPLS = {"scalar": "HS_ISA_SCALAR", "avx2": "HS_ISA_AVX2",
            "avx512": "HS_ISA_AVX512"}
PEERS = {
    "libm": "plain loop over glibc expf (softmax: max, exp and sum, scale), "
            "built for baseline x86-64",
    "sleef": "the same three passes 8 lanes wide with Sleef_expf8_u10avx2",
    "onednn": "oneDNN softmax_forward primitive (inference, {1, n}, axis 1) "
              "at its default ISA",
    "onednn_avx2": "the same, capped with DNNL_MAX_CPU_ISA=AVX2 in a second "
                   "process",
    "xnnpack": "XNNPACK softmax_nc_f32 operator, batch 1, no threadpool",
    "loop": "plain scalar dot loop, baseline x86-64",
    "openblas": "cblas_sdot, openblas_set_num_threads(1)",
}
# The softmax sizes bench/kernels.cc registers (targets name sizes from it,
# so a run that skipped some says "incomplete" rather than "met").
SOFTMAX_N = [4 ** k for k in range(2, 11)] + [16777216]
TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def run(cmd, **kw):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True,
                              **kw).stdout
    except (OSError, subprocess.CalledProcessError):
        return ""


# ------------------------------------------------------------ context

def cpu_info():
    """(model, flags): /proc/cpuinfo's model name with family, model and
    stepping, which still name the microarchitecture where the model name
    is only the vendor and series (as `hardsoft info` and the CSVs say)."""
    model, flags, fms = "", [], {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                k = k.strip()
                if k == "model name" and not model:
                    model = v.strip()
                elif k in ("cpu family", "model", "stepping") and k not in fms:
                    fms[k] = v.strip()
                elif k == "flags" and not flags:
                    flags = v.split()
    except OSError:
        pass
    if model and len(fms) == 3:
        model += " (family %s model %s stepping %s)" % (
            fms["cpu family"], fms["model"], fms["stepping"])
    keep = [f for f in flags if re.match(r"(sse4_2|avx|fma|f16c|bmi2)", f)]
    return model, keep


def machine_info():
    """(memory, kernel) of this machine, for the provenance table."""
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = "%.1f GiB" % (int(line.split()[1]) / 2 ** 20)
                    break
    except (OSError, ValueError, IndexError):
        pass
    u = os.uname()
    return mem, "%s %s %s" % (u.sysname, u.release, u.machine)


def dwarf_producers(binary):
    """Compile unit name -> DW_AT_producer (compiler version and flags)."""
    out = run(["readelf", "--debug-dump=info", "--dwarf-depth=1", binary])
    units, producer = {}, None
    for line in out.splitlines():
        if "DW_AT_producer" in line:
            producer = line.split("): ", 1)[-1].strip()
        elif "DW_AT_name" in line and producer is not None:
            units[line.split("): ", 1)[-1].strip()] = producer
            producer = None
    return units


def kernel_source(symbol):
    """hs_f32_softmax_ukernel__avx2_rr2_p5 -> simd/f32-softmax-avx2-rr2-p5.c"""
    m = re.match(r"hs_(\w+?)_ukernel__(\w+)$", symbol or "")
    if not m:
        return None
    return "simd/%s-%s.c" % (m.group(1).replace("_", "-"),
                             m.group(2).replace("_", "-"))


def short_flags(producer):
    """Drop the compiler name/version and the flags every unit shares."""
    flags = re.sub(r"^GNU \S+ \S+ ", "", producer or "")
    drop = {"-mtune=generic", "-march=x86-64", "-g",
            "-fasynchronous-unwind-tables"}
    return " ".join(f for f in flags.split() if f not in drop)


def git_info():
    commit = run(["git", "rev-parse", "HEAD"]).strip()
    subject = run(["git", "log", "-1", "--format=%s"]).strip()
    dirty = run(["git", "status", "--porcelain", "--", "simd", "include",
                 "src", "bench", "Makefile"])
    paths = [l[3:] for l in dirty.splitlines() if len(l) > 3]
    return {"commit": commit or "unknown", "subject": subject,
            "dirty": bool(paths), "dirty_paths": paths}


def package_versions():
    pkgs = ["libbenchmark-dev", "libdnnl-dev", "libxnnpack-dev",
            "libsleef-dev", "libopenblas-dev"]
    out = run(["dpkg-query", "-W", "-f", "${Package} ${Version}\n"] + pkgs)
    return dict(l.split(" ", 1) for l in out.splitlines() if " " in l)


# ------------------------------------------------------------ data

def load_passes(paths):
    ctx, rows, extra = None, [], []
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        if ctx is None:
            ctx = d["context"]
        else:
            extra.append({k: d["context"].get(k) for k in
                          ("date", "onednn_name", "onednn_effective_isa")})
        rows.extend(d["benchmarks"])
    return ctx or {}, rows, extra


# Families whose first argument is not the item count (dk, with the keys
# of the rows counted by the benchmark): their time per item is the
# benchmark's own items_per_second.
PER_COUNTED_ITEM = {"attn_2pass_skip", "attn_rows_2pass_skip",
                    "attn_2pass_skip_f64", "attn_rows_2pass_skip_f64"}


def parse(rows):
    """(family, impl, args) -> {ns, ips, cv, label} or {error}."""
    res = {}
    for r in rows:
        name = r.get("run_name") or r["name"]
        parts = name.split("/")
        if len(parts) < 3:
            continue
        try:
            args = tuple(int(a) for a in parts[2:])
        except ValueError:
            continue
        key = (parts[0], parts[1], args)
        e = res.setdefault(key, {})
        if r.get("error_occurred"):
            e["error"] = r.get("error_message", "error")
            continue
        agg = r.get("aggregate_name")
        if agg == "median" or (agg is None and "ns" not in e):
            if parts[0] in PER_COUNTED_ITEM and r.get("items_per_second"):
                e["ns"] = 1e9 / r["items_per_second"]
            else:
                e["ns"] = r["cpu_time"] * TO_NS[r.get("time_unit", "ns")] / args[0]
            e["ips"] = r.get("items_per_second")
            e["label"] = r.get("label", "")
            if "sum_error" in r:
                e["sum_error"] = r["sum_error"]
        elif agg == "cv":
            e["cv"] = r["cpu_time"]
    return res


def fmt_ns(v):
    if v is None or not math.isfinite(v):
        return "—"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    if v >= 1:
        return "%.2f" % v
    return "%.3f" % v


def impls_of(res, family):
    seen = {k[1] for k in res if k[0] == family}
    return [i for i in IMPL_ORDER if i in seen] + sorted(seen - set(IMPL_ORDER))


def family_table(res, family, argnames, item):
    impls = impls_of(res, family)
    argsets = sorted({k[2] for k in res if k[0] == family})
    head = "| " + " | ".join(argnames + impls) + " |"
    sep = "|" + "---:|" * (len(argnames) + len(impls))
    lines = [head, sep]
    for a in argsets:
        base = res.get((family, "scalar", a), {}).get("ns")
        cells = [str(x) for x in a]
        for im in impls:
            e = res.get((family, im, a))
            if not e:
                cells.append("")
            elif "error" in e:
                cells.append("skipped")
            else:
                c = fmt_ns(e["ns"])
                if base and im != "scalar":
                    c += " (%.2f×)" % (base / e["ns"])
                cells.append(c)
        lines.append("| " + " | ".join(cells) + " |")
    return lines, impls


# ------------------------------------------------------------ targets

def ratio_target(res, desc, fam, impl, peer, threshold, ns_ok):
    per, missing = [], []
    for a in [(n,) for n in SOFTMAX_N if ns_ok(n)]:
        x = res.get((fam, impl, a), {}).get("ns")
        y = res.get((fam, peer, a), {}).get("ns")
        if x and y:
            per.append((a[0], y / x))
        else:
            missing.append(a[0])
    return finish(desc, per, missing, lambda r: r >= threshold, "×",
                  worst=min)


def flat_target(res, desc, impl, n_list, tolerance):
    """Time per element independent of the data: slowest / fastest over the
    base family's data and every spread, at each n."""
    per, missing = [], []
    for fam, spread_fam in (("exp", "exp_spread"),
                            ("softmax", "softmax_spread")):
        for n in n_list:
            ts = [res.get((fam, impl, (n,)), {}).get("ns")]
            ts += [e.get("ns") for k, e in res.items()
                   if k[0] == spread_fam and k[1] == impl and k[2][0] == n]
            ts = [t for t in ts if t]
            if len(ts) >= 2:
                per.append(("%s n=%d" % (spread_fam, n), max(ts) / min(ts)))
            else:
                missing.append("%s n=%d" % (spread_fam, n))
    return finish(desc, per, missing, lambda r: r <= 1 + tolerance, "×",
                  worst=max)


def finish(desc, per, missing, ok, unit, worst):
    if not per:
        return {"target": desc, "status": "not measured", "worst": None,
                "per": {}}
    w = worst(per, key=lambda p: p[1])
    status = "met" if all(ok(r) for _, r in per) and not missing else "missed"
    if missing and all(ok(r) for _, r in per):
        status = "incomplete"
    return {"target": desc, "status": status,
            "worst": {"at": w[0], "value": round(w[1], 3)},
            "per": {str(k): round(r, 3) for k, r in per},
            "missing": [str(m) for m in missing]}


def targets(res):
    t = []
    mid = lambda n: 256 <= n <= 65536
    t.append(ratio_target(res, "softmax/avx2 ≥ 1.5× onednn_avx2, n = 256…65536",
                          "softmax", "avx2", "onednn_avx2", 1.5, mid))
    t.append(ratio_target(res, "softmax/avx2 ≥ 1.1× onednn, n = 256…65536",
                          "softmax", "avx2", "onednn", 1.1, mid))
    t.append(ratio_target(res, "softmax/avx2 ≥ 10× libm, n = 256…65536",
                          "softmax", "avx2", "libm", 10.0, mid))
    t.append(ratio_target(res, "softmax/avx512 ≥ 1.8× onednn, n ≥ 1024",
                          "softmax", "avx512", "onednn", 1.8,
                          lambda n: n >= 1024))
    spread_n = [4096, 65536]
    t.append(flat_target(res, "exp/avx2 and softmax_spread/avx2: same time "
                         "within 10% at every spread (slowest / fastest of "
                         "[-10,10] and every spread, per n)", "avx2",
                         spread_n, 0.10))
    e = res.get(("attn_row", "avx2", (4096, 8)), {})
    ips = e.get("ips")
    # Two rooflines, each measured. Read: attn_row reads each key's k and v
    # rows once, 2 * 8 floats = 64 bytes per key at d = 8, 256 KiB per call
    # at n = 4096 (past L1, inside L2), so it cannot pass read_bw at 256 KiB
    # (the faster of the 256- and 512-bit loops) / 64. Compute: per key the
    # 8 + 8 multiply-adds of q . k_j and e_j v_j are 2 eighths of 8 FMAs,
    # and the rr2-p5 exp takes 8 FMA-pipe operations (3 for the range
    # reduction, 5 for the polynomial) per 8 weights: 3 FMA-pipe operations
    # per key, so it cannot pass fma_tp / 3.
    bws = [res.get(("read_bw", i, (262144,)), {}).get("ips") for i in ("avx2", "avx512")]
    bws = [b for b in bws if b]
    fma = res.get(("fma_tp", "avx2", (49152,)), {}).get("ips")
    if ips:
        per = {"4096/8": ips}
        target = "attn_row/avx2 n=4096 d=8 ≥ 2.5e9 keys/s"
        roof = []
        if bws:
            per["read roofline (read_bw 256 KiB / 64 B)"] = max(bws) / 64
            roof.append("the measured read bandwidth at 256 KiB allows %.3g"
                        % (max(bws) / 64))
        if fma:
            per["FMA roofline (fma_tp / 3 per key)"] = fma / 3
            roof.append("the measured FMA throughput %.3g" % (fma / 3))
        if roof:
            best = min(v for k, v in per.items() if "roofline" in k)
            per["attn_row / lower roofline"] = ips / best
            target += (" (reads 64 B and needs 3 FMA-pipe operations per key; "
                       + " keys/s, ".join(roof) + " keys/s)")
        t.append({"target": target,
                  "status": "met" if ips >= 2.5e9 else "missed",
                  "worst": {"at": "4096/8", "value": ips},
                  "per": per})
    else:
        t.append({"target": "attn_row/avx2 n=4096 d=8 ≥ 2.5e9 keys/s",
                  "status": "not measured", "worst": None, "per": {}})
    return t


def target_line(t):
    w = t["worst"]
    if w is None:
        measured = "—"
    elif "keys/s" in t["target"]:
        measured = "%.3g keys/s" % w["value"]
    else:
        measured = "worst %.2f× (at %s)" % (w["value"], w["at"])
    detail = ", ".join("%s: %s" % (k, ("%.3g" % v if v > 1e3 else "%.2f×" % v))
                       for k, v in t["per"].items())
    return "| %s | **%s** | %s | %s |" % (t["target"], t["status"], measured,
                                          detail)


# ------------------------------------------------------------ plot

def plot(res, gp, out, workdir, stamp=""):
    gnuplot = shutil.which("gnuplot")
    impls = impls_of(res, "softmax")
    sizes = sorted({k[2] for k in res if k[0] == "softmax"})
    if not gnuplot or not impls or not sizes:
        return "no plot (gnuplot or softmax data missing)"
    dat = os.path.join(workdir, "kernels-softmax.dat")
    with open(dat, "w") as f:
        f.write("n " + " ".join(impls) + "\n")
        for a in sizes:
            vals = [res.get(("softmax", im, a), {}).get("ns") for im in impls]
            f.write("%d %s\n" % (a[0], " ".join("%.6g" % v if v else "?"
                                                for v in vals)))
    r = subprocess.run([gnuplot, "-c", gp, dat, out, str(len(impls) + 1), stamp],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return "gnuplot failed: " + r.stderr.strip()[-300:]
    return None


# ------------------------------------------------------------ main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("passes", nargs="+")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--plot")
    ap.add_argument("--gnuplot", default="bench/kernels.gp")
    ap.add_argument("--settings", default="")
    ap.add_argument("--seconds", type=int)
    ap.add_argument("--workdir", default=".")
    o = ap.parse_args()

    ctx, rows, extra = load_passes(o.passes)
    res = parse(rows)
    try:
        isa_table = json.loads(run([o.bin, "--print-isa-table"]) or "null")
    except json.JSONDecodeError:
        isa_table = None
    model, flags = cpu_info()
    units = dwarf_producers(o.bin)
    shim = units.get("bench/kernels.cc", "")
    compiler = re.match(r"GNU \S+ (\S+)", shim)
    git = git_info()
    pkgs = package_versions()
    tg = targets(res)

    # Per ISA and op: kernel symbol and the flags its file was built with.
    kernels = []
    for t in (isa_table or {}).get("isas", []):
        for op, sym in t["kernels"].items():
            src = kernel_source(sym)
            kernels.append({"isa": t["isa"], "supported": t["supported"],
                            "op": op, "symbol": sym, "source": src,
                            "flags": short_flags(units.get(src, ""))})

    hs = {
        "cpu_model": model or ctx.get("cpu_model"),
        "cpu_flags": flags,
        "compiler": "gcc/g++ " + (compiler.group(1) if compiler else "?"),
        "shim_flags": short_flags(shim),
        "git": git,
        "packages": pkgs,
        "settings": o.settings,
        "wall_seconds": o.seconds,
        "onednn_avx2_scheme": "second process with DNNL_MAX_CPU_ISA=AVX2 "
                              "running only the onednn softmax benchmarks, "
                              "renamed onednn_avx2 by the binary; rows merged",
        "other_passes": extra,
        "isa_table": isa_table,
        "kernels": kernels,
        "peers": PEERS,
        "targets": tg,
    }
    ctx = dict(ctx)
    ctx["hardsoft"] = hs
    os.makedirs(os.path.dirname(o.json) or ".", exist_ok=True)
    with open(o.json, "w") as f:
        json.dump({"context": ctx, "benchmarks": rows}, f, indent=1)
        f.write("\n")

    mem, kernel = machine_info()
    hs["memory"], hs["kernel"] = mem, kernel
    plot_err = None
    if o.plot:
        # provenance in the plot's corner: a PNG travels without its report
        stamp = "hardsoft %s%s, %s, %s CPUs, %s" % (
            git["commit"][:12], "+dirty" if git["dirty"] else "", hs["cpu_model"],
            ctx.get("num_cpus", "?"), str(ctx.get("date", "?"))[:10])
        plot_err = plot(res, o.gnuplot, o.plot, o.workdir, stamp)

    # ---------------------------------------------------------- markdown
    md = ["# Kernel microbenchmarks", "",
          "Generated by `make bench` (`bench/run-kernels.sh`, "
          "`bench/kernels-report.py`); raw data with full context in "
          "[kernels.json](kernels.json) beside it. Every number is ns per item (element, or "
          "key for attn_row), the median of the repetitions; in brackets the "
          "speed-up over the scalar hardsoft kernel on the same data.", ""]
    caches = ", ".join("L%d%s %s" % (c["level"], "d" if c["type"] == "Data"
                                     else ("i" if c["type"] == "Instruction"
                                           else ""), size_str(c["size"]))
                       for c in ctx.get("caches", []))
    onednn_isas = sorted({e.get("label", "") for k, e in res.items()
                          if k[1].startswith("onednn") and e.get("label")})
    md += ["| | |", "|---|---|",
           "| machine | %s; %s CPUs at %s MHz; %s |" % (
               hs["cpu_model"], ctx.get("num_cpus", "?"),
               ctx.get("mhz_per_cpu", "?"), caches),
           "| memory, kernel | %s; %s |" % (hs["memory"], hs["kernel"]),
           "| CPU flags | %s |" % " ".join(flags),
           "| hardsoft ISAs | best %s; supported: %s |" % (
               (isa_table or {}).get("best_isa", "?"),
               ", ".join(t["isa"] for t in (isa_table or {}).get("isas", [])
                         if t["supported"])),
           "| compiler | %s |" % hs["compiler"],
           "| flags | shim `%s`; kernels: see the ISA table |" % hs["shim_flags"],
           "| commit | `%s` %s%s |" % (
               git["commit"][:12], git["subject"],
               "; measured with uncommitted changes in %s%s" % (
                   ", ".join(git["dirty_paths"][:8]),
                   " …" if len(git["dirty_paths"]) > 8 else "")
               if git["dirty"] else ""),
           "| date | %s |" % ctx.get("date", "?"),
           "| peers | %s; oneDNN ran as %s |" % (
               ", ".join("%s %s" % kv for kv in sorted(pkgs.items())),
               ", ".join(onednn_isas) or "—"),
           "| run | %s; single-threaded, not pinned (shared machine); "
           "Google Benchmark library build type: %s; %s s wall |" % (
               o.settings, ctx.get("library_build_type", "?"),
               o.seconds if o.seconds is not None else "?"),
           ""]

    md += ["## Targets", "",
           "| target | status | measured | per size |", "|---|---|---|---|"]
    md += [target_line(t) for t in tg]
    md += [""]

    for fam, argnames, item, title in FAMILIES:
        if not any(k[0] == fam for k in res):
            continue
        lines, impls = family_table(res, fam, argnames, item)
        md += ["## %s — ns/%s" % (fam, item), "", title + ".", ""] + lines
        md += [""]
        cvs = sorted((e["cv"], "/".join([k[1]] + [str(a) for a in k[2]]))
                     for k, e in res.items() if k[0] == fam and "cv" in e)
        if cvs:
            md += ["Noise: coefficient of variation of the repetitions, "
                   "median %.1f%%, largest %.1f%% (%s)." % (
                       100 * cvs[len(cvs) // 2][0], 100 * cvs[-1][0],
                       cvs[-1][1]), ""]
        drift = sorted((e["sum_error"], k[1], "/".join(str(a) for a in k[2]))
                       for k, e in res.items()
                       if k[0] == fam and e.get("sum_error", 0) > 1e-4)
        if drift:
            md += ["Accuracy: rows whose output sums to 1 only within more "
                   "than 1e-4 (float accumulation): " + ", ".join(
                       "%s at %s: %.1e" % (i, a, v) for v, i, a in
                       sorted(drift, key=lambda d: (d[1], d[2]))) + ".", ""]
        errs = sorted({e["error"] for k, e in res.items()
                       if k[0] == fam and "error" in e})
        if errs:
            md += ["Skipped: " + "; ".join(errs), ""]
        if fam == "softmax" and o.plot and not plot_err:
            md += ["![softmax ns/element against n](%s)" %
                   os.path.basename(o.plot), ""]
    if plot_err:
        md += ["(%s)" % plot_err, ""]

    md += ["## Implementations", ""]
    md += ["- `%s`: hardsoft kernel table `hs_kernels_for(%s)`" % (k, v)
           for k, v in HS_IMPLS.items()]
    md += ["- `%s`: %s" % (k, v) for k, v in PEERS.items()
           if any(r[1] == k for r in res)]
    md += ["", "## ISA table", "",
           "The kernel each op dispatches to per ISA, and the flags its "
           "file was compiled with (from the binary's DWARF producer "
           "strings).", "",
           "| op | " + " | ".join(t["isa"] for t in
                                  (isa_table or {}).get("isas", [])) + " |",
           "|---|" + "---|" * len((isa_table or {}).get("isas", []))]
    for op in (isa_table or {}).get("isas", [{}])[0].get("kernels", {}):
        cells = []
        for t in isa_table["isas"]:
            k = next(x for x in kernels if x["isa"] == t["isa"]
                     and x["op"] == op)
            cells.append("`%s` (%s)%s" % (k["symbol"], k["flags"] or "?",
                                          "" if t["supported"]
                                          else " — not runnable here"))
        md += ["| %s | %s |" % (op, " | ".join(cells))]
    md += [""]
    with open(o.md, "w") as f:
        f.write("\n".join(md))

    for t in tg:
        w = t["worst"]
        print("  %-12s %s%s" % (t["status"], t["target"],
                               "" if w is None else "  [worst %.3g at %s]"
                               % (w["value"], w["at"])))
    print("wrote %s, %s%s" % (o.json, o.md,
                              ", " + o.plot if o.plot and not plot_err
                              else ""))
    if plot_err:
        print(plot_err, file=sys.stderr)


def size_str(b):
    return "%d MiB" % (b >> 20) if b >= 1 << 20 else "%d KiB" % (b >> 10)


if __name__ == "__main__":
    main()
