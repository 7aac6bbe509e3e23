// SPDX-License-Identifier: GPL-2.0
/*
 * ctf_info.c - the files of a trace directory beside its streams: the
 * metadata written atomically (gr_ctf_write_metadata()), and the
 * .guestrelay file (see ctf_info.h) written, parsed and read back
 *
 * Every temporary file is hidden (".metadata.tmp", ".guestrelay.tmp"):
 * babeltrace2 tries to decode every visible file but "metadata" as a
 * stream (ctf.h). What is read back is not trusted: the copies are
 * re-validated with the validators of the region.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "ctf.h"
#include "ctf_info.h"

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Replace @name in @dirfd by @len bytes of @buf so that a reader sees the
 * old or the new file, never a partial one: write a hidden temporary,
 * rename it over @name. With @syncfd NULL, the temporary is fsynced
 * before the rename and the directory after it, so that this holds
 * across a crash too. Otherwise the file is left open and unsynced and
 * its descriptor stored in *@syncfd: the caller fsyncs it and @dirfd
 * (the agent does through io_uring, off its loop) and closes it; until
 * then a crash may keep the old file or, on a file system that does not
 * flush a file renamed over another as ext4 does, a short new one.
 */
static int write_atomic(int dirfd, const char *tmp, const char *name,
			const void *buf, size_t len, int *syncfd)
{
	int fd, ret;

	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
		    O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, buf, len);
	if (!ret && !syncfd && fsync(fd))
		ret = -errno;
	if (!syncfd && close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(dirfd, tmp, dirfd, name))
		ret = -errno;
	if (ret) {
		if (syncfd)
			close(fd);
		unlinkat(dirfd, tmp, 0);
		return ret;
	}
	if (syncfd) {
		*syncfd = fd;
		return 0;
	}
	if (fsync(dirfd))
		return -errno;
	return 0;
}

/**
 * gr_ctf_write_metadata() - store (or replace) a trace's metadata file
 * @dirfd: the trace directory, opened O_RDONLY | O_DIRECTORY
 * @text: TSDL from gr_ctf_metadata()
 * @len: bytes of @text
 * @syncfd: NULL to fsync here; else receives the new file's descriptor,
 *	which the caller fsyncs (then @dirfd) and closes (see write_atomic())
 *
 * Writes GR_CTF_METADATA_TMP (hidden: babeltrace2 would try to read a
 * visible "metadata.tmp" as a stream and reject the trace), fsyncs it and
 * renames it to GR_CTF_METADATA, then fsyncs the directory: a reader
 * opening the trace at any moment sees the old or the new metadata.
 *
 * Context: process; blocks on disk I/O (on fsync only with @syncfd NULL).
 * Return: 0, -EINVAL if @text is not CTF 1.8 metadata, or -errno of the
 * failing system call.
 */
int gr_ctf_write_metadata(int dirfd, const char *text, size_t len,
			  int *syncfd)
{
	static const char magic[] = "/* CTF 1.8 */";

	if (len < sizeof(magic) - 1 || memcmp(text, magic, sizeof(magic) - 1))
		return -EINVAL;
	return write_atomic(dirfd, GR_CTF_METADATA_TMP, GR_CTF_METADATA,
			    text, len, syncfd);
}

/* the reflected polynomial's remainder of each byte value */
static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_table_init(void)
{
	unsigned int i, k;
	uint32_t r;

	for (i = 0; i < 256; i++) {
		r = i;
		for (k = 0; k < 8; k++)
			r = (r >> 1) ^ (0xedb88320U & -(r & 1));
		crc_table[i] = r;
	}
}

/**
 * gr_crc32() - CRC-32 (IEEE 802.3, as zlib's crc32())
 * @crc: 0 to start, or the result over the preceding bytes
 * @buf: bytes
 * @len: bytes at @buf
 *
 * Context: any; does not sleep.
 * Return: the CRC of everything so far.
 */
uint32_t gr_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	pthread_once(&crc_once, crc_table_init);
	crc = ~crc;
	while (len--)
		crc = (crc >> 8) ^ crc_table[(crc ^ *p++) & 0xff];
	return ~crc;
}

/*
 * Descriptor @i of a stored table, @size bytes at @p: a struct
 * gr_event_desc and, v1.15, the extension after it when @size holds one
 * (a reader that knows the extension reads it, gr_check_desc_slot())
 */
static int check_stored(const struct gr_view *v, const uint8_t *p,
			size_t size, unsigned int i, struct gr_event_view *ev,
			const char **why)
{
	struct gr_event_desc_long slot;

	memset(&slot, 0, sizeof(slot));
	memcpy(&slot, p, size < sizeof(slot) ? size : sizeof(slot));
	return gr_check_desc_slot(v, &slot, i, ev, why);
}

/**
 * gr_ctf_write_info() - store (or replace) a trace's .guestrelay file
 * @dirfd: the trace directory, opened O_RDONLY | O_DIRECTORY
 * @hdr_copy: the host's private copy of the region header
 * @region_size: real size of the VM's region
 * @descs: private copies of descriptors 0 .. @nr_descs - 1
 * @desc_size: bytes of each: sizeof(struct gr_event_desc), or v1.15
 *	sizeof(struct gr_event_desc_long) with the extensions (spec 20)
 * @nr_descs: at most the header's desc_count, or with GR_F_ANYEVENT its
 *	desc_capacity (the table, then descriptors adopted at run time)
 * @clock: clock mapping, or NULL for "not synchronized"
 * @trace_uuid: the session's UUID (as in the metadata)
 * @syncfd: as for gr_ctf_write_metadata()
 *
 * Re-checks the copies with the validators, so that the file only ever
 * holds what the agent accepted, then writes it like the metadata (hidden
 * temporary, fsync, rename, fsync of the directory). The file's CRC-32
 * lets a reader tell a damaged file.
 *
 * Context: process; allocates; blocks on disk I/O.
 * Return: 0, -EINVAL if a copy does not validate, -ENOMEM, or -errno of
 * the failing system call.
 */
int gr_ctf_write_info(int dirfd, const struct gr_region_hdr *hdr_copy,
		      uint64_t region_size, const void *descs, size_t desc_size,
		      unsigned int nr_descs, const struct gr_ctf_clock *clock,
		      const uint8_t trace_uuid[16], int *syncfd)
{
	struct gr_event_view ev;
	struct gr_info_hdr h;
	struct gr_view v;
	size_t len;
	unsigned int i;
	uint8_t *buf;
	int ret;

	ret = gr_check_region_hdr(hdr_copy, region_size, &v, NULL);
	if (ret)
		return -EINVAL;
	/* v1.7: the table and the descriptors adopted at run time */
	if (nr_descs > v.desc_capacity)
		return -EINVAL;
	if (desc_size != sizeof(struct gr_event_desc) &&
	    desc_size != sizeof(struct gr_event_desc_long))
		return -EINVAL;
	for (i = 0; i < nr_descs; i++)
		if (check_stored(&v, (const uint8_t *)descs + i * desc_size,
				 desc_size, i, &ev, NULL))
			return -EINVAL;
	if (clock && clock->synced && clock->offset >= v.clock_freq)
		return -EINVAL;

	memset(&h, 0, sizeof(h));
	h.magic = htole64(GR_INFO_MAGIC);
	h.version = htole32(GR_INFO_VERSION);
	h.hdr_size = htole32(sizeof(h));
	h.region_hdr_size = htole32(sizeof(*hdr_copy));
	h.desc_size = htole32((uint32_t)desc_size);
	h.desc_count = htole32(nr_descs);
	h.region_size = htole64(region_size);
	if (clock && clock->synced) {
		h.flags = htole32(GR_INFO_F_CLOCK_SYNCED);
		h.clock_offset_s = htole64((uint64_t)clock->offset_s);
		h.clock_offset = htole64(clock->offset);
		h.clock_precision = htole64(clock->precision);
		h.clock_error_ns = htole64(clock->error_ns);
		if (clock->kvm_tsc)
			h.flags |= htole32(GR_INFO_F_CLOCK_KVM_TSC);
	}
	if (clock && clock->synced && clock->checked) {
		h.flags |= htole32(GR_INFO_F_CLOCK_CHECKED);
		h.clock_mono_to_real = htole64((uint64_t)clock->mono_to_real);
		h.clock_checked_ns = htole64(clock->checked_ns);
		h.clock_span_first = htole64(clock->span_first);
		h.clock_span_last = htole64(clock->span_last);
		h.clock_drift_ppb = htole64(clock->drift_ppb);
		h.clock_samples = htole32(clock->samples);
	}
	memcpy(h.trace_uuid, trace_uuid, sizeof(h.trace_uuid));

	len = sizeof(h) + sizeof(*hdr_copy) + (size_t)nr_descs * desc_size;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), hdr_copy, sizeof(*hdr_copy));
	if (nr_descs)
		memcpy(buf + sizeof(h) + sizeof(*hdr_copy), descs,
		       (size_t)nr_descs * desc_size);
	h.crc32 = htole32(gr_crc32(0, buf, len));
	memcpy(buf, &h, sizeof(h));
	ret = write_atomic(dirfd, GR_CTF_INFO_TMP, GR_CTF_INFO, buf, len,
			   syncfd);
	free(buf);
	return ret;
}

static int info_bad(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -EINVAL;
}

/**
 * gr_ctf_parse_info() - decode and re-validate a .guestrelay file
 * @buf: the file's bytes
 * @len: bytes at @buf
 * @info: receives the validated contents
 * @why: receives a static reason on failure; may be NULL
 *
 * Trusts nothing in @buf: checks magic, version and every size against
 * @len, runs gr_check_region_hdr() on the region header copy (with the
 * stored region size as the real size) and gr_check_event_desc() on each
 * descriptor the header covers, then gr_check_families() on the valid ones
 * (a table it refuses keeps no family). A descriptor that fails is marked invalid
 * in @info (with its reason) rather than failing the file; so is a CRC
 * mismatch (@info->crc_ok = 0), since validated contents stay usable.
 *
 * Context: any; does not sleep.
 * Return: 0, or -EINVAL (structure, region header or clock invalid).
 */
int gr_ctf_parse_info(const void *buf, size_t len, struct gr_ctf_info *info,
		      const char **why)
{
	const uint8_t *p = buf;
	struct gr_region_hdr rh;
	struct gr_info_hdr h;
	uint64_t hdr_size, rh_size, desc_size, count, total, known;
	uint32_t crc, stored_crc;
	unsigned int i;
	const char *w;
	int ret;

	if (len < GR_INFO_HDR_MIN)
		return info_bad(why, "file is shorter than its header");
	memset(&h, 0, sizeof(h));
	memcpy(&h, p, GR_INFO_HDR_MIN);
	if (le64toh(h.magic) != GR_INFO_MAGIC)
		return info_bad(why, "bad magic");
	if (le32toh(h.version) != GR_INFO_VERSION)
		return info_bad(why, "unsupported version");
	hdr_size = le32toh(h.hdr_size);
	rh_size = le32toh(h.region_hdr_size);
	desc_size = le32toh(h.desc_size);
	count = le32toh(h.desc_count);
	if (hdr_size < GR_INFO_HDR_MIN || hdr_size > GR_INFO_MAX_HDR)
		return info_bad(why, "bad header size");
	if (rh_size != sizeof(rh))
		return info_bad(why, "bad region header size");
	if (desc_size < sizeof(struct gr_event_desc) ||
	    desc_size > GR_INFO_MAX_DESC)
		return info_bad(why, "bad descriptor size");
	if (count > GR_WIDE_MAX_EVENTS)
		return info_bad(why, "more descriptors than GR_WIDE_MAX_EVENTS");
	total = hdr_size + rh_size + count * desc_size;	/* < 2^21 */
	if (total > len)
		return info_bad(why, "file is truncated");

	/* the header as this reader knows it; an older one's tail reads 0 */
	known = hdr_size < sizeof(h) ? hdr_size : sizeof(h);
	memcpy(&h, p, (size_t)known);
	memset(info, 0, sizeof(*info));
	stored_crc = le32toh(h.crc32);
	h.crc32 = 0;
	crc = gr_crc32(0, &h, (size_t)known);
	crc = gr_crc32(crc, p + known, (size_t)(total - known));
	info->crc_ok = crc == stored_crc;

	memcpy(&rh, p + hdr_size, sizeof(rh));
	ret = gr_check_region_hdr(&rh, le64toh(h.region_size), &info->view, &w);
	if (ret)
		return info_bad(why, w);

	info->stored_desc_count = (uint32_t)count;
	/* v1.7, GR_F_ANYEVENT: descriptors adopted at run time follow */
	info->nr_events = count < info->view.desc_capacity ?
			  (unsigned int)count : info->view.desc_capacity;
	if (info->nr_events > info->view.desc_count)
		info->view.desc_count = info->nr_events;
	for (i = 0; i < info->nr_events; i++) {
		if (check_stored(&info->view, p + hdr_size + rh_size +
				 i * desc_size, (size_t)desc_size, i,
				 &info->events[i], &info->why[i]))
			continue;
		info->valid[i] = 1;
	}
	/* invalid descriptors are zero: no family; on failure none at all */
	gr_check_families(&info->view, info->events, info->nr_events, NULL);

	memcpy(info->trace_uuid, h.trace_uuid, sizeof(info->trace_uuid));
	if (le32toh(h.flags) & GR_INFO_F_CLOCK_SYNCED) {
		info->clock.synced = 1;
		info->clock.offset_s = (int64_t)le64toh(h.clock_offset_s);
		info->clock.offset = le64toh(h.clock_offset);
		info->clock.precision = le64toh(h.clock_precision);
		info->clock.error_ns = le64toh(h.clock_error_ns);
		info->clock.kvm_tsc = !!(le32toh(h.flags) &
					 GR_INFO_F_CLOCK_KVM_TSC);
		if (info->clock.offset >= info->view.clock_freq)
			return info_bad(why, "clock offset is not below clock_freq");
	}
	if (info->clock.synced &&
	    (le32toh(h.flags) & GR_INFO_F_CLOCK_CHECKED)) {
		info->clock.checked = 1;
		info->clock.mono_to_real = (int64_t)le64toh(h.clock_mono_to_real);
		info->clock.checked_ns = le64toh(h.clock_checked_ns);
		info->clock.span_first = le64toh(h.clock_span_first);
		info->clock.span_last = le64toh(h.clock_span_last);
		info->clock.drift_ppb = le64toh(h.clock_drift_ppb);
		info->clock.samples = le32toh(h.clock_samples);
	}
	return 0;
}

/**
 * gr_ctf_read_info() - read and re-validate a trace's .guestrelay file
 * @dirfd: the trace directory
 * @info: receives the validated contents (about 150 KiB: allocate it)
 * @why: receives a static reason on failure; may be NULL
 *
 * Context: process; blocks on disk I/O; allocates.
 * Return: 0, -errno if the file cannot be opened or read (-ENOENT if it
 * does not exist), -EFBIG if it is larger than any valid file, -EINVAL if
 * its contents are invalid (see gr_ctf_parse_info()), -ENOMEM.
 */
int gr_ctf_read_info(int dirfd, struct gr_ctf_info *info, const char **why)
{
	struct stat st;
	size_t got = 0;
	uint8_t *buf;
	ssize_t n;
	int fd, ret;

	fd = openat(dirfd, GR_CTF_INFO, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		ret = -errno;
		if (why)
			*why = "cannot open the file";
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		if (why)
			*why = "cannot stat the file";
		return ret;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > GR_INFO_MAX_FILE) {
		close(fd);
		if (why)
			*why = S_ISREG(st.st_mode) ? "file is too large" :
			       "not a regular file";
		return S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	ret = gr_ctf_parse_info(buf, got, info, why);
	free(buf);
	return ret;
}
