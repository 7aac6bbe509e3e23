// SPDX-License-Identifier: GPL-2.0
/*
 * gr_follow.c - the follow filter in the guest: its set and its hooks
 * (spec 15)
 *
 * A follow set is a bitmap with one bit per pid the kernel can hand out
 * (PID_MAX_LIMIT bits: 512 KiB on 64-bit), so it never fills. It is
 * allocated when the host asks for a follow filter, seeded with the pids
 * the host named and the tasks whose comm matches its glob, then
 * published under RCU (gr_rec_set_follow()). While it is in effect:
 *
 *   sched_process_fork  the child is added if its parent is followed
 *                       (GR_FOLLOW_F_FORK) or its comm matches
 *   sched_process_exec  a task whose new comm matches is added
 *   task_rename         a task renamed to a matching comm is added
 *   sched_process_free  the task's pid is removed
 *
 * which is what ftrace does for set_event_pid with options/event-fork
 * (trace_filter_add_remove_task() on fork, removal at sched_process_free),
 * plus the comm glob. The hooks are attached the first time a follow
 * filter is asked for and stay attached until the module is unloaded
 * (registration under load can freeze multi-threaded TCG, gr_events.h);
 * without a set in effect each costs one load. They run with preemption
 * disabled, the RCU read side that covers the set; a set is freed only a
 * grace period after it was taken out of effect.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/threads.h>
#include <linux/tracepoint.h>

/* Only for the register_trace_*() declarations of the prototype checks */
#include <trace/events/sched.h>
#include <trace/events/task.h>

#include "gr_events.h"
#include "gr_follow.h"
#include "gr_proto.h"
#include "gr_record.h"

static_assert(PID_MAX_LIMIT <= GR_FOLLOW_PID_LIMIT);

/* ---- the hooks -------------------------------------------------------- */

static void gr_follow_on_fork(void *data, struct task_struct *parent,
			      struct task_struct *child)
{
	struct gr_follow *f = rcu_dereference_sched(gr_rec_follow);

	if (!f)
		return;
	if (((f->spec.flags & GR_FOLLOW_F_FORK) &&
	     gr_follow_has(f, task_pid_nr(parent))) ||
	    gr_follow_comm(&f->spec, child->comm)) {
		if (gr_follow_add(f, task_pid_nr(child)))
			atomic64_inc(&f->forks);
	}
}

static void gr_follow_on_exec(void *data, struct task_struct *p,
			      pid_t old_pid, struct linux_binprm *bprm)
{
	struct gr_follow *f = rcu_dereference_sched(gr_rec_follow);

	if (f && gr_follow_comm(&f->spec, p->comm))
		gr_follow_add(f, task_pid_nr(p));
}

static void gr_follow_on_rename(void *data, struct task_struct *task,
				const char *comm)
{
	struct gr_follow *f = rcu_dereference_sched(gr_rec_follow);

	if (f && gr_follow_comm(&f->spec, comm))
		gr_follow_add(f, task_pid_nr(task));
}

static void gr_follow_on_free(void *data, struct task_struct *p)
{
	struct gr_follow *f = rcu_dereference_sched(gr_rec_follow);

	if (f)
		gr_follow_del(f, task_pid_nr(p));
}

/* Fail the build unless each hook has its tracepoint's probe prototype */
static_assert(sizeof(register_trace_sched_process_fork(gr_follow_on_fork,
						       NULL)) == sizeof(int));
static_assert(sizeof(register_trace_sched_process_exec(gr_follow_on_exec,
						       NULL)) == sizeof(int));
static_assert(sizeof(register_trace_task_rename(gr_follow_on_rename,
						NULL)) == sizeof(int));
static_assert(sizeof(register_trace_sched_process_free(gr_follow_on_free,
						       NULL)) == sizeof(int));

struct gr_follow_hook {
	const char *tp_name;
	void *probe;
	struct tracepoint *tp;
	bool attached;
};

static struct gr_follow_hook gr_follow_hooks[] = {
	{ "sched_process_fork", gr_follow_on_fork },
	{ "sched_process_exec", gr_follow_on_exec },
	{ "task_rename", gr_follow_on_rename },
	{ "sched_process_free", gr_follow_on_free },
};

/* Protects gr_follow_hooks[].tp and .attached */
static DEFINE_MUTEX(gr_follow_lock);

static void gr_follow_tp_match(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gr_follow_hooks); i++)
		if (!strcmp(tp->name, gr_follow_hooks[i].tp_name))
			gr_follow_hooks[i].tp = tp;
}

/**
 * gr_follow_hooks_attach() - attach the hooks that keep a set up to date
 *
 * Idempotent: attached hooks stay attached until
 * gr_follow_hooks_detach().
 *
 * Context: process context; may sleep.
 * Return: 0, -ENOENT if a tracepoint is missing in this kernel, or the
 * error of tracepoint_probe_register() (the hooks attached stay).
 */
int gr_follow_hooks_attach(void)
{
	struct gr_follow_hook *h;
	unsigned int i;
	int ret = 0;

	mutex_lock(&gr_follow_lock);
	if (!gr_follow_hooks[0].tp)
		for_each_kernel_tracepoint(gr_follow_tp_match, NULL);
	for (i = 0; i < ARRAY_SIZE(gr_follow_hooks) && !ret; i++) {
		h = &gr_follow_hooks[i];
		if (h->attached)
			continue;
		if (!h->tp) {
			pr_warn("no tracepoint %s: no follow filter\n",
				h->tp_name);
			ret = -ENOENT;
			break;
		}
		ret = tracepoint_probe_register(h->tp, h->probe, NULL);
		h->attached = !ret;
	}
	mutex_unlock(&gr_follow_lock);
	return ret;
}

/**
 * gr_follow_hooks_detach() - detach the hooks, wait until none runs
 *
 * Context: process context, module unload; sleeps.
 */
void gr_follow_hooks_detach(void)
{
	struct gr_follow_hook *h;
	unsigned int i;

	mutex_lock(&gr_follow_lock);
	for (i = 0; i < ARRAY_SIZE(gr_follow_hooks); i++) {
		h = &gr_follow_hooks[i];
		if (!h->attached)
			continue;
		WARN_ON_ONCE(tracepoint_probe_unregister(h->tp, h->probe,
							 NULL));
		h->attached = false;
	}
	mutex_unlock(&gr_follow_lock);
	tracepoint_synchronize_unregister();
}

/* ---- a set ------------------------------------------------------------ */

/* The payload offset of field @field of the event named @event, or none */
static u16 gr_follow_field(const char *event, const char *field)
{
	const struct gr_field_def *fd;
	unsigned int id, i, n;

	for (id = 0; id < gr_nr_event_defs; id++) {
		if (strcmp(gr_event_defs[id].name, event))
			continue;
		fd = gr_event_defs[id].fields(&n);
		for (i = 0; i < n; i++)
			if (!strcmp(fd[i].name, field) && fd[i].size == 4)
				return fd[i].offset;
	}
	return GR_FOLLOW_NO_OFF;
}

/*
 * The events that name a second task, as ftrace's pid filter treats them
 * (event_filter_pid_sched_switch_probe_pre() and _wakeup_probe_pre()):
 * kept when that task is followed too.
 */
static const struct {
	const char *event;
	const char *field;
} gr_follow_other[] = {
	{ "sched_switch", "next_tid" },
	{ "sched_wakeup", "tid" },
	{ "sched_wakeup_new", "tid" },
	{ "sched_waking", "tid" },
};

/**
 * gr_follow_alloc() - an empty follow set for @spec
 * @spec: a verified follow spec (gr_follow_read()), flags not 0
 *
 * Context: process context; may sleep (allocates 512 KiB).
 * Return: the set, or NULL without memory.
 */
struct gr_follow *gr_follow_alloc(const struct gr_follow_spec *spec)
{
	struct gr_follow *f;
	unsigned int i, id;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return NULL;
	f->nr_bits = PID_MAX_LIMIT;
	f->bits = kvcalloc(BITS_TO_LONGS(f->nr_bits), sizeof(long),
			   GFP_KERNEL);
	if (!f->bits) {
		kfree(f);
		return NULL;
	}
	f->spec = *spec;
	for (id = 0; id < GR_WIDE_MAX_EVENTS; id++)
		f->other_off[id] = GR_FOLLOW_NO_OFF;
	for (i = 0; i < ARRAY_SIZE(gr_follow_other); i++) {
		for (id = 0; id < gr_nr_event_defs; id++)
			if (!strcmp(gr_event_defs[id].name,
				    gr_follow_other[i].event))
				f->other_off[id] =
					gr_follow_field(gr_follow_other[i].event,
							gr_follow_other[i].field);
	}
	return f;
}

/**
 * gr_follow_seed() - fill a new set: the host's pids, the matching tasks
 * @f: a set from gr_follow_alloc(), not yet in effect
 *
 * A named pid is followed whether or not a task has it now (as ftrace's
 * set_event_pid); those without a task are counted in @f->missing.
 *
 * Context: process context.
 */
void gr_follow_seed(struct gr_follow *f)
{
	struct task_struct *g, *t;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < f->spec.nr_pids; i++) {
		gr_follow_add(f, f->spec.pids[i]);
		if (!pid_task(find_vpid(f->spec.pids[i]), PIDTYPE_PID))
			f->missing++;
	}
	if (f->spec.comm_len) {
		for_each_process_thread(g, t)
			if (gr_follow_comm(&f->spec, t->comm))
				gr_follow_add(f, task_pid_nr(t));
	}
	rcu_read_unlock();
}

/**
 * gr_follow_free() - free a set no probe or hook can still see
 * @f: the set, or NULL
 *
 * Context: process context, a grace period after gr_rec_set_follow()
 * took @f out of effect (or @f was never in effect).
 */
void gr_follow_free(struct gr_follow *f)
{
	if (!f)
		return;
	kvfree(f->bits);
	kfree(f);
}

/**
 * gr_follow_publish() - the follow counters of the status block
 * @region: the region
 * @f: the set in effect, or NULL
 * @dropped: records the follow filter took back since the publication
 *
 * Context: the tick's work, under the control lock.
 */
void gr_follow_publish(void *region, const struct gr_follow *f, u64 dropped)
{
	struct gr_guest_status *st = gr_status(region);

	WRITE_ONCE(st->follow_tasks,
		   cpu_to_le32(f ? atomic_read(&f->tasks) : 0));
	WRITE_ONCE(st->follow_missing, cpu_to_le32(f ? f->missing : 0));
	WRITE_ONCE(st->follow_forks,
		   cpu_to_le64(f ? atomic64_read(&f->forks) : 0));
	WRITE_ONCE(st->follow_dropped, cpu_to_le64(dropped));
}
