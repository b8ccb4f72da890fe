/* SPDX-License-Identifier: BSD-3-Clause */
/* A 2-D heat equation, u_t = alpha (u_xx + u_yy), explicit in time, on
 * an nx x ny grid split into column blocks over the ranks (uneven blocks
 * when nx does not divide). The hot top edge diffuses into a cold plate
 * that starts with a warm square in the middle.
 *
 * What tcomm does here, as in a simulation code:
 *   - rank 0 reads the parameters and broadcasts them (in place);
 *   - every step, the squared change of the local block is summed over
 *     the ranks (all_reduce) to decide convergence;
 *   - at the end, the distributed field [ny][nx_local] is gathered along
 *     dim 1, the x dim, into the whole field [ny][nx] on every rank.
 * The halo columns move with plain MPI (MPI_Sendrecv of a column type).
 * Buffers are wrapped once (tcomm_tensor_wrap, zero copy) and the _into
 * collectives write into them.
 *
 * Finally rank 0 solves the same problem serially for the same number of
 * steps and compares: the exit status is 0 only if they agree.
 *
 *   mpicc heat2d.c $(pkg-config --cflags --libs tcomm) -lm -o heat2d
 *   mpirun -np 4 ./heat2d [nx ny max_steps] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tcomm_mpi.h>

#define CHECK(call)                                                         \
    do {                                                                    \
        if ((call) != TCOMM_SUCCESS) {                                      \
            fprintf(stderr, "heat2d: %s\n", tcomm_last_error());           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                   \
        }                                                                   \
    } while (0)

enum { P_NX, P_NY, P_STEPS, P_R, P_TOL, P_COUNT };

/* The initial value at global interior point (x, y), 1-based. */
static double initial(int x, int y, int nx, int ny)
{
    int cx = nx / 2, cy = ny / 2, w = nx / 8 + 1;
    return abs(x - cx) < w && abs(y - cy) < w ? 0.5 : 0.0;
}

/* One explicit step on a block of w interior columns (halo included:
 * rows 0..ny+1, columns 0..w+1); returns the sum of squared changes. */
static double step(const double *u, double *un, int w, int ny, double r)
{
    int ld = w + 2;
    double change = 0;
    for (int j = 1; j <= ny; j++)
        for (int i = 1; i <= w; i++) {
            const double *c = u + j * ld + i;
            double v = c[0] + r * (c[-1] + c[1] + c[-ld] + c[ld] - 4 * c[0]);
            un[j * ld + i] = v;
            change += (v - c[0]) * (v - c[0]);
        }
    return change;
}

/* The grid with its boundary: top edge 1, the other edges 0. */
static void init_block(double *u, int w, int x0, int nx, int ny)
{
    int ld = w + 2;
    memset(u, 0, sizeof *u * (size_t)(ny + 2) * (size_t)ld);
    for (int i = 0; i < ld; i++)
        u[(ny + 1) * ld + i] = 1.0;
    for (int j = 1; j <= ny; j++)
        for (int i = 1; i <= w; i++)
            u[j * ld + i] = initial(x0 + i, j, nx, ny);
}

/* The serial solution after `steps` steps. */
static double *solve_serial(int nx, int ny, int steps, double r)
{
    size_t n = (size_t)(ny + 2) * (size_t)(nx + 2);
    double *u = malloc(n * sizeof *u), *un = malloc(n * sizeof *un);
    init_block(u, nx, 0, nx, ny);
    memcpy(un, u, n * sizeof *u);
    for (int s = 0; s < steps; s++) {
        step(u, un, nx, ny, r);
        double *t = u;
        u = un;
        un = t;
    }
    free(un);
    return u;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tcomm_comm_t *comm = NULL;
    tcomm_graph_t *graph = NULL;
    tcomm_comm_info_t info;
    tcomm_device_t host = {TCOMM_DEVICE_HOST, 0};
    CHECK(tcomm_comm_create_mpi(MPI_COMM_WORLD, &comm));
    CHECK(tcomm_comm_info(comm, &info));
    CHECK(tcomm_graph_create(host, &graph));
    int me = info.rank, np = info.world_size;

    /* rank 0 decides the parameters; everyone gets them */
    double params[P_COUNT] = {0};
    if (me == 0) {
        params[P_NX] = argc > 1 ? atoi(argv[1]) : 42;
        params[P_NY] = argc > 2 ? atoi(argv[2]) : 30;
        params[P_STEPS] = argc > 3 ? atoi(argv[3]) : 400;
        params[P_R] = 0.2;  /* alpha dt / h^2, stable below 0.25 */
        params[P_TOL] = 1e-2;
    }
    tcomm_tensor_t *tparams = NULL;
    size_t pshape[1] = {P_COUNT};
    CHECK(tcomm_tensor_wrap(graph, TCOMM_F64, params, 1, pshape, &tparams));
    CHECK(tcomm_broadcast_into(comm, tparams, 0, tparams));
    int nx = (int)params[P_NX], ny = (int)params[P_NY];
    int max_steps = (int)params[P_STEPS];
    double r = params[P_R], tol = params[P_TOL];

    /* my columns: x0+1 .. x0+w, the first nx % np ranks one more */
    int w = nx / np + (me < nx % np), x0 = me * (nx / np) +
                                           (me < nx % np ? me : nx % np);
    int ld = w + 2;
    size_t n = (size_t)(ny + 2) * (size_t)ld;
    double *u = malloc(n * sizeof *u), *un = malloc(n * sizeof *un);
    init_block(u, w, x0, nx, ny);
    memcpy(un, u, n * sizeof *u);
    int left = me > 0 ? me - 1 : MPI_PROC_NULL;
    int right = me < np - 1 ? me + 1 : MPI_PROC_NULL;
    MPI_Datatype column;
    MPI_Type_vector(ny + 2, 1, ld, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    double change;
    tcomm_tensor_t *tchange = NULL;
    size_t one[1] = {1};
    CHECK(tcomm_tensor_wrap(graph, TCOMM_F64, &change, 1, one, &tchange));
    int steps = 0;
    while (steps < max_steps) {
        MPI_Sendrecv(u + w, 1, column, right, 0, u, 1, column, left, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + 1, 1, column, left, 1, u + w + 1, 1, column, right,
                     1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        change = step(u, un, w, ny, r);
        double *t = u;
        u = un;
        un = t;
        steps++;
        CHECK(tcomm_all_reduce_into(comm, tchange, TCOMM_SUM, tchange));
        if (sqrt(change) < tol)
            break;
    }

    /* the field for output: gather the blocks along dim 1 (x) */
    double *block = malloc((size_t)ny * (size_t)w * sizeof *block);
    double *field = malloc((size_t)ny * (size_t)nx * sizeof *field);
    for (int j = 0; j < ny; j++)
        memcpy(block + (size_t)j * w, u + (j + 1) * ld + 1, w * sizeof *u);
    tcomm_tensor_t *tblock = NULL, *tfield = NULL;
    size_t bshape[2] = {(size_t)ny, (size_t)w};
    size_t fshape[2] = {(size_t)ny, (size_t)nx};
    CHECK(tcomm_tensor_wrap(graph, TCOMM_F64, block, 2, bshape, &tblock));
    CHECK(tcomm_tensor_wrap(graph, TCOMM_F64, field, 2, fshape, &tfield));
    CHECK(tcomm_all_gather_into(comm, tblock, 1, tfield));

    /* rank 0 checks against the serial solution; all share the verdict */
    int verdict[1] = {0};
    if (me == 0) {
        double *s = solve_serial(nx, ny, steps, r), diff = 0, heat = 0;
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                double d = fabs(field[j * nx + i] - s[(j + 1) * (nx + 2) +
                                                      i + 1]);
                diff = d > diff ? d : diff;
                heat += field[j * nx + i];
            }
        free(s);
        verdict[0] = diff <= 1e-12;
        printf("heat2d (C): %d ranks, %dx%d grid, %d steps, change %.3e, "
               "mean temperature %.6f, max |parallel - serial| = %.1e: "
               "%s\n",
               np, nx, ny, steps, sqrt(change), heat / (nx * ny), diff,
               verdict[0] ? "PASS" : "FAIL");
    }
    tcomm_tensor_t *tverdict = NULL;
    CHECK(tcomm_tensor_wrap(graph, TCOMM_I32, verdict, 1, one, &tverdict));
    CHECK(tcomm_broadcast_into(comm, tverdict, 0, tverdict));

    tcomm_tensor_release(tverdict);
    tcomm_tensor_release(tfield);
    tcomm_tensor_release(tblock);
    tcomm_tensor_release(tchange);
    tcomm_tensor_release(tparams);
    free(field);
    free(block);
    free(u);
    free(un);
    MPI_Type_free(&column);
    CHECK(tcomm_graph_destroy(graph));
    CHECK(tcomm_comm_destroy(comm));
    MPI_Finalize();
    return verdict[0] ? 0 : 1;
}
