/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_anyevent: record any trace event of this kernel, found by
 * "system:name" at load (issue 25) or at run time (spec 18), through an in-kernel perf counter per
 * CPU whose overflow handler copies the event's raw entry into the ring.
 * Its ids follow the table's (GR_NR_EVENTS + k); the gr_desc_*()
 * functions answer for every id of the descriptor table, the table's
 * events and these alike.
 */
#ifndef GR_ANYEVENT_H
#define GR_ANYEVENT_H

#include "gr_events.h"
#include "gr_format.h"
#include "gr_name_text.h"
/*
 * Payload bytes the scratch buffers of spec 17 hold at least: an event
 * added at run time is aggregated while not recorded if its payload fits
 * (a fixed part of 256 bytes and a string)
 */
#define GR_ANYEVENT_SCRATCH	(256 + GR_ANYEVENT_STR_MAX)

void gr_anyevent_init(void);
void gr_anyevent_exit(void);
unsigned int gr_anyevent_nr(void);
int gr_anyevent_published(const char *system, const char *name, bool *native);
int gr_anyevent_check_named(const char *system, const char *name,
			    const struct gr_name_field *ff, unsigned int nff,
			    unsigned int capacity);
bool gr_anyevent_by_format(const char *system, const char *name);
int gr_anyevent_add_named(const char *system, const char *name,
			  const struct gr_name_field *ff, unsigned int nff,
			  unsigned int capacity,
			  struct gr_event_desc_long *desc,
			  void (*write)(unsigned int id,
					const struct gr_event_desc_long *desc,
					void *arg),
			  void *arg);
void gr_anyevent_unpublish(void);
void gr_anyevent_host(u64 host_features, bool long_slots);
bool gr_anyevent_taken(const char *name);
int gr_anyevent_probe_stop(unsigned int id);
int gr_anyevent_probe_retake(unsigned int id, const char *system,
			     const char *name, const struct gr_name_field *ff,
			     unsigned int nff);

/*
 * Descriptors of a publication (its desc_count): the table's events, then
 * those found by name at load
 */
static inline unsigned int gr_desc_count(void)
{
	return gr_nr_event_defs + gr_anyevent_nr();
}

/*
 * Slots a layout keeps for descriptors: desc_capacity when they fit (spec
 * 18.2 N1), every id the control block's enable reaches; wide_capacity
 * when the region holds them (spec 19.2 W1), the table's then
 * GR_ANYEVENT_SLOTS for events by name, up to the syscall families' base
 * (spec 7.2)
 */
#define GR_DESC_CAPACITY	GR_MAX_EVENTS
#define GR_WIDE_CAPACITY	(GR_NR_EVENTS + GR_ANYEVENT_SLOTS)
static_assert(GR_WIDE_CAPACITY <= GR_SYS_ENTER_BASE, "capacity > family_base");
static_assert(GR_DESC_CAPACITY <= GR_WIDE_CAPACITY, "wide below narrow");

unsigned int gr_desc_live(void);

const struct gr_event_def *gr_desc_def(unsigned int id,
				       const struct gr_field_def **fields,
				       unsigned int *nr);
void gr_desc_fill(unsigned int id, struct gr_event_desc *out,
		  struct gr_event_desc_ext *ext);
int gr_desc_attach(unsigned int id);

#endif
