#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test/mpi_pull_many on 130 ranks (above TCOMM_STACK_RANKS), through the
# mpirun harness. 130 ranks need shared memory for MPI's transports:
# where /dev/shm is small (Docker's default 64 MiB) or the harness caps
# the ranks (TCOMM_TEST_MAX_NP, MPICH) the test skips.
set -u
# Under the sanitizers (scripts/check-sanitize.sh) 130 instrumented ranks
# would take the machine's memory: the plain build's run covers the path.
if [ -n "${ASAN_OPTIONS:-}" ]; then
    echo "mpi_pull_many: SKIP: 130 ranks under the sanitizers"
    exit 77
fi
avail=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 {print $4}')
if [ "${avail:-0}" -lt 1048576 ]; then
    echo "mpi_pull_many: SKIP: /dev/shm has under 1 GiB free"
    exit 77
fi
exec /bin/sh "${srcdir:-.}/test/mpirun-test.sh" \
    test/mpi_pull_many-np130.mpitest
