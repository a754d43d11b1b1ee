#!/bin/sh
# SPDX-License-Identifier: MIT
# hardsoft info's machine ID, the name of the machine's results folder
# (results/machines/ID): vendor, family, model and stepping as
# /proc/cpuinfo gives them and the widest ISA `supported:` lists;
# HARDSOFT_MACHINE_ID replaces it, and one that is not a folder name is
# refused in one line.
set -u
HS=${BUILD:-build}/hardsoft
fail=0
info=$("$HS" info) || { echo "FAIL info"; exit 1; }
id=$(printf '%s\n' "$info" | sed -n 's/^machine id: //p')
widest=$(printf '%s\n' "$info" | sed -n 's/^supported: //p' | awk '{print $NF}')
field() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo | head -1; }
if [ -r /proc/cpuinfo ] && [ -n "$(field 'cpu family')" ]; then
  case $(field vendor_id) in
    GenuineIntel) v=intel ;; AuthenticAMD) v=amd ;;
    *) v=$(field vendor_id | tr -cd '[:alnum:]' | tr '[:upper:]' '[:lower:]') ;;
  esac
  want="$v-f$(field 'cpu family')-m$(field model)-s$(field stepping)-$widest"
  [ "$id" = "$want" ] || { echo "FAIL machine id '$id', want '$want'"; fail=1; }
else
  case $id in *-"$widest") ;; *) echo "FAIL machine id '$id' does not end in -$widest"; fail=1 ;; esac
fi
got=$(HARDSOFT_MACHINE_ID=lab-box.2 "$HS" info | sed -n 's/^machine id: //p')
[ "$got" = lab-box.2 ] || { echo "FAIL HARDSOFT_MACHINE_ID: got '$got'"; fail=1; }
for bad in ../up .hidden 'a b' "$(printf 'x%.0s' $(seq 1 101))"; do
  err=$(HARDSOFT_MACHINE_ID=$bad "$HS" info 2>&1 >/dev/null); rc=$?
  [ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
    printf '%s' "$err" | grep -q "HARDSOFT_MACHINE_ID: .* is not a folder name" ||
    { echo "FAIL HARDSOFT_MACHINE_ID='$bad': exit $rc, '$err'"; fail=1; }
done
[ $fail = 0 ] && echo "test-machine-id: ok"
exit $fail
