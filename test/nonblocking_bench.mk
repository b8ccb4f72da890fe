# SPDX-License-Identifier: BSD-3-Clause
# The nonblocking harness (issue 17): osu_tcomm_i<collective>'s options, a
# -c run of each program at 1-4 ranks in both compute modes, the JSON
# (test/bench_lib.sh starts them).
TESTS += test/bench_nonblocking.sh
EXTRA_DIST += test/bench_nonblocking.sh
