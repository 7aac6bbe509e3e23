// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - `guestrelay report`: a stored trace as text
 *
 * The trace is read by reader.c: gr_report() prints the items of all
 * cursors merged by timestamp; gr_report_summary() walks each cursor alone
 * and counts. Memory: one packet (subbuf_size bytes) per open stream.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "ctf.h"
#include "reader.h"
#include "report.h"
#include "report_int.h"
#include "validate_packet.h"


/* --- printing ------------------------------------------------------------- */

/**
 * gr_report_fmt_ns() - nanoseconds as seconds.nanoseconds
 * @buf: receives the text
 * @len: its size
 * @t: the time
 * @pad: pad the seconds to 5 characters (guest time)
 */
void gr_report_fmt_ns(char *buf, size_t len, __int128 t, int pad)
{
	if (pad && t >= 0)
		snprintf(buf, len, "%5llu.%09llu",
			 (unsigned long long)(t / NSEC_PER_SEC),
			 (unsigned long long)(t % NSEC_PER_SEC));
	else if (t < 0)
		snprintf(buf, len, "-%llu.%09llu",
			 (unsigned long long)(-t / NSEC_PER_SEC),
			 (unsigned long long)(-t % NSEC_PER_SEC));
	else
		snprintf(buf, len, "%llu.%09llu",
			 (unsigned long long)(t / NSEC_PER_SEC),
			 (unsigned long long)(t % NSEC_PER_SEC));
}

/* @ts as seconds.nanoseconds of guest or host time */
static void fmt_time(char *buf, size_t len, const struct gr_ctf_info *info,
		     uint64_t ts, int host_time)
{
	gr_report_fmt_ns(buf, len, gr_time_ns(info, ts, host_time), !host_time);
}

/* text up to the first NUL of @len bytes; 1 if a NUL was found */
static int print_text(FILE *out, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (!p[i])
			return 1;
		if (p[i] == '\\')
			fputs("\\\\", out);
		else if (p[i] < 0x20 || p[i] > 0x7e)
			fprintf(out, "\\x%02x", p[i]);
		else
			fputc(p[i], out);
	}
	return 0;
}

static void print_int(FILE *out, uint64_t v, unsigned int size,
		      unsigned int flags)
{
	int64_t s;

	if (flags & GR_FIELD_F_HEX) {
		fprintf(out, "0x%llx", (unsigned long long)v);
	} else if (flags & GR_FIELD_F_SIGNED) {
		/* sign-extend from size bytes */
		s = size == 8 ? (int64_t)v :
		    (int64_t)(v ^ (1ULL << (size * 8 - 1))) -
		    (int64_t)(1ULL << (size * 8 - 1));
		fprintf(out, "%lld", (long long)s);
	} else {
		fprintf(out, "%llu", (unsigned long long)v);
	}
}

/**
 * gr_rwbs_text() - a block event's rwbs flags as ftrace's letters
 * @buf: receives the letters, NUL-terminated
 * @len: size of @buf, GR_RWBS_TEXT_LEN or more for every letter
 * @flags: lttng-modules' flags, GR_RWBS_* (spec 7.5)
 *
 * In ftrace's order: F for a preflush; the operation, W, D (DE for a
 * secure erase), F (flush), R or N (none of them); then F (FUA), A (read
 * ahead), S (sync), M (meta). Other bits print nothing.
 *
 * Return: @buf
 */
char *gr_rwbs_text(char *buf, size_t len, uint64_t flags)
{
	char t[GR_RWBS_TEXT_LEN];
	size_t i = 0;

	if (flags & GR_RWBS_PREFLUSH)
		t[i++] = 'F';
	if (flags & GR_RWBS_WRITE) {
		t[i++] = 'W';
	} else if (flags & GR_RWBS_DISCARD) {
		t[i++] = 'D';
		if (flags & GR_RWBS_SECURE)
			t[i++] = 'E';
	} else if (flags & GR_RWBS_FLUSH) {
		t[i++] = 'F';
	} else if (flags & GR_RWBS_READ) {
		t[i++] = 'R';
	} else {
		t[i++] = 'N';
	}
	if (flags & GR_RWBS_FUA)
		t[i++] = 'F';
	if (flags & GR_RWBS_RAHEAD)
		t[i++] = 'A';
	if (flags & GR_RWBS_SYNC)
		t[i++] = 'S';
	if (flags & GR_RWBS_META)
		t[i++] = 'M';
	t[i] = '\0';
	if (len)
		snprintf(buf, len, "%s", t);
	return buf;
}

/* "[e0, e1, ...]": @n elements of field @f at @p */
static void print_elems(FILE *out, const struct gr_field_view *f,
			const uint8_t *p, uint64_t n)
{
	uint64_t i;

	fputc('[', out);
	for (i = 0; i < n; i++) {
		if (i)
			fputs(", ", out);
		print_int(out, gr_load_le(p + i * f->elem_size, f->elem_size),
			  f->elem_size, f->flags);
	}
	fputc(']', out);
}

/* v1.11: a sequence, the count from its field, bounded by @room */
static void print_sequence(FILE *out, const struct gr_event_view *ev,
			   const struct gr_field_view *f,
			   const uint8_t *payload, uint32_t plen,
			   uint32_t start)
{
	const struct gr_field_view *len = &ev->fields[f->len_field];
	uint32_t room = plen - start < f->size ? plen - start : f->size;
	uint64_t n;

	if (!f->elem_size || (uint32_t)len->offset + len->size > plen) {
		fputs("<missing>", out);
		return;
	}
	n = gr_load_le(payload + len->offset, len->size);
	print_elems(out, f, payload + start,
		    n < room / f->elem_size ? n : room / f->elem_size);
	if (n > room / f->elem_size)
		fputs("<cut>", out);
}

/*
 * Field @i of @ev at payload offset @start (its descriptor's, or where
 * the record's variable part puts it; beyond @plen if not known)
 */
static void print_field(FILE *out, const struct gr_event_view *ev,
			unsigned int i, const uint8_t *payload, uint32_t plen,
			uint32_t start)
{
	const struct gr_field_view *f = &ev->fields[i];

	fprintf(out, " %s=", f->name);
	/* an empty sequence may end its record */
	if (start > plen || (start == plen && f->type != GR_FIELD_SEQUENCE) ||
	    (!GR_FIELD_IS_VAR(f->type) && plen - start < f->size)) {
		fputs("<missing>", out);
		return;
	}
	switch (f->type) {
	case GR_FIELD_INTEGER:
		if (gr_field_is_rwbs_flags(ev, f)) {
			char t[GR_RWBS_TEXT_LEN];

			fputs(gr_rwbs_text(t, sizeof(t),
					   gr_load_le(payload + start,
						      f->size)), out);
			break;
		}
		print_int(out, gr_load_le(payload + start, f->size), f->size,
			  f->flags);
		break;
	case GR_FIELD_CHARS:
		print_text(out, payload + start, f->size);
		break;
	case GR_FIELD_SEQUENCE:
		print_sequence(out, ev, f, payload, plen, start);
		break;
	case GR_FIELD_ARRAY:	/* v1.14: whole, checked above */
		if (f->elem_size)
			print_elems(out, f, payload + start,
				    f->size / f->elem_size);
		break;
	default:	/* GR_FIELD_STRING: bounded by the field and the record */
		if (!print_text(out, payload + start,
				plen - start < f->size ?
				plen - start : f->size))
			fputs("<unterminated>", out);
		break;
	}
}

/**
 * gr_report_event() - the head event of @c as a line, without its newline
 * @out: where to print
 * @r: the reader
 * @c: the cursor
 * @tag: printed first ("" in a plain report)
 * @when: its time, formatted
 */
void gr_report_event(FILE *out, const struct gr_reader *r,
		     const struct gr_cursor *c, const char *tag,
		     const char *when)
{
	const struct gr_event_view *ev = &r->info->events[c->rec.id];
	const uint8_t *payload = c->rec_ptr + sizeof(struct gr_event_header);
	uint32_t plen = c->rec.size - (uint32_t)sizeof(struct gr_event_header);
	uint32_t start[GR_LONG_MAX_FIELDS], end;
	unsigned int i, n = ev->nr_fields;

	if (n > GR_LONG_MAX_FIELDS)
		n = GR_LONG_MAX_FIELDS;
	for (i = 0; i < n; i++)
		start[i] = ev->fields[i].offset;
	/* v1.11: where the variable fields are; after the first, unknown */
	if ((ev->flags & GR_EVENT_F_VARLEN) &&
	    gr_record_var_walk(ev, payload, plen, start, &end, NULL))
		for (i = gr_event_first_var(ev) + 1; i < n; i++)
			start[i] = UINT32_MAX;
	/* like trace-cmd: the task, then the CPU; fields may have a tid too */
	fprintf(out, "%s%7u [%03u] %s: %s:", tag, c->rec.tid, c->cpu, when,
		ev->name);
	for (i = 0; i < n; i++)
		print_field(out, ev, i, payload, plen, start[i]);
}

/* the ids of @info's events that @tok names; 1 if any */
static int select_token(const struct gr_ctf_info *info, const char *tok,
			uint8_t *sel)
{
	const char *colon = strchr(tok, ':');
	unsigned int i;
	int hit = 0;

	for (i = 0; i < info->nr_events; i++) {
		const struct gr_event_view *ev = &info->events[i];

		if (!info->valid[i])
			continue;
		if (colon ? !strncmp(tok, ev->system, (size_t)(colon - tok)) &&
			    !ev->system[colon - tok] &&
			    !strcmp(colon + 1, ev->name) :
		    !strcmp(tok, ev->name) || !strcmp(tok, ev->system)) {
			sel[i] = 1;
			hit = 1;
		}
	}
	return hit;
}

/**
 * gr_report_select() - which event ids --events selects in each trace
 * @info: the traces' .guestrelay files
 * @sel: receives, per trace, 1 for each id selected
 * @n: traces
 * @list: names, systems or system:event, comma separated; NULL or "" for
 *	all
 * @err: where a name no trace has is said
 *
 * Return: 0, or -EINVAL (printed on @err) if a name matches no event of
 * any of the traces.
 */
int gr_report_select(const struct gr_ctf_info *const *info,
		     uint8_t (*sel)[GR_WIDE_MAX_EVENTS], unsigned int n,
		     const char *list, FILE *err)
{
	char tok[GR_LONG_SYSTEM_LEN + GR_LONG_NAME_LEN + 2];
	const char *p = list, *e;
	unsigned int k;
	size_t len;
	int hit;

	for (k = 0; k < n; k++)
		memset(sel[k], !list || !*list, GR_WIDE_MAX_EVENTS);
	while (p && *p) {
		e = strchr(p, ',');
		len = e ? (size_t)(e - p) : strlen(p);
		if (len && len < sizeof(tok)) {
			memcpy(tok, p, len);
			tok[len] = '\0';
			hit = 0;
			for (k = 0; k < n; k++)
				hit |= select_token(info[k], tok, sel[k]);
		} else {
			hit = !len;	/* empty item: ignore */
		}
		if (!hit) {
			fprintf(err, "error: no event matches \"%.*s\" "
				"(give names, systems or system:event)\n",
				(int)(len > 64 ? 64 : len), p);
			return -EINVAL;
		}
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/**
 * gr_report_preamble() - the "#" lines that describe a trace
 * @out: where to print
 * @r: the trace, open
 * @base: the time printed ("guest", "host" ...)
 */
void gr_report_preamble(FILE *out, const struct gr_reader *r, const char *base)
{
	const struct gr_ctf_info *info = r->info;
	const struct gr_view *v = &info->view;
	unsigned int i;

	fprintf(out, "# guestrelay trace of %s (Linux %s): %u %s ring%s, "
		"clock %s at %llu Hz, %s time\n", v->nodename,
		v->kernel_release, v->nr_rings,
		gr_view_is_global(v) ? "global" : "per-CPU",
		v->nr_rings == 1 ? "" : "s", v->clock_name,
		(unsigned long long)v->clock_freq, base);
	if (!info->crc_ok)
		fprintf(out, "# warning: %s: checksum mismatch (damaged file); "
			"using what validates\n", GR_CTF_INFO);
	if (info->stored_desc_count != v->desc_count)
		fprintf(out, "# warning: %s holds %u event descriptors, the "
			"guest published %u\n", GR_CTF_INFO,
			info->stored_desc_count, v->desc_count);
	for (i = 0; i < info->nr_events; i++)
		if (!info->valid[i])
			fprintf(out, "# warning: event id %u: invalid "
				"descriptor (%s); its records are skipped\n", i,
				info->why[i]);
}

/**
 * gr_report_begin() - what to print of an open trace, and its preamble
 * @r: the trace, open
 * @out: where to print
 * @err: where a fatal problem is printed
 * @opts: filters and time base; NULL for everything in guest time
 * @x: receives the event selection and the time base in use
 *
 * Return: 0, or -EINVAL (printed on @err) if --events names no event.
 */
int gr_report_begin(const struct gr_reader *r, FILE *out, FILE *err,
		    const struct gr_report_opts *opts, struct gr_report_ctx *x)
{
	static const struct gr_report_opts all = { .cpu = -1 };
	const struct gr_ctf_info *info = r->info;
	int ret;

	x->opts = opts ? opts : &all;
	ret = gr_report_select(&info, &x->sel, 1, x->opts->events, err);
	if (ret)
		return ret;
	x->host_time = x->opts->host_time;
	gr_report_preamble(out, r, x->host_time ? "host" : "guest");
	if (x->host_time && !r->info->clock.synced) {
		fprintf(out, "# warning: the clock was never synchronized with "
			"the host; printing guest time\n");
		x->host_time = 0;
	}
	return 0;
}

/**
 * gr_report_item() - print the head item of cursor @c, if selected
 * @out: where to print
 * @r: the reader
 * @c: the cursor whose head item is next in time
 * @x: of gr_report_begin()
 */
void gr_report_item(FILE *out, const struct gr_reader *r,
		    const struct gr_cursor *c, const struct gr_report_ctx *x)
{
	char when[48];

	if (x->opts->cpu >= 0 && (unsigned int)x->opts->cpu != c->cpu &&
	    !(c->kind == GR_ITEM_NOTE && gr_view_is_global(&r->info->view)))
		return;
	if (c->kind == GR_ITEM_NOTE) {
		fmt_time(when, sizeof(when), r->info, c->ts, x->host_time);
		fprintf(out, "        [%03u] %s: ** %s\n", c->cpu, when,
			c->note);
	} else if (x->sel[c->rec.id]) {
		fmt_time(when, sizeof(when), r->info, c->ts, x->host_time);
		gr_report_event(out, r, c, "", when);
		fputc('\n', out);
	}
}

/**
 * gr_report() - print a stored trace as text, one line per event
 * @dir: the trace directory (<store>/<vm>/<session>)
 * @out: where to print
 * @err: where a fatal problem is printed
 * @opts: filters and time base; NULL for everything in guest time
 *
 * Prints a "#" preamble, then the events of all rings merged by
 * timestamp, as
 *   [CPU] SECONDS.NANOSECONDS: EVENT: tid=TID FIELD=VALUE ...
 * (integers in decimal, hex fields as 0x..., char arrays and strings as
 * text up to their NUL with '\\' and non-printable bytes escaped as \xNN).
 * Losses and damage are lines of the form "[CPU] TIME: ** WHAT", placed
 * where they happened: lost packets, events discarded by the guest, a
 * packet or record that does not validate, a file that ends mid-packet.
 * A fatal problem (no directory, no valid .guestrelay, a filter naming no
 * event) is printed on @err as one "error: " line; the caller need not
 * log it again.
 *
 * Context: process; blocks on file I/O; allocates one packet per stream.
 * Return: the number of damaged spots reported (0 for an intact trace),
 * or -errno (-ENOENT, -EINVAL, -ENOMEM ...) for a fatal problem.
 */
int gr_report(const char *dir, FILE *out, FILE *err,
	      const struct gr_report_opts *opts)
{
	struct gr_report_ctx x;
	struct gr_cursor *c;
	struct gr_reader r;
	uint64_t damaged;
	int ret;

	ret = gr_reader_open(&r, dir, err, 0);
	if (ret)
		return ret;
	ret = gr_report_begin(&r, out, err, opts, &x);
	if (ret)
		goto out;
	if (gr_reader_merge_start(&r)) {
		fprintf(err, "error: out of memory\n");
		ret = -ENOMEM;
		goto out;
	}
	while ((c = gr_reader_merge_head(&r))) {
		gr_report_item(out, &r, c, &x);
		gr_reader_merge_next(&r);
	}
	damaged = gr_reader_damaged(&r);
	ret = damaged > INT32_MAX ? INT32_MAX : (int)damaged;
out:
	gr_reader_close(&r);
	return ret;
}

/**
 * gr_report_summary() - print what a stored trace holds
 * @dir: the trace directory
 * @out: where to print
 * @err: where a fatal problem is printed, as one "error: " line
 *
 * Prints the guest and clock, events per type, then per ring: packets,
 * events, lost packets, events discarded by the guest and damaged spots,
 * then totals and the time span of the events (guest time, and host time
 * if the clock was synchronized).
 *
 * Context: process; blocks on file I/O; allocates one packet per stream.
 * Return: the number of damaged spots found, or -errno (see gr_report()).
 */
int gr_report_summary(const char *dir, FILE *out, FILE *err)
{
	uint64_t per_event[GR_WIDE_MAX_EVENTS] = { 0 };
	uint64_t ev = 0, pk = 0, lost = 0, disc = 0, dmg = 0;
	uint64_t first = 0, last = 0;
	const struct gr_view *v;
	char a[48], b[48], d[48];
	struct gr_reader r;
	struct gr_cursor *c;
	unsigned int i, j;
	int any = 0, ret;

	ret = gr_reader_open(&r, dir, err, 0);
	if (ret)
		return ret;
	v = &r.info->view;
	for (i = 0; i < r.nr_cur; i++) {
		c = &r.cur[i];
		do
			gr_cursor_advance(&r, c);
		while (c->kind != GR_ITEM_NONE);
		for (j = 0; j < GR_WIDE_MAX_EVENTS; j++)
			per_event[j] += c->per_event[j];
		ev += c->events;
		pk += c->packets;
		lost += c->lost_packets;
		disc += c->discarded;
		if (c->any_ts) {
			if (!any || c->first_ts < first)
				first = c->first_ts;
			if (!any || c->end_ts > last)
				last = c->end_ts;
			any = 1;
		}
	}
	dmg = gr_reader_damaged(&r);

	gr_report_preamble(out, &r, "guest");
	fprintf(out, "guest: %s, Linux %s, %u CPU%s, %u %s ring%s of %u x "
		"%u-byte sub-buffers\n", v->nodename, v->kernel_release,
		v->nr_cpus, v->nr_cpus == 1 ? "" : "s", v->nr_rings,
		gr_view_is_global(v) ? "global" : "per-CPU",
		v->nr_rings == 1 ? "" : "s", v->n_subbufs, v->subbuf_size);
	if (r.info->clock.synced) {
		fmt_time(a, sizeof(a), r.info, 0, 1);
		fprintf(out, "clock: %s at %llu Hz, synchronized with host "
			"CLOCK_REALTIME (guest 0 = %s, error bound %llu ns)\n",
			v->clock_name, (unsigned long long)v->clock_freq, a,
			(unsigned long long)r.info->clock.error_ns);
	} else {
		fprintf(out, "clock: %s at %llu Hz, not synchronized\n",
			v->clock_name, (unsigned long long)v->clock_freq);
	}
	fprintf(out, "events per type:\n");
	for (i = 0; i < r.info->nr_events; i++)
		if (per_event[i])
			fprintf(out, "  %-32s %12llu\n", r.info->events[i].name,
				(unsigned long long)per_event[i]);
	fprintf(out, "per ring:\n  %4s %8s %12s %12s %12s %8s\n", "ring",
		"packets", "events", "lost_pkts", "discarded", "damaged");
	for (i = 0; i < r.nr_cur; i++) {
		c = &r.cur[i];
		fprintf(out, "  %4u %8llu %12llu %12llu %12llu %8llu\n", i,
			(unsigned long long)c->packets,
			(unsigned long long)c->events,
			(unsigned long long)c->lost_packets,
			(unsigned long long)c->discarded,
			(unsigned long long)c->damaged);
	}
	fprintf(out, "total: %llu events in %llu packets, lost packets %llu, "
		"discarded events %llu, damaged spots %llu\n",
		(unsigned long long)ev, (unsigned long long)pk,
		(unsigned long long)lost, (unsigned long long)disc,
		(unsigned long long)dmg);
	if (any) {
		fmt_time(a, sizeof(a), r.info, first, 0);
		fmt_time(b, sizeof(b), r.info, last, 0);
		fmt_time(d, sizeof(d), r.info, last - first, 0);
		fprintf(out, "time span: %s .. %s guest (%s s)\n", a, b,
			d + strspn(d, " "));
		if (r.info->clock.synced) {
			fmt_time(a, sizeof(a), r.info, first, 1);
			fmt_time(b, sizeof(b), r.info, last, 1);
			fprintf(out, "           %s .. %s host\n", a, b);
		}
	} else {
		fprintf(out, "time span: no events\n");
	}
	gr_reader_close(&r);
	return dmg > INT32_MAX ? INT32_MAX : (int)dmg;
}
