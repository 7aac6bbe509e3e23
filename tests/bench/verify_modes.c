// SPDX-License-Identifier: GPL-2.0
/*
 * verify_modes.c - what the consumer's per-packet work costs in each
 * verify mode, with the agent's own functions, in one run
 *
 *   verify_modes [--packets N] [--reps R] [--dir DIR]
 *
 * A shared mapping of /dev/shm (the region's stand-in: 64 MiB of 64 KiB
 * sub-buffers) is filled once with full packets of 72-byte sched_switch
 * records (a packet header and 909 records as the guest writes them: the
 * small event, where a walk of the records costs most), then each mode
 * stores N packets, taken in turn from the region, into a file in DIR
 * (default /dev/shm: tmpfs, so the figures are CPU, not a disk), as the
 * consumer does for one sub-buffer (host-agent/agent/consumer.c):
 *
 *   off-nowalk  writev(header copy, content from the shared pages): the
 *               zero-copy write alone
 *   off-walk    the same after gr_packet_content_end(), the per-record
 *               header walk that finds the stored content_size (spec
 *               6.12): --verify off with a guest without
 *               GR_F_LAST_RECORD, or whose declared value was refused
 *   off         the same after gr_packet_end() from the last record the
 *               commit record declares (spec 3.8, H31: one record header
 *               checked): --verify off with GR_F_LAST_RECORD (v1.4)
 *   on          memcpy of the whole sub-buffer into a private copy,
 *               gr_check_records_end() on the copy (the check and the
 *               content end in one walk), writev of the copy:
 *               --verify on (the default)
 *   stored      off, then gr_stored_check() (host-agent/agent/
 *               stored_check.c): the records and the stored
 *               content_size checked as stored, through a read-only
 *               mapping of the file, no copy: --verify stored
 *
 * Modes take turns in every repetition (the order rotates); each row is
 * the process CPU time (CLOCK_PROCESS_CPUTIME_ID) per GB stored and per
 * packet, median [min-max] over the repetitions; the walk's own cost is
 * off-walk - off-nowalk, the declared record's off - off-nowalk. The file is truncated between runs. Before timing,
 * a self-check: gr_stored_check() passes a good stored packet, asks for
 * a rewrite when the stored bytes are bad but the region's are good
 * again (a guest that raced the write), and refuses when both are bad.
 *
 * Output: one line per mode, "mode=M cpu_s_per_gb=... ns_per_packet=...
 * min=... max=...", "walk_ns_per_packet=..." and
 * "declared_ns_per_packet=...". Exit 0, 1 on error.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "gr_build.h"
#include "stored_check.h"
#include "validate.h"

#define VM_SUB		65536u		/* sub-buffer size */
#define VM_REGION	(64u << 20)	/* the region's data */
#define VM_NSUB		(VM_REGION / VM_SUB)
#define VM_MAXREPS	64

enum vm_mode {
	VM_OFF_NOWALK, VM_OFF_WALK, VM_OFF, VM_ON, VM_STORED, VM_NMODES
};
static const char *const vm_names[VM_NMODES] = {
	"off-nowalk", "off-walk", "off", "on", "stored"
};

struct vm_ctx {
	struct gr_view v;
	struct gr_event_view ev;
	uint8_t *region;		/* VM_NSUB sub-buffers, shared */
	uint64_t content;		/* content bytes of every packet */
	uint8_t *copy;			/* the private copy */
	int fd;				/* the stream file */
	uint64_t walk_sink;
};

static int vm_view(struct vm_ctx *c)
{
	const struct gr_build_layout l = {
		.region_size = 1u << 21,
		.nr_rings = 1,
		.nr_cpus = 1,
		.subbuf_size = VM_SUB,
		.n_subbufs = 16,
		.desc_offset = 0x2000,
		.desc_count = 1,
		.ring_offset = 0x3000,
		.rec_offset = 0x3100,
		.data_offset = 0x10000,
		.max_event_size = 1024,
		.clock_freq = 1000000000ULL,
		.features = GR_F_EVENT_IDX | GR_F_LAST_RECORD,
		.instance_id = 1,
		.kernel_release = "6.1.0-56-amd64",
		.nodename = "bench",
		.boot = 1,
	};
	struct gr_region_hdr h;
	struct gr_event_desc d;
	const char *why = NULL;

	gr_build_hdr(&h, &l);
	if (gr_check_region_hdr(&h, l.region_size, &c->v, &why)) {
		fprintf(stderr, "verify_modes: region header: %s\n", why);
		return -1;
	}
	memset(&d, 0, sizeof(d));
	gr_build_sched_switch(&d, 0, GR_FIELD_F_HEX);
	if (gr_check_event_desc(&c->v, &d, 0, &c->ev, &why)) {
		fprintf(stderr, "verify_modes: descriptor: %s\n", why);
		return -1;
	}
	return 0;
}

#define VM_REC		72u		/* sched_switch: 16 + 56 bytes */

/* one full packet of sched_switch records at @p; its content bytes */
static uint64_t vm_fill(uint8_t *p, const struct gr_view *v, uint64_t seq)
{
	struct gr_build_packet b = { 0 };
	struct gr_packet_header ph;
	uint8_t payload[VM_REC - 16];
	uint64_t off = v->packet_header_size, ts = seq * 100000;

	memset(payload, 'x', sizeof(payload));
	while (off + VM_REC <= VM_SUB)
		off += gr_build_record(p + off, 0, 42, ts++, payload,
				       VM_REC - 16);
	b.ts_begin = seq * 100000;
	b.ts_end = ts;
	b.content_bytes = off;
	b.packet_bytes = VM_SUB;
	b.seq = seq;
	gr_build_packet_header(&ph, &b);
	memcpy(p, &ph, sizeof(ph));
	return off;
}

static double vm_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* store one packet (sub-buffer @i) at @off in mode @m; 0 or -1 */
static int vm_store(struct vm_ctx *c, enum vm_mode m, unsigned int i,
		    off_t off)
{
	const uint8_t *sub = c->region + (size_t)i * VM_SUB;
	struct gr_packet_header hdr;
	const uint8_t *body = sub;
	const char *why = NULL;
	struct gr_subbuf_rec rec = { .seq = htole64(i) };
	struct iovec iov[2];
	uint64_t end = 0;
	bool refused = false;
	int ret;

	memcpy(&hdr, sub, sizeof(hdr));
	if (m == VM_ON) {
		memcpy(c->copy, sub, VM_SUB);
		if (gr_check_records_end(&c->v, &c->ev, 1, c->copy, c->content,
					 &end, &why)) {
			fprintf(stderr, "verify_modes: records: %s\n", why);
			return -1;
		}
		body = c->copy;
	} else if (m == VM_OFF) {
		/* the guest's last record: the one before the content's end */
		end = gr_packet_end(&c->v, &c->ev, 1, body, c->content,
				    c->content - VM_REC, &refused);
		if (refused) {
			fprintf(stderr, "verify_modes: last record refused\n");
			return -1;
		}
	} else if (m != VM_OFF_NOWALK) {
		end = gr_packet_content_end(&c->v, &c->ev, 1, body, c->content);
	}
	c->walk_sink += end;
	/* as the consumer stores it (spec 6.12) */
	hdr.packet_size = htole64(8 * c->content);
	hdr.content_size = htole64(8 * (end ? end : c->content));
	iov[0].iov_base = &hdr;
	iov[0].iov_len = sizeof(hdr);
	iov[1].iov_base = (void *)(body + sizeof(hdr));
	iov[1].iov_len = c->content - sizeof(hdr);
	if (pwritev(c->fd, iov, 2, off) != (ssize_t)c->content) {
		perror("verify_modes: pwritev");
		return -1;
	}
	if (m == VM_STORED) {
		ret = gr_stored_check(c->fd, off, c->content, &c->v, &c->ev, 1,
				      &hdr, sub, &rec, i, c->copy, &why);
		if (ret != GR_STORED_OK) {
			fprintf(stderr, "verify_modes: stored check %d: %s\n",
				ret, why ? why : "-");
			return -1;
		}
	}
	return 0;
}

/*
 * gr_stored_check() on a good packet, on stored bytes spoiled while the
 * region's are good (a race: rewrite), on both spoiled (refused)
 */
static int vm_selfcheck(struct vm_ctx *c)
{
	uint8_t *sub = c->region;
	const char *why = NULL;
	uint64_t ts_off = c->v.packet_header_size + 8, ts, bad = ~0ULL;
	struct gr_subbuf_rec rec = { .seq = 0 };
	struct gr_packet_header h;
	int r1, r2, r3;

	/* the packet as the consumer stores it (spec 6.12) */
	memcpy(&h, sub, sizeof(h));
	h.packet_size = htole64(8 * c->content);
	h.content_size = htole64(8 * gr_packet_content_end(&c->v, &c->ev, 1,
							   sub, c->content));
	if (pwrite(c->fd, sub, c->content, 0) != (ssize_t)c->content ||
	    pwrite(c->fd, &h, sizeof(h), 0) != sizeof(h))
		return -1;
	r1 = gr_stored_check(c->fd, 0, c->content, &c->v, &c->ev, 1, &h, sub,
			     &rec, 0, c->copy, &why);
	/* the second record's timestamp far in the future, on disk only */
	if (pwrite(c->fd, &bad, 8, (off_t)(ts_off + 72)) != 8)
		return -1;
	r2 = gr_stored_check(c->fd, 0, c->content, &c->v, &c->ev, 1, &h, sub,
			     &rec, 0, c->copy, &why);
	memcpy(&ts, sub + ts_off + 72, 8);
	memcpy(sub + ts_off + 72, &bad, 8);
	r3 = gr_stored_check(c->fd, 0, c->content, &c->v, &c->ev, 1, &h, sub,
			     &rec, 0, c->copy, &why);
	memcpy(sub + ts_off + 72, &ts, 8);
	if (ftruncate(c->fd, 0))
		return -1;
	if (r1 != GR_STORED_OK || r2 != GR_STORED_REWRITE || r3 != -EINVAL) {
		fprintf(stderr, "verify_modes: self-check: good %d, raced %d, bad %d\n",
			r1, r2, r3);
		return -1;
	}
	printf("selfcheck=ok good=stored raced=rewrite bad=refused\n");
	return 0;
}

static int vm_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "packets", required_argument, NULL, 'n' },
		{ "reps", required_argument, NULL, 'r' },
		{ "dir", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned int packets = 2048, reps = 5, i, r, k, n;
	double t[VM_NMODES][VM_MAXREPS], t0;
	const char *dir = "/dev/shm";
	char path[4096];
	struct vm_ctx c;
	int o, shm;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'n': packets = (unsigned int)atoi(optarg); break;
		case 'r': reps = (unsigned int)atoi(optarg); break;
		case 'd': dir = optarg; break;
		default: return 1;
		}
	}
	if (!packets || !reps || reps > VM_MAXREPS) {
		fprintf(stderr, "verify_modes: --packets >= 1, --reps 1..%d\n",
			VM_MAXREPS);
		return 1;
	}
	memset(&c, 0, sizeof(c));
	if (vm_view(&c))
		return 1;
	snprintf(path, sizeof(path), "/dev/shm/verify_modes.%d", getpid());
	shm = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (shm < 0 || unlink(path) || ftruncate(shm, VM_REGION)) {
		perror("verify_modes: region");
		return 1;
	}
	c.region = mmap(NULL, VM_REGION, PROT_READ | PROT_WRITE, MAP_SHARED,
			shm, 0);
	c.copy = malloc(VM_SUB);
	snprintf(path, sizeof(path), "%s/verify_modes.%d.stream", dir, getpid());
	c.fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (c.region == MAP_FAILED || !c.copy || c.fd < 0 || unlink(path)) {
		perror("verify_modes: set-up");
		return 1;
	}
	for (i = 0; i < VM_NSUB; i++)
		c.content = vm_fill(c.region + (size_t)i * VM_SUB, &c.v, i);
	if (vm_selfcheck(&c))
		return 1;
	for (r = 0; r < reps; r++) {
		for (k = 0; k < VM_NMODES; k++) {
			enum vm_mode m = (enum vm_mode)((k + r) % VM_NMODES);

			t0 = vm_now();
			for (n = 0; n < packets; n++)
				if (vm_store(&c, m, n % VM_NSUB,
					     (off_t)n * (off_t)c.content))
					return 1;
			t[m][r] = vm_now() - t0;
			if (ftruncate(c.fd, 0)) {
				perror("verify_modes: ftruncate");
				return 1;
			}
		}
	}
	printf("record=%u content=%llu packets=%u reps=%u dir=%s\n", VM_REC,
	       (unsigned long long)c.content, packets, reps, dir);
	for (k = 0; k < VM_NMODES; k++) {
		double gb = (double)packets * (double)c.content / 1e9;

		qsort(t[k], reps, sizeof(double), vm_cmp);
		printf("mode=%s cpu_s_per_gb=%.4f ns_per_packet=%.0f min=%.4f max=%.4f\n",
		       vm_names[k], t[k][reps / 2] / gb,
		       t[k][reps / 2] * 1e9 / packets, t[k][0] / gb,
		       t[k][reps - 1] / gb);
	}
	printf("walk_ns_per_packet=%.0f\n",
	       (t[VM_OFF_WALK][reps / 2] - t[VM_OFF_NOWALK][reps / 2]) * 1e9 /
	       packets);
	printf("declared_ns_per_packet=%.0f\n",
	       (t[VM_OFF][reps / 2] - t[VM_OFF_NOWALK][reps / 2]) * 1e9 /
	       packets);
	return c.walk_sink ? 0 : 1;
}
