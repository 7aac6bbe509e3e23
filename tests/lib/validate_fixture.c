// SPDX-License-Identifier: GPL-2.0
/*
 * validate_fixture.c - a valid layout for the validators' tests (see
 * validate_fixture.h)
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr_build.h"
#include "gr_test.h"
#include "validate_fixture.h"

#include "guestrelay_abi.h"
#include "validate.h"

const struct gr_build_layout t_layout = {
	.region_size = T_REGION,
	.nr_rings = T_CPUS,
	.nr_cpus = T_CPUS,
	.subbuf_size = T_S,
	.n_subbufs = T_N,
	.desc_offset = T_DESC_OFF,
	.desc_count = T_NDESC,
	.ring_offset = T_RING_OFF,
	.rec_offset = T_REC_OFF,
	.data_offset = T_DATA_OFF,
	.max_event_size = T_MAX_EVENT,
	.clock_freq = 1000000000ULL,
	.features = T_FEATURES,
	.instance_id = T_INSTANCE,
	.kernel_release = "6.1.0-56-amd64",
	.nodename = "guest1",
	.boot = 1,
};

void make_hdr(struct gr_region_hdr *h)
{
	gr_build_hdr(h, &t_layout);
}

/* a header with one global ring for @cpus CPUs */
void make_global_hdr(struct gr_region_hdr *h, uint32_t cpus)
{
	make_hdr(h);
	h->flags = htole32(GR_HDR_GLOBAL);
	h->nr_rings = htole32(1);
	h->nr_cpus = htole32(cpus);
}

void make_view(struct gr_view *v)
{
	struct gr_region_hdr h;
	const char *why = NULL;

	make_hdr(&h);
	CU_ASSERT_EQUAL_FATAL(gr_check_region_hdr(&h, T_REGION, v, &why), 0);
}

/*
 * 0: sched_switch, fixed, 56 bytes (a tracepoint-like C layout)
 * 1: sys_enter, fixed, 16 bytes; fields named "id" and "timestamp" are
 *    legal payload names (they are not TSDL keywords)
 * 2: console, VARLEN: level at 0, a string of up to 200 bytes at 8
 */
void make_descs(struct gr_event_desc d[T_NDESC])
{
	struct gr_field_desc *f;

	memset(d, 0, T_NDESC * sizeof(*d));
	gr_build_sched_switch(&d[0], 0, GR_FIELD_F_HEX);

	f = gr_build_event(&d[1], 1, "sys_enter", "raw_syscalls", 16, 0, 2);
	gr_build_field(&f[0], "id", 0, 8, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	gr_build_field(&f[1], "timestamp", 8, 8, GR_FIELD_INTEGER, 0);

	f = gr_build_event(&d[2], 2, "console", "printk", 208,
			   GR_EVENT_F_VARLEN, 2);
	gr_build_field(&f[0], "level", 0, 4, GR_FIELD_INTEGER, 0);
	gr_build_field(&f[1], "msg", 8, 200, GR_FIELD_STRING, 0);
}

void make_event_views(struct gr_event_view ev[T_NDESC])
{
	struct gr_event_desc d[T_NDESC];
	struct gr_view v;
	const char *why = NULL;
	unsigned int i;

	make_view(&v);
	make_descs(d);
	for (i = 0; i < T_NDESC; i++)
		CU_ASSERT_EQUAL_FATAL(gr_check_event_desc(&v, &d[i], i, &ev[i],
							  &why), 0);
}


void make_packet(struct gr_subbuf_rec *rec, struct gr_packet_header *ph,
			unsigned int ring, uint64_t seq)
{
	const struct gr_build_packet p = {
		.ring = ring, .cpu = ring, .ts_begin = 10, .ts_end = 20,
		.content_bytes = T_CONTENT, .packet_bytes = T_S, .seq = seq,
		.discarded = 5,
	};

	gr_build_commit(rec, seq, T_CONTENT);
	gr_build_packet_header(ph, &p);
}

/* --- checking helpers ---------------------------------------------------- */

/* @whyp, not why: the call in @ret sets it, argument order is unspecified */
void expect(int ret, const char *const *whyp, int err, const char *msg)
{
	const char *why = *whyp;

	CU_ASSERT_EQUAL(ret, err);
	CU_ASSERT_PTR_NOT_NULL(why);
	if (!why)
		return;
	CU_ASSERT_STRING_EQUAL(why, msg);
	if (ret != err || strcmp(why, msg))
		fprintf(stderr, "\n    got %d \"%s\", want %d \"%s\"\n",
			ret, why, err, msg);
}

void make_evh(struct gr_event_header *e, uint16_t id, uint16_t size)
{
	e->id = htole16(id);
	e->size = htole16(size);
	e->tid = htole32(4242);
	e->timestamp = htole64(123456789ULL);
}
