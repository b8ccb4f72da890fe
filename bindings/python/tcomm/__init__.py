# SPDX-License-Identifier: BSD-3-Clause
"""tcomm for Python: the contract's collectives on numpy arrays and DLPack
tensors, over MPI (mpi4py's communicators too) or threads.

>>> import numpy as np, tcomm
>>> comm = tcomm.Communicator()
>>> comm.all_reduce(np.ones(3, np.float32), op="sum")
"""
from ._tcomm import Error, Request
from ._comm import Communicator, OPS
from ._arrays import DTYPES, bfloat16, empty

__all__ = ["Communicator", "Error", "Request", "OPS", "DTYPES", "bfloat16",
           "empty", "version"]


def version():
    """libtcomm's (major, minor, patch)."""
    from ._tcomm import version as v
    return v()
