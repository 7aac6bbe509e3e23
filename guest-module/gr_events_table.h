/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_events_table.h - every event guestrelay records, one entry each
 *
 * No include guard: like the kernel's trace/define_trace.h, this table is
 * included several times, each time with other definitions of the entry
 * macros (gr_events.h: the event ids; gr_events.c: the payload structs,
 * the probes, the field descriptor tables, the event table). It undefines
 * them at its end. The order of the entries is the event id, the bit in
 * the host's enable mask: append, never reorder.
 *
 *   GR_EVENT(call, system, GR_PROTO(...), GR_FIELDS(...), GR_ASSIGN(...))
 *	an event of its own payload struct gr_ev_<call>; the probe is
 *	generated: gr_rec_begin(), GR_ASSIGN's statements (the payload is
 *	"ev", the tracepoint's arguments are GR_PROTO's), gr_rec_commit()
 *   GR_EVENT_AS(call, system, payload, GR_PROTO(...), GR_ASSIGN(...))
 *	the same with the payload of event <payload> (one class of events)
 *   GR_EVENT_STR(call, system, GR_FIELDS(...), string, size)
 *	payload GR_FIELDS plus a trailing NUL-terminated string of at most
 *	@size bytes, cut after its NUL (GR_EVENT_F_VARLEN); the probe
 *	gr_probe_<call> is hand-written in gr_events.c
 *
 *   GR_DUMP(call, system, GR_FIELDS(...))
 *   GR_DUMP_STR(call, system, GR_FIELDS(...), string, size)
 *	a state-dump event (gr_dump.c): no tracepoint, no probe; its
 *	records are written by the gr_dump_rec_*() functions of
 *	gr_events.c. An includer that leaves these two undefined skips them.
 *
 * Fields: GR_INT(type, member, flags) with type __le16/__le32/__le64 and
 * flags GR_SIGNED, GR_HEX or 0; GR_CHARS(member, size), NUL-padded text.
 * The tracepoint is the one named <call>; the probe's prototype is
 * checked against it at build time. Payload rules: see gr_events.c.
 * Priorities are recorded as lttng-modules records them, gr_prio():
 * p->prio - MAX_RT_PRIO (0..39 for nice -20..19, negative for RT).
 */

#ifndef GR_DUMP
#define GR_DUMP(call, sys, fields)
#endif
#ifndef GR_DUMP_STR
#define GR_DUMP_STR(call, sys, fields, str, len)
#endif

/* ---- sched ------------------------------------------------------------ */

GR_EVENT(sched_switch, sched,
	 GR_PROTO(bool preempt, struct task_struct *prev,
		  struct task_struct *next, unsigned int prev_state),
	 GR_FIELDS(GR_CHARS(prev_comm, TASK_COMM_LEN)
		   GR_INT(__le32, prev_tid, GR_SIGNED)
		   GR_INT(__le32, prev_prio, GR_SIGNED)
		   GR_INT(__le64, prev_state, GR_SIGNED)
		   GR_CHARS(next_comm, TASK_COMM_LEN)
		   GR_INT(__le32, next_tid, GR_SIGNED)
		   GR_INT(__le32, next_prio, GR_SIGNED)),
	 GR_ASSIGN(gr_copy_comm(&ev->prev_comm, prev->comm);
		   ev->prev_tid = cpu_to_le32(task_pid_nr(prev));
		   ev->prev_prio = cpu_to_le32(gr_prio(prev->prio));
		   ev->prev_state = cpu_to_le64(gr_switch_state(preempt,
								prev_state,
								prev));
		   gr_copy_comm(&ev->next_comm, next->comm);
		   ev->next_tid = cpu_to_le32(task_pid_nr(next));
		   ev->next_prio = cpu_to_le32(gr_prio(next->prio))))

GR_EVENT(sched_wakeup, sched,
	 GR_PROTO(struct task_struct *p),
	 GR_FIELDS(GR_CHARS(comm, TASK_COMM_LEN)
		   GR_INT(__le32, tid, GR_SIGNED)
		   GR_INT(__le32, prio, GR_SIGNED)
		   GR_INT(__le32, target_cpu, GR_SIGNED)),
	 GR_ASSIGN(gr_wakeup_fill(ev, p)))

GR_EVENT_AS(sched_wakeup_new, sched, sched_wakeup,
	    GR_PROTO(struct task_struct *p),
	    GR_ASSIGN(gr_wakeup_fill(ev, p)))

/*
 * *_tid are thread ids, *_pid process (thread group) ids, so a new thread
 * (child_tid != child_pid) is told from a new process.
 */
GR_EVENT(sched_process_fork, sched,
	 GR_PROTO(struct task_struct *parent, struct task_struct *child),
	 GR_FIELDS(GR_CHARS(parent_comm, TASK_COMM_LEN)
		   GR_INT(__le32, parent_tid, GR_SIGNED)
		   GR_INT(__le32, parent_pid, GR_SIGNED)
		   GR_CHARS(child_comm, TASK_COMM_LEN)
		   GR_INT(__le32, child_tid, GR_SIGNED)
		   GR_INT(__le32, child_pid, GR_SIGNED)),
	 GR_ASSIGN(gr_copy_comm(&ev->parent_comm, parent->comm);
		   ev->parent_tid = cpu_to_le32(task_pid_nr(parent));
		   ev->parent_pid = cpu_to_le32(task_tgid_nr(parent));
		   gr_copy_comm(&ev->child_comm, child->comm);
		   ev->child_tid = cpu_to_le32(task_pid_nr(child));
		   ev->child_pid = cpu_to_le32(task_tgid_nr(child))))

/*
 * filename is bprm->filename, at most 255 chars kept; old_tid is the
 * thread id before exec (a thread that execs takes the thread group
 * leader's id).
 */
GR_EVENT_STR(sched_process_exec, sched,
	     GR_FIELDS(GR_INT(__le32, tid, GR_SIGNED)
		       GR_INT(__le32, old_tid, GR_SIGNED)),
	     filename, 256)

GR_EVENT(sched_process_exit, sched,
	 GR_PROTO(struct task_struct *p),
	 GR_FIELDS(GR_CHARS(comm, TASK_COMM_LEN)
		   GR_INT(__le32, tid, GR_SIGNED)
		   GR_INT(__le32, prio, GR_SIGNED)),
	 GR_ASSIGN(gr_process_fill(ev, p)))

GR_EVENT(sched_migrate_task, sched,
	 GR_PROTO(struct task_struct *p, int dest_cpu),
	 GR_FIELDS(GR_CHARS(comm, TASK_COMM_LEN)
		   GR_INT(__le32, tid, GR_SIGNED)
		   GR_INT(__le32, prio, GR_SIGNED)
		   GR_INT(__le32, orig_cpu, GR_SIGNED)
		   GR_INT(__le32, dest_cpu, GR_SIGNED)),
	 GR_ASSIGN(gr_copy_comm(&ev->comm, p->comm);
		   ev->tid = cpu_to_le32(task_pid_nr(p));
		   ev->prio = cpu_to_le32(gr_prio(p->prio));
		   ev->orig_cpu = cpu_to_le32(task_cpu(p));
		   ev->dest_cpu = cpu_to_le32(dest_cpu)))

/* ---- irq -------------------------------------------------------------- */

/* name: the irqaction's name, "" if it has none; at most 31 chars kept */
GR_EVENT_STR(irq_handler_entry, irq,
	     GR_FIELDS(GR_INT(__le32, irq, GR_SIGNED)),
	     name, 32)

/* ret: the irqreturn_t of the handler (1: handled, 0: not ours) */
GR_EVENT(irq_handler_exit, irq,
	 GR_PROTO(int irq, struct irqaction *action, int ret),
	 GR_FIELDS(GR_INT(__le32, irq, GR_SIGNED)
		   GR_INT(__le32, ret, GR_SIGNED)),
	 GR_ASSIGN(ev->irq = cpu_to_le32(irq);
		   ev->ret = cpu_to_le32(ret)))

/* vec is the *_SOFTIRQ number */
GR_EVENT(softirq_entry, irq,
	 GR_PROTO(unsigned int vec_nr),
	 GR_FIELDS(GR_INT(__le32, vec, 0)),
	 GR_ASSIGN(ev->vec = cpu_to_le32(vec_nr)))

GR_EVENT_AS(softirq_exit, irq, softirq_entry,
	    GR_PROTO(unsigned int vec_nr),
	    GR_ASSIGN(ev->vec = cpu_to_le32(vec_nr)))

/* ---- raw_syscalls ----------------------------------------------------- */

/*
 * the syscall number and its six argument registers; a native call's
 * record carries its family member's id (spec 7.2, gr_sys_member())
 */
GR_EVENT(sys_enter, raw_syscalls,
	 GR_PROTO(struct pt_regs *regs, long id),
	 GR_FIELDS(GR_INT(__le64, id, GR_SIGNED)
		   GR_INT(__le64, arg0, GR_HEX)
		   GR_INT(__le64, arg1, GR_HEX)
		   GR_INT(__le64, arg2, GR_HEX)
		   GR_INT(__le64, arg3, GR_HEX)
		   GR_INT(__le64, arg4, GR_HEX)
		   GR_INT(__le64, arg5, GR_HEX)),
	 GR_ASSIGN(ev->id = cpu_to_le64(id);
		   gr_syscall_args(ev, regs);
		   gr_sys_member(ev, GR_SYS_ENTER_BASE, id)))

GR_EVENT(sys_exit, raw_syscalls,
	 GR_PROTO(struct pt_regs *regs, long ret),
	 GR_FIELDS(GR_INT(__le64, id, GR_SIGNED)
		   GR_INT(__le64, ret, GR_SIGNED)),
	 GR_ASSIGN(ev->id = cpu_to_le64(syscall_get_nr(current, regs));
		   ev->ret = cpu_to_le64(ret);
		   gr_sys_member(ev, GR_SYS_EXIT_BASE,
				 syscall_get_nr(current, regs))))

/* ---- block ------------------------------------------------------------ */

/*
 * As lttng-modules' block_rq class records them, which Trace Compass's
 * Disk I/O analysis reads: sector and nr_sector are 0 for passthrough
 * requests; tid and comm are the current task's; rwbs is lttng-modules'
 * flag set (gr_rwbs_flags(), spec 7.5), not ftrace's text, in 64 bits
 * (lttng-modules: 32) so that the payload needs no padding.
 */
GR_EVENT(block_rq_issue, block,
	 GR_PROTO(struct request *rq),
	 GR_FIELDS(GR_INT(__le32, dev, 0)
		   GR_INT(__le32, tid, GR_SIGNED)
		   GR_INT(__le64, sector, 0)
		   GR_INT(__le32, nr_sector, 0)
		   GR_INT(__le32, bytes, 0)
		   GR_INT(__le64, rwbs, 0)
		   GR_CHARS(comm, TASK_COMM_LEN)),
	 GR_ASSIGN(gr_rq_fill(ev, rq)))

/*
 * error is an errno (0 on success); nr_sector is bytes >> 9, bytes the
 * bytes completed by this call.
 */
GR_EVENT(block_rq_complete, block,
	 GR_PROTO(struct request *rq, blk_status_t error,
		  unsigned int nr_bytes),
	 GR_FIELDS(GR_INT(__le32, dev, 0)
		   GR_INT(__le32, error, GR_SIGNED)
		   GR_INT(__le64, sector, 0)
		   GR_INT(__le32, nr_sector, 0)
		   GR_INT(__le32, bytes, 0)
		   GR_INT(__le64, rwbs, 0)),
	 GR_ASSIGN(ev->dev = cpu_to_le32(gr_rq_dev(rq));
		   ev->error = cpu_to_le32(blk_status_to_errno(error));
		   ev->sector = cpu_to_le64(blk_rq_pos(rq));
		   ev->nr_sector = cpu_to_le32(nr_bytes >> SECTOR_SHIFT);
		   ev->bytes = cpu_to_le32(nr_bytes);
		   ev->rwbs = cpu_to_le64(gr_rwbs_flags(rq->cmd_flags))))

/* ---- net -------------------------------------------------------------- */

/*
 * skbaddr identifies the buffer only (it may be freed already); len is
 * the length before transmission, rc the driver's netdev_tx_t or a
 * negative errno. name is copied with strscpy_pad(): dev->name is not
 * kept NUL-padded across renames.
 */
GR_EVENT(net_dev_xmit, net,
	 GR_PROTO(struct sk_buff *skb, int rc, struct net_device *dev,
		  unsigned int skb_len),
	 GR_FIELDS(GR_INT(__le64, skbaddr, GR_HEX)
		   GR_INT(__le32, rc, GR_SIGNED)
		   GR_INT(__le32, len, 0)
		   GR_CHARS(name, IFNAMSIZ)),
	 GR_ASSIGN(ev->skbaddr = cpu_to_le64((unsigned long)skb);
		   ev->rc = cpu_to_le32(rc);
		   ev->len = cpu_to_le32(skb_len);
		   gr_copy_ifname(&ev->name, dev)))

/*
 * protocol is the ethertype (ETH_P_*), host order. Then the packet's
 * IPv4 or IPv6 and TCP headers (gr_net_fill(), spec 7.5 "Network
 * events"), flat, host order: network_header_type 0 none, 1 IPv4, 2
 * IPv6 (lttng-modules' values); ip_protocol the IPv4 protocol or IPv6
 * next header; transport_header_type 0 none, 1 TCP; th_* the TCP
 * header's ports, sequence and acknowledgment numbers and its 9 flag
 * bits (NS to FIN); ip_saddr/daddr the 128-bit address as two halves,
 * IPv4 as ::ffff:a.b.c.d. What is not parsed is 0. The host declares
 * the run network_header_type .. ip_daddr_lo as lttng-modules' nested
 * network_header variant, which Trace Compass reads.
 */
GR_EVENT(netif_receive_skb, net,
	 GR_PROTO(struct sk_buff *skb),
	 GR_FIELDS(GR_INT(__le64, skbaddr, GR_HEX)
		   GR_INT(__le32, len, 0)
		   GR_INT(__le32, protocol, GR_HEX)
		   GR_CHARS(name, IFNAMSIZ)
		   GR_INT(__le16, network_header_type, 0)
		   GR_INT(__le16, ip_protocol, 0)
		   GR_INT(__le32, transport_header_type, 0)
		   GR_INT(__le16, th_source_port, 0)
		   GR_INT(__le16, th_dest_port, 0)
		   GR_INT(__le32, th_seq, 0)
		   GR_INT(__le32, th_ack_seq, 0)
		   GR_INT(__le32, th_flags, GR_HEX)
		   GR_INT(__le64, ip_saddr_hi, GR_HEX)
		   GR_INT(__le64, ip_saddr_lo, GR_HEX)
		   GR_INT(__le64, ip_daddr_hi, GR_HEX)
		   GR_INT(__le64, ip_daddr_lo, GR_HEX)),
	 GR_ASSIGN(gr_net_fill(ev, skb, 0)))

/* ---- kmem ------------------------------------------------------------- */

/* pfn is -1 (all ones) when the allocation failed */
GR_EVENT(mm_page_alloc, kmem,
	 GR_PROTO(struct page *page, unsigned int order, gfp_t gfp_flags,
		  int migratetype),
	 GR_FIELDS(GR_INT(__le64, page, GR_HEX)
		   GR_INT(__le64, pfn, GR_HEX)
		   GR_INT(__le64, gfp_flags, GR_HEX)
		   GR_INT(__le32, order, 0)
		   GR_INT(__le32, migratetype, GR_SIGNED)),
	 GR_ASSIGN(ev->page = cpu_to_le64((unsigned long)page);
		   ev->pfn = cpu_to_le64(page ? page_to_pfn(page) : -1UL);
		   ev->gfp_flags = cpu_to_le64((__force unsigned long)gfp_flags);
		   ev->order = cpu_to_le32(order);
		   ev->migratetype = cpu_to_le32(migratetype)))

/* accounted is 1 if charged to a memory cgroup (__GFP_ACCOUNT) */
GR_EVENT(kmalloc, kmem,
	 GR_PROTO(unsigned long call_site, const void *ptr, size_t bytes_req,
		  size_t bytes_alloc, gfp_t gfp_flags, int node),
	 GR_FIELDS(GR_INT(__le64, call_site, GR_HEX)
		   GR_INT(__le64, ptr, GR_HEX)
		   GR_INT(__le64, bytes_req, 0)
		   GR_INT(__le64, bytes_alloc, 0)
		   GR_INT(__le64, gfp_flags, GR_HEX)
		   GR_INT(__le32, node, GR_SIGNED)
		   GR_INT(__le32, accounted, 0)),
	 GR_ASSIGN(ev->call_site = cpu_to_le64(call_site);
		   ev->ptr = cpu_to_le64((unsigned long)ptr);
		   ev->bytes_req = cpu_to_le64(bytes_req);
		   ev->bytes_alloc = cpu_to_le64(bytes_alloc);
		   ev->gfp_flags = cpu_to_le64((__force unsigned long)gfp_flags);
		   ev->node = cpu_to_le32(node);
		   ev->accounted = cpu_to_le32(IS_ENABLED(CONFIG_MEMCG_KMEM) &&
					       (gfp_flags & __GFP_ACCOUNT))))

GR_EVENT(kfree, kmem,
	 GR_PROTO(unsigned long call_site, const void *ptr),
	 GR_FIELDS(GR_INT(__le64, call_site, GR_HEX)
		   GR_INT(__le64, ptr, GR_HEX)),
	 GR_ASSIGN(ev->call_site = cpu_to_le64(call_site);
		   ev->ptr = cpu_to_le64((unsigned long)ptr)))

/* ---- sched, appended ------------------------------------------------- */

/* before the wakeup, on the waker's CPU (Trace Compass's LTTng 2.8+) */
GR_EVENT_AS(sched_waking, sched, sched_wakeup,
	    GR_PROTO(struct task_struct *p),
	    GR_ASSIGN(gr_wakeup_fill(ev, p)))

/* the task_struct is freed: its tid may be reused from now on */
GR_EVENT_AS(sched_process_free, sched, sched_process_exit,
	    GR_PROTO(struct task_struct *p),
	    GR_ASSIGN(gr_process_fill(ev, p)))

/* newprio: the priority inherited from @pi_task, else the task's own */
GR_EVENT(sched_pi_setprio, sched,
	 GR_PROTO(struct task_struct *tsk, struct task_struct *pi_task),
	 GR_FIELDS(GR_CHARS(comm, TASK_COMM_LEN)
		   GR_INT(__le32, tid, GR_SIGNED)
		   GR_INT(__le32, oldprio, GR_SIGNED)
		   GR_INT(__le32, newprio, GR_SIGNED)),
	 GR_ASSIGN(gr_copy_comm(&ev->comm, tsk->comm);
		   ev->tid = cpu_to_le32(task_pid_nr(tsk));
		   ev->oldprio = cpu_to_le32(gr_prio(tsk->prio));
		   ev->newprio = cpu_to_le32(gr_prio(pi_task ? pi_task->prio :
							     tsk->prio))))

/* ---- lttng_statedump: the state at session start (gr_dump.c) ---------- */

/*
 * Names, fields and values as lttng-modules writes them, so that trace
 * viewers rebuild the threads, interrupts and disks that existed before
 * the first event: start and end bracket one dump.
 */
GR_DUMP(lttng_statedump_start, lttng_statedump, GR_FIELDS())

/*
 * One per thread. type: 0 user thread, 1 kernel thread; mode 5
 * (unknown) and submode 0 (none), as lttng-modules; status: 1 new (not
 * run yet), 2 runnable or running, 4 zombie, 5 waiting, 7 dead, 0 other.
 */
GR_DUMP(lttng_statedump_process_state, lttng_statedump,
	GR_FIELDS(GR_INT(__le32, tid, GR_SIGNED)
		  GR_INT(__le32, pid, GR_SIGNED)
		  GR_INT(__le32, ppid, GR_SIGNED)
		  GR_CHARS(name, TASK_COMM_LEN)
		  GR_INT(__le32, type, GR_SIGNED)
		  GR_INT(__le32, mode, GR_SIGNED)
		  GR_INT(__le32, submode, GR_SIGNED)
		  GR_INT(__le32, status, GR_SIGNED)
		  GR_INT(__le32, cpu, 0)))

/*
 * One per handler: name is the irq chip's, action the handler's name
 * (at most 31 chars each), tid its irq thread's (0 if none).
 */
GR_DUMP(lttng_statedump_interrupt, lttng_statedump,
	GR_FIELDS(GR_INT(__le32, irq, 0)
		  GR_CHARS(name, 32)
		  GR_CHARS(action, 32)
		  GR_INT(__le32, tid, GR_SIGNED)))

/* One per disk and partition of non-zero size; dev as block_rq_* */
GR_DUMP_STR(lttng_statedump_block_device, lttng_statedump,
	    GR_FIELDS(GR_INT(__le32, dev, 0)),
	    diskname, 32)

GR_DUMP(lttng_statedump_end, lttng_statedump, GR_FIELDS())

/* ---- vmsync: the clock-sync messages for Trace Compass (gr_pass.c) ---- */

/*
 * Spec 9.8: the host's request received (hg) and the guest's answer
 * sent (gh), keyed by cnt and vm_uid as Trace Compass matches them with
 * the host stream's vmsync_hg_host and vmsync_gh_host. Written by
 * gr_vmsync_rec(), no tracepoint.
 */
GR_DUMP(vmsync_hg_guest, vmsync,
	GR_FIELDS(GR_INT(__le64, cnt, 0)
		  GR_INT(__le64, vm_uid, 0)))

GR_DUMP(vmsync_gh_guest, vmsync,
	GR_FIELDS(GR_INT(__le64, cnt, 0)
		  GR_INT(__le64, vm_uid, 0)))

/* ---- block, appended ------------------------------------------------- */

/*
 * The request enters the I/O scheduler or the dispatch list: where Trace
 * Compass's Disk I/O analysis starts a request's wait (issue 25)
 */
GR_EVENT_AS(block_rq_insert, block, block_rq_issue,
	    GR_PROTO(struct request *rq),
	    GR_ASSIGN(gr_rq_fill(ev, rq)))

/* ---- net, appended --------------------------------------------------- */

/*
 * A packet handed to a device's queue (dev_queue_xmit()), with the
 * payload of netif_receive_skb: where Trace Compass's network analyses
 * take a packet sent, keyed by its TCP header (issue 25). The headers
 * are found at the skb's network header offset.
 */
GR_EVENT_AS(net_dev_queue, net, netif_receive_skb,
	    GR_PROTO(struct sk_buff *skb),
	    GR_ASSIGN(gr_net_fill(ev, skb, skb_network_offset(skb))))

/* ---- irq_vectors, appended ------------------------------------------- */

/*
 * The end of an irq_work interrupt (x86), as ftrace records it. The
 * path by name cannot record it: perf refuses to sample it, since the
 * perf interrupt's own irq_work fires it (TRACE_EVENT_PERF_PERM); a
 * probe of the table records it as any other (issue 25). guestrelay's
 * own record path queues no irq_work, so recording it does not feed it.
 */
GR_EVENT(irq_work_exit, irq_vectors,
	 GR_PROTO(int vector),
	 GR_FIELDS(GR_INT(__le32, vector, GR_SIGNED)),
	 GR_ASSIGN(ev->vector = cpu_to_le32(vector)))

#undef GR_EVENT
#undef GR_EVENT_AS
#undef GR_EVENT_STR
#undef GR_DUMP
#undef GR_DUMP_STR
#undef GR_INT
#undef GR_CHARS
