# SPDX-License-Identifier: MIT
"""gnuplot: scripts with their data files in a temporary directory, the
finished PNGs moved into the results directory under their final names."""
import os
import re
import shutil
import subprocess

from .fmt import isnum

NODATA = "\0"  # prefix of a plot's reason when there was nothing to draw
# the provenance stamp: the bottom margin of every panel (character
# heights) and the stamp's baseline (fraction of the picture's height)
STAMP_BMARGIN, STAMP_Y = 5, 0.012


class Plotter:
    """Runs gnuplot scripts with data files in a temporary directory and
    moves the finished PNGs into the results directory."""

    def __init__(self, outdir, workdir):
        self.outdir, self.work = outdir, workdir
        self.gnuplot = shutil.which("gnuplot")
        self.term = None
        self.nfiles = 0
        self.stamp = ""  # provenance, small in each plot's corner
        if self.gnuplot:
            try:
                terms = subprocess.run([self.gnuplot, "-e", "set terminal"],
                                       capture_output=True, text=True, timeout=20)
                text = terms.stdout + terms.stderr
                if re.search(r"^\s*pngcairo\s", text, re.M):
                    self.term = "pngcairo"
                elif re.search(r"^\s*png\s", text, re.M):
                    self.term = "png"
            except (OSError, subprocess.SubprocessError):
                self.term = None

    def why_not(self):
        if not self.gnuplot:
            return "gnuplot is not installed"
        return "gnuplot has neither the pngcairo nor the png terminal"

    def data(self, rows):
        """Writes rows (tuples) as a whitespace-separated file; NaN for
        missing values. Returns a gnuplot-quoted path."""
        self.nfiles += 1
        path = os.path.join(self.work, f"d{self.nfiles}.dat")
        with open(path, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(" ".join("NaN" if not isnum(v) else repr(float(v)) for v in r)
                        + "\n")
        return gq(path)

    def script(self, png, width, height, body):
        """The whole gnuplot script of one plot: terminal, common settings,
        the provenance stamp in the bottom right corner, then body. The
        stamp sits below the x-axis label: every panel keeps a bottom
        margin of STAMP_BMARGIN character heights (tic labels, the axis
        label, then a free line), and the stamp is drawn in that free
        line."""
        term = self.term or "pngcairo"
        font = "Sans,11" if term == "pngcairo" else "arial 10"
        return (f"set terminal {term} size {width},{height} font {gq(font)}\n"
                "set termoption noenhanced\n"
                f"set output {gq(png)}\n"
                "set datafile missing 'NaN'\n"
                "set grid lc rgb '#dddddd'\n"
                "set key box opaque samplen 2\n"
                + (f"set bmargin {STAMP_BMARGIN}\n"
                   f"set label 99 {gq(self.stamp)} at screen 0.995, screen {STAMP_Y} "
                   "right font ',7' textcolor rgb '#777777'\n" if self.stamp else "")
                + body + "\nunset output\n")

    def plot(self, name, width, height, body):
        """Draws body (gnuplot commands) into RESULTS_DIR/name; returns
        None on success, else a one-line reason."""
        if not self.term:
            return self.why_not()
        tmp_png = os.path.join(self.work, name)
        script = self.script(tmp_png, width, height, body)
        spath = os.path.join(self.work, name + ".gp")
        with open(spath, "w", encoding="utf-8") as f:
            f.write(script)
        try:
            p = subprocess.run([self.gnuplot, spath], capture_output=True, text=True,
                               timeout=60)
        except (OSError, subprocess.SubprocessError) as e:
            return f"gnuplot did not run: {e}"
        errs = [l for l in p.stderr.splitlines() if l.strip() and "warning" not in l]
        if p.returncode != 0 or not os.path.exists(tmp_png):
            return "gnuplot failed: " + (errs[-1].strip() if errs else f"exit {p.returncode}")
        move_atomic(tmp_png, os.path.join(self.outdir, name))
        return None


def panel(title, series):
    """One panel of a plot: its title, then its series (plot clauses)."""
    return [f"set title {gq(title)}", "plot " + ", \\\n  ".join(series)]


def gq(s):
    return "'" + str(s).replace("'", "''") + "'"


def move_atomic(src, dst):
    """Copies src beside dst under a temporary name, then renames it."""
    tmp = os.path.join(os.path.dirname(dst), "." + os.path.basename(dst) + ".tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


STYLE = {  # line colour and point type per series
    "scalar": ("#444444", 7), "avx2": ("#1f77b4", 5), "avx512": ("#d62728", 9),
    "numpy": ("#2ca02c", 4), "torch": ("#ff7f0e", 6), "openblas": ("#9467bd", 8),
    "ort": ("#8c564b", 10),
}
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
           "#e377c2", "#17becf"]


def style(key, i):
    c, pt = STYLE.get(key, (PALETTE[i % len(PALETTE)], 4 + i % 10))
    return f"lw 2 lc rgb '{c}' pt {pt} ps 1.1"
