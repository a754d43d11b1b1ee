#!/bin/sh
# SPDX-License-Identifier: MIT
# hardsoft simulate: output lines, exit codes 0/1/2 and one-line errors, on
# the example models of bench/models and on a compiled hard model whose
# unique-hard head is tied (simulated after its ties are broken).
# Run from the repository root with BUILD set (tests/run.sh does).
set -u
HS=${BUILD:-build}/hardsoft
M=bench/models
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

expect_rc() { # expect_rc NAME WANT_RC CMD...: stdout into $t/out, stderr into $t/err
  name=$1 want_rc=$2; shift 2
  "$@" >"$t/out" 2>"$t/err"; rc=$?
  if [ "$rc" != "$want_rc" ]; then
    echo "FAIL $name: exit $rc, want $want_rc ($(head -1 "$t/err"))"; fail=1; return 1; fi
  return 0
}
has() { # has NAME PATTERN: $t/out has a line matching
  grep -q -- "$2" "$t/out" || { echo "FAIL $1: no line matching '$2' in:"; cat "$t/out"; fail=1; }
}
. tests/lib/expect.sh

# every example model simulates: exit 0, the classification and the law
if expect_rc "majority" 0 "$HS" simulate $M/majority.safetensors abba aab baab aaaaabbbbb; then
  has majority "^model: $M/majority.safetensors (d = 7, 2 layer(s), 2 head(s): 2 hard, 0 softmax)"
  has majority "^strings: 4 (longest n = 10); positions: 21;"
  has majority "layer 0 head 0 hard_avg, mask le: uniform"
  has majority "layer 1 head 0 hard_avg, mask le: tied, smallest gap 0.0454545 (average-hard"
  has majority "^gamma: 0.0454545 "
  has majority "^temperature: tau = gamma / (mu + ln(n+1)) = 0.0454545 / (4 + ln 11) = "
  has majority "e^(-mu) = 0.0183 per head"
  has majority "^layer 0: max |softmax - hard| = 0$"
  has majority "^layer 1: max |softmax - hard| = "
  has majority "^decisions: 21/21 agree$"
  [ -s "$t/err" ] && { echo "FAIL majority: warned: $(cat "$t/err")"; fail=1; }
fi
if expect_rc "first-equals-last" 0 "$HS" simulate $M/first-equals-last.safetensors --scale 8 abba ba; then
  has first-equals-last "layer 0 head 0 hard_left, mask le: tieless, smallest gap 1$"
  has first-equals-last "= 1 / (8 + ln 5) = 0.104"
  has first-equals-last "e^(-mu) = 0.000335 per head"
fi
for m in dyck1-prefix after-last-b; do
  expect_rc "$m random" 0 "$HS" simulate $M/$m.safetensors --alphabet ab --lengths 16,200 --samples 2 --seed 3 &&
    has "$m random" "^strings: 2 random over 'ab' of length 200 (seed 3)" &&
    [ "$(grep -c '^decisions: .* agree$' "$t/out")" = 2 ] ||
    { echo "FAIL $m random: two groups expected"; fail=1; }
done
expect_rc "dyck tied avg" 0 "$HS" simulate $M/dyck1-prefix.safetensors aab abba &&
  has "dyck tied avg" "layer 2 head 0 hard_avg, mask le: tied, smallest gap 1 (average-hard"
expect_rc "after-last-b tieless" 0 "$HS" simulate $M/after-last-b.safetensors --precision f64 --isa scalar baab &&
  has "after-last-b tieless" "layer 1 head 0 hard_right, mask le: tieless, smallest gap 2$" &&
  has "after-last-b tieless" "precision f64, isa scalar"

# strings from standard input; the empty string counts, with no positions
expect_rc "stdin" 0 sh -c "printf 'ab\n\nbba\n' | $HS simulate $M/majority.safetensors" &&
  has stdin "^strings: 3 (longest n = 3); positions: 5;"
# only empty strings: gamma infinite, tau = 1
expect_rc "empty" 0 "$HS" simulate $M/majority.safetensors "" &&
  has empty "^gamma: inf " && has empty "^temperature: tau = 1 (gamma is infinite"
# --gamma overrides the measured gap; the bound is the measured gap's
expect_rc "gamma override" 0 "$HS" simulate $M/first-equals-last.safetensors --gamma 0.5 abba &&
  has "gamma override" "^gamma used: 0.5 (--gamma)" &&
  has "gamma override" "= 0.5 / (4 + ln 5) = " &&
  has "gamma override" "for the measured gamma"
# --gamma auto (the default) uses the measured gap: no "gamma used" line,
# the temperature from the measured gamma, the same output as without it
"$HS" simulate $M/first-equals-last.safetensors abba >"$t/default" 2>&1 || { echo "FAIL simulate"; fail=1; }
for g in --gamma=auto "--gamma auto"; do
  # shellcheck disable=SC2086
  if expect_rc "$g" 0 "$HS" simulate $M/first-equals-last.safetensors $g abba; then
    grep -q '^gamma used' "$t/out" && { echo "FAIL $g: $(grep '^gamma used' "$t/out")"; fail=1; }
    measured=$(sed -n 's/^gamma: \([0-9.e+-]*\) .*/\1/p' "$t/out")
    has "$g" "^temperature: tau = gamma / (mu + ln(n+1)) = $measured / (4 + ln 5) = "
    cmp -s "$t/out" "$t/default" || { echo "FAIL $g: output differs from the default's"; fail=1; }
  fi
done
# a gamma far above the measured one is used as given
expect_rc "gamma 5" 0 "$HS" simulate $M/first-equals-last.safetensors --gamma 5 abba &&
  has "gamma 5" "^gamma used: 5 (--gamma)$" && has "gamma 5" "= 5 / (4 + ln 5) = "

# CSV: a header and one row per length
expect_rc "csv" 0 "$HS" simulate $M/after-last-b.safetensors --alphabet ab --lengths 8,32 --samples 2 --csv --header
head -1 "$t/out" | grep -q '^model,n,strings,positions,precision,mu,gamma,gamma_measured,tau,bound,attn_error,max_deviation,layer_deviations,agree_fraction,heads_hard,heads_uniform,heads_tieless,heads_tied,heads_tied_unique,gamma_before,heads_tiebroken,cpu,cores,memory_bytes,kernel,build,commit,date$' ||
  { echo "FAIL csv header: $(head -1 "$t/out")"; fail=1; }
[ "$(wc -l <"$t/out")" = 3 ] || { echo "FAIL csv: 3 lines expected"; cat "$t/out"; fail=1; }
grep -q '^"after-last-b",32,2,64,f32,4,1,1,0\.133' "$t/out" || { echo "FAIL csv row"; cat "$t/out"; fail=1; }
grep -q ',1,2,0,2,0,0,1,0,"' "$t/out" || { echo "FAIL csv counts"; cat "$t/out"; fail=1; }

# a compiled hard model: Y a reads "the rightmost j < i" over equal scores,
# a TIED unique-hard head, which softmax would average (the decision at
# position 2 of "ab" would come out 1/2 -> 0); the position term breaks
# the ties first (delta = 1: gap 1/n = 1/3 at n = 3), and every decision
# agrees
"$HS" compile 'Y a' --mode hard -o "$t/ya.safetensors" || { echo "FAIL compile"; fail=1; }
if expect_rc "tied unique-hard broken" 0 "$HS" simulate "$t/ya.safetensors" --unknown other ab bba; then
  has "tied unique-hard broken" "hard_right, mask lt: tieless, smallest gap 0.333333 (tied unique-hard before, smallest gap inf: ties broken by a position term)"
  has "tied unique-hard broken" "^ties: 1 unique-hard head(s) had tied maxima"
  has "tied unique-hard broken" "^decisions: 5/5 agree$"
  [ -s "$t/err" ] && { echo "FAIL tied unique-hard broken: stderr $(cat "$t/err")"; fail=1; }
fi
expect_rc "tied unique-hard csv" 0 "$HS" simulate "$t/ya.safetensors" --csv ab &&
  grep -q ',1,1,0,1,0,0,inf,1,"' "$t/out" || { echo "FAIL tied csv: $(cat "$t/out")"; fail=1; }

# the example files are what bench/models/make_models.py writes, byte for
# byte, and the independent numpy pass reads them as hardsoft does
PY=${PYTHON:-/usr/bin/python3}
if ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "FAIL: $PY cannot import numpy (make check installs python3-numpy)"; fail=1
else
  mkdir "$t/models"
  "$PY" $M/make_models.py "$t/models" >/dev/null || { echo "FAIL make_models.py"; fail=1; }
  for f in majority first-equals-last dyck1-prefix after-last-b; do
    cmp -s "$t/models/$f.safetensors" $M/$f.safetensors ||
      { echo "FAIL $f.safetensors differs from what make_models.py writes"; fail=1; }
    a=$("$HS" run $M/$f.safetensors abba bbaab aabab b "")
    b=$("$PY" bench/peers/forward.py $M/$f.safetensors abba bbaab aabab b "")
    [ "$a" = "$b" ] || { echo "FAIL $f: hardsoft run '$a', forward.py '$b'"; fail=1; }
  done
fi

# errors: exit 2, one line on stderr, nothing on stdout
expect_err "missing model arg" "missing MODEL" "$HS" simulate
expect_err "missing file" "nope.safetensors" "$HS" simulate "$t/nope.safetensors" ab
printf 'not a model' > "$t/bad.safetensors"
expect_err "bad file" "bad.safetensors" "$HS" simulate "$t/bad.safetensors" ab
expect_err "bad gamma" "--gamma expects a number above 0 (the score gap, or auto), got 'x'" "$HS" simulate $M/majority.safetensors --gamma x ab
expect_err "zero gamma" "above 0 (the score gap, or auto), got '0'" "$HS" simulate $M/majority.safetensors --gamma 0 ab
expect_err "inf gamma" "above 0 (the score gap, or auto), got 'inf'" "$HS" simulate $M/majority.safetensors --gamma inf ab
expect_err "gamma no value" "--gamma needs a value" "$HS" simulate $M/majority.safetensors --gamma
expect_err "bad scale" "--scale expects a number above 0" "$HS" simulate $M/majority.safetensors --scale -1 ab
expect_err "bad precision" "not f32 or f64" "$HS" simulate $M/majority.safetensors --precision f16 ab
expect_err "bad isa" "not an instruction set" "$HS" simulate $M/majority.safetensors --isa sse9 ab
expect_err "unknown option" "unknown option '--frob'" "$HS" simulate $M/majority.safetensors --frob ab
expect_err "strings and alphabet" "not both" "$HS" simulate $M/majority.safetensors --alphabet ab abba
expect_err "lengths without alphabet" "need --alphabet" "$HS" simulate $M/majority.safetensors --lengths 8 ab
expect_err "header without csv" "goes with --csv" "$HS" simulate $M/majority.safetensors --header ab
expect_err "bad lengths" "whole number" "$HS" simulate $M/majority.safetensors --alphabet ab --lengths 8,x
expect_err "zero samples" "--samples expects a whole number from 1 to" "$HS" simulate $M/majority.safetensors --alphabet ab --samples 0
# after "--" everything is a string, even what looks like an option
expect_rc "--" 0 "$HS" simulate $M/majority.safetensors -- --gamma &&
  has "--" "^strings: 1 (longest n = 7)"
expect_rc "help" 0 "$HS" simulate --help && has help "tau = gamma / (mu + ln(n+1))"

exit $fail
