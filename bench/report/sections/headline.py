# SPDX-License-Identifier: MIT
"""The headline: hardsoft's default path (--skip auto) beside its dense path
(--skip online) per ISA, then hardsoft against the peers, with what each
peer computes."""
from ..compare import nm_row, ratio_row
from ..fmt import (DEPTH4, HS_ISAS, ISA_LABEL, NM, PATHS, PEERS, code,
                   fmt_ms, fmt_mu, fmt_x, isnum, order_isas, path_of, short, unique)
from ..fresh import policy
from . import provenance, repeats

# the paths' targets: default-path speed-up of each wide ISA over scalar,
# at both settings of sweep-paths.csv; dense path AVX-512 over scalar
DEFAULT_SIMD_WANT = {"avx2": 2.0, "avx512": 3.0}
DENSE_SIMD_WANT, DENSE_SIMD_N = 8.0, 4096
# the peers' targets (scaling sweep, n = 4096): peer / hardsoft's default path
PEER_N, PEER_WANT = 4096, {"torch": 30.0, "openblas": 6.0}
# ONNX Runtime / hardsoft's best ISA on the default path at n = 1024
ORT_N, ORT_WANT = 1024, 20.0


def headline_points(rep):
    """[(formula, n, note)] of the peers' table: a S b at n = 4096, the
    other formula at the largest n of sweep-scaling.csv."""
    if not rep.scaling:
        return []
    base = [r for r in rep.scaling if r["precision"] == "f32" and r["threads"] == 1]
    out = []
    forms = unique(r["formula"] for r in base)
    if "a S b" in forms:
        ns = sorted({r["n"] for r in base if r["formula"] == "a S b"})
        if PEER_N in ns:
            out.append(("a S b", PEER_N, ""))
        else:
            out.append(("a S b", ns[-1], f" (n = {PEER_N} absent; largest n present)"))
    other = [f for f in forms if f != "a S b"]
    if other:
        f = other[0]
        ns = sorted({r["n"] for r in base if r["formula"] == f})
        out.append((f, ns[-1], ""))
    return out


def measured_line(rep, rows):
    commits = rep.commits(rows)
    cpus = unique(r["cpu"] for r in rows if r["cpu"])
    builds = unique(r["build"] for r in rows if r["build"])
    dates = sorted(r["date"][:10] for r in rows if r["date"])
    return ("Measured on " + ("; ".join(cpus) or "an unrecorded CPU")
            + (f" on {dates[0]}" if dates else "") + " at commit "
            + (", ".join(f"`{c}`" for c in commits) or "unrecorded")
            + (", built with " + "; ".join(f"`{b}`" for b in builds) if builds else "")
            + " (full provenance: "
            + (f"`results/machines/{rep.machine['id']}/REPORT.md`" if rep.machine
               else "the report's Provenance section") + "). "
            + policy(commits[0] if len(commits) == 1 else "COMMIT"))


def paths_rows(rep):
    """{(formula, n, mu): {(isa, path): row}} of sweep-paths.csv, f32,
    one thread."""
    out = {}
    for r in rep.paths or []:
        if r["precision"] == "f32" and r["threads"] == 1 and r["isa"] in HS_ISAS:
            out.setdefault((r["formula"], r["n"], r["scale"]), {})[(r["isa"],
                                                                   path_of(r))] = r
    return out


def paths_table(rep):
    settings = paths_rows(rep)
    isas = order_isas({isa for v in settings.values() for isa, _ in v})
    wide = [i for i in isas if i != "scalar"]
    out = []
    for (f, n, mu), v in settings.items():
        sec = lambda isa, p: v[(isa, p)]["seconds_median"] if (isa, p) in v else float("nan")
        for p, label in PATHS:
            cells = [fmt_ms(sec(i, p)) if isnum(sec(i, p)) else NM for i in isas]
            sp = [fmt_x(sec("scalar", p) / sec(i, p)) if isnum(sec("scalar", p))
                  and isnum(sec(i, p)) else "—" for i in wide]
            out.append([code(f), f"{n}, μ = {fmt_mu(mu)}", f"{label} (`--skip {p}`)"]
                       + cells + sp)
        out.append([code(f), f"{n}, μ = {fmt_mu(mu)}", "dense / default"]
                   + [fmt_x(sec(i, "online") / sec(i, "auto")) if isnum(sec(i, "online"))
                      and isnum(sec(i, "auto")) else "—" for i in isas] + [""] * len(wide))
    head = (["formula", "n, μ", "path"] + [f"{ISA_LABEL[i]} ms" for i in isas]
            + [f"{ISA_LABEL[i]} / scalar" for i in wide])
    return head, out, ["---", "--:", "---"] + ["--:"] * (len(isas) + len(wide))


def write(rep, plot):
    rep.w("## Headline", "")
    rows_ = rep.scal + (rep.paths or [])
    if not rows_:
        rep.w(f"sweep-paths.csv and sweep-scaling.csv: {NM}.", "")
        return
    rep.w(measured_line(rep, rows_), "")
    rep.w("### The default path beside the dense path", "")
    if not rep.paths:
        rep.w(f"sweep-paths.csv: {NM}.", "")
    else:
        rep.w("Forward pass, median of the timed runs in ms (sweep-paths.csv: pe, f32, "
              "1 thread, one `hardsoft bench` run per setting). The default path "
              "(`--skip auto`) skips, per head, the key tiles whose weights underflow "
              "where that pays; the dense path (`--skip online`) reads every key with "
              "the fused online-softmax kernel. Speed-ups are t_scalar / t_ISA on the "
              "same path.", "")
        head, out, al = paths_table(rep)
        rep.table(head, out, al, tex_name="paths",
                  note="hardsoft forward pass, default and dense path per ISA (ms)")
    peers_table(rep)


def peers_table(rep):
    rep.w("### hardsoft against the peers", "")
    pts = headline_points(rep)
    if not pts:
        rep.w(f"sweep-scaling.csv: {NM}.", "")
        return
    r0 = rep.row(pts[0][0], "avx2", pts[0][1]) or next(iter(rep.scal), None)
    setting = (f"mode {r0['mode']}, μ = {fmt_mu(r0['scale'])}, f32, 1 thread"
               if r0 else "")
    rep.w(f"Forward pass, median of the timed runs in ms ({setting}; sweep-scaling.csv), "
          "hardsoft on its default path; the peers (NumPy, PyTorch, OpenBLAS; ONNX "
          "Runtime on the same model exported to ONNX) run the same model file on the "
          "same string.", "")
    cols = HS_ISAS + PEERS
    rows = []
    for f, n, note in pts:
        rows.append([code(f), f"{n}{note}"] + [fmt_ms(rep.t(f, i, n)) if isnum(
            rep.t(f, i, n)) else NM for i in cols])
    rep.table(["formula", "n"] + [f"{ISA_LABEL[i]} ms" for i in cols], rows,
              ["---", "--:"] + ["--:"] * len(cols), tex_name="peers",
              note="forward pass against the peers (ms)")
    if rep.paths and repeats.files_sharing(rep, "sweep-scaling.csv", "sweep-paths.csv"):
        rep.w("hardsoft's columns here come from sweep-scaling.csv, the invocation that also "
              "timed the peers, so that each ratio below is of one run; the table above "
              "comes from sweep-paths.csv, another invocation, and where both measured a "
              "point (n = 4096, μ = 4) their medians differ by what else ran at the time "
              "(section \"The same configuration in more than one run\").", "")
    rep.w("Speed-ups (t_peer / t_ISA; above 1 means hardsoft is faster):", "")
    rows = []
    for f, n, _ in pts:
        for isa in ["avx2", "avx512"]:
            ti = rep.t(f, isa, n)
            rows.append([code(f), n, ISA_LABEL[isa]] + [
                fmt_x(rep.t(f, o, n) / ti) if isnum(rep.t(f, o, n)) and isnum(ti) else NM
                for o in PEERS])
    rep.table(["formula", "n", "ISA"] + [f"vs {ISA_LABEL[p]}" for p in PEERS], rows,
              ["---", "--:", "---"] + ["--:"] * len(PEERS), tex_name="speedups",
              note="speed-up of hardsoft's default path over the peers")
    peer_notes(rep)


def peer_notes(rep):
    """What each column of the headline computes, with the version its
    rows record: a ratio is against that code, not a tuned kernel."""
    lines = []
    for isa, group in provenance.isa_groups({r["isa"] for r in rep.scal}):
        vs = provenance.peer_versions(rep, rep.scal, group)
        name = (f"hardsoft ({', '.join(ISA_LABEL[i] for i in group)})"
                if isa in HS_ISAS else ISA_LABEL.get(isa, isa))
        ver = f" ({'; '.join(vs)})" if vs else " (version not recorded in the CSV)"
        lines.append(f"- **{name}**{ver}: {provenance.peer_doc(isa)}.")
    if lines:
        rep.w("What each column computes — the peers are straightforward "
              "implementations of the same model, not tuned attention kernels, so "
              "\"N× PyTorch\" means N times faster than eager PyTorch doing a dense "
              "matmul and softmax per head, not N times a fused attention kernel "
              "(FlashAttention, `scaled_dot_product_attention`, oneDNN's fused "
              "primitives):", "", *lines, "")


def targets(rep):
    out = []
    settings = paths_rows(rep)
    # default path: each wide ISA against scalar, every setting measured
    for isa, want in DEFAULT_SIMD_WANT.items():
        target = f"default path: {ISA_LABEL[isa]} / scalar speed-up >= {want:g}x"
        got = [(k, v) for k, v in settings.items() if (isa, "auto") in v
               and ("scalar", "auto") in v]
        if not got:
            out.append(nm_row(target, "sweep-paths.csv"))
        for (f, n, mu), v in got:
            out.append(ratio_row(target, f"{code(short(f))} pe mu={fmt_mu(mu)}, n={n}",
                                 v[("scalar", "auto")], v[(isa, "auto")],
                                 lambda x, w=want: x >= w))
    target = f"dense path: AVX-512 / scalar speed-up >= {DENSE_SIMD_WANT:g}x, n={DENSE_SIMD_N}"
    got = [(k, v) for k, v in settings.items() if k[1] == DENSE_SIMD_N
           and ("avx512", "online") in v and ("scalar", "online") in v]
    if not got:
        out.append(nm_row(target, "sweep-paths.csv"))
    for (f, n, mu), v in got:
        out.append(ratio_row(target, f"{code(short(f))} pe mu={fmt_mu(mu)}",
                             v[("scalar", "online")], v[("avx512", "online")],
                             lambda x: x >= DENSE_SIMD_WANT))
    # the peers, each against AVX2 and AVX-512 on the default path
    forms = [f for f in ("a S b", DEPTH4) if f in rep.scal_formulas] or rep.scal_formulas[:1]
    for peer, want in PEER_WANT.items():
        for isa in ("avx2", "avx512"):
            target = f"{ISA_LABEL[peer]} / {ISA_LABEL[isa]} >= {want:g}x, n={PEER_N}"
            for f in forms or ["a S b"]:
                a, b = rep.row(f, peer, PEER_N), rep.row(f, isa, PEER_N)
                run = f"{code(short(f))} pe mu=4, 1 thread"
                out.append(ratio_row(target, run, a, b, lambda x, w=want: x >= w)
                           if a and b else nm_row(target, run))
    best = [r for r in rep.scal if r["n"] == ORT_N and r["isa"] in HS_ISAS
            and r["_path"] == "auto"]
    for f in forms or ["a S b"]:
        target = f"ONNX Runtime / hardsoft's best ISA >= {ORT_WANT:g}x, n={ORT_N}"
        fast = min((r for r in best if r["formula"] == f),
                   key=lambda r: r["seconds_median"], default=None)
        o = rep.row(f, "ort", ORT_N)
        run = f"{code(short(f))} pe mu=4" + (f", {fast['isa']}" if fast else "")
        out.append(ratio_row(target, run, o, fast, lambda x: x >= ORT_WANT)
                   if o and fast else nm_row(target, run))
    return out
