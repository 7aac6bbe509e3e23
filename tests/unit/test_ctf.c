// SPDX-License-Identifier: GPL-2.0
/*
 * test_ctf.c - the CTF metadata writer and the .guestrelay file
 *
 * Traces built the way the agent stores them (tests/lib/ctf_fixture.c:
 * several event types, relay padding filled with garbage, two rings, a
 * lost packet, discarded events, a VARLEN string, negative, hexadecimal
 * and character-array fields, gaps between fields), read by the real
 * babeltrace2 CLI and python3-bt2, every value compared.
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
#include "report.h"
#include "ctf_info.h"
#include "validate.h"

#define IH	((int)sizeof(struct gr_info_hdr))	/* .guestrelay header */


/* the synthetic trace, as babeltrace2 must see it */
static const char syn_dump[] =
"K guest1 0 900 {cpu_id=0}\n"
"E guest1 0 1000 1700000000500001000 sched_switch {size=72,tid=12} {prev_comm=s:62617368,prev_tid=12,prev_prio=120,prev_state=1,next_comm=s:737761707065722f30,next_tid=0,next_prio=120}\n"
"K guest1 1 1500 {cpu_id=1}\n"
"E guest1 1 2000 1700000000500002000 sched_switch {size=72,tid=44} {prev_comm=s:7368,prev_tid=44,prev_prio=120,prev_state=2,next_comm=s:6b776f726b65722f313a31,next_tid=21,next_prio=100}\n"
"E guest1 0 3000 1700000000500003000 irq_handler_entry {size=40,tid=0} {irq=11,name=s:76697274696f302d696e707574}\n"
"E guest1 1 4000 1700000000500004000 irq_handler_entry {size=24,tid=21} {irq=-2,name=s:}\n"
"D guest1 1 count=2\n"
"E guest1 0 5000 1700000000500005000 kmem_kmalloc {size=56,tid=12} {call_site=18446744071581156711,ptr=18446612682133262336,bytes_req=100,bytes_alloc=128,gfp_flags=3264,node=-1}\n"
"K guest1 0 5600 {cpu_id=0}\n"
"E guest1 0 6000 1700000000500006000 gaps {size=64,tid=7} {a=255,_gr_pad1=[238,238,238],b=65535,_gr_pad6=[238,238,238],c=305419896,d=-128,e=s:616263,f=18446744073709551615,_gr_pad32=[238,238,238,238,238,238,238,238,238,238,238,238,238,238,238,238]}\n"
"E guest1 0 7000 1700000000500007000 tick {size=16,tid=1} {}\n"
"D guest1 0 count=5\n"
"P guest1 0 count=1\n"
"K guest1 1 7600 {cpu_id=1}\n"
"E guest1 1 8000 1700000000500008000 kmem_kmalloc {size=56,tid=44} {call_site=18446744072635814452,ptr=0,bytes_req=0,bytes_alloc=0,gfp_flags=0,node=0}\n"
"E guest1 1 9000 1700000000500009000 irq_handler_entry {size=48,tid=0} {irq=5,name=s:6162636465666768696a6b6c6d6e6f707172737475767778797a30}\n"
"K guest1 0 9500 {cpu_id=0}\n"
"E guest1 0 10000 1700000000500010000 sched_switch {size=72,tid=0} {prev_comm=s:737761707065722f30,prev_tid=0,prev_prio=120,prev_state=0,next_comm=s:6162636465666768696a6b6c6d6e6f70,next_tid=33,next_prio=-51}\n"
"E guest1 1 11000 1700000000500011000 gaps {size=64,tid=44} {a=0,_gr_pad1=[238,238,238],b=1,_gr_pad6=[238,238,238],c=3735928559,d=127,e=s:78,f=42,_gr_pad32=[238,238,238,238,238,238,238,238,238,238,238,238,238,238,238,238]}\n"
"E guest1 0 12000 1700000000500012000 blob {size=32,tid=7} {_gr_pad0=[90,90,90,90,90,90,90,90,90,90,90,90]}\n";

static void test_babeltrace_decodes_every_value_exactly(void)
{
	char *dirs[] = { syn.dir }, *got;
	struct run r;

	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 1, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	got = drop_lines(r.out, "V ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT(same_text(got, syn_dump));
	free(got);
	run_free(&r);
}

/* the CLI: events in time order, text arrays as text, hex as hex */
static void test_babeltrace_cli_prints_events_and_loss_warnings(void)
{
	char *argv[] = { "babeltrace2", "--clock-seconds", syn.dir, NULL };
	const char *p;
	char prev[32] = "", cur[32];
	unsigned int n = 0;
	struct run r;

	CU_ASSERT_EQUAL_FATAL(run(argv, &r), 0);
	CU_ASSERT(exited_ok(&r));
	/* one line per event, each "[seconds] ..." in increasing order */
	for (p = r.out; *p; p = strchr(p, '\n') + 1) {
		CU_ASSERT_EQUAL(sscanf(p, "[%31[0-9.]]", cur), 1);
		CU_ASSERT(strcmp(prev, cur) < 0);
		strcpy(prev, cur);
		n++;
		if (!strchr(p, '\n'))
			break;
	}
	CU_ASSERT_EQUAL(n, 12);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"[1700000000.500001000] (+?.\?\?\?\?\?\?\?\?\?) guest1 "
		"sched_switch: "
		"{ cpu_id = 0 }, { size = 72, tid = 12 }, { prev_comm = "
		"\"bash\", prev_tid = 12, prev_prio = 120, prev_state = 0x1, "
		"next_comm = \"swapper/0\", next_tid = 0, next_prio = 120 }\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"guest1 kmem_kmalloc: { cpu_id = 0 }, { size = 56, tid = 12 }, { "
		"call_site = 0xFFFFFFFF81234567, ptr = 0xFFFF888003C4D000, "
		"bytes_req = 100, bytes_alloc = 128, gfp_flags = 0xCC0, "
		"node = -1 }\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "next_comm = \"abcdefghijklmnop\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "{ irq = -2, name = \"\" }"));
	/* no warning about fields babeltrace2 would drop */
	CU_ASSERT_PTR_NULL(strstr(r.err, "ignoring"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "WARNING: Tracer discarded 2 events"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "WARNING: Tracer discarded 5 events"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "WARNING: Tracer discarded 1 packet "));
	run_free(&r);
}

static void test_babeltrace_ignores_hidden_info_file(void)
{
	struct stat st;

	/* .guestrelay is in the directory the two tests above read */
	CU_ASSERT_EQUAL(fstatat(syn.dirfd, GR_CTF_INFO, &st, 0), 0);
	CU_ASSERT(st.st_size > 0);
	CU_ASSERT_NOT_EQUAL(fstatat(syn.dirfd, GR_CTF_METADATA_TMP, &st, 0), 0);
	CU_ASSERT_NOT_EQUAL(fstatat(syn.dirfd, GR_CTF_INFO_TMP, &st, 0), 0);
}

static void test_env_identifies_guest_vm_host_and_tracer(void)
{
	char *dirs[] = { syn.dir };
	struct run r;

	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 1, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	/* hex of: kernel, lttng-modules, guest1, vm1, host-a, s1, Linux */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V domain=s:6b65726e656c\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"V tracer_name=s:6c74746e672d6d6f64756c6573\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V tracer_major=2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V tracer_minor=10\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V tracer_patchlevel=0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V guestrelay_major=1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V guestrelay_minor=0\n"));
	/* hex of: s1, global, 20231114T221320+0000 */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V trace_name=s:7331\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"V trace_buffering_scheme=s:676c6f62616c\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V trace_creation_datetime=s:"
		"3230323331313134543232313332302b30303030\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V hostname=s:677565737431\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V vm_name=s:766d31\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"V host_hostname=s:686f73742d61\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V session=s:7331\n"));
	/* hex of: sched_switch: prev_tid == 5 */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V filters=s:73636865645f737769"
		"7463683a20707265765f746964203d3d2035\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V sysname=s:4c696e7578\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"V kernel_release=s:362e312e302d35362d616d643634\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V guest_nodename=s:677565737431\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V clock_synced=1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V clock_error_ns=1500\n"));
	run_free(&r);
}

/* --- several VMs, escaping, hostile names ---------------------------------- */

/*
 * vm2: a 250 MHz clock whose 0 is host time T_HOST_S + 0.500001 s, three
 * ticks on ring 0 at guest 1.5, 3.5 and 5.5 us: host .5000025, .5000045,
 * .5000065, between the events of vm1. Ring 1 never produced: no file.
 */
static int make_vm2(struct trace *t)
{
	struct pkt p;
	int ret;

	trace_init(t, "guest2", 0x80, 250000000ULL, "vm2", 0x02);
	ret = gr_ctf_clock_from_sync(250000000ULL, 0,
				     T_HOST_S * 1000000000LL + 500001000LL,
				     1000, &t->clock);
	if (!ret)
		ret = trace_create(t, "vm2");
	if (ret)
		return ret;
	pkt_start(&p, 0, 0, 300, 0);
	pkt_add(&p, EV_TICK, 901, 375, NULL, 0);
	pkt_add(&p, EV_TICK, 902, 875, NULL, 0);
	pkt_add(&p, EV_TICK, 903, 1375, NULL, 0);
	pkt_finish(&p, 1400);
	return stream_append(t, 0, p.b, sizeof(p.b));
}

static void test_babeltrace_merges_two_vms_by_host_time(void)
{
	static const char want[] =
		"guest1 1700000000500001000\nguest1 1700000000500002000\n"
		"guest2 1700000000500002500\nguest1 1700000000500003000\n"
		"guest1 1700000000500004000\nguest2 1700000000500004500\n"
		"guest1 1700000000500005000\nguest1 1700000000500006000\n"
		"guest2 1700000000500006500\nguest1 1700000000500007000\n"
		"guest1 1700000000500008000\nguest1 1700000000500009000\n"
		"guest1 1700000000500010000\nguest1 1700000000500011000\n"
		"guest1 1700000000500012000\n";
	char *argv[] = { "babeltrace2", "--clock-seconds", syn.dir, NULL, NULL };
	char got[2048] = "", host[32], *dirs[2];
	unsigned long long cyc, ns;
	struct trace t2;
	const char *p;
	struct run r;
	int len = 0;

	CU_ASSERT_EQUAL_FATAL(make_vm2(&t2), 0);
	dirs[0] = syn.dir;
	dirs[1] = t2.dir;
	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 2, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	for (p = r.out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (sscanf(p, "E %31s %*u %llu %llu", host, &cyc, &ns) == 3)
			len += snprintf(got + len, sizeof(got) - (size_t)len,
					"%s %llu\n", host, ns);
	CU_ASSERT(same_text(got, want));
	/* vm2's ticks carry their own clock values (250 MHz cycles) */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "E guest2 0 875 1700000000500004500 "
				      "tick {size=16,tid=902} {}\n"));
	run_free(&r);

	argv[3] = t2.dir;
	CU_ASSERT_EQUAL_FATAL(run(argv, &r), 0);
	CU_ASSERT(exited_ok(&r));
	CU_ASSERT_EQUAL(count_lines(r.out, "["), 15);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "[1700000000.500004500] "
				      "(+0.000000500) guest2 tick: "));
	run_free(&r);
	trace_close(&t2);
}

static void hex_of(char *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	for (; *s; s++) {
		*out++ = hex[(unsigned char)*s >> 4];
		*out++ = hex[(unsigned char)*s & 15];
	}
	*out = '\0';
}

/* operator strings reach the metadata escaped, byte for byte */
static void test_env_strings_are_escaped_byte_for_byte(void)
{
	const char *vm = "vm \"q\" \\ x\n\t\x01\x7f\xc3\xa9 \\\"";
	const char *host = "h\"; }; env { injected = 1; }; /*";
	const char *session = "*/ s\\";
	char want[512], hex[256], *dirs[1];
	struct trace t;
	struct pkt p;
	struct run r;

	trace_init(&t, "esc", 0x10, 1000000000ULL, vm, 0x03);
	t.env.host_name = host;
	t.env.session = session;
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "esc"), 0);
	pkt_start(&p, 0, 0, 1, 0);
	pkt_add(&p, EV_TICK, 1, 2, NULL, 0);
	pkt_finish(&p, 3);
	CU_ASSERT_EQUAL_FATAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);

	dirs[0] = t.dir;
	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 1, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	hex_of(hex, vm);
	snprintf(want, sizeof(want), "V vm_name=s:%s\n", hex);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
	hex_of(hex, host);
	snprintf(want, sizeof(want), "V host_hostname=s:%s\n", hex);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
	hex_of(hex, session);
	snprintf(want, sizeof(want), "V session=s:%s\n", hex);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
	CU_ASSERT_PTR_NULL(strstr(r.out, "injected"));
	CU_ASSERT_EQUAL(count_lines(r.out, "E esc 0 2 "), 1);
	run_free(&r);
	trace_close(&t);
}

/* names the validator accepts, chosen to collide with TSDL and our own */
static const char *const odd_field_names[][16] = {
	{ "id", "timestamp", "magic", "stream_id", "uint8_t",
	  "uint64_clock_t", "size", "tid", "map", "base", "encoding", "utf8",
	  "true", "false", "le", "name" },
	{ "__", "_x", "cpu_id", "fields", "gr_pad0", "gr_tail", "x_gr_",
	  "_gr", "packet", "header", "context", "value", "offset", "freq",
	  "absolute", "events_discarded" },
};

static const char *const odd_event_names[] = {
	"event", "struct", "clock", "trace", "env", "stream", "typealias",
	"string", "integer", "enum",
};

static void test_hostile_names_cannot_inject_tsdl(void)
{
	static const char *const bad[] = {
		"a\"b", "a b", "A", "1a", "a;", "a}", "", "_", "a\\",
		"a\n",
	};
	char want[1024], *dirs[1];
	struct gr_event_desc *d;
	const char *why;
	struct gr_event_view ev;
	unsigned int i, j, len;
	struct trace t;
	uint8_t pl[16];
	struct pkt p;
	struct run r;

	memset(&t, 0, sizeof(t));
	t.dirfd = -1;
	t.nd = ARRAY_SIZE(odd_event_names);
	make_hdr(&t.h, t.nd, 0x20, "names", 1000000000ULL);
	synthetic_env(&t, "names", 0x05);
	for (i = 0; i < t.nd; i++) {
		d = &t.d[i];
		gr_build_event(d, (uint16_t)i, odd_event_names[i], "typedef",
			       i < 2 ? 16 : 0, 0, i < 2 ? 16 : 0);
		for (j = 0; i < 2 && j < 16; j++)
			gr_build_field(&d->fields[j], odd_field_names[i][j],
				       (uint16_t)j, 1, INT, 0);
	}
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "names"), 0);
	pkt_start(&p, 0, 0, 1, 0);
	for (i = 0; i < 16; i++)
		pl[i] = (uint8_t)(i + 1);
	for (i = 0; i < t.nd; i++)
		pkt_add(&p, (uint16_t)i, i, 10 + i, pl, i < 2 ? 16 : 0);
	pkt_finish(&p, 100);
	CU_ASSERT_EQUAL_FATAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);

	dirs[0] = t.dir;
	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 1, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	for (i = 0; i < t.nd; i++) {
		len = (unsigned int)snprintf(want, sizeof(want),
			"E names 0 %u %u %s {size=%u,tid=%u} {", 10 + i,
			10 + i, odd_event_names[i],
			i < 2 ? 32 : 16, i);
		for (j = 0; i < 2 && j < 16; j++)
			len += (unsigned int)snprintf(want + len,
				sizeof(want) - len, "%s=%u,",
				odd_field_names[i][j], j + 1);
		if (want[len - 1] == ',')
			len--;
		snprintf(want + len, sizeof(want) - len, "}\n");
		CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
		if (!strstr(r.out, want))
			fprintf(stderr, "\n    missing: %s", want);
	}
	run_free(&r);
	trace_close(&t);

	/* what the validator refuses never reaches the writer */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct gr_event_desc dd[T_NDESC];

		make_descs(dd);
		memset(dd[0].fields[0].name, 0, sizeof(dd[0].fields[0].name));
		memcpy(dd[0].fields[0].name, bad[i], strlen(bad[i]));
		CU_ASSERT_NOT_EQUAL(gr_check_event_desc(&t.v, &dd[0], 0, &ev,
							&why), 0);
		make_descs(dd);
		memset(dd[0].name, 0, sizeof(dd[0].name));
		memcpy(dd[0].name, bad[i], strlen(bad[i]));
		if (strcmp(bad[i], "_"))	/* fine inside quotes */
			CU_ASSERT_NOT_EQUAL(gr_check_event_desc(&t.v, &dd[0], 0,
								&ev, &why), 0);
	}
}

/* clock names the validator accepts that are also TSDL words or ours */
static void test_odd_clock_names_still_parse(void)
{
	static const char *const names[] = {
		"uint64_clock_t", "uint8_t", "value", "name", "freq", "offset",
		"absolute", "clock_t", "gr_tail",
	};
	char dirs_buf[ARRAY_SIZE(names)][PATH_MAX], *dirs[ARRAY_SIZE(names)];
	char want[PATH_MAX + 8];
	unsigned int i;
	struct trace t;
	struct pkt p;
	struct run r;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char name[64];

		trace_init(&t, "clk", 0x30, 1000000000ULL, "clk",
			   (uint8_t)(0x40 + i));
		strcpy(t.h.clock_name, names[i]);
		snprintf(name, sizeof(name), "clock_%u", i);
		CU_ASSERT_EQUAL_FATAL(trace_create(&t, name), 0);
		pkt_start(&p, 0, 0, 1, 0);
		pkt_add(&p, EV_TICK, 1, 2, NULL, 0);
		pkt_finish(&p, 3);
		CU_ASSERT_EQUAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);
		strcpy(dirs_buf[i], t.dir);
		dirs[i] = dirs_buf[i];
		trace_close(&t);
	}
	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, ARRAY_SIZE(names), 1, &r), 0);
	CU_ASSERT(exited_ok(&r));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(want, sizeof(want), "END %s\n", dirs[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
		if (!strstr(r.out, want))
			fprintf(stderr, "\n    clock name %s: not read\n",
				names[i]);
	}
	CU_ASSERT_EQUAL(count_lines(r.out, "E clk 0 2 - tick "), ARRAY_SIZE(names));
	run_free(&r);
}

/* spec 7.5: lttng-modules' field names in the metadata (the scheduler's tid) */
static void test_metadata_names_sched_pid_tid(void)
{
	struct gr_event_view ev = { .system = "sched", .name = "x",
				    .nr_fields = 2 };

	snprintf(ev.fields[0].name, sizeof(ev.fields[0].name), "pid");
	snprintf(ev.fields[1].name, sizeof(ev.fields[1].name), "runtime");
	CU_ASSERT_STRING_EQUAL(gr_ctf_field_name(&ev, &ev.fields[0]), "tid");
	CU_ASSERT_STRING_EQUAL(gr_ctf_field_name(&ev, &ev.fields[1]),
			       "runtime");
	/* a "tid" of its own: names stay unique */
	snprintf(ev.fields[1].name, sizeof(ev.fields[1].name), "tid");
	CU_ASSERT_STRING_EQUAL(gr_ctf_field_name(&ev, &ev.fields[0]), "pid");
	/* another system keeps "pid" (signal_generate) */
	snprintf(ev.system, sizeof(ev.system), "signal");
	snprintf(ev.fields[1].name, sizeof(ev.fields[1].name), "sig");
	CU_ASSERT_STRING_EQUAL(gr_ctf_field_name(&ev, &ev.fields[0]), "pid");
	/* a rename of one event, not of its system's other events */
	snprintf(ev.system, sizeof(ev.system), "ext4");
	snprintf(ev.name, sizeof(ev.name), "ext4_punch_hole");
	snprintf(ev.fields[0].name, sizeof(ev.fields[0].name), "offset");
	snprintf(ev.fields[1].name, sizeof(ev.fields[1].name), "len");
	CU_ASSERT_STRING_EQUAL(gr_ctf_field_name(&ev, &ev.fields[0]), "pos");
	snprintf(ev.name, sizeof(ev.name), "ext4_da_write_pages");
	CU_ASSERT_STRING_EQUAL(gr_ctf_field_name(&ev, &ev.fields[0]),
			       "offset");
	snprintf(ev.system, sizeof(ev.system), "vmscan");
	snprintf(ev.name, sizeof(ev.name), "mm_vmscan_lru_shrink_inactive");
	snprintf(ev.fields[0].name, sizeof(ev.fields[0].name), "nr_activate1");
	CU_ASSERT_STRING_EQUAL(gr_ctf_field_name(&ev, &ev.fields[0]),
			       "nr_activate_file");
}

/* a view that did not come from the validator is still not trusted */
/* spec 7.5: tracepoint names in descriptors, lttng-modules' in metadata */
static void test_metadata_names_events_as_lttng_modules(void)
{
	struct gr_event_view ev[T_NDESC];
	struct gr_view v = syn.v;
	size_t len;
	char *text;

	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("irq", "softirq_entry"),
			       "irq_softirq_entry");
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("net", "netif_receive_skb"),
			       "net_if_receive_skb");
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("kmem", "mm_page_alloc"),
			       "kmem_mm_page_alloc");
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("raw_syscalls", "sys_exit"),
			       "syscall_exit_unknown");
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("sched", "sched_switch"),
			       "sched_switch");
	/* events by name (spec 18): lttng-modules' names where it has them */
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("power", "cpu_idle"),
			       "power_cpu_idle");
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("skb", "kfree_skb"),
			       "skb_kfree");
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("printk", "console"),
			       "printk_console");
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("vmscan",
						 "mm_shrink_slab_start"),
			       "mm_vmscan_shrink_slab_start");
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("block", "block_rq_insert"),
			       "block_rq_insert");
	/* the system is part of the key */
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("sched", "kmalloc"),
			       "kmalloc");

	memcpy(ev, syn.ev, sizeof(ev));
	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL,
					      &text, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "name = \"kmem_kmalloc\";"));
	CU_ASSERT_PTR_NULL(strstr(text, "name = \"kmalloc\";"));
	free(text);
	/* a guest that publishes the target name too keeps both its own */
	strcpy(ev[EV_SWITCH].name, "kmem_kmalloc");
	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL,
					      &text, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "name = \"kmalloc\";"));
	CU_ASSERT_PTR_NOT_NULL(strstr(strstr(text, "name = \"kmem_kmalloc\";")
				      + 1, "name = \"kmalloc\";"));
	free(text);
}

/* count the occurrences of @needle in @hay */
static unsigned int count_str(const char *hay, const char *needle)
{
	unsigned int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay++;
	}
	return n;
}

/*
 * Every native call of this machine's asm/unistd_64.h below 451 (the
 * committed table's Linux 6.1, scripts/gen-syscalls.sh) is declared under
 * its name at @base + its number.
 */
static void check_syscall_names(const char *text, unsigned int base)
{
	static const char hdr[] = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h";
	char line[256], name[128], want[200];
	unsigned int nr, n = 0, bad = 0;
	FILE *f = fopen(hdr, "r");

	if (!f) {
		printf("\n    note: no %s, names not compared\n", hdr);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "#define __NR_%100s %u", name, &nr) != 2 ||
		    nr >= 451)
			continue;
		snprintf(want, sizeof(want), "name = \"syscall_entry_%s\";\n"
			 "\tid = %u;", name, base + nr);
		n++;
		if (!strstr(text, want)) {
			if (!bad++)
				fprintf(stderr, "\n    missing: %s\n", want);
		}
	}
	fclose(f);
	CU_ASSERT_TRUE(n >= 300);
	CU_ASSERT_EQUAL(bad, 0);
}

/*
 * spec 7.5, "System call events": one event class per family member,
 * named as lttng-modules names system calls, with the descriptor's fields
 */
static void test_metadata_names_every_system_call(void)
{
	struct gr_event_view ev[T_NDESC];
	struct gr_view v = syn.v;
	const char *why = NULL;
	char want[160], *text, *p;
	size_t len;

	memcpy(ev, syn.ev, sizeof(ev));
	v.features |= GR_F_SYSCALLS;
	/* the kmalloc and tick descriptors play sys_enter and sys_exit */
	strcpy(ev[EV_KMALLOC].name, "sys_enter");
	strcpy(ev[EV_KMALLOC].system, "raw_syscalls");
	ev[EV_KMALLOC].family_base = 100;
	ev[EV_KMALLOC].family_count = 451;
	strcpy(ev[EV_TICK].name, "sys_exit");
	strcpy(ev[EV_TICK].system, "raw_syscalls");
	ev[EV_TICK].family_base = 100 + 451;
	ev[EV_TICK].family_count = 451;
	CU_ASSERT_EQUAL_FATAL(gr_check_families(&v, ev, T_NDESC, &why), 0);
	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL,
					      &text, &len), 0);
	CU_ASSERT_EQUAL(count_str(text, "event {"), T_NDESC + 2 * 451);
	/* the descriptors' own events stay, for calls outside the family */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "name = \"syscall_entry_unknown\";"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "name = \"syscall_exit_unknown\";"));
	/* getppid is 110, read 0, the last of 6.1 450; 335 has no name */
	snprintf(want, sizeof(want), "name = \"syscall_entry_getppid\";\n"
		 "\tid = %u;", 100 + 110);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	snprintf(want, sizeof(want), "name = \"syscall_exit_read\";\n"
		 "\tid = %u;", 100 + 451);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	snprintf(want, sizeof(want), "name = \"syscall_entry_nr335\";\n"
		 "\tid = %u;", 100 + 335);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	snprintf(want, sizeof(want), "name = \"syscall_exit_"
		 "set_mempolicy_home_node\";\n\tid = %u;", 100 + 451 + 450);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	/* a member's fields are its descriptor's: kmalloc's here */
	p = strstr(text, "name = \"syscall_entry_getppid\";");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_PTR_NOT_NULL(strstr(p, "_gfp_flags"));
	CU_ASSERT_TRUE(strstr(p, "_gfp_flags") < strstr(p + 1, "event {"));
	CU_ASSERT_EQUAL(count_str(text, "syscall_entry_"), 451 + 1);
	CU_ASSERT_EQUAL(count_str(text, "syscall_exit_"), 451 + 1);
	check_syscall_names(text, 100);
	free(text);

	/* without gr_check_families() (or after a refusal): no member */
	v.nr_families = 0;
	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL,
					      &text, &len), 0);
	CU_ASSERT_EQUAL(count_str(text, "event {"), T_NDESC);
	free(text);
	/* a family whose descriptor is not among the views is refused */
	CU_ASSERT_EQUAL_FATAL(gr_check_families(&v, ev, T_NDESC, &why), 0);
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, EV_KMALLOC, &syn.env, NULL,
					&text, &len), -EINVAL);
}

/* spec 7.5: uname -v and the DMI product UUID, when the guest has them */
static void test_env_has_guest_kernel_version_and_product_uuid(void)
{
	struct gr_view v = syn.v;
	size_t len;
	char *text;
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&v, syn.ev, T_NDESC, &syn.env,
					      NULL, &text, &len), 0);
	CU_ASSERT_PTR_NULL(strstr(text, "kernel_version ="));
	CU_ASSERT_PTR_NULL(strstr(text, "product_uuid ="));
	free(text);
	strcpy(v.kernel_version, "#1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1");
	for (i = 0; i < 16; i++)
		v.product_uuid[i] = (uint8_t)(0xa0 + i);
	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&v, syn.ev, T_NDESC, &syn.env,
					      NULL, &text, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\tkernel_version = \"#1 SMP "
				      "PREEMPT_DYNAMIC Debian 6.1.158-1\";\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\tproduct_uuid = \"a0a1a2a3-"
				      "a4a5-a6a7-a8a9-aaabacadaeaf\";\n"));
	free(text);
}

static void test_metadata_refuses_unsafe_or_inexpressible_views(void)
{
	struct gr_event_view ev[T_NDESC], e;
	struct gr_view v = syn.v;
	size_t len;
	char *text;

	memcpy(ev, syn.ev, sizeof(ev));
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), 0);
	CU_ASSERT_EQUAL(strncmp(text, "/* CTF 1.8 */\n", 14), 0);
	CU_ASSERT_EQUAL(len, strlen(text));
	free(text);

	e = ev[EV_SWITCH];
	strcpy(e.name, "x\"; }; event { name = \"y");
	ev[EV_SWITCH] = e;
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	ev[EV_SWITCH] = syn.ev[EV_SWITCH];

	e = ev[EV_KMALLOC];
	strcpy(e.fields[1].name, "a; } _b");
	ev[EV_KMALLOC] = e;
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	strcpy(e.fields[1].name, "_gr_pad8");	/* reserved by spec 7.4 */
	ev[EV_KMALLOC] = e;
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	ev[EV_KMALLOC] = syn.ev[EV_KMALLOC];

	/* a string that is not the last field by offset cannot be CTF */
	e = ev[EV_IRQ];
	e.fields[0].offset = 28;
	e.fields[1].offset = 0;
	ev[EV_IRQ] = e;
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	ev[EV_IRQ] = syn.ev[EV_IRQ];

	/* ids out of order, more events than the header has, bad clock */
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev + 1, 2, &syn.env, NULL, &text,
					&len), 0);
	free(text);
	e = ev[0];
	ev[0] = ev[1];
	ev[1] = e;
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	memcpy(ev, syn.ev, sizeof(ev));
	v.desc_count = T_NDESC - 1;
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	v = syn.v;
	strcpy(v.clock_name, "a b");
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	v = syn.v;
	e.fields[0].name[0] = 0;
	{
		struct gr_ctf_clock c = syn.clock;

		c.offset = v.clock_freq;	/* not normalized */
		CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, &c,
						&text, &len), -EINVAL);
	}
	CU_ASSERT_EQUAL(gr_ctf_write_metadata(syn.dirfd, "/* CTF 1.7 */", 13, NULL),
			-EINVAL);
}

/* --- random views ----------------------------------------------------------- */

#define FUZZ_TRACES	40

static void rnd_ident(char *out, size_t cap, const char *prefix)
{
	size_t n = strlen(prefix), k = rnd() % 6, i;

	memcpy(out, prefix, n);
	for (i = 0; i < k && n + 1 < cap; i++)
		out[n++] = "abcdefghijklmnopqrstuvwxyz0123456789_"[rnd() % 37];
	out[n] = '\0';
}

/* a random, valid descriptor; fields in offset order with random gaps */
static void fuzz_desc(struct gr_event_desc *d, unsigned int id)
{
	unsigned int nf = (unsigned int)(rnd() % 8), i;
	int varlen = nf && !(rnd() % 3);
	uint32_t pos = 0, off, size;
	char name[GR_FIELD_NAME_LEN], ename[GR_NAME_LEN];
	uint8_t type, flags;

	memset(d, 0, sizeof(*d));
	snprintf(name, sizeof(name), "e%u_", id);
	rnd_ident(ename, sizeof(ename), name);
	for (i = 0; i < nf; i++) {
		off = pos + (rnd() % 3 ? 0 : (uint32_t)(rnd() % 6));
		flags = 0;
		if (varlen && i + 1 == nf) {
			type = STR;
			size = 1 + (uint32_t)(rnd() % 24);
		} else if (rnd() % 4) {
			type = INT;
			size = 1U << (rnd() % 4);
			flags = (uint8_t)(rnd() % 4);
		} else {
			type = CHR;
			size = 1 + (uint32_t)(rnd() % 12);
		}
		snprintf(name, sizeof(name), "%sf%u_", rnd() % 5 ? "" : "_", i);
		rnd_ident(name, sizeof(name), name);
		gr_build_field(&d->fields[i], name, (uint16_t)off, (uint16_t)size,
			       type, flags);
		pos = off + size;
	}
	if (!varlen && !(rnd() % 3))
		pos += (uint32_t)(rnd() % 12);
	gr_build_event(d, (uint16_t)id, ename, "fz", (uint16_t)pos,
		       varlen ? GR_EVENT_F_VARLEN : 0, (uint16_t)nf);
}

/* append "name=value," for each byte array, as the dump prints them */
static int fmt_bytes(char *o, size_t cap, const char *name,
		     const uint8_t *b, uint32_t n)
{
	int len = snprintf(o, cap, "%s=[", name);
	uint32_t i;

	for (i = 0; i < n; i++)
		len += snprintf(o + len, cap - (size_t)len, "%s%u",
				i ? "," : "", b[i]);
	return len + snprintf(o + len, cap - (size_t)len, "],");
}

/*
 * Spec 7.5: is the gap from @pos to integer field @f skipped by the
 * field's own alignment (a power of two up to its size, 8 at most)?
 */
static int natural_gap(const struct gr_field_view *f, uint32_t pos)
{
	uint32_t a;

	if (f->type != GR_FIELD_INTEGER)
		return 0;
	for (a = f->size > 8 ? 8 : f->size; a > 1; a /= 2)
		if (!(f->offset % a) && (pos + a - 1) / a * a == f->offset)
			return 1;
	return 0;
}

/*
 * One random record of event @ev into @p, and the line the dump must
 * print for it into @o (spec 7.5: fields by offset, gaps no alignment
 * explains as __gr_pad<o>, a fixed-size tail gap that reaches another
 * 8-byte word too; one '_' stripped).
 */
static int fuzz_record(struct pkt *p, const struct gr_event_view *ev,
		       uint64_t ts, uint32_t tid, char *o, size_t cap)
{
	uint8_t b[1024];
	uint32_t pos = 0, plen = ev->payload_size, i, k, n;
	int len;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)rnd();
	for (i = 0; i < ev->nr_fields; i++) {
		const struct gr_field_view *f = &ev->fields[i];

		if (f->type == GR_FIELD_CHARS || f->type == GR_FIELD_STRING) {
			n = (uint32_t)(rnd() % (f->size + 1));
			if (f->type == GR_FIELD_STRING && n == f->size)
				n--;
			for (k = 0; k < f->size; k++)
				b[f->offset + k] = k < n ?
					(uint8_t)('a' + rnd() % 26) : 0;
			if (f->type == GR_FIELD_STRING)
				plen = f->offset + n + 1;
		}
	}
	pkt_add(p, ev->id, tid, ts, b, plen);

	len = snprintf(o, cap, "E fuzz 0 %llu - %s {size=%u,tid=%u} {",
		       (unsigned long long)ts, ev->name, ALIGN8(16 + plen), tid);
	for (i = 0; i < ev->nr_fields; i++) {
		const struct gr_field_view *f = &ev->fields[i];
		char pad[32];
		uint64_t v = 0;

		if (pos < f->offset && !natural_gap(f, pos)) {
			snprintf(pad, sizeof(pad), "_gr_pad%u", pos);
			len += fmt_bytes(o + len, cap - (size_t)len, pad, b + pos,
					 f->offset - pos);
		}
		len += snprintf(o + len, cap - (size_t)len, "%s=", f->name);
		if (f->type == GR_FIELD_INTEGER) {
			for (k = 0; k < f->size; k++)
				v |= (uint64_t)b[f->offset + k] << (8 * k);
			if ((f->flags & GR_FIELD_F_SIGNED) && f->size < 8 &&
			    (v >> (8 * f->size - 1)))
				v |= ~0ULL << (8 * f->size);
			if (f->flags & GR_FIELD_F_SIGNED)
				len += snprintf(o + len, cap - (size_t)len,
						"%lld,", (long long)v);
			else
				len += snprintf(o + len, cap - (size_t)len,
						"%llu,", (unsigned long long)v);
		} else {
			len += snprintf(o + len, cap - (size_t)len, "s:");
			for (k = 0; k < f->size && b[f->offset + k]; k++)
				len += snprintf(o + len, cap - (size_t)len,
						"%02x", b[f->offset + k]);
			len += snprintf(o + len, cap - (size_t)len, ",");
		}
		pos = f->offset + f->size;
	}
	if (!(ev->flags & GR_EVENT_F_VARLEN) &&
	    ALIGN8(pos) < ALIGN8(ev->payload_size)) {
		char pad[32];

		snprintf(pad, sizeof(pad), "_gr_pad%u", pos);
		len += fmt_bytes(o + len, cap - (size_t)len, pad, b + pos,
				 ev->payload_size - pos);
	}
	if (o[len - 1] == ',')
		len--;
	return len + snprintf(o + len, cap - (size_t)len, "}\n");
}

static void test_random_views_babeltrace_decodes_exactly(void)
{
	static const uint64_t freqs[] = {
		1000000000ULL, 250000000ULL, 1000000ULL, 2400000000ULL, 1ULL,
	};
	char dirs_buf[FUZZ_TRACES][PATH_MAX], *dirs[FUZZ_TRACES];
	static char want[FUZZ_TRACES][65536];
	unsigned int i, k, nrec, bad = 0;
	const char *start, *end;
	char name[32], *rep;
	struct trace t;
	struct pkt p;
	struct run r;
	uint64_t ts;

	for (i = 0; i < FUZZ_TRACES; i++) {
		size_t wl = 0;
		uint64_t freq = freqs[rnd() % ARRAY_SIZE(freqs)];
		int ret;

		memset(&t, 0, sizeof(t));
		t.dirfd = -1;
		t.nd = 1 + (unsigned int)(rnd() % 8);
		make_hdr(&t.h, t.nd, (uint8_t)rnd(), "fuzz", freq);
		for (k = 0; k < t.nd; k++)
			fuzz_desc(&t.d[k], k);
		synthetic_env(&t, "fuzz", (uint8_t)rnd());
		/* up to a day of guest uptime; host time 2020 .. 2026 */
		ret = gr_ctf_clock_from_sync(freq, rnd() % 86400 * freq,
					     1600000000000000000LL +
					     (int64_t)(rnd() % 200000000000000000ULL),
					     rnd() % 100000, &t.clock);
		CU_ASSERT_EQUAL(ret, 0);
		snprintf(name, sizeof(name), "fuzz_%u", i);
		CU_ASSERT_EQUAL_FATAL(trace_create(&t, name), 0);

		ts = 1000 + rnd() % 1000;
		pkt_start(&p, 0, 0, ts, 0);
		nrec = 1 + (unsigned int)(rnd() % 12);
		for (k = 0; k < nrec && p.len + 16 + 1024 < T_S; k++) {
			const struct gr_event_view *ev = &t.ev[rnd() % t.nd];

			ts += rnd() % 50;
			wl += (size_t)fuzz_record(&p, ev, ts, (uint32_t)rnd(),
						  want[i] + wl,
						  sizeof(want[i]) - wl);
		}
		pkt_finish(&p, ts + 1);
		if (rnd() % 2) {		/* stored content-only */
			struct gr_packet_header h;

			memcpy(&h, p.b, sizeof(h));
			h.packet_size = h.content_size;
			memcpy(p.b, &h, sizeof(h));
			CU_ASSERT_EQUAL(stream_append(&t, 0, p.b, p.len), 0);
		} else {
			CU_ASSERT_EQUAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);
		}
		strcpy(dirs_buf[i], t.dir);
		dirs[i] = dirs_buf[i];

		/* and the report reads it without a single diagnostic */
		CU_ASSERT_EQUAL(report_text(t.dir, NULL, 0, &rep), 0);
		CU_ASSERT_EQUAL(count_lines(rep, "[000] "), k);
		CU_ASSERT_PTR_NULL(strstr(rep, "**"));
		free(rep);
		trace_close(&t);
	}

	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, FUZZ_TRACES, 1, &r), 0);
	CU_ASSERT(exited_ok(&r));
	start = r.out;
	for (i = 0; i < FUZZ_TRACES; i++) {
		char endl[PATH_MAX + 8];
		size_t n;

		snprintf(endl, sizeof(endl), "END %s\n", dirs[i]);
		end = strstr(start, endl);
		CU_ASSERT_PTR_NOT_NULL(end);
		if (!end) {
			fprintf(stderr, "\n    %s: not read: %.200s\n", dirs[i],
				start);
			bad++;
			break;
		}
		n = (size_t)(end - start);
		if (n != strlen(want[i]) || memcmp(start, want[i], n)) {
			char *got = strndup(start, n);

			fprintf(stderr, "\n    %s:", dirs[i]);
			CU_ASSERT(same_text(got, want[i]));
			free(got);
			bad++;
		}
		start = end + strlen(endl);
	}
	CU_ASSERT_EQUAL(bad, 0);
	run_free(&r);
}

/* --- metadata rewrites, clock, .guestrelay ---------------------------------- */

/* a reader opening the trace while the agent rewrites metadata always can */
static void test_metadata_rewrite_is_atomic_for_readers(void)
{
	char *argv[] = { "babeltrace2", syn.dir, NULL };
	char path[PATH_MAX + 16], *text[2];
	size_t len[2];
	struct gr_ctf_clock c = syn.clock;
	unsigned int i, ok = 0;
	struct stat st;
	struct run r;
	char *now;
	pid_t pid;
	int status;

	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&syn.v, syn.ev, syn.nd, &syn.env,
					      &syn.clock, &text[0], &len[0]), 0);
	c.error_ns = 700;		/* a tighter sample: a longer text */
	c.precision = 700;
	c.offset += 17;
	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&syn.v, syn.ev, syn.nd, &syn.env,
					      &c, &text[1], &len[1]), 0);
	CU_ASSERT_NOT_EQUAL(len[0], len[1]);

	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid) {
		alarm(60);
		for (i = 0; i < 400; i++)
			if (gr_ctf_write_metadata(syn.dirfd, text[i % 2],
						  len[i % 2], NULL))
				_exit(1);
		_exit(0);
	}
	for (i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL_FATAL(run(argv, &r), 0);
		ok += exited_ok(&r) && count_lines(r.out, "[") == 12;
		run_free(&r);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(ok, 8);

	/* the last write won, whole; no temporary is left behind */
	snprintf(path, sizeof(path), "%s/%s", syn.dir, GR_CTF_METADATA);
	now = slurp(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(now);
	CU_ASSERT_STRING_EQUAL(now, text[1]);
	CU_ASSERT_NOT_EQUAL(fstatat(syn.dirfd, GR_CTF_METADATA_TMP, &st, 0), 0);
	free(now);
	/* restore the original for the other tests */
	CU_ASSERT_EQUAL(gr_ctf_write_metadata(syn.dirfd, text[0], len[0], NULL), 0);
	free(text[0]);
	free(text[1]);
}

static void test_clock_from_sync_maps_guest_to_host_time(void)
{
	struct gr_ctf_clock c;

	/* 1 GHz: guest 5 s is host 1700000000.25 s */
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(1000000000ULL, 5000000000ULL,
			1700000000250000000LL, 1500, &c), 0);
	CU_ASSERT_EQUAL(c.offset_s, 1699999995);
	CU_ASSERT_EQUAL(c.offset, 250000000);
	CU_ASSERT_EQUAL(c.precision, 1500);
	CU_ASSERT_EQUAL(c.error_ns, 1500);
	CU_ASSERT_EQUAL(c.synced, 1);

	/* 250 MHz: 1000 ticks = 4 us; 10 ns error = 2.5 ticks, rounded up */
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(250000000ULL, 1000,
			1000000001LL, 10, &c), 0);
	CU_ASSERT_EQUAL(c.offset_s, 0);
	CU_ASSERT_EQUAL(c.offset, 249999000);
	CU_ASSERT_EQUAL(c.precision, 3);

	/* guest clock ahead of host time: a negative offset_s */
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(1000000000ULL, 1000000000ULL,
			5, 0, &c), 0);
	CU_ASSERT_EQUAL(c.offset_s, -1);
	CU_ASSERT_EQUAL(c.offset, 5);

	/* host time before the Epoch rounds down too */
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(3, 0, -1, 0, &c), 0);
	CU_ASSERT_EQUAL(c.offset_s, -1);
	CU_ASSERT_EQUAL(c.offset, 2);

	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(0, 0, 0, 0, &c), -EINVAL);
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(GR_MAX_CLOCK_FREQ + 1, 0, 0, 0,
					       &c), -EINVAL);
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(1, UINT64_MAX, 0, 0, &c),
			-ERANGE);
	/* beyond +-292 years babeltrace2 cannot place the events */
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(1, 9300000000ULL, 0, 0, &c),
			-ERANGE);
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(1, 9200000000ULL, 0, 0, &c), 0);
}

static void test_info_file_round_trips_and_is_checked(void)
{
	struct gr_ctf_info *info = malloc(sizeof(*info));
	struct gr_event_desc d[T_NDESC];
	struct gr_region_hdr h = syn.h;
	const char *why = NULL;
	uint8_t *buf;
	size_t len;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	CU_ASSERT_EQUAL(gr_ctf_read_info(syn.dirfd, info, &why), 0);
	CU_ASSERT(info->crc_ok);
	CU_ASSERT_EQUAL(info->nr_events, T_NDESC);
	CU_ASSERT_EQUAL(memcmp(&info->view, &syn.v, sizeof(syn.v)), 0);
	CU_ASSERT_EQUAL(memcmp(info->events, syn.ev, sizeof(syn.ev[0]) *
			       T_NDESC), 0);
	CU_ASSERT(info->valid[0] && info->valid[T_NDESC - 1]);
	CU_ASSERT_EQUAL(info->clock.synced, 1);
	CU_ASSERT_EQUAL(info->clock.offset_s, syn.clock.offset_s);
	CU_ASSERT_EQUAL(info->clock.offset, syn.clock.offset);
	CU_ASSERT_EQUAL(info->clock.error_ns, 1500);
	CU_ASSERT_EQUAL(memcmp(info->trace_uuid, syn.env.trace_uuid, 16), 0);

	/* the writer stores only what validates */
	make_descs(d);
	d[2].fields[0].type = 9;
	CU_ASSERT_EQUAL(gr_ctf_write_info(syn.dirfd, &syn.h, T_REGION, d,
					  sizeof(d[0]),
					  T_NDESC, NULL, syn.env.trace_uuid, NULL),
			-EINVAL);
	h.magic = 0;
	CU_ASSERT_EQUAL(gr_ctf_write_info(syn.dirfd, &h, T_REGION, syn.d,
					  sizeof(syn.d[0]),
					  T_NDESC, NULL, syn.env.trace_uuid, NULL),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_ctf_write_info(syn.dirfd, &syn.h, T_REGION, syn.d,
					  sizeof(syn.d[0]),
					  T_NDESC + 1, NULL, syn.env.trace_uuid, NULL),
			-EINVAL);

	/* the reader: every prefix of the file is refused or read whole */
	fd = openat(syn.dirfd, GR_CTF_INFO, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	len = (size_t)lseek(fd, 0, SEEK_END);
	buf = malloc(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_EQUAL(pread(fd, buf, len, 0), (ssize_t)len);
	close(fd);
	CU_ASSERT_EQUAL(len, IH + 512 + T_NDESC * 576);
	for (size_t n = 0; n < len; n++)
		CU_ASSERT_EQUAL(gr_ctf_parse_info(buf, n, info, &why), -EINVAL);
	CU_ASSERT_EQUAL(gr_ctf_parse_info(buf, len, info, &why), 0);
	buf[8] = 2;			/* version */
	CU_ASSERT_EQUAL(gr_ctf_parse_info(buf, len, info, &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "unsupported version");
	buf[8] = 1;
	buf[IH + 16] ^= 1;		/* region size in the header copy */
	CU_ASSERT_EQUAL(gr_ctf_parse_info(buf, len, info, &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why,
		"region_size differs from the real region size");
	buf[IH + 16] ^= 1;
	buf[IH + 512 + 576 + 1] = 'Q';	/* descriptor 1's name */
	CU_ASSERT_EQUAL(gr_ctf_parse_info(buf, len, info, &why), 0);
	CU_ASSERT(!info->crc_ok);
	CU_ASSERT(info->valid[0] && !info->valid[1] && info->valid[2]);
	CU_ASSERT_STRING_EQUAL(info->why[1],
		"event name is not an identifier [a-z_][a-z0-9_]*");
	free(buf);
	free(info);
}

/* spec 6.12: a packet may be stored content-only (packet_size = content) */
static void test_content_only_packets_read_the_same(void)
{
	char *dirs[1], *got, *rep;
	struct trace t;
	struct run r;
	uint8_t buf[T_S * 3];
	unsigned int ring, k;
	ssize_t n;
	int fd;

	memset(&t, 0, sizeof(t));
	t = syn;
	t.dirfd = -1;
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "compact"), 0);
	for (ring = 0; ring < 2; ring++) {
		char name[32];

		snprintf(name, sizeof(name), "stream_%u", ring);
		fd = openat(syn.dirfd, name, O_RDONLY);
		CU_ASSERT_FATAL(fd >= 0);
		n = read(fd, buf, sizeof(buf));
		close(fd);
		for (k = 0; k + T_S <= (size_t)n; k += T_S) {
			struct gr_packet_header h;

			/*
			 * as the agent stores them (spec 6.12): the records
			 * up to the last one's end, content_size up to its
			 * last declared byte
			 */
			memcpy(&h, buf + k, sizeof(h));
			h.packet_size = htole64((le64toh(h.content_size) + 63) /
						64 * 64);
			memcpy(buf + k, &h, sizeof(h));
			CU_ASSERT_EQUAL(stream_append(&t, ring, buf + k,
					le64toh(h.packet_size) / 8), 0);
		}
	}
	dirs[0] = t.dir;
	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 1, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	got = drop_lines(r.out, "V ");
	CU_ASSERT(same_text(got, syn_dump));
	free(got);
	run_free(&r);
	CU_ASSERT_EQUAL(report_text(t.dir, NULL, 0, &rep), 0);
	CU_ASSERT(same_text(rep, syn_report));
	free(rep);
	trace_close(&t);
}


/* --- what the host accepts, babeltrace2 reads (spec H9) -------------------- */

/* one packet of ring 0 holding a tick at @ts, checked as the agent does */
static int bounds_pkt(struct trace *t, struct gr_stream_mark *last,
		      uint64_t seq, uint64_t tb, uint64_t ts, uint64_t te,
		      uint64_t discarded, const char **why)
{
	struct gr_subbuf_rec rec;
	uint64_t bytes;
	struct pkt p;
	int ret;

	pkt_start(&p, 0, seq, tb, discarded);
	pkt_add(&p, EV_TICK, 1, ts, NULL, 0);
	pkt_finish(&p, te);
	memset(&rec, 0, sizeof(rec));
	rec.seq = htole64(seq);
	rec.bytes = htole32(p.len);
	ret = gr_check_packet(&t->v, 0, seq, &rec,
			      (const struct gr_packet_header *)p.b, last,
			      &bytes, why);
	if (ret)
		return ret;
	gr_stream_mark_set(last, (const struct gr_packet_header *)p.b);
	return stream_append(t, 0, p.b, sizeof(p.b));
}

static int bt_cli_ok(const char *dir)
{
	char *argv[] = { "babeltrace2", (char *)dir, NULL };
	struct run r;
	int ok;

	if (run(argv, &r))
		return 0;
	ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
	run_free(&r);
	return ok;
}

/*
 * A stream at the edges of every packet-header bound the agent accepts:
 * babeltrace2 reads it. Each value just past a bound is refused by the
 * agent, and, written anyway, makes babeltrace2 fail or abort: every
 * rule guards a real reader failure (found by the hostile-guest run).
 */
static void test_babeltrace_reads_every_packet_the_host_accepts(void)
{
	static const struct {
		const char *name;
		uint64_t tb, ts, te, discarded;	/* the second packet */
		const char *why;
	} past[] = {
		{ "discarded_2_64", 5600, 6000, 7500, UINT64_MAX,
		  "events_discarded is 2^64 - 1" },
		{ "ts_end_2_64", 5600, 6000, UINT64_MAX, 0,
		  "timestamp_end is beyond 2^62 ns" },
		{ "ts_end_2_63", 5600, 6000, 1ULL << 63, 0,
		  "timestamp_end is beyond 2^62 ns" },
		{ "begins_before_last_end", 5000, 6000, 7500, 0,
		  "timestamp_begin is before the previous packet's end" },
	};
	struct gr_stream_mark last;
	const char *why = NULL;
	struct trace t;
	unsigned int i;

	t = syn;
	t.dirfd = -1;
	memset(&last, 0, sizeof(last));
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "bounds"), 0);
	CU_ASSERT_EQUAL(bounds_pkt(&t, &last, 0, 900, 1000, 5500, 0, &why), 0);
	/* begins where the last ended; discarded the largest allowed */
	CU_ASSERT_EQUAL(bounds_pkt(&t, &last, 1, 5500, 5500, 7500,
				   UINT64_MAX - 1, &why), 0);
	/* discarded unchanged; ends at the last timestamp allowed */
	CU_ASSERT_EQUAL(bounds_pkt(&t, &last, 2, 7500, 8000, t.v.ts_max,
				   UINT64_MAX - 1, &why), 0);
	CU_ASSERT(bt_cli_ok(t.dir));
	trace_close(&t);

	for (i = 0; i < ARRAY_SIZE(past); i++) {
		struct gr_packet_header *ph;
		struct pkt p;

		t = syn;
		t.dirfd = -1;
		memset(&last, 0, sizeof(last));
		CU_ASSERT_EQUAL_FATAL(trace_create(&t, past[i].name), 0);
		CU_ASSERT_EQUAL(bounds_pkt(&t, &last, 0, 900, 1000, 5500, 0,
					   &why), 0);
		why = NULL;
		CU_ASSERT_EQUAL(bounds_pkt(&t, &last, 1, past[i].tb,
					   past[i].ts, past[i].te,
					   past[i].discarded, &why), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(why);
		CU_ASSERT_STRING_EQUAL(why, past[i].why);
		/* written anyway: babeltrace2 cannot read the stream */
		pkt_start(&p, 0, 1, past[i].tb, past[i].discarded);
		pkt_add(&p, EV_TICK, 1, past[i].ts, NULL, 0);
		pkt_finish(&p, past[i].te);
		ph = (struct gr_packet_header *)p.b;
		CU_ASSERT_EQUAL(le64toh(ph->timestamp_end), past[i].te);
		CU_ASSERT_EQUAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);
		if (bt_cli_ok(t.dir))
			fprintf(stderr, "\n    %s: babeltrace2 reads it now\n",
				past[i].name);
		CU_ASSERT_FALSE(bt_cli_ok(t.dir));
		trace_close(&t);
	}
}

/* spec 7.5: every field name is emitted with a '_': keywords are names */
static void test_babeltrace_reads_tsdl_keywords_as_field_names(void)
{
	const char *const *kw = gr_build_tsdl_keywords;
	uint8_t payload[8 * GR_MAX_FIELDS];
	char *dirs[1];
	struct trace t;
	struct run r;
	struct pkt p;
	unsigned int i, e, n;

	t = syn;
	t.dirfd = -1;
	/* events 4 and 5 (tick, blob) get the keywords as fields */
	for (e = 0; e < 2; e++) {
		struct gr_event_desc *d = &t.d[EV_TICK + e];
		unsigned int first = e * GR_MAX_FIELDS;

		n = GR_BUILD_NR_TSDL_KEYWORDS - first < GR_MAX_FIELDS ?
		    GR_BUILD_NR_TSDL_KEYWORDS - first : GR_MAX_FIELDS;
		gr_build_event(d, EV_TICK + e, e ? "blob" : "tick", "test", 8 * n,
			       0, n);
		for (i = 0; i < n; i++)
			gr_build_field(&d->fields[i], kw[first + i], 8 * i, 8, INT,
				       0);
	}
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "keywords"), 0);
	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i % 8 ? 0 : i / 8);
	pkt_start(&p, 0, 0, 900, 0);
	pkt_add(&p, EV_TICK, 1, 1000, payload, 8 * GR_MAX_FIELDS);
	pkt_add(&p, EV_BLOB, 1, 2000, payload,
		8 * (GR_BUILD_NR_TSDL_KEYWORDS - GR_MAX_FIELDS));
	pkt_finish(&p, 2500);
	CU_ASSERT_EQUAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);
	dirs[0] = t.dir;
	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 1, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	for (i = 0; i < GR_BUILD_NR_TSDL_KEYWORDS; i++) {
		char want[64];

		snprintf(want, sizeof(want), "%s=%u", kw[i],
			 i < GR_MAX_FIELDS ? i : i - GR_MAX_FIELDS);
		if (!strstr(r.out, want))
			fprintf(stderr, "\n    no '%s' in:\n%s\n", want, r.out);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
	}
	run_free(&r);
	trace_close(&t);
}

/* --- main ------------------------------------------------------------------- */

static const struct gr_test ctf_tests[] = {
	GR_TEST_NAMED("metadata names every system call (spec 7.5)",
	  test_metadata_names_every_system_call),
	GR_TEST_NAMED("babeltrace2 decodes every value exactly",
	  test_babeltrace_decodes_every_value_exactly),
	GR_TEST_NAMED("babeltrace2 CLI prints events and loss warnings",
	  test_babeltrace_cli_prints_events_and_loss_warnings),
	GR_TEST_NAMED("babeltrace2 ignores the hidden .guestrelay file",
	  test_babeltrace_ignores_hidden_info_file),
	GR_TEST_NAMED("env identifies guest, VM, host and tracer",
	  test_env_identifies_guest_vm_host_and_tracer),
	GR_TEST_NAMED("babeltrace2 merges two VMs by host time",
	  test_babeltrace_merges_two_vms_by_host_time),
	GR_TEST_NAMED("env strings are escaped byte for byte",
	  test_env_strings_are_escaped_byte_for_byte),
	GR_TEST_NAMED("hostile names cannot inject TSDL",
	  test_hostile_names_cannot_inject_tsdl),
	GR_TEST_NAMED("odd clock names still parse", test_odd_clock_names_still_parse),
	GR_TEST_NAMED("env has the guest's kernel_version and product_uuid",
	  test_env_has_guest_kernel_version_and_product_uuid),
	GR_TEST_NAMED("metadata names events as lttng-modules does",
	  test_metadata_names_events_as_lttng_modules),
	GR_TEST_NAMED("metadata names the scheduler's pid tid",
	  test_metadata_names_sched_pid_tid),
	GR_TEST_NAMED("metadata refuses unsafe or inexpressible views",
	  test_metadata_refuses_unsafe_or_inexpressible_views),
	GR_TEST_NAMED("random views: babeltrace2 decodes exactly",
	  test_random_views_babeltrace_decodes_exactly),
	GR_TEST_NAMED("metadata rewrite is atomic for readers",
	  test_metadata_rewrite_is_atomic_for_readers),
	GR_TEST_NAMED("clock from sync maps guest to host time",
	  test_clock_from_sync_maps_guest_to_host_time),
	GR_TEST_NAMED("info file round-trips and is checked",
	  test_info_file_round_trips_and_is_checked),
	GR_TEST_NAMED("content-only packets read the same",
	  test_content_only_packets_read_the_same),
	GR_TEST_NAMED("babeltrace2 reads every packet the host accepts",
	  test_babeltrace_reads_every_packet_the_host_accepts),
	GR_TEST_NAMED("babeltrace2 reads TSDL keywords as field names",
	  test_babeltrace_reads_tsdl_keywords_as_field_names),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("ctf", ctf_tests, ctf_fixture_suite_init,
		 ctf_fixture_suite_clean),
};

int main(void)
{
	return ctf_fixture_main("test_ctf", suites, ARRAY_SIZE(suites));
}
