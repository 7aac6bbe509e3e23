// SPDX-License-Identifier: GPL-2.0
/*
 * fg_events.c - the synthetic events of the fake guest
 *
 * Event 0 is "fake_seq", the one the tests count:
 *
 *   offset  size      field  type
 *   0       4         cpu    INTEGER u32     writer ("CPU") number
 *   4       4         -      gap             zero; the host declares a pad
 *   8       8         seq    INTEGER u64     per-CPU counter from 0
 *   16      16        tag    CHARS           "cpu<N>", NUL-padded
 *   32      size-32   data   CHARS           'a'..'z' from seq (if any)
 *
 * Event 1 is "fake_str", VARLEN: seq u64, cpu u32, msg STRING[100] whose
 * length varies with seq. Events 2 and up ("fake_ev<k>") cycle through
 * four shapes so that the host meets every field type, size, signedness,
 * base, unaligned offsets, gaps and a trailing gap:
 *
 *   k % 4 == 0  ints:  a u8, b s16, c u32 hex, d s64 (offsets 0, 1, 3, 7)
 *   k % 4 == 1  chars: n u64 hex, name CHARS[8 + k % 24]
 *   k % 4 == 2  gaps:  x u32 @0, y u64 @8, payload 16 + 8 * (k % 16)
 *   k % 4 == 3  blob:  len u16, blob CHARS[64 + 32 * (k % 8)], tail u32
 *
 * Every payload byte is written (gaps with zero), as a probe must.
 */
#include "fakeguest.h"

static void fg_field(struct fg_event *ev, const char *name, u16 offset,
		     u16 size, u8 type, u8 flags)
{
	struct fg_field *f = &ev->fields[ev->nr_fields++];

	snprintf(f->name, sizeof(f->name), "%s", name);
	f->offset = offset;
	f->size = size;
	f->type = type;
	f->flags = flags;
}

static void fg_event_seq(struct fg_event *ev, unsigned int size)
{
	snprintf(ev->name, sizeof(ev->name), "fake_seq");
	ev->kind = FG_EV_SEQ;
	ev->payload_size = size;
	fg_field(ev, "cpu", 0, 4, GR_FIELD_INTEGER, 0);
	fg_field(ev, "seq", 8, 8, GR_FIELD_INTEGER, 0);
	fg_field(ev, "tag", 16, 16, GR_FIELD_CHARS, 0);
	if (size > FG_MIN_SEQ_SIZE)
		fg_field(ev, "data", FG_MIN_SEQ_SIZE, size - FG_MIN_SEQ_SIZE,
			 GR_FIELD_CHARS, 0);
}

static void fg_event_str(struct fg_event *ev)
{
	snprintf(ev->name, sizeof(ev->name), "fake_str");
	ev->kind = FG_EV_STR;
	ev->flags = GR_EVENT_F_VARLEN;
	ev->payload_size = 12 + FG_STR_MAX;
	fg_field(ev, "seq", 0, 8, GR_FIELD_INTEGER, 0);
	fg_field(ev, "cpu", 8, 4, GR_FIELD_INTEGER, 0);
	fg_field(ev, "msg", 12, FG_STR_MAX, GR_FIELD_STRING, 0);
}

static void fg_event_other(struct fg_event *ev, unsigned int k)
{
	u16 n;

	snprintf(ev->name, sizeof(ev->name), "fake_ev%u", k);
	switch (k % 4) {
	case 0:
		ev->kind = FG_EV_INTS;
		fg_field(ev, "a", 0, 1, GR_FIELD_INTEGER, 0);
		fg_field(ev, "b", 1, 2, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
		fg_field(ev, "c", 3, 4, GR_FIELD_INTEGER, GR_FIELD_F_HEX);
		fg_field(ev, "d", 7, 8, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
		ev->payload_size = 15;
		break;
	case 1:
		ev->kind = FG_EV_CHARS;
		n = 8 + k % 24;
		fg_field(ev, "n", 0, 8, GR_FIELD_INTEGER, GR_FIELD_F_HEX);
		fg_field(ev, "name", 8, n, GR_FIELD_CHARS, 0);
		ev->payload_size = 8 + n;
		break;
	case 2:
		ev->kind = FG_EV_GAPS;
		fg_field(ev, "x", 0, 4, GR_FIELD_INTEGER, 0);
		fg_field(ev, "y", 8, 8, GR_FIELD_INTEGER, 0);
		ev->payload_size = 16 + 8 * (k % 16);
		break;
	default:
		ev->kind = FG_EV_BLOB;
		n = 64 + 32 * (k % 8);
		fg_field(ev, "len", 0, 2, GR_FIELD_INTEGER, 0);
		fg_field(ev, "blob", 2, n, GR_FIELD_CHARS, 0);
		fg_field(ev, "tail", 2 + n, 4, GR_FIELD_INTEGER, 0);
		ev->payload_size = 6 + n;
		break;
	}
}

/**
 * fg_events_build() - the event set of the options
 * @fg: the fake guest; opt.events, opt.size and lay.max_event_size are used
 * @why: receives a static reason on failure
 *
 * Return: 0, -EINVAL if the events do not fit the layout, -ENOMEM.
 */
int fg_events_build(struct fakeguest *fg, const char **why)
{
	unsigned int i, n = fg->opt.events;

	fg->events = calloc(n, sizeof(*fg->events));
	if (!fg->events) {
		*why = "out of memory";
		return -ENOMEM;
	}
	fg->nr_events = n;
	fg_event_seq(&fg->events[0], fg->opt.size);
	if (n > 1)
		fg_event_str(&fg->events[1]);
	for (i = 2; i < n; i++)
		fg_event_other(&fg->events[i], i);
	for (i = 0; i < n; i++) {
		if (sizeof(struct gr_event_header) + fg->events[i].payload_size >
		    fg->lay.max_event_size) {
			*why = "an event is larger than max_event_size";
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * fg_desc_fill() - gr_desc_fill_t of the synthetic events
 * @id: event id
 * @desc: zeroed descriptor in the region
 * @arg: the struct fakeguest
 */
void fg_desc_fill(unsigned int id, struct gr_event_desc *desc, void *arg)
{
	struct fakeguest *fg = arg;
	const struct fg_event *ev = &fg->events[id];
	unsigned int i;

	memcpy(desc->name, ev->name, sizeof(desc->name));
	desc->id = cpu_to_le16(id);
	desc->nr_fields = cpu_to_le16(ev->nr_fields);
	desc->payload_size = cpu_to_le16(ev->payload_size);
	desc->flags = cpu_to_le16(ev->flags);
	snprintf(desc->system, sizeof(desc->system), "fake");
	for (i = 0; i < ev->nr_fields; i++) {
		struct gr_field_desc *d = &desc->fields[i];

		memcpy(d->name, ev->fields[i].name, sizeof(d->name));
		d->offset = cpu_to_le16(ev->fields[i].offset);
		d->size = cpu_to_le16(ev->fields[i].size);
		d->type = ev->fields[i].type;
		d->flags = ev->fields[i].flags;
	}
}

static void fg_put16(u8 *p, u16 v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static void fg_put32(u8 *p, u32 v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static void fg_put64(u8 *p, u64 v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

/* Payload bytes of one record of @ev (the actual length for VARLEN) */
static size_t fg_payload_len(const struct fg_event *ev, unsigned int cpu,
			     u64 n, char *msg)
{
	int len;

	if (ev->kind != FG_EV_STR)
		return ev->payload_size;
	len = snprintf(msg, FG_STR_MAX, "fakeguest cpu %u n %llu %.*s", cpu,
		       (unsigned long long)n, (int)(n % 48),
		       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	if (len < 0)
		len = 0;
	if (len > FG_STR_MAX - 1)
		len = FG_STR_MAX - 1;
	msg[len] = 0;
	return 12 + (size_t)len + 1;
}

static void fg_fill(const struct fg_event *ev, u8 *p, size_t len,
		    unsigned int cpu, u64 n, const char *msg)
{
	const struct fg_field *f = ev->fields;
	unsigned int i;

	memset(p, 0, len);
	switch (ev->kind) {
	case FG_EV_SEQ:
		fg_put32(p, cpu);
		fg_put64(p + 8, n);
		snprintf((char *)p + 16, 16, "cpu%u", cpu);
		for (i = FG_MIN_SEQ_SIZE; i < len; i++)
			p[i] = 'a' + (n + i) % 26;
		break;
	case FG_EV_STR:
		fg_put64(p, n);
		fg_put32(p + 8, cpu);
		memcpy(p + 12, msg, len - 12);
		break;
	case FG_EV_INTS:
		p[0] = (u8)n;
		fg_put16(p + 1, (u16)-(s32)(n & 0x7fff));
		fg_put32(p + 3, (u32)(n * 2654435761ULL));
		fg_put64(p + 7, (u64)-(s64)(n & 0x7fffffffffffULL));
		break;
	case FG_EV_CHARS:
		fg_put64(p, n);
		snprintf((char *)p + 8, f[1].size, "ev-%u-%llu", cpu,
			 (unsigned long long)n);
		break;
	case FG_EV_GAPS:
		fg_put32(p, (u32)n);
		fg_put64(p + 8, n << 20);
		break;
	case FG_EV_BLOB:
		fg_put16(p, f[1].size);
		for (i = 0; i < f[1].size; i++)
			p[2 + i] = 'A' + (n + i) % 26;
		fg_put32(p + f[2].offset, (u32)n ^ 0x5a5a5a5a);
		break;
	}
}

/**
 * fg_write_event() - record one event in this thread's ring, in place
 * @chan: the channel
 * @ev: the event
 * @id: its id
 * @cpu: the writer's CPU number, written into the payload
 * @n: the event's counter (fake_seq: seq)
 *
 * Writes the way a probe does: gr_buf_enter(), gr_event_reserve(), every
 * payload byte, gr_buf_exit().
 *
 * Context: a writer thread (gr_user_set_cpu() done).
 * Return: 0; -EBUSY if nested; -ENOSPC if dropped (full or too big; the
 * core counted the cause).
 */
int fg_write_event(struct gr_chan *chan, const struct fg_event *ev,
		   unsigned int id, unsigned int cpu, u64 n)
{
	char msg[FG_STR_MAX];
	struct gr_buf *buf;
	size_t len;
	u8 *p;

	len = fg_payload_len(ev, cpu, n, msg);
	buf = gr_buf_enter(chan);
	if (!buf)
		return -EBUSY;
	p = gr_event_reserve(buf, (u16)id, len);
	if (p)
		fg_fill(ev, p, len, cpu, n, msg);
	gr_buf_exit(buf);
	return p ? 0 : -ENOSPC;
}
