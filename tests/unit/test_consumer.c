// SPDX-License-Identifier: GPL-2.0
/*
 * test_consumer.c - host-agent/agent/consumer.c alone: from a guest's
 * rings in real shared memory to stream files, through a real io_uring
 * loop, with no vm.c, peer.c or session.c around it
 *
 * A VM is put together by hand (tests/lib/gr_agent_vm.c: a memfd region
 * holding a published header, one event and two rings; a session
 * directory; the loop of loop.c), the guest's side is played by writing
 * packets, commit records and produced straight into the region, and
 * the loop is run until the writes completed. What the consumer reports
 * for vm.c (cons.kick, cons.stop, cons.arm_pending) is checked where
 * it used to call up.
 */
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gr_agent_vm.h"
#include "gr_test.h"

#define T_REC_BYTES	GR_AVM_REC_BYTES
#define T_CONTENT	GR_AVM_CONTENT
#define T_INSTANCE	GR_AVM_INSTANCE

/* the VM of gr_agent_vm.c, its rings open as vm.c opens them */
static struct gr_avm *t_open(uint64_t features, bool verify, uint64_t quota)
{
	struct gr_avm *t = gr_avm_new(features, verify, quota);

	CU_ASSERT_FATAL(cons_open_rings(&t->vm, false) == 0);
	return t;
}

static void t_close(struct gr_avm *t)
{
	CU_ASSERT(cons_idle(&t->vm));
	gr_avm_free(t);
}

static struct gr_ring *t_ring(struct gr_avm *t, unsigned int ring)
{
	return vm_ring(&t->vm, ring);
}

static uint64_t t_consumed(struct gr_avm *t, unsigned int ring)
{
	return le64toh(__atomic_load_n(&t_ring(t, ring)->cons.consumed,
				       __ATOMIC_ACQUIRE));
}

/* Run the loop until no write is in flight (at most 5 s) */
static void t_complete(struct gr_avm *t)
{
	int i;

	for (i = 0; i < 500 && !cons_idle(&t->vm); i++)
		gr_loop_run_once(&t->agent.loop, 10000000ULL);
	CU_ASSERT(cons_idle(&t->vm));
}

static off_t t_file_size(struct gr_avm *t, unsigned int ring)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/stream_%u", t->dir, ring);
	if (stat(path, &st))
		return -1;
	return st.st_size;
}

/* --- the tests ------------------------------------------------------------ */

static void test_ready_subbufs_written_consumed_after_completion(void)
{
	struct gr_avm *t = t_open(0, false, 0);
	struct gr_ring_state *r;

	gr_avm_produce(t, 1, 0);
	gr_avm_produce(t, 1, 1);
	cons_drain(&t->vm);
	r = &t->vm.cons.rings[1];
	/* two writes submitted, nothing consumed before they complete (H13) */
	CU_ASSERT_EQUAL(r->inflight, 2);
	CU_ASSERT_EQUAL(r->next, 2);
	CU_ASSERT_EQUAL(t_consumed(t, 1), 0);
	CU_ASSERT_EQUAL(t->vm.cons.taken, 2);
	CU_ASSERT_FALSE(t->vm.cons.kick);
	t_complete(t);
	CU_ASSERT_EQUAL(t_consumed(t, 1), 2);
	CU_ASSERT_EQUAL(t->vm.st.packets, 2);
	CU_ASSERT_EQUAL(t->vm.st.bytes, 2 * T_CONTENT);
	CU_ASSERT_EQUAL(t->vm.usage, 2 * T_CONTENT);
	CU_ASSERT_EQUAL(t_file_size(t, 1), 2 * T_CONTENT);
	CU_ASSERT_EQUAL(t_file_size(t, 0), 0);
	/* reported, not called: the doorbell (no event index) and a re-arm */
	CU_ASSERT_TRUE(t->vm.cons.kick);
	CU_ASSERT_TRUE(t->vm.cons.arm_pending);
	CU_ASSERT_EQUAL(t->vm.cons.stop, GR_STOP_NONE);
	t_close(t);
}

static void test_stored_packet_is_the_checked_header_and_content(void)
{
	struct gr_avm *t = t_open(0, true, 0);
	struct gr_packet_header h;
	uint8_t buf[T_CONTENT], *sub;
	char path[128];
	int fd;

	gr_avm_produce(t, 0, 0);
	cons_drain(&t->vm);
	/* the guest scribbles on its header while the write is in flight */
	sub = t->vm.region + gr_view_subbuf_off(&t->vm.view, 0, 0);
	memset(sub, 0xff, 8);
	t_complete(t);
	snprintf(path, sizeof(path), "%s/stream_0", t->dir);
	fd = open(path, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(read(fd, buf, sizeof(buf)), (ssize_t)T_CONTENT);
	close(fd);
	memcpy(&h, buf, sizeof(h));
	CU_ASSERT_EQUAL(le32toh(h.magic), 0xC1FC1FC1);
	/* content only: packet_size is the records' end (spec 6.12) */
	CU_ASSERT_EQUAL(le64toh(h.packet_size), 8 * T_CONTENT);
	CU_ASSERT_EQUAL(le64toh(h.content_size), 8 * T_CONTENT);
	CU_ASSERT_EQUAL(le64toh(h.packet_seq_num), 0);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 1);
	t_close(t);
}

static void test_bad_header_dropped_counted_not_stored(void)
{
	struct gr_avm *t = t_open(0, false, 0);
	uint8_t *sub;

	gr_avm_produce(t, 0, 0);
	sub = t->vm.region + gr_view_subbuf_off(&t->vm.view, 0, 0);
	((struct gr_packet_header *)sub)->magic = htole32(0xdeadbeef);
	cons_drain(&t->vm);
	/* nothing submitted; consumed passes it at once (H10) */
	CU_ASSERT_EQUAL(t->vm.cons.rings[0].inflight, 0);
	CU_ASSERT_EQUAL(t->vm.st.invalid, 1);
	CU_ASSERT_EQUAL(t->vm.st.packets, 0);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 1);
	CU_ASSERT_EQUAL(t_file_size(t, 0), 0);
	/* the next good one is stored */
	gr_avm_produce(t, 0, 1);
	cons_drain(&t->vm);
	t_complete(t);
	CU_ASSERT_EQUAL(t->vm.st.packets, 1);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 2);
	CU_ASSERT_EQUAL(t_file_size(t, 0), T_CONTENT);
	t_close(t);
}

static void test_bad_record_dropped_in_verify_mode(void)
{
	struct gr_avm *t = t_open(0, true, 0);
	uint8_t *sub;

	gr_avm_produce(t, 1, 0);
	sub = t->vm.region + gr_view_subbuf_off(&t->vm.view, 1, 0);
	/* the second record names an event the guest never published */
	sub[sizeof(struct gr_packet_header) + T_REC_BYTES] = 7;
	cons_drain(&t->vm);
	CU_ASSERT_EQUAL(t->vm.cons.rings[1].inflight, 0);
	CU_ASSERT_EQUAL(t->vm.st.invalid, 1);
	CU_ASSERT_EQUAL(t->vm.st.invalid_records, 1);
	CU_ASSERT_EQUAL(t_consumed(t, 1), 1);
	CU_ASSERT_EQUAL(t_file_size(t, 1), 0);
	t_close(t);
}

static void test_quota_stops_stream_and_reports(void)
{
	struct gr_avm *t = t_open(0, false, T_CONTENT + T_CONTENT / 2);

	gr_avm_produce(t, 0, 0);
	gr_avm_produce(t, 0, 1);
	cons_drain(&t->vm);
	t_complete(t);
	/* the first fits, the second would pass the quota (H23) */
	CU_ASSERT_EQUAL(t->vm.st.packets, 1);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 1);
	CU_ASSERT_EQUAL(t->vm.cons.stop, GR_STOP_QUOTA);
	CU_ASSERT_TRUE(t->vm.cons.rings[0].stopped);
	CU_ASSERT_TRUE(t->vm.cons.rings[1].stopped);
	/* vm.c decides what the VM's stop means; the consumer only reports */
	CU_ASSERT_EQUAL(t->vm.stop_reason, GR_STOP_NONE);
	CU_ASSERT_EQUAL(t_file_size(t, 0), T_CONTENT);
	t_close(t);
}

static void test_event_idx_kick_only_when_guest_waits(void)
{
	struct gr_avm *t = t_open(GR_F_EVENT_IDX, false, 0);

	/* the guest waits for consumed to pass 5: no doorbell for 1 */
	t_ring(t, 0)->prod.cons_event = htole64(5);
	gr_avm_produce(t, 0, 0);
	cons_drain(&t->vm);
	t_complete(t);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 1);
	CU_ASSERT_FALSE(t->vm.cons.kick);
	/* it waits for 1 -> 2 */
	t_ring(t, 0)->prod.cons_event = htole64(1);
	gr_avm_produce(t, 0, 1);
	cons_drain(&t->vm);
	t_complete(t);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 2);
	CU_ASSERT_TRUE(t->vm.cons.kick);
	t_close(t);
}

static void test_arm_event_idx_quiet_ring_asks_for_next(void)
{
	struct gr_avm *t = t_open(GR_F_EVENT_IDX, false, 0);

	t->vm.cons.arm_pending = true;
	cons_arm_event_idx(&t->vm);
	CU_ASSERT_FALSE(t->vm.cons.arm_pending);
	/* quiet rings (nothing stored yet): woken for the next sub-buffer */
	CU_ASSERT_EQUAL(le64toh(t_ring(t, 0)->cons.prod_event), 0);
	CU_ASSERT_EQUAL(le64toh(t_ring(t, 1)->cons.prod_event), 0);
	CU_ASSERT_TRUE(t->vm.cons.rings[0].armed);
	t_close(t);
}

static void test_republished_guest_gets_no_consumed_store(void)
{
	struct gr_avm *t = t_open(0, false, 0);
	struct gr_region_hdr *hdr = (struct gr_region_hdr *)t->vm.region;

	gr_avm_produce(t, 0, 0);
	cons_drain(&t->vm);
	/* the guest re-publishes while the write is in flight (spec 5.5) */
	hdr->instance_id = htole64(T_INSTANCE + 1);
	t_complete(t);
	CU_ASSERT_EQUAL(t->vm.st.packets, 1);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 0);	/* H7: not into another layout */
	CU_ASSERT_FALSE(t->vm.cons.kick);
	t_close(t);
}

static const struct gr_test tests[] = {
	GR_TEST(test_ready_subbufs_written_consumed_after_completion),
	GR_TEST(test_stored_packet_is_the_checked_header_and_content),
	GR_TEST(test_bad_header_dropped_counted_not_stored),
	GR_TEST(test_bad_record_dropped_in_verify_mode),
	GR_TEST(test_quota_stops_stream_and_reports),
	GR_TEST(test_event_idx_kick_only_when_guest_waits),
	GR_TEST(test_arm_event_idx_quiet_ring_asks_for_next),
	GR_TEST(test_republished_guest_gets_no_consumed_store),
};

int main(void)
{
	return gr_test_main("consumer", tests, GR_ARRAY_SIZE(tests), NULL, NULL);
}
