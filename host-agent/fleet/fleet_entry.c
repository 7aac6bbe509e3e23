// SPDX-License-Identifier: GPL-2.0
/*
 * fleet_entry.c - the values of the fleet-status bucket: rendered by the
 * agent with the control plane's JSON writer, read back by `fleet status`
 * with jansson, which rejects malformed JSON and invalid UTF-8; every
 * field is then checked for type and range, and the names of the value
 * must be those its key encodes (fleet_entry.h)
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "agent.h"
#include "fleet_entry.h"
#include "fleet_status.h"
#include "out.h"

int fleet_entry_render(FILE *f, const char *host, const struct gr_vm_info *in,
		       double eps, const struct fleet_backlog *b,
		       uint32_t interval_ms, uint32_t ttl_s)
{
	struct ctl_json j;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ctl_json_init(&j, f);
	ctl_json_begin_object(&j, NULL);
	ctl_json_string(&j, "format", FLEET_FORMAT);
	ctl_json_u64(&j, "version", FLEET_VERSION);
	ctl_json_string(&j, "host", host);
	ctl_json_string(&j, "vm", in->name);
	ctl_json_string(&j, "agent_version", GR_VERSION);
	ctl_json_i64(&j, "time_ns", (int64_t)ts.tv_sec * 1000000000LL +
		     ts.tv_nsec);
	ctl_json_u64(&j, "interval_ms", interval_ms);
	ctl_json_u64(&j, "ttl_s", ttl_s);
	if (eps >= 0)
		ctl_json_double(&j, "events_per_s", eps);
	else
		ctl_json_null(&j, "events_per_s");
	if (b) {
		ctl_json_begin_object(&j, "backlog");
		ctl_json_u64(&j, "bytes", b->bytes);
		ctl_json_u64(&j, "packets", b->packets);
		ctl_json_i64(&j, "oldest_age_ms", b->oldest_age_ms);
		ctl_json_end_object(&j);
	} else {
		ctl_json_null(&j, "backlog");
	}
	ctl_status_json_member(&j, "status", in);
	ctl_json_end_object(&j);
	return ctl_json_finish(&j) ? -EINVAL : 0;
}

bool fleet_name_ok(const char *s)
{
	char shown[4 * FLEET_HOST_MAX];

	if (!*s || strlen(s) >= FLEET_HOST_MAX)
		return false;
	/* ctl_one_line() changes nothing in printable UTF-8 but '\\' */
	ctl_one_line(shown, sizeof(shown), s);
	return !strcmp(shown, s);
}

/* ---- reading --------------------------------------------------------- */

static void why(struct fleet_row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void why(struct fleet_row *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0])
		return;		/* the first reason is the one shown */
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

/*
 * a non-negative integer member; integers above INT64_MAX (the agent's
 * saturated counters) arrive as reals (JSON_DECODE_INT_AS_REAL retry)
 */
static bool get_u64(struct fleet_row *r, json_t *o, const char *k,
		    uint64_t *v)
{
	json_t *x = json_object_get(o, k);
	double d;

	if (json_is_integer(x) && json_integer_value(x) >= 0) {
		*v = (uint64_t)json_integer_value(x);
		return true;
	}
	if (json_is_real(x)) {
		d = json_real_value(x);
		if (d >= 0 && d == floor(d)) {
			*v = d >= 18446744073709551615.0 ? UINT64_MAX :
				(uint64_t)d;
			return true;
		}
	}
	why(r, "%s: not a count", k);
	return false;
}

static bool get_i64(struct fleet_row *r, json_t *o, const char *k,
		    int64_t *v)
{
	json_t *x = json_object_get(o, k);

	if (json_is_integer(x)) {
		*v = (int64_t)json_integer_value(x);
		return true;
	}
	why(r, "%s: not an integer", k);
	return false;
}

/* a finite, non-negative number; null gives -1 if @null_ok */
static bool get_rate(struct fleet_row *r, json_t *o, const char *k,
		     bool null_ok, double *v)
{
	json_t *x = json_object_get(o, k);

	if (null_ok && json_is_null(x)) {
		*v = -1;
		return true;
	}
	if (json_is_number(x) && isfinite(json_number_value(x)) &&
	    json_number_value(x) >= 0) {
		*v = json_number_value(x);
		return true;
	}
	why(r, "%s: not a rate", k);
	return false;
}

/* a string member that fits @len, no NUL inside */
static bool get_str(struct fleet_row *r, json_t *o, const char *k,
		    char *dst, size_t len)
{
	json_t *x = json_object_get(o, k);

	if (!json_is_string(x) || json_string_length(x) >= len ||
	    strlen(json_string_value(x)) != json_string_length(x)) {
		why(r, "%s: not a string of at most %zu bytes", k, len - 1);
		return false;
	}
	memcpy(dst, json_string_value(x), json_string_length(x) + 1);
	return true;
}

static bool one_of(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/*
 * status.host: QEMU's vCPU threads on the agent's host, each with the
 * seconds it was runnable and not running (steal, control/status.c);
 * absent from an agent that found no QEMU, or that predates it
 */
static void parse_host(struct fleet_row *r, json_t *h)
{
	json_t *cpus, *c, *x;
	double steal;
	size_t i;

	if (!h)
		return;
	cpus = json_object_get(h, "vcpus");
	if (!json_is_object(h) || !json_is_array(cpus) ||
	    json_array_size(cpus) > FLEET_VCPUS_MAX) {
		why(r, "host: not an object with at most %d vcpus",
		    FLEET_VCPUS_MAX);
		return;
	}
	json_array_foreach(cpus, i, c) {
		if (!json_is_object(c) ||
		    !get_rate(r, c, "steal_s", false, &steal))
			return;
		x = json_object_get(c, "vcpu");
		if (!(json_is_integer(x) && json_integer_value(x) >= 0 &&
		      json_integer_value(x) < FLEET_VCPUS_MAX) &&
		    !(json_is_string(x) && !strcmp(json_string_value(x), "all"))) {
			why(r, "host: vcpu: not an index or \"all\"");
			return;
		}
		r->steal_s += steal;
		if (!i || steal > r->steal_max_s) {
			r->steal_max_s = steal;
			if (json_is_string(x))
				snprintf(r->steal_max_vcpu,
					 sizeof(r->steal_max_vcpu), "all");
			else
				snprintf(r->steal_max_vcpu,
					 sizeof(r->steal_max_vcpu), "%d",
					 (int)json_integer_value(x));
		}
	}
	r->nr_vcpus = (int)json_array_size(cpus);
}

/* "status.latency[i]: " before the reason a getter gave */
static void why_in_latency(struct fleet_row *r, size_t i)
{
	char was[sizeof(r->why)];

	memcpy(was, r->why, sizeof(was));
	snprintf(r->why, sizeof(r->why), "status: latency[%zu]: %.100s", i,
		 was);
}

/* one table of status.latency (control/status.c): false if bad */
static bool parse_lat_table(struct fleet_row *r, json_t *t)
{
	static const char *const presets[] = {
		"runq", "syscall", "block", "irq", NULL
	};
	char name[GR_HIST_NAME_LEN], preset[GR_VM_HIST_PRESET] = "";
	uint64_t count, dropped;
	double p50, p99;

	if (!json_is_object(t)) {
		why(r, "not an object");
		return false;
	}
	if (!get_str(r, t, "name", name, sizeof(name)))
		return false;
	if (!fleet_name_ok(name)) {
		why(r, "name: not printable text");
		return false;
	}
	if (!json_is_null(json_object_get(t, "preset")) &&
	    (!get_str(r, t, "preset", preset, sizeof(preset)) ||
	     !one_of(preset, presets))) {
		why(r, "preset: not null or a latency preset");
		return false;
	}
	if (!get_u64(r, t, "count", &count) ||
	    !get_u64(r, t, "dropped", &dropped) ||
	    !get_rate(r, t, "p50_s", true, &p50) ||
	    !get_rate(r, t, "p99_s", true, &p99))
		return false;
	/* null exactly when there are no events, and p50 <= p99 */
	if ((p50 < 0) != !count || (p99 < 0) != !count || p50 > p99) {
		why(r, "p50_s, p99_s: not null without events, else p50_s <= p99_s");
		return false;
	}
	if (!strcmp(preset, "runq") && !r->has_runq) {
		r->has_runq = true;
		r->runq_p50_s = p50;
		r->runq_p99_s = p99;
	}
	return true;
}

/*
 * status.latency: at most FLEET_LAT_MAX tables, each checked; absent from
 * an agent that predates it (then an empty array is kept)
 */
static void parse_latency(struct fleet_row *r, json_t *a)
{
	json_t *t;
	size_t i;

	if (r->why[0])
		return;		/* invalid already: a reason is shown */
	if (!a) {
		r->latency = json_array();
		return;
	}
	if (!json_is_array(a) || json_array_size(a) > FLEET_LAT_MAX) {
		why(r, "status: latency: not an array of at most %d tables",
		    FLEET_LAT_MAX);
		return;
	}
	json_array_foreach(a, i, t) {
		if (!parse_lat_table(r, t)) {
			why_in_latency(r, i);
			return;
		}
	}
	r->latency = json_incref(a);
}

static void parse_status(struct fleet_row *r, json_t *st)
{
	static const char *const states[] = {
		"waiting", "attached", "stopped", NULL
	};
	char name[GR_VM_NAME_MAX];
	json_t *s;

	if (!json_is_object(st)) {
		why(r, "status: not an object");
		return;
	}
	if (get_str(r, st, "name", name, sizeof(name)) &&
	    strcmp(name, r->vm))
		why(r, "status: the name is not the entry's VM");
	if (get_str(r, st, "state", r->state, sizeof(r->state)) &&
	    !one_of(r->state, states))
		why(r, "status: unknown state");
	if (json_is_null(json_object_get(st, "guest_state")))
		snprintf(r->guest_state, sizeof(r->guest_state), "-");
	else
		get_str(r, st, "guest_state", r->guest_state,
			sizeof(r->guest_state));
	get_rate(r, st, "rate_bps", false, &r->bytes_per_s);
	get_u64(r, st, "sync_error_ns", &r->sync_error_ns);
	s = json_object_get(st, "stats");
	if (!json_is_object(s)) {
		why(r, "status: no stats object");
		return;
	}
	get_u64(r, s, "bytes", &r->stored_bytes);
	get_u64(r, s, "packets", &r->stored_packets);
	get_u64(r, s, "lost_full", &r->lost_full);
	get_u64(r, s, "lost_too_big", &r->lost_too_big);
	get_u64(r, s, "lost_nested", &r->lost_nested);
	get_u64(r, s, "overwritten", &r->overwritten);
	get_u64(r, s, "invalid", &r->invalid);
	get_u64(r, s, "invalid_records", &r->invalid_records);
	parse_host(r, json_object_get(st, "host"));
	parse_latency(r, json_object_get(st, "latency"));
}

static void parse_backlog(struct fleet_row *r, json_t *b)
{
	if (json_is_null(b))
		return;
	if (!json_is_object(b)) {
		why(r, "backlog: not an object or null");
		return;
	}
	r->has_backlog = true;
	get_u64(r, b, "bytes", &r->backlog_bytes);
	get_u64(r, b, "packets", &r->backlog_packets);
	if (get_i64(r, b, "oldest_age_ms", &r->backlog_oldest_ms) &&
	    r->backlog_oldest_ms < 0)
		why(r, "backlog: negative age");
}

/* the JSON of @val, or NULL (@r says why) */
static json_t *load(struct fleet_row *r, const void *val, size_t len)
{
	json_error_t e;
	json_t *o;

	/* JSON_REJECT_DUPLICATES: one meaning per member */
	o = json_loadb(val, len, JSON_REJECT_DUPLICATES, &e);
	if (!o && strstr(e.text, "too big"))
		o = json_loadb(val, len, JSON_REJECT_DUPLICATES |
			       JSON_DECODE_INT_AS_REAL, &e);
	if (!o)
		why(r, "not JSON (byte %d: %s)", e.position, e.text);
	return o;
}

void fleet_entry_parse(struct fleet_row *r, const char *key,
		       const void *val, size_t len, int64_t age_ms)
{
	char host[FLEET_NAME_MAX], vm[FLEET_NAME_MAX], fmt[32];
	bool key_ok;
	uint64_t ver;
	json_t *o;

	memset(r, 0, sizeof(*r));
	r->age_ms = age_ms;
	r->events_per_s = -1;
	snprintf(r->key, sizeof(r->key), "%s", key);
	key_ok = strlen(key) < sizeof(r->key) &&
		 !fleet_key_decode(key, r->host, r->vm);
	if (!key_ok) {
		r->host[0] = r->vm[0] = '\0';
		why(r, "the key is not one an agent writes");
		return;
	}
	if (len > FLEET_VALUE_MAX) {
		why(r, "value of %zu bytes (at most %d)", len, FLEET_VALUE_MAX);
		return;
	}
	o = load(r, val, len);
	if (!o)
		return;
	if (!json_is_object(o)) {
		why(r, "not a JSON object");
		json_decref(o);
		return;
	}
	if (!get_str(r, o, "format", fmt, sizeof(fmt)) ||
	    strcmp(fmt, FLEET_FORMAT))
		why(r, "format: not %s", FLEET_FORMAT);
	else if (!get_u64(r, o, "version", &ver) || ver != FLEET_VERSION)
		why(r, "version: not %d", FLEET_VERSION);
	if (get_str(r, o, "host", host, sizeof(host)) &&
	    get_str(r, o, "vm", vm, sizeof(vm)) &&
	    (strcmp(host, r->host) || strcmp(vm, r->vm)))
		why(r, "host and vm are not those of the key");
	get_rate(r, o, "events_per_s", true, &r->events_per_s);
	parse_backlog(r, json_object_get(o, "backlog"));
	parse_status(r, json_object_get(o, "status"));
	r->valid = !r->why[0];
	if (r->valid)
		r->status = json_incref(json_object_get(o, "status"));
	json_decref(o);
}

void fleet_row_clear(struct fleet_row *r)
{
	json_decref(r->status);
	r->status = NULL;
	json_decref(r->latency);
	r->latency = NULL;
}

static int row_cmp(const void *a, const void *b)
{
	const struct fleet_row *x = a, *y = b;
	int c = strcmp(x->host, y->host);

	if (!c)
		c = strcmp(x->vm, y->vm);
	return c ? c : strcmp(x->key, y->key);
}

void fleet_rows_sort(struct fleet_row *rows, size_t n)
{
	if (n)
		qsort(rows, n, sizeof(*rows), row_cmp);
}

/* ---- printing -------------------------------------------------------- */

#define COLS	13

static const char *const heads[COLS] = {
	"HOST", "VM", "STATE", "EVENTS/S", "BYTES/S",
	"LOST full/too_big/nested/overwritten", "INVALID", "CLOCK ERR",
	"STEAL", "RUNQ p50/p99", "BACKLOG", "AGE", ""
};

static void human_count(char *b, size_t len, uint64_t v)
{
	if (v < 100000)
		snprintf(b, len, "%" PRIu64, v);
	else if (v < 100000000ULL)
		snprintf(b, len, "%.1fk", (double)v / 1e3);
	else
		snprintf(b, len, "%.1fM", (double)v / 1e6);
}

/* the cells of one row, each escaped and cut to fit */
static void cells(const struct fleet_row *r, char c[COLS][96])
{
	char a[32], b[32];
	unsigned int i;

	for (i = 0; i < COLS; i++)
		c[i][0] = '\0';
	ctl_one_line(c[0], sizeof(c[0]), r->host[0] || r->valid ?
		     r->host : "?");
	ctl_one_line(c[1], sizeof(c[1]), r->vm[0] || r->valid ? r->vm : "?");
	snprintf(c[11], sizeof(c[11]), "%.1fs", (double)r->age_ms / 1000.0);
	if (!r->valid) {
		/* the reason may quote a hostile writer's bytes: escaped */
		snprintf(c[2], sizeof(c[2]), "INVALID");
		ctl_one_line(c[12], sizeof(c[12]), r->why);
		for (i = 3; i < 11; i++)
			snprintf(c[i], sizeof(c[i]), "-");
		return;
	}
	snprintf(c[2], sizeof(c[2]), "%s", r->state);
	if (r->events_per_s < 0)
		snprintf(c[3], sizeof(c[3]), "-");
	else
		snprintf(c[3], sizeof(c[3]), "%.0f", r->events_per_s);
	ctl_human_bytes(c[4], sizeof(c[4]), r->bytes_per_s, "");
	human_count(a, sizeof(a), r->lost_full);
	human_count(b, sizeof(b), r->lost_too_big);
	snprintf(c[5], sizeof(c[5]), "%s/%s/", a, b);
	human_count(a, sizeof(a), r->lost_nested);
	human_count(b, sizeof(b), r->overwritten);
	snprintf(c[5] + strlen(c[5]), sizeof(c[5]) - strlen(c[5]), "%s/%s",
		 a, b);
	human_count(c[6], sizeof(c[6]), r->invalid);
	if (r->sync_error_ns)
		snprintf(c[7], sizeof(c[7]), "+/-%.1fus",
			 (double)r->sync_error_ns / 1000.0);
	else
		snprintf(c[7], sizeof(c[7]), "-");
	/* the VM's steal, and the vCPU that lost the most if several */
	if (!r->nr_vcpus)
		snprintf(c[8], sizeof(c[8]), "-");
	else if (r->nr_vcpus == 1)
		snprintf(c[8], sizeof(c[8]), "%.1fs", r->steal_s);
	else
		snprintf(c[8], sizeof(c[8]), "%.1fs/v%s:%.1fs", r->steal_s,
			 r->steal_max_vcpu, r->steal_max_s);
	/* the run-queue latency table's p50/p99 ("-/-" without events) */
	if (r->has_runq) {
		ctl_human_seconds(a, sizeof(a), r->runq_p50_s);
		ctl_human_seconds(b, sizeof(b), r->runq_p99_s);
		snprintf(c[9], sizeof(c[9]), "%s/%s", a, b);
	} else {
		snprintf(c[9], sizeof(c[9]), "-");
	}
	if (r->has_backlog) {
		ctl_human_bytes(a, sizeof(a), (double)r->backlog_bytes, "");
		snprintf(c[10], sizeof(c[10]), "%s/%" PRIu64 "pk/%.1fs", a,
			 r->backlog_packets,
			 (double)r->backlog_oldest_ms / 1000.0);
	} else {
		snprintf(c[10], sizeof(c[10]), "-");
	}
}

void fleet_print_table(FILE *f, const struct fleet_row *rows, size_t n)
{
	char (*c)[COLS][96];
	size_t w[COLS], i, k, len;

	c = calloc(n ? n : 1, sizeof(*c));
	if (!c)
		return;
	for (k = 0; k < COLS; k++)
		w[k] = strlen(heads[k]);
	w[5] = 12;	/* the long head is shortened below */
	for (i = 0; i < n; i++) {
		cells(&rows[i], c[i]);
		for (k = 0; k < COLS; k++) {
			len = strlen(c[i][k]);
			w[k] = len > w[k] ? len : w[k];
		}
	}
	for (k = 0; k < COLS - 1; k++)
		fprintf(f, "%-*s%s", k == COLS - 2 ? 0 : (int)w[k],
			k == 5 ? "LOST f/t/n/o" : heads[k],
			k == COLS - 2 ? "\n" : "  ");
	for (i = 0; i < n; i++) {
		for (k = 0; k < COLS - 1; k++)
			fprintf(f, "%-*s%s", k == COLS - 2 ? 0 : (int)w[k],
				c[i][k], k == COLS - 2 ? "" : "  ");
		if (c[i][12][0])
			fprintf(f, "  %s", c[i][12]);
		fputc('\n', f);
	}
	free(c);
}

/* @s as a JSON string: as it is if it is valid UTF-8 (jansson checks),
 * else escaped (\xNN, ctl_one_line()) */
static json_t *jstr(const char *s)
{
	char buf[4 * FLEET_NAME_MAX + 4];
	json_t *x = json_string(s);

	if (x)
		return x;
	ctl_one_line(buf, sizeof(buf), s);
	return json_string(buf);
}

/* a count: an integer, or a real above INT64_MAX (saturated counters) */
static json_t *ju64(uint64_t v)
{
	return v > INT64_MAX ? json_real((double)v) :
		json_integer((json_int_t)v);
}

int fleet_print_json(FILE *f, const struct fleet_row *rows, size_t n)
{
	json_t *arr = json_array(), *o, *b;
	const struct fleet_row *r;
	size_t i;
	int ret;

	if (!arr)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		r = &rows[i];
		o = json_object();
		if (!o)
			break;
		json_object_set_new(o, "key", jstr(r->key));
		json_object_set_new(o, "host", jstr(r->host));
		json_object_set_new(o, "vm", jstr(r->vm));
		json_object_set_new(o, "valid", json_boolean(r->valid));
		json_object_set_new(o, "age_ms", json_integer(r->age_ms));
		if (!r->valid) {
			json_object_set_new(o, "error", jstr(r->why));
			json_array_append_new(arr, o);
			continue;
		}
		json_object_set_new(o, "state", json_string(r->state));
		json_object_set_new(o, "guest_state",
				    json_string(r->guest_state));
		json_object_set_new(o, "events_per_s", r->events_per_s < 0 ?
				    json_null() : json_real(r->events_per_s));
		json_object_set_new(o, "bytes_per_s",
				    json_real(r->bytes_per_s));
		b = json_object();
		json_object_set_new(b, "full", ju64(r->lost_full));
		json_object_set_new(b, "too_big", ju64(r->lost_too_big));
		json_object_set_new(b, "nested", ju64(r->lost_nested));
		json_object_set_new(b, "overwritten", ju64(r->overwritten));
		json_object_set_new(o, "lost", b);
		json_object_set_new(o, "invalid", ju64(r->invalid));
		json_object_set_new(o, "sync_error_ns", ju64(r->sync_error_ns));
		/* per vCPU: status.host.vcpus[].steal_s */
		json_object_set_new(o, "steal_s", r->nr_vcpus ?
				    json_real(r->steal_s) : json_null());
		if (r->has_backlog) {
			b = json_object();
			json_object_set_new(b, "bytes", ju64(r->backlog_bytes));
			json_object_set_new(b, "packets", ju64(r->backlog_packets));
			json_object_set_new(b, "oldest_age_ms", json_integer(
					    r->backlog_oldest_ms));
			json_object_set_new(o, "backlog", b);
		} else {
			json_object_set_new(o, "backlog", json_null());
		}
		/* status.latency, checked: [] from an older agent */
		json_object_set(o, "latency", r->latency);
		json_object_set(o, "status", r->status);
		json_array_append_new(arr, o);
	}
	ret = json_dumpf(arr, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(arr);
	return ret || i < n ? -EIO : 0;
}
