// SPDX-License-Identifier: GPL-2.0
/*
 * grclient.c - an example client of guestrelay's relay channels
 *
 * What a driver does to stream its own debug data through guestrelay
 * (include/guestrelay/relay.h), as relay-apps' examples did for kernel
 * relay: at load it opens the channel @name, "grclient" by default
 * (per-CPU, or global with global=1; overwrite mode with overwrite=1), writes @msgs messages from
 * every online CPU with gr_relay_write(), logs one klog line per CPU
 * with gr_klog() and flushes. While the host reads client channels
 * (GR_F_CLIENT) the channel is published to it and stored under the VM's
 * session as channels/<name>/<name>_<cpu>; otherwise, or with
 * guest_read=1, readers find the messages in
 * /sys/kernel/debug/guestrelay/<name>/<name><cpu>.
 *
 * Message k of CPU c (the tests check every byte): a 12-byte head
 * {u32 magic 0x6772636c, u32 cpu c, u32 seq k}, little-endian, then
 * k % 61 bytes, byte j being (c * 7 + k + j) & 0xff. Lengths vary so that
 * sub-buffers end with padding of every size.
 */
#include <linux/cpu.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include <asm/unaligned.h>

#include <guestrelay/relay.h>

#define GRCLIENT_MAGIC	0x6772636c
#define GRCLIENT_MAX	(12 + 60)

static char *name = "grclient";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "the channel's name ([a-z0-9_], a letter first)");
static unsigned int msgs = 1000;
module_param(msgs, uint, 0444);
MODULE_PARM_DESC(msgs, "messages written by each CPU at load");
static unsigned int subbuf_size = 4096;
module_param(subbuf_size, uint, 0444);
MODULE_PARM_DESC(subbuf_size, "bytes per sub-buffer (power of two)");
static unsigned int n_subbufs = 64;
module_param(n_subbufs, uint, 0444);
MODULE_PARM_DESC(n_subbufs, "sub-buffers per buffer");
static bool global;
module_param(global, bool, 0444);
MODULE_PARM_DESC(global, "one buffer for all CPUs");
static bool overwrite;
module_param(overwrite, bool, 0444);
MODULE_PARM_DESC(overwrite, "overwrite unconsumed sub-buffers");
static bool guest_read;
module_param(guest_read, bool, 0444);
MODULE_PARM_DESC(guest_read, "read in the guest only, never published to the host");

static struct gr_rchan *grclient_chan;
static atomic_t grclient_dropped = ATOMIC_INIT(0);

static size_t grclient_msg(u8 *m, unsigned int cpu, unsigned int k)
{
	size_t len = 12 + k % 61, j;

	put_unaligned_le32(GRCLIENT_MAGIC, m);
	put_unaligned_le32(cpu, m + 4);
	put_unaligned_le32(k, m + 8);
	for (j = 12; j < len; j++)
		m[j] = (cpu * 7 + k + (j - 12)) & 0xff;
	return len;
}

/* Runs on each online CPU, its work item bound there */
static void grclient_write_cpu(struct work_struct *work)
{
	unsigned int cpu = raw_smp_processor_id();
	u8 m[GRCLIENT_MAX];
	unsigned int k;
	size_t len;

	for (k = 0; k < msgs; k++) {
		len = grclient_msg(m, cpu, k);
		if (gr_relay_write(grclient_chan, m, len))
			atomic_inc(&grclient_dropped);
	}
	gr_klog("grclient: cpu %u wrote %u messages", cpu, msgs);
}

/* Write from every online CPU at once, and wait */
static int grclient_write_all(void)
{
	struct work_struct *works;
	unsigned int cpu;

	works = kcalloc(nr_cpu_ids, sizeof(*works), GFP_KERNEL);
	if (!works)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		INIT_WORK(&works[cpu], grclient_write_cpu);
		schedule_work_on(cpu, &works[cpu]);
	}
	for_each_online_cpu(cpu)
		flush_work(&works[cpu]);
	cpus_read_unlock();
	kfree(works);
	return 0;
}

static int __init grclient_init(void)
{
	unsigned int flags = (global ? GR_RELAY_GLOBAL : 0) |
			     (overwrite ? GR_RELAY_OVERWRITE : 0) |
			     (guest_read ? GR_RELAY_GUEST_READ : 0);
	int ret;

	grclient_chan = gr_relay_open(name, subbuf_size, n_subbufs,
				      flags, NULL, NULL);
	if (!grclient_chan)
		return -EINVAL;
	gr_klog("grclient: open, %u x %u bytes per buffer%s", n_subbufs,
		subbuf_size, global ? ", global" : "");
	ret = grclient_write_all();
	if (ret) {
		gr_relay_close(grclient_chan);
		return ret;
	}
	gr_relay_flush(grclient_chan);
	gr_klog("grclient: done, %d dropped", atomic_read(&grclient_dropped));
	pr_info("grclient: %u messages per CPU written, %d dropped\n", msgs,
		atomic_read(&grclient_dropped));
	return 0;
}

static void __exit grclient_exit(void)
{
	gr_relay_close(grclient_chan);
}

module_init(grclient_init);
module_exit(grclient_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("guestrelay relay channel example client");
