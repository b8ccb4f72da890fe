#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tcomm_info runs (singleton MPI, no mpirun) and lists every setting.
set -eu
out=$("${TCOMM_BUILDDIR:-.}/src/tools/tcomm_info")
echo "$out"
for v in TCOMM_DEBUG TCOMM_CHECK TCOMM_DETERMINISTIC TCOMM_TIMEOUT \
    TCOMM_CUDA_AWARE TCOMM_STAGING_CHUNK TCOMM_SINGLE_COPY "CUDA-aware MPI" "MPI library" \
    "MPI standard" "large-count calls" "Fortran bindings" "CUDA transport"; do
    echo "$out" | grep -q "$v" || { echo "tcomm_info lacks $v"; exit 1; }
done
