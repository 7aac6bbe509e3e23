/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_anyevent: record any trace event of this kernel, found by
 * "system:name" at load (issue 25), through an in-kernel perf counter per
 * CPU whose overflow handler copies the event's raw entry into the ring.
 * Its ids follow the table's (GR_NR_EVENTS + k); the gr_desc_*()
 * functions answer for every id of the descriptor table, the table's
 * events and these alike.
 */
#ifndef GR_ANYEVENT_H
#define GR_ANYEVENT_H

#include "gr_events.h"

/* Bytes of a __data_loc string kept, its NUL included */
#define GR_ANYEVENT_STR_MAX	256

void gr_anyevent_init(void);
void gr_anyevent_exit(void);
unsigned int gr_anyevent_nr(void);

/* Descriptors published: the table's events, then those found by name */
static inline unsigned int gr_desc_count(void)
{
	return gr_nr_event_defs + gr_anyevent_nr();
}

const struct gr_event_def *gr_desc_def(unsigned int id,
				       const struct gr_field_def **fields,
				       unsigned int *nr);
void gr_desc_fill(unsigned int id, struct gr_event_desc *out);
int gr_desc_attach(unsigned int id);

#endif
