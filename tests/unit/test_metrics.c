// SPDX-License-Identifier: GPL-2.0
/*
 * test_metrics.c - the Prometheus page of `guestrelay agent --metrics`
 * (host-agent/metrics/expo.c) and its ADDR:PORT parser (addr.c)
 *
 * The aggregation tables (spec 17, expo_hist.c): a log2 latency table
 * as a Prometheus histogram (cumulative buckets, le in seconds, +Inf,
 * _sum, _count), a two-key latency table as one histogram per value of
 * the other key, other tables as counters with the keys as labels.
 *
 * `test_metrics --page FILE` writes the page of two VMs with hostile
 * names (quotes, backslashes, line feeds) instead of running the tests:
 * tests/integration/test_metrics.sh hands it to `promtool check metrics`.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expo.h"
#include "gr_test.h"
#include "metrics.h"

static const char hostile1[] = "a\"b\\c\nd";
static const char hostile2[] = "\\\"\n\n\"";

static char *label(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	expo_label_value(f, s);
	fclose(f);
	return buf;
}

/* aggregation tables (spec 17): rows as vm_hist_read() merges them */
static struct gr_hist_row runq_rows[] = {
	{ .key = { 3 }, .hitcount = 2 },	/* 4 < d <= 8 ns */
	{ .key = { 10 }, .hitcount = 5 },	/* 512 < d <= 1024 ns */
	{ .key = { 50 }, .hitcount = 1 },	/* past 2^40 ns: +Inf only */
};
static struct gr_hist_row sys_rows[] = {	/* { id, delta.log2 } */
	{ .key = { 0, 4 }, .hitcount = 3, .val = { 40 } },
	{ .key = { 1, 4 }, .hitcount = 2, .val = { 30 } },
	{ .key = { 0, 6 }, .hitcount = 1, .val = { 60 } },
};
static struct gr_hist_row pid_rows[] = {	/* { prev_pid } */
	{ .key = { 42 }, .hitcount = 7, .val = { 700 } },
	{ .key = { 1 }, .hitcount = 1, .val = { 100 } },
};

/* a running table: @nk keys, the last a log2 time if @lat */
static void table(struct gr_vm_hist_out *o, const char *name,
		  const char *event, unsigned int nk, bool lat,
		  struct gr_hist_row *rows, uint32_t nr)
{
	struct gr_hist_spec *s = &o->spec;

	memset(o, 0, sizeof(*o));
	snprintf(o->h.name, sizeof(o->h.name), "%s", name);
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->event, sizeof(s->event), "%s", event);
	o->compiled = true;
	o->state = "running";
	s->req.nr_keys = (uint8_t)nk;
	snprintf(s->key_name[0], sizeof(s->key_name[0]), nk > 1 ? "id" :
		 lat ? "delta" : "prev_pid");
	snprintf(s->key_name[1], sizeof(s->key_name[1]), "delta");
	if (lat) {
		s->req.kind = GR_HIST_PAIR;
		s->req.key[nk - 1].src = GR_HS_DELTA;
		s->req.key[nk - 1].xform = GR_HT_LOG2;
		s->key_display[nk - 1] = GR_HD_NSECS;
	}
	if (nk > 1 || !lat) {	/* a sum beside the hit count */
		s->req.nr_vals = 1;
		s->req.val[0].src = lat ? GR_HS_DELTA : GR_HS_FIELD;
		snprintf(s->val_name[0], sizeof(s->val_name[0]),
			 lat ? "delta" : "prev_prio");
	}
	o->table.rows = rows;
	o->table.nr_rows = nr;
	o->table.hits = 8;
	o->table.dropped = 4;
	o->table.unmatched = lat ? 6 : 0;
}

static struct gr_vm_hist_out vm0_hists[4], vm1_hists[1];

static void two_vms(struct gr_expo_vm *vms)
{
	memset(vms, 0, 2 * sizeof(*vms));
	snprintf(vms[0].info.name, sizeof(vms[0].info.name), "%s", hostile1);
	vms[0].info.state = "attached";
	vms[0].info.guest_state = "tracing";
	vms[0].info.st.bytes = 123456789;
	vms[0].info.st.packets = 42;
	vms[0].info.st.invalid = 5;
	vms[0].info.st.invalid_records = 2;
	vms[0].info.st.lost_full = 7;
	vms[0].info.sync_error_ns = 15000;
	vms[0].info.sync_offset_ns = -2500000000LL;
	vms[0].store_known = true;
	vms[0].sessions = 3;
	snprintf(vms[0].info.nodename, sizeof(vms[0].info.nodename), "%s",
		 hostile2);
	snprintf(vms[1].info.name, sizeof(vms[1].info.name), "%s", hostile2);
	vms[1].info.state = "waiting";
	vms[1].info.guest_state = "absent";
	vms[1].info.quota = 1ULL << 30;
	/* QEMU's vCPU threads of the first VM (agent/vcpu.c) */
	vms[0].info.vcpus.pid = 4242;
	vms[0].info.vcpus.n = 2;
	vms[0].info.vcpus.cpu[0] = (struct gr_vcpu){ .index = 0, .tid = 4243,
		.run_ns = 2500000000ULL, .delay_ns = 1500000000ULL };
	vms[0].info.vcpus.cpu[1] = (struct gr_vcpu){ .index = 1, .tid = 4244,
		.run_ns = 3000000000ULL, .delay_ns = 250000000ULL };
	table(&vm0_hists[0], "runq", "sched_wakeup->sched_switch", 1, true,
	      runq_rows, ARRAY_SIZE(runq_rows));
	table(&vm0_hists[1], "syscall", "sys_enter->sys_exit", 2, true,
	      sys_rows, ARRAY_SIZE(sys_rows));
	table(&vm0_hists[2], "sched_switch", "sched_switch", 1, false,
	      pid_rows, ARRAY_SIZE(pid_rows));
	table(&vm0_hists[3], "later", "sched_switch", 1, false, NULL, 0);
	vm0_hists[3].state = "pending";
	vms[0].hists = vm0_hists;
	vms[0].nr_hists = 4;
	/* the same family on a second VM: declared once */
	table(&vm1_hists[0], "runq", "sched_wakeup->sched_switch", 1, true,
	      runq_rows, 1);
	vms[1].hists = vm1_hists;
	vms[1].nr_hists = 1;
}

static char *page(size_t *lenp)
{
	struct gr_expo_agent ag = { .loop_passes = 10,
				    .loop_completions = 20, .ship = true,
				    .ship_outages = 3,
				    .ship_id_conflicts = 2 };
	struct gr_expo_vm vms[2];
	char *buf = NULL;
	FILE *f = open_memstream(&buf, lenp);

	snprintf(ag.host, sizeof(ag.host), "host\"1");
	two_vms(vms);
	expo_page(f, &ag, vms, 2);
	fclose(f);
	return buf;
}

static void test_label_values_escape_backslash_quote_newline(void)
{
	char *s = label(hostile1);

	CU_ASSERT_STRING_EQUAL(s, "a\\\"b\\\\c\\nd");
	free(s);
	s = label(hostile2);
	CU_ASSERT_STRING_EQUAL(s, "\\\\\\\"\\n\\n\\\"");
	free(s);
	s = label("plain-vm_1.x");
	CU_ASSERT_STRING_EQUAL(s, "plain-vm_1.x");
	free(s);
}

static void test_page_lines_are_comments_or_samples(void)
{
	size_t len;
	char *buf = page(&len), *line, *save = NULL;
	unsigned int lines = 0;

	CU_ASSERT_FATAL(buf != NULL);
	CU_ASSERT(len > 0 && buf[len - 1] == '\n');
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		lines++;
		/* a raw line feed in a label would start a line otherwise */
		CU_ASSERT(!strncmp(line, "# HELP guestrelay_", 18) ||
			  !strncmp(line, "# TYPE guestrelay_", 18) ||
			  !strncmp(line, "guestrelay_", 11));
	}
	CU_ASSERT(lines > 60);
	free(buf);
}

static void test_page_has_counters_by_label_and_escaped_names(void)
{
	size_t len;
	char *buf = page(&len);

	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_stored_bytes_total{vm=\"a\\\"b\\\\c\\nd\"} 123456789\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_stored_packets_total{vm=\"a\\\"b\\\\c\\nd\"} 42\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_events_lost_total{vm=\"a\\\"b\\\\c\\nd\",cause=\"full\"} 7\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_subbuffers_invalid_total{vm=\"a\\\"b\\\\c\\nd\",reason=\"packet\"} 3\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_subbuffers_invalid_total{vm=\"a\\\"b\\\\c\\nd\",reason=\"record\"} 2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_state{vm=\"a\\\"b\\\\c\\nd\",state=\"attached\"} 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_state{vm=\"a\\\"b\\\\c\\nd\",state=\"waiting\"} 0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_guest_state{vm=\"\\\\\\\"\\n\\n\\\"\",state=\"absent\"} 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_clock_sync_error_seconds{vm=\"a\\\"b\\\\c\\nd\"} 1.5e-05\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_clock_offset_seconds{vm=\"a\\\"b\\\\c\\nd\"} -2.5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_sessions{vm=\"a\\\"b\\\\c\\nd\",kind=\"recording\"} 3\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_quota_bytes{vm=\"\\\\\\\"\\n\\n\\\"\"} 1073741824\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",nodename=\"\\\\\\\"\\n\\n\\\"\"} 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "guestrelay_build_info{version=\""
				      GR_VERSION "\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "host=\"host\\\"1\"} 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "guestrelay_vms 2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_loop_iterations_total 10\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_ship_outages_total 3\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_ship_id_conflicts_total 2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vcpu_steal_seconds_total{vm=\"a\\\"b\\\\c\\nd\",vcpu=\"0\"} 1.5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vcpu_steal_seconds_total{vm=\"a\\\"b\\\\c\\nd\",vcpu=\"1\"} 0.25\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vcpu_run_seconds_total{vm=\"a\\\"b\\\\c\\nd\",vcpu=\"1\"} 3\n"));
	/* unknown until synchronized or without a quota: no sample */
	CU_ASSERT_PTR_NULL(strstr(buf,
		"guestrelay_vm_clock_sync_error_seconds{vm=\"\\\\"));
	CU_ASSERT_PTR_NULL(strstr(buf,
		"guestrelay_vm_quota_bytes{vm=\"a"));
	free(buf);
}

/* every family once, its samples right after its TYPE line */
static void test_families_are_declared_once_and_contiguous(void)
{
	size_t len;
	char *buf = page(&len), *line, *save = NULL;
	char fam[128] = "", seen[96][128];
	bool histogram = false;
	unsigned int n = 0, i;

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[128];

		if (!strncmp(line, "# HELP ", 7))
			continue;
		if (!strncmp(line, "# TYPE ", 7)) {
			CU_ASSERT(sscanf(line + 7, "%127s", fam) == 1);
			for (i = 0; i < n; i++)
				CU_ASSERT_STRING_NOT_EQUAL(seen[i], fam);
			CU_ASSERT_FATAL(n < 96);
			snprintf(seen[n++], sizeof(seen[0]), "%s", fam);
			histogram = strstr(line, " histogram") != NULL;
			CU_ASSERT(strstr(line, " counter") ?
				  strlen(fam) > 6 &&
				  !strcmp(fam + strlen(fam) - 6, "_total") :
				  strstr(line, " gauge") || histogram);
			continue;
		}
		CU_ASSERT(sscanf(line, "%127[a-z_]", name) == 1);
		if (histogram && strlen(name) > strlen(fam) &&
		    !strncmp(name, fam, strlen(fam))) {
			CU_ASSERT(!strcmp(name + strlen(fam), "_bucket") ||
				  !strcmp(name + strlen(fam), "_sum") ||
				  !strcmp(name + strlen(fam), "_count"));
		} else {
			CU_ASSERT_STRING_EQUAL(name, fam);
		}
	}
	CU_ASSERT(n >= 25);
	free(buf);
}

#define VM0 "{vm=\"a\\\"b\\\\c\\nd\""

/* a log2 latency table: cumulative buckets of 2^k ns, +Inf, _sum, _count */
static void test_latency_table_is_a_histogram_in_seconds(void)
{
	size_t len;
	char *buf = page(&len);

	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"# TYPE guestrelay_vm_hist_runq_seconds histogram\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "approximate"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_runq_seconds_bucket" VM0 ",le=\"1e-09\"} 0\n"
		"guestrelay_vm_hist_runq_seconds_bucket" VM0 ",le=\"2e-09\"} 0\n"
		"guestrelay_vm_hist_runq_seconds_bucket" VM0 ",le=\"4e-09\"} 0\n"
		"guestrelay_vm_hist_runq_seconds_bucket" VM0 ",le=\"8e-09\"} 2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_runq_seconds_bucket" VM0 ",le=\"5.12e-07\"} 2\n"
		"guestrelay_vm_hist_runq_seconds_bucket" VM0 ",le=\"1.024e-06\"} 7\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_runq_seconds_bucket" VM0 ",le=\"1099.511627776\"} 7\n"
		"guestrelay_vm_hist_runq_seconds_bucket" VM0 ",le=\"+Inf\"} 8\n"
		"guestrelay_vm_hist_runq_seconds_sum" VM0 "} "));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_runq_seconds_count" VM0 "} 8\n"));
	/* the second VM's runq in the same family, right after the first's */
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_runq_seconds_count" VM0 "} 8\n"
		"guestrelay_vm_hist_runq_seconds_bucket{vm=\"\\\\\\\"\\n\\n\\\"\",le=\"1e-09\"} 0\n"));
	/* per table: counters by {vm, hist}, and whether it runs */
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_dropped_total" VM0 ",hist=\"runq\"} 4\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_unmatched_total" VM0 ",hist=\"syscall\"} 6\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_entries" VM0 ",hist=\"runq\"} 3\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_running" VM0 ",hist=\"later\"} 0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_running" VM0 ",hist=\"runq\"} 1\n"));
	CU_ASSERT_PTR_NULL(strstr(buf, "guestrelay_vm_hist_later"));
	free(buf);
}

/* two keys: one histogram per call id; _sum from the summed deltas */
static void test_two_key_latency_table_has_one_histogram_per_key(void)
{
	size_t len;
	char *buf = page(&len);

	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_syscall_seconds_bucket" VM0
		",key_id=\"0\",le=\"1.6e-08\"} 3\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_syscall_seconds_bucket" VM0
		",key_id=\"0\",le=\"6.4e-08\"} 4\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_syscall_seconds_sum" VM0
		",key_id=\"0\"} 1e-07\n"
		"guestrelay_vm_hist_syscall_seconds_count" VM0
		",key_id=\"0\"} 4\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_syscall_seconds_sum" VM0
		",key_id=\"1\"} 3e-08\n"
		"guestrelay_vm_hist_syscall_seconds_count" VM0
		",key_id=\"1\"} 2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "_sum is the sum of the delays"));
	free(buf);
}

/* other tables: a counter per entry with the keys as labels */
static void test_plain_table_is_counters_by_key(void)
{
	size_t len;
	char *buf = page(&len);

	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"# TYPE guestrelay_vm_hist_sched_switch_hits_total counter\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_sched_switch_hits_total" VM0
		",key_prev_pid=\"42\"} 7\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"guestrelay_vm_hist_sched_switch_prev_prio_total" VM0
		",key_prev_pid=\"1\"} 100\n"));
	free(buf);
}

static void test_metrics_address_parser(void)
{
	static const char *const bad[] = {
		"", "9464", ":9464", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0",
		"127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:94x", "1.2.3:80",
		"localhost:9464", "::1:9464", "[::1]", "[::1]9464", "[::1:9464",
		"[127.0.0.1]:80", "[]:80", "1.2.3.4:+80",
	};
	struct sockaddr_storage ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	size_t i;

	CU_ASSERT_EQUAL(gr_parse_addr("127.0.0.1:9464", &ss, &len), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET);
	CU_ASSERT_EQUAL(len, sizeof(*a4));
	CU_ASSERT_EQUAL(ntohs(a4->sin_port), 9464);
	CU_ASSERT_EQUAL(ntohl(a4->sin_addr.s_addr), INADDR_LOOPBACK);
	CU_ASSERT_EQUAL(gr_addr_port(&ss), 9464);
	CU_ASSERT_EQUAL(gr_parse_addr("0.0.0.0:1", &ss, &len), 0);
	CU_ASSERT_EQUAL(gr_parse_addr("[::1]:65535", &ss, &len), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET6);
	CU_ASSERT_EQUAL(len, sizeof(*a6));
	CU_ASSERT(IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr));
	CU_ASSERT_EQUAL(gr_addr_port(&ss), 65535);
	CU_ASSERT_EQUAL(gr_parse_addr("[::]:9464", &ss, &len), 0);
	CU_ASSERT(IN6_IS_ADDR_UNSPECIFIED(&a6->sin6_addr));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (gr_parse_addr(bad[i], &ss, &len) != -EINVAL)
			CU_FAIL_FATAL(bad[i]);
}

static const struct gr_test tests[] = {
	GR_TEST(test_label_values_escape_backslash_quote_newline),
	GR_TEST(test_page_lines_are_comments_or_samples),
	GR_TEST(test_page_has_counters_by_label_and_escaped_names),
	GR_TEST(test_families_are_declared_once_and_contiguous),
	GR_TEST(test_latency_table_is_a_histogram_in_seconds),
	GR_TEST(test_two_key_latency_table_has_one_histogram_per_key),
	GR_TEST(test_plain_table_is_counters_by_key),
	GR_TEST(test_metrics_address_parser),
};

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--page")) {
		size_t len;
		char *buf = page(&len);
		FILE *f = fopen(argv[2], "w");

		if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
			perror(argv[2]);
			return 1;
		}
		free(buf);
		return 0;
	}
	return gr_test_main("metrics", tests, ARRAY_SIZE(tests), NULL,
			    NULL);
}
