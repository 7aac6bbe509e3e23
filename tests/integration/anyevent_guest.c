// SPDX-License-Identifier: GPL-2.0
/*
 * anyevent_guest.c - a guest that adds an event descriptor at run time
 * (spec 18, GR_F_ANYEVENT), by hand, for test_anyevent_agent.sh
 *
 *   anyevent_guest SHM_FILE SECONDS
 *
 * Maps the agent's /dev/shm file of a plain VM and publishes a layout of
 * two CPUs, a table of two events (sched_switch, sched_wakeup) and six
 * descriptor slots (desc_capacity), desc_live = 2; prints "published".
 * Two seconds later, as 18.2 N3 says, it writes descriptor 2 (kmem
 * kfree) into its slot and stores desc_live = 3 with release; prints
 * "added 2". It waits for the host's enable bit of id 2 ("enabled 2"),
 * then stores one packet on ring 0 with a sched_switch and a kfree
 * record ("produced"), then adds descriptor 3 named kfree again (a
 * duplicate: the host must refuse it) with desc_live = 4 ("added 3").
 * Every 5 ms it looks at the enable bits: one of an id not yet covered
 * by desc_live, or of id 3, is printed ("enable bit N set ..."). Ends
 * after SECONDS or on SIGTERM.
 */
#include <endian.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "gr_build.h"

#define DESC_OFF	0x2000		/* 6 slots of 576 bytes, end 0x2d80 */
#define CAPACITY	6
#define RING_OFF	0x3000		/* 2 rings of 128 bytes */
#define REC_OFF		0x3100		/* 2 x 4 commit records */
#define DATA_OFF	0x4000		/* 2 x 4 x 4096 bytes, ends 0xc000 */
#define NR_CPUS		2
#define SUBBUF		4096

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

static struct gr_event_desc *desc(uint8_t *r, unsigned int id)
{
	return (struct gr_event_desc *)(r + DESC_OFF + id * 576);
}

static struct gr_guest_status *status(uint8_t *r)
{
	return (struct gr_guest_status *)(r + GR_STATUS_OFFSET);
}

static void publish(uint8_t *r, uint64_t size)
{
	const struct gr_build_layout l = {
		.region_size = size, .nr_rings = NR_CPUS, .nr_cpus = NR_CPUS,
		.subbuf_size = SUBBUF, .n_subbufs = 4, .desc_offset = DESC_OFF,
		.desc_count = 2, .ring_offset = RING_OFF,
		.rec_offset = REC_OFF, .data_offset = DATA_OFF,
		.max_event_size = 1024, .clock_freq = 1000000000ULL,
		.features = GR_F_ANYEVENT, .instance_id = 1,
		.kernel_release = "6.1.0-56-amd64", .nodename = "anyguest",
		.boot = 7,
	};
	struct gr_region_hdr *h = (struct gr_region_hdr *)r, copy;

	__atomic_store_n(&h->magic, 0, __ATOMIC_RELEASE);
	memset(r + DESC_OFF, 0, DATA_OFF - DESC_OFF);
	gr_build_sched_switch(desc(r, 0), 0, GR_FIELD_F_HEX);
	gr_build_sched_wakeup(desc(r, 1), 1);
	gr_build_hdr(&copy, &l);
	copy.desc_capacity = htole32(CAPACITY);
	copy.magic = 0;
	memcpy(h, &copy, sizeof(copy));
	status(r)->state = htole32(GR_STATE_TRACING);
	status(r)->desc_live = htole32(2);
	/* pairs with the host's acquire load of magic (spec 10 #1) */
	__atomic_store_n(&h->magic, htole64(GR_REGION_MAGIC), __ATOMIC_RELEASE);
}

/* descriptor @id, kmem @name, then desc_live = @id + 1 with release */
static void add(uint8_t *r, unsigned int id, const char *name)
{
	struct gr_field_desc *f;

	memset(desc(r, id), 0, 576);
	f = gr_build_event(desc(r, id), (uint16_t)id, name, "kmem", 16, 0, 2);
	gr_build_field(&f[0], "call_site", 0, 8, GR_FIELD_INTEGER,
		       GR_FIELD_F_HEX);
	gr_build_field(&f[1], "ptr", 8, 8, GR_FIELD_INTEGER, GR_FIELD_F_HEX);
	/* spec 18.2 N3: pairs with the host's acquire load of desc_live */
	__atomic_store_n(&status(r)->desc_live, htole32(id + 1),
			 __ATOMIC_RELEASE);
	printf("added %u\n", id);
}

/* packet 0 of ring 0: a sched_switch and a kfree (id 2) */
static void produce(uint8_t *r)
{
	const struct gr_build_packet p = {
		.ring = 0, .cpu = 0, .ts_begin = 1000, .ts_end = 3000,
		.packet_bytes = SUBBUF, .seq = 0,
	};
	uint8_t *sub = r + DATA_OFF, sw[56] = { 0 };
	uint64_t kf[2] = { htole64(0xffffffff81234567ULL),
			   htole64(0xffff888003c4d000ULL) };
	struct gr_ring *ring = (struct gr_ring *)(r + RING_OFF);
	struct gr_packet_header h;
	uint32_t len = sizeof(h);

	memset(sub, 0, SUBBUF);
	memcpy(sw, "bash", 4);
	len += gr_build_record(sub + len, 0, 12, 1500, sw, sizeof(sw));
	len += gr_build_record(sub + len, 2, 12, 2500, kf, sizeof(kf));
	gr_build_packet_header(&h, &p);
	h.content_size = htole64((uint64_t)len * 8);
	memcpy(sub, &h, sizeof(h));
	gr_build_commit((struct gr_subbuf_rec *)(r + REC_OFF), 0, len);
	/* the packet, then produced (spec 10 #5, #6) */
	__atomic_store_n(&ring->prod.produced, htole64(1), __ATOMIC_RELEASE);
	printf("produced\n");
}

int main(int argc, char **argv)
{
	struct timespec tick = { 0, 5000000 };
	struct gr_host_ctrl *c;
	uint64_t size, enable, seen = 0;
	struct sigaction sa;
	unsigned int live = 2, step = 0, i;
	uint8_t *r;
	time_t end, t_add;

	if (argc != 3) {
		fprintf(stderr, "usage: anyevent_guest SHM_FILE SECONDS\n");
		return 2;
	}
	r = gr_build_map(argv[1], DATA_OFF + NR_CPUS * 4 * SUBBUF, &size);
	if (!r)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	c = (struct gr_host_ctrl *)(r + GR_CTRL_OFFSET);
	publish(r, size);
	printf("published\n");
	end = time(NULL) + atoi(argv[2]);
	t_add = time(NULL) + 2;
	while (!done && time(NULL) < end) {
		/* pairs with the host's release of seq (spec 10 #10) */
		__atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		enable = le64toh(c->enable[0]);
		for (i = live; i < 64; i++)
			if ((enable >> i & 1) && !(seen >> i & 1)) {
				seen |= 1ULL << i;
				printf("enable bit %u set %s\n", i,
				       i == 3 ? "(refused id)" : "too early");
			}
		if (step == 0 && time(NULL) >= t_add) {
			add(r, 2, "kfree");
			live = 3;
			step = 1;
		} else if (step == 1 && (enable >> 2 & 1)) {
			printf("enabled 2\n");
			produce(r);
			add(r, 3, "kfree");
			live = 4;
			step = 2;
		}
		nanosleep(&tick, NULL);
	}
	__atomic_store_n(&((struct gr_region_hdr *)r)->magic, 0,
			 __ATOMIC_RELEASE);
	munmap(r, size);
	return 0;
}
