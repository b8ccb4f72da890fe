/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of mapped peer arenas (src/mpi/node/node_map.c), keyed by
 * what identifies an arena (issue 27). A peer restarted under the same
 * pid (a spawned or restarted rank, the next job step) publishes a new
 * memfd, possibly at the same address. Before, the table was keyed by
 * pid alone and never unmapped: the new peer's copies read the old
 * arena. Here this process plays both peers (pidfd_getfd of its own
 * memfds): arena A, then arena B under the same pid and address. The
 * lookups must reach B, A must be unmapped once its last holder drops
 * it, and B once its own does. Skips (77) where pidfd_getfd is refused
 * (old kernels, seccomp). */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tcomm_node_map.h"
#include "check_main.h"

#define LEN 8192

typedef struct {
    int fd;
    char *addr;
    tcomm_node_arena_line_t desc;
} arena_t;

static arena_t make_arena(const char *name, char fill)
{
    arena_t a = {.fd = memfd_create(name, 0)};
    struct stat sb;
    ck_assert_int_ge(a.fd, 0);
    ck_assert_int_eq(ftruncate(a.fd, LEN), 0);
    a.addr = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, a.fd, 0);
    ck_assert_ptr_ne(a.addr, MAP_FAILED);
    memset(a.addr, fill, LEN);
    ck_assert_int_eq(fstat(a.fd, &sb), 0);
    a.desc = (tcomm_node_arena_line_t){.pid = getpid(),
                                       .fd = a.fd,
                                       .base = 0x7f0000000000u,
                                       .size = LEN,
                                       .dev = (uint64_t)sb.st_dev,
                                       .ino = (uint64_t)sb.st_ino};
    return a;
}

static void free_arena(arena_t *a)
{
    munmap(a->addr, LEN);
    close(a->fd);
}

/* Mappings of the memfd called name in this process, this test's own
 * mapping included. */
static int mappings_of(const char *name)
{
    char line[512], key[64];
    int n = 0;
    snprintf(key, sizeof key, "/memfd:%s ", name);
    FILE *f = fopen("/proc/self/maps", "r");
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f))
        n += strstr(line, key) != NULL;
    fclose(f);
    return n;
}

START_TEST(a_reused_pid_maps_the_new_arena)
{
    arena_t a = make_arena("tcomm-test-a", 'a');
    arena_t b = make_arena("tcomm-test-b", 'b');
    pid_t me = getpid();
    uint64_t at = a.desc.base + 100;

    int sa = tcomm_node_map_take(&a.desc);
    ck_assert_int_ge(sa, 0);
    char *p = tcomm_node_mapped(me, at, 16);
    if (!p) { /* pidfd_getfd refused: nothing here to test */
        tcomm_node_map_drop(sa);
        free_arena(&a);
        free_arena(&b);
        exit(77);
    }
    ck_assert_int_eq(p[0], 'a');
    ck_assert_int_eq(mappings_of("tcomm-test-a"), 2);
    /* a second holder of the same arena shares the mapping */
    ck_assert_int_eq(tcomm_node_map_take(&a.desc), sa);
    ck_assert_int_eq(mappings_of("tcomm-test-a"), 2);

    /* the same pid and address, a new memfd: the restarted peer */
    int sb = tcomm_node_map_take(&b.desc);
    ck_assert_int_ge(sb, 0);
    ck_assert_int_ne(sb, sa);
    p = tcomm_node_mapped(me, at, 16);
    ck_assert_ptr_nonnull(p);
    ck_assert_msg(p[0] == 'b', "the lookup reached the stale arena ('%c')",
                  p[0]);
    ck_assert_int_eq(mappings_of("tcomm-test-b"), 2);

    /* A stays mapped while held, and goes with its last holder */
    ck_assert_int_eq(mappings_of("tcomm-test-a"), 2);
    tcomm_node_map_drop(sa);
    ck_assert_int_eq(mappings_of("tcomm-test-a"), 2);
    tcomm_node_map_drop(sa);
    ck_assert_int_eq(mappings_of("tcomm-test-a"), 1);
    ck_assert_ptr_eq(tcomm_node_mapped(me, at, 16), p);

    tcomm_node_map_drop(sb);
    ck_assert_int_eq(mappings_of("tcomm-test-b"), 1);
    ck_assert_ptr_null(tcomm_node_mapped(me, at, 16));

    /* the freed slots serve again */
    ck_assert_int_ge(sa = tcomm_node_map_take(&a.desc), 0);
    ck_assert_int_eq(tcomm_node_mapped(me, at, 16)[0], 'a');
    tcomm_node_map_drop(sa);
    ck_assert_ptr_null(tcomm_node_mapped(me, at, 16));
    free_arena(&a);
    free_arena(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("node_map");
    TCase *tc = tcase_create("keying");
    tcase_add_test(tc, a_reused_pid_maps_the_new_arena);
    suite_add_tcase(s, tc);
    return tcomm_check_run_nofork(s);
}
