// SPDX-License-Identifier: GPL-2.0
/*
 * gr_pci.c - the ivshmem PCI driver of guestrelay
 *
 * ivshmem (1af4:1110) comes in two models: ivshmem-doorbell, with MSI-X
 * vectors and a doorbell register, and ivshmem-plain, shared memory only.
 * BAR0 holds the registers, BAR2 the shared memory (RAM on the host, so
 * mapped write-back). Many ivshmem devices may exist for other purposes;
 * this driver binds only one whose BAR2 carries the host's control block
 * (gr_host_ctrl.magic == GR_CTRL_MAGIC, written by the agent before QEMU
 * starts), or any with force=1, and one at a time.
 *
 * Probe publishes the region (spec 5.2):
 *
 *   map BAR0 and BAR2           read the old instance_id, withdraw
 *   MSI-X vectors               or polling (the plain model)
 *   geometry, gr_chan_open()    rings, records, first sub-buffers
 *   gr_ctl_prepare()            settings (probes attached), status block
 *   gr_region_publish()         descriptors, identity, magic last
 *   gr_ctl_start()              state, writers in, timers, a control pass
 *
 * Remove undoes it (spec 5.5): control and timers stopped, interrupts
 * freed, probes detached, every writer gone, partial sub-buffers
 * delivered, up to a second for the host to consume, rings closed,
 * STOPPED, the layout withdrawn, BARs unmapped. Shutdown (poweroff,
 * kexec) does the same but leaves the probes attached (they no longer
 * reach the channel; gr_main.c detaches them at unload): patching
 * kernel text while the machine goes down gains nothing.
 *
 * Interrupts: GR_VEC_CTRL answers a clock-sync request and queues a
 * control pass; GR_VEC_CONSUMED is only counted, because writers re-read
 * cons.consumed whenever they need a free sub-buffer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include <linux/uuid.h>

#include "gr_dev.h"
#include "gr_events.h"

#define GR_BOOT_ID_PATH		"/proc/sys/kernel/random/boot_id"

/* Serializes probe and remove; the one bound device */
static DEFINE_MUTEX(gr_pci_lock);
static struct gr_dev *gr_pci_active;

/**
 * gr_dev_ring() - ring the host's doorbell @vector
 * @gd: the device
 * @vector: GR_VEC_DATA or GR_VEC_STATUS
 *
 * Only when GR_F_DOORBELL is in use and the host's peer id was validated
 * (G23). writel() orders the doorbell after our earlier stores to the
 * region (spec 8.1).
 *
 * Context: any, including NMI and panic; takes no lock.
 */
void gr_dev_ring(struct gr_dev *gd, u32 vector)
{
	u32 peer;

	if (!READ_ONCE(gd->doorbell_on))
		return;
	peer = READ_ONCE(gd->host_peer_id);
	if (peer > 0xffff)
		return;
	writel((peer << 16) | vector, gd->regs + GR_REG_DOORBELL);
}

/* The relay core's doorbell callback: a sub-buffer was produced. */
static void gr_pci_doorbell(struct gr_buf *buf)
{
	gr_dev_ring(buf->chan->private_data, GR_VEC_DATA);
}

static irqreturn_t gr_pci_ctrl_irq(int irq, void *data)
{
	struct gr_dev *gd = data;

	atomic_long_inc(&gd->ctrl_irqs);
	gr_ctl_kick(gd);
	return IRQ_HANDLED;
}

static irqreturn_t gr_pci_consumed_irq(int irq, void *data)
{
	struct gr_dev *gd = data;

	atomic_long_inc(&gd->consumed_irqs);
	return IRQ_HANDLED;
}

/*
 * MSI-X: both vectors, or none (the plain model, or too few vectors):
 * then the guest polls from its tick and never rings.
 */
static int gr_pci_setup_irqs(struct gr_dev *gd)
{
	struct pci_dev *pdev = gd->pdev;
	u32 pos;
	int ret;

	gd->peer_id = GR_NO_PEER;
	ret = pci_alloc_irq_vectors(pdev, GR_NR_VECTORS, GR_NR_VECTORS,
				    PCI_IRQ_MSIX);
	if (ret < 0) {
		dev_info(&pdev->dev,
			 "no %d MSI-X vectors (%d): no doorbells, polling\n",
			 GR_NR_VECTORS, ret);
		return 0;
	}
	ret = request_irq(pci_irq_vector(pdev, GR_VEC_CTRL), gr_pci_ctrl_irq,
			  0, KBUILD_MODNAME "-ctrl", gd);
	if (ret)
		goto out_free_vectors;
	ret = request_irq(pci_irq_vector(pdev, GR_VEC_CONSUMED),
			  gr_pci_consumed_irq, 0, KBUILD_MODNAME "-consumed",
			  gd);
	if (ret)
		goto out_free_ctrl;
	gd->has_irqs = true;
	pos = readl(gd->regs + GR_REG_IVPOSITION);
	if (pos <= 0xffff)
		gd->peer_id = pos;
	return 0;

out_free_ctrl:
	free_irq(pci_irq_vector(pdev, GR_VEC_CTRL), gd);
out_free_vectors:
	pci_free_irq_vectors(pdev);
	return ret;
}

static void gr_pci_free_irqs(struct gr_dev *gd)
{
	struct pci_dev *pdev = gd->pdev;

	if (!gd->has_irqs)
		return;
	/* free_irq() waits for running handlers */
	free_irq(pci_irq_vector(pdev, GR_VEC_CONSUMED), gd);
	free_irq(pci_irq_vector(pdev, GR_VEC_CTRL), gd);
	pci_free_irq_vectors(pdev);
	gd->has_irqs = false;
}

/*
 * The kernel's boot id, read as userspace reads it (the kernel keeps it
 * private to random.c). Zeros if /proc is not mounted in our namespace
 * or the text does not parse.
 */
static void gr_pci_boot_id(u8 *out)
{
	char text[UUID_STRING_LEN + 1];
	struct file *file;
	loff_t pos = 0;
	ssize_t n;
	uuid_t uuid;

	memset(out, 0, sizeof(uuid.b));
	file = filp_open(GR_BOOT_ID_PATH, O_RDONLY, 0);
	if (IS_ERR(file))
		return;
	n = kernel_read(file, text, UUID_STRING_LEN, &pos);
	filp_close(file, NULL);
	if (n != UUID_STRING_LEN)
		return;
	text[UUID_STRING_LEN] = '\0';
	if (!uuid_parse(text, &uuid))
		memcpy(out, uuid.b, sizeof(uuid.b));
}

static void gr_pci_desc_fill(unsigned int id, struct gr_event_desc *desc,
			     void *arg)
{
	gr_event_desc_fill(&gr_event_defs[id], id, desc);
}

/* Geometry (host wish, else parameters) and the channel over BAR2. */
static int gr_pci_open_chan(struct gr_dev *gd)
{
	static const struct gr_callbacks cb = {
		.subbuf_start = gr_ctf_subbuf_start,
		.doorbell = gr_pci_doorbell,
	};
	struct gr_geometry geo = {
		.region_size = gd->region_size,
		.nr_cpus = nr_cpu_ids,
		.desc_count = gr_nr_event_defs,
		.default_subbuf_size = gr_params.subbuf_size,
		.global = gr_params.global,
	};
	u32 wish_size, wish_n;
	int ret;

	/* No usable host block: both 0, the parameters decide */
	gr_ctrl_geometry(gd->region, &wish_size, &wish_n);
	geo.subbuf_size = wish_size;
	geo.n_subbufs = wish_n ?: gr_params.n_subbufs;
	ret = gr_layout_compute(&geo, &gd->layout);
	if (ret) {
		dev_err(&gd->pdev->dev,
			"no layout for %llu bytes, %u CPUs (%d)\n",
			gd->region_size, nr_cpu_ids, ret);
		return ret;
	}
	ret = gr_chan_open(&gd->chan, gd->region, &gd->layout, &cb, gd);
	if (ret)
		dev_err(&gd->pdev->dev, "cannot open the channel (%d)\n", ret);
	return ret;
}

/* Spec 5.2 step 11: identity, descriptors, header, magic last. */
static void gr_pci_publish(struct gr_dev *gd, u64 instance_id)
{
	char release[GR_RELEASE_LEN];
	char nodename[GR_NODENAME_LEN];
	struct gr_ident ident = {
		.release = release,
		.nodename = nodename,
		.clock_name = "mono_fast",
		.clock_freq = NSEC_PER_SEC,
		.nr_cpus = nr_cpu_ids,
		.features = GR_GUEST_FEATURES |
			    (gd->has_irqs ? GR_F_DOORBELL : 0),
		.instance_id = instance_id,
	};

	strscpy(release, utsname()->release, sizeof(release));
	strscpy(nodename, utsname()->nodename, sizeof(nodename));
	gr_pci_boot_id(ident.boot_id);
	gr_region_publish(gd->region, &gd->layout, &ident, gr_pci_desc_fill,
			  NULL);
}

static void gr_pci_unmap(struct gr_dev *gd)
{
	struct pci_dev *pdev = gd->pdev;

	if (gd->regs)
		pci_iounmap(pdev, gd->regs);
	if (gd->region)
		memunmap(gd->region);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
}

/* Enable the device and map both BARs; -ENODEV if it is not for us. */
static int gr_pci_map(struct gr_dev *gd)
{
	struct pci_dev *pdev = gd->pdev;
	resource_size_t size;
	u64 magic;
	int ret;

	ret = pci_enable_device(pdev);
	if (ret)
		return ret;
	ret = pci_request_regions(pdev, KBUILD_MODNAME);
	if (ret) {
		pci_disable_device(pdev);
		return ret;
	}
	size = pci_resource_len(pdev, 2);
	if (size < GR_MIN_REGION_SIZE || size > GR_MAX_REGION_SIZE ||
	    !is_power_of_2(size)) {
		dev_info(&pdev->dev,
			 "BAR2 size %pa is not a power of two >= 64 KiB: not binding\n",
			 &size);
		ret = -ENODEV;
		goto out_unmap;
	}
	gd->region_size = size;
	/* BAR2 is host RAM, not device registers */
	gd->region = memremap(pci_resource_start(pdev, 2), size, MEMREMAP_WB);
	if (!gd->region) {
		ret = -ENOMEM;
		goto out_unmap;
	}
	magic = le64_to_cpu(READ_ONCE(gr_ctrl(gd->region)->magic));
	if (magic != GR_CTRL_MAGIC && !gr_params.force) {
		dev_info(&pdev->dev,
			 "no guestrelay host block in BAR2 (magic %#llx): not binding (force=1 binds anyway)\n",
			 magic);
		ret = -ENODEV;
		goto out_unmap;
	}
	gd->regs = pci_iomap(pdev, 0, 0);
	if (!gd->regs) {
		ret = -ENOMEM;
		goto out_unmap;
	}
	pci_set_master(pdev);	/* MSI-X messages are bus-master writes */
	return 0;

out_unmap:
	gr_pci_unmap(gd);
	return ret;
}

static int gr_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct gr_dev *gd;
	u64 instance_id;
	int ret;

	gd = kzalloc(sizeof(*gd), GFP_KERNEL);
	if (!gd)
		return -ENOMEM;
	gd->pdev = pdev;
	ret = gr_pci_map(gd);
	if (ret)
		goto out_free;

	mutex_lock(&gr_pci_lock);
	if (gr_pci_active) {
		dev_info(&pdev->dev,
			 "guestrelay already uses %s: one device at a time\n",
			 pci_name(gr_pci_active->pdev));
		ret = -EBUSY;
		goto out_unlock;
	}
	gr_ctl_dev_init(gd);

	/* The old instance_id may be garbage: old + 1, never 0 (G5) */
	instance_id = le64_to_cpu(READ_ONCE(gr_hdr(gd->region)->instance_id));
	gr_region_withdraw(gd->region);
	if (!++instance_id)
		instance_id = 1;

	ret = gr_pci_setup_irqs(gd);
	if (ret)
		goto out_unlock;
	ret = gr_pci_open_chan(gd);
	if (ret)
		goto out_free_irqs;
	gr_ctl_prepare(gd);
	gr_pci_publish(gd, instance_id);

	pci_set_drvdata(pdev, gd);
	gr_pci_active = gd;
	gr_ctl_start(gd);
	mutex_unlock(&gr_pci_lock);

	dev_info(&pdev->dev,
		 "publishing instance %llu: %u rings x %u x %u KiB, %s, peer %d\n",
		 instance_id,
		 gd->layout.nr_rings, gd->layout.n_subbufs,
		 gd->layout.subbuf_size / 1024,
		 gd->has_irqs ? "doorbells" : "polling",
		 gd->peer_id == GR_NO_PEER ? -1 : (int)gd->peer_id);
	return 0;

out_free_irqs:
	gr_pci_free_irqs(gd);
out_unlock:
	mutex_unlock(&gr_pci_lock);
	gr_pci_unmap(gd);
out_free:
	kfree(gd);
	return ret;
}

/*
 * Spec 5.5. @detach: unregister the probes too (remove); a shutdown
 * leaves them attached, unable to reach the channel.
 */
static void gr_pci_teardown(struct gr_dev *gd, bool detach)
{
	gr_ctl_stop(gd);
	gr_pci_free_irqs(gd);
	/* Nothing queues them any more; a queued pass does nothing */
	cancel_work_sync(&gd->ctl_work);
	cancel_delayed_work_sync(&gd->ctl_retry);
	if (detach)
		gr_events_detach_all();
	gr_ctl_quiesce();

	/* No writer can reach the channel: the core's flush is ours alone */
	gr_chan_flush(gd->chan);
	gr_ctl_drain_wait(gd);
	gr_chan_close(gd->chan);
	gr_status_set_state(gd->region, GR_STATE_STOPPED);
	gr_dev_ring(gd, GR_VEC_STATUS);
	gr_region_withdraw(gd->region);

	dev_info(&gd->pdev->dev,
		 "stopped: %ld control passes (%llu deferred), %ld ctrl and %ld consumed interrupts, %ld busy flushes\n",
		 atomic_long_read(&gd->passes), gd->ctl_rl.deferred,
		 atomic_long_read(&gd->ctrl_irqs),
		 atomic_long_read(&gd->consumed_irqs),
		 atomic_long_read(&gd->flush_busy));
	gr_pci_unmap(gd);
}

static void gr_pci_detach(struct pci_dev *pdev, bool detach)
{
	struct gr_dev *gd;

	mutex_lock(&gr_pci_lock);
	gd = pci_get_drvdata(pdev);
	if (gd) {
		gr_pci_teardown(gd, detach);
		pci_set_drvdata(pdev, NULL);
		gr_pci_active = NULL;
		kfree(gd);
	}
	mutex_unlock(&gr_pci_lock);
}

static void gr_pci_remove(struct pci_dev *pdev)
{
	gr_pci_detach(pdev, true);
}

static void gr_pci_shutdown(struct pci_dev *pdev)
{
	gr_pci_detach(pdev, false);
}

static const struct pci_device_id gr_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, GR_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, gr_pci_ids);

static struct pci_driver gr_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = gr_pci_ids,
	.probe = gr_pci_probe,
	.remove = gr_pci_remove,
	.shutdown = gr_pci_shutdown,
};

/**
 * gr_pci_register() - register the PCI driver
 *
 * Context: process context, module load.
 * Return: 0 or the error of pci_register_driver().
 */
int gr_pci_register(void)
{
	return pci_register_driver(&gr_pci_driver);
}

/**
 * gr_pci_unregister() - unregister the PCI driver (removes the device)
 *
 * Context: process context, module unload; sleeps.
 */
void gr_pci_unregister(void)
{
	pci_unregister_driver(&gr_pci_driver);
}
