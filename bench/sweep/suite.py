# SPDX-License-Identifier: MIT
"""The benchmark suite as a list of independent tasks: the one description
every runner reads (the sequential one of `make bench`, GNU parallel,
Slurm). Three variants: default (`make bench`), full (`make bench-full`:
longer lengths, more μ, the boundary to 2^25) and smoke (`make
bench-smoke`: every command on tiny sizes; its numbers mean nothing).

A task measures time when it says so (timing): a runner never lets two of
those share a machine. The others (accuracy, precision boundary,
simulate, programs, counting's agreement, the attention picture) measure
none, and a runner may run them side by side."""
import os

from .task import Step, Task

DEPTH4 = "(a S (b & X (c U Y a))) | G (b -> Y a)"
DEPTH6 = "G (a -> X (b U (c & Y (a S (b & X c)))))"
# issue-independent names of the counting rows: majority, Dyck-1 and a
# C-RASP program, at n = 2^10 ... 2^20
MAJORITY = "#<(a) > #<(b)"
DYCK1 = "H(#<(a) >= #<(b)) & #<(a) = #<(b)"
COUNT_PROGRAM = "tests/programs/count3.cr"
FORMULAS = "bench/formulas.txt"

VARIANTS = {
    "default": dict(
        lengths="64,256,1024,2048,4096", scales="1,2,4,8,16", bmax=65536, rep=3,
        long_auto="8192,16384,32768,65536,131072,262144", long_online="8192", long_isas="{ISAS}",
        acc_n="16,64,256,1024", big_n="4096,16384", mid_n="4096,8192", count_n="16,256,4096",
        sim_n="16,256,4096", n_depth6=65536, rep_t=7, rep_s=5, blong=1048576,
        paths_n4=4096, paths_n8=16384, growth_n="16384,262144", growth_big=1048576, rep_g=3,
        suite_n=4096, hf_n=4096, rep_ss=11, prog_n="256,1024,4096",
        count_scale=[2 ** k for k in range(10, 21)], fmax=4096, env={}),
    "full": dict(
        lengths="64,256,1024,2048,4096,8192,16384", scales="1,2,4,8,16,32", bmax=33554432,
        rep=5, long_auto="32768,65536,131072,262144,524288,1048576", long_online="32768",
        long_isas="{BEST}", fmax=65536),
    "smoke": dict(
        lengths="16,32,64", scales="1,4", bmax=64, rep=1, long_auto="128,256",
        long_online="128", acc_n="16,32", big_n="64,128", mid_n="32,64", count_n="16,64",
        sim_n="16,32", n_depth6=256, rep_t=1, rep_s=1, blong=1024, paths_n4=256, paths_n8=512,
        growth_n="64,1024", growth_big=4096, rep_g=1, suite_n=256, hf_n=256, rep_ss=1,
        prog_n="16,64", count_scale=[2 ** 10, 2 ** 11], fmax=64, tasks_quick=True,
        env={"HS_BENCH_MIN_TIME": "0.001", "HS_BENCH_REPS": "1", "HS_BENCH_MAX_N": "256",
             "HS_HYPERFINE_LENGTHS": "64", "HS_HYPERFINE_RUNS": "3",
             "HS_COMPARE_ROUNDS": "1", "HS_COMPARE_CONFIRM": "1"}),
}


def settings(variant):
    v = dict(VARIANTS["default"])
    v.update(VARIANTS[variant])
    return v


def slug(text):
    """A task ID's piece from a formula or a path."""
    out = "".join(c if c.isalnum() else "_" for c in text).strip("_")
    while "__" in out:
        out = out.replace("__", "_")
    return out[:40] or "x"


def bench(*args):
    """`hardsoft bench ARGS --csv {OUT}`, quiet."""
    return Step(["{HS}", "bench", *[str(a) for a in args], "--quiet", "--csv", "{OUT}"])


def formulas(*fs):
    return [w for f in fs for w in ("--formula", f)]


def limits():
    """The suite's time limits (seconds), from the environment."""
    e = os.environ
    return {"growth": float(e.get("HS_BENCH_GROWTH_LIMIT", 60)),
            "boundary": float(e.get("HS_BENCH_BOUNDARY_LIMIT", 600)),
            "count": float(e.get("HS_BENCH_COUNT_LIMIT", 10))}


def scaling_tasks(v):
    pe4 = ["--modes", "pe", "--scales", 4]
    return [
        Task("scaling", "scaling", "sweep-scaling.csv", True, [bench(
            *formulas("a S b", DEPTH4), *pe4, "--lengths", v["lengths"],
            "--isas", "{ISAS},numpy,torch,openblas,ort", "--skip", "auto,online",
            "--repeat", v["rep"], "--error-max-n", 0)]),
        Task("scaling-long-auto", "scaling", "sweep-scaling-long.csv", True, [bench(
            *formulas("a S b", DEPTH4), *pe4, "--lengths", v["long_auto"],
            "--isas", v["long_isas"], "--skip", "auto", "--repeat", 3, "--error-max-n", 0)]),
        Task("scaling-long-online", "scaling", "sweep-scaling-long.csv", True, [bench(
            *formulas("a S b", DEPTH4), *pe4, "--lengths", v["long_online"],
            "--isas", v["long_isas"], "--skip", "online", "--repeat", 3,
            "--error-max-n", 0)])]


def accuracy_tasks(v):
    last_n = v["acc_n"].split(",")[-1]
    return [
        Task("accuracy", "accuracy", "sweep-accuracy.csv", False, [bench(
            *formulas("a S b", "a U b", "Y a", DEPTH4), "--modes", "hard,pe,temp,fixed,rel",
            "--scales", v["scales"], "--lengths", v["acc_n"], "--isas", "{BEST}",
            "--repeat", 1)]),
        Task("suite", "suite", "sweep-suite.csv", True, [bench(
            "--formulas", FORMULAS, "--modes", "hard,pe,temp", "--scales", 4,
            "--lengths", last_n, "--isas", "{BEST}", "--precisions", "f32,f64",
            "--repeat", v["rep"])])]


def boundary_tasks(v):
    """The precision boundary: f16s/bf16s round the scores q.k, f16/bf16
    store Q, K, V; one task per formula, mode and μ."""
    out = []
    for f in ["a S b", "a U b", "Y a", "X a"]:
        for m in ["pe", "temp", "rel", "fixed"]:
            for mu in [4, 16]:
                steps = [Step(["{HS}", "boundary", f, "--mode", m, "--scale", str(mu),
                               "--precision", p, "--max-n", str(v["bmax"]), "--header"],
                              stdout=True)
                         for p in ["f64", "f32", "f16s", "bf16s", "f16", "bf16"]]
                out.append(Task(f"boundary-{slug(f)}-{m}-{mu}", "boundary", "boundary.csv",
                                False, steps))
    lim = limits()["boundary"]
    out.append(Task("boundary-long", "boundary-long", "boundary-long.csv", True, [Step(
        ["{HS}", "boundary", "H (a -> Y (b S c))", "--mode", "rel", "--scale", "4",
         "--precision", "bf16", "--max-n", str(v["blong"]), "--header", "--quiet"],
        stdout=True, limit=lim,
        stop=f"n = {v['blong']}: stopped by the suite after {lim:g} s (timeout; "
             "HS_BENCH_BOUNDARY_LIMIT)")],
        stopped="boundary-long-stopped.txt", wall={"limit": lim, "max_n": v["blong"]}))
    return out


def formula_list():
    with open(FORMULAS, encoding="utf-8") as f:
        return [l.strip() for l in f if l.strip() and not l.lstrip().startswith("#")]


def boundary_formula_tasks(v):
    """The precision boundary of every formula of bench/formulas.txt in
    rel, pe and temp, f16, bf16 and f32: one task a search, one thread
    each (the runners run them side by side)."""
    out = []
    for i, f in enumerate(formula_list()):
        for m in ["rel", "pe", "temp"]:
            for p in ["f16", "bf16", "f32"]:
                out.append(Task(f"bformulas-{i:02d}-{m}-{p}", "boundary-formulas",
                                "boundary-formulas.csv", False, [Step(
                                    ["{HS}", "boundary", f, "--mode", m, "--scale", "4",
                                     "--precision", p, "--max-n", str(v["fmax"]),
                                     "--threads", "1", "--header", "--quiet"],
                                    stdout=True)]))
    return out


def simulate_tasks(v):
    models = sorted(os.path.join("bench/models", f) for f in os.listdir("bench/models")
                    if f.endswith(".safetensors"))
    sim = lambda m: Step(["{HS}", "simulate", m, "--alphabet", "ab", "--lengths", v["sim_n"],
                          "--samples", "3", "--scale", "4", "--csv", "--header"],
                         stdout=True, ok=(0, 1))
    out = [Task(f"simulate-{slug(os.path.basename(m)[:-12])}", "simulate", "simulate.csv",
                False, [sim(m)]) for m in models]
    # models compiled in hard mode, whose unique-hard heads tie (Y a: every
    # score equal); simulate breaks those ties by position before it
    # chooses tau
    for name, f in [("Y-a", "Y a"), ("a-S-b", "a S b"), ("a-U-b", "a U b"),
                    ("depth4", DEPTH4)]:
        path = "{TMP}/compiled-" + name + ".safetensors"
        out.append(Task(f"simulate-compiled-{name}", "simulate", "simulate.csv", False, [
            Step(["{HS}", "compile", f, "--mode", "hard", "-o", path], collect=False),
            sim(path)]))
    return out


def counting_tasks(v):
    """Both sign methods against μ and n, every mode; mixed #< / #>
    (BOS-weighted counts over n + 1) without fixed, which refuses them."""
    out = []
    for sg in ["layernorm", "temp"]:
        common = ["--scales", "4,16", "--lengths", v["count_n"], "--isas", "{BEST}",
                  "--repeat", 1, "--error-max-n", 4096, "--sign", sg]
        out.append(Task(f"counting-{sg}", "counting", "sweep-counting.csv", False, [bench(
            *formulas("#<(a) > #<(b)", "#<(a) - 2*#<(b) >= 0 & Y c"),
            "--modes", "hard,pe,temp,fixed", *common)]))
        out.append(Task(f"counting-{sg}-mixed", "counting", "sweep-counting.csv", False,
                        [bench(*formulas("#<(a) > #>(b)"), "--modes", "hard,pe,temp",
                               *common)]))
    return out


def counting_scale_tasks(v):
    """Majority, Dyck-1 and a C-RASP program at n = 2^10 ... 2^20, pe and
    rel, f32: one invocation a length, each stopped after the count limit,
    and no larger n after a stopped one (their heads are quadratic until
    uniform heads run in linear time)."""
    lim = limits()["count"]
    out = []
    for what, src in [("majority", ["--formula", MAJORITY]), ("dyck1", ["--formula", DYCK1]),
                      ("count3", ["-f", COUNT_PROGRAM, "--lang", "crasp"])]:
        for m in ["pe", "rel"]:
            label = src[1]
            steps = [Step(["{HS}", "bench", *src, "--modes", m, "--scales", "4", "--lengths",
                           str(n), "--isas", "{BEST}", "--threads", "1", "--repeat", "1",
                           "--error-max-n", "0", "--quiet", "--csv", "{OUT}"], limit=lim,
                          stop=f"{label} {m} n = {n}: stopped by the suite after {lim:g} s "
                               "(timeout; HS_BENCH_COUNT_LIMIT); larger n not run")
                     for n in v["count_scale"]]
            out.append(Task(f"count-scale-{what}-{m}", "counting-scale",
                            "sweep-counting-scale.csv", True, steps,
                            stopped="sweep-counting-scale-stopped.txt"))
    return out


def timing_tasks(v):
    """The sweeps that compare times, each ratio inside one invocation."""
    out = [Task("rel", "rel", "sweep-rel.csv", True, [bench(
        *formulas("a S b", "a U b", DEPTH4), "--modes", "pe,rel", "--scales", 4,
        "--lengths", v["big_n"].split(",")[0], "--isas", "{BEST}", "--repeat", v["rep_s"],
        "--error-max-n", 0)])]
    # repeat 7: the two-thread medians move with whatever else runs on a
    # 2-core machine
    out.append(Task("threads", "threads", "sweep-threads.csv", True, [bench(
        *formulas("a S b", DEPTH4), "--modes", "pe", "--scales", 4, "--lengths", v["big_n"],
        "--isas", "{BEST}", "--threads", "1,2", "--repeat", v["rep_t"], "--error-max-n", 0)]))
    out.append(Task("skip", "skip", "sweep-skip.csv", True, [bench(
        *formulas("a S b", DEPTH4), "--modes", "pe", "--scales", "8,32", "--lengths",
        v["big_n"], "--isas", "{BEST}", "--skip", "auto,online,on,off", "--repeat",
        v["rep_s"], "--error-max-n", 0)]))
    for tag, mu, n in [("mu4", 4, v["paths_n4"]), ("mu8", 8, v["paths_n8"])]:
        out.append(Task(f"paths-{tag}", "paths", "sweep-paths.csv", True, [bench(
            *formulas("a S b", DEPTH4), "--modes", "pe", "--scales", mu, "--lengths", n,
            "--isas", "{ISAS}", "--threads", 1, "--skip", "auto,online", "--repeat",
            v["rep_s"], "--error-max-n", 0, "--phases")]))
    out.append(Task("skip-suite", "skip-suite", "sweep-skip-suite.csv", True, [bench(
        "--formulas", FORMULAS, "--modes", "pe", "--scales", 8, "--lengths", v["suite_n"],
        "--isas", "{BEST}", "--threads", 1, "--skip", "auto,online", "--repeat", v["rep_ss"],
        "--error-max-n", 0)]))
    return out + growth_tasks(v) + more_timing_tasks(v)


def growth_tasks(v):
    """a S b to n = 2^20: the run at the largest n alone, stopped after its
    limit (with skipping it takes about a second; were its heads to fall
    back to the dense kernel it would take minutes)."""
    lim = limits()["growth"]
    big = Step(["{HS}", "bench", "--formula", "a S b", "--modes", "pe", "--scales", "8",
                "--lengths", str(v["growth_big"]), "--isas", "{BEST}", "--threads", "1",
                "--repeat", "1", "--error-max-n", "0", "--quiet", "--csv", "{OUT}"],
               limit=lim, stop=f"n = {v['growth_big']}: stopped by the suite after {lim:g} s "
                               "(timeout; HS_BENCH_GROWTH_LIMIT)")
    return [Task("growth", "growth", "sweep-growth.csv", True, [bench(
        "--formula", "a S b", "--modes", "pe", "--scales", 8, "--lengths", v["growth_n"],
        "--isas", "{BEST}", "--threads", 1, "--repeat", v["rep_g"], "--error-max-n", 0)]),
            Task("growth-big", "growth", "sweep-growth.csv", True, [big],
                 stopped="sweep-growth-stopped.txt")]


def more_timing_tasks(v):
    return [
        Task("hardf64", "hardf64", "sweep-hardf64.csv", True, [bench(
            *formulas("a S b", DEPTH4), "--modes", "hard,pe", "--scales", 4, "--lengths",
            v["hf_n"], "--isas", "{BEST}", "--threads", 1, "--precisions", "f32,f64",
            "--repeat", v["rep_s"], "--error-max-n", 0)]),
        Task("isa", "isa", "sweep-isa.csv", True, [bench(
            *formulas("a S b", DEPTH4), "--modes", "pe", "--scales", 4, "--lengths",
            v["mid_n"], "--isas", "{WIDE}", "--repeat", v["rep_s"], "--error-max-n", 0,
            "--skip", "online")], needs="wide"),
        Task("depth6", "depth6", "sweep-depth6.csv", True, [bench(
            "--formula", DEPTH6, "--modes", "pe", "--scales", 4, "--lengths", v["n_depth6"],
            "--isas", "{BEST}", "--threads", 1, "--repeat", 1, "--error-max-n", 0)])]


def tool_tasks(v):
    """The kernel microbenchmarks, the kernel rows against this machine's
    last results, hyperfine, the attention picture, `hardsoft info`."""
    env = {"HS_BENCH_RESULTS": "{PART}", "BUILD": "{BUILD}", "PYTHON": "{PYTHON}"}
    return [
        Task("info", "info", "info.txt", False, [Step(["{HS}", "info"], stdout=True)],
             kind="file"),
        Task("kernels", "kernels", "kernels", True, [Step(["sh", "bench/run-kernels.sh"],
                                                          env=env)], kind="dir"),
        Task("compare-kernels", "compare-kernels", "kernels-compare", True,
             [Step(["sh", "bench/compare-kernels.sh"], env=env)], kind="dir"),
        Task("hyperfine", "hyperfine", "hyperfine.md", True, [Step(
            ["sh", "bench/hyperfine.sh", "{OUT}"], env={"BUILD": "{BUILD}"})],
            kind="file"),
        Task("attention", "attention", "attention-asb.png", False, [Step(
            ["{HS}", "attention", "a S b", "--mode", "pe", "--scales", "1,2,4,8",
             "aabcabbacabbbaacabbcaaab", "--png", "{OUT}"])], kind="file")]


def tasks_table_task(v):
    """The literature's tasks (examples/tasks/): class, model size,
    agreement with each task's reference function at n = 2^10 ... 2^20 in
    pe and rel, the f16/bf16 boundary and the time at 2^16, as tasks.csv
    and tasks.md (examples/tasks/table.py; --quick in the smoke run). Its
    agreement runs use every core; the time at 2^16 is one thread's."""
    quick = ["--quick"] if v.get("tasks_quick") else []
    return Task("tasks", "tasks", "tasks", True, [Step(
        ["{PYTHON}", "examples/tasks/table.py", "{PART}", *quick],
        env={"BUILD": "{BUILD}"})], kind="dir")


def programs_task(v):
    return Task("programs", "programs", "sweep-programs.csv", False, [bench(
        "-f", "tests/programs/dyck1.cr", "--lang", "crasp", "--modes", "hard,pe,temp",
        "--scales", 16, "--lengths", v["prog_n"], "--isas", "{BEST}", "--repeat", v["rep_s"])])


def tasks(variant="default"):
    """Every task of the suite, in the order the sequential runner runs them."""
    v = settings(variant)
    t = tool_tasks(v)
    return (t[:3] + scaling_tasks(v) + accuracy_tasks(v) + boundary_tasks(v)
            + simulate_tasks(v) + counting_tasks(v) + timing_tasks(v)
            + [programs_task(v)] + counting_scale_tasks(v) + boundary_formula_tasks(v)
            + [tasks_table_task(v)]
            + t[3:])


def env(variant):
    """The environment of every task."""
    return dict(settings(variant)["env"], OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                MKL_NUM_THREADS="1")
