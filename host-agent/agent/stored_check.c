// SPDX-License-Identifier: GPL-2.0
/*
 * stored_check.c - the third verify mode: zero copy, then check what was
 * stored
 *
 *   verify on      copy the sub-buffer, check its records in the copy,
 *                  write the copy (one memcpy per byte stored)
 *   verify off     write straight from the shared pages; headers only
 *   stored check   write straight from the shared pages (as verify off);
 *                  when the write completed, check the records of the
 *                  bytes as stored, in the page cache through a
 *                  read-only mapping of the stream file, without
 *                  copying; only if they fail, copy the sub-buffer from
 *                  the shared pages again, check the copy, and write it
 *                  over the stored packet
 *
 * The guarantee is verify on's (what stays on disk passed
 * gr_check_records(), so a reader decodes it), at verify off's cost
 * while the guest behaves: a guest that changes a sub-buffer while it is
 * written costs a second write of that packet, never a bad packet. The
 * difference is when: a stored packet is bad between its write and its
 * check, so the consumer reports a sub-buffer consumed (and a reader may
 * read the file) only after the check, and a crash in between leaves a
 * packet that recovery must check again.
 *
 * The consumer's part (host-agent/agent/consumer.c, not wired yet: see
 * tests/bench/verify_modes.c for the measurement): in the write's
 * completion, before the slot becomes DONE,
 *
 *	ret = gr_stored_check(r->fd, s->off, s->len, v, vm->events,
 *			      v->desc_count, &s->hdr, sub, r->copies[0],
 *			      &why);
 *	if (ret == GR_STORED_REWRITE)
 *		(submit a write of r->copies[0], s->len bytes at s->off)
 *	else if (ret < 0)
 *		(count it invalid, cut the file back to s->off)
 *
 * with the commit record's seq loaded before and after the copy, as
 * take_copy() does, so a slot the guest restarted meanwhile is caught.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stored_check.h"

/**
 * gr_stored_check() - check the records of a packet as it was stored
 * @fd: the stream file the packet was written to
 * @off: where it starts in the file
 * @len: its stored length (the content bytes gr_check_packet() gave)
 * @v: the view the packet was checked against
 * @events: validated descriptors
 * @nr_events: their number
 * @hdr: the host's checked header copy that was written first
 * @shared: the sub-buffer in the shared region (the rest was written from
 *	there)
 * @copy: host-private memory of @v->subbuf_size bytes, used only when the
 *	stored bytes fail
 * @why: receives a static reason when the result is not GR_STORED_OK
 *
 * Maps the stored bytes read-only (the page cache, no copy) and runs
 * gr_check_records() on them. If they fail, the guest changed the
 * sub-buffer during the write: copies it once more into @copy with the
 * header @hdr, and checks the copy.
 *
 * Context: process; may sleep (mmap). The write of @off..@off+@len must
 * have completed.
 * Return: GR_STORED_OK; GR_STORED_REWRITE (@copy's first @len bytes
 * passed and are to be written at @off); -EINVAL if the copy fails too
 * (the packet must not stay); or -errno of mmap().
 */
int gr_stored_check(int fd, off_t off, uint64_t len, const struct gr_view *v,
		    const struct gr_event_view *events, unsigned int nr_events,
		    const void *hdr, const uint8_t *shared, uint8_t *copy,
		    const char **why)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t base = off & ~((off_t)page - 1);
	size_t mlen = (size_t)(off - base) + len;
	const uint8_t *map;
	int ret;

	if (len < v->packet_header_size || len > v->subbuf_size)
		return -EINVAL;
	map = mmap(NULL, mlen, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, base);
	if (map == MAP_FAILED)
		return -errno;
	ret = gr_check_records(v, events, nr_events, map + (off - base), len,
			       why);
	munmap((void *)map, mlen);
	if (!ret)
		return GR_STORED_OK;
	memcpy(copy, shared, len);
	memcpy(copy, hdr, v->packet_header_size);
	if (gr_check_records(v, events, nr_events, copy, len, why))
		return -EINVAL;
	return GR_STORED_REWRITE;
}
