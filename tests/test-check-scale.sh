#!/bin/sh
# SPDX-License-Identifier: MIT
# check at lengths eval runs at: for models that count, the random strings
# walk near balance, so majority, Dyck-1 (formula and C-RASP program) hold
# at 1% of the positions of 20000-symbol strings at least and fail at 1%
# at least (uniform strings settle Dyck-1 within a few hundred symbols); the
# attention error is measured on the strings up to --error-max-n only,
# and the summary says so.
set -u
HS=${BUILD:-build}/hardsoft
PY=${PYTHON:-/usr/bin/python3}
fail=0
# positives and negatives at n = 20000, agreement everywhere
while read -r src; do
  case $src in *.cr) set -- -f "$src" ;; *) set -- "$src" ;; esac
  "$HS" check "$@" --mode pe --max-len 0 --lengths 20000 --samples 2 --json --quiet |
    "$PY" -c '
import json, sys
d = json.load(sys.stdin)
held, n = d["logic_true"][0], 2 * 20000
# (the positions add the strings that tie exactly; logic_true counts the
# random strings only)
assert d["agree"] == d["positions"] == n + d["tie_strings"] * 20000, d
# each way at 1% of the positions at least (uniform and one-symbol
# strings alone: Dyck-1 true at 5 of the 40000)
assert n // 100 <= held <= n - n // 100, "logic true at %d of %d positions" % (held, n)
' || { echo "FAIL check $src: not both answers at n = 20000"; fail=1; }
done <<'EOF'
#<(a) > #<(b)
H(#<(a) >= #<(b)) & #<(a) = #<(b)
tests/programs/dyck1.cr
EOF
# --error-max-n: the error of the strings up to it, its bound at that n
"$HS" check 'a S b' --mode pe --max-len 2 --lengths 100,3000 --samples 1 \
  --error-max-n 1000 --json --quiet | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
assert d["error_max_n"] == 1000 and d["bound_n"] == 100, d
assert 0 < d["max_attn_error"] < d["bound"], d
' || { echo "FAIL check --error-max-n 1000"; fail=1; }
out=$("$HS" check 'a S b' --mode pe --max-len 2 --lengths 3000 --samples 1 --error-max-n 0)
echo "$out" | grep -qx 'largest attention error: not measured (every string is longer than --error-max-n 0)' ||
  { echo "FAIL check --error-max-n 0: $out"; fail=1; }
"$HS" check 'a S b' --mode pe --lengths 5000 --samples 1 | grep -q 'on the strings up to n = 6, --error-max-n' ||
  { echo "FAIL check: the summary does not say the error stops at 4096 (the default)"; fail=1; }
[ $fail = 0 ] && echo "test-check-scale: ok"
exit $fail
