# SPDX-License-Identifier: BSD-3-Clause
# The OSU-style harness (bench/) and `make bench`.
#
# Six programs from one source, bench/osu_tcomm.c, each built with
# -DTCOMM_BENCH_COLL=<collective>; the rest of the harness (options, the
# table of collectives, timing, output) is a convenience library. The
# harness sees only the public headers.

BENCH_CPPFLAGS = -I$(top_srcdir)/include -I$(top_srcdir)/bench
BENCH_LDADD = bench/libtcomm_bench.la libtcomm.la

noinst_LTLIBRARIES += bench/libtcomm_bench.la
bench_libtcomm_bench_la_SOURCES = \
	bench/tcomm_bench.h \
	bench/bench_alltoall.c \
	bench/bench_backend.c \
	bench/bench_backend.h \
	bench/bench_bound.c \
	bench/bench_colls.c \
	bench/bench_cross_core.c \
	bench/bench_data.c \
	bench/bench_nonblocking.c \
	bench/bench_nonblocking.h \
	bench/bench_option_table.c \
	bench/bench_option_table.h \
	bench/bench_options.c \
	bench/bench_output.c \
	bench/bench_output.h \
	bench/bench_sizes.c \
	bench/bench_sync.c \
	bench/bench_timing.c \
	bench/bench_timing.h \
	bench/bench_traffic.c \
	bench/bench_vary.c
bench_libtcomm_bench_la_CPPFLAGS = $(BENCH_CPPFLAGS)
# The bound's copy and add loops (bench_bound.c) vectorized as tcomm's own
# kernels are (mpi_kernels/local.mk): -O2's cost model refuses them.
bench_libtcomm_bench_la_CFLAGS = $(AM_CFLAGS) $(VECTORIZE_CFLAGS)

bin_PROGRAMS += \
	bench/osu_tcomm_allreduce \
	bench/osu_tcomm_allgather \
	bench/osu_tcomm_reduce_scatter \
	bench/osu_tcomm_bcast \
	bench/osu_tcomm_barrier \
	bench/osu_tcomm_alltoall \
	bench/osu_tcomm_reduce

bench_osu_tcomm_allreduce_SOURCES = bench/osu_tcomm.c
bench_osu_tcomm_allreduce_CPPFLAGS = $(BENCH_CPPFLAGS) \
	-DTCOMM_BENCH_COLL=allreduce
bench_osu_tcomm_allreduce_LDADD = $(BENCH_LDADD)

bench_osu_tcomm_allgather_SOURCES = bench/osu_tcomm.c
bench_osu_tcomm_allgather_CPPFLAGS = $(BENCH_CPPFLAGS) \
	-DTCOMM_BENCH_COLL=allgather
bench_osu_tcomm_allgather_LDADD = $(BENCH_LDADD)

bench_osu_tcomm_reduce_scatter_SOURCES = bench/osu_tcomm.c
bench_osu_tcomm_reduce_scatter_CPPFLAGS = $(BENCH_CPPFLAGS) \
	-DTCOMM_BENCH_COLL=reduce_scatter
bench_osu_tcomm_reduce_scatter_LDADD = $(BENCH_LDADD)

bench_osu_tcomm_bcast_SOURCES = bench/osu_tcomm.c
bench_osu_tcomm_bcast_CPPFLAGS = $(BENCH_CPPFLAGS) -DTCOMM_BENCH_COLL=bcast
bench_osu_tcomm_bcast_LDADD = $(BENCH_LDADD)

bench_osu_tcomm_barrier_SOURCES = bench/osu_tcomm.c
bench_osu_tcomm_barrier_CPPFLAGS = $(BENCH_CPPFLAGS) \
	-DTCOMM_BENCH_COLL=barrier
bench_osu_tcomm_barrier_LDADD = $(BENCH_LDADD)

bench_osu_tcomm_alltoall_SOURCES = bench/osu_tcomm.c
bench_osu_tcomm_alltoall_CPPFLAGS = $(BENCH_CPPFLAGS) \
	-DTCOMM_BENCH_COLL=alltoall
bench_osu_tcomm_alltoall_LDADD = $(BENCH_LDADD)

bench_osu_tcomm_reduce_SOURCES = bench/osu_tcomm.c
bench_osu_tcomm_reduce_CPPFLAGS = $(BENCH_CPPFLAGS) -DTCOMM_BENCH_COLL=reduce
bench_osu_tcomm_reduce_LDADD = $(BENCH_LDADD)

# The nonblocking programs, osu_tcomm_i<collective>: the same source
# with -DTCOMM_BENCH_NONBLOCKING (OSU's nonblocking layout).
BENCH_NB_CPPFLAGS = $(BENCH_CPPFLAGS) -DTCOMM_BENCH_NONBLOCKING
bin_PROGRAMS += \
	bench/osu_tcomm_iallreduce \
	bench/osu_tcomm_iallgather \
	bench/osu_tcomm_ireduce_scatter \
	bench/osu_tcomm_ibcast \
	bench/osu_tcomm_ialltoall

bench_osu_tcomm_iallreduce_SOURCES = bench/osu_tcomm.c
bench_osu_tcomm_iallreduce_CPPFLAGS = $(BENCH_NB_CPPFLAGS) \
	-DTCOMM_BENCH_COLL=allreduce
bench_osu_tcomm_iallreduce_LDADD = $(BENCH_LDADD)

bench_osu_tcomm_iallgather_SOURCES = bench/osu_tcomm.c
bench_osu_tcomm_iallgather_CPPFLAGS = $(BENCH_NB_CPPFLAGS) \
	-DTCOMM_BENCH_COLL=allgather
bench_osu_tcomm_iallgather_LDADD = $(BENCH_LDADD)

bench_osu_tcomm_ireduce_scatter_SOURCES = bench/osu_tcomm.c
bench_osu_tcomm_ireduce_scatter_CPPFLAGS = $(BENCH_NB_CPPFLAGS) \
	-DTCOMM_BENCH_COLL=reduce_scatter
bench_osu_tcomm_ireduce_scatter_LDADD = $(BENCH_LDADD)

bench_osu_tcomm_ibcast_SOURCES = bench/osu_tcomm.c
bench_osu_tcomm_ibcast_CPPFLAGS = $(BENCH_NB_CPPFLAGS) \
	-DTCOMM_BENCH_COLL=bcast
bench_osu_tcomm_ibcast_LDADD = $(BENCH_LDADD)

bench_osu_tcomm_ialltoall_SOURCES = bench/osu_tcomm.c
bench_osu_tcomm_ialltoall_CPPFLAGS = $(BENCH_NB_CPPFLAGS) \
	-DTCOMM_BENCH_COLL=alltoall
bench_osu_tcomm_ialltoall_LDADD = $(BENCH_LDADD)

# The row of one size from the ranks' figures (Check).
check_PROGRAMS += test/bench_combine
test_bench_combine_SOURCES = test/bench_combine.c
test_bench_combine_CPPFLAGS = $(BENCH_CPPFLAGS)
test_bench_combine_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_bench_combine_LDADD = $(BENCH_LDADD) $(CHECK_LIBS) -lm
TESTS += test/bench_combine
# The Bound column's envelope and the timer's floor (Check).
check_PROGRAMS += test/bench_envelope
test_bench_envelope_SOURCES = test/bench_envelope.c test/check_main.h
test_bench_envelope_CPPFLAGS = $(BENCH_CPPFLAGS)
test_bench_envelope_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_bench_envelope_LDADD = $(BENCH_LDADD) $(CHECK_LIBS)
TESTS += test/bench_envelope
# Every column of a row apart from the next, whatever its width (Check).
check_PROGRAMS += test/bench_row
test_bench_row_SOURCES = test/bench_row.c test/check_main.h
test_bench_row_CPPFLAGS = $(BENCH_CPPFLAGS)
test_bench_row_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_bench_row_LDADD = $(BENCH_LDADD) $(CHECK_LIBS)
TESTS += test/bench_row

# Option checking and a quick -c run of every program (1 and 2 ranks);
# the output read as printed (Ratio, the summary's digits, sizes).
TESTS += test/bench_options.sh test/bench_validate.sh test/bench_output.sh
# --vary: the inputs varied, the outputs checked, a stale input caught.
TESTS += test/bench_vary.sh
# The MPI call and the bound of each row, the summary's issue-18 targets.
TESTS += test/bench_baseline.sh
# scripts/osu-peer.sh's table from fake programs (no MPI, no OSU, no
# network) and its --peer checks that install and build nothing.
TESTS += test/osu_peer.sh

# `make bench`: the sweep on 2 ranks into bench/results/ (text, JSON, a
# PNG plot per collective) and the summary table. BENCH_NP, BENCH_SIZES
# and BENCH_MAX_TIME override the sweep's defaults.
.PHONY: bench
bench: all
	@sh $(top_srcdir)/scripts/install-deps
	@MPIRUN='$(MPIRUN)' sh $(top_srcdir)/scripts/bench-sweep.sh \
		'$(top_builddir)/bench' '$(top_builddir)/bench/results' \
		'$(top_srcdir)/bench/plot.gp'
	@$(MAKE) -s bench-python

# `make bench-multinode`: the harness across the namespace bed's hosts
# (2 x 2 ranks), links limited to 1 Gbit/s and unlimited, into
# bench/results/multinode/ (root; skips where namespaces cannot be made).
# MULTINODE_LAYOUT, _RATES, _SIZES, _COLLS, _MAX_TIME override.
.PHONY: bench-multinode
bench-multinode: all
	@sh $(top_srcdir)/scripts/install-deps
	@MPIRUN='$(MPIRUN)' sh $(top_srcdir)/scripts/bench-multinode.sh \
		'$(top_builddir)/bench' '$(top_builddir)/bench/results/multinode'

EXTRA_DIST += scripts/bench-multinode.sh
EXTRA_DIST += scripts/bench-sweep.sh scripts/bench-summary.sh bench/plot.gp \
	scripts/bench-summary-nb.sh scripts/bench-summary-vary.sh \
	scripts/osu-peer.sh scripts/peer-setup.sh scripts/peer-fastest.sh \
	test/osu_peer.sh \
	doc/performance.md doc/performance/allreduce.png \
	doc/performance/allgather.png doc/performance/reduce_scatter.png \
	doc/performance/bcast.png doc/performance/barrier.png \
	doc/performance/allreduce_ratio.png doc/performance/allgather_ratio.png \
	doc/performance/reduce_scatter_ratio.png \
	doc/performance/bcast_ratio.png doc/performance/alltoall_ratio.png \
	doc/performance/alltoall.png \
	test/bench_options.sh test/bench_validate.sh test/bench_lib.sh \
	test/bench_output.sh test/bench_baseline.sh test/bench_vary.sh

# The candidates of the reshaping collectives against raw MPI (not
# installed): mpirun -np 2 bench/reshape_candidates. The ones the library
# does not take live here (bench/allgather_candidates.c).
noinst_PROGRAMS += bench/reshape_candidates
bench_reshape_candidates_SOURCES = bench/reshape_candidates.c \
	bench/allgather_candidates.c bench/allgather_candidates.h
bench_reshape_candidates_LDADD = libtcomm_internal.la

# all_to_all's candidates for strided blocks against raw MPI_Alltoall (not
# installed): mpirun -np 2 bench/alltoall_candidates.
noinst_PROGRAMS += bench/alltoall_candidates
bench_alltoall_candidates_SOURCES = bench/alltoall_candidates.c
bench_alltoall_candidates_LDADD = libtcomm_internal.la

# The kernel's cross-memory copy against memcpy, the rate every
# single-copy path is bound by (not installed): mpirun -np 2 bench/cma_rate.
noinst_PROGRAMS += bench/cma_rate
bench_cma_rate_SOURCES = bench/cma_rate.c

# all_gather's pull and push side by side on new input every call, the
# bytes each moves against the least (not installed): mpirun -np 2
# bench/gather_traffic [MIN MAX CALLS].
noinst_PROGRAMS += bench/gather_traffic
bench_gather_traffic_SOURCES = bench/gather_traffic.c

# all_reduce's least traffic (its own chunk and the peers', pushed into
# every output) in one kernel, against which the Bound and tcomm are
# read (not installed): mpirun -np 2 bench/reduce_traffic [MIN MAX TRIES].
noinst_PROGRAMS += bench/reduce_traffic
bench_reduce_traffic_SOURCES = bench/reduce_traffic.c
bench_reduce_traffic_CFLAGS = $(AM_CFLAGS) $(VECTORIZE_CFLAGS)
