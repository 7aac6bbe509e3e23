// SPDX-License-Identifier: GPL-2.0
/*
 * gr_main.c - guestrelay.ko: parameters, load and unload
 *
 * Load: parameters checked and parsed (a wrong one fails the load), the
 * event table's tracepoints looked up, the control pass's tables built,
 * the active device's machinery (switch timers, CPU hotplug state, panic
 * notifier: gr_dev.c) set up, then the PCI driver, whose probe copies the
 * parameters into its device and publishes the region. Unload is the
 * reverse; the PCI remove does the real work (gr_pci.c).
 *
 * The parameters are the settings used while no valid host control block
 * is present (spec: "all zero means no host") and the geometry unless the
 * host wishes another. A host block overrides all but the geometry
 * choice "global".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/jump_label.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#ifdef CONFIG_X86
#include <asm/tsc.h>
#endif

#include "gr_anyevent.h"
#include "gr_dev.h"
#include "gr_events.h"
#include "gr_follow.h"
#include "gr_relay_file.h"

static bool force;
module_param(force, bool, 0444);
MODULE_PARM_DESC(force, "Bind an ivshmem device even without a host control block");

static uint subbuf_size = GR_DEFAULT_SUBBUF_SIZE;
module_param(subbuf_size, uint, 0444);
MODULE_PARM_DESC(subbuf_size, "Sub-buffer bytes unless the host wishes (power of two, 4 KiB..16 MiB; default 64 KiB)");

static uint client_kib = 2048;
module_param(client_kib, uint, 0444);
MODULE_PARM_DESC(client_kib, "KiB of the region kept for client channels when the host has GR_F_CLIENT (0 = none; at most a quarter of the region)");
static uint hist_kib = 1024;
module_param(hist_kib, uint, 0444);
MODULE_PARM_DESC(hist_kib, "KiB of the region kept for aggregation maps when the host has GR_F_HIST (0 = none; at least 64, at most an eighth of the region)");
static uint n_subbufs;
module_param(n_subbufs, uint, 0444);
MODULE_PARM_DESC(n_subbufs, "Sub-buffers per ring unless the host wishes (0 = as many as fit)");

static bool global;
module_param(global, bool, 0444);
MODULE_PARM_DESC(global, "One ring shared by all CPUs instead of one per CPU");

/* The scheduler's view: enough for Trace Compass's kernel analyses */
#define GR_DEFAULT_EVENTS	"sched_switch,sched_wakeup,sched_wakeup_new," \
				"sched_process_fork,sched_process_exec," \
				"sched_process_exit,lttng_statedump"

static char *events = GR_DEFAULT_EVENTS;
module_param(events, charp, 0444);
MODULE_PARM_DESC(events, "Events recorded without a host: names or systems (e.g. sched) separated by ',' or '+', or all");

static char *mode = "stream";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "Mode without a host: stream (drop when full) or flight (overwrite)");

static bool tracing = true;
module_param(tracing, bool, 0444);
MODULE_PARM_DESC(tracing, "Record without a host (default 1)");

static uint switch_timer_ms = 100;
module_param(switch_timer_ms, uint, 0444);
MODULE_PARM_DESC(switch_timer_ms, "Switch timer without a host, ms (0 = off, at most 10000)");

static char *clock = "auto";
module_param(clock, charp, 0444);
MODULE_PARM_DESC(clock, "Event clock: auto (tsc if the kernel trusts the TSC across CPUs, else mono_fast), tsc or mono_fast");

/* Parsed at load; each device takes a copy at probe */
static struct gr_params gr_params;

/* gr_clock() reads the TSC; see gr_clock_setup() */
DEFINE_STATIC_KEY_FALSE(gr_clock_tsc);

/*
 * Spec 6.9 wants an event clock that never goes back within a ring (the
 * ring clamps it) and that CPUs share. The TSC is that when the kernel
 * itself trusts it across CPUs: check_tsc_unstable() is false once the
 * boot-time synchronization check, the clocksource watchdog and the
 * cpufreq rules found nothing wrong (or tsc=reliable said so). It costs
 * a fraction of ktime_get_mono_fast_ns() (spec 3.2 has the figures), so
 * "auto" takes it whenever it is trusted. Chosen once: the trace's clock
 * cannot change within a session.
 */
static bool gr_tsc_usable(void)
{
#ifdef CONFIG_X86
	return boot_cpu_has(X86_FEATURE_TSC) && tsc_khz &&
	       !check_tsc_unstable();
#else
	return false;
#endif
}

static int gr_clock_setup(struct gr_params *p)
{
	bool tsc;

	if (!strcmp(clock, "auto")) {
		tsc = gr_tsc_usable();
	} else if (!strcmp(clock, "tsc")) {
		tsc = true;
		if (!gr_tsc_usable()) {
			pr_err("clock=tsc: the kernel does not trust the TSC across CPUs\n");
			return -EINVAL;
		}
	} else if (!strcmp(clock, "mono_fast")) {
		tsc = false;
	} else {
		pr_err("clock=%s: not auto, tsc or mono_fast\n", clock);
		return -EINVAL;
	}
#ifdef CONFIG_X86
	if (tsc) {
		p->clock_name = "tsc";
		p->clock_freq = (u64)tsc_khz * 1000;
		static_branch_enable(&gr_clock_tsc);
		return 0;
	}
#endif
	p->clock_name = "mono_fast";
	p->clock_freq = NSEC_PER_SEC;
	return 0;
}

/* clock_now_ns: the event clock now, in ns as trace readers show it */
static int gr_clock_now_get(char *buf, const struct kernel_param *kp)
{
	u64 now = gr_clock();

	if (gr_params.clock_freq != NSEC_PER_SEC)
		now = mul_u64_u64_div_u64(now, NSEC_PER_SEC,
					  gr_params.clock_freq);
	return sysfs_emit(buf, "%llu\n", now);
}

static const struct kernel_param_ops gr_clock_now_ops = {
	.get = gr_clock_now_get,
};

module_param_cb(clock_now_ns, &gr_clock_now_ops, NULL, 0444);

/* clock_in_use: the clock clock=auto chose, as the region header names it */
static int gr_clock_in_use_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", gr_params.clock_name);
}

static const struct kernel_param_ops gr_clock_in_use_ops = {
	.get = gr_clock_in_use_get,
};

module_param_cb(clock_in_use, &gr_clock_in_use_ops, NULL, 0444);
/* dump_stats: what the last state dump cost (spec 9.7) */
static int gr_dump_stats_show(char *buf, const struct kernel_param *kp)
{
	struct gr_dump_stats st;

	gr_dump_stats_get(&st);
	return sysfs_emit(buf,
			  "dumps %llu threads %llu batches %llu total_ns %llu max_hold_ns %llu\n",
			  st.dumps, st.threads, st.batches, st.total_ns,
			  st.max_hold_ns);
}

static const struct kernel_param_ops gr_dump_stats_ops = {
	.get = gr_dump_stats_show,
};

module_param_cb(dump_stats, &gr_dump_stats_ops, NULL, 0444);
MODULE_PARM_DESC(dump_stats, "Read only: the last state dump: threads, RCU sections, duration, longest hold");
MODULE_PARM_DESC(clock_in_use, "Read only: the event clock in use, tsc or mono_fast");
MODULE_PARM_DESC(clock_now_ns, "Read only: the event clock now, in ns (ticks * 10^9 / clock_freq)");

/* Set the bit of every event @name designates; false if none. */
static bool gr_select_events(const char *name, u64 *enable)
{
	bool all = !strcmp(name, "all"), found = false;
	const struct gr_event_def *def;
	unsigned int id;

	for (id = 0; id < gr_desc_count(); id++) {
		def = gr_desc_def(id, NULL, NULL);
		if (all || !strcmp(name, def->name) ||
		    !strcmp(name, def->system)) {
			enable[id / 64] |= BIT_ULL(id % 64);
			found = true;
		}
	}
	return found;
}

static int gr_parse_events(const char *list, u64 *enable)
{
	char *copy, *rest, *name;
	int ret = 0;

	copy = kstrdup(list, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	rest = copy;
	while ((name = strsep(&rest, ",+"))) {
		name = strim(name);
		if (*name && !gr_select_events(name, enable)) {
			pr_err("events: no event or system named '%s'\n", name);
			ret = -EINVAL;
			break;
		}
	}
	kfree(copy);
	return ret;
}

static int gr_parse_params(struct gr_params *p)
{
	struct gr_settings *d = &p->defaults;
	int ret;

	memset(p, 0, sizeof(*p));
	if (subbuf_size < GR_MIN_SUBBUF_SIZE ||
	    subbuf_size > GR_MAX_SUBBUF_SIZE || !is_power_of_2(subbuf_size)) {
		pr_err("subbuf_size=%u: not a power of two in [4 KiB, 16 MiB]\n",
		       subbuf_size);
		return -EINVAL;
	}
	if (n_subbufs && (n_subbufs < GR_MIN_SUBBUFS ||
			  n_subbufs > GR_MAX_SUBBUFS)) {
		pr_err("n_subbufs=%u: not 0 or in [%u, %u]\n", n_subbufs,
		       GR_MIN_SUBBUFS, GR_MAX_SUBBUFS);
		return -EINVAL;
	}
	if (switch_timer_ms > GR_MAX_SWITCH_TIMER_US / USEC_PER_MSEC) {
		pr_err("switch_timer_ms=%u: more than 10 s\n", switch_timer_ms);
		return -EINVAL;
	}
	if (!strcmp(mode, "stream")) {
		d->mode = GR_MODE_STREAM;
	} else if (!strcmp(mode, "flight")) {
		d->mode = GR_MODE_FLIGHT;
	} else {
		pr_err("mode=%s: not stream or flight\n", mode);
		return -EINVAL;
	}
	ret = gr_parse_events(events, d->enable);
	if (ret)
		return ret;
	d->tracing = tracing;
	d->switch_timer_us = switch_timer_ms * USEC_PER_MSEC;
	d->host_peer_id = GR_NO_PEER;
	p->subbuf_size = subbuf_size;
	p->n_subbufs = n_subbufs;
	p->client_kib = client_kib;
	p->hist_kib = hist_kib;
	p->global = global;
	p->force = force;
	return gr_clock_setup(p);
}

static int __init gr_init(void)
{
	int ret;

	/* first: the events found by name are in events= and the table */
	gr_anyevent_init();
	ret = gr_parse_params(&gr_params);
	if (ret)
		goto out_any;
	ret = gr_events_init();
	if (ret)
		goto out_any;
	gr_pass_init();
	ret = gr_dev_init();
	if (ret)
		goto out_any;
	ret = gr_pci_register(&gr_params);
	if (ret) {
		gr_dev_exit();
		goto out_any;
	}
	gr_relay_files_init();
	return 0;
out_any:
	gr_anyevent_exit();
	return ret;
}

static void __exit gr_exit(void)
{
	gr_relay_files_exit();
	gr_pci_unregister();
	gr_dev_exit();
	/* Probes a shutdown left attached; none after a remove */
	gr_events_detach_all();
	gr_follow_hooks_detach();
	gr_anyevent_exit();
	/* spec 18.4 P7: no counter or reference holds them any more */
	gr_probe_delete_all();
	gr_byname_exit();
	/* no probe runs any more: the scratch buffers of spec 17 go */
	gr_rec_scratch_exit();
}

module_init(gr_init);
module_exit(gr_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("guestrelay: trace this guest from the host through ivshmem relay channels");
MODULE_VERSION("1.0");
