#!/bin/sh
# SPDX-License-Identifier: MIT
# pip install . as docs/PYTHON.md tells a new user, in a temporary
# directory: a copy of the checkout's tracked files (what a clone holds),
# a virtual environment that sees Debian's packages, pip offline
# (--no-index) with Debian's setuptools and wheel (--no-build-isolation).
# Then, with the copy deleted and from another directory, the installed
# package loads the library inside it and answers. Exit 1 on any failure.
set -eu
PY=${PYTHON:-/usr/bin/python3}
root=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir "$t/src" "$t/elsewhere"
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$root" && git ls-files -z --cached --others --exclude-standard |
     tar --null --ignore-failed-read -cf - -T - 2>/dev/null) | tar -xf - -C "$t/src"
else
  (cd "$root" && tar --exclude=./build --exclude='./build-*' -cf - .) | tar -xf - -C "$t/src"
fi
unset PYTHONPATH HARDSOFT_LIB BUILD
"$PY" -m venv --system-site-packages "$t/v"
(cd "$t/src" && "$t/v/bin/pip" install -q --no-build-isolation --no-index --no-cache-dir .) \
  >"$t/pip.log" 2>&1 || { tail -30 "$t/pip.log"; echo "FAIL: pip install . failed"; exit 1; }
want=$(sed -n 's/^#define HS_VERSION_STRING "\(.*\)"/\1/p' "$root/include/hardsoft.h")
rm -rf "$t/src"
cd "$t/elsewhere"
"$t/v/bin/python" - "$t/v" "$want" <<'PYEOF'
import os, sys
import hardsoft
venv, want = os.path.realpath(sys.argv[1]), sys.argv[2]
pkg = os.path.dirname(os.path.realpath(hardsoft.__file__))
lib = os.path.realpath(hardsoft._lib.lib()._name)
assert pkg.startswith(venv + os.sep), "imported %s, not the installed copy" % pkg
assert lib == os.path.join(pkg, "libhardsoft.so"), "loaded %s" % lib
assert hardsoft.__version__ == want == hardsoft.version(), (hardsoft.__version__, want)
m = hardsoft.compile("a S b", mode="pe", scale=4)
assert m.eval("cabba").tolist() == [0, 0, 1, 1, 1]
p = hardsoft.compile('maj = #"a" > #"b"', lang="crasp", mode="hard")
assert p.eval("a a b").tolist() == [1, 1, 1] == p.eval(tokens=["a", "a", "b"]).tolist()
b = hardsoft.compile('p = token "<p>"\nq = token "</p>"\nopen = rightmost j <= i : p | q ? p : false',
                     lang="brasp", mode="temp")
assert b.eval("<p> x </p> x", unknown="other").tolist() == [1, 1, 0, 0] == \
    b.truth("<p> x </p> x", unknown="other").tolist()   # x: a token it does not name
print("pip install: hardsoft %s from %s" % (hardsoft.__version__, pkg))
PYEOF
