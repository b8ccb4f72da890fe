/* SPDX-License-Identifier: BSD-3-Clause */
/* A plain MPI program (no tcomm) that calls every collective
 * libtcomm_pmpi interposes, over every predefined datatype and op, in
 * place and not, zero counts, roots other than 0, sub-communicators, an
 * intercommunicator and derived datatypes, and prints a hash of each
 * result, one line per rank and call (to argv[1].RANK if given). test/pmpi-check.sh runs it with
 * and without the library and compares the lines. Values are small
 * integers, so floating sums are exact in any order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_test.h"

enum { I8, U8, I16, U16, I32, U32, I64, U64, F32, F64, CF, CD, RAW };
typedef struct {
    MPI_Datatype type;
    const char *name;
    int kind;
} type_t;

static type_t types[32];
static int ntypes, rank, nprocs;
static char where[64]; /* the communicator's name in the output */

static void add(MPI_Datatype t, const char *name, int kind)
{
    types[ntypes++] = (type_t){t, name, kind};
}

static void init_types(void)
{
    add(MPI_SIGNED_CHAR, "signed_char", I8);
    add(MPI_UNSIGNED_CHAR, "unsigned_char", U8);
    add(MPI_INT8_T, "int8", I8);
    add(MPI_UINT8_T, "uint8", U8);
    add(MPI_SHORT, "short", I16);
    add(MPI_UNSIGNED_SHORT, "unsigned_short", U16);
    add(MPI_INT, "int", I32);
    add(MPI_INT32_T, "int32", I32);
    add(MPI_UNSIGNED, "unsigned", U32);
    add(MPI_UINT32_T, "uint32", U32);
    add(MPI_LONG, "long", sizeof(long) == 8 ? I64 : I32);
    add(MPI_UNSIGNED_LONG, "unsigned_long", sizeof(long) == 8 ? U64 : U32);
    add(MPI_LONG_LONG, "long_long", I64);
    add(MPI_INT64_T, "int64", I64);
    add(MPI_UINT64_T, "uint64", U64);
    add(MPI_FLOAT, "float", F32);
    add(MPI_DOUBLE, "double", F64);
    add(MPI_C_FLOAT_COMPLEX, "float_complex", CF);
    add(MPI_C_DOUBLE_COMPLEX, "double_complex", CD);
    add(MPI_BYTE, "byte", RAW);
    add(MPI_CHAR, "char", RAW);
    add(MPI_LONG_DOUBLE, "long_double", RAW);
    add(MPI_C_BOOL, "bool", RAW);
}

static int tsize(MPI_Datatype t)
{
    int s;
    MPI_Type_size(t, &s);
    return s;
}

/* Element i of rank r: small, so that no op overflows at 4 ranks. */
static void fill(const type_t *t, void *buf, int n, int r, int small)
{
    for (int i = 0; i < n; i++) {
        int v = small ? (i + r) % 2 + 1 : (i * 7 + r * 3) % 11 + 1;
        switch (t->kind) {
        case I8: ((int8_t *)buf)[i] = (int8_t)v; break;
        case U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
        case I16: ((int16_t *)buf)[i] = (int16_t)v; break;
        case U16: ((uint16_t *)buf)[i] = (uint16_t)v; break;
        case I32: ((int32_t *)buf)[i] = v; break;
        case U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
        case I64: ((int64_t *)buf)[i] = v; break;
        case U64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
        case F32: ((float *)buf)[i] = (float)v; break;
        case F64: ((double *)buf)[i] = v; break;
        case CF: ((float *)buf)[2 * i] = (float)v;
                 ((float *)buf)[2 * i + 1] = (float)r; break;
        case CD: ((double *)buf)[2 * i] = v;
                 ((double *)buf)[2 * i + 1] = r; break;
        default:
            memset((char *)buf + (size_t)i * tsize(t->type), (v + i) & 0x7f,
                   (size_t)tsize(t->type));
        }
    }
}

static void print(const char *what, const void *buf, size_t bytes)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ ((const unsigned char *)buf)[i]) * 1099511628211ull;
    printf("%d %s %s: %016llx\n", rank, where, what, (unsigned long long)h);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static const int counts[] = {0, 1, 3, 4099, 20000};
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])

static void reductions(MPI_Comm comm, MPI_Op user)
{
    MPI_Op iops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND,
                     MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR};
    const char *inames[] = {"sum", "prod", "min", "max", "band",
                            "bor", "bxor", "land", "lor", "lxor"};
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    for (int ti = 0; ti < ntypes; ti++) {
        const type_t *t = &types[ti];
        if (t->kind == RAW)
            continue;
        int nops = t->kind >= F32 ? (t->kind >= CF ? 2 : 4) : 10;
        for (int oi = 0; oi < nops; oi++)
            for (int ci = 0; ci < NCOUNTS; ci++)
                for (int ip = 0; ip < 2; ip++) {
                    int c = counts[ci], s = tsize(t->type);
                    size_t b = (size_t)c * s;
                    char *in = malloc(b * n + 1), *out = malloc(b * n + 1);
                    char what[128];
                    int small = iops[oi] == MPI_PROD;
                    /* MPI_Allreduce */
                    fill(t, in, c, me, small);
                    fill(t, out, c, me, small);
                    MPI_Allreduce(ip ? MPI_IN_PLACE : in, out, c, t->type,
                                  iops[oi], comm);
                    snprintf(what, sizeof what, "allreduce %s %s %d ip%d",
                             t->name, inames[oi], c, ip);
                    print(what, out, b);
                    /* MPI_Reduce_scatter_block: c per rank */
                    fill(t, in, c * n, me, small);
                    fill(t, out, c * n, me, small);
                    MPI_Reduce_scatter_block(ip ? MPI_IN_PLACE : in, out, c,
                                             t->type, iops[oi], comm);
                    snprintf(what, sizeof what, "rsb %s %s %d ip%d",
                             t->name, inames[oi], c, ip);
                    print(what, out, b);
                    /* MPI_Reduce_scatter: rank r gets c + r (then c=0) */
                    int *rc = malloc(sizeof(int) * n), tot = 0;
                    for (int r = 0; r < n; r++)
                        tot += rc[r] = c ? c / n + r : 0;
                    char *in2 = malloc((size_t)tot * s + 1);
                    char *out2 = malloc((size_t)tot * s + 1);
                    fill(t, in2, tot, me, small);
                    fill(t, out2, tot, me, small);
                    MPI_Reduce_scatter(ip ? MPI_IN_PLACE : in2, out2, rc,
                                       t->type, iops[oi], comm);
                    snprintf(what, sizeof what, "rs %s %s %d ip%d", t->name,
                             inames[oi], c, ip);
                    print(what, out2, (size_t)rc[me] * s);
                    free(rc), free(in2), free(out2), free(in), free(out);
                }
    }
    /* a user op and MINLOC/MAXLOC pass to MPI */
    int a[4099], b[4099];
    fill(&types[6], a, 4099, me, 0);
    MPI_Allreduce(a, b, 4099, MPI_INT, user, comm);
    print("allreduce int user", b, sizeof b);
    struct { double v; int i; } p[5000], q[5000];
    for (int i = 0; i < 5000; i++)
        p[i].v = (i * 3 + me * 5) % 7, p[i].i = me;
    MPI_Allreduce(p, q, 5000, MPI_DOUBLE_INT, MPI_MINLOC, comm);
    for (int i = 0; i < 5000; i++)
        a[i % 4099] ^= (int)q[i].v * 31 + q[i].i;
    MPI_Allreduce(p, q, 5000, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    for (int i = 0; i < 5000; i++)
        a[i % 4099] ^= (int)q[i].v * 17 + q[i].i;
    print("allreduce minloc maxloc", a, sizeof a);
}

static void movements(MPI_Comm comm)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    for (int ti = 0; ti < ntypes; ti++) {
        const type_t *t = &types[ti];
        for (int ci = 0; ci < NCOUNTS; ci++) {
            int c = counts[ci], s = tsize(t->type);
            size_t b = (size_t)c * s;
            char *in = malloc(b * n + 1), *out = malloc(b * n + 1);
            int *cnt = malloc(sizeof(int) * n), *dsp = malloc(sizeof(int) * n);
            char what[128];
            /* MPI_Bcast from every root */
            for (int root = 0; root < n; root++) {
                fill(t, in, c, me + root, 0);
                MPI_Bcast(in, c, t->type, root, comm);
                snprintf(what, sizeof what, "bcast %s %d root%d", t->name, c,
                         root);
                print(what, in, b);
            }
            for (int ip = 0; ip < 2; ip++) {
                /* MPI_Allgather */
                fill(t, in, c, me, 0);
                fill(t, out, c * n, me + 1, 0);
                if (ip)
                    memcpy(out + (size_t)me * b, in, b);
                MPI_Allgather(ip ? MPI_IN_PLACE : in, c, t->type, out, c,
                              t->type, comm);
                snprintf(what, sizeof what, "allgather %s %d ip%d", t->name,
                         c, ip);
                print(what, out, b * n);
                /* MPI_Alltoall */
                fill(t, in, c * n, me, 0);
                fill(t, out, c * n, me, 0);
                MPI_Alltoall(ip ? MPI_IN_PLACE : in, c, t->type, out, c,
                             t->type, comm);
                snprintf(what, sizeof what, "alltoall %s %d ip%d", t->name,
                         c, ip);
                print(what, out, b * n);
                /* MPI_Allgatherv: counts c/n + r; displs in rank order,
                   then reversed (not in rank order) */
                for (int rev = 0; rev < 2; rev++) {
                    int tot = 0;
                    for (int r = 0; r < n; r++)
                        tot += cnt[r] = c ? c / n + r : 0;
                    for (int r = 0, at = 0; r < n; r++) {
                        int k = rev ? n - 1 - r : r;
                        dsp[k] = at;
                        at += cnt[k];
                    }
                    char *o2 = malloc((size_t)tot * s + 1);
                    fill(t, in, cnt[me], me, 0);
                    fill(t, o2, tot, me + 2, 0);
                    if (ip)
                        memcpy(o2 + (size_t)dsp[me] * s, in,
                               (size_t)cnt[me] * s);
                    MPI_Allgatherv(ip ? MPI_IN_PLACE : in, cnt[me], t->type,
                                   o2, cnt, dsp, t->type, comm);
                    snprintf(what, sizeof what, "allgatherv %s %d ip%d rev%d",
                             t->name, c, ip, rev);
                    print(what, o2, (size_t)tot * s);
                    free(o2);
                }
            }
            /* MPI_Alltoallv: block c in reversed displacements; uneven
               counts f(me, r) in rank order; symmetric ones in place */
            for (int mode = 0; mode < 3; mode++) {
                int *sc = malloc(sizeof(int) * 4 * n), *sd = sc + n,
                    *rc = sc + 2 * n, *rd = sc + 3 * n, st = 0, rt = 0;
                for (int r = 0; r < n; r++) {
                    int f = mode == 1 ? (me + 2 * r) % 3 : (me + r) % 3;
                    int g = mode == 1 ? (r + 2 * me) % 3 : (r + me) % 3;
                    sc[r] = mode == 0 ? c : c ? c / n + f : 0;
                    rc[r] = mode == 0 ? c : c ? c / n + g : 0;
                }
                for (int r = 0; r < n; r++) {
                    int k = mode == 0 ? n - 1 - r : r;
                    sd[k] = st, st += sc[k];
                    rd[k] = rt, rt += rc[k];
                }
                char *a = malloc((size_t)(st + 1) * s);
                char *o = malloc((size_t)(rt + 1) * s);
                fill(t, a, st, me, 0);
                fill(t, o, rt, me + 5, 0);
                if (mode == 2)
                    memcpy(o, a, (size_t)st * s);
                MPI_Alltoallv(mode == 2 ? MPI_IN_PLACE : a, sc, sd, t->type,
                              o, rc, rd, t->type, comm);
                snprintf(what, sizeof what, "alltoallv %s %d mode%d", t->name,
                         c, mode);
                print(what, o, (size_t)rt * s);
                free(sc), free(a), free(o);
            }
            free(in), free(out), free(cnt), free(dsp);
        }
    }
    /* a derived, non-contiguous type passes to MPI */
    MPI_Datatype vec;
    MPI_Type_vector(1000, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *v = calloc(3000 * (size_t)n, sizeof(int));
    fill(&types[6], v, 3000, me, 0);
    MPI_Bcast(v, 1, vec, n - 1, comm);
    print("bcast vector", v, 3000 * sizeof(int));
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, 1, vec, comm);
    print("allgather vector", v, 3000 * sizeof(int) * (size_t)n);
    MPI_Type_free(&vec);
    free(v);
    MPI_Barrier(comm);
}

/* Nonblocking collectives and point-to-point in one MPI_Waitall. */
static void nonblocking(MPI_Comm comm)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    enum { C = 8192 };
    static double a[C], b[C], g[C * 4], x[C * 4], y[C * 4], bc[C];
    static double rs[C * 4], rso[C / 4];
    int sendv = me, recvv = -1;
    MPI_Request rq[8];
    fill(&types[16], a, C, me, 0);
    fill(&types[16], x, C * n, me, 0);
    fill(&types[16], rs, C / 4 * n, me, 0);
    fill(&types[16], bc, C, me, 0);
    MPI_Irecv(&recvv, 1, MPI_INT, (me + n - 1) % n, 7, comm, &rq[0]);
    MPI_Iallreduce(a, b, C, MPI_DOUBLE, MPI_SUM, comm, &rq[1]);
    MPI_Iallgather(a, C, MPI_DOUBLE, g, C, MPI_DOUBLE, comm, &rq[2]);
    MPI_Ialltoall(x, C, MPI_DOUBLE, y, C, MPI_DOUBLE, comm, &rq[3]);
    MPI_Ireduce_scatter_block(rs, rso, C / 4, MPI_DOUBLE, MPI_MAX, comm,
                              &rq[4]);
    MPI_Ibcast(bc, C, MPI_DOUBLE, n - 1, comm, &rq[5]);
    MPI_Isend(&sendv, 1, MPI_INT, (me + 1) % n, 7, comm, &rq[6]);
    MPI_Waitall(7, rq, MPI_STATUSES_IGNORE);
    print("iallreduce", b, sizeof b);
    print("iallgather", g, sizeof(double) * C * n);
    print("ialltoall", y, sizeof(double) * C * n);
    print("ireduce_scatter_block", rso, sizeof rso);
    print("ibcast", bc, sizeof bc);
    print("irecv", &recvv, sizeof recvv);
}

static void run(MPI_Comm comm, const char *name, MPI_Op user)
{
    snprintf(where, sizeof where, "%s", name);
    reductions(comm, user);
    movements(comm);
    nonblocking(comm);
}

int main(int argc, char **argv)
{
    pmpi_test_start(&argc, &argv, MPI_THREAD_MULTIPLE, &rank, &nprocs);
    init_types();
    MPI_Op user;
    MPI_Op_create(user_sum, 1, &user);

    run(MPI_COMM_WORLD, "world", user);
    MPI_Comm dup, half, rev;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    run(dup, "dup", user);
    MPI_Comm_free(&dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    run(half, rank % 2 ? "odd" : "even", user);
    /* MPI_Comm_create over the ranks in reverse order */
    MPI_Group world, back;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int range[1][3] = {{nprocs - 1, 0, -1}};
    MPI_Group_range_incl(world, 1, range, &back);
    MPI_Comm_create(MPI_COMM_WORLD, back, &rev);
    run(rev, "reversed", user);
    MPI_Group_free(&back), MPI_Group_free(&world);
    MPI_Comm_free(&rev);
    /* an intercommunicator between the halves passes to MPI */
    if (nprocs > 1) {
        MPI_Comm inter;
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 9,
                             &inter);
        int v[5000], w[5000];
        for (int i = 0; i < 5000; i++)
            v[i] = i + rank;
        MPI_Allreduce(v, w, 5000, MPI_INT, MPI_SUM, inter);
        snprintf(where, sizeof where, "inter");
        print("allreduce", w, sizeof w);
        MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&half);
    MPI_Op_free(&user);
    MPI_Finalize();
    return 0;
}
