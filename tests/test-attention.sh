#!/bin/sh
# SPDX-License-Identifier: MIT
# hardsoft attention writes a PNG (or SVG) picture of the attention
# weights, and refuses bad input with one line "hardsoft: error: ...",
# exit 2 and no output file.
set -u
HS=${BUILD:-build}/hardsoft
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
png_ok() { # FILE: PNG magic bytes and more than a header
  [ -s "$1" ] && [ "$(od -An -c -N4 "$1" | tr -d ' ')" = "211PNG" ] &&
    [ "$(wc -c < "$1")" -gt 2000 ]
}
"$HS" attention 'a S b' --mode pe --scales 1,2,4,8 aabcabbacabbbaacabbcaaab --png "$t/asb.png" ||
  { echo "FAIL: --scales"; fail=1; }
png_ok "$t/asb.png" || { echo "FAIL: asb.png is not a PNG"; fail=1; }
"$HS" attention 'G (a -> F b)' --mode temp --layer 0 abcab --png "$t/g.png" || fail=1
png_ok "$t/g.png" || { echo "FAIL: g.png is not a PNG"; fail=1; }
"$HS" attention -f tests/programs/dyck1.cr --mode pe --scales 1,16 "( ( ) ) ( )" --png "$t/d.png" ||
  { echo "FAIL: -f program"; fail=1; }
png_ok "$t/d.png" || { echo "FAIL: d.png is not a PNG"; fail=1; }
"$HS" attention -f tests/programs/since.brasp --mode hard "a b q a" --png "$t/s.png" &&
  png_ok "$t/s.png" || { echo "FAIL: -f B-RASP program (unnamed token q)"; fail=1; }
"$HS" compile 'a U b' --mode rel -o "$t/m.safetensors" || fail=1
"$HS" attention --model "$t/m.safetensors" abba --svg "$t/m.svg" || fail=1
grep -q '<svg' "$t/m.svg" 2>/dev/null || { echo "FAIL: m.svg is not an SVG"; fail=1; }

# bad input: one line on stderr, exit 2, nothing written
printf 'not a model at all' > "$t/junk.safetensors"
long=$(printf '%0300d' 0)
while IFS='|' read -r name args; do
  eval "set -- $args"
  "$HS" attention "$@" > "$t/out" 2> "$t/err"
  rc=$?
  lines=$(wc -l < "$t/err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q '^hardsoft: error: ' "$t/err" ||
     [ -s "$t/out" ] || [ -e "$t/bad.png" ]; then
    echo "FAIL $name: exit $rc, $lines lines:"; cat "$t/err"; fail=1
  fi
  rm -f "$t/bad.png"
done <<EOF2
malformed formula|'a S' ab --png $t/bad.png
unknown mode|'a S b' ab --mode soft --png $t/bad.png
scale 0|'a S b' ab --scale 0 --png $t/bad.png
bad scales|'a S b' ab --scales 1,x --png $t/bad.png
no output|'a S b' ab
two outputs|'a S b' ab --png $t/bad.png --svg $t/bad.svg
no string|'a S b' --png $t/bad.png
too long|'a S b' $long --png $t/bad.png
missing model|--model $t/nonexistent ab --png $t/bad.png
corrupt model|--model $t/junk.safetensors ab --png $t/bad.png
scales of a file|--model $t/m.safetensors ab --scales 1,2 --png $t/bad.png
no such layer|'a S b' ab --layer 7 --png $t/bad.png
no such directory|'a S b' ab --png $t/no/dir/bad.png
unknown option|'a S b' ab --frobnicate --png $t/bad.png
EOF2
[ -e "$t/no" ] && { echo "FAIL: a directory was created"; fail=1; }
ls -a "$t" | grep -q '^\.attention-' && { echo "FAIL: a temporary file was left"; fail=1; }
exit $fail
