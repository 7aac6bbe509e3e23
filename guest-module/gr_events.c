// SPDX-License-Identifier: GPL-2.0
/*
 * gr_events.c - tracepoint probes and the event table
 *
 * Everything here is generated from gr_events_table.h, one pass per
 * inclusion (see gr_events.h for the event ids): the payload structs, the
 * probes of GR_EVENT() entries, the field descriptor table of each
 * payload and gr_event_defs[]. Only the probes of GR_EVENT_STR() entries,
 * whose record length depends on their string, are written by hand. The
 * attach and detach code follows (see gr_events.h for the attach model:
 * attach once, stay attached until unload).
 *
 * Payload rules, all checked at build time:
 *  - multi-byte integers are little-endian (__le16/__le32/__le64) and
 *    naturally aligned, so the host's C-like CTF layout matches;
 *  - no implicit padding, interior or tail: the payload structs are
 *    compiled with -Wpadded as an error, so every payload byte belongs to
 *    a member the probe writes and no stale ring content reaches the host
 *    (spec G3);
 *  - the field descriptors are generated from the same list as the struct,
 *    so they cover it exactly, in offset order; an integer is 1, 2, 4 or 8
 *    bytes; names fit their descriptor fields;
 *  - a GR_FIELD_STRING is the last field; the record is cut after its NUL
 *    and the event is GR_EVENT_F_VARLEN (spec G13). Text of bounded
 *    length (task comm, device name) is a NUL-padded GR_FIELD_CHARS
 *    array instead.
 *
 * Probes: gr_rec_begin() (which tests the event's enable bit, once), fill
 * every payload byte, gr_rec_commit(). They never sleep, lock or allocate,
 * and call nothing that fires one of the tracepoints handled here. Values
 * are those this kernel's ftrace events record (thread ids from
 * task_pid_nr(), prev_state as the sched_switch event computes it, block
 * dev/sector as the block_rq events compute them), except priorities:
 * p->prio - MAX_RT_PRIO, as lttng-modules records them (gr_prio()), and
 * the block events' rwbs: lttng-modules' flags (gr_rwbs_flags()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/blktrace_api.h>
#include <linux/build_bug.h>
#include <linux/compat.h>
#include <linux/interrupt.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <linux/tracepoint.h>
#include <net/ip.h>
#include <asm/syscall.h>
#include <asm/trace/irq_vectors.h>

/* Only for the register_trace_*() declarations used by GR_CHECK_PROBE(). */
#include <trace/events/block.h>
#include <trace/events/irq.h>
#include <trace/events/kmem.h>
#include <trace/events/net.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>

#include "gr_events.h"
#include "gr_record.h"

/*
 * GR_CHECK_PROBE() - fail the build unless gr_probe_<call> has the probe
 * prototype of tracepoint <call> in the kernel we build against. The call
 * is in sizeof(), so it is type-checked (the kernel builds with
 * -Werror=incompatible-pointer-types) but never evaluated and references
 * no __tracepoint_* symbol.
 */
#define GR_CHECK_PROBE(call)						\
	static_assert(sizeof(register_trace_##call(gr_probe_##call, NULL)) == \
		      sizeof(int), "gr_probe_" #call ": prototype")

#define GR_SIGNED	GR_FIELD_F_SIGNED
#define GR_HEX		GR_FIELD_F_HEX

/* ---- helpers of the probes -------------------------------------------- */

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

/* A device name into a CHARS field of IFNAMSIZ, NUL-padded */
static inline void gr_copy_ifname(char (*dst)[IFNAMSIZ],
				  const struct net_device *dev)
{
	strscpy_pad(*dst, dev ? dev->name : "", IFNAMSIZ);
}

/*
 * gr_rwbs_flags() - rwbs of the block events, lttng-modules' flag set
 * (GR_RWBS_*, the same bits as its block.h): the operation, then the
 * modifiers ftrace shows as letters
 */
static u64 gr_rwbs_flags(blk_opf_t opf)
{
	u64 f;

	switch (opf & REQ_OP_MASK) {
	case REQ_OP_WRITE:
		f = GR_RWBS_WRITE;
		break;
	case REQ_OP_DISCARD:
		f = GR_RWBS_DISCARD;
		break;
	case REQ_OP_SECURE_ERASE:
		f = GR_RWBS_DISCARD | GR_RWBS_SECURE;
		break;
	case REQ_OP_FLUSH:
		f = GR_RWBS_FLUSH;
		break;
	case REQ_OP_READ:
		f = GR_RWBS_READ;
		break;
	default:
		f = 0;
		break;
	}
	if (opf & REQ_RAHEAD)
		f |= GR_RWBS_RAHEAD;
	if (opf & REQ_SYNC)
		f |= GR_RWBS_SYNC;
	if (opf & REQ_META)
		f |= GR_RWBS_META;
	if (opf & REQ_PREFLUSH)
		f |= GR_RWBS_PREFLUSH;
	if (opf & REQ_FUA)
		f |= GR_RWBS_FUA;
	return f;
}

/* dev of the block_rq events: the disk's dev_t, 0 without a disk */
static u32 gr_rq_dev(const struct request *rq)
{
	struct gendisk *disk = rq->q ? rq->q->disk : NULL;

	return disk ? disk_devt(disk) : 0;
}

/* Record length of a VARLEN payload whose string @m holds @n chars. */
#define GR_VARLEN_SIZE(type, m, n)	(offsetof(type, m) + (n) + 1)

/* ---- pass 1: the payload structs -------------------------------------- */

/* Every struct defined from here to __diag_pop() is a payload. */
__diag_push();
__diag_error(GCC, 8, "-Wpadded", "payloads have no implicit padding");
__diag_error(clang, 11, "-Wpadded", "payloads have no implicit padding");

/*
 * Each member is wrapped in an anonymous struct of its own, which adds no
 * padding (one member) and lets the entries be joined with ';' alone.
 */
#define GR_INT(type, m, fl)		; struct { type m; }
#define GR_CHARS(m, len)		; struct { char m[len]; }
/*
 * The payload struct of @call and gr_ev_<call>_begin(), gr_rec_begin()
 * of a record of that payload.
 */
#define GR_PAYLOAD(call, ...)						\
	struct gr_ev_##call {						\
		__VA_ARGS__;						\
	};								\
	static __always_inline struct gr_ev_##call *			\
	gr_ev_##call##_begin(struct gr_rec *rec, unsigned int id)	\
	{								\
		return gr_rec_begin(rec, id, sizeof(struct gr_ev_##call)); \
	}
#define GR_EVENT(call, sys, proto, fields, assign)			\
	GR_PAYLOAD(call, fields)
#define GR_EVENT_AS(call, sys, pl, proto, assign)
#define GR_EVENT_STR(call, sys, fields, str, len)			\
	GR_PAYLOAD(call, fields GR_CHARS(str, len))
#define GR_DUMP(call, sys, fields)	GR_PAYLOAD(call, fields)
#define GR_DUMP_STR(call, sys, fields, str, len)			\
	GR_PAYLOAD(call, fields GR_CHARS(str, len))
#include "gr_events_table.h"

/* End of the payload structs. */
__diag_pop();

/* ---- pass 2: the probes ----------------------------------------------- */

/* The payload of the sched_wakeup class (sched_wakeup, sched_wakeup_new) */
static __always_inline void gr_wakeup_fill(struct gr_ev_sched_wakeup *ev,
					   struct task_struct *p)
{
	gr_copy_comm(&ev->comm, p->comm);
	ev->tid = cpu_to_le32(task_pid_nr(p));
	ev->prio = cpu_to_le32(gr_prio(p->prio));
	ev->target_cpu = cpu_to_le32(task_cpu(p));
}

/* The payload of the sched_process_exit class (exit, free) */
static __always_inline void gr_process_fill(struct gr_ev_sched_process_exit *ev,
					    struct task_struct *p)
{
	gr_copy_comm(&ev->comm, p->comm);
	ev->tid = cpu_to_le32(task_pid_nr(p));
	ev->prio = cpu_to_le32(gr_prio(p->prio));
}

/* The payload of the block_rq class (block_rq_insert, block_rq_issue) */
static __always_inline void gr_rq_fill(struct gr_ev_block_rq_issue *ev,
				       struct request *rq)
{
	ev->dev = cpu_to_le32(gr_rq_dev(rq));
	ev->tid = cpu_to_le32(task_pid_nr(current));
	ev->sector = cpu_to_le64(blk_rq_trace_sector(rq));
	ev->nr_sector = cpu_to_le32(blk_rq_trace_nr_sectors(rq));
	ev->bytes = cpu_to_le32(blk_rq_bytes(rq));
	ev->rwbs = cpu_to_le64(gr_rwbs_flags(rq->cmd_flags));
	gr_copy_comm(&ev->comm, current->comm);
}

/*
 * network_header_type and transport_header_type of the net events, the
 * values lttng-modules records (its enum network_header_types and
 * transport_header_types); spec 7.5 "Network events"
 */
#define GR_NH_NONE	0
#define GR_NH_IPV4	1
#define GR_NH_IPV6	2
#define GR_TH_NONE	0
#define GR_TH_TCP	1

/* A 128-bit address in network order as two host-order halves */
static __always_inline u64 gr_be64_of(const __be32 *w)
{
	return (u64)be32_to_cpu(w[0]) << 32 | be32_to_cpu(w[1]);
}

/**
 * gr_net_fill() - the payload of netif_receive_skb and net_dev_queue
 * @ev: the payload
 * @skb: the packet
 * @nh: offset of its network header from skb->data: 0 on receive (the
 *	stack has pulled the link-layer header), the skb's network header
 *	offset on transmit; negative: no header is read
 *
 * Reads at most an IP header (20 or 40 bytes, IPv4 options skipped by
 * ihl) and 20 bytes of TCP header through skb_header_pointer(): in place
 * when they lie in the linear part, else copied from the fragments to
 * the stack, never past skb->len. A packet that is not IPv4 or IPv6 by
 * skb->protocol and its version, shorter than its headers, a later IPv4
 * fragment or an IPv6 packet whose next header is not TCP (extension
 * headers are not walked) records "none" and zeros where nothing was
 * read.
 *
 * Context: the net tracepoints' (softirq, process with BHs off); no
 * lock, no allocation.
 */
static void gr_net_fill(struct gr_ev_netif_receive_skb *ev,
			const struct sk_buff *skb, int nh)
{
	union {
		struct iphdr v4;
		struct ipv6hdr v6;
	} ipbuf;
	struct tcphdr thbuf;
	const struct iphdr *ip4;
	const struct ipv6hdr *ip6;
	const struct tcphdr *th = NULL;
	u64 saddr_hi = 0, saddr_lo = 0, daddr_hi = 0, daddr_lo = 0;
	unsigned int nh_type = GR_NH_NONE, proto = 0;
	int thoff = -1;

	ev->skbaddr = cpu_to_le64((unsigned long)skb);
	ev->len = cpu_to_le32(skb->len);
	ev->protocol = cpu_to_le32(be16_to_cpu(skb->protocol));
	gr_copy_ifname(&ev->name, skb->dev);
	if (nh >= 0 && skb->protocol == htons(ETH_P_IP)) {
		ip4 = skb_header_pointer(skb, nh, sizeof(*ip4), &ipbuf.v4);
		if (ip4 && ip4->version == 4 && ip4->ihl >= 5) {
			nh_type = GR_NH_IPV4;
			proto = ip4->protocol;
			/* ::ffff:a.b.c.d */
			saddr_lo = 0xffff00000000ULL | be32_to_cpu(ip4->saddr);
			daddr_lo = 0xffff00000000ULL | be32_to_cpu(ip4->daddr);
			if (!(ip4->frag_off & htons(IP_OFFSET)))
				thoff = nh + ip4->ihl * 4;
		}
	} else if (nh >= 0 && skb->protocol == htons(ETH_P_IPV6)) {
		ip6 = skb_header_pointer(skb, nh, sizeof(*ip6), &ipbuf.v6);
		if (ip6 && ip6->version == 6) {
			nh_type = GR_NH_IPV6;
			proto = ip6->nexthdr;
			saddr_hi = gr_be64_of(&ip6->saddr.s6_addr32[0]);
			saddr_lo = gr_be64_of(&ip6->saddr.s6_addr32[2]);
			daddr_hi = gr_be64_of(&ip6->daddr.s6_addr32[0]);
			daddr_lo = gr_be64_of(&ip6->daddr.s6_addr32[2]);
			thoff = nh + sizeof(*ip6);
		}
	}
	if (proto == IPPROTO_TCP && thoff >= 0)
		th = skb_header_pointer(skb, thoff, sizeof(*th), &thbuf);
	ev->network_header_type = cpu_to_le16(nh_type);
	ev->ip_protocol = cpu_to_le16(proto);
	ev->transport_header_type = cpu_to_le32(th ? GR_TH_TCP : GR_TH_NONE);
	ev->th_source_port = cpu_to_le16(th ? be16_to_cpu(th->source) : 0);
	ev->th_dest_port = cpu_to_le16(th ? be16_to_cpu(th->dest) : 0);
	ev->th_seq = cpu_to_le32(th ? be32_to_cpu(th->seq) : 0);
	ev->th_ack_seq = cpu_to_le32(th ? be32_to_cpu(th->ack_seq) : 0);
	/* the low 9 bits of the header's 13th and 14th bytes: NS .. FIN */
	ev->th_flags = cpu_to_le32(th ? be16_to_cpu(((const __be16 *)th)[6]) &
				   0x1ff : 0);
	ev->ip_saddr_hi = cpu_to_le64(saddr_hi);
	ev->ip_saddr_lo = cpu_to_le64(saddr_lo);
	ev->ip_daddr_hi = cpu_to_le64(daddr_hi);
	ev->ip_daddr_lo = cpu_to_le64(daddr_lo);
}

/*
 * Event families (spec 7.2, G39): whether the host has GR_F_SYSCALLS in
 * use. A probe of sys_enter or sys_exit loads it once.
 */
static bool gr_sys_members __read_mostly;

/**
 * gr_events_set_families() - the host's features, as a control pass applies
 * @host_features: GR_F_* of the control block in effect (0 without a host)
 *
 * Context: the control pass.
 */
void gr_events_set_families(u64 host_features)
{
	WRITE_ONCE(gr_sys_members, !!(host_features & GR_EVENTS_FEATURES));
}

/*
 * Write the record of @payload as member @base + @nr of its event's
 * family when that is in use and @nr a native call of the family, else
 * leave the descriptor's own id: one load, a compare, an add and a store
 * into the header the reservation just wrote.
 */
static __always_inline void gr_sys_member(void *payload, unsigned int base,
					  long nr)
{
	struct gr_event_header *eh = (struct gr_event_header *)payload - 1;

	if (READ_ONCE(gr_sys_members) && (unsigned long)nr < NR_syscalls &&
	    !in_compat_syscall())
		eh->id = cpu_to_le16(base + nr);
}

/* The six argument registers of sys_enter, as the event records them */
static __always_inline void gr_syscall_args(struct gr_ev_sys_enter *ev,
					    struct pt_regs *regs)
{
	static_assert(offsetof(struct gr_ev_sys_enter, arg5) ==
		      offsetof(struct gr_ev_sys_enter, arg0) + 5 * 8);
	gr_syscall_args_fill(&ev->arg0, regs);
}

/*
 * The probe of event @call, writing payload struct @tag: the enable
 * test, the reservation and the commit are gr_rec_begin() and
 * gr_rec_commit(), inline (gr_relay.h).
 */
#define GR_PROBE(call, tag, proto, assign)				\
	static void gr_probe_##call(void *data, GR_UNPAREN proto)	\
	{								\
		struct gr_rec rec;					\
		__auto_type ev = tag##_begin(&rec, GR_EV_##call);	\
									\
		GR_CHECK_PROBE(call);					\
		if (!ev)						\
			return;						\
		GR_UNPAREN assign;					\
		gr_rec_commit(&rec);					\
	}

#define GR_EVENT(call, sys, proto, fields, assign)			\
	GR_PROBE(call, gr_ev_##call, proto, assign)
#define GR_EVENT_AS(call, sys, pl, proto, assign)			\
	GR_PROBE(call, gr_ev_##pl, proto, assign)
#define GR_EVENT_STR(call, sys, fields, str, len)
#include "gr_events_table.h"

/* The probes of GR_EVENT_STR() entries: the string decides the length */

static void gr_probe_sched_process_exec(void *data, struct task_struct *p,
					pid_t old_pid,
					struct linux_binprm *bprm)
{
	const char *name = bprm->filename ? bprm->filename : "";
	struct gr_ev_sched_process_exec *ev;
	struct gr_rec rec;
	size_t n;

	if (!gr_rec_open(&rec, GR_EV_sched_process_exec))
		return;
	n = gr_str_clip(name, sizeof(ev->filename));
	ev = gr_rec_reserve(&rec, GR_VARLEN_SIZE(typeof(*ev), filename, n));
	if (!ev)
		return;
	ev->tid = cpu_to_le32(task_pid_nr(p));
	ev->old_tid = cpu_to_le32(old_pid);
	memcpy(ev->filename, name, n);
	ev->filename[n] = '\0';
	gr_rec_commit(&rec);
}

GR_CHECK_PROBE(sched_process_exec);

static void gr_probe_irq_handler_entry(void *data, int irq,
				       struct irqaction *action)
{
	const char *name = action && action->name ? action->name : "";
	struct gr_ev_irq_handler_entry *ev;
	struct gr_rec rec;
	size_t n;

	if (!gr_rec_open(&rec, GR_EV_irq_handler_entry))
		return;
	n = gr_str_clip(name, sizeof(ev->name));
	ev = gr_rec_reserve(&rec, GR_VARLEN_SIZE(typeof(*ev), name, n));
	if (!ev)
		return;
	ev->irq = cpu_to_le32(irq);
	memcpy(ev->name, name, n);
	ev->name[n] = '\0';
	gr_rec_commit(&rec);
}

GR_CHECK_PROBE(irq_handler_entry);

/* ---- the state-dump records (the walk is gr_dump.c's) ----------------- */

/*
 * Values of lttng_statedump_process_state, as lttng-modules numbers them
 * (its enum lttng_thread_type, lttng_execution_mode and _submode,
 * lttng_process_status).
 */
#define GR_DUMP_USER_THREAD	0
#define GR_DUMP_KERNEL_THREAD	1
#define GR_DUMP_MODE_UNKNOWN	5
#define GR_DUMP_SUBMODE_NONE	0
#define GR_DUMP_UNNAMED		0
#define GR_DUMP_WAIT_FORK	1
#define GR_DUMP_WAIT_CPU	2
#define GR_DUMP_ZOMBIE		4
#define GR_DUMP_WAIT		5
#define GR_DUMP_DEAD		7

/*
 * lttng-modules' status of @p. It tells a new child from a runnable task
 * by an empty rt.run_list, which on current kernels is true of every
 * task outside the RT class; TASK_NEW (set until the child is first
 * woken) says it exactly.
 */
static int gr_dump_status(const struct task_struct *p)
{
	unsigned int state = READ_ONCE(p->__state);
	int exit_state = READ_ONCE(p->exit_state);

	if (exit_state == EXIT_ZOMBIE)
		return GR_DUMP_ZOMBIE;
	if (exit_state == EXIT_DEAD)
		return GR_DUMP_DEAD;
	if (state == TASK_RUNNING)
		return GR_DUMP_WAIT_CPU;
	if (state & TASK_NEW)
		return GR_DUMP_WAIT_FORK;
	if (state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE))
		return GR_DUMP_WAIT;
	return GR_DUMP_UNNAMED;
}

/**
 * gr_dump_rec_mark() - lttng_statedump_start or _end (no payload)
 * @id: GR_EV_lttng_statedump_start or GR_EV_lttng_statedump_end
 *
 * Context: process context; preemption is disabled here.
 */
void gr_dump_rec_mark(unsigned int id)
{
	struct gr_rec rec;

	preempt_disable();
	if (gr_rec_begin(&rec, id, 0))
		gr_rec_commit(&rec);
	preempt_enable();
}

/**
 * gr_dump_rec_thread() - lttng_statedump_process_state of one thread
 * @p: the thread
 *
 * Context: RCU read-side critical section (@p and its real_parent stay
 * valid); any context that may disable preemption.
 */
void gr_dump_rec_thread(struct task_struct *p)
{
	struct gr_ev_lttng_statedump_process_state *ev;
	struct gr_rec rec;

	preempt_disable();
	ev = gr_rec_begin(&rec, GR_EV_lttng_statedump_process_state,
			  sizeof(*ev));
	if (ev) {
		ev->tid = cpu_to_le32(task_pid_nr(p));
		ev->pid = cpu_to_le32(task_tgid_nr(p));
		ev->ppid = cpu_to_le32(task_tgid_nr(rcu_dereference(p->real_parent)));
		gr_copy_comm(&ev->name, p->comm);
		ev->type = cpu_to_le32(p->flags & PF_KTHREAD ?
				       GR_DUMP_KERNEL_THREAD : GR_DUMP_USER_THREAD);
		ev->mode = cpu_to_le32(GR_DUMP_MODE_UNKNOWN);
		ev->submode = cpu_to_le32(GR_DUMP_SUBMODE_NONE);
		ev->status = cpu_to_le32(gr_dump_status(p));
		ev->cpu = cpu_to_le32(task_cpu(p));
		gr_rec_commit(&rec);
	}
	preempt_enable();
}

/**
 * gr_dump_rec_irq() - lttng_statedump_interrupt of one handler
 * @irq: the interrupt number
 * @chip: its irq chip's name
 * @action: the handler
 *
 * Context: under the irq descriptor's lock, interrupts off.
 */
void gr_dump_rec_irq(unsigned int irq, const char *chip,
		     const struct irqaction *action)
{
	struct gr_ev_lttng_statedump_interrupt *ev;
	struct gr_rec rec;

	ev = gr_rec_begin(&rec, GR_EV_lttng_statedump_interrupt, sizeof(*ev));
	if (!ev)
		return;
	ev->irq = cpu_to_le32(irq);
	strscpy_pad(ev->name, chip, sizeof(ev->name));
	strscpy_pad(ev->action, action->name ? action->name : "",
		    sizeof(ev->action));
	ev->tid = cpu_to_le32(action->thread ? task_pid_nr(action->thread) : 0);
	gr_rec_commit(&rec);
}

/**
 * gr_dump_rec_blockdev() - lttng_statedump_block_device of one disk
 * @devt: its dev_t, as the block_rq events record it
 * @name: its name (vda, vda1, loop0, ...)
 *
 * Context: any that may disable preemption; a spinlock holder is fine.
 */
void gr_dump_rec_blockdev(u32 devt, const char *name)
{
	struct gr_ev_lttng_statedump_block_device *ev;
	struct gr_rec rec;
	size_t n;

	preempt_disable();
	if (!gr_rec_open(&rec, GR_EV_lttng_statedump_block_device))
		goto out;
	n = gr_str_clip(name, sizeof(ev->diskname));
	ev = gr_rec_reserve(&rec, GR_VARLEN_SIZE(typeof(*ev), diskname, n));
	if (!ev)
		goto out;
	ev->dev = cpu_to_le32(devt);
	memcpy(ev->diskname, name, n);
	ev->diskname[n] = '\0';
	gr_rec_commit(&rec);
out:
	preempt_enable();
}

/**
 * gr_vmsync_rec() - vmsync_hg_guest or vmsync_gh_guest of a sync round
 * @id: GR_EV_vmsync_hg_guest or GR_EV_vmsync_gh_guest
 * @cnt: the message's cnt (GR_VMSYNC_HG_CNT(), GR_VMSYNC_GH_CNT())
 * @vm_uid: the host's gr_host_ctrl.vm_uid, as loaded for the round
 *
 * Context: any that may disable preemption (the sync answer holds a raw
 * spinlock with interrupts off).
 */
void gr_vmsync_rec(unsigned int id, u64 cnt, u64 vm_uid)
{
	struct gr_ev_vmsync_hg_guest *ev;
	struct gr_rec rec;

	BUILD_BUG_ON(sizeof(struct gr_ev_vmsync_hg_guest) !=
		     sizeof(struct gr_ev_vmsync_gh_guest));
	preempt_disable();
	ev = gr_rec_begin(&rec, id, sizeof(*ev));
	if (ev) {
		ev->cnt = cpu_to_le64(cnt);
		ev->vm_uid = cpu_to_le64(vm_uid);
		gr_rec_commit(&rec);
	}
	preempt_enable();
}

/* ---- pass 3: the field descriptor tables ------------------------------ */

/*
 * One function per payload holds its table, so that the offsets can be
 * taken from the struct through a local pointer (as ftrace's
 * trace_event_define_fields do): offsetof(typeof(*gr_this), member).
 * An integer field is 1, 2, 4 or 8 bytes, a name fits GR_FIELD_NAME_LEN.
 */
#define GR_FIELD(m, sz, kind, fl) {					\
	.name = #m + BUILD_BUG_ON_ZERO(sizeof(#m) > GR_FIELD_NAME_LEN),	\
	.offset = offsetof(typeof(*gr_this), m),			\
	.size = (sz),							\
	.type = GR_FIELD_##kind,					\
	.flags = (fl),							\
},
#define GR_INT(type, m, fl)						\
	GR_FIELD(m, sizeof(type) +					\
		 BUILD_BUG_ON_ZERO(sizeof(type) > 8 ||			\
				   (sizeof(type) & (sizeof(type) - 1))),\
		 INTEGER, fl)
#define GR_CHARS(m, len)		GR_FIELD(m, len, CHARS, 0)
#define GR_FIELD_TABLE(tag, ...)					\
	static const struct gr_field_def *tag##_fields(unsigned int *nr) \
	{								\
		typeof(tag##_begin(NULL, 0)) gr_this __maybe_unused = NULL; \
		static const struct gr_field_def table[] = { __VA_ARGS__ }; \
									\
		static_assert(ARRAY_SIZE(table) <= GR_MAX_FIELDS);	\
		*nr = ARRAY_SIZE(table);				\
		return table;						\
	}
#define GR_EVENT(call, sys, proto, fields, assign)			\
	GR_FIELD_TABLE(gr_ev_##call, fields)
#define GR_EVENT_AS(call, sys, pl, proto, assign)
#define GR_EVENT_STR(call, sys, fields, str, len)			\
	GR_FIELD_TABLE(gr_ev_##call, fields GR_FIELD(str, len, STRING, 0))
#define GR_DUMP(call, sys, fields)	GR_FIELD_TABLE(gr_ev_##call, fields)
#define GR_DUMP_STR(call, sys, fields, str, len)			\
	GR_FIELD_TABLE(gr_ev_##call, fields GR_FIELD(str, len, STRING, 0))
#include "gr_events_table.h"
#undef GR_FIELD

/* ---- pass 4: the table ------------------------------------------------ */

/*
 * The entry of event @call of system @sys, payload struct @tag (whose
 * size is taken from @tag_begin()'s type, never evaluated). A record of
 * the largest payload fits the smallest sub-buffer.
 */
#define GR_DEF(call, sys, tag, fl, tp, probe_fn)			\
	[GR_EV_##call] = {						\
		.name = #call +						\
			BUILD_BUG_ON_ZERO(sizeof(#call) > GR_NAME_LEN),	\
		.system = #sys +					\
			BUILD_BUG_ON_ZERO(sizeof(#sys) > GR_SYSTEM_LEN), \
		.tp_name = (tp),					\
		.probe = (probe_fn),					\
		.payload_size = sizeof(*tag##_begin(NULL, 0)) +		\
			BUILD_BUG_ON_ZERO(sizeof(struct gr_event_header) + \
					  sizeof(*tag##_begin(NULL, 0)) > \
					  GR_MIN_SUBBUF_SIZE -		\
					  sizeof(struct gr_packet_header)), \
		.flags = (fl),						\
		.fields = tag##_fields,					\
	},
#define GR_EVENT(call, sys, proto, fields, assign)			\
	GR_DEF(call, sys, gr_ev_##call, 0, #call,			\
	       (void *)gr_probe_##call)
#define GR_EVENT_AS(call, sys, pl, proto, assign)			\
	GR_DEF(call, sys, gr_ev_##pl, 0, #call,			\
	       (void *)gr_probe_##call)
#define GR_EVENT_STR(call, sys, fields, str, len)			\
	GR_DEF(call, sys, gr_ev_##call, GR_EVENT_F_VARLEN, #call,	\
	       (void *)gr_probe_##call)
#define GR_DUMP(call, sys, fields)					\
	GR_DEF(call, sys, gr_ev_##call, 0, NULL, NULL)
#define GR_DUMP_STR(call, sys, fields, str, len)			\
	GR_DEF(call, sys, gr_ev_##call, GR_EVENT_F_VARLEN, NULL, NULL)

const struct gr_event_def gr_event_defs[] = {
#include "gr_events_table.h"
};

#undef GR_DEF

static_assert(ARRAY_SIZE(gr_event_defs) == GR_NR_EVENTS);

const unsigned int gr_nr_event_defs = ARRAY_SIZE(gr_event_defs);

/**
 * gr_event_desc_fill() - publishable descriptor of one event
 * @def: the event, an entry of gr_event_defs[]
 * @id: its id (index in gr_event_defs[])
 * @out: the descriptor to fill, e.g. slot @id of the region's table
 *
 * Context: any; does not sleep.
 */
void gr_event_desc_fill(const struct gr_event_def *def, unsigned int id,
			struct gr_event_desc *out)
{
	const struct gr_field_def *fields;
	unsigned int n;

	fields = def->fields(&n);
	gr_event_desc_fill_fields(def, fields, n, id, out, NULL);
}

/**
 * gr_desc_short_name() - the stand-in of a long name (spec 20.1)
 * @dst: receives it, NUL-terminated
 * @len: bytes at @dst: the 576-byte descriptor's array for the name
 * @name: the name
 * @idx: what makes it unique: the event's id, or the field's index
 *
 * @name itself if it fits; else its start, '_' and @idx (a name cut
 * after an '_' keeps its start), which the 576-byte descriptor holds for
 * a reader without the extension.
 *
 * Context: any.
 */
void gr_desc_short_name(char *dst, size_t len, const char *name,
			unsigned int idx)
{
	char tail[12];
	int keep;

	if (strlen(name) < len) {
		strscpy(dst, name, len);
		return;
	}
	snprintf(tail, sizeof(tail), "_%u", idx);
	keep = (int)(len - 1 - strlen(tail));
	snprintf(dst, len, "%.*s%s", keep, name, tail);
}

/* a variable field: its bytes follow the fixed part (spec 7.1) */
static bool gr_field_is_var(const struct gr_field_def *f)
{
	return f->type == GR_FIELD_STRING || f->type == GR_FIELD_SEQUENCE;
}

static void gr_field_desc_fill(struct gr_field_desc *d,
			       const struct gr_field_def *f, unsigned int idx)
{
	gr_desc_short_name(d->name, sizeof(d->name), f->name, idx);
	d->offset = cpu_to_le16(f->offset);
	d->size = cpu_to_le16(f->size);
	d->type = f->type;
	d->flags = f->flags;
	d->elem_size = f->elem_size;
	d->len_field = f->len_field;
}

/**
 * gr_event_desc_fill_fields() - publishable descriptor of an event
 * @def: the event (its @fields callback is not used)
 * @fields: its payload layout, in offset order
 * @n: entries of @fields
 * @id: its id
 * @out: the descriptor to fill
 * @ext: v1.15, its extension (spec 20), or NULL when the layout's slots
 *	have no room for one
 *
 * Writes all of @out (and of @ext): little-endian fields, NUL-padded
 * names, zero reserved fields and unused field slots. Also for the
 * events found by name (gr_anyevent.c), whose layout is built at run
 * time. v1.15: an event whose names or fields do not fit 576 bytes
 * (laid out only while the host accepts GR_F_LONG_DESC) gets stand-in
 * names (gr_desc_short_name()) and its first fixed fields with its
 * variable ones in @out, and in @ext its names, the rest of its fixed
 * fields and its long field names (spec 20.1). Without @ext @out alone
 * describes its records, with fewer fields.
 *
 * Context: any; does not sleep.
 */
void gr_event_desc_fill_fields(const struct gr_event_def *def,
			       const struct gr_field_def *fields,
			       unsigned int n, unsigned int id,
			       struct gr_event_desc *out,
			       struct gr_event_desc_ext *ext)
{
	unsigned int i, nvar = 0, keep, d = 0, k = 0;
	bool lng;

	n = min_t(unsigned int, n, GR_LONG_MAX_FIELDS);
	for (i = 0; i < n; i++)
		nvar += gr_field_is_var(&fields[i]);
	keep = n > GR_MAX_FIELDS ? GR_MAX_FIELDS - nvar : n;
	lng = n > GR_MAX_FIELDS || strlen(def->name) >= GR_NAME_LEN ||
	      strlen(def->system) >= GR_SYSTEM_LEN;
	/* spec G3: reserved bytes and unused field slots are zero */
	memset(out, 0, sizeof(*out));
	if (ext)
		memset(ext, 0, sizeof(*ext));
	gr_desc_short_name(out->name, sizeof(out->name), def->name, id);
	out->id = cpu_to_le16(id);
	out->nr_fields = cpu_to_le16(min_t(unsigned int, n, GR_MAX_FIELDS));
	out->payload_size = cpu_to_le16(def->payload_size);
	out->flags = cpu_to_le16(def->flags);
	/* a system needs not be unique: its start stands in for it */
	strscpy(out->system, def->system, sizeof(out->system));
	/* spec 7.2: the families of sys_enter and sys_exit, one id a call */
	if ((GR_EVENTS_FEATURES & GR_F_SYSCALLS) &&
	    (id == GR_EV_sys_enter || id == GR_EV_sys_exit)) {
		out->family_base = cpu_to_le16(id == GR_EV_sys_enter ?
					       GR_SYS_ENTER_BASE :
					       GR_SYS_EXIT_BASE);
		out->family_count = cpu_to_le16(NR_syscalls);
	}
	/* spec 20.1: the first @keep fixed fields, the variable ones */
	for (i = 0; i < n; i++) {
		const struct gr_field_def *f = &fields[i];

		if (i < keep || gr_field_is_var(f))
			gr_field_desc_fill(&out->fields[d++], f, i);
		else if (ext)
			gr_field_desc_fill(&ext->fields[i - keep], f, i);
		if (strlen(f->name) < GR_FIELD_NAME_LEN)
			continue;
		lng = true;
		if (ext && k < GR_LONG_FIELD_NAMES) {
			ext->long_names[k].field = i;
			strscpy(ext->long_names[k].name, f->name,
				sizeof(ext->long_names[k].name));
			k++;
		}
	}
	if (!ext || !lng)
		return;
	ext->flags = cpu_to_le16(GR_DESC_EXT_F_USED);
	ext->nr_fields = cpu_to_le16(n);
	ext->nr_long_names = k;
	strscpy(ext->name, def->name, sizeof(ext->name));
	strscpy(ext->system, def->system, sizeof(ext->system));
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
		if (!tps[i] && gr_event_defs[i].tp_name &&
		    !strcmp(tp->name, gr_event_defs[i].tp_name))
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

	for_each_kernel_tracepoint(gr_tp_match, gr_tps);
	for (i = 0; i < GR_NR_EVENTS; i++)
		if (gr_event_defs[i].tp_name && !gr_tps[i])
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
	return id < GR_NR_EVENTS &&
	       (gr_tps[id] || !gr_event_defs[id].tp_name);
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
	if (!gr_event_defs[id].tp_name)
		return 0;	/* a state-dump event: nothing to attach */
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
