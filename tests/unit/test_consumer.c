// SPDX-License-Identifier: GPL-2.0
/*
 * test_consumer.c - host-agent/agent/consumer.c alone: from a guest's
 * rings in real shared memory to stream files, through a real io_uring
 * loop, with no vm.c, peer.c or session.c around it
 *
 * A VM is put together by hand (a memfd region holding a published
 * header, one event and two rings; a session directory under a temporary
 * store; the loop of loop.c), the guest's side is played by writing
 * packets, commit records and produced straight into the region, and
 * the loop is run until the writes completed. What the consumer reports
 * for vm.c (cons.kick, cons.stop, cons.arm_pending) is checked where
 * it used to call up.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gr_build.h"
#include "gr_test.h"

#include "vm.h"

#define T_REGION	(1ULL << 16)	/* 64 KiB */
#define T_RINGS		2
#define T_S		4096
#define T_N		4
#define T_DESC_OFF	0x2000
#define T_RING_OFF	0x3000
#define T_REC_OFF	0x3100		/* 2 * 4 * 16 bytes */
#define T_DATA_OFF	0x4000		/* 2 * 4 * 4096 bytes, ends 0xc000 */
#define T_INSTANCE	0x0102030405060708ULL
#define T_REC_BYTES	72		/* a sched_switch record: 16 + 56 */
#define T_CONTENT	(sizeof(struct gr_packet_header) + 2 * T_REC_BYTES)

struct t_vm {
	struct gr_agent agent;
	struct gr_vm vm;
	struct gr_event_desc desc;
	struct gr_event_view ev;
	char dir[64];
	int memfd;
};

/* A published region in a memfd, validated as vm.c's try_attach() does */
static void t_region(struct t_vm *t, uint64_t features)
{
	const struct gr_build_layout l = {
		.region_size = T_REGION, .nr_rings = T_RINGS,
		.nr_cpus = T_RINGS, .subbuf_size = T_S, .n_subbufs = T_N,
		.desc_offset = T_DESC_OFF, .desc_count = 1,
		.ring_offset = T_RING_OFF, .rec_offset = T_REC_OFF,
		.data_offset = T_DATA_OFF, .max_event_size = 1024,
		.clock_freq = 1000000000ULL, .features = features,
		.instance_id = T_INSTANCE, .kernel_release = "6.1.0-56-amd64",
		.nodename = "guest1", .boot = 1,
	};
	struct gr_vm *vm = &t->vm;
	const char *why = NULL;
	uint8_t *r;

	t->memfd = memfd_create("test_consumer", MFD_CLOEXEC);
	CU_ASSERT_FATAL(t->memfd >= 0);
	CU_ASSERT_FATAL(ftruncate(t->memfd, T_REGION) == 0);
	r = mmap(NULL, T_REGION, PROT_READ | PROT_WRITE, MAP_SHARED,
		 t->memfd, 0);
	CU_ASSERT_FATAL(r != MAP_FAILED);
	gr_build_hdr((struct gr_region_hdr *)r, &l);
	gr_build_sched_switch((struct gr_event_desc *)(r + T_DESC_OFF), 0,
			      GR_FIELD_F_HEX);
	vm->region = r;
	vm->size = T_REGION;
	CU_ASSERT_FATAL(gr_check_region_hdr((struct gr_region_hdr *)r,
					    T_REGION, &vm->view, &why) == 0);
	memcpy(&t->desc, r + T_DESC_OFF, sizeof(t->desc));
	CU_ASSERT_FATAL(gr_check_event_desc(&vm->view, &t->desc, 0, &t->ev,
					    &why) == 0);
	CU_ASSERT_FATAL(gr_check_families(&vm->view, &t->ev, 1, &why) == 0);
	vm->events = &t->ev;
	vm->desc_copy = &t->desc;
	vm->instance_id = T_INSTANCE;
}

/* An attached VM in stream mode with a session directory and open rings */
static struct t_vm *t_open(uint64_t features, bool verify, uint64_t quota)
{
	struct t_vm *t = calloc(1, sizeof(*t));
	struct gr_vm *vm;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	vm = &t->vm;
	CU_ASSERT_FATAL(gr_loop_init(&t->agent.loop, 64) == 0);
	snprintf(t->dir, sizeof(t->dir), "/tmp/test_consumer.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(t->dir));
	vm->agent = &t->agent;
	snprintf(vm->opts.name, sizeof(vm->opts.name), "vm1");
	vm->opts.mode = GR_MODE_STREAM;
	vm->opts.verify = verify;
	vm->opts.io_writev = true;
	vm->opts.quota = quota;
	vm->state = GR_VM_ATTACHED;
	vm->sess.vm_fd = -1;
	cons_init(&vm->cons);
	t_region(t, features);
	snprintf(vm->sess.name, sizeof(vm->sess.name), "session");
	vm->sess.fd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CU_ASSERT_FATAL(vm->sess.fd >= 0);
	CU_ASSERT_FATAL(cons_open_rings(vm, false) == 0);
	return t;
}

static void t_close(struct t_vm *t)
{
	char path[128];
	unsigned int i;

	CU_ASSERT(cons_idle(&t->vm));
	cons_close_rings(&t->vm);
	for (i = 0; i < T_RINGS; i++) {
		snprintf(path, sizeof(path), "%s/stream_%u", t->dir, i);
		unlink(path);
	}
	close(t->vm.sess.fd);
	rmdir(t->dir);
	munmap(t->vm.region, T_REGION);
	close(t->memfd);
	gr_loop_finish(&t->agent.loop);
	free(t);
}

static struct gr_ring *t_ring(struct t_vm *t, unsigned int ring)
{
	return vm_ring(&t->vm, ring);
}

/*
 * The guest closes sub-buffer @seq of @ring: a packet header, two
 * sched_switch records, its commit record, then produced = @seq + 1
 * with release (the order of spec 10 #5, #6)
 */
static void t_produce(struct t_vm *t, unsigned int ring, uint64_t seq)
{
	const struct gr_view *v = &t->vm.view;
	uint32_t pos = gr_view_slot(v, seq);
	uint8_t *sub = t->vm.region + gr_view_subbuf_off(v, ring, pos);
	const struct gr_build_packet p = {
		.ring = ring, .cpu = ring, .ts_begin = 100 * (seq + 1),
		.ts_end = 100 * (seq + 1) + 50, .content_bytes = T_CONTENT,
		.packet_bytes = T_S, .seq = seq,
	};
	uint8_t payload[56] = { 0 };
	uint32_t off = sizeof(struct gr_packet_header);

	memset(sub, 0, T_S);
	gr_build_packet_header((struct gr_packet_header *)sub, &p);
	off += gr_build_record(sub + off, 0, 1, p.ts_begin + 10, payload,
			       sizeof(payload));
	gr_build_record(sub + off, 0, 2, p.ts_begin + 20, payload,
			sizeof(payload));
	gr_build_commit((struct gr_subbuf_rec *)(t->vm.region +
			gr_view_rec_off(v, ring, pos)), seq, T_CONTENT);
	__atomic_store_n(&t_ring(t, ring)->prod.produced, htole64(seq + 1),
			 __ATOMIC_RELEASE);
}

static uint64_t t_consumed(struct t_vm *t, unsigned int ring)
{
	return le64toh(__atomic_load_n(&t_ring(t, ring)->cons.consumed,
				       __ATOMIC_ACQUIRE));
}

/* Run the loop until no write is in flight (at most 5 s) */
static void t_complete(struct t_vm *t)
{
	int i;

	for (i = 0; i < 500 && !cons_idle(&t->vm); i++)
		gr_loop_run_once(&t->agent.loop, 10000000ULL);
	CU_ASSERT(cons_idle(&t->vm));
}

static off_t t_file_size(struct t_vm *t, unsigned int ring)
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
	struct t_vm *t = t_open(0, false, 0);
	struct gr_ring_state *r;

	t_produce(t, 1, 0);
	t_produce(t, 1, 1);
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
	struct t_vm *t = t_open(0, true, 0);
	struct gr_packet_header h;
	uint8_t buf[T_CONTENT], *sub;
	char path[128];
	int fd;

	t_produce(t, 0, 0);
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
	struct t_vm *t = t_open(0, false, 0);
	uint8_t *sub;

	t_produce(t, 0, 0);
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
	t_produce(t, 0, 1);
	cons_drain(&t->vm);
	t_complete(t);
	CU_ASSERT_EQUAL(t->vm.st.packets, 1);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 2);
	CU_ASSERT_EQUAL(t_file_size(t, 0), T_CONTENT);
	t_close(t);
}

static void test_bad_record_dropped_in_verify_mode(void)
{
	struct t_vm *t = t_open(0, true, 0);
	uint8_t *sub;

	t_produce(t, 1, 0);
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
	struct t_vm *t = t_open(0, false, T_CONTENT + T_CONTENT / 2);

	t_produce(t, 0, 0);
	t_produce(t, 0, 1);
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
	struct t_vm *t = t_open(GR_F_EVENT_IDX, false, 0);

	/* the guest waits for consumed to pass 5: no doorbell for 1 */
	t_ring(t, 0)->prod.cons_event = htole64(5);
	t_produce(t, 0, 0);
	cons_drain(&t->vm);
	t_complete(t);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 1);
	CU_ASSERT_FALSE(t->vm.cons.kick);
	/* it waits for 1 -> 2 */
	t_ring(t, 0)->prod.cons_event = htole64(1);
	t_produce(t, 0, 1);
	cons_drain(&t->vm);
	t_complete(t);
	CU_ASSERT_EQUAL(t_consumed(t, 0), 2);
	CU_ASSERT_TRUE(t->vm.cons.kick);
	t_close(t);
}

static void test_arm_event_idx_quiet_ring_asks_for_next(void)
{
	struct t_vm *t = t_open(GR_F_EVENT_IDX, false, 0);

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
	struct t_vm *t = t_open(0, false, 0);
	struct gr_region_hdr *hdr = (struct gr_region_hdr *)t->vm.region;

	t_produce(t, 0, 0);
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
