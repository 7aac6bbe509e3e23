// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the guest's control pass: its decision (spec 9.2, 9.4,
 * G28; guest-module/gr_proto.c: gr_pass_decide(), the one the driver's
 * gr_pass_run() and the fake guest run) and its reading of the host's
 * block, built in userspace through tests/shim/gr_user_env.h.
 *
 * The guest's pass reads the host's block once (gr_ctrl_read()), lets
 * gr_pass_decide() choose the steps and carries out the acks of those
 * chosen, as gr_pass_run() does. The host is hostile: it bumps its
 * request counters in a tight loop and rings after every bump (one pass
 * per bump, the worst G21 allows). Time is a virtual clock, so the
 * bounds are exact.
 */
#include "gr_test.h"

#include "gr_proto.h"

#define REGION_SIZE	(64 * 1024)
#define NS_PER_S	1000000000ULL

struct model {
	u8 *region;
	struct gr_ratelimit rl;
	struct gr_pass_acks acks;
	u32 steps;		/* what the last pass did */
	u64 runs;		/* passes that carried out costly steps */
	u64 passes;		/* passes that found a request pending */
	u64 retry_at;		/* when the deferred retry fires, 0 = none */
};

static void model_init(struct model *m)
{
	struct gr_host_ctrl *c;

	memset(m, 0, sizeof(*m));
	m->region = calloc(1, REGION_SIZE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m->region);
	m->rl.interval_ns = GR_PASS_MIN_INTERVAL_NS;
	c = gr_ctrl(m->region);
	c->magic = htole64(GR_CTRL_MAGIC);
	c->abi_major = htole16(GR_ABI_MAJOR);
	c->ctrl_size = htole32(sizeof(*c));
	c->host_peer_id = htole32(GR_NO_PEER);
	c->seq = htole64(1);
	/* as after publication: block 1 applied (gr_pass_prepare()) */
	m->acks.ctrl_ack = 1;
	m->acks.host_present = true;
}

static void host_bump(struct model *m, __le64 *field)
{
	(void)m;
	/* the host's release store of a request counter (spec 10 #11) */
	smp_store_release(field, htole64(le64toh(*field) + 1));
}

/* One control pass of the guest at time @now, as gr_pass_run() runs it */
static void guest_pass(struct model *m, u64 now)
{
	struct gr_ctrl_req req;
	u64 wait;
	int ret;

	ret = gr_ctrl_read(m->region, 0, 1, &req);
	m->steps = gr_pass_decide(&m->acks, ret, &req, &m->rl, now, &wait);
	if (m->steps & GR_PASS_DEFER) {
		m->passes++;
		/* schedule_delayed_work() of a pending work does nothing */
		if (!m->retry_at)
			m->retry_at = now + wait;
		return;
	}
	if (m->steps & ~GR_PASS_REJECT) {
		m->passes++;
		m->runs++;
	}
	if (m->steps & GR_PASS_APPLY) {
		gr_status_applied(m->region, 0, &req, req.enable, req.mode,
				  req.switch_timer_us);
		m->acks.ctrl_ack = req.seq;
		m->acks.host_present = true;
	}
	if (m->steps & GR_PASS_REJECT) {
		gr_status_rejected(m->region, req.seq, -EINVAL, 1);
		m->acks.ctrl_ack = req.seq;
	}
	if (m->steps & GR_PASS_DEFAULTS)
		m->acks.host_present = false;
	if (m->steps & GR_PASS_RESET) {
		gr_status_ack_reset(m->region, req.reset_req);
		m->acks.reset_ack = req.reset_req;
	}
	if (m->steps & GR_PASS_FLUSH) {
		gr_status_ack_flush(m->region, req.flush_req);
		m->acks.flush_ack = req.flush_req;
	}
}

/* Run the deferred retry if it is due at @now */
static void guest_retry(struct model *m, u64 now)
{
	if (m->retry_at && now >= m->retry_at) {
		m->retry_at = 0;
		guest_pass(m, now);
	}
}

static u64 status_ack(struct model *m, __le64 *field)
{
	(void)m;
	return le64toh(smp_load_acquire(field));
}

/*
 * A host that flips flush and reset requests every microsecond for one
 * second gets at most one costly pass per interval; when it stops, its
 * last requests are still carried out, at most one interval later.
 */
static void test_tight_loop_gets_bounded_work_and_last_request_runs(void)
{
	const u64 step = 1000, span = NS_PER_S;
	struct gr_guest_status *st;
	struct gr_host_ctrl *c;
	u64 now = 5 * NS_PER_S, start = now, stop, limit;
	struct model m;

	model_init(&m);
	c = gr_ctrl(m.region);
	st = gr_status(m.region);
	while (now - start < span) {
		host_bump(&m, (now / step) % 2 ? &c->flush_req :
						 &c->reset_req);
		guest_pass(&m, now);
		guest_retry(&m, now);
		now += step;
	}
	limit = span / GR_PASS_MIN_INTERVAL_NS + 1;
	printf("\n  %llu passes with a request pending, %llu costly runs (limit %llu), %llu deferred\n",
	       (unsigned long long)m.passes, (unsigned long long)m.runs,
	       (unsigned long long)limit, (unsigned long long)m.rl.deferred);
	CU_ASSERT(m.runs <= limit);
	CU_ASSERT(m.runs >= limit - 2);		/* bounded, not starved */
	CU_ASSERT_EQUAL(m.rl.deferred, m.passes - m.runs);
	CU_ASSERT(m.passes > 100 * m.runs);

	/* the host stops; no doorbell, only the retry that is pending */
	stop = now;
	CU_ASSERT(le64toh(c->flush_req) != m.acks.flush_ack ||
		  le64toh(c->reset_req) != m.acks.reset_ack);
	CU_ASSERT(m.retry_at != 0);
	CU_ASSERT(m.retry_at - stop <= GR_PASS_MIN_INTERVAL_NS);
	while (m.retry_at)
		guest_retry(&m, m.retry_at);
	CU_ASSERT_EQUAL(status_ack(&m, &st->flush_ack), le64toh(c->flush_req));
	CU_ASSERT_EQUAL(status_ack(&m, &st->reset_ack), le64toh(c->reset_req));
	free(m.region);
}

/* After a quiet interval a request is carried out at once, no delay */
static void test_request_after_quiet_interval_runs_at_once(void)
{
	struct gr_host_ctrl *c;
	u64 now = NS_PER_S;
	struct model m;

	model_init(&m);
	c = gr_ctrl(m.region);
	host_bump(&m, &c->flush_req);
	guest_pass(&m, now);
	CU_ASSERT_EQUAL(m.runs, 1);
	/* a second one within the interval waits for the rest of it */
	now += GR_PASS_MIN_INTERVAL_NS / 4;
	host_bump(&m, &c->flush_req);
	guest_pass(&m, now);
	CU_ASSERT_EQUAL(m.runs, 1);
	CU_ASSERT_EQUAL(m.retry_at, NS_PER_S + GR_PASS_MIN_INTERVAL_NS);
	guest_retry(&m, m.retry_at);
	CU_ASSERT_EQUAL(m.runs, 2);
	CU_ASSERT_EQUAL(m.acks.flush_ack, 2);
	/* quiet for longer than the interval: the next runs at once */
	now = m.rl.last_ns + GR_PASS_MIN_INTERVAL_NS;
	host_bump(&m, &c->reset_req);
	guest_pass(&m, now);
	CU_ASSERT_EQUAL(m.runs, 3);
	CU_ASSERT_EQUAL(m.acks.reset_ack, 1);
	CU_ASSERT_EQUAL(m.rl.deferred, 1);
	free(m.region);
}

/* Spec 9.2: a new valid block is applied once; nothing new, nothing done */
static void test_pass_applies_a_new_block_once(void)
{
	struct gr_host_ctrl *c;
	struct model m;

	model_init(&m);
	c = gr_ctrl(m.region);
	guest_pass(&m, NS_PER_S);
	CU_ASSERT_EQUAL(m.steps, 0);
	c->tracing = htole32(1);
	host_bump(&m, &c->seq);
	guest_pass(&m, 2 * NS_PER_S);
	CU_ASSERT_EQUAL(m.steps, GR_PASS_APPLY);
	CU_ASSERT_EQUAL(m.acks.ctrl_ack, 2);
	guest_pass(&m, 3 * NS_PER_S);
	CU_ASSERT_EQUAL(m.steps, 0);
	free(m.region);
}

/*
 * Spec 9.4: a refused block is acknowledged as refused, once, and its
 * request counters still act; the refusal alone is cheap, so the rate
 * limit does not hold it back.
 */
static void test_pass_refuses_a_bad_block_but_acts_on_its_counters(void)
{
	struct gr_guest_status *st;
	struct gr_host_ctrl *c;
	struct model m;

	model_init(&m);
	c = gr_ctrl(m.region);
	st = gr_status(m.region);
	c->tracing = htole32(7);
	host_bump(&m, &c->flush_req);
	host_bump(&m, &c->seq);
	guest_pass(&m, NS_PER_S);
	CU_ASSERT_EQUAL(m.steps, GR_PASS_REJECT | GR_PASS_FLUSH);
	CU_ASSERT_EQUAL(le64toh(st->ctrl_ack), 2);
	CU_ASSERT_EQUAL(le32toh(st->ctrl_errors), 1);
	CU_ASSERT_EQUAL(m.acks.flush_ack, 1);
	CU_ASSERT(m.acks.host_present);
	guest_pass(&m, 2 * NS_PER_S);
	CU_ASSERT_EQUAL(m.steps, 0);
	/* refused again at once: within the interval, but cheap */
	host_bump(&m, &c->seq);
	guest_pass(&m, 2 * NS_PER_S + 1);
	CU_ASSERT_EQUAL(m.steps, GR_PASS_REJECT);
	CU_ASSERT_EQUAL(m.acks.ctrl_ack, 3);
	free(m.region);
}

/*
 * A host that goes away leaves the guest on its defaults, once, and its
 * counters are not read any more; when it comes back, its block is
 * applied even under the seq already acknowledged.
 */
static void test_pass_defaults_without_a_host_and_back(void)
{
	struct gr_host_ctrl *c;
	struct model m;

	model_init(&m);
	c = gr_ctrl(m.region);
	c->magic = 0;
	guest_pass(&m, NS_PER_S);
	CU_ASSERT_EQUAL(m.steps, GR_PASS_DEFAULTS);
	CU_ASSERT(!m.acks.host_present);
	host_bump(&m, &c->flush_req);
	guest_pass(&m, 2 * NS_PER_S);
	CU_ASSERT_EQUAL(m.steps, 0);
	CU_ASSERT_EQUAL(m.acks.flush_ack, 0);
	c->magic = htole64(GR_CTRL_MAGIC);
	guest_pass(&m, 3 * NS_PER_S);
	CU_ASSERT_EQUAL(m.steps, GR_PASS_APPLY | GR_PASS_FLUSH);
	CU_ASSERT(m.acks.host_present);
	CU_ASSERT_EQUAL(m.acks.ctrl_ack, 1);
	/* another major version is no host either */
	c->abi_major = htole16(GR_ABI_MAJOR + 1);
	guest_pass(&m, 4 * NS_PER_S);
	CU_ASSERT_EQUAL(m.steps, GR_PASS_DEFAULTS);
	free(m.region);
}

/* Spec G28: a deferred pass does none of its steps and acks nothing */
static void test_pass_deferred_does_nothing_and_acks_nothing(void)
{
	struct gr_pass_acks before;
	struct gr_host_ctrl *c;
	struct model m;

	model_init(&m);
	c = gr_ctrl(m.region);
	host_bump(&m, &c->reset_req);
	guest_pass(&m, NS_PER_S);
	CU_ASSERT_EQUAL(m.steps, GR_PASS_RESET);
	before = m.acks;
	c->tracing = htole32(7);	/* refused, but with a flush */
	host_bump(&m, &c->flush_req);
	host_bump(&m, &c->seq);
	guest_pass(&m, NS_PER_S + 1);
	CU_ASSERT_EQUAL(m.steps, GR_PASS_DEFER);
	CU_ASSERT_EQUAL(m.retry_at, NS_PER_S + GR_PASS_MIN_INTERVAL_NS);
	CU_ASSERT(!memcmp(&before, &m.acks, sizeof(before)));
	guest_retry(&m, m.retry_at);
	CU_ASSERT_EQUAL(m.steps, GR_PASS_REJECT | GR_PASS_FLUSH);
	CU_ASSERT_EQUAL(m.acks.ctrl_ack, 2);
	CU_ASSERT_EQUAL(m.acks.flush_ack, 1);
	free(m.region);
}

/* The limit itself: first run free, then one per interval */
static void test_ratelimit_check(void)
{
	struct gr_ratelimit rl = { .interval_ns = 100 };

	CU_ASSERT_EQUAL(gr_ratelimit_check(&rl, 0), 0);
	CU_ASSERT_EQUAL(gr_ratelimit_check(&rl, 1), 99);
	CU_ASSERT_EQUAL(gr_ratelimit_check(&rl, 99), 1);
	CU_ASSERT_EQUAL(gr_ratelimit_check(&rl, 100), 0);
	CU_ASSERT_EQUAL(gr_ratelimit_check(&rl, 150), 50);
	CU_ASSERT_EQUAL(gr_ratelimit_check(&rl, 1000), 0);
	CU_ASSERT_EQUAL(rl.deferred, 3);
	CU_ASSERT_EQUAL(rl.last_ns, 1000);
}

/*
 * Spec 14.1, 14.4: with GR_F_FILTER the area counts only if ctrl_size
 * covers it; a bad slot refuses it with a reason the status block shows.
 */
static void test_filter_area_read_and_refusal(void)
{
	struct gr_filter_bounds bounds[2] = { { 16, 16 }, { 16, 16 } };
	static struct gr_filter_set set;
	struct gr_filter_slot *area;
	struct gr_guest_status *st;
	struct gr_filter_err err;
	struct gr_ctrl_req req;
	struct gr_host_ctrl *c;
	struct model m;

	model_init(&m);
	c = gr_ctrl(m.region);
	st = gr_status(m.region);
	area = (struct gr_filter_slot *)(m.region + GR_FILTER_OFFSET);
	c->host_features = htole64(GR_F_FILTER);
	area[4].event_id = htole16(1);
	area[4].nr_insns = htole16(1);
	area[4].insns[0].code = GR_FI_RET;

	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, 0, 2, &req), 0);
	CU_ASSERT_EQUAL(req.ctrl_size, 512);
	CU_ASSERT_EQUAL(gr_ctrl_read_filters(m.region, &req, 2, bounds, &set,
					     &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_AREA);
	CU_ASSERT_EQUAL(err.slot, GR_FILTER_NO_SLOT);

	c->ctrl_size = htole32(GR_FILTER_CTRL_SIZE);
	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, 0, 2, &req), 0);
	CU_ASSERT_EQUAL(req.ctrl_size, GR_FILTER_CTRL_SIZE);
	CU_ASSERT_EQUAL(gr_ctrl_read_filters(m.region, &req, 2, bounds, &set,
					     &err), 0);
	CU_ASSERT_EQUAL(set.nr_progs, 1);
	CU_ASSERT_EQUAL(set.slot_of[1], 0);
	CU_ASSERT_EQUAL(set.progs[0].slot, 4);

	/* A load past the payload: refused, and the status says where */
	area[4].nr_insns = htole16(2);
	area[4].insns[1] = area[4].insns[0];
	area[4].insns[0].code = GR_FI_LD;
	area[4].insns[0].width = 8;
	area[4].insns[0].off = htole16(9);
	CU_ASSERT_EQUAL(gr_ctrl_read_filters(m.region, &req, 2, bounds, &set,
					     &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_LOAD);
	CU_ASSERT_EQUAL(err.slot, 4);
	CU_ASSERT_EQUAL(err.insn, 0);
	gr_status_filter_rejected(m.region, &err, 1);
	gr_status_rejected(m.region, req.seq, -EINVAL, 1);
	CU_ASSERT_EQUAL(le32toh(st->filter_errors), 1);
	CU_ASSERT_EQUAL(st->filter_bad_slot, 4);
	CU_ASSERT_EQUAL(st->filter_reason, GR_FILTER_E_LOAD);
	CU_ASSERT_EQUAL(le16toh(st->filter_bad_insn), 0);
	CU_ASSERT_EQUAL(le32toh(st->ctrl_errors), 1);
	CU_ASSERT_EQUAL(le64toh(st->ctrl_ack), req.seq);

	gr_status_set_filtered(m.region, 6, 42);
	gr_status_set_filtered(m.region, GR_FILTER_SLOTS, 1);
	CU_ASSERT_EQUAL(le64toh(st->filtered[6]), 42);
	/* ctrl_size not a multiple of 8: no host block */
	c->ctrl_size = htole32(GR_FILTER_CTRL_SIZE - 4);
	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, 0, 2, &req), -EPROTONOSUPPORT);
	free(m.region);
}

/*
 * v1.13 (19.2 W2-W4): with GR_F_WIDE_EVENTS in use the enable bits are
 * the wide area's, checked against the descriptor count; without it
 * ctrl.enable, as in 1.12. The enabled bits and the descriptor count go
 * to both places, the status never above desc_capacity.
 */
static void test_wide_area_enable_and_status(void)
{
	const u64 woff = 0x3000;
	struct gr_layout lay = {
		.desc_count = 31, .desc_capacity = GR_MAX_EVENTS,
		.wide_capacity = GR_WIDE_MAX_EVENTS, .wide_offset = woff,
	};
	struct gr_guest_status *st;
	struct gr_ctrl_req req;
	struct gr_host_ctrl *c;
	struct gr_wide *w;
	struct model m;

	model_init(&m);
	c = gr_ctrl(m.region);
	st = gr_status(m.region);
	w = gr_wide(m.region, woff);
	CU_ASSERT_PTR_NULL(gr_wide(m.region, 0));
	c->enable[1] = htole64(1ULL << 3);		/* id 67 */
	w->enable[10] = htole64(1ULL << 2);		/* id 642 */

	/* the host without the bit: ctrl.enable, the wide area unread */
	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, woff, 700, &req), 0);
	CU_ASSERT_EQUAL(req.enable[1], 1ULL << 3);
	CU_ASSERT_EQUAL(req.enable[10], 0);
	/* with it: the wide area, ctrl.enable unread */
	c->host_features = htole64(GR_F_WIDE_EVENTS);
	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, woff, 700, &req), 0);
	CU_ASSERT_EQUAL(req.enable[1], 0);
	CU_ASSERT_EQUAL(req.enable[10], 1ULL << 2);
	/* a guest without the area reads ctrl.enable whatever the host says */
	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, 0, 700, &req), 0);
	CU_ASSERT_EQUAL(req.enable[1], 1ULL << 3);
	/* a bit at or above the descriptor count refuses the block */
	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, woff, 642, &req), -EINVAL);
	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, woff, 643, &req), 0);
	w->enable[15] = htole64(1ULL << 63);		/* id 1023 */
	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, woff, 1023, &req), -EINVAL);
	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, woff, 1024, &req), 0);

	/* W4: enabled in both places, the status the first 256 */
	req.enable[1] = 1ULL << 3;
	gr_status_applied(m.region, woff, &req, req.enable, 0, 0);
	CU_ASSERT_EQUAL(le64toh(st->enabled[1]), 1ULL << 3);
	CU_ASSERT_EQUAL(le64toh(w->enabled[1]), 1ULL << 3);
	CU_ASSERT_EQUAL(le64toh(w->enabled[10]), 1ULL << 2);
	CU_ASSERT_EQUAL(le64toh(w->enabled[15]), 1ULL << 63);
	CU_ASSERT_EQUAL(le64toh(st->ctrl_ack), req.seq);

	/* W2: the count in both places, the status at most desc_capacity */
	gr_status_set_live(m.region, &lay, 200);
	CU_ASSERT_EQUAL(le32toh(w->desc_live), 200);
	CU_ASSERT_EQUAL(le32toh(st->desc_live), 200);
	gr_status_set_live(m.region, &lay, 700);
	CU_ASSERT_EQUAL(le32toh(w->desc_live), 700);
	CU_ASSERT_EQUAL(le32toh(st->desc_live), GR_MAX_EVENTS);
	lay.wide_offset = 0;
	gr_status_set_live(m.region, &lay, 40);
	CU_ASSERT_EQUAL(le32toh(w->desc_live), 700);
	CU_ASSERT_EQUAL(le32toh(st->desc_live), 40);
	free(m.region);
}

/* v1.12 (9.5, G42): the guest's bounds on polled sync answers */
static void test_sync_poll_bounds(void)
{
	const u64 t0 = 1000000000ULL, us = 1000;

	CU_ASSERT_TRUE(gr_sync_poll_may_start(0, t0));
	CU_ASSERT_FALSE(gr_sync_poll_may_start(t0, t0 + GR_SYNC_POLL_GAP_NS - 1));
	CU_ASSERT_TRUE(gr_sync_poll_may_start(t0, t0 + GR_SYNC_POLL_GAP_NS));
	/* the first wait may last the burst, later ones GR_SYNC_POLL_WAIT_NS */
	CU_ASSERT_TRUE(gr_sync_poll_more(t0, t0, 0, t0 + 150 * us));
	CU_ASSERT_FALSE(gr_sync_poll_more(t0, t0, 0,
					  t0 + GR_SYNC_POLL_BURST_NS + 1));
	CU_ASSERT_TRUE(gr_sync_poll_more(t0, t0 + 10 * us, 1, t0 + 60 * us));
	CU_ASSERT_FALSE(gr_sync_poll_more(t0, t0 + 10 * us, 1, t0 + 61 * us));
	/* the burst's whole length, then its number of answers */
	CU_ASSERT_FALSE(gr_sync_poll_more(t0, t0 + 190 * us, 3, t0 + 201 * us));
	CU_ASSERT_TRUE(gr_sync_poll_more(t0, t0 + 20 * us, 6, t0 + 21 * us));
	CU_ASSERT_FALSE(gr_sync_poll_more(t0, t0 + 20 * us, GR_SYNC_POLL_MAX,
					  t0 + 21 * us));
}

static const struct gr_test tests[] = {
	GR_TEST(test_sync_poll_bounds),
	GR_TEST(test_wide_area_enable_and_status),
	GR_TEST(test_pass_applies_a_new_block_once),
	GR_TEST(test_pass_refuses_a_bad_block_but_acts_on_its_counters),
	GR_TEST(test_pass_defaults_without_a_host_and_back),
	GR_TEST(test_pass_deferred_does_nothing_and_acks_nothing),
	GR_TEST(test_ratelimit_check),
	GR_TEST(test_request_after_quiet_interval_runs_at_once),
	GR_TEST(test_tight_loop_gets_bounded_work_and_last_request_runs),
	GR_TEST(test_filter_area_read_and_refusal),
};

int main(void)
{
	return gr_test_main("guest_ctl", tests, GR_ARRAY_SIZE(tests), NULL,
			    NULL);
}
