/* SPDX-License-Identifier: BSD-3-Clause */
/* tcomm_info's backends section: built is what configure enabled
 * (config.h; if not, configure's reason: turned off, or not found);
 * usable is whether a communicator can be created here and now, tried on
 * the printing rank alone (identity, local, a one-rank Gloo communicator
 * in a scratch store, a one-rank NCCL communicator over MPI_COMM_SELF);
 * mpi is the collective creation over MPI_COMM_WORLD. */
#define _GNU_SOURCE /* nftw, mkdtemp */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "tcomm_gloo.h"
#include "tcomm_info.h"
#include "tcomm_internal.h"
#include "tcomm_mpi.h"
#include "tcomm_nccl.h"

#ifdef TCOMM_HAVE_GLOO
#define GLOO_BUILT 1
#else
#define GLOO_BUILT 0
#endif
#ifdef TCOMM_HAVE_NCCL
#define NCCL_BUILT 1
#else
#define NCCL_BUILT 0
#endif

static void row(info_out_t *o, const char *name, int built, int usable,
                const char *why)
{
    char key[64];
    if (o->parsable) {
        snprintf(key, sizeof key, "backend.%s.built", name);
        info_kv(o, key, NULL, "%s", built ? "yes" : "no");
        snprintf(key, sizeof key, "backend.%s.usable", name);
        info_kv(o, key, NULL, "%s", usable ? "yes" : "no");
        if (!usable) {
            snprintf(key, sizeof key, "backend.%s.why", name);
            info_kv(o, key, NULL, "%s", why);
        }
        return;
    }
    if (usable)
        info_kv(o, NULL, name, "built, usable");
    else
        info_kv(o, NULL, name, "%s (%s)",
                built ? "built, not usable" : "not built", why);
}

/* The result st of creating *comm: destroy it, or say why not. *comm is
 * read here, after the create call has run (the order in which a call's
 * arguments are evaluated is unspecified). */
static int usable(tcomm_status_t st, tcomm_comm_t **comm, char *why,
                  size_t len)
{
    if (st != TCOMM_SUCCESS) {
        snprintf(why, len, "%s", tcomm_last_error());
        return 0;
    }
    tcomm_comm_destroy(*comm);
    *comm = NULL;
    return 1;
}

static int rm_entry(const char *path, const struct stat *sb, int flag,
                    struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static int gloo_usable(char *why, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tcomm_info.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(why, len, "no scratch directory for the store in %s",
                 tmp && *tmp ? tmp : "/tmp");
        return 0;
    }
    tcomm_gloo_options_t opt = {.store_dir = dir, .rank = 0,
                                .world_size = 1};
    tcomm_comm_t *comm = NULL;
    int ok = usable(tcomm_comm_create_gloo(&opt, &comm), &comm, why, len);
    nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
    return ok;
}

void info_backends(info_out_t *o, int mpi_status, const char *mpi_why)
{
    char why[1024];
    tcomm_comm_t *comm = NULL;
    info_section(o, "backends (built; usable on rank 0)");
    int ok = usable(tcomm_comm_create_identity(&comm), &comm, why,
                    sizeof why);
    row(o, "identity", 1, ok, why);
    ok = usable(tcomm_comm_create_local(1, &comm), &comm, why, sizeof why);
    row(o, "local", 1, ok, why);
    row(o, "mpi", 1, mpi_status == TCOMM_SUCCESS, mpi_why);
    if (GLOO_BUILT)
        ok = gloo_usable(why, sizeof why);
    row(o, "gloo", GLOO_BUILT, GLOO_BUILT && ok,
        GLOO_BUILT ? why : TCOMM_GLOO_WHY);
    if (NCCL_BUILT)
        ok = usable(tcomm_comm_create_nccl(MPI_COMM_SELF, &comm), &comm,
                    why, sizeof why);
    row(o, "nccl", NCCL_BUILT, NCCL_BUILT && ok,
        NCCL_BUILT ? why : TCOMM_NCCL_WHY);
}
