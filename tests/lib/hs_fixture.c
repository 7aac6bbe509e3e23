// SPDX-License-Identifier: GPL-2.0
/*
 * hs_fixture.c - events of synthetic host streams (see hs_fixture.h), laid
 * out as hoststream.c's descriptors declare them
 */
#include <string.h>

#include "hs_fixture.h"

/* sched_switch: the record's tid is the task switched out */
void hs_switch(struct gr_hs_stream *s, uint64_t ts, const char *prev,
	       int prev_tid, int64_t state, const char *next, int next_tid)
{
	uint8_t p[GR_HS_SWITCH_SIZE];

	memset(p, 0, sizeof(p));
	strncpy((char *)p, prev, 16);
	memcpy(p + 16, &prev_tid, 4);
	memcpy(p + 24, &state, 8);
	strncpy((char *)p + 32, next, 16);
	memcpy(p + 48, &next_tid, 4);
	gr_hs_stream_add(s, GR_HS_SWITCH, (uint32_t)prev_tid, ts, p,
			 sizeof(p));
}

/* sched_wakeup of @comm/@tid, from an interrupt (tid 0) */
void hs_wake(struct gr_hs_stream *s, uint64_t ts, const char *comm, int tid)
{
	uint8_t p[GR_HS_WAKEUP_SIZE];

	memset(p, 0, sizeof(p));
	strncpy((char *)p, comm, 16);
	memcpy(p + 16, &tid, 4);
	gr_hs_stream_add(s, GR_HS_WAKEUP, 0, ts, p, sizeof(p));
}

/* a state dump naming thread @tid (@name, may be "") of QEMU pid 42 */
void hs_dump(struct gr_hs_stream *s, uint64_t ts, int tid, const char *name)
{
	uint8_t p[GR_HS_STATEDUMP_SIZE];
	int pid = 42;

	memset(p, 0, sizeof(p));
	memcpy(p, &tid, 4);
	memcpy(p + 4, &pid, 4);
	strncpy((char *)p + 12, name, 16);
	gr_hs_stream_add(s, GR_HS_STATEDUMP, (uint32_t)tid, ts, p, sizeof(p));
}

/* KVM's entry of vCPU @vcpu into guest mode, in thread @tid */
void hs_kvm_entry(struct gr_hs_stream *s, uint64_t ts, int tid, int vcpu)
{
	uint8_t p[GR_HS_KVM_ENTRY_SIZE];

	memset(p, 0, sizeof(p));
	memcpy(p, &vcpu, 4);
	gr_hs_stream_add(s, GR_HS_KVM_ENTRY, (uint32_t)tid, ts, p, sizeof(p));
}

/* its exit for @reason (VMX), named @name */
void hs_kvm_exit(struct gr_hs_stream *s, uint64_t ts, int tid, int vcpu,
		 uint32_t reason, const char *name)
{
	uint8_t p[GR_HS_KVM_EXIT_SIZE];
	uint32_t isa = 1;

	memset(p, 0, sizeof(p));
	memcpy(p, &reason, 4);
	memcpy(p + 4, &isa, 4);
	memcpy(p + 16, &vcpu, 4);
	strncpy((char *)p + 20, name, GR_HS_REASON_NAME - 1);
	gr_hs_stream_add(s, GR_HS_KVM_EXIT, (uint32_t)tid, ts, p, sizeof(p));
}
