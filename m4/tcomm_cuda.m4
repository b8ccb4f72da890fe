# SPDX-License-Identifier: BSD-3-Clause
# CUDA detection: filled in by the CUDA transport.
tcomm_cuda_summary="no"
AM_CONDITIONAL([TCOMM_HAVE_CUDA], [false])
