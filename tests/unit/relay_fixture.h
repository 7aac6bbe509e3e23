/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay_fixture.h - what the relay core's unit tests (test_relay_*.c)
 * share: a real mmap'd region framed by guard bytes, the host's view of
 * it (through the ABI's addressing helpers), callbacks that log what the
 * core asked, and a channel over the region.
 */
#ifndef RELAY_FIXTURE_H
#define RELAY_FIXTURE_H

#include "gr_test.h"

#include "gr_ctf_packet.h"
#include "gr_record.h"
#include "gr_relay.h"
#include "gr_relay_client.h"

#define REGION_SIZE	(1U << 20)
#define GUARD_SIZE	4096
#define GUARD_BYTE	0xa5
#define MAX_CALLS	1024
#define EV_TEST		1
#define HDR		((u32)sizeof(struct gr_packet_header))

struct test_region {
	u8 *map;
	size_t map_size;
	u8 *base;
	u64 size;
};

struct sb_call {
	u32 ring;
	u8 *subbuf;
	u8 *prev;
	size_t padding;
	int ret;
};

struct cb_log {
	struct sb_call calls[MAX_CALLS];
	u32 nr_calls;
	u32 mapped;
	u32 unmapped;
	u64 doorbells;
	int efd;
};

/* The payload of EV_TEST records: who wrote it, its number */
struct test_payload {
	__le32 writer;
	__le32 pad;
	__le64 seq;
};

struct fixture {
	struct test_region region;
	struct gr_layout lay;
	struct gr_chan *chan;
	struct cb_log log;
};

void region_open(struct test_region *r, u64 size);
bool region_guards_intact(const struct test_region *r);
void region_close(struct test_region *r);
struct gr_ring *h_ring(u8 *base, const struct gr_layout *lay, u32 ring);
struct gr_subbuf_rec *h_rec(u8 *base, const struct gr_layout *lay,
			    u32 ring, u32 slot);
u8 *h_subbuf(u8 *base, const struct gr_layout *lay, u32 ring, u32 slot);
struct gr_packet_header *h_hdr(u8 *base, const struct gr_layout *lay,
			       u32 ring, u32 slot);
u64 h_load(const __le64 *field);
u64 h_produced(struct gr_ring *ring);
u64 h_seq(struct gr_subbuf_rec *rec);
void h_set_consumed(struct gr_ring *ring, u64 consumed);
void h_set_prod_event(struct gr_ring *ring, u64 event);
struct sb_call *last_call(struct cb_log *log);
void make_layout(struct gr_layout *lay, u32 nr_cpus, bool global,
		 u32 subbuf_size, u32 n_subbufs);
void fixture_prepare(struct fixture *f, u32 nr_cpus, bool global,
		     u32 subbuf_size, u32 n_subbufs);
void fixture_open_chan(struct fixture *f);
void fixture_open(struct fixture *f, u32 nr_cpus, bool global,
		  u32 subbuf_size, u32 n_subbufs);
void fixture_close(struct fixture *f);
struct gr_ring *f_ring(struct fixture *f, u32 ring);
struct gr_subbuf_rec *f_rec(struct fixture *f, u32 ring, u32 slot);
u8 *f_subbuf(struct fixture *f, u32 ring, u32 slot);
struct gr_packet_header *f_hdr(struct fixture *f, u32 ring, u32 slot);
enum gr_subbuf_state f_state(struct fixture *f, u32 ring, u32 slot);
void fill_pattern(u8 *p, size_t len, u32 seed);
bool check_pattern(const u8 *p, size_t len, u32 seed);
int write_msg(struct gr_chan *chan, size_t len, u32 seed);

/* subbuf_start (CTF packets) and doorbell, logged into a struct cb_log */
extern const struct gr_callbacks log_callbacks;
/* buf_mapped and buf_unmapped of a client channel, logged likewise */
extern const struct gr_client_callbacks log_client_callbacks;

#endif /* RELAY_FIXTURE_H */
