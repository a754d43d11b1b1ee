#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/hardsoft.bash-completion: commands, options per command, the values
# of --mode / --precision / --isa / --lang, bench's comma lists, file
# names for -o, -f and run's model. It cannot drift from the command line:
# every option a command's --help lists (at the start of a line, in its
# usage, or after a comma or bracket) is offered, and every option
# offered is one the command's parser takes.
set -u
fail=0
command -v bash >/dev/null 2>&1 || { echo "test-completion: no bash"; exit 77; }
HS=${BUILD:-build}/hardsoft
hs_abs=$(cd "$(dirname "$HS")" && pwd)/$(basename "$HS")
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
: >"$t/model.safetensors"
# complete WORDS...: the candidates for the last word, sorted, one line
complete_words() {
  bash -c '
    source docs/hardsoft.bash-completion
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _hardsoft
    [ ${#COMPREPLY[@]} -gt 0 ] && printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' complete "$@"
}
expect() { # expect NAME WANT WORDS...
  name=$1 want=$2; shift 2
  got=$(complete_words "$@")
  [ "$got" = "$want" ] || { echo "FAIL $name: got '$got', want '$want'"; fail=1; }
}
expect "command" "eval " hardsoft ev
expect "commands b" "bench boundary " hardsoft b
expect "modes" "fixed hard pe rel temp " hardsoft check 'a S b' --mode ""
expect "eval modes" "fixed hard pe rel temp truth " hardsoft eval a --mode ""
expect "precision" "f32 f64 " hardsoft eval a --precision ""
expect "boundary precision" "bf16 bf16s f16 f16s f32 f64 " hardsoft boundary a --precision ""
# the ISAs from the command's own help: every name of the library's table
isas=$("$hs_abs" eval --help | sed -n 's/^ *--isa \([a-z0-9|]*\) .*/\1/p' | tr '|' '\n' | sort | tr '\n' ' ')
[ "$isas" = "avx2 avx512 neon scalar wasm128 " ] || { echo "FAIL isa help: '$isas'"; fail=1; }
expect "isa" "$isas" "$hs_abs" run m --isa ""
expect "eval options" "--max-depth --max-formula-len --max-header-mib --max-memory --max-tensors --max-time " hardsoft eval a --max
expect "compile --json" "--json " hardsoft compile a --js
expect "json not on info" "" hardsoft info --js
expect "run file" "$t/model.safetensors " hardsoft run "$t/mo"
expect "-o file" "$t/model.safetensors " hardsoft compile a -o "$t/m"
expect "run string" "" hardsoft run "$t/model.safetensors" "$t/mo"
expect "attention png" "$t/model.safetensors " hardsoft attention a ab --png "$t/mo"
expect "export model" "$t/model.safetensors " hardsoft export "$t/mo"
expect "export -o" "-o " hardsoft export m -o
expect "commands a" "attention " hardsoft at
expect "commands e" "eval export " hardsoft e
expect "eval program options" "--threads --tokens --trace " hardsoft eval -f x --t
expect "-f file" "$t/model.safetensors " hardsoft eval -f "$t/mo"
expect "bench -f file" "$t/model.safetensors " hardsoft bench -f "$t/mo"
expect "--latex file" "$t/model.safetensors " hardsoft bench --latex "$t/mo"
expect "lang" "brasp crasp ltl regex " hardsoft eval -f x --lang ""
expect "bench isas" "avx2 avx512 neon numpy openblas ort scalar torch wasm128 " "$hs_abs" bench --isas ""
expect "bench isas list" "scalar,torch " hardsoft bench --isas scalar,to
expect "bench modes list" "pe,temp " hardsoft bench --modes pe,te
expect "bench skip" "off on online " hardsoft bench --skip o
# the commands offered are those 'hardsoft --help' lists, all of them
cmds=$("$HS" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' | sort | tr '\n' ' ')
offered=$(complete_words hardsoft "" | tr ' ' '\n' | grep -v '^-' | sort | tr '\n' ' ')
[ -n "$cmds" ] && [ "$cmds" = "$offered" ] || { echo "FAIL commands: --help lists '$cmds', completion offers '$offered'"; fail=1; }
# every option the completion offers is one the command's --help names,
# as a whole word (not the prefix of a longer option), and one its parser
# takes (a known option never gets "unknown option")
for c in $cmds; do
  opts=$(bash -c 'source docs/hardsoft.bash-completion; _hardsoft_opts "$1"' x "$c")
  [ -n "$opts" ] || { echo "FAIL $c: the completion offers no options"; fail=1; }
  "$HS" "$c" --help >"$t/help" || { echo "FAIL $c --help: exit $?"; fail=1; }
  for o in $opts; do
    grep -Eq -- "(^|[][ ,|(])$o([][ ,|)=]|$)" "$t/help" || case $o in
      --help|--max-formula-len|--max-depth|--max-header-mib|--max-tensors) ;;
      *) echo "FAIL $c: completion offers $o, its --help does not name it"; fail=1 ;;
    esac
    case $o in --max-formula-len|--max-depth|--max-header-mib|--max-tensors) continue ;; esac
    # a value option takes the first --help as its value, the second
    # stops the command before it runs; in the scratch directory anyway
    (cd "$t" && "$hs_abs" "$c" "$o" --help --help >/dev/null 2>"$t/err")
    grep -q "unknown option" "$t/err" && { echo "FAIL $c: completion offers $o, the parser refuses it"; fail=1; }
  done
  # the other way: what --help lists as an option (an option is -x or
  # --word, standing at a line's start, after a bracket, bar, comma or
  # semicolon, and before a space, bracket, '=' or the line's end)
  listed=$(grep -oE -- '(^|[][ ,|(;])(-[a-zA-Z]|--[a-z][a-z0-9-]*)([][ ,|)=;]|$)' "$t/help" |
    sed 's/^[][ ,|(;]//; s/[][ ,|)=;]$//' | sort -u)
  for o in $listed; do
    case " $opts " in *" $o "*) ;; *) echo "FAIL $c: --help lists $o, the completion does not offer it"; fail=1 ;; esac
  done
done
# the --help of the whole tool and the man page name -f FILE and programs
"$HS" --help | grep -q -- '-f FILE' || { echo "FAIL hardsoft --help does not mention -f FILE"; fail=1; }
"$HS" --help | grep -qi 'program' || { echo "FAIL hardsoft --help does not mention programs"; fail=1; }
sed -n '/^\.Sh SYNOPSIS/,/^\.Sh DESCRIPTION/p' docs/hardsoft.1 | grep -q -- 'Fl f Ar file' ||
  { echo "FAIL the man page's SYNOPSIS has no -f FILE"; fail=1; }
grep -qi 'not built into' docs/hardsoft.1 && { echo "FAIL the man page says B-RASP is not built in"; fail=1; }
for c in $cmds; do
  grep -Eq "^\.It Cm $c( |$)" docs/hardsoft.1 ||
    { echo "FAIL the man page does not describe $c"; fail=1; }
done
[ $fail = 0 ] && echo "test-completion: ok"
exit $fail
