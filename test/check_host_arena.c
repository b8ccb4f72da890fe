/* SPDX-License-Identifier: BSD-3-Clause */
/* Check suite of the shared tensor arena (src/core/host_arena.c)
 * and of the host space over it, one process (each test in a fresh
 * child, so that each starts without an arena): which blocks it serves,
 * alignment, first-fit reuse and coalescing, pages given back, blocks
 * that never overlap under threads, TCOMM_SINGLE_COPY=0, and the rules
 * after fork(). */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tcomm.h"
#include "tcomm_config.h"
#include "tcomm_host_arena.h"

static const tcomm_device_t HOST = {TCOMM_DEVICE_HOST, 0};

START_TEST(test_serves_large_blocks)
{
    tcomm_arena_info_t info;
    ck_assert_ptr_null(tcomm_arena_alloc(TCOMM_ARENA_MIN - 1, 64));
    ck_assert_int_eq(tcomm_arena_info(&info), 0); /* not made for that */
    char *p = tcomm_arena_alloc(TCOMM_ARENA_MIN, 64);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(tcomm_arena_info(&info), 1);
    ck_assert(tcomm_arena_owns(p, TCOMM_ARENA_MIN));
    ck_assert(!tcomm_arena_owns(p, info.size + 1));
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    char *q = tcomm_arena_alloc(3 * 4096 + 1, 4096);
    ck_assert_ptr_nonnull(q);
    ck_assert_uint_eq((uintptr_t)q % 4096, 0);
    ck_assert(q >= p + TCOMM_ARENA_MIN || q + 3 * 4096 + 1 <= p);
    memset(p, 1, TCOMM_ARENA_MIN);
    memset(q, 2, 3 * 4096 + 1);
    ck_assert_int_eq(p[TCOMM_ARENA_MIN - 1], 1);
    ck_assert_int_eq(tcomm_arena_free(q, 3 * 4096 + 1), 1);
    ck_assert_int_eq(tcomm_arena_free(p, TCOMM_ARENA_MIN), 1);
    int x;
    ck_assert_int_eq(tcomm_arena_free(&x, sizeof x), 0); /* not ours */
}
END_TEST

START_TEST(test_reuse_and_coalesce)
{
    size_t k = 64 << 10;
    char *a = tcomm_arena_alloc(k, 64), *b = tcomm_arena_alloc(k, 64);
    char *c = tcomm_arena_alloc(k, 64);
    ck_assert_ptr_nonnull(a);
    /* first fit from the top (a red zone between under ASan) */
    ck_assert(b >= a + k && b <= a + k + 64);
    ck_assert(c >= b + k && c <= b + k + 64);
    tcomm_arena_free(b, k);
    ck_assert_ptr_eq(tcomm_arena_alloc(k, 64), b); /* the hole, again */
    tcomm_arena_free(b, k);
    tcomm_arena_free(a, k); /* joins the hole after it */
    tcomm_arena_free(c, k); /* joins both sides */
    char *all = tcomm_arena_alloc(3 * k, 64);
    ck_assert_ptr_eq(all, a);
    tcomm_arena_free(all, 3 * k);
}
END_TEST

static long blocks_of(int fd)
{
    struct stat sb;
    ck_assert_int_eq(fstat(fd, &sb), 0);
    return (long)sb.st_blocks;
}

/* A large block's pages go back when it is freed, the small ones' once
 * 64 MiB of them were freed (until then they stay, as a heap's). */
START_TEST(test_pages_given_back)
{
    size_t big = 32 << 20, small = 1 << 20;
    enum { SMALL = 65 };
    char *s[SMALL];
    tcomm_arena_info_t info;
    char *p = tcomm_arena_alloc(big, 4096);
    ck_assert_int_eq(tcomm_arena_info(&info), 1);
    memset(p, 7, big);
    long touched = blocks_of(info.fd);
    ck_assert_int_ge(touched * 512, (long)big);
    tcomm_arena_free(p, big);
    ck_assert_int_le(blocks_of(info.fd) * 512, touched * 512 - (long)big);
    for (int i = 0; i < SMALL; i++) {
        s[i] = tcomm_arena_alloc(small, 4096);
        memset(s[i], 7, small);
    }
    touched = blocks_of(info.fd);
    tcomm_arena_free(s[0], small); /* resident still */
    ck_assert_int_eq(blocks_of(info.fd), touched);
    for (int i = 1; i < SMALL; i++)
        tcomm_arena_free(s[i], small);
    ck_assert_int_le(blocks_of(info.fd) * 512, (long)small); /* the last */
}
END_TEST

#define THREADS 4
#define ROUNDS 300

static void *churn(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    char *held[8] = {NULL};
    size_t len[8] = {0};
    long bad = 0;
    for (int i = 0; i < ROUNDS; i++) {
        int k = (int)(rand_r(&seed) % 8);
        if (held[k]) {
            for (size_t j = 0; j < len[k]; j += 512)
                bad += held[k][j] != (char)(uintptr_t)arg;
            tcomm_arena_free(held[k], len[k]);
        }
        len[k] = 4096 + rand_r(&seed) % (256 << 10);
        held[k] = tcomm_arena_alloc(len[k], 64);
        if (!held[k])
            return (void *)-1;
        memset(held[k], (char)(uintptr_t)arg, len[k]);
    }
    for (int k = 0; k < 8; k++)
        tcomm_arena_free(held[k], len[k]);
    return (void *)bad;
}

START_TEST(test_threads_never_overlap)
{
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, churn, (void *)(i + 1)),
                         0);
    for (int i = 0; i < THREADS; i++) {
        void *bad;
        pthread_join(t[i], &bad);
        ck_assert_ptr_null(bad); /* no block written by another thread */
    }
}
END_TEST

START_TEST(test_single_copy_off)
{
    setenv("TCOMM_SINGLE_COPY", "0", 1);
    tcomm_config_reload();
    ck_assert_ptr_null(tcomm_arena_alloc(1 << 20, 64));
    tcomm_graph_t *g;
    tcomm_tensor_t *t;
    size_t shape[1] = {1 << 18};
    ck_assert_int_eq(tcomm_graph_create(HOST, &g), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 1, shape, &t),
                     TCOMM_SUCCESS);
    ck_assert(!tcomm_arena_owns(tcomm_tensor_data(t), 4)); /* private */
    tcomm_tensor_release(t);
    tcomm_graph_destroy(g);
    unsetenv("TCOMM_SINGLE_COPY");
    tcomm_config_reload();
}
END_TEST

START_TEST(test_tensors_in_arena)
{
    tcomm_graph_t *g;
    tcomm_tensor_t *big, *tiny;
    size_t n_big[1] = {1 << 14}, n_tiny[1] = {16};
    ck_assert_int_eq(tcomm_graph_create(HOST, &g), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 1, n_big, &big),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 1, n_tiny, &tiny),
                     TCOMM_SUCCESS);
    ck_assert(tcomm_arena_owns(tcomm_tensor_data(big), 4 << 14));
    ck_assert(!tcomm_arena_owns(tcomm_tensor_data(tiny), 64));
    tcomm_tensor_release(big);
    tcomm_tensor_release(tiny);
    tcomm_graph_destroy(g);
}
END_TEST

/* After fork() the child sees the parent's tensors (shared pages) but
 * never allocates from, nor gives back to, the arena: the parent's
 * blocks stay its own, with their contents. */
START_TEST(test_fork_child_keeps_out)
{
    tcomm_graph_t *g;
    tcomm_tensor_t *kept, *dropped;
    size_t shape[1] = {1 << 18}; /* 1 MiB: the host space's cache too */
    ck_assert_int_eq(tcomm_graph_create(HOST, &g), TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 1, shape, &kept),
                     TCOMM_SUCCESS);
    ck_assert_int_eq(tcomm_tensor_empty(g, TCOMM_F32, 1, shape, &dropped),
                     TCOMM_SUCCESS);
    float *k = tcomm_tensor_data(kept);
    for (size_t i = 0; i < shape[0]; i++)
        k[i] = (float)i;
    tcomm_tensor_release(dropped); /* into the host space's cache */
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int bad = 0;
        tcomm_tensor_t *mine;
        bad |= tcomm_tensor_empty(g, TCOMM_F32, 1, shape, &mine) !=
               TCOMM_SUCCESS;
        bad |= !bad && tcomm_arena_owns(tcomm_tensor_data(mine), 4);
        if (!bad)
            memset(tcomm_tensor_data(mine), 0xff, 4 * shape[0]);
        bad |= tcomm_arena_alloc(1 << 20, 64) != NULL;
        tcomm_tensor_release(kept); /* frees nothing of the parent's */
        _exit(bad ? 3 : 0);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (size_t i = 0; i < shape[0]; i += 997)
        ck_assert_float_eq(k[i], (float)i);
    char *fresh = tcomm_arena_alloc(4 << 20, 4096); /* kept is still held */
    ck_assert_ptr_nonnull(fresh);
    ck_assert(fresh >= (char *)k + 4 * shape[0] || fresh + (4 << 20) <=
                                                       (char *)k);
    tcomm_arena_free(fresh, 4 << 20);
    tcomm_tensor_release(kept);
    tcomm_graph_destroy(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("host_arena");
    TCase *tc = tcase_create("arena");
    SRunner *sr;
    int failed;

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_serves_large_blocks);
    tcase_add_test(tc, test_reuse_and_coalesce);
    tcase_add_test(tc, test_pages_given_back);
    tcase_add_test(tc, test_threads_never_overlap);
    tcase_add_test(tc, test_single_copy_off);
    tcase_add_test(tc, test_tensors_in_arena);
    tcase_add_test(tc, test_fork_child_keeps_out);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK); /* a fresh arena per test */
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
