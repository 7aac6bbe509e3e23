// SPDX-License-Identifier: GPL-2.0
/*
 * gr_relay_file.c - relay files of client channels, and klog
 *
 * Kernel relay's user-space interface for the channels of gr_relay_api.c
 * that the guest reads (spec 16.4, 16.8): one file per ring,
 * /sys/kernel/debug/guestrelay/<channel>/<channel><cpu>, with read()
 * (consumes, padding removed), poll() (readable at sub-buffer
 * boundaries), mmap() of the ring's sub-buffers (read-only, the whole
 * ring, as relay maps it) with the ioctls of guestrelay/relay_file.h
 * (which sub-buffer to read, and done with it) and splice()/sendfile();
 * a write to
 * <channel>/flush finishes the partly filled sub-buffers (gr_relay_flush()),
 * for readers who want them before the client flushes. Files are debugfs
 * "unsafe" files holding a reference to their channel: a reader keeps
 * reading what was written after the client closed the channel, and the
 * memory a mapping shows lives until the last file is released.
 *
 * klog: gr_klog() and gr_klog_raw() test gr_klog_key and, once
 * gr_klog_open() (or the module parameter klog) opened the global channel
 * "klog", write one struct gr_klog_rec and the text per call.
 */

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/splice.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "gr_rchan.h"
#include "gr_relay_file.h"

static struct dentry *gr_debugfs_root;

static void gr_rfile_wakeup(struct irq_work *work)
{
	struct gr_rreader *rd = container_of(work, struct gr_rreader, wakeup);

	wake_up_interruptible(&rd->wait);
}

/* The core's doorbell: writer context, interrupts off, maybe NMI */
void gr_rchan_wake(struct gr_rchan *rc, u32 ring)
{
	irq_work_queue(&rc->readers[ring].wakeup);
}

static int gr_rfile_open(struct inode *inode, struct file *filp)
{
	struct gr_rreader *rd = inode->i_private;
	int ret;

	/* Spec 16.4: never while the host consumes the channel */
	ret = gr_rchan_file_get(rd->rc);
	if (ret)
		return ret;
	gr_rchan_get(rd->rc);
	filp->private_data = rd;
	/*
	 * Not nonseekable_open(): sendfile() needs FMODE_LSEEK, hence also
	 * noop_llseek (no_llseek is NULL, which clears it). The position
	 * means nothing: read() goes on where the last one ended.
	 */
	return 0;
}

static int gr_rfile_release(struct inode *inode, struct file *filp)
{
	struct gr_rreader *rd = filp->private_data;

	gr_rchan_file_put(rd->rc);
	gr_rchan_put(rd->rc);
	return 0;
}

static int gr_rfile_copy(void *ctx, const void *src, size_t len)
{
	return copy_to_iter(src, len, ctx) == len ? 0 : -EFAULT;
}

/* relay's read(): finished bytes, padding removed; 0 when none */
static ssize_t gr_rfile_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct gr_rreader *rd = iocb->ki_filp->private_data;

	return gr_rchan_read(rd->rc, rd->ring, iov_iter_count(to),
			     gr_rfile_copy, to);
}

static __poll_t gr_rfile_poll(struct file *filp, poll_table *wait)
{
	struct gr_rreader *rd = filp->private_data;

	poll_wait(filp, &rd->wait, wait);
	return gr_rchan_readable(rd->rc, rd->ring) ? EPOLLIN | EPOLLRDNORM :
						     0;
}

/* guestrelay/relay_file.h: the next sub-buffer of the mapping, and done */
static long gr_rfile_ioctl(struct file *filp, unsigned int cmd,
			   unsigned long arg)
{
	struct gr_rreader *rd = filp->private_data;
	struct gr_relay_subbuf sb = {};
	u64 seq;
	int ret;

	switch (cmd) {
	case GR_RELAY_GET_SUBBUF:
		ret = gr_rchan_get_subbuf(rd->rc, rd->ring, &sb);
		if (!ret && copy_to_user((void __user *)arg, &sb, sizeof(sb)))
			ret = -EFAULT;
		return ret;
	case GR_RELAY_PUT_SUBBUF:
		if (copy_from_user(&seq, (void __user *)arg, sizeof(seq)))
			return -EFAULT;
		return gr_rchan_put_subbuf(rd->rc, rd->ring, seq);
	default:
		return -ENOTTY;
	}
}

static struct gr_buf *gr_rfile_buf(struct gr_rreader *rd)
{
	struct gr_chan *chan = READ_ONCE(rd->rc->cl.chan);

	return chan ? &chan->bufs[rd->ring] : NULL;
}

static void gr_rfile_vm_close(struct vm_area_struct *vma)
{
	struct gr_rreader *rd = vma->vm_file->private_data;
	struct gr_buf *buf = gr_rfile_buf(rd);

	if (buf && rd->rc->cb.buf_unmapped)
		rd->rc->cb.buf_unmapped(buf, vma->vm_file);
}

static const struct vm_operations_struct gr_rfile_vm_ops = {
	.close = gr_rfile_vm_close,
};

/* relay's mmap(): the whole ring, from offset 0, read-only */
static int gr_rfile_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct gr_rreader *rd = filp->private_data;
	struct gr_rchan *rc = rd->rc;
	u8 *data = gr_rchan_ring_data(rc, rd->ring);
	struct gr_buf *buf;
	int ret;

	if (vma->vm_pgoff || vma->vm_end - vma->vm_start !=
			     gr_rchan_ring_size(rc) ||
	    (vma->vm_flags & VM_WRITE))
		return -EINVAL;
	vma->vm_flags &= ~VM_MAYWRITE;
	ret = remap_vmalloc_range(vma, rc->mem, (data - rc->mem) >> PAGE_SHIFT);
	if (ret)
		return ret;
	vma->vm_ops = &gr_rfile_vm_ops;
	buf = gr_rfile_buf(rd);
	if (buf && rc->cb.buf_mapped)
		rc->cb.buf_mapped(buf, filp);
	return 0;
}

static const struct file_operations gr_rfile_fops = {
	.owner = THIS_MODULE,
	.open = gr_rfile_open,
	.release = gr_rfile_release,
	.read_iter = gr_rfile_read_iter,
	.poll = gr_rfile_poll,
	.mmap = gr_rfile_mmap,
	.unlocked_ioctl = gr_rfile_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.splice_read = generic_file_splice_read,
	.llseek = noop_llseek,
};

static int gr_rflush_open(struct inode *inode, struct file *filp)
{
	struct gr_rchan *rc = inode->i_private;

	gr_rchan_get(rc);
	filp->private_data = rc;
	return nonseekable_open(inode, filp);
}

static int gr_rflush_release(struct inode *inode, struct file *filp)
{
	gr_rchan_put(filp->private_data);
	return 0;
}

/* Any write finishes the channel's partly filled sub-buffers */
static ssize_t gr_rflush_write(struct file *filp, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	int ret = gr_rchan_flush_user(filp->private_data);

	return ret ? ret : count;
}

static const struct file_operations gr_rflush_fops = {
	.owner = THIS_MODULE,
	.open = gr_rflush_open,
	.release = gr_rflush_release,
	.write = gr_rflush_write,
	.llseek = no_llseek,
};

/**
 * gr_rchan_files_add() - create a channel's relay files
 * @rc: the channel, its readers allocated
 *
 * Context: process context.
 * Return: 0 (debugfs failures are not errors: the channel works without
 * its files, as relay's buffer-only channels do).
 */
int gr_rchan_files_add(struct gr_rchan *rc)
{
	char fname[GR_NAME_LEN + 8];
	struct gr_rreader *rd;
	u32 i;

	for (i = 0; i < rc->lay.nr_rings; i++) {
		rd = &rc->readers[i];
		rd->rc = rc;
		rd->ring = i;
		init_waitqueue_head(&rd->wait);
		init_irq_work(&rd->wakeup, gr_rfile_wakeup);
	}
	rc->dir = debugfs_create_dir(rc->name, gr_debugfs_root);
	for (i = 0; i < rc->lay.nr_rings; i++) {
		snprintf(fname, sizeof(fname), "%s%u", rc->name, i);
		debugfs_create_file_unsafe(fname, 0400, rc->dir,
					   &rc->readers[i], &gr_rfile_fops);
	}
	debugfs_create_file_unsafe("flush", 0200, rc->dir, rc,
				   &gr_rflush_fops);
	return 0;
}

/**
 * gr_rchan_files_del() - remove a closed channel's relay files
 * @rc: the channel; no writer, no doorbell any more
 *
 * Open files stay usable until released.
 *
 * Context: process context.
 */
void gr_rchan_files_del(struct gr_rchan *rc)
{
	u32 i;

	for (i = 0; i < rc->lay.nr_rings; i++) {
		irq_work_sync(&rc->readers[i].wakeup);
		wake_up_interruptible(&rc->readers[i].wait);
	}
	debugfs_remove(rc->dir);
	rc->dir = NULL;
}

static void gr_rchan_flush_cpu(void *info)
{
	struct gr_rchan *rc = info;

	gr_chan_flush_this_cpu(rc->cl.chan);
}

/**
 * gr_rchan_flush_all() - finish every partly filled sub-buffer
 * @rc: the channel
 *
 * Each online CPU flushes its own ring between writes; rings of offline
 * CPUs, which nothing writes, directly; a global ring once.
 *
 * Context: process context.
 */
void gr_rchan_flush_all(struct gr_rchan *rc)
{
	struct gr_chan *chan = rc->cl.chan;
	u32 i;

	if (chan->global) {
		gr_chan_flush_this_cpu(chan);
		return;
	}
	cpus_read_lock();
	on_each_cpu(gr_rchan_flush_cpu, rc, 1);
	for (i = 0; i < chan->layout.nr_rings; i++)
		if (!cpu_online(i))
			gr_chan_flush_ring(chan, i);
	cpus_read_unlock();
}

/* ---------------------------------------------------------------------- */
/* klog                                                                   */

/* DEFINE_STATIC_KEY_FALSE(), spelled out for EXPORT_SYMBOL_GPL() */
struct static_key_false gr_klog_key = STATIC_KEY_FALSE_INIT;
EXPORT_SYMBOL_GPL(gr_klog_key);

static struct gr_rchan *gr_klog_chan;
static DEFINE_MUTEX(gr_klog_lock);

/* A gr_klog() line: the text is cut here */
#define GR_KLOG_LINE	240

static bool gr_klog_param;
module_param_named(klog, gr_klog_param, bool, 0444);
MODULE_PARM_DESC(klog, "open the klog channel at load (64 KiB x 8)");

/**
 * gr_klog_open() - open the klog channel
 * @subbuf_size: as gr_relay_open()
 * @n_subbufs: as gr_relay_open()
 *
 * One global channel named "klog": gr_klog() lines from every CPU in one
 * order. Its relay file is guestrelay/klog/klog0.
 *
 * Context: process context; may sleep.
 * Return: 0; -EBUSY if it is open; -EINVAL or -ENOMEM as gr_relay_open().
 */
int gr_klog_open(size_t subbuf_size, size_t n_subbufs)
{
	struct gr_rchan *rc;
	int ret = 0;

	mutex_lock(&gr_klog_lock);
	if (gr_klog_chan) {
		ret = -EBUSY;
		goto out;
	}
	rc = gr_rchan_open("klog", subbuf_size, n_subbufs, GR_RELAY_GLOBAL,
			   NULL, NULL, true);
	if (!rc) {
		ret = -EINVAL;
		goto out;
	}
	WRITE_ONCE(gr_klog_chan, rc);
	static_branch_enable(&gr_klog_key);
out:
	mutex_unlock(&gr_klog_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(gr_klog_open);

/**
 * gr_klog_close() - close the klog channel, if open
 *
 * gr_klog() costs a static-key test again afterwards.
 *
 * Context: process context; may sleep.
 */
void gr_klog_close(void)
{
	struct gr_rchan *rc;

	mutex_lock(&gr_klog_lock);
	rc = gr_klog_chan;
	if (rc) {
		static_branch_disable(&gr_klog_key);
		WRITE_ONCE(gr_klog_chan, NULL);
		/* Writers hold interrupts off from their load to their write */
		synchronize_rcu();
		gr_relay_close(rc);
	}
	mutex_unlock(&gr_klog_lock);
}
EXPORT_SYMBOL_GPL(gr_klog_close);

static void gr_klog_put(u32 flags, const void *text, size_t len)
{
	struct gr_rchan *rc;
	unsigned long irqs;

	local_irq_save(irqs);
	rc = READ_ONCE(gr_klog_chan);
	if (rc)
		gr_rchan_klog_write(rc, flags, text, len);
	local_irq_restore(irqs);
}

/**
 * __gr_klog() - gr_klog() once the key is on
 * @fmt: printf format
 *
 * Context: any.
 */
void __gr_klog(const char *fmt, ...)
{
	char line[GR_KLOG_LINE];
	va_list args;
	int len;

	va_start(args, fmt);
	len = vscnprintf(line, sizeof(line), fmt, args);
	va_end(args);
	gr_klog_put(0, line, len);
}
EXPORT_SYMBOL_GPL(__gr_klog);

/**
 * __gr_klog_raw() - gr_klog_raw() once the key is on
 * @buf: the bytes
 * @len: their number
 *
 * Context: any.
 */
void __gr_klog_raw(const void *buf, size_t len)
{
	gr_klog_put(GR_KLOG_F_RAW, buf, len);
}
EXPORT_SYMBOL_GPL(__gr_klog_raw);

/**
 * gr_relay_files_init() - the debugfs directory, klog if asked
 *
 * Context: module init.
 */
void gr_relay_files_init(void)
{
	gr_debugfs_root = debugfs_create_dir("guestrelay", NULL);
	if (gr_klog_param && gr_klog_open(64 * 1024, 8))
		pr_warn("guestrelay: klog channel not opened\n");
}

/**
 * gr_relay_files_exit() - close klog, remove the debugfs directory
 *
 * Client modules hold guestrelay.ko while they are loaded, so no client
 * channel is left.
 *
 * Context: module exit.
 */
void gr_relay_files_exit(void)
{
	gr_klog_close();
	debugfs_remove(gr_debugfs_root);
}
