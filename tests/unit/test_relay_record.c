// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of event records and the record API (gr_record.[ch]): record
 * headers, the switch's shared timestamp, in-place writes, filter and
 * follow dispatch, the panic flush, the global ring and the nesting
 * guard, built in
 * userspace through tests/shim/gr_user_env.h. Every test uses the real
 * core over a real mmap'd region framed by guard bytes
 * (relay_fixture.c); the test itself plays the host (reads produced and
 * commit records, writes consumed and prod_event) and, with threads, the
 * CPUs.
 */
#include <sched.h>

#include "relay_fixture.h"

/* ---------------------------------------------------------------------- */
/* Writing interfaces                                                     */

static void test_event_record_header_fields(void)
{
	struct fixture f;
	struct gr_event_header *eh;
	u8 payload[13];
	u8 *rec;
	u64 t0, t1;

	fixture_open(&f, 1, false, 4096, 4);
	fill_pattern(payload, sizeof(payload), 42);
	t0 = gr_clock();
	CU_ASSERT_EQUAL(gr_event_write(f.chan, 9, payload, sizeof(payload)),
			0);
	t1 = gr_clock();
	rec = f_subbuf(&f, 0, 0) + HDR;
	eh = (struct gr_event_header *)rec;
	CU_ASSERT_EQUAL(le16toh(eh->id), 9);
	CU_ASSERT_EQUAL(le16toh(eh->size), 32);
	CU_ASSERT_EQUAL(le32toh(eh->tid), (u32)gettid());
	CU_ASSERT(le64toh(eh->timestamp) >= t0);
	CU_ASSERT(le64toh(eh->timestamp) <= t1);
	CU_ASSERT(check_pattern(rec + 16, 13, 42));
	CU_ASSERT_EQUAL(rec[29], 0);
	CU_ASSERT_EQUAL(rec[30], 0);
	CU_ASSERT_EQUAL(rec[31], 0);
	/* an event without payload is just its header */
	CU_ASSERT_EQUAL(gr_event_write(f.chan, 3, NULL, 0), 0);
	eh = (struct gr_event_header *)(rec + 32);
	CU_ASSERT_EQUAL(le16toh(eh->size), 16);
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, HDR + 48);
	/* the timestamps of a packet lie within its begin and end */
	gr_chan_flush(f.chan);
	CU_ASSERT(le64toh(f_hdr(&f, 0, 0)->timestamp_begin) <=
		  le64toh(((struct gr_event_header *)rec)->timestamp));
	CU_ASSERT(le64toh(f_hdr(&f, 0, 0)->timestamp_end) >=
		  le64toh(eh->timestamp));
	fixture_close(&f);
}

/* Spec 6.9: a write that switches reads the clock once; that T ends the
 * old packet, begins the new one and stamps the record. */
static void test_switch_shares_write_timestamp(void)
{
	struct fixture f;
	struct gr_event_header *eh;
	u8 payload[1000];
	size_t prev;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	fill_pattern(payload, sizeof(payload), 7);
	for (i = 0; i < 10; i++) {
		prev = f.chan->bufs[0].offset;
		CU_ASSERT_EQUAL(gr_event_write(f.chan, 9, payload,
					       sizeof(payload)), 0);
		if (f.chan->bufs[0].offset < prev)
			break;
	}
	CU_ASSERT(i < 10);
	eh = (struct gr_event_header *)(f_subbuf(&f, 0, 1) + HDR);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 0)->timestamp_end),
			le64toh(eh->timestamp));
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 1)->timestamp_begin),
			le64toh(eh->timestamp));
	fixture_close(&f);
}

static void test_probe_writes_record_in_place(void)
{
	struct fixture f;
	struct test_payload *p;
	struct gr_event_header *eh;
	struct gr_buf *buf;
	unsigned long flags;

	fixture_open(&f, 2, false, 4096, 4);
	gr_user_set_cpu(1);
	local_irq_save(flags);
	buf = gr_buf_enter(f.chan);
	CU_ASSERT_PTR_EQUAL_FATAL(buf, &f.chan->bufs[1]);
	p = gr_event_reserve(buf, EV_TEST, sizeof(*p));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->writer = htole32(1);
	p->pad = 0;
	p->seq = htole64(0x1122334455667788ULL);
	gr_buf_exit(buf);
	local_irq_restore(flags);
	eh = (struct gr_event_header *)(f_subbuf(&f, 1, 0) + HDR);
	CU_ASSERT_PTR_EQUAL((void *)(eh + 1), (void *)p);
	CU_ASSERT_EQUAL(le16toh(eh->size), 32);
	CU_ASSERT_EQUAL(le64toh(p->seq), 0x1122334455667788ULL);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 1)->prod.events), 1);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 0);
	fixture_close(&f);
}

/* A filter on EV_TEST at slot 3 keeping records whose seq is odd */
static void odd_seq_filter(struct gr_filter_set *set)
{
	struct gr_filter_bounds b = { 16, 16 };
	struct gr_filter_prog *prog = &set->progs[0];
	struct gr_filter_err err;

	memset(set, 0, sizeof(*set));
	memset(set->slot_of, GR_FILTER_NONE, sizeof(set->slot_of));
	set->nr_progs = 1;
	set->slot_of[EV_TEST] = 0;
	prog->event_id = EV_TEST;
	prog->slot = 3;
	prog->nr_insns = 4;
	prog->ops[0] = (struct gr_filter_op){ .code = GR_FI_LD, .width = 8,
					      .off = 8 };
	prog->ops[1] = (struct gr_filter_op){ .code = GR_FI_JSET, .jf = 1,
					      .k = 1 };
	prog->ops[2] = (struct gr_filter_op){ .code = GR_FI_RET, .k = 1 };
	prog->ops[3] = (struct gr_filter_op){ .code = GR_FI_RET, .k = 0 };
	CU_ASSERT_EQUAL_FATAL(gr_filter_verify(prog, &b, &err), 0);
}

/* A record of EV_TEST naming @writer as its second task */
static void rec_write_writer(u64 seq, u32 writer)
{
	struct test_payload *p;
	struct gr_rec rec;

	p = gr_rec_begin(&rec, EV_TEST, sizeof(*p));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->writer = htole32(writer);
	p->pad = 0;
	p->seq = htole64(seq);
	gr_rec_commit(&rec);
}

static void rec_write(u64 seq)
{
	rec_write_writer(seq, 0);
}

/*
 * Spec 14.5: a record a filter rejects is taken back before the commit:
 * the ring holds exactly the accepted records, back to back, events
 * counts only them, the slot's filtered count the others, and a record
 * taken back right after the switch it caused leaves an empty sub-buffer
 * that a flush does not deliver.
 */
static void test_record_api_filter_takes_back(void)
{
	u64 enable[GR_WIDE_MAX_EVENTS / 64] = { 0 };
	static struct gr_filter_set set;
	struct gr_event_header *eh;
	struct test_payload *p;
	struct gr_buf *buf;
	struct fixture f;
	u64 want = 1, seq;
	u32 slot, off, end;

	fixture_open(&f, 1, false, 4096, 4);
	buf = &f.chan->bufs[0];
	gr_user_set_cpu(0);
	enable[0] = 1ULL << EV_TEST;
	gr_rec_set_events(enable);
	gr_rec_activate(f.chan);
	odd_seq_filter(&set);
	CU_ASSERT_PTR_NULL(gr_rec_set_filters(&set));
	CU_ASSERT(gr_event_filtered(EV_TEST));
	CU_ASSERT(!gr_event_filtered(EV_TEST + 1));

	for (seq = 0; seq < 200; seq++)
		rec_write(seq);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 100);
	CU_ASSERT_EQUAL(gr_chan_filtered(f.chan, 3), 100);
	CU_ASSERT_EQUAL(gr_chan_filtered(f.chan, 0), 0);
	CU_ASSERT_EQUAL(gr_chan_filtered(f.chan, GR_FILTER_SLOTS), 0);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 0);

	/* Fill the sub-buffer, then a rejected record switches and leaves */
	while (buf->offset + 32 <= buf->subbuf_size)
		rec_write(seq++ | 1);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	rec_write(seq++ & ~1ULL);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(buf->offset, buf->hdr_reserved);
	CU_ASSERT_EQUAL(gr_rec_flush_this_cpu(), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	/* spec G40: the packet's last record, whatever was taken back after */
	end = le32toh(f_rec(&f, 0, 0)->bytes);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 0)->last_record), end - 32);
	CU_ASSERT_PTR_NULL(buf->last_record);
	/* the last record taken back: the one before is not known, 0 */
	rec_write(seq++ | 1);
	CU_ASSERT_PTR_EQUAL(buf->last_record, buf->start + HDR);
	rec_write(seq++ & ~1ULL);
	CU_ASSERT_PTR_NULL(buf->last_record);
	CU_ASSERT_EQUAL(gr_rec_flush_this_cpu(), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 2);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 1)->bytes), HDR + 32);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 1)->last_record), 0);

	/* Every record of the packet is accepted, in order */
	for (slot = 0; slot < 1; slot++) {
		end = (u32)(le64toh(f_hdr(&f, 0, slot)->content_size) / 8);
		for (off = HDR; off < end; off += 32) {
			eh = (struct gr_event_header *)(f_subbuf(&f, 0, slot) +
							off);
			p = (struct test_payload *)(eh + 1);
			CU_ASSERT_EQUAL(le16toh(eh->size), 32);
			CU_ASSERT_EQUAL(le64toh(p->seq) & 1, 1);
			if (le64toh(p->seq) < 200) {
				CU_ASSERT_EQUAL(le64toh(p->seq), want);
				want += 2;
			}
		}
	}
	CU_ASSERT_EQUAL(want, 201);

	/* No set: nothing is filtered any more */
	CU_ASSERT_PTR_EQUAL(gr_rec_set_filters(NULL), &set);
	CU_ASSERT(!gr_event_filtered(EV_TEST));
	off = (u32)buf->offset;
	rec_write(2);
	CU_ASSERT_EQUAL(buf->offset, off + 32);
	gr_rec_deactivate();
	gr_rec_set_events(NULL);
	fixture_close(&f);
}

/*
 * Spec 15.4: with a follow set in effect every event goes through the
 * filter; a record is kept if the recording thread is followed or the
 * event's second task is, else taken back and counted in the follow
 * slot; with a program beside it, the program sees only what the follow
 * set kept. Taking the set out sends the events back to the plain path.
 */
static void test_record_api_follow_takes_back(void)
{
	u64 enable[GR_WIDE_MAX_EVENTS / 64] = { 0 };
	static struct gr_filter_set set;
	static unsigned long bits[GR_FOLLOW_PID_LIMIT / (8 * sizeof(long))];
	static struct gr_follow fol;
	u32 me = gr_current_tid(), other = me ^ 1, off;
	struct fixture f;
	struct gr_buf *buf;
	unsigned int i;

	fixture_open(&f, 1, false, 4096, 4);
	buf = &f.chan->bufs[0];
	gr_user_set_cpu(0);
	enable[0] = 1ULL << EV_TEST;
	gr_rec_set_events(enable);
	gr_rec_activate(f.chan);

	memset(&fol, 0, sizeof(fol));
	fol.nr_bits = GR_FOLLOW_PID_LIMIT;
	fol.bits = bits;
	memset(bits, 0, sizeof(bits));
	for (i = 0; i < GR_WIDE_MAX_EVENTS; i++)
		fol.other_off[i] = GR_FOLLOW_NO_OFF;
	fol.other_off[EV_TEST] = offsetof(struct test_payload, writer);
	fol.spec.flags = GR_FOLLOW_F_ON;
	CU_ASSERT_PTR_NULL(gr_rec_set_follow(&fol));
	/* every event is sent out of line, whether or not it has a program */
	CU_ASSERT(gr_event_filtered(EV_TEST));
	CU_ASSERT(gr_event_filtered(EV_TEST + 1));

	/* neither this thread nor the writer is followed: taken back */
	off = (u32)buf->offset;
	rec_write_writer(0, other);
	CU_ASSERT_EQUAL(buf->offset, off);
	/* the second task is followed: kept */
	CU_ASSERT(gr_follow_add(&fol, other));
	rec_write_writer(1, other);
	CU_ASSERT_EQUAL(buf->offset, off + 32);
	/* this thread is followed: kept whoever the second task is */
	gr_follow_del(&fol, other);
	rec_write_writer(2, other);
	CU_ASSERT_EQUAL(buf->offset, off + 32);
	CU_ASSERT(gr_follow_add(&fol, me));
	CU_ASSERT(!gr_follow_add(&fol, me));
	rec_write_writer(3, 0);
	CU_ASSERT_EQUAL(buf->offset, off + 64);
	/* a program beside it judges what the follow set kept */
	odd_seq_filter(&set);
	gr_rec_set_filters(&set);
	rec_write_writer(4, 0);
	rec_write_writer(5, 0);
	CU_ASSERT_EQUAL(buf->offset, off + 96);
	CU_ASSERT_EQUAL(gr_chan_filtered(f.chan, 3), 1);
	gr_rec_set_filters(NULL);
	gr_follow_del(&fol, me);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(gr_chan_filtered(f.chan, GR_FOLLOW_SLOT), 2);
	CU_ASSERT_EQUAL(atomic_read(&fol.tasks), 0);

	/* no set: back to the plain path */
	CU_ASSERT_PTR_EQUAL(gr_rec_set_follow(NULL), &fol);
	CU_ASSERT(!gr_event_filtered(EV_TEST));
	off = (u32)buf->offset;
	rec_write_writer(6, other);
	CU_ASSERT_EQUAL(buf->offset, off + 32);
	gr_rec_deactivate();
	gr_rec_set_events(NULL);
	fixture_close(&f);
}

/* The record API of the probes: one enable bitmap, the active channel */
static void test_record_api_over_active_channel(void)
{
	u64 enable[GR_WIDE_MAX_EVENTS / 64] = { 0 };
	struct gr_rec rec, nested;
	struct test_payload *p;
	struct fixture f;

	fixture_open(&f, 2, false, 4096, 4);
	gr_user_set_cpu(0);
	enable[0] = 1ULL << EV_TEST;
	gr_rec_set_events(enable);
	/* no channel active yet */
	CU_ASSERT_PTR_NULL(gr_rec_begin(&rec, EV_TEST, sizeof(*p)));
	gr_rec_activate(f.chan);
	CU_ASSERT(gr_event_on(EV_TEST));
	CU_ASSERT(!gr_event_on(EV_TEST + 1));
	CU_ASSERT(!gr_event_on(GR_WIDE_MAX_EVENTS));
	/* an event that is not enabled writes nothing */
	CU_ASSERT_PTR_NULL(gr_rec_begin(&rec, EV_TEST + 1, sizeof(*p)));
	p = gr_rec_begin(&rec, EV_TEST, sizeof(*p));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->writer = htole32(7);
	p->pad = 0;
	p->seq = htole64(1);
	/* nested on this CPU: dropped and counted */
	CU_ASSERT_PTR_NULL(gr_rec_begin(&nested, EV_TEST, sizeof(*p)));
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_nested), 1);
	gr_rec_commit(&rec);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 1);
	/* a reservation that fails closes the record (no commit) */
	CU_ASSERT_FATAL(gr_rec_open(&rec, EV_TEST));
	CU_ASSERT_PTR_NULL(gr_rec_reserve(&rec, 5000));
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_too_big), 1);
	CU_ASSERT_EQUAL(f.chan->bufs[0].nesting, 0);
	/* recording off: the bitmap is empty */
	gr_rec_set_events(NULL);
	CU_ASSERT(!gr_event_on(EV_TEST));
	CU_ASSERT_PTR_NULL(gr_rec_begin(&rec, EV_TEST, sizeof(*p)));
	gr_rec_set_events(enable);
	gr_rec_deactivate();
	CU_ASSERT_PTR_NULL(gr_rec_begin(&rec, EV_TEST, sizeof(*p)));
	CU_ASSERT_EQUAL(gr_rec_flush_this_cpu(), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	gr_rec_activate(f.chan);
	CU_ASSERT_EQUAL(gr_rec_flush_this_cpu(), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	gr_rec_deactivate();
	gr_rec_set_events(NULL);
	fixture_close(&f);
}

/*
 * Panic: a CPU stopped inside a write keeps its ring; every other ring,
 * those of idle CPUs too, is delivered.
 */
static void test_panic_flush_skips_only_rings_mid_write(void)
{
	struct fixture f;
	u32 cpu;

	fixture_open(&f, 4, false, 4096, 4);
	for (cpu = 0; cpu < 3; cpu++) {
		gr_user_set_cpu(cpu);
		CU_ASSERT_EQUAL(write_msg(f.chan, 16, cpu), 0);
	}
	f.chan->bufs[1].nesting = 1;	/* stopped mid-write */
	gr_user_set_cpu(3);		/* the panicking CPU, idle ring */
	gr_chan_flush_idle(f.chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 2)), 1);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 3)), 0);
	f.chan->bufs[1].nesting = 0;
	fixture_close(&f);

	/* global ring: any CPU inside may hold its lock, so leave it */
	fixture_open(&f, 2, true, 4096, 4);
	gr_user_set_cpu(0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 16, 3), 0);
	f.chan->cpus[0].nesting = 1;
	gr_user_set_cpu(1);
	gr_chan_flush_idle(f.chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	f.chan->cpus[0].nesting = 0;
	gr_chan_flush_idle(f.chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(le32toh(f_hdr(&f, 0, 0)->cpu_id), 0);
	fixture_close(&f);
}

static void test_reserve_and_preempt_only_write(void)
{
	struct fixture f;
	u8 *slot;

	fixture_open(&f, 1, false, 4096, 4);
	slot = gr_chan_reserve(f.chan, 20);
	CU_ASSERT_PTR_EQUAL_FATAL(slot, f_subbuf(&f, 0, 0) + HDR);
	/* the tail of the 24-byte slot is zeroed */
	CU_ASSERT_EQUAL(*(u32 *)(slot + 20), 0);
	fill_pattern(slot, 20, 5);
	CU_ASSERT_PTR_NULL(gr_chan_reserve(f.chan, 5000));
	CU_ASSERT_PTR_NULL(gr_chan_reserve(f.chan, 0));
	CU_ASSERT_EQUAL(__gr_chan_write(f.chan, "abcdefgh", 8), 0);
	CU_ASSERT(!memcmp(f_subbuf(&f, 0, 0) + HDR + 24, "abcdefgh", 8));
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, HDR + 32);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 2);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_too_big), 1);
	fixture_close(&f);
}

static void test_global_channel_one_ring_for_all_cpus(void)
{
	struct fixture f;
	struct gr_packet_header *ph;

	fixture_open(&f, 4, true, 4096, 4);
	CU_ASSERT_EQUAL(f.log.nr_calls, 1);
	gr_user_set_cpu(2);
	CU_ASSERT_EQUAL(write_msg(f.chan, 16, 2), 0);
	gr_user_set_cpu(3);
	CU_ASSERT_EQUAL(write_msg(f.chan, 16, 3), 0);
	gr_user_set_cpu(0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 16, 0), 0);
	CU_ASSERT_EQUAL(gr_chan_flush_this_cpu(f.chan), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	ph = f_hdr(&f, 0, 0);
	CU_ASSERT_EQUAL(le32toh(ph->cpu_id), 0);
	CU_ASSERT_EQUAL(le64toh(ph->stream_instance_id), 0);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR, 16, 2));
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR + 16, 16, 3));
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR + 32, 16, 0));
	fixture_close(&f);
}

static void test_nesting_guard_drops_and_counts(void)
{
	struct fixture f;
	struct gr_buf *buf;
	int mode;

	for (mode = 0; mode < 2; mode++) {
		bool global = mode == 1;

		fixture_open(&f, 2, global, 4096, 4);
		gr_user_set_cpu(0);
		buf = gr_buf_enter(f.chan);
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
		/* an interrupt or NMI on CPU 0 writing meanwhile */
		CU_ASSERT_EQUAL(write_msg(f.chan, 8, 1), -EBUSY);
		CU_ASSERT_EQUAL(gr_event_write(f.chan, EV_TEST, "ab", 2),
				-EBUSY);
		CU_ASSERT_PTR_NULL(gr_buf_enter(f.chan));
		/* a flush is refused too, but it is not a lost event */
		CU_ASSERT_EQUAL(gr_chan_flush_this_cpu(f.chan), -EBUSY);
		CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_nested), 3);
		if (!global) {
			/* CPU 1 has its own guard and ring */
			gr_user_set_cpu(1);
			CU_ASSERT_EQUAL(write_msg(f.chan, 8, 2), 0);
			gr_user_set_cpu(0);
		}
		gr_buf_exit(buf);
		CU_ASSERT_EQUAL(write_msg(f.chan, 8, 3), 0);
		gr_chan_publish_events(f.chan);
		CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 1);
		gr_chan_flush(f.chan);
		CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 0)->events_discarded), 3);
		gr_chan_reset(f.chan);
		CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_nested), 0);
		fixture_close(&f);
	}
}

/* ---------------------------------------------------------------------- */

static const struct gr_test tests[] = {
	GR_TEST(test_event_record_header_fields),
	GR_TEST(test_switch_shares_write_timestamp),
	GR_TEST(test_probe_writes_record_in_place),
	GR_TEST(test_record_api_filter_takes_back),
	GR_TEST(test_record_api_follow_takes_back),
	GR_TEST(test_record_api_over_active_channel),
	GR_TEST(test_panic_flush_skips_only_rings_mid_write),
	GR_TEST(test_reserve_and_preempt_only_write),
	GR_TEST(test_global_channel_one_ring_for_all_cpus),
	GR_TEST(test_nesting_guard_drops_and_counts),
};

int main(void)
{
	/* a test that loops forever is a failure, not a hang */
	alarm(600);
	return gr_test_main("relay_record", tests, GR_ARRAY_SIZE(tests), NULL, NULL);
}
