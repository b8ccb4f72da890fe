# SPDX-License-Identifier: BSD-3-Clause
"""pip install bindings/python: the tcomm package against an installed
libtcomm, found with `pkg-config tcomm` (PKG_CONFIG_PATH), and the MPI it
was built with, through its compiler wrapper (MPICC, default mpicc).
Offline: pip install --no-build-isolation bindings/python."""
import os
import shlex
import subprocess
import sys

from setuptools import Extension, setup


def run(*cmd):
    try:
        return shlex.split(subprocess.check_output(cmd, text=True,
                                                   stderr=subprocess.DEVNULL))
    except (OSError, subprocess.CalledProcessError):
        return None


def tcomm_flags():
    flags = run("pkg-config", "--cflags", "--libs", "tcomm")
    if flags is None:
        sys.exit("tcomm setup.py: `pkg-config tcomm` fails: install tcomm "
                 "(make install) and point PKG_CONFIG_PATH at its "
                 "lib/pkgconfig")
    return flags


def mpi_flags():
    """MPI's compile and link flags: Open MPI's --showme, MPICH's
    -compile_info/-link_info (their first word is the compiler)."""
    mpicc = os.environ.get("MPICC", "mpicc")
    c, l = run(mpicc, "--showme:compile"), run(mpicc, "--showme:link")
    if c is None or l is None:
        c, l = run(mpicc, "-compile_info"), run(mpicc, "-link_info")
        c, l = (c or [None])[1:], (l or [None])[1:]
    if not c and not l:
        sys.exit(f"tcomm setup.py: cannot ask `{mpicc}` for MPI's flags "
                 "(set MPICC to the MPI compiler wrapper tcomm was built "
                 "with)")
    return c + l


flags = tcomm_flags() + mpi_flags()
pick = lambda p: [f[len(p):] for f in flags if f.startswith(p)]  # noqa: E731
libdirs = pick("-L")
ext = Extension(
    "tcomm._tcomm",
    sources=["tcomm/_tcomm.c", "tcomm/comm.c", "tcomm/request.c",
             "tcomm/mpi.c"],
    depends=["tcomm/_tcomm.h"],
    include_dirs=pick("-I"),
    library_dirs=libdirs,
    libraries=pick("-l"),
    # a libtcomm outside the loader's path is found without LD_LIBRARY_PATH
    runtime_library_dirs=libdirs,
    extra_compile_args=["-fno-strict-aliasing"],
    extra_link_args=[f for f in flags if f.startswith("-Wl,")
                     or f == "-pthread"],
)
setup(ext_modules=[ext], packages=["tcomm"])
