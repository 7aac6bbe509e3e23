// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the guest's control-pass rate limit (spec G28,
 * guest-module/gr_proto.c: gr_ratelimit_check()), built in userspace
 * through tests/shim/gr_user_env.h.
 *
 * The guest's pass is modelled as gr_ctl_pass() runs it: read the host's
 * block once (gr_ctrl_read()), and when a flush or reset request is
 * pending ask the rate limit before acting; acknowledge only what was
 * done. The host is hostile: it bumps its request counters in a tight
 * loop and rings after every bump (one pass per bump, the worst G21
 * allows). Time is a virtual clock, so the bounds are exact.
 */
#include "gr_test.h"

#include "gr_proto.h"

#define REGION_SIZE	(64 * 1024)
#define NS_PER_S	1000000000ULL

struct model {
	u8 *region;
	struct gr_ratelimit rl;
	u64 flush_ack;
	u64 reset_ack;
	u64 runs;		/* costly steps carried out */
	u64 passes;		/* passes that found a request pending */
	u64 retry_at;		/* when the deferred retry fires, 0 = none */
};

static void model_init(struct model *m)
{
	struct gr_host_ctrl *c;

	memset(m, 0, sizeof(*m));
	m->region = calloc(1, REGION_SIZE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m->region);
	m->rl.interval_ns = GR_CTL_MIN_INTERVAL_NS;
	c = gr_ctrl(m->region);
	c->magic = htole64(GR_CTRL_MAGIC);
	c->abi_major = htole16(GR_ABI_MAJOR);
	c->ctrl_size = htole32(sizeof(*c));
	c->host_peer_id = htole32(GR_NO_PEER);
	c->seq = htole64(1);
}

static void host_bump(struct model *m, __le64 *field)
{
	(void)m;
	/* the host's release store of a request counter (spec 10 #11) */
	smp_store_release(field, htole64(le64toh(*field) + 1));
}

/* One control pass of the guest at time @now, as gr_ctl_pass() runs it */
static void guest_pass(struct model *m, u64 now)
{
	struct gr_ctrl_req req;
	u64 wait;

	CU_ASSERT_EQUAL_FATAL(gr_ctrl_read(m->region, 1, &req), 0);
	if (req.flush_req == m->flush_ack && req.reset_req == m->reset_ack)
		return;
	m->passes++;
	wait = gr_ratelimit_check(&m->rl, now);
	if (wait) {
		/* schedule_delayed_work() of a pending work does nothing */
		if (!m->retry_at)
			m->retry_at = now + wait;
		return;
	}
	m->runs++;
	if (req.reset_req != m->reset_ack) {
		gr_status_ack_reset(m->region, req.reset_req);
		m->reset_ack = req.reset_req;
	}
	if (req.flush_req != m->flush_ack) {
		gr_status_ack_flush(m->region, req.flush_req);
		m->flush_ack = req.flush_req;
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
	limit = span / GR_CTL_MIN_INTERVAL_NS + 1;
	printf("\n  %llu passes with a request pending, %llu costly runs (limit %llu), %llu deferred\n",
	       (unsigned long long)m.passes, (unsigned long long)m.runs,
	       (unsigned long long)limit, (unsigned long long)m.rl.deferred);
	CU_ASSERT(m.runs <= limit);
	CU_ASSERT(m.runs >= limit - 2);		/* bounded, not starved */
	CU_ASSERT_EQUAL(m.rl.deferred, m.passes - m.runs);
	CU_ASSERT(m.passes > 100 * m.runs);

	/* the host stops; no doorbell, only the retry that is pending */
	stop = now;
	CU_ASSERT(le64toh(c->flush_req) != m.flush_ack ||
		  le64toh(c->reset_req) != m.reset_ack);
	CU_ASSERT(m.retry_at != 0);
	CU_ASSERT(m.retry_at - stop <= GR_CTL_MIN_INTERVAL_NS);
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
	now += GR_CTL_MIN_INTERVAL_NS / 4;
	host_bump(&m, &c->flush_req);
	guest_pass(&m, now);
	CU_ASSERT_EQUAL(m.runs, 1);
	CU_ASSERT_EQUAL(m.retry_at, NS_PER_S + GR_CTL_MIN_INTERVAL_NS);
	guest_retry(&m, m.retry_at);
	CU_ASSERT_EQUAL(m.runs, 2);
	CU_ASSERT_EQUAL(m.flush_ack, 2);
	/* quiet for longer than the interval: the next runs at once */
	now = m.rl.last_ns + GR_CTL_MIN_INTERVAL_NS;
	host_bump(&m, &c->reset_req);
	guest_pass(&m, now);
	CU_ASSERT_EQUAL(m.runs, 3);
	CU_ASSERT_EQUAL(m.reset_ack, 1);
	CU_ASSERT_EQUAL(m.rl.deferred, 1);
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

	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, 2, &req), 0);
	CU_ASSERT_EQUAL(req.ctrl_size, 512);
	CU_ASSERT_EQUAL(gr_ctrl_read_filters(m.region, &req, 2, bounds, &set,
					     &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_AREA);
	CU_ASSERT_EQUAL(err.slot, GR_FILTER_NO_SLOT);

	c->ctrl_size = htole32(GR_FILTER_CTRL_SIZE);
	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, 2, &req), 0);
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
	CU_ASSERT_EQUAL(gr_ctrl_read(m.region, 2, &req), -EPROTONOSUPPORT);
	free(m.region);
}

static const struct gr_test tests[] = {
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
