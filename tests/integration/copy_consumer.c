// SPDX-License-Identifier: GPL-2.0
/*
 * copy_consumer.c - a plain copying consumer of a guestrelay region: the
 * baseline that test_agent_throughput.sh compares the agent with
 *
 * It does what the agent's consumer does for an ivshmem-plain device,
 * the simple way: it creates /dev/shm/NAME, writes a host control block
 * (geometry wish, stream mode, every event on), waits for the guest's
 * publication and checks it (host-agent/validate.c), then polls each ring
 * and for every ready sub-buffer: copies its commit record and header,
 * checks them (gr_check_packet()), copies the whole sub-buffer into a
 * private buffer with memcpy(), writes that buffer to DIR/stream_N with
 * write(2), and only then moves cons.consumed past it (release). The poll
 * interval adapts as the agent's plain-device poll does (1 ms while there
 * is work, doubling to 100 ms when idle). No io_uring, no zero copy.
 *
 * It ends when the guest's state is STOPPED and every ring is drained,
 * when the guest withdraws its layout, or after --seconds; it prints
 * "key value" lines: packets, bytes, invalid, elapsed_ns (first packet to
 * the last write), and removes /dev/shm/NAME.
 *
 * Build: cc -O2 -std=gnu11 -D_GNU_SOURCE -I spec -I host-agent
 *        copy_consumer.c host-agent/validate.c
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "guestrelay_abi.h"
#include "validate.h"

#define MS		1000000ULL
#define POLL_MIN_NS	(1 * MS)
#define POLL_MAX_NS	(100 * MS)

struct opts {
	const char *shm;
	const char *out;
	uint64_t size;
	uint32_t subbuf_size;
	uint32_t n_subbufs;
	unsigned int events;
	double seconds;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ULL),
		.tv_nsec = (long)(ns % 1000000000ULL),
	};

	nanosleep(&ts, NULL);
}

static uint64_t load_acq64(const __le64 *p)
{
	return le64toh(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

static void store_rel64(__le64 *p, uint64_t v)
{
	__atomic_store_n(p, htole64(v), __ATOMIC_RELEASE);
}

/* The host control block, magic last (pairs with the guest's acquire) */
static void ctrl_init(uint8_t *region, const struct opts *o)
{
	struct gr_host_ctrl *c = (struct gr_host_ctrl *)(region +
							 GR_CTRL_OFFSET);
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->abi_major = htole16(GR_ABI_MAJOR);
	c->abi_minor = htole16(GR_ABI_MINOR);
	c->ctrl_size = htole32(sizeof(*c));
	c->host_features = htole64(0);
	c->host_peer_id = htole32(GR_NO_PEER);
	c->subbuf_size = htole32(o->subbuf_size);
	c->n_subbufs = htole32(o->n_subbufs);
	c->session_id = htole64((uint64_t)time(NULL));
	c->tracing = htole32(1);
	c->mode = htole32(GR_MODE_STREAM);
	for (i = 0; i < o->events; i++)
		c->enable[i / 64] |= htole64(1ULL << (i % 64));
	store_rel64(&c->seq, 1);
	store_rel64(&c->magic, GR_CTRL_MAGIC);
}

static int attach(uint8_t *region, uint64_t size, struct gr_view *v,
		  uint64_t deadline)
{
	struct gr_region_hdr copy;
	const char *why = "no publication";

	while (now_ns() < deadline) {
		if (load_acq64(&((struct gr_region_hdr *)region)->magic) ==
		    GR_REGION_MAGIC &&
		    !gr_read_region_hdr(region, size, &copy)) {
			if (!gr_check_region_hdr(&copy, size, v, &why))
				return 0;
			fprintf(stderr, "copy_consumer: rejected: %s\n", why);
			return -EINVAL;
		}
		sleep_ns(MS);
	}
	fprintf(stderr, "copy_consumer: no guest: %s\n", why);
	return -ETIMEDOUT;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: copy_consumer --shm NAME --out DIR [--size BYTES]\n"
		"         [--subbuf-size BYTES] [--subbufs N] [--events N]\n"
		"         [--seconds S]\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "shm", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 'z' },
		{ "subbuf-size", required_argument, NULL, 'b' },
		{ "subbufs", required_argument, NULL, 'n' },
		{ "events", required_argument, NULL, 'e' },
		{ "seconds", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->size = 16ULL << 20;
	o->events = 4;
	o->seconds = 60;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': o->shm = optarg; break;
		case 'o': o->out = optarg; break;
		case 'z': o->size = strtoull(optarg, NULL, 0); break;
		case 'b': o->subbuf_size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'n': o->n_subbufs = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'e': o->events = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 't': o->seconds = strtod(optarg, NULL); break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -EINVAL;
		}
	}
	if (!o->shm || !o->out || strchr(o->shm, '/') || !o->events ||
	    o->events > GR_MAX_EVENTS || o->size < (1 << 16) ||
	    (o->size & (o->size - 1))) {
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t packets = 0, bytes = 0, invalid = 0, t_first = 0, t_last = 0;
	uint64_t deadline, poll_ns = POLL_MAX_NS, *next = NULL;
	struct gr_guest_status *gst;
	char path[4096];
	struct gr_view v;
	struct opts o = { 0 };
	uint8_t *region, *buf = NULL;
	unsigned int i;
	int shm_fd, *fds = NULL, ret = 1;

	if (parse(argc, argv, &o))
		return 2;
	snprintf(path, sizeof(path), "/dev/shm/%s", o.shm);
	shm_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (shm_fd < 0 || ftruncate(shm_fd, (off_t)o.size)) {
		perror(path);
		return 1;
	}
	region = mmap(NULL, o.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      shm_fd, 0);
	if (region == MAP_FAILED) {
		perror("mmap");
		goto out_unlink;
	}
	ctrl_init(region, &o);
	deadline = now_ns() + (uint64_t)(o.seconds * 1e9);
	if (attach(region, o.size, &v, deadline))
		goto out_unmap;
	gst = (struct gr_guest_status *)(region + GR_STATUS_OFFSET);

	fds = calloc(v.nr_rings, sizeof(*fds));
	next = calloc(v.nr_rings, sizeof(*next));
	buf = malloc(v.subbuf_size);
	if (!fds || !next || !buf)
		goto out_unmap;
	for (i = 0; i < v.nr_rings; i++)
		fds[i] = -1;
	for (i = 0; i < v.nr_rings; i++) {
		struct gr_ring *r = (struct gr_ring *)
			(region + gr_view_ring_off(&v, i));

		snprintf(path, sizeof(path), "%s/stream_%u", o.out, i);
		fds[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0640);
		if (fds[i] < 0) {
			perror(path);
			goto out_close;
		}
		next[i] = le64toh(__atomic_load_n(&r->cons.consumed,
						  __ATOMIC_RELAXED));
	}

	while (now_ns() < deadline) {
		bool work = false, behind = false, stopped;

		for (i = 0; i < v.nr_rings; i++) {
			struct gr_ring *r = (struct gr_ring *)
				(region + gr_view_ring_off(&v, i));
			/* pairs with the guest's release of produced */
			uint64_t produced = load_acq64(&r->prod.produced);
			uint64_t first, ready, content;
			const char *why;

			if (gr_check_counters(&v, produced, next[i], 0, &first,
					      &ready, &why)) {
				invalid++;
				continue;
			}
			for (; next[i] != produced; next[i]++) {
				uint32_t slot = gr_view_slot(&v, next[i]);
				struct gr_subbuf_rec rec;

				memcpy(&rec, region +
				       gr_view_rec_off(&v, i, slot), sizeof(rec));
				memcpy(buf, region +
				       gr_view_subbuf_off(&v, i, slot),
				       v.subbuf_size);
				if (gr_check_packet(&v, i, next[i], &rec,
						    (struct gr_packet_header *)buf,
						    NULL, &content, &why)) {
					invalid++;
				} else if (write(fds[i], buf, v.subbuf_size) !=
					   (ssize_t)v.subbuf_size) {
					perror("write");
					goto out_close;
				} else {
					packets++;
					bytes += v.subbuf_size;
					t_last = now_ns();
					if (!t_first)
						t_first = t_last;
				}
				/* our reads and write before the guest
				 * reuses the slot; pairs with its acquire
				 * of consumed
				 */
				store_rel64(&r->cons.consumed, next[i] + 1);
				work = true;
			}
		}
		if (load_acq64(&((struct gr_region_hdr *)region)->magic) !=
		    GR_REGION_MAGIC)
			break;		/* withdrawn: the guest is gone */
		/* the state first: STOPPED comes after the final flush */
		stopped = le32toh(__atomic_load_n(&gst->state,
						  __ATOMIC_ACQUIRE)) ==
			  GR_STATE_STOPPED;
		for (i = 0; i < v.nr_rings; i++) {
			struct gr_ring *r = (struct gr_ring *)
				(region + gr_view_ring_off(&v, i));

			if (load_acq64(&r->prod.produced) != next[i])
				behind = true;
		}
		if (stopped && !behind)
			break;
		if (work) {
			poll_ns = poll_ns / 2 > POLL_MIN_NS ? poll_ns / 2 :
							      POLL_MIN_NS;
		} else {
			poll_ns = poll_ns * 2 < POLL_MAX_NS ? poll_ns * 2 :
							      POLL_MAX_NS;
			sleep_ns(poll_ns);
		}
	}
	printf("packets %llu\nbytes %llu\ninvalid %llu\nelapsed_ns %llu\n",
	       (unsigned long long)packets, (unsigned long long)bytes,
	       (unsigned long long)invalid,
	       (unsigned long long)(t_last - t_first));
	ret = 0;
out_close:
	for (i = 0; fds && i < v.nr_rings; i++)
		if (fds[i] >= 0)
			close(fds[i]);
out_unmap:
	free(buf);
	free(next);
	free(fds);
	munmap(region, o.size);
out_unlink:
	snprintf(path, sizeof(path), "/dev/shm/%s", o.shm);
	unlink(path);
	if (shm_fd >= 0)
		close(shm_fd);
	return ret;
}
