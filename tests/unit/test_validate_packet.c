// SPDX-License-Identifier: GPL-2.0
/*
 * test_validate_packet.c - the host's validators of what a running guest
 * produces: ring counters, commit records and packet headers, the records
 * of a packet copy (verify mode, spec H24), event headers, event families
 * (spec 7.2, H30), and the names of modes and states
 *
 * One valid structure per check (tests/lib/validate_fixture.c), then one
 * thing flipped per test: the rejection, its errno and its reason.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr_build.h"
#include "gr_test.h"
#include "validate_fixture.h"

#include "guestrelay_abi.h"
#include "validate.h"

/* --- counters ------------------------------------------------------------ */

static int counters(int flight, uint64_t produced, uint64_t consumed,
		    uint64_t *first, uint64_t *ready, const char **why)
{
	struct gr_view v;

	make_view(&v);
	*first = *ready = 0xdead;
	return gr_check_counters(&v, produced, consumed, flight, first, ready,
				 why);
}

static void test_counters_stream_accepts_zero_to_n_ready(void)
{
	uint64_t first, ready, d;
	const char *why = NULL;

	for (d = 0; d <= T_N; d++) {
		CU_ASSERT_EQUAL(counters(0, 100 + d, 100, &first, &ready, &why), 0);
		CU_ASSERT_EQUAL(first, 100);
		CU_ASSERT_EQUAL(ready, d);
	}
}

static void test_counters_stream_rejects_more_than_n_ahead(void)
{
	uint64_t first, ready;
	const char *why = NULL;

	expect(counters(0, 100 + T_N + 1, 100, &first, &ready, &why), &why,
	       -EINVAL, "produced is more than n_subbufs ahead of consumed");
	CU_ASSERT_EQUAL(first, 0xdead);
	why = NULL;
	expect(counters(0, UINT64_MAX, 0, &first, &ready, &why), &why,
	       -EINVAL, "produced is more than n_subbufs ahead of consumed");
}

static void test_counters_stream_rejects_produced_behind(void)
{
	uint64_t first, ready;
	const char *why = NULL;

	expect(counters(0, 99, 100, &first, &ready, &why), &why, -EINVAL,
	       "produced is more than n_subbufs ahead of consumed");
	why = NULL;
	expect(counters(0, 0, 1, &first, &ready, &why), &why, -EINVAL,
	       "produced is more than n_subbufs ahead of consumed");
}

static void test_counters_stream_wraps_at_2_64(void)
{
	uint64_t first, ready;
	const char *why = NULL;

	/* consumed 2^64 - 2, produced 2 (mod 2^64): 4 ready */
	CU_ASSERT_EQUAL(counters(0, 2, UINT64_MAX - 1, &first, &ready, &why), 0);
	CU_ASSERT_EQUAL(first, UINT64_MAX - 1);
	CU_ASSERT_EQUAL(ready, 4);
	CU_ASSERT_EQUAL(counters(0, 0, UINT64_MAX, &first, &ready, &why), 0);
	CU_ASSERT_EQUAL(ready, 1);
	why = NULL;
	expect(counters(0, 3, UINT64_MAX - 1, &first, &ready, &why), &why,
	       -EINVAL, "produced is more than n_subbufs ahead of consumed");
}

static void test_counters_flight_caps_at_n_minus_1(void)
{
	uint64_t first, ready;
	const char *why = NULL;

	CU_ASSERT_EQUAL(counters(1, 100, 100, &first, &ready, &why), 0);
	CU_ASSERT_EQUAL(ready, 0);
	CU_ASSERT_EQUAL(first, 100);
	CU_ASSERT_EQUAL(counters(1, 102, 100, &first, &ready, &why), 0);
	CU_ASSERT_EQUAL(ready, 2);
	CU_ASSERT_EQUAL(first, 100);
	/* slot of produced - n is being overwritten: n - 1 are intact */
	CU_ASSERT_EQUAL(counters(1, 100 + T_N, 100, &first, &ready, &why), 0);
	CU_ASSERT_EQUAL(ready, T_N - 1);
	CU_ASSERT_EQUAL(first, 101);
	CU_ASSERT_EQUAL(counters(1, 1000000, 100, &first, &ready, &why), 0);
	CU_ASSERT_EQUAL(ready, T_N - 1);
	CU_ASSERT_EQUAL(first, 1000000 - (T_N - 1));
}

static void test_counters_flight_wraps_at_2_64(void)
{
	uint64_t first, ready;
	const char *why = NULL;

	CU_ASSERT_EQUAL(counters(1, 1, UINT64_MAX - 9, &first, &ready, &why), 0);
	CU_ASSERT_EQUAL(ready, T_N - 1);
	CU_ASSERT_EQUAL(first, UINT64_MAX - 1);	/* 1 - 3 mod 2^64 */
	CU_ASSERT_EQUAL(counters(1, 1ULL << 62, 0, &first, &ready, &why), 0);
	CU_ASSERT_EQUAL(counters(1, (1ULL << 63) - 1, 0, &first, &ready,
				 &why), 0);
}

static void test_counters_flight_rejects_produced_behind(void)
{
	uint64_t first, ready;
	const char *why = NULL;

	expect(counters(1, 99, 100, &first, &ready, &why), &why, -EINVAL,
	       "produced is behind consumed");
	why = NULL;
	expect(counters(1, 1ULL << 63, 0, &first, &ready, &why), &why,
	       -EINVAL, "produced is behind consumed");
	CU_ASSERT_EQUAL(first, 0xdead);
	CU_ASSERT_EQUAL(ready, 0xdead);
}

/* --- packets ------------------------------------------------------------- */

/* a sub-buffer's commit record and packet header, and the view they meet */
struct pkt {
	struct gr_view v;
	struct gr_subbuf_rec rec;
	struct gr_packet_header ph;
	uint64_t bytes;		/* gr_check_packet()'s content bytes */
	const char *why;
};

/* a valid packet of @ring, sequence @seq, in the layout of make_view() */
static void pkt_make(struct pkt *p, unsigned int ring, uint64_t seq)
{
	make_view(&p->v);
	make_packet(&p->rec, &p->ph, ring, seq);
	p->bytes = 0;
	p->why = NULL;
}

static int pkt_check(struct pkt *p, unsigned int ring, uint64_t seq,
		     const struct gr_stream_mark *last)
{
	return gr_check_packet(&p->v, ring, seq, &p->rec, &p->ph, last,
			       &p->bytes, &p->why);
}

static void test_packet_accepts_valid_subbuf(void)
{
	struct pkt p;

	pkt_make(&p, T_RING, T_SEQ);
	CU_ASSERT_EQUAL(pkt_check(&p, T_RING, T_SEQ, NULL), 0);
	CU_ASSERT_EQUAL(p.bytes, T_CONTENT);
}

static void test_event_names_must_be_unique(void)
{
	struct gr_event_view ev[3];
	const char *why = NULL;

	memset(ev, 0, sizeof(ev));
	strcpy(ev[0].name, "sched_switch");
	strcpy(ev[1].name, "sched_wakeup");
	strcpy(ev[2].name, "sched_waking");
	CU_ASSERT_EQUAL(gr_check_event_names(ev, 3, &why), 0);
	strcpy(ev[2].name, "sched_switch");
	CU_ASSERT_EQUAL(gr_check_event_names(ev, 3, &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "two events have the same name");
	CU_ASSERT_EQUAL(gr_check_event_names(ev, 2, &why), 0);
}

/* babeltrace2 2.0.4 rejects a whole trace over one packet with no event */
static void test_packet_rejects_empty_accepts_full_subbuf(void)
{
	struct pkt p;

	pkt_make(&p, 0, 7);
	p.rec.bytes = htole32(72);
	p.ph.content_size = htole64(72 * 8);
	p.ph.timestamp_end = p.ph.timestamp_begin;
	CU_ASSERT_EQUAL(pkt_check(&p, 0, 7, NULL), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(p.why && strstr(p.why, "holds no event"));
	p.rec.bytes = htole32(T_S);
	p.ph.content_size = htole64(T_S * 8);
	CU_ASSERT_EQUAL(pkt_check(&p, 0, 7, NULL), 0);
	CU_ASSERT_EQUAL(p.bytes, T_S);
}

static void test_packet_accepts_seq_near_2_64(void)
{
	struct pkt p;

	pkt_make(&p, T_RING, UINT64_MAX - 1);
	CU_ASSERT_EQUAL(pkt_check(&p, T_RING, UINT64_MAX - 1, NULL), 0);
	pkt_make(&p, T_RING, 0);
	CU_ASSERT_EQUAL(pkt_check(&p, T_RING, 0, NULL), 0);
}

static void test_packet_global_ring_takes_cpu_id_0_only(void)
{
	struct gr_region_hdr h;
	struct pkt p;

	pkt_make(&p, 0, T_SEQ);
	make_global_hdr(&h, 8);
	CU_ASSERT_EQUAL_FATAL(gr_check_region_hdr(&h, T_REGION, &p.v, &p.why),
			      0);
	p.ph.cpu_id = 0;
	CU_ASSERT_EQUAL(pkt_check(&p, 0, T_SEQ, NULL), 0);
	/* spec 3.9 / H9: 0 with GR_HDR_GLOBAL, even for a CPU that exists */
	p.ph.cpu_id = htole32(7);
	expect(pkt_check(&p, 0, T_SEQ, NULL), &p.why, -EINVAL,
	       "cpu_id does not match the ring");
	p.why = NULL;
	p.ph.cpu_id = htole32(8);
	expect(pkt_check(&p, 0, T_SEQ, NULL), &p.why, -EINVAL,
	       "cpu_id does not match the ring");
	p.why = NULL;
	p.ph.cpu_id = 0;
	expect(pkt_check(&p, 1, T_SEQ, NULL), &p.why, -EINVAL,
	       "ring index out of range");
}

/* H9's bounds are inclusive: the largest values babeltrace2 still reads */
static void test_packet_accepts_the_bounds_of_its_stream(void)
{
	struct gr_stream_mark last = { 0 };
	struct pkt p;

	pkt_make(&p, T_RING, T_SEQ);
	CU_ASSERT_EQUAL(p.v.ts_max, (1ULL << 62));	/* 1 GHz: ns */
	last.ts_end = le64toh(p.ph.timestamp_begin);
	last.discarded = 5;
	p.ph.events_discarded = htole64(5);
	CU_ASSERT_EQUAL(pkt_check(&p, T_RING, T_SEQ, &last), 0);
	p.ph.timestamp_end = htole64(p.v.ts_max);
	p.ph.events_discarded = htole64(UINT64_MAX - 1);
	CU_ASSERT_EQUAL(pkt_check(&p, T_RING, T_SEQ, &last), 0);
	gr_stream_mark_set(&last, &p.ph);
	CU_ASSERT_EQUAL(last.ts_end, p.v.ts_max);
	CU_ASSERT_EQUAL(last.discarded, UINT64_MAX - 1);
}

static void test_packet_ignores_reserved_bytes(void)
{
	struct pkt p;
	unsigned int minor;

	for (minor = GR_ABI_MINOR; minor <= GR_ABI_MINOR + 1; minor++) {
		pkt_make(&p, T_RING, T_SEQ);
		p.v.abi_minor = minor;
		p.rec.last_record = htole32(1);
		p.ph.reserved = htole32(0x80000000U);
		CU_ASSERT_EQUAL(pkt_check(&p, T_RING, T_SEQ, NULL), 0);
	}
}

/*
 * X(name, errno, reason, mutation...): the mutation runs on a valid record
 * p.rec and header p.ph of ring T_RING, expected sequence number seq.
 */
#define PACKET_REJECTS(X)						\
	X(ring_out_of_range, -EINVAL, "ring index out of range",	\
	  ring = T_CPUS)						\
	X(ring_huge, -EINVAL, "ring index out of range", ring = ~0U)	\
	X(seq_busy, -EBUSY, "sub-buffer is being written",		\
	  p.rec.seq = htole64(GR_SEQ_BUSY))				\
	X(seq_other, -EINVAL, "commit record seq is not the expected one", \
	  p.rec.seq = htole64(T_SEQ + 1))				\
	X(seq_older_lap, -EINVAL,					\
	  "commit record seq is not the expected one",			\
	  p.rec.seq = htole64(T_SEQ - T_N))				\
	X(seq_zero, -EINVAL, "commit record seq is not the expected one", \
	  p.rec.seq = 0)						\
	X(seq_next_lap, -ESTALE, "sub-buffer was overwritten",		\
	  p.rec.seq = htole64(T_SEQ + T_N))				\
	X(seq_later_lap, -ESTALE, "sub-buffer was overwritten",		\
	  p.rec.seq = htole64(T_SEQ + 1000 * T_N))			\
	X(magic, -EINVAL, "bad packet magic",				\
	  p.ph.magic = htole32(GR_CTF_MAGIC ^ 0x100))			\
	X(magic_byte_swapped, -EINVAL, "bad packet magic",		\
	  p.ph.magic = htobe32(GR_CTF_MAGIC))				\
	X(stream_id, -EINVAL, "stream_id is not 0",			\
	  p.ph.stream_id = htole32(1))					\
	X(stream_instance_id, -EINVAL,					\
	  "stream_instance_id is not the ring index",			\
	  p.ph.stream_instance_id = htole64(0))				\
	X(stream_instance_id_high, -EINVAL,				\
	  "stream_instance_id is not the ring index",			\
	  p.ph.stream_instance_id = htole64((1ULL << 32) | T_RING))	\
	X(cpu_id, -EINVAL, "cpu_id does not match the ring",		\
	  p.ph.cpu_id = htole32(0))					\
	X(packet_size_small, -EINVAL, "packet_size is not subbuf_size * 8", \
	  p.ph.packet_size = htole64(T_S * 8 - 64))			\
	X(packet_size_bytes, -EINVAL, "packet_size is not subbuf_size * 8", \
	  p.ph.packet_size = htole64(T_S))				\
	X(content_not_whole_words, -EINVAL,				\
	  "content_size is not a multiple of 64 bits",			\
	  p.ph.content_size = htole64(T_CONTENT * 8 + 8))		\
	X(content_odd_bits, -EINVAL,					\
	  "content_size is not a multiple of 64 bits",			\
	  p.ph.content_size = htole64(T_CONTENT * 8 + 1))		\
	X(content_below_header, -EINVAL,				\
	  "content_size is smaller than the packet header",		\
	  p.rec.bytes = htole32(64); p.ph.content_size = htole64(64 * 8)) \
	X(content_zero, -EINVAL,					\
	  "content_size is smaller than the packet header",		\
	  p.rec.bytes = 0; p.ph.content_size = 0)			\
	X(content_past_packet, -EINVAL, "content_size exceeds packet_size", \
	  p.rec.bytes = htole32(T_S + 8);				\
	  p.ph.content_size = htole64((T_S + 8) * 8))			\
	X(content_near_2_64, -EINVAL, "content_size exceeds packet_size", \
	  p.ph.content_size = htole64(UINT64_MAX - 63))			\
	X(content_not_rec_bytes, -EINVAL,				\
	  "content_size differs from the commit record",		\
	  p.rec.bytes = htole32(T_CONTENT + 8))				\
	X(rec_bytes_wraps, -EINVAL,					\
	  "content_size differs from the commit record",		\
	  p.rec.bytes = htole32((uint32_t)(T_CONTENT + (1ULL << 29))))	\
	X(packet_seq_num, -EINVAL, "packet_seq_num is not the expected one", \
	  p.ph.packet_seq_num = htole64(T_SEQ + T_N))			\
	X(timestamps_reversed, -EINVAL,					\
	  "timestamp_begin is after timestamp_end",			\
	  p.ph.timestamp_begin = htole64(21))				\
	X(timestamp_end_zero, -EINVAL,					\
	  "timestamp_begin is after timestamp_end",			\
	  p.ph.timestamp_end = 0)					\
	X(timestamp_end_max, -EINVAL, "timestamp_end is beyond 2^62 ns", \
	  p.ph.timestamp_end = htole64(UINT64_MAX))			\
	X(timestamp_end_past_2_62_ns, -EINVAL,				\
	  "timestamp_end is beyond 2^62 ns",				\
	  p.ph.timestamp_end = htole64(p.v.ts_max + 1))			\
	X(events_discarded_max, -EINVAL, "events_discarded is 2^64 - 1", \
	  p.ph.events_discarded = htole64(UINT64_MAX))			\
	X(begins_before_last_end, -EINVAL,				\
	  "timestamp_begin is before the previous packet's end",	\
	  mark.ts_end = le64toh(p.ph.timestamp_begin) + 1)		\
	X(events_discarded_went_down, -EINVAL,				\
	  "events_discarded went down",					\
	  mark.discarded = 8;						\
	  p.ph.events_discarded = htole64(7))

#define PACKET_REJECT_FN(name, err, msg, ...)				\
static void test_packet_rejects_##name(void)				\
{									\
	struct gr_stream_mark mark = { 0 };				\
	unsigned int ring = T_RING;					\
	struct pkt p;							\
									\
	pkt_make(&p, T_RING, T_SEQ);					\
	p.bytes = 0xdead;						\
	__VA_ARGS__;							\
	expect(pkt_check(&p, ring, T_SEQ, &mark), &p.why, err, msg);	\
	CU_ASSERT_EQUAL(p.bytes, 0xdead);				\
}
PACKET_REJECTS(PACKET_REJECT_FN)

/* --- records of a packet copy (verify mode, spec H24) -------------------- */

struct rpkt {
	uint8_t b[T_S];
	uint32_t len;
};

static void rpkt_start(struct rpkt *p, uint64_t tb, uint64_t te)
{
	struct gr_packet_header ph;
	struct gr_subbuf_rec rec;

	make_packet(&rec, &ph, T_RING, T_SEQ);
	ph.timestamp_begin = htole64(tb);
	ph.timestamp_end = htole64(te);
	memset(p->b, 0xa5, sizeof(p->b));
	memcpy(p->b, &ph, sizeof(ph));
	p->len = sizeof(ph);
}

/* a record of event @id at @ts; for console, @msg (NULL: fixed size) */
static void rpkt_add(struct rpkt *p, uint16_t id, uint64_t ts, const char *msg)
{
	static const uint16_t payload[T_NDESC] = { 56, 16, 0 };
	struct gr_event_header e;
	uint32_t size = id == 2 ? 16U + 8U + (uint32_t)strlen(msg) + 1U :
			16U + payload[id];

	size = (size + 7) & ~7U;
	e.id = htole16(id);
	e.size = htole16((uint16_t)size);
	e.tid = htole32(7);
	e.timestamp = htole64(ts);
	memset(p->b + p->len, 0, size);
	memcpy(p->b + p->len, &e, sizeof(e));
	if (id == 2)
		memcpy(p->b + p->len + 24, msg, strlen(msg) + 1);
	p->len += size;
}

static void rpkt_poke16(struct rpkt *p, uint32_t off, uint16_t v)
{
	v = htole16(v);
	memcpy(p->b + off, &v, 2);
}

static void test_records_accepts_a_good_packet(void)
{
	struct gr_event_view ev[T_NDESC];
	struct gr_view v;
	struct rpkt p;
	const char *why = NULL;

	make_view(&v);
	make_event_views(ev);
	rpkt_start(&p, 10, 20);
	rpkt_add(&p, 0, 10, NULL);
	rpkt_add(&p, 2, 12, "");		/* the NUL in the last word */
	rpkt_add(&p, 2, 12, "1234567");		/* ends a word exactly */
	rpkt_add(&p, 2, 15, "12345678");
	rpkt_add(&p, 1, 20, NULL);
	CU_ASSERT_EQUAL(gr_check_records(&v, ev, T_NDESC, p.b, p.len, &why),
			0);
	if (why)
		fprintf(stderr, "\n    why: %s\n", why);
	/* a packet of the header only has no record to check */
	CU_ASSERT_EQUAL(gr_check_records(&v, ev, T_NDESC, p.b, 72, &why), 0);
}

/* the guest's declared last record: the walk's end in constant time */
static void test_content_end_at_declared_last(void)
{
	struct gr_event_view ev[T_NDESC];
	struct gr_view v;
	struct rpkt p;
	uint64_t end = 1;

	make_view(&v);
	make_event_views(ev);
	rpkt_start(&p, 10, 20);
	/* header only: last must be 0 */
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b, 72, 0,
						 &end), 0);
	CU_ASSERT_EQUAL(end, 72);
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b, 72,
						 72, &end), -EINVAL);
	rpkt_add(&p, 0, 10, NULL);		/* 72..144 */
	rpkt_add(&p, 2, 12, "abc");		/* 144..176 */
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b, p.len,
						 144, &end), 0);
	CU_ASSERT_EQUAL(end, gr_packet_content_end(&v, ev, T_NDESC, p.b,
						   p.len));
	CU_ASSERT_EQUAL(end, 144 + 16 + 8 + 4);
	/* hostile values: refused, end left alone */
	end = 1;
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b, p.len,
						 72, &end), -EINVAL);
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b, p.len,
						 148, &end), -EINVAL);
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b, p.len,
						 0, &end), -EINVAL);
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b, p.len,
						 64, &end), -EINVAL);
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b, p.len,
						 p.len, &end), -EINVAL);
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b, p.len,
						 p.len - 8, &end), -EINVAL);
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b, p.len,
						 ~0ULL & ~7ULL, &end), -EINVAL);
	/* past the committed bytes: the record no longer fits */
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b, 168,
						 144, &end), -EINVAL);
	/* pointing into a record whose bytes look like none */
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b, p.len,
						 160, &end), -EINVAL);
	CU_ASSERT_EQUAL(end, 1);
	/* a record that ends short of content_size */
	CU_ASSERT_EQUAL(gr_packet_content_end_at(&v, ev, T_NDESC, p.b,
						 p.len + 8, 144, &end),
			-EINVAL);
}

/*
 * spec 2.3, H31: the declared last record is used only with
 * GR_F_LAST_RECORD in the guest's features; a refused one is counted and
 * the records are walked; 0 is "not known", a walk without a refusal
 */
static void test_packet_end_negotiated_or_walked(void)
{
	struct gr_event_view ev[T_NDESC];
	struct gr_view v;
	struct rpkt p;
	bool refused;
	uint64_t walk;

	make_view(&v);
	make_event_views(ev);
	rpkt_start(&p, 10, 20);
	rpkt_add(&p, 0, 10, NULL);		/* 72..144 */
	rpkt_add(&p, 2, 12, "abc");		/* 144..176 */
	/* the first record spoiled: the walk stops, the last one is good */
	p.b[72 + 8] = 0xff;
	p.b[72 + 9] = 0xff;
	walk = gr_packet_content_end(&v, ev, T_NDESC, p.b, p.len);
	CU_ASSERT_EQUAL(walk, p.len);
	/* the guest does not set the bit: the field is reserved, ignored */
	refused = false;
	CU_ASSERT_EQUAL(gr_packet_end(&v, ev, T_NDESC, p.b, p.len, 144,
				      &refused), walk);
	CU_ASSERT_EQUAL(gr_packet_end(&v, ev, T_NDESC, p.b, p.len, 148,
				      &refused), walk);
	CU_ASSERT_FALSE(refused);
	/* it does: the declared record gives the end, not the walk */
	v.features |= GR_F_LAST_RECORD;
	CU_ASSERT_EQUAL(gr_packet_end(&v, ev, T_NDESC, p.b, p.len, 144,
				      &refused), 144 + 16 + 8 + 4);
	CU_ASSERT_FALSE(refused);
	CU_ASSERT_EQUAL(gr_packet_end(&v, ev, T_NDESC, p.b, p.len, 0,
				      &refused), walk);
	CU_ASSERT_FALSE(refused);
	/* a hostile value: refused, and the walk's end */
	CU_ASSERT_EQUAL(gr_packet_end(&v, ev, T_NDESC, p.b, p.len, 148,
				      &refused), walk);
	CU_ASSERT_TRUE(refused);
	refused = false;
	CU_ASSERT_EQUAL(gr_packet_end(&v, ev, T_NDESC, p.b, p.len, 72,
				      &refused), walk);
	CU_ASSERT_TRUE(refused);
}

/* spec 6.12: stored content ends at the last record's last declared byte */
static void test_content_end_excludes_the_last_tail(void)
{
	struct gr_event_view ev[T_NDESC], e;
	struct gr_view v;
	struct rpkt p;

	make_view(&v);
	make_event_views(ev);
	rpkt_start(&p, 10, 20);
	rpkt_add(&p, 0, 10, NULL);		/* 72 bytes, no tail */
	CU_ASSERT_EQUAL(gr_packet_content_end(&v, ev, T_NDESC, p.b, p.len),
			p.len);
	rpkt_add(&p, 2, 12, "abc");		/* string ends 4 bytes early */
	CU_ASSERT_EQUAL(p.len, 176);
	CU_ASSERT_EQUAL(gr_packet_content_end(&v, ev, T_NDESC, p.b, p.len),
			144 + 16 + 8 + 4);
	rpkt_add(&p, 2, 15, "1234567");		/* ends a word exactly */
	CU_ASSERT_EQUAL(gr_packet_content_end(&v, ev, T_NDESC, p.b, p.len),
			p.len);
	/* a chain that does not reach content_size: left as it is */
	CU_ASSERT_EQUAL(gr_packet_content_end(&v, ev, T_NDESC, p.b,
					      p.len + 8), p.len + 8);
	rpkt_poke16(&p, 144 + 10, 0);		/* a record of size 0 */
	CU_ASSERT_EQUAL(gr_packet_content_end(&v, ev, T_NDESC, p.b, p.len),
			p.len);
	/* header only: nothing to trim */
	CU_ASSERT_EQUAL(gr_packet_content_end(&v, ev, T_NDESC, p.b, 72), 72);

	/* a fixed-size tail gap is declared only if it reaches a new word */
	e = ev[1];
	e.fields[1].size = 4;			/* fields end at 12 */
	CU_ASSERT_EQUAL(gr_event_declared_end(&e), 12);
	e.payload_size = 20;			/* 16..19: another word */
	CU_ASSERT_EQUAL(gr_event_declared_end(&e), 20);
	e.nr_fields = 0;
	e.payload_size = 0;
	CU_ASSERT_EQUAL(gr_event_declared_end(&e), 0);
}

/*
 * Each damage a reader cannot get past, in the second record of
 * [0 @10, 2 "abc" @12, 1 @20] (offsets 72, 144, 176).
 */
#define RECORD_REJECTS(X)						\
	X(unknown_id, "unknown event id", rpkt_poke16(&p, 144 + 8, 3))	\
	X(size_not_8, "record size is not a multiple of 8",		\
	  rpkt_poke16(&p, 144 + 10, 33))				\
	X(size_below_16, "record size is below 16",			\
	  rpkt_poke16(&p, 144 + 10, 8))					\
	X(past_content, "record extends beyond the packet content",	\
	  len -= 8)							\
	X(gap_after_last, "record size is below 16",			\
	  memset(p.b + len, 0, 16); len += 16)				\
	X(fixed_size_wrong, "record size does not match the event",	\
	  rpkt_poke16(&p, 72 + 10, 80))					\
	X(time_backwards, "record timestamp goes backwards",		\
	  p.b[144] = 9)							\
	X(before_begin, "record timestamp goes backwards",		\
	  p.b[72] = 9)							\
	X(after_end, "record timestamp is after timestamp_end",	\
	  p.b[176] = 21)						\
	X(string_unterminated, "string is not terminated in its record", \
	  memset(p.b + 144 + 24, 'x', 8))				\
	X(string_short_of_record, "record is longer than its string",	\
	  rpkt_poke16(&p, 144 + 10, 40); rpkt_poke16(&p, 184 + 10, 32);	\
	  memmove(p.b + 184, p.b + 176, 32); len = 184 + 32)

#define RECORD_REJECT_FN(name, msg, ...)				\
static void test_records_rejects_##name(void)				\
{									\
	struct gr_event_view ev[T_NDESC];				\
	struct gr_view v;						\
	struct rpkt p;							\
	uint64_t len;							\
	const char *why = NULL;						\
									\
	make_view(&v);							\
	make_event_views(ev);						\
	rpkt_start(&p, 10, 20);						\
	rpkt_add(&p, 0, 10, NULL);					\
	rpkt_add(&p, 2, 12, "abc");					\
	rpkt_add(&p, 1, 20, NULL);					\
	len = p.len;							\
	CU_ASSERT_EQUAL_FATAL(gr_check_records(&v, ev, T_NDESC, p.b, len, \
					       &why), 0);		\
	__VA_ARGS__;							\
	expect(gr_check_records(&v, ev, T_NDESC, p.b, len, &why), &why,	\
	       -EINVAL, msg);						\
}
RECORD_REJECTS(RECORD_REJECT_FN)

/* --- event records ------------------------------------------------------- */

static void test_evh_accepts_valid_records(void)
{
	struct gr_event_view ev[T_NDESC];
	struct gr_event_header e;
	struct gr_record_view r;
	const char *why = NULL;
	struct gr_view v;
	uint16_t size;

	make_view(&v);
	make_event_views(ev);
	make_evh(&e, 0, 72);
	CU_ASSERT_EQUAL(gr_check_event_header(&v, &e, ev, T_NDESC, 72, &r, &why), 0);
	CU_ASSERT_EQUAL(r.id, 0);
	CU_ASSERT_EQUAL(r.size, 72);
	CU_ASSERT_EQUAL(r.tid, 4242);
	CU_ASSERT_EQUAL(r.timestamp, 123456789ULL);
	make_evh(&e, 1, 32);
	CU_ASSERT_EQUAL(gr_check_event_header(&v, &e, ev, T_NDESC, 4000, &r, &why), 0);
	for (size = 32; size <= 224; size += 8) {
		make_evh(&e, 2, size);
		CU_ASSERT_EQUAL(gr_check_event_header(&v, &e, ev, T_NDESC, 224,
						      &r, &why), 0);
	}
}

#define EVH_REJECTS(X)							\
	X(unknown_id, "unknown event id", make_evh(&e, T_NDESC, 72))	\
	X(id_max, "unknown event id", make_evh(&e, UINT16_MAX, 72))	\
	X(size_unaligned, "record size is not a multiple of 8",		\
	  make_evh(&e, 0, 73))						\
	X(size_zero, "record size is below 16", make_evh(&e, 0, 0))	\
	X(size_8, "record size is below 16", make_evh(&e, 0, 8))	\
	X(size_past_content, "record extends beyond the packet content", \
	  remaining = 64)						\
	X(size_max, "record extends beyond the packet content",		\
	  make_evh(&e, 0, 65528))					\
	X(fixed_size_short, "record size does not match the event",	\
	  make_evh(&e, 0, 64))						\
	X(fixed_size_long, "record size does not match the event",	\
	  make_evh(&e, 0, 80))						\
	X(varlen_too_short, "record size outside the event's range",	\
	  make_evh(&e, 2, 24))						\
	X(varlen_too_long, "record size outside the event's range",	\
	  make_evh(&e, 2, 232))

#define EVH_REJECT_FN(name, msg, ...)					\
static void test_evh_rejects_##name(void)				\
{									\
	struct gr_event_view ev[T_NDESC];				\
	struct gr_event_header e;					\
	struct gr_record_view r;					\
	uint64_t remaining = T_S - 72;					\
	const char *why = NULL;						\
	struct gr_view v;						\
									\
	make_view(&v);							\
	make_event_views(ev);						\
	make_evh(&e, 0, 72);						\
	__VA_ARGS__;							\
	expect(gr_check_event_header(&v, &e, ev, T_NDESC, remaining, &r, &why), \
	       &why, -EINVAL, msg);					\
}
EVH_REJECTS(EVH_REJECT_FN)


/* --- event families (v1.2, GR_F_SYSCALLS, spec 7.2, H30) ---------------- */

/*
 * The test layout with GR_F_SYSCALLS and a family of @count members at
 * @base on descriptor @i (1 is sys_enter); returns gr_check_event_desc()'s
 * result for it, the views of all three in @ev, @v the view.
 */
static int family_desc(struct gr_view *v, struct gr_event_view ev[T_NDESC],
		       unsigned int i, uint32_t base, uint32_t count,
		       uint64_t features, const char **why)
{
	struct gr_build_layout l = t_layout;
	struct gr_event_desc d[T_NDESC];
	struct gr_region_hdr h;
	unsigned int k;
	int ret = 0;

	l.features = features;
	gr_build_hdr(&h, &l);
	CU_ASSERT_EQUAL_FATAL(gr_check_region_hdr(&h, T_REGION, v, why), 0);
	make_descs(d);
	d[i].family_base = htole16((uint16_t)base);
	d[i].family_count = htole16((uint16_t)count);
	for (k = 0; k < T_NDESC; k++) {
		*why = NULL;
		ret = gr_check_event_desc(v, &d[k], k, &ev[k], why);
		if (ret)
			return ret;
	}
	return 0;
}

static void test_family_bounds(void)
{
	const uint64_t f = T_FEATURES | GR_F_SYSCALLS;
	struct gr_event_view ev[T_NDESC];
	struct gr_view v;
	const char *why = NULL;

	/* accepted: right after the table, at the top of the cap, 1 and max */
	CU_ASSERT_EQUAL(family_desc(&v, ev, 1, T_NDESC, 451, f, &why), 0);
	CU_ASSERT_EQUAL(ev[1].family_base, T_NDESC);
	CU_ASSERT_EQUAL(ev[1].family_count, 451);
	CU_ASSERT_EQUAL(family_desc(&v, ev, 1, T_NDESC, 1, f, &why), 0);
	CU_ASSERT_EQUAL(family_desc(&v, ev, 1, T_NDESC, GR_MAX_FAMILY, f,
				    &why), 0);
	CU_ASSERT_EQUAL(family_desc(&v, ev, 1, GR_MAX_RECORD_IDS -
				    GR_MAX_FAMILY, GR_MAX_FAMILY, f, &why), 0);
	CU_ASSERT_EQUAL(family_desc(&v, ev, 1, 0, 0, f, &why), 0);
	CU_ASSERT_EQUAL(ev[1].family_count, 0);
	/* refused, one past each bound */
	expect(family_desc(&v, ev, 1, T_NDESC - 1, 10, f, &why), &why,
	       -EINVAL, "family_base is below desc_count");
	expect(family_desc(&v, ev, 1, T_NDESC, GR_MAX_FAMILY + 1, f, &why),
	       &why, -EINVAL, "family_count is above GR_MAX_FAMILY");
	expect(family_desc(&v, ev, 1, GR_MAX_RECORD_IDS - GR_MAX_FAMILY + 1,
			   GR_MAX_FAMILY, f, &why), &why, -EINVAL,
	       "family ends above GR_MAX_RECORD_IDS");
	expect(family_desc(&v, ev, 1, 0xffff, 0xffff, f, &why), &why,
	       -EINVAL, "family_count is above GR_MAX_FAMILY");
	expect(family_desc(&v, ev, 1, 7, 0, f, &why), &why, -EINVAL,
	       "family_base without family_count");
	expect(family_desc(&v, ev, 0, T_NDESC, 10, f, &why), &why, -EINVAL,
	       "a family on an event other than raw_syscalls sys_enter or sys_exit");
	/* without the feature the fields are reserved bytes: ignored */
	CU_ASSERT_EQUAL(family_desc(&v, ev, 0, 0xffff, 0xffff, T_FEATURES,
				    &why), 0);
	CU_ASSERT_EQUAL(ev[0].family_count, 0);
	CU_ASSERT_EQUAL(ev[0].family_base, 0);
}

static void test_family_table(void)
{
	const uint64_t f = T_FEATURES | GR_F_SYSCALLS;
	struct gr_event_view ev[T_NDESC];
	struct gr_view v;
	const char *why = NULL;

	CU_ASSERT_EQUAL_FATAL(family_desc(&v, ev, 1, 10, 451, f, &why), 0);
	CU_ASSERT_EQUAL(gr_check_families(&v, ev, T_NDESC, &why), 0);
	CU_ASSERT_EQUAL(v.nr_families, 1);
	CU_ASSERT_EQUAL(v.families[0].base, 10);
	CU_ASSERT_EQUAL(v.families[0].count, 451);
	CU_ASSERT_EQUAL(v.families[0].desc, 1);

	/* a second family (descriptor 2 made a sys_exit) beside, then over */
	strcpy(ev[2].name, "sys_exit");
	strcpy(ev[2].system, "raw_syscalls");
	ev[2].family_base = 461;
	ev[2].family_count = 451;
	CU_ASSERT_EQUAL(gr_check_families(&v, ev, T_NDESC, &why), 0);
	CU_ASSERT_EQUAL(v.nr_families, 2);
	ev[2].family_base = 460;
	expect(gr_check_families(&v, ev, T_NDESC, &why), &why, -EINVAL,
	       "event families overlap");
	CU_ASSERT_EQUAL(v.nr_families, 0);
	ev[2].family_base = 0;
	ev[2].family_count = 0;
	/* a descriptor named like a member */
	strcpy(ev[2].name, "syscall_exit_read");
	expect(gr_check_families(&v, ev, T_NDESC, &why), &why, -EINVAL,
	       "an event is named like a family member");
	strcpy(ev[2].name, "syscall_entry_x");
	expect(gr_check_families(&v, ev, T_NDESC, &why), &why, -EINVAL,
	       "an event is named like a family member");
	/* ... which is fine while no descriptor has a family */
	ev[1].family_count = 0;
	ev[1].family_base = 0;
	CU_ASSERT_EQUAL(gr_check_families(&v, ev, T_NDESC, &why), 0);
	CU_ASSERT_EQUAL(v.nr_families, 0);
	/* a view a validator did not fill: refused, not trusted */
	ev[1].family_base = 1;
	ev[1].family_count = 5;
	expect(gr_check_families(&v, ev, T_NDESC, &why), &why, -EINVAL,
	       "family outside its id range");
}

/* member records: the descriptor's size rules, its id in r.id */
static void test_family_records(void)
{
	const uint64_t f = T_FEATURES | GR_F_SYSCALLS;
	struct gr_event_view ev[T_NDESC];
	struct gr_event_header e;
	struct gr_record_view r;
	struct gr_view v;
	struct rpkt p;
	const char *why = NULL;

	CU_ASSERT_EQUAL_FATAL(family_desc(&v, ev, 1, 10, 451, f, &why), 0);
	/* before gr_check_families(): no member id is known */
	make_evh(&e, 10, 32);
	expect(gr_check_event_header(&v, &e, ev, T_NDESC, 4000, &r, &why),
	       &why, -EINVAL, "unknown event id");
	CU_ASSERT_EQUAL_FATAL(gr_check_families(&v, ev, T_NDESC, &why), 0);
	CU_ASSERT_EQUAL(gr_check_event_header(&v, &e, ev, T_NDESC, 4000, &r,
					      &why), 0);
	CU_ASSERT_EQUAL(r.id, 1);
	CU_ASSERT_EQUAL(r.member, 10);
	make_evh(&e, 460, 32);
	CU_ASSERT_EQUAL(gr_check_event_header(&v, &e, ev, T_NDESC, 4000, &r,
					      &why), 0);
	CU_ASSERT_EQUAL(r.id, 1);
	CU_ASSERT_EQUAL(r.member, 460);
	make_evh(&e, 1, 32);
	CU_ASSERT_EQUAL(gr_check_event_header(&v, &e, ev, T_NDESC, 4000, &r,
					      &why), 0);
	CU_ASSERT_EQUAL(r.member, 1);
	/* just outside the family, and a member of the wrong size */
	make_evh(&e, 9, 32);
	expect(gr_check_event_header(&v, &e, ev, T_NDESC, 4000, &r, &why),
	       &why, -EINVAL, "unknown event id");
	make_evh(&e, 461, 32);
	expect(gr_check_event_header(&v, &e, ev, T_NDESC, 4000, &r, &why),
	       &why, -EINVAL, "unknown event id");
	make_evh(&e, 11, 40);
	expect(gr_check_event_header(&v, &e, ev, T_NDESC, 4000, &r, &why),
	       &why, -EINVAL, "record size does not match the event");
	/* a family whose descriptor the caller does not pass */
	make_evh(&e, 11, 32);
	expect(gr_check_event_header(&v, &e, ev, 1, 4000, &r, &why),
	       &why, -EINVAL, "unknown event id");

	/* verify mode: a packet of members and ordinary records */
	rpkt_start(&p, 10, 20);
	rpkt_add(&p, 0, 10, NULL);
	rpkt_add(&p, 1, 12, NULL);
	rpkt_add(&p, 2, 15, "x");
	rpkt_poke16(&p, 72 + 72 + 8, 10 + 39);
	CU_ASSERT_EQUAL(gr_check_records(&v, ev, T_NDESC, p.b, p.len, &why),
			0);
	rpkt_poke16(&p, 72 + 72 + 8, 10 + 451);
	expect(gr_check_records(&v, ev, T_NDESC, p.b, p.len, &why), &why,
	       -EINVAL, "unknown event id");
}

/* spec 6.12 with families: a member's record ends where its descriptor's does */
static void test_family_content_end(void)
{
	const uint64_t f = T_FEATURES | GR_F_SYSCALLS;
	struct gr_event_view ev[T_NDESC];
	struct gr_view v;
	struct rpkt p;
	const char *why = NULL;

	CU_ASSERT_EQUAL_FATAL(family_desc(&v, ev, 1, 10, 451, f, &why), 0);
	/* the text event as a second family, as test_family_table makes one */
	strcpy(ev[2].name, "sys_exit");
	strcpy(ev[2].system, "raw_syscalls");
	ev[2].family_base = 461;
	ev[2].family_count = 451;
	CU_ASSERT_EQUAL_FATAL(gr_check_families(&v, ev, T_NDESC, &why), 0);
	rpkt_start(&p, 10, 20);
	rpkt_add(&p, 2, 12, "abc");		/* string ends 4 bytes early */
	rpkt_poke16(&p, 72 + 8, 461 + 3);
	CU_ASSERT_EQUAL(p.len, 104);
	CU_ASSERT_EQUAL(gr_packet_content_end(&v, ev, T_NDESC, p.b, p.len),
			72 + 16 + 8 + 4);
	/* an id in no family: left whole, as any record it cannot place */
	rpkt_poke16(&p, 72 + 8, 461 + 451);
	CU_ASSERT_EQUAL(gr_packet_content_end(&v, ev, T_NDESC, p.b, p.len),
			p.len);
}

/* --- names --------------------------------------------------------------- */

static void test_mode_and_state_names(void)
{
	CU_ASSERT_STRING_EQUAL(gr_mode_name(GR_MODE_STREAM), "stream");
	CU_ASSERT_STRING_EQUAL(gr_mode_name(GR_MODE_FLIGHT), "flight");
	CU_ASSERT_STRING_EQUAL(gr_mode_name(2), "unknown");
	CU_ASSERT_STRING_EQUAL(gr_mode_name(UINT32_MAX), "unknown");
	CU_ASSERT_STRING_EQUAL(gr_state_name(GR_STATE_ABSENT), "absent");
	CU_ASSERT_STRING_EQUAL(gr_state_name(GR_STATE_IDLE), "idle");
	CU_ASSERT_STRING_EQUAL(gr_state_name(GR_STATE_TRACING), "tracing");
	CU_ASSERT_STRING_EQUAL(gr_state_name(GR_STATE_STOPPED), "stopped");
	CU_ASSERT_STRING_EQUAL(gr_state_name(GR_STATE_PANIC), "panic");
	CU_ASSERT_STRING_EQUAL(gr_state_name(5), "unknown");
}

static void test_identifier_rules(void)
{
	char full[8];

	CU_ASSERT_TRUE(gr_is_identifier("a", 2));
	CU_ASSERT_TRUE(gr_is_identifier("_", 2));
	CU_ASSERT_TRUE(gr_is_identifier("a_9", 4));
	CU_ASSERT_FALSE(gr_is_identifier("", 1));
	CU_ASSERT_FALSE(gr_is_identifier("9a", 3));
	memset(full, 'a', sizeof(full));
	CU_ASSERT_FALSE(gr_is_identifier(full, sizeof(full)));
	full[7] = 0;
	CU_ASSERT_TRUE(gr_is_identifier(full, sizeof(full)));
}

/* --- registration -------------------------------------------------------- */

#define REG_PACKET(name, ...)	GR_TEST_NAMED("packet rejects " #name, test_packet_rejects_##name),
#define REG_EVH(name, ...)	GR_TEST_NAMED("event header rejects " #name, test_evh_rejects_##name),

static const struct gr_test counter_tests[] = {
	GR_TEST_NAMED("stream accepts 0 to n ready",
	  test_counters_stream_accepts_zero_to_n_ready),
	GR_TEST_NAMED("stream rejects more than n ahead",
	  test_counters_stream_rejects_more_than_n_ahead),
	GR_TEST_NAMED("stream rejects produced behind consumed",
	  test_counters_stream_rejects_produced_behind),
	GR_TEST_NAMED("stream wraps at 2^64", test_counters_stream_wraps_at_2_64),
	GR_TEST_NAMED("flight caps ready at n - 1", test_counters_flight_caps_at_n_minus_1),
	GR_TEST_NAMED("flight wraps at 2^64", test_counters_flight_wraps_at_2_64),
	GR_TEST_NAMED("flight rejects produced behind consumed",
	  test_counters_flight_rejects_produced_behind),
};

static const struct gr_test packet_tests[] = {
	GR_TEST_NAMED("records: a good packet passes", test_records_accepts_a_good_packet),
	GR_TEST_NAMED("records: stored content ends at the last declared byte",
		      test_content_end_excludes_the_last_tail),
	GR_TEST_NAMED("records: a declared last record gives the same end",
		      test_content_end_at_declared_last),
	GR_TEST_NAMED("records: the declared last record only when negotiated",
		      test_packet_end_negotiated_or_walked),
	GR_TEST_NAMED("records: a family member's content ends at its fields",
		      test_family_content_end),
#define RECORD_REJECT_ENTRY(name, msg, ...)				\
	GR_TEST_NAMED("records reject " #name, test_records_rejects_##name),
	RECORD_REJECTS(RECORD_REJECT_ENTRY)
	GR_TEST_NAMED("packet accepts a valid sub-buffer", test_packet_accepts_valid_subbuf),
	GR_TEST_NAMED("event names must be unique", test_event_names_must_be_unique),
	GR_TEST_NAMED("packet rejects an empty sub-buffer, accepts a full one",
	  test_packet_rejects_empty_accepts_full_subbuf),
	GR_TEST_NAMED("packet accepts seq near 2^64", test_packet_accepts_seq_near_2_64),
	GR_TEST_NAMED("packet accepts the bounds of its stream",
	  test_packet_accepts_the_bounds_of_its_stream),
	GR_TEST_NAMED("packet of a global ring takes cpu_id 0 only (spec H9)",
	  test_packet_global_ring_takes_cpu_id_0_only),
	GR_TEST_NAMED("packet ignores reserved bytes (spec 2.4)",
	  test_packet_ignores_reserved_bytes),
	PACKET_REJECTS(REG_PACKET)
};

static const struct gr_test evh_tests[] = {
	GR_TEST_NAMED("event header accepts valid records", test_evh_accepts_valid_records),
	EVH_REJECTS(REG_EVH)
};

static const struct gr_test misc_tests[] = {
	GR_TEST_NAMED("families accepted and refused at each bound (H30)",
		      test_family_bounds),
	GR_TEST_NAMED("family table: overlap, member names (H30)",
		      test_family_table),
	GR_TEST_NAMED("family member records map to their descriptor",
		      test_family_records),
	GR_TEST_NAMED("mode and state names", test_mode_and_state_names),
	GR_TEST_NAMED("identifier rules", test_identifier_rules),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("counters", counter_tests, NULL, NULL),
	GR_SUITE("packets", packet_tests, NULL, NULL),
	GR_SUITE("event headers", evh_tests, NULL, NULL),
	GR_SUITE("names", misc_tests, NULL, NULL),
};

int main(void)
{
	return gr_test_run(suites, ARRAY_SIZE(suites));
}
