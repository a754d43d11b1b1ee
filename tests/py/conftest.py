# SPDX-License-Identifier: MIT
"""The Python package's tests use this checkout's src/python and the
library of $BUILD (build by default), whatever else is installed."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))
sys.path.insert(0, os.path.join(ROOT, "src", "python"))
os.environ.setdefault("HARDSOFT_LIB", os.path.join(BUILD, "libhardsoft.so"))
