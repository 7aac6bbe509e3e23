/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the relay core needs from its environment
 *
 * gr_relay.c (with the fast path in gr_relay.h), gr_layout.c and gr_proto.c
 * are kernel code. Built by Kbuild they use the kernel's own primitives;
 * built in userspace (unit tests, the fake guest) they get the
 * same names from tests/shim/gr_user_env.h. Besides the kernel primitives the
 * core uses two helpers defined here for both worlds:
 *
 *   gr_clock()        the event clock, in ticks of the published
 *                     clock_freq (NMI safe)
 *   gr_current_tid()  the thread id recorded in event headers
 */
#ifndef _GR_ENV_H
#define _GR_ENV_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/align.h>
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/irqflags.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <asm/barrier.h>
#include <asm/byteorder.h>
#ifdef CONFIG_X86
#include <asm/msr.h>
#endif

/*
 * The event clock (spec 3.2, 6.9): the TSC, published as clock_name "tsc"
 * at tsc_khz, when gr_clock_setup() found the kernel trusting it across
 * CPUs; else ktime_get_mono_fast_ns(), "mono_fast" at 1 GHz. Chosen once,
 * at load.
 */
DECLARE_STATIC_KEY_FALSE(gr_clock_tsc);

static __always_inline notrace u64 gr_clock(void)
{
#ifdef CONFIG_X86
	if (static_branch_likely(&gr_clock_tsc))
		return rdtsc_ordered();
#endif
	return ktime_get_mono_fast_ns();
}

/* In interrupt context this is the interrupted task, as ftrace records. */
static inline u32 gr_current_tid(void)
{
	return task_pid_nr(current);
}

#else /* !__KERNEL__ */

#include "gr_user_env.h"	/* tests/shim/, on userspace include paths */

#endif /* __KERNEL__ */

#endif /* _GR_ENV_H */
