/* SPDX-License-Identifier: BSD-3-Clause */
/* The nonblocking collectives under mpirun (1-4 ranks), continued from
 * test/mpi_nonblocking.c: two communicators at once; progress while a
 * rank computes without calls into tcomm; sim (device) tensors;
 * all_to_all_start. */
#include "mpi_nonblocking.h"
#include "tcomm_sim.h"

#define NB_TAG 4717 /* the progress case's MPI message */

/* Requests on two communicators at once. With progress threads the
 * ranks may even start them in different orders across communicators
 * (odd ranks start on the second first); where starts complete the
 * collective (caller mode) that would deadlock, so all start alike. */
START_TEST(two_communicators)
{
    tcomm_comm_t *c2 = NULL;
    ck_assert_int_eq(tcomm_comm_create_mpi(MPI_COMM_WORLD, &c2),
                     TCOMM_SUCCESS);
    nb_spec_t s[4] = {{NB_REDUCE, TCOMM_F32, TCOMM_SUM, 0, 8, 100},
                      {NB_GATHER, TCOMM_I64, -1, 0, 2, 3},
                      {NB_BCAST, TCOMM_F16, -1, 0, 3, 3},
                      {NB_SCATTER, TCOMM_I32, TCOMM_MIN, 1, 2,
                       4 * (size_t)nranks}};
    tcomm_comm_t *on[4] = {comm, c2, comm, c2};
    tcomm_tensor_t *in[4], *out[4];
    tcomm_request_t *req[4];
    int cross = !caller_mode && rank % 2;
    static const int plain[4] = {0, 1, 2, 3}, swapped[4] = {1, 0, 3, 2};
    const int *order = cross ? swapped : plain;
    for (int k = 0; k < 4; k++) {
        int i = order[k];
        in[i] = nb_input(graph, &s[i], rank);
        out[i] = nb_output(graph, &s[i], nranks);
        ok(nb_start(on[i], &s[i], in[i], out[i], &req[i]), "start");
    }
    /* the second communicator's first, then the first's in reverse */
    ok(tcomm_wait(&req[1]), "wait c2");
    ok(tcomm_wait(&req[3]), "wait c2");
    ok(tcomm_wait(&req[2]), "wait comm");
    ok(tcomm_wait(&req[0]), "wait comm");
    for (int i = 0; i < 4; i++) {
        nb_check(out[i], &s[i], rank, nranks, "two communicators");
        tcomm_tensor_release(out[i]);
        tcomm_tensor_release(in[i]);
    }
    ck_assert_int_eq(tcomm_comm_destroy(c2), TCOMM_SUCCESS);
    agree("two_communicators");
}
END_TEST

/* Rank 0 starts an all_reduce and computes 2 s without calls into
 * tcomm; the others wait for theirs and, at once, send rank 0 an MPI
 * message. Rank 0 must find rank 1's message as soon as it wakes (before
 * its own wait): the others completed while it computed. A functional
 * check with a wide margin, not a benchmark. */
START_TEST(progress_without_calls)
{
    nb_spec_t s = {NB_REDUCE, TCOMM_F32, TCOMM_SUM, 0, 32, 256};
    tcomm_tensor_t *in = nb_input(graph, &s, rank);
    tcomm_tensor_t *out = nb_output(graph, &s, nranks);
    tcomm_request_t *req = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    ok(tcomm_all_reduce_start(comm, in, TCOMM_SUM, out, &req), "start");
    if (rank == 0) {
        sleep(2); /* computing */
        int found = 0;
        double until = MPI_Wtime() + 0.5; /* MPI's own progress only */
        while (!found && MPI_Wtime() < until)
            MPI_Iprobe(1 % nranks, NB_TAG, MPI_COMM_WORLD, &found,
                       MPI_STATUS_IGNORE);
        if (nranks > 1 && !found) {
            fprintf(stderr, "rank 0: rank 1 had not completed its "
                            "all_reduce 2 s after rank 0 started\n");
            nb_bad++;
        }
        ok(tcomm_wait(&req), "tcomm_wait");
        for (int r = 1; r < nranks; r++) {
            int who;
            MPI_Recv(&who, 1, MPI_INT, r, NB_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
    } else {
        ok(tcomm_wait(&req), "tcomm_wait");
        MPI_Send(&rank, 1, MPI_INT, 0, NB_TAG, MPI_COMM_WORLD);
    }
    nb_check(out, &s, rank, nranks, "progress without calls");
    tcomm_tensor_release(out);
    tcomm_tensor_release(in);
    agree("progress_without_calls");
}
END_TEST

/* all_reduce_start and all_gather_start on sim (device) tensors of a
 * tagged sim graph: the staged path, on the progress thread. */
START_TEST(sim_tensors)
{
    tcomm_graph_t *sim = NULL;
    ck_assert_int_eq(tcomm_graph_create_sim_flags(0, TCOMM_SIM_TAGGED, &sim),
                     TCOMM_SUCCESS);
    nb_spec_t s[4] = {{NB_REDUCE, TCOMM_F32, TCOMM_SUM, 0, 16, 300},
                      {NB_GATHER, TCOMM_BF16, -1, 0, 4, 5},
                      {NB_REDUCE, TCOMM_I64, TCOMM_MAX, 0, 3, 3},
                      {NB_GATHER, TCOMM_F64, -1, 1, 2, 7}};
    tcomm_tensor_t *in[4], *out[4];
    tcomm_request_t *req[4];
    for (int i = 0; i < 4; i++) {
        in[i] = nb_input(sim, &s[i], rank);
        out[i] = nb_output(sim, &s[i], nranks);
        ok(nb_start(comm, &s[i], in[i], out[i], &req[i]), "sim start");
    }
    ok(tcomm_wait(&req[2]), "tcomm_wait");
    ok(tcomm_wait_all(4, req), "tcomm_wait_all");
    for (int i = 0; i < 4; i++) {
        nb_check(out[i], &s[i], rank, nranks, "sim tensors");
        tcomm_tensor_release(out[i]);
        tcomm_tensor_release(in[i]);
    }
    ck_assert_uint_eq(tcomm_sim_pending(sim), 0);
    ck_assert_int_eq(tcomm_graph_destroy(sim), TCOMM_SUCCESS);
    agree("sim_tensors");
}
END_TEST

/* all_to_all_start along dim 0 and dim 1, in place too. */
START_TEST(all_to_all_start)
{
    size_t n2 = 2 * (size_t)nranks;
    nb_spec_t s[3] = {{NB_A2A, TCOMM_F32, -1, 0, n2, 3},
                      {NB_A2A, TCOMM_I64, -1, 1, 3, n2},
                      {NB_A2A, TCOMM_BF16, -1, 0, n2, 5}};
    tcomm_tensor_t *in[3], *out[3];
    tcomm_request_t *req[3];
    for (int i = 0; i < 3; i++) {
        in[i] = nb_input(graph, &s[i], rank);
        out[i] = i == 2 ? in[i] : nb_output(graph, &s[i], nranks);
        ok(nb_start(comm, &s[i], in[i], out[i], &req[i]), "a2a start");
    }
    ok(tcomm_wait_all(3, req), "tcomm_wait_all");
    for (int i = 0; i < 3; i++) {
        nb_check(out[i], &s[i], rank, nranks, "all_to_all_start");
        if (out[i] != in[i])
            tcomm_tensor_release(out[i]);
        tcomm_tensor_release(in[i]);
    }
    agree("all_to_all_start");
}
END_TEST
static void add(TCase *tc)
{
    tcase_add_test(tc, two_communicators);
    tcase_add_test(tc, progress_without_calls);
    tcase_add_test(tc, sim_tensors);
    tcase_add_test(tc, all_to_all_start);
}

int main(int argc, char **argv)
{
    return nb_main(argc, argv, "mpi_nonblocking_progress", add);
}
