/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check.h - how the checks of region/ say no: region/'s own, not for
 * other folders (they get the reason through the checks' @why)
 */
#ifndef GR_REGION_CHECK_H
#define GR_REGION_CHECK_H

#include <errno.h>
#include <stddef.h>

#define ALIGN8(x)	(((x) + 7ULL) & ~7ULL)

/* return @err, with @msg (a static string) as the reason in *@why */
static inline int reject(const char **why, const char *msg, int err)
{
	if (why)
		*why = msg;
	return err;
}

/* reject() with -EINVAL: a rule of the spec is broken */
static inline int bad(const char **why, const char *msg)
{
	return reject(why, msg, -EINVAL);
}

/* gr_ident_check(): an identifier [a-z_][a-z0-9_]*, or why not */
enum { ID_OK, ID_UNTERMINATED, ID_EMPTY, ID_BAD_CHAR };

int gr_ident_check(const char *s, size_t cap);

#endif /* GR_REGION_CHECK_H */
