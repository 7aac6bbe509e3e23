/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_follow.h - the follow filter in the guest: its set and its hooks
 * (spec 15)
 *
 * The set itself and the test a probe runs are in gr_filter.h, shared
 * with userspace; this is the kernel's part: allocating a set, seeding it
 * from the host's pids and comm glob, and the fork, exec, rename and free
 * hooks that keep it up to date while it is in effect.
 */
#ifndef _GR_FOLLOW_H
#define _GR_FOLLOW_H

#include "gr_filter.h"

struct gr_follow *gr_follow_alloc(const struct gr_follow_spec *spec);
void gr_follow_seed(struct gr_follow *f);
void gr_follow_free(struct gr_follow *f);
int gr_follow_hooks_attach(void);
void gr_follow_hooks_detach(void);
void gr_follow_publish(void *region, const struct gr_follow *f,
		       u64 dropped);

#endif /* _GR_FOLLOW_H */
