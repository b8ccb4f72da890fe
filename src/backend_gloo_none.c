/* SPDX-License-Identifier: BSD-3-Clause */
/* tcomm_comm_create_gloo in a build without Gloo: the entry point exists
 * in every build, so that a program (the harness's --backend gloo) links
 * everywhere and learns at run time that this build lacks the backend. */
#include "tcomm_gloo.h"
#include "tcomm_internal.h"

tcomm_status_t tcomm_comm_create_gloo(const tcomm_gloo_options_t *options,
                                      tcomm_comm_t **comm)
{
    (void)options, (void)comm;
    tcomm_error_clear();
    return tcomm_error(TCOMM_ERR_UNSUPPORTED,
                       "tcomm_comm_create_gloo: this tcomm was built "
                       "without Gloo (install libgloo-dev and configure "
                       "with --with-gloo)");
}
