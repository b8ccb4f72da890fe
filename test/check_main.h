/* SPDX-License-Identifier: BSD-3-Clause */
/* Running a single-process Check suite without forking (its tests share
 * the process's state, in the order they were added). */
#ifndef TCOMM_TEST_CHECK_MAIN_H
#define TCOMM_TEST_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

/* Runs s in this process; EXIT_SUCCESS when no test failed. */
static inline int tcomm_check_run_nofork(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* TCOMM_TEST_CHECK_MAIN_H */
