# SPDX-License-Identifier: BSD-3-Clause
"""python3 -m tcomm.bench: tcomm against mpi4py on the same numpy buffers.

Run under mpirun (at least 2 ranks for a meaningful figure):

    mpirun -np 2 python3 -m tcomm.bench -m 4:4194304 --json out.json

For each collective and size (bytes per rank's input, float32), the two
are timed in alternating blocks on the same arrays; rank 0 prints OSU-style
columns: size, tcomm's and mpi4py's average latency in us (each rank's
best block's mean, averaged over ranks) and their ratio (< 1: tcomm is faster). tcomm
writes into a preallocated out= as mpi4py does into its receive buffer.
"""
import argparse
import json
import sys
import time

import numpy as np

import tcomm
from . import _mpi4py

COLLS = ["allreduce", "allgather", "reduce_scatter", "bcast", "alltoall"]


def calls(name, c, w, x, n, new):
    """(tcomm call, mpi4py call, receive buffer) for collective name;
    new(count) allocates a float32 receive buffer."""
    if name == "allreduce":
        y = new(x.size)
        return (lambda: c.all_reduce(x, out=y),
                lambda: w.Allreduce(x, y), y)
    if name == "allgather":
        y = new(x.size * n)
        return (lambda: c.all_gather(x, out=y),
                lambda: w.Allgather(x, y), y)
    if name == "reduce_scatter":
        y = new(x.size // n)
        return (lambda: c.reduce_scatter(x, out=y),
                lambda: w.Reduce_scatter_block(x, y), y)
    if name == "bcast":
        y = new(x.size)
        y[:] = x  # in place on both sides, as MPI_Bcast is
        return (lambda: c.broadcast(y, root=0, out=y),
                lambda: w.Bcast(y, root=0), y)
    y = new(x.size)
    return (lambda: c.all_to_all(x, out=y),
            lambda: w.Alltoall(x, y), y)


def timed(fn, iters, w):
    w.Barrier()
    t = time.perf_counter()
    for _ in range(iters):
        fn()
    return (time.perf_counter() - t) / iters * 1e6


def sizes(spec, n):
    lo, _, hi = spec.rpartition(":")
    lo, hi = int(lo or 4), int(hi)
    s = max(lo, 4 * n)  # a float per rank's chunk, at least
    while s <= hi:
        yield s
        s *= 2


def parse(argv):
    p = argparse.ArgumentParser(prog="python3 -m tcomm.bench",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("-m", default="4:1048576", metavar="[MIN:]MAX",
                   help="message sizes in bytes (default 4:1048576)")
    p.add_argument("-i", type=int, default=0, metavar="N",
                   help="iterations per block (default: by size)")
    p.add_argument("-x", type=int, default=10, metavar="N",
                   help="warm-up iterations (default 10)")
    p.add_argument("-r", type=int, default=5, metavar="N",
                   help="alternating blocks per size; each side's best "
                        "counts (default 5)")
    p.add_argument("-c", default="allreduce", metavar="LIST",
                   help=f"collectives, comma-separated, or all: "
                        f"{','.join(COLLS)} (default allreduce)")
    p.add_argument("--memory", choices=("numpy", "tcomm"), default="numpy",
                   help="the arrays: np.empty's (default) or tcomm.empty's "
                        "(tcomm's shared arena; mpi4py uses the same)")
    p.add_argument("--json", metavar="FILE", help="also write JSON here")
    a = p.parse_args(argv)
    a.c = COLLS if a.c == "all" else a.c.split(",")
    bad = [x for x in a.c if x not in COLLS]
    if bad:
        p.error(f"unknown collective(s) {bad}")
    return a


def main(argv=None):
    a = parse(sys.argv[1:] if argv is None else argv)
    why = _mpi4py.unusable()
    if why:
        print(f"tcomm.bench: needs mpi4py on tcomm's MPI: {why}",
              file=sys.stderr)
        sys.exit(77)
    from mpi4py import MPI
    w = MPI.COMM_WORLD
    c = tcomm.Communicator(w)
    n = w.size
    if a.memory == "tcomm":
        def new(k):
            return tcomm.empty(k, np.float32)
    else:
        def new(k):
            return np.empty(k, np.float32)
    report = {"benchmark": "python-vs-mpi4py", "np": n, "dtype": "f32",
              "memory": a.memory,
              "results": []}
    for name in a.c:
        if w.rank == 0:
            print(f"# tcomm (Python) vs mpi4py: {name}, {n} ranks, f32, "
                  f"{a.memory} arrays")
            print(f"{'# Size':<10}{'tcomm(us)':>14}{'mpi4py(us)':>14}"
                  f"{'ratio':>9}")
        for size in sizes(a.m, n):
            x = new(size // 4)
            x[:] = 1
            tc, mp, _ = calls(name, c, w, x, n, new)
            iters = a.i or max(20, min(2000, (1 << 25) // size))
            for f in (tc, mp):
                for _ in range(a.x):
                    f()
            ts, ms = [], []
            for _ in range(a.r):  # alternate, so drift hits both alike
                ts.append(timed(tc, iters, w))
                ms.append(timed(mp, iters, w))
            # the best block of each: other load on the machine only adds
            t = w.allreduce(min(ts)) / n
            m = w.allreduce(min(ms)) / n
            if w.rank == 0:
                print(f"{size:<10}{t:>14.2f}{m:>14.2f}{t / m:>9.2f}",
                      flush=True)
            report["results"].append(
                {"collective": name, "bytes": size, "tcomm_avg_us": t,
                 "mpi4py_avg_us": m, "ratio": t / m, "iterations": iters})
    if a.json and w.rank == 0:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    c.close()


if __name__ == "__main__":
    main()
