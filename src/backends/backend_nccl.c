/* SPDX-License-Identifier: BSD-3-Clause */
/* The NCCL backend: tensors of CUDA graphs, bootstrapped over MPI (rank 0
 * makes the unique id, MPI broadcasts it), the collectives on the stream
 * of the input's graph, the reshaping along dim by the cuda space's
 * kernels, and every call synchronous. Agreement and barrier go over the
 * dup'd MPI communicator (host data). MIN/MAX on floating dtypes and
 * deterministic mode gather the inputs and fold them in rank order with
 * tcomm's kernels: NCCL's own min/max do not propagate NaN, and its ring
 * does not fold in rank order. AVG is NCCL's sum, then tcomm's divide.
 * The all_to_all pair and reduce_scatter_v are in backend_nccl_all_to_all.c. */
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_nccl.h"
#include "cuda_space.h"
#include "tcomm_backend_mpi.h"
#include "tcomm_cuda_check.h"
#include "tcomm_host_kernels.h"
#include "tcomm_log.h"
#include "tcomm_nccl.h"

tcomm_status_t tcomm_nccl_status(ncclResult_t rc, const char *call,
                                 const char *file, int line)
{
    if (rc == ncclSuccess)
        return TCOMM_SUCCESS;
    return tcomm_error(TCOMM_ERR_COMM_FAILED,
                       "tcomm: %s failed at %s:%d: %s (the communicator is "
                       "unusable: destroy it)",
                       call, file, line, ncclGetErrorString(rc));
}
/* The cuda space context of a tensor on this communicator's device. */
tcomm_status_t tcomm_nccl_device_ctx(const nccl_state_t *st,
                                     const tcomm_tensor_t *in, const char *fn,
                                     tcomm_cuda_ctx_t **ctx)
{
    if (in->graph->space != &tcomm_memspace_cuda)
        return tcomm_error(TCOMM_ERR_UNSUPPORTED,
                           "%s: the NCCL backend moves tensors of CUDA "
                           "graphs only (use tcomm_comm_create_mpi for "
                           "host tensors)",
                           fn);
    tcomm_cuda_ctx_t *c = in->graph->space_ctx;
    if (c->device != st->device)
        return tcomm_error(TCOMM_ERR_UNSUPPORTED,
                           "%s: the tensor is on CUDA device %d but the "
                           "communicator on device %d (create the graph on "
                           "the communicator's device)",
                           fn, c->device, st->device);
    TCOMM_TRY(tcomm_cuda_use(c));
    *ctx = c;
    return TCOMM_SUCCESS;
}

/* Queued on the graph's stream, with the cuda space's own ops: dst =
 * block 0 op block 1 op ... (count elements at `at` of each block of
 * stride elements in all), then AVG's finish. */
tcomm_status_t tcomm_nccl_fold_blocks(const nccl_state_t *st,
                                      const tcomm_tensor_t *in, tcomm_op_t op,
                                      void *dst, const char *all, size_t stride,
                                      size_t at, size_t count)
{
    const tcomm_memspace_t *sp = in->graph->space;
    size_t es = tcomm_dtype_size(in->dtype);
    return tcomm_space_fold_strided(sp, in->graph->space_ctx, in->dtype, op,
                                    dst, all + at * es, stride * es, st->size,
                                    count);
}

/* AVG's finish on the n elements of out, queued on its stream. */
tcomm_status_t tcomm_nccl_finish_avg(const nccl_state_t *s,
                                     const tcomm_tensor_t *in, tcomm_op_t op,
                                     tcomm_tensor_t *out, size_t n)
{
    return tcomm_space_finish(in->graph->space, in->graph->space_ctx, in->dtype,
                              op, out->data, n, s->size);
}

/* Wait for the stream, then give back the temporary (may be NULL). */
tcomm_status_t tcomm_nccl_finish(tcomm_status_t st, tcomm_cuda_ctx_t *ctx,
                                 void *tmp)
{
    cudaError_t rc = cudaStreamSynchronize(ctx->stream);
    if (st == TCOMM_SUCCESS)
        st = tcomm_cuda_status(rc, "cudaStreamSynchronize", __FILE__, __LINE__);
    if (tmp)
        tcomm_memspace_cuda.free(ctx, tmp);
    return st;
}

static tcomm_status_t nccl_all_reduce(void *state, const tcomm_tensor_t *in,
                                      tcomm_op_t op, tcomm_tensor_t *out)
{
    nccl_state_t *s = state;
    tcomm_cuda_ctx_t *ctx;
    TCOMM_TRY(tcomm_nccl_device_ctx(s, in, "tcomm_all_reduce", &ctx));
    size_t n = in->numel;
    if (n == 0)
        return TCOMM_SUCCESS;
    void *all = NULL;
    tcomm_status_t st = TCOMM_SUCCESS;
    TCOMM_TRACE_PATH(gather_fold(s, in->dtype, op) ? "nccl_allgather+fold"
                                                   : "nccl_allreduce");
    if (gather_fold(s, in->dtype, op)) {
        TCOMM_CHECK_GOTO(
            in->graph->space->alloc(ctx, in->nbytes * (size_t)s->size, &all),
            st, done);
        NCCL_CHECK_GOTO(ncclAllGather(in->data, all, n, nccl_type(in->dtype),
                                      s->nccl, ctx->stream),
                        st, done);
        TCOMM_CHECK_GOTO(
            tcomm_nccl_fold_blocks(s, in, op, out->data, all, n, 0, n), st,
            done);
    } else {
        NCCL_CHECK_GOTO(ncclAllReduce(in->data, out->data, n,
                                      nccl_type(in->dtype), nccl_op(op),
                                      s->nccl, ctx->stream),
                        st, done);
    }
    st = tcomm_nccl_finish_avg(s, in, op, out, n);
done:
    return tcomm_nccl_finish(st, ctx, all);
}

/* Equal sizes: one ncclAllGather; uneven: a broadcast from each rank in
 * one group. Along dim > 0 the blocks land back to back in a temporary
 * and the unpack kernel interleaves them. */
static tcomm_status_t nccl_all_gather(void *state, const tcomm_tensor_t *in,
                                      int dim, const size_t *sizes,
                                      tcomm_tensor_t *out)
{
    nccl_state_t *s = state;
    tcomm_cuda_ctx_t *ctx;
    TCOMM_TRY(tcomm_nccl_device_ctx(s, in, "tcomm_all_gather", &ctx));
    size_t es = tcomm_dtype_size(in->dtype);
    size_t outer, inner;
    tcomm_dim_split(in, dim, &outer, &inner);
    size_t *seg = malloc((size_t)s->size * sizeof *seg);
    if (!seg)
        return tcomm_error(TCOMM_ERR_NO_MEMORY,
                           "tcomm_all_gather: out of host memory");
    int equal = 1;
    for (int r = 0; r < s->size; r++) {
        seg[r] = sizes[r] * inner;
        equal &= sizes[r] == sizes[0];
    }
    tcomm_status_t st = TCOMM_SUCCESS;
    void *tmp = NULL;
    char *land = out->data;
    if (outer > 1 && out->nbytes) {
        TCOMM_CHECK_GOTO(in->graph->space->alloc(ctx, out->nbytes, &tmp), st,
                         done);
        land = tmp;
    }
    static const char *const all_gather_path[2][2] = {
        {"nccl_broadcasts", "nccl_broadcasts+unpack"},
        {"nccl_allgather", "nccl_allgather+unpack"}};
    TCOMM_TRACE_PATH(all_gather_path[equal][outer > 1]);
    ncclDataType_t t = nccl_type(in->dtype);
    if (equal && out->nbytes) {
        NCCL_CHECK_GOTO(ncclAllGather(in->data, land, seg[0] * outer, t,
                                      s->nccl, ctx->stream),
                        st, done);
    } else if (out->nbytes) {
        NCCL_CHECK_GOTO(ncclGroupStart(), st, done);
        size_t off = 0;
        for (int r = 0; r < s->size; r++) {
            size_t count = seg[r] * outer;
            if (count)
                NCCL_CHECK_GOTO(ncclBroadcast(in->data, land + off * es, count,
                                              t, r, s->nccl, ctx->stream),
                                st, done);
            off += count;
        }
        NCCL_CHECK_GOTO(ncclGroupEnd(), st, done);
    }
    if (tmp)
        st = in->graph->space->gather_unpack(ctx, tmp, out->data, es, outer,
                                             s->size, seg);
done:
    free(seg);
    return tcomm_nccl_finish(st, ctx, tmp);
}

/* Along dim > 0 the pack kernel makes each rank's chunk contiguous. */
static tcomm_status_t nccl_reduce_scatter(void *state, const tcomm_tensor_t *in,
                                          tcomm_op_t op, int dim,
                                          tcomm_tensor_t *out)
{
    nccl_state_t *s = state;
    tcomm_cuda_ctx_t *ctx;
    TCOMM_TRY(tcomm_nccl_device_ctx(s, in, "tcomm_reduce_scatter", &ctx));
    size_t n = in->numel, mine = out->numel;
    if (n == 0)
        return TCOMM_SUCCESS;
    size_t outer, inner;
    tcomm_dim_split(in, dim, &outer, &inner);
    int fold = gather_fold(s, in->dtype, op);
    size_t packed_bytes = outer > 1 ? in->nbytes : 0;
    size_t all_bytes = fold ? in->nbytes * (size_t)s->size : 0;
    void *tmp = NULL;
    tcomm_status_t st = TCOMM_SUCCESS;
    if (packed_bytes + all_bytes)
        TCOMM_CHECK_GOTO(
            in->graph->space->alloc(ctx, packed_bytes + all_bytes, &tmp), st,
            done);
    const char *src = in->data;
    if (packed_bytes) {
        TCOMM_CHECK_GOTO(in->graph->space->scatter_pack(ctx, in->data, tmp,
                                                        in->nbytes / n, outer,
                                                        s->size, mine / outer),
                         st, done);
        src = tmp;
    }
    static const char *const rs_path[2][2] = {
        {"nccl_reduce_scatter", "nccl_reduce_scatter+pack"},
        {"nccl_allgather+fold", "nccl_allgather+pack+fold"}};
    TCOMM_TRACE_PATH(rs_path[fold][outer > 1]);
    ncclDataType_t t = nccl_type(in->dtype);
    if (fold) {
        char *all = (char *)tmp + packed_bytes;
        NCCL_CHECK_GOTO(ncclAllGather(src, all, n, t, s->nccl, ctx->stream), st,
                        done);
        TCOMM_CHECK_GOTO(tcomm_nccl_fold_blocks(s, in, op, out->data, all, n,
                                                (size_t)s->rank * mine, mine),
                         st, done);
    } else {
        NCCL_CHECK_GOTO(ncclReduceScatter(src, out->data, mine, t, nccl_op(op),
                                          s->nccl, ctx->stream),
                        st, done);
    }
    st = tcomm_nccl_finish_avg(s, in, op, out, mine);
done:
    return tcomm_nccl_finish(st, ctx, tmp);
}

static tcomm_status_t nccl_broadcast(void *state, const tcomm_tensor_t *in,
                                     int root, tcomm_tensor_t *out)
{
    nccl_state_t *s = state;
    tcomm_cuda_ctx_t *ctx;
    TCOMM_TRY(tcomm_nccl_device_ctx(s, in, "tcomm_broadcast", &ctx));
    tcomm_status_t st = TCOMM_SUCCESS;
    TCOMM_TRACE_PATH("nccl_broadcast");
    if (in->numel)
        NCCL_CHECK_GOTO(ncclBroadcast(in->data, out->data, in->numel,
                                      nccl_type(in->dtype), root, s->nccl,
                                      ctx->stream),
                        st, done);
done:
    return tcomm_nccl_finish(st, ctx, NULL);
}

static tcomm_status_t nccl_query(void *state, int *rank, int *size,
                                 int *cuda_aware)
{
    nccl_state_t *s = state;
    *rank = s->rank;
    *size = s->size;
    *cuda_aware = 1; /* device buffers go to NCCL directly */
    return TCOMM_SUCCESS;
}

static tcomm_status_t nccl_allgather_bytes(void *state, const void *mine,
                                           void *all, size_t bytes)
{
    return tcomm_mpi_allgather_bytes(((nccl_state_t *)state)->mpi, mine, all,
                                     bytes);
}

static tcomm_status_t nccl_allreduce_min_i64(void *state, int64_t *values,
                                             int count)
{
    return tcomm_mpi_min_i64(((nccl_state_t *)state)->mpi, values, count);
}

/* Every collective has synchronized its stream: MPI's barrier suffices. */
static tcomm_status_t nccl_barrier(void *state)
{
    TCOMM_TRACE_PATH("mpi_barrier");
    return tcomm_mpi_barrier(((nccl_state_t *)state)->mpi);
}

static void nccl_destroy(void *state)
{
    nccl_state_t *s = state;
    int failed = s->owner && s->owner->failed, finalized = 0;
    if (s->nccl)
        (void)(failed ? ncclCommAbort(s->nccl) : ncclCommDestroy(s->nccl));
    MPI_Finalized(&finalized);
    if (!finalized && !failed && s->mpi != MPI_COMM_NULL)
        MPI_Comm_free(&s->mpi);
    free(s);
}

static const tcomm_backend_ops_t tcomm_backend_nccl = {
    .size = sizeof(tcomm_backend_ops_t),
    .name = "nccl",
    .query = nccl_query,
    .allgather_bytes = nccl_allgather_bytes,
    .allreduce_min_i64 = nccl_allreduce_min_i64,
    .all_reduce = nccl_all_reduce,
    .all_gather = nccl_all_gather,
    .reduce_scatter = nccl_reduce_scatter,
    .broadcast = nccl_broadcast,
    .barrier = nccl_barrier,
    .destroy = nccl_destroy,
    .all_to_all = tcomm_nccl_all_to_all,
    .all_to_all_v = tcomm_nccl_all_to_all_v,
    .reduce_scatter_v = tcomm_nccl_reduce_scatter_v,
};

/* Every rank learns whether every rank succeeded (ok: this rank's). */
static int all_agree(MPI_Comm comm, int ok)
{
    int all = 0;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return 0;
    return all;
}

static tcomm_status_t bootstrap(nccl_state_t *s, const char *fn)
{
    int count = tcomm_cuda_device_count();
    int ok = count > 0 && cudaGetDevice(&s->device) == cudaSuccess;
    (void)cudaGetLastError();
    if (!all_agree(s->mpi, ok))
        return tcomm_error(TCOMM_ERR_UNSUPPORTED,
                           "%s: %s no usable CUDA device (NCCL needs one "
                           "device per rank; use tcomm_comm_create_mpi)",
                           fn, ok ? "another rank has" : "this rank has");
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    ok = s->rank != 0 || ncclGetUniqueId(&id) == ncclSuccess;
    if (!all_agree(s->mpi, ok))
        return tcomm_error(TCOMM_ERR_COMM_FAILED,
                           "%s: rank 0 could not make an NCCL unique id "
                           "(check NCCL_DEBUG=WARN output)",
                           fn);
    TCOMM_MPI_CHECK(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, s->mpi));
    ncclResult_t rc = ncclCommInitRank(&s->nccl, s->size, id, s->rank);
    if (rc != ncclSuccess)
        s->nccl = NULL;
    if (!all_agree(s->mpi, rc == ncclSuccess))
        return tcomm_error(TCOMM_ERR_COMM_FAILED,
                           "%s: ncclCommInitRank failed on %s: %s (one "
                           "distinct device per rank; NCCL_DEBUG=WARN says "
                           "more)",
                           fn, rc == ncclSuccess ? "another rank" : "this rank",
                           ncclGetErrorString(rc));
    return TCOMM_SUCCESS;
}

tcomm_status_t tcomm_comm_create_nccl(MPI_Comm mpi_comm, tcomm_comm_t **comm)
{
    static const char fn[] = "tcomm_comm_create_nccl";
    tcomm_error_clear();
    TCOMM_TRY(tcomm_mpi_check_ready(fn));
    if (!comm || mpi_comm == MPI_COMM_NULL)
        return tcomm_error(
            TCOMM_ERR_INVALID_ARG,
            "%s: %s (pass a valid MPI communicator and the "
            "address of a tcomm_comm_t pointer)",
            fn, !comm ? "comm is NULL" : "mpi_comm is MPI_COMM_NULL");
    TCOMM_TRY(tcomm_mpi_check_intra(fn, mpi_comm));
    nccl_state_t *s = calloc(1, sizeof *s);
    if (!s)
        return tcomm_error(TCOMM_ERR_NO_MEMORY, "%s: out of host memory", fn);
    tcomm_status_t st =
        tcomm_mpi_dup(fn, mpi_comm, &s->mpi, &s->rank, &s->size);
    if (st == TCOMM_SUCCESS)
        st = bootstrap(s, fn);
    if (st == TCOMM_SUCCESS)
        st = tcomm_comm_wrap_backend(&tcomm_backend_nccl, s, comm);
    if (st != TCOMM_SUCCESS) {
        tcomm_error_kept_t why;
        tcomm_error_keep(&why);
        nccl_destroy(s);
        why.status = st;
        return tcomm_error_restore(&why);
    }
    s->owner = *comm;
    /* the agreement goes through MPI; the space ops set the device */
    (*comm)->progress_thread_ok = tcomm_mpi_thread_multiple();
    return TCOMM_SUCCESS;
}
