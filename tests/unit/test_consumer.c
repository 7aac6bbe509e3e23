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
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gr_agent_vm.h"
#include "gr_test.h"
#include "stored_check.h"

#define T_REC_BYTES	GR_AVM_REC_BYTES
#define T_CONTENT	GR_AVM_CONTENT
#define T_INSTANCE	GR_AVM_INSTANCE

/* the VM of gr_agent_vm.c, its rings open as vm.c opens them */
static struct gr_avm *t_open(uint64_t features, enum gr_verify verify,
			     uint64_t quota)
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

/* the stored header of packet @n of ring @ring (content-only packets) */
static void t_stored_hdr(struct gr_avm *t, unsigned int ring, unsigned int n,
			 struct gr_packet_header *h)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/stream_%u", t->dir, ring);
	fd = open(path, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(pread(fd, h, sizeof(*h), (off_t)n * T_CONTENT),
			(ssize_t)sizeof(*h));
	close(fd);
}

/*
 * spec H31: with verify off and GR_F_LAST_RECORD the stored content_size
 * comes from the declared last record; a hostile one is counted and the
 * walk gives the same end; the packet is stored either way. Verify on
 * walks and ignores the field.
 */
static void test_last_record_used_refused_counted(void)
{
	enum gr_verify modes[] = { GR_VERIFY_OFF, GR_VERIFY_ON };
	struct gr_packet_header h;
	struct gr_subbuf_rec *rec;
	struct gr_avm *t;
	unsigned int m, n;

	for (m = 0; m < 2; m++) {
		t = t_open(GR_F_LAST_RECORD, modes[m], 0);
		gr_avm_produce(t, 0, 0);
		cons_drain(&t->vm);
		t_complete(t);
		CU_ASSERT_EQUAL(t->vm.st.last_record_refused, 0);
		for (n = 1; n < 3; n++) {
			gr_avm_produce(t, 0, n);
			rec = (struct gr_subbuf_rec *)(t->vm.region +
				gr_view_rec_off(&t->vm.view, 0,
						gr_view_slot(&t->vm.view, n)));
			rec->last_record = htole32(n == 1 ? 148 : T_CONTENT);
			cons_drain(&t->vm);
			t_complete(t);
		}
		CU_ASSERT_EQUAL(t->vm.st.last_record_refused,
				modes[m] == GR_VERIFY_OFF ? 2 : 0);
		CU_ASSERT_EQUAL(t->vm.st.packets, 3);
		CU_ASSERT_EQUAL(t->vm.st.invalid, 0);
		for (n = 0; n < 3; n++) {
			t_stored_hdr(t, 0, n, &h);
			CU_ASSERT_EQUAL(le64toh(h.content_size),
					8 * T_CONTENT);
		}
		t_close(t);
	}
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

/* --- --verify stored ------------------------------------------------------ */

/*
 * The first byte of the second record of sub-buffer @seq of @ring becomes
 * @val (7: the record fails the check); return: what it was
 */
static uint8_t t_set_rec_byte(struct gr_avm *t, unsigned int ring,
			      uint64_t seq, uint8_t val)
{
	const struct gr_view *v = &t->vm.view;
	uint8_t *sub = t->vm.region +
		       gr_view_subbuf_off(v, ring, gr_view_slot(v, seq));
	uint8_t old = sub[sizeof(struct gr_packet_header) + T_REC_BYTES];

	sub[sizeof(struct gr_packet_header) + T_REC_BYTES] = val;
	return old;
}

/*
 * Let the kernel run the submitted writes and wait until @n completed,
 * without handling their completions: the agent's check has not run yet
 */
static void t_writes_land(struct gr_avm *t, unsigned int n)
{
	struct io_uring_cqe *cqe;

	CU_ASSERT_FATAL(io_uring_submit(&t->agent.loop.ring) >= 0);
	CU_ASSERT_FATAL(io_uring_wait_cqe_nr(&t->agent.loop.ring, &cqe, n) == 0);
}

/* the stored packet at @off of @ring passes the check a reader needs */
static int t_stored_ok(struct gr_avm *t, unsigned int ring, off_t off)
{
	const char *why = NULL;

	/* a mapping past the file's end would fault */
	if (t_file_size(t, ring) < off + (off_t)T_CONTENT)
		return -ENODATA;
	return gr_stored_check_file(t->vm.cons.rings[ring].fd, off, T_CONTENT,
				    &t->vm.view, t->vm.events,
				    t->vm.view.desc_count, &why);
}

static void test_stored_guest_change_under_write_rewritten(void)
{
	struct gr_avm *t = t_open(0, GR_VERIFY_STORED, 0);
	uint8_t b, good;

	gr_avm_produce(t, 0, 0);
	/* the guest spoils a record while its packet is written */
	good = t_set_rec_byte(t, 0, 0, 7);
	cons_drain(&t->vm);
	t_writes_land(t, 1);
	/* on disk and bad, but not checked: nothing reported consumed */
	CU_ASSERT_EQUAL(t_file_size(t, 0), T_CONTENT);
	CU_ASSERT_NOT_EQUAL(t_stored_ok(t, 0, 0), 0);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 0);
	CU_ASSERT_EQUAL(t->vm.st.packets, 0);
	/* ... and puts it back before the check: rewritten from a copy */
	t_set_rec_byte(t, 0, 0, good);
	t_complete(t);
	CU_ASSERT_EQUAL(t->vm.st.rewritten, 1);
	CU_ASSERT_EQUAL(t->vm.st.packets, 1);
	CU_ASSERT_EQUAL(t->vm.st.invalid, 0);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 1);
	CU_ASSERT_EQUAL(t_file_size(t, 0), T_CONTENT);
	CU_ASSERT_EQUAL(t_stored_ok(t, 0, 0), 0);
	CU_ASSERT_EQUAL(pread(t->vm.cons.rings[0].fd, &b, 1,
			      sizeof(struct gr_packet_header) + T_REC_BYTES), 1);
	CU_ASSERT_EQUAL(b, good);
	CU_ASSERT_EQUAL(t->vm.cons.stop, GR_STOP_NONE);
	t_close(t);
}

static void test_stored_bad_packet_never_consumed_stream_cut(void)
{
	struct gr_avm *t = t_open(0, GR_VERIFY_STORED, 0);

	gr_avm_produce(t, 0, 0);
	gr_avm_produce(t, 0, 1);
	/* packet 0 stays bad: no good copy can be had */
	t_set_rec_byte(t, 0, 0, 7);
	cons_drain(&t->vm);
	t_writes_land(t, 2);
	CU_ASSERT_EQUAL(t_file_size(t, 0), 2 * T_CONTENT);
	t_complete(t);
	/* neither is consumed (the good one comes after the bad one) */
	CU_ASSERT_EQUAL(t_consumed(t, 0), 0);
	CU_ASSERT_EQUAL(t->vm.st.invalid, 1);
	CU_ASSERT_EQUAL(t->vm.st.invalid_records, 1);
	CU_ASSERT_EQUAL(t->vm.st.rewritten, 0);
	CU_ASSERT_EQUAL(t->vm.cons.stop, GR_STOP_INVALID);
	/* H12: cut back before the bad packet */
	CU_ASSERT_EQUAL(t_file_size(t, 0), 0);
	t_close(t);
}

static void test_stored_resume_rechecks_last_packets(void)
{
	struct gr_avm *t = t_open(0, GR_VERIFY_STORED, 0);
	struct gr_ring_state *r;
	uint8_t bad = 7;

	gr_avm_produce(t, 0, 0);
	gr_avm_produce(t, 0, 1);
	cons_drain(&t->vm);
	t_complete(t);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 2);
	/*
	 * A crash between packet 1's write and its check: the guest had
	 * spoiled it under the write, consumed had not passed it
	 */
	CU_ASSERT_EQUAL(pwrite(t->vm.cons.rings[0].fd, &bad, 1,
			       T_CONTENT + sizeof(struct gr_packet_header) +
			       T_REC_BYTES), 1);
	__atomic_store_n(&t_ring(t, 0)->cons.consumed, htole64(1),
			 __ATOMIC_RELEASE);
	cons_close_rings(&t->vm);
	CU_ASSERT_FATAL(cons_open_rings(&t->vm, true) == 0);
	r = &t->vm.cons.rings[0];
	/* packet 0 checks good and stays; packet 1 is cut and read again */
	CU_ASSERT_EQUAL(t_file_size(t, 0), T_CONTENT);
	CU_ASSERT_EQUAL(r->next, 1);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 1);
	cons_drain(&t->vm);
	t_complete(t);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 2);
	CU_ASSERT_EQUAL(t_file_size(t, 0), 2 * T_CONTENT);
	CU_ASSERT_EQUAL(t_stored_ok(t, 0, 0), 0);
	CU_ASSERT_EQUAL(t_stored_ok(t, 0, T_CONTENT), 0);
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
	GR_TEST(test_last_record_used_refused_counted),
	GR_TEST(test_stored_guest_change_under_write_rewritten),
	GR_TEST(test_stored_bad_packet_never_consumed_stream_cut),
	GR_TEST(test_stored_resume_rechecks_last_packets),
};

int main(void)
{
	return gr_test_main("consumer", tests, GR_ARRAY_SIZE(tests), NULL, NULL);
}
