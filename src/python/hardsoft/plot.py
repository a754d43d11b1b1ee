# SPDX-License-Identifier: MIT
"""Pictures of attention: one heatmap per head (rows) and scale mu
(columns) of the weights query i puts on key j, the hard target marked.

Used two ways: `hardsoft attention ... --png OUT` computes the weights in
the C library, writes them as JSON and runs this file as a script,

    plot.py --data FILE.json --out OUT.png|OUT.svg

and hardsoft.plot_attention(model, s, path) builds the same JSON-shaped
dict from Model.attention. As a script it needs only NumPy and
matplotlib (python3-matplotlib), not the package. Errors: one line
`hardsoft: error: ...` on stderr, exit 2, no output file.

The data: {"string": S, "formula": F or null, "panels": [[panel, ...]
per row], optional "tokens": [n labels] (a program's tokens)}, a row per (layer, head), a panel per mu, each
{"layer", "head", "kind", "target", "mask", "mode", "scale", "weights":
[[n+1 floats] * (n+1)], "hard": same shape}, and optionally "bits": the
model's decisions at positions 1..n as a string of 0 and 1.
"""
import json
import os
import sys
import tempfile
import textwrap

import numpy as np

MAX_N = 256   # a heatmap of more keys is not readable


def _visible(mask, n):
    i, j = np.arange(n + 1)[:, None], np.arange(n + 1)[None, :]
    vis = {"none": np.ones((n + 1, n + 1), bool), "le": j <= i, "lt": j < i,
           "ge": j >= i, "gt": j > i}.get(mask, np.ones((n + 1, n + 1), bool)).copy()
    vis[:, 0] = True
    return vis


def _labels(string, n, tokens=None):
    if tokens is not None and len(tokens) == n:
        s = tokens
    else:
        s = string if len(string) == n else "?" * n
    return ["BOS"] + ["%d %s" % (i + 1, s[i]) for i in range(n)]


def _title(p):
    kind = p["kind"]
    if kind == "softmax" and p.get("target") not in (None, "softmax"):
        kind = "softmax \u2192 %s" % p["target"]
    mu = "" if p.get("mode") == "hard" else ", \u03bc = %g" % p["scale"]
    return "layer %d head %d: %s, mask %s\nmode %s%s" % (
        p["layer"], p["head"], kind, p["mask"], p.get("mode", "?"), mu)


def draw(data, out):
    """Draw data (the dict above) into out, atomically (.png or .svg)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = data["panels"]
    if not rows or not rows[0]:
        raise ValueError("the model has no attention heads to draw")
    n = len(rows[0][0]["weights"]) - 1
    ncol = len(rows[0])
    size = min(max(3.6, 0.12 * (n + 1) + 1.6), 6.5)
    fig, axes = plt.subplots(len(rows), ncol, squeeze=False, layout="constrained",
                             figsize=(size * ncol + 1.0, size * len(rows) + 0.8))
    cmap = matplotlib.colormaps["viridis"].copy()
    cmap.set_bad("#d9d9d9")     # keys the mask hides
    labels = _labels(data.get("string", ""), n, data.get("tokens"))
    tick = max(1, (n + 1) // 24)
    for r, row in enumerate(rows):
        for c, p in enumerate(row):
            ax = axes[r][c]
            w = np.asarray(p["weights"], dtype=float)
            hard = np.asarray(p["hard"], dtype=float)
            shown = np.ma.masked_where(~_visible(p["mask"], n), w)
            im = ax.imshow(shown, cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
            qi, kj = np.nonzero(hard > 0)
            ax.scatter(kj, qi, s=max(8, 600 / (n + 1)), facecolors="none",
                       edgecolors="#e8112d", linewidths=1.2)
            ax.set_title(_title(p), fontsize=8.5)
            ax.set_xlabel("key j")
            ax.set_ylabel("query i")
            ticks = list(range(0, n + 1, tick))
            ax.set_xticks(ticks)
            ax.set_xticklabels([labels[t] for t in ticks], rotation=90, fontsize=7)
            ax.set_yticks(ticks)
            ax.set_yticklabels([labels[t] for t in ticks], fontsize=7)
    fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.9, label="attention weight")
    # the title wrapped to the figure's width (about 10 characters an inch
    # at 11 points) and the figure saved with a tight box, so a one-column
    # picture does not cut it at both edges
    width = max(24, int((size * ncol + 1.0) * 10))
    head = []
    if data.get("formula"):
        head += textwrap.wrap(data["formula"], width, max_lines=4, placeholder=" ...")
    head.append("attention over '%s'" % data.get("string", ""))
    if data.get("bits") is not None:
        head.append("output bits:   %s" % data["bits"])
    head += textwrap.wrap("(red circles: the hard target each query chooses; "
                          "grey: keys the mask hides)", width)
    fig.suptitle("\n".join(head), fontsize=11)
    fmt = "svg" if out.endswith(".svg") else "png"
    d = os.path.dirname(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(prefix=".attention-", suffix="." + fmt, dir=d)
    os.close(fd)
    try:
        fig.savefig(tmp, format=fmt, dpi=110, bbox_inches="tight")
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)     # as any new file, not mkstemp's 0600
        os.replace(tmp, out)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)


def _panel(model, att, layer, head, s):
    info = att[layer].heads[head]
    return {"layer": layer, "head": head, "kind": info["kind"], "target": info["target"],
            "mask": info["mask"], "mode": model.mode, "scale": model.scale,
            "weights": att[layer].weights[head].tolist(),
            "hard": att[layer].hard[head].tolist()}


def plot_attention(model, s, path, scales=None, layer=None, head=None,
                   precision="f32", tokens=None):
    """Draw model's attention over s (or tokens) into path (see
    hardsoft.plot_attention). scales: recompile the model's source at each
    mu (a model loaded from a file has no source: its own scale only)."""
    from .model import Error, compile as hs_compile
    if path is None:
        raise Error("plot_attention needs a path (.png or .svg)")
    w = model.encode(s, tokens)
    if len(w) > MAX_N:
        raise Error("a string of %d symbols is too long for a picture (at most %d)"
                    % (len(w), MAX_N))
    models = [model]
    if scales:
        if model.source is None:
            raise Error("scales need a model compiled from source (a loaded model "
                        "has one scale)")
        models = [hs_compile(model.source, mode=model.mode, scale=mu, lang=model.lang,
                             sign=model.sign) for mu in scales]
    atts = [m.attention(s, precision, tokens=tokens) for m in models]
    rows = []
    for l in range(model.nlayers):
        if layer is not None and l != layer:
            continue
        for h in range(len(atts[0][l].heads)):
            if head is not None and h != head:
                continue
            rows.append([_panel(m, a, l, h, w) for m, a in zip(models, atts)])
    if not rows:
        raise Error("no attention head matches (layer %s, head %s)" % (layer, head))
    labels = atts[0][0].labels[1:] if atts[0] else model.labels(s, tokens)
    data = {"string": " ".join(labels) if model.reads_tokens else w.decode("latin-1"),
            "formula": model.formula, "panels": rows}
    if model.reads_tokens:
        data["tokens"] = labels
    # the decisions of the model drawn first, as the command line's picture
    # prints them, so a reader sees what the heads lead to
    data["bits"] = "".join("1" if b else "0" for b in models[0].eval(s, precision, tokens=tokens))
    draw(data, os.fspath(path))


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="draw attention weights (JSON) as a picture")
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    try:
        with open(a.data, encoding="utf-8") as f:
            data = json.load(f)
        draw(data, a.out)
    except ImportError as e:
        print("hardsoft: error: drawing needs matplotlib (apt-get install "
              "python3-matplotlib): %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("hardsoft: error: %s: %s" % (a.out, e.strerror or e), file=sys.stderr)
        return 2
    except (ValueError, KeyError, IndexError, TypeError) as e:
        print("hardsoft: error: %s: %s" % (a.out, e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
