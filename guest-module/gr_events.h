/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_events.h - the events guestrelay records: table, ids and probes
 *
 * Every event the module can record has one entry in gr_events_table.h,
 * from which gr_events.c generates its payload struct, its field
 * descriptor table, its probe (unless hand-written) and its entry in
 * gr_event_defs[]. The index of the entry is the event id written in
 * struct gr_event_header and used as the bit number in the host's enable
 * mask. The field offsets and sizes come from the payload struct, never
 * typed by hand, and gr_event_desc_fill() turns an entry into the struct
 * gr_event_desc the host reads, so the host decodes records without any
 * file from the guest.
 * Event names are this kernel's tracepoint names (sys_enter, kmalloc,
 * softirq_entry, ...), not LTTng's renamed ones (syscall_entry_*,
 * kmem_kmalloc, irq_softirq_entry): the host's CTF metadata renames them
 * (spec 7.5); field names follow the LTTng kernel tracer (prev_tid,
 * next_tid, ...); values follow what this kernel's ftrace events record,
 * except priorities, recorded as lttng-modules records them (gr_prio()).
 * The build-time checks of the table are in gr_events.c.
 *
 * Attach model: a probe is attached to its tracepoint the first time its
 * event is enabled (gr_event_attach()) and stays attached until the module
 * is unloaded (gr_events_detach_all()). Enabling and disabling an event
 * afterwards only flips the enable bit that gr_rec_begin() tests before
 * the probe does anything else. Registering and unregistering
 * tracepoint probes patches kernel text; under load this freezes
 * multi-threaded TCG guests (see DESIGN.md), so it is done as rarely as
 * possible.
 *
 * Tracepoints are found by name with for_each_kernel_tracepoint(): most
 * __tracepoint_* symbols are not exported to modules on 6.1. A tracepoint
 * this kernel lacks makes its event unavailable, not the module fail.
 *
 * Locking: gr_event_attach() and gr_events_detach_all() serialize on a
 * mutex of this file and may sleep. The probes take no lock, never sleep
 * and never allocate; they run in whatever context their tracepoint fires
 * in (task, softirq, hard irq).
 */
#ifndef _GR_EVENTS_H
#define _GR_EVENTS_H

#include <linux/interrupt.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <linux/unistd.h>
#include <asm/syscall.h>
#include "guestrelay_abi.h"

/*
 * The entry macros of gr_events_table.h wrap their lists in these, so
 * that each list is one macro argument; GR_UNPAREN() takes them out.
 */
#define GR_PROTO(...)		(__VA_ARGS__)
#define GR_ASSIGN(...)		(__VA_ARGS__)
#define GR_FIELDS(...)		__VA_ARGS__
#define GR_UNPAREN(...)		__VA_ARGS__

/* Event ids: GR_EV_<name>, the index of the entry in gr_events_table.h */
#define GR_EVENT(call, sys, proto, fields, assign)	GR_EV_##call,
#define GR_EVENT_AS(call, sys, pl, proto, assign)	GR_EV_##call,
#define GR_EVENT_STR(call, sys, fields, str, len)	GR_EV_##call,
#define GR_DUMP(call, sys, fields)			GR_EV_##call,
#define GR_DUMP_STR(call, sys, fields, str, len)	GR_EV_##call,
enum gr_event_id {
#include "gr_events_table.h"
	GR_NR_EVENTS
};

static_assert(GR_NR_EVENTS <= GR_MAX_EVENTS, "too many events");

/*
 * Ids after the table's for events found by name at load or added at
 * run time (gr_anyevent.c, issue 25): GR_NR_EVENTS + k for the k-th,
 * fewer than this many: every id the wide area's enable bits reach
 * (spec 19, GR_WIDE_MAX_EVENTS); a host without GR_F_WIDE_EVENTS, or a
 * region without the wide area, reaches the first GR_MAX_EVENTS (spec
 * 18.2 N1). The system call families start after them, so their bases
 * stay constants.
 */
#define GR_ANYEVENT_SLOTS	(GR_WIDE_MAX_EVENTS - GR_NR_EVENTS)
static_assert(GR_NR_EVENTS + GR_ANYEVENT_SLOTS <= GR_WIDE_MAX_EVENTS,
	      "room for the events found by name");

/*
 * Event families (spec 7.2, v1.2 GR_F_SYSCALLS, x86_64 only): sys_enter
 * of native system call nr may be written as record id
 * GR_SYS_ENTER_BASE + nr, sys_exit as GR_SYS_EXIT_BASE + nr, one CTF
 * event per call. The driver publishes GR_EVENTS_FEATURES with its own.
 */
#ifdef CONFIG_X86_64
#define GR_EVENTS_FEATURES	GR_F_SYSCALLS
#else
#define GR_EVENTS_FEATURES	0
#endif
#define GR_SYS_ENTER_BASE	(GR_NR_EVENTS + GR_ANYEVENT_SLOTS)
#define GR_SYS_EXIT_BASE	(GR_SYS_ENTER_BASE + NR_syscalls)
static_assert(NR_syscalls <= GR_MAX_FAMILY, "a family per system call");
/* the reference host's cap on record ids (spec H30) */
static_assert(GR_SYS_EXIT_BASE + NR_syscalls <= 4096, "record ids");

void gr_events_set_families(u64 host_features);

/**
 * struct gr_field_def - one payload field, as published to the host
 * @name: field name, [a-z_][a-z0-9_]*, shorter than GR_FIELD_NAME_LEN
 * @offset: byte offset in the payload
 * @size: bytes (GR_FIELD_STRING: maximum, NUL included; GR_FIELD_SEQUENCE:
 *	maximum)
 * @type: GR_FIELD_INTEGER, GR_FIELD_CHARS, GR_FIELD_STRING or
 *	GR_FIELD_SEQUENCE (v1.11, events by name only)
 * @flags: GR_FIELD_F_SIGNED, GR_FIELD_F_HEX (integers and elements)
 * @elem_size: GR_FIELD_SEQUENCE: bytes of an element; else 0
 * @len_field: GR_FIELD_SEQUENCE: index of the field with the count
 */
struct gr_field_def {
	const char *name;
	u16 offset;
	u16 size;
	u8 type;
	u8 flags;
	u8 elem_size;
	u8 len_field;
};

/**
 * struct gr_event_def - one event the module can record
 * @name: event name published to the host, e.g. "sched_switch"
 * @system: tracepoint system, e.g. "sched"
 * @tp_name: name of the kernel tracepoint the probe attaches to, NULL
 *	for a state-dump event (recorded by gr_dump.c, nothing to attach)
 * @probe: the probe, with the exact prototype of that tracepoint
 * @payload_size: payload bytes (the maximum if GR_EVENT_F_VARLEN)
 * @flags: GR_EVENT_F_VARLEN if the last field is a GR_FIELD_STRING and
 *	records are cut after its NUL
 * @fields: returns the payload layout, in offset order, and stores the
 *	number of fields in its argument
 */
struct gr_event_def {
	const char *name;
	const char *system;
	const char *tp_name;
	void *probe;
	u16 payload_size;
	u16 flags;
	const struct gr_field_def *(*fields)(unsigned int *nr);
};

/* The event table, indexed by enum gr_event_id; gr_nr_event_defs entries */
extern const struct gr_event_def gr_event_defs[];
extern const unsigned int gr_nr_event_defs;

void gr_event_desc_fill(const struct gr_event_def *def, unsigned int id,
			struct gr_event_desc *out);
void gr_event_desc_fill_fields(const struct gr_event_def *def,
			       const struct gr_field_def *fields,
			       unsigned int n, unsigned int id,
			       struct gr_event_desc *out,
			       struct gr_event_desc_ext *ext);
void gr_desc_short_name(char *dst, size_t len, const char *name,
			unsigned int idx);
int gr_events_init(void);

/*
 * A task priority as lttng-modules records it (and Trace Compass reads
 * it): p->prio - MAX_RT_PRIO, so 20 is nice 0 and RT priorities are
 * negative. Also what the benchmark's floor records (tests/bench/grbench).
 */
static __always_inline int gr_prio(int prio)
{
	return prio - MAX_RT_PRIO;
}

/*
 * prev_state as the 6.1 sched_switch event records it: TASK_REPORT_MAX
 * for a preempted task (printed "R+"), else the reported state bit of
 * @prev_state and the exit state (0 for a runnable task). Also what the
 * benchmark's floor records (tests/bench/grbench).
 */
static __always_inline long gr_switch_state(bool preempt,
					    unsigned int prev_state,
					    const struct task_struct *prev)
{
	unsigned int idx;

	if (preempt)
		return TASK_REPORT_MAX;
	idx = __task_state_index(prev_state, prev->exit_state);
	return idx ? 1L << (idx - 1) : 0;
}

/*
 * The six argument registers of a system call into @dst[0..5], as
 * sys_enter records them (arg0 ... arg5, consecutive). Also what the
 * benchmark's floor records (tests/bench/grbench).
 */
static __always_inline void gr_syscall_args_fill(__le64 *dst,
						 struct pt_regs *regs)
{
	unsigned long args[6];
	unsigned int i;

	syscall_get_arguments(current, regs, args);
	for (i = 0; i < 6; i++)
		dst[i] = cpu_to_le64(args[i]);
}

/* State-dump records (gr_events.c), written by the walk of gr_dump.c */
void gr_dump_rec_mark(unsigned int id);
void gr_dump_rec_thread(struct task_struct *p);
void gr_dump_rec_irq(unsigned int irq, const char *chip,
		     const struct irqaction *action);
void gr_dump_rec_blockdev(u32 devt, const char *name);
/* A vmsync record of a clock-sync round (gr_events.c, spec 9.8) */
void gr_vmsync_rec(unsigned int id, u64 cnt, u64 vm_uid);

bool gr_event_available(unsigned int id);
int gr_event_attach(unsigned int id);
void gr_events_detach_all(void);

#endif /* _GR_EVENTS_H */
