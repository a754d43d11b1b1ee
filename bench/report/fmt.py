# SPDX-License-Identifier: MIT
"""Names, cell formats and Markdown tables shared by every section."""
import math

LN7 = math.log(7.0)
HS_ISAS = ["scalar", "avx2", "avx512"]
PEERS = ["numpy", "torch", "openblas", "ort"]
ISA_LABEL = {"scalar": "scalar", "avx2": "AVX2", "avx512": "AVX-512",
             "numpy": "NumPy", "torch": "PyTorch", "openblas": "OpenBLAS",
             "ort": "ONNX Runtime"}
MODES = ["hard", "pe", "temp", "fixed", "rel"]
# the two paths of hardsoft's forward pass, by their --skip value
PATHS = [("auto", "default"), ("online", "dense")]
PATH_LABEL = dict(PATHS)
DEPTH4 = "(a S (b & X (c U Y a))) | G (b -> Y a)"
NM = "not measured"


def isnum(x):
    return isinstance(x, (int, float)) and not math.isnan(x)


def fmt_ms(sec):
    if not isnum(sec):
        return "—"
    ms = sec * 1e3
    if ms >= 100:
        return f"{ms:.0f}"
    if ms >= 10:
        return f"{ms:.1f}"
    if ms >= 1:
        return f"{ms:.2f}"
    return f"{ms:.3g}"


def fmt_x(v):
    return f"{v:.2f}×" if isnum(v) else "—"


def fmt_g(v, digits=3):
    return f"{v:.{digits}g}" if isnum(v) else "—"


def fmt_err(v):
    if not isnum(v):
        return "—"
    return "0" if v == 0 else f"{v:.1e}"


def fmt_agree(v):
    if not isnum(v):
        return "—"
    return "1" if v == 1 else f"{v:.4f}"


def fmt_mu(v):
    return f"{v:g}"


def fmt_mib(b):
    if not isnum(b):
        return "—"
    return f"{b / 2 ** 20:.1f} MiB" if b >= 2 ** 20 else f"{b / 2 ** 10:.0f} KiB"


def fmt_frac(v):
    """skipped_fraction: a string of the CSV (nan where every head ran
    online), absent from older files."""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return "—"
    return f"{v:.3f}" if isnum(v) else "—"


def fmt_mem(b):
    try:
        return f"{int(b) / 2 ** 30:.1f} GiB"
    except (TypeError, ValueError):
        return str(b)


def code(s):
    """A formula as inline code inside a Markdown table cell."""
    return "`" + s.replace("|", "\\|") + "`"


def short(formula, width=44):
    return formula if len(formula) <= width else formula[:width - 1] + "…"


def mark(ok):
    return "**met**" if ok else "**missed**"


def order_isas(isas):
    known = HS_ISAS + PEERS
    return [i for i in known if i in isas] + sorted(i for i in isas if i not in known)


def path_of(row):
    """A bench row's --skip value; rows of files older than the column ran
    the default."""
    return row.get("skip") or "auto"


def md_table(header, rows, align=None):
    align = align or ["---"] * len(header)
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def index(rows, keys):
    """{key tuple: row}, the last row winning when a key repeats."""
    d = {}
    for r in rows:
        d[tuple(r[k] for k in keys)] = r
    return d


def unique(seq):
    seen, out = set(), []
    for x in seq:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def quote_md(rep, name, text, starts, intro, empty):
    """A file another tool wrote (hyperfine.md, tasks.md) quoted into the
    report from its first line that starts with `starts` on (what comes
    before is the file's own heading, which the section replaces)."""
    if text is None:
        rep.w(f"{name}: {NM}.", "")
        return
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(starts)), None)
    rep.w(intro, "")
    rep.w(*(lines[start:] if start is not None else [empty]), "")
