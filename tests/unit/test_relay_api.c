// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the client API (include/guestrelay/relay.h,
 * guest-module/gr_relay_api.c) against kernel relay's documented
 * behaviour (the relay seed, Documentation/filesystems/relay.rst): name
 * and size rules, no-overwrite and overwrite modes, messages never split,
 * padding removed by read(), subbuf_start with its reserved header and
 * prev_padding, reserve, flush, reset, subbufs_consumed, global channels,
 * klog records, and concurrent writers on every "CPU" with a reader. The
 * real core and API run in userspace (tests/shim/gr_user_env.h); the
 * relay file layer (gr_relay_file.c in the module) is replaced by the
 * four hooks below, which count what they were asked.
 */
#include <sched.h>

#include "relay_fixture.h"
#include "gr_rchan.h"

static u32 files_added, files_deleted, wakes, flushes;
/* a message of a whole sub-buffer */
static u8 big[4096];

int gr_rchan_files_add(struct gr_rchan *rc)
{
	(void)rc;
	files_added++;
	return 0;
}

/* No host in these tests: every channel is the guest reader's (16.4) */
void gr_rchan_publish(struct gr_rchan *rc)
{
	(void)rc;
}

void gr_rchan_withdraw(struct gr_rchan *rc)
{
	(void)rc;
}

void gr_rchan_files_del(struct gr_rchan *rc)
{
	(void)rc;
	files_deleted++;
}

void gr_rchan_wake(struct gr_rchan *rc, u32 ring)
{
	(void)rc;
	(void)ring;
	__atomic_add_fetch(&wakes, 1, __ATOMIC_RELAXED);
}

/* The module flushes each CPU's ring on that CPU; one thread here */
void gr_rchan_flush_all(struct gr_rchan *rc)
{
	flushes++;
	gr_chan_flush(rc->cl.chan);
}

/* ---------------------------------------------------------------------- */
/* A reader into memory                                                   */

struct sink {
	u8 *buf;
	size_t len;
	size_t cap;
};

static int sink_copy(void *ctx, const void *src, size_t len)
{
	struct sink *s = ctx;

	if (s->len + len > s->cap)
		return -EFAULT;
	memcpy(s->buf + s->len, src, len);
	s->len += len;
	return 0;
}

static void sink_init(struct sink *s, size_t cap)
{
	s->buf = calloc(1, cap);
	s->len = 0;
	s->cap = cap;
	CU_ASSERT_FATAL(s->buf != NULL);
}

/* Read everything a ring has, in reads of @chunk bytes */
static size_t drain(struct gr_rchan *rc, u32 ring, struct sink *s,
		    size_t chunk)
{
	size_t before = s->len;
	ssize_t n;

	do {
		n = gr_rchan_read(rc, ring, chunk, sink_copy, s);
		CU_ASSERT(n >= 0);
	} while (n > 0);
	return s->len - before;
}

/* Message k of "CPU" c, as the example module writes them */
static size_t make_msg(u8 *m, u32 c, u32 k)
{
	size_t len = 12 + k % 61, j;
	__le32 v;

	v = htole32(0x6772636c);
	memcpy(m, &v, 4);
	v = htole32(c);
	memcpy(m + 4, &v, 4);
	v = htole32(k);
	memcpy(m + 8, &v, 4);
	for (j = 12; j < len; j++)
		m[j] = (c * 7 + k + (j - 12)) & 0xff;
	return len;
}

/* The bytes @count messages of CPU @c make, concatenated */
static size_t expect_stream(u8 *out, u32 c, u32 first, u32 count)
{
	size_t len = 0;
	u32 k;

	for (k = first; k < first + count; k++)
		len += make_msg(out + len, c, k);
	return len;
}

static struct gr_ring *ring_of(struct gr_rchan *rc, u32 ring)
{
	return (void *)(rc->mem + gr_ring_off(rc->lay.ring_offset, ring));
}

/* ---------------------------------------------------------------------- */
/* Opening                                                                */

static void test_open_checks_names_sizes_and_flags(void)
{
	static const char * const bad[] = {
		"", "1abc", "Abc", "a-b", "a.b", "a/b", "a b",
		"abcdefghijklmnopqrstuvwxyz012345",	/* 32 bytes */
	};
	struct gr_rchan *rc;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CU_ASSERT_PTR_NULL(gr_relay_open(bad[i], 4096, 4, 0, NULL,
						 NULL));
	CU_ASSERT_PTR_NULL(gr_relay_open(NULL, 4096, 4, 0, NULL, NULL));
	CU_ASSERT_PTR_NULL(gr_relay_open("ok", 1000, 4, 0, NULL, NULL));
	CU_ASSERT_PTR_NULL(gr_relay_open("ok", 2048, 4, 0, NULL, NULL));
	CU_ASSERT_PTR_NULL(gr_relay_open("ok", 2 << 20, 4, 0, NULL, NULL));
	CU_ASSERT_PTR_NULL(gr_relay_open("ok", 4096, 1, 0, NULL, NULL));
	CU_ASSERT_PTR_NULL(gr_relay_open("ok", 4096, 1025, 0, NULL, NULL));
	CU_ASSERT_PTR_NULL(gr_relay_open("ok", 4096, 4, 0x80, NULL, NULL));
	CU_ASSERT_PTR_NULL(gr_relay_open("ok", (size_t)1 << 40, 4, 0, NULL,
					 NULL));

	files_added = files_deleted = 0;
	rc = gr_relay_open("abcdefghijklmnopqrstuvwxyz01234", 1 << 20, 1024,
			   GR_RELAY_GLOBAL, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	CU_ASSERT_EQUAL(rc->lay.nr_rings, 1);
	CU_ASSERT_EQUAL(files_added, 1);
	gr_relay_close(rc);
	CU_ASSERT_EQUAL(files_deleted, 1);
}

static void test_names_unique_and_at_most_sixteen(void)
{
	struct gr_rchan *rc[GR_CLIENT_MAX];
	char name[8];
	int i;

	for (i = 0; i < GR_CLIENT_MAX; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		rc[i] = gr_relay_open(name, 4096, 2, 0, NULL, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(rc[i]);
		CU_ASSERT_EQUAL(rc[i]->slot, (u32)i);
	}
	CU_ASSERT_PTR_NULL(gr_relay_open("c99", 4096, 2, 0, NULL, NULL));
	gr_relay_close(rc[3]);
	CU_ASSERT_PTR_NULL(gr_relay_open("c4", 4096, 2, 0, NULL, NULL));
	rc[3] = gr_relay_open("c99", 4096, 2, 0, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc[3]);
	CU_ASSERT_EQUAL(rc[3]->slot, 3);
	for (i = 0; i < GR_CLIENT_MAX; i++)
		gr_relay_close(rc[i]);
}

/* ---------------------------------------------------------------------- */
/* Writing and reading                                                    */

/*
 * Messages go to the writing CPU's buffer, whole, as given; read()
 * returns finished sub-buffers only, without padding, in order, whatever
 * the read size.
 */
static void test_messages_per_cpu_read_without_padding(void)
{
	const u32 per_cpu = 400;
	u8 *want = calloc(1, 64 * 1024);
	struct gr_rchan *rc;
	struct sink s[4];
	u8 m[80];
	size_t len, total, got;
	u32 c, k;

	rc = gr_relay_open("perc", 4096, 16, 0, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	CU_ASSERT_EQUAL(rc->lay.nr_rings, 4);
	for (c = 0; c < 4; c++) {
		gr_user_set_cpu(c);
		for (k = 0; k < per_cpu; k++) {
			len = make_msg(m, c, k);
			CU_ASSERT_EQUAL(gr_relay_write(rc, m, len), 0);
		}
	}
	gr_user_set_cpu(0);
	for (c = 0; c < 4; c++) {
		total = expect_stream(want, c, 0, per_cpu);
		sink_init(&s[c], 64 * 1024);
		/* before the flush: whole sub-buffers only, none split */
		got = drain(rc, c, &s[c], c + 1);
		CU_ASSERT(got > 0 && got < total);
		CU_ASSERT(memcmp(s[c].buf, want, got) == 0);
		CU_ASSERT_FALSE(gr_rchan_readable(rc, c));
	}
	flushes = 0;
	gr_relay_flush(rc);
	CU_ASSERT_EQUAL(flushes, 1);
	for (c = 0; c < 4; c++) {
		total = expect_stream(want, c, 0, per_cpu);
		CU_ASSERT_TRUE(gr_rchan_readable(rc, c));
		/* the rest: the flushed partial sub-buffer, padding removed */
		drain(rc, c, &s[c], 4096);
		CU_ASSERT_EQUAL(s[c].len, total);
		CU_ASSERT(memcmp(s[c].buf, want, total) == 0);
		free(s[c].buf);
	}
	/* a second flush of empty sub-buffers delivers nothing */
	gr_relay_flush(rc);
	for (c = 0; c < 4; c++)
		CU_ASSERT_FALSE(gr_rchan_readable(rc, c));
	CU_ASSERT_EQUAL(h_load(&ring_of(rc, 0)->prod.lost_full), 0);
	gr_relay_close(rc);
	free(want);
}

/* The whole stream read in one go equals what was written, byte for byte */
static void test_stream_equals_writes_byte_for_byte(void)
{
	const u32 per_cpu = 700;
	u8 *want = calloc(1, 64 * 1024);
	struct gr_rchan *rc;
	struct sink s;
	u8 m[80];
	size_t total;
	u32 c, k;

	rc = gr_relay_open("bytes", 4096, 32, 0, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	for (c = 0; c < 4; c++) {
		gr_user_set_cpu(c);
		for (k = 0; k < per_cpu; k++)
			CU_ASSERT_EQUAL(__gr_relay_write(rc, m,
							 make_msg(m, c, k)),
					0);
	}
	gr_user_set_cpu(0);
	gr_rchan_get(rc);	/* as an open relay file does */
	gr_relay_close(rc);	/* close finishes partial sub-buffers */
	for (c = 0; c < 4; c++) {
		total = expect_stream(want, c, 0, per_cpu);
		sink_init(&s, 64 * 1024);
		CU_ASSERT_EQUAL(drain(rc, c, &s, 1000), total);
		CU_ASSERT(memcmp(s.buf, want, total) == 0);
		free(s.buf);
	}
	/* the reader's reference keeps the memory after the close */
	gr_rchan_put(rc);
	free(want);
}

/* ---------------------------------------------------------------------- */
/* Modes                                                                  */

/*
 * No-overwrite (the default): when every sub-buffer is unconsumed, writes
 * fail and are counted; reading frees sub-buffers and writes succeed again.
 */
static void test_no_overwrite_drops_when_full(void)
{
	struct gr_rchan *rc;
	struct sink s;
	u8 m[1000];
	int i, fails = 0;

	memset(m, 0x5a, sizeof(m));
	rc = gr_relay_open("full", 4096, 4, GR_RELAY_GLOBAL, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	/*
	 * 4 per sub-buffer: the 17th message finishes the fourth and finds
	 * no fifth to start
	 */
	for (i = 0; i < 20; i++)
		if (gr_relay_write(rc, m, sizeof(m)) == -ENOSPC)
			fails++;
	CU_ASSERT_EQUAL(fails, 4);
	CU_ASSERT_EQUAL(h_load(&ring_of(rc, 0)->prod.lost_full), 4);
	CU_ASSERT_EQUAL(h_load(&ring_of(rc, 0)->prod.produced), 4);
	sink_init(&s, 64 * 1024);
	CU_ASSERT_EQUAL(drain(rc, 0, &s, 4096), 4 * 4000);
	CU_ASSERT_EQUAL(gr_relay_write(rc, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(h_load(&ring_of(rc, 0)->prod.lost_full), 4);
	free(s.buf);
	gr_relay_close(rc);
}

/*
 * Overwrite: writes never fail; old sub-buffers are restarted unconsumed
 * (counted), and a reader gets the newest finished ones, whole.
 */
/* A global channel of 4 x 4 KiB, @count messages of 1000 bytes i written */
static struct gr_rchan *open_filled(const char *name, unsigned int flags,
				    u32 count)
{
	struct gr_rchan *rc;
	u8 m[1000];
	u32 i;

	rc = gr_relay_open(name, 4096, 4, GR_RELAY_GLOBAL | flags, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	for (i = 0; i < count; i++) {
		memset(m, (u8)i, sizeof(m));
		CU_ASSERT_EQUAL(gr_relay_write(rc, m, sizeof(m)), 0);
	}
	return rc;
}

static void test_overwrite_keeps_newest(void)
{
	struct gr_rchan *rc;
	struct sink s;
	u32 i, first;

	rc = open_filled("flight", GR_RELAY_OVERWRITE, 40);
	/* 40 messages, 4 per sub-buffer: 9 finished, the 10th being written */
	CU_ASSERT_EQUAL(h_load(&ring_of(rc, 0)->prod.produced), 9);
	CU_ASSERT_EQUAL(h_load(&ring_of(rc, 0)->prod.overwritten), 6);
	CU_ASSERT_EQUAL(h_load(&ring_of(rc, 0)->prod.lost_full), 0);
	sink_init(&s, 64 * 1024);
	/* the newest n - 1 finished: numbers 6, 7, 8 = messages 24..35 */
	CU_ASSERT_EQUAL(drain(rc, 0, &s, 4096), 3 * 4000);
	CU_ASSERT_EQUAL(rc->readers[0].lost, 6);
	for (i = 0; i < 12; i++) {
		first = 24 + i;
		CU_ASSERT_EQUAL(s.buf[i * 1000], (u8)first);
		CU_ASSERT_EQUAL(s.buf[i * 1000 + 999], (u8)first);
	}
	free(s.buf);
	gr_relay_close(rc);
}

/*
 * A reader of the mapping (GR_RELAY_GET_SUBBUF / PUT_SUBBUF): the same
 * bytes as read(), sub-buffer by sub-buffer, in both modes; in overwrite
 * mode a sub-buffer restarted while it is copied fails PUT with -ESTALE
 */
static void test_mapping_reader_get_put(void)
{
	struct gr_relay_subbuf sb;
	struct gr_rchan *rc;
	u8 m[1000], *map;
	u64 n = 0;
	u32 i;

	/* no-overwrite: 10 messages of 1000 bytes, 4 per sub-buffer */
	rc = open_filled("mapped", 0, 0);
	CU_ASSERT_EQUAL(gr_rchan_get_subbuf(rc, 0, &sb), -EAGAIN);
	for (i = 0; i < 10; i++) {
		memset(m, (u8)i, sizeof(m));
		CU_ASSERT_EQUAL(gr_relay_write(rc, m, sizeof(m)), 0);
	}
	map = gr_rchan_ring_data(rc, 0);
	/* PUT of another number than the next to consume */
	CU_ASSERT_EQUAL(gr_rchan_put_subbuf(rc, 0, 1), -EINVAL);
	CU_ASSERT_EQUAL(gr_rchan_put_subbuf(rc, 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(gr_rchan_get_subbuf(rc, 1, &sb), -EINVAL);
	while (!gr_rchan_get_subbuf(rc, 0, &sb)) {
		CU_ASSERT_EQUAL(sb.seq, n);
		CU_ASSERT_EQUAL(sb.offset, (n % 4) * 4096);
		CU_ASSERT_EQUAL(sb.bytes, 4000);
		CU_ASSERT_EQUAL(map[sb.offset], (u8)(n * 4));
		CU_ASSERT_EQUAL(map[sb.offset + 3999], (u8)(n * 4 + 3));
		CU_ASSERT_EQUAL(gr_rchan_put_subbuf(rc, 0, sb.seq), 0);
		n++;
	}
	CU_ASSERT_EQUAL(n, 2);		/* the third is being written */
	CU_ASSERT_EQUAL(gr_rchan_put_subbuf(rc, 0, 2), -EINVAL);
	gr_relay_flush(rc);
	CU_ASSERT_EQUAL(gr_rchan_get_subbuf(rc, 0, &sb), 0);
	CU_ASSERT_EQUAL(sb.bytes, 2000);
	CU_ASSERT_EQUAL(gr_rchan_put_subbuf(rc, 0, sb.seq), 0);
	CU_ASSERT_EQUAL(gr_rchan_readable(rc, 0), false);
	gr_relay_close(rc);

	/* overwrite: the newest 3 finished; one restarted while held */
	rc = open_filled("mappedow", GR_RELAY_OVERWRITE, 40);
	map = gr_rchan_ring_data(rc, 0);
	CU_ASSERT_EQUAL_FATAL(gr_rchan_get_subbuf(rc, 0, &sb), 0);
	CU_ASSERT_EQUAL(sb.seq, 6);
	CU_ASSERT_EQUAL(sb.lost, 6);
	CU_ASSERT_EQUAL(map[sb.offset], 24);
	CU_ASSERT_EQUAL(gr_rchan_put_subbuf(rc, 0, sb.seq), 0);
	CU_ASSERT_EQUAL_FATAL(gr_rchan_get_subbuf(rc, 0, &sb), 0);
	CU_ASSERT_EQUAL(sb.seq, 7);
	/* the writer laps the ring while number 7 is held */
	for (i = 0; i < 12; i++)
		CU_ASSERT_EQUAL(gr_relay_write(rc, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(gr_rchan_put_subbuf(rc, 0, 7), -ESTALE);
	CU_ASSERT_EQUAL(rc->readers[0].lost, 7);
	CU_ASSERT_EQUAL_FATAL(gr_rchan_get_subbuf(rc, 0, &sb), 0);
	CU_ASSERT_EQUAL(sb.seq, 9);
	CU_ASSERT_EQUAL(sb.lost, 8);
	gr_relay_close(rc);
}

/* relay's documented subbuf_start: padding of the previous sub-buffer in
 * its reserved header; refuses when full (no-overwrite) */
static int hdr_subbuf_start(struct gr_buf *buf, void *subbuf,
			    void *prev_subbuf, size_t prev_padding)
{
	u32 pad = (u32)prev_padding;

	if (prev_subbuf)
		memcpy(prev_subbuf, &pad, sizeof(pad));
	if (gr_relay_buf_full(buf))
		return 0;
	(void)subbuf;
	gr_relay_subbuf_start_reserve(buf, sizeof(u32));
	return 1;
}

static void test_subbuf_start_header_and_padding(void)
{
	const struct gr_relay_callbacks cb = {
		.subbuf_start = hdr_subbuf_start,
	};
	struct gr_rchan *rc;
	struct sink s;
	u8 m[1500];
	u32 pad;
	int i;

	memset(m, 0xab, sizeof(m));
	rc = gr_relay_open("hdr", 4096, 8, GR_RELAY_GLOBAL, &cb, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	/* 8 (header, rounded up) + 2 * 1500 = 3008: padding 1088 */
	for (i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(gr_relay_write(rc, m, sizeof(m)), 0);
	sink_init(&s, 64 * 1024);
	CU_ASSERT_EQUAL(drain(rc, 0, &s, 100), 2 * 3008);
	memcpy(&pad, s.buf, 4);
	CU_ASSERT_EQUAL(pad, 4096 - 3008);
	memcpy(&pad, s.buf + 3008, 4);
	CU_ASSERT_EQUAL(pad, 4096 - 3008);
	CU_ASSERT_EQUAL(s.buf[8], 0xab);
	CU_ASSERT_EQUAL(s.buf[3007], 0xab);
	/* a message the header leaves no room for is too big */
	CU_ASSERT_EQUAL(gr_relay_write(rc, big, sizeof(big)), -E2BIG);
	CU_ASSERT_EQUAL(h_load(&ring_of(rc, 0)->prod.lost_too_big), 1);
	free(s.buf);
	gr_relay_close(rc);
}

/* ---------------------------------------------------------------------- */
/* reserve, sizes, reset, consumed                                        */

static void test_reserve_sizes_and_errors(void)
{
	struct gr_rchan *rc;
	struct sink s;
	u8 *slot;

	rc = gr_relay_open("rsv", 4096, 4, 0, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	gr_user_set_cpu(2);
	slot = gr_relay_reserve(rc, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
	memcpy(slot, "hello", 5);
	slot = gr_relay_reserve(rc, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
	memcpy(slot, "abc", 3);
	CU_ASSERT_PTR_NULL(gr_relay_reserve(rc, 0));
	CU_ASSERT_PTR_NULL(gr_relay_reserve(rc, 4097));
	CU_ASSERT_EQUAL(gr_relay_write(rc, "x", 0), -EINVAL);
	CU_ASSERT_EQUAL(h_load(&ring_of(rc, 2)->prod.lost_too_big), 1);
	/* a whole sub-buffer is the largest message */
	CU_ASSERT_PTR_NOT_NULL(gr_relay_reserve(rc, 4096));
	gr_user_set_cpu(0);
	gr_relay_flush(rc);
	sink_init(&s, 64 * 1024);
	CU_ASSERT_EQUAL(drain(rc, 2, &s, 4096), 8 + 4096);
	CU_ASSERT(memcmp(s.buf, "helloabc", 8) == 0);
	free(s.buf);
	gr_relay_close(rc);
}

static void test_reset_discards_and_zeroes_counters(void)
{
	struct gr_rchan *rc;
	struct sink s;
	u8 m[1000] = { 0 };
	int i;

	rc = gr_relay_open("rst", 4096, 2, GR_RELAY_GLOBAL, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	for (i = 0; i < 12; i++)
		gr_relay_write(rc, m, sizeof(m));
	CU_ASSERT(h_load(&ring_of(rc, 0)->prod.lost_full) > 0);
	gr_relay_reset(rc);
	CU_ASSERT_EQUAL(h_load(&ring_of(rc, 0)->prod.lost_full), 0);
	CU_ASSERT_FALSE(gr_rchan_readable(rc, 0));
	CU_ASSERT_EQUAL(gr_relay_write(rc, "after", 5), 0);
	gr_relay_flush(rc);
	sink_init(&s, 64 * 1024);
	CU_ASSERT_EQUAL(drain(rc, 0, &s, 4096), 5);
	CU_ASSERT(memcmp(s.buf, "after", 5) == 0);
	free(s.buf);
	gr_relay_close(rc);
}

static void test_subbufs_consumed_by_client(void)
{
	struct gr_rchan *rc;
	u8 m[2048] = { 0 };
	int i;

	rc = gr_relay_open("cons", 4096, 4, GR_RELAY_GLOBAL, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(gr_relay_write(rc, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(gr_relay_write(rc, m, sizeof(m)), -ENOSPC);
	CU_ASSERT_EQUAL(gr_relay_subbufs_consumed(rc, 1, 1), -EINVAL);
	/* capped at the four finished ones */
	CU_ASSERT_EQUAL(gr_relay_subbufs_consumed(rc, 0, 100), 0);
	CU_ASSERT_EQUAL(h_load(&ring_of(rc, 0)->cons.consumed), 4);
	CU_ASSERT_FALSE(gr_rchan_readable(rc, 0));
	CU_ASSERT_EQUAL(gr_relay_write(rc, m, sizeof(m)), 0);
	gr_relay_close(rc);
}

static int private_seen;

static int private_subbuf_start(struct gr_buf *buf, void *subbuf,
				void *prev_subbuf, size_t prev_padding)
{
	(void)subbuf;
	(void)prev_subbuf;
	(void)prev_padding;
	if (gr_relay_buf_private(buf) == &private_seen &&
	    gr_relay_buf_cpu(buf) == 1)
		private_seen++;
	return !gr_relay_buf_full(buf);
}

static void test_callbacks_see_private_data_and_cpu(void)
{
	const struct gr_relay_callbacks cb = {
		.subbuf_start = private_subbuf_start,
	};
	struct gr_rchan *rc;

	private_seen = 0;
	rc = gr_relay_open("priv", 4096, 2, 0, &cb, &private_seen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	/* called for each buffer's first sub-buffer at open */
	CU_ASSERT_EQUAL(private_seen, 1);
	gr_relay_close(rc);
}

/*
 * A hostile consumer (what a host could store once a channel is
 * published, spec C2, C3): any cons.consumed value is ignored unless it
 * lies between the last valid one and produced, counted, and never moves
 * a write out of the channel's memory (AddressSanitizer watches the
 * allocation's edges).
 */
static void test_hostile_consumed_values_are_ignored(void)
{
	static const u64 bad[] = { 1000, UINT64_MAX, 1ULL << 63, 17 };
	struct gr_rchan *rc;
	struct sink s;
	u8 m[80];
	size_t i, len;
	u32 k;

	rc = gr_relay_open("hostile", 4096, 4, GR_RELAY_GLOBAL, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		h_set_consumed(ring_of(rc, 0), bad[i]);
		for (k = 0; k < 500; k++)
			gr_relay_write(rc, m, make_msg(m, 0, k));
	}
	CU_ASSERT(gr_chan_consumed_errors(rc->cl.chan) > 0);
	/* never more finished sub-buffers than the ring holds */
	CU_ASSERT(h_load(&ring_of(rc, 0)->prod.produced) <= 4);
	/* the reader's own consumed takes over again: whole messages */
	h_set_consumed(ring_of(rc, 0), 0);
	sink_init(&s, 64 * 1024);
	drain(rc, 0, &s, 4096);
	for (i = 0; i + 12 <= s.len; i += len) {
		u32 magic, seq;

		memcpy(&magic, s.buf + i, 4);
		memcpy(&seq, s.buf + i + 8, 4);
		CU_ASSERT_EQUAL_FATAL(le32toh(magic), 0x6772636c);
		len = make_msg(m, 0, le32toh(seq));
		CU_ASSERT_FATAL(memcmp(s.buf + i, m, len) == 0);
	}
	CU_ASSERT_EQUAL(i, s.len);
	free(s.buf);
	gr_relay_close(rc);
}

/* ---------------------------------------------------------------------- */
/* klog                                                                   */

static void test_klog_records(void)
{
	struct gr_klog_rec rec[3];
	const char *text[3] = { "first line", "second", "raw\0bytes" };
	const size_t len[3] = { 10, 6, 9 };
	struct gr_rchan *rc;
	struct sink s;
	size_t off = 0;
	u64 last = 0;
	int i;

	rc = gr_rchan_open("klog", 4096, 4, GR_RELAY_GLOBAL, NULL, NULL, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	for (i = 0; i < 3; i++) {
		gr_user_set_cpu(i);
		CU_ASSERT_EQUAL(gr_rchan_klog_write(rc, i == 2 ? GR_KLOG_F_RAW :
						    0, text[i], len[i]), 0);
	}
	gr_user_set_cpu(0);
	CU_ASSERT_EQUAL(gr_rchan_klog_write(rc, 0, big, sizeof(big)), -E2BIG);
	gr_relay_flush(rc);
	sink_init(&s, 4096);
	CU_ASSERT_EQUAL(drain(rc, 0, &s, 7), 3 * 16 + 10 + 6 + 9);
	for (i = 0; i < 3; i++) {
		memcpy(&rec[i], s.buf + off, sizeof(rec[i]));
		off += sizeof(rec[i]);
		CU_ASSERT_EQUAL(le32toh(rec[i].len), len[i]);
		CU_ASSERT_EQUAL(le32toh(rec[i].flags),
				i == 2 ? GR_KLOG_F_RAW : 0);
		CU_ASSERT(le64toh(rec[i].timestamp) >= last);
		last = le64toh(rec[i].timestamp);
		CU_ASSERT(memcmp(s.buf + off, text[i], len[i]) == 0);
		off += len[i];
	}
	free(s.buf);
	gr_relay_close(rc);
}

/* ---------------------------------------------------------------------- */
/* Concurrency: a writer thread per CPU and a reader                      */

#define THREAD_MSGS	20000

struct writer_arg {
	struct gr_rchan *rc;
	u32 cpu;
	u32 written;
};

static void *writer_thread(void *p)
{
	struct writer_arg *a = p;
	u8 m[80];
	u32 k = 0;

	gr_user_set_cpu(a->cpu);
	/* no-overwrite: retry a full buffer, so nothing is lost */
	while (k < THREAD_MSGS) {
		if (gr_relay_write(a->rc, m, make_msg(m, a->cpu, k)) == 0)
			k++;
		else
			sched_yield();
	}
	a->written = k;
	return NULL;
}

static volatile int writers_done;

static void *reader_thread(void *p)
{
	struct gr_rchan *rc = p;
	struct sink *s = calloc(4, sizeof(*s));
	u32 c;
	int last = 0;

	for (c = 0; c < 4; c++)
		sink_init(&s[c], THREAD_MSGS * 80);
	for (;;) {
		int done = __atomic_load_n(&writers_done, __ATOMIC_ACQUIRE);

		for (c = 0; c < 4; c++)
			while (gr_rchan_read(rc, c, 3000, sink_copy, &s[c]) > 0)
				;
		if (last)
			break;
		last = done;
		sched_yield();
	}
	return s;
}

static void test_concurrent_writers_and_reader(void)
{
	struct writer_arg a[4];
	pthread_t w[4], r;
	struct gr_rchan *rc;
	struct sink *s;
	u8 *want = calloc(1, THREAD_MSGS * 80);
	size_t total;
	u32 c;

	rc = gr_relay_open("threads", 4096, 8, 0, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	writers_done = 0;
	CU_ASSERT_FATAL(pthread_create(&r, NULL, reader_thread, rc) == 0);
	for (c = 0; c < 4; c++) {
		a[c] = (struct writer_arg){ .rc = rc, .cpu = c };
		CU_ASSERT_FATAL(pthread_create(&w[c], NULL, writer_thread,
					       &a[c]) == 0);
	}
	for (c = 0; c < 4; c++)
		pthread_join(w[c], NULL);
	gr_user_set_cpu(0);
	gr_rchan_get(rc);	/* the reader's, as an open relay file's */
	gr_relay_close(rc);	/* finishes the partial sub-buffers */
	__atomic_store_n(&writers_done, 1, __ATOMIC_RELEASE);
	pthread_join(r, (void **)&s);
	for (c = 0; c < 4; c++) {
		total = expect_stream(want, c, 0, THREAD_MSGS);
		CU_ASSERT_EQUAL(s[c].len, total);
		CU_ASSERT(memcmp(s[c].buf, want, total) == 0);
		free(s[c].buf);
	}
	free(s);
	gr_rchan_put(rc);
	free(want);
}

/* ---------------------------------------------------------------------- */

static const struct gr_test tests[] = {
	GR_TEST(test_open_checks_names_sizes_and_flags),
	GR_TEST(test_names_unique_and_at_most_sixteen),
	GR_TEST(test_messages_per_cpu_read_without_padding),
	GR_TEST(test_stream_equals_writes_byte_for_byte),
	GR_TEST(test_no_overwrite_drops_when_full),
	GR_TEST(test_overwrite_keeps_newest),
	GR_TEST(test_mapping_reader_get_put),
	GR_TEST(test_subbuf_start_header_and_padding),
	GR_TEST(test_reserve_sizes_and_errors),
	GR_TEST(test_reset_discards_and_zeroes_counters),
	GR_TEST(test_subbufs_consumed_by_client),
	GR_TEST(test_callbacks_see_private_data_and_cpu),
	GR_TEST(test_hostile_consumed_values_are_ignored),
	GR_TEST(test_klog_records),
	GR_TEST(test_concurrent_writers_and_reader),
};

int main(void)
{
	/* a test that loops forever is a failure, not a hang */
	alarm(600);
	return gr_test_main("relay_api", tests, ARRAY_SIZE(tests), NULL,
			    NULL);
}
