/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - shared by the libFuzzer targets of tests/fuzz/ (see README.md)
 */
#ifndef GR_FUZZ_H
#define GR_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a finding: libFuzzer records the input that reached it */
#define FUZZ_BUG(...)							\
	do {								\
		fprintf(stderr, "fuzz: " __VA_ARGS__);			\
		fputc('\n', stderr);					\
		abort();						\
	} while (0)

/* take @n bytes from the input, or fail */
static inline int fuzz_take(const uint8_t **d, size_t *left, void *out,
			    size_t n)
{
	if (*left < n)
		return -1;
	memcpy(out, *d, n);
	*d += n;
	*left -= n;
	return 0;
}

/* the input as a C string (cut at its first NUL), malloc'd, or NULL */
static inline char *fuzz_cstr(const uint8_t *d, size_t n)
{
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, d, n);
		s[n] = '\0';
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* GR_FUZZ_H */
