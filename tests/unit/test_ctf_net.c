// SPDX-License-Identifier: GPL-2.0
/*
 * test_ctf_net.c - the network events declared as lttng-modules declares
 * them (spec 7.5, "Network events")
 *
 * An event laid out as the guest lays out netif_receive_skb and
 * net_dev_queue (skbaddr, len, protocol, name, then the flat run
 * network_header_type .. ip_daddr_lo): the metadata nests the run as
 * lttng-modules' network_header and transport_header variants, which
 * Trace Compass's LTTng 2.9+ layout reads; babeltrace2 reads records of
 * IPv4 and IPv6 TCP packets, of a packet without headers and of hostile
 * tag values, every value exact, the TCP key under the path Trace
 * Compass takes. Descriptors that differ in anything (a name, a size, a
 * type, a flag, a gap, the order, the event, the system) are declared
 * flat, and babeltrace2 reads them too.
 *
 * Needs babeltrace2 and /usr/bin/python3 with bt2 (skipped without).
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf_fixture.h"
#include "gr_build.h"
#include "validate_packet.h"

#define EV_NET		5	/* in place of blob */
#define NET_HEAD	32	/* skbaddr, len, protocol, name[16] */
#define NET_PAYLOAD	(NET_HEAD + 56)

/* the run after the head: name, offset in the payload, size, flags */
static const struct {
	const char *name;
	uint16_t off;
	uint16_t size;
	uint8_t flags;
} run_fields[] = {
	{ "network_header_type", 32, 2, 0 },
	{ "ip_protocol", 34, 2, 0 },
	{ "transport_header_type", 36, 4, 0 },
	{ "th_source_port", 40, 2, 0 },
	{ "th_dest_port", 42, 2, 0 },
	{ "th_seq", 44, 4, 0 },
	{ "th_ack_seq", 48, 4, 0 },
	{ "th_flags", 52, 4, HX },
	{ "ip_saddr_hi", 56, 8, HX },
	{ "ip_saddr_lo", 64, 8, HX },
	{ "ip_daddr_hi", 72, 8, HX },
	{ "ip_daddr_lo", 80, 8, HX },
};

#define NR_RUN	ARRAY_SIZE(run_fields)

static void net_desc(struct gr_event_desc *d, const char *name,
		     const char *system)
{
	struct gr_field_desc *f;
	unsigned int i;

	memset(d, 0, sizeof(*d));
	f = gr_build_event(d, EV_NET, name, system, NET_PAYLOAD, 0,
			   4 + NR_RUN);
	gr_build_field(&f[0], "skbaddr", 0, 8, INT, HX);
	gr_build_field(&f[1], "len", 8, 4, INT, 0);
	gr_build_field(&f[2], "protocol", 12, 4, INT, HX);
	gr_build_field(&f[3], "name", 16, 16, CHR, 0);
	for (i = 0; i < NR_RUN; i++)
		gr_build_field(&f[4 + i], run_fields[i].name, run_fields[i].off,
			       run_fields[i].size, INT, run_fields[i].flags);
}

/*
 * one packet's headers as the guest records them (host order), in the
 * order of run_fields: nh, protocol, th, sport, dport, seq, ack_seq,
 * flags, saddr hi and lo, daddr hi and lo
 */
struct net_rec {
	uint64_t v[NR_RUN];
};

static void net_payload(uint8_t *p, uint64_t skb, const struct net_rec *r)
{
	unsigned int k;
	uint32_t v32;
	uint64_t v64;

	memset(p, 0, NET_PAYLOAD);
	v64 = htole64(skb);
	memcpy(p, &v64, 8);
	v32 = htole32(60);
	memcpy(p + 8, &v32, 4);
	v32 = htole32(r->v[0] == 2 ? 0x86dd : 0x800);
	memcpy(p + 12, &v32, 4);
	memcpy(p + 16, "lo", 2);
	for (k = 0; k < NR_RUN; k++) {
		v64 = htole64(r->v[k]);
		memcpy(p + run_fields[k].off, &v64, run_fields[k].size);
	}
}

static const struct net_rec recs[] = {
	/* IPv4 TCP: a SYN from 127.0.0.1:40000 to :5001 */
	{ { 1, 6, 1, 40000, 5001, 3000000000U, 0, 0x002, 0,
	    0xffff7f000001ULL, 0, 0xffff7f000001ULL } },
	/* IPv6 TCP: an ACK from ::1 */
	{ { 2, 6, 1, 5001, 40000, 17, 3000000001U, 0x010, 0, 1, 0, 1 } },
	/* not parsed: none and zeros */
	{ { 0 } },
	/* IPv4 UDP: a protocol but no transport header */
	{ { 1, 17, 0, 0, 0, 0, 0, 0, 0, 0xffff0a000001ULL, 0,
	    0xffff0a000002ULL } },
	/* hostile tags: values no label names singly */
	{ { 7, 6, 0xffffffffU, 1, 2, 3, 4, 0x1ff, 5, 6, 7, 8 } },
	{ { 0xffff, 0, 2, 9, 9, 9, 9, 9, 9, 9, 9, 9 } },
};

static int net_stored(struct trace *t, const char *dir, const char *name,
		      const char *system, void (*mutate)(struct gr_event_desc *))
{
	uint8_t pl[NET_PAYLOAD];
	struct pkt p;
	unsigned int i;

	trace_init(t, "guest1", 0x41, 1000000000ULL, "vm1", 0x21);
	net_desc(&t->d[EV_NET], name, system);
	if (mutate)
		mutate(&t->d[EV_NET]);
	if (trace_create(t, dir))
		return -EIO;
	pkt_start(&p, 0, 0, 900, 0);
	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		net_payload(pl, 0xffff888001000000ULL + i, &recs[i]);
		pkt_add(&p, EV_NET, 3, 1000 * (i + 1), pl, NET_PAYLOAD);
	}
	pkt_finish(&p, 9000);
	if (gr_check_records(&t->v, t->ev, t->nd, p.b, p.len, NULL))
		return -EINVAL;
	return stream_append(t, 0, p.b, sizeof(p.b));
}

/*
 * Each record as Trace Compass's Lttng29EventLayout reads it:
 * network_header, its selected option (whatever its name), then
 * transport_header, option "tcp", fields seq, ack_seq and flags; and the
 * options selected. One line per event.
 */
static const char py_paths[] =
	"import sys, bt2\n"
	"for m in bt2.TraceCollectionMessageIterator(sys.argv[1]):\n"
	"    if type(m) is not bt2._EventMessageConst:\n"
	"        continue\n"
	"    p = m.event.payload_field\n"
	"    nh = p['network_header']\n"
	"    ip = nh.selected_option\n"
	"    ipn = nh.cls.option_at_index(nh.selected_option_index).name\n"
	"    th = ip['transport_header']\n"
	"    thn = th.cls.option_at_index(th.selected_option_index).name\n"
	"    o = th.selected_option\n"
	"    print(m.event.name, int(p['network_header_type']), ipn, thn,\n"
	"          int(ip['protocol']), int(o['source_port']),\n"
	"          int(o['dest_port']), int(o['seq']), int(o['ack_seq']),\n"
	"          hex(int(o['flags'])), hex(int(ip['saddr_lo'])),\n"
	"          hex(int(ip['daddr_lo'])), type(o['seq']).__name__)\n";

static void test_metadata_nests_the_run_as_lttng_modules(void)
{
	struct trace t;
	char *text;

	CU_ASSERT_EQUAL_FATAL(net_stored(&t, "nest", "netif_receive_skb",
					 "net", NULL), 0);
	text = trace_metadata(&t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "name = \"net_if_receive_skb\";"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"enum : integer { size = 16; align = 16; signed = false; "
		"base = 10; } { \"_unknown\" = 0, \"_ipv4\" = 1, \"_ipv6\" = 2, "
		"\"_unknown\" = 3 ... 65535 } _network_header_type;\n"
		"\t\tvariant <_network_header_type> {\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"\"_unknown\" = 0, \"_tcp\" = 1, \"_unknown\" = 2 ... "
		"4294967295 } _transport_header_type;\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "} _tcp;\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "} _transport_header;\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "} _network_header;\n"));
	/* no flat name of the run is left */
	CU_ASSERT_PTR_NULL(strstr(text, "_th_seq"));
	CU_ASSERT_PTR_NULL(strstr(text, "_ip_saddr_hi"));
	free(text);
	trace_close(&t);
}

static void test_babeltrace_reads_the_tcp_key_where_trace_compass_looks(void)
{
	char *argv[] = { PYTHON, "-c", (char *)py_paths, NULL, NULL };
	char *cli[] = { "babeltrace2", NULL, NULL };
	struct trace t;
	struct run r;

	CU_ASSERT_EQUAL_FATAL(net_stored(&t, "paths", "net_dev_queue", "net",
					 NULL), 0);
	argv[3] = t.dir;
	CU_ASSERT_EQUAL_FATAL(run(argv, &r), 0);
	CU_ASSERT(exited_ok(&r));
	if (!exited_ok(&r))
		fprintf(stderr, "\n%s\n", r.err);
	CU_ASSERT(same_text(r.out,
		"net_dev_queue 1 ipv4 tcp 6 40000 5001 3000000000 0 0x2 "
		"0xffff7f000001 0xffff7f000001 _UnsignedIntegerFieldConst\n"
		"net_dev_queue 2 ipv6 tcp 6 5001 40000 17 3000000001 0x10 "
		"0x1 0x1 _UnsignedIntegerFieldConst\n"
		"net_dev_queue 0 unknown unknown 0 0 0 0 0 0x0 0x0 0x0 "
		"_UnsignedIntegerFieldConst\n"
		"net_dev_queue 1 ipv4 unknown 17 0 0 0 0 0x0 0xffff0a000001 "
		"0xffff0a000002 _UnsignedIntegerFieldConst\n"
		"net_dev_queue 7 unknown unknown 6 1 2 3 4 0x1ff 0x6 0x8 "
		"_UnsignedIntegerFieldConst\n"
		"net_dev_queue 65535 unknown unknown 0 9 9 9 9 0x9 0x9 0x9 "
		"_UnsignedIntegerFieldConst\n"));
	run_free(&r);
	/* and the CLI prints every record */
	cli[1] = t.dir;
	CU_ASSERT_EQUAL_FATAL(run(cli, &r), 0);
	CU_ASSERT(exited_ok(&r));
	CU_ASSERT_EQUAL(count_lines(r.out, "["), ARRAY_SIZE(recs));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "seq = 3000000000, ack_seq = 0"));
	run_free(&r);
	trace_close(&t);
}

/* descriptors that are not exactly the run: declared flat */
static void m_renamed(struct gr_event_desc *d)
{
	strcpy(d->fields[9].name, "th_sequence");
}

static void m_size(struct gr_event_desc *d)
{
	/* th_flags 2 bytes, then 2 bytes no field covers */
	d->fields[11].size = htole16(2);
}

static void m_signed(struct gr_event_desc *d)
{
	d->fields[9].flags = SG;
}

static void m_hex(struct gr_event_desc *d)
{
	d->fields[4].flags = HX;
}

static void m_type(struct gr_event_desc *d)
{
	d->fields[15].type = CHR;
	d->fields[15].flags = 0;
}

static void m_order(struct gr_event_desc *d)
{
	/* ip_saddr_lo before ip_saddr_hi */
	strcpy(d->fields[12].name, "ip_saddr_lo");
	strcpy(d->fields[13].name, "ip_saddr_hi");
}

static void m_short(struct gr_event_desc *d)
{
	/* the last field missing: the run is not whole */
	d->nr_fields = htole16(4 + NR_RUN - 1);
}

static const struct {
	const char *dir, *name, *system;
	void (*mutate)(struct gr_event_desc *);
} flat_cases[] = {
	{ "renamed", "netif_receive_skb", "net", m_renamed },
	{ "size", "netif_receive_skb", "net", m_size },
	{ "signed", "netif_receive_skb", "net", m_signed },
	{ "hex", "net_dev_queue", "net", m_hex },
	{ "type", "net_dev_queue", "net", m_type },
	{ "order", "net_dev_queue", "net", m_order },
	{ "short", "netif_receive_skb", "net", m_short },
	{ "event", "net_dev_xmit", "net", NULL },
	{ "system", "netif_receive_skb", "skb", NULL },
};

static void test_other_layouts_are_declared_flat_and_read(void)
{
	char *cli[] = { "babeltrace2", NULL, NULL };
	struct trace t;
	struct run r;
	unsigned int i;
	char *text;

	for (i = 0; i < ARRAY_SIZE(flat_cases); i++) {
		CU_ASSERT_EQUAL_FATAL(net_stored(&t, flat_cases[i].dir,
						 flat_cases[i].name,
						 flat_cases[i].system,
						 flat_cases[i].mutate), 0);
		text = trace_metadata(&t);
		CU_ASSERT_PTR_NOT_NULL_FATAL(text);
		CU_ASSERT_PTR_NULL(strstr(text, "variant"));
		CU_ASSERT_PTR_NULL(strstr(text, "_network_header;"));
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "_network_header_type;"));
		free(text);
		cli[1] = t.dir;
		CU_ASSERT_EQUAL_FATAL(run(cli, &r), 0);
		CU_ASSERT(exited_ok(&r));
		if (!exited_ok(&r))
			fprintf(stderr, "\n%s: %s\n", flat_cases[i].dir, r.err);
		CU_ASSERT_EQUAL(count_lines(r.out, "["), ARRAY_SIZE(recs));
		CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "th_source_port = 40000,"));
		if (!strstr(r.out, "th_source_port = 40000,"))
			fprintf(stderr, "\n%s: %.600s\n", flat_cases[i].dir, r.out);
		run_free(&r);
		trace_close(&t);
	}
}

static const struct gr_test tests[] = {
	GR_TEST_NAMED("metadata nests the run as lttng-modules",
		      test_metadata_nests_the_run_as_lttng_modules),
	GR_TEST_NAMED("babeltrace2 reads the TCP key where Trace Compass looks",
		      test_babeltrace_reads_the_tcp_key_where_trace_compass_looks),
	GR_TEST_NAMED("other layouts are declared flat and read",
		      test_other_layouts_are_declared_flat_and_read),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("ctf: network events (spec 7.5)", tests, NULL, NULL),
};

int main(void)
{
	return ctf_fixture_main("test_ctf_net", suites, ARRAY_SIZE(suites));
}
