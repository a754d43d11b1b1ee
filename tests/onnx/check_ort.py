#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ONNX Runtime runs the exported graphs with hardsoft's own decisions.

For every formula of tests/formulas.txt in every configuration of CONFIGS,
the model is compiled to ONNX (`compile -o FILE.onnx`), run by `hardsoft
eval` and by ONNX Runtime
(tests/onnx/ort-run.js, all models of a configuration in one node
process) on the strings of strings(), and the decisions are compared at
every position.

Refusals are asserted exactly: the ONNX export refuses a formula in a
configuration if and only if compiling it to .safetensors is refused too,
with the same one-line message (the mode cannot express it, whatever the
file format), every such refusal is mode fixed's "mixing #< and #>", and
every formula so refused mentions both #< and #>. Any other failure to
export fails. Formulas go after "--", so one starting with '-' is a
formula, not an option.

The rule: ORT's value v and hardsoft's decision b agree when (v > 1/2) ==
b, or when |v - 1/2| <= NEAR (1e-3): the two sum in different orders in
float32, so a value that close to the threshold may fall either way. Such
positions are counted and printed; any other difference fails. (Fixed mode
may disagree with the logic at large n; it must still agree with hardsoft.)

Also: every tenth formula, compile + `hardsoft export` writes the same
bytes as `compile -o FILE.onnx`, and
onnx.checker.check_model (python3-onnx) accepts one graph per mode, whose
only input is "ids" and which has no unused value or initializer.

    check_ort.py HARDSOFT ORT_RUN_JS ORT_PACKAGE_DIR
Exit 0 when everything agrees, 1 otherwise.
"""
import os, random, subprocess, sys, tempfile

NEAR = 1e-3
# (mode, scale, sign): mu = 4 in every mode, one larger mu, and the
# softmax sign of counting comparisons (tau = 1/(mu n ln(n+1)), mu > 12)
CONFIGS = [("hard", 4, "layernorm"), ("pe", 4, "layernorm"), ("temp", 4, "layernorm"),
           ("fixed", 4, "layernorm"), ("rel", 4, "layernorm"), ("pe", 16, "layernorm"),
           ("temp", 16, "temp")]
LENGTHS = [0, 1, 2, 7, 64, 300]


def formulas(path):
    with open(path, encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]


def strings():
    rng = random.Random(13)
    out = []
    for n in LENGTHS:
        for alphabet in ("abc#x", "aab"):
            out.append("".join(rng.choice(alphabet) for _ in range(n)))
    return out


def run(cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True)


def main():
    hs, ort_js, ort_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    ss = strings()
    text = "".join(s + "\n" for s in ss).encode()
    fails = near = positions = refused = models = 0
    with tempfile.TemporaryDirectory() as tmp:
        checked = set()
        for mode, scale, sign in CONFIGS:
            jobs = []
            for k, f in enumerate(formulas("tests/formulas.txt")):
                ox = os.path.join(tmp, "%s-%d-%s-%d.onnx" % (mode, scale, sign, k))
                opts = ["--mode", mode, "--scale", str(scale), "--sign", sign]
                r = run([hs, "compile", *opts, "-o", ox, "--", f])
                if r.returncode:
                    fails += refusal(hs, f, mode, opts, r, tmp)
                    refused += 1
                    continue
                r2 = run([hs, "eval", *opts, "--", f], text)  # compiles the same model
                if r.returncode or r2.returncode:
                    print("FAIL %r %s mu=%s: hardsoft failed: %s" % (f, mode, scale, (r.stderr + r2.stderr).decode()))
                    fails += 1
                    continue
                jobs.append((f, ox, r2.stdout.decode().split("\n")[:len(ss)]))
                if k % 10 == 0:  # the other way to write the same graph
                    st, again = os.path.join(tmp, "m.safetensors"), os.path.join(tmp, "again.onnx")
                    r = run([hs, "compile", *opts, "-o", st, "--", f])
                    r2 = run([hs, "export", st, "-o", again])
                    if r.returncode or r2.returncode or open(again, "rb").read() != open(ox, "rb").read():
                        print("FAIL %r %s: export differs from compile -o .onnx" % (f, mode))
                        fails += 1
                if mode not in checked:
                    checked.add(mode)
                    fails += onnx_check(ox)
            models += len(jobs)
            if not jobs:
                continue
            r = run(["node", ort_js, "--ort", ort_dir, "--dump", *[j[1] for j in jobs]], text)
            if r.returncode:
                print("FAIL ort-run.js (%s mu=%s): %s" % (mode, scale, r.stderr.decode().strip()))
                fails += 1
                continue
            lines = r.stdout.decode().split("\n")
            for m, (f, _, bits) in enumerate(jobs):
                for s_i, s in enumerate(ss):
                    vals = [float(v) for v in lines[m * len(ss) + s_i].split()]
                    want = bits[s_i]
                    if len(vals) != len(s) or len(want) != len(s):
                        print("FAIL %r %s mu=%s n=%d: %d values, %d decisions" % (f, mode, scale, len(s), len(vals), len(want)))
                        fails += 1
                        continue
                    for i, v in enumerate(vals):
                        positions += 1
                        if (v > 0.5) == (want[i] == "1"):
                            continue
                        if abs(v - 0.5) <= NEAR:
                            near += 1
                            print("near 1/2: %r %s mu=%s n=%d i=%d: ORT %r, hardsoft %s" % (f, mode, scale, len(s), i + 1, v, want[i]))
                            continue
                        fails += 1
                        print("FAIL %r %s mu=%s sign=%s n=%d position %d: ORT %r, hardsoft %s" % (f, mode, scale, sign, len(s), i + 1, v, want[i]))
    print("onnx: %d models (%d refused, each as .safetensors too), %d positions, %d within %g of 1/2, %d failures"
          % (models, refused, positions, near, NEAR, fails))
    return 1 if fails or models == 0 else 0


def refusal(hs, f, mode, opts, r, tmp):
    """1 unless the refused ONNX export r of f is one the mode makes."""
    st = run([hs, "compile", *opts, "-o", os.path.join(tmp, "refused.safetensors"), "--", f])
    err = r.stderr.decode().strip()
    if (r.returncode != 2 or st.returncode != 2 or st.stderr.decode().strip() != err
            or len(err.splitlines()) != 1):
        print("FAIL %r %s: ONNX export refused (exit %d: %s), .safetensors: exit %d: %s"
              % (f, mode, r.returncode, err, st.returncode, st.stderr.decode().strip()))
        return 1
    if mode != "fixed" or "mixing #< and #>" not in err or "#<" not in f or "#>" not in f:
        print("FAIL %r %s: refused, but not as a comparison mixing #< and #> in fixed: %s"
              % (f, mode, err))
        return 1
    return 0


def onnx_check(path):
    """onnx.checker.check_model with shape inference; 1 on failure."""
    try:
        import onnx
    except ImportError:
        print("FAIL python3-onnx is not importable (make check installs it)")
        return 1
    try:
        model = onnx.load(path)
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # the checker raises its own error types
        print("FAIL onnx.checker on %s: %s" % (os.path.basename(path), str(e).splitlines()[0]))
        return 1
    g = model.graph
    used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
    dead = [t.name for t in g.initializer if t.name not in used]
    dead += [o for n in g.node for o in n.output if o not in used]
    if dead or [i.name for i in g.input] != ["ids"] or model.opset_import[0].version != 17:
        print("FAIL %s: unused values %s, inputs %s" % (os.path.basename(path), dead[:5],
                                                       [i.name for i in g.input]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
