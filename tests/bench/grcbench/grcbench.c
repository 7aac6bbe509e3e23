// SPDX-License-Identifier: GPL-2.0
/*
 * grcbench.c - per-write cost of guestrelay's client API against the
 * guest kernel's own relay channel and trace_printk(), in one boot
 * (tests/bench/bench_client.sh; tests/bench/README.md, "Client channels")
 *
 * At load it opens two channels of the same geometry (@subbuf_size x
 * @n_subbufs per CPU):
 *  - "grcbench", a guestrelay client channel (include/guestrelay/relay.h),
 *    per-CPU, no-overwrite, published to the host, which stores it as
 *    channels/grcbench/grcbench_<cpu>;
 *  - a kernel relay channel "relay" with its files in debugfs
 *    (grcbench/relay<cpu>, as relay's documentation shows; nothing reads
 *    them, so nothing consumes the buffer). Its subbuf_start callback
 *    never refuses a sub-buffer (overwrite: relay's default would drop
 *    every write once the unread buffer is full) and adds up the bytes of
 *    every finished one, so the bytes relay_write() put in the buffer are
 *    known: finished + the current sub-buffer's offset.
 *
 * /sys/kernel/debug/grcbench/run: write "TARGET CALLS" to make CALLS
 * writes, timed in chunks of GRC_CHUNK with preemption and local
 * interrupts off (ktime_get_ns() around each chunk); reading gives
 * "target=T calls=N ns=NS cpu=C". /sys/kernel/debug/grcbench/count does
 * the same writes one by one between the markers of tcgcount.so (the QEMU
 * plugin that counts instructions, memory accesses and atomics,
 * tests/bench/tcgcount) and ends with its REPORT marker; the result then
 * says count=K, the plugin's run K.
 *
 * Targets; every write is preceded by the same fill of the record (its
 * sequence number), so "none" is the loop and the fill alone:
 *   none          nothing written
 *   gr_write      gr_relay_write() of a GRC_REC-byte record
 *   relay_write   relay_write() of the same record
 *   __gr_write, __relay_write  the same with __gr_relay_write() and
 *                 __relay_write() (preemption off, interrupts left alone)
 *   gr_reserve, relay_reserve  gr_relay_reserve() / relay_reserve() and
 *                 a memcpy() of the record into the slot
 *   klog_off      gr_klog() of a line while no klog channel is open: the
 *                 static-key test it costs then
 *   gr_klog       gr_klog("grcbench: record %u of %u", ...) to the klog
 *                 channel (open it first: write "klog_open" to run)
 *   trace_printk  trace_printk() of the same line (ftrace's global buffer)
 *
 * Other commands written to run: "klog_open" (gr_klog_open(@subbuf_size,
 * @n_subbufs)), "flush" (finishes the current sub-buffers of both
 * channels: gr_relay_flush(), relay_flush()). /sys/kernel/debug/grcbench/
 * stats: "gr_ok=A gr_dropped=B relay_calls=C relay_bytes=D klog_calls=E
 * tp_calls=F rec=G": the writes so far, so the host can check that
 * every gr_write record arrived (A * G bytes stored) and every klog line
 * (E lines), and relay's buffer holds C * G bytes.
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/relay.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include <guestrelay/relay.h>
/* tcgcount.so's markers (tests/bench/tcgcount/, Kbuild adds it) */
#include "tc_mark.h"

#define GRC_CHUNK	1000	/* writes per timed chunk, interrupts off */
#define GRC_REC		64	/* bytes per record */

static unsigned int subbuf_size = 512 * 1024;
module_param(subbuf_size, uint, 0444);
MODULE_PARM_DESC(subbuf_size, "bytes per sub-buffer of every channel (power of two)");
static unsigned int n_subbufs = 8;
module_param(n_subbufs, uint, 0444);
MODULE_PARM_DESC(n_subbufs, "sub-buffers per buffer of every channel");

static struct gr_rchan *grc_gr;
static struct rchan *grc_relay;
static struct dentry *grc_dir;
static DEFINE_MUTEX(grc_lock);
static char grc_result[192];
static unsigned int grc_counts;		/* count runs since load */

/* The record every write copies; its first word the sequence number */
static u64 grc_rec[GRC_REC / sizeof(u64)];

/* What was written, for the checks (under grc_lock) */
static u64 grc_gr_ok, grc_gr_dropped, grc_relay_calls, grc_klog_calls;
static u64 grc_tp_calls;
/* Bytes of relay's finished sub-buffers (its subbuf_start callback) */
static u64 grc_relay_done;

/* relay's subbuf_start: count what the finished sub-buffer holds */
static int grc_subbuf_start(struct rchan_buf *buf, void *subbuf,
			    void *prev_subbuf, size_t prev_padding)
{
	if (prev_subbuf)
		grc_relay_done += buf->chan->subbuf_size - prev_padding;
	return 1;
}

/* The relay file of a buffer: grcbench/relay<cpu> in debugfs (unread) */
static struct dentry *grc_create_buf_file(const char *filename,
					  struct dentry *parent, umode_t mode,
					  struct rchan_buf *buf, int *is_global)
{
	return debugfs_create_file(filename, mode, parent, buf,
				   &relay_file_operations);
}

static int grc_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks grc_relay_cb = {
	.subbuf_start = grc_subbuf_start,
	.create_buf_file = grc_create_buf_file,
	.remove_buf_file = grc_remove_buf_file,
};

/* Bytes in relay's buffers: finished sub-buffers and the current ones */
static u64 grc_relay_bytes(void)
{
	u64 bytes = grc_relay_done;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(grc_relay->buf, cpu);

		if (buf)
			bytes += buf->offset;
	}
	return bytes;
}

/* The fill every target makes before its write */
static __always_inline void grc_fill(u32 i)
{
	WRITE_ONCE(grc_rec[0], i);
}

/*
 * GRC_LOOP(NAME, WRITE): grc_loop_NAME(first, n, count), @n writes with
 * sequence numbers from @first, each alone between tcgcount's markers with
 * @count; WRITE is a statement using i and n
 */
#define GRC_LOOP(name, write)						\
static noinline void grc_loop_##name(u32 first, u32 n, bool count)	\
{									\
	u32 i;								\
									\
	for (i = first; i < first + n; i++) {				\
		if (count)						\
			tc_mark_start();				\
		grc_fill(i);						\
		write;							\
		if (count)						\
			tc_mark_stop();					\
	}								\
}

GRC_LOOP(none, barrier())

/* Count the result of one of guestrelay's writes */
static __always_inline void grc_count(int ret)
{
	if (ret)
		grc_gr_dropped++;
	else
		grc_gr_ok++;
}

GRC_LOOP(gr_write, grc_count(gr_relay_write(grc_gr, grc_rec, GRC_REC)))
/* __gr_relay_write(): preemption off only (relay's __relay_write()) */
GRC_LOOP(__gr_write, grc_count(__gr_relay_write(grc_gr, grc_rec, GRC_REC)))

/* gr_relay_reserve() and a copy into the slot (interrupts are off) */
static __always_inline void grc_gr_reserve(void)
{
	void *slot = gr_relay_reserve(grc_gr, GRC_REC);

	if (slot)
		memcpy(slot, grc_rec, GRC_REC);
	grc_count(slot ? 0 : -ENOSPC);
}

GRC_LOOP(gr_reserve, grc_gr_reserve())

GRC_LOOP(relay_write, relay_write(grc_relay, grc_rec, GRC_REC))
GRC_LOOP(__relay_write, __relay_write(grc_relay, grc_rec, GRC_REC))

/* relay_reserve() and a copy into the slot (never NULL: overwrite mode) */
static __always_inline void grc_relay_reserve(void)
{
	void *slot = relay_reserve(grc_relay, GRC_REC);

	if (slot)
		memcpy(slot, grc_rec, GRC_REC);
}

GRC_LOOP(relay_reserve, grc_relay_reserve())
GRC_LOOP(klog_off, gr_klog("grcbench: record %u of %u", i, n))
GRC_LOOP(gr_klog, gr_klog("grcbench: record %u of %u", i, n))
/* what is measured against gr_klog(); checkpatch warns of it, rightly */
GRC_LOOP(trace_printk, trace_printk("grcbench: record %u of %u\n", i, n))

struct grc_target {
	const char *name;
	void (*loop)(u32 first, u32 n, bool count);
	u64 *calls;		/* counts the calls made, or NULL */
	bool klog_on;		/* needs the klog channel open */
	bool klog_off;		/* needs it closed */
};

static struct grc_target grc_targets[] = {
	{ "none", grc_loop_none, NULL, false, false },
	{ "gr_write", grc_loop_gr_write, NULL, false, false },
	{ "relay_write", grc_loop_relay_write, &grc_relay_calls, false, false },
	{ "__gr_write", grc_loop___gr_write, NULL, false, false },
	{ "__relay_write", grc_loop___relay_write, &grc_relay_calls, false,
	  false },
	{ "gr_reserve", grc_loop_gr_reserve, NULL, false, false },
	{ "relay_reserve", grc_loop_relay_reserve, &grc_relay_calls, false,
	  false },
	{ "klog_off", grc_loop_klog_off, NULL, false, true },
	{ "gr_klog", grc_loop_gr_klog, &grc_klog_calls, true, false },
	{ "trace_printk", grc_loop_trace_printk, &grc_tp_calls, false, false },
};

/* Run @calls writes of @t into grc_result; caller holds grc_lock */
static int grc_run(struct grc_target *t, unsigned int calls, bool count)
{
	unsigned int done, n;
	unsigned long flags;
	u64 t0, t1, ns = 0;
	bool klog_open = static_key_enabled(&gr_klog_key);
	int cpu = -1;
	size_t len;

	if ((t->klog_on && !klog_open) || (t->klog_off && klog_open))
		return -EINVAL;
	for (done = 0; done < calls; done += n) {
		n = min_t(unsigned int, calls - done, GRC_CHUNK);
		preempt_disable();
		local_irq_save(flags);
		if (cpu < 0)
			cpu = smp_processor_id();
		t0 = ktime_get_ns();
		t->loop(done, n, count);
		t1 = ktime_get_ns();
		local_irq_restore(flags);
		preempt_enable();
		ns += t1 - t0;
		if (t->calls)
			*t->calls += n;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	len = scnprintf(grc_result, sizeof(grc_result), "target=%s calls=%u ",
			t->name, calls);
	if (count) {
		tc_mark_report();
		len += scnprintf(grc_result + len, sizeof(grc_result) - len,
				 "count=%u ", ++grc_counts);
	}
	scnprintf(grc_result + len, sizeof(grc_result) - len,
		  "ns=%llu cpu=%d\n", ns, cpu);
	return 0;
}

/* "klog_open" or "flush"; -ENOENT for anything else */
static int grc_command(const char *cmd)
{
	if (!strcmp(cmd, "klog_open"))
		return gr_klog_open(subbuf_size, n_subbufs);
	if (!strcmp(cmd, "flush")) {
		gr_relay_flush(grc_gr);
		relay_flush(grc_relay);
		return 0;
	}
	return -ENOENT;
}

static ssize_t grc_run_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	bool counted = file_inode(file)->i_private;
	char *buf, *sp, *name;
	unsigned int calls, i;
	int ret = -ENOENT;

	if (count > 64)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	name = strim(buf);
	mutex_lock(&grc_lock);
	sp = strchr(name, ' ');
	if (!sp) {
		ret = grc_command(name);
		goto out;
	}
	*sp = '\0';
	if (kstrtouint(skip_spaces(sp + 1), 0, &calls) || !calls) {
		ret = -EINVAL;
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(grc_targets); i++) {
		if (!strcmp(name, grc_targets[i].name)) {
			ret = grc_run(&grc_targets[i], calls, counted);
			break;
		}
	}
out:
	mutex_unlock(&grc_lock);
	kfree(buf);
	return ret ? ret : count;
}

static ssize_t grc_run_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&grc_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, grc_result,
				      strlen(grc_result));
	mutex_unlock(&grc_lock);
	return ret;
}

static const struct file_operations grc_run_fops = {
	.owner = THIS_MODULE,
	.write = grc_run_write,
	.read = grc_run_read,
	.llseek = default_llseek,
};

static int grc_stats_show(struct seq_file *m, void *v)
{
	mutex_lock(&grc_lock);
	seq_printf(m, "gr_ok=%llu gr_dropped=%llu relay_calls=%llu relay_bytes=%llu klog_calls=%llu tp_calls=%llu rec=%u\n",
		   grc_gr_ok, grc_gr_dropped, grc_relay_calls,
		   grc_relay_bytes(), grc_klog_calls, grc_tp_calls, GRC_REC);
	mutex_unlock(&grc_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(grc_stats);

static int __init grc_init(void)
{
	grc_gr = gr_relay_open("grcbench", subbuf_size, n_subbufs, 0, NULL,
			       NULL);
	if (!grc_gr)
		return -EINVAL;
	grc_dir = debugfs_create_dir("grcbench", NULL);
	grc_relay = relay_open("relay", grc_dir, subbuf_size, n_subbufs,
			       &grc_relay_cb, NULL);
	if (!grc_relay) {
		debugfs_remove_recursive(grc_dir);
		gr_relay_close(grc_gr);
		return -ENOMEM;
	}
	debugfs_create_file("run", 0600, grc_dir, NULL, &grc_run_fops);
	/* the count file's private data is non-NULL */
	debugfs_create_file("count", 0600, grc_dir, &grc_counts,
			    &grc_run_fops);
	debugfs_create_file("stats", 0400, grc_dir, NULL, &grc_stats_fops);
	return 0;
}

static void __exit grc_exit(void)
{
	relay_close(grc_relay);
	debugfs_remove_recursive(grc_dir);
	gr_relay_close(grc_gr);
}

module_init(grc_init);
module_exit(grc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("guestrelay client channel benchmark");
