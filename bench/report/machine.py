# SPDX-License-Identifier: MIT
"""A machine's folder, results/machines/ID: its provenance (machine.json,
derived from the folder's own data and rewritten by every report of it)
and the checks that let a folder stand beside the others in the report
across machines.

The ID names the CPU so a reader recognises it: vendor, family, model,
stepping and the widest instruction set hardsoft runs there, e.g.
amd-f25-m17-s1-avx512 (`hardsoft info` prints it; HARDSOFT_MACHINE_ID
replaces it). machine.json holds the ID, the fields it is made of, the CPU
as the CSV rows name it, its flags, cores, memory, kernel, compiler and
flags, the commit and dates the data were measured at and every
implementation's version: what a reader needs to know where a number
comes from without opening a CSV."""
import json
import os
import re

from .fmt import HS_ISAS, ISA_LABEL, unique

SCHEMA = 1
MACHINE_JSON = "machine.json"
INFO_TXT = "info.txt"  # `hardsoft info` of the run, written by the suite
# what every machine.json must hold for the report across machines (family,
# model and stepping may be null: a CPU's model name without them)
REQUIRED = ["schema", "id", "vendor", "isas", "cpu", "cores", "memory_bytes", "kernel",
            "build", "commit", "dates"]
VENDOR_WORDS = [("intel", "intel"), ("amd", "amd"), ("hygon", "hygon"),
                ("zhaoxin", "zhaoxin"), ("centaur", "centaur")]
FMS = re.compile(r"\(family (\d+) model (\d+) stepping (-?\d+)")
ID_OK = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*$")


class Refused(Exception):
    """A folder that cannot stand in the report across machines: one line
    naming the file and the field."""


def parse_info(text):
    """{field: value} of `hardsoft info`'s lines (cpu, model name, cores,
    memory, kernel, supported, machine id, chosen)."""
    out = {}
    for line in (text or "").splitlines():
        k, sep, v = line.partition(": ")
        if sep and not line.startswith(" "):
            out[k.strip()] = v.strip()
    return out


def fms_of(cpu):
    """(family, model, stepping) from the CSV's cpu column, else None."""
    m = FMS.search(cpu or "")
    return tuple(int(x) for x in m.groups()) if m else None


def vendor_of(cpu):
    low = (cpu or "").lower()
    return next((v for word, v in VENDOR_WORDS if word in low), None)


def widest(isas):
    known = [i for i in HS_ISAS if i in isas]
    return known[-1] if known else (sorted(isas)[-1] if isas else "scalar")


def make_id(vendor, fms, isa):
    return f"{vendor}-f{fms[0]}-m{fms[1]}-s{fms[2]}-{isa}" if fms else f"{vendor}-{isa}"


def hs_isas_of(data):
    """The instruction sets the folder's rows and kernel table show this
    CPU running: kernels.json's ISA table, else the ISAs of hardsoft's
    own CSV rows."""
    k = data.kernels_data or {}
    table = ((k.get("context") or {}).get("hardsoft") or {}).get("isa_table") or {}
    got = [i.get("isa") for i in table.get("isas", []) if i.get("supported")]
    if got:
        return [i for i in got if isinstance(i, str)]
    seen = {r["isa"] for _, rows in data.files() for r in rows or [] if r.get("isa")}
    return [i for i in HS_ISAS if i in seen]


def provenance_rows(data):
    """Every CSV row of the folder that carries the provenance columns."""
    return [r for _, rows in data.files() for r in rows or [] if r.get("cpu") is not None]


def versions(data, rows, ort_version=None):
    """{implementation: version} as the rows and quoted files record them."""
    from .sections.provenance import isa_groups, peer_versions, versions_from

    class Rep:  # what peer_versions asks of a report
        pass
    rep = Rep()
    rep.ort_version = ort_version
    out = {}
    for isa, group in isa_groups({r["isa"] for r in rows if r.get("isa")}):
        vs = peer_versions(rep, rows, group)
        if vs:
            out["hardsoft" if isa in HS_ISAS else ISA_LABEL.get(isa, isa)] = "; ".join(vs)
    for name, v in versions_from(data.hyperfine, data.kernels_data).items():
        out[name] = v
    return out


def derive(data, ort_version=None):
    """machine.json's content from a folder's data (a reading.Data), or
    None where no CSV row records the provenance columns."""
    rows = provenance_rows(data)
    if not rows:
        return None
    info = parse_info(data.info)
    cpus = unique(r["cpu"] for r in rows)
    cpu = cpus[0]
    fms = fms_of(cpu)
    isas = info.get("supported", "").split() or hs_isas_of(data)
    machine_id = info.get("machine id")
    vendor_src = "hardsoft info" if machine_id else "the CPU's model name"
    vendor = machine_id.split("-")[0] if machine_id else (vendor_of(cpu) or "unknown")
    ctx = ((data.kernels_data or {}).get("context") or {}).get("hardsoft") or {}
    dates = sorted(r["date"] for r in rows if r.get("date"))
    return {
        "schema": SCHEMA,
        "id": machine_id or make_id(vendor, fms, widest(isas)),
        "vendor": vendor, "vendor_from": vendor_src,
        "family": fms[0] if fms else None, "model": fms[1] if fms else None,
        "stepping": fms[2] if fms else None,
        "isas": isas, "widest_isa": widest(isas),
        "cpu": cpu, "other_cpus": cpus[1:],
        "cpu_flags": ctx.get("cpu_flags") or [],
        "cores": first(int(r["cores"]) for r in rows if r.get("cores")),
        "memory_bytes": first(int(r["memory_bytes"]) for r in rows if r.get("memory_bytes")),
        "kernel": first(r["kernel"] for r in rows if r.get("kernel")),
        "build": unique(r["build"] for r in rows if r.get("build")),
        "commit": unique(r["commit"] for r in rows if r.get("commit")),
        "dates": [dates[0], dates[-1]] if dates else [],
        "versions": versions(data, rows, ort_version),
        "files": {name: len(rs) for name, rs in data.files() if rs},
    }


def first(seq):
    return next(iter(seq), None)


def write(folder, prov):
    path = os.path.join(folder, MACHINE_JSON)
    tmp = os.path.join(folder, "." + MACHINE_JSON + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(prov, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, path)


def load(folder):
    """A folder's machine.json, checked against the schema; Refused with
    one line naming the file and field."""
    path = os.path.join(folder, MACHINE_JSON)
    if not os.path.exists(path):
        raise Refused(f"{path}: missing (the folder's provenance, written by bench/report "
                      "and make bench)")
    try:
        with open(path, encoding="utf-8") as f:
            prov = json.load(f)
    except (OSError, ValueError) as e:
        raise Refused(f"{path}: not JSON ({e})") from None
    if not isinstance(prov, dict):
        raise Refused(f"{path}: not a JSON object")
    missing = [k for k in REQUIRED if prov.get(k) in (None, "", [])]
    if missing:
        raise Refused(f"{path}: {missing[0]}: missing"
                      + (f" (and {', '.join(missing[1:])})" if missing[1:] else ""))
    if prov["schema"] != SCHEMA:
        raise Refused(f"{path}: schema: {prov['schema']!r}, this report reads {SCHEMA}")
    if not isinstance(prov["id"], str) or not ID_OK.match(prov["id"]):
        raise Refused(f"{path}: id: {prov['id']!r} is not a folder name")
    return prov
