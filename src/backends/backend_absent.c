/* SPDX-License-Identifier: BSD-3-Clause */
/* The entry points of the optional backends in a build without them:
 * they exist in every build, so that a program (the harness's --backend
 * gloo) links everywhere and learns at run time what this build lacks. */
#include "config.h"

#include "tcomm_internal.h"

#if !defined(TCOMM_HAVE_GLOO) || !defined(TCOMM_HAVE_NCCL)
static tcomm_status_t absent(const char *fn, const char *what,
                             const char *fix)
{
    tcomm_error_clear();
    return tcomm_error(TCOMM_ERR_UNSUPPORTED,
                       "%s: this tcomm was built without %s (%s)", fn, what,
                       fix);
}
#endif

#ifndef TCOMM_HAVE_GLOO
#include "tcomm_gloo.h"

tcomm_status_t tcomm_comm_create_gloo(const tcomm_gloo_options_t *options,
                                      tcomm_comm_t **comm)
{
    (void)options, (void)comm;
    return absent("tcomm_comm_create_gloo", "Gloo",
                  "install libgloo-dev and configure with --with-gloo");
}
#endif

#ifndef TCOMM_HAVE_NCCL
#include "tcomm_nccl.h"

tcomm_status_t tcomm_comm_create_nccl(MPI_Comm mpi_comm, tcomm_comm_t **comm)
{
    (void)mpi_comm, (void)comm;
    return absent("tcomm_comm_create_nccl", "NCCL",
                  "configure with --with-cuda and --with-nccl=DIR");
}
#endif
