# SPDX-License-Identifier: BSD-3-Clause
# The Rust crate (issue 19): `make check` runs its cargo tests, docs and
# lints (cargo.sh test) and its two MPI examples under mpirun at 1-4
# ranks. Both skip (77) where no Rust toolchain exists. cargo builds
# offline into bindings/rust/target of the build tree.
CARGO ?= cargo
AM_TESTS_ENVIRONMENT += TCOMM_CARGO='$(CARGO)'; export TCOMM_CARGO;

RUST_CRATE = bindings/rust/Cargo.toml bindings/rust/Cargo.lock \
	bindings/rust/build.rs bindings/rust/csrc/mpi_shim.c \
	bindings/rust/src/lib.rs bindings/rust/src/ffi.rs \
	bindings/rust/src/error.rs bindings/rust/src/graph.rs \
	bindings/rust/src/dtype.rs \
	bindings/rust/src/tensor.rs bindings/rust/src/comm.rs \
	bindings/rust/src/local.rs bindings/rust/src/mpi.rs \
	bindings/rust/src/collectives.rs bindings/rust/src/request.rs \
	bindings/rust/tests/collectives02.rs \
	bindings/rust/tests/common/mod.rs bindings/rust/tests/identity.rs \
	bindings/rust/tests/local.rs bindings/rust/tests/errors.rs \
	bindings/rust/tests/graph.rs bindings/rust/tests/dyn_comm.rs \
	bindings/rust/examples/data_parallel.rs \
	bindings/rust/examples/mpi_check.rs
EXTRA_DIST += $(RUST_CRATE) bindings/rust/cargo.sh doc/rust.md

# cargo test (identity, local, errors, graph affinity, dyn), cargo doc
# and cargo clippy, without warnings.
TESTS += bindings/rust/cargo.sh

# The examples as programs of the build tree, for test/mpirun-test.sh:
# bindings/rust/rust_NAME-npN.mpitest runs examples/NAME.rs on N ranks.
# cargo decides what is out of date, so the rule always asks it.
RUST_EXAMPLES = bindings/rust/rust_data_parallel bindings/rust/rust_mpi_check
check_SCRIPTS = $(RUST_EXAMPLES)
$(RUST_EXAMPLES): libtcomm.la rust-force
	$(AM_V_GEN)TCOMM_BUILDDIR='$(abs_top_builddir)' TCOMM_CC='$(CC)' \
	    TCOMM_CARGO='$(CARGO)' $(SHELL) $(srcdir)/bindings/rust/cargo.sh \
	    example $(@F:rust_%=%) $@
.PHONY: rust-force
rust-force:
TESTS += bindings/rust/rust_data_parallel-np1.mpitest \
	bindings/rust/rust_data_parallel-np2.mpitest \
	bindings/rust/rust_data_parallel-np3.mpitest \
	bindings/rust/rust_data_parallel-np4.mpitest \
	bindings/rust/rust_mpi_check-np1.mpitest \
	bindings/rust/rust_mpi_check-np2.mpitest \
	bindings/rust/rust_mpi_check-np3.mpitest \
	bindings/rust/rust_mpi_check-np4.mpitest
CLEANFILES += $(RUST_EXAMPLES)

clean-local: clean-rust
.PHONY: clean-rust
clean-rust:
	-rm -rf bindings/rust/target
