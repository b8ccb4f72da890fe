/* SPDX-License-Identifier: BSD-3-Clause */
/* The start shared by the C test programs of test/pmpi/ (plain MPI, no
 * tcomm): MPI initialized at `level`, and this rank's lines to
 * argv[1].RANK when given, one file per rank so that the ranks' lines
 * never mix (test/pmpi-check.sh sorts and compares them). */
#ifndef PMPI_TEST_H
#define PMPI_TEST_H

#include <mpi.h>
#include <stdio.h>

/* Returns the thread level MPI provides. */
static inline int pmpi_test_start(int *argc, char ***argv, int level,
                                  int *rank, int *size)
{
    int provided;
    MPI_Init_thread(argc, argv, level, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    if (*argc > 1) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", (*argv)[1], *rank);
        if (!freopen(path, "w", stdout))
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return provided;
}

#endif /* PMPI_TEST_H */
