# SPDX-License-Identifier: BSD-3-Clause
# The OSU-style harness (bench/) and `make bench`.
