#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Rewrite a hardsoft model file the way the Python safetensors library
writes one, to test that hardsoft loads such files.

    make_st_models.py MODEL.safetensors OUTDIR

writes OUTDIR/f16.safetensors, bf16, f64 (every weight in that dtype),
OUTDIR/i8.safetensors (the embedding as I8: hardsoft must refuse it) and
prints, per file, how many weights the dtype could not hold exactly.

The layout is the library's (safetensors/src/tensor.rs, `prepare`): an
8-byte little-endian header length; compact JSON with "__metadata__"
first, then the tensors sorted by descending dtype (the order of its Dtype
enum) and then by name, packed back to back in that order; the header
padded with spaces to a multiple of 8. The metadata says "format": "pt", as
files saved from PyTorch do, and the file carries an unused int64 tensor
"optimizer.step" beside the model's own. Only the standard library is
needed: struct converts to half precision (round to nearest even) and
bfloat16 is the upper half of a float32, rounded to nearest even here.
"""
import json
import os
import struct
import sys
from typing import Dict, List, Tuple

# the Dtype enum of the safetensors crate, in declaration order
DTYPE_ORDER = ["BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "I16", "U16", "F16",
               "BF16", "I32", "U32", "F32", "F64", "I64", "U64"]

Tensor = Tuple[str, List[int], bytes]  # dtype, shape, little-endian bytes


def read_model(path: str) -> Tuple[Dict[str, str], Dict[str, Tuple[List[int], List[float]]]]:
    with open(path, "rb") as f:
        buf = f.read()
    (n,) = struct.unpack_from("<Q", buf, 0)
    header = json.loads(buf[8:8 + n].decode("utf-8"))
    data = buf[8 + n:]
    meta = header.pop("__metadata__")
    tensors = {}
    for name, info in header.items():
        if info["dtype"] != "F32":
            raise SystemExit(f"{path}: tensor {name} is {info['dtype']}, expected F32")
        b, e = info["data_offsets"]
        count = (e - b) // 4
        tensors[name] = (info["shape"], list(struct.unpack_from(f"<{count}f", data, b)))
    return meta, tensors


def to_bf16(x: float) -> int:
    (u,) = struct.unpack("<I", struct.pack("<f", x))
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16 & 0xFFFF


def bf16_value(h: int) -> float:
    return struct.unpack("<f", struct.pack("<I", h << 16))[0]


def encode(values: List[float], dtype: str) -> Tuple[bytes, int]:
    """The bytes of values in dtype and how many were not exact."""
    if dtype == "F64":
        return struct.pack(f"<{len(values)}d", *values), 0
    if dtype == "F16":
        raw = struct.pack(f"<{len(values)}e", *values)
        back = struct.unpack(f"<{len(values)}e", raw)
        return raw, sum(1 for a, b in zip(values, back) if a != b)
    if dtype == "BF16":
        hs = [to_bf16(x) for x in values]
        inexact = sum(1 for x, h in zip(values, hs) if bf16_value(h) != x)
        return struct.pack(f"<{len(hs)}H", *hs), inexact
    if dtype == "I8":
        return bytes(max(-128, min(127, int(x))) & 0xFF for x in values), 0
    raise ValueError(dtype)


def write_like_safetensors(path: str, meta: Dict[str, str], tensors: Dict[str, Tensor]) -> None:
    order = sorted(tensors, key=lambda k: (-DTYPE_ORDER.index(tensors[k][0]), k))
    header: Dict[str, object] = {"__metadata__": meta}
    offset = 0
    for name in order:
        dtype, shape, raw = tensors[name]
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name in order:
            f.write(tensors[name][2])


def main(argv: List[str]) -> int:
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    meta, model = read_model(argv[1])
    meta = {"format": "pt", "hardsoft": meta["hardsoft"]}
    os.makedirs(argv[2], exist_ok=True)
    for dtype in ["F16", "BF16", "F64", "I8"]:
        tensors: Dict[str, Tensor] = {}
        inexact = 0
        for name, (shape, values) in model.items():
            # I8: only the embedding, so the error must name that tensor
            dt = "F32" if dtype == "I8" and name != "embed" else dtype
            raw, bad = encode(values, dt) if dt != "F32" else (struct.pack(f"<{len(values)}f", *values), 0)
            tensors[name] = (dt, shape, raw)
            inexact += bad
        tensors["optimizer.step"] = ("I64", [], struct.pack("<q", 1000))
        out = os.path.join(argv[2], dtype.lower() + ".safetensors")
        write_like_safetensors(out, meta, tensors)
        print(f"{out}: {inexact} weights not exact in {dtype}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
