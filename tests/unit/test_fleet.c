// SPDX-License-Identifier: GPL-2.0
/*
 * test_fleet.c - fleet status (host-agent/fleet): the injective encoding
 * of host and VM names into bucket keys (fleet_key.c), the values agents
 * write and what `fleet status` makes of values anyone could write
 * (fleet_entry.c), and the NATS URL and credentials-file checks shared
 * with shipping (nats_opts.c)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "fleet_entry.h"
#include "fleet_key.h"
#include "fleet_status.h"
#include "gr_test.h"
#include "nats_opts.h"

/* names no encoding may confuse: separators, wildcards, escapes */
static const char *const hostile[] = {
	"a", "a.b", "a_2Eb", "a_2eb", "a.", ".a", "..", ".", "_", "__",
	"=", "==", "", "*", ">", "a b", "a\tb", "/", "a/b", "a=b",
	"-", "A", "%41", "\x7f", "\xff", "\xc3\xa9t\xc3\xa9", "a>b.c*",
	"_41", "A_", "$KV.x", "a\\b", "\"", "x\ny", "\x1b[2J",
};

#define N_HOSTILE	ARRAY_SIZE(hostile)

static bool key_chars_ok(const char *k)
{
	const char *p;

	for (p = k; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-/_=.", *p))
			return false;
	return true;
}

/* exactly one '.', no empty token */
static bool two_tokens(const char *k)
{
	const char *d = strchr(k, '.');

	return d && d != k && d[1] && !strchr(d + 1, '.');
}

static void test_key_round_trip_hostile(void)
{
	char key[FLEET_KEY_MAX], h[FLEET_NAME_MAX], v[FLEET_NAME_MAX];
	unsigned int i, j;

	for (i = 0; i < N_HOSTILE; i++) {
		for (j = 0; j < N_HOSTILE; j++) {
			CU_ASSERT_EQUAL_FATAL(fleet_key_encode(hostile[i],
					      hostile[j], key, sizeof(key)), 0);
			CU_ASSERT(key_chars_ok(key));
			CU_ASSERT(two_tokens(key));
			CU_ASSERT_EQUAL_FATAL(fleet_key_decode(key, h, v), 0);
			CU_ASSERT_STRING_EQUAL(h, hostile[i]);
			CU_ASSERT_STRING_EQUAL(v, hostile[j]);
		}
	}
}

/* every pair of distinct (host, VM) gives a distinct key */
static void test_key_injective_hostile(void)
{
	static char keys[N_HOSTILE * N_HOSTILE][FLEET_KEY_MAX];
	unsigned int i, j, n = 0;

	for (i = 0; i < N_HOSTILE; i++)
		for (j = 0; j < N_HOSTILE; j++)
			CU_ASSERT_EQUAL_FATAL(fleet_key_encode(hostile[i],
					      hostile[j], keys[n++],
					      FLEET_KEY_MAX), 0);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			CU_ASSERT(strcmp(keys[i], keys[j]) != 0);
}

static void test_key_examples(void)
{
	char key[FLEET_KEY_MAX];

	CU_ASSERT_EQUAL(fleet_key_encode("h1", "vm-1", key, sizeof(key)), 0);
	CU_ASSERT_STRING_EQUAL(key, "h1.vm-1");
	fleet_key_encode("a.b", "c", key, sizeof(key));
	CU_ASSERT_STRING_EQUAL(key, "a_2Eb.c");
	fleet_key_encode("a", "b.c", key, sizeof(key));
	CU_ASSERT_STRING_EQUAL(key, "a.b_2Ec");
	fleet_key_encode("", "_", key, sizeof(key));
	CU_ASSERT_STRING_EQUAL(key, "=._5F");
	fleet_key_encode("*", ">", key, sizeof(key));
	CU_ASSERT_STRING_EQUAL(key, "_2A._3E");
}

static void test_key_random_round_trip(void)
{
	char a[FLEET_NAME_MAX], b[FLEET_NAME_MAX], key[FLEET_KEY_MAX];
	char h[FLEET_NAME_MAX], v[FLEET_NAME_MAX];
	uint64_t st = gr_test_seed("test_fleet");
	unsigned int i, k, la, lb;

	for (i = 0; i < 20000; i++) {
		la = (unsigned int)(gr_test_rand(&st) % 12);
		lb = (unsigned int)(gr_test_rand(&st) % 12);
		if (i % 100 == 0)
			la = FLEET_NAME_MAX - 1;	/* the longest */
		for (k = 0; k < la; k++)
			a[k] = (char)(1 + gr_test_rand(&st) % 255);
		for (k = 0; k < lb; k++)	/* mostly the tricky ones */
			b[k] = "._=/*> aZ9-\xff"[gr_test_rand(&st) % 12];
		a[la] = b[lb] = '\0';
		CU_ASSERT_EQUAL_FATAL(fleet_key_encode(a, b, key, sizeof(key)),
				      0);
		CU_ASSERT(key_chars_ok(key));
		CU_ASSERT(two_tokens(key));
		CU_ASSERT_EQUAL_FATAL(fleet_key_decode(key, h, v), 0);
		CU_ASSERT_STRING_EQUAL(h, a);
		CU_ASSERT_STRING_EQUAL(v, b);
	}
}

/* only the keys the encoder writes decode: one key per name pair */
static void test_key_decode_rejects(void)
{
	static const char *const bad[] = {
		"", ".", "a", "a.", ".a", "a.b.c", "a..b", "_2e.x", "_41.x",
		"_00.x", "_4.x", "x._4", "x._", "==.x", "a=.x", "=a.x",
		"a b.c", "*.x", "x.>", "x/y.z", "_2G.x", "a._2Eb.c",
	};
	char h[FLEET_NAME_MAX], v[FLEET_NAME_MAX], big[FLEET_KEY_MAX + 8];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CU_ASSERT_EQUAL(fleet_key_decode(bad[i], h, v), -EINVAL);
	/* a name longer than FLEET_NAME_MAX - 1 */
	memset(big, 'a', FLEET_NAME_MAX);
	big[FLEET_NAME_MAX] = '.';
	big[FLEET_NAME_MAX + 1] = 'b';
	big[FLEET_NAME_MAX + 2] = '\0';
	CU_ASSERT_EQUAL(fleet_key_decode(big, h, v), -EINVAL);
}

static void test_key_too_long(void)
{
	char name[FLEET_NAME_MAX + 1], key[FLEET_KEY_MAX];

	memset(name, '.', FLEET_NAME_MAX);
	name[FLEET_NAME_MAX] = '\0';
	CU_ASSERT_EQUAL(fleet_key_encode(name, "v", key, sizeof(key)),
			-ENAMETOOLONG);
	name[FLEET_NAME_MAX - 1] = '\0';	/* the longest allowed */
	CU_ASSERT_EQUAL(fleet_key_encode(name, name, key, sizeof(key)), 0);
	CU_ASSERT_EQUAL(strlen(key), FLEET_KEY_MAX - 1);
	CU_ASSERT_EQUAL(fleet_key_encode("abc", "d.e", key, 7),
			-ENAMETOOLONG);
	CU_ASSERT_STRING_EQUAL(key, "");
	CU_ASSERT_EQUAL(fleet_key_encode("abc", "d", key, 6), 0);
}

static void test_host_name_check(void)
{
	char big[FLEET_HOST_MAX + 1];

	CU_ASSERT(fleet_name_ok("h.example.org"));
	CU_ASSERT(fleet_name_ok("a b/c*>"));
	CU_ASSERT(fleet_name_ok("h\xc3\xa9te"));
	CU_ASSERT(!fleet_name_ok("h\xff"));
	CU_ASSERT(!fleet_name_ok("h\xc3"));
	CU_ASSERT(!fleet_name_ok("a\\b"));
	CU_ASSERT(!fleet_name_ok(""));
	CU_ASSERT(!fleet_name_ok("a\nb"));
	CU_ASSERT(!fleet_name_ok("\x1b[2J"));
	memset(big, 'h', FLEET_HOST_MAX);
	big[FLEET_HOST_MAX] = '\0';
	CU_ASSERT(!fleet_name_ok(big));
	big[FLEET_HOST_MAX - 1] = '\0';
	CU_ASSERT(fleet_name_ok(big));
}

/* ---- values --------------------------------------------------------- */

static struct gr_vm_info *info_of(const char *name)
{
	struct gr_vm_info *in = calloc(1, sizeof(*in));

	snprintf(in->name, sizeof(in->name), "%s", name);
	in->state = "attached";
	in->guest_state = "tracing";
	in->io = "writev";
	in->rate_bps = 12345.5;
	in->sync_error_ns = 21000;
	in->st.bytes = 987654321;
	in->st.packets = 4321;
	in->st.lost_full = 1;
	in->st.lost_too_big = 2;
	in->st.lost_nested = 3;
	in->st.overwritten = 4;
	in->st.invalid = 5;
	in->st.invalid_records = 6;
	in->st.guest_events = 77;
	return in;
}

static char *render(const char *host, const struct gr_vm_info *in,
		    double eps, const struct fleet_backlog *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_EQUAL(fleet_entry_render(f, host, in, eps, b, 3000, 15), 0);
	fclose(f);
	return buf;
}

static void parse_str(struct fleet_row *r, const char *key, const char *v)
{
	fleet_entry_parse(r, key, v, strlen(v), 1500);
}

static void test_entry_round_trip(void)
{
	struct fleet_backlog b = { 1000, 10, 2500 };
	struct gr_vm_info *in = info_of("vm.1");
	char key[FLEET_KEY_MAX], *v;
	struct fleet_row r;

	fleet_key_encode("host a.b", "vm.1", key, sizeof(key));
	v = render("host a.b", in, 42.5, &b);
	parse_str(&r, key, v);
	CU_ASSERT_TRUE(r.valid);
	CU_ASSERT_STRING_EQUAL(r.why, "");
	CU_ASSERT_STRING_EQUAL(r.host, "host a.b");
	CU_ASSERT_STRING_EQUAL(r.vm, "vm.1");
	CU_ASSERT_STRING_EQUAL(r.state, "attached");
	CU_ASSERT_STRING_EQUAL(r.guest_state, "tracing");
	CU_ASSERT_DOUBLE_EQUAL(r.events_per_s, 42.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.bytes_per_s, 12345.5, 1e-9);
	CU_ASSERT_EQUAL(r.stored_bytes, 987654321);
	CU_ASSERT_EQUAL(r.stored_packets, 4321);
	CU_ASSERT_EQUAL(r.lost_full, 1);
	CU_ASSERT_EQUAL(r.lost_too_big, 2);
	CU_ASSERT_EQUAL(r.lost_nested, 3);
	CU_ASSERT_EQUAL(r.overwritten, 4);
	CU_ASSERT_EQUAL(r.invalid, 5);
	CU_ASSERT_EQUAL(r.invalid_records, 6);
	CU_ASSERT_EQUAL(r.sync_error_ns, 21000);
	CU_ASSERT_TRUE(r.has_backlog);
	CU_ASSERT_EQUAL(r.backlog_bytes, 1000);
	CU_ASSERT_EQUAL(r.backlog_packets, 10);
	CU_ASSERT_EQUAL(r.backlog_oldest_ms, 2500);
	CU_ASSERT_EQUAL(r.age_ms, 1500);
	CU_ASSERT_PTR_NOT_NULL(r.status);
	fleet_row_clear(&r);
	free(v);

	/* no rate yet, not shipped */
	v = render("host a.b", in, -1, NULL);
	parse_str(&r, key, v);
	CU_ASSERT_TRUE(r.valid);
	CU_ASSERT(r.events_per_s < 0);
	CU_ASSERT_FALSE(r.has_backlog);
	fleet_row_clear(&r);
	free(v);
	free(in);
}

static char *table(const struct fleet_row *rows, size_t n);
/* an edit of a rendered value: @from becomes @to, which @why rejects */
struct edit {
	const char *from, *to, *why;
};

static char *subst(const char *s, const char *from, const char *to);
static void expect_invalid(const char *key, const char *val, size_t len,
			   const char *why);
static void expect_edits_invalid(const char *v, const struct edit *edits,
				 size_t n);

/* steal per vCPU (status.host.vcpus) reaches the table */
static void test_entry_steal(void)
{
	struct gr_vm_info *in = info_of("v");
	struct fleet_row r;
	char *v, *t;

	in->vcpus.pid = 1234;
	in->vcpus.n = 2;
	in->vcpus.cpu[0] = (struct gr_vcpu){ 0, 1235, 0, 4000000000ULL,
					     300000000ULL };
	in->vcpus.cpu[1] = (struct gr_vcpu){ 1, 1236, 1, 4000000000ULL,
					     1500000000ULL };
	v = render("h", in, 1, NULL);
	parse_str(&r, "h.v", v);
	CU_ASSERT_TRUE(r.valid);
	CU_ASSERT_EQUAL(r.nr_vcpus, 2);
	CU_ASSERT_DOUBLE_EQUAL(r.steal_s, 1.8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.steal_max_s, 1.5, 1e-9);
	CU_ASSERT_STRING_EQUAL(r.steal_max_vcpu, "1");
	t = table(&r, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "STEAL"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, " 1.8s/v1:1.5s "));
	free(t);
	fleet_row_clear(&r);
	free(v);

	/* one thread runs every vCPU (single-threaded TCG) */
	in->vcpus.n = 1;
	in->vcpus.cpu[0].index = GR_VCPU_ALL;
	v = render("h", in, 1, NULL);
	parse_str(&r, "h.v", v);
	CU_ASSERT_TRUE(r.valid);
	CU_ASSERT_STRING_EQUAL(r.steal_max_vcpu, "all");
	t = table(&r, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, " 0.3s "));
	free(t);
	fleet_row_clear(&r);
	free(v);

	/* no QEMU found: no steal, "-" */
	in->vcpus.n = 0;
	v = render("h", in, 1, NULL);
	parse_str(&r, "h.v", v);
	CU_ASSERT_TRUE(r.valid);
	CU_ASSERT_EQUAL(r.nr_vcpus, 0);
	fleet_row_clear(&r);
	free(v);
	free(in);
}

/* a running latency table of @in (status.latency) */
static void lat_add(struct gr_vm_info *in, const char *name,
		    const char *preset, uint64_t count, double p50, double p99)
{
	struct gr_vm_lat *l = &in->lat[in->nr_lat++];

	snprintf(l->name, sizeof(l->name), "%s", name);
	snprintf(l->preset, sizeof(l->preset), "%s", preset);
	l->count = count;
	l->p50_s = p50;
	l->p99_s = p99;
	l->dropped = 3;
}

/* @v parsed: valid, and its RUNQ cell in the table is @cell */
static void expect_runq_cell(const char *v, const char *cell)
{
	struct fleet_row r;
	char *t;

	parse_str(&r, "h.v", v);
	CU_ASSERT_TRUE_FATAL(r.valid);
	t = table(&r, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, " RUNQ p50/p99 "));
	if (!strstr(t, cell))
		fprintf(stderr, "\n  expected '%s' in\n%s", cell, t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, cell));
	free(t);
	fleet_row_clear(&r);
}

/* the running latency tables (status.latency) reach the table and --json */
static void test_entry_latency(void)
{
	struct gr_vm_info *in = info_of("v");
	struct fleet_row r;
	char *v, *buf = NULL;
	size_t len = 0;
	FILE *f;

	lat_add(in, "syscall", "syscall", 50, 1024e-9, 131072e-9);
	lat_add(in, "runq", "runq", 1000, 4096e-9, 1048576e-9);
	v = render("h", in, 1, NULL);
	parse_str(&r, "h.v", v);
	CU_ASSERT_TRUE(r.valid);
	CU_ASSERT_TRUE(r.has_runq);
	CU_ASSERT_DOUBLE_EQUAL(r.runq_p50_s, 4096e-9, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(r.runq_p99_s, 1048576e-9, 1e-15);
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(fleet_print_json(f, &r, 1), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"latency\": [\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"name\": \"runq\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"count\": 1000"));
	free(buf);
	fleet_row_clear(&r);
	expect_runq_cell(v, " 4.1us/1.0ms ");
	free(v);

	/* a runq table without events yet */
	in->nr_lat = 0;
	lat_add(in, "runq", "runq", 0, -1, -1);
	v = render("h", in, 1, NULL);
	expect_runq_cell(v, " -/- ");
	free(v);

	/* latency tables, none of them runq; a keys=delta.log2 one */
	in->nr_lat = 0;
	lat_add(in, "wakeups", "", 7, 2e-9, 2e-9);
	v = render("h", in, 1, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(v, "\"preset\": null"));
	parse_str(&r, "h.v", v);
	CU_ASSERT_TRUE(r.valid);
	CU_ASSERT_FALSE(r.has_runq);
	fleet_row_clear(&r);
	free(v);
	free(in);
}

/* an agent that predates status.latency: valid, "-", latency [] */
static void test_entry_latency_older_agent(void)
{
	struct gr_vm_info *in = info_of("v");
	struct fleet_row r;
	char *v, *old, *buf = NULL;
	size_t len = 0;
	FILE *f;

	v = render("h", in, 1, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(v, "\"latency\": []"));
	old = subst(v, "\"latency\": []", "\"lateness\": []");
	parse_str(&r, "h.v", old);
	CU_ASSERT_TRUE(r.valid);
	CU_ASSERT_FALSE(r.has_runq);
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(fleet_print_json(f, &r, 1), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"latency\": []"));
	free(buf);
	fleet_row_clear(&r);
	expect_runq_cell(old, " -  ");
	free(old);
	free(v);
	free(in);
}

/* status.latency from a hostile writer: the entry is INVALID, says why */
static void test_entry_latency_hostile(void)
{
	static const struct edit edits[] = {
		{ "\"latency\": [", "\"latency\": 5, \"l\": [", "latency: not an array" },
		{ "\"latency\": [", "\"latency\": {}, \"l\": [", "latency: not an array" },
		{ "\"latency\": [", "\"latency\": [1, ", "latency[0]: not an object" },
		{ "\"latency\": [", "\"latency\": [null, ", "latency[0]: not an object" },
		{ "\"name\": \"runq\"", "\"nome\": \"runq\"", "latency[0]: name: not a string" },
		{ "\"name\": \"runq\"", "\"name\": 5", "latency[0]: name: not a string" },
		{ "\"name\": \"runq\"", "\"name\": \"r234567890123456789012345678901x\"", "name: not a string of at most 31" },
		{ "\"name\": \"runq\"", "\"name\": \"\"", "name: not printable" },
		{ "\"name\": \"runq\"", "\"name\": \"\\u001b[2J\"", "name: not printable" },
		{ "\"name\": \"runq\"", "\"name\": \"a\\\\b\"", "name: not printable" },
		{ "\"name\": \"syscall\"", "\"name\": []", "latency[1]: name: not a string" },
		{ "\"preset\": \"runq\"", "\"preset\": \"fast\"", "preset: not null or" },
		{ "\"preset\": \"runq\"", "\"preset\": 1", "latency[0]: preset: not" },
		{ "\"preset\": \"runq\"", "\"preset\": \"runqqqqqqqqqqqqqqqqqqq\"", "latency[0]: preset: not" },
		{ "\"count\": 1000", "\"count\": -1", "count: not a count" },
		{ "\"count\": 1000", "\"count\": 1.5", "count: not a count" },
		{ "\"count\": 1000", "\"count\": \"many\"", "count: not a count" },
		{ "\"count\": 1000", "\"count\": 0", "not null without events" },
		{ "\"dropped\": 3", "\"dropped\": -3", "dropped: not a count" },
		{ "\"dropped\": 3", "\"dripped\": 3", "dropped: not a count" },
		{ "\"p50_s\": ", "\"p50_s\": -1, \"x\": ", "p50_s: not a rate" },
		{ "\"p50_s\": ", "\"p50_s\": null, \"x\": ", "not null without events" },
		{ "\"p50_s\": ", "\"p50_s\": 5, \"x\": ", "p50_s <= p99_s" },
		{ "\"p99_s\": ", "\"p99_s\": \"slow\", \"x\": ", "p99_s: not a rate" },
		{ "\"p99_s\": ", "\"p99_s\": true, \"x\": ", "p99_s: not a rate" },
		{ "\"p99_s\": ", "\"p99_s\": 1e999, \"x\": ", "not JSON" },
		{ "\"p99_s\": ", "\"p99_s\": 1, \"p99_s\": ", "not JSON" },
	};
	struct gr_vm_info *in = info_of("v");
	char *v, *e;
	unsigned int i;

	lat_add(in, "runq", "runq", 1000, 4096e-9, 1048576e-9);
	lat_add(in, "syscall", "syscall", 50, 1024e-9, 131072e-9);
	v = render("h", in, 1, NULL);
	expect_edits_invalid(v, edits, ARRAY_SIZE(edits));
	free(v);
	/* a table without events: its quantiles must be null */
	in->nr_lat = 0;
	lat_add(in, "runq", "runq", 0, -1, -1);
	v = render("h", in, 1, NULL);
	e = subst(v, "\"p50_s\": null", "\"p50_s\": 0");
	expect_invalid("h.v", e, strlen(e), "not null without events");
	free(e);
	free(v);
	/* more tables than a VM has request slots */
	in->nr_lat = 0;
	for (i = 0; i < FLEET_LAT_MAX; i++)
		lat_add(in, "runq", "runq", 1, 1e-9, 1e-9);
	v = render("h", in, 1, NULL);
	expect_runq_cell(v, " 1.0ns/1.0ns ");
	e = subst(v, "\"latency\": [", "\"latency\": [{}, ");
	expect_invalid("h.v", e, strlen(e), "at most 8 tables");
	free(e);
	free(v);
	free(in);
}

/* a guest can saturate its own counters: the entry stays valid */
static void test_entry_saturated_counters(void)
{
	struct gr_vm_info *in = info_of("v");
	char *v;
	struct fleet_row r;

	in->st.lost_full = UINT64_MAX;
	in->st.guest_events = UINT64_MAX;
	v = render("h", in, 1, NULL);
	parse_str(&r, "h.v", v);
	CU_ASSERT_TRUE(r.valid);
	CU_ASSERT_EQUAL(r.lost_full, UINT64_MAX);
	CU_ASSERT_EQUAL(r.stored_bytes, 987654321);
	fleet_row_clear(&r);
	free(v);
	free(in);
}

/* replace the first @from in @s by @to (a new string) */
static char *subst(const char *s, const char *from, const char *to)
{
	const char *p = strstr(s, from);
	char *out;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	out = malloc(strlen(s) - strlen(from) + strlen(to) + 1);
	memcpy(out, s, (size_t)(p - s));
	strcpy(out + (p - s), to);
	strcat(out, p + strlen(from));
	return out;
}

static void expect_invalid(const char *key, const char *val, size_t len,
			   const char *why)
{
	struct fleet_row r;

	fleet_entry_parse(&r, key, val, len, 0);
	CU_ASSERT_FALSE(r.valid);
	CU_ASSERT_PTR_NULL(r.status);
	if (!strstr(r.why, why))
		fprintf(stderr, "\n  expected '%s', got '%s'\n", why, r.why);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.why, why));
	fleet_row_clear(&r);
}

/* each edit of @v (key "h.v") is INVALID for its reason */
static void expect_edits_invalid(const char *v, const struct edit *edits,
				 size_t n)
{
	char *e;
	size_t i;

	for (i = 0; i < n; i++) {
		e = subst(v, edits[i].from, edits[i].to);
		expect_invalid("h.v", e, strlen(e), edits[i].why);
		free(e);
	}
}

static void test_entry_hostile_values(void)
{
	static const struct edit edits[] = {
		{ "\"format\": \"guestrelay-fleet-status\"",
		  "\"format\": \"other\"", "format" },
		{ "\"version\": 1", "\"version\": 2", "version" },
		{ "\"version\": 1", "\"version\": \"1\"", "version" },
		{ "\"host\": \"h\"", "\"host\": \"other\"", "not those of the key" },
		{ "\"vm\": \"v\"", "\"vm\": \"w\"", "not those of the key" },
		{ "\"vm\": \"v\"", "\"vm\": 5", "vm: not a string" },
		{ "\"host\": \"h\"", "\"host\": \"h\\u0000x\"", "not JSON" },
		{ "\"name\": \"v\"", "\"name\": \"w\"", "name is not" },
		{ "\"state\": \"attached\"", "\"state\": \"\\u001b[2J\"", "unknown state" },
		{ "\"events_per_s\": 1", "\"events_per_s\": -1", "events_per_s" },
		{ "\"events_per_s\": 1", "\"events_per_s\": \"fast\"", "events_per_s" },
		{ "\"lost_full\": 1", "\"lost_full\": -1", "lost_full" },
		{ "\"lost_full\": 1", "\"lost_full\": 1.5", "lost_full" },
		{ "\"bytes\": 987654321", "\"bytes\": null", "bytes" },
		{ "\"stats\": {", "\"stats\": [{", "not JSON" },
		{ "\"stats\": {", "\"statz\": {", "no stats" },
		{ "\"backlog\": null", "\"backlog\": 7", "backlog" },
		{ "\"backlog\": null", "\"backlog\": {\"bytes\": 1, \"packets\": 1, \"oldest_age_ms\": -5}", "negative age" },
		{ "\"backlog\": null", "\"backlog\": {}", "bytes" },
		{ "\"status\": {", "\"status\": 3, \"x\": {", "status: not an object" },
		{ "\"host\": \"h\"", "\"host\": \"h\", \"host\": \"h\"", "not JSON" },
		{ "\"rate_bps\": ", "\"rate_bps\": 1e999, \"r\": ", "not JSON" },
		{ "\"host\": {", "\"host\": 5, \"h\": {", "host: not an object" },
		{ "\"vcpus\": [", "\"vcpus\": 5, \"c\": [", "host: not an object" },
		{ "\"steal_s\": 0.5", "\"steal_s\": -0.3", "steal_s" },
		{ "\"steal_s\": 0.5", "\"steal_s\": \"a lot\"", "steal_s" },
		{ "\"vcpu\": 0", "\"vcpu\": -1", "vcpu: not an index" },
		{ "\"vcpu\": 0", "\"vcpu\": \"\\u001b[2J\"", "vcpu: not an index" },
	};
	struct gr_vm_info *in = info_of("v");
	char *v, *e, big[64];
	size_t n;

	in->vcpus.n = 1;
	in->vcpus.cpu[0] = (struct gr_vcpu){ 0, 2, 0, 0, 500000000ULL };
	v = render("h", in, 1, NULL);
	expect_edits_invalid(v, edits, ARRAY_SIZE(edits));
	/* the key is another VM's, or no key an agent writes */
	expect_invalid("h.w", v, strlen(v), "not those of the key");
	expect_invalid("h_2Ev", v, strlen(v), "key is not");
	expect_invalid("h.v.x", v, strlen(v), "key is not");
	/* not JSON, not an object, cut, invalid UTF-8, NUL inside, empty */
	expect_invalid("h.v", "garbage", 7, "not JSON");
	expect_invalid("h.v", "[1, 2]", 6, "not a JSON object");
	expect_invalid("h.v", v, strlen(v) / 2, "not JSON");
	expect_invalid("h.v", "", 0, "not JSON");
	expect_invalid("h.v", "{\"format\": \"\xff\"}", 16, "not JSON");
	expect_invalid("h.v", "{\"a\":1}\0{}", 10, "not JSON");
	expect_invalid("h.v", "{}", 2, "format");
	/* too large */
	n = FLEET_VALUE_MAX + 1;
	e = calloc(1, n + 1);
	memset(e, ' ', n);
	e[0] = '{';
	e[n - 1] = '}';
	snprintf(big, sizeof(big), "%zu bytes", n);
	expect_invalid("h.v", e, n, big);
	free(e);
	free(v);
	free(in);
}

static char *table(const struct fleet_row *rows, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fleet_print_table(f, rows, n);
	fclose(f);
	return buf;
}

/* hostile names and reasons never reach the terminal raw */
static void test_table_escapes(void)
{
	struct gr_vm_info *in = info_of("v2");
	struct fleet_row rows[3];
	char key[FLEET_KEY_MAX], *v, *t, *p;
	unsigned int lines = 0;

	fleet_key_encode("z\x1b[2Jhost\nfake", "v2", key, sizeof(key));
	v = render("z\x1b[2Jhost\nfake", in, 5, NULL);
	parse_str(&rows[0], key, v);
	CU_ASSERT_TRUE(rows[0].valid);
	free(v);
	fleet_key_encode("a\rb", "v\x07", key, sizeof(key));
	parse_str(&rows[1], key, "{\"x\": \"\\u001b]0;pwned\\u0007\"}");
	CU_ASSERT_FALSE(rows[1].valid);
	parse_str(&rows[2], "not.a.key", "\x1b[31m");
	CU_ASSERT_FALSE(rows[2].valid);
	fleet_rows_sort(rows, 3);
	CU_ASSERT_STRING_EQUAL(rows[0].host, "");	/* the bad key: first */
	CU_ASSERT_STRING_EQUAL(rows[1].host, "a\rb");
	t = table(rows, 3);
	for (p = t; *p; p++) {
		CU_ASSERT(*p == '\n' || ((unsigned char)*p >= 0x20 &&
					 *p != 0x7f));
		lines += *p == '\n';
	}
	CU_ASSERT_EQUAL(lines, 4);	/* the head and one line per row */
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "INVALID"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "z\\x1b[2Jhost\\x0afake"));
	free(t);
	fleet_row_clear(&rows[0]);
	fleet_row_clear(&rows[1]);
	fleet_row_clear(&rows[2]);
	free(in);
}

static void test_json_output(void)
{
	struct gr_vm_info *in = info_of("v");
	struct fleet_row rows[3];
	char *v, *buf = NULL;
	size_t len = 0;
	FILE *f;

	v = render("h\xc3\xa9", in, 5, NULL);
	parse_str(&rows[0], "h_C3_A9.v", v);
	CU_ASSERT_TRUE(rows[0].valid);
	/* a key whose host is not UTF-8 (no agent writes it: the value's
	 * host cannot match); escaped, the JSON stays valid */
	parse_str(&rows[1], "h_FF.v", v);
	CU_ASSERT_FALSE(rows[1].valid);
	parse_str(&rows[2], "h.w", "nope");
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(fleet_print_json(f, rows, 3), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"host\": \"h\xc3\xa9\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"host\": \"h\\\\xff\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"valid\": false"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"bytes\": 987654321"));
	free(buf);
	free(v);
	fleet_row_clear(&rows[0]);
	fleet_row_clear(&rows[1]);
	fleet_row_clear(&rows[2]);
	free(in);
}

/* ---- URLs and credentials ------------------------------------------- */

static void test_urls(void)
{
	char err[256];

	CU_ASSERT_EQUAL(gr_nats_check_urls("nats://127.0.0.1:4222", err,
					   sizeof(err)), 0);
	CU_ASSERT_EQUAL(gr_nats_check_urls("nats://a:1,tls://b:2", err,
					   sizeof(err)), 0);
	CU_ASSERT_EQUAL(gr_nats_check_urls("nats://u:s3cret@a:1", err,
					   sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NULL(strstr(err, "s3cret"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "file"));
	CU_ASSERT_EQUAL(gr_nats_check_urls("nats://a:1,nats://t@b:2", err,
					   sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gr_nats_check_urls("http://a:1", err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_nats_check_urls("", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(gr_nats_check_urls("nats://", err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_nats_check_urls("nats://a:1,", err, sizeof(err)),
			-EINVAL);
}

static char tmpdir[4096];

static int creds_file(const char *name, const char *text, mode_t mode,
		      char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -EIO;
	}
	close(fd);
	return chmod(path, mode) ? -errno : 0;
}

static void expect_creds(const char *text, mode_t mode, int ret,
			 const char *why)
{
	natsOptions *o = NULL;
	char path[4200], err[256] = "";
	int r;

	CU_ASSERT_EQUAL_FATAL(creds_file("c", text, mode, path, sizeof(path)),
			      0);
	r = gr_nats_options(&o, "nats://127.0.0.1:1", path, "t", err,
			    sizeof(err));
	CU_ASSERT_EQUAL(r, ret);
	if (r != ret)
		fprintf(stderr, "\n  %s: %d (%s)\n", text, r, err);
	if (ret) {
		CU_ASSERT_PTR_NULL(o);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, why));
		/* never the secret */
		CU_ASSERT_PTR_NULL(strstr(err, "s3cret"));
	}
	natsOptions_Destroy(o);
}

static void test_creds_file(void)
{
	expect_creds("user fleet\npassword s3cret\n", 0600, 0, NULL);
	expect_creds("# comment\n  user   fleet  \r\npassword\ts3cret\r\n",
		     0640, 0, NULL);
	expect_creds("token s3cret\n", 0600, 0, NULL);
	/* the KEY=VALUE form of --ship-creds: the value as it is */
	expect_creds("user=fleet\npassword= s3cret \r\n", 0600, 0, NULL);
	expect_creds("user=fleet\n", 0600, -EINVAL, "go together");
	expect_creds("nkey=UABC\n", 0600, -EINVAL, "nkey and seed");
	expect_creds("nkey UABC\nseed /nonexistent/s3cret\n", 0600, -EINVAL,
		     "line 2: cannot read");
	expect_creds("user:fleet\n", 0600, -EINVAL, "line 1: unknown key");
	expect_creds("user fleet\npassword s3cret\n", 0644, -EINVAL,
		     "readable by others");
	expect_creds("user fleet\n", 0600, -EINVAL, "go together");
	expect_creds("password s3cret\n", 0600, -EINVAL, "go together");
	expect_creds("pass s3cret\n", 0600, -EINVAL, "line 1: unknown key");
	expect_creds("user\n", 0600, -EINVAL, "line 1: no value");
	expect_creds("creds /nonexistent/s3cret.creds\n", 0600, -EINVAL,
		     "line 1");
}

static void test_creds_missing(void)
{
	natsOptions *o = NULL;
	char err[256];

	CU_ASSERT_EQUAL(gr_nats_options(&o, "nats://a:1", "/nonexistent/x",
					"t", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/x"));
	CU_ASSERT_EQUAL(gr_nats_options(&o, "nats://a:1", "/", "t", err,
					sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a regular file"));
	CU_ASSERT_EQUAL(gr_nats_options(&o, "nats://a:1", NULL, "t", err,
					sizeof(err)), 0);
	natsOptions_Destroy(o);
}

static int suite_init(void)
{
	return gr_test_tmpdir(tmpdir, sizeof(tmpdir), "test_fleet") ? -1 : 0;
}

static int suite_clean(void)
{
	gr_test_rm_tree(tmpdir);
	return 0;
}

static const struct gr_test key_tests[] = {
	GR_TEST(test_key_examples),
	GR_TEST(test_key_round_trip_hostile),
	GR_TEST(test_key_injective_hostile),
	GR_TEST(test_key_random_round_trip),
	GR_TEST(test_key_decode_rejects),
	GR_TEST(test_key_too_long),
	GR_TEST(test_host_name_check),
};

static const struct gr_test entry_tests[] = {
	GR_TEST(test_entry_round_trip),
	GR_TEST(test_entry_steal),
	GR_TEST(test_entry_latency),
	GR_TEST(test_entry_latency_older_agent),
	GR_TEST(test_entry_latency_hostile),
	GR_TEST(test_entry_saturated_counters),
	GR_TEST(test_entry_hostile_values),
	GR_TEST(test_table_escapes),
	GR_TEST(test_json_output),
};

static const struct gr_test nats_tests[] = {
	GR_TEST(test_urls),
	GR_TEST(test_creds_file),
	GR_TEST(test_creds_missing),
};

int main(void)
{
	static const struct gr_test_suite suites[] = {
		GR_SUITE("fleet key", key_tests, NULL, NULL),
		GR_SUITE("fleet entry", entry_tests, NULL, NULL),
		GR_SUITE("nats options", nats_tests, suite_init, suite_clean),
	};

	return gr_test_run(suites, ARRAY_SIZE(suites));
}
