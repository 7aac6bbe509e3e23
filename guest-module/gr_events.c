// SPDX-License-Identifier: GPL-2.0
/*
 * gr_events.c - tracepoint probes and the event table
 *
 * One section per event: the payload struct the probe writes, its field
 * definitions (generated from the struct by GR_FIELD()), the probe, and a
 * build-time check that the probe has the exact prototype of the
 * tracepoint in this kernel. The table ties them together; the attach and
 * detach code follows it. See gr_events.h for the attach model (attach
 * once, stay attached until unload).
 *
 * Payload rules, all checked at build time:
 *  - multi-byte integers are little-endian (__le16/__le32/__le64) and
 *    naturally aligned, so the host's C-like CTF layout matches;
 *  - no implicit padding, interior or tail: the payload structs are
 *    compiled with -Wpadded as an error, so every payload byte belongs to
 *    a member the probe writes and no stale ring content reaches the host;
 *  - the field definitions cover the struct exactly, in offset order: the
 *    sizes of the listed fields add up to sizeof() (gr_check_def());
 *  - a GR_FIELD_STRING is the last field; the record is cut after its NUL
 *    and the event is GR_EVENT_F_VARLEN. Text of bounded length (task comm,
 *    device name, rwbs) is a NUL-padded GR_FIELD_CHARS array instead.
 *
 * Probes: "if (!gr_event_on(id)) return;" first, then gr_rec_begin(), fill
 * every payload byte, gr_rec_end(). They never sleep, lock or allocate,
 * and call nothing that fires one of the tracepoints handled here. Values
 * are those this kernel's ftrace events record (thread ids from
 * task_pid_nr(), prio as p->prio, prev_state as the sched_switch event
 * computes it, block dev/sector/rwbs as the block_rq events compute them).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/blktrace_api.h>
#include <linux/build_bug.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>

/* Only for the register_trace_*() declarations used by GR_CHECK_PROBE(). */
#include <trace/events/block.h>
#include <trace/events/irq.h>
#include <trace/events/kmem.h>
#include <trace/events/net.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>

#include "gr_events.h"
#include "gr_trace.h"

/*
 * GR_CHECK_PROBE() - fail the build unless gr_probe_<ev> has the probe
 * prototype of tracepoint @tp in the kernel we build against. The call is
 * in sizeof(), so it is type-checked (the kernel builds with
 * -Werror=incompatible-pointer-types) but never evaluated and references
 * no __tracepoint_* symbol.
 */
#define GR_CHECK_PROBE(tp, ev)						\
	static_assert(sizeof(register_trace_##tp(gr_probe_##ev, NULL)) ==	\
		      sizeof(int), "gr_probe_" #ev ": prototype")

#define GR_SIGNED	GR_FIELD_F_SIGNED
#define GR_HEX		GR_FIELD_F_HEX

/*
 * gr_str_clip() - bytes of @s a STRING field of @max bytes takes, without
 * the NUL: at most @max - 1, so the NUL always fits.
 */
static inline size_t gr_str_clip(const char *s, size_t max)
{
	return strnlen(s, max - 1);
}

/*
 * gr_copy_comm() - a task's comm into a CHARS field of TASK_COMM_LEN, as
 * ftrace copies it: all 16 bytes, so no ring byte survives. The kernel
 * keeps comm NUL-padded (__set_task_comm() uses strscpy_pad()); only a
 * rename racing with the copy can leave old bytes after the first NUL.
 * The last byte is forced to NUL. Inline: this runs twice per
 * sched_switch.
 */
static __always_inline void gr_copy_comm(char (*dst)[TASK_COMM_LEN],
					 const char *comm)
{
	memcpy(*dst, comm, TASK_COMM_LEN);
	(*dst)[TASK_COMM_LEN - 1] = '\0';
}

/* Record length of a VARLEN payload whose string @m holds @n chars. */
#define GR_VARLEN_SIZE(type, m, n)	(offsetof(type, m) + (n) + 1)

/* Every struct defined from here to __diag_pop() is a payload. */
__diag_push();
__diag_error(GCC, 8, "-Wpadded", "payloads have no implicit padding");
__diag_error(clang, 11, "-Wpadded", "payloads have no implicit padding");

/* ---- sched ------------------------------------------------------------ */

struct gr_ev_sched_switch {
	char prev_comm[TASK_COMM_LEN];
	__le32 prev_tid;
	__le32 prev_prio;
	__le64 prev_state;
	char next_comm[TASK_COMM_LEN];
	__le32 next_tid;
	__le32 next_prio;
};

static const struct gr_field_def gr_sched_switch_fields[] = {
	GR_CHARS_FIELD(struct gr_ev_sched_switch, prev_comm),
	GR_INT_FIELD(struct gr_ev_sched_switch, GR_SIGNED, prev_tid),
	GR_INT_FIELD(struct gr_ev_sched_switch, GR_SIGNED, prev_prio),
	GR_INT_FIELD(struct gr_ev_sched_switch, GR_SIGNED, prev_state),
	GR_CHARS_FIELD(struct gr_ev_sched_switch, next_comm),
	GR_INT_FIELD(struct gr_ev_sched_switch, GR_SIGNED, next_tid),
	GR_INT_FIELD(struct gr_ev_sched_switch, GR_SIGNED, next_prio),
};

/*
 * prev_state as the 6.1 sched_switch event records it: TASK_REPORT_MAX
 * for a preempted task (printed "R+"), else the reported state bit of
 * @prev_state and the exit state (0 for a runnable task).
 */
static long gr_switch_state(bool preempt, unsigned int prev_state,
			    const struct task_struct *prev)
{
	unsigned int idx;

	if (preempt)
		return TASK_REPORT_MAX;
	idx = __task_state_index(prev_state, prev->exit_state);
	return idx ? 1L << (idx - 1) : 0;
}

static void gr_probe_sched_switch(void *data, bool preempt,
				  struct task_struct *prev,
				  struct task_struct *next,
				  unsigned int prev_state)
{
	struct gr_ev_sched_switch *ev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_SCHED_SWITCH))
		return;
	ev = gr_rec_begin(&rec, GR_EV_SCHED_SWITCH, sizeof(*ev));
	if (!ev)
		return;
	gr_copy_comm(&ev->prev_comm, prev->comm);
	ev->prev_tid = cpu_to_le32(task_pid_nr(prev));
	ev->prev_prio = cpu_to_le32(prev->prio);
	ev->prev_state = cpu_to_le64(gr_switch_state(preempt, prev_state,
						     prev));
	gr_copy_comm(&ev->next_comm, next->comm);
	ev->next_tid = cpu_to_le32(task_pid_nr(next));
	ev->next_prio = cpu_to_le32(next->prio);
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(sched_switch, sched_switch);

/* sched_wakeup and sched_wakeup_new */
struct gr_ev_sched_wakeup {
	char comm[TASK_COMM_LEN];
	__le32 tid;
	__le32 prio;
	__le32 target_cpu;
};

static const struct gr_field_def gr_sched_wakeup_fields[] = {
	GR_CHARS_FIELD(struct gr_ev_sched_wakeup, comm),
	GR_INT_FIELD(struct gr_ev_sched_wakeup, GR_SIGNED, tid),
	GR_INT_FIELD(struct gr_ev_sched_wakeup, GR_SIGNED, prio),
	GR_INT_FIELD(struct gr_ev_sched_wakeup, GR_SIGNED, target_cpu),
};

static void gr_rec_wakeup(unsigned int id, struct task_struct *p)
{
	struct gr_ev_sched_wakeup *ev;
	struct gr_rec rec;

	ev = gr_rec_begin(&rec, id, sizeof(*ev));
	if (!ev)
		return;
	gr_copy_comm(&ev->comm, p->comm);
	ev->tid = cpu_to_le32(task_pid_nr(p));
	ev->prio = cpu_to_le32(p->prio);
	ev->target_cpu = cpu_to_le32(task_cpu(p));
	gr_rec_end(&rec);
}

static void gr_probe_sched_wakeup(void *data, struct task_struct *p)
{
	if (!gr_event_on(GR_EV_SCHED_WAKEUP))
		return;
	gr_rec_wakeup(GR_EV_SCHED_WAKEUP, p);
}

GR_CHECK_PROBE(sched_wakeup, sched_wakeup);

static void gr_probe_sched_wakeup_new(void *data, struct task_struct *p)
{
	if (!gr_event_on(GR_EV_SCHED_WAKEUP_NEW))
		return;
	gr_rec_wakeup(GR_EV_SCHED_WAKEUP_NEW, p);
}

GR_CHECK_PROBE(sched_wakeup_new, sched_wakeup_new);

/*
 * sched_process_fork: *_tid are thread ids, *_pid process (thread group)
 * ids, so a new thread (child_tid != child_pid) is told from a new process.
 */
struct gr_ev_sched_process_fork {
	char parent_comm[TASK_COMM_LEN];
	__le32 parent_tid;
	__le32 parent_pid;
	char child_comm[TASK_COMM_LEN];
	__le32 child_tid;
	__le32 child_pid;
};

static const struct gr_field_def gr_sched_process_fork_fields[] = {
	GR_CHARS_FIELD(struct gr_ev_sched_process_fork, parent_comm),
	GR_INT_FIELD(struct gr_ev_sched_process_fork, GR_SIGNED, parent_tid),
	GR_INT_FIELD(struct gr_ev_sched_process_fork, GR_SIGNED, parent_pid),
	GR_CHARS_FIELD(struct gr_ev_sched_process_fork, child_comm),
	GR_INT_FIELD(struct gr_ev_sched_process_fork, GR_SIGNED, child_tid),
	GR_INT_FIELD(struct gr_ev_sched_process_fork, GR_SIGNED, child_pid),
};

static void gr_probe_sched_process_fork(void *data, struct task_struct *parent,
					struct task_struct *child)
{
	struct gr_ev_sched_process_fork *ev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_SCHED_PROCESS_FORK))
		return;
	ev = gr_rec_begin(&rec, GR_EV_SCHED_PROCESS_FORK, sizeof(*ev));
	if (!ev)
		return;
	gr_copy_comm(&ev->parent_comm, parent->comm);
	ev->parent_tid = cpu_to_le32(task_pid_nr(parent));
	ev->parent_pid = cpu_to_le32(task_tgid_nr(parent));
	gr_copy_comm(&ev->child_comm, child->comm);
	ev->child_tid = cpu_to_le32(task_pid_nr(child));
	ev->child_pid = cpu_to_le32(task_tgid_nr(child));
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(sched_process_fork, sched_process_fork);

/*
 * sched_process_exec: filename is bprm->filename, at most 255 chars kept;
 * old_tid is the thread id before exec (a thread that execs takes the
 * thread group leader's id).
 */
struct gr_ev_sched_process_exec {
	__le32 tid;
	__le32 old_tid;
	char filename[256];
};

static const struct gr_field_def gr_sched_process_exec_fields[] = {
	GR_INT_FIELD(struct gr_ev_sched_process_exec, GR_SIGNED, tid),
	GR_INT_FIELD(struct gr_ev_sched_process_exec, GR_SIGNED, old_tid),
	GR_STRING_FIELD(struct gr_ev_sched_process_exec, filename),
};

static void gr_probe_sched_process_exec(void *data, struct task_struct *p,
					pid_t old_pid,
					struct linux_binprm *bprm)
{
	struct gr_ev_sched_process_exec *ev;
	struct gr_rec rec;
	const char *name;
	size_t n;

	if (!gr_event_on(GR_EV_SCHED_PROCESS_EXEC))
		return;
	name = bprm->filename ? bprm->filename : "";
	n = gr_str_clip(name, sizeof(ev->filename));
	ev = gr_rec_begin(&rec, GR_EV_SCHED_PROCESS_EXEC,
			  GR_VARLEN_SIZE(typeof(*ev), filename, n));
	if (!ev)
		return;
	ev->tid = cpu_to_le32(task_pid_nr(p));
	ev->old_tid = cpu_to_le32(old_pid);
	memcpy(ev->filename, name, n);
	ev->filename[n] = '\0';
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(sched_process_exec, sched_process_exec);

struct gr_ev_sched_process_exit {
	char comm[TASK_COMM_LEN];
	__le32 tid;
	__le32 prio;
};

static const struct gr_field_def gr_sched_process_exit_fields[] = {
	GR_CHARS_FIELD(struct gr_ev_sched_process_exit, comm),
	GR_INT_FIELD(struct gr_ev_sched_process_exit, GR_SIGNED, tid),
	GR_INT_FIELD(struct gr_ev_sched_process_exit, GR_SIGNED, prio),
};

static void gr_probe_sched_process_exit(void *data, struct task_struct *p)
{
	struct gr_ev_sched_process_exit *ev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_SCHED_PROCESS_EXIT))
		return;
	ev = gr_rec_begin(&rec, GR_EV_SCHED_PROCESS_EXIT, sizeof(*ev));
	if (!ev)
		return;
	gr_copy_comm(&ev->comm, p->comm);
	ev->tid = cpu_to_le32(task_pid_nr(p));
	ev->prio = cpu_to_le32(p->prio);
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(sched_process_exit, sched_process_exit);

struct gr_ev_sched_migrate_task {
	char comm[TASK_COMM_LEN];
	__le32 tid;
	__le32 prio;
	__le32 orig_cpu;
	__le32 dest_cpu;
};

static const struct gr_field_def gr_sched_migrate_task_fields[] = {
	GR_CHARS_FIELD(struct gr_ev_sched_migrate_task, comm),
	GR_INT_FIELD(struct gr_ev_sched_migrate_task, GR_SIGNED, tid),
	GR_INT_FIELD(struct gr_ev_sched_migrate_task, GR_SIGNED, prio),
	GR_INT_FIELD(struct gr_ev_sched_migrate_task, GR_SIGNED, orig_cpu),
	GR_INT_FIELD(struct gr_ev_sched_migrate_task, GR_SIGNED, dest_cpu),
};

static void gr_probe_sched_migrate_task(void *data, struct task_struct *p,
					int dest_cpu)
{
	struct gr_ev_sched_migrate_task *ev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_SCHED_MIGRATE_TASK))
		return;
	ev = gr_rec_begin(&rec, GR_EV_SCHED_MIGRATE_TASK, sizeof(*ev));
	if (!ev)
		return;
	gr_copy_comm(&ev->comm, p->comm);
	ev->tid = cpu_to_le32(task_pid_nr(p));
	ev->prio = cpu_to_le32(p->prio);
	ev->orig_cpu = cpu_to_le32(task_cpu(p));
	ev->dest_cpu = cpu_to_le32(dest_cpu);
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(sched_migrate_task, sched_migrate_task);

/* ---- irq -------------------------------------------------------------- */

/* name: the irqaction's name, "" if it has none; at most 31 chars kept. */
struct gr_ev_irq_handler_entry {
	__le32 irq;
	char name[32];
};

static const struct gr_field_def gr_irq_handler_entry_fields[] = {
	GR_INT_FIELD(struct gr_ev_irq_handler_entry, GR_SIGNED, irq),
	GR_STRING_FIELD(struct gr_ev_irq_handler_entry, name),
};

static void gr_probe_irq_handler_entry(void *data, int irq,
				       struct irqaction *action)
{
	struct gr_ev_irq_handler_entry *ev;
	struct gr_rec rec;
	const char *name;
	size_t n;

	if (!gr_event_on(GR_EV_IRQ_HANDLER_ENTRY))
		return;
	name = action && action->name ? action->name : "";
	n = gr_str_clip(name, sizeof(ev->name));
	ev = gr_rec_begin(&rec, GR_EV_IRQ_HANDLER_ENTRY,
			  GR_VARLEN_SIZE(typeof(*ev), name, n));
	if (!ev)
		return;
	ev->irq = cpu_to_le32(irq);
	memcpy(ev->name, name, n);
	ev->name[n] = '\0';
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(irq_handler_entry, irq_handler_entry);

/* ret: the irqreturn_t of the handler (1: handled, 0: not ours) */
struct gr_ev_irq_handler_exit {
	__le32 irq;
	__le32 ret;
};

static const struct gr_field_def gr_irq_handler_exit_fields[] = {
	GR_INT_FIELD(struct gr_ev_irq_handler_exit, GR_SIGNED, irq),
	GR_INT_FIELD(struct gr_ev_irq_handler_exit, GR_SIGNED, ret),
};

static void gr_probe_irq_handler_exit(void *data, int irq,
				      struct irqaction *action, int ret)
{
	struct gr_ev_irq_handler_exit *ev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_IRQ_HANDLER_EXIT))
		return;
	ev = gr_rec_begin(&rec, GR_EV_IRQ_HANDLER_EXIT, sizeof(*ev));
	if (!ev)
		return;
	ev->irq = cpu_to_le32(irq);
	ev->ret = cpu_to_le32(ret);
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(irq_handler_exit, irq_handler_exit);

/* softirq_entry and softirq_exit; vec is the *_SOFTIRQ number */
struct gr_ev_softirq {
	__le32 vec;
};

static const struct gr_field_def gr_softirq_fields[] = {
	GR_INT_FIELD(struct gr_ev_softirq, 0, vec),
};

static void gr_rec_softirq(unsigned int id, unsigned int vec_nr)
{
	struct gr_ev_softirq *ev;
	struct gr_rec rec;

	ev = gr_rec_begin(&rec, id, sizeof(*ev));
	if (!ev)
		return;
	ev->vec = cpu_to_le32(vec_nr);
	gr_rec_end(&rec);
}

static void gr_probe_softirq_entry(void *data, unsigned int vec_nr)
{
	if (!gr_event_on(GR_EV_SOFTIRQ_ENTRY))
		return;
	gr_rec_softirq(GR_EV_SOFTIRQ_ENTRY, vec_nr);
}

GR_CHECK_PROBE(softirq_entry, softirq_entry);

static void gr_probe_softirq_exit(void *data, unsigned int vec_nr)
{
	if (!gr_event_on(GR_EV_SOFTIRQ_EXIT))
		return;
	gr_rec_softirq(GR_EV_SOFTIRQ_EXIT, vec_nr);
}

GR_CHECK_PROBE(softirq_exit, softirq_exit);

/* ---- raw_syscalls ------------------------------------------------------ */

/* sys_enter: the syscall number and its six argument registers */
struct gr_ev_sys_enter {
	__le64 id;
	__le64 arg0;
	__le64 arg1;
	__le64 arg2;
	__le64 arg3;
	__le64 arg4;
	__le64 arg5;
};

static const struct gr_field_def gr_sys_enter_fields[] = {
	GR_INT_FIELD(struct gr_ev_sys_enter, GR_SIGNED, id),
	GR_INT_FIELD(struct gr_ev_sys_enter, GR_HEX, arg0),
	GR_INT_FIELD(struct gr_ev_sys_enter, GR_HEX, arg1),
	GR_INT_FIELD(struct gr_ev_sys_enter, GR_HEX, arg2),
	GR_INT_FIELD(struct gr_ev_sys_enter, GR_HEX, arg3),
	GR_INT_FIELD(struct gr_ev_sys_enter, GR_HEX, arg4),
	GR_INT_FIELD(struct gr_ev_sys_enter, GR_HEX, arg5),
};

static void gr_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct gr_ev_sys_enter *ev;
	unsigned long args[6];
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_SYS_ENTER))
		return;
	syscall_get_arguments(current, regs, args);
	ev = gr_rec_begin(&rec, GR_EV_SYS_ENTER, sizeof(*ev));
	if (!ev)
		return;
	ev->id = cpu_to_le64(id);
	ev->arg0 = cpu_to_le64(args[0]);
	ev->arg1 = cpu_to_le64(args[1]);
	ev->arg2 = cpu_to_le64(args[2]);
	ev->arg3 = cpu_to_le64(args[3]);
	ev->arg4 = cpu_to_le64(args[4]);
	ev->arg5 = cpu_to_le64(args[5]);
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(sys_enter, sys_enter);

struct gr_ev_sys_exit {
	__le64 id;
	__le64 ret;
};

static const struct gr_field_def gr_sys_exit_fields[] = {
	GR_INT_FIELD(struct gr_ev_sys_exit, GR_SIGNED, id),
	GR_INT_FIELD(struct gr_ev_sys_exit, GR_SIGNED, ret),
};

static void gr_probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct gr_ev_sys_exit *ev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_SYS_EXIT))
		return;
	ev = gr_rec_begin(&rec, GR_EV_SYS_EXIT, sizeof(*ev));
	if (!ev)
		return;
	ev->id = cpu_to_le64(syscall_get_nr(current, regs));
	ev->ret = cpu_to_le64(ret);
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(sys_exit, sys_exit);

/* ---- block ------------------------------------------------------------ */

/* As RWBS_LEN of the block events: the longest rwbs is "FDEFASM". */
#define GR_RWBS_LEN	8
static_assert(GR_RWBS_LEN == RWBS_LEN);

/* dev of the block_rq events: the disk's dev_t, 0 without a disk */
static u32 gr_rq_dev(const struct request *rq)
{
	struct gendisk *disk = rq->q ? rq->q->disk : NULL;

	return disk ? disk_devt(disk) : 0;
}

/*
 * block_rq_issue: sector and nr_sector are 0 for passthrough requests;
 * tid and comm are the issuing task's.
 */
struct gr_ev_block_rq_issue {
	__le32 dev;
	__le32 tid;
	__le64 sector;
	__le32 nr_sector;
	__le32 bytes;
	char rwbs[GR_RWBS_LEN];
	char comm[TASK_COMM_LEN];
};

static const struct gr_field_def gr_block_rq_issue_fields[] = {
	GR_INT_FIELD(struct gr_ev_block_rq_issue, 0, dev),
	GR_INT_FIELD(struct gr_ev_block_rq_issue, GR_SIGNED, tid),
	GR_INT_FIELD(struct gr_ev_block_rq_issue, 0, sector),
	GR_INT_FIELD(struct gr_ev_block_rq_issue, 0, nr_sector),
	GR_INT_FIELD(struct gr_ev_block_rq_issue, 0, bytes),
	GR_CHARS_FIELD(struct gr_ev_block_rq_issue, rwbs),
	GR_CHARS_FIELD(struct gr_ev_block_rq_issue, comm),
};

static void gr_probe_block_rq_issue(void *data, struct request *rq)
{
	struct gr_ev_block_rq_issue *ev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_BLOCK_RQ_ISSUE))
		return;
	ev = gr_rec_begin(&rec, GR_EV_BLOCK_RQ_ISSUE, sizeof(*ev));
	if (!ev)
		return;
	ev->dev = cpu_to_le32(gr_rq_dev(rq));
	ev->tid = cpu_to_le32(task_pid_nr(current));
	ev->sector = cpu_to_le64(blk_rq_trace_sector(rq));
	ev->nr_sector = cpu_to_le32(blk_rq_trace_nr_sectors(rq));
	ev->bytes = cpu_to_le32(blk_rq_bytes(rq));
	memset(ev->rwbs, 0, sizeof(ev->rwbs));
	blk_fill_rwbs(ev->rwbs, rq->cmd_flags);
	gr_copy_comm(&ev->comm, current->comm);
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(block_rq_issue, block_rq_issue);

/*
 * block_rq_complete: error is an errno (0 on success); nr_sector is
 * bytes >> 9, bytes the bytes completed by this call.
 */
struct gr_ev_block_rq_complete {
	__le32 dev;
	__le32 error;
	__le64 sector;
	__le32 nr_sector;
	__le32 bytes;
	char rwbs[GR_RWBS_LEN];
};

static const struct gr_field_def gr_block_rq_complete_fields[] = {
	GR_INT_FIELD(struct gr_ev_block_rq_complete, 0, dev),
	GR_INT_FIELD(struct gr_ev_block_rq_complete, GR_SIGNED, error),
	GR_INT_FIELD(struct gr_ev_block_rq_complete, 0, sector),
	GR_INT_FIELD(struct gr_ev_block_rq_complete, 0, nr_sector),
	GR_INT_FIELD(struct gr_ev_block_rq_complete, 0, bytes),
	GR_CHARS_FIELD(struct gr_ev_block_rq_complete, rwbs),
};

static void gr_probe_block_rq_complete(void *data, struct request *rq,
				       blk_status_t error,
				       unsigned int nr_bytes)
{
	struct gr_ev_block_rq_complete *ev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_BLOCK_RQ_COMPLETE))
		return;
	ev = gr_rec_begin(&rec, GR_EV_BLOCK_RQ_COMPLETE, sizeof(*ev));
	if (!ev)
		return;
	ev->dev = cpu_to_le32(gr_rq_dev(rq));
	ev->error = cpu_to_le32(blk_status_to_errno(error));
	ev->sector = cpu_to_le64(blk_rq_pos(rq));
	ev->nr_sector = cpu_to_le32(nr_bytes >> SECTOR_SHIFT);
	ev->bytes = cpu_to_le32(nr_bytes);
	memset(ev->rwbs, 0, sizeof(ev->rwbs));
	blk_fill_rwbs(ev->rwbs, rq->cmd_flags);
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(block_rq_complete, block_rq_complete);

/* ---- net -------------------------------------------------------------- */

/*
 * net_dev_xmit: skbaddr identifies the buffer only (it may be freed
 * already); len is the length before transmission, rc the driver's
 * netdev_tx_t or a negative errno. name is copied with strscpy_pad():
 * dev->name is not kept NUL-padded across renames.
 */
struct gr_ev_net_dev_xmit {
	__le64 skbaddr;
	__le32 rc;
	__le32 len;
	char name[IFNAMSIZ];
};

static const struct gr_field_def gr_net_dev_xmit_fields[] = {
	GR_INT_FIELD(struct gr_ev_net_dev_xmit, GR_HEX, skbaddr),
	GR_INT_FIELD(struct gr_ev_net_dev_xmit, GR_SIGNED, rc),
	GR_INT_FIELD(struct gr_ev_net_dev_xmit, 0, len),
	GR_CHARS_FIELD(struct gr_ev_net_dev_xmit, name),
};

static void gr_probe_net_dev_xmit(void *data, struct sk_buff *skb, int rc,
				  struct net_device *dev, unsigned int skb_len)
{
	struct gr_ev_net_dev_xmit *ev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_NET_DEV_XMIT))
		return;
	ev = gr_rec_begin(&rec, GR_EV_NET_DEV_XMIT, sizeof(*ev));
	if (!ev)
		return;
	ev->skbaddr = cpu_to_le64((unsigned long)skb);
	ev->rc = cpu_to_le32(rc);
	ev->len = cpu_to_le32(skb_len);
	strscpy_pad(ev->name, dev ? dev->name : "", sizeof(ev->name));
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(net_dev_xmit, net_dev_xmit);

/* netif_receive_skb: protocol is the ethertype (ETH_P_*), host order */
struct gr_ev_netif_receive_skb {
	__le64 skbaddr;
	__le32 len;
	__le32 protocol;
	char name[IFNAMSIZ];
};

static const struct gr_field_def gr_netif_receive_skb_fields[] = {
	GR_INT_FIELD(struct gr_ev_netif_receive_skb, GR_HEX, skbaddr),
	GR_INT_FIELD(struct gr_ev_netif_receive_skb, 0, len),
	GR_INT_FIELD(struct gr_ev_netif_receive_skb, GR_HEX, protocol),
	GR_CHARS_FIELD(struct gr_ev_netif_receive_skb, name),
};

static void gr_probe_netif_receive_skb(void *data, struct sk_buff *skb)
{
	struct gr_ev_netif_receive_skb *ev;
	const struct net_device *dev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_NETIF_RECEIVE_SKB))
		return;
	dev = skb->dev;
	ev = gr_rec_begin(&rec, GR_EV_NETIF_RECEIVE_SKB, sizeof(*ev));
	if (!ev)
		return;
	ev->skbaddr = cpu_to_le64((unsigned long)skb);
	ev->len = cpu_to_le32(skb->len);
	ev->protocol = cpu_to_le32(be16_to_cpu(skb->protocol));
	strscpy_pad(ev->name, dev ? dev->name : "", sizeof(ev->name));
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(netif_receive_skb, netif_receive_skb);

/* ---- kmem ------------------------------------------------------------- */

/* mm_page_alloc: pfn is -1 (all ones) when the allocation failed */
struct gr_ev_mm_page_alloc {
	__le64 page;
	__le64 pfn;
	__le64 gfp_flags;
	__le32 order;
	__le32 migratetype;
};

static const struct gr_field_def gr_mm_page_alloc_fields[] = {
	GR_INT_FIELD(struct gr_ev_mm_page_alloc, GR_HEX, page),
	GR_INT_FIELD(struct gr_ev_mm_page_alloc, GR_HEX, pfn),
	GR_INT_FIELD(struct gr_ev_mm_page_alloc, GR_HEX, gfp_flags),
	GR_INT_FIELD(struct gr_ev_mm_page_alloc, 0, order),
	GR_INT_FIELD(struct gr_ev_mm_page_alloc, GR_SIGNED, migratetype),
};

static void gr_probe_mm_page_alloc(void *data, struct page *page,
				   unsigned int order, gfp_t gfp_flags,
				   int migratetype)
{
	struct gr_ev_mm_page_alloc *ev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_MM_PAGE_ALLOC))
		return;
	ev = gr_rec_begin(&rec, GR_EV_MM_PAGE_ALLOC, sizeof(*ev));
	if (!ev)
		return;
	ev->page = cpu_to_le64((unsigned long)page);
	ev->pfn = cpu_to_le64(page ? page_to_pfn(page) : -1UL);
	ev->gfp_flags = cpu_to_le64((__force unsigned long)gfp_flags);
	ev->order = cpu_to_le32(order);
	ev->migratetype = cpu_to_le32(migratetype);
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(mm_page_alloc, mm_page_alloc);

/* kmalloc: accounted is 1 if charged to a memory cgroup (__GFP_ACCOUNT) */
struct gr_ev_kmalloc {
	__le64 call_site;
	__le64 ptr;
	__le64 bytes_req;
	__le64 bytes_alloc;
	__le64 gfp_flags;
	__le32 node;
	__le32 accounted;
};

static const struct gr_field_def gr_kmalloc_fields[] = {
	GR_INT_FIELD(struct gr_ev_kmalloc, GR_HEX, call_site),
	GR_INT_FIELD(struct gr_ev_kmalloc, GR_HEX, ptr),
	GR_INT_FIELD(struct gr_ev_kmalloc, 0, bytes_req),
	GR_INT_FIELD(struct gr_ev_kmalloc, 0, bytes_alloc),
	GR_INT_FIELD(struct gr_ev_kmalloc, GR_HEX, gfp_flags),
	GR_INT_FIELD(struct gr_ev_kmalloc, GR_SIGNED, node),
	GR_INT_FIELD(struct gr_ev_kmalloc, 0, accounted),
};

static void gr_probe_kmalloc(void *data, unsigned long call_site,
			     const void *ptr, size_t bytes_req,
			     size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	struct gr_ev_kmalloc *ev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_KMALLOC))
		return;
	ev = gr_rec_begin(&rec, GR_EV_KMALLOC, sizeof(*ev));
	if (!ev)
		return;
	ev->call_site = cpu_to_le64(call_site);
	ev->ptr = cpu_to_le64((unsigned long)ptr);
	ev->bytes_req = cpu_to_le64(bytes_req);
	ev->bytes_alloc = cpu_to_le64(bytes_alloc);
	ev->gfp_flags = cpu_to_le64((__force unsigned long)gfp_flags);
	ev->node = cpu_to_le32(node);
	ev->accounted = cpu_to_le32(IS_ENABLED(CONFIG_MEMCG_KMEM) &&
				    (gfp_flags & __GFP_ACCOUNT));
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(kmalloc, kmalloc);

struct gr_ev_kfree {
	__le64 call_site;
	__le64 ptr;
};

static const struct gr_field_def gr_kfree_fields[] = {
	GR_INT_FIELD(struct gr_ev_kfree, GR_HEX, call_site),
	GR_INT_FIELD(struct gr_ev_kfree, GR_HEX, ptr),
};

static void gr_probe_kfree(void *data, unsigned long call_site,
			   const void *ptr)
{
	struct gr_ev_kfree *ev;
	struct gr_rec rec;

	if (!gr_event_on(GR_EV_KFREE))
		return;
	ev = gr_rec_begin(&rec, GR_EV_KFREE, sizeof(*ev));
	if (!ev)
		return;
	ev->call_site = cpu_to_le64(call_site);
	ev->ptr = cpu_to_le64((unsigned long)ptr);
	gr_rec_end(&rec);
}

GR_CHECK_PROBE(kfree, kfree);

/* End of the payload structs. */
__diag_pop();

/* ---- the table -------------------------------------------------------- */

/*
 * GR_EVENT() - table entry of event @ev of system @sys, probed by
 * gr_probe_<ev> on tracepoint @tp. Its payload is struct gr_ev_<pl> with
 * the fields gr_<pl>_fields[] (events of one class share a payload); @fl
 * is GR_EVENT_F_VARLEN or 0.
 */
#define GR_EVENT(ev, sys, tp, pl, fl) {					\
	.name = #ev + BUILD_BUG_ON_ZERO(sizeof(#ev) > GR_NAME_LEN),	\
	.system = #sys + BUILD_BUG_ON_ZERO(sizeof(#sys) > GR_SYSTEM_LEN), \
	.tp_name = #tp,							\
	.probe = (void *)gr_probe_##ev,					\
	.payload_size = sizeof(struct gr_ev_##pl),			\
	.flags = (fl),							\
	.nr_fields = ARRAY_SIZE(gr_##pl##_fields),			\
	.fields = gr_##pl##_fields,					\
}

const struct gr_event_def gr_event_defs[] = {
	[GR_EV_SCHED_SWITCH] =
		GR_EVENT(sched_switch, sched, sched_switch, sched_switch, 0),
	[GR_EV_SCHED_WAKEUP] =
		GR_EVENT(sched_wakeup, sched, sched_wakeup, sched_wakeup, 0),
	[GR_EV_SCHED_WAKEUP_NEW] =
		GR_EVENT(sched_wakeup_new, sched, sched_wakeup_new,
			 sched_wakeup, 0),
	[GR_EV_SCHED_PROCESS_FORK] =
		GR_EVENT(sched_process_fork, sched, sched_process_fork,
			 sched_process_fork, 0),
	[GR_EV_SCHED_PROCESS_EXEC] =
		GR_EVENT(sched_process_exec, sched, sched_process_exec,
			 sched_process_exec, GR_EVENT_F_VARLEN),
	[GR_EV_SCHED_PROCESS_EXIT] =
		GR_EVENT(sched_process_exit, sched, sched_process_exit,
			 sched_process_exit, 0),
	[GR_EV_SCHED_MIGRATE_TASK] =
		GR_EVENT(sched_migrate_task, sched, sched_migrate_task,
			 sched_migrate_task, 0),
	[GR_EV_IRQ_HANDLER_ENTRY] =
		GR_EVENT(irq_handler_entry, irq, irq_handler_entry,
			 irq_handler_entry, GR_EVENT_F_VARLEN),
	[GR_EV_IRQ_HANDLER_EXIT] =
		GR_EVENT(irq_handler_exit, irq, irq_handler_exit,
			 irq_handler_exit, 0),
	[GR_EV_SOFTIRQ_ENTRY] =
		GR_EVENT(softirq_entry, irq, softirq_entry, softirq, 0),
	[GR_EV_SOFTIRQ_EXIT] =
		GR_EVENT(softirq_exit, irq, softirq_exit, softirq, 0),
	[GR_EV_SYS_ENTER] =
		GR_EVENT(sys_enter, raw_syscalls, sys_enter, sys_enter, 0),
	[GR_EV_SYS_EXIT] =
		GR_EVENT(sys_exit, raw_syscalls, sys_exit, sys_exit, 0),
	[GR_EV_BLOCK_RQ_ISSUE] =
		GR_EVENT(block_rq_issue, block, block_rq_issue,
			 block_rq_issue, 0),
	[GR_EV_BLOCK_RQ_COMPLETE] =
		GR_EVENT(block_rq_complete, block, block_rq_complete,
			 block_rq_complete, 0),
	[GR_EV_NET_DEV_XMIT] =
		GR_EVENT(net_dev_xmit, net, net_dev_xmit, net_dev_xmit, 0),
	[GR_EV_NETIF_RECEIVE_SKB] =
		GR_EVENT(netif_receive_skb, net, netif_receive_skb,
			 netif_receive_skb, 0),
	[GR_EV_MM_PAGE_ALLOC] =
		GR_EVENT(mm_page_alloc, kmem, mm_page_alloc, mm_page_alloc, 0),
	[GR_EV_KMALLOC] = GR_EVENT(kmalloc, kmem, kmalloc, kmalloc, 0),
	[GR_EV_KFREE] = GR_EVENT(kfree, kmem, kfree, kfree, 0),
};

static_assert(ARRAY_SIZE(gr_event_defs) == GR_NR_EVENTS);

const unsigned int gr_nr_event_defs = ARRAY_SIZE(gr_event_defs);

/*
 * gr_check_def() - build-time checks of one table entry. Everything it
 * tests is a constant of the table: with the loops unrolled (the pragmas)
 * the compiler folds each BUILD_BUG_ON(), and one it could not fold would
 * fail the build as well. gr_check_defs() compiles to nothing.
 */
static __always_inline void gr_check_def(const struct gr_event_def *def)
{
	const struct gr_field_def *last;
	unsigned int i, end = 0;

	BUILD_BUG_ON(!def->nr_fields || def->nr_fields > GR_MAX_FIELDS);
	last = &def->fields[def->nr_fields - 1];
#pragma GCC unroll 16
	for (i = 0; i < def->nr_fields; i++) {
		const struct gr_field_def *f = &def->fields[i];

		/* in offset order, no hole, no overlap: they cover the struct */
		BUILD_BUG_ON(f->offset != end);
		BUILD_BUG_ON(f->type == GR_FIELD_INTEGER &&
			     (f->size > 8 || !is_power_of_2(f->size)));
		BUILD_BUG_ON(f->type == GR_FIELD_STRING && f != last);
		BUILD_BUG_ON(strlen(f->name) >= GR_FIELD_NAME_LEN);
		end += f->size;
	}
	BUILD_BUG_ON(end != def->payload_size);
	BUILD_BUG_ON(!(def->flags & GR_EVENT_F_VARLEN) !=
		     (last->type != GR_FIELD_STRING));
	BUILD_BUG_ON(sizeof(struct gr_event_header) + def->payload_size >
		     GR_MIN_SUBBUF_SIZE - sizeof(struct gr_packet_header));
}

static void gr_check_defs(void)
{
	unsigned int i;

#pragma GCC unroll 256
	for (i = 0; i < ARRAY_SIZE(gr_event_defs); i++)
		gr_check_def(&gr_event_defs[i]);
}

/**
 * gr_event_desc_fill() - publishable descriptor of one event
 * @def: the event, an entry of gr_event_defs[]
 * @id: its id (index in gr_event_defs[])
 * @out: the descriptor to fill, e.g. slot @id of the region's table
 *
 * Writes all of @out: little-endian fields, NUL-padded names, zero
 * reserved fields and unused field slots.
 *
 * Context: any; does not sleep.
 */
void gr_event_desc_fill(const struct gr_event_def *def, unsigned int id,
			struct gr_event_desc *out)
{
	unsigned int i, n = min_t(unsigned int, def->nr_fields, GR_MAX_FIELDS);

	memset(out, 0, sizeof(*out));
	strscpy(out->name, def->name, sizeof(out->name));
	out->id = cpu_to_le16(id);
	out->nr_fields = cpu_to_le16(n);
	out->payload_size = cpu_to_le16(def->payload_size);
	out->flags = cpu_to_le16(def->flags);
	strscpy(out->system, def->system, sizeof(out->system));
	for (i = 0; i < n; i++) {
		const struct gr_field_def *f = &def->fields[i];
		struct gr_field_desc *d = &out->fields[i];

		strscpy(d->name, f->name, sizeof(d->name));
		d->offset = cpu_to_le16(f->offset);
		d->size = cpu_to_le16(f->size);
		d->type = f->type;
		d->flags = f->flags;
	}
}

/* ---- attach and detach ------------------------------------------------ */

/* Tracepoint of each event, NULL if missing; written by gr_events_init(). */
static struct tracepoint *gr_tps[GR_NR_EVENTS];
/* Probe of each event registered? Protected by gr_attach_lock. */
static bool gr_attached[GR_NR_EVENTS];
static DEFINE_MUTEX(gr_attach_lock);

static void gr_tp_match(struct tracepoint *tp, void *priv)
{
	struct tracepoint **tps = priv;
	unsigned int i;

	for (i = 0; i < GR_NR_EVENTS; i++)
		if (!tps[i] && !strcmp(tp->name, gr_event_defs[i].tp_name))
			tps[i] = tp;
}

/**
 * gr_events_init() - find the tracepoint of every event
 *
 * Looks every tracepoint up once by name among the kernel's built-in
 * tracepoints. An event whose tracepoint is missing is unavailable (one
 * pr_info() names it); the others work.
 *
 * Context: process context, once at module load, before any other
 * function of this file.
 * Return: 0.
 */
int gr_events_init(void)
{
	unsigned int i;

	gr_check_defs();
	for_each_kernel_tracepoint(gr_tp_match, gr_tps);
	for (i = 0; i < GR_NR_EVENTS; i++)
		if (!gr_tps[i])
			pr_info("no tracepoint %s: event %s unavailable\n",
				gr_event_defs[i].tp_name,
				gr_event_defs[i].name);
	return 0;
}

/**
 * gr_event_available() - can event @id be recorded in this kernel?
 * @id: event id
 *
 * Context: any, after gr_events_init().
 * Return: true if @id is valid and its tracepoint exists.
 */
bool gr_event_available(unsigned int id)
{
	return id < GR_NR_EVENTS && gr_tps[id];
}

/**
 * gr_event_attach() - attach the probe of event @id to its tracepoint
 * @id: event id
 *
 * Idempotent: an attached probe stays attached until
 * gr_events_detach_all(). Attaching does not enable recording; the caller
 * sets the enable bit that gr_event_on() tests, before or after.
 *
 * Context: process context; may sleep (takes gr_attach_lock and the
 * tracepoint mutex). Not from the doorbell interrupt or a timer.
 * Return: 0 if attached, -EINVAL for an unknown id, -ENOENT if the
 * tracepoint is missing in this kernel, or the error of
 * tracepoint_probe_register().
 */
int gr_event_attach(unsigned int id)
{
	int ret = 0;

	if (id >= GR_NR_EVENTS)
		return -EINVAL;
	if (!gr_tps[id])
		return -ENOENT;
	mutex_lock(&gr_attach_lock);
	if (!gr_attached[id]) {
		ret = tracepoint_probe_register(gr_tps[id],
						gr_event_defs[id].probe, NULL);
		if (!ret)
			gr_attached[id] = true;
	}
	mutex_unlock(&gr_attach_lock);
	return ret;
}

/**
 * gr_events_detach_all() - detach every attached probe
 *
 * Unregisters all probes, then waits until no CPU runs one
 * (tracepoint_synchronize_unregister()): afterwards the rings the probes
 * write and the module text may go away.
 *
 * Context: process context; may sleep (takes gr_attach_lock and waits for
 * an SRCU/RCU grace period).
 */
void gr_events_detach_all(void)
{
	unsigned int i;

	mutex_lock(&gr_attach_lock);
	for (i = 0; i < GR_NR_EVENTS; i++) {
		if (!gr_attached[i])
			continue;
		WARN_ON_ONCE(tracepoint_probe_unregister(gr_tps[i],
							 gr_event_defs[i].probe,
							 NULL));
		gr_attached[i] = false;
	}
	mutex_unlock(&gr_attach_lock);
	tracepoint_synchronize_unregister();
}
