/* SPDX-License-Identifier: BSD-3-Clause */
/* tcomm_info: the version, the build options, what this machine offers at
 * run time (MPI library, CUDA-aware MPI, GPUs), and the settings table
 * with current values. Runs with or without mpirun. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "tcomm_config.h"
#include "tcomm_internal.h"
#include "tcomm_mpi.h"

#ifdef TCOMM_HAVE_CUDA
#define HAVE_CUDA_TEXT "yes"
#else
#define HAVE_CUDA_TEXT "no"
#endif
#ifdef TCOMM_HAVE_FORTRAN
#define HAVE_FORTRAN_TEXT "yes"
#else
#define HAVE_FORTRAN_TEXT "no"
#endif

static void print_build(void)
{
    int major, minor, patch;
    tcomm_get_version(&major, &minor, &patch);
    printf("tcomm %d.%d.%d\n\nbuild:\n", major, minor, patch);
    printf("  CUDA transport:      %s\n", HAVE_CUDA_TEXT);
    printf("  Fortran bindings:    %s\n", HAVE_FORTRAN_TEXT);
    printf("  MPI standard:        %d.%d\n", MPI_VERSION, MPI_SUBVERSION);
    printf("  large-count calls:   %s\n",
           MPI_VERSION >= 4 ? "MPI-4 _c calls"
                            : "no (counts above INT_MAX are split)");
}

static void print_runtime(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = '\0';
    printf("\nrun time:\n  MPI library:         %s\n", lib);

    tcomm_comm_t *comm;
    tcomm_comm_info_t info;
    if (tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm) == TCOMM_SUCCESS &&
        tcomm_comm_info(comm, &info) == TCOMM_SUCCESS) {
        printf("  ranks:               %d\n", info.world_size);
        printf("  CUDA-aware MPI:      %s\n",
               info.cuda_aware ? "yes (device buffers go to MPI directly)"
                               : "no (device buffers are staged)");
        tcomm_comm_destroy(comm);
    } else {
        printf("  communicator:        failed: %s\n", tcomm_last_error());
    }
    tcomm_graph_t *g;
    tcomm_device_t gpu0 = {TCOMM_DEVICE_CUDA, 0};
    if (tcomm_graph_create(gpu0, &g) == TCOMM_SUCCESS) {
        printf("  GPU 0:               usable\n");
        tcomm_graph_destroy(g);
    } else {
        printf("  GPU 0:               none (%s)\n", tcomm_last_error());
    }
}

static void print_settings(void)
{
    size_t n;
    const tcomm_setting_t *t = tcomm_settings_table(&n);
    printf("\nsettings (environment):\n");
    for (size_t i = 0; i < n; i++) {
        char value[64];
        tcomm_setting_value_text(i, value, sizeof value);
        printf("  %-20s = %-8s (default %s)\n      %s\n", t[i].name, value,
               t[i].default_text, t[i].description);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("usage: tcomm_info\n"
               "Prints tcomm's version, build options, run-time support "
               "and settings.\n");
        return 0;
    }
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        print_build();
    print_runtime(); /* collective: every rank creates the communicator */
    if (rank == 0)
        print_settings();
    MPI_Finalize();
    return 0;
}
