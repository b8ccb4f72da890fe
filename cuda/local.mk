# SPDX-License-Identifier: BSD-3-Clause
# CUDA transport (cuda/): filled in by the CUDA transport.
