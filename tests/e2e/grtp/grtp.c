// SPDX-License-Identifier: GPL-2.0
/*
 * grtp.ko - fires grtp:grtp_dynarr, a tracepoint with two dynamic arrays
 * of integers (u32 and u8) and a bitmask, for
 * tests/e2e/test_anyevent.sh: the test guest's kernel has such events
 * only in drivers it does not load, so none fires there.
 *
 *   echo N >/sys/module/grtp/parameters/fire
 *
 * fires N events, numbered on from the last: event k has k % 17 values
 * (k * 1000 + j, every third one near the top of the u32 range), k * 7 %
 * 33 bytes and the online CPUs.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#define CREATE_TRACE_POINTS
#include "grtp_trace.h"

#define GRTP_MAX_VALS	16
#define GRTP_MAX_BYTES	32
#define GRTP_MAX_FIRE	100000

static unsigned int grtp_seq;

static void grtp_fire_one(unsigned int k)
{
	u32 vals[GRTP_MAX_VALS];
	u8 bytes[GRTP_MAX_BYTES];
	unsigned int n = k % (GRTP_MAX_VALS + 1);
	unsigned int m = k * 7 % (GRTP_MAX_BYTES + 1);
	unsigned int j;

	for (j = 0; j < n; j++)
		vals[j] = j % 3 == 2 ? U32_MAX - k - j : k * 1000 + j;
	for (j = 0; j < m; j++)
		bytes[j] = (u8)(k + j * 31);
	trace_grtp_dynarr(k, vals, n, bytes, m, cpu_online_mask);
}

static int grtp_fire_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n > GRTP_MAX_FIRE)
		return -EINVAL;
	for (i = 0; i < n; i++)
		grtp_fire_one(grtp_seq++);
	return 0;
}

static int grtp_fire_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", grtp_seq);
}

static const struct kernel_param_ops grtp_fire_ops = {
	.set = grtp_fire_set,
	.get = grtp_fire_get,
};
module_param_cb(fire, &grtp_fire_ops, NULL, 0644);
MODULE_PARM_DESC(fire, "write N: fire N grtp_dynarr events; read: fired so far");

MODULE_DESCRIPTION("guestrelay test: a tracepoint with dynamic arrays");
MODULE_LICENSE("GPL");
