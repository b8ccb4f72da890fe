/* SPDX-License-Identifier: BSD-3-Clause */
/* A program started by the launcher of another MPI (mpiexec.mpich for a
 * tcomm built with Open MPI, or Open MPI's mpirun for one built with
 * MPICH) does not fail: each process initialises MPI as a singleton, so
 * N one-rank jobs run side by side and exit 0, each with its own
 * answer. The launcher leaves its job size in the environment; a world
 * of one rank where that size is larger is this mistake, and the first
 * communicator says so once per process. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_backend_mpi.h"
#include "tcomm_log.h"

static const struct {
    const char *var;  /* the job size the launcher exports */
    const char *name; /* who exports it */
} launchers[] = {
    {"OMPI_COMM_WORLD_SIZE", "Open MPI's mpirun"},
    {"PMI_SIZE", "a PMI launcher such as MPICH's mpiexec (Hydra)"},
};

/* MPI's own name for itself, short: "Open MPI v4.1.4", "MPICH 4.0.2"
 * (from "MPICH Version:\t4.0.2\n..."). */
static void library_name(char *buf, size_t len)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0;
    MPI_Get_library_version(lib, &n);
    lib[strcspn(lib, ",\n")] = '\0';
    char *v = strstr(lib, " Version:");
    if (v)
        memmove(v, v + 9, strlen(v + 9) + 1);
    for (char *c = lib; *c; c++)
        *c = *c == '\t' ? ' ' : *c;
    snprintf(buf, len, "%s", lib[0] ? lib : "this MPI");
}

int tcomm_mpi_launcher_mismatch(char *buf, size_t len)
{
    int world = 0;
    if (MPI_Comm_size(MPI_COMM_WORLD, &world) != MPI_SUCCESS || world != 1)
        return 0;
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        const char *v = getenv(launchers[i].var);
        long size = v ? strtol(v, NULL, 10) : 0;
        if (size <= 1)
            continue;
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        library_name(lib, sizeof lib);
        snprintf(buf, len,
                 "this process was started as one of %ld by %s (%s=%s), "
                 "but tcomm's MPI (%s) sees a world of 1 rank: each "
                 "process runs as its own one-rank job. Start the "
                 "program with the launcher of the MPI tcomm was built "
                 "with (%s's mpirun or mpiexec), or build tcomm and the "
                 "program with the launcher's MPI",
                 size, launchers[i].name, launchers[i].var, v, lib, lib);
        return 1;
    }
    return 0;
}

static void warn_once(void)
{
    char text[1024];
    if (tcomm_mpi_launcher_mismatch(text, sizeof text))
        TCOMM_WARN(-1, "%s", text);
}

void tcomm_mpi_warn_launcher(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, warn_once);
}
