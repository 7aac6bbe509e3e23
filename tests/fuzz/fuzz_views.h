/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_views.h - the event the compiler targets fuzz against: a
 * sched_switch as this guest describes it (56 bytes of payload)
 */
#ifndef GR_FUZZ_VIEWS_H
#define GR_FUZZ_VIEWS_H

#include <string.h>

#include "validate.h"

static inline void fuzz_switch_view(struct gr_event_view *ev)
{
	static const char *const names[] = {
		"prev_comm", "prev_tid", "prev_prio", "prev_state",
		"next_comm", "next_tid", "next_prio",
	};
	static const uint16_t off[] = { 0, 16, 20, 24, 32, 48, 52 };
	static const uint16_t sz[] = { 16, 4, 4, 8, 16, 4, 4 };
	unsigned int i;

	memset(ev, 0, sizeof(*ev));
	strcpy(ev->name, "sched_switch");
	strcpy(ev->system, "sched");
	ev->payload_size = 56;
	ev->nr_fields = 7;
	for (i = 0; i < 7; i++) {
		strcpy(ev->fields[i].name, names[i]);
		ev->fields[i].offset = off[i];
		ev->fields[i].size = sz[i];
		ev->fields[i].type = sz[i] == 16 ? GR_FIELD_CHARS :
				     GR_FIELD_INTEGER;
		ev->fields[i].flags = i == 3 ? GR_FIELD_F_SIGNED : 0;
	}
}

#endif /* GR_FUZZ_VIEWS_H */
