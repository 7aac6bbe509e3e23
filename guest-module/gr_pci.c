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
 *   parameters copied           the module's, into the device
 *   map BAR0 and BAR2           read the old instance_id, withdraw
 *   MSI-X vectors               or polling (the plain model)
 *   geometry, gr_chan_open()    rings, records, first sub-buffers
 *   gr_pass_prepare()           settings (probes attached), status block
 *   gr_region_publish()         descriptors, identity, magic last
 *   gr_dev_activate()           state, writers in, timers, hotplug, panic
 *   gr_pass_start()             the tick, a control pass
 *
 * Remove undoes it (spec 5.5): control passes stopped, interrupt
 * handlers quiet, probes detached, the device deactivated (timers
 * stopped, every writer gone), partial sub-buffers delivered, up to a
 * second for the host to consume, rings closed, STOPPED, the layout
 * withdrawn. Shutdown (poweroff, kexec) does
 * the same but leaves the probes attached (they no longer reach the
 * channel; gr_main.c detaches them at unload): patching kernel text
 * while the machine goes down gains nothing.
 *
 * Resources are managed (pcim_/devm_): the enabled device, BAR0's
 * mapping, BAR2's region and mapping, the MSI-X vectors, the interrupts
 * and struct gr_dev are released by the driver core after a failed probe
 * or after remove, in reverse order, so probe has no unwinding of its own.
 * Probe and remove run under gr_dev_lock (gr_dev.c), the outermost lock.
 *
 * Interrupts: GR_VEC_CTRL answers a clock-sync request and queues a
 * control pass; GR_VEC_CONSUMED is never asked for (spec 8.3: writers
 * re-read cons.consumed whenever they need a free sub-buffer) and only
 * counted when a host rings it anyway (without GR_F_EVENT_IDX, or a
 * hostile one).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dmi.h>
#include <linux/err.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include <linux/uuid.h>

#include "gr_anyevent.h"
#include "gr_ctf_packet.h"
#include "gr_dev.h"
#include "gr_rchan.h"
#include "gr_events.h"

/*
 * Published as the region's boot_id. The kernel's own boot id
 * (/proc/sys/kernel/random/boot_id) lives in drivers/char/random.c as a
 * static array filled by the static sysctl handler proc_do_uuid(); 6.1
 * exports no accessor, and reading the proc file from a driver is file
 * I/O in probe. So the module makes its own with generate_random_uuid()
 * (include/linux/uuid.h, exported) once per load: like the kernel's, it
 * names the domain of the guest clock for the host (CTF clock uuid) and
 * differs on every boot; unlike it, it also changes when the module is
 * reloaded (spec 3.2).
 */
static u8 gr_boot_uuid[UUID_SIZE];

/* The module's parameters (gr_main.c), copied into each device at probe */
static const struct gr_params *gr_pci_params;

/* The relay core's doorbell callback: a sub-buffer was produced. */
static void gr_pci_doorbell(struct gr_buf *buf)
{
	gr_dev_ring(buf->chan->private_data, GR_VEC_DATA);
}

static irqreturn_t gr_pci_ctrl_irq(int irq, void *data)
{
	struct gr_dev *gd = data;

	atomic_long_inc(&gd->ctrl_irqs);
	gr_pass_kick(gd);
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
 * then the guest polls from its tick and never rings. Vectors and
 * handlers are managed: released at unbind, handlers first.
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
	ret = devm_request_irq(&pdev->dev, pci_irq_vector(pdev, GR_VEC_CTRL),
			       gr_pci_ctrl_irq, 0, KBUILD_MODNAME "-ctrl", gd);
	if (ret)
		return ret;
	ret = devm_request_irq(&pdev->dev,
			       pci_irq_vector(pdev, GR_VEC_CONSUMED),
			       gr_pci_consumed_irq, 0,
			       KBUILD_MODNAME "-consumed", gd);
	if (ret)
		return ret;
	gd->has_irqs = true;
	pos = readl(gd->regs + GR_REG_IVPOSITION);
	if (pos <= 0xffff)
		gd->peer_id = pos;
	return 0;
}

/*
 * After gr_pass_stop() a GR_VEC_CTRL handler queues nothing; wait for one
 * that started before, so that cancelling the control work is final.
 * The handlers themselves stay requested until unbind (devres).
 */
static void gr_pci_quiet_irqs(struct gr_dev *gd)
{
	if (gd->has_irqs)
		synchronize_irq(pci_irq_vector(gd->pdev, GR_VEC_CTRL));
}

static void gr_pci_desc_fill(unsigned int id, struct gr_event_desc *desc,
			     void *arg)
{
	struct gr_dev *gd = arg;

	/* v1.15: the extension right after it, in a slot that holds one */
	gr_desc_fill(id, desc, gd->layout.desc_stride >= GR_LONG_DESC_STRIDE ?
		     (struct gr_event_desc_ext *)(desc + 1) : NULL);
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
		.desc_count = gr_desc_count(),
		/* spec 18.2 N1: room for events by name, if it fits */
		.desc_capacity = GR_DESC_CAPACITY,
		/* spec 19.2 W1: and more with a wide area, if the region holds it */
		.wide_capacity = GR_WIDE_CAPACITY,
		.default_subbuf_size = gd->params.subbuf_size,
		.global = gd->params.global,
	};
	u32 wish_size, wish_n;
	int ret;

	/* No usable host block: both 0, the parameters decide */
	gr_ctrl_geometry(gd->region, &wish_size, &wish_n);
	/* Spec 16.1: a client area only for a host that reads it */
	if (gr_ctrl_host_features(gd->region) & GR_F_CLIENT)
		geo.client_size = min_t(u64, gd->region_size / 4,
					(u64)gd->params.client_kib * 1024) &
				  ~(u64)(GR_PAGE_SIZE - 1);
	if (geo.client_size < GR_CLIENT_DIR_SIZE * 2)
		geo.client_size = 0;
	/* Spec 17.1: the hist area likewise, right below the client area */
	if (gr_ctrl_host_features(gd->region) & GR_F_HIST)
		geo.hist_size = gr_hist_area_size(gd->region_size,
						  gd->params.hist_kib);
	geo.subbuf_size = wish_size;
	geo.n_subbufs = wish_n ?: gd->params.n_subbufs;
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

/*
 * The DMI product UUID (SMBIOS type 1; a libvirt guest's is its domain
 * UUID) into @uuid in text order, all zero if the firmware gives none or
 * its text is not a UUID (spec 3.2, v1.2).
 */
static void gr_product_uuid(u8 uuid[16])
{
	const char *text = dmi_get_system_info(DMI_PRODUCT_UUID);
	uuid_t u;

	memset(uuid, 0, 16);
	if (text && !uuid_parse(text, &u))
		memcpy(uuid, u.b, 16);
}

/* Spec 5.2 step 11: identity, descriptors, header, magic last. */
static void gr_pci_publish(struct gr_dev *gd, u64 instance_id)
{
	char release[GR_RELEASE_LEN];
	char nodename[GR_NODENAME_LEN];
	char version[GR_VERSION_LEN];
	struct gr_ident ident = {
		.release = release,
		.nodename = nodename,
		.version = version,
		.clock_name = gd->params.clock_name,
		.clock_freq = gd->params.clock_freq,
		.nr_cpus = nr_cpu_ids,
		.features = GR_GUEST_FEATURES | GR_EVENTS_FEATURES |
			    /* v1.12: only an interrupt starts a polled burst */
			    (gd->has_irqs ? GR_F_DOORBELL | GR_F_SYNC_POLL : 0) |
			    (gd->layout.client_size ? GR_F_CLIENT : 0) |
			    (gd->layout.hist_size ? GR_F_HIST : 0) |
			    GR_F_ANYEVENT | GR_F_PROBE | GR_F_VMSYNC |
			    GR_F_DYNARR | GR_F_ARRAYS |
			    (gd->layout.wide_offset ? GR_F_WIDE_EVENTS : 0) |
			    /* v1.15: slots with room for the extension */
			    (gd->layout.desc_stride >= GR_LONG_DESC_STRIDE ?
			     GR_F_LONG_DESC : 0) |
			    (gd->sync_tsc ? GR_F_SYNC_TSC : 0),
		.instance_id = instance_id,
	};

	strscpy(release, utsname()->release, sizeof(release));
	strscpy(nodename, utsname()->nodename, sizeof(nodename));
	strscpy(version, utsname()->version, sizeof(version));
	memcpy(ident.boot_id, gr_boot_uuid, sizeof(ident.boot_id));
	gr_product_uuid(ident.product_uuid);
	gr_region_publish(gd->region, &gd->layout, &ident, gr_pci_desc_fill,
			  gd);
}

/* Enable the device and map both BARs; -ENODEV if it is not for us. */
static int gr_pci_map(struct gr_dev *gd)
{
	struct pci_dev *pdev = gd->pdev;
	resource_size_t start, size;
	u64 magic;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	size = pci_resource_len(pdev, 2);
	if (size < GR_MIN_REGION_SIZE || size > GR_MAX_REGION_SIZE ||
	    !is_power_of_2(size)) {
		dev_info(&pdev->dev,
			 "BAR2 size %pa is not a power of two >= 64 KiB: not binding\n",
			 &size);
		return -ENODEV;
	}
	gd->region_size = size;
	start = pci_resource_start(pdev, 2);
	if (!devm_request_mem_region(&pdev->dev, start, size, KBUILD_MODNAME))
		return -EBUSY;
	/* BAR2 is host RAM, not device registers (spec G1: R checked above) */
	gd->region = devm_memremap(&pdev->dev, start, size, MEMREMAP_WB);
	if (IS_ERR(gd->region))
		return PTR_ERR(gd->region);
	magic = le64_to_cpu(READ_ONCE(gr_ctrl(gd->region)->magic));
	if (magic != GR_CTRL_MAGIC && !gd->params.force) {
		dev_info(&pdev->dev,
			 "no guestrelay host block in BAR2 (magic %#llx): not binding (force=1 binds anyway)\n",
			 magic);
		return -ENODEV;
	}
	ret = pcim_iomap_regions(pdev, BIT(0), KBUILD_MODNAME);
	if (ret)
		return ret;
	gd->regs = pcim_iomap_table(pdev)[0];
	pci_set_master(pdev);	/* MSI-X messages are bus-master writes */
	return 0;
}

static int gr_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct gr_dev *gd;
	u64 instance_id;
	int ret;

	gd = devm_kzalloc(&pdev->dev, sizeof(*gd), GFP_KERNEL);
	if (!gd)
		return -ENOMEM;
	gd->params = *gr_pci_params;
	gd->pdev = pdev;
	ret = gr_pci_map(gd);
	if (ret)
		return ret;

	mutex_lock(&gr_dev_lock);
	if (gr_dev_active()) {
		dev_info(&pdev->dev,
			 "guestrelay already uses %s: one device at a time\n",
			 pci_name(gr_dev_active()->pdev));
		ret = -EBUSY;
		goto out_unlock;
	}
	gr_pass_dev_init(gd);

	/* The old instance_id may be garbage: old + 1, never 0 (G5) */
	instance_id = le64_to_cpu(READ_ONCE(gr_hdr(gd->region)->instance_id));
	gr_region_withdraw(gd->region);
	if (!++instance_id)
		instance_id = 1;

	ret = gr_pci_setup_irqs(gd);
	if (ret)
		goto out_unlock;
	/* spec 18.2 N6: a publication starts from the table */
	gr_anyevent_unpublish();
	/* spec 18.4 P7: and the probes created for the host go */
	gr_probe_delete_all();
	ret = gr_pci_open_chan(gd);
	if (ret)
		goto out_unlock;
	gr_pass_prepare(gd);
	/* spec 9.5: what the TSC is worth is known now, at publication */
	WRITE_ONCE(gd->sync_tsc, gr_pass_sync_tsc_offered());
	gr_pci_publish(gd, instance_id);
	/* Spec 16.3: open client channels go to the host */
	gr_rchan_pub_attach(gd->region, &gd->layout);

	pci_set_drvdata(pdev, gd);
	gr_dev_activate(gd);
	gr_pass_start(gd);
	mutex_unlock(&gr_dev_lock);

	dev_info(&pdev->dev,
		 "publishing instance %llu: %u rings x %u x %u KiB, %s, peer %d\n",
		 instance_id,
		 gd->layout.nr_rings, gd->layout.n_subbufs,
		 gd->layout.subbuf_size / 1024,
		 gd->has_irqs ? "doorbells" : "polling",
		 gd->peer_id == GR_NO_PEER ? -1 : (int)gd->peer_id);
	return 0;

out_unlock:
	mutex_unlock(&gr_dev_lock);
	return ret;
}

/*
 * Spec 5.5. @detach: unregister the probes too (remove); a shutdown
 * leaves them attached, unable to reach the channel.
 */
static void gr_pci_teardown(struct gr_dev *gd, bool detach)
{
	gr_pass_stop(gd);
	gr_pci_quiet_irqs(gd);
	/* Nothing queues them any more; a queued pass does nothing */
	cancel_work_sync(&gd->pass_work);
	cancel_delayed_work_sync(&gd->pass_retry);
	cancel_work_sync(&gd->pub_work);
	cancel_work_sync(&gd->dump_work);
	if (detach)
		gr_events_detach_all();
	gr_dev_deactivate(gd);

	/* No writer can reach the channel: the core's flush is ours alone */
	gr_chan_flush(gd->chan);
	gr_pass_drain_wait(gd);
	gr_chan_close(gd->chan);
	/* spec G25: STOPPED before withdrawing */
	gr_status_set_state(gd->region, GR_STATE_STOPPED);
	gr_dev_ring(gd, GR_VEC_STATUS);
	/* Client channels back into guest memory before the region goes */
	gr_rchan_pub_detach();
	gr_region_withdraw(gd->region);

	dev_info(&gd->pdev->dev,
		 "stopped: %ld control passes (%llu deferred), %ld ctrl and %ld consumed interrupts, %ld busy flushes\n",
		 atomic_long_read(&gd->passes), gd->pass_rl.deferred,
		 atomic_long_read(&gd->ctrl_irqs),
		 atomic_long_read(&gd->consumed_irqs),
		 atomic_long_read(&gd->flush_busy));
}

static void gr_pci_detach(struct pci_dev *pdev, bool detach)
{
	struct gr_dev *gd;

	mutex_lock(&gr_dev_lock);
	gd = pci_get_drvdata(pdev);
	if (gd) {
		gr_pci_teardown(gd, detach);
		pci_set_drvdata(pdev, NULL);
	}
	mutex_unlock(&gr_dev_lock);
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
 * @params: the module parameters, checked; each device copies them at
 *	probe, so they must outlive the driver
 *
 * Context: process context, module load.
 * Return: 0 or the error of pci_register_driver().
 */
int gr_pci_register(const struct gr_params *params)
{
	gr_pci_params = params;
	generate_random_uuid(gr_boot_uuid);
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
