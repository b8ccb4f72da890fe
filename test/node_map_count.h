/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies served through a mapping so far, this process
 * (test/node_map_count.c; the program links with
 * -Wl,--wrap=tcomm_node_mapped). */
#ifndef TCOMM_TEST_NODE_MAP_COUNT_H
#define TCOMM_TEST_NODE_MAP_COUNT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

uint64_t tcomm_node_mapped_copies(void);

#endif /* TCOMM_TEST_NODE_MAP_COUNT_H */
