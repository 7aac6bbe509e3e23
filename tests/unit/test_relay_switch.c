// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the sub-buffer switch of the relay core (gr_relay.c): opening,
 * messages that fill or overflow a sub-buffer, padding, stream and flight
 * modes, flush, reset, close, and the client API's buffer-only channels
 * (gr_relay_client.c), built in
 * userspace through tests/shim/gr_user_env.h. Every test uses the real
 * core over a real mmap'd region framed by guard bytes
 * (relay_fixture.c); the test itself plays the host (reads produced and
 * commit records, writes consumed and prod_event) and, with threads, the
 * CPUs.
 */
#include "relay_fixture.h"

/* ---------------------------------------------------------------------- */
/* Opening, switching, padding                                            */

static void test_open_calls_subbuf_start_with_null_prev(void)
{
	struct fixture f;
	struct gr_packet_header *ph;
	u32 ring, slot;

	fixture_open(&f, 2, false, 4096, 4);
	CU_ASSERT_EQUAL(f.log.nr_calls, 2);
	for (ring = 0; ring < 2; ring++) {
		struct sb_call *c = &f.log.calls[ring];

		CU_ASSERT_EQUAL(c->ring, ring);
		CU_ASSERT_PTR_NULL(c->prev);
		CU_ASSERT_EQUAL(c->padding, 0);
		CU_ASSERT_PTR_EQUAL(c->subbuf, f_subbuf(&f, ring, 0));
		CU_ASSERT_EQUAL(c->ret, 1);
		ph = f_hdr(&f, ring, 0);
		CU_ASSERT_EQUAL(le32toh(ph->magic), GR_CTF_MAGIC);
		CU_ASSERT_EQUAL(le32toh(ph->stream_id), 0);
		CU_ASSERT_EQUAL(le64toh(ph->stream_instance_id), ring);
		CU_ASSERT_EQUAL(le32toh(ph->cpu_id), ring);
		CU_ASSERT_EQUAL(le64toh(ph->packet_size), 4096 * 8);
		CU_ASSERT_EQUAL(le64toh(ph->packet_seq_num), 0);
		CU_ASSERT_EQUAL(le64toh(ph->content_size), HDR * 8);
		CU_ASSERT(le64toh(ph->timestamp_begin) > 0);
		for (slot = 0; slot < 4; slot++)
			CU_ASSERT_EQUAL(h_seq(f_rec(&f, ring, slot)),
					GR_SEQ_BUSY);
		CU_ASSERT_EQUAL(h_produced(f_ring(&f, ring)), 0);
		CU_ASSERT_EQUAL(le32toh(f_ring(&f, ring)->prod.flags),
				GR_RING_F_ONLINE);
		CU_ASSERT_EQUAL(f.chan->bufs[ring].offset, HDR);
	}
	fixture_close(&f);
}

static void test_open_continues_counters_from_consumed(void)
{
	struct fixture f;
	struct gr_packet_header *ph;
	const u64 near_wrap = UINT64_MAX - 1;
	int i;

	fixture_prepare(&f, 2, false, 4096, 4);
	h_set_consumed(f_ring(&f, 0), 1001);
	h_set_consumed(f_ring(&f, 1), near_wrap);
	fixture_open_chan(&f);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1001);
	CU_ASSERT_PTR_EQUAL(f.log.calls[0].subbuf, f_subbuf(&f, 0, 1001 % 4));
	ph = f_hdr(&f, 0, 1001 % 4);
	CU_ASSERT_EQUAL(le64toh(ph->packet_seq_num), 1001);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), near_wrap);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 1, 2)->packet_seq_num), near_wrap);

	/* ring 1 finishes sub-buffer 2^64 - 2; the next one is 2^64 - 1 */
	gr_user_set_cpu(1);
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), UINT64_MAX);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 1, 2)), near_wrap);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 1, 3)->packet_seq_num), UINT64_MAX);
	fixture_close(&f);
}

static void test_message_exactly_filling_subbuf(void)
{
	struct fixture f;
	struct sb_call *c;

	fixture_open(&f, 2, false, 4096, 4);
	/* 4096 - 72 = 4024 bytes: the sub-buffer is exactly full */
	CU_ASSERT_EQUAL(write_msg(f.chan, 4024, 7), 0);
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, 4096);
	CU_ASSERT_EQUAL(f.log.nr_calls, 2);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	/* the next message switches, with no padding */
	CU_ASSERT_EQUAL(write_msg(f.chan, 8, 8), 0);
	CU_ASSERT_EQUAL(f.log.nr_calls, 3);
	c = last_call(&f.log);
	CU_ASSERT_PTR_EQUAL(c->prev, f_subbuf(&f, 0, 0));
	CU_ASSERT_PTR_EQUAL(c->subbuf, f_subbuf(&f, 0, 1));
	CU_ASSERT_EQUAL(c->padding, 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), 0);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 0)->bytes), 4096);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 0)->content_size), 4096 * 8);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR, 4024, 7));
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 1) + HDR, 8, 8));
	/* a write stores nothing in the ring's prod half (spec 6.4) */
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 0);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 2);
	fixture_close(&f);
}

static void test_message_larger_than_subbuf_is_rejected(void)
{
	struct fixture f;
	static u8 payload[4096];

	fixture_open(&f, 2, false, 4096, 4);
	CU_ASSERT_EQUAL(write_msg(f.chan, 4025, 1), -E2BIG);
	CU_ASSERT_EQUAL(write_msg(f.chan, 65536, 1), -E2BIG);
	CU_ASSERT_EQUAL(write_msg(f.chan, 0, 1), -EINVAL);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_too_big), 2);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 0);
	CU_ASSERT_EQUAL(f.log.nr_calls, 2);
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, HDR);
	/* event records: 16 header bytes + at most 4008 payload bytes */
	CU_ASSERT_EQUAL(gr_event_write(f.chan, EV_TEST, payload, 4009),
			-E2BIG);
	CU_ASSERT_EQUAL(gr_event_write(f.chan, EV_TEST, payload,
				       (size_t)-1), -E2BIG);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_too_big), 4);
	CU_ASSERT_EQUAL(gr_event_write(f.chan, EV_TEST, payload, 4008), 0);
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, 4096);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 1);
	/* lost events show in the next packet's events_discarded */
	CU_ASSERT_EQUAL(write_msg(f.chan, 8, 1), 0);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 0)->events_discarded), 4);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 1)->events_discarded), 4);
	fixture_close(&f);
}

static void test_padding_passed_to_subbuf_start_and_content_size(void)
{
	struct fixture f;
	struct gr_packet_header *ph;
	struct sb_call *c;
	int i;

	fixture_open(&f, 2, false, 4096, 4);
	/* 72 + 4 * 1000 = 4072: the fifth message leaves 24 bytes */
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	c = last_call(&f.log);
	CU_ASSERT_PTR_EQUAL(c->prev, f_subbuf(&f, 0, 0));
	CU_ASSERT_EQUAL(c->padding, 24);
	ph = f_hdr(&f, 0, 0);
	CU_ASSERT_EQUAL(le64toh(ph->content_size), 4072 * 8);
	CU_ASSERT_EQUAL(le64toh(ph->packet_size), 4096 * 8);
	CU_ASSERT(le64toh(ph->timestamp_begin) <= le64toh(ph->timestamp_end));
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 0)->bytes), 4072);
	/* spec 3.8, G40: the last record starts 1000 bytes before the end */
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 0)->last_record), 3072);
	for (i = 0; i < 4; i++)
		CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR + i * 1000,
					1000, i));
	/* 1201 bytes take 1208: two fit after message 4, 608 bytes pad */
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1201, 10 + i), 0);
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, HDR + 1000 + 2 * 1208);
	CU_ASSERT_EQUAL(write_msg(f.chan, 1201, 12), 0);
	c = last_call(&f.log);
	CU_ASSERT_PTR_EQUAL(c->prev, f_subbuf(&f, 0, 1));
	CU_ASSERT_EQUAL(c->padding, 608);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 1)->bytes), 4096 - 608);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 1)->last_record),
			HDR + 1000 + 1208);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 1)->content_size),
			(4096 - 608) * 8);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 1) + HDR + 1000 + 1208,
				1201, 11));
	/* the record's tail padding is zero */
	CU_ASSERT_EQUAL(*(f_subbuf(&f, 0, 1) + HDR + 1000 + 1208 + 1201), 0);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 2) + HDR, 1201, 12));
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- */
/* Modes                                                                  */

static void test_stream_full_drops_counts_and_resumes_after_consumed(void)
{
	struct fixture f;
	struct gr_buf *buf;
	struct sb_call *c;
	u32 calls;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	buf = &f.chan->bufs[0];
	CU_ASSERT_EQUAL(f_state(&f, 0, 0), GR_SUBBUF_BEING_WRITTEN);
	CU_ASSERT_EQUAL(f_state(&f, 0, 1), GR_SUBBUF_FREE);
	/* four sub-buffers of four messages */
	for (i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 3);
	/* the 17th finishes sub-buffer 3; sub-buffer 4 would overwrite 0 */
	CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 16), -ENOSPC);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 4);
	for (i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, i)), (u64)i);
		/* every slot PRODUCED: none BEING_WRITTEN, none FREE */
		CU_ASSERT_EQUAL(f_state(&f, 0, i), GR_SUBBUF_PRODUCED);
	}
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 1);
	CU_ASSERT(gr_buf_full(buf));
	c = last_call(&f.log);
	CU_ASSERT_EQUAL(c->ret, 0);
	/*
	 * No GR_VEC_CONSUMED is asked for (spec 8.3): cons_event stays at
	 * consumed - 1, a value consumed has passed; the guest's handler
	 * would only count the interrupt
	 */
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.cons_event), UINT64_MAX);

	/* every later write retries the switch once, and fails */
	for (i = 0; i < 3; i++) {
		calls = f.log.nr_calls;
		CU_ASSERT_EQUAL(write_msg(f.chan, 8, 100 + i), -ENOSPC);
		CU_ASSERT_EQUAL(f.log.nr_calls, calls + 1);
		c = last_call(&f.log);
		CU_ASSERT_PTR_NULL(c->prev);
		CU_ASSERT_PTR_EQUAL(c->subbuf, f_subbuf(&f, 0, 0));
		CU_ASSERT_EQUAL(c->ret, 0);
	}
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 4);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 4);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), 0);

	/* the host consumes sub-buffer 0: writing resumes into slot 0 */
	h_set_consumed(f_ring(&f, 0), 1);
	CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 200), 0);
	c = last_call(&f.log);
	CU_ASSERT_EQUAL(c->ret, 1);
	CU_ASSERT_PTR_EQUAL(c->subbuf, f_subbuf(&f, 0, 0));
	CU_ASSERT_EQUAL(buf->consumed, 1);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), GR_SEQ_BUSY);
	CU_ASSERT_EQUAL(f_state(&f, 0, 0), GR_SUBBUF_BEING_WRITTEN);
	for (i = 1; i < 4; i++)
		CU_ASSERT_EQUAL(f_state(&f, 0, i), GR_SUBBUF_PRODUCED);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 0)->packet_seq_num), 4);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 0)->events_discarded), 4);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR, 1000, 200));
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 4);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.overwritten), 0);
	CU_ASSERT_EQUAL(gr_chan_consumed_errors(f.chan), 0);
	CU_ASSERT_FALSE(gr_buf_full(buf));
	fixture_close(&f);
}

static void test_flight_overwrites_oldest_and_counts(void)
{
	struct fixture f;
	u32 slot;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	CU_ASSERT_EQUAL(gr_chan_set_mode(f.chan, GR_MODE_FLIGHT), 0);
	/* 41 messages, 4 per sub-buffer: 10 switches, never a drop */
	for (i = 0; i < 41; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 10);
	/* switches that produced 4..10 reused an unconsumed sub-buffer */
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.overwritten), 7);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 0);
	/* the n most recent: 7, 8, 9 finished and 10 being filled */
	for (slot = 0; slot < 4; slot++) {
		u64 k = slot == 3 ? 7 : 8 + slot;
		u64 seq = h_seq(f_rec(&f, 0, slot));

		CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, slot)->packet_seq_num), k);
		CU_ASSERT_EQUAL(seq, k == 10 ? GR_SEQ_BUSY : k);
		CU_ASSERT(check_pattern(f_subbuf(&f, 0, slot) + HDR, 1000,
					k * 4));
	}
	/* back to stream mode at runtime: the ring is full, writes drop */
	CU_ASSERT_EQUAL(gr_chan_set_mode(f.chan, GR_MODE_STREAM), 0);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 41 + i), 0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 44), -ENOSPC);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 11);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 1);
	/* and to flight again: the next write overwrites */
	CU_ASSERT_EQUAL(gr_chan_set_mode(f.chan, GR_MODE_FLIGHT), 0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 45), 0);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.overwritten), 8);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 11 % 4)->packet_seq_num), 11);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- */
/* Flush, reset, close                                                    */

static void test_flush_delivers_partly_filled_subbuf(void)
{
	struct fixture f;
	struct gr_packet_header *ph;
	struct sb_call *c;

	fixture_open(&f, 2, false, 4096, 4);
	CU_ASSERT_EQUAL(write_msg(f.chan, 100, 3), 0);
	gr_chan_flush(f.chan);
	/* ring 1 was empty: only ring 0 switched */
	CU_ASSERT_EQUAL(f.log.nr_calls, 3);
	c = last_call(&f.log);
	CU_ASSERT_EQUAL(c->ring, 0);
	CU_ASSERT_EQUAL(c->padding, 4096 - (HDR + 104));
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), 0);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), 0);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 0)->bytes), HDR + 104);
	ph = f_hdr(&f, 0, 0);
	CU_ASSERT_EQUAL(le64toh(ph->content_size), (HDR + 104) * 8);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR, 100, 3));
	/* the 4 bytes of record padding are zero */
	CU_ASSERT_EQUAL(*(u32 *)(f_subbuf(&f, 0, 0) + HDR + 100), 0);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 1)), GR_SEQ_BUSY);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 1)->packet_seq_num), 1);
	fixture_close(&f);
}

static void test_flush_of_empty_subbuf_delivers_nothing(void)
{
	struct fixture f;

	fixture_open(&f, 2, false, 4096, 4);
	gr_chan_flush(f.chan);
	CU_ASSERT_EQUAL(f.log.nr_calls, 2);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), GR_SEQ_BUSY);
	CU_ASSERT_EQUAL(write_msg(f.chan, 8, 1), 0);
	gr_chan_flush(f.chan);
	gr_chan_flush(f.chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(f.log.nr_calls, 3);
	CU_ASSERT_EQUAL(gr_chan_flush_this_cpu(f.chan), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	fixture_close(&f);
}

static void test_flush_this_cpu_flushes_only_its_ring(void)
{
	struct fixture f;

	fixture_open(&f, 2, false, 4096, 4);
	gr_user_set_cpu(0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 16, 1), 0);
	gr_user_set_cpu(1);
	CU_ASSERT_EQUAL(write_msg(f.chan, 16, 2), 0);
	CU_ASSERT_EQUAL(gr_chan_flush_this_cpu(f.chan), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), 1);
	CU_ASSERT(check_pattern(f_subbuf(&f, 1, 0) + HDR, 16, 2));
	fixture_close(&f);
}

static void test_reset_discards_current_and_zeroes_lost_counters(void)
{
	struct fixture f;
	struct sb_call *c;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	/* one produced sub-buffer, two messages in the current one */
	for (i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 5000, 0), -E2BIG);
	gr_chan_set_mode(f.chan, GR_MODE_FLIGHT);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_too_big), 1);
	gr_chan_reset(f.chan);
	c = last_call(&f.log);
	CU_ASSERT_PTR_NULL(c->prev);
	CU_ASSERT_PTR_EQUAL(c->subbuf, f_subbuf(&f, 0, 1));
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, HDR);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_too_big), 0);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.overwritten), 0);
	/* what was produced stays the host's */
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), 0);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 1)), GR_SEQ_BUSY);
	/* the restarted sub-buffer holds only what comes after the reset */
	CU_ASSERT_EQUAL(write_msg(f.chan, 40, 99), 0);
	gr_chan_flush(f.chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 2);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 1)->bytes), HDR + 40);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 1)->packet_seq_num), 1);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 1) + HDR, 40, 99));
	/* CTF's events_discarded never goes back */
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 1)->events_discarded), 1);
	fixture_close(&f);
}

static void test_reset_of_waiting_ring_retries_switch(void)
{
	struct fixture f;
	int i;

	fixture_open(&f, 1, false, 4096, 2);
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 8), -ENOSPC);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 1);
	gr_chan_reset(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 0);
	CU_ASSERT_EQUAL(last_call(&f.log)->ret, 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 2);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), 0);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 1)), 1);
	CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 9), -ENOSPC);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 1);
	fixture_close(&f);
}

static void test_close_flushes_and_marks_offline(void)
{
	struct fixture f;

	fixture_open(&f, 2, false, 4096, 4);
	CU_ASSERT_EQUAL(write_msg(f.chan, 300, 5), 0);
	CU_ASSERT_EQUAL(gr_chan_set_online(f.chan, 1, false), 0);
	CU_ASSERT_EQUAL(le32toh(f_ring(&f, 1)->prod.flags), 0);
	CU_ASSERT_EQUAL(gr_chan_set_online(f.chan, 1, true), 0);
	gr_chan_close(f.chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), 0);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 0)->bytes), HDR + 304);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR, 300, 5));
	CU_ASSERT_EQUAL(le32toh(f_ring(&f, 0)->prod.flags), 0);
	CU_ASSERT_EQUAL(le32toh(f_ring(&f, 1)->prod.flags), 0);
	region_close(&f.region);
}

/* ---------------------------------------------------------------------- */
/* The client API: attach notifications, buffer-only channels             */

static void test_client_close_unmaps_once(void)
{
	struct fixture f;
	struct gr_client cl;

	fixture_prepare(&f, 2, false, 4096, 4);
	CU_ASSERT_FATAL(gr_client_open(&cl, f.region.base, &f.lay,
				       &log_callbacks, &log_client_callbacks,
				       &f.log) == 0);
	gr_buf_mapped(&cl);
	gr_buf_mapped(&cl);
	CU_ASSERT_EQUAL(f.log.mapped, 2);
	CU_ASSERT_EQUAL(write_msg(cl.chan, 300, 5), 0);
	gr_client_close(&cl);
	CU_ASSERT_EQUAL(f.log.unmapped, 2);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR, 300, 5));
	region_close(&f.region);

	/* detached before close: no second buf_unmapped */
	fixture_prepare(&f, 1, false, 4096, 4);
	CU_ASSERT_FATAL(gr_client_open(&cl, f.region.base, &f.lay,
				       &log_callbacks, &log_client_callbacks,
				       &f.log) == 0);
	gr_buf_mapped(&cl);
	gr_buf_unmapped(&cl);
	gr_buf_unmapped(&cl);
	CU_ASSERT_EQUAL(f.log.unmapped, 1);
	gr_client_close(&cl);
	CU_ASSERT_EQUAL(f.log.unmapped, 1);
	region_close(&f.region);
}

static void test_buffer_only_channel_late_setup_keeps_data(void)
{
	struct fixture f;
	struct gr_client cl;
	struct gr_chan *chan;
	u8 zero[4096] = { 0 };
	u32 slot;
	int i;

	fixture_prepare(&f, 2, false, 4096, 4);
	CU_ASSERT_FATAL(gr_client_open(&cl, NULL, &f.lay, &log_callbacks,
				       NULL, &f.log) == 0);
	chan = cl.chan;
	/* ring 0: two produced sub-buffers and two messages being filled */
	for (i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(write_msg(chan, 1000, i), 0);
	gr_user_set_cpu(1);
	CU_ASSERT_EQUAL(write_msg(chan, 24, 77), 0);
	gr_user_set_cpu(0);
	/* nothing reached the region yet */
	for (i = 0; i < (int)(f.lay.data_offset / sizeof(zero)); i++)
		CU_ASSERT(!memcmp(f.region.base + i * sizeof(zero), zero,
				  sizeof(zero)));
	CU_ASSERT(!memcmp(f_subbuf(&f, 0, 0), zero, sizeof(zero)));

	/* the region's counters are at 1001 (a previous instance) */
	h_set_consumed(f_ring(&f, 0), 1001);
	CU_ASSERT_EQUAL(gr_client_late_setup(&cl, f.region.base), 0);
	CU_ASSERT_EQUAL(gr_client_late_setup(&cl, f.region.base), -EINVAL);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1003);
	CU_ASSERT_EQUAL(le32toh(f_ring(&f, 0)->prod.flags), GR_RING_F_ONLINE);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 10);
	for (i = 0; i < 2; i++) {
		slot = (1001 + i) % 4;
		CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, slot)), 1001 + (u64)i);
		CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, slot)->bytes), 4072);
		CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, slot)->packet_seq_num),
				1001 + (u64)i);
		CU_ASSERT(check_pattern(f_subbuf(&f, 0, slot) + HDR + 1000,
					1000, i * 4 + 1));
	}
	slot = 1003 % 4;
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, slot)), GR_SEQ_BUSY);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 1000 % 4)), GR_SEQ_BUSY);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, slot)->packet_seq_num), 1003);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, slot) + HDR + 1000, 1000, 9));
	/* writers continue in the region */
	CU_ASSERT_EQUAL(write_msg(chan, 1000, 10), 0);
	gr_chan_flush(chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1004);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, slot)), 1003);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, slot)->bytes), HDR + 3000);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, slot) + HDR, 1000, 8));
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, slot) + HDR + 2000, 1000, 10));
	/* ring 1 kept its counters at 0 and its message */
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), 1);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 1, 0)->bytes), HDR + 24);
	CU_ASSERT(check_pattern(f_subbuf(&f, 1, 0) + HDR, 24, 77));
	gr_client_close(&cl);
	region_close(&f.region);
}

static void test_buffer_only_channel_closed_without_setup(void)
{
	struct gr_layout lay;
	struct gr_client cl;
	int i;

	gr_user_set_cpu(0);
	make_layout(&lay, 2, false, 4096, 4);
	CU_ASSERT_FATAL(gr_client_open(&cl, NULL, &lay, NULL, NULL,
				       NULL) == 0);
	for (i = 0; i < 50; i++)
		gr_chan_write(cl.chan, "x", 1);
	CU_ASSERT_EQUAL(gr_client_late_setup(&cl, NULL), -EINVAL);
	gr_client_close(&cl);
}

/* ---------------------------------------------------------------------- */

static const struct gr_test tests[] = {
	GR_TEST(test_open_calls_subbuf_start_with_null_prev),
	GR_TEST(test_open_continues_counters_from_consumed),
	GR_TEST(test_message_exactly_filling_subbuf),
	GR_TEST(test_message_larger_than_subbuf_is_rejected),
	GR_TEST(test_padding_passed_to_subbuf_start_and_content_size),
	GR_TEST(test_stream_full_drops_counts_and_resumes_after_consumed),
	GR_TEST(test_flight_overwrites_oldest_and_counts),
	GR_TEST(test_flush_delivers_partly_filled_subbuf),
	GR_TEST(test_flush_of_empty_subbuf_delivers_nothing),
	GR_TEST(test_flush_this_cpu_flushes_only_its_ring),
	GR_TEST(test_reset_discards_current_and_zeroes_lost_counters),
	GR_TEST(test_reset_of_waiting_ring_retries_switch),
	GR_TEST(test_close_flushes_and_marks_offline),
	GR_TEST(test_client_close_unmaps_once),
	GR_TEST(test_buffer_only_channel_late_setup_keeps_data),
	GR_TEST(test_buffer_only_channel_closed_without_setup),
};

int main(void)
{
	/* a test that loops forever is a failure, not a hang */
	alarm(600);
	return gr_test_main("relay_switch", tests, GR_ARRAY_SIZE(tests), NULL, NULL);
}
