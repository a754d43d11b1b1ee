#!/bin/sh
# SPDX-License-Identifier: MIT
# hardsoft bench refuses bad input with one line "hardsoft: error: ...",
# exit 2, nothing on standard output and no CSV or Markdown file left
# behind: every option's bad values, lists too long, a formula file that
# is missing or too long, a formula its mode refuses, a peer that fails or
# prints a malformed report (stand-in peers through HARDSOFT_PEERS), and
# an output that cannot be written. A good run of the same options writes
# its rows, so each error comes from the value named.
set -u
HS=${BUILD:-build}/hardsoft
PY=${PYTHON:-/usr/bin/python3}
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. tests/lib/expect.sh
ok="--formula a --modes pe --lengths 8 --isas scalar --repeat 1 --quiet"

# the options as given here run: a header and one row
# shellcheck disable=SC2086
"$HS" bench $ok --csv "$t/good.csv" || { echo "FAIL bench $ok"; fail=1; }
[ "$(wc -l <"$t/good.csv" 2>/dev/null)" = 2 ] || { echo "FAIL bench $ok: no row"; fail=1; }

bad() { # bad NAME PATTERN ARGS...: the ARGS after $ok, refused, nothing written
  name=$1 pat=$2; shift 2
  # shellcheck disable=SC2086
  expect_err "bench $name" "^hardsoft: error: .*$pat" "$HS" bench $ok "$@" --csv "$t/x.csv" --md "$t/x.md"
  for f in x.csv x.csv.tmp x.md x.md.tmp; do
    [ -e "$t/$f" ] && { echo "FAIL bench $name: left $f"; fail=1; rm -f "$t/$f"; }
  done
}
long=$(awk 'BEGIN { for (i = 0; i < 600; i++) printf "pe,"; print "pe" }')
many=$(awk 'BEGIN { for (i = 0; i < 65; i++) printf "%d,", i + 1; print 1 }')
bad "empty list" "--modes: bad list ''" --modes ""
bad "list too long" "--modes: bad list" --modes "$long"
bad "too many lengths" "--lengths: at most 64 values" --lengths "$many"
bad "too many precisions" "--precisions: at most 2 values" --precisions f32,f64,f32
bad "too many skips" "--skip: at most 4 values" --skip on,off,auto,online,rows
bad "bad mode" "--modes: 'warm' is not a mode (hard, pe, temp, fixed, rel)" --modes pe,warm
bad "mode truth" "--modes: 'truth' is not a mode" --modes truth
bad "negative scale" "--scales expects a number above 0 (each scale mu of the list), got '-1'" --scales 4,-1
bad "zero scale" "--scales expects a number above 0 (each scale mu of the list), got '0'" --scales 0
bad "nan scale" "--scales expects a number above 0 (each scale mu of the list), got 'nan'" --scales nan
bad "inf scale" "--scales expects a number above 0 (each scale mu of the list), got 'inf'" --scales inf
bad "bad length" "--lengths expects a whole number from 1 to 4294967296 (each length of the list), got 'x'" --lengths 8,x
bad "negative length" "--lengths expects a whole number from 1 to 4294967296 (each length of the list), got '-1'" --lengths -1
bad "huge length" "--lengths expects a whole number from 1 to 4294967296 (each length of the list), got '4294967297'" --lengths 4294967297
bad "length with suffix" "--lengths expects a whole number from 1 to 4294967296 (each length of the list), got '8k'" --lengths 8k
bad "zero threads" "--threads expects a whole number from 1 to 256 (threads), got '0'" --threads 0
bad "too many threads" "--threads expects a whole number from 1 to 256 (threads), got '257'" --threads 1,257
bad "bad isa" "--isas: 'sse9' is not scalar, avx2, avx512, wasm128, neon, torch, numpy, openblas or ort" --isas scalar,sse9
bad "bad precision" "--precisions: 'f16' is not f32 or f64" --precisions f16
bad "bad skip" "--skip: 'maybe' is not auto, online, on, off, rows or tiles" --skip maybe
bad "repeat 0" "--repeat expects a whole number from 1 to 1000 (timed runs per point), got '0'" --repeat 0
bad "repeat 1001" "--repeat expects a whole number from 1 to 1000 (timed runs per point), got '1001'" --repeat 1001
bad "repeat x" "--repeat expects a whole number from 1 to 1000 (timed runs per point), got 'x'" --repeat x
bad "error-max-n" "--error-max-n expects a whole number from 0 to 4294967296 (the longest n whose error is measured), got 'x'" --error-max-n x
bad "seed" "--seed expects a whole number from 0 to 18446744073709551615 (the random seed), got '-3'" --seed -3
bad "sign" "--sign 'cold' is not layernorm or temp" --sign cold
bad "lang" "--lang 'python' is not a language (expected ltl, crasp or brasp)" --lang python
bad "unknown option" "bench: unknown option '--frob' (see 'hardsoft bench --help')" --frob
# shellcheck disable=SC2086
expect_err "bench no value" "^hardsoft: error: --csv needs a value$" "$HS" bench $ok --csv
bad "repeat empty" "--repeat expects a whole number from 1 to 1000 (timed runs per point), got ''" --repeat ""
# an ISA this CPU lacks: named as such (wasm128, which only the WebAssembly
# build runs, when the CPU has both AVX ones)
lacks=wasm128
for isa in avx2 avx512; do "$HS" info | grep -Eq "^supported:.* $isa( |$)" || lacks=$isa; done
bad "isa the CPU lacks" "--isas: this CPU cannot run $lacks" --isas "$lacks"
# more formulas than a sweep takes, on the command line and in a file
set -- ; for _ in $(seq 65); do set -- "$@" --formula a; done
bad "65 formulas" "--formula: at most 64" "$@"
set -- ; for _ in $(seq 65); do set -- "$@" -f tests/programs/dyck1.cr; done
bad "65 files" "-f: at most 64" "$@"
seq 65 | sed 's/.*/a/' >"$t/f65.txt"
expect_err "bench 65 formulas in a file" "f65.txt:65: at most 64 formulas" \
  "$HS" bench --formulas "$t/f65.txt" --modes pe --lengths 8 --isas scalar --repeat 1 --quiet
expect_err "bench missing formula file" "nope.txt: No such file or directory" \
  "$HS" bench --formulas "$t/nope.txt" --modes pe --lengths 8 --isas scalar --repeat 1 --quiet
# a formula that does not parse, one its mode refuses, a missing program
bad "formula" "unexpected end of formula at column 4" --formula 'a &'
bad "fixed refuses" "#<(a) > #>(b): .*mixing #< and #> are not available in mode fixed" \
  --formula '#<(a) > #>(b)' --modes fixed
bad "missing program" "nope.cr" -f "$t/nope.cr"

# peers: stand-ins for bench/peers/forward.py that fail or misreport
peer() { # peer DIR BODY: DIR/forward.py runs BODY (python)
  mkdir -p "$t/$1"; printf 'import sys\n%s\n' "$2" >"$t/$1/forward.py"
}
peer exits 'sys.exit(1)'
peer silent 'pass'
peer notjson 'print("seconds: 1")'
peer nosecs 'print("{\"bits\": \"00000000\", \"peak_bytes\": 1}")'
peer nobits 'print("{\"seconds\": [0.1], \"peak_bytes\": 1}")'
peer shortbits 'print("{\"seconds\": [0.1], \"peak_bytes\": 1, \"bits\": \"0101\"}")'
peer emptysecs 'print("{\"seconds\": [], \"peak_bytes\": 1, \"bits\": \"00000000\"}")'
peer good 'print("{\"seconds\": [0.1], \"peak_bytes\": 1, \"bits\": \"00000000\", \"version\": \"stand-in 1\"}")'
for d in exits silent; do
  HARDSOFT_PEERS="$t/$d" PYTHON="$PY" bad "peer $d" "bench: peer numpy failed (command: " --isas scalar,numpy
done
for d in notjson nosecs nobits shortbits emptysecs; do
  HARDSOFT_PEERS="$t/$d" PYTHON="$PY" bad "peer $d" "bench: peer numpy printed a malformed report" --isas numpy
done
printf 'process.exit(3);\n' >"$t/fail.js"
printf 'console.log("not json");\n' >"$t/junk.js"
HARDSOFT_ORT_RUN="$t/fail.js" bad "peer ort" "bench: peer ort failed (command: node " --isas ort
HARDSOFT_ORT_RUN="$t/junk.js" bad "peer ort junk" "bench: peer ort printed a malformed report" --isas ort
# the stand-in that reports well gives a row (so the errors above are the reports')
# shellcheck disable=SC2086
HARDSOFT_PEERS="$t/good" PYTHON="$PY" "$HS" bench $ok --isas numpy --csv "$t/peer.csv" &&
  grep -q '^"a",pe,4,numpy,f32,1,8,.*"stand-in 1"' "$t/peer.csv" ||
  { echo "FAIL bench with a stand-in peer: $(cat "$t/peer.csv" 2>/dev/null)"; fail=1; }

# outputs that cannot be written
# shellcheck disable=SC2086
expect_err "bench csv in a missing directory" "nodir/x.csv" "$HS" bench $ok --csv "$t/nodir/x.csv"
# shellcheck disable=SC2086
expect_err "bench md in a missing directory" "nodir/x.md" "$HS" bench $ok --csv "$t/y.csv" --md "$t/nodir/x.md"
[ -e "$t/y.csv" ] || [ -e "$t/y.csv.tmp" ] && { echo "FAIL: a refused md left y.csv"; fail=1; }
mkdir "$t/isdir"
# shellcheck disable=SC2086
expect_err "bench csv onto a directory" "isdir: Is a directory" "$HS" bench $ok --csv "$t/isdir"
[ -e "$t/isdir.tmp" ] && { echo "FAIL: a failed rename left isdir.tmp"; fail=1; }
[ $fail = 0 ] && echo "test-bench: ok"
exit $fail
