# SPDX-License-Identifier: MIT
"""The machine folders the report across machines stands side by side:
found under RESULTS/machines/ and wherever the user points, each checked
before it may stand beside the others. A folder is refused, with one line
naming the file and the field, when its machine.json is missing or
malformed, its name is not its ID, a CSV has another schema (a required
column missing, a malformed row) or rows without provenance, its rows
name another CPU or commit than its machine.json, or its ID is already
another folder's (with a different CPU, or the same machine given
twice)."""
import os

from . import machine
from .context import Report
from .reading import META_COLS, ReportError


def candidates(path):
    """The machine folders a path names: the folder itself (it holds
    machine.json or CSVs), else the folders under path/machines/, else
    the folders under path."""
    if os.path.exists(os.path.join(path, machine.MACHINE_JSON)) or any(
            n.endswith(".csv") for n in os.listdir(path)):
        return [path]
    inner = os.path.join(path, "machines") if os.path.isdir(
        os.path.join(path, "machines")) else path
    return sorted(os.path.join(inner, d) for d in os.listdir(inner)
                  if not d.startswith(".") and os.path.isdir(os.path.join(inner, d)))


def check_rows(folder, rep, prov):
    """Every CSV row of the folder carries the provenance columns and
    names machine.json's CPU and one of its commits."""
    for name, rows in rep.files():
        if not rows:
            continue
        path = os.path.join(folder, name)
        absent = [c for c in META_COLS if c != "version" and rows[0].get(c) is None]
        if absent:
            raise machine.Refused(f"{path}: {absent[0]}: column missing (rows without "
                                  "provenance)")
        for r in rows:
            if r["cpu"] != prov["cpu"]:
                raise machine.Refused(f"{path}:{r['_line']}: cpu: '{r['cpu']}', where "
                                      f"machine.json says '{prov['cpu']}'")
            if r["commit"] not in prov["commit"]:
                raise machine.Refused(f"{path}:{r['_line']}: commit: '{r['commit']}' is not "
                                      "among machine.json's commits")


def load_one(folder, ort_version=None):
    """(machine.json, Report) of one folder, or Refused."""
    prov = machine.load(folder)
    name = os.path.basename(os.path.normpath(folder))
    if prov["id"] != name:
        raise machine.Refused(f"{os.path.join(folder, machine.MACHINE_JSON)}: id: "
                              f"'{prov['id']}', but the folder is named '{name}'")
    try:
        rep = Report(folder, ort_version)
    except ReportError as e:
        raise machine.Refused(f"{folder}/{e}") from None
    if not rep.machine:
        raise machine.Refused(f"{folder}: no CSV of `hardsoft bench` with provenance rows")
    check_rows(folder, rep, prov)
    return prov, rep


def load(paths, ort_version=None):
    """([(machine.json, Report)] in ID order, [one line per refused folder])."""
    got, refused, by_id = [], [], {}
    for folder in [f for p in paths for f in candidates(p)]:
        try:
            prov, rep = load_one(folder, ort_version)
        except machine.Refused as e:
            refused.append(str(e))
            continue
        other = by_id.get(prov["id"])
        if other is not None:
            where = os.path.join(folder, machine.MACHINE_JSON)
            refused.append(f"{where}: id: '{prov['id']}' is also {other[0]}'s, "
                           + (f"whose cpu differs ('{prov['cpu']}' against "
                              f"'{other[1]['cpu']}')" if prov["cpu"] != other[1]["cpu"]
                              else "the same machine given twice"))
            continue
        by_id[prov["id"]] = (folder, prov)
        got.append((prov, rep))
    return sorted(got, key=lambda pr: pr[0]["id"]), refused
