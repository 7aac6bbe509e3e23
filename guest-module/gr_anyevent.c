// SPDX-License-Identifier: GPL-2.0
/*
 * gr_anyevent: record trace events of this kernel found by name (issue 25,
 * spec/drafts/anyevent.md).
 *
 * The anyevent= module parameter ("system:name,system:name", no globs)
 * names them; each is resolved at load with the kernel's exported
 * trace_get_event_file(), whose reference pins the event's module while
 * guestrelay is loaded.
 * Its payload layout and record are gr_format.h's: the event's own fields,
 * as its tracefs format shows them. An event whose fields cannot be
 * recorded is refused with its reason, as is one whose name the table's
 * events or an earlier one already use.
 *
 * At run time (spec 18, GR_F_ANYEVENT; the request itself is
 * gr_byname.c's) gr_anyevent_add_named() appends one more, laid out the
 * same way, as descriptor gr_desc_live(): the entry, then the region's
 * descriptor (the caller's), are written before the release store of
 * gr_anyevent_live that makes the id valid to gr_anyevent_of() and to
 * every "number of ids" check of the module (gr_desc_live()). An entry
 * covered by gr_anyevent_live never changes until the region is
 * published again (gr_anyevent_unpublish(), spec 18.2 N6), which drops
 * the run-time ones: counters released, a grace period (no handler
 * still reads the entry), references put.
 *
 * Recording: the first time the host enables such an event, a perf
 * counter per online CPU is created for it (PERF_TYPE_TRACEPOINT, the
 * event's id, sample_period 1, PERF_SAMPLE_RAW and _PERIOD); the kernel's
 * perf stage
 * of the event fills the same entry ftrace would and hands it to the
 * counter's overflow handler, which writes it as one record through the
 * record API (gr_record.h): enable bit, filter programs and the follow
 * filter apply as to every event. The counters stay until unload, like
 * the probes of the table's events (gr_events.h). With PERF_SAMPLE_PERIOD
 * perf calls the handler once per event and never throttles it.
 *
 * CPU hotplug: perf detaches a CPU's counters when the CPU goes down
 * (perf_event_exit_cpu()) and never attaches them again, so every attached
 * event needs a new counter on a CPU that comes online, and the old one
 * goes. Creating or releasing a tracepoint counter takes event_mutex
 * (perf_trace_init(), perf_trace_destroy()) and, for a tracepoint's first
 * or last perf user, cpu_hotplug_lock (its static key); ftrace takes them
 * in that order (event_mutex, then cpu_hotplug_lock when it registers a
 * probe). So neither may happen in a hotplug callback, which runs with
 * cpu_hotplug_lock held for writing, nor under cpus_read_lock(): the
 * callbacks only note the change and queue gr_anyevent_sync_work, whose
 * pass brings every attached event's counters in line with the online
 * CPUs under gr_anyevent_lock, as the first enable does:
 *	- a CPU coming online (CPUHP_AP_ONLINE_DYN startup) starts a new
 *	  generation: a counter of an older one is released and replaced;
 *	- a CPU that died (CPUHP_BP_PREPARE_DYN teardown, after it is
 *	  offline) has its counters released.
 * A counter created for a CPU while it goes down is refused by perf or
 * detached, and replaced at its next online. Events of a CPU between its
 * online callback and the end of that pass are not recorded (nor counted
 * as lost); the window is one work item's latency.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/trace_events.h>
#include <linux/workqueue.h>
#include "gr_anyevent.h"
#include "gr_record.h"

/**
 * struct gr_anyevent - one event found by name
 * @file: the reference trace_get_event_file() took
 * @def: name, system, payload size and flags, as published
 * @fmt: the payload layout
 * @tid: the event's ftrace id (its tracefs id, the counter's config)
 * @nftrace: the number of its own fields in ftrace's list
 * @id: the guestrelay event id (descriptor index)
 * @gone: a probe of the host deleted (spec 18.4 P6): never attached,
 *	@file NULL, until P5 takes the id back
 * @counters: one per possible CPU once attached, NULL before
 */
/**
 * struct gr_anyevent_counter - an event's counter on one CPU
 * @pe: the counter, NULL for none
 * @gen: the CPU's generation (gr_anyevent_gen) it was created in
 */
struct gr_anyevent_counter {
	struct perf_event *pe;
	unsigned int gen;
};

struct gr_anyevent {
	struct trace_event_file *file;
	struct gr_event_def def;
	struct gr_format fmt;
	char system[GR_LONG_SYSTEM_LEN];
	char name[GR_LONG_NAME_LEN];
	unsigned int tid;
	unsigned int nftrace;
	u16 id;
	bool gone;
	struct gr_anyevent_counter *counters;
};

static char *anyevent;
module_param(anyevent, charp, 0444);
MODULE_PARM_DESC(anyevent, "Trace events to record by system:name, comma separated (issue 25)");

/*
 * Entries, allocated when first used (gr_anyevent_slot()) and kept, for
 * the next publication, until the module unloads: 991 slots (spec 19)
 * would cost about 1 MB held whether used or not
 */
static struct gr_anyevent *gr_anyevents[GR_ANYEVENT_SLOTS];
/* found at load (anyevent=): published with the table */
static unsigned int gr_anyevent_count;
/* entries valid: those, then the added ones; stored with release */
static unsigned int gr_anyevent_live;
static unsigned int gr_anyevent_missing;
static unsigned int gr_anyevent_refused;
/* records whose string or array was longer than its maximum, cut */
static atomic_long_t gr_anyevent_cut = ATOMIC_LONG_INIT(0);
/* GR_FORMAT_* the host accepts: what layouts may hold */
static u8 gr_anyevent_feats;
static DEFINE_MUTEX(gr_anyevent_lock);
/* bumped each time the CPU comes online */
static DEFINE_PER_CPU(unsigned int, gr_anyevent_gen);
static int gr_anyevent_online_state = -1;
static int gr_anyevent_dead_state = -1;
static bool gr_anyevent_hotplug_tried;

/** gr_anyevent_nr() - how many events were found by name at load */
unsigned int gr_anyevent_nr(void)
{
	return gr_anyevent_count;
}

/**
 * gr_desc_live() - the number of valid event ids now (spec 18.2)
 *
 * gr_desc_count(), then the events added at run time. Its acquire load
 * pairs with the release store that published the last one: the entry of
 * every id below it is complete.
 *
 * Context: any.
 */
unsigned int gr_desc_live(void)
{
	/* pairs with the release in gr_anyevent_add_named() */
	return gr_nr_event_defs + smp_load_acquire(&gr_anyevent_live);
}

static struct gr_anyevent *gr_anyevent_of(unsigned int id)
{
	unsigned int live;

	if (id < gr_nr_event_defs)
		return NULL;
	/* acquire: the entry below the count is complete (add_named) */
	live = smp_load_acquire(&gr_anyevent_live);
	if (id - gr_nr_event_defs >= live)
		return NULL;
	return gr_anyevents[id - gr_nr_event_defs];
}

/*
 * Entry @i, the next one to lay out (not yet covered by the count:
 * nobody else reads it), allocated if it never was; NULL without memory.
 * Its pointer is stored before the release of the count that covers it.
 */
static struct gr_anyevent *gr_anyevent_slot(unsigned int i)
{
	if (!gr_anyevents[i])
		gr_anyevents[i] = kzalloc(sizeof(*gr_anyevents[i]),
					  GFP_KERNEL);
	return gr_anyevents[i];
}

/* ---- the record ------------------------------------------------------- */

/*
 * The counter's overflow handler: in the tracepoint's context (preemption
 * off, any context perf allows), with the entry the event's perf stage
 * filled in data->raw.
 */
static notrace void gr_anyevent_handler(struct perf_event *pe,
					struct perf_sample_data *data,
					struct pt_regs *regs)
{
	const struct gr_anyevent *ev = pe->overflow_handler_context;
	const struct perf_raw_record *raw;
	struct gr_format_cursor c;
	struct gr_rec rec;
	const u8 *src;
	int len;
	u8 *p;

	if (!(data->sample_flags & PERF_SAMPLE_RAW))
		return;
	raw = data->raw;
	if (!raw || !perf_raw_frag_last(&raw->frag))
		return;
	src = raw->frag.data;
	len = gr_format_measure(&ev->fmt, src, raw->frag.size, &c);
	if (len < 0 || !gr_rec_open(&rec, ev->id))
		return;
	p = gr_rec_reserve(&rec, len);
	if (!p)
		return;
	gr_format_copy(&ev->fmt, p, src, &c);
	gr_rec_commit(&rec);
	if (c.cut)
		atomic_long_inc(&gr_anyevent_cut);
}

/* Release the counters of @ev, under gr_anyevent_lock */
static void gr_anyevent_release(struct gr_anyevent *ev)
{
	unsigned int cpu;

	if (!ev->counters)
		return;
	for_each_possible_cpu(cpu)
		if (ev->counters[cpu].pe)
			perf_event_release_kernel(ev->counters[cpu].pe);
	kfree(ev->counters);
	ev->counters = NULL;
}

/*
 * Bring the counters of attached @ev in line with the online CPUs, under
 * gr_anyevent_lock: release those of offline CPUs and of older
 * generations, create those missing on online CPUs. Return: 0, or the
 * last error of a creation (that CPU then has none).
 */
static int gr_anyevent_sync_one(struct gr_anyevent *ev)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = ev->tid,
		.sample_period = 1,
		/*
		 * With PERIOD, perf_swevent_event() overflows exactly once
		 * per event, unthrottled, also for events that count more
		 * than one (__perf_count(): sched_stat_runtime would give
		 * one overflow per ns of runtime)
		 */
		.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD,
	};
	struct gr_anyevent_counter *c;
	struct perf_event *pe;
	unsigned int cpu, gen;
	int ret = 0;

	lockdep_assert_held(&gr_anyevent_lock);
	for_each_possible_cpu(cpu) {
		c = &ev->counters[cpu];
		gen = READ_ONCE(per_cpu(gr_anyevent_gen, cpu));
		if (c->pe && (c->gen != gen || !cpu_online(cpu))) {
			perf_event_release_kernel(c->pe);
			c->pe = NULL;
		}
		if (c->pe || !cpu_online(cpu))
			continue;
		pe = perf_event_create_kernel_counter(&attr, cpu, NULL,
						      gr_anyevent_handler, ev);
		/* -ENODEV: perf saw it go down; its dead callback follows */
		if (IS_ERR(pe)) {
			if (PTR_ERR(pe) != -ENODEV)
				ret = PTR_ERR(pe);
			continue;
		}
		c->pe = pe;
		c->gen = gen;
	}
	return ret;
}

/* A counter per online CPU; all or none. */
static int gr_anyevent_attach(struct gr_anyevent *ev)
{
	int ret;

	ev->counters = kcalloc(nr_cpu_ids, sizeof(*ev->counters), GFP_KERNEL);
	if (!ev->counters)
		return -ENOMEM;
	ret = gr_anyevent_sync_one(ev);
	if (ret)
		gr_anyevent_release(ev);
	return ret;
}

/* The pass the hotplug callbacks queue: every attached event */
static void gr_anyevent_sync(struct work_struct *work)
{
	struct gr_anyevent *ev;
	unsigned int i;
	int ret;

	mutex_lock(&gr_anyevent_lock);
	for (i = 0; i < gr_anyevent_live; i++) {
		ev = gr_anyevents[i];
		if (!ev->counters)
			continue;
		ret = gr_anyevent_sync_one(ev);
		if (ret)
			pr_warn_ratelimited("guestrelay: anyevent %s:%s: a CPU has no counter (%d)\n",
					    ev->system, ev->name, ret);
	}
	mutex_unlock(&gr_anyevent_lock);
}

static DECLARE_WORK(gr_anyevent_sync_work, gr_anyevent_sync);

/* On the CPU coming online, with the hotplug lock held for writing */
static int gr_anyevent_cpu_online(unsigned int cpu)
{
	WRITE_ONCE(per_cpu(gr_anyevent_gen, cpu),
		   per_cpu(gr_anyevent_gen, cpu) + 1);
	schedule_work(&gr_anyevent_sync_work);
	return 0;
}

/* After the CPU died, on another, with the hotplug lock held for writing */
static int gr_anyevent_cpu_dead(unsigned int cpu)
{
	schedule_work(&gr_anyevent_sync_work);
	return 0;
}

/*
 * The two hotplug states, once the first event is found (at load or at
 * run time, under gr_anyevent_lock: the callbacks only queue the pass,
 * which takes it); tried once, logged if not.
 */
static void gr_anyevent_hotplug_init(void)
{
	int ret;

	if (gr_anyevent_hotplug_tried)
		return;
	gr_anyevent_hotplug_tried = true;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					"guestrelay/anyevent:online",
					gr_anyevent_cpu_online, NULL);
	if (ret >= 0) {
		gr_anyevent_online_state = ret;
		ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
						"guestrelay/anyevent:dead",
						NULL, gr_anyevent_cpu_dead);
	}
	if (ret >= 0) {
		gr_anyevent_dead_state = ret;
		return;
	}
	pr_warn("guestrelay: anyevent: no CPU hotplug state (%d): CPUs brought online later are not covered\n",
		ret);
}

/* Undo gr_anyevent_hotplug_init(): no pass runs or is queued after */
static void gr_anyevent_hotplug_exit(void)
{
	if (gr_anyevent_dead_state >= 0)
		cpuhp_remove_state_nocalls(gr_anyevent_dead_state);
	if (gr_anyevent_online_state >= 0)
		cpuhp_remove_state_nocalls(gr_anyevent_online_state);
	gr_anyevent_dead_state = -1;
	gr_anyevent_online_state = -1;
	gr_anyevent_hotplug_tried = false;
	cancel_work_sync(&gr_anyevent_sync_work);
}

static unsigned int gr_anyevent_nfields(struct trace_event_call *call)
{
	struct list_head *head = trace_get_fields(call);
	struct list_head *pos;
	unsigned int n = 0;

	list_for_each(pos, head)
		n++;
	return n;
}

/**
 * gr_anyevent_taken() - is @name published already?
 * @name: an event name
 *
 * By the table (its syscall families included) or an event added.
 *
 * Context: process context.
 */
bool gr_anyevent_taken(const char *name)
{
	unsigned int id;

	if (!strncmp(name, "syscall_entry_", 14) ||
	    !strncmp(name, "syscall_exit_", 13))
		return true;
	for (id = 0; id < gr_desc_live(); id++)
		if (!strcmp(gr_desc_def(id, NULL, NULL)->name, name))
			return true;
	return false;
}

/*
 * Find event @system:@name and lay it out into @ev, which holds the file
 * reference on success: 0, or -errno. A kprobe event is laid out from its
 * format's fields @ff (@nff; NULL: refused as every event whose fields
 * its code defines); @retake: the name is the one of the id P5 takes
 * back, not another event's.
 */
static int gr_anyevent_find(struct gr_anyevent *ev, const char *system,
			    const char *name, const struct gr_name_field *ff,
			    unsigned int nff, bool retake)
{
	struct trace_event_call *call;
	u8 feats;
	int ret;

	memset(ev, 0, sizeof(*ev));
	feats = READ_ONCE(gr_anyevent_feats);
	/* v1.15: the extension's lengths while the host accepts it (20) */
	if (strscpy(ev->system, system, feats & GR_FORMAT_LONG ?
		    GR_LONG_SYSTEM_LEN : GR_SYSTEM_LEN) < 0 ||
	    strscpy(ev->name, name, feats & GR_FORMAT_LONG ?
		    GR_LONG_NAME_LEN : GR_NAME_LEN) < 0)
		return -ENAMETOOLONG;
	if (!gr_format_ident(ev->system, sizeof(ev->system)) ||
	    !gr_format_ident(ev->name, sizeof(ev->name)))
		return -EINVAL;
	if (!retake && gr_anyevent_taken(ev->name))
		return -EEXIST;
	ev->file = trace_get_event_file(NULL, ev->system, ev->name);
	if (IS_ERR(ev->file))
		return -ENOENT;	/* -EINVAL for an unknown system or event */
	call = ev->file->event_call;
	/*
	 * The kernel decides per counter whether this event may be sampled
	 * (x86's irq_vectors:irq_work_exit, which the perf interrupt's own
	 * irq_work fires, refuses every sampling counter): refused here,
	 * with the kernel's reason, rather than added and never attached
	 */
	if (call->perf_perm) {
		trace_put_event_file(ev->file);
		return -EPERM;
	}
	ev->tid = call->event.type;
	ev->nftrace = gr_anyevent_nfields(call);
	if (call->class->fields_array &&
	    call->class->fields_array->type == TRACE_FUNCTION_TYPE)
		ret = gr_format_of_probe(&ev->fmt, call, ff, nff, ev->nftrace,
					 feats);
	else
		ret = gr_format_of_call(&ev->fmt, call, ev->nftrace, feats);
	if (ret) {
		trace_put_event_file(ev->file);
		return ret;
	}
	ev->def.payload_size = ev->fmt.payload_size;
	ev->def.flags = ev->fmt.flags;
	ev->def.name = ev->name;
	ev->def.system = ev->system;
	return 0;
}

/* Find one "system:name" of anyevent= as the next id; 0, or -errno. */
static int gr_anyevent_find_spec(char *spec)
{
	char *colon = strchr(spec, ':');
	struct gr_anyevent *ev;
	int ret;

	/* found at load: the table's, desc_count <= GR_MAX_EVENTS (spec 4.1) */
	if (gr_nr_event_defs + gr_anyevent_count >= GR_MAX_EVENTS)
		return -ENOSPC;
	if (!colon || colon == spec || !colon[1])
		return -EINVAL;
	ev = gr_anyevent_slot(gr_anyevent_count);
	if (!ev)
		return -ENOMEM;
	*colon = '\0';
	ret = gr_anyevent_find(ev, spec, colon + 1, NULL, 0, false);
	*colon = ':';
	if (ret)
		return ret;
	ev->id = gr_nr_event_defs + gr_anyevent_count;
	gr_anyevent_count++;
	gr_anyevent_live = gr_anyevent_count;
	return 0;
}

/**
 * gr_anyevent_init() - resolve the anyevent= list
 *
 * Called first in the module's init (the descriptor table and the
 * module's default events include these events), it cannot fail: a name
 * that cannot be found or recorded (or no memory for the list) is logged
 * and counted.
 */
void gr_anyevent_init(void)
{
	char *list, *cur, *tok;
	int ret;

	if (!anyevent || !*anyevent)
		return;
	list = kstrdup(anyevent, GFP_KERNEL);
	if (!list) {
		gr_anyevent_missing++;
		return;
	}
	cur = list;
	while ((tok = strsep(&cur, ",")) != NULL) {
		tok = strim(tok);
		if (!*tok)
			continue;
		ret = gr_anyevent_find_spec(tok);
		if (ret == -ENOENT) {
			gr_anyevent_missing++;
			pr_warn("guestrelay: anyevent %s: not found (%d)\n",
				tok, ret);
		} else if (ret) {
			gr_anyevent_refused++;
			pr_warn("guestrelay: anyevent %s: cannot be recorded (%d)\n",
				tok, ret);
		}
	}
	kfree(list);
	if (gr_anyevent_count)
		gr_anyevent_hotplug_init();
}

/**
 * gr_anyevent_published() - the id of @system:@name if it is published
 * @system: its system
 * @name: its name
 * @native: set if it is the table's (its native probe records it)
 *
 * Context: process context, the caller serializes additions (the control
 * pass).
 * Return: the id, or -ENOENT.
 */
int gr_anyevent_published(const char *system, const char *name, bool *native)
{
	const struct gr_event_def *def;
	unsigned int id, live = gr_desc_live();

	for (id = 0; id < live; id++) {
		def = gr_desc_def(id, NULL, NULL);
		if (!strcmp(def->name, name) && !strcmp(def->system, system)) {
			*native = id < gr_nr_event_defs;
			return id;
		}
	}
	return -ENOENT;
}

/* Is every slot for events by name in use? */
static bool gr_anyevent_full(unsigned int capacity)
{
	/* pairs with the release in gr_anyevent_add_named() */
	unsigned int live = smp_load_acquire(&gr_anyevent_live);

	return live >= GR_ANYEVENT_SLOTS || gr_nr_event_defs + live >= capacity;
}

/**
 * gr_anyevent_by_format() - is @system:@name laid out from its format?
 * @system: its system
 * @name: its name
 *
 * A kprobe event's fields are defined by its code, not in its class
 * (spec 18.4): gr_anyevent_add_named() needs them from its tracefs
 * format, whether the host defined the probe or the guest's
 * administrator did (kprobe_events).
 *
 * Context: process context; may sleep.
 * Return: true for a kprobe event.
 */
bool gr_anyevent_by_format(const char *system, const char *name)
{
	struct trace_event_file *file;
	bool kprobe;

	file = trace_get_event_file(NULL, system, name);
	if (IS_ERR(file))
		return false;
	kprobe = file->event_call->flags & TRACE_EVENT_FL_KPROBE;
	trace_put_event_file(file);
	return kprobe;
}

/**
 * gr_anyevent_check_named() - could @system:@name be added? (a dry run)
 * @system: its system
 * @name: its name
 * @ff: a kprobe event's fields from its tracefs format, or NULL
 * @nff: their number
 * @capacity: the descriptor slots of the layout
 *
 * As gr_anyevent_add_named() would decide, keeping nothing.
 *
 * Context: process context; may sleep.
 * Return: 0, or the -errno it would refuse it with.
 */
int gr_anyevent_check_named(const char *system, const char *name,
			    const struct gr_name_field *ff, unsigned int nff,
			    unsigned int capacity)
{
	struct gr_anyevent *ev;
	int ret;

	ev = kmalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	ret = gr_anyevent_find(ev, system, name, ff, nff, false);
	if (!ret) {
		trace_put_event_file(ev->file);
		if (gr_anyevent_full(capacity))
			ret = -ENOSPC;
	}
	kfree(ev);
	return ret;
}

/**
 * gr_anyevent_host() - what may layouts hold, by what the host accepts?
 * @host_features: the host's bits of the control block in force
 * @long_slots: the layout's descriptor slots hold an extension (spec 20)
 *
 * GR_F_DYNARR (v1.11): sequences and several strings; GR_F_ARRAYS
 * (v1.14): fixed arrays of integers and struct fields; GR_F_LONG_DESC
 * (v1.15), in slots that hold it: long names and more fields. Layouts
 * made from now on (gr_anyevent_add_named(), the dry run) follow it; a
 * guest without a host that accepts a bit publishes none of its fields
 * (spec 7.3, 18.1 N3a, N3b; without the last, an event whose names or
 * fields do not fit 576 bytes is refused with ENAMETOOLONG or E2BIG).
 * Those made before stay as they are.
 *
 * Context: process context; callers serialize (the control pass).
 */
void gr_anyevent_host(u64 host_features, bool long_slots)
{
	WRITE_ONCE(gr_anyevent_feats,
		   (host_features & GR_F_DYNARR ? GR_FORMAT_DYNARR : 0) |
		   (host_features & GR_F_ARRAYS ? GR_FORMAT_ARRAYS : 0) |
		   (host_features & GR_F_LONG_DESC && long_slots ?
		    GR_FORMAT_LONG : 0));
}

/**
 * gr_anyevent_add_named() - add @system:@name as the next descriptor
 * @system: its system
 * @name: its name
 * @ff: a kprobe event's fields from its tracefs format, or NULL
 * @nff: their number
 * @capacity: the descriptor slots of the layout (ids below it)
 * @desc: room for the new descriptor, private
 * @write: writes descriptor @id, as filled in @desc, into the region
 * @arg: for @write
 *
 * Spec 18.2 N3: the entry is laid out, its descriptor filled and written
 * by @write(), and only then the release store of the new count makes the id valid
 * (gr_desc_live()). The caller checked gr_anyevent_published() first.
 * The event is recorded once the host enables it (gr_desc_attach()).
 *
 * Context: process context; may sleep. Callers serialize (the control
 * pass).
 * Return: the new id, or -errno: -ENOSPC (no slot), -EEXIST (its name is
 * another event's), -ENOENT (not found), another (cannot be laid out).
 */
int gr_anyevent_add_named(const char *system, const char *name,
			  const struct gr_name_field *ff, unsigned int nff,
			  unsigned int capacity,
			  struct gr_event_desc_long *desc,
			  void (*write)(unsigned int id,
					const struct gr_event_desc_long *desc,
					void *arg),
			  void *arg)
{
	struct gr_anyevent *ev;
	unsigned int live;
	int ret;

	mutex_lock(&gr_anyevent_lock);
	live = gr_anyevent_live;
	if (gr_anyevent_full(capacity)) {
		/* -ENOSPC, or why it could not be recorded anyway */
		ret = ff ? -ENOSPC :
		      gr_anyevent_check_named(system, name, NULL, 0, capacity);
		goto out;
	}
	/* not yet covered by gr_anyevent_live: nobody else reads it */
	ev = gr_anyevent_slot(live);
	ret = ev ? gr_anyevent_find(ev, system, name, ff, nff, false) :
		   -ENOMEM;
	if (ret)
		goto out;
	ev->id = gr_nr_event_defs + live;
	memset(desc, 0, sizeof(*desc));
	gr_event_desc_fill_fields(&ev->def, ev->fmt.fields, ev->fmt.nr, ev->id,
				  &desc->desc, &desc->ext);
	write(ev->id, desc, arg);
	/* the entry and its descriptor before the count that covers them */
	smp_store_release(&gr_anyevent_live, live + 1);
	gr_anyevent_hotplug_init();
	ret = ev->id;
out:
	mutex_unlock(&gr_anyevent_lock);
	return ret;
}

/**
 * gr_anyevent_unpublish() - drop the events added at run time (N6)
 *
 * A new publication starts from the table (and the anyevent= events):
 * the added entries' counters are released, a grace period passes (no
 * handler reads them any more), their references are put.
 *
 * Context: process context, before the region is published again, no
 * control pass running.
 */
void gr_anyevent_unpublish(void)
{
	unsigned int i, live;

	mutex_lock(&gr_anyevent_lock);
	live = gr_anyevent_live;
	for (i = gr_anyevent_count; i < live; i++)
		gr_anyevent_release(gr_anyevents[i]);
	/* release: as every store of the count (readers acquire) */
	smp_store_release(&gr_anyevent_live, gr_anyevent_count);
	mutex_unlock(&gr_anyevent_lock);
	if (live == gr_anyevent_count)
		return;
	synchronize_rcu();
	for (i = gr_anyevent_count; i < live; i++)
		if (gr_anyevents[i]->file)
			trace_put_event_file(gr_anyevents[i]->file);
}

/**
 * gr_anyevent_exit() - release the counters and the event references
 *
 * Context: module unload, after the channel is gone.
 */
void gr_anyevent_exit(void)
{
	unsigned int i;

	gr_anyevent_hotplug_exit();
	gr_anyevent_unpublish();
	while (gr_anyevent_count) {
		struct gr_anyevent *ev = gr_anyevents[--gr_anyevent_count];

		gr_anyevent_release(ev);
		trace_put_event_file(ev->file);
	}
	gr_anyevent_live = 0;
	/* no handler still runs in this module's text */
	synchronize_rcu();
	for (i = 0; i < ARRAY_SIZE(gr_anyevents); i++) {
		kfree(gr_anyevents[i]);
		gr_anyevents[i] = NULL;
	}
}

/**
 * gr_anyevent_probe_stop() - stop recording added event @id (18.4 P6)
 * @id: an id added at run time
 *
 * Its counters are released (perf waits until no handler runs for them)
 * and its file reference put, so that the kernel can delete the kprobe
 * event; it is marked gone: gr_desc_attach() and the hotplug pass never
 * attach it again, whatever the host's enable bit says. The entry and
 * its descriptor stay (N3).
 *
 * Context: process context; may sleep. Not under event_mutex.
 * Return: 0, or -ENOENT (no such added event, or gone already).
 */
int gr_anyevent_probe_stop(unsigned int id)
{
	struct gr_anyevent *ev = gr_anyevent_of(id);
	struct trace_event_file *file;

	if (!ev || id < gr_desc_count())
		return -ENOENT;
	mutex_lock(&gr_anyevent_lock);
	if (ev->gone) {
		mutex_unlock(&gr_anyevent_lock);
		return -ENOENT;
	}
	ev->gone = true;
	gr_anyevent_release(ev);
	file = ev->file;
	ev->file = NULL;
	mutex_unlock(&gr_anyevent_lock);
	trace_put_event_file(file);
	return 0;
}

/**
 * gr_anyevent_probe_retake() - give a new probe the id of its old one (P5)
 * @id: the id of a probe stopped by gr_anyevent_probe_stop()
 * @system: the new probe's system
 * @name: its name (@id's)
 * @ff: its fields from its tracefs format
 * @nff: their number
 *
 * The new probe is laid out as a descriptor of @id; only if that
 * descriptor equals @id's byte for byte does @id record the new probe
 * from now on (once enabled).
 *
 * Context: process context; may sleep; callers serialize (the control
 * pass).
 * Return: 0, -EEXIST (another descriptor), or another -errno.
 */
int gr_anyevent_probe_retake(unsigned int id, const char *system,
			     const char *name, const struct gr_name_field *ff,
			     unsigned int nff)
{
	struct gr_anyevent *ev = gr_anyevent_of(id), *tmp;
	struct gr_event_desc_long *a, *b;
	int ret;

	if (!ev || !ev->gone)
		return -ENOENT;
	tmp = kmalloc(sizeof(*tmp), GFP_KERNEL);
	a = kmalloc(sizeof(*a), GFP_KERNEL);
	b = kmalloc(sizeof(*b), GFP_KERNEL);
	ret = -ENOMEM;
	if (!tmp || !a || !b)
		goto out;
	ret = gr_anyevent_find(tmp, system, name, ff, nff, true);
	if (ret)
		goto out;
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	gr_event_desc_fill_fields(&tmp->def, tmp->fmt.fields, tmp->fmt.nr, id,
				  &a->desc, &a->ext);
	gr_desc_fill(id, &b->desc, &b->ext);
	if (memcmp(a, b, sizeof(*a))) {
		trace_put_event_file(tmp->file);
		ret = -EEXIST;
		goto out;
	}
	/* the same layout: only the kernel's event is new; no counter */
	mutex_lock(&gr_anyevent_lock);
	ev->file = tmp->file;
	ev->tid = tmp->tid;
	ev->gone = false;
	mutex_unlock(&gr_anyevent_lock);
out:
	kfree(b);
	kfree(a);
	kfree(tmp);
	return ret;
}

/* ---- every descriptor ------------------------------------------------- */

/**
 * gr_desc_def() - the event of descriptor @id, and its payload layout
 * @id: below gr_desc_count()
 * @fields: receives its fields, or NULL
 * @nr: receives their number, or NULL
 *
 * Return: the event (the table's entry or the event found by name).
 */
const struct gr_event_def *gr_desc_def(unsigned int id,
				       const struct gr_field_def **fields,
				       unsigned int *nr)
{
	struct gr_anyevent *ev = gr_anyevent_of(id);
	const struct gr_field_def *f;
	unsigned int n;

	if (ev) {
		f = ev->fmt.fields;
		n = ev->fmt.nr;
	} else {
		f = gr_event_defs[id].fields(&n);
	}
	if (fields)
		*fields = f;
	if (nr)
		*nr = n;
	return ev ? &ev->def : &gr_event_defs[id];
}

/**
 * gr_desc_fill() - descriptor @id (below gr_desc_count()) into @out
 * @id: the descriptor
 * @out: receives it
 * @ext: v1.15, receives its extension (spec 20); NULL when the layout's
 *	slots have none
 */
void gr_desc_fill(unsigned int id, struct gr_event_desc *out,
		  struct gr_event_desc_ext *ext)
{
	const struct gr_field_def *fields;
	const struct gr_event_def *def;
	unsigned int n;

	def = gr_desc_def(id, &fields, &n);
	gr_event_desc_fill_fields(def, fields, n, id, out, ext);
}

/**
 * gr_desc_attach() - make event @id recordable (gr_event_attach())
 * @id: below gr_desc_count()
 *
 * Context: process context; may sleep.
 * Return: 0, or -errno (then the event is not recorded).
 */
int gr_desc_attach(unsigned int id)
{
	struct gr_anyevent *ev = gr_anyevent_of(id);
	int ret = 0;

	if (!ev)
		return gr_event_attach(id);
	mutex_lock(&gr_anyevent_lock);
	/* spec 18.4 P6: a deleted probe records nothing, enabled or not */
	if (ev->gone)
		ret = -ENOENT;
	else if (!ev->counters)
		ret = gr_anyevent_attach(ev);
	mutex_unlock(&gr_anyevent_lock);
	return ret;
}

/* ---- the catalogue ---------------------------------------------------- */

/*
 * "found N missing M refused R", then per event "system:name id ID
 * fields F" (ID its tracefs id, F its own fields in tracefs) and a line
 * "  gr_id G: field@offset+size[s|h|c|S] ...", offsets as in tracefs:
 * those of anyevent=, then those added at run time (spec 18), counted
 * by the second line, "added A" (before the events: a page holds the
 * first of them only, when more than about twenty are added).
 */
static int gr_anyevent_catalogue_show(char *buf, const struct kernel_param *kp)
{
	static const char kind[] = "?ucSqa??";
	const struct gr_field_def *f;
	const struct gr_anyevent *ev;
	unsigned int i, j;
	int len;

	mutex_lock(&gr_anyevent_lock);
	len = sysfs_emit(buf, "found %u missing %u refused %u\n",
			 gr_anyevent_count, gr_anyevent_missing,
			 gr_anyevent_refused);
	len += sysfs_emit_at(buf, len, "added %u cut %ld\n",
			     gr_anyevent_live - gr_anyevent_count,
			     atomic_long_read(&gr_anyevent_cut));
	for (i = 0; i < gr_anyevent_live; i++) {
		ev = gr_anyevents[i];
		len += sysfs_emit_at(buf, len, "%s:%s id %u fields %u\n  gr_id %u:",
				     ev->system, ev->name, ev->tid,
				     ev->nftrace, ev->id);
		for (j = 0; j < ev->fmt.nr; j++) {
			f = &ev->fmt.fields[j];
			len += sysfs_emit_at(buf, len, " %s@%u+%u%c", f->name,
					     f->offset + (unsigned int)GR_FORMAT_COMMON,
					     f->size,
					     f->flags & GR_FIELD_F_SIGNED ? 's' :
					     f->flags & GR_FIELD_F_HEX ? 'h' :
					     kind[f->type & 7]);
		}
		len += sysfs_emit_at(buf, len, "\n");
	}
	mutex_unlock(&gr_anyevent_lock);
	return len;
}

static const struct kernel_param_ops gr_anyevent_catalogue_ops = {
	.get = gr_anyevent_catalogue_show,
};

module_param_cb(anyevent_catalogue, &gr_anyevent_catalogue_ops, NULL, 0444);
MODULE_PARM_DESC(anyevent_catalogue, "Read only: the events found by name (anyevent=, then added at run time): ids and payload layout");
