// SPDX-License-Identifier: GPL-2.0
/*
 * index.c - LTTng's packet index files, written as packets are stored
 *
 * The loop adds an entry for each packet when it becomes whole on disk
 * (consumer.c, in stream order) and writes the entries of one pass with
 * one pwrite (page cache, a few hundred bytes: never per event). On open
 * the file is rebuilt from the stream file's whole packets, so a resumed
 * session's index covers exactly what the stream holds. An index that
 * cannot be written is removed rather than left wrong (babeltrace2 would
 * then warn about it); the stream itself is stored as before.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index.h"
#include "validate.h"

static void index_name(char *name, size_t len, unsigned int ring)
{
	snprintf(name, len, "stream_%u.idx", ring);
}

/* abandon the index: its file goes, the stream stays */
static void index_drop(struct gr_index *idx)
{
	char name[32];

	index_name(name, sizeof(name), idx->ring);
	unlinkat(idx->dirfd, name, 0);
	close(idx->fd);
	idx->fd = -1;
	idx->n = 0;
}

/**
 * gr_index_entry_of() - the index entry of a stored packet
 * @e: receives the entry, big-endian as in the file
 * @h: the packet's header as stored (the host's validated copy)
 * @off: where the packet starts in its stream file
 */
void gr_index_entry_of(struct gr_index_entry *e,
		       const struct gr_packet_header *h, uint64_t off)
{
	e->offset = htobe64(off);
	e->packet_size = htobe64(le64toh(h->packet_size));
	e->content_size = htobe64(le64toh(h->content_size));
	e->timestamp_begin = htobe64(le64toh(h->timestamp_begin));
	e->timestamp_end = htobe64(le64toh(h->timestamp_end));
	e->events_discarded = htobe64(le64toh(h->events_discarded));
	e->stream_id = htobe64(le32toh(h->stream_id));
	e->stream_instance_id = htobe64(le64toh(h->stream_instance_id));
	e->packet_seq_num = htobe64(le64toh(h->packet_seq_num));
}

/**
 * gr_index_entry_get() - an entry read from a file, in host order
 * @raw: the entry as read
 * @e: receives it in host byte order
 *
 * Return: false if it cannot describe a packet (sizes not in whole bytes,
 * content beyond the packet, time going back inside the packet).
 */
bool gr_index_entry_get(const struct gr_index_entry *raw,
			struct gr_index_entry *e)
{
	e->offset = be64toh(raw->offset);
	e->packet_size = be64toh(raw->packet_size);
	e->content_size = be64toh(raw->content_size);
	e->timestamp_begin = be64toh(raw->timestamp_begin);
	e->timestamp_end = be64toh(raw->timestamp_end);
	e->events_discarded = be64toh(raw->events_discarded);
	e->stream_id = be64toh(raw->stream_id);
	e->stream_instance_id = be64toh(raw->stream_instance_id);
	e->packet_seq_num = be64toh(raw->packet_seq_num);
	return e->packet_size % 8 == 0 && e->packet_size &&
	       e->content_size <= e->packet_size &&
	       e->timestamp_begin <= e->timestamp_end;
}

/* the file's header, then the whole packets of @stream_fd below @end */
static int index_rebuild(struct gr_index *idx, int stream_fd, uint64_t end,
			 unsigned int ring, uint64_t subbuf_size)
{
	struct gr_index_file_hdr fh = {
		.magic = htobe32(GR_INDEX_MAGIC),
		.index_major = htobe32(GR_INDEX_MAJOR),
		.index_minor = htobe32(GR_INDEX_MINOR),
		.packet_index_len = htobe32(sizeof(struct gr_index_entry)),
	};
	struct gr_packet_header h;
	uint64_t off = 0, len;

	if (ftruncate(idx->fd, 0) ||
	    pwrite(idx->fd, &fh, sizeof(fh), 0) != sizeof(fh))
		return -errno ? -errno : -EIO;
	idx->size = sizeof(fh);
	idx->n = 0;
	while (end - off >= sizeof(h)) {
		if (pread(stream_fd, &h, sizeof(h), (off_t)off) != sizeof(h))
			break;
		len = gr_stored_packet_len(&h, ring, subbuf_size);
		if (!len || len > end - off)
			break;
		gr_index_add(idx, &h, off);
		if (idx->fd < 0)
			return -EIO;
		off += len;
	}
	return gr_index_flush(idx);
}

/**
 * gr_index_open() - start the index of a stream file
 * @idx: receives the index (its fd is -1 on error)
 * @session_fd: the session directory
 * @ring: the stream's ring
 * @stream_fd: the stream file, readable, or -1 to open stream_<ring>
 * @stream_size: whole packets end here (the stream's size after resume)
 * @subbuf_size: the layout's sub-buffer size (gr_stored_packet_len())
 *
 * Context: the loop (or a snapshot's completion): a few small writes.
 * Return: 0 or -errno.
 */
int gr_index_open(struct gr_index *idx, int session_fd, unsigned int ring,
		  int stream_fd, uint64_t stream_size, uint64_t subbuf_size)
{
	char name[32];
	int ret, own = -1;

	idx->fd = idx->dirfd = -1;
	idx->n = 0;
	idx->size = 0;
	idx->ring = ring;
	if (mkdirat(session_fd, GR_INDEX_DIR, 0750) && errno != EEXIST)
		return -errno;
	idx->dirfd = openat(session_fd, GR_INDEX_DIR,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (idx->dirfd < 0)
		return -errno;
	index_name(name, sizeof(name), ring);
	idx->fd = openat(idx->dirfd, name,
			 O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
	ret = idx->fd < 0 ? -errno : 0;
	if (!ret && stream_fd < 0) {
		snprintf(name, sizeof(name), "stream_%u", ring);
		own = openat(session_fd, name,
			     O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		stream_fd = own;
		ret = own < 0 ? -errno : 0;
	}
	if (!ret)
		ret = index_rebuild(idx, stream_fd, stream_size, ring,
				    subbuf_size);
	if (own >= 0)
		close(own);
	if (ret && idx->fd >= 0)
		index_drop(idx);
	if (ret) {
		close(idx->dirfd);
		idx->dirfd = -1;
	}
	return ret;
}

/**
 * gr_index_add() - a packet became whole on disk
 * @idx: its stream's index
 * @h: its header as stored
 * @off: its offset in the stream file
 *
 * Packets are added in stream order. Context: the loop.
 */
void gr_index_add(struct gr_index *idx, const struct gr_packet_header *h,
		  uint64_t off)
{
	if (idx->fd < 0)
		return;
	gr_index_entry_of(&idx->buf[idx->n++], h, off);
	if (idx->n == GR_INDEX_BATCH)
		gr_index_flush(idx);
}

/**
 * gr_index_flush() - write the entries added since the last flush
 * @idx: the index
 *
 * On a failed write (disk full, quota) the index file is removed and
 * the index abandoned (fd -1): readers then walk the stream file, as they
 * do without an index, instead of meeting one that stops short.
 *
 * Return: 0 or -errno.
 */
int gr_index_flush(struct gr_index *idx)
{
	size_t len = (size_t)idx->n * sizeof(idx->buf[0]);
	ssize_t n;

	if (idx->fd < 0 || !idx->n)
		return 0;
	n = pwrite(idx->fd, idx->buf, len, (off_t)idx->size);
	if (n == (ssize_t)len) {
		idx->size += len;
		idx->n = 0;
		return 0;
	}
	n = n < 0 ? -errno : -ENOSPC;
	index_drop(idx);
	return (int)n;
}

/**
 * gr_index_close() - write what is left and close
 * @idx: the index
 */
void gr_index_close(struct gr_index *idx)
{
	gr_index_flush(idx);
	if (idx->fd >= 0)
		close(idx->fd);
	if (idx->dirfd >= 0)
		close(idx->dirfd);
	idx->fd = idx->dirfd = -1;
}

/**
 * gr_index_build() - the index of a finished stream file (snapshots)
 * @session_fd: its session directory
 * @ring: the stream's ring
 * @subbuf_size: the layout's sub-buffer size
 *
 * Return: 0 or -errno.
 */
int gr_index_build(int session_fd, unsigned int ring, uint64_t subbuf_size)
{
	struct gr_index idx;
	struct stat st;
	char name[32];
	int ret;

	snprintf(name, sizeof(name), "stream_%u", ring);
	if (fstatat(session_fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	ret = gr_index_open(&idx, session_fd, ring, -1, (uint64_t)st.st_size,
			    subbuf_size);
	gr_index_close(&idx);
	return ret;
}

/**
 * gr_index_quiet_back() - how far behind the newest stored packet of a
 * session a quiet ring may still store an event
 * @switch_timer_us: the guest's switch timer, 0 = off
 * @clock_freq: the trace clock's frequency
 *
 * A guest hands over a partly filled sub-buffer within one switch timer
 * period, and the agent stores it soon after: an index that has not
 * grown for a ring lists everything older than the newest packet end of
 * any ring less twice the period and GR_INDEX_QUIET_SLACK_NS (the time a
 * packet may still be on its way to disk). The live server's beacons
 * (live/viewer.c) and `report --follow` (report_follow.c) use this one
 * bound.
 *
 * Return: the bound in clock ticks; 0 without a switch timer (a partly
 * filled sub-buffer may then wait for ever: no bound).
 */
uint64_t gr_index_quiet_back(uint32_t switch_timer_us, uint64_t clock_freq)
{
	if (!switch_timer_us || !clock_freq)
		return 0;
	return (uint64_t)((unsigned __int128)(2ULL * switch_timer_us * 1000ULL +
					      GR_INDEX_QUIET_SLACK_NS) *
			  clock_freq / 1000000000ULL);
}
