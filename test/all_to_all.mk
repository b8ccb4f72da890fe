# SPDX-License-Identifier: BSD-3-Clause
# The tests of contract 0.2's all_to_all, all_to_all_v and
# reduce_scatter_v (issue 16), one section per part.

# -- front end: validation and cross-rank agreement --

# -- MPI backend, host tensors --

# -- MPI backend, device tensors (sim, CUDA) --

# -- the other backends (local, Gloo, NCCL, custom) --

# -- Fortran and the examples --

# -- harness --
# osu_tcomm_alltoall's options and a -c run of every (split, concat) pair,
# equal and uneven, at 1-4 ranks (test/bench_lib.sh starts them).
TESTS += test/bench_alltoall.sh
EXTRA_DIST += test/bench_alltoall.sh
