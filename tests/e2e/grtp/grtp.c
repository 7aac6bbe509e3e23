// SPDX-License-Identifier: GPL-2.0
/*
 * grtp.ko - fires grtp:grtp_dynarr, a tracepoint with two dynamic arrays
 * of integers (u32 and u8) and a bitmask, and grtp:grtp_array, one with
 * fixed arrays of integers, a char array and a struct by value, for
 * tests/e2e/test_anyevent.sh: the test guest's kernel has such events
 * only in drivers it does not load, so none fires there.
 *
 *   echo N >/sys/module/grtp/parameters/fire
 *
 * fires N events, numbered on from the last: event k has k % 17 values
 * (k * 1000 + j, every third one near the top of the u32 range), k * 7 %
 * 33 bytes and the online CPUs; its grtp_array has the seven bytes and
 * values of every sign and width drawn from k, and the tag "grN" with N
 * k % 100000.
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

static void grtp_fire_array(unsigned int k)
{
	u8 addr[6];
	s16 deltas[3] = { (s16)(k * 37), -(s16)(k % 1000), S16_MIN + (s16)k };
	u32 words[4] = { k, ~k, k << 20, U32_MAX - k };
	char tag[8];
	guid_t id;
	unsigned int j;

	for (j = 0; j < sizeof(addr); j++)
		addr[j] = (u8)(k * 13 + j * 41);
	for (j = 0; j < sizeof(id.b); j++)
		id.b[j] = (u8)(k + j * 17);
	snprintf(tag, sizeof(tag), "gr%u", k % 100000);
	trace_grtp_array(k, addr, deltas, words, &id, tag);
}

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
	grtp_fire_array(k);
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
MODULE_PARM_DESC(fire, "write N: fire N grtp_dynarr and grtp_array events; read: fired so far");

MODULE_DESCRIPTION("guestrelay test: a tracepoint with dynamic arrays");
MODULE_LICENSE("GPL");
