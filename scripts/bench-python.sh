#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make bench's Python rows: python3 -m tcomm.bench on 2 ranks, tcomm's
# Python package against mpi4py on the same numpy buffers, every
# collective from 4 bytes to 4 MiB: np.empty's arrays into
# python-vs-mpi4py.txt and .json, then tcomm.empty's (tcomm's shared
# arena, which its single-copy paths need) into python-vs-mpi4py-arena.*,
# in OUTDIR. Says why and succeeds where the package or mpi4py is missing.
#
#   bench-python.sh STAGE OUTDIR    (STAGE: the build tree's package)
set -u
stage=${1:?the package of the build tree: bindings/python/stage}
outdir=${2:?output folder}
py=${PYTHON:-python3}
if [ ! -f "$stage/tcomm/_tcomm.so" ]; then
    echo "bench: no Python rows: the package was not built (configure's \"Python package\" line)"
    exit 0
fi
mkdir -p "$outdir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck disable=SC2086
timeout 600 ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} -np 2 \
    env PYTHONPATH="$stage" "$py" -m tcomm.bench -c all -m 4:4194304 \
    --json "$outdir/python-vs-mpi4py.json" >"$outdir/python-vs-mpi4py.txt"
rc=$?
cat "$outdir/python-vs-mpi4py.txt"
[ "$rc" -eq 77 ] && { echo "bench: no Python rows (mpi4py is missing or on another MPI)"; exit 0; }
[ "$rc" -ne 0 ] && exit "$rc"
timeout 600 ${MPIRUN:-mpirun} ${MPIRUN_FLAGS-} -np 2 \
    env PYTHONPATH="$stage" "$py" -m tcomm.bench -c all -m 4:4194304 \
    --memory tcomm --json "$outdir/python-vs-mpi4py-arena.json" \
    >"$outdir/python-vs-mpi4py-arena.txt"
rc=$?
cat "$outdir/python-vs-mpi4py-arena.txt"
exit "$rc"
