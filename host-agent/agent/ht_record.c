// SPDX-License-Identifier: GPL-2.0
/*
 * ht_record.c - the raw perf records of the host stream decoded (see
 * ht_record.h): no perf event, file or clock here, only bytes in and
 * bytes out, so that test_ht_record.c feeds it records it laid out by
 * hand after the host's own format files
 *
 * A tracepoint's raw record is laid out as its tracefs format file says
 * (common_type at 0, then its fields); every offset and size is read
 * from that file and checked against the record's length before a byte
 * is copied, the host kernel being trusted but its record not assumed.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "ht_record.h"

const struct gr_ht_tpdef gr_ht_tps[GR_HT_NR_TPS] = {
	[GR_HT_SWITCH] = { "sched", "sched_switch", GR_HS_SWITCH,
			   { "prev_comm", "prev_pid", "prev_prio", "prev_state",
			     "next_comm", "next_pid", "next_prio" }, 0, { 0 } },
	[GR_HT_WAKEUP] = { "sched", "sched_wakeup", GR_HS_WAKEUP,
			   { "comm", "pid", "prio", "target_cpu" }, 0, { 0 } },
	[GR_HT_MIGRATE] = { "sched", "sched_migrate_task", GR_HS_MIGRATE,
			    { "comm", "pid", "prio", "orig_cpu", "dest_cpu" },
			    0, { 0 } },
	/* KVM's (arch/x86/kvm/trace.h): the rip of kvm_entry (5.9+), the
	 * vcpu_id of kvm_exit (5.10+) are newer than the rest */
	[GR_HT_KVM_ENTRY] = { "kvm", "kvm_entry", GR_HS_KVM_ENTRY,
			      { "vcpu_id", "rip" }, 0x2, { 4, 8 } },
	[GR_HT_KVM_EXIT] = { "kvm", "kvm_exit", GR_HS_KVM_EXIT,
			     { "exit_reason", "isa", "guest_rip", "vcpu_id" },
			     0xe, { 4, 4, 8, 4 } },
};

/**
 * ht_format_field() - where a field is in a tracepoint's raw record
 * @format: the text of its tracefs format file, NUL-terminated
 * @name: the field ("prev_pid")
 * @f: receives its offset and size, and whether it is a __data_loc
 *
 * Return: 0, -ENOENT if the format has no such field, -EINVAL if its
 * line does not parse.
 */
int ht_format_field(const char *format, const char *name,
		    struct gr_ht_field *f)
{
	size_t len = strlen(name);
	const char *p = format, *semi, *n;
	unsigned int off, size;

	while ((p = strstr(p, "field:"))) {
		p += 6;
		semi = strchr(p, ';');
		if (!semi)
			return -EINVAL;
		/* the name ends the declaration, perhaps with "[16]" */
		for (n = semi; n > p && n[-1] != ' ' && n[-1] != '\t'; n--)
			;
		if (strncmp(n, name, len) || (n[len] != ';' && n[len] != '['))
			continue;
		if (sscanf(semi, "; offset:%u; size:%u;", &off, &size) != 2 ||
		    off > 0xffff || !size || size > 0xffff)
			return -EINVAL;
		f->offset = (uint16_t)off;
		f->size = (uint16_t)size;
		f->data_loc = !strncmp(p, "__data_loc", 10);
		return 0;
	}
	return -ENOENT;
}

/**
 * ht_read_format() - tracepoint @tpi's fields from its format file
 * @format: the text of its tracefs format file, NUL-terminated
 * @tpi: which of gr_ht_tps[]
 * @tp: receives the fields (its id is the caller's)
 *
 * A field the tracepoint may lack (its bit in @optional) is left with
 * size 0, and reads as 0.
 *
 * Return: 0, -ENOENT if a field it needs is missing, -EINVAL if a line
 * does not parse.
 */
int ht_read_format(const char *format, unsigned int tpi, struct gr_ht_tp *tp)
{
	const struct gr_ht_tpdef *d = &gr_ht_tps[tpi];
	unsigned int k;
	int ret;

	memset(tp->f, 0, sizeof(tp->f));
	for (k = 0; k < GR_HT_MAX_FIELDS && d->fields[k]; k++) {
		ret = ht_format_field(format, d->fields[k], &tp->f[k]);
		if (ret == -ENOENT && (d->optional & (1U << k)))
			continue;
		if (ret)
			return ret;
		if ((d->sizes[k] && tp->f[k].size != d->sizes[k]) ||
		    tp->f[k].offset < 2)
			return -EINVAL;
	}
	return 0;
}

/* the number of a table entry: "0x040 + 13", "-1", "84" */
static int reason_code(const char *p, const char *end, uint32_t *code)
{
	long long v, sum = 0;
	char *e;

	for (;;) {
		while (p < end && (*p == ' ' || *p == '+'))
			p++;
		if (p == end)
			break;
		v = strtoll(p, &e, 0);
		if (e == p || e > end)
			return -EINVAL;
		sum += v;
		p = e;
	}
	*code = (uint32_t)sum;
	return 0;
}

/* the { code, "name" } pairs of one __print_symbolic() from @p on */
static const char *read_table(const char *p, uint8_t isa,
			      struct gr_ht_reasons *r)
{
	struct gr_ht_reason *e;
	const char *comma, *q, *close;
	size_t len;

	/* the value printed, then the pairs, up to the closing ")" */
	while ((p = strpbrk(p, "{)")) && *p == '{') {
		comma = strchr(p, ',');
		q = comma ? strchr(comma, '"') : NULL;
		close = q ? strchr(q + 1, '"') : NULL;
		if (!close || r->n == GR_HT_MAX_REASONS)
			return NULL;
		e = &r->r[r->n];
		if (reason_code(p + 1, comma, &e->code))
			return NULL;
		len = (size_t)(close - q - 1);
		if (len >= sizeof(e->name))
			len = sizeof(e->name) - 1;
		memset(e->name, 0, sizeof(e->name));
		memcpy(e->name, q + 1, len);
		e->isa = isa;
		r->n++;
		p = strchr(close, '}');
		if (!p)
			return NULL;
	}
	return p;
}

/**
 * ht_read_reasons() - the exit reasons of the host's kvm_exit format
 * @format: the text of events/kvm/kvm_exit/format, NUL-terminated
 * @r: receives the names
 *
 * x86's print fmt names the reason with __print_symbolic(), the VMX
 * table when "isa == 1", else the SVM table; a format of one table
 * names the reasons of any isa.
 *
 * Return: 0, -ENOENT without any table, -EINVAL if a table does not
 * parse or has more than GR_HT_MAX_REASONS entries.
 */
int ht_read_reasons(const char *format, struct gr_ht_reasons *r)
{
	const char *fmt = strstr(format, "print fmt:"), *p, *t[2];
	unsigned int k, n = 0;
	bool by_isa;

	r->n = 0;
	if (!fmt)
		return -ENOENT;
	for (p = fmt; n < 2 && (p = strstr(p, "__print_symbolic(")); p++)
		t[n++] = p;
	if (!n)
		return -ENOENT;
	/* "(REC->isa == 1) ? __print_symbolic(VMX) : __print_symbolic(SVM)" */
	by_isa = n == 2 && memmem(fmt, (size_t)(t[0] - fmt), "isa == 1", 8);
	for (k = 0; k < (by_isa ? 2U : 1U); k++)
		if (!read_table(t[k], by_isa ? (uint8_t)(k + 1) : 0, r))
			return -EINVAL;
	return 0;
}

/**
 * ht_reason_name() - the name of an exit reason
 * @r: the host's reasons (ht_read_reasons())
 * @isa: the exit's isa (1 VMX, 2 SVM)
 * @reason: its exit_reason; of VMX, the low 16 bits are the reason
 *
 * Return: the name, "" if the host's table has none.
 */
const char *ht_reason_name(const struct gr_ht_reasons *r, uint32_t isa,
			   uint32_t reason)
{
	unsigned int i;

	if (isa == 1)
		reason &= 0xffff;
	for (i = 0; r && i < r->n; i++)
		if (r->r[i].code == reason && (!r->r[i].isa || r->r[i].isa == isa))
			return r->r[i].name;
	return "";
}

/**
 * ht_sample() - a PERF_RECORD_SAMPLE split into its parts
 * @rec: the record, its perf_event_header first
 * @n: its bytes
 * @s: receives the parts; @s->raw points into @rec
 *
 * The layout is that of sample_type TID | TIME | CPU | RAW: header (8),
 * pid, tid, time, cpu, res, raw size (u32), raw record.
 *
 * Return: 0, -EINVAL if @rec is too short for what it declares, or its
 * raw record too short for a common_type.
 */
int ht_sample(const uint8_t *rec, uint32_t n, struct gr_ht_sample *s)
{
	if (n < 36)
		return -EINVAL;
	memcpy(&s->tid, rec + 12, 4);
	memcpy(&s->ts, rec + 16, 8);
	memcpy(&s->cpu, rec + 24, 4);
	memcpy(&s->rawlen, rec + 32, 4);
	s->raw = rec + 36;
	if (s->rawlen > n - 36 || s->rawlen < 2)
		return -EINVAL;
	memcpy(&s->type, s->raw, 2);
	return 0;
}

/**
 * ht_raw_int() - an integer field of a raw record, sign-extended
 * @raw: the record
 * @n: its bytes
 * @f: the field
 *
 * Return: its value; 0 if the record is too short for it or the format
 * has no such field.
 */
int64_t ht_raw_int(const uint8_t *raw, uint32_t n, const struct gr_ht_field *f)
{
	int64_t v = 0;
	int32_t v4;
	int16_t v2;

	if (!f->size || f->offset + f->size > n)
		return 0;
	switch (f->size) {
	case 8:
		memcpy(&v, raw + f->offset, 8);
		return v;
	case 4:
		memcpy(&v4, raw + f->offset, 4);
		return v4;
	case 2:
		memcpy(&v2, raw + f->offset, 2);
		return v2;
	default:
		return (int8_t)raw[f->offset];
	}
}

/**
 * ht_raw_comm() - a comm of a raw record: an array, or a __data_loc string
 * @out: receives 16 bytes, NUL-padded
 * @raw: the record
 * @n: its bytes
 * @f: the field
 */
void ht_raw_comm(uint8_t *out, const uint8_t *raw, uint32_t n,
		 const struct gr_ht_field *f)
{
	uint32_t loc, off, len;

	memset(out, 0, 16);
	if (!f->size || f->offset + f->size > n)
		return;
	off = f->offset;
	len = f->size;
	if (f->data_loc) {
		if (f->size != 4)
			return;
		memcpy(&loc, raw + f->offset, 4);
		off = loc & 0xffff;
		len = loc >> 16;
		if (off + len > n)
			return;
	}
	len = (uint32_t)strnlen((const char *)raw + off, len);
	memcpy(out, raw + off, len < 16 ? len : 16);
}

static void put32(uint8_t *p, int64_t v)
{
	int32_t x = (int32_t)v;

	memcpy(p, &x, 4);
}

/**
 * ht_payload() - a sample's raw record as the payload of its event
 * @tps: the tracepoints as this host has them, GR_HT_NR_TPS entries
 * @r: the names of kvm_exit's reasons, or NULL
 * @s: the sample (ht_sample())
 * @p: receives the payload, GR_HT_PAYLOAD_MAX bytes
 * @len: receives its size
 *
 * Return: the host stream event (enum gr_hs_event), -ENOENT if the
 * record is of none of @tps.
 */
int ht_payload(const struct gr_ht_tp *tps, const struct gr_ht_reasons *r,
	       const struct gr_ht_sample *s, uint8_t *p, uint32_t *len)
{
	const uint8_t *raw = s->raw;
	const struct gr_ht_field *f;
	uint32_t n = s->rawlen;
	uint32_t reason, isa;
	unsigned int t;
	int64_t state;
	uint64_t rip;

	for (t = 0; t < GR_HT_NR_TPS; t++)
		if (tps[t].present && tps[t].id == s->type)
			break;
	if (t == GR_HT_NR_TPS)
		return -ENOENT;
	f = tps[t].f;
	memset(p, 0, GR_HT_PAYLOAD_MAX);
	switch (t) {
	case GR_HT_SWITCH:
		ht_raw_comm(p, raw, n, &f[0]);
		put32(p + 16, ht_raw_int(raw, n, &f[1]));
		put32(p + 20, ht_raw_int(raw, n, &f[2]));
		state = ht_raw_int(raw, n, &f[3]);
		memcpy(p + 24, &state, 8);
		ht_raw_comm(p + 32, raw, n, &f[4]);
		put32(p + 48, ht_raw_int(raw, n, &f[5]));
		put32(p + 52, ht_raw_int(raw, n, &f[6]));
		*len = GR_HS_SWITCH_SIZE;
		break;
	case GR_HT_WAKEUP:
	case GR_HT_MIGRATE:
		ht_raw_comm(p, raw, n, &f[0]);
		put32(p + 16, ht_raw_int(raw, n, &f[1]));
		put32(p + 20, ht_raw_int(raw, n, &f[2]));
		put32(p + 24, ht_raw_int(raw, n, &f[3]));
		if (t == GR_HT_MIGRATE)
			put32(p + 28, ht_raw_int(raw, n, &f[4]));
		*len = t == GR_HT_WAKEUP ? GR_HS_WAKEUP_SIZE :
		       GR_HS_MIGRATE_SIZE;
		break;
	case GR_HT_KVM_ENTRY:
		put32(p, ht_raw_int(raw, n, &f[0]));
		rip = (uint64_t)ht_raw_int(raw, n, &f[1]);
		memcpy(p + 8, &rip, 8);
		*len = GR_HS_KVM_ENTRY_SIZE;
		break;
	case GR_HT_KVM_EXIT:
		reason = (uint32_t)ht_raw_int(raw, n, &f[0]);
		isa = (uint32_t)ht_raw_int(raw, n, &f[1]);
		memcpy(p, &reason, 4);
		memcpy(p + 4, &isa, 4);
		rip = (uint64_t)ht_raw_int(raw, n, &f[2]);
		memcpy(p + 8, &rip, 8);
		put32(p + 16, ht_raw_int(raw, n, &f[3]));
		strncpy((char *)p + 20, ht_reason_name(r, isa, reason),
			GR_HS_REASON_NAME - 1);
		*len = GR_HS_KVM_EXIT_SIZE;
		break;
	}
	return gr_ht_tps[t].event;
}

/* copy @len bytes at ring position @pos, across the ring's end */
static void ring_copy(void *dst, const uint8_t *data, uint64_t size,
		      uint64_t pos, size_t len)
{
	size_t at = (size_t)(pos % size), first = len;

	if (first > size - at)
		first = size - at;
	memcpy(dst, data + at, first);
	memcpy((uint8_t *)dst + first, data, len - first);
}

/**
 * ht_ring_walk() - the records of a perf ring between @tail and @head
 * @data: the ring's data pages
 * @size: their bytes, a power of two
 * @head: data_head, read by the caller (acquire)
 * @tail: data_tail
 * @fn: called with each record's type, the record (copied out of the
 *	ring, header first) and its bytes; a record longer than
 *	GR_HT_REC_MAX is stepped over
 * @arg: passed to @fn
 *
 * A header whose size is shorter than a header or longer than what is
 * left is not a record: the rest is skipped.
 *
 * Return: the new data_tail, for the caller to store (release).
 */
uint64_t ht_ring_walk(const uint8_t *data, uint64_t size, uint64_t head,
		      uint64_t tail, gr_ht_rec_fn fn, void *arg)
{
	struct perf_event_header h;
	uint8_t rec[GR_HT_REC_MAX];

	while (head - tail >= sizeof(h)) {
		ring_copy(&h, data, size, tail, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			return head;		/* not a record: skip it all */
		if (h.size <= sizeof(rec)) {
			ring_copy(rec, data, size, tail, h.size);
			fn(arg, h.type, rec, h.size);
		}
		tail += h.size;
	}
	return tail;
}
