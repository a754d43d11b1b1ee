#!/bin/sh
# SPDX-License-Identifier: MIT
# The wrong file, the wrong language, another notation's operator: one
# line that says what happened and what to use instead, exit 2. A model
# file in a common format (ONNX, gzip, zip as PyTorch saves, NumPy, GGUF,
# HDF5, pickle, text) is named by its first bytes for run, simulate,
# export and attention --model; a formula argument that names a file
# suggests -f; a file that fails in its language and parses in another
# names that one; &&, ||, until, since, =>, <=> in a formula and the
# other RASP's and/or get the operator the language uses.
set -u
HS=${BUILD:-build}/hardsoft
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. tests/lib/expect.sh
"$HS" compile 'a S b' -o "$t/real.onnx" || { echo "FAIL compile -o .onnx"; fail=1; }
cp "$t/real.onnx" "$t/graph.bin" # by its bytes, not its name
printf '\037\213\010\000\000\000\000\000' >"$t/m.gz"
printf 'PK\003\004\024\000\000\000' >"$t/m.pt"
printf '\223NUMPY\001\000v\000' >"$t/m.npy"
printf 'GGUF\003\000\000\000' >"$t/m.gguf"
printf '\211HDF\r\n\032\n' >"$t/m.h5"
printf '\200\002}q\000' >"$t/m.pkl"
printf 'a S b\n' >"$t/formula.txt"
for f in real.onnx:"an ONNX graph.*ONNX Runtime" graph.bin:"an ONNX graph" m.gz:"gzip-compressed" \
         m.pt:"a zip archive (a PyTorch" m.npy:"a NumPy array" m.gguf:"a GGUF model" \
         m.h5:"an HDF5 file" m.pkl:"a Python pickle" formula.txt:"text, not a hardsoft model.*eval -f FILE"; do
  file=${f%%:*} pat=${f#*:}
  expect_err "run $file" "^hardsoft: error: .*$file: this file is $pat" "$HS" run "$t/$file" ab
done
expect_err "simulate onnx" "this file is an ONNX graph" "$HS" simulate "$t/graph.bin" ab
expect_err "export onnx" "this file is an ONNX graph" "$HS" export "$t/graph.bin" -o "$t/x.onnx"
expect_err "attention --model npy" "this file is a NumPy array" "$HS" attention --model "$t/m.npy" ab --png "$t/x.png"
# a real model still runs
"$HS" compile 'a S b' -o "$t/m.safetensors" && [ "$("$HS" run "$t/m.safetensors" aabaa)" = 00111 ] ||
  { echo "FAIL run of a real model"; fail=1; }
# a program file given where the formula goes
cp tests/programs/dyck1.cr "$t/maj.cr"
hs_abs=$(cd "$(dirname "$HS")" && pwd)/$(basename "$HS")
(cd "$t" && expect_err "eval FILE" "^hardsoft: error: unknown word 'maj' .*; 'maj.cr' is a file: read the program from it with -f maj.cr$" \
  "$hs_abs" eval maj.cr ab; exit $fail) || fail=1
# the wrong language, by extension or default
cp tests/programs/until.brasp "$t/prog.txt"
expect_err "brasp as formula" "^hardsoft: error: .*prog.txt: .* (it parses as B-RASP: add --lang brasp)$" \
  "$HS" eval -f "$t/prog.txt" "a b"
expect_err "crasp as ltl" "(it parses as C-RASP: add --lang crasp)$" "$HS" eval -f "$t/maj.cr" --lang ltl "( )"
[ "$("$HS" eval -f "$t/prog.txt" --lang brasp "a b")" = "$("$HS" eval -f tests/programs/until.brasp "a b")" ] ||
  { echo "FAIL: the suggested --lang brasp does not run the file"; fail=1; }
# another notation's operators
for c in "a && b:and as '&', not '&&'" "a || b:or as '|', not '||'" "a until b:until as 'U', not 'until'" \
         "a since b:since as 'S', not 'since'" "a => b:implies as '->', not '=>'" "a <=> b:iff as '<->', not '<=>'"; do
  f=${c%%:*} pat=${c#*:}
  expect_err "eval '$f'" "^hardsoft: error: .*(a formula writes $pat)$" "$HS" eval "$f" ab
done
printf 'x = token "a"\ny = x && x\n' >"$t/and.brasp"
expect_err "brasp &&" "(B-RASP writes and as '&', not '&&')$" "$HS" eval -f "$t/and.brasp" a
printf 'x = # "a"\ny = x > 0 & x > 1\n' >"$t/and.cr"
expect_err "crasp &" "(C-RASP writes and as '&&', not '&')$" "$HS" eval -f "$t/and.cr" a
# no hint where none applies: '&&' inside a quoted token, a plain error
printf 'x = token "&&"\ny = x & !x & \n' >"$t/quoted.brasp"
"$HS" eval -f "$t/quoted.brasp" a 2>"$t/err"
grep -q "writes" "$t/err" && { echo "FAIL: a hint from a quoted token: $(cat "$t/err")"; fail=1; }
expect_err "plain error" "^hardsoft: error: expected ')' at column 7$" "$HS" eval 'a & (b' ab

# the table of wrong inputs every door runs (tests/wrong-inputs.tsv)
"$HS" compile 'a S b' -o "$t/w.model"
cp "$t/real.onnx" "$t/w.onnx"; cp "$t/formula.txt" "$t/w.text"; cp "$t/m.pt" "$t/w.zip"
cp "$t/m.npy" "$t/w.npy"; cp "$t/m.gguf" "$t/w.gguf"; cp "$t/m.h5" "$t/w.hdf5"
cp "$t/m.pkl" "$t/w.pickle"; cp "$t/m.gz" "$t/w.gzip"
printf '\000\000\000\005\000\000\000\000{}' >"$t/w.bigheader"
rows=0
while IFS="$(printf '\t')" read -r name doors input want; do
  case $name in ''|'#'*) continue ;; esac
  case ",$doors," in *,cli,*) ;; *) continue ;; esac
  rows=$((rows + 1))
  case $input in
    file:model) set -- eval -f "$t/w.model" ab ;;
    file:*) set -- run "$t/w.${input#file:}" ab ;;
    path:*) set -- export "${input#path:}" -o "$t/never.onnx" ;;
    text:*) cp "${input#text:}" "$t/prog.txt"; set -- eval -f "$t/prog.txt" ab ;;
    formula:*) set -- eval "${input#formula:}" ab ;;
    tokens:*) rest=${input#tokens:}; set -- eval -f "${rest%%:*}" --mode pe "${rest#*:}" ;;
  esac
  "$HS" "$@" >"$t/out" 2>"$t/err"; rc=$?
  if [ $rc != 2 ] || [ "$(wc -l <"$t/err")" != 1 ] || ! grep -Eq -- "$want" "$t/err"; then
    echo "FAIL table $name (hardsoft $*): exit $rc, '$(cat "$t/err")' does not match '$want'"; fail=1
  fi
done < tests/wrong-inputs.tsv
[ $rows -ge 10 ] || { echo "FAIL: only $rows rows of tests/wrong-inputs.tsv for the command line"; fail=1; }
# run of a formula, not only export
expect_err "run a formula" "'a S b' is a formula, not a model file: hardsoft eval 'a S b' runs it" "$HS" run 'a S b' ab
[ $fail = 0 ] && echo "test-wrong-input: ok"
exit $fail
