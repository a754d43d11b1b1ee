#!/bin/sh
# SPDX-License-Identifier: MIT
# The command line: outputs, exit codes and one-line errors.
# Run from the repository root with BUILD set (tests/run.sh does).
set -u
HS=${BUILD:-build}/hardsoft
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

. tests/lib/expect.sh

nl='
'
for m in truth hard pe temp fixed rel; do
  expect "eval $m" 0 "00111${nl}111111000" "$HS" eval 'a S b' --mode $m aabaa bbbaaacaa ""
done
# boundary: the CSV row, '>N' when nothing failed; the precision names
b() { "$HS" boundary 'a S b' --mode $1 --precision $2 --max-n $3 | cut -d, -f2,4,5,6,7; }
expect "boundary rel bf16" 0 "rel,bf16,>4096,,inf" b rel bf16 4096
expect "boundary rel f16s" 0 "rel,f16s,>4096,,inf" b rel f16s 4096
expect "boundary pe bf16" 0 "pe,bf16,256,257,inf" b pe bf16 4096
expect "boundary pe bf16s" 0 "pe,bf16s,128,129,inf" b pe bf16s 4096
# f16: queries, keys and values rounded (11-bit significand); f16s: only
# the scores q.k, whose rounding alone moves the boundary to 1024
expect "boundary pe f16" 0 "pe,f16,2048,2049,inf" b pe f16 4096
expect "boundary pe f16s" 0 "pe,f16s,1024,1025,inf" b pe f16s 4096
expect "boundary pe f32" 0 "pe,f32,>4096,,inf" b pe f32 4096
expect_err "boundary bad precision" "is not f64, f32, f16, bf16, f16s or bf16s" "$HS" boundary 'a S b' --precision f8
# the strings of a length checked by several threads at once: the same
# row for any count (more threads than cores, and than some lengths have
# strings), failing lengths included
bt() { "$HS" boundary 'a S b' --mode pe --precision $1 --max-n 4096 --threads $2 | cut -d, -f2,4,5,6,7; }
for th in 1 2 7 64; do
  expect "boundary pe bf16 threads $th" 0 "pe,bf16,256,257,inf" bt bf16 $th
  expect "boundary pe f16s threads $th" 0 "pe,f16s,1024,1025,inf" bt f16s $th
done
expect "boundary rel threads 3" 0 "rel,f32,>2048,,inf" \
  sh -c "'$HS' boundary 'H (a -> Y (b S c))' --mode rel --max-n 2048 --threads 3 | cut -d, -f2,4,5,6,7"
expect_err "boundary threads 0" "--threads" "$HS" boundary 'a S b' --threads 0
"$HS" compile 'a U b' --mode rel --print > "$t/rel" || { echo "FAIL print rel"; fail=1; }
grep -q 'bias -4 |i - j| (BOS at n + 1)' "$t/rel" && grep -q 'rel: logits -mu r_j' "$t/rel" ||
  { echo "FAIL print rel: no bias or bound"; fail=1; }
expect "eval stdin" 0 "11100${nl}${nl}1" sh -c "printf 'aabaa\n\nb\n' | $HS eval 'a U b' --mode pe --scale 8"
expect "eval --last" 0 "1${nl}0" "$HS" eval 'a S b' --last aabaa bbbaaacaa
expect "eval --" 0 "000" "$HS" eval 'b' -- --x
expect "f64 scalar" 0 "00111" "$HS" eval 'a S b' --precision f64 --isa scalar aabaa
# --help: the usage on standard output, nothing on standard error, and
# every option it names is one eval's parser knows
"$HS" eval --help >"$t/help" 2>"$t/err" && [ ! -s "$t/err" ] &&
  head -1 "$t/help" | grep -q '^usage: hardsoft eval FORMULA \[OPTIONS\] \[--\] \[STRING...\]$' ||
  { echo "FAIL eval --help: $(head -1 "$t/help") $(cat "$t/err")"; fail=1; }
opts=$(grep -o -- '^  -[-a-z]*' "$t/help" | tr -d ' ')
[ "$(echo "$opts" | wc -l)" -ge 10 ] || { echo "FAIL eval --help names few options: $opts"; fail=1; }
for o in $opts; do
  "$HS" eval a "$o" </dev/null >/dev/null 2>"$t/err"
  grep -q "unknown option" "$t/err" && { echo "FAIL eval --help names $o, eval does not know it"; fail=1; }
done
expect "check ok" 0 - "$HS" check 'a S b & X c' --mode temp --max-len 4 --lengths 50 --samples 2
expect "check fixed fails" 1 - "$HS" check 'a S b' --mode fixed --scale 2 --max-len 3 --lengths 300 --samples 4

expect_err "parse error column" "column" "$HS" eval 'a & (b' x
expect_err "unknown word" "column 1" "$HS" eval 'ab' x
expect_err "unknown option" "unknown option '--frob'" "$HS" eval a --frob x
# an option without its value, last or empty after '=', whichever group
# of options it belongs to; one a command does not take is unknown
expect_err "mode no value" "^hardsoft: error: --mode needs a value$" "$HS" eval a x --mode
expect_err "seed empty value" "^hardsoft: error: --seed needs a value$" "$HS" check a --seed=
expect_err "lang no value" "^hardsoft: error: --lang needs a value$" "$HS" eval a x --lang
expect_err "-o no value" "^hardsoft: error: -o needs a value$" "$HS" compile a -o
expect_err "seed not taken" "unknown option '--seed'" "$HS" eval a x --seed
expect_err "bad mode" "not a mode" "$HS" eval a --mode warm x
expect_err "bad scale" "--scale expects a number above 0 (the scale mu), got '-1'" "$HS" eval a --scale -1 x
expect_err "bad scale nan" "--scale expects a number above 0" "$HS" eval a --scale nan x
expect_err "bad isa" "not an instruction set" "$HS" eval a --isa sse9 x
expect_err "bad env isa" "HARDSOFT_ISA" env HARDSOFT_ISA=bogus "$HS" eval a x
expect_err "missing model" "nope.safetensors" "$HS" run "$t/nope.safetensors" x
expect_err "mixed counts in fixed" "mixing #< and #> are not available in mode fixed" "$HS" eval '#<(a) > #>(b)' --mode fixed x
expect "mixed counts" 0 "00011" "$HS" eval '#<(a) > #>(b)' --mode pe abbab
expect "mixed counts hard" 0 "00011" "$HS" eval '#<(a) > #>(b)' --mode hard abbab
expect "mixed counts temp sign" 0 "00011" "$HS" eval '#<(a) > #>(b)' --mode temp --sign temp --scale 16 abbab
expect "counting" 0 "0011" "$HS" eval '#<(a) > #<(b)' --mode pe baaa
expect "counting temp sign" 0 "0011" "$HS" eval '#<(a) > #<(b)' --sign temp --scale 16 baaa
expect_err "bad sign" "not layernorm or temp" "$HS" eval a --sign cold x
# a user's own run records the commit the tool was built from: the one
# the build wrote into commit.h, which is this checkout's HEAD or (when a
# commit landed while the tests ran) an ancestor of it
built=$(sed -n 's/^#define HS_BUILD_COMMIT "\([0-9a-f]*\).*/\1/p' "${BUILD:-build}/commit.h" 2>/dev/null)
if [ -n "$built" ] && git rev-parse --verify -q HEAD >/dev/null 2>&1; then
  row=$("$HS" boundary 'Y a' --max-n 4 | tail -1)
  case "$row" in *"\"$built"*) ;; *) echo "FAIL boundary commit: '$row' lacks $built"; fail=1;; esac
  git merge-base --is-ancestor "$built" HEAD 2>/dev/null ||
    { echo "FAIL boundary commit: $built (commit.h) is not in this checkout's history"; fail=1; }
fi
expect_err "unknown command" "unknown command" "$HS" frobnicate
expect_err "compile needs -o" "expected one FORMULA" "$HS" compile 'a S b'
expect_err "compile truth" "truth" "$HS" compile 'a' --mode truth -o "$t/x"

# compile, describe, run the file; a failed write leaves nothing behind
expect "compile" 0 "" "$HS" compile 'a S b' --mode pe --scale 4 -o "$t/m.safetensors"
expect "run file" 0 "00111" "$HS" run "$t/m.safetensors" aabaa
"$HS" compile 'G (a -> F b)' --mode temp --print > "$t/desc" || { echo "FAIL print"; fail=1; }
grep -q "smallest exact mu: 1.9459" "$t/desc" || { echo "FAIL print: no smallest mu"; fail=1; }
grep -q "tau(n) = 0.25/n" "$t/desc" || { echo "FAIL print: no temperature law"; fail=1; }
expect_err "compile into missing dir" "$t/no/dir" "$HS" compile a -o "$t/no/dir/m.safetensors"
[ -e "$t/no" ] && { echo "FAIL: partial output"; fail=1; }
head -c 100 "$t/m.safetensors" > "$t/trunc.safetensors"
expect_err "truncated model" "trunc.safetensors" "$HS" run "$t/trunc.safetensors" a

# threads split rows, never change the output
long=$(awk 'BEGIN { for (i = 0; i < 3000; i++) printf "%s", substr("aab#c", (i * 7919) % 5 + 1, 1) }')
one=$("$HS" eval 'G (a -> (b U c)) & O (X a)' --mode pe --threads 1 -- "$long")
two=$("$HS" eval 'G (a -> (b U c)) & O (X a)' --mode pe --threads 2 -- "$long")
[ "$one" = "$two" ] || { echo "FAIL threads: outputs differ"; fail=1; }
expect_err "bad threads" "from 1 to 256 (threads), got '0'" "$HS" eval a --threads 0 x
expect_err "huge threads" "from 1 to 256 (threads), got '100000'" "$HS" eval a --threads 100000 x
expect_err "unknown command" "expected eval, check, compile, run, info," "$HS" bogus
# ... and the machine: /proc/cpuinfo's model name, the CPUs online, the
# memory, the kernel, and the flags the tool was compiled with
row=$("$HS" boundary 'Y a' --max-n 4 --header)
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
case "$(echo "$row" | head -1)" in *",cpu,cores,memory_bytes,kernel,build,commit,date") ;;
  *) echo "FAIL provenance header: $(echo "$row" | head -1)"; fail=1;; esac
case "$row" in *"\"$model (family "*) ;; *) echo "FAIL provenance cpu: '$row' lacks '$model'"; fail=1;; esac
case "$row" in *",$(getconf _NPROCESSORS_ONLN),"*) ;; *) echo "FAIL provenance cores: $row"; fail=1;; esac
case "$row" in *"$(uname -r)"*) ;; *) echo "FAIL provenance kernel: $row"; fail=1;; esac
case "$row" in *"-std=c11 "*) ;; *) echo "FAIL provenance flags: $row"; fail=1;; esac
"$HS" info | grep -q "^model name: $model (family" || { echo "FAIL info: no model name"; fail=1; }

# limits: a run that needs more memory than --max-memory, and a line of
# standard input longer than it, are refused with one line
expect_err "memory limit" "needs 17 MiB for this model" sh -c "head -c 300000 /dev/zero | tr '\\0' a | $HS eval 'a S b' --max-memory 1"
expect_err "line limit" "line 1 of standard input is longer" sh -c "head -c 3000000 /dev/zero | tr '\\0' a | $HS eval 'a S b' --max-memory 1"
expect_err "bad max-memory" "max-memory expects a whole number from 1 to" "$HS" eval a --max-memory 0 x
expect "last line without newline" 0 "01${nl}11" sh -c "printf 'ab\\nba' | $HS eval 'a S b'"

# every input limit: a default, an option that raises it, one line when
# exceeded that names the option (hs_error.limit)
deep=$(awk 'BEGIN { for (i = 0; i < 12000; i++) printf "!"; printf "a" }')
expect_err "depth limit" "nested too deeply at column 10001 (the limit is 10000 levels) (--max-depth raises it)$" "$HS" eval "$deep" a
expect "depth raised" 0 "1" "$HS" eval --max-depth 20000 "$deep" a
expect_err "formula length limit" "formula too long (5 bytes; the limit is 4) (--max-formula-len raises it)$" "$HS" eval --max-formula-len 4 'a & b' ab
expect "formula length raised" 0 "0" "$HS" eval --max-formula-len 5 'a & b' a
"$HS" compile 'a S b' -o "$t/lim.safetensors"
expect_err "tensor limit" "tensors, above the limit of 2 (--max-tensors raises it)$" "$HS" run --max-tensors 2 "$t/lim.safetensors" ab
expect "tensor limit raised" 0 "01" "$HS" run --max-tensors 100 "$t/lim.safetensors" ab
printf '\000\000\040\000\000\000\000\000{}' > "$t/hdr.safetensors"
expect_err "header limit" "above the 1 MiB limit (--max-header-mib raises it)$" "$HS" run --max-header-mib 1 "$t/hdr.safetensors" a
expect_err "header limit raised" "larger than the file" "$HS" run --max-header-mib 4 "$t/hdr.safetensors" a
expect_err "bad limit" "--max-depth expects a whole number" "$HS" eval --max-depth x a a
expect_err "zero limit" "--max-tensors expects a whole number from 1 to" "$HS" run --max-tensors 0 "$t/lim.safetensors" a

# pitfalls a stranger meets first: each gives its hint, warning or error
"$HS" eval a S b >"$t/out" 2>"$t/err"
[ "$(cat "$t/out")" = "0${nl}0" ] && grep -q "^hardsoft: hint: the input string 'S' is an operator .*hardsoft eval 'a S b'$" "$t/err" ||
  { echo "FAIL operator hint: $(cat "$t/err")"; fail=1; }
"$HS" eval 'a S b' ab ba 2>"$t/err" >/dev/null; [ -s "$t/err" ] && { echo "FAIL no hint expected: $(cat "$t/err")"; fail=1; }
"$HS" eval 'a S b' --mode fixed --scale 4 aaaaab aaaaab >/dev/null 2>"$t/err"
[ "$(grep -c 'warning: mode fixed at mu = 4 is proven exact only up to n = 2' "$t/err")" = 1 ] ||
  { echo "FAIL fixed warning (once): $(cat "$t/err")"; fail=1; }
"$HS" eval 'a S b' --mode fixed --scale 4 ab >/dev/null 2>"$t/err"; [ -s "$t/err" ] && { echo "FAIL fixed n = 2 warned"; fail=1; }
"$HS" eval 'a S b' --mode pe --scale 1 ab >/dev/null 2>"$t/err"
grep -q "warning: mu = 1 is below 1.946" "$t/err" || { echo "FAIL small-mu warning: $(cat "$t/err")"; fail=1; }
"$HS" eval '#<(a) > #<(b)' --mode pe --sign temp --scale 8 ab >/dev/null 2>"$t/err"
grep -q "warning: mu = 8 is below 12" "$t/err" || { echo "FAIL sign temp warning: $(cat "$t/err")"; fail=1; }
"$HS" compile 'a S b' --mode pe --print | grep -q "^exact region: mu >= the smallest exact mu" || { echo "FAIL print region"; fail=1; }
expect_err "check nothing" "--samples expects a whole number from 1 to 1000000" "$HS" check a --max-len 0 --samples 0
expect_err "info extra" "info: unexpected argument 'extra'" "$HS" info extra
expect_err "version extra" "--version takes no arguments" "$HS" --version x
"$HS" --version | grep -q '^hardsoft [0-9]*\.[0-9]*\.[0-9]* (commit ' || { echo "FAIL --version"; fail=1; }
# files are created 0666 minus the umask
(umask 077 && "$HS" compile a -o "$t/u077.safetensors") && [ "$(stat -c %a "$t/u077.safetensors")" = 600 ] ||
  { echo "FAIL umask 077: $(stat -c %a "$t/u077.safetensors")"; fail=1; }
(umask 002 && "$HS" compile a -o "$t/u002.safetensors") && [ "$(stat -c %a "$t/u002.safetensors")" = 664 ] ||
  { echo "FAIL umask 002: $(stat -c %a "$t/u002.safetensors")"; fail=1; }

exit $fail
