# SPDX-License-Identifier: MIT
"""The report being written: the inputs, the Markdown lines so far, the
plots drawn and the tables also written as LaTeX."""
import os

from . import machine, tex
from .fmt import HS_ISAS, index, md_table, path_of, unique
from .reading import Data

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Report(Data):
    def __init__(self, d, ort_version=None):
        super().__init__(d)
        # what the ort rows cannot say themselves (the peer does not print
        # its version): onnxruntime-node's package.json, found by the caller
        self.ort_version = ort_version
        # scaling points: f32, one thread, pe (the sweep's setting)
        pts = (self.scaling or []) + (self.long or [])
        self.scal = [r for r in pts if r["precision"] == "f32" and r["threads"] == 1]
        self.scal_formulas = unique(r["formula"] for r in self.scal)
        for r in self.scal:
            r["_path"] = path_of(r) if r["isa"] in HS_ISAS else "online"
        self.by_fin = index(self.scal, ["formula", "isa", "n", "_path"])
        self.out, self.plots, self.tex, self.exps = [], [], {}, {}
        # the folder's provenance (machine.json), None without provenance rows
        self.machine = machine.derive(self, ort_version)

    def w(self, *lines):
        self.out.extend(lines)

    def table(self, header, rows, align=None, tex_name=None, note=""):
        """A Markdown table followed by a blank line; with tex_name, also
        written as tex_name.tex (note: its first comment line)."""
        self.w(*md_table(header, rows, align), "")
        if tex_name:
            self.tex[tex_name] = tex.tabular(header, rows, align, note)

    def draw(self, plot, name, width, height, body, what):
        """Draws body (gnuplot lines) into name; the outcome goes under
        the report's Plots section with what it shows."""
        self.plots.append((name, plot.plot(name, width, height, "\n".join(body)), what))

    def t(self, formula, isa, n, path="auto"):
        """Median seconds of the scaling sweep; a peer has one path."""
        if isa not in HS_ISAS:
            path = "online"
        r = self.by_fin.get((formula, isa, n, path))
        return r["seconds_median"] if r else float("nan")

    def row(self, formula, isa, n, path="auto"):
        if isa not in HS_ISAS:
            path = "online"
        return self.by_fin.get((formula, isa, n, path))

    def commits(self, rows):
        return unique(r["commit"] for r in rows if r.get("commit"))
