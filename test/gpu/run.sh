#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The GPU checks, for a machine with a GPU (about 5 minutes on 2 cores):
# build with CUDA (sm_90 only, unless NVCC_GENCODE is set), run the GPU
# tests (kernels bit for bit against the host kernels, tcomm_tensor_wrap's
# classification, the collectives on CUDA graphs at 1 and 2 ranks on the
# one GPU, staged and, where MPI is CUDA-aware, direct), the sim suite,
# and the harness's `-d cuda` sweep at 1 and 2 ranks.
#   test/gpu/run.sh [BUILD_DIR]     (default: build-gpu, out of tree)
# MPIRUN, MPIRUN_FLAGS and TCOMM_MPIRUN_FLAGS choose the launcher.
# Exits 77 when there is no GPU, non-zero on the first failure.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-gpu}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CK_FORK=no
log() { printf '== %s: %s\n' "$(date +%T)" "$*"; }

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1
then
    echo "SKIP: no GPU (nvidia-smi -L fails)"
    exit 77
fi
nvidia-smi -L

log "configure ($build)"
[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi >/dev/null)
mkdir -p "$build"
cd "$build"
if [ ! -f config.status ]; then
    if [ -f "$src/config.status" ]; then
        # the source tree is configured in place: build there
        build=$src
        cd "$src"
    else
        "$src/configure" --with-cuda \
            NVCC_GENCODE="${NVCC_GENCODE:--gencode=arch=compute_90,code=sm_90}" \
            >configure.log 2>&1 || { tail -20 configure.log; exit 1; }
    fi
fi
grep -q '^#define TCOMM_HAVE_CUDA 1' config.h ||
    { echo "FAIL: $build is configured without CUDA"; exit 1; }

log "build"
make -j"$(nproc)" >make.log 2>&1 || { tail -30 make.log; exit 1; }
make -j"$(nproc)" test/gpu/gpu_kernels test/gpu/gpu_collectives \
    test/gpu/gpu_all_to_all test/mpi_device test/mpi_device_a2a \
    >>make.log 2>&1 || { tail -30 make.log; exit 1; }

# The launcher as in test/mpirun-test.sh: $MPIRUN with $MPIRUN_FLAGS, or
# mpirun, with --oversubscribe when it is Open MPI's (MPICH has no such
# flag); extra options from TCOMM_MPIRUN_FLAGS.
mpirun=${MPIRUN:-mpirun}
if [ "${MPIRUN_FLAGS+set}" != set ]; then
    MPIRUN_FLAGS=
    if "$mpirun" --version 2>&1 | grep -q -e "Open MPI" -e OpenRTE; then
        MPIRUN_FLAGS=--oversubscribe
    fi
fi
run() { log "$*"; timeout 240 "$@"; }
# shellcheck disable=SC2086
mpi() {
    np=$1; shift
    run "$mpirun" $MPIRUN_FLAGS -np "$np" ${TCOMM_MPIRUN_FLAGS:-} "$@"
}

run ./test/gpu/gpu_kernels
mpi 1 ./test/gpu/gpu_collectives
mpi 2 ./test/gpu/gpu_collectives
mpi 2 ./test/mpi_device
mpi 1 ./test/gpu/gpu_all_to_all
mpi 2 ./test/gpu/gpu_all_to_all
mpi 2 ./test/mpi_device_a2a

# The harness on device memory (its own validation with -c).
for np in 1 2; do
    for b in allreduce allgather reduce_scatter bcast; do
        prog=bench/osu_tcomm_$b
        [ -x "$prog" ] || { echo "SKIP: no $prog"; continue; }
        mpi "$np" "$prog" -d cuda -c -m 1:4194304 -i 20 -x 5
        mpi "$np" env TCOMM_CUDA_AWARE=0 "$prog" -d cuda -c \
            -m 1:1048576 -i 10 -x 2 -T f16
    done
done
log "all GPU checks passed"

# The NCCL backend (issue 9): its suite at 1 rank (the backend's entries
# called directly), and at 2 ranks where there are two devices (NCCL
# takes one device per rank; with fewer the test skips, 77).
if grep -q '^#define TCOMM_HAVE_NCCL 1' config.h; then
    make -j"$(nproc)" test/gpu/gpu_nccl test/gpu/gpu_nccl_a2a \
        >>make.log 2>&1 || { tail -30 make.log; exit 1; }
    for t in gpu_nccl gpu_nccl_a2a; do
        mpi 1 ./test/gpu/$t
        rc=0
        mpi 2 ./test/gpu/$t || rc=$?
        [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || exit "$rc"
    done
    log "NCCL backend checks passed"
else
    echo "SKIP: NCCL backend (configured without NCCL)"
fi
