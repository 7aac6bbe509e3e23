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
 * The consumer (host-agent/agent/consumer.c, --verify stored) calls
 * gr_stored_check() in a write's completion, before the sub-buffer may
 * count as consumed, and gr_stored_check_file() on the last packets of a
 * stream file it resumes (the agent may have died between a write and
 * its check). tests/bench/verify_modes.c measures the three modes.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stored_check.h"

/**
 * gr_stored_check_file() - check a packet as it lies in its stream file
 * @fd: the stream file
 * @off: where the packet starts in it
 * @len: its stored length (packet_size / 8 of its stored header)
 * @v: the view the packet was checked against
 * @events: validated descriptors
 * @nr_events: their number
 * @why: receives a static reason when the result is not 0
 *
 * Maps the stored bytes read-only (the page cache, no copy) and checks
 * what a reader will decode: the records (gr_check_records(), spec H24),
 * and the stored header's content_size, which must end at the last
 * record's last declared byte (spec 6.12) and packet_size at @len.
 *
 * Context: process; may sleep (mmap).
 * Return: 0, -EINVAL if the stored packet fails, or -errno of mmap().
 */
int gr_stored_check_file(int fd, off_t off, uint64_t len,
			 const struct gr_view *v,
			 const struct gr_event_view *events,
			 unsigned int nr_events, const char **why)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t base = off & ~((off_t)page - 1);
	size_t mlen = (size_t)(off - base) + len;
	struct gr_packet_header h;
	const uint8_t *map;
	uint64_t end = 0;
	int ret;

	if (len < v->packet_header_size || len > v->subbuf_size) {
		*why = "stored packet length out of range";
		return -EINVAL;
	}
	map = mmap(NULL, mlen, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, base);
	if (map == MAP_FAILED)
		return -errno;
	memcpy(&h, map + (off - base), sizeof(h));
	ret = gr_check_records_end(v, events, nr_events, map + (off - base),
				   len, &end, why);
	munmap((void *)map, mlen);
	if (ret)
		return ret;
	if (le64toh(h.content_size) != 8 * end ||
	    le64toh(h.packet_size) != 8 * len) {
		*why = "stored content_size is not the last record's end";
		return -EINVAL;
	}
	return 0;
}

/**
 * gr_stored_check() - check the records of a packet as it was stored,
 * and make a checked copy if they fail
 * @fd: the stream file the packet was written to
 * @off: where it starts in the file
 * @len: its stored length (the content bytes gr_check_packet() gave)
 * @v: the view the packet was checked against
 * @events: validated descriptors
 * @nr_events: their number
 * @hdr: the host's checked header copy that was written first; on
 *	GR_STORED_REWRITE its content_size is the copy's
 * @shared: the sub-buffer in the shared region (the rest was written from
 *	there), NULL if it may no longer be read (the guest withdrew)
 * @rec: its commit record in the shared region
 * @seq: the packet's sequence number (@rec's seq when it was taken)
 * @copy: host-private memory of @v->subbuf_size bytes, used only when the
 *	stored bytes fail
 * @why: receives a static reason when the result is not GR_STORED_OK
 *
 * Checks the stored bytes (gr_stored_check_file()). If they fail, the
 * guest changed the sub-buffer during the write: copies it once more into
 * @copy between two loads of @rec's seq (a seqlock read, spec 6.5, 10 #4:
 * a slot restarted meanwhile is refused), puts @hdr over the copy's
 * header, checks the copy's records and sets content_size from the copy.
 *
 * Context: process; may sleep (mmap). The write of @off..@off+@len must
 * have completed.
 * Return: GR_STORED_OK; GR_STORED_REWRITE (@copy's first @len bytes
 * passed and are to be written at @off); -EINVAL if the copy fails too,
 * -ESTALE if the slot changed under the copy (the packet must not stay);
 * or -errno of mmap().
 */
int gr_stored_check(int fd, off_t off, uint64_t len, const struct gr_view *v,
		    const struct gr_event_view *events, unsigned int nr_events,
		    struct gr_packet_header *hdr, const uint8_t *shared,
		    const struct gr_subbuf_rec *rec, uint64_t seq,
		    uint8_t *copy, const char **why)
{
	uint64_t end = 0;
	int ret;

	ret = gr_stored_check_file(fd, off, len, v, events, nr_events, why);
	if (ret != -EINVAL)
		return ret;
	if (!shared)
		goto stale;
	if (le64toh(__atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE)) != seq)
		goto stale;
	memcpy(copy, shared, len);
	/* the copy before the re-load of seq (spec 10 #4) */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (le64toh(__atomic_load_n(&rec->seq, __ATOMIC_RELAXED)) != seq)
		goto stale;
	memcpy(copy, hdr, sizeof(*hdr));
	if (gr_check_records_end(v, events, nr_events, copy, len, &end, why))
		return -EINVAL;
	hdr->content_size = htole64(8 * end);
	memcpy(copy, hdr, sizeof(*hdr));
	return GR_STORED_REWRITE;
stale:
	*why = "sub-buffer changed while it was checked";
	return -ESTALE;
}
