// SPDX-License-Identifier: GPL-2.0
/*
 * test_report.c - `guestrelay report` (gr_report(), gr_report_summary())
 * on the synthetic trace of tests/lib/ctf_fixture.c and on damaged copies
 * of it: truncated streams, garbage packets, bad records, empty packets,
 * a missing or damaged .guestrelay, random damage.
 *
 * Needs babeltrace2 and /usr/bin/python3 with bt2 (Debian: babeltrace2,
 * python3-bt2); exits 77 without them. GR_TEST_SEED=N replays the random
 * parts; GR_TEST_KEEP=1 keeps the trace directories.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gr_build.h"
#include "gr_test.h"
#include "ctf_fixture.h"

#include "guestrelay_abi.h"
#include "ctf.h"
#include "ctf_info.h"
#include "report.h"
#include "validate.h"


/* --- guestrelay report ------------------------------------------------------- */

/* the block events' rwbs flags (spec 7.5) as ftrace's letters */
static void test_report_rwbs_flags_print_as_ftrace_letters(void)
{
	static const struct {
		uint64_t flags;
		const char *text;
	} c[] = {
		{ GR_RWBS_WRITE | GR_RWBS_SYNC, "WS" },
		{ GR_RWBS_READ, "R" },
		{ GR_RWBS_READ | GR_RWBS_RAHEAD, "RA" },
		{ GR_RWBS_READ | GR_RWBS_SYNC | GR_RWBS_META, "RSM" },
		{ GR_RWBS_FLUSH, "F" },
		{ GR_RWBS_PREFLUSH | GR_RWBS_WRITE | GR_RWBS_FUA |
		  GR_RWBS_SYNC, "FWFS" },
		{ GR_RWBS_DISCARD, "D" },
		{ GR_RWBS_DISCARD | GR_RWBS_SECURE, "DE" },
		{ 0, "N" },
		{ GR_RWBS_SYNC, "NS" },
		/* the longest text; unknown bits print nothing */
		{ GR_RWBS_PREFLUSH | GR_RWBS_DISCARD | GR_RWBS_SECURE |
		  GR_RWBS_FUA | GR_RWBS_RAHEAD | GR_RWBS_SYNC | GR_RWBS_META |
		  GR_RWBS_BARRIER | (1ULL << 40), "FDEFASM" },
	};
	char buf[GR_RWBS_TEXT_LEN], small[3];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		CU_ASSERT_STRING_EQUAL(gr_rwbs_text(buf, sizeof(buf),
						    c[i].flags), c[i].text);
	/* cut to the buffer, always terminated */
	CU_ASSERT_STRING_EQUAL(gr_rwbs_text(small, sizeof(small),
					    GR_RWBS_READ | GR_RWBS_SYNC |
					    GR_RWBS_META), "RS");
}

static void test_report_prints_every_event_merged_in_time_order(void)
{
	char *rep;

	CU_ASSERT_EQUAL(report_text(syn.dir, NULL, 0, &rep), 0);
	CU_ASSERT(same_text(rep, syn_report));
	free(rep);
}

/* syn_report with only the lines that contain one of @keep (and "#") */
static char *syn_lines(const char *const *keep, unsigned int n)
{
	char *out = malloc(strlen(syn_report) + 1), *o = out;
	const char *p = syn_report, *nl;
	unsigned int i;
	size_t len;

	while (*p) {
		nl = strchr(p, '\n');
		len = (size_t)(nl - p + 1);
		for (i = 0; i < n; i++)
			if (*p == '#' || memmem(p, len, keep[i], strlen(keep[i])))
				break;
		if (i < n) {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	*o = '\0';
	return out;
}

static void test_report_filters_by_cpu_and_event(void)
{
	static const char *const cpu1[] = { "[001]" };
	static const char *const sched_irq[] = {
		": sched_switch:", ": irq_handler_entry:", ": ** ",
	};
	static const char *const kmalloc[] = { ": kmalloc:", ": ** " };
	struct gr_report_opts o = { .cpu = 1 };
	char *rep, *want;

	CU_ASSERT_EQUAL(report_text(syn.dir, &o, 0, &rep), 0);
	want = syn_lines(cpu1, 1);
	CU_ASSERT(same_text(rep, want));
	free(want);
	free(rep);

	o.cpu = -1;
	o.events = "sched_switch,irq";	/* an event and a system */
	CU_ASSERT_EQUAL(report_text(syn.dir, &o, 0, &rep), 0);
	want = syn_lines(sched_irq, 3);
	CU_ASSERT(same_text(rep, want));
	free(want);
	free(rep);

	o.events = "kmem:kmalloc";
	CU_ASSERT_EQUAL(report_text(syn.dir, &o, 0, &rep), 0);
	want = syn_lines(kmalloc, 2);
	CU_ASSERT(same_text(rep, want));
	free(want);
	free(rep);

	o.events = "kmalloc,nosuch";
	CU_ASSERT_EQUAL(report_text(syn.dir, &o, 0, &rep), -EINVAL);
	CU_ASSERT_STRING_EQUAL(rep, "error: no event matches \"nosuch\" (give "
			       "names, systems or system:event)\n");
	free(rep);
	o.events = "sched:kmalloc";
	CU_ASSERT_EQUAL(report_text(syn.dir, &o, 0, &rep), -EINVAL);
	free(rep);
}

static void test_report_prints_host_time_through_the_clock_offset(void)
{
	struct gr_report_opts o = { .cpu = -1, .host_time = 1 };
	char *rep;

	CU_ASSERT_EQUAL(report_text(syn.dir, &o, 0, &rep), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rep, "Hz, host time\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(rep,
		"\n     12 [000] 1700000000.500001000: sched_switch: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(rep,
		"\n        [000] 1700000000.500009500: ** lost 1 packet (seq 2)\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(rep,
		"\n      7 [000] 1700000000.500012000: blob:\n"));
	free(rep);
}

static const char syn_summary[] =
"# guestrelay trace of guest1 (Linux 6.1.0-56-amd64): 2 per-CPU rings, clock mono_fast at 1000000000 Hz, guest time\n"
"guest: guest1, Linux 6.1.0-56-amd64, 2 CPUs, 2 per-CPU rings of 4 x 4096-byte sub-buffers\n"
"clock: mono_fast at 1000000000 Hz, synchronized with host CLOCK_REALTIME (guest 0 = 1700000000.500000000, error bound 1500 ns)\n"
"events per type:\n"
"  sched_switch                                3\n"
"  irq_handler_entry                           3\n"
"  kmalloc                                     2\n"
"  gaps                                        2\n"
"  tick                                        1\n"
"  blob                                        1\n"
"per ring:\n"
"  ring  packets       events    lost_pkts    discarded  damaged\n"
"     0        3            7            1            5        0\n"
"     1        2            5            0            2        0\n"
"total: 12 events in 5 packets, lost packets 1, discarded events 7, damaged spots 0\n"
"time span:     0.000001000 ..     0.000012000 guest (0.000011000 s)\n"
"           1700000000.500001000 .. 1700000000.500012000 host\n";

static void test_report_summary_counts_types_rings_and_losses(void)
{
	char *rep;

	CU_ASSERT_EQUAL(report_text(syn.dir, NULL, 1, &rep), 0);
	CU_ASSERT(same_text(rep, syn_summary));
	free(rep);
}

/* --- damaged traces ------------------------------------------------------------- */

static const char *const trace_files[] = {
	GR_CTF_METADATA, GR_CTF_INFO, "stream_0", "stream_1",
};

/* a copy of the synthetic trace named @name; its path into @dir */
static int copy_syn(const char *name, char *dir)
{
	char buf[T_S * 4];
	unsigned int i;
	int dfd, in, out;
	ssize_t n;

	snprintf(dir, PATH_MAX, "%s/%s", tmp_root, name);
	gr_test_rm_tree(dir);
	if (mkdir(dir, 0755))
		return -errno;
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return -errno;
	for (i = 0; i < ARRAY_SIZE(trace_files); i++) {
		in = openat(syn.dirfd, trace_files[i], O_RDONLY);
		out = openat(dfd, trace_files[i], O_WRONLY | O_CREAT | O_TRUNC,
			     0644);
		n = in >= 0 ? read(in, buf, sizeof(buf)) : -1;
		if (n < 0 || out < 0 || write(out, buf, (size_t)n) != n) {
			close(dfd);
			return -EIO;
		}
		close(in);
		close(out);
	}
	close(dfd);
	return 0;
}

static int poke(const char *dir, const char *file, off_t off,
		const void *bytes, size_t n)
{
	char path[PATH_MAX + 32];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = pwrite(fd, bytes, n, off) == (ssize_t)n ? 0 : -EIO;
	close(fd);
	return ret;
}

static int cut(const char *dir, const char *file, off_t size)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return truncate(path, size) ? -errno : 0;
}

/* run the report; @want lines must all appear; returns its result */
static int report_has(const char *dir, const char *const *want,
		      unsigned int n, char **text)
{
	unsigned int i;
	int ret = report_text(dir, NULL, 0, text);

	for (i = 0; i < n; i++) {
		CU_ASSERT_PTR_NOT_NULL(strstr(*text, want[i]));
		if (!strstr(*text, want[i]))
			fprintf(stderr, "\n    missing \"%s\" in:\n%s", want[i],
				*text);
	}
	return ret;
}

static void test_report_truncated_stream_reports_and_decodes_the_rest(void)
{
	static const char *const mid_record[] = {
		"        [000]     0.000005600: ** stream_0 ends inside the packet at "
		"offset 4096 (100 of 4096 bytes): decoding what is there\n",
		"     44 [001]     0.000011000: gaps: ",
	};
	static const char *const after_content[] = {
		"ends inside the packet at offset 4096 (200 of 4096 bytes)",
		"      7 [000]     0.000006000: gaps: ",
		"      1 [000]     0.000007000: tick:\n",
	};
	static const char *const stub[] = {
		"        [000]     0.000005000: ** stream_0 ends with 40 bytes of a "
		"packet at offset 4096; ignored\n",
	};
	char dir[PATH_MAX], *rep;

	CU_ASSERT_EQUAL_FATAL(copy_syn("cut", dir), 0);
	CU_ASSERT_EQUAL(cut(dir, "stream_0", T_S + 100), 0);
	CU_ASSERT_EQUAL(report_has(dir, mid_record, 2, &rep), 1);
	CU_ASSERT_PTR_NULL(strstr(rep, ": gaps: tid=7 "));	/* cut */
	CU_ASSERT_PTR_NULL(strstr(rep, ": tick:"));
	CU_ASSERT_PTR_NULL(strstr(rep, ": blob:"));
	free(rep);

	CU_ASSERT_EQUAL(copy_syn("cut", dir), 0);
	CU_ASSERT_EQUAL(cut(dir, "stream_0", T_S + 200), 0);
	CU_ASSERT_EQUAL(report_has(dir, after_content, 3, &rep), 1);
	free(rep);

	CU_ASSERT_EQUAL(cut(dir, "stream_0", T_S + 40), 0);
	CU_ASSERT_EQUAL(report_has(dir, stub, 1, &rep), 1);
	free(rep);
	gr_test_rm_tree(dir);
}

static void test_report_skips_a_garbage_packet_and_goes_on(void)
{
	static const char *const want[] = {
		("        [000]     0.000005000: ** stream_0: bad packet at offset 4096: "
		 "bad packet magic; next packet at offset 8192\n"),
		"        [000]     0.000009500: ** lost 2 packets (seq 1..2)\n",
		"      0 [000]     0.000010000: sched_switch: ",
		"      7 [000]     0.000012000: blob:\n",
	};
	char dir[PATH_MAX], *rep, junk[T_S];
	unsigned int i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (char)rnd();
	CU_ASSERT_EQUAL_FATAL(copy_syn("garbage", dir), 0);
	CU_ASSERT_EQUAL(poke(dir, "stream_0", T_S, junk, sizeof(junk)), 0);
	CU_ASSERT_EQUAL(report_has(dir, want, ARRAY_SIZE(want), &rep), 1);
	CU_ASSERT_PTR_NULL(strstr(rep, ": tick:"));
	free(rep);
	gr_test_rm_tree(dir);
}

static void test_report_bad_record_skips_rest_of_packet(void)
{
	static const char *const size[] = {
		"        [000]     0.000001000: ** packet seq 0 of stream_0, offset 144: "
		"bad record (record size is not a multiple of 8, id 1, size "
		"41); rest of packet skipped\n",
		"      7 [000]     0.000006000: gaps: ",
	};
	static const char *const id[] = {
		"packet seq 0 of stream_0, offset 144: bad record (unknown "
		"event id, id 77, size 40); rest of packet skipped\n",
	};
	static const char *const beyond[] = {
		"offset 144: bad record (record extends beyond the packet "
		"content, id 1, size 4000); rest of packet skipped\n",
	};
	struct gr_event_header e;
	char dir[PATH_MAX], *rep;

	/* the second record of ring 0's first packet is at 72 + 72 */
	CU_ASSERT_EQUAL_FATAL(copy_syn("badrec", dir), 0);
	e.timestamp = htole64(3000);
	e.id = htole16(1);
	e.size = htole16(41);
	e.tid = 0;
	CU_ASSERT_EQUAL(poke(dir, "stream_0", 144, &e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(report_has(dir, size, 2, &rep), 1);
	CU_ASSERT_PTR_NULL(strstr(rep, ": irq_handler_entry: tid=0 irq=11"));
	CU_ASSERT_PTR_NULL(strstr(rep, ": kmalloc: tid=12"));
	free(rep);

	e.id = htole16(77);
	e.size = htole16(40);
	CU_ASSERT_EQUAL(poke(dir, "stream_0", 144, &e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(report_has(dir, id, 1, &rep), 1);
	free(rep);

	e.id = htole16(1);
	e.size = htole16(4000);
	CU_ASSERT_EQUAL(poke(dir, "stream_0", 144, &e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(report_has(dir, beyond, 1, &rep), 1);
	free(rep);
	gr_test_rm_tree(dir);
}

/* babeltrace2 2.0.4 rejects a trace with a packet that holds no event */
static void test_report_flags_an_empty_packet(void)
{
	static const char *const want[] = {
		"** stream_1: bad packet at offset 8192: content_size holds "
		"no event (CTF readers reject such a packet)",
	};
	char dir[PATH_MAX], *rep;
	struct pkt p;

	CU_ASSERT_EQUAL_FATAL(copy_syn("empty", dir), 0);
	pkt_start(&p, 1, 2, 20000, 2);
	pkt_finish(&p, 20000);
	CU_ASSERT_EQUAL(poke(dir, "stream_1", 2 * T_S, p.b, sizeof(p.b)), 0);
	CU_ASSERT_EQUAL(report_has(dir, want, 1, &rep), 1);
	free(rep);
	gr_test_rm_tree(dir);
}

static void test_report_without_a_valid_info_file_says_why(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], want[PATH_MAX + 128], *rep;
	uint8_t x = 0;

	CU_ASSERT_EQUAL_FATAL(copy_syn("noinfo", dir), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, GR_CTF_INFO);
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(report_text(dir, NULL, 0, &rep), -ENOENT);
	snprintf(want, sizeof(want), "error: %s/.guestrelay: cannot open the "
		 "file (No such file or directory)\n", dir);
	CU_ASSERT_STRING_EQUAL(rep, want);
	free(rep);
	CU_ASSERT_EQUAL(report_text(dir, NULL, 1, &rep), -ENOENT);
	free(rep);

	CU_ASSERT_EQUAL(copy_syn("noinfo", dir), 0);
	CU_ASSERT_EQUAL(poke(dir, GR_CTF_INFO, 0, &x, 1), 0);	/* magic */
	CU_ASSERT_EQUAL(report_text(dir, NULL, 0, &rep), -EINVAL);
	snprintf(want, sizeof(want), "error: %s/.guestrelay: bad magic "
		 "(Invalid argument)\n", dir);
	CU_ASSERT_STRING_EQUAL(rep, want);
	free(rep);

	CU_ASSERT_EQUAL(report_text("/nonexistent/trace", NULL, 0, &rep),
			-ENOENT);
	CU_ASSERT_STRING_EQUAL(rep, "error: /nonexistent/trace: No such file "
			       "or directory\n");
	free(rep);
	gr_test_rm_tree(dir);
}

/* a damaged descriptor: its records are reported, the others decoded */
static void test_report_damaged_descriptor_skips_only_its_records(void)
{
	static const char *const want[] = {
		"# warning: .guestrelay: checksum mismatch (damaged file); "
		"using what validates\n",
		"# warning: event id 2: invalid descriptor (event name is not "
		"an identifier [a-z_][a-z0-9_]*); its records are skipped\n",
		"        [000]     0.000003000: ** packet seq 0 of stream_0, offset 184: "
		"event id 2 has no valid descriptor; rest of packet skipped\n",
		"        [001]     0.000007600: ** packet seq 1 of stream_1, offset 72: "
		"event id 2 has no valid descriptor; rest of packet skipped\n",
		"      7 [000]     0.000006000: gaps: ",
	};
	char dir[PATH_MAX], *rep;

	CU_ASSERT_EQUAL_FATAL(copy_syn("baddesc", dir), 0);
	/* 'K' in "kmalloc" */
	CU_ASSERT_EQUAL(poke(dir, GR_CTF_INFO, (off_t)sizeof(struct gr_info_hdr) +
			     512 + 2 * 576, "K", 1), 0);
	CU_ASSERT_EQUAL(report_has(dir, want, ARRAY_SIZE(want), &rep), 4);
	free(rep);
	gr_test_rm_tree(dir);
}

/* the report's output stays bounded: it never loops */
#define FLIP_ITERS	2000

static void test_report_survives_random_damage(void)
{
	static uint8_t orig[ARRAY_SIZE(trace_files)][T_S * 4], b[T_S * 4];
	ssize_t size[ARRAY_SIZE(trace_files)];
	char dir[PATH_MAX], path[PATH_MAX + 32], *rep;
	unsigned int it, i, k, f, flips, hard = 0;
	int ret, fd;

	CU_ASSERT_EQUAL_FATAL(copy_syn("flips", dir), 0);
	for (i = 0; i < ARRAY_SIZE(trace_files); i++) {
		fd = openat(syn.dirfd, trace_files[i], O_RDONLY);
		CU_ASSERT_FATAL(fd >= 0);
		size[i] = read(fd, orig[i], sizeof(orig[i]));
		close(fd);
		CU_ASSERT_FATAL(size[i] > 0);
	}
	for (it = 0; it < FLIP_ITERS; it++) {
		f = 1 + (unsigned int)(rnd() % 3);	/* not the metadata */
		flips = 1 + (unsigned int)(rnd() % 8);

		memcpy(b, orig[f], (size_t)size[f]);
		for (k = 0; k < flips; k++) {
			size_t at = (size_t)(rnd() % (uint64_t)size[f]);

			/* mostly headers, where the decisions are */
			if (rnd() % 2)
				at = (at / T_S) * T_S + rnd() % 160;
			if (f == 1 && rnd() % 2)
				at = rnd() % 700;
			if (at < (size_t)size[f])
				b[at] ^= (uint8_t)(1 + rnd() % 255);
		}
		snprintf(path, sizeof(path), "%s/%s", dir, trace_files[f]);
		fd = open(path, O_WRONLY | O_TRUNC);
		CU_ASSERT_FATAL(fd >= 0);
		/* sometimes cut the file too */
		k = (unsigned int)(rnd() % 4 ? (uint64_t)size[f] :
				   rnd() % (uint64_t)size[f]);
		CU_ASSERT_EQUAL(write(fd, b, k), (ssize_t)k);
		close(fd);

		ret = report_text(dir, NULL, (int)(it % 5 == 0), &rep);
		CU_ASSERT(ret >= 0 || ret == -EINVAL);
		hard += ret < 0;
		CU_ASSERT(strlen(rep) < 65536);
		free(rep);

		fd = open(path, O_WRONLY | O_TRUNC);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_EQUAL(write(fd, orig[f], (size_t)size[f]), size[f]);
		close(fd);
	}
	/* most damage is reported in place, not fatal */
	CU_ASSERT(hard < FLIP_ITERS / 2);
	printf("(%u of %u damaged copies had no usable .guestrelay) ", hard,
	       FLIP_ITERS);
	gr_test_rm_tree(dir);
}

/* --- main ------------------------------------------------------------------- */

static const struct gr_test report_tests[] = {
	GR_TEST_NAMED("report prints every event merged in time order",
	  test_report_prints_every_event_merged_in_time_order),
	GR_TEST_NAMED("report filters by cpu and event",
	  test_report_filters_by_cpu_and_event),
	GR_TEST_NAMED("report prints host time through the clock offset",
	  test_report_prints_host_time_through_the_clock_offset),
	GR_TEST_NAMED("report summary counts types, rings and losses",
	  test_report_summary_counts_types_rings_and_losses),
	GR_TEST_NAMED("report of a truncated stream decodes the rest",
	  test_report_truncated_stream_reports_and_decodes_the_rest),
	GR_TEST_NAMED("report skips a garbage packet and goes on",
	  test_report_skips_a_garbage_packet_and_goes_on),
	GR_TEST_NAMED("report skips the rest of a packet after a bad record",
	  test_report_bad_record_skips_rest_of_packet),
	GR_TEST_NAMED("report flags an empty packet", test_report_flags_an_empty_packet),
	GR_TEST_NAMED("report without a valid info file says why",
	  test_report_without_a_valid_info_file_says_why),
	GR_TEST_NAMED("report skips only the records of a damaged descriptor",
	  test_report_damaged_descriptor_skips_only_its_records),
	GR_TEST_NAMED("report survives random damage",
	  test_report_survives_random_damage),
	GR_TEST_NAMED("report prints rwbs flags as ftrace's letters",
	  test_report_rwbs_flags_print_as_ftrace_letters),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("report", report_tests, ctf_fixture_suite_init,
		 ctf_fixture_suite_clean),
};

int main(void)
{
	return ctf_fixture_main("test_report", suites, ARRAY_SIZE(suites));
}
