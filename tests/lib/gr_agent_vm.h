/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_agent_vm.h - one VM of the agent put together by hand, for the unit
 * tests of the agent's parts (tests/unit/test_consumer.c, test_hostctl.c,
 * test_waiter.c): a memfd region holding a published header, one event
 * (sched_switch) and two rings, validated as vm.c's attach does; a real
 * io_uring loop (loop.c); a session directory under a temporary store.
 * No vm.c, peer.c or session.c: the part under test runs alone.
 */
#ifndef GR_AGENT_VM_H
#define GR_AGENT_VM_H

#include <stdbool.h>
#include <stdint.h>

#include "vm.h"

#define GR_AVM_REGION		(1ULL << 16)	/* 64 KiB */
#define GR_AVM_RINGS		2
#define GR_AVM_SUBBUF		4096
#define GR_AVM_NSUB		4
#define GR_AVM_INSTANCE		0x0102030405060708ULL
#define GR_AVM_CAPACITY		4	/* descriptor slots with GR_F_ANYEVENT */
#define GR_AVM_WIDE_CAPACITY	6	/* with GR_F_WIDE_EVENTS (v1.13) */
#define GR_AVM_WIDE_OFF		0xc000	/* the wide area, after the data */
#define GR_AVM_REC_BYTES	72		/* sched_switch: 16 + 56 */
#define GR_AVM_CONTENT		(sizeof(struct gr_packet_header) + \
				 2 * GR_AVM_REC_BYTES)

struct gr_avm {
	struct gr_agent agent;
	struct gr_vm vm;
	struct gr_event_desc_long desc;	/* with a zero extension */
	struct gr_event_view ev;
	char dir[64];
	int memfd;
};

/* An attached VM in stream mode with @features and --verify @verify, a
 * session directory
 */
struct gr_avm *gr_avm_new(uint64_t features, enum gr_verify verify,
			  uint64_t quota);
void gr_avm_free(struct gr_avm *t);

/* The guest closes sub-buffer @seq of @ring: two records, then produced */
void gr_avm_produce(struct gr_avm *t, unsigned int ring, uint64_t seq);

/* The guest's control-block view: the host block and the status block */
struct gr_host_ctrl *gr_avm_ctrl(struct gr_avm *t);
struct gr_guest_status *gr_avm_status(struct gr_avm *t);

#endif /* GR_AGENT_VM_H */
