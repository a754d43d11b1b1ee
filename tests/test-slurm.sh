#!/bin/sh
# SPDX-License-Identifier: MIT
# The sweep on Slurm, end to end (make check-slurm; .ci/run calls it): a
# one-node cluster on 127.0.0.1 from Debian's munge, slurmctld and slurmd
# in a temporary folder (bench/slurm/local-cluster.sh, stopped at the end);
# the smoke sweep submitted as job arrays with a dependent merge job
# (bench/slurm/submit.sh); the same plan run by the sequential runner. It
# checks that Slurm ran every task, that no timing task ran while any
# other task did (--exclusive), and that the two merged folders hold the
# same CSVs row for row in every column that measures no time. Left out of
# the sweep: the kernel microbenchmarks and the kernel comparison (JSON
# only, and the comparison builds another commit: minutes), which
# make bench-smoke runs.
set -u
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
cd "$(dirname "$0")/.." || exit 1
if [ "$(id -u)" != 0 ]; then
  echo "SKIP slurm: needs root (munged and slurmd of the one-node cluster)"; exit 0
fi
export PATH=$PATH:/usr/sbin
for p in munged slurmctld slurmd sbatch parallel; do
  command -v $p >/dev/null ||
    { echo "FAIL slurm: no $p (make check-slurm installs munge slurmctld slurmd slurm-client parallel)"; exit 1; }
done
t=$(mktemp -d)
trap 'sh bench/slurm/local-cluster.sh stop "$t/cluster"; rm -rf "$t"' EXIT
fail=0
skip=kernels,compare-kernels
sh bench/slurm/local-cluster.sh start "$t/cluster" || { echo "FAIL slurm: the cluster did not start"; exit 1; }
export SLURM_CONF=$t/cluster/slurm.conf
if ! BUILD=$BUILD PYTHON=$PY sh bench/slurm/submit.sh --variant smoke --skip $skip \
    --run "$t/run-slurm" --results "$t/slurm" --wait >"$t/submit.log" 2>&1; then
  echo "FAIL slurm: the jobs did not all complete:"; tail -5 "$t/submit.log"
  for f in "$t"/run-slurm/logs/slurm-*.out; do [ -s "$f" ] && tail -3 "$f"; done | tail -20
  exit 1
fi
"$PY" bench/sweep plan "$t/run-seq" --variant smoke --skip $skip --build "$BUILD" --python "$PY" >/dev/null &&
  "$PY" bench/sweep run "$t/run-seq" >"$t/seq.log" 2>&1 &&
  "$PY" bench/sweep merge "$t/run-seq" "$t/seq" >/dev/null ||
  { echo "FAIL slurm: the sequential runner:"; tail -5 "$t/seq.log"; exit 1; }
id=$("$BUILD/hardsoft" info | sed -n 's/^machine id: //p')
"$PY" - "$t/run-slurm" <<'EOF' || fail=1
import glob, json, sys
st = [json.load(open(f)) for f in glob.glob(sys.argv[1] + "/status/*.json")]
with open(sys.argv[1] + "/plan.json") as f:
    planned = {t["id"] for t in json.load(f)["tasks"]}
bad = sorted(s["id"] for s in st if s["runner"] != "slurm" or not s["ok"])
if {s["id"] for s in st} != planned or bad:
    sys.exit(f"FAIL slurm: tasks not run by Slurm: {bad or sorted(planned - {s['id'] for s in st})}")
timing = [s for s in st if s["timing"]]
shared = [(a["id"], b["id"]) for a in timing for b in st if a is not b
          and a["start"] < b["end"] and b["start"] < a["end"]]
if shared:
    sys.exit(f"FAIL slurm: timing tasks shared the machine: {shared[:3]}")
print(f"slurm: {len(st)} tasks run by Slurm ({len(timing)} timing, each alone)")
EOF
[ -f "$t/slurm/REPORT.md" ] && [ -f "$t/slurm/machines/$id/REPORT.md" ] ||
  { echo "FAIL slurm: the merge job wrote no report"; fail=1; }
diffs=$("$PY" bench/sweep compare "$t/seq/machines/$id" "$t/slurm/machines/$id") ||
  { echo "FAIL slurm: the merged CSVs differ from the sequential runner's:"; echo "$diffs" | head; fail=1; }
n=$(ls "$t/slurm/machines/$id"/*.csv | wc -l)
[ $fail = 1 ] || echo "slurm: $n merged CSVs equal to the sequential runner's in every non-timing column"
exit $fail
