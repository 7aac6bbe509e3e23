// SPDX-License-Identifier: GPL-2.0
/*
 * grbench.ko: per-event cost of the probes attached to a tracepoint
 *
 * A like-for-like measure of tracers inside one guest. The probes that
 * guestrelay, ftrace, both or neither attached to a tracepoint are called
 * the way the tracepoint calls them (the __traceiter_*() loop of
 * include/linux/tracepoint.h: load tp->funcs, call each func with its
 * data, stop at the entry whose func is NULL), CALLS times in a row, with
 * the same prepared arguments whatever is attached. The time spent in
 * those calls divided by CALLS is the cost of one event. Only the set of
 * attached probes differs between variants; with nothing attached the
 * loop itself is measured.
 *
 *   write "TARGET CALLS" to /sys/kernel/debug/grbench/run   run it now
 *   read /sys/kernel/debug/grbench/run                      the last result
 *   read /sys/kernel/debug/grbench/probes                   what is attached
 *
 * The result is one line:
 *
 *   target=T calls=N ns=TOTAL cpu=C changed=0|1 probes=P funcs=F,F
 *
 * ns: nanoseconds inside the timed chunks (ktime_get_ns()); cpu: where the
 * first chunk ran; probes: how many probes each call went through; funcs:
 * those probes as %ps prints them ("gr_probe_sched_switch [guestrelay]");
 * changed=1: the attached probes changed during the run, which makes the
 * result meaningless.
 *
 * The calls run in chunks of GRB_CHUNK with preemption and local
 * interrupts off, each chunk timed on its own: no interrupt handler and
 * no other task lands inside the timed region, for every variant alike,
 * and interrupts are never held off for longer than one chunk (a few ms
 * under TCG). Between chunks the writer may be rescheduled or migrated.
 *
 * Arguments, fixed for all variants:
 *
 *   sched_switch        preempt false, prev current, next init_task (the
 *                       idle task of CPU 0), prev_state TASK_RUNNING
 *   sys_enter           current's pt_regs and their syscall number (the
 *                       write(2) that started the run)
 *   irq_handler_exit    irq 0, a static irqaction "grbench", IRQ_HANDLED
 *   sched_process_exec  current, its pid, a linux_binprm whose only field
 *                       set is a GRB_FILENAME_LEN-character filename
 *
 * Two more targets time the clocks the tracers stamp events with:
 * clock_mono_fast is ktime_get_mono_fast_ns() (guestrelay's clock and
 * ftrace's "mono"), clock_local is trace_clock_local() (ftrace's default
 * "local").
 *
 * The probes write real records: a trace taken while this runs holds
 * CALLS made-up events per run (current switching to swapper/0, ...).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/build_bug.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/trace_clock.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>

/* Only for the register_trace_*() declarations GRB_CHECK_PROTO() uses. */
#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>

/* Calls per chunk: preemption and interrupts are off for one chunk. */
#define GRB_CHUNK	1000
/* Calls per run at most: about 30 s at 3 us a call under TCG. */
#define GRB_MAX_CALLS	10000000
/* Probes named in a result; more are counted but not named. */
#define GRB_MAX_FUNCS	8
/*
 * Characters of the sched_process_exec filename: guestrelay's payload is
 * then 256 bytes (tid, old_tid and the string with its NUL), ftrace's
 * 260 (pid, old_pid, a 4-byte __data_loc and the string).
 */
#define GRB_FILENAME_LEN	247

/*
 * GRB_CHECK_PROTO() - fail the build unless function pointer @fn has the
 * probe prototype of tracepoint @tp in the kernel we build against. The
 * call is inside sizeof(): type-checked, never evaluated, and it
 * references no __tracepoint_* symbol (most are not exported).
 */
#define GRB_CHECK_PROTO(tp, fn)						\
	static_assert(sizeof(register_trace_##tp(fn, NULL)) == sizeof(int), \
		      #tp ": probe prototype")

/**
 * struct grb_target - something a run can time
 * @name: what is written to the run file
 * @tp_name: the tracepoint whose probes are called, NULL for a clock
 * @loop: makes @n calls with preemption and interrupts off
 * @tp: the tracepoint, found at load; NULL if this kernel lacks it
 */
struct grb_target {
	const char *name;
	const char *tp_name;
	void (*loop)(struct tracepoint *tp, unsigned int n);
	struct tracepoint *tp;
};

/**
 * struct grb_snap - the probes attached to a tracepoint at one moment
 * @funcs: the probe array (a new one is published on every change)
 * @nr: probes in it
 * @func: the first GRB_MAX_FUNCS of them
 */
struct grb_snap {
	const struct tracepoint_func *funcs;
	unsigned int nr;
	void *func[GRB_MAX_FUNCS];
};

static DEFINE_MUTEX(grb_lock);		/* one run at a time; grb_result */
static char grb_result[512];
static struct dentry *grb_dir;
static u64 grb_sink;			/* keeps the clock reads alive */

static struct irqaction grb_irqaction = { .name = "grbench" };
static char grb_filename[GRB_FILENAME_LEN + 1];
static struct linux_binprm grb_bprm;

/*
 * The loops. Each is the tracepoint's own iteration over tp->funcs with
 * the probe prototype of that tracepoint; the caller has preemption and
 * interrupts off, which is the sched-RCU read side tp->funcs needs.
 */
static void grb_loop_sched_switch(struct tracepoint *tp, unsigned int n)
{
	void (*fn)(void *data, bool preempt, struct task_struct *prev,
		   struct task_struct *next, unsigned int prev_state);
	struct task_struct *prev = current, *next = &init_task;
	const struct tracepoint_func *f;

	GRB_CHECK_PROTO(sched_switch, fn);
	while (n--) {
		f = rcu_dereference_sched(tp->funcs);
		if (!f)
			continue;
		do {
			fn = READ_ONCE(f->func);
			fn(f->data, false, prev, next, TASK_RUNNING);
		} while ((++f)->func);
	}
}

static void grb_loop_sys_enter(struct tracepoint *tp, unsigned int n)
{
	void (*fn)(void *data, struct pt_regs *regs, long id);
	struct pt_regs *regs = task_pt_regs(current);
	long id = syscall_get_nr(current, regs);
	const struct tracepoint_func *f;

	GRB_CHECK_PROTO(sys_enter, fn);
	while (n--) {
		f = rcu_dereference_sched(tp->funcs);
		if (!f)
			continue;
		do {
			fn = READ_ONCE(f->func);
			fn(f->data, regs, id);
		} while ((++f)->func);
	}
}

static void grb_loop_irq_handler_exit(struct tracepoint *tp, unsigned int n)
{
	void (*fn)(void *data, int irq, struct irqaction *action, int ret);
	const struct tracepoint_func *f;

	GRB_CHECK_PROTO(irq_handler_exit, fn);
	while (n--) {
		f = rcu_dereference_sched(tp->funcs);
		if (!f)
			continue;
		do {
			fn = READ_ONCE(f->func);
			fn(f->data, 0, &grb_irqaction, IRQ_HANDLED);
		} while ((++f)->func);
	}
}

static void grb_loop_sched_process_exec(struct tracepoint *tp, unsigned int n)
{
	void (*fn)(void *data, struct task_struct *p, pid_t old_pid,
		   struct linux_binprm *bprm);
	struct task_struct *p = current;
	pid_t old_pid = task_pid_nr(p);
	const struct tracepoint_func *f;

	GRB_CHECK_PROTO(sched_process_exec, fn);
	while (n--) {
		f = rcu_dereference_sched(tp->funcs);
		if (!f)
			continue;
		do {
			fn = READ_ONCE(f->func);
			fn(f->data, p, old_pid, &grb_bprm);
		} while ((++f)->func);
	}
}

static void grb_loop_clock_mono_fast(struct tracepoint *tp, unsigned int n)
{
	u64 sum = 0;

	while (n--)
		sum += ktime_get_mono_fast_ns();
	WRITE_ONCE(grb_sink, sum);
}

static void grb_loop_clock_local(struct tracepoint *tp, unsigned int n)
{
	u64 sum = 0;

	while (n--)
		sum += trace_clock_local();
	WRITE_ONCE(grb_sink, sum);
}

static struct grb_target grb_targets[] = {
	{ "sched_switch", "sched_switch", grb_loop_sched_switch },
	{ "sys_enter", "sys_enter", grb_loop_sys_enter },
	{ "irq_handler_exit", "irq_handler_exit", grb_loop_irq_handler_exit },
	{ "sched_process_exec", "sched_process_exec",
	  grb_loop_sched_process_exec },
	{ "clock_mono_fast", NULL, grb_loop_clock_mono_fast },
	{ "clock_local", NULL, grb_loop_clock_local },
};

static void grb_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(grb_targets); i++)
		if (grb_targets[i].tp_name &&
		    !strcmp(tp->name, grb_targets[i].tp_name))
			grb_targets[i].tp = tp;
}

static struct grb_target *grb_target_get(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(grb_targets); i++)
		if (!strcmp(name, grb_targets[i].name))
			return &grb_targets[i];
	return NULL;
}

/* What is attached to @tp now; an empty snapshot for a clock (NULL). */
static void grb_snap(struct tracepoint *tp, struct grb_snap *s)
{
	const struct tracepoint_func *f;

	memset(s, 0, sizeof(*s));
	if (!tp)
		return;
	rcu_read_lock_sched();
	f = rcu_dereference_sched(tp->funcs);
	s->funcs = f;
	for (; f && f->func; f++) {
		if (s->nr < GRB_MAX_FUNCS)
			s->func[s->nr] = f->func;
		s->nr++;
	}
	rcu_read_unlock_sched();
}

static bool grb_snap_same(const struct grb_snap *a, const struct grb_snap *b)
{
	return a->funcs == b->funcs && a->nr == b->nr &&
	       !memcmp(a->func, b->func, sizeof(a->func));
}

/* Time @calls calls of @t into grb_result. Caller holds grb_lock. */
static int grb_run(struct grb_target *t, unsigned int calls)
{
	struct grb_snap before, after;
	unsigned int done, n, i;
	unsigned long flags;
	u64 t0, t1, ns = 0;
	size_t len;
	int cpu = -1;

	if (t->tp_name && !t->tp)
		return -ENOENT;
	grb_snap(t->tp, &before);
	for (done = 0; done < calls; done += n) {
		n = min_t(unsigned int, calls - done, GRB_CHUNK);
		preempt_disable();
		local_irq_save(flags);
		if (cpu < 0)
			cpu = smp_processor_id();
		t0 = ktime_get_ns();
		t->loop(t->tp, n);
		t1 = ktime_get_ns();
		local_irq_restore(flags);
		preempt_enable();
		ns += t1 - t0;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	grb_snap(t->tp, &after);

	len = scnprintf(grb_result, sizeof(grb_result),
			"target=%s calls=%u ns=%llu cpu=%d changed=%d probes=%u funcs=",
			t->name, calls, ns, cpu,
			!grb_snap_same(&before, &after), before.nr);
	for (i = 0; i < min_t(unsigned int, before.nr, GRB_MAX_FUNCS); i++)
		len += scnprintf(grb_result + len, sizeof(grb_result) - len,
				 "%s%ps", i ? "," : "", before.func[i]);
	scnprintf(grb_result + len, sizeof(grb_result) - len, "\n");
	return 0;
}

static ssize_t grb_run_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct grb_target *t;
	unsigned int calls;
	char name[32];
	char *buf;
	int ret;

	if (count > 64)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = sscanf(buf, "%31s %u", name, &calls);
	kfree(buf);
	if (ret != 2 || !calls || calls > GRB_MAX_CALLS)
		return -EINVAL;
	t = grb_target_get(name);
	if (!t)
		return -ENOENT;
	ret = mutex_lock_interruptible(&grb_lock);
	if (ret)
		return ret;
	ret = grb_run(t, calls);
	mutex_unlock(&grb_lock);
	return ret ? ret : count;
}

static ssize_t grb_run_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	ssize_t ret;

	ret = mutex_lock_interruptible(&grb_lock);
	if (ret)
		return ret;
	ret = simple_read_from_buffer(ubuf, count, ppos, grb_result,
				      strlen(grb_result));
	mutex_unlock(&grb_lock);
	return ret;
}

static const struct file_operations grb_run_fops = {
	.owner = THIS_MODULE,
	.write = grb_run_write,
	.read = grb_run_read,
	.llseek = default_llseek,
};

/* One line per tracepoint target: "name: PROBE..." (as %ps prints them) */
static int grb_probes_show(struct seq_file *m, void *unused)
{
	const struct grb_target *t;
	struct grb_snap s;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(grb_targets); i++) {
		t = &grb_targets[i];
		if (!t->tp_name)
			continue;
		seq_printf(m, "%s:", t->name);
		if (!t->tp) {
			seq_puts(m, " (no such tracepoint)\n");
			continue;
		}
		grb_snap(t->tp, &s);
		for (j = 0; j < min_t(unsigned int, s.nr, GRB_MAX_FUNCS); j++)
			seq_printf(m, " %ps", s.func[j]);
		if (s.nr > GRB_MAX_FUNCS)
			seq_printf(m, " (+%u more)", s.nr - GRB_MAX_FUNCS);
		seq_puts(m, s.nr ? "\n" : " (none)\n");
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(grb_probes);

static int __init grb_init(void)
{
	unsigned int i;

	memset(grb_filename, 'x', GRB_FILENAME_LEN);
	memcpy(grb_filename, "/grbench/", strlen("/grbench/"));
	grb_bprm.filename = grb_filename;

	for_each_kernel_tracepoint(grb_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(grb_targets); i++)
		if (grb_targets[i].tp_name && !grb_targets[i].tp)
			pr_info("no tracepoint %s\n", grb_targets[i].tp_name);

	scnprintf(grb_result, sizeof(grb_result), "no run yet\n");
	grb_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0600, grb_dir, NULL, &grb_run_fops);
	debugfs_create_file("probes", 0400, grb_dir, NULL, &grb_probes_fops);
	return 0;
}

static void __exit grb_exit(void)
{
	/* Waits for the file operations still running */
	debugfs_remove_recursive(grb_dir);
}

module_init(grb_init);
module_exit(grb_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("guestrelay benchmark: per-event cost of the probes attached to a tracepoint");
