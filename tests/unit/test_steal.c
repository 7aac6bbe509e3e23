// SPDX-License-Identifier: GPL-2.0
/*
 * test_steal.c - the host stream (trace/hoststream.c, agent/hosttrace.c's
 * parsers) and steal per vCPU from it (trace/steal.c): synthetic host
 * streams written with the agent's own writer into a temporary directory,
 * read back with the one reader, and the preempted, halted and longest
 * times compared with what the events say
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

#include "gr_test.h"
#include "hoststream.h"
#include "hs_fixture.h"
#include "hosttrace.h"
#include "steal.h"

#define US		1000ULL

/* a host stream being written: one directory, a stream per CPU */
struct synth {
	char dir[64];
	int dirfd;
	struct gr_hs_layout l;
	struct gr_hs_stream *s[2];
};

/* host stream directory @sub of @y's (made unless ""), its files written */
static int synth_dir(struct synth *y, const char *sub)
{
	struct gr_ctf_env env = {
		.vm_name = "vm1", .host_name = "hosty", .session = "s1",
		.tracer_major = 1, .host_stream = 1,
	};
	struct gr_ctf_clock clock;
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s%s", y->dir, sub);
	if (*sub)
		CU_ASSERT_EQUAL_FATAL(mkdir(path, 0755), 0);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(fd >= 0);
	memset(env.trace_uuid, 0x42, 16);
	CU_ASSERT_EQUAL_FATAL(gr_ctf_clock_from_sync(1000000000ULL, 0,
						     1700000000LL * 1000000000LL,
						     1000, &clock), 0);
	CU_ASSERT_EQUAL_FATAL(gr_hs_write_files(fd, &y->l, &env, &clock), 0);
	return fd;
}

static void synth_open(struct synth *y, const char *sub)
{
	static const uint8_t boot[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	unsigned int c;

	snprintf(y->dir, sizeof(y->dir), "/tmp/test_steal.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(y->dir));
	CU_ASSERT_EQUAL_FATAL(gr_hs_layout(&y->l, 2, "hosty", "6.1.0", boot), 0);
	y->dirfd = synth_dir(y, sub);
	for (c = 0; c < 2; c++) {
		y->s[c] = malloc(sizeof(*y->s[c]));
		CU_ASSERT_PTR_NOT_NULL_FATAL(y->s[c]);
		CU_ASSERT_EQUAL_FATAL(gr_hs_stream_open(y->s[c], y->dirfd, c), 0);
	}
}

static void synth_close(struct synth *y)
{
	unsigned int c;

	for (c = 0; c < 2; c++) {
		CU_ASSERT_EQUAL(gr_hs_stream_close(y->s[c]), 0);
		free(y->s[c]);
	}
	close(y->dirfd);
}

static void synth_remove(struct synth *y)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", y->dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void sw(struct synth *y, unsigned int cpu, uint64_t ts,
	       const char *prev, int prev_tid, int64_t state,
	       const char *next, int next_tid)
{
	hs_switch(y->s[cpu], ts, prev, prev_tid, state, next, next_tid);
}

static void wake(struct synth *y, unsigned int cpu, uint64_t ts,
		 const char *comm, int tid)
{
	hs_wake(y->s[cpu], ts, comm, tid);
}

static void test_layout_passes_the_checks(void)
{
	uint8_t boot[16] = { 0 };
	struct gr_hs_layout l;

	CU_ASSERT_EQUAL(gr_hs_layout(&l, 1, "h", "r", boot), 0);
	CU_ASSERT_EQUAL(l.view.nr_rings, 1);
	CU_ASSERT_EQUAL(gr_hs_layout(&l, GR_HS_MAX_CPUS, "h", "r", boot), 0);
	CU_ASSERT_EQUAL(l.view.nr_rings, GR_HS_MAX_CPUS);
	CU_ASSERT_STRING_EQUAL(l.events[GR_HS_MIGRATE].name,
			       "sched_migrate_task");
	CU_ASSERT_EQUAL(gr_hs_layout(&l, 0, "h", "r", boot), -EINVAL);
	CU_ASSERT_EQUAL(gr_hs_layout(&l, GR_HS_MAX_CPUS + 1, "h", "r", boot),
			-EINVAL);
}

static void test_metadata_names_the_host(void)
{
	struct synth y;
	char path[128], buf[8192];

	synth_open(&y, "");
	synth_close(&y);
	snprintf(path, sizeof(path), "%s/metadata", y.dir);
	CU_ASSERT_FATAL(gr_test_read_text(AT_FDCWD, path, buf,
					  sizeof(buf)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "hostname = \"hosty\";"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "guestrelay_stream = \"host\";"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "name = monotonic;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "uuid = \"01020304-0506-0708-090a-000000000000\""));
	CU_ASSERT_PTR_NULL(strstr(buf, "guest_boot_id"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "name = \"sched_switch\";"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "_prev_state;"));
	synth_remove(&y);
}

/*
 * vCPU 0 (tid 100) on CPU 0: preempted by "hog" for 3 ms, halted for
 * 10 ms, preempted (R+) by "hog2" for 1 ms; vCPU 1 (tid 101) on CPU 1:
 * halted 1 ms, and preempted 2 ms leaving CPU 1, back on CPU 0
 */
static void test_preempted_and_halted(void)
{
	struct gr_steal s;
	struct synth y;

	synth_open(&y, "/" GR_HS_DIR);
	sw(&y, 0, 1000 * US, "busy", 200, 1, "CPU 0/TCG", 100);
	sw(&y, 0, 2000 * US, "CPU 0/TCG", 100, 0, "hog", 300);
	wake(&y, 0, 4000 * US, "CPU 0/TCG", 100);
	sw(&y, 0, 5000 * US, "hog", 300, 0, "CPU 0/TCG", 100);
	sw(&y, 0, 6000 * US, "CPU 0/TCG", 100, 1, "swapper/0", 0);
	sw(&y, 0, 16000 * US, "swapper/0", 0, 0, "CPU 0/TCG", 100);
	sw(&y, 0, 17000 * US, "CPU 0/TCG", 100, 0x100, "hog2", 301);
	sw(&y, 0, 18000 * US, "hog2", 301, 0, "CPU 0/TCG", 100);
	sw(&y, 0, 19000 * US, "CPU 0/TCG", 100, 0, "qemu-main", 99);
	sw(&y, 0, 21500 * US, "qemu-main", 99, 1, "CPU 1/TCG", 101);
	sw(&y, 1, 3000 * US, "CPU 1/TCG", 101, 1, "swapper/1", 0);
	sw(&y, 1, 4000 * US, "swapper/1", 0, 0, "CPU 1/TCG", 101);
	sw(&y, 1, 19500 * US, "CPU 1/TCG", 101, 0, "hog", 300);
	synth_close(&y);

	CU_ASSERT_EQUAL_FATAL(gr_steal_read(y.dir, &s, stderr), 0);
	CU_ASSERT_EQUAL_FATAL(s.n, 2);
	CU_ASSERT_EQUAL(s.switches, 12);
	CU_ASSERT_EQUAL(s.v[0].index, 0);
	CU_ASSERT_EQUAL(s.v[0].tid, 100);
	CU_ASSERT_EQUAL(s.v[0].preempted_ns, 4000 * US);
	CU_ASSERT_EQUAL(s.v[0].preemptions, 2);
	CU_ASSERT_EQUAL(s.v[0].halted_ns, 10000 * US);
	CU_ASSERT_EQUAL(s.v[0].halts, 1);
	CU_ASSERT_EQUAL(s.v[0].longest_ns, 3000 * US);
	CU_ASSERT_EQUAL(s.v[0].longest_at, 2000 * US);
	CU_ASSERT_EQUAL(s.v[0].longest_cpu, 0);
	CU_ASSERT_STRING_EQUAL(s.v[0].longest_by, "hog");
	CU_ASSERT_EQUAL(s.v[0].longest_by_tid, 300);
	/* the interval open at the end (out at 19 ms) is not counted */
	CU_ASSERT_EQUAL(s.v[1].index, 1);
	CU_ASSERT_EQUAL(s.v[1].halted_ns, 1000 * US);
	CU_ASSERT_EQUAL(s.v[1].preempted_ns, 2000 * US);
	CU_ASSERT_EQUAL(s.v[1].longest_cpu, 1);
	CU_ASSERT_STRING_EQUAL(s.v[1].longest_by, "hog");
	synth_remove(&y);
}

struct off_rec {
	unsigned int n;
	int kind[8];
	uint64_t from[8], to[8];
};

static void record_off(void *arg, const struct gr_steal *s,
		       const struct gr_steal_vcpu *v, enum gr_steal_off kind,
		       uint64_t from, uint64_t to)
{
	struct off_rec *r = arg;

	(void)s;
	(void)v;
	if (r->n < 8) {
		r->kind[r->n] = kind;
		r->from[r->n] = from;
		r->to[r->n] = to;
	}
	r->n++;
}

/*
 * a halted vCPU woken at 3 ms and switched in at 4.5 ms: halted until
 * the wakeup, woken (runnable, waiting for its CPU) after it; a second
 * wakeup, and one while it runs, change nothing; each interval is
 * reported once, in order
 */
static void test_woken_is_steal_after_a_wakeup(void)
{
	struct off_rec r = { 0 };
	struct gr_steal s;
	struct synth y;

	synth_open(&y, "/" GR_HS_DIR);
	sw(&y, 0, 500 * US, "swapper/0", 0, 0, "CPU 0/TCG", 100);
	wake(&y, 1, 700 * US, "CPU 0/TCG", 100);	/* running: nothing */
	sw(&y, 0, 1000 * US, "CPU 0/TCG", 100, 1, "hog", 300);
	wake(&y, 1, 3000 * US, "CPU 0/TCG", 100);
	wake(&y, 1, 3500 * US, "CPU 0/TCG", 100);
	sw(&y, 0, 4500 * US, "hog", 300, 0, "CPU 0/TCG", 100);
	sw(&y, 0, 5000 * US, "CPU 0/TCG", 100, 0, "hog", 300);
	sw(&y, 0, 5200 * US, "hog", 300, 0, "CPU 0/TCG", 100);
	/* halted with no wakeup in the stream: all of it halted */
	sw(&y, 0, 6000 * US, "CPU 0/TCG", 100, 1, "swapper/0", 0);
	sw(&y, 0, 7000 * US, "swapper/0", 0, 0, "CPU 0/TCG", 100);
	synth_close(&y);

	CU_ASSERT_EQUAL_FATAL(gr_steal_walk(y.dir, &s, record_off, &r,
					    stderr), 0);
	CU_ASSERT_PTR_NULL(s.info);
	CU_ASSERT_EQUAL_FATAL(s.n, 1);
	CU_ASSERT_EQUAL(s.v[0].halted_ns, 2000 * US + 1000 * US);
	CU_ASSERT_EQUAL(s.v[0].halts, 2);
	CU_ASSERT_EQUAL(s.v[0].woken_ns, 1500 * US);
	CU_ASSERT_EQUAL(s.v[0].wakeups, 1);
	CU_ASSERT_EQUAL(s.v[0].preempted_ns, 200 * US);
	CU_ASSERT_EQUAL(s.v[0].preemptions, 1);
	CU_ASSERT_EQUAL_FATAL(r.n, 4);
	CU_ASSERT(r.kind[0] == GR_STEAL_HALTED && r.from[0] == 1000 * US &&
		  r.to[0] == 3000 * US);
	CU_ASSERT(r.kind[1] == GR_STEAL_WOKEN && r.from[1] == 3000 * US &&
		  r.to[1] == 4500 * US);
	CU_ASSERT(r.kind[2] == GR_STEAL_PREEMPTED && r.from[2] == 5000 * US &&
		  r.to[2] == 5200 * US);
	CU_ASSERT(r.kind[3] == GR_STEAL_HALTED && r.from[3] == 6000 * US &&
		  r.to[3] == 7000 * US);
	synth_remove(&y);
}

static void dump(struct synth *y, unsigned int cpu, uint64_t ts, int tid)
{
	hs_dump(y->s[cpu], ts, tid, "");
}

/*
 * the state dump names QEMU's threads: another process's "CPU 0/TCG"
 * (tid 900) switching with them is not a vCPU of this VM; who ran
 * instead is listed per task, the most first
 */
static void test_only_qemus_threads(void)
{
	struct gr_steal s;
	struct synth y;

	synth_open(&y, "");
	dump(&y, 0, 500 * US, 100);
	dump(&y, 1, 500 * US, 101);
	sw(&y, 0, 1000 * US, "CPU 0/TCG", 900, 0, "CPU 0/TCG", 100);
	sw(&y, 0, 2000 * US, "CPU 0/TCG", 100, 0, "CPU 0/TCG", 900);
	sw(&y, 0, 4000 * US, "CPU 0/TCG", 900, 0, "CPU 0/TCG", 100);
	sw(&y, 0, 5000 * US, "CPU 0/TCG", 100, 0, "hog", 300);
	sw(&y, 0, 5500 * US, "hog", 300, 0, "CPU 0/TCG", 100);
	synth_close(&y);
	CU_ASSERT_EQUAL_FATAL(gr_steal_read(y.dir, &s, stderr), 0);
	CU_ASSERT_EQUAL(s.nknown, 2);
	CU_ASSERT_EQUAL_FATAL(s.n, 1);
	CU_ASSERT_EQUAL(s.v[0].tid, 100);
	CU_ASSERT_EQUAL(s.v[0].preempted_ns, 2500 * US);
	CU_ASSERT_EQUAL_FATAL(s.v[0].nby, 2);
	CU_ASSERT_STRING_EQUAL(s.v[0].by[0].comm, "CPU 0/TCG");
	CU_ASSERT_EQUAL(s.v[0].by[0].ns, 2000 * US);
	CU_ASSERT_STRING_EQUAL(s.v[0].by[1].comm, "hog");
	CU_ASSERT_EQUAL(s.v[0].by[1].ns, 500 * US);
	synth_remove(&y);
}

/* many packets per CPU: the totals survive packet ends */
static void test_many_packets(void)
{
	const unsigned int n = 5000;
	struct gr_steal s;
	struct synth y;
	unsigned int i;
	uint64_t t;

	synth_open(&y, "");
	for (i = 0, t = 1000; i < n; i++, t += 100 * US) {
		sw(&y, 1, t, "CPU 3/KVM", 55, 0, "other", 77);
		sw(&y, 1, t + 30 * US, "other", 77, 0, "CPU 3/KVM", 55);
		sw(&y, 1, t + 50 * US, "CPU 3/KVM", 55, 1, "swapper/1", 0);
		sw(&y, 1, t + 60 * US, "swapper/1", 0, 0, "CPU 3/KVM", 55);
	}
	CU_ASSERT(y.s[1]->seq > 3);
	synth_close(&y);
	CU_ASSERT_EQUAL_FATAL(gr_steal_read(y.dir, &s, stderr), 0);
	CU_ASSERT_EQUAL_FATAL(s.n, 1);
	CU_ASSERT_EQUAL(s.v[0].index, 3);
	CU_ASSERT_EQUAL(s.switches, 4 * n);
	CU_ASSERT_EQUAL(s.v[0].preempted_ns, n * 30 * US);
	CU_ASSERT_EQUAL(s.v[0].halted_ns, n * 10 * US);
	CU_ASSERT_EQUAL(s.v[0].longest_ns, 30 * US);
	synth_remove(&y);
}

/* packet_seq_num of the first and the last packet of @path; packets */
static unsigned int seqs(const char *path, uint64_t *first, uint64_t *last)
{
	struct gr_packet_header h;
	unsigned int n = 0;
	off_t at = 0;
	int fd = open(path, O_RDONLY);

	CU_ASSERT_FATAL(fd >= 0);
	while (pread(fd, &h, sizeof(h), at) == (ssize_t)sizeof(h) &&
	       le64toh(h.packet_size) >= 8 * sizeof(h)) {
		if (!n++)
			*first = le64toh(h.packet_seq_num);
		*last = le64toh(h.packet_seq_num);
		at += (off_t)(le64toh(h.packet_size) / 8);
	}
	close(fd);
	return n;
}

/* a rotation: the streams go on in the next chunk's directory, numbered on */
static void test_move_to_next_chunk(void)
{
	struct gr_steal a, b;
	uint64_t f0 = 0, l0 = 0, f1 = 0, l1 = 0;
	char path[160];
	struct synth y;
	unsigned int i, c;
	uint64_t t;
	int fd;

	synth_open(&y, "/a");
	for (i = 0, t = 1000; i < 2000; i++, t += 100 * US) {
		sw(&y, 1, t, "CPU 0/KVM", 55, 0, "other", 77);
		sw(&y, 1, t + 30 * US, "other", 77, 0, "CPU 0/KVM", 55);
	}
	/* the seam falls in a preemption: neither chunk counts it */
	sw(&y, 1, t, "CPU 0/KVM", 55, 0, "other", 77);
	fd = synth_dir(&y, "/b");
	for (c = 0; c < 2; c++)
		CU_ASSERT_EQUAL(gr_hs_stream_move(y.s[c], fd), 0);
	close(y.dirfd);
	y.dirfd = fd;
	for (i = 0, t += 30 * US; i < 1000; i++, t += 100 * US) {
		sw(&y, 1, t, "other", 77, 0, "CPU 0/KVM", 55);
		sw(&y, 1, t + 70 * US, "CPU 0/KVM", 55, 0, "other", 77);
	}
	synth_close(&y);
	snprintf(path, sizeof(path), "%s/a/stream_1", y.dir);
	CU_ASSERT(seqs(path, &f0, &l0) > 1);
	snprintf(path, sizeof(path), "%s/b/stream_1", y.dir);
	CU_ASSERT(seqs(path, &f1, &l1) > 0);
	CU_ASSERT_EQUAL(f0, 0);
	CU_ASSERT_EQUAL(f1, l0 + 1);
	snprintf(path, sizeof(path), "%s/a", y.dir);
	CU_ASSERT_EQUAL_FATAL(gr_steal_read(path, &a, stderr), 0);
	snprintf(path, sizeof(path), "%s/b", y.dir);
	CU_ASSERT_EQUAL_FATAL(gr_steal_read(path, &b, stderr), 0);
	CU_ASSERT_EQUAL(a.switches, 4001);
	CU_ASSERT_EQUAL(b.switches, 2000);
	CU_ASSERT_EQUAL_FATAL(a.n, 1);
	CU_ASSERT_EQUAL_FATAL(b.n, 1);
	CU_ASSERT_EQUAL(a.v[0].preempted_ns, 2000 * 30 * US);
	CU_ASSERT_EQUAL(b.v[0].preempted_ns, 999 * 30 * US);
	CU_ASSERT(b.first_ts >= a.last_ts);
	synth_remove(&y);
}

static void test_no_host_stream(void)
{
	struct gr_steal s;
	char dir[] = "/tmp/test_steal.XXXXXX";

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	CU_ASSERT(gr_steal_read(dir, &s, stderr) < 0);
	rmdir(dir);
}

static const char fmt_switch[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\"\n";

static const char fmt_migrate[] =
	"\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n";

static void test_format_fields(void)
{
	struct gr_ht_field f;

	CU_ASSERT_EQUAL(ht_format_field(fmt_switch, "prev_comm", &f), 0);
	CU_ASSERT_EQUAL(f.offset, 8);
	CU_ASSERT_EQUAL(f.size, 16);
	CU_ASSERT_FALSE(f.data_loc);
	CU_ASSERT_EQUAL(ht_format_field(fmt_switch, "prev_state", &f), 0);
	CU_ASSERT_EQUAL(f.offset, 32);
	CU_ASSERT_EQUAL(f.size, 8);
	/* "pid" is no prefix match of prev_pid or common_pid */
	CU_ASSERT_EQUAL(ht_format_field(fmt_switch, "pid", &f), -ENOENT);
	CU_ASSERT_EQUAL(ht_format_field(fmt_switch, "next_pid", &f), 0);
	CU_ASSERT_EQUAL(f.offset, 56);
	CU_ASSERT_EQUAL(ht_format_field(fmt_migrate, "comm", &f), 0);
	CU_ASSERT(f.data_loc);
	CU_ASSERT_EQUAL(f.size, 4);
	CU_ASSERT_EQUAL(ht_format_field(fmt_migrate, "pid", &f), 0);
	CU_ASSERT_EQUAL(f.offset, 12);
	CU_ASSERT_EQUAL(ht_format_field("\tfield:int x;\toffset:z;", "x", &f),
			-EINVAL);
}

static void test_filter_text(void)
{
	static const char *const sw2[] = { "prev_pid", "next_pid" };
	static const char *const one[] = { "pid" };
	int tids[GR_HT_MAX_TIDS];
	char buf[4000];
	unsigned int i;

	tids[0] = 12;
	tids[1] = 345;
	CU_ASSERT_EQUAL(ht_filter(buf, sizeof(buf), sw2, 2, tids, 2), 0);
	CU_ASSERT_STRING_EQUAL(buf, "prev_pid == 12 || next_pid == 12 || "
			       "prev_pid == 345 || next_pid == 345");
	CU_ASSERT_EQUAL(ht_filter(buf, sizeof(buf), one, 1, tids, 1), 0);
	CU_ASSERT_STRING_EQUAL(buf, "pid == 12");
	CU_ASSERT_EQUAL(ht_filter(buf, sizeof(buf), one, 1, tids, 0), -EINVAL);
	/* the most threads followed, with the largest pids, fit a page */
	for (i = 0; i < GR_HT_MAX_TIDS; i++)
		tids[i] = 4194303 - (int)i;
	CU_ASSERT_EQUAL(ht_filter(buf, sizeof(buf), sw2, 2, tids,
				  GR_HT_MAX_TIDS), -ENOSPC);
	CU_ASSERT_EQUAL(ht_filter(buf, sizeof(buf), sw2, 2, tids, 40), 0);
}


/*
 * KVM's events: vCPU 0 (tid 100) in guest mode 1-3 ms (HLT), 4-4.5 ms
 * (EPT_VIOLATION), 5-7 ms (HLT); an entry of a thread not yet switched
 * in (tid 102) and an exit without its entry are not timed
 */
static void test_guest_mode_and_exit_reasons(void)
{
	struct gr_steal s;
	struct synth y;

	synth_open(&y, "/" GR_HS_DIR);
	sw(&y, 0, 500 * US, "busy", 200, 1, "CPU 0/KVM", 100);
	hs_kvm_entry(y.s[0], 1000 * US, 100, 0);
	hs_kvm_exit(y.s[0], 3000 * US, 100, 0, 12, "HLT");
	hs_kvm_entry(y.s[0], 4000 * US, 100, 0);
	hs_kvm_exit(y.s[0], 4500 * US, 100, 0, 48, "EPT_VIOLATION");
	hs_kvm_entry(y.s[0], 5000 * US, 100, 0);
	hs_kvm_exit(y.s[0], 7000 * US, 100, 0, 12, "HLT");
	hs_kvm_exit(y.s[0], 7500 * US, 100, 0, 30, "");
	hs_kvm_entry(y.s[1], 1000 * US, 102, 1);
	hs_kvm_exit(y.s[1], 2000 * US, 102, 1, 12, "HLT");
	synth_close(&y);

	CU_ASSERT_EQUAL_FATAL(gr_steal_read(y.dir, &s, stderr), 0);
	CU_ASSERT_EQUAL_FATAL(s.n, 1);
	CU_ASSERT_EQUAL(s.kvm, 9);
	CU_ASSERT_EQUAL(s.v[0].guest_ns, 4500 * US);
	CU_ASSERT_EQUAL(s.v[0].exits, 4);
	CU_ASSERT_EQUAL_FATAL(s.v[0].nreasons, 3);
	CU_ASSERT_STRING_EQUAL(s.v[0].reasons[0].reason, "HLT");
	CU_ASSERT_EQUAL(s.v[0].reasons[0].n, 2);
	CU_ASSERT_EQUAL(s.v[0].reasons[1].n, 1);
	CU_ASSERT_EQUAL(s.v[0].reasons[2].n, 1);
	CU_ASSERT(!strcmp(s.v[0].reasons[1].reason, "?") ||
		  !strcmp(s.v[0].reasons[2].reason, "?"));
	synth_remove(&y);
}

static const struct gr_test tests[] = {
	GR_TEST(test_guest_mode_and_exit_reasons),
	GR_TEST(test_layout_passes_the_checks),
	GR_TEST(test_metadata_names_the_host),
	GR_TEST(test_preempted_and_halted),
	GR_TEST(test_woken_is_steal_after_a_wakeup),
	GR_TEST(test_only_qemus_threads),
	GR_TEST(test_many_packets),
	GR_TEST(test_move_to_next_chunk),
	GR_TEST(test_no_host_stream),
	GR_TEST(test_format_fields),
	GR_TEST(test_filter_text),
};

int main(void)
{
	return gr_test_main("steal", tests, ARRAY_SIZE(tests), NULL, NULL);
}
