/* SPDX-License-Identifier: BSD-3-Clause */
/* How a timeout names ranks: lists of ranks, and where the ranks it
 * cannot see are: every rank's host name
 * (MPI_Get_processor_name), gathered once when a communicator with
 * TCOMM_TIMEOUT is made, so that a timeout names the ranks on other nodes
 * and their nodes ("ranks 2 and 3 on node7") instead of a count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_timeout.h"

/* Each name is cut to this many bytes: enough to tell nodes apart. */
#define HOST_NAME_BYTES 64
/* The nodes a message names, then "and N more". */
#define HOSTS_SHOWN 4

int tcomm_timeout_hosts_gather(MPI_Comm comm, char **names)
{
    char mine[MPI_MAX_PROCESSOR_NAME] = "", cut[HOST_NAME_BYTES];
    int len = 0, size, rc;
    *names = NULL;
    MPI_Get_processor_name(mine, &len);
    memset(cut, 0, sizeof cut);
    snprintf(cut, sizeof cut, "%s", mine);
    if ((rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS)
        return rc;
    char *all = malloc((size_t)size * HOST_NAME_BYTES);
    if (!all)
        return MPI_ERR_NO_MEM;
    rc = MPI_Allgather(cut, HOST_NAME_BYTES, MPI_CHAR, all, HOST_NAME_BYTES,
                       MPI_CHAR, comm);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    *names = all;
    return MPI_SUCCESS;
}

static const char *host_of(const char *names, int rank)
{
    return names + (size_t)rank * HOST_NAME_BYTES;
}

/* Appends "ranks 2, 3 and 5 on HOST" of the ranks on HOST (at most a few
 * named) to buf at *at. */
static void name_host(const char *names, int size, const char *host,
                      const char *sep, char *buf, size_t len, size_t *at)
{
    int count = 0;
    for (int r = 0; r < size; r++)
        count += !strcmp(host_of(names, r), host);
    *at += (size_t)snprintf(buf + *at, len - *at, "%s%s", sep,
                            count > 1 ? "ranks " : "rank ");
    int shown = 0;
    for (int r = 0; r < size && *at < len; r++) {
        if (strcmp(host_of(names, r), host))
            continue;
        const char *s = shown == 0 ? "" : shown == count - 1 ? " and " : ", ";
        if (shown < 8)
            *at += (size_t)snprintf(buf + *at, len - *at, "%s%d", s, r);
        shown++;
    }
    if (count > 8 && *at < len)
        *at += (size_t)snprintf(buf + *at, len - *at, " and %d more",
                                count - 8);
    if (*at < len)
        *at += (size_t)snprintf(buf + *at, len - *at, " on %s", host);
}

void tcomm_timeout_hosts_away(const char *names, int size,
                              const int *node_ranks, int nnode, char *buf,
                              size_t len)
{
    size_t at = 0;
    int hosts = 0;
    buf[0] = '\0';
    for (int r = 0; r < size && at < len; r++) {
        int here = 0, seen = 0;
        for (int i = 0; i < nnode && !here; i++)
            here = node_ranks[i] == r;
        for (int q = 0; q < r && !seen && !here; q++)
            seen = !strcmp(host_of(names, q), host_of(names, r));
        if (here || seen)
            continue; /* this node's, or a host already named */
        if (hosts++ < HOSTS_SHOWN)
            name_host(names, size, host_of(names, r), hosts > 1 ? "; " : "",
                      buf, len, &at);
    }
    if (hosts > HOSTS_SHOWN && at < len)
        snprintf(buf + at, len - at, "; and %d more nodes",
                 hosts - HOSTS_SHOWN);
}

#define NAMES_SHOWN 16

/* "2, 5 and 7" of at most NAMES_SHOWN ranks, then "and N more". */
void tcomm_timeout_rank_list(const int *r, int n, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && i < NAMES_SHOWN && at < len; i++) {
        const char *sep = i == 0 ? "" : i == n - 1 ? " and " : ", ";
        at += (size_t)snprintf(buf + at, len - at, "%s%d", sep, r[i]);
    }
    if (n > NAMES_SHOWN && at < len)
        snprintf(buf + at, len - at, " and %d more", n - NAMES_SHOWN);
}
