// SPDX-License-Identifier: GPL-2.0
/*
 * test_report_host.c - `guestrelay report --host` (trace/report_host.c):
 * a guest trace built as the agent stores it (tests/lib/ctf_fixture.c)
 * with a host stream in its host/ written by the agent's own writer
 * (hoststream.c, tests/lib/hs_fixture.c), merged on host CLOCK_MONOTONIC;
 * and the clock check fields of .guestrelay (ctf_info.c) the bound comes
 * from, also as a file of the first writers (128-byte header) reads them
 *
 * The session "s" (guest times in guest ns, guest 0 = host monotonic
 * 1000 s, the mapping checked to +-2000 ns over guest 0 .. 10 us by 3
 * samples, drift 50000 ppb):
 *
 *   guest ring 0: tick 1000 (tid 1), tick 5000 (tid 1)
 *   guest ring 1: tick 3000 (tid 2), tick 20000 (tid 2; 10 us past the span)
 *   host CPU 0:   +500 state dump "CPU 0/TCG" 101, +600 "CPU 1/TCG" 102,
 *                 +700 "qemu-system-x86" 103, +2000 switch CPU 0/TCG ->
 *                 hog 500, +6000 switch hog -> CPU 0/TCG
 *   host CPU 1:   +4000 wakeup CPU 1/TCG 102, +5000 switch swapper/1 ->
 *                 CPU 1/TCG, +7000 wakeup of another QEMU's "CPU 0/TCG"
 *                 900 (not named by the state dump: no vCPU)
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gr_test.h"
#include "ctf_fixture.h"
#include "ctf.h"
#include "ctf_info.h"
#include "hoststream.h"
#include "hs_fixture.h"
#include "report.h"

#define MONO0		(1000ULL * 1000000000ULL)	/* guest 0, host mono */
#define M2R		((int64_t)(T_HOST_S - 1000) * 1000000000LL)

/* a guest trace: two rings of ticks, the clock @c (checked if @checked) */
static int guest_trace(struct trace *t, const char *name, int checked,
		       uint32_t samples)
{
	struct pkt p;
	int ret;

	trace_init(t, "guest1", 0x40, 1000000000ULL, "vm1", 0x01);
	ret = gr_ctf_clock_from_sync(1000000000ULL, 0, T_HOST_S * 1000000000LL,
				     1500, &t->clock);
	if (ret)
		return ret;
	if (checked) {
		t->clock.checked = 1;
		t->clock.mono_to_real = M2R;
		t->clock.checked_ns = 2000;
		t->clock.span_first = 0;
		t->clock.span_last = 10000;
		t->clock.drift_ppb = samples > 1 ? 50000 : 0;
		t->clock.samples = samples;
	}
	ret = trace_create(t, name);
	if (ret)
		return ret;
	pkt_start(&p, 0, 0, 900, 0);
	pkt_add(&p, EV_TICK, 1, 1000, NULL, 0);
	pkt_add(&p, EV_TICK, 1, 5000, NULL, 0);
	pkt_finish(&p, 5100);
	ret = stream_append(t, 0, p.b, T_S);
	pkt_start(&p, 1, 0, 2900, 0);
	pkt_add(&p, EV_TICK, 2, 3000, NULL, 0);
	pkt_add(&p, EV_TICK, 2, 20000, NULL, 0);
	pkt_finish(&p, 20100);
	return ret ? ret : stream_append(t, 1, p.b, T_S);
}

/* its host stream, host/ of @t; its clock maps mono 0 to @m2r */
static int host_stream(const struct trace *t, int64_t m2r)
{
	static const uint8_t boot[16] = { 9, 8, 7, 6, 5, 4, 3, 2, 1 };
	struct gr_ctf_env env = {
		.vm_name = "vm1", .host_name = "hosty", .session = "s1",
		.tracer_major = 1, .host_stream = 1,
	};
	struct gr_hs_stream *s[2];
	struct gr_ctf_clock clock;
	struct gr_hs_layout l;
	char path[PATH_MAX + 8];
	int dirfd, ret, c;

	snprintf(path, sizeof(path), "%s/" GR_HS_DIR, t->dir);
	if (mkdir(path, 0755))
		return -errno;
	dirfd = open(path, O_RDONLY | O_DIRECTORY);
	if (dirfd < 0)
		return -errno;
	memset(env.trace_uuid, 0x42, 16);
	ret = gr_hs_layout(&l, 2, "hosty", "6.1.0", boot);
	if (!ret)
		ret = gr_ctf_clock_from_sync(1000000000ULL, 0, m2r, 1000,
					     &clock);
	if (!ret)
		ret = gr_hs_write_files(dirfd, &l, &env, &clock);
	for (c = 0; c < 2; c++) {
		s[c] = malloc(sizeof(*s[c]));
		if (!ret && (!s[c] || gr_hs_stream_open(s[c], dirfd,
							(unsigned int)c)))
			ret = -EIO;
	}
	if (!ret) {
		hs_dump(s[0], MONO0 + 500, 101, "CPU 0/TCG");
		hs_dump(s[0], MONO0 + 600, 102, "CPU 1/TCG");
		hs_dump(s[0], MONO0 + 700, 103, "qemu-system-x86");
		hs_switch(s[0], MONO0 + 2000, "CPU 0/TCG", 101, 0, "hog", 500);
		hs_switch(s[0], MONO0 + 6000, "hog", 500, 0, "CPU 0/TCG", 101);
		hs_wake(s[1], MONO0 + 4000, "CPU 1/TCG", 102);
		hs_switch(s[1], MONO0 + 5000, "swapper/1", 0, 0, "CPU 1/TCG",
			  102);
		hs_wake(s[1], MONO0 + 7000, "CPU 0/TCG", 900);
		for (c = 0; c < 2; c++)
			if (gr_hs_stream_close(s[c]))
				ret = -EIO;
	}
	free(s[0]);
	free(s[1]);
	close(dirfd);
	return ret;
}

/*
 * The session "s" as @name, its mapping checked by @samples (0: stored
 * unchecked), its host stream's wall clock @m2r ahead of its monotonic;
 * report --host's text of it (summary if @summary) in @text
 */
static int session(struct trace *t, const char *name, uint32_t samples,
		   int64_t m2r, const struct gr_report_opts *o, int summary,
		   char **text)
{
	int ret = guest_trace(t, name, samples > 0, samples);

	if (!ret && m2r)
		ret = host_stream(t, m2r);
	*text = NULL;
	return ret ? ret : report_text(t->dir, o, REPORT_HOST | summary, text);
}

static void done(struct trace *t, char *text)
{
	free(text);
	trace_close(t);
}

/* lines of @text that begin with @prefix */
static unsigned int starting(const char *text, const char *prefix)
{
	unsigned int n = 0;
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

static const char merged[] =
"H     101 [000]  1000.000000500: lttng_statedump_process_state: tid=101 pid=42 ppid=0 name=CPU 0/TCG type=0 mode=0 submode=0 status=0 cpu=0 vcpu=0\n"
"H     102 [000]  1000.000000600: lttng_statedump_process_state: tid=102 pid=42 ppid=0 name=CPU 1/TCG type=0 mode=0 submode=0 status=0 cpu=0 vcpu=1\n"
"H     103 [000]  1000.000000700: lttng_statedump_process_state: tid=103 pid=42 ppid=0 name=qemu-system-x86 type=0 mode=0 submode=0 status=0 cpu=0\n"
"G       1 [000]  1000.000001000: tick:\n"
"H     101 [000]  1000.000002000: sched_switch: prev_comm=CPU 0/TCG prev_tid=101 prev_prio=0 prev_state=0 next_comm=hog next_tid=500 next_prio=0 prev_vcpu=0\n"
"G       2 [001]  1000.000003000: tick:\n"
"H       0 [001]  1000.000004000: sched_wakeup: comm=CPU 1/TCG tid=102 prio=0 target_cpu=0 vcpu=1\n"
"G       1 [000]  1000.000005000: tick:\n"
"H       0 [001]  1000.000005000: sched_switch: prev_comm=swapper/1 prev_tid=0 prev_prio=0 prev_state=0 next_comm=CPU 1/TCG next_tid=102 next_prio=0 next_vcpu=1\n"
"H     500 [000]  1000.000006000: sched_switch: prev_comm=hog prev_tid=500 prev_prio=0 prev_state=0 next_comm=CPU 0/TCG next_tid=101 next_prio=0 next_vcpu=0\n"
"H       0 [001]  1000.000007000: sched_wakeup: comm=CPU 0/TCG tid=900 prio=0 target_cpu=0\n"
"G       2 [001]  1000.000020000: tick:\n"
"# 1 guest event outside the checked span, up to 0.000010000 s from it: +-2000 ns there\n";

/* the events: one time order on host monotonic, sides and vCPUs named */
static void test_host_report_merges_on_host_monotonic(void)
{
	struct trace t;
	char *text = NULL;

	CU_ASSERT_EQUAL_FATAL(session(&t, "merged", 3, M2R, NULL, 0, &text), 0);
	/* the events, then the trailer: the end of the text */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, merged));
	CU_ASSERT_STRING_EQUAL(text + strlen(text) - strlen(merged), merged);
	if (!strstr(text, merged))
		printf("\n--- got:\n%s--- want (at the end):\n%s", text, merged);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "host CLOCK_MONOTONIC time\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "guest clock 0 = host monotonic "
				      "1000.000000000\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# bound: a guest event is within "
				      "+-2000 ns of its true host time for "
				      "guest times from 1000.000000000 to "
				      "1000.000010000 (host monotonic), the "
				      "span of 3 clock sync samples"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "add 50000 ns per second"));
	done(&t, text);
}

/* --cpu N: guest CPU N and the host events of vCPU N's thread */
static void test_host_report_cpu_is_a_vcpu_lane(void)
{
	struct gr_report_opts o = { .cpu = 1 };
	struct trace t;
	char *text = NULL;

	CU_ASSERT_EQUAL_FATAL(session(&t, "lane", 3, M2R, &o, 0, &text), 0);
	CU_ASSERT_EQUAL(starting(text, "G "), 2);
	CU_ASSERT_EQUAL(starting(text, "G       2 [001]"), 2);
	CU_ASSERT_EQUAL(starting(text, "H "), 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "name=CPU 1/TCG"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "sched_wakeup: comm=CPU 1/TCG"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "next_vcpu=1\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "vcpu=0"));
	done(&t, text);
}

/* --events names either side's events; a name neither has is refused */
static void test_host_report_events_of_either_side(void)
{
	struct gr_report_opts o = { .cpu = -1, .events = "tick,sched_wakeup" };
	struct trace t;
	char *text = NULL;

	CU_ASSERT_EQUAL_FATAL(session(&t, "events", 3, M2R, &o, 0, &text), 0);
	CU_ASSERT_EQUAL(starting(text, "G "), 4);
	CU_ASSERT_EQUAL(starting(text, "H "), 2);
	free(text);
	o.events = "sched_switch,nope";
	CU_ASSERT_EQUAL(report_text(t.dir, &o, REPORT_HOST, &text), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "error: no event matches \"nope\""));
	done(&t, text);
}

static void test_host_report_summary_counts_sides(void)
{
	struct trace t;
	char *text = NULL;

	CU_ASSERT_EQUAL_FATAL(session(&t, "summary", 3, M2R, NULL, 1, &text), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "guest events: 4\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "host events: 8, 6 of them of "
				      "vCPU threads\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  vCPU 0              3 host events\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  vCPU 1              3 host events\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "time span: 1000.000000500 .. "
				      "1000.000020000 host monotonic\n"));
	CU_ASSERT_EQUAL(starting(text, "G "), 0);
	done(&t, text);
}

/*
 * One sample: no drift, so no bound outside its span. A trace stored
 * before the agent checked its mapping: the host stream's offset, and the
 * preamble says the bound is not stored; here the host stream's wall
 * clock is 3 us ahead of the agent's, and the guest's events move by it.
 */
static void test_host_report_bound_as_stored(void)
{
	struct trace t;
	char *text = NULL;

	CU_ASSERT_EQUAL_FATAL(session(&t, "one", 1, M2R, NULL, 0, &text), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "outside it no bound is derived "
				      "(one sample: no drift measured)\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "up to 0.000010000 s from it: no "
				      "bound derived"));
	done(&t, text);

	CU_ASSERT_EQUAL_FATAL(session(&t, "old", 0, M2R + 3000, NULL, 0, &text), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# bound: not stored with this "
				      "trace"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "less the host stream's "
				      "CLOCK_REALTIME - CLOCK_MONOTONIC"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "G       1 [000]   999.999998000: "
				      "tick:\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "outside the checked span"));
	done(&t, text);
}

static void test_host_report_without_host_stream_says_so(void)
{
	struct trace t;
	char *text = NULL;

	CU_ASSERT_EQUAL(session(&t, "nohost", 3, 0, NULL, 0, &text), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ": no host stream (host/) in this "
				      "trace"));
	CU_ASSERT_EQUAL(starting(text, "error: "), 1);
	done(&t, text);
}

/* the check fields round-trip; a first writer's 128-byte header reads unchecked */
static void test_info_clock_check_fields(void)
{
	struct gr_ctf_info *info = malloc(sizeof(*info));
	struct trace t;
	uint8_t *buf, *old;
	struct gr_info_hdr h;
	size_t len, olen;
	ssize_t n;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	CU_ASSERT_EQUAL_FATAL(guest_trace(&t, "info", 1, 3), 0);
	CU_ASSERT_EQUAL(gr_ctf_read_info(t.dirfd, info, NULL), 0);
	CU_ASSERT(info->crc_ok && info->clock.checked);
	CU_ASSERT_EQUAL(info->clock.mono_to_real, M2R);
	CU_ASSERT_EQUAL(info->clock.checked_ns, 2000);
	CU_ASSERT_EQUAL(info->clock.span_last, 10000);
	CU_ASSERT_EQUAL(info->clock.drift_ppb, 50000);
	CU_ASSERT_EQUAL(info->clock.samples, 3);

	fd = openat(t.dirfd, GR_CTF_INFO, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	len = (size_t)lseek(fd, 0, SEEK_END);
	buf = malloc(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	n = pread(fd, buf, len, 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(n, (ssize_t)len);
	/* as the first writers wrote it: the first 128 bytes, then the rest */
	olen = len - (sizeof(h) - GR_INFO_HDR_MIN);
	old = malloc(olen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(old);
	memcpy(&h, buf, sizeof(h));
	h.hdr_size = htole32(GR_INFO_HDR_MIN);
	h.flags &= ~htole32(GR_INFO_F_CLOCK_CHECKED);
	h.crc32 = 0;
	memcpy(old, &h, GR_INFO_HDR_MIN);
	memcpy(old + GR_INFO_HDR_MIN, buf + sizeof(h), len - sizeof(h));
	h.crc32 = htole32(gr_crc32(0, old, olen));
	memcpy(old, &h, GR_INFO_HDR_MIN);
	CU_ASSERT_EQUAL(gr_ctf_parse_info(old, olen, info, NULL), 0);
	CU_ASSERT(info->crc_ok && info->clock.synced && !info->clock.checked);
	CU_ASSERT_EQUAL(info->clock.error_ns, 1500);
	CU_ASSERT_EQUAL(info->nr_events, T_NDESC);
	free(old);
	free(buf);
	free(info);
	trace_close(&t);
}

static const struct gr_test report_host_tests[] = {
	GR_TEST_NAMED("report --host merges on host monotonic",
	  test_host_report_merges_on_host_monotonic),
	GR_TEST_NAMED("report --host --cpu is a vCPU's lane",
	  test_host_report_cpu_is_a_vcpu_lane),
	GR_TEST_NAMED("report --host --events names either side's events",
	  test_host_report_events_of_either_side),
	GR_TEST_NAMED("report --host --summary counts both sides",
	  test_host_report_summary_counts_sides),
	GR_TEST_NAMED("report --host states the bound as stored",
	  test_host_report_bound_as_stored),
	GR_TEST_NAMED("report --host without host/ says so",
	  test_host_report_without_host_stream_says_so),
	GR_TEST_NAMED(".guestrelay clock check fields, old header",
	  test_info_clock_check_fields),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("report_host", report_host_tests, NULL, NULL),
};

int main(void)
{
	return ctf_fixture_main("test_report_host", suites, ARRAY_SIZE(suites));
}
