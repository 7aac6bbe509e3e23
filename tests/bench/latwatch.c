// SPDX-License-Identifier: GPL-2.0
/*
 * latwatch.c - event-to-disk latency of a guestrelay session, for
 * bench_host.sh
 *
 * A fake guest (tests/fakeguest) stamps every event with CLOCK_MONOTONIC
 * of this same machine. latwatch polls the stream files of one session
 * directory of the agent's store every --poll-us microseconds (fstat),
 * and when a whole packet (packet_size from its header: the agent stores
 * each packet's content only) has reached the file it reads it and, for every event record in it, takes
 * latency = (CLOCK_MONOTONIC now) - (the event's timestamp):
 * the time from the event being recorded in the guest to the record
 * being readable in the stored file, plus at most one poll interval.
 *
 * Packets already in a file when latwatch first opens it are skipped
 * (their arrival time is unknown); the rest are timed.
 *
 * It stops after --seconds, or after --events records, and prints "key
 * value" lines: events, packets (timed), poll_us, first_us (the first
 * event timed), p50_us, p90_us, p99_us, max_us. Exit 1 if no event was seen.
 *
 * Build: cc -O2 -std=gnu11 -D_GNU_SOURCE -I spec latwatch.c
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "guestrelay_abi.h"

#define MAX_RINGS	256

struct ring {
	int fd;
	uint64_t off;		/* bytes of the file already parsed */
	uint64_t skip_to;	/* bytes present when first opened: not timed */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t *lat;
static size_t n_lat, cap_lat;

static int add_lat(uint64_t ns)
{
	if (n_lat == cap_lat) {
		size_t cap = cap_lat ? cap_lat * 2 : 65536;
		uint64_t *p = realloc(lat, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		lat = p;
		cap_lat = cap;
	}
	lat[n_lat++] = ns;
	return 0;
}

/*
 * parse_packet() - record the latency of every event of one packet
 * Return: 0, or -EINVAL if the packet is malformed.
 */
static int parse_packet(const uint8_t *p, uint64_t psize, uint64_t t)
{
	const struct gr_packet_header *h = (const void *)p;
	/* spec 6.12: content ends at the last record's last declared byte */
	uint64_t content = (le64toh(h->content_size) / 8 + 7) / 8 * 8, off;

	if (le32toh(h->magic) != GR_CTF_MAGIC || content > psize ||
	    content < sizeof(*h))
		return -EINVAL;
	off = sizeof(*h);
	while (off + sizeof(struct gr_event_header) <= content) {
		const struct gr_event_header *e = (const void *)(p + off);
		uint64_t ts = le64toh(e->timestamp);
		uint16_t sz = le16toh(e->size);

		if (sz < sizeof(*e) || sz % GR_RECORD_ALIGN ||
		    off + sz > content)
			return -EINVAL;
		if (add_lat(t > ts ? t - ts : 0))
			return -ENOMEM;
		off += sz;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: latwatch --session DIR --rings N [--seconds S]\n"
		   "                [--events N] [--poll-us US]\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "session", required_argument, NULL, 'd' },
		{ "rings", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "events", required_argument, NULL, 'e' },
		{ "poll-us", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ring rings[MAX_RINGS];
	const char *dir = NULL;
	unsigned int nr = 1, i;
	double secs = 10;
	unsigned long max_events = 0, packets = 0, skipped = 0;
	long poll_us = 200;
	uint8_t *buf = NULL;
	uint64_t buf_size = 0, end;
	struct timespec pause;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'r': nr = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 's': secs = strtod(optarg, NULL); break;
		case 'e': max_events = strtoul(optarg, NULL, 0); break;
		case 'p': poll_us = strtol(optarg, NULL, 0); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!dir || !nr || nr > MAX_RINGS || poll_us < 1 || secs <= 0) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < nr; i++)
		rings[i] = (struct ring){ .fd = -1 };
	pause.tv_sec = poll_us / 1000000;
	pause.tv_nsec = (poll_us % 1000000) * 1000;
	end = now_ns() + (uint64_t)(secs * 1e9);

	while (now_ns() < end && (!max_events || n_lat < max_events)) {
		for (i = 0; i < nr; i++) {
			struct ring *r = &rings[i];
			struct gr_packet_header h;
			struct stat st;
			uint64_t psize, t;
			char path[4096];

			if (r->fd < 0) {
				snprintf(path, sizeof(path), "%s/stream_%u",
					 dir, i);
				r->fd = open(path, O_RDONLY | O_CLOEXEC);
				if (r->fd < 0)
					continue;
				/*
				 * What is on disk already reached it before we
				 * looked: its arrival time is unknown, skip it
				 */
				if (!fstat(r->fd, &st))
					r->skip_to = (uint64_t)st.st_size;
			}
			if (fstat(r->fd, &st))
				continue;
			while ((uint64_t)st.st_size >= r->off + sizeof(h)) {
				if (pread(r->fd, &h, sizeof(h), (off_t)r->off) !=
				    sizeof(h))
					break;
				/*
				 * Zeros: the agent's write of this header has
				 * not completed while a later write (--io fixed
				 * writes header and content apart) already grew
				 * the file: not arrived yet
				 */
				if (!h.magic && !h.packet_size)
					break;
				psize = le64toh(h.packet_size) / 8;
				if (psize < sizeof(h) || psize > (16u << 20)) {
					fprintf(stderr, "latwatch: bad packet in "
						"stream_%u at %llu\n", i,
						(unsigned long long)r->off);
					return 1;
				}
				if ((uint64_t)st.st_size < r->off + psize)
					break;
				t = now_ns();
				if (psize > buf_size) {
					free(buf);
					buf = malloc(psize);
					if (!buf)
						return 1;
					buf_size = psize;
				}
				if (pread(r->fd, buf, psize, (off_t)r->off) !=
				    (ssize_t)psize)
					break;
				if (r->off < r->skip_to) {
					skipped++;
				} else if (parse_packet(buf, psize, t)) {
					fprintf(stderr, "latwatch: malformed "
						"packet in stream_%u\n", i);
					return 1;
				}
				packets++;
				r->off += psize;
			}
		}
		nanosleep(&pause, NULL);
	}
	printf("events %zu\npackets %lu\npoll_us %ld\n", n_lat,
	       packets - skipped, poll_us);
	if (!n_lat)
		return 1;
	printf("first_us %.1f\n", lat[0] / 1e3);
	qsort(lat, n_lat, sizeof(*lat), cmp_u64);
	printf("p50_us %.1f\np90_us %.1f\np99_us %.1f\nmax_us %.1f\n",
	       lat[(n_lat - 1) * 50 / 100] / 1e3,
	       lat[(n_lat - 1) * 90 / 100] / 1e3,
	       lat[(n_lat - 1) * 99 / 100] / 1e3, lat[n_lat - 1] / 1e3);
	free(lat);
	free(buf);
	return 0;
}
