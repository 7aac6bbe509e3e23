/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check.h - how the checks of region/ say no: region/'s own, not for
 * other folders (they get the reason through the checks' @why)
 */
#ifndef GR_REGION_CHECK_H
#define GR_REGION_CHECK_H

#include <errno.h>

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

#endif /* GR_REGION_CHECK_H */
