#!/bin/sh
# SPDX-License-Identifier: MIT
# Numeric options are checked when the command line is read, from one
# table (src/cli/options.c) that `hardsoft --options` prints: on every
# command whose completion offers the option (docs/hardsoft.bash-completion,
# itself checked against --help by test-completion.sh), a value below the
# range, above it, or not a number is refused in one line naming the
# option and its range, before anything runs (--lengths 0 once ran and
# reported agreement); the bounds themselves are taken; a list with an
# empty item is refused. Every numeric option the completion leaves to be
# typed is in the table, and the man page points to --options.
set -u
HS=${BUILD:-build}/hardsoft
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
command -v bash >/dev/null 2>&1 || { echo "test-options: no bash"; exit 77; }
"$HS" --options >"$t/table" || { echo "FAIL: hardsoft --options"; exit 1; }
[ "$(wc -l <"$t/table")" -ge 15 ] || { echo "FAIL: --options lists $(wc -l <"$t/table") options"; fail=1; }
cmds=$("$HS" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')
# refused: exit 2, one line naming the option and its range, no output
refused() { # refused NAME RANGE CMD...
  name=$1 range=$2; shift 2
  "$@" >"$t/out" 2>"$t/err"; rc=$?
  if [ $rc != 2 ] || [ "$(wc -l <"$t/err")" != 1 ] || [ -s "$t/out" ] ||
     ! grep -q -- "^hardsoft: error: $name expects $range" "$t/err"; then
    echo "FAIL $*: exit $rc, '$(cat "$t/err")', want '$name expects $range'"; fail=1
  fi
}
taken() { # taken CMD...: parsed, then --help stops it
  "$@" --help >/dev/null 2>"$t/err" || { echo "FAIL $*: refused: $(cat "$t/err")"; fail=1; }
}
tried=0
while read -r name kind lo hi; do
  for c in $cmds; do
    opts=$(bash -c 'source docs/hardsoft.bash-completion; _hardsoft_opts "$1"' x "$c")
    case " $opts " in *" $name "*) ;; *) continue ;; esac
    tried=$((tried + 1))
    if [ "$kind" = whole ]; then
      range="a whole number from $lo to $hi "
      [ "$lo" -gt 0 ] && refused "$name" "$range" "$HS" "$c" "$name" $((lo - 1))
      refused "$name" "$range" "$HS" "$c" "$name" "${hi}0"
      refused "$name" "$range" "$HS" "$c" "$name" -1
      refused "$name" "$range" "$HS" "$c" "$name" 2x
      taken "$HS" "$c" "$name" "$lo"
      taken "$HS" "$c" "$name" "$hi"
    else
      range="a number above ${lo#>} "
      refused "$name" "$range" "$HS" "$c" "$name" "${lo#>}"
      refused "$name" "$range" "$HS" "$c" "$name" -2.5
      refused "$name" "$range" "$HS" "$c" "$name" inf
      refused "$name" "$range" "$HS" "$c" "$name" x
      taken "$HS" "$c" "$name" 0.25
    fi
  done
done <"$t/table"
[ $tried -ge 30 ] || { echo "FAIL: only $tried option and command pairs tried"; fail=1; }
# a list option is checked value by value
refused --lengths "a whole number from 1 to" "$HS" check a --lengths 100,0
refused --lengths "a whole number from 1 to" "$HS" bench --lengths 64,0
refused --scales "a number above 0" "$HS" attention a ab --scales 1,-2 --png "$t/x.png"
# no empty item in a list, on every parser of lists (it was dropped silently)
refused --lengths "a list of values separated by single commas, got '4,'" "$HS" check a --lengths 4,
refused --lengths "a list of values separated by single commas, got ',4'" "$HS" bench --lengths ,4
refused --modes "a list of values separated by single commas" "$HS" bench --modes pe,,hard
refused --scales "a list of values separated by single commas" "$HS" attention a ab --scales 4,,8 --png "$t/x.png"
# the issue's case: check --lengths 0 no longer runs
refused --lengths "a whole number from 1 to 4294967296" "$HS" check 'a S b' --lengths 0
# every numeric option the completion leaves to be typed is in the table
typed=$(sed -n '/--scale|--threads/,/)$/p' docs/hardsoft.bash-completion | tr -d '\\\n )' | tr '|' '\n' |
        sed -n 's/^\(--[a-z-]*\).*/\1/p')
for o in $typed; do
  case $o in --alphabet|--formula) continue ;; esac
  grep -q -- "^$o " "$t/table" || { echo "FAIL: $o takes a number but is not in --options"; fail=1; }
done
grep -q 'Fl \\-options' docs/hardsoft.1 || { echo "FAIL: the man page does not name --options"; fail=1; }
[ $fail = 0 ] && echo "test-options: ok ($tried option and command pairs)"
exit $fail
