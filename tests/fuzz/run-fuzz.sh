#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs libFuzzer targets (called by `make fuzz`; see tests/fuzz/README.md).
# Usage: BUILD=build FUZZ_SECONDS=60 [FUZZ_PARALLEL=1] sh tests/fuzz/run-fuzz.sh parse model input
# Each target runs for FUZZ_SECONDS on $BUILD/fuzz/corpus-<target> (seeded
# from tests/fuzz/corpus-<target>; the committed seeds are never modified),
# crash inputs go to $BUILD/fuzz/artifacts/, logs to $BUILD/fuzz/log-<target>.
# Exit 1 if any target found a crash, leak, timeout or out-of-memory.
BUILD=${BUILD:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
D=$BUILD/fuzz
mkdir -p "$D/artifacts"

maxlen() {
  case "$1" in
    parse) echo 4096;;
    model) echo 65536;;
    input) echo 4096;;
    *) echo 4096;;
  esac
}

run_one() {
  t=$1
  mkdir -p "$D/corpus-$t"
  [ -d "tests/fuzz/corpus-$t" ] && cp -p tests/fuzz/corpus-"$t"/* "$D/corpus-$t/" 2>/dev/null
  "$D/fuzz-$t" -max_total_time="$FUZZ_SECONDS" -max_len="$(maxlen "$t")" \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$D/artifacts/fuzz-$t-" "$D/corpus-$t" \
    >"$D/log-$t" 2>&1
  echo $? >"$D/rc-$t"
}

for t in "$@"; do
  [ -x "$D/fuzz-$t" ] || { echo "run-fuzz: $D/fuzz-$t missing (make fuzz-build)"; exit 1; }
  rm -f "$D/rc-$t"
  if [ "${FUZZ_PARALLEL:-0}" = 1 ]; then run_one "$t" & else run_one "$t"; fi
done
wait

bad=0
for t in "$@"; do
  rc=$(cat "$D/rc-$t" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$D/log-$t" | tail -1)
  secs=$(sed -n 's/.*Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$D/log-$t" | tail -1)
  cov=$(grep -E '^#[0-9]+' "$D/log-$t" | tail -1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  found=$(grep -E '^(==[0-9]+==ERROR|SUMMARY|hs-fuzz:|.*runtime error:)|Test unit written to' "$D/log-$t" | head -5)
  if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
    bad=1
    echo "fuzz-$t: FOUND A PROBLEM after ${execs:-?} executions (exit $rc); see $D/log-$t"
    printf '%s\n' "$found" | sed 's/^/  /'
  else
    echo "fuzz-$t: ${execs:-?} executions in ${secs:-?} s, coverage ${cov:-?}, nothing found"
  fi
done
exit $bad
