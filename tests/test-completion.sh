#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/hardsoft.bash-completion: commands, options per command, the values
# of --mode / --precision / --isa, file names for -o and run's model.
set -u
fail=0
command -v bash >/dev/null 2>&1 || { echo "test-completion: no bash"; exit 77; }
HS=${BUILD:-build}/hardsoft
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
expect "isa" "avx2 avx512 scalar " hardsoft run m --isa ""
expect "eval options" "--max-depth --max-formula-len --max-header-mib --max-memory --max-tensors --max-time " hardsoft eval a --max
expect "compile --json" "--json " hardsoft compile a --js
expect "json not on info" "" hardsoft info --js
expect "run file" "$t/model.safetensors " hardsoft run "$t/mo"
expect "-o file" "$t/model.safetensors " hardsoft compile a -o "$t/m"
expect "run string" "" hardsoft run "$t/model.safetensors" "$t/mo"
expect "attention png" "$t/model.safetensors " hardsoft attention a ab --png "$t/mo"
expect "export model" "$t/model.safetensors " hardsoft export "$t/mo"
expect "export -o" "-o " hardsoft export m -o
# the commands offered are those 'hardsoft --help' lists, all of them
cmds=$("$HS" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' | sort | tr '\n' ' ')
offered=$(complete_words hardsoft "" | tr ' ' '\n' | grep -v '^-' | sort | tr '\n' ' ')
[ -n "$cmds" ] && [ "$cmds" = "$offered" ] || { echo "FAIL commands: --help lists '$cmds', completion offers '$offered'"; fail=1; }
# every option the completion offers is one the command's --help names,
# as a whole word (not the prefix of a longer option)
for c in $cmds; do
  opts=$(bash -c 'source docs/hardsoft.bash-completion; _hardsoft_opts "$1"' x "$c")
  [ -n "$opts" ] || { echo "FAIL $c: the completion offers no options"; fail=1; }
  "$HS" "$c" --help >"$t/help" || { echo "FAIL $c --help: exit $?"; fail=1; }
  for o in $opts; do
    grep -Eq -- "(^|[][ ,|(])$o([][ ,|)=]|$)" "$t/help" || case $o in
      --help|--max-formula-len|--max-depth|--max-header-mib|--max-tensors) ;;
      *) echo "FAIL $c: completion offers $o, its --help does not name it"; fail=1 ;;
    esac
  done
done
[ $fail = 0 ] && echo "test-completion: ok"
exit $fail
