// SPDX-License-Identifier: GPL-2.0
/*
 * hist_out.c - `guestrelay hist VM`: the VM's aggregation tables as
 * ftrace's events/<sys>/<event>/hist file prints them
 * (kernel/trace/trace_events_hist.c: hist_trigger_show()), one after
 * the other, and the same as JSON
 *
 *   # event histogram
 *   #
 *   # trigger info: hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 [active]
 *   #
 *
 *   { prev_pid:         42 } hitcount:          3
 *   { delta: ~ 2^10 } hitcount:         17
 *
 *   Totals:
 *       Hits: 20
 *       Entries: 2
 *       Dropped: 0
 *
 * Keys print as ftrace prints them: .log2 as "~ 2^k", .buckets=N as
 * "~ a-b", .hex in hex, .sym as "[addr] 0xaddr" (the host has no guest
 * symbols), others (.execname too: the host has no comm) in decimal.
 * guestrelay adds its own totals after ftrace's (Nested, Unmatched for
 * latency pairs, Torn, Bad maps) and a "# guestrelay:" line with the
 * table's name, event and state; a table that does not run says why in
 * its trigger line ([pending], [refused], [waiting]) and has no rows.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hist_out.h"
#include "report.h"

/* The modifiers of key @i as ftrace writes them after the field name */
static void key_mods(const struct gr_hist_spec *s, unsigned int i, char *buf,
		     size_t len)
{
	const struct gr_hist_key *k = &s->req.key[i];
	uint8_t d = s->key_display[i];
	size_t off = 0;

	buf[0] = '\0';
	if (d & GR_HD_HEX)
		off += snprintf(buf + off, len - off, ".hex");
	if ((d & GR_HD_SYM) && off < len)
		off += snprintf(buf + off, len - off, ".sym");
	if ((d & GR_HD_EXECNAME) && off < len)
		off += snprintf(buf + off, len - off, ".execname");
	if (k->xform == GR_HT_LOG2 && off < len)
		snprintf(buf + off, len - off, ".log2");
	else if (k->xform == GR_HT_BUCKET && off < len)
		snprintf(buf + off, len - off, ".buckets=%" PRIu64,
			 (uint64_t)le64toh(k->arg));
}

/* A sort column's name, as in ftrace's trigger line */
static void sort_col(const struct gr_hist_spec *s, int col, char *buf,
		     size_t len)
{
	char mods[48];

	if (col >= GR_HIST_SORT_VAL(0) &&
	    col < GR_HIST_SORT_VAL(GR_HIST_MAX_VALS)) {
		snprintf(buf, len, "%s", s->val_name[col - GR_HIST_SORT_VAL(0)]);
	} else if (col >= 0 && col < GR_HIST_MAX_KEYS) {
		key_mods(s, (unsigned int)col, mods, sizeof(mods));
		snprintf(buf, len, "%s%s", s->key_name[col], mods);
	} else {
		snprintf(buf, len, "hitcount");
	}
}

/**
 * ctl_hist_trigger() - the request as ftrace's trigger file shows it
 * @buf: receives "hist:[NAME:]keys=...:vals=hitcount[,...]:sort=...:size=N
 *	[if FILTER]" (without the [active] state)
 * @len: size of @buf
 * @o: the request; a request not compiled (no guest yet, or refused by
 *	the host) shows as given
 *
 * Context: any.
 */
void ctl_hist_trigger(char *buf, size_t len, const struct gr_vm_hist_out *o)
{
	const struct gr_hist_spec *s = &o->spec;
	char col[GR_HIST_COL_LEN + 48];
	size_t off;
	unsigned int i;

	if (!o->compiled) {
		if (o->h.latency[0])
			snprintf(buf, len, "hist:%s:latency=%s", o->h.name,
				 o->h.latency);
		else
			snprintf(buf, len, "hist:%s%s%s", o->h.text,
				 o->h.filter[0] ? " if " : "", o->h.filter);
		return;
	}
	off = snprintf(buf, len, "hist:");
	if (strcmp(s->name, s->event) && off < len)
		off += snprintf(buf + off, len - off, "%s:", s->name);
	for (i = 0; i < s->req.nr_keys && i < GR_HIST_MAX_KEYS && off < len;
	     i++) {
		sort_col(s, GR_HIST_SORT_KEY((int)i), col, sizeof(col));
		off += snprintf(buf + off, len - off, "%s%s",
				i ? "," : "keys=", col);
	}
	if (off < len)
		off += snprintf(buf + off, len - off, ":vals=hitcount");
	for (i = 0; i < s->req.nr_vals && i < GR_HIST_MAX_VALS && off < len;
	     i++)
		off += snprintf(buf + off, len - off, ",%s", s->val_name[i]);
	for (i = 0; i < (unsigned int)s->nr_sort && i < GR_HIST_MAX_SORT &&
	     off < len; i++) {
		sort_col(s, s->sort[i].col, col, sizeof(col));
		off += snprintf(buf + off, len - off, "%s%s%s",
				i ? "," : ":sort=", col,
				s->sort[i].descending ? ".descending" : "");
	}
	if (!s->nr_sort && off < len)
		off += snprintf(buf + off, len - off, ":sort=hitcount");
	if (off < len)
		off += snprintf(buf + off, len - off, ":size=%u",
				1u << (s->req.entries_log2 & 31));
	if (s->filter[0] && off < len)
		snprintf(buf + off, len - off, " if %s", s->filter);
}

/**
 * ctl_hist_sort() - order a table's rows as its sort= asks
 * @o: a request read by vm_hist_read()
 *
 * Context: any.
 */
void ctl_hist_sort(struct gr_vm_hist_out *o)
{
	int cols[GR_HIST_MAX_SORT];
	bool desc[GR_HIST_MAX_SORT];
	int i, n = 0;

	if (!o->compiled || !o->table.nr_rows)
		return;
	for (i = 0; i < o->spec.nr_sort && i < GR_HIST_MAX_SORT; i++) {
		cols[n] = o->spec.sort[i].col;
		desc[n++] = o->spec.sort[i].descending;
	}
	gr_hist_sort_rows(&o->table, cols, desc, n);
}

/* One key of a row, as ftrace's hist_trigger_print_key() */
static void put_key(FILE *f, const struct gr_hist_spec *s, unsigned int i,
		    uint64_t v)
{
	const struct gr_hist_key *k = &s->req.key[i];
	uint8_t d = s->key_display[i];
	char sym[24];

	ctl_put_text(f, s->key_name[i]);
	if (d & GR_HD_HEX) {
		fprintf(f, ": %" PRIx64, v);
	} else if (d & GR_HD_RWBS) {
		/* as ftrace prints a text key */
		fprintf(f, ": %-50s", gr_rwbs_text(sym, sizeof(sym), v));
	} else if (d & GR_HD_SYM) {
		snprintf(sym, sizeof(sym), "0x%" PRIx64, v);
		fprintf(f, ": [%" PRIx64 "] %-45s", v, sym);
	} else if (k->xform == GR_HT_LOG2) {
		fprintf(f, ": ~ 2^%-2" PRIu64, v);
	} else if (k->xform == GR_HT_BUCKET) {
		fprintf(f, ": ~ %" PRIu64 "-%" PRIu64, v,
			v + le64toh(k->arg) - 1);
	} else {
		fprintf(f, ": %10" PRIu64, v);
	}
}

static void put_row(FILE *f, const struct gr_hist_spec *s,
		    const struct gr_hist_row *r)
{
	unsigned int i;

	fputs("{ ", f);
	for (i = 0; i < s->req.nr_keys && i < GR_HIST_MAX_KEYS; i++) {
		if (i)
			fputs(", ", f);
		put_key(f, s, i, r->key[i]);
	}
	fprintf(f, " } hitcount: %10" PRIu64, r->hitcount);
	for (i = 0; i < s->req.nr_vals && i < GR_HIST_MAX_VALS; i++) {
		fputs("  ", f);
		ctl_put_text(f, s->val_name[i]);
		fprintf(f, ": %10" PRIu64, r->val[i]);
	}
	fputc('\n', f);
}

/* One table, as hist_trigger_show() prints it */
static void put_table(FILE *f, const struct gr_vm_hist_out *o)
{
	const struct gr_hist_table *t = &o->table;
	bool running = !strcmp(o->state, "running");
	char trig[GR_HIST_TEXT_LEN + GR_FX_MAX_LEN + 128];
	uint32_t i;

	ctl_hist_trigger(trig, sizeof(trig), o);
	fputs("# event histogram\n#\n# trigger info: ", f);
	ctl_put_text(f, trig);
	fprintf(f, " [%s]\n", running ? "active" : o->state);
	fputs("# guestrelay: ", f);
	ctl_put_text(f, o->h.name);
	fputs(" on ", f);
	ctl_put_text(f, o->compiled ? o->spec.event : o->h.latency[0] ?
		     o->h.latency : o->h.event);
	fprintf(f, ", %s", o->state);
	if (o->why[0]) {
		fputs(": ", f);
		ctl_put_text(f, o->why);
	}
	fputs("\n#\n\n", f);
	if (!running)
		return;
	for (i = 0; i < t->nr_rows; i++)
		put_row(f, &o->spec, &t->rows[i]);
	fprintf(f, "\nTotals:\n    Hits: %" PRIu64 "\n    Entries: %" PRIu32
		"\n    Dropped: %" PRIu64 "\n", t->hits, t->nr_rows, t->dropped);
	fprintf(f, "    Nested: %" PRIu64 "\n", t->nested);
	if (o->spec.req.kind == GR_HIST_PAIR)
		fprintf(f, "    Unmatched: %" PRIu64 "\n", t->unmatched);
	fprintf(f, "    Torn: %" PRIu64 "\n    Bad maps: %" PRIu64 "\n",
		t->torn, t->bad_maps);
}

/**
 * ctl_hist_text() - tables as ftrace's hist file prints them
 * @f: where to
 * @o: the tables (vm_hist_read(), rows sorted by ctl_hist_sort())
 * @n: how many; two tables are separated by two empty lines, as ftrace
 *	separates the hist triggers of one event
 *
 * Context: any.
 */
void ctl_hist_text(FILE *f, const struct gr_vm_hist_out *o, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (i)
			fputs("\n\n", f);
		put_table(f, &o[i]);
	}
}

/* A table's keys and values, as JSON members */
static void json_columns(struct ctl_json *j, const struct gr_hist_spec *s)
{
	static const char *const xform[] = { "none", "log2", "buckets" };
	const struct gr_hist_key *k;
	unsigned int i;

	ctl_json_begin_array(j, "keys");
	for (i = 0; i < s->req.nr_keys && i < GR_HIST_MAX_KEYS; i++) {
		k = &s->req.key[i];
		ctl_json_begin_object(j, NULL);
		ctl_json_string(j, "name", s->key_name[i]);
		ctl_json_string(j, "transform", k->xform < 3 ?
				xform[k->xform] : "none");
		if (k->xform == GR_HT_BUCKET)
			ctl_json_u64(j, "bucket", le64toh(k->arg));
		ctl_json_bool(j, "hex", s->key_display[i] & GR_HD_HEX);
		ctl_json_bool(j, "nsecs", s->key_display[i] & GR_HD_NSECS);
		ctl_json_bool(j, "rwbs", s->key_display[i] & GR_HD_RWBS);
		ctl_json_end_object(j);
	}
	ctl_json_end_array(j);
	ctl_json_begin_array(j, "vals");
	for (i = 0; i < s->req.nr_vals && i < GR_HIST_MAX_VALS; i++)
		ctl_json_string(j, NULL, s->val_name[i]);
	ctl_json_end_array(j);
}

static void json_rows(struct ctl_json *j, const struct gr_vm_hist_out *o)
{
	const struct gr_hist_spec *s = &o->spec;
	const struct gr_hist_table *t = &o->table;
	unsigned int i;
	uint32_t r;

	ctl_json_begin_array(j, "entries");
	for (r = 0; r < t->nr_rows; r++) {
		ctl_json_begin_object(j, NULL);
		ctl_json_begin_object(j, "key");
		for (i = 0; i < s->req.nr_keys && i < GR_HIST_MAX_KEYS; i++)
			ctl_json_u64(j, s->key_name[i], t->rows[r].key[i]);
		ctl_json_end_object(j);
		ctl_json_u64(j, "hitcount", t->rows[r].hitcount);
		ctl_json_begin_object(j, "vals");
		for (i = 0; i < s->req.nr_vals && i < GR_HIST_MAX_VALS; i++)
			ctl_json_u64(j, s->val_name[i], t->rows[r].val[i]);
		ctl_json_end_object(j);
		ctl_json_end_object(j);
	}
	ctl_json_end_array(j);
	ctl_json_begin_object(j, "totals");
	ctl_json_u64(j, "hits", t->hits);
	ctl_json_u64(j, "entries", t->nr_rows);
	ctl_json_u64(j, "dropped", t->dropped);
	ctl_json_u64(j, "nested", t->nested);
	ctl_json_u64(j, "unmatched", t->unmatched);
	ctl_json_u64(j, "torn", t->torn);
	ctl_json_u64(j, "bad_maps", t->bad_maps);
	ctl_json_u64(j, "stale_maps", t->stale_maps);
	ctl_json_end_object(j);
}

/**
 * ctl_hist_json() - the same tables as one JSON document
 * @j: the writer
 * @vm: the VM's name
 * @o: the tables
 * @n: how many
 *
 * { "vm": ..., "hists": [ { "name", "event", "latency", "trigger",
 * "state", "why", "keys": [ { "name", "transform", "bucket", "hex",
 * "nsecs" } ], "vals": [ names ], "entries": [ { "key": { name: value },
 * "hitcount", "vals": { name: sum } } ], "totals": { "hits", "entries",
 * "dropped", "nested", "unmatched", "torn", "bad_maps", "stale_maps" } } ] }
 * (keys, vals, entries and totals only for a running table)
 *
 * Context: any.
 */
void ctl_hist_json(struct ctl_json *j, const char *vm,
		   const struct gr_vm_hist_out *o, unsigned int n)
{
	char trig[GR_HIST_TEXT_LEN + GR_FX_MAX_LEN + 128];
	unsigned int i;

	ctl_json_begin_object(j, NULL);
	ctl_json_string(j, "vm", vm);
	ctl_json_begin_array(j, "hists");
	for (i = 0; i < n; i++) {
		ctl_hist_trigger(trig, sizeof(trig), &o[i]);
		ctl_json_begin_object(j, NULL);
		ctl_json_string(j, "name", o[i].h.name);
		ctl_json_string(j, "event", o[i].compiled ? o[i].spec.event :
				o[i].h.event);
		ctl_json_string(j, "latency", o[i].h.latency[0] ?
				o[i].h.latency : NULL);
		ctl_json_string(j, "trigger", trig);
		ctl_json_string(j, "state", o[i].state);
		ctl_json_string(j, "why", o[i].why[0] ? o[i].why : NULL);
		if (!strcmp(o[i].state, "running")) {
			json_columns(j, &o[i].spec);
			json_rows(j, &o[i]);
		}
		ctl_json_end_object(j);
	}
	ctl_json_end_array(j);
	ctl_json_end_object(j);
}
