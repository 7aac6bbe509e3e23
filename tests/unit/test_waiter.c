// SPDX-License-Identifier: GPL-2.0
/*
 * test_waiter.c - host-agent/agent/waiter.c alone: flush, snapshot and
 * stop wait for the guest's acknowledgements and the consumer, answer
 * once, and hand the steps only vm.c may take (take the snapshot, close
 * the session) back as a return value instead of taking them
 *
 * The VM is tests/lib/gr_agent_vm.c's, with hostctl.c and consumer.c
 * real; the guest's side is played by writing its status block and
 * producing sub-buffers.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "gr_agent_vm.h"
#include "gr_test.h"

struct t_reply {
	int calls;
	int err;
	char msg[256];
};

static void t_done(void *arg, int err, const char *msg)
{
	struct t_reply *r = arg;

	r->calls++;
	r->err = err;
	snprintf(r->msg, sizeof(r->msg), "%s", msg ? msg : "");
}

static struct gr_avm *t_open(void)
{
	struct gr_avm *t = gr_avm_new(0, false, 0);

	hostctl_init(&t->vm);
	CU_ASSERT_FATAL(cons_open_rings(&t->vm, false) == 0);
	return t;
}

static void t_guest_ack_flush(struct gr_avm *t)
{
	__atomic_store_n(&gr_avm_status(t)->flush_ack,
			 gr_avm_ctrl(t)->flush_req, __ATOMIC_RELEASE);
}

static void t_guest_ack_settings(struct gr_avm *t)
{
	__atomic_store_n(&gr_avm_status(t)->ctrl_ack, gr_avm_ctrl(t)->seq,
			 __ATOMIC_RELEASE);
}

/* Run the loop until no write is in flight (at most 5 s) */
static void t_complete(struct gr_avm *t)
{
	int i;

	for (i = 0; i < 500 && !cons_idle(&t->vm); i++)
		gr_loop_run_once(&t->agent.loop, 10000000ULL);
	CU_ASSERT(cons_idle(&t->vm));
}

static void test_flush_answers_after_ack_and_data_on_disk(void)
{
	struct gr_avm *t = t_open();
	struct t_reply r = { 0 };

	CU_ASSERT_EQUAL(waiter_start(&t->vm, GR_WAIT_FLUSH, t_done, &r), 0);
	CU_ASSERT_EQUAL(le64toh(gr_avm_ctrl(t)->flush_req), 1);
	CU_ASSERT_TRUE(t->vm.hc.kick);
	CU_ASSERT_EQUAL(waiter_progress(&t->vm), GR_WAIT_STEP_NONE);
	CU_ASSERT_EQUAL(r.calls, 0);
	/* the guest closes a partial sub-buffer, then acknowledges */
	gr_avm_produce(t, 0, 0);
	t_guest_ack_flush(t);
	CU_ASSERT_EQUAL(waiter_progress(&t->vm), GR_WAIT_STEP_NONE);
	CU_ASSERT_EQUAL(r.calls, 0);		/* not on disk yet */
	cons_drain(&t->vm);
	t_complete(t);
	CU_ASSERT_EQUAL(waiter_progress(&t->vm), GR_WAIT_STEP_NONE);
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.err, 0);
	CU_ASSERT_STRING_EQUAL(r.msg, t->vm.sess.path);
	CU_ASSERT_FALSE(t->vm.waiter.active);
	gr_avm_free(t);
}

static void test_flush_times_out(void)
{
	struct gr_avm *t = t_open();
	struct t_reply r = { 0 };

	CU_ASSERT_EQUAL(waiter_start(&t->vm, GR_WAIT_FLUSH, t_done, &r), 0);
	t->vm.waiter.deadline_ns = gr_now_ns();	/* H17: bounded */
	waiter_progress(&t->vm);
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.err, -ETIMEDOUT);
	gr_avm_free(t);
}

static void test_one_command_at_a_time_and_only_attached(void)
{
	struct gr_avm *t = t_open();
	struct t_reply r = { 0 };

	CU_ASSERT_EQUAL(waiter_start(&t->vm, GR_WAIT_FLUSH, t_done, &r), 0);
	CU_ASSERT_EQUAL(waiter_start(&t->vm, GR_WAIT_STOP, t_done, &r),
			-EBUSY);
	waiter_cancel(&t->vm);
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.err, -ECANCELED);
	t->vm.state = GR_VM_STOPPED;
	CU_ASSERT_EQUAL(waiter_start(&t->vm, GR_WAIT_FLUSH, t_done, &r),
			-ENOTCONN);
	gr_avm_free(t);
}

static void test_stop_waits_for_settings_ack_then_flush_then_hands_back(void)
{
	struct gr_avm *t = t_open();
	struct t_reply r = { 0 };

	t->vm.tracing = 0;
	hostctl_publish(&t->vm);
	CU_ASSERT_EQUAL(waiter_start(&t->vm, GR_WAIT_STOP, t_done, &r), 0);
	/* spec 9.2: no flush before tracing 0 is acknowledged */
	CU_ASSERT_EQUAL(le64toh(gr_avm_ctrl(t)->flush_req), 0);
	CU_ASSERT_EQUAL(waiter_progress(&t->vm), GR_WAIT_STEP_NONE);
	t_guest_ack_settings(t);
	CU_ASSERT_EQUAL(waiter_progress(&t->vm), GR_WAIT_STEP_NONE);
	CU_ASSERT_EQUAL(le64toh(gr_avm_ctrl(t)->flush_req), 1);
	t_guest_ack_flush(t);
	/* the session is vm.c's to close: handed back, not closed here */
	CU_ASSERT_EQUAL(waiter_progress(&t->vm), GR_WAIT_STEP_STOP);
	CU_ASSERT_EQUAL(r.calls, 0);
	CU_ASSERT_TRUE(t->vm.waiter.active);
	CU_ASSERT_EQUAL(t->vm.state, GR_VM_ATTACHED);
	waiter_finish(&t->vm, 0, "done");
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(waiter_progress(&t->vm), GR_WAIT_STEP_NONE);
	gr_avm_free(t);
}

static void test_snapshot_step_waits_for_the_one_being_taken(void)
{
	struct gr_avm *t = t_open();
	struct t_reply r = { 0 };

	t->vm.opts.mode = GR_MODE_FLIGHT;
	CU_ASSERT_EQUAL(waiter_start(&t->vm, GR_WAIT_SNAPSHOT, t_done, &r),
			0);
	t_guest_ack_flush(t);
	/* another snapshot (QEMU left) is being taken: after it */
	t->vm.snap = (struct gr_snap *)&r;
	CU_ASSERT_EQUAL(waiter_progress(&t->vm), GR_WAIT_STEP_NONE);
	t->vm.snap = NULL;
	CU_ASSERT_EQUAL(waiter_progress(&t->vm), GR_WAIT_STEP_SNAPSHOT);
	CU_ASSERT_TRUE(t->vm.waiter.started);
	/* started: nothing more until vm.c answers */
	CU_ASSERT_EQUAL(waiter_progress(&t->vm), GR_WAIT_STEP_NONE);
	CU_ASSERT_EQUAL(r.calls, 0);
	waiter_finish(&t->vm, 0, "/store/vm1/snapshot-x");
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_STRING_EQUAL(r.msg, "/store/vm1/snapshot-x");
	gr_avm_free(t);
}

static const struct gr_test tests[] = {
	GR_TEST(test_flush_answers_after_ack_and_data_on_disk),
	GR_TEST(test_flush_times_out),
	GR_TEST(test_one_command_at_a_time_and_only_attached),
	GR_TEST(test_stop_waits_for_settings_ack_then_flush_then_hands_back),
	GR_TEST(test_snapshot_step_waits_for_the_one_being_taken),
};

int main(void)
{
	return gr_test_main("waiter", tests, GR_ARRAY_SIZE(tests), NULL, NULL);
}
