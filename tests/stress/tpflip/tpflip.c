// SPDX-License-Identifier: GPL-2.0
/*
 * tpflip.c - the code patching of guestrelay.ko's load, without
 * guestrelay (tests/stress/test_boot_stress.sh, mode tpflip)
 *
 * At load it attaches one empty probe to each tracepoint named in tps=,
 * one tracepoint after the other, as guestrelay.ko's control pass
 * attaches its events: each first probe of a tracepoint makes the kernel
 * retarget the tracepoint's static call (its trampoline and every inline
 * call site, one text_poke_bp() each) and enable its static key (one
 * text_poke_bp_batch()). flips=N then detaches and attaches them all N
 * more times. It records nothing, takes no lock of its own, touches no
 * device and never waits for anyone: if a guest freezes loading this
 * module, the freeze is the kernel's code patching meeting the machine
 * it runs on, not anything guestrelay does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#define TPFLIP_MAX	32

#define TPFLIP_SCHED	"sched_switch,sched_wakeup,sched_wakeup_new,"
#define TPFLIP_PROC	"sched_process_fork,sched_process_exec,sched_process_exit"

static char *tps = TPFLIP_SCHED TPFLIP_PROC;
module_param(tps, charp, 0444);
MODULE_PARM_DESC(tps, "Tracepoints to attach to, separated by , or +");

static uint flips;
module_param(flips, uint, 0444);
MODULE_PARM_DESC(flips, "Detach and attach everything this many more times");

static DEFINE_PER_CPU(unsigned long, tpflip_hits);
static struct tracepoint *tpflip_tps[TPFLIP_MAX];
static unsigned int tpflip_nr;
static bool tpflip_on[TPFLIP_MAX];

/*
 * The probe of every tracepoint: it takes only @data, which every probe
 * prototype starts with; the x86-64 calling convention ignores the
 * arguments after it.
 */
static void tpflip_probe(void *data)
{
	this_cpu_inc(tpflip_hits);
}

struct tpflip_find {
	const char *name;
	size_t len;
	struct tracepoint *tp;
};

static void tpflip_match(struct tracepoint *tp, void *priv)
{
	struct tpflip_find *f = priv;

	if (!f->tp && strlen(tp->name) == f->len &&
	    !strncmp(tp->name, f->name, f->len))
		f->tp = tp;
}

static void tpflip_detach(void)
{
	unsigned int i;

	for (i = 0; i < tpflip_nr; i++) {
		if (!tpflip_on[i])
			continue;
		WARN_ON_ONCE(tracepoint_probe_unregister(tpflip_tps[i],
							 tpflip_probe, NULL));
		tpflip_on[i] = false;
	}
	tracepoint_synchronize_unregister();
}

static int tpflip_attach(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < tpflip_nr; i++) {
		ret = tracepoint_probe_register(tpflip_tps[i],
						(void *)tpflip_probe, NULL);
		if (ret)
			return ret;
		tpflip_on[i] = true;
	}
	return 0;
}

static int __init tpflip_init(void)
{
	struct tpflip_find f;
	const char *p = tps;
	unsigned int n;
	int ret;

	while (*p && tpflip_nr < TPFLIP_MAX) {
		f.name = p;
		f.len = strcspn(p, ",+");
		f.tp = NULL;
		p += f.len + !!p[f.len];
		if (!f.len)
			continue;
		for_each_kernel_tracepoint(tpflip_match, &f);
		if (!f.tp) {
			pr_err("no tracepoint %.*s\n", (int)f.len, f.name);
			return -ENOENT;
		}
		tpflip_tps[tpflip_nr++] = f.tp;
	}
	for (n = 0; n <= flips; n++) {
		if (n)
			tpflip_detach();
		ret = tpflip_attach();
		if (ret)
			goto out_detach;
	}
	pr_info("%u tracepoints attached, %u flips\n", tpflip_nr, flips);
	return 0;

out_detach:
	tpflip_detach();
	return ret;
}

static void __exit tpflip_exit(void)
{
	unsigned long hits = 0;
	unsigned int cpu;

	tpflip_detach();
	for_each_possible_cpu(cpu)
		hits += per_cpu(tpflip_hits, cpu);
	pr_info("%lu probe calls\n", hits);
}

module_init(tpflip_init);
module_exit(tpflip_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Attach empty probes to tracepoints: code patching only");
