// SPDX-License-Identifier: GPL-2.0
/*
 * test_ht_record.c - the host stream's record decoding (agent/ht_record.c)
 * fed with raw perf records laid out by hand after the format files of a
 * real host (tests/data/tracefs, recorded from a 6.18 x86 host's tracefs):
 * fields found at the offsets the formats give, samples split, payloads
 * holding the values put in, records read across the end of a ring;
 * KVM's kvm_entry/kvm_exit with the host's own exit reason names, and the
 * host stream written of them as babeltrace2 reads it (kvm_x86_entry,
 * kvm_x86_exit: lttng-modules' names, which Trace Compass reads)
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gr_test.h"
#include "ht_record.h"

/* tracefs/events/<sys>/<name>/<file> of the recorded host, NUL-terminated */
static char *data_file(const char *sys, const char *name, const char *file)
{
	static char buf[4][16384];
	static unsigned int next;
	char path[512], *b = buf[next++ % 4];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tracefs/events/%s/%s/%s",
		 GR_TEST_DATA, sys, name, file);
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	n = fread(b, 1, sizeof(buf[0]) - 1, f);
	fclose(f);
	b[n] = '\0';
	return b;
}

/* the recorded host's tracepoint @tpi, as hosttrace.c reads it */
static void load_tp(unsigned int tpi, struct gr_ht_tp *tp)
{
	const struct gr_ht_tpdef *d = &gr_ht_tps[tpi];

	tp->id = strtoull(data_file(d->system, d->name, "id"), NULL, 10);
	CU_ASSERT_EQUAL_FATAL(ht_read_format(data_file(d->system, d->name,
						       "format"), tpi, tp), 0);
	tp->present = true;
}

static void put(uint8_t *raw, const struct gr_ht_field *f, uint64_t v)
{
	CU_ASSERT_FATAL(f->size == 1 || f->size == 2 || f->size == 4 ||
			f->size == 8);
	memcpy(raw + f->offset, &v, f->size);	/* little-endian host */
}

/* a PERF_RECORD_SAMPLE (TID | TIME | CPU | RAW) around @raw, into @rec */
static uint32_t make_sample(uint8_t *rec, uint32_t tid, uint64_t ts,
			    uint32_t cpu, const uint8_t *raw, uint32_t rawlen)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
	uint32_t n = (36 + rawlen + 7) & ~7U, pid = 1;

	memset(rec, 0, n);
	h.size = (uint16_t)n;
	memcpy(rec, &h, 8);
	memcpy(rec + 8, &pid, 4);
	memcpy(rec + 12, &tid, 4);
	memcpy(rec + 16, &ts, 8);
	memcpy(rec + 24, &cpu, 4);
	memcpy(rec + 32, &rawlen, 4);
	memcpy(rec + 36, raw, rawlen);
	return n;
}

static void test_format_fields_of_the_recorded_host(void)
{
	struct gr_ht_field f;
	const char *sw = data_file("sched", "sched_switch", "format");

	CU_ASSERT_EQUAL(ht_format_field(sw, "prev_comm", &f), 0);
	CU_ASSERT_EQUAL(f.offset, 8);
	CU_ASSERT_EQUAL(f.size, 16);
	CU_ASSERT_FALSE(f.data_loc);
	CU_ASSERT_EQUAL(ht_format_field(sw, "next_pid", &f), 0);
	CU_ASSERT_EQUAL(f.offset, 56);
	CU_ASSERT_EQUAL(f.size, 4);
	CU_ASSERT_EQUAL(ht_format_field(sw, "pid", &f), -ENOENT);
	CU_ASSERT_EQUAL(ht_format_field("\tfield:int x;\toffset:99999; size:4;",
					"x", &f), -EINVAL);
	CU_ASSERT_EQUAL(ht_format_field("\tfield:int x;\toffset:8; size:0;",
					"x", &f), -EINVAL);
}

static void test_switch_sample_becomes_its_payload(void)
{
	struct gr_ht_tp tps[GR_HT_NR_TPS];
	uint8_t raw[64], rec[128], p[GR_HT_PAYLOAD_MAX];
	struct gr_ht_sample s;
	uint32_t n, len;
	int64_t state;
	int32_t v;

	memset(tps, 0, sizeof(tps));
	load_tp(GR_HT_SWITCH, &tps[GR_HT_SWITCH]);
	memset(raw, 0, sizeof(raw));
	put(raw, &(struct gr_ht_field){ 0, 2, false }, tps[0].id);
	memcpy(raw + tps[0].f[0].offset, "CPU 0/KVM", 9);
	put(raw, &tps[0].f[1], 4242);
	put(raw, &tps[0].f[2], 120);
	put(raw, &tps[0].f[3], 0x100);
	memcpy(raw + tps[0].f[4].offset, "swapper/1", 9);
	put(raw, &tps[0].f[5], 0);
	put(raw, &tps[0].f[6], (uint32_t)-1);
	n = make_sample(rec, 4242, 123456789, 1, raw, 64);
	CU_ASSERT_EQUAL_FATAL(ht_sample(rec, n, &s), 0);
	CU_ASSERT_EQUAL(s.tid, 4242);
	CU_ASSERT_EQUAL(s.ts, 123456789);
	CU_ASSERT_EQUAL(s.cpu, 1);
	CU_ASSERT_EQUAL(s.rawlen, 64);
	CU_ASSERT_EQUAL(ht_payload(tps, NULL, &s, p, &len), GR_HS_SWITCH);
	CU_ASSERT_EQUAL(len, GR_HS_SWITCH_SIZE);
	CU_ASSERT_STRING_EQUAL((char *)p, "CPU 0/KVM");
	memcpy(&v, p + 16, 4);
	CU_ASSERT_EQUAL(v, 4242);
	memcpy(&v, p + 20, 4);
	CU_ASSERT_EQUAL(v, 120);
	memcpy(&state, p + 24, 8);
	CU_ASSERT_EQUAL(state, 0x100);
	CU_ASSERT_STRING_EQUAL((char *)p + 32, "swapper/1");
	memcpy(&v, p + 52, 4);
	CU_ASSERT_EQUAL(v, -1);
	/* another tracepoint's id: not ours */
	memcpy((uint8_t *)s.raw, &(uint16_t){ 9999 }, 2);
	s.type = 9999;
	CU_ASSERT_EQUAL(ht_payload(tps, NULL, &s, p, &len), -ENOENT);
}

static void test_short_records_are_refused(void)
{
	struct gr_ht_tp tps[GR_HT_NR_TPS];
	uint8_t raw[64], rec[128], p[GR_HT_PAYLOAD_MAX];
	struct gr_ht_sample s;
	uint32_t n, len, big = 1000;
	int32_t v;

	memset(raw, 0, sizeof(raw));
	memset(rec, 0, sizeof(rec));
	CU_ASSERT_EQUAL(ht_sample(rec, 30, &s), -EINVAL);
	n = make_sample(rec, 1, 1, 0, raw, 40);
	memcpy(rec + 32, &big, 4);		/* raw size past the record */
	CU_ASSERT_EQUAL(ht_sample(rec, n, &s), -EINVAL);
	/* a raw record cut before next_pid: the fields past it read 0 */
	memset(tps, 0, sizeof(tps));
	load_tp(GR_HT_SWITCH, &tps[GR_HT_SWITCH]);
	put(raw, &(struct gr_ht_field){ 0, 2, false }, tps[0].id);
	put(raw, &tps[0].f[1], 77);
	put(raw, &tps[0].f[5], 88);
	n = make_sample(rec, 1, 1, 0, raw, 56);
	CU_ASSERT_EQUAL_FATAL(ht_sample(rec, n, &s), 0);
	CU_ASSERT_EQUAL(ht_payload(tps, NULL, &s, p, &len), GR_HS_SWITCH);
	memcpy(&v, p + 16, 4);
	CU_ASSERT_EQUAL(v, 77);
	memcpy(&v, p + 48, 4);
	CU_ASSERT_EQUAL(v, 0);
}

static void test_data_loc_comm(void)
{
	const struct gr_ht_field f = { 8, 4, true };
	uint8_t raw[40], out[16];
	uint32_t loc = (6U << 16) | 12;

	memset(raw, 0, sizeof(raw));
	memcpy(raw + 8, &loc, 4);
	memcpy(raw + 12, "qemu\0", 5);
	ht_raw_comm(out, raw, sizeof(raw), &f);
	CU_ASSERT_STRING_EQUAL((char *)out, "qemu");
	loc = (30U << 16) | 20;			/* past the record */
	memcpy(raw + 8, &loc, 4);
	ht_raw_comm(out, raw, sizeof(raw), &f);
	CU_ASSERT_EQUAL(out[0], 0);
}

struct seen {
	unsigned int n;
	uint32_t type[8];
	uint32_t size[8];
	uint8_t first[8];
};

static void seen_one(void *arg, uint32_t type, const uint8_t *rec, uint32_t n)
{
	struct seen *v = arg;

	if (v->n < 8) {
		v->type[v->n] = type;
		v->size[v->n] = n;
		v->first[v->n] = n > 8 ? rec[8] : 0;
	}
	v->n++;
}

/* a record at ring position @pos of @data (@size bytes), across its end */
static void ring_put(uint8_t *data, uint64_t size, uint64_t pos,
		     uint32_t type, uint16_t len, uint8_t mark)
{
	struct perf_event_header h = { .type = type, .size = len };
	uint8_t rec[64];
	uint16_t i;

	memset(rec, 0, sizeof(rec));
	memcpy(rec, &h, 8);
	rec[8] = mark;
	for (i = 0; i < len; i++)
		data[(pos + i) % size] = rec[i];
}

static void test_ring_walk_across_the_end(void)
{
	uint8_t data[256];
	struct seen v = { 0 };
	uint64_t tail = 1000 * 256 + 232, head = tail;

	memset(data, 0xee, sizeof(data));
	ring_put(data, 256, head, PERF_RECORD_SAMPLE, 48, 1);	/* wraps */
	head += 48;
	ring_put(data, 256, head, PERF_RECORD_LOST, 24, 2);
	head += 24;
	CU_ASSERT_EQUAL(ht_ring_walk(data, 256, head, tail, seen_one, &v),
			head);
	CU_ASSERT_EQUAL_FATAL(v.n, 2);
	CU_ASSERT_EQUAL(v.type[0], PERF_RECORD_SAMPLE);
	CU_ASSERT_EQUAL(v.size[0], 48);
	CU_ASSERT_EQUAL(v.first[0], 1);
	CU_ASSERT_EQUAL(v.type[1], PERF_RECORD_LOST);
	CU_ASSERT_EQUAL(v.first[1], 2);
	/* a header of size 4 is not a record: the rest is skipped */
	v.n = 0;
	ring_put(data, 256, head, PERF_RECORD_SAMPLE, 4, 3);
	CU_ASSERT_EQUAL(ht_ring_walk(data, 256, head + 64, head, seen_one,
				     &v), head + 64);
	CU_ASSERT_EQUAL(v.n, 0);
	/* a record that claims more than the ring holds: skipped too */
	ring_put(data, 256, head, PERF_RECORD_SAMPLE, 48, 3);
	CU_ASSERT_EQUAL(ht_ring_walk(data, 256, head + 40, head, seen_one,
				     &v), head + 40);
	CU_ASSERT_EQUAL(v.n, 0);
	/* a partial header: left for the next walk */
	CU_ASSERT_EQUAL(ht_ring_walk(data, 256, head + 4, head, seen_one,
				     &v), head);
}


static void test_kvm_formats_of_the_recorded_host(void)
{
	struct gr_ht_tp en, ex;
	struct gr_ht_field f;
	char bad[] = "\tfield:unsigned int vcpu_id;\toffset:8;\tsize:8;\n";

	load_tp(GR_HT_KVM_ENTRY, &en);
	load_tp(GR_HT_KVM_EXIT, &ex);
	CU_ASSERT_EQUAL(en.id, 115);
	CU_ASSERT_EQUAL(ex.id, 103);
	CU_ASSERT_EQUAL(en.f[0].offset, 8);		/* vcpu_id */
	CU_ASSERT_EQUAL(en.f[1].offset, 16);		/* rip */
	CU_ASSERT_EQUAL(en.f[1].size, 8);
	CU_ASSERT_EQUAL(ex.f[0].offset, 8);		/* exit_reason */
	CU_ASSERT_EQUAL(ex.f[1].offset, 24);		/* isa */
	CU_ASSERT_EQUAL(ex.f[2].offset, 16);		/* guest_rip */
	CU_ASSERT_EQUAL(ex.f[3].offset, 56);		/* vcpu_id */
	/* a vcpu_id of another size than 4 is not the kvm_entry we know */
	CU_ASSERT_EQUAL(ht_read_format(bad, GR_HT_KVM_ENTRY, &en), -EINVAL);
	/* an older kvm_entry without rip: read as 0 */
	bad[sizeof("\tfield:unsigned int vcpu_id;\toffset:8;\tsize:") - 1] =
		'4';
	CU_ASSERT_EQUAL(ht_read_format(bad, GR_HT_KVM_ENTRY, &en), 0);
	CU_ASSERT_EQUAL(en.f[1].size, 0);
	/* kvm_exit needs its exit_reason */
	CU_ASSERT_EQUAL(ht_read_format(bad, GR_HT_KVM_EXIT, &ex), -ENOENT);
	CU_ASSERT_EQUAL(ht_format_field(bad, "vcpu_id", &f), 0);
}

static void test_exit_reasons_named_from_the_print_fmt(void)
{
	static struct gr_ht_reasons r;
	const char *one = "print fmt: \"%s\", __print_symbolic(REC->x, "
			  "{ 0x10 + 2, \"twelve\" }, { -1, \"all\" })";

	CU_ASSERT_EQUAL_FATAL(ht_read_reasons(data_file("kvm", "kvm_exit",
							"format"), &r), 0);
	CU_ASSERT(r.n > 150);
	CU_ASSERT_STRING_EQUAL(ht_reason_name(&r, 1, 48), "EPT_VIOLATION");
	CU_ASSERT_STRING_EQUAL(ht_reason_name(&r, 1, 0x8000001e),
			       "IO_INSTRUCTION");
	CU_ASSERT_STRING_EQUAL(ht_reason_name(&r, 1, 85), "MSR_WRITE_IMM");
	CU_ASSERT_STRING_EQUAL(ht_reason_name(&r, 2, 0x07b), "io");
	CU_ASSERT_STRING_EQUAL(ht_reason_name(&r, 2, 0x04e), "PF excp");
	CU_ASSERT_STRING_EQUAL(ht_reason_name(&r, 2, 0x400), "npf");
	CU_ASSERT_STRING_EQUAL(ht_reason_name(&r, 2, 0xffffffff),
			       "invalid_guest_state");
	CU_ASSERT_STRING_EQUAL(ht_reason_name(&r, 2, 0x8000fffd),
			       "vmgexit_hypervisor_feature");
	CU_ASSERT_STRING_EQUAL(ht_reason_name(&r, 1, 0x400), "");
	CU_ASSERT_STRING_EQUAL(ht_reason_name(&r, 2, 5), "");
	CU_ASSERT_STRING_EQUAL(ht_reason_name(NULL, 1, 48), "");
	/* one table: for any isa */
	CU_ASSERT_EQUAL_FATAL(ht_read_reasons(one, &r), 0);
	CU_ASSERT_EQUAL(r.n, 2);
	CU_ASSERT_STRING_EQUAL(ht_reason_name(&r, 2, 18), "twelve");
	CU_ASSERT_STRING_EQUAL(ht_reason_name(&r, 0, 0xffffffff), "all");
	CU_ASSERT_EQUAL(ht_read_reasons("print fmt: \"%d\", REC->x", &r),
			-ENOENT);
	CU_ASSERT_EQUAL(ht_read_reasons("print fmt: __print_symbolic(x, "
					"{ zz, \"a\" })", &r), -EINVAL);
}

/* the recorded host's five tracepoints and exit reasons */
static void load_all(struct gr_ht_tp *tps, struct gr_ht_reasons *r)
{
	unsigned int t;

	for (t = 0; t < GR_HT_NR_TPS; t++)
		load_tp(t, &tps[t]);
	CU_ASSERT_EQUAL_FATAL(ht_read_reasons(data_file("kvm", "kvm_exit",
							"format"), r), 0);
}

/* kvm_exit's raw record as the recorded host lays it out */
static uint32_t kvm_exit_raw(const struct gr_ht_tp *ex, uint8_t *raw,
			     uint32_t reason, uint32_t isa, uint64_t rip,
			     uint32_t vcpu)
{
	memset(raw, 0, 72);
	put(raw, &(struct gr_ht_field){ 0, 2, false }, ex->id);
	put(raw, &(struct gr_ht_field){ 4, 4, false }, 4242);	/* common_pid */
	put(raw, &ex->f[0], reason);
	put(raw, &ex->f[1], isa);
	put(raw, &ex->f[2], rip);
	put(raw, &ex->f[3], vcpu);
	put(raw, &(struct gr_ht_field){ 32, 8, false }, 0xdead);	/* info1 */
	return 72;
}

static void test_kvm_samples_become_payloads(void)
{
	struct gr_ht_tp tps[GR_HT_NR_TPS];
	static struct gr_ht_reasons r;
	uint8_t raw[72], rec[160], p[GR_HT_PAYLOAD_MAX];
	struct gr_ht_sample s;
	uint32_t n, len, u;
	uint64_t rip;

	load_all(tps, &r);
	n = make_sample(rec, 4242, 5000, 0,
			raw, kvm_exit_raw(&tps[GR_HT_KVM_EXIT], raw,
					  0x80000021, 1, 0xffffffff81001234ULL,
					  3));
	CU_ASSERT_EQUAL_FATAL(ht_sample(rec, n, &s), 0);
	CU_ASSERT_EQUAL(ht_payload(tps, &r, &s, p, &len), GR_HS_KVM_EXIT);
	CU_ASSERT_EQUAL(len, GR_HS_KVM_EXIT_SIZE);
	memcpy(&u, p, 4);
	CU_ASSERT_EQUAL(u, 0x80000021);
	memcpy(&u, p + 4, 4);
	CU_ASSERT_EQUAL(u, 1);
	memcpy(&rip, p + 8, 8);
	CU_ASSERT_EQUAL(rip, 0xffffffff81001234ULL);
	memcpy(&u, p + 16, 4);
	CU_ASSERT_EQUAL(u, 3);
	CU_ASSERT_STRING_EQUAL((char *)p + 20, "INVALID_STATE");
	/* kvm_entry */
	memset(raw, 0, sizeof(raw));
	put(raw, &(struct gr_ht_field){ 0, 2, false }, tps[GR_HT_KVM_ENTRY].id);
	put(raw, &tps[GR_HT_KVM_ENTRY].f[0], 7);
	put(raw, &tps[GR_HT_KVM_ENTRY].f[1], 0x401000);
	n = make_sample(rec, 4242, 6000, 1, raw, 40);
	CU_ASSERT_EQUAL_FATAL(ht_sample(rec, n, &s), 0);
	CU_ASSERT_EQUAL(ht_payload(tps, &r, &s, p, &len), GR_HS_KVM_ENTRY);
	CU_ASSERT_EQUAL(len, GR_HS_KVM_ENTRY_SIZE);
	memcpy(&u, p, 4);
	CU_ASSERT_EQUAL(u, 7);
	memcpy(&rip, p + 8, 8);
	CU_ASSERT_EQUAL(rip, 0x401000);
	/* a host without KVM's: the record is of none of its tracepoints */
	tps[GR_HT_KVM_ENTRY].present = false;
	CU_ASSERT_EQUAL(ht_payload(tps, &r, &s, p, &len), -ENOENT);
}

/* babeltrace2's text of host stream @dir, into @out */
static int bt_text(const char *dir, char *out, size_t size)
{
	char cmd[256];
	size_t n = 0, k;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "babeltrace2 %s 2>&1", dir);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (n < size - 1 && (k = fread(out + n, 1, size - 1 - n, f)) > 0)
		n += k;
	out[n] = '\0';
	return pclose(f);
}

/* raw record @raw of thread 4242 at @ts, decoded into stream @st as @want */
static void add_raw(struct gr_hs_stream *st, const struct gr_ht_tp *tps,
		    const struct gr_ht_reasons *r, uint64_t ts,
		    const uint8_t *raw, uint32_t rawlen, int want)
{
	uint8_t rec[160], p[GR_HT_PAYLOAD_MAX];
	struct gr_ht_sample s;
	uint32_t n, len;
	int e;

	n = make_sample(rec, 4242, ts, 0, raw, rawlen);
	CU_ASSERT_EQUAL_FATAL(ht_sample(rec, n, &s), 0);
	e = ht_payload(tps, r, &s, p, &len);
	CU_ASSERT_EQUAL_FATAL(e, want);
	gr_hs_stream_add(st, (enum gr_hs_event)e, s.tid, s.ts, p, len);
}

static void test_kvm_events_in_the_host_stream_as_babeltrace_reads(void)
{
	static const uint8_t boot[16] = { 7 };
	struct gr_ctf_env env = {
		.vm_name = "vm1", .host_name = "hosty", .session = "s1",
		.tracer_major = 1, .host_stream = 1,
	};
	struct gr_ht_tp tps[GR_HT_NR_TPS];
	static struct gr_ht_reasons r;
	static struct gr_hs_layout l;
	static struct gr_hs_stream st;
	static char text[16384];
	struct gr_ctf_clock clock;
	char dir[] = "/tmp/test_ht_record.XXXXXX", cmd[64];
	uint8_t raw[72];
	int fd;

	if (system("babeltrace2 --version >/dev/null 2>&1")) {
		printf("(babeltrace2 missing: not read back) ");
		return;
	}
	load_all(tps, &r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(gr_hs_layout(&l, 1, "hosty", "6.18", boot), 0);
	memset(env.trace_uuid, 0x42, 16);
	CU_ASSERT_EQUAL_FATAL(gr_ctf_clock_from_sync(1000000000ULL, 0,
						     1700000000LL * 1000000000LL,
						     1000, &clock), 0);
	CU_ASSERT_EQUAL_FATAL(gr_hs_write_files(fd, &l, &env, &clock), 0);
	CU_ASSERT_EQUAL_FATAL(gr_hs_stream_open(&st, fd, 0), 0);
	/* entry, exit (VMX EPT violation), entry, exit (SVM npf) */
	memset(raw, 0, sizeof(raw));
	put(raw, &(struct gr_ht_field){ 0, 2, false }, tps[GR_HT_KVM_ENTRY].id);
	put(raw, &tps[GR_HT_KVM_ENTRY].f[0], 2);
	put(raw, &tps[GR_HT_KVM_ENTRY].f[1], 0xfff0);
	add_raw(&st, tps, &r, 1000, raw, 40, GR_HS_KVM_ENTRY);
	add_raw(&st, tps, &r, 2000, raw,
		kvm_exit_raw(&tps[GR_HT_KVM_EXIT], raw, 48, 1, 0xfff3, 2),
		GR_HS_KVM_EXIT);
	add_raw(&st, tps, &r, 3000, raw,
		kvm_exit_raw(&tps[GR_HT_KVM_EXIT], raw, 0x400, 2, 0x1000, 2),
		GR_HS_KVM_EXIT);
	CU_ASSERT_EQUAL(gr_hs_stream_close(&st), 0);
	close(fd);

	CU_ASSERT_EQUAL(bt_text(dir, text, sizeof(text)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"kvm_x86_entry: { cpu_id = 0 }, { size = 32, tid = 4242 }, "
		"{ vcpu_id = 2, rip = 0xFFF0 }"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"kvm_x86_exit: { cpu_id = 0 }, { size = 64, tid = 4242 }, "
		"{ exit_reason = 48, isa = 1, guest_rip = 0xFFF3, "
		"vcpu_id = 2, exit_reason_name = \"EPT_VIOLATION\" }"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"{ exit_reason = 1024, isa = 2, guest_rip = 0x1000, "
		"vcpu_id = 2, exit_reason_name = \"npf\" }"));
	CU_ASSERT_PTR_NULL(strstr(text, "WARNING"));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static const struct gr_test tests[] = {
	GR_TEST(test_format_fields_of_the_recorded_host),
	GR_TEST(test_switch_sample_becomes_its_payload),
	GR_TEST(test_short_records_are_refused),
	GR_TEST(test_data_loc_comm),
	GR_TEST(test_ring_walk_across_the_end),
	GR_TEST(test_kvm_formats_of_the_recorded_host),
	GR_TEST(test_exit_reasons_named_from_the_print_fmt),
	GR_TEST(test_kvm_samples_become_payloads),
	GR_TEST(test_kvm_events_in_the_host_stream_as_babeltrace_reads),
};

int main(void)
{
	return gr_test_main("ht_record", tests, ARRAY_SIZE(tests), NULL, NULL);
}
