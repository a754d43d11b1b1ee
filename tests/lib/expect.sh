# SPDX-License-Identifier: MIT
# Shared by the shell tests that run hardsoft and check its exit code and
# output (sourced, not run: tests/run.sh runs tests/*.sh only). The caller
# sets $t (a scratch directory) and fail=0.
expect() { # expect NAME WANT_RC WANT_STDOUT_OR_- CMD...
  name=$1 want_rc=$2 want_out=$3; shift 3
  out=$("$@" 2>"$t/err"); rc=$?
  if [ "$rc" != "$want_rc" ]; then echo "FAIL $name: exit $rc, want $want_rc ($(head -1 "$t/err"))"; fail=1; return; fi
  if [ "$want_out" != "-" ] && [ "$out" != "$want_out" ]; then echo "FAIL $name: got '$out', want '$want_out'"; fail=1; fi
}
expect_err() { # expect_err NAME PATTERN CMD...: exit 2, one stderr line matching
  name=$1 pat=$2; shift 2
  "$@" >"$t/out" 2>"$t/err"; rc=$?
  if [ "$rc" != 2 ]; then echo "FAIL $name: exit $rc, want 2"; fail=1; return; fi
  if [ "$(wc -l <"$t/err")" != 1 ] || ! grep -q -- "$pat" "$t/err"; then
    echo "FAIL $name: stderr '$(cat "$t/err")' does not match '$pat'"; fail=1; fi
  if [ -s "$t/out" ]; then echo "FAIL $name: wrote to stdout on error"; fail=1; fi
}
