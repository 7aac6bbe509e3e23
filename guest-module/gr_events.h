/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_events.h - the events guestrelay records: table, ids and probes
 *
 * Every event the module can record has one entry in gr_event_defs[]; its
 * index is the event id written in struct gr_event_header and used as the
 * bit number in the host's enable mask. An entry names the kernel
 * tracepoint it listens to, the probe attached to it and the layout of the
 * payload the probe writes. The layout is generated from the probe's
 * payload struct with offsetof()/sizeof_field(), never typed by hand, and
 * gr_event_desc_fill() turns an entry into the struct gr_event_desc the
 * host reads, so the host decodes records without any file from the guest.
 * Event names are this kernel's tracepoint names (sys_enter, kmalloc,
 * softirq_entry, ...), not LTTng's renamed ones (syscall_entry_*,
 * kmem_kmalloc, irq_softirq_entry); field names follow the LTTng kernel
 * tracer (prev_tid, next_tid, ...); values follow what this kernel's
 * ftrace events record. Payload structs, probes and the build-time checks
 * of the table are in gr_events.c.
 *
 * Attach model: a probe is attached to its tracepoint the first time its
 * event is enabled (gr_event_attach()) and stays attached until the module
 * is unloaded (gr_events_detach_all()). Enabling and disabling an event
 * afterwards only flips the enable bit that gr_event_on() tests, which the
 * probe checks before doing anything else. Registering and unregistering
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

#include <linux/stddef.h>
#include <linux/types.h>
#include "guestrelay_abi.h"

/* Event ids: the index of the event in gr_event_defs[]. */
enum gr_event_id {
	GR_EV_SCHED_SWITCH,
	GR_EV_SCHED_WAKEUP,
	GR_EV_SCHED_WAKEUP_NEW,
	GR_EV_SCHED_PROCESS_FORK,
	GR_EV_SCHED_PROCESS_EXEC,
	GR_EV_SCHED_PROCESS_EXIT,
	GR_EV_SCHED_MIGRATE_TASK,
	GR_EV_IRQ_HANDLER_ENTRY,
	GR_EV_IRQ_HANDLER_EXIT,
	GR_EV_SOFTIRQ_ENTRY,
	GR_EV_SOFTIRQ_EXIT,
	GR_EV_SYS_ENTER,
	GR_EV_SYS_EXIT,
	GR_EV_BLOCK_RQ_ISSUE,
	GR_EV_BLOCK_RQ_COMPLETE,
	GR_EV_NET_DEV_XMIT,
	GR_EV_NETIF_RECEIVE_SKB,
	GR_EV_MM_PAGE_ALLOC,
	GR_EV_KMALLOC,
	GR_EV_KFREE,
	GR_NR_EVENTS
};

static_assert(GR_NR_EVENTS <= GR_MAX_EVENTS, "too many events");

/**
 * struct gr_field_def - one payload field, as published to the host
 * @name: field name, [a-z_][a-z0-9_]*, shorter than GR_FIELD_NAME_LEN
 * @offset: byte offset in the payload
 * @size: bytes (GR_FIELD_STRING: maximum, NUL included)
 * @type: GR_FIELD_INTEGER, GR_FIELD_CHARS or GR_FIELD_STRING
 * @flags: GR_FIELD_F_SIGNED, GR_FIELD_F_HEX
 */
struct gr_field_def {
	const char *name;
	u16 offset;
	u16 size;
	u8 type;
	u8 flags;
};

/*
 * GR_FIELD() - the definition of field @member (the variadic argument) of
 * payload struct @st: offset and size come from the struct, never typed by
 * hand. @kind is INTEGER, CHARS or STRING (pasted onto GR_FIELD_), @fl a
 * mask of GR_FIELD_F_*. The member is variadic because it is expanded
 * three times, which checkpatch --strict reports for a named argument; a
 * member name has no side effects.
 */
#define GR_FIELD(st, kind, fl, ...) {					\
	.name = #__VA_ARGS__,						\
	.offset = offsetof(st, __VA_ARGS__),				\
	.size = sizeof_field(st, __VA_ARGS__),				\
	.type = GR_FIELD_##kind,					\
	.flags = (fl),							\
}

#define GR_INT_FIELD(st, fl, ...)	GR_FIELD(st, INTEGER, fl, __VA_ARGS__)
#define GR_CHARS_FIELD(st, ...)		GR_FIELD(st, CHARS, 0, __VA_ARGS__)
#define GR_STRING_FIELD(st, ...)	GR_FIELD(st, STRING, 0, __VA_ARGS__)

/**
 * struct gr_event_def - one event the module can record
 * @name: event name published to the host, e.g. "sched_switch"
 * @system: tracepoint system, e.g. "sched"
 * @tp_name: name of the kernel tracepoint the probe attaches to
 * @probe: the probe, with the exact prototype of that tracepoint
 * @payload_size: payload bytes (the maximum if GR_EVENT_F_VARLEN)
 * @flags: GR_EVENT_F_VARLEN if the last field is a GR_FIELD_STRING and
 *	records are cut after its NUL
 * @nr_fields: entries in @fields
 * @fields: payload layout, in offset order
 */
struct gr_event_def {
	const char *name;
	const char *system;
	const char *tp_name;
	void *probe;
	u16 payload_size;
	u16 flags;
	u16 nr_fields;
	const struct gr_field_def *fields;
};

/* The event table, indexed by enum gr_event_id; gr_nr_event_defs entries. */
extern const struct gr_event_def gr_event_defs[];
extern const unsigned int gr_nr_event_defs;

void gr_event_desc_fill(const struct gr_event_def *def, unsigned int id,
			struct gr_event_desc *out);
int gr_events_init(void);
bool gr_event_available(unsigned int id);
int gr_event_attach(unsigned int id);
void gr_events_detach_all(void);

#endif /* _GR_EVENTS_H */
