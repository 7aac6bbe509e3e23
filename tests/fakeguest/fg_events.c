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
 * With --sched two more events follow (ids --events and --events + 1),
 * named and laid out as the guest module's (gr_events_table.h), system
 * "sched":
 *
 *   sched_wakeup  comm CHARS[16], tid s32 @16, prio s32 @20,
 *                 target_cpu s32 @24 (28 bytes)
 *   sched_switch  prev_comm CHARS[16], prev_tid s32 @16, prev_prio s32
 *                 @20, prev_state s64 @24, next_comm CHARS[16] @32,
 *                 next_tid s32 @48, next_prio s32 @52 (56 bytes)
 *
 * Each writer plays a run queue: at its sched tick k it first switches
 * to the tasks woken FG_SCHED_LAGS (8) or fewer ticks before whose wait
 * ends now (the task of tick j waits 1 + j % 8 ticks: sched_switch with
 * prev_tid 0 "swapper/<cpu>", next_tid = its tid), then wakes the task of
 * tick k (sched_wakeup, tid = fg_sched_tid(cpu, k), comm "fake-<cpu>",
 * target_cpu = cpu). At --rate 1000 the run-queue latencies are about
 * 1..8 ms, several log2 buckets (2^20..2^23 ns).
 *
 * Every payload byte is written (gaps with zero), as a probe must. A
 * record a hist request counts is aggregated (gr_hist_event(), fg_hist.c)
 * in the ring, or from a scratch copy when it is not recorded.
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
	snprintf(ev->system, sizeof(ev->system), "fake");
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
	snprintf(ev->system, sizeof(ev->system), "fake");
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
	snprintf(ev->system, sizeof(ev->system), "fake");
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

#define FG_COMM_LEN	16	/* the guest's TASK_COMM_LEN */
#define FG_SCHED_PRIO	120	/* a nice 0 task's prio */

/* --sched: the guest's sched_wakeup and sched_switch */
static void fg_event_sched(struct fg_event *ev, enum fg_event_kind kind)
{
	snprintf(ev->system, sizeof(ev->system), "sched");
	ev->kind = kind;
	if (kind == FG_EV_WAKEUP) {
		snprintf(ev->name, sizeof(ev->name), "sched_wakeup");
		fg_field(ev, "comm", 0, FG_COMM_LEN, GR_FIELD_CHARS, 0);
		fg_field(ev, "tid", 16, 4, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
		fg_field(ev, "prio", 20, 4, GR_FIELD_INTEGER,
			 GR_FIELD_F_SIGNED);
		fg_field(ev, "target_cpu", 24, 4, GR_FIELD_INTEGER,
			 GR_FIELD_F_SIGNED);
		ev->payload_size = 28;
		return;
	}
	snprintf(ev->name, sizeof(ev->name), "sched_switch");
	fg_field(ev, "prev_comm", 0, FG_COMM_LEN, GR_FIELD_CHARS, 0);
	fg_field(ev, "prev_tid", 16, 4, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	fg_field(ev, "prev_prio", 20, 4, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	fg_field(ev, "prev_state", 24, 8, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	fg_field(ev, "next_comm", 32, FG_COMM_LEN, GR_FIELD_CHARS, 0);
	fg_field(ev, "next_tid", 48, 4, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	fg_field(ev, "next_prio", 52, 4, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	ev->payload_size = 56;
}

/* --vmsync: the guest's vmsync records (spec 9.8), cnt and vm_uid */
static void fg_event_vmsync(struct fg_event *ev, const char *name)
{
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	snprintf(ev->system, sizeof(ev->system), "vmsync");
	ev->kind = FG_EV_VMSYNC;
	fg_field(ev, "cnt", 0, 8, GR_FIELD_INTEGER, 0);
	fg_field(ev, "vm_uid", 8, 8, GR_FIELD_INTEGER, 0);
	ev->payload_size = 16;
}

/**
 * fg_sched_tid() - the task a writer wakes at its sched tick @k
 * @cpu: the writer
 * @k: the tick
 *
 * Return: a tid unique among the tasks waiting on any writer's run queue.
 */
u32 fg_sched_tid(unsigned int cpu, u64 k)
{
	return 1000 + cpu * 100000 + (u32)(k % 100000);
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
	unsigned int i, n = fg_nr_events(&fg->opt);

	fg->events = calloc(n, sizeof(*fg->events));
	if (!fg->events) {
		*why = "out of memory";
		return -ENOMEM;
	}
	fg->nr_events = n;
	fg_event_seq(&fg->events[0], fg->opt.size);
	if (fg->opt.events > 1)
		fg_event_str(&fg->events[1]);
	for (i = 2; i < fg->opt.events; i++)
		fg_event_other(&fg->events[i], i);
	if (fg->opt.sched) {
		fg->sched_wakeup = fg->opt.events;
		fg->sched_switch = fg->opt.events + 1;
		fg_event_sched(&fg->events[fg->sched_wakeup], FG_EV_WAKEUP);
		fg_event_sched(&fg->events[fg->sched_switch], FG_EV_SWITCH);
	}
	if (fg->opt.vmsync) {
		fg->vmsync_hg = fg_nr_events(&fg->opt) - 2;
		fg->vmsync_gh = fg->vmsync_hg + 1;
		fg_event_vmsync(&fg->events[fg->vmsync_hg], "vmsync_hg_guest");
		fg_event_vmsync(&fg->events[fg->vmsync_gh], "vmsync_gh_guest");
	}
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

	fg_desc_fill_event(id, &fg->events[id], desc);
}

/**
 * fg_desc_fill_event() - the descriptor of @ev as id @id
 * @id: event id
 * @ev: the event
 * @desc: zeroed descriptor
 */
void fg_desc_fill_event(unsigned int id, const struct fg_event *ev,
			struct gr_event_desc *desc)
{
	unsigned int i;

	memcpy(desc->name, ev->name, sizeof(desc->name) - 1);
	desc->id = cpu_to_le16(id);
	desc->nr_fields = cpu_to_le16(ev->nr_fields);
	desc->payload_size = cpu_to_le16(ev->payload_size);
	desc->flags = cpu_to_le16(ev->flags);
	memcpy(desc->system, ev->system, sizeof(desc->system) - 1);
	for (i = 0; i < ev->nr_fields && i < GR_MAX_FIELDS; i++) {
		struct gr_field_desc *d = &desc->fields[i];

		memcpy(d->name, ev->fields[i].name, sizeof(d->name) - 1);
		d->offset = cpu_to_le16(ev->fields[i].offset);
		d->size = cpu_to_le16(ev->fields[i].size);
		d->type = ev->fields[i].type;
		d->flags = ev->fields[i].flags;
	}
}

/* v1.15: does @ev need a descriptor's extension (spec 20)? */
bool fg_event_is_long(const struct fg_event *ev)
{
	unsigned int i;

	if (ev->nr_fields > GR_MAX_FIELDS || strlen(ev->name) >= GR_NAME_LEN ||
	    strlen(ev->system) >= GR_SYSTEM_LEN)
		return true;
	for (i = 0; i < ev->nr_fields; i++)
		if (strlen(ev->fields[i].name) >= GR_FIELD_NAME_LEN)
			return true;
	return false;
}

/* @name, or its start, '_' and @idx if it does not fit @len (20.1) */
static void fg_short_name(char *dst, size_t len, const char *name,
			  unsigned int idx)
{
	char tail[12];

	if (strlen(name) < len) {
		snprintf(dst, len, "%s", name);
		return;
	}
	snprintf(tail, sizeof(tail), "_%u", idx);
	snprintf(dst, len, "%.*s%s", (int)(len - 1 - strlen(tail)), name,
		 tail);
}

/**
 * fg_desc_fill_ext() - v1.15: the stand-ins and the extension of @ev
 * (spec 20.1), after fg_desc_fill_event() filled the descriptor
 * @id: event id
 * @ev: an event of fixed fields only (the catalogue's long ones)
 * @slot: its slot, GR_LONG_DESC_STRIDE bytes or more
 */
void fg_desc_fill_ext(unsigned int id, const struct fg_event *ev,
		      struct gr_event_desc_long *slot)
{
	struct gr_event_desc_ext *x = &slot->ext;
	unsigned int i, nd = ev->nr_fields, k = 0;

	if (nd > GR_MAX_FIELDS)
		nd = GR_MAX_FIELDS;
	memset(x, 0, sizeof(*x));
	fg_short_name(slot->desc.name, sizeof(slot->desc.name), ev->name, id);
	memset(slot->desc.system, 0, sizeof(slot->desc.system));
	memcpy(slot->desc.system, ev->system,
	       strnlen(ev->system, sizeof(slot->desc.system) - 1));
	slot->desc.nr_fields = cpu_to_le16(nd);
	for (i = 0; i < ev->nr_fields; i++) {
		const struct fg_field *f = &ev->fields[i];
		struct gr_field_desc *d = i < nd ? &slot->desc.fields[i] :
					  &x->fields[i - nd];

		memset(d, 0, sizeof(*d));
		fg_short_name(d->name, sizeof(d->name), f->name, i);
		d->offset = cpu_to_le16(f->offset);
		d->size = cpu_to_le16(f->size);
		d->type = f->type;
		d->flags = f->flags;
		if (strlen(f->name) >= GR_FIELD_NAME_LEN &&
		    k < GR_LONG_FIELD_NAMES) {
			x->long_names[k].field = (u8)i;
			snprintf(x->long_names[k].name,
				 sizeof(x->long_names[k].name), "%s", f->name);
			k++;
		}
	}
	x->flags = cpu_to_le16(GR_DESC_EXT_F_USED);
	x->nr_fields = cpu_to_le16(ev->nr_fields);
	x->nr_long_names = (u8)k;
	snprintf(x->name, sizeof(x->name), "%s", ev->name);
	snprintf(x->system, sizeof(x->system), "%s", ev->system);
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

	if (ev->kind == FG_EV_PROBE && ev->nr_fields &&
	    ev->fields[ev->nr_fields - 1].type == GR_FIELD_STRING) {
		/* a probe's string fetcharg, last: a path it read */
		len = snprintf(msg, FG_STR_MAX, "/tmp/fake-%u-%llu", cpu,
			       (unsigned long long)n);
		return ev->fields[ev->nr_fields - 1].offset + (size_t)len + 1;
	}
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
	case FG_EV_WAKEUP:
		snprintf((char *)p, FG_COMM_LEN, "fake-%u", cpu);
		fg_put32(p + 16, (u32)n);
		fg_put32(p + 20, FG_SCHED_PRIO);
		fg_put32(p + 24, cpu);
		break;
	case FG_EV_VMSYNC:
		/* only aggregated (fg_vmsync() writes the records): cnt n */
		fg_put64(p, n);
		fg_put64(p + 8, 0);
		break;
	case FG_EV_PROBE:
		/* __probe_ip (or __probe_func, __probe_ret_ip), then the
		 * fetchargs: integers n + i, the string last
		 */
		for (i = 0; i < ev->nr_fields; i++) {
			u64 v = i ? n + i : FG_PROBE_IP;

			if (f[i].type == GR_FIELD_STRING)
				memcpy(p + f[i].offset, msg,
				       len - f[i].offset);
			else if (f[i].size == 8)
				fg_put64(p + f[i].offset, v);
			else if (f[i].size == 4)
				fg_put32(p + f[i].offset, (u32)v);
			else if (f[i].size == 2)
				fg_put16(p + f[i].offset, (u16)v);
			else
				p[f[i].offset] = (u8)v;
		}
		break;
	case FG_EV_SWITCH:
		snprintf((char *)p, FG_COMM_LEN, "swapper/%u", cpu);
		fg_put32(p + 20, FG_SCHED_PRIO);
		snprintf((char *)p + 32, FG_COMM_LEN, "fake-%u", cpu);
		fg_put32(p + 48, (u32)n);
		fg_put32(p + 52, FG_SCHED_PRIO);
		break;
	}
}

/* A record's payload where the ring could not take it (spec 17) */
static __thread u8 fg_scratch[GR_MAX_RECORD_SIZE];

/**
 * fg_count_event() - an event that occurs but is not in the ring
 * @ev: the event
 * @id: its id
 * @cpu: the writer's CPU
 * @n: the event's counter
 *
 * Spec 17: aggregation runs with recording off (and on records the ring
 * refused). If a hist request counts @id, the record is filled in a
 * scratch buffer and aggregated there at the event clock now, as
 * gr_record.c does with its scratch records.
 *
 * Context: a writer thread, inside its ring (fg_writer_enter()).
 */
void fg_count_event(const struct fg_event *ev, unsigned int id,
		    unsigned int cpu, u64 n)
{
	char msg[FG_STR_MAX];
	size_t len;

	if (!fg_hist_counts(id))
		return;
	len = fg_payload_len(ev, cpu, n, msg);
	fg_fill(ev, fg_scratch, len, cpu, n, msg);
	fg_hist_record(id, fg_scratch, (u32)len, cpu, gr_clock());
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
 * payload byte, the hist requests of the event on the record (at its
 * header's timestamp), gr_buf_exit(). A record the ring refused is
 * aggregated all the same (fg_count_event()).
 *
 * Context: a writer thread (gr_user_set_cpu() done).
 * Return: 0; -EBUSY if nested; -ENOSPC if dropped (full or too big; the
 * core counted the cause).
 */
int fg_write_event(struct gr_chan *chan, const struct fg_event *ev,
		   unsigned int id, unsigned int cpu, u64 n)
{
	const struct gr_event_header *eh;
	char msg[FG_STR_MAX];
	struct gr_buf *buf;
	size_t len;
	u8 *p;

	len = fg_payload_len(ev, cpu, n, msg);
	buf = gr_buf_enter(chan);
	if (!buf) {
		fg_count_event(ev, id, cpu, n);
		return -EBUSY;
	}
	p = gr_event_reserve(buf, (u16)id, len);
	if (p) {
		fg_fill(ev, p, len, cpu, n, msg);
		eh = (const struct gr_event_header *)(p - sizeof(*eh));
		fg_hist_record(id, p, (u32)len, cpu,
			       le64_to_cpu(READ_ONCE(eh->timestamp)));
	}
	gr_buf_exit(buf);
	if (p)
		return 0;
	fg_count_event(ev, id, cpu, n);
	return -ENOSPC;
}

