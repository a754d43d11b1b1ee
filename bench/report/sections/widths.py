# SPDX-License-Identifier: MIT
"""AVX-512 against AVX2 on the dense path (sweep-isa.csv)."""
from ..compare import pairs, ratio_row
from ..fmt import NM, code, fmt_ms, fmt_x, short

WIDE_WANT, WIDE_MIN_N = 1.5, 4096  # AVX-512 against AVX2, n >= 4096


def write(rep, plot):
    rep.w("## AVX-512 against AVX2 on the dense path", "")
    if not rep.isa:
        rep.w(f"sweep-isa.csv: {NM}.", "")
        return
    rep.w("From sweep-isa.csv: the fused online kernel (`--skip online`), pe, one "
          "thread, both wide ISAs in one invocation.", "")
    out = [[code(short(a2["formula"])), a2["n"], fmt_ms(a2["seconds_median"]),
            fmt_ms(a5["seconds_median"]),
            fmt_x(a2["seconds_median"] / a5["seconds_median"])]
           for a2, a5 in both(rep)]
    rep.table(["formula", "n", "AVX2 ms", "AVX-512 ms", "AVX2 / AVX-512"], out,
              ["---", "--:", "--:", "--:", "--:"])


def both(rep):
    return pairs(rep.isa, lambda r: r["isa"] == "avx2", lambda r: r["isa"] == "avx512",
                 ["formula", "n", "scale"])


def targets(rep):
    return [ratio_row(f"AVX-512 >= {WIDE_WANT}x AVX2, dense path, n >= {WIDE_MIN_N}",
                      f"{code(short(a2['formula']))} n={a2['n']}, 1 thread", a2, a5,
                      lambda v: v >= WIDE_WANT)
            for a2, a5 in both(rep) if a2["n"] >= WIDE_MIN_N]
