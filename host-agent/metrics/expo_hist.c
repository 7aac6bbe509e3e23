// SPDX-License-Identifier: GPL-2.0
/*
 * expo_hist.c - the VMs' aggregation tables (spec 17) on the /metrics page
 *
 * A table whose key is a time in nanoseconds under .log2 (the latency
 * presets, or keys=delta.log2) becomes a Prometheus histogram:
 *
 *   guestrelay_vm_hist_<name>_seconds_bucket{vm="..",le="..."}
 *
 * log2 bucket k of the guest holds the delays d with 2^(k-1) < d <= 2^k
 * ns (bucket 0: d <= 1 ns), so its upper bound le is 2^k ns, written in
 * seconds; the buckets are cumulative, the same GR_EXPO_HIST_LOG2_MAX + 1
 * bounds for every VM (so that sum by (le) adds VMs up) and +Inf. _sum is
 * the sum of the delays when the request sums them (a vals= of the
 * delta), else an upper bound (each event at its bucket's le), as the
 * family's HELP says; _count is the events. A second key (a pair keyed by
 * call id, device or irq) becomes a label, one histogram per value.
 *
 * Any other table becomes counters, one series per entry, the keys as
 * labels (bounded by the table's entries): _hits_total and one
 * _<val>_total per vals= sum. Per table: hits, dropped, nested,
 * unmatched, entries, and whether it runs. Only tables in state running
 * have samples; the families appear once a VM has a request.
 */
#include <endian.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "expo.h"

#define GR_EXPO_HIST_LOG2_MAX	40	/* le up to 2^40 ns, about 18 min */

/* @src as a metric name part: [a-z0-9_], other bytes become '_' */
static void name_part(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		dst[i] = ((src[i] >= 'a' && src[i] <= 'z') ||
			  (src[i] >= '0' && src[i] <= '9')) ? src[i] :
			 (src[i] >= 'A' && src[i] <= 'Z') ? src[i] - 'A' + 'a' :
			 '_';
	dst[i] = '\0';
}

static bool running(const struct gr_vm_hist_out *o)
{
	return o->compiled && !strcmp(o->state, "running");
}

/* The value that sums the delays, or -1 */
static int delta_val(const struct gr_hist_spec *s)
{
	unsigned int i;

	for (i = 0; i < s->req.nr_vals && i < GR_HIST_MAX_VALS; i++)
		if (s->req.val[i].src == GR_HS_DELTA)
			return (int)i;
	return -1;
}

/*
 * The family of table @o: @kind 0 its histogram or hit counters, 1 + i
 * the counters of its value i; "" if it has none
 */
static void fam_name(char *buf, size_t len, const struct gr_vm_hist_out *o,
		     unsigned int kind)
{
	char n[GR_HIST_NAME_LEN], v[GR_HIST_COL_LEN];

	buf[0] = '\0';
	name_part(n, sizeof(n), o->spec.name);
	if (kind == 0) {
		snprintf(buf, len, "guestrelay_vm_hist_%s_%s", n,
			 gr_hist_latency_key(&o->spec) >= 0 ? "seconds" :
			 "hits_total");
	} else if (gr_hist_latency_key(&o->spec) < 0 &&
		   kind <= o->spec.req.nr_vals && kind <= GR_HIST_MAX_VALS) {
		name_part(v, sizeof(v), o->spec.val_name[kind - 1]);
		snprintf(buf, len, "guestrelay_vm_hist_%s_%s_total", n, v);
	}
}

/* Key @i's value as a label value, as `hist` shows it */
static void key_value(char *buf, size_t len, const struct gr_hist_spec *s,
		      unsigned int i, uint64_t v)
{
	const struct gr_hist_key *k = &s->req.key[i];

	if (s->key_display[i] & (GR_HD_HEX | GR_HD_SYM))
		snprintf(buf, len, "0x%" PRIx64, v);
	else if (k->xform == GR_HT_LOG2)
		snprintf(buf, len, "2^%" PRIu64, v);
	else if (k->xform == GR_HT_BUCKET)
		snprintf(buf, len, "%" PRIu64 "-%" PRIu64, v,
			 v + le64toh(k->arg) - 1);
	else if (k->flags & GR_HK_SIGNED)
		snprintf(buf, len, "%" PRId64, (int64_t)v);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

/* "{vm="..",KEY="..",...[,le=".."]} ": the keys but @skip as labels */
static void labels(FILE *f, const char *vm, const struct gr_hist_spec *s,
		   const struct gr_hist_row *r, int skip, const char *le)
{
	char lname[GR_HIST_COL_LEN + 8], val[48];
	unsigned int i;

	fputs("{vm=\"", f);
	expo_label_value(f, vm);
	fputc('"', f);
	for (i = 0; r && i < s->req.nr_keys && i < GR_HIST_MAX_KEYS; i++) {
		if ((int)i == skip)
			continue;
		name_part(lname + 4, sizeof(lname) - 4, s->key_name[i]);
		/* never one of ours, never a digit first or "__" */
		memcpy(lname, "key_", 4);
		key_value(val, sizeof(val), s, i, r->key[i]);
		fprintf(f, ",%s=\"", lname);
		expo_label_value(f, val);
		fputc('"', f);
	}
	if (le)
		fprintf(f, ",le=\"%s\"", le);
	fputs("} ", f);
}

/* Rows ordered by the keys other than @lat, then by @lat (qsort_r) */
static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct gr_hist_row *x = a, *y = b;
	int lat = *(const int *)arg, o = lat ? 0 : 1;

	if (x->key[o] != y->key[o])
		return x->key[o] < y->key[o] ? -1 : 1;
	if (x->key[lat] != y->key[lat])
		return x->key[lat] < y->key[lat] ? -1 : 1;
	return 0;
}

/* 2^@k as a double (@k above 64 counts as 64) */
static double pow2(uint64_t k)
{
	return k >= 64 ? 2.0 * (double)(1ULL << 63) : (double)(1ULL << k);
}

/* One histogram of the rows [@r, @end) that share their other key */
static void put_histogram(FILE *f, const char *fam, const char *vm,
			  const struct gr_hist_spec *s, int lat, int dv,
			  const struct gr_hist_row *r,
			  const struct gr_hist_row *end)
{
	uint64_t cnt[GR_EXPO_HIST_LOG2_MAX + 2] = { 0 }, total = 0;
	const struct gr_hist_row *p;
	double sum = 0;
	char le[32];
	unsigned int k;

	for (p = r; p < end; p++) {
		k = p->key[lat] > GR_EXPO_HIST_LOG2_MAX ?
			GR_EXPO_HIST_LOG2_MAX + 1 : (unsigned int)p->key[lat];
		cnt[k] += p->hitcount;
		total += p->hitcount;
		sum += dv >= 0 ? (double)p->val[dv] / 1e9 :
			(double)p->hitcount * pow2(p->key[lat]) / 1e9;
	}
	for (k = 0, total = 0; k <= GR_EXPO_HIST_LOG2_MAX; k++) {
		total += cnt[k];
		expo_format_double(le, sizeof(le), pow2(k) / 1e9);
		fprintf(f, "%s_bucket", fam);
		labels(f, vm, s, r, lat, le);
		fprintf(f, "%" PRIu64 "\n", total);
	}
	total += cnt[GR_EXPO_HIST_LOG2_MAX + 1];
	fprintf(f, "%s_bucket", fam);
	labels(f, vm, s, r, lat, "+Inf");
	fprintf(f, "%" PRIu64 "\n", total);
	fprintf(f, "%s_sum", fam);
	labels(f, vm, s, r, lat, NULL);
	expo_double(f, sum);
	fprintf(f, "%s_count", fam);
	labels(f, vm, s, r, lat, NULL);
	fprintf(f, "%" PRIu64 "\n", total);
}

/* Table @o's series of family @kind */
static void put_series(FILE *f, const char *vm, const struct gr_vm_hist_out *o,
		       unsigned int kind, const char *fam)
{
	const struct gr_hist_spec *s = &o->spec;
	const struct gr_hist_table *t = &o->table;
	struct gr_hist_row *rows, *g;
	int lat = gr_hist_latency_key(s);
	uint32_t i;

	if (lat < 0) {
		for (i = 0; i < t->nr_rows; i++) {
			fputs(fam, f);
			labels(f, vm, s, &t->rows[i], -1, NULL);
			fprintf(f, "%" PRIu64 "\n", kind ? t->rows[i].val[kind - 1] :
				t->rows[i].hitcount);
		}
		return;
	}
	if (!t->nr_rows) {
		struct gr_hist_row none = { { 0 }, 0, { 0 } };

		put_histogram(f, fam, vm, s, lat, delta_val(s), &none, &none);
		return;
	}
	rows = malloc(t->nr_rows * sizeof(*rows));
	if (!rows)
		return;
	memcpy(rows, t->rows, t->nr_rows * sizeof(*rows));
	if (s->req.nr_keys > 1)
		qsort_r(rows, t->nr_rows, sizeof(*rows), row_cmp, &lat);
	for (g = rows, i = 1; i <= t->nr_rows; i++) {
		if (i < t->nr_rows && (s->req.nr_keys < 2 ||
				       rows[i].key[!lat] == g->key[!lat]))
			continue;
		put_histogram(f, fam, vm, s, lat, delta_val(s), g, &rows[i]);
		g = &rows[i];
	}
	free(rows);
}

/* The HELP of table @o's family @kind */
static void fam_help(char *buf, size_t len, const struct gr_vm_hist_out *o,
		     unsigned int kind)
{
	const struct gr_hist_spec *s = &o->spec;

	if (kind)
		snprintf(buf, len, "Sum of %s per key of the guest's aggregation table %s on %s (spec 17).",
			 s->val_name[kind - 1], s->name, s->event);
	else if (gr_hist_latency_key(s) < 0)
		snprintf(buf, len, "Events per key of the guest's aggregation table %s on %s (spec 17).",
			 s->name, s->event);
	else
		snprintf(buf, len, "Log2 histogram %s of %s in seconds, counted in the guest (spec 17); _sum is %s.",
			 s->name, s->event, delta_val(s) >= 0 ?
			 "the sum of the delays" :
			 "approximate: each event at its bucket's upper bound");
}

/* Family @fam came before table @t of VM @i (or before @kind of it) */
static bool fam_before(const struct gr_expo_vm *vms, size_t i, unsigned int t,
		       unsigned int kind, const char *fam)
{
	char other[160];
	unsigned int u, k;
	size_t j;

	for (j = 0; j <= i; j++) {
		for (u = 0; u < vms[j].nr_hists && (j < i || u <= t); u++) {
			if (!running(&vms[j].hists[u]))
				continue;
			for (k = 0; k <= GR_HIST_MAX_VALS; k++) {
				if (j == i && u == t && k >= kind)
					break;
				fam_name(other, sizeof(other),
					 &vms[j].hists[u], k);
				if (!strcmp(fam, other))
					return true;
			}
		}
	}
	return false;
}

/* Family @fam, first of table @t of VM @i: its series from every VM */
static void fam_put(FILE *f, const struct gr_expo_vm *vms, size_t n,
		    size_t i, unsigned int t, unsigned int kind,
		    const char *fam)
{
	const struct gr_vm_hist_out *o = &vms[i].hists[t];
	char other[160], help[512];
	unsigned int u;
	size_t j;

	fam_help(help, sizeof(help), o, kind);
	expo_family(f, fam, !kind && gr_hist_latency_key(&o->spec) >= 0 ?
		    "histogram" : "counter", help);
	for (j = i; j < n; j++) {
		for (u = j == i ? t : 0; u < vms[j].nr_hists; u++) {
			if (!running(&vms[j].hists[u]))
				continue;
			fam_name(other, sizeof(other), &vms[j].hists[u], kind);
			if (!strcmp(fam, other))
				put_series(f, vms[j].info.name,
					   &vms[j].hists[u], kind, fam);
		}
	}
}

/* Every family of the tables, each once, its series from every VM */
static void table_families(FILE *f, const struct gr_expo_vm *vms, size_t n)
{
	unsigned int t, kind;
	char fam[160];
	size_t i;

	for (i = 0; i < n; i++) {
		for (t = 0; t < vms[i].nr_hists; t++) {
			if (!running(&vms[i].hists[t]))
				continue;
			for (kind = 0; kind <= GR_HIST_MAX_VALS; kind++) {
				fam_name(fam, sizeof(fam), &vms[i].hists[t],
					 kind);
				if (fam[0] && !fam_before(vms, i, t, kind, fam))
					fam_put(f, vms, n, i, t, kind, fam);
			}
		}
	}
}

/* The per-table counters: one family each, {vm, hist} */
static const struct {
	const char *name;
	const char *type;
	const char *help;
	size_t off;
} table_counters[] = {
	{ "guestrelay_vm_hist_hits_total", "counter",
	  "Events the guest's aggregation program accepted, all CPUs.",
	  offsetof(struct gr_hist_table, hits) },
	{ "guestrelay_vm_hist_dropped_total", "counter",
	  "Events accepted with no free map entry (ftrace's Dropped).",
	  offsetof(struct gr_hist_table, dropped) },
	{ "guestrelay_vm_hist_nested_total", "counter",
	  "Events skipped because they interrupted an update on their CPU.",
	  offsetof(struct gr_hist_table, nested) },
	{ "guestrelay_vm_hist_unmatched_total", "counter",
	  "Latency pairs: ends without their start.",
	  offsetof(struct gr_hist_table, unmatched) },
	{ "guestrelay_vm_hist_entries", "gauge",
	  "Keys in the aggregation table, all CPUs merged.",
	  offsetof(struct gr_hist_table, nr_rows) },
};

static void put_table_counter(FILE *f, const char *name, const char *vm,
			      const char *hist, uint64_t v)
{
	fprintf(f, "%s{vm=\"", name);
	expo_label_value(f, vm);
	fputs("\",hist=\"", f);
	expo_label_value(f, hist);
	fprintf(f, "\"} %" PRIu64 "\n", v);
}

/**
 * expo_hist_part() - the aggregation tables of the VMs
 * @f: the page
 * @vms: the VMs, their tables read (vm_hist_read())
 * @n: how many
 *
 * Context: any thread; reads only its arguments.
 */
void expo_hist_part(FILE *f, const struct gr_expo_vm *vms, size_t n)
{
	const struct gr_hist_table *tb;
	unsigned int t, k;
	uint64_t v;
	size_t i, any = 0;

	for (i = 0; i < n; i++)
		any += vms[i].nr_hists;
	if (!any)
		return;
	expo_family(f, "guestrelay_vm_hist_running", "gauge",
		    "1 while the guest counts the aggregation request, 0 while it is pending or refused (guestrelay hist VM says why).");
	for (i = 0; i < n; i++)
		for (t = 0; t < vms[i].nr_hists; t++)
			put_table_counter(f, "guestrelay_vm_hist_running",
					  vms[i].info.name,
					  vms[i].hists[t].h.name,
					  running(&vms[i].hists[t]));
	for (k = 0; k < ARRAY_SIZE(table_counters); k++) {
		expo_family(f, table_counters[k].name, table_counters[k].type,
			    table_counters[k].help);
		for (i = 0; i < n; i++)
			for (t = 0; t < vms[i].nr_hists; t++) {
				if (!running(&vms[i].hists[t]))
					continue;
				tb = &vms[i].hists[t].table;
				if (table_counters[k].off ==
				    offsetof(struct gr_hist_table, nr_rows))
					v = tb->nr_rows;
				else
					memcpy(&v, (const char *)tb +
					       table_counters[k].off,
					       sizeof(v));
				put_table_counter(f, table_counters[k].name,
						  vms[i].info.name,
						  vms[i].hists[t].h.name, v);
			}
	}
	table_families(f, vms, n);
}
