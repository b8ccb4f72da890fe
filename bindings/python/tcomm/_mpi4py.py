# SPDX-License-Identifier: BSD-3-Clause
"""Whether mpi4py can share this process with tcomm: only if it was built
on the MPI library tcomm runs on (Debian's mpi4py is Open MPI's; under a
MPICH build of tcomm, importing it would load a second MPI)."""
import importlib.util
import re

from . import _tcomm  # noqa: F401 - loads our MPI into the process

_LIB = re.compile(rb"lib(?:mpi|mpich)\.so\.\d+")


def _our_libmpi():
    with open("/proc/self/maps", "rb") as maps:
        for line in maps:
            m = _LIB.search(line.rsplit(b"/", 1)[-1])
            if m:
                return m.group(0)
    return None


def unusable():
    """None if mpi4py can be imported beside tcomm, else why not."""
    try:
        spec = importlib.util.find_spec("mpi4py.MPI")
    except ImportError:
        spec = None
    if spec is None or not spec.origin:
        return "mpi4py is not installed (apt-get install python3-mpi4py)"
    ours = _our_libmpi()
    with open(spec.origin, "rb") as f:
        theirs = set(_LIB.findall(f.read()))
    if ours is None or ours not in theirs:
        return (f"mpi4py ({spec.origin}) is built on {sorted(theirs)}, "
                f"tcomm on {ours}: another MPI")
    return None
