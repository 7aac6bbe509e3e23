// SPDX-License-Identifier: GPL-2.0
/*
 * ship_cursor.c - the cursor of a session: <store>/.ship/<vm>/<session>
 * (of a closed chunk: <store>/.ship/<vm>/.chunks/<session>/<chunk>)
 *
 * What JetStream acknowledged (the shipper moves on from there after a
 * restart) and what was ever published (a duplicate acknowledgement of
 * anything beyond that is not a resend of ours: ship_nats.c). Written
 * tmp + rename, so that a crash leaves the old cursor or the new one.
 *
 * Format 2 (SHIPRSR2): struct cursor_hdr, then per ring the u64s off,
 * seq, any, pub_hi; a closed chunk's then has one u64 more, the highest
 * stream sequence of its messages (absent: unknown). Format 1 (SHIPRSR1, before the published marks) is
 * read as "everything may have been published": no conflict is ever
 * reported for what it covers.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ship_int.h"
#include "validate.h"

#define CURSOR_MAGIC_V1		0x3152535250494853ULL	/* "SHIPRSR1" */
#define CURSOR_MAGIC		0x3252535250494853ULL	/* "SHIPRSR2" */
#define CURSOR_V1_RING		24
#define CURSOR_RING		32

struct cursor_hdr {
	uint64_t magic;
	uint32_t nr_rings, subbuf_size;
	uint64_t meta_gen, meta_hash, info_gen, info_hash;
	uint64_t meta_pub_gen, info_pub_gen;	/* format 2 */
};

#define CURSOR_V1_HDR	offsetof(struct cursor_hdr, meta_pub_gen)

/*
 * <store>/.ship/<vm>/<session>, or for a closed chunk
 * <store>/.ship/<vm>/.chunks/<session>/<chunk> (no session name starts
 * with '.': the two never meet)
 */
static void cursor_path(const struct ship_sess *ss, char *p, size_t cap)
{
	if (ss->chunk[0])
		snprintf(p, cap, "%s/.ship/%s/.chunks/%s/%s", sh.store, ss->vm,
			 ss->session, ss->chunk);
	else
		snprintf(p, cap, "%s/.ship/%s/%s", sh.store, ss->vm,
			 ss->session);
}

/* a chunk deleted from the store: its cursor, and its session's if empty */
void ship_cursor_remove(const struct ship_sess *ss)
{
	char path[8192], *slash;

	cursor_path(ss, path, sizeof(path));
	unlink(path);
	slash = strrchr(path, '/');
	if (ss->chunk[0] && slash) {
		*slash = '\0';
		rmdir(path);
	}
}

void ship_cursor_load(struct ship_sess *ss)
{
	struct cursor_hdr h;
	char path[8192];
	unsigned int i;
	uint64_t e[4];
	size_t ring;
	bool v1;
	int fd;

	cursor_path(ss, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	memset(&h, 0, sizeof(h));
	if (read(fd, &h, CURSOR_V1_HDR) != (ssize_t)CURSOR_V1_HDR ||
	    (h.magic != CURSOR_MAGIC && h.magic != CURSOR_MAGIC_V1) ||
	    h.nr_rings > GR_MAX_RINGS) {
		close(fd);
		return;
	}
	v1 = h.magic == CURSOR_MAGIC_V1;
	if (!v1 && read(fd, e, 2 * sizeof(e[0])) != 2 * sizeof(e[0])) {
		close(fd);
		return;
	}
	h.meta_pub_gen = e[0];
	h.info_pub_gen = e[1];
	ss->meta.gen = h.meta_gen;
	ss->meta.hash = h.meta_hash;
	ss->meta.pub_gen = v1 ? h.meta_gen : h.meta_pub_gen;
	ss->info.gen = h.info_gen;
	ss->info.hash = h.info_hash;
	ss->info.pub_gen = v1 ? h.info_gen : h.info_pub_gen;
	ss->nr_rings = h.nr_rings;
	ss->subbuf_size = h.subbuf_size;
	ss->files = calloc(h.nr_rings ? h.nr_rings : 1, sizeof(*ss->files));
	ring = v1 ? CURSOR_V1_RING : CURSOR_RING;
	for (i = 0; ss->files && i < h.nr_rings; i++) {
		struct ship_file *f = &ss->files[i];

		e[3] = UINT64_MAX;
		if (read(fd, e, ring) != (ssize_t)ring)
			break;
		f->off = f->scan_off = e[0];
		f->seq = f->scan_seq = e[1];
		f->any = e[2] != 0;
		f->pub_hi = e[3] > e[0] ? e[3] : e[0];
	}
	if (!ss->files)
		ss->nr_rings = ss->subbuf_size = 0;
	else if (i == h.nr_rings && ss->chunk[0] &&
		 read(fd, e, sizeof(e[0])) == sizeof(e[0]))
		ss->seq_hi = e[0];
	close(fd);
}

static int mkdirs_for(const char *path)
{
	char buf[8192], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + strlen(sh.store) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(buf, 0750) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int ship_cursor_save(const struct ship_sess *ss)
{
	struct cursor_hdr h = {
		.magic = CURSOR_MAGIC, .nr_rings = ss->nr_rings,
		.subbuf_size = ss->subbuf_size, .meta_gen = ss->meta.gen,
		.meta_hash = ss->meta.hash, .info_gen = ss->info.gen,
		.info_hash = ss->info.hash, .meta_pub_gen = ss->meta.pub_gen,
		.info_pub_gen = ss->info.pub_gen,
	};
	char path[8192], tmp[8300];
	size_t len = sizeof(h) + (size_t)ss->nr_rings * CURSOR_RING +
		     (ss->chunk[0] ? sizeof(uint64_t) : 0);
	uint8_t *b = malloc(len);
	unsigned int i;
	int fd, ret = 0;

	if (!b)
		return -ENOMEM;
	memcpy(b, &h, sizeof(h));
	for (i = 0; i < ss->nr_rings; i++) {
		const struct ship_file *f = &ss->files[i];
		uint64_t e[4] = { f->off, f->seq, f->any, f->pub_hi };

		memcpy(b + sizeof(h) + i * CURSOR_RING, e, sizeof(e));
	}
	if (ss->chunk[0])
		memcpy(b + sizeof(h) + i * CURSOR_RING, &ss->seq_hi,
		       sizeof(ss->seq_hi));
	cursor_path(ss, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	mkdirs_for(path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0 || write(fd, b, len) != (ssize_t)len)
		ret = -EIO;
	if (fd >= 0)
		close(fd);
	if (!ret && rename(tmp, path))
		ret = -errno;
	free(b);
	return ret;
}
