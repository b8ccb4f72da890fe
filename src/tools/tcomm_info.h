/* SPDX-License-Identifier: BSD-3-Clause */
/* tcomm_info's output: each fact once, as an aligned "label: value" line
 * for people or a "key:value" line (--parsable) for scripts. The keys
 * are stable: scripts may depend on them. */
#ifndef TCOMM_INFO_H
#define TCOMM_INFO_H

#include <stdio.h>

typedef struct {
    FILE *f;
    int parsable;
} info_out_t;

/* A section title (people only). */
void info_section(info_out_t *o, const char *title);
/* One fact: key for --parsable, label for people. */
void info_kv(info_out_t *o, const char *key, const char *label,
             const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The backends section: which were built, and whether each works here
 * (src/tools/tcomm_info_backends.c). mpi_status: tcomm_comm_create_mpi's
 * result over MPI_COMM_WORLD, mpi_why its sentence when it failed. */
void info_backends(info_out_t *o, int mpi_status, const char *mpi_why);

#endif /* TCOMM_INFO_H */
