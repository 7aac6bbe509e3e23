// SPDX-License-Identifier: GPL-2.0
/*
 * hist_guest.c - a guest that keeps aggregation maps (spec 17), by hand,
 * for tests/integration/test_hist_agent.sh
 *
 *   hist_guest SHM_FILE SECONDS
 *
 * Maps the agent's /dev/shm file of a plain VM (vm-add --plain) and
 * publishes a layout of two CPUs and two events (sched_switch as the
 * guest module lays it out, sched_wakeup) with GR_F_HIST and a hist area
 * of 256 KiB at 0x10000. It then plays the guest's side of the hist
 * area: every 5 ms it reads the request slots the agent writes, and for
 * each slot whose gen changed prints the request it found
 *
 *   request SLOT gen GEN kind K event E end E2 keys N vals V entries L
 *     key0 SRC/OFF/WIDTH/XFORM
 *
 * and answers it: a plain request with vals= is refused
 * (GR_HIST_E_VAL, operand 0); any other runs, with maps written by hand
 * (zeroed, entries, then the map headers stamped with the gen, then the
 * state with release, as the guest does):
 *
 *   plain: CPU 0 {42: 3} {7: 1}, hits 4; CPU 1 {42: 2} {9: 4} and an
 *          entry being written (odd seq, key 99), hits 6, dropped 2
 *          -> merged {7: 1} {9: 4} {42: 5}, hits 10, dropped 2, torn 1
 *   pair:  the delta key (log2) CPU 0 {3: 2} {10: 4}, unmatched 3;
 *          CPU 1 {10: 1}; other keys 0; a summed delta val = hits * 2^k
 *
 * and prints "answered SLOT GEN running|refused". SIGUSR1 publishes
 * again (a new instance_id, the hist area zeroed: a guest reboot); it
 * prints "published N". SIGUSR2 makes slot 0's map of CPU 0 go back
 * (its hits 4 -> 1, its first entry's hitcount 3 -> 1 under a new even
 * seq: a hostile or broken guest) and prints "backwards". Ends after SECONDS, or on SIGTERM.
 */
#include <endian.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gr_build.h"

#define DESC_OFF	0x2000		/* 2 descriptors of 576 bytes */
#define RING_OFF	0x3000		/* 2 rings of 128 bytes */
#define REC_OFF		0x3100		/* 2 x 4 commit records */
#define DATA_OFF	0x4000		/* 2 x 4 x 4096 bytes, ends 0xc000 */
#define HIST_OFF	0x10000
#define HIST_SIZE	0x40000
#define NR_CPUS		2

static volatile sig_atomic_t again, back, done;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		again = 1;
	else if (sig == SIGUSR2)
		back = 1;
	else
		done = 1;
}

/* Slot 0's first entry of CPU 0 counts less than before */
static void backwards(uint8_t *hist)
{
	const struct gr_hist_req *q = (const void *)(hist + GR_HIST_REQ_OFFSET);
	uint8_t *m = hist + gr_hist_map_off(HIST_SIZE, 0, 0, q->entries_log2);
	struct gr_hist_entry *e = (struct gr_hist_entry *)
		(m + sizeof(struct gr_hist_map_hdr));

	if (q->entries_log2 < GR_HIST_MIN_ENTRIES_LOG2 || q->entries_log2 > 12)
		return;
	e->hitcount = htole64(1);
	e->seq = htole32(le32toh(e->seq) + 2);
	((struct gr_hist_map_hdr *)m)->hits = htole64(1);
}

/* A layout with GR_F_HIST, magic last with release */
static void publish(uint8_t *r, uint64_t size, uint64_t instance)
{
	const struct gr_build_layout l = {
		.region_size = size, .nr_rings = NR_CPUS, .nr_cpus = NR_CPUS,
		.subbuf_size = 4096, .n_subbufs = 4, .desc_offset = DESC_OFF,
		.desc_count = 2, .ring_offset = RING_OFF,
		.rec_offset = REC_OFF, .data_offset = DATA_OFF,
		.max_event_size = 1024, .clock_freq = 1000000000ULL,
		.features = GR_F_HIST, .instance_id = instance,
		.kernel_release = "6.1.0-56-amd64", .nodename = "histguest",
		.boot = (uint8_t)instance,
	};
	struct gr_region_hdr *h = (struct gr_region_hdr *)r;
	struct gr_guest_status *st = (void *)(r + GR_STATUS_OFFSET);
	struct gr_region_hdr copy;

	__atomic_store_n(&h->magic, 0, __ATOMIC_RELEASE);
	memset(r + DESC_OFF, 0, DATA_OFF - DESC_OFF);
	memset(r + HIST_OFF, 0, HIST_SIZE);
	gr_build_sched_switch((struct gr_event_desc *)(r + DESC_OFF), 0,
			      GR_FIELD_F_HEX);
	gr_build_sched_wakeup((struct gr_event_desc *)(r + DESC_OFF + 576), 1);
	gr_build_hdr(&copy, &l);
	copy.hist_offset = htole64(HIST_OFF);
	copy.hist_size = htole64(HIST_SIZE);
	copy.magic = 0;
	memcpy(h, &copy, sizeof(copy));
	st->state = htole32(GR_STATE_IDLE);
	/* pairs with the host's acquire load of magic (spec 10 #1) */
	__atomic_store_n(&h->magic, htole64(GR_REGION_MAGIC), __ATOMIC_RELEASE);
}

/* Entry @i of @map: @k at the key @kk (others 0), @hits, summed vals */
static void entry(uint8_t *map, unsigned int i, const struct gr_hist_req *q,
		  unsigned int kk, uint64_t k, uint64_t hits, uint32_t seq)
{
	struct gr_hist_entry *e = (struct gr_hist_entry *)
		(map + sizeof(struct gr_hist_map_hdr)) + i;
	unsigned int v;

	e->used = htole32(1);
	e->key[kk] = htole64(k);
	e->hitcount = htole64(hits);
	for (v = 0; v < q->nr_vals && v < GR_HIST_MAX_VALS; v++)
		if (q->val[v].src == GR_HS_DELTA)
			e->val[v] = htole64(hits << k);
	e->seq = htole32(seq);
}

static void map_hdr(uint8_t *map, uint64_t gen, uint64_t hits,
		    uint64_t dropped, uint64_t unmatched)
{
	struct gr_hist_map_hdr *m = (struct gr_hist_map_hdr *)map;

	m->hits = htole64(hits);
	m->dropped = htole64(dropped);
	m->unmatched = htole64(unmatched);
	m->gen = htole64(gen);
}

/* The maps of slot @s for request @q, then its state */
static const char *answer(uint8_t *hist, unsigned int s,
			  const struct gr_hist_req *q, uint64_t gen)
{
	struct gr_hist_state *st = (struct gr_hist_state *)
		(hist + GR_HIST_STATE_OFFSET) + s;
	unsigned int e = q->entries_log2, kk = 0, i;
	uint8_t *m0 = hist + gr_hist_map_off(HIST_SIZE, s, 0, e);
	uint8_t *m1 = hist + gr_hist_map_off(HIST_SIZE, s, 1, e);

	memset(st, 0, sizeof(*st));
	if (q->kind == GR_HIST_PLAIN && q->nr_vals) {
		st->state = htole32(GR_HIST_REFUSED);
		st->reason = GR_HIST_E_VAL;
		st->bad = 0;
		__atomic_store_n(&st->gen, htole64(gen), __ATOMIC_RELEASE);
		return "refused";
	}
	if (e < GR_HIST_MIN_ENTRIES_LOG2 || e > 12 ||
	    gr_hist_map_off(HIST_SIZE, s, 2, e) >
	    GR_HIST_MAPS_OFFSET + (s + 1) * gr_hist_slot_bytes(HIST_SIZE))
		return "ignored (size)";
	memset(m0, 0, gr_hist_map_bytes(e));
	memset(m1, 0, gr_hist_map_bytes(e));
	if (q->kind == GR_HIST_PLAIN) {
		entry(m0, 0, q, 0, 42, 3, 2);
		entry(m0, 1, q, 0, 7, 1, 2);
		entry(m1, 0, q, 0, 42, 2, 4);
		entry(m1, 1, q, 0, 9, 4, 2);
		entry(m1, 2, q, 0, 99, 1, 3);	/* being written */
		map_hdr(m0, gen, 4, 0, 0);
		map_hdr(m1, gen, 6, 2, 0);
	} else {
		for (i = 0; i < q->nr_keys && i < GR_HIST_MAX_KEYS; i++)
			if (q->key[i].src == GR_HS_DELTA)
				kk = i;
		entry(m0, 0, q, kk, 3, 2, 2);
		entry(m0, 1, q, kk, 10, 4, 2);
		entry(m1, 0, q, kk, 10, 1, 2);
		map_hdr(m0, gen, 6, 0, 3);
		map_hdr(m1, gen, 1, 0, 0);
	}
	st->state = htole32(GR_HIST_RUNNING);
	/* the maps, then gen: pairs with the host's acquire load of gen */
	__atomic_store_n(&st->gen, htole64(gen), __ATOMIC_RELEASE);
	return "running";
}

int main(int argc, char **argv)
{
	uint64_t answered[GR_HIST_REQS] = { 0 }, instance = 1, size, gen;
	struct timespec tick = { 0, 5000000 };
	struct gr_hist_req q;
	struct sigaction sa;
	uint8_t *r, *hist;
	unsigned int s;
	time_t end;

	if (argc != 3) {
		fprintf(stderr, "usage: hist_guest SHM_FILE SECONDS\n");
		return 2;
	}
	r = gr_build_map(argv[1], HIST_OFF + HIST_SIZE, &size);
	if (!r)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	hist = r + HIST_OFF;
	publish(r, size, instance);
	printf("published %llu\n", (unsigned long long)instance);
	end = time(NULL) + atoi(argv[2]);
	while (!done && time(NULL) < end) {
		if (again) {
			again = 0;
			publish(r, size, ++instance);
			memset(answered, 0, sizeof(answered));
			printf("published %llu\n", (unsigned long long)instance);
		}
		if (back) {
			back = 0;
			backwards(hist);
			printf("backwards\n");
		}
		for (s = 0; s < GR_HIST_REQS; s++) {
			memcpy(&q, hist + GR_HIST_REQ_OFFSET + s * sizeof(q),
			       sizeof(q));
			gen = le64toh(q.gen);
			if (!gen || gen == answered[s])
				continue;
			answered[s] = gen;
			printf("request %u gen %llu kind %u event %u end %u keys %u vals %u entries %u key0 %u/%u/%u/%u\n",
			       s, (unsigned long long)gen, q.kind,
			       le16toh(q.event_id), le16toh(q.end_event_id),
			       q.nr_keys, q.nr_vals, q.entries_log2,
			       q.key[0].src, le16toh(q.key[0].off),
			       q.key[0].width, q.key[0].xform);
			printf("answered %u %llu %s\n", s,
			       (unsigned long long)gen, answer(hist, s, &q, gen));
		}
		nanosleep(&tick, NULL);
	}
	__atomic_store_n(&((struct gr_region_hdr *)r)->magic, 0,
			 __ATOMIC_RELEASE);
	munmap(r, size);
	return 0;
}
