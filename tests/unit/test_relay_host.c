// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the relay core against a host: concurrent writers with a
 * consuming thread, the ordering of commit records and produced, hostile
 * consumed values, and doorbells with and without event indexes, built in
 * userspace through tests/shim/gr_user_env.h. Every test uses the real
 * core over a real mmap'd region framed by guard bytes
 * (relay_fixture.c); the test itself plays the host (reads produced and
 * commit records, writes consumed and prod_event) and, with threads, the
 * CPUs.
 */
#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>

#include "relay_fixture.h"

/* ---------------------------------------------------------------------- */
/* The host, in a thread                                                  */

#define MAX_TEST_RINGS		4
#define MAX_WRITERS		4

struct host {
	u8 *base;
	const struct gr_layout *lay;
	bool global;
	u32 nr_writers;
	int done;
	int efd;		/* sleep on doorbells when >= 0 */
	u32 batch_delay_us;	/* after a doorbell, before draining */
	u64 consumed[MAX_TEST_RINGS];
	u64 next_seq[MAX_WRITERS];
	u64 received[MAX_WRITERS];
	u64 packets;
	u64 bad_counters;
	u64 bad_packets;
	u64 bad_records;
	u64 order_errors;
	u64 rearms;
	u64 wakeups;
};

/* The host's checks of a produced sub-buffer, as the trust rules say. */
static void host_consume_packet(struct host *h, u32 ring, u64 k)
{
	const struct gr_layout *lay = h->lay;
	u32 slot = (u32)(k % lay->n_subbufs);
	struct gr_subbuf_rec *rec = h_rec(h->base, lay, ring, slot);
	u8 *sb = h_subbuf(h->base, lay, ring, slot);
	struct gr_packet_header ph;
	u32 bytes, off;

	if (h_seq(rec) != k) {
		h->bad_packets++;
		return;
	}
	bytes = le32toh(__atomic_load_n(&rec->bytes, __ATOMIC_RELAXED));
	memcpy(&ph, sb, sizeof(ph));
	if (le32toh(ph.magic) != GR_CTF_MAGIC || ph.stream_id ||
	    le64toh(ph.stream_instance_id) != ring ||
	    le32toh(ph.cpu_id) != (h->global ? 0 : ring) ||
	    le64toh(ph.packet_size) != (u64)lay->subbuf_size * 8 ||
	    le64toh(ph.content_size) != (u64)bytes * 8 ||
	    bytes < HDR || bytes > lay->subbuf_size ||
	    le64toh(ph.packet_seq_num) != k ||
	    le64toh(ph.timestamp_begin) > le64toh(ph.timestamp_end)) {
		h->bad_packets++;
		return;
	}
	h->packets++;
	for (off = HDR; off < bytes; ) {
		struct gr_event_header eh;
		struct test_payload p;
		u32 size, w;
		u64 seq;

		memcpy(&eh, sb + off, sizeof(eh));
		size = le16toh(eh.size);
		if (size != 32 || off + size > bytes ||
		    le16toh(eh.id) != EV_TEST) {
			h->bad_records++;
			return;
		}
		memcpy(&p, sb + off + sizeof(eh), sizeof(p));
		w = le32toh(p.writer);
		seq = le64toh(p.seq);
		if (w >= h->nr_writers) {
			h->bad_records++;
			return;
		}
		if (seq < h->next_seq[w])
			h->order_errors++;
		h->next_seq[w] = seq + 1;
		h->received[w]++;
		off += size;
	}
}

static u32 host_drain(struct host *h)
{
	u32 ring, got = 0;

	for (ring = 0; ring < h->lay->nr_rings; ring++) {
		struct gr_ring *rg = h_ring(h->base, h->lay, ring);
		u64 produced = h_produced(rg);

		if (produced - h->consumed[ring] > h->lay->n_subbufs) {
			h->bad_counters++;
			continue;
		}
		while (h->consumed[ring] != produced) {
			host_consume_packet(h, ring, h->consumed[ring]);
			h->consumed[ring]++;
			h_set_consumed(rg, h->consumed[ring]);
			got++;
		}
	}
	return got;
}

static bool host_all_drained(struct host *h)
{
	u32 ring;

	for (ring = 0; ring < h->lay->nr_rings; ring++)
		if (h_produced(h_ring(h->base, h->lay, ring)) !=
		    h->consumed[ring])
			return false;
	return true;
}

/* Before sleeping: ask for a doorbell at the next sub-buffer, re-check. */
static bool host_arm_and_recheck(struct host *h)
{
	struct gr_ring *rg = h_ring(h->base, h->lay, 0);

	h_set_prod_event(rg, h->consumed[0]);
	h->rearms++;
	/* pairs with the guest's smp_mb() in gr_buf_need_doorbell() */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return h_produced(rg) != h->consumed[0];
}

static void *host_thread(void *arg)
{
	struct host *h = arg;

	for (;;) {
		int done = __atomic_load_n(&h->done, __ATOMIC_ACQUIRE);
		u32 got = host_drain(h);

		if (done && !got && host_all_drained(h))
			break;
		if (got)
			continue;
		if (h->efd >= 0) {
			struct pollfd pfd = { .fd = h->efd, .events = POLLIN };
			u64 v;

			if (host_arm_and_recheck(h))
				continue;
			if (poll(&pfd, 1, 10) == 1 &&
			    read(h->efd, &v, sizeof(v)) == sizeof(v)) {
				h->wakeups++;
				usleep(h->batch_delay_us);
			}
		} else {
			sched_yield();
		}
	}
	return NULL;
}

struct writer {
	struct gr_chan *chan;
	u32 cpu;
	u32 id;
	u64 n;			/* events to record */
	u32 flush_every;	/* flush after every so many, 0 = never */
	bool retry_full;	/* on -ENOSPC, yield and record it again */
	u64 attempts;
	u64 ok;
	u64 lost;
	u64 other;
};

static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	u64 seq;

	gr_user_set_cpu(w->cpu);
	for (seq = 0; seq < w->n; seq++) {
		struct test_payload p = {
			.writer = htole32(w->id), .seq = htole64(seq),
		};
		int ret;

		for (;;) {
			ret = gr_event_write(w->chan, EV_TEST, &p, sizeof(p));
			w->attempts++;
			if (ret != -ENOSPC || !w->retry_full)
				break;
			w->lost++;
			sched_yield();
		}
		if (!ret)
			w->ok++;
		else if (ret == -ENOSPC)
			w->lost++;
		else
			w->other++;
		if (w->flush_every && seq % w->flush_every == 0 &&
		    gr_chan_flush_this_cpu(w->chan))
			w->other++;
	}
	if (gr_chan_flush_this_cpu(w->chan))
		w->other++;
	return NULL;
}

/* Run writers on their CPUs against the host thread; check accounting. */
static void run_writers_and_host(struct fixture *f, struct host *h,
				 struct writer *w, u32 nr_writers)
{
	pthread_t ht, wt[MAX_WRITERS];
	u64 lost_full = 0, received = 0, ok = 0, attempts = 0;
	u32 i;

	h->base = f->region.base;
	h->lay = &f->lay;
	h->global = f->lay.flags & GR_HDR_GLOBAL;
	h->nr_writers = nr_writers;
	CU_ASSERT_FATAL(pthread_create(&ht, NULL, host_thread, h) == 0);
	for (i = 0; i < nr_writers; i++)
		CU_ASSERT_FATAL(pthread_create(&wt[i], NULL, writer_thread,
					       &w[i]) == 0);
	for (i = 0; i < nr_writers; i++)
		pthread_join(wt[i], NULL);
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	pthread_join(ht, NULL);

	for (i = 0; i < f->lay.nr_rings; i++) {
		lost_full += h_load(&f_ring(f, i)->prod.lost_full);
		CU_ASSERT_EQUAL(h_load(&f_ring(f, i)->prod.lost_nested), 0);
		CU_ASSERT_EQUAL(h_load(&f_ring(f, i)->prod.lost_too_big), 0);
	}
	for (i = 0; i < nr_writers; i++) {
		CU_ASSERT_EQUAL(w[i].other, 0);
		CU_ASSERT_EQUAL(w[i].ok, h->received[i]);
		CU_ASSERT_EQUAL(w[i].attempts, w[i].ok + w[i].lost);
		attempts += w[i].attempts;
		ok += w[i].ok;
		received += h->received[i];
	}
	CU_ASSERT_EQUAL(attempts, received + lost_full);
	CU_ASSERT_EQUAL(ok, received);
	CU_ASSERT_EQUAL(h->bad_counters, 0);
	CU_ASSERT_EQUAL(h->bad_packets, 0);
	CU_ASSERT_EQUAL(h->bad_records, 0);
	CU_ASSERT_EQUAL(h->order_errors, 0);
	CU_ASSERT_EQUAL(gr_chan_consumed_errors(f->chan), 0);
	printf("\n    %llu events, %llu received, %llu lost (full), %llu packets ",
	       (unsigned long long)attempts, (unsigned long long)received,
	       (unsigned long long)lost_full, (unsigned long long)h->packets);
}

/*
 * @n writers as @proto, writer i recording event i on CPU i of @f's
 * channel, and a host consuming without a doorbell: run them all
 */
static void run_writers_like(struct fixture *f, struct host *h,
			     struct writer *w, u32 n, struct writer proto)
{
	u32 i;

	memset(h, 0, sizeof(*h));
	h->efd = -1;
	for (i = 0; i < n; i++) {
		w[i] = proto;
		w[i].chan = f->chan;
		w[i].cpu = i;
		w[i].id = i;
	}
	run_writers_and_host(f, h, w, n);
}

static void test_concurrent_per_cpu_writers_with_consumer(void)
{
	static struct host h;
	struct writer w[2];
	struct fixture f;

	fixture_open(&f, 2, false, 4096, 4);
	run_writers_like(&f, &h, w, 2, (struct writer){ .n = 200000 });
	CU_ASSERT(h.received[0] > 0 && h.received[1] > 0);
	fixture_close(&f);
}

static void test_concurrent_global_writers_with_consumer(void)
{
	static struct host h;
	struct writer w[3];
	struct fixture f;

	fixture_open(&f, 3, true, 4096, 8);
	run_writers_like(&f, &h, w, 3, (struct writer){ .n = 100000 });
	fixture_close(&f);
}

static void test_commit_record_visible_before_produced(void)
{
	static struct host h;
	struct writer w[2];
	struct fixture f;
	u32 i;

	/*
	 * Many tiny packets, and writers that wait for room: every move of
	 * produced is checked by the host while the next packet is written.
	 */
	fixture_open(&f, 2, false, 4096, 2);
	run_writers_like(&f, &h, w, 2,
			 (struct writer){ .n = 30000, .flush_every = 3,
					  .retry_full = true });
	CU_ASSERT_EQUAL(h.received[0], 30000);
	CU_ASSERT_EQUAL(h.received[1], 30000);
	CU_ASSERT(h.packets >= 20000);
	/* state after the run: the last finished record carries its number */
	for (i = 0; i < 2; i++) {
		u64 produced = h_produced(f_ring(&f, i));

		CU_ASSERT_EQUAL(h_seq(f_rec(&f, i, (produced - 1) % 2)),
				produced - 1);
	}
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- */
/* A hostile host                                                         */

static u64 xorshift64(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_hostile_consumed_is_ignored_and_counted(void)
{
	struct fixture f;
	struct gr_buf *buf;
	struct gr_ring *rg;
	u64 errors;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	buf = &f.chan->bufs[0];
	rg = f_ring(&f, 0);
	for (i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(rg), 1);

	/* ahead of produced */
	h_set_consumed(rg, 2);
	CU_ASSERT_EQUAL(gr_subbufs_consumed(f.chan, 0), -EINVAL);
	CU_ASSERT_EQUAL(buf->consumed, 0);
	/* wrapped: "minus one" */
	h_set_consumed(rg, UINT64_MAX);
	CU_ASSERT_EQUAL(gr_subbufs_consumed(f.chan, 0), -EINVAL);
	CU_ASSERT_EQUAL(gr_chan_consumed_errors(f.chan), 2);
	/* valid */
	h_set_consumed(rg, 1);
	CU_ASSERT_EQUAL(gr_subbufs_consumed(f.chan, 0), 0);
	CU_ASSERT_EQUAL(buf->consumed, 1);
	/* behind the mirror, and far behind */
	h_set_consumed(rg, 0);
	CU_ASSERT_EQUAL(gr_subbufs_consumed(f.chan, 0), -EINVAL);
	h_set_consumed(rg, 1 - 1000000);
	CU_ASSERT_EQUAL(gr_subbufs_consumed(f.chan, 0), -EINVAL);
	CU_ASSERT_EQUAL(buf->consumed, 1);
	CU_ASSERT_EQUAL(gr_chan_consumed_errors(f.chan), 4);

	/* stuck on garbage: every switch attempt reads it once, rejects it */
	h_set_consumed(rg, 1ULL << 63);
	errors = gr_chan_consumed_errors(f.chan);
	for (i = 0; i < 100; i++)
		write_msg(f.chan, 1000, i);
	CU_ASSERT(gr_chan_consumed_errors(f.chan) > errors);
	CU_ASSERT_EQUAL(h_produced(rg), 5);
	CU_ASSERT(h_load(&rg->prod.lost_full) > 0);
	CU_ASSERT_EQUAL(buf->consumed, 1);
	CU_ASSERT(region_guards_intact(&f.region));
	fixture_close(&f);
}

static void test_hostile_consumed_random_never_corrupts(void)
{
	struct fixture f;
	struct gr_buf *buf;
	struct gr_ring *rg;
	u64 s = 0x9e3779b97f4a7c15ULL;
	u64 i, errors, invalid = 0;
	bool valid;
	int ret;

	fixture_open(&f, 2, false, 4096, 3);
	gr_user_set_cpu(1);
	buf = &f.chan->bufs[1];
	rg = f_ring(&f, 1);
	for (i = 0; i < 200000; i++) {
		u64 r = xorshift64(&s);
		u64 c;

		switch (r % 16) {
		case 0: case 1:
			c = xorshift64(&s);
			break;
		case 2:
			c = buf->published + 1 + xorshift64(&s) % 8;
			break;
		case 3:
			c = buf->consumed - 1 - xorshift64(&s) % 8;
			break;
		case 4: case 5:
			c = buf->consumed + xorshift64(&s) %
				(buf->published - buf->consumed + 1);
			break;
		case 6:
			gr_chan_flush(f.chan);
			continue;
		case 7:
			if (r % 1024 == 7)
				gr_chan_reset(f.chan);
			else
				gr_chan_set_mode(f.chan, (r >> 8) & 1);
			continue;
		default:
			ret = write_msg(f.chan, 1 + (r >> 16) % 4200,
					(u32)i);
			CU_ASSERT(ret == 0 || ret == -ENOSPC || ret == -E2BIG);
			CU_ASSERT(buf->offset <= 4096 + 1);
			continue;
		}
		valid = buf->published - c <= buf->published - buf->consumed;
		h_set_consumed(rg, c);
		errors = gr_chan_consumed_errors(f.chan);
		ret = gr_subbufs_consumed(f.chan, 1);
		if (!valid) {
			CU_ASSERT_EQUAL(ret, -EINVAL);
			CU_ASSERT_EQUAL(gr_chan_consumed_errors(f.chan),
					errors + 1);
			invalid++;
		} else {
			CU_ASSERT_EQUAL(ret, 0);
			CU_ASSERT_EQUAL(buf->consumed, c);
		}
		CU_ASSERT_EQUAL(buf->published, buf->produced);
	}
	CU_ASSERT(invalid > 10000);
	CU_ASSERT(region_guards_intact(&f.region));
	/* ring 0 was never touched by any of it */
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), GR_SEQ_BUSY);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- */
/* Doorbells                                                              */

static void test_doorbell_per_subbuf_without_event_idx(void)
{
	struct fixture f;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	gr_chan_set_mode(f.chan, GR_MODE_FLIGHT);
	/* events alone never ring */
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(f.log.doorbells, 0);
	for (i = 0; i < 40; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 10);
	CU_ASSERT_EQUAL(f.log.doorbells, 10);
	CU_ASSERT_EQUAL(f.chan->bufs[0].doorbells, 10);
	fixture_close(&f);
}

static void test_doorbell_with_event_idx_follows_prod_event(void)
{
	struct fixture f;
	struct gr_ring *rg;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	rg = f_ring(&f, 0);
	gr_chan_set_mode(f.chan, GR_MODE_FLIGHT);
	gr_chan_set_event_idx(f.chan, true);
	/* prod_event 0: wake the host when sub-buffer 0 is produced, once */
	for (i = 0; i < 4 * 20 + 1; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(rg), 20);
	CU_ASSERT_EQUAL(f.log.doorbells, 1);
	/* the host sleeps, asking for the next one: exactly one more */
	h_set_prod_event(rg, 20);
	for (i = 0; i < 4 * 10; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(rg), 30);
	CU_ASSERT_EQUAL(f.log.doorbells, 2);
	/* far ahead, or behind (garbage): silence */
	h_set_prod_event(rg, 1000);
	for (i = 0; i < 4 * 10; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	h_set_prod_event(rg, 35);
	for (i = 0; i < 4 * 10; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(rg), 50);
	CU_ASSERT_EQUAL(f.log.doorbells, 2);
	/* a flush that produces also asks */
	h_set_prod_event(rg, 50);
	gr_chan_flush(f.chan);
	CU_ASSERT_EQUAL(h_produced(rg), 51);
	CU_ASSERT_EQUAL(f.log.doorbells, 3);
	CU_ASSERT_EQUAL(f.chan->bufs[0].doorbells, 3);
	/* event index negotiated away again: every sub-buffer rings */
	gr_chan_set_event_idx(f.chan, false);
	CU_ASSERT_EQUAL(write_msg(f.chan, 8, 0), 0);
	gr_chan_flush(f.chan);
	CU_ASSERT_EQUAL(f.log.doorbells, 4);
	fixture_close(&f);
}

static void test_doorbell_with_event_idx_rare_under_load(void)
{
	static struct host h;
	struct writer w;
	struct fixture f;
	u64 produced;

	fixture_open(&f, 1, false, 4096, 64);
	gr_chan_set_event_idx(f.chan, true);
	f.log.efd = eventfd(0, EFD_NONBLOCK);
	CU_ASSERT_FATAL(f.log.efd >= 0);
	memset(&h, 0, sizeof(h));
	h.efd = f.log.efd;
	h.batch_delay_us = 500;
	w = (struct writer){ .chan = f.chan, .cpu = 0, .id = 0,
			     .n = 300000 };
	run_writers_and_host(&f, &h, &w, 1);
	produced = h_produced(f_ring(&f, 0));
	printf("\n    %llu sub-buffers, %llu doorbells, %llu host sleeps ",
	       (unsigned long long)produced,
	       (unsigned long long)f.log.doorbells,
	       (unsigned long long)h.rearms);
	/* one doorbell per sleep of the host at most, far fewer than packets */
	CU_ASSERT(f.log.doorbells <= h.rearms + 1);
	CU_ASSERT(f.log.doorbells * 2 < produced);
	CU_ASSERT_EQUAL(f.log.doorbells, f.chan->bufs[0].doorbells);
	close(f.log.efd);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- */

static const struct gr_test tests[] = {
	GR_TEST(test_concurrent_per_cpu_writers_with_consumer),
	GR_TEST(test_concurrent_global_writers_with_consumer),
	GR_TEST(test_commit_record_visible_before_produced),
	GR_TEST(test_hostile_consumed_is_ignored_and_counted),
	GR_TEST(test_hostile_consumed_random_never_corrupts),
	GR_TEST(test_doorbell_per_subbuf_without_event_idx),
	GR_TEST(test_doorbell_with_event_idx_follows_prod_event),
	GR_TEST(test_doorbell_with_event_idx_rare_under_load),
};

int main(void)
{
	/* a test that loops forever is a failure, not a hang */
	alarm(600);
	return gr_test_main("relay_host", tests, GR_ARRAY_SIZE(tests), NULL, NULL);
}
