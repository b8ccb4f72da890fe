# SPDX-License-Identifier: BSD-3-Clause
# Reliability (issue 8): soak, crash, sanitizers, fuzzing, multi-host.
# doc/reliability.md describes each check and its figures.

# Soak: random valid and invalid collectives checked against the
# reference, and the growth of private memory after a warm-up. The short
# version (1,500 calls at 3 ranks) runs in `make check`; `make soak` runs
# 20,000 (SOAK_OPS, SOAK_SEED, SOAK_MAX_BYTES) and fails on 5% growth.
check_PROGRAMS += test/soak
test_soak_SOURCES = test/soak.c test/soak.h test/soak_valid.c \
	test/soak_invalid.c test/soak_mem.c test/mpi_reference.c \
	test/mpi_reference.h
test_soak_LDADD = libtcomm_internal.la -lm
TESTS += test/soak-np3.mpitest

SOAK_OPS = 20000
SOAK_SEED = 1
SOAK_MAX_BYTES = 4194304
SOAK_NP = 3
.PHONY: soak
soak: test/soak
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	timeout --kill-after=10 3600 $(MPIRUN) $(MPIRUN_FLAGS) -np $(SOAK_NP) \
		test/soak $(SOAK_OPS) $(SOAK_SEED) $(SOAK_MAX_BYTES)

# Crash: SIGKILL one rank of a running job; the job must end within
# TCOMM_TIMEOUT plus a few seconds, naming the lost rank.
TESTS += test/crash-check.sh
EXTRA_DIST += test/crash-check.sh

# Multi-host: two network namespaces joined by a veth pair, Open MPI over
# TCP between them; the correctness suite, the harness, and a link taken
# down mid-run. Skips (77) where namespaces cannot be made.
# The collectives across sizes and memory kinds against the reference,
# and deterministic mode against the flat path: at 1-4 ranks on one node
# here, across the bed's hosts in netns-check (the two-level paths).
check_PROGRAMS += test/mpi_hier
test_mpi_hier_SOURCES = test/mpi_hier.c test/mpi_reference.c \
	test/mpi_reference.h
test_mpi_hier_LDADD = libtcomm_internal.la -lm
TESTS += test/mpi_hier-np1.mpitest test/mpi_hier-np2.mpitest \
	test/mpi_hier-np3.mpitest test/mpi_hier-np4.mpitest

# A host's link cut during two-level calls, run by netns-check only.
check_PROGRAMS += test/mpi_link_cut
test_mpi_link_cut_SOURCES = test/mpi_link_cut.c
test_mpi_link_cut_LDADD = libtcomm.la

TESTS += test/netns/netns-check.sh
EXTRA_DIST += test/netns/netns-check.sh test/netns/rsh-agent.sh \
	test/netns/bed.sh

# The whole suite under ASan + UBSan + LSan, in build-sanitize/.
.PHONY: check-sanitize
check-sanitize:
	$(SHELL) $(top_srcdir)/scripts/check-sanitize.sh \
		'$(abs_top_builddir)/build-sanitize'
EXTRA_DIST += scripts/check-sanitize.sh test/lsan.supp

# Fuzzing: libFuzzer targets for every parser of outside input (the
# agreement's decoder of the peers' headers, the settings' values, the
# harness's options). They build only with clang (-fsanitize=fuzzer), so
# `make fuzz` builds them in their own tree, build-fuzz/, and runs each
# for FUZZ_SECONDS from the seed corpus in fuzz/corpus/<target>/.
EXTRA_PROGRAMS = fuzz/fuzz_agree fuzz/fuzz_config fuzz/fuzz_bench_options
FUZZ_LINK = -fsanitize=fuzzer
fuzz_fuzz_agree_SOURCES = fuzz/fuzz_agree.c
fuzz_fuzz_agree_LDADD = libtcomm_internal.la
fuzz_fuzz_agree_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_config_SOURCES = fuzz/fuzz_config.c
fuzz_fuzz_config_LDADD = libtcomm_internal.la
fuzz_fuzz_config_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_bench_options_SOURCES = fuzz/fuzz_bench_options.c
fuzz_fuzz_bench_options_CPPFLAGS = $(BENCH_CPPFLAGS)
fuzz_fuzz_bench_options_LDADD = bench/libtcomm_bench.la libtcomm_internal.la
fuzz_fuzz_bench_options_LDFLAGS = $(FUZZ_LINK) -Wl,--wrap=exit

FUZZ_SECONDS = 60
.PHONY: fuzz
fuzz:
	FUZZ_SECONDS='$(FUZZ_SECONDS)' FUZZ_BUILD='$(abs_top_builddir)/build-fuzz' \
		$(SHELL) $(top_srcdir)/fuzz/run.sh
EXTRA_DIST += fuzz/run.sh fuzz/corpus
