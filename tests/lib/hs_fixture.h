/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hs_fixture.h - events of synthetic host streams (trace/hoststream.h),
 * written with the agent's own stream writer, for test_steal and
 * test_report_host
 */
#ifndef GR_HS_FIXTURE_H
#define GR_HS_FIXTURE_H

#include <stdint.h>

#include "hoststream.h"

void hs_switch(struct gr_hs_stream *s, uint64_t ts, const char *prev,
	       int prev_tid, int64_t state, const char *next, int next_tid);
void hs_wake(struct gr_hs_stream *s, uint64_t ts, const char *comm, int tid);
void hs_dump(struct gr_hs_stream *s, uint64_t ts, int tid, const char *name);
void hs_kvm_entry(struct gr_hs_stream *s, uint64_t ts, int tid, int vcpu);
void hs_kvm_exit(struct gr_hs_stream *s, uint64_t ts, int tid, int vcpu,
		 uint32_t reason, const char *name);

#endif /* GR_HS_FIXTURE_H */
