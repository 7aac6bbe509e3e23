/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * guestrelay/relay_file.h - the ioctls of guestrelay's relay files
 *
 * For a guest program that reads a relay file's mapping instead of
 * read()ing it (spec 16.8): mmap() shows the whole buffer, read-only, and
 * these two calls say which sub-buffer to read and consume it, as
 * LTTng's get/put-next-sub-buffer calls do for its ring buffers:
 *
 *	struct gr_relay_subbuf sb;
 *
 *	while (!ioctl(fd, GR_RELAY_GET_SUBBUF, &sb)) {
 *		copy map + sb.offset, sb.bytes bytes;
 *		if (ioctl(fd, GR_RELAY_PUT_SUBBUF, &sb.seq))
 *			discard the copy;	(errno ESTALE: overwritten)
 *	}
 *	(errno EAGAIN: no finished sub-buffer; poll() waits for one)
 *
 * GET gives the oldest finished sub-buffer the reader has not consumed,
 * without its padding (from where a read() stopped, if one read part of
 * it). PUT consumes it. In overwrite mode a writer may restart the
 * sub-buffer while it is copied: PUT then fails with ESTALE and counts it
 * in @lost. In no-overwrite mode the sub-buffer is the reader's until PUT.
 */
#ifndef _GUESTRELAY_RELAY_FILE_H
#define _GUESTRELAY_RELAY_FILE_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * struct gr_relay_subbuf - a finished sub-buffer of a relay file's buffer
 * @seq: its number in the buffer, counted from 0 (give it to PUT)
 * @lost: sub-buffers this buffer's reader lost so far (overwrite mode)
 * @offset: its first unread byte in the mapping
 * @bytes: its unread bytes, padding left out
 */
struct gr_relay_subbuf {
	__u64 seq;
	__u64 lost;
	__u32 offset;
	__u32 bytes;
};

#define GR_RELAY_IOC_MAGIC	0xb7
#define GR_RELAY_GET_SUBBUF	_IOR(GR_RELAY_IOC_MAGIC, 1, struct gr_relay_subbuf)
#define GR_RELAY_PUT_SUBBUF	_IOW(GR_RELAY_IOC_MAGIC, 2, __u64)

#endif /* _GUESTRELAY_RELAY_FILE_H */
