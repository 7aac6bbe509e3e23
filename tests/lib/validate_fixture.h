/* SPDX-License-Identifier: GPL-2.0 */
/*
 * validate_fixture.h - a valid layout for the tests of the host's
 * validators (test_validate.c, test_validate_packet.c,
 * test_validate_random.c): region header, views, descriptors, packets and
 * event headers that pass, for a test to break one thing at a time
 */
#ifndef GR_VALIDATE_FIXTURE_H
#define GR_VALIDATE_FIXTURE_H

#include <stdint.h>

#include "gr_build.h"
#include "guestrelay_abi.h"
#include "validate.h"

#define T_REGION	(1ULL << 16)	/* 64 KiB */
#define T_CPUS		2
#define T_S		4096
#define T_N		4
#define T_DESC_OFF	0x2000		/* 3 * 576 = 0x6c0 bytes */
#define T_NDESC		3
#define T_RING_OFF	0x3000		/* 2 * 128 bytes */
#define T_REC_OFF	0x3100		/* 2 * 4 * 16 = 128 bytes */
#define T_DATA_OFF	0x4000		/* 2 * 4 * 4096 = 32 KiB, ends 0xc000 */
#define T_MAX_EVENT	1024
#define T_INSTANCE	0x1122334455667788ULL
#define T_FEATURES	(GR_F_EVENT_IDX | GR_F_FLIGHT | GR_F_CLOCK_SYNC)
#define T_RING		1
#define T_SEQ		1000ULL		/* slot 0 of ring 1 */
#define T_CONTENT	(72 + 48)	/* header and three 16-byte records */

void make_hdr(struct gr_region_hdr *h);
void make_global_hdr(struct gr_region_hdr *h, uint32_t cpus);
void make_view(struct gr_view *v);
void make_descs(struct gr_event_desc d[T_NDESC]);
void make_event_views(struct gr_event_view ev[T_NDESC]);
void make_packet(struct gr_subbuf_rec *rec, struct gr_packet_header *ph,
			unsigned int ring, uint64_t seq);
void expect(int ret, const char *const *whyp, int err, const char *msg);
void make_evh(struct gr_event_header *e, uint16_t id, uint16_t size);

/* the valid layout itself, for gr_build_*() */
extern const struct gr_build_layout t_layout;

#endif /* GR_VALIDATE_FIXTURE_H */
