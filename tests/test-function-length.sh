#!/bin/sh
# SPDX-License-Identifier: MIT
# No function under src/ or simd/ is longer than 80 lines
# (tests/function_length.py). First the check itself is shown to catch an
# 81-line function and to pass an 80-line one, braces in strings and
# comments included, so a broken check cannot pass silently.
set -u
PY=${PYTHON:-python3}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
body() { # body N: a function of N lines in all
  printf 'static int\nf(int x) { /* { */\n'
  i=3; while [ "$i" -lt "$1" ]; do printf '  x += "}"[0];\n'; i=$((i + 1)); done
  printf '}\n'
}
body 81 >"$T/long.c"
body 80 >"$T/ok.c"
out=$("$PY" tests/function_length.py "$T/long.c")
case "$out" in *"f is 81 lines"*) ;; *) echo "FAIL: an 81-line function not caught: $out"; exit 1;; esac
"$PY" tests/function_length.py "$T/ok.c" >/dev/null || { echo "FAIL: an 80-line function refused"; exit 1; }
# an always_inline function is named by its name, not "__attribute__"
body 81 | sed '1s/^static int$/static inline __attribute__((always_inline)) int/' >"$T/inl.c"
out=$("$PY" tests/function_length.py "$T/inl.c")
case "$out" in *": f is 81 lines"*) ;; *) echo "FAIL: an always_inline function misnamed: $out"; exit 1;; esac
# a template of src/run (FN(f)) by its name; a struct of the same form is none
body 81 | sed '2s/^f(/FN(f)(/' >"$T/fn.c"
out=$("$PY" tests/function_length.py "$T/fn.c")
case "$out" in *": f is 81 lines"*) ;; *) echo "FAIL: FN(f) misnamed or missed: $out"; exit 1;; esac
{ printf 'typedef struct FN(s) {\n'; body 90 | sed -n '3,88p'; printf '} FN(s);\n'; } >"$T/st.c"
"$PY" tests/function_length.py "$T/st.c" >/dev/null || { echo "FAIL: a long struct FN(s) taken for a function"; exit 1; }
"$PY" tests/function_length.py
