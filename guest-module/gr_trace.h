/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_trace.h - what tracepoint probes use to record an event
 *
 * A probe records in place, with no staging copy:
 *
 *	struct gr_rec rec;
 *	struct gr_ev_foo *ev;
 *
 *	ev = gr_rec_begin(&rec, GR_EV_FOO, sizeof(*ev));
 *	if (!ev)
 *		return;
 *	ev->a = ...;			(fill every byte of the payload)
 *	gr_rec_end(&rec);
 *
 * gr_rec_begin() checks that the event is enabled, disables local
 * interrupts, takes this CPU's nesting guard, reserves the record in this
 * CPU's ring and writes its struct gr_event_header. gr_rec_end() releases
 * the guard and restores interrupts. Between the two the probe must not
 * sleep, take locks or call anything that can trace.
 */
#ifndef _GR_TRACE_H
#define _GR_TRACE_H

#include "gr_env.h"

struct gr_buf;

/**
 * struct gr_rec - one record being written; lives on the probe's stack
 * @flags: saved interrupt flags
 * @buf: the ring the record is reserved in
 */
struct gr_rec {
	unsigned long flags;
	struct gr_buf *buf;
};

/**
 * gr_event_on() - is event @id being recorded?
 * @id: event id (index in gr_event_defs)
 *
 * Cheap, lock-free test a probe makes before gathering data.
 *
 * Context: any.
 * Return: true if recording is on and @id is enabled.
 */
bool gr_event_on(unsigned int id);

/**
 * gr_rec_begin() - reserve a record of event @id on this CPU
 * @rec: caller's record state, passed to gr_rec_end()
 * @id: event id
 * @len: payload bytes (the header is added)
 *
 * Context: any, including hard irq and NMI; never sleeps. On success local
 * interrupts stay disabled until gr_rec_end().
 * Return: the payload (@len bytes the caller must fill; the tail padding
 * up to 8 bytes is already zeroed), or NULL if the event is off or was
 * dropped (counted by cause in the ring).
 */
void *gr_rec_begin(struct gr_rec *rec, unsigned int id, unsigned int len);

/**
 * gr_rec_end() - finish the record started by gr_rec_begin()
 * @rec: the record state gr_rec_begin() filled
 *
 * Context: the context of the matching gr_rec_begin().
 */
void gr_rec_end(struct gr_rec *rec);

#endif /* _GR_TRACE_H */
