# SPDX-License-Identifier: MIT
"""The table of wrong inputs (tests/wrong-inputs.tsv) through the Python
package: every row for the py door raises hardsoft.Error with the message
the table gives (the command line and the playground run the same rows)."""
import os
import re

import pytest

from conftest import ROOT
import hardsoft

MAGIC = {"zip": b"PK\x03\x04\x14\x00\x00\x00", "npy": b"\x93NUMPY\x01\x00v\x00",
         "gguf": b"GGUF\x03\x00\x00\x00", "hdf5": b"\x89HDF\r\n\x1a\n",
         "pickle": b"\x80\x02}q\x00", "gzip": b"\x1f\x8b\x08\x00\x00\x00\x00\x00",
         "text": b"a S b\n", "bigheader": b"\x00\x00\x00\x05\x00\x00\x00\x00{}"}


def rows():
    with open(os.path.join(ROOT, "tests", "wrong-inputs.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, doors, what, want = line.rstrip("\n").split("\t")
                if "py" in doors.split(","):
                    yield name, what, want


def make(kind, tmp):
    """The file of a kind, as the command line's test writes it."""
    path = str(tmp / ("w." + kind))
    if kind in MAGIC:
        with open(path, "wb") as f:
            f.write(MAGIC[kind])
    elif kind == "model":
        hardsoft.compile("a S b").save(path)
    elif kind == "onnx":
        hardsoft.compile("a S b").save_onnx(path)
    return path


def attempt(what, tmp):
    kind, _, arg = what.partition(":")
    if kind == "file" and arg == "model":
        with open(make("model", tmp), "rb") as f:
            return hardsoft.compile(f.read())
    if kind == "file":
        return hardsoft.load(make(arg, tmp))
    if kind == "path":
        return hardsoft.load(arg)
    if kind == "text":
        with open(os.path.join(ROOT, arg), encoding="utf-8") as f:
            return hardsoft.compile(f.read())
    if kind == "formula":
        return hardsoft.compile(arg)
    program, _, s = arg.partition(":")
    with open(os.path.join(ROOT, program), encoding="utf-8") as f:
        lang = {".cr": "crasp", ".re": "regex"}.get(os.path.splitext(program)[1], "brasp")
        return hardsoft.compile(f.read(), lang=lang, mode="pe").eval(s)


@pytest.mark.parametrize("name,what,want", list(rows()))
def test_wrong_input(name, what, want, tmp_path):
    with pytest.raises(hardsoft.Error) as e:
        attempt(what, tmp_path)
    assert "\n" not in str(e.value)
    assert re.search(want, str(e.value)), (name, str(e.value))


def test_the_table_is_not_empty():
    assert len(list(rows())) >= 10


def test_limits_are_raised_by_arguments(tmp_path):
    # the header limit names load's argument, and that argument raises it
    deep = "X" * 40 + "a"
    with pytest.raises(hardsoft.Error, match=r"hardsoft.compile\(\.\.\., max_depth=\.\.\.\) raises it"):
        hardsoft.compile(deep, max_depth=20)
    assert hardsoft.compile(deep, max_depth=100).eval("a").tolist() == [0]
    with pytest.raises(hardsoft.Error, match="max_depth must be a whole number"):
        hardsoft.compile("a", max_depth=0)
    m = hardsoft.compile("a S b")
    p = tmp_path / "m.safetensors"
    m.save(p)
    with pytest.raises(hardsoft.Error, match=r"hardsoft.load\(\.\.\., max_tensors=\.\.\.\) raises it"):
        hardsoft.load(p, max_tensors=2)
    assert hardsoft.load(p, max_tensors=1000).eval("ab").tolist() == m.eval("ab").tolist()
