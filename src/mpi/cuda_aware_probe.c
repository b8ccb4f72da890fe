/* SPDX-License-Identifier: BSD-3-Clause */
/* Is MPI CUDA-aware? Probed once per communicator, in layers:
 *   1. TCOMM_CUDA_AWARE=0|1 overrides everything;
 *   2. compile time: Open MPI's MPIX_CUDA_AWARE_SUPPORT (mpi-ext.h): 0
 *      means this MPI was built without CUDA, so the answer is no;
 *   3. run time: Open MPI's MPIX_Query_cuda_support(), or MPICH's
 *      MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, ...);
 *   4. an MPI that offers neither: no.
 * The ranks then agree (the minimum over the communicator), since every
 * rank must take the same path, and the answer and its reason are
 * reported at TCOMM_DEBUG=INFO. */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include "tcomm_backend_mpi.h"
#include "tcomm_config.h"
#include "tcomm_log.h"

/* The local answer and the sentence that explains it. */
static int probe_local(const char **why)
{
    int forced = tcomm_config()->cuda_aware;
    if (forced >= 0) {
        *why = forced ? "TCOMM_CUDA_AWARE=1" : "TCOMM_CUDA_AWARE=0";
        return forced > 0;
    }
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    if (MPIX_Query_cuda_support()) {
        *why = "MPIX_Query_cuda_support() = 1";
        return 1;
    }
    *why = "Open MPI has CUDA support compiled in, but "
           "MPIX_Query_cuda_support() = 0 at run time";
    return 0;
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
    *why = "Open MPI was built without CUDA (MPIX_CUDA_AWARE_SUPPORT = 0)";
    return 0;
#elif defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40000000
    int yes = 0;
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) == MPI_SUCCESS &&
        yes) {
        *why = "MPIX_GPU_query_support(CUDA) = 1";
        return 1;
    }
    *why = "MPIX_GPU_query_support(CUDA) = 0";
    return 0;
#else
    *why = "this MPI has no CUDA-awareness query (set TCOMM_CUDA_AWARE=1 "
           "if it is CUDA-aware)";
    return 0;
#endif
}

int tcomm_mpi_probe_cuda_aware(MPI_Comm comm)
{
    const char *why = "";
    int mine = probe_local(&why), all = mine, rank = -1;
    MPI_Comm_rank(comm, &rank);
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        all = 0;
    if (all != mine)
        TCOMM_INFO(rank,
                   "CUDA-aware MPI: no (this rank: yes by %s, but another "
                   "rank is not CUDA-aware): device tensors are staged "
                   "through pinned host memory", why);
    else
        TCOMM_INFO(rank, "CUDA-aware MPI: %s (%s): device tensors %s",
                   all ? "yes" : "no", why,
                   all ? "go to MPI directly"
                       : "are staged through pinned host memory");
    return all;
}
