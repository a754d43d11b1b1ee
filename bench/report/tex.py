# SPDX-License-Identifier: MIT
"""The report's main tables as booktabs LaTeX, beside REPORT.md, so that a
paper can \\input them unchanged (with \\usepackage{booktabs} in its
preamble). Each file holds one tabular, no float: the paper gives the
table its own caption and placement. The cells are those of the Markdown
table, converted: `code` to \\texttt, **bold** to \\textbf, *italic* to
\\emph, LaTeX's special characters escaped, and the few non-ASCII symbols
the report uses written as LaTeX, so that the file is plain ASCII and
compiles under any engine."""
import re
import unicodedata

# symbols the report writes, in text and in \texttt
SYMBOLS = {"×": r"$\times$", "≥": r"$\geq$", "≤": r"$\leq$", "—": "---", "–": "--",
           "…": r"\ldots{}", "μ": r"$\mu$", "±": r"$\pm$", "≈": r"$\approx$",
           "−": "$-$", "→": r"$\rightarrow$", "²": r"$^2$", "ᵀ": r"$^T$", "·": r"$\cdot$",
           "γ": r"$\gamma$", "τ": r"$\tau$", "∝": r"$\propto$"}
SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
           "#": r"\#", "^": r"\^{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}",
           # the default (OT1) text font has no < > |: math outside \texttt
           "<": "$<$", ">": "$>$", "|": "$|$"}
TT_SPECIAL = dict(SPECIAL, **{"<": "<", ">": ">", "|": "|"})


def escape(text, tt=False):
    table = TT_SPECIAL if tt else SPECIAL
    if not tt:
        text = text.replace(">=", "≥").replace("<=", "≤")
    out = []
    for ch in text:
        if ch in table:
            out.append(table[ch])
        elif ch in SYMBOLS:
            out.append(SYMBOLS[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:  # anything else: its closest ASCII, else dropped
            out.append(unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode())
    return "".join(out)


INLINE = re.compile(r"`([^`]*)`|\*\*(.+?)\*\*|\*(.+?)\*")


def cell(md):
    """One Markdown table cell as LaTeX."""
    md = str(md).replace("\\|", "|").replace("<br>", "; ")
    out, pos = [], 0
    for m in INLINE.finditer(md):
        out.append(escape(md[pos:m.start()]))
        if m.group(1) is not None:
            out.append(r"\texttt{" + escape(m.group(1), tt=True) + "}")
        elif m.group(2) is not None:
            out.append(r"\textbf{" + cell(m.group(2)) + "}")
        else:
            out.append(r"\emph{" + cell(m.group(3)) + "}")
        pos = m.end()
    out.append(escape(md[pos:]))
    return "".join(out)


def column_spec(align, ncols):
    """Markdown alignment rows ('---', '--:', ':-:') as tabular columns."""
    align = list(align or []) + ["---"] * (ncols - len(align or []))
    spec = []
    for a in align[:ncols]:
        a = a.strip()
        spec.append("c" if a.startswith(":") and a.endswith(":") else
                    "r" if a.endswith(":") else "l")
    return "".join(spec)


def tabular(header, rows, align=None, note=""):
    """A booktabs tabular of the Markdown table header / rows / align."""
    ncols = len(header)
    lines = [f"% {escape(note)}" if note else None,
             "% needs \\usepackage{booktabs}",
             f"\\begin{{tabular}}{{@{{}}{column_spec(align, ncols)}@{{}}}}",
             "\\toprule",
             " & ".join(cell(h) for h in header) + r" \\",
             "\\midrule"]
    for r in rows:
        r = list(r) + [""] * (ncols - len(r))
        lines.append(" & ".join(cell(c) for c in r) + r" \\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(l for l in lines if l is not None) + "\n"
