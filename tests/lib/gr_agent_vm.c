// SPDX-License-Identifier: GPL-2.0
/*
 * gr_agent_vm.c - one VM of the agent put together by hand (see
 * gr_agent_vm.h)
 */
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gr_agent_vm.h"
#include "gr_build.h"
#include "gr_test.h"

#define DESC_OFF	0x2000
#define RING_OFF	0x3000
#define REC_OFF		0x3100		/* 2 * 4 * 16 bytes */
#define DATA_OFF	0x4000		/* 2 * 4 * 4096 bytes, ends 0xc000 */

/* A published region in a memfd, validated as vm.c's try_attach() does */
static void region(struct gr_avm *t, uint64_t features)
{
	const struct gr_build_layout l = {
		.region_size = GR_AVM_REGION, .nr_rings = GR_AVM_RINGS,
		.nr_cpus = GR_AVM_RINGS, .subbuf_size = GR_AVM_SUBBUF,
		.n_subbufs = GR_AVM_NSUB, .desc_offset = DESC_OFF,
		.desc_count = 1, .ring_offset = RING_OFF,
		.rec_offset = REC_OFF, .data_offset = DATA_OFF,
		.max_event_size = 1024, .clock_freq = 1000000000ULL,
		.features = features, .instance_id = GR_AVM_INSTANCE,
		.kernel_release = "6.1.0-56-amd64", .nodename = "guest1",
		.boot = 1,
	};
	struct gr_vm *vm = &t->vm;
	const char *why = NULL;
	uint8_t *r;

	t->memfd = memfd_create("gr_agent_vm", MFD_CLOEXEC);
	CU_ASSERT_FATAL(t->memfd >= 0);
	CU_ASSERT_FATAL(ftruncate(t->memfd, GR_AVM_REGION) == 0);
	r = mmap(NULL, GR_AVM_REGION, PROT_READ | PROT_WRITE, MAP_SHARED,
		 t->memfd, 0);
	CU_ASSERT_FATAL(r != MAP_FAILED);
	gr_build_hdr((struct gr_region_hdr *)r, &l);
	/* v1.7: slots for descriptors added at run time (spec 18) */
	if (features & GR_F_ANYEVENT) {
		((struct gr_region_hdr *)r)->desc_capacity =
			htole32(GR_AVM_CAPACITY);
		((struct gr_guest_status *)(r + GR_STATUS_OFFSET))->desc_live =
			htole32(1);
	}
	/* v1.13: the wide area after the data (spec 19) */
	if (features & GR_F_WIDE_EVENTS) {
		((struct gr_region_hdr *)r)->wide_capacity =
			htole32(GR_AVM_WIDE_CAPACITY);
		((struct gr_region_hdr *)r)->wide_offset =
			htole64(GR_AVM_WIDE_OFF);
		((struct gr_wide *)(r + GR_AVM_WIDE_OFF))->desc_live =
			htole32(1);
	}
	gr_build_sched_switch((struct gr_event_desc *)(r + DESC_OFF), 0,
			      GR_FIELD_F_HEX);
	vm->region = r;
	vm->size = GR_AVM_REGION;
	CU_ASSERT_FATAL(gr_check_region_hdr((struct gr_region_hdr *)r,
					    GR_AVM_REGION, &vm->view,
					    &why) == 0);
	memcpy(&t->desc.desc, r + DESC_OFF, sizeof(t->desc.desc));
	CU_ASSERT_FATAL(gr_check_event_desc(&vm->view, &t->desc.desc, 0, &t->ev,
					    &why) == 0);
	CU_ASSERT_FATAL(gr_check_families(&vm->view, &t->ev, 1, &why) == 0);
	vm->events = &t->ev;
	vm->desc_copy = &t->desc;
	vm->instance_id = GR_AVM_INSTANCE;
}

struct gr_avm *gr_avm_new(uint64_t features, enum gr_verify verify,
			  uint64_t quota)
{
	struct gr_avm *t = calloc(1, sizeof(*t));
	struct gr_vm *vm;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	vm = &t->vm;
	CU_ASSERT_FATAL(gr_loop_init(&t->agent.loop, 64) == 0);
	snprintf(t->dir, sizeof(t->dir), "/tmp/gr_agent_vm.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(t->dir));
	vm->agent = &t->agent;
	snprintf(vm->opts.name, sizeof(vm->opts.name), "vm1");
	vm->opts.mode = GR_MODE_STREAM;
	vm->opts.verify = verify;
	vm->opts.io_writev = true;
	vm->opts.quota = quota;
	vm->state = GR_VM_ATTACHED;
	vm->tracing = 1;
	vm->peer.guest_peer = -1;
	vm->sess.vm_fd = -1;
	cons_init(&vm->cons);
	region(t, features);
	snprintf(vm->sess.name, sizeof(vm->sess.name), "session");
	snprintf(vm->sess.path, sizeof(vm->sess.path), "%s", t->dir);
	vm->sess.fd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CU_ASSERT_FATAL(vm->sess.fd >= 0);
	return t;
}

void gr_avm_free(struct gr_avm *t)
{
	char path[128];
	unsigned int i;

	cons_close_rings(&t->vm);
	for (i = 0; i < GR_AVM_RINGS; i++) {
		snprintf(path, sizeof(path), "%s/stream_%u", t->dir, i);
		unlink(path);
	}
	close(t->vm.sess.fd);
	rmdir(t->dir);
	munmap(t->vm.region, GR_AVM_REGION);
	close(t->memfd);
	gr_loop_finish(&t->agent.loop);
	free(t->vm.ev_changes);
	free(t);
}

/*
 * A packet header, two sched_switch records, its commit record (with
 * last_record if the guest's features have GR_F_LAST_RECORD), then
 * produced = @seq + 1 with release (the order of spec 10 #5, #6)
 */
void gr_avm_produce(struct gr_avm *t, unsigned int ring, uint64_t seq)
{
	const struct gr_view *v = &t->vm.view;
	uint32_t slot = gr_view_slot(v, seq);
	uint8_t *sub = t->vm.region + gr_view_subbuf_off(v, ring, slot);
	const struct gr_build_packet p = {
		.ring = ring, .cpu = ring, .ts_begin = 100 * (seq + 1),
		.ts_end = 100 * (seq + 1) + 50,
		.content_bytes = GR_AVM_CONTENT,
		.packet_bytes = GR_AVM_SUBBUF, .seq = seq,
	};
	struct gr_subbuf_rec *rec = (struct gr_subbuf_rec *)
		(t->vm.region + gr_view_rec_off(v, ring, slot));
	uint8_t payload[56] = { 0 };
	uint32_t off = sizeof(struct gr_packet_header);

	memset(sub, 0, GR_AVM_SUBBUF);
	gr_build_packet_header((struct gr_packet_header *)sub, &p);
	off += gr_build_record(sub + off, 0, 1, p.ts_begin + 10, payload,
			       sizeof(payload));
	gr_build_record(sub + off, 0, 2, p.ts_begin + 20, payload,
			sizeof(payload));
	gr_build_commit(rec, seq, GR_AVM_CONTENT);
	/* v1.4: the last record's offset, with the guest's bit (spec 3.8) */
	if (v->features & GR_F_LAST_RECORD)
		rec->last_record = htole32(off);
	__atomic_store_n(&vm_ring(&t->vm, ring)->prod.produced,
			 htole64(seq + 1), __ATOMIC_RELEASE);
}

struct gr_host_ctrl *gr_avm_ctrl(struct gr_avm *t)
{
	return (struct gr_host_ctrl *)(t->vm.region + GR_CTRL_OFFSET);
}

struct gr_guest_status *gr_avm_status(struct gr_avm *t)
{
	return (struct gr_guest_status *)(t->vm.region + GR_STATUS_OFFSET);
}
