/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - the few helpers every part of the host code and its tests
 * use, defined once: ARRAY_SIZE, container_of, the nanosecond units and
 * CLOCK_MONOTONIC in nanoseconds
 *
 * The names and meanings are the kernel's, so that code reads the same on
 * both sides of the region. Guest code in userspace gets its own from the
 * kernel shim (tests/shim/gr_user_env.h), with the same definitions.
 */
#ifndef GR_COMMON_H
#define GR_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* the number of elements of an array (not of a pointer) */
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

/* the structure of type @type whose member @member is at @ptr */
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/* long, as the kernel's: unsigned with a uint64_t, signed with an int64_t */
#define NSEC_PER_USEC		1000L
#define NSEC_PER_MSEC		1000000L
#define NSEC_PER_SEC		1000000000L

/* CLOCK_MONOTONIC in nanoseconds (the agent loop's time, gr_now_ns()) */
static inline uint64_t gr_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif /* GR_COMMON_H */
