#!/bin/sh
# SPDX-License-Identifier: MIT
# The whole benchmark suite behind `make bench`: kernel microbenchmarks,
# the forward-pass sweeps against the peers, the precision boundary,
# simulating hard models with softmax, hyperfine whole-process timings,
# then the machine's report and plots, and the report across machines
# (results/REPORT.md) and the README's quotation of it. Everything else goes
# into this machine's
# folder, results/machines/ID (ID from `hardsoft info`: vendor, family,
# model, stepping, widest ISA), which the run replaces when it ends; every
# other machine's folder stays as it is.
#
#   BUILD=build PYTHON=/usr/bin/python3 sh bench/run-suite.sh
#
# HS_BENCH_FULL=1 runs the long version (`make bench-full`): n to 16384 in
# the scaling sweep (65536 for the hardsoft rows), mu to 32, and the
# boundary search to n = 2^25. The default takes about eight minutes on
# a 2-core machine. HS_BENCH_SMOKE=1 (`make bench-smoke`, run by CI) runs
# every command on tiny sizes, so that none of them can break unnoticed;
# its numbers mean nothing, and it leaves README.md alone.
# HS_BENCH_GROWTH_LIMIT (seconds, default 60) stops the growth sweep's
# n = 2^20 run; the report then says it was stopped instead of its time.
# HS_BENCH_RESULTS (default results) is the folder that holds machines/.
set -eu
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
HS=$BUILD/hardsoft
FULL=${HS_BENCH_FULL:-0}
SMOKE=${HS_BENCH_SMOKE:-0}
ROOT=${HS_BENCH_RESULTS:-results}
id=$("$HS" info | sed -n 's/^machine id: //p')
[ -n "$id" ] || { echo "run-suite.sh: '$HS info' printed no machine id" >&2; exit 1; }
# the run writes into a folder of its own and replaces the machine's
# folder only when it has finished
DEST=$ROOT/machines/$id
OUT=$ROOT/machines/.$id.new
rm -rf "$OUT"
mkdir -p "$OUT"
export HS_BENCH_MACHINE=$id
# what bench/report reads the machine's ID and instruction sets from
"$HS" info > "$OUT/info.txt"
export PYTHON OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

# provenance: hardsoft writes into every CSV row the CPU, cores, memory,
# kernel, the flags and commit it was built with (+dirty) and the date
# (src/cli/provenance.c); the peers add their versions (column version).
# HARDSOFT_COMMIT / HARDSOFT_BUILD, if set, override the built-in ones.

isas=$("$HS" info | sed -n 's/^supported: //p' | tr ' ' ',')
best=$("$HS" info | sed -n 's/^chosen: \([a-z0-9]*\).*/\1/p')
t0=$(date +%s)
step() { echo "[$(( $(date +%s) - t0 ))s] $*"; }

# The smoke run's sizes: tiny kernels, one hyperfine length.
if [ "$SMOKE" = 1 ]; then
  export HS_BENCH_MIN_TIME=0.001 HS_BENCH_REPS=1 HS_BENCH_MAX_N=256
  export HS_HYPERFINE_LENGTHS=64 HS_HYPERFINE_RUNS=3
fi
step "kernel microbenchmarks"
HS_BENCH_RESULTS=$OUT BUILD=$BUILD PYTHON=$PYTHON sh bench/run-kernels.sh
step "kernel rows against the last published ones, side by side"
if [ "$SMOKE" = 1 ]; then export HS_COMPARE_ROUNDS=1 HS_COMPARE_CONFIRM=1; fi
HS_BENCH_RESULTS=$OUT BUILD=$BUILD PYTHON=$PYTHON sh bench/compare-kernels.sh

# The scaling sweep's lengths: the peers stop at the last of $lengths (they
# hold (n+1)^2 score matrices); hardsoft runs both of its paths there, the
# default (--skip auto) and the dense one (--skip online), then goes on
# alone: the default path to $long_auto, so that its growth exponent is
# fitted over >= 5 lengths and >= 2 decades from where it starts skipping,
# the dense path to $long_online.
if [ "$FULL" = 1 ]; then
  lengths=64,256,1024,2048,4096,8192,16384; scales=1,2,4,8,16,32; bmax=33554432; rep=5
  long_auto=32768,65536,131072,262144,524288,1048576; long_online=32768; long_isas=$best
elif [ "$SMOKE" = 1 ]; then
  lengths=16,32,64; scales=1,4; bmax=64; rep=1
  long_auto=128,256; long_online=128; long_isas=$isas
else
  # the boundary table has 192 rows (4 formulas x 4 modes x 2 mu x 6
  # precisions); to 2^16 they take ~45 s on the 2-core machine
  lengths=64,256,1024,2048,4096; scales=1,2,4,8,16; bmax=65536; rep=3
  long_auto=8192,16384,32768,65536,131072,262144; long_online=8192; long_isas=$isas
fi
# Lengths of the sweeps after the scaling one (the last of acc_n is the
# suite sweep's).
if [ "$SMOKE" = 1 ]; then
  acc_n=16,32; big_n=64,128; mid_n=32,64; count_n=16,64; sim_n=16,32
  n_depth6=256; rep_t=1; rep_s=1
else
  acc_n=16,64,256,1024; big_n=4096,16384; mid_n=4096,8192; count_n=16,256,4096
  sim_n=16,256,4096; n_depth6=65536; rep_t=7; rep_s=5
fi
depth4='(a S (b & X (c U Y a))) | G (b -> Y a)'

step "scaling sweep: a S b and a depth-4 formula, pe mu=4, hardsoft's two paths and the peers"
"$HS" bench --formula 'a S b' --formula "$depth4" --modes pe --scales 4 \
  --lengths "$lengths" --isas "$isas,numpy,torch,openblas,ort" --skip auto,online \
  --repeat $rep --error-max-n 0 --csv "$OUT/sweep-scaling.csv"
step "scaling sweep, longer lengths: hardsoft's ISAs ($long_isas) alone, default path to n = $long_auto, dense to $long_online"
tmp="$OUT/sweep-scaling-long.csv.tmp"
"$HS" bench --formula 'a S b' --formula "$depth4" --modes pe --scales 4 \
  --lengths "$long_auto" --isas "$long_isas" --skip auto --repeat 3 --error-max-n 0 \
  --csv "$tmp"
"$HS" bench --formula 'a S b' --formula "$depth4" --modes pe --scales 4 \
  --lengths "$long_online" --isas "$long_isas" --skip online --repeat 3 --error-max-n 0 \
  --csv "$tmp.online"
tail -n +2 "$tmp.online" >> "$tmp"
rm -f "$tmp.online"
mv "$tmp" "$OUT/sweep-scaling-long.csv"

step "accuracy sweep: agreement and attention error against mu, every mode"
"$HS" bench --formula 'a S b' --formula 'a U b' --formula 'Y a' --formula "$depth4" \
  --modes hard,pe,temp,fixed,rel --scales "$scales" --lengths $acc_n \
  --isas "$best" --repeat 1 --csv "$OUT/sweep-accuracy.csv"

step "suite sweep: every formula of bench/formulas.txt, f32 and f64"
"$HS" bench --formulas bench/formulas.txt --modes hard,pe,temp --scales 4 \
  --lengths $(echo $acc_n | sed 's/.*,//') --isas "$best" --precisions f32,f64 --repeat $rep \
  --csv "$OUT/sweep-suite.csv"

step "precision boundary (largest exact n on adversarial strings, up to $bmax)"
tmp="$OUT/boundary.csv.tmp"
first=--header
: > "$tmp"
# precisions: f16s/bf16s round the scores q.k, f16/bf16 store Q, K, V
for f in 'a S b' 'a U b' 'Y a' 'X a'; do
  for m in pe temp rel fixed; do
    for mu in 4 16; do
      for p in f64 f32 f16s bf16s f16 bf16; do
        "$HS" boundary "$f" --mode $m --scale $mu --precision $p --max-n $bmax $first >> "$tmp"
        first=
      done
    done
  done
done
mv "$tmp" "$OUT/boundary.csv"

# The long rel boundary: one search to n = 2^20 in bf16, timed whole (its
# target: two minutes); HS_BENCH_BOUNDARY_LIMIT (seconds, default 600)
# stops it, and the report then says so instead of its time.
if [ "$SMOKE" = 1 ]; then blong=1024; else blong=1048576; fi
blong_limit=${HS_BENCH_BOUNDARY_LIMIT:-600}
step "rel boundary in bf16 to n = $blong, timed (at most $blong_limit s)"
tmp="$OUT/boundary-long.csv.tmp"
rm -f "$OUT/boundary-long-stopped.txt"
s0=$(date +%s.%N)
if timeout "$blong_limit" "$HS" boundary 'H (a -> Y (b S c))' --mode rel --scale 4 \
  --precision bf16 --max-n $blong --header --quiet > "$tmp"; then
  s1=$(date +%s.%N)
  # the command's own row, then its wall time, the limit and --max-n
  awk -v s0="$s0" -v s1="$s1" -v lim="$blong_limit" -v nmax="$blong" \
    'NR == 1 {print $0 ",wall_s,limit_s,max_n"; next}
     {printf "%s,%.3f,%s,%s\n", $0, s1 - s0, lim, nmax}' \
    "$tmp" > "$OUT/boundary-long.csv"
else
  rc=$?
  [ $rc = 124 ] || exit $rc
  rm -f "$OUT/boundary-long.csv"
  echo "n = $blong: stopped by the suite after $blong_limit s (timeout; HS_BENCH_BOUNDARY_LIMIT)" \
    > "$OUT/boundary-long-stopped.txt"
fi
rm -f "$tmp"

step "rel beside pe: forward-pass time at n = 4096 (target: within 10%)"
"$HS" bench --formula 'a S b' --formula 'a U b' --formula "$depth4" --modes pe,rel \
  --scales 4 --lengths ${big_n%%,*} --isas "$best" --repeat $rep_s --error-max-n 0 \
  --csv "$OUT/sweep-rel.csv"

step "simulating hard models: softmax at tau = gamma/(mu + ln(n+1)) against the hard run"
# bench/models (hand-written hard models) and models compiled in hard mode,
# whose unique-hard heads tie (Y a: every score equal); simulate breaks
# those ties by position before it chooses tau
tmp="$OUT/simulate.csv.tmp"
first=--header
: > "$tmp"
hm=$(mktemp -d)
"$HS" compile 'Y a' --mode hard -o "$hm/compiled-Y-a.safetensors"
"$HS" compile 'a S b' --mode hard -o "$hm/compiled-a-S-b.safetensors"
"$HS" compile 'a U b' --mode hard -o "$hm/compiled-a-U-b.safetensors"
"$HS" compile "$depth4" --mode hard -o "$hm/compiled-depth4.safetensors"
for m in bench/models/*.safetensors "$hm"/*.safetensors; do
  "$HS" simulate "$m" --alphabet ab --lengths $sim_n --samples 3 --scale 4 --csv $first >> "$tmp" || [ $? = 1 ]
  first=
done
rm -rf "$hm"
mv "$tmp" "$OUT/simulate.csv"

step "counting: both sign methods against mu and n, every mode"
tmp="$OUT/sweep-counting.csv.tmp"
for sg in layernorm temp; do
  "$HS" bench --formula '#<(a) > #<(b)' --formula '#<(a) - 2*#<(b) >= 0 & Y c' \
    --modes hard,pe,temp,fixed --scales 4,16 --lengths $count_n --isas "$best" \
    --repeat 1 --error-max-n 4096 --sign $sg --csv "$tmp.$sg"
  # mixed #< / #> (BOS-weighted counts over n + 1): fixed refuses them
  "$HS" bench --formula '#<(a) > #>(b)' \
    --modes hard,pe,temp --scales 4,16 --lengths $count_n --isas "$best" \
    --repeat 1 --error-max-n 4096 --sign $sg --csv "$tmp.$sg.mixed"
done
{ cat "$tmp.layernorm"; for f in "$tmp.layernorm.mixed" "$tmp.temp" "$tmp.temp.mixed"; do
    tail -n +2 "$f"; done; } > "$tmp"
rm -f "$tmp.layernorm" "$tmp.temp" "$tmp.layernorm.mixed" "$tmp.temp.mixed"
mv "$tmp" "$OUT/sweep-counting.csv"

# repeat 7: the two-thread medians move with whatever else runs on a
# 2-core machine
step "threads: one against two"
"$HS" bench --formula 'a S b' --formula "$depth4" --modes pe --scales 4 \
  --lengths $big_n --isas "$best" --threads 1,2 --repeat $rep_t --error-max-n 0 \
  --csv "$OUT/sweep-threads.csv"

step "exact skipping of underflowed key tiles: auto (the default), online, on, off"
"$HS" bench --formula 'a S b' --formula "$depth4" --modes pe --scales 8,32 \
  --lengths $big_n --isas "$best" --skip auto,online,on,off --repeat $rep_s --error-max-n 0 \
  --csv "$OUT/sweep-skip.csv"

# The default path beside the dense one on every ISA, at the two settings
# the targets name (n = 4096 at mu = 4, n = 16384 at mu = 8), one
# invocation per setting; with a hardsoft that has `bench --phases` (asked
# of its --help), each row also carries the time of each phase.
if "$HS" bench --help 2>&1 | grep -q -e '--phases'; then phases=--phases; else phases=; fi
if [ "$SMOKE" = 1 ]; then paths_n4=256; paths_n8=512; else paths_n4=4096; paths_n8=16384; fi
step "default and dense path per ISA, n = $paths_n4 (mu 4) and $paths_n8 (mu 8)${phases:+, time by phase}"
tmp="$OUT/sweep-paths.csv.tmp"
"$HS" bench --formula 'a S b' --formula "$depth4" --modes pe --scales 4 --lengths $paths_n4 \
  --isas "$isas" --threads 1 --skip auto,online --repeat $rep_s --error-max-n 0 $phases \
  --csv "$tmp"
"$HS" bench --formula 'a S b' --formula "$depth4" --modes pe --scales 8 --lengths $paths_n8 \
  --isas "$isas" --threads 1 --skip auto,online --repeat $rep_s --error-max-n 0 $phases \
  --csv "$tmp.mu8"
tail -n +2 "$tmp.mu8" >> "$tmp"
rm -f "$tmp.mu8"
mv "$tmp" "$OUT/sweep-paths.csv"

# Each ratio below from one invocation on one thread of the best ISA. The
# suite at n = 4096: no formula slower under auto than online by more
# than 5%.
if [ "$SMOKE" = 1 ]; then
  growth_n=64,1024; growth_big=4096; rep_g=1; suite_n=256; hf_n=256; rep_ss=1
else
  # repeat 11 on the suite: its target is a 5% margin
  growth_n=16384,262144; growth_big=1048576; rep_g=3; suite_n=4096; hf_n=4096; rep_ss=11
fi
# a guard on the n = 2^20 run (its warm-up plus one timed run): with
# skipping it takes about a second; were its heads to fall back to the
# dense online kernel it would take minutes. A stopped run leaves its
# /tmp/hardsoft-bench-* directory (the model and the 1 MB string) behind:
# bench has no signal handler to remove it.
growth_limit=${HS_BENCH_GROWTH_LIMIT:-60}
step "skipping on every formula of bench/formulas.txt: auto against online, n = $suite_n"
"$HS" bench --formulas bench/formulas.txt --modes pe --scales 8 --lengths $suite_n \
  --isas "$best" --threads 1 --skip auto,online --repeat $rep_ss --error-max-n 0 \
  --csv "$OUT/sweep-skip-suite.csv"

step "growth: a S b, pe mu=8, n = $growth_n, then n = $growth_big alone (at most $growth_limit s)"
tmp="$OUT/sweep-growth.csv.tmp"
"$HS" bench --formula 'a S b' --modes pe --scales 8 --lengths $growth_n \
  --isas "$best" --threads 1 --repeat $rep_g --error-max-n 0 --csv "$tmp"
rm -f "$OUT/sweep-growth-stopped.txt"
if timeout "$growth_limit" "$HS" bench --formula 'a S b' --modes pe --scales 8 --lengths $growth_big \
  --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --csv "$tmp.big"; then
  tail -n +2 "$tmp.big" >> "$tmp"
else
  rc=$?
  [ $rc = 124 ] || exit $rc
  # bench/report quotes this line where the row would be
  echo "n = $growth_big: stopped by the suite after $growth_limit s (timeout; HS_BENCH_GROWTH_LIMIT)" \
    > "$OUT/sweep-growth-stopped.txt"
fi
rm -f "$tmp.big" "$tmp.big.tmp"
mv "$tmp" "$OUT/sweep-growth.csv"

step "hard beside pe, f64 beside f32: a S b and the depth-4 formula, n = $hf_n"
"$HS" bench --formula 'a S b' --formula "$depth4" --modes hard,pe --scales 4 \
  --lengths $hf_n --isas "$best" --threads 1 --precisions f32,f64 --repeat $rep_s \
  --error-max-n 0 --csv "$OUT/sweep-hardf64.csv"

# the wide ISAs this CPU runs, for the AVX-512 against AVX2 comparison
wide=$(echo "$isas" | tr ',' '\n' | grep '^avx' | paste -sd, -)
if [ -n "$wide" ]; then
  step "AVX-512 against AVX2 on the dense (online) path, n >= 4096"
  "$HS" bench --formula 'a S b' --formula "$depth4" --modes pe --scales 4 \
    --lengths $mid_n --isas "$wide" --repeat $rep_s --error-max-n 0 --skip online \
    --csv "$OUT/sweep-isa.csv"
fi

depth6='G (a -> X (b U (c & Y (a S (b & X c)))))'
step "a depth-6 formula at n = $n_depth6 on one core: time and peak memory"
"$HS" bench --formula "$depth6" --modes pe --scales 4 --lengths $n_depth6 \
  --isas "$best" --threads 1 --repeat 1 --error-max-n 0 \
  --csv "$OUT/sweep-depth6.csv"

if [ "$SMOKE" = 1 ]; then prog_n=16,64; else prog_n=256,1024,4096; fi
step "programs: the C-RASP Dyck-1 program compiled in hard, pe and temp"
"$HS" bench -f tests/programs/dyck1.cr --lang crasp --modes hard,pe,temp --scales 16 \
  --lengths $prog_n --isas "$best" --repeat $rep_s --csv "$OUT/sweep-programs.csv"

step "hyperfine: whole hardsoft eval runs, scalar against AVX2 against AVX-512"
BUILD=$BUILD sh bench/hyperfine.sh "$OUT/hyperfine.md"

step "a picture of attention: a S b at mu = 1, 2, 4, 8 (softmax sharpening into hard)"
"$HS" attention 'a S b' --mode pe --scales 1,2,4,8 aabcabbacabbbaacabbcaaab --png "$OUT/attention-asb.png"

# the files other targets write into the folder (make bench-web) stay
for f in web-wasm.csv web-wasm.md; do
  [ ! -f "$DEST/$f" ] || cp "$DEST/$f" "$OUT/$f"
done
rm -rf "$DEST.old"
[ ! -d "$DEST" ] || mv "$DEST" "$DEST.old"
mv "$OUT" "$DEST"
rm -rf "$DEST.old"
OUT=$DEST

step "report and plots"
"$PYTHON" bench/report "$OUT" --build "$BUILD"
step "the report across machines: $ROOT/REPORT.md"
"$PYTHON" bench/report "$ROOT" --machines --build "$BUILD"

if [ "$SMOKE" = 1 ]; then
  step "done (smoke run: $OUT/REPORT.md and $ROOT/REPORT.md, README.md left alone)"
else
  "$PYTHON" bench/readme-results.py "$ROOT" README.md
  step "done: $OUT/REPORT.md, $ROOT/REPORT.md, README.md results section"
fi
