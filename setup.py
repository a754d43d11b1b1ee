# SPDX-License-Identifier: MIT
"""Builds libhardsoft.so with the Makefile (make lib, into build/) and
ships it inside the hardsoft package, which loads it from there
(hardsoft/_lib.py); the version is the library's, HS_VERSION_STRING of
include/hardsoft.h. Metadata lives in pyproject.toml."""
import os
import re
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(ROOT, "include", "hardsoft.h"), encoding="utf-8") as f:
        m = re.search(r'^#define HS_VERSION_STRING "([^"]+)"', f.read(), re.M)
    if not m:
        raise RuntimeError("include/hardsoft.h has no HS_VERSION_STRING")
    return m.group(1)


class BuildWithLibrary(build_py):
    """build_py, plus the C library built by make and copied in as
    hardsoft/libhardsoft.so (the real file, not the symbolic links)."""

    def run(self):
        jobs = "-j%d" % min(os.cpu_count() or 1, 4)
        subprocess.run(["make", "--no-print-directory", "-C", ROOT, jobs, "lib"], check=True)
        super().run()
        lib = os.path.realpath(os.path.join(ROOT, "build", "libhardsoft.so"))
        dest = os.path.join(self.build_lib, "hardsoft", "libhardsoft.so")
        self.mkpath(os.path.dirname(dest))
        shutil.copyfile(lib, dest)
        os.chmod(dest, 0o755)


class BinaryDistribution(Distribution):
    """The wheel holds a compiled library: tag it for this platform."""

    def has_ext_modules(self):
        return True


setup(
    version=version(),
    packages=["hardsoft"],
    package_dir={"": "src/python"},
    cmdclass={"build_py": BuildWithLibrary},
    distclass=BinaryDistribution,
    options={"build": {"build_base": os.path.join("build", "python")}},
    zip_safe=False,
)
