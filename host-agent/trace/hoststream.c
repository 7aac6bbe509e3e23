// SPDX-License-Identifier: GPL-2.0
/*
 * hoststream.c - the host stream's layout and files (see hoststream.h)
 *
 * The host stream is written in the guest trace's own format: a region
 * header and event descriptors, made here as a guest would publish them
 * and checked by the same validators, describe it; the metadata and the
 * .guestrelay file come from ctf.c's writers (gr_ctf_metadata(),
 * gr_ctf_write_info()), and reader.c, `guestrelay report` and babeltrace2
 * read it back as they read a guest's trace. Packets are stored
 * content-only (spec 6.12): struct gr_packet_header, then the records,
 * packet_size at the last record's end, content_size at its last
 * declared byte.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hoststream.h"

#define HS_FREQ		1000000000ULL	/* CLOCK_MONOTONIC, ns */
#define HS_PAGE(x)	(((x) + GR_PAGE_SIZE - 1) & ~(uint64_t)(GR_PAGE_SIZE - 1))

struct hs_field {
	const char *name;
	uint16_t offset;
	uint16_t size;
	uint8_t type;
	uint8_t flags;		/* GR_FIELD_F_*; 0: signed integer */
};

#define HS_UNSIGNED	0x80	/* not GR_FIELD_F_SIGNED */

/* lttng-modules' fields; integers signed, comm arrays of 16 chars */
static const struct hs_field hs_switch[] = {
	{ "prev_comm", 0, 16, GR_FIELD_CHARS, 0 },
	{ "prev_tid", 16, 4, GR_FIELD_INTEGER, 0 },
	{ "prev_prio", 20, 4, GR_FIELD_INTEGER, 0 },
	{ "prev_state", 24, 8, GR_FIELD_INTEGER, 0 },
	{ "next_comm", 32, 16, GR_FIELD_CHARS, 0 },
	{ "next_tid", 48, 4, GR_FIELD_INTEGER, 0 },
	{ "next_prio", 52, 4, GR_FIELD_INTEGER, 0 },
	{ NULL, 0, 0, 0, 0 },
};

static const struct hs_field hs_wakeup[] = {
	{ "comm", 0, 16, GR_FIELD_CHARS, 0 },
	{ "tid", 16, 4, GR_FIELD_INTEGER, 0 },
	{ "prio", 20, 4, GR_FIELD_INTEGER, 0 },
	{ "target_cpu", 24, 4, GR_FIELD_INTEGER, 0 },
	{ NULL, 0, 0, 0, 0 },
};

static const struct hs_field hs_migrate[] = {
	{ "comm", 0, 16, GR_FIELD_CHARS, 0 },
	{ "tid", 16, 4, GR_FIELD_INTEGER, 0 },
	{ "prio", 20, 4, GR_FIELD_INTEGER, 0 },
	{ "orig_cpu", 24, 4, GR_FIELD_INTEGER, 0 },
	{ "dest_cpu", 28, 4, GR_FIELD_INTEGER, 0 },
	{ NULL, 0, 0, 0, 0 },
};

/* as the guest's (guest-module/gr_events_table.h) */
static const struct hs_field hs_statedump[] = {
	{ "tid", 0, 4, GR_FIELD_INTEGER, 0 },
	{ "pid", 4, 4, GR_FIELD_INTEGER, 0 },
	{ "ppid", 8, 4, GR_FIELD_INTEGER, 0 },
	{ "name", 12, 16, GR_FIELD_CHARS, 0 },
	{ "type", 28, 4, GR_FIELD_INTEGER, 0 },
	{ "mode", 32, 4, GR_FIELD_INTEGER, 0 },
	{ "submode", 36, 4, GR_FIELD_INTEGER, 0 },
	{ "status", 40, 4, GR_FIELD_INTEGER, 0 },
	{ "cpu", 44, 4, GR_FIELD_INTEGER, 0 },
	{ NULL, 0, 0, 0, 0 },
};

/* lttng-modules' kvm_x86_entry and kvm_x86_exit, as the host has them */
static const struct hs_field hs_kvm_entry[] = {
	{ "vcpu_id", 0, 4, GR_FIELD_INTEGER, HS_UNSIGNED },
	{ "rip", 8, 8, GR_FIELD_INTEGER, HS_UNSIGNED | GR_FIELD_F_HEX },
	{ NULL, 0, 0, 0, 0 },
};

/* Trace Compass's vm_uid and cnt (spec 9.8), read as unsigned 64-bit */
static const struct hs_field hs_vmsync[] = {
	{ "cnt", 0, 8, GR_FIELD_INTEGER, HS_UNSIGNED },
	{ "vm_uid", 8, 8, GR_FIELD_INTEGER, HS_UNSIGNED },
	{ NULL, 0, 0, 0, 0 },
};

static const struct hs_field hs_kvm_exit[] = {
	{ "exit_reason", 0, 4, GR_FIELD_INTEGER, HS_UNSIGNED },
	{ "isa", 4, 4, GR_FIELD_INTEGER, HS_UNSIGNED },
	{ "guest_rip", 8, 8, GR_FIELD_INTEGER, HS_UNSIGNED | GR_FIELD_F_HEX },
	{ "vcpu_id", 16, 4, GR_FIELD_INTEGER, HS_UNSIGNED },
	{ "exit_reason_name", 20, GR_HS_REASON_NAME, GR_FIELD_CHARS, 0 },
	{ NULL, 0, 0, 0, 0 },
};

static const struct {
	const char *name;
	const char *system;
	uint16_t size;
	const struct hs_field *fields;
} hs_events[GR_HS_NR_EVENTS] = {
	[GR_HS_SWITCH] = { "sched_switch", "sched", GR_HS_SWITCH_SIZE,
			   hs_switch },
	[GR_HS_WAKEUP] = { "sched_wakeup", "sched", GR_HS_WAKEUP_SIZE,
			   hs_wakeup },
	[GR_HS_MIGRATE] = { "sched_migrate_task", "sched", GR_HS_MIGRATE_SIZE,
			    hs_migrate },
	[GR_HS_STATEDUMP] = { "lttng_statedump_process_state",
			      "lttng_statedump", GR_HS_STATEDUMP_SIZE,
			      hs_statedump },
	[GR_HS_KVM_ENTRY] = { "kvm_x86_entry", "kvm", GR_HS_KVM_ENTRY_SIZE,
			      hs_kvm_entry },
	[GR_HS_KVM_EXIT] = { "kvm_x86_exit", "kvm", GR_HS_KVM_EXIT_SIZE,
			     hs_kvm_exit },
	[GR_HS_VMSYNC_HG] = { "vmsync_hg_host", "vmsync", GR_HS_VMSYNC_SIZE,
			      hs_vmsync },
	[GR_HS_VMSYNC_GH] = { "vmsync_gh_host", "vmsync", GR_HS_VMSYNC_SIZE,
			      hs_vmsync },
};

static void put_name(char *dst, size_t size, const char *src)
{
	memset(dst, 0, size);
	strncpy(dst, src ? src : "", size - 1);
}

static void make_desc(struct gr_event_desc *d, unsigned int id)
{
	const struct hs_field *f;
	unsigned int n = 0;

	memset(d, 0, sizeof(*d));
	put_name(d->name, sizeof(d->name), hs_events[id].name);
	put_name(d->system, sizeof(d->system), hs_events[id].system);
	d->id = htole16((uint16_t)id);
	d->payload_size = htole16(hs_events[id].size);
	for (f = hs_events[id].fields; f->name; f++, n++) {
		put_name(d->fields[n].name, sizeof(d->fields[n].name), f->name);
		d->fields[n].offset = htole16(f->offset);
		d->fields[n].size = htole16(f->size);
		d->fields[n].type = f->type;
		if (f->type == GR_FIELD_INTEGER)
			d->fields[n].flags = f->flags & HS_UNSIGNED ?
					     f->flags & ~HS_UNSIGNED :
					     GR_FIELD_F_SIGNED | f->flags;
	}
	d->nr_fields = htole16((uint16_t)n);
}

/**
 * gr_hs_layout() - the description of a host stream
 * @l: receives it
 * @nr_cpus: host CPUs (one stream each), 1..GR_HS_MAX_CPUS
 * @host: the host's name (the trace's env "hostname")
 * @release: the host kernel's release
 * @boot_id: the host's boot_id: the UUID of its CLOCK_MONOTONIC
 *
 * The region header states per-CPU rings of GR_HS_PACKET-byte
 * sub-buffers and the clock "monotonic" at 1 GHz; it passes
 * gr_check_region_hdr() and the descriptors gr_check_event_desc(), so
 * that ctf.c writes and reader.c reads the host stream unchanged.
 *
 * Context: any; does not sleep.
 * Return: 0, -EINVAL (@nr_cpus out of range, or a check refused it).
 */
int gr_hs_layout(struct gr_hs_layout *l, unsigned int nr_cpus,
		 const char *host, const char *release,
		 const uint8_t boot_id[16])
{
	struct gr_region_hdr *h = &l->hdr;
	uint64_t ring, rec, data;
	const char *why;
	unsigned int i;

	if (!nr_cpus || nr_cpus > GR_HS_MAX_CPUS)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	ring = HS_PAGE(GR_LAYOUT_START +
		       GR_HS_NR_EVENTS * sizeof(struct gr_event_desc));
	rec = HS_PAGE(ring + nr_cpus * sizeof(struct gr_ring));
	data = HS_PAGE(rec + nr_cpus * 2 * sizeof(struct gr_subbuf_rec));
	l->region_size = data + (uint64_t)nr_cpus * 2 * GR_HS_PACKET;
	while (l->region_size & (l->region_size - 1))
		l->region_size += l->region_size & -l->region_size;

	h->magic = htole64(GR_REGION_MAGIC);
	h->abi_major = htole16(GR_ABI_MAJOR);
	h->abi_minor = htole16(GR_ABI_MINOR);
	h->hdr_size = htole32(sizeof(*h));
	h->region_size = htole64(l->region_size);
	h->instance_id = htole64(1);
	h->nr_rings = htole32(nr_cpus);
	h->nr_cpus = htole32(nr_cpus);
	h->subbuf_size = htole32(GR_HS_PACKET);
	h->n_subbufs = htole32(2);
	h->desc_offset = htole64(GR_LAYOUT_START);
	h->desc_count = htole32(GR_HS_NR_EVENTS);
	h->desc_stride = htole32(sizeof(struct gr_event_desc));
	h->ring_offset = htole64(ring);
	h->subbuf_rec_offset = htole64(rec);
	h->data_offset = htole64(data);
	h->packet_header_size = htole32(sizeof(struct gr_packet_header));
	h->max_event_size = htole32(sizeof(struct gr_event_header) +
				    GR_HS_SWITCH_SIZE);
	h->clock_freq = htole64(HS_FREQ);
	put_name(h->clock_name, sizeof(h->clock_name), "monotonic");
	put_name(h->kernel_release, sizeof(h->kernel_release), release);
	put_name(h->nodename, sizeof(h->nodename), host);
	memcpy(h->boot_id, boot_id, sizeof(h->boot_id));
	if (gr_check_region_hdr(h, l->region_size, &l->view, &why))
		return -EINVAL;
	for (i = 0; i < GR_HS_NR_EVENTS; i++) {
		make_desc(&l->desc[i], i);
		if (gr_check_event_desc(&l->view, &l->desc[i], i,
					&l->events[i], &why))
			return -EINVAL;
	}
	return 0;
}

/**
 * gr_hs_write_files() - the host stream's metadata and .guestrelay
 * @dirfd: the host stream's directory
 * @l: its layout (gr_hs_layout())
 * @env: the trace's identity; @env->host_stream should be set
 * @clock: CLOCK_MONOTONIC mapped to CLOCK_REALTIME
 *
 * Both are renamed into place and fsynced (ctf_info.c).
 *
 * Context: process; blocks on disk I/O.
 * Return: 0 or -errno.
 */
int gr_hs_write_files(int dirfd, const struct gr_hs_layout *l,
		      const struct gr_ctf_env *env,
		      const struct gr_ctf_clock *clock)
{
	size_t len;
	char *text;
	int ret;

	ret = gr_ctf_metadata(&l->view, l->events, GR_HS_NR_EVENTS, env,
			      clock, &text, &len);
	if (ret)
		return ret;
	ret = gr_ctf_write_metadata(dirfd, text, len, NULL);
	free(text);
	if (ret)
		return ret;
	return gr_ctf_write_info(dirfd, &l->hdr, l->region_size, l->desc,
				 sizeof(l->desc[0]),
				 GR_HS_NR_EVENTS, clock, env->trace_uuid,
				 NULL);
}

/* host CPU @cpu's stream file in @dirfd, opened to append */
static int open_file(int dirfd, unsigned int cpu)
{
	char name[GR_CTF_STREAM_NAME_MAX];
	int fd;

	snprintf(name, sizeof(name), GR_CTF_STREAM_FMT, cpu);
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
		    O_NOFOLLOW, 0640);
	return fd < 0 ? -errno : fd;
}

/**
 * gr_hs_stream_open() - open (or continue) host CPU @cpu's stream file
 * @s: the stream
 * @dirfd: the host stream's directory
 * @cpu: the host CPU
 *
 * A file that exists (an agent restarted in the same session) is
 * continued: its packets are content-only, so the next packet_seq_num
 * is not known from its size; it goes on from a number above any the
 * file can hold (one per 88 bytes), which readers take as lost packets
 * at most, never as a repeat.
 *
 * Context: process.
 * Return: 0 or -errno.
 */
int gr_hs_stream_open(struct gr_hs_stream *s, int dirfd, unsigned int cpu)
{
	off_t size;

	memset(s, 0, offsetof(struct gr_hs_stream, buf));
	s->cpu = cpu;
	s->fd = open_file(dirfd, cpu);
	if (s->fd < 0)
		return s->fd;
	size = lseek(s->fd, 0, SEEK_END);
	if (size > 0)
		s->seq = (uint64_t)size / (sizeof(struct gr_packet_header) + 16) + 1;
	return 0;
}

/**
 * gr_hs_stream_flush() - write the packet being filled, if any
 * @s: the stream
 *
 * Context: process; writes to the page cache.
 * Return: 0 or the first write error (-errno), which sticks.
 */
int gr_hs_stream_flush(struct gr_hs_stream *s)
{
	struct gr_packet_header *ph = (struct gr_packet_header *)s->buf;
	ssize_t n;

	if (!s->len || s->fd < 0)
		return s->err;
	memset(ph, 0, sizeof(*ph));
	ph->magic = htole32(GR_CTF_MAGIC);
	ph->stream_instance_id = htole64(s->cpu);
	ph->timestamp_begin = htole64(s->first_ts);
	ph->timestamp_end = htole64(s->last_ts);
	ph->content_size = htole64((uint64_t)s->last * 8);
	ph->packet_size = htole64((uint64_t)s->len * 8);
	ph->packet_seq_num = htole64(s->seq);
	ph->events_discarded = htole64(s->lost);
	ph->cpu_id = htole32(s->cpu);
	if (!s->err) {
		n = write(s->fd, s->buf, s->len);
		if (n != (ssize_t)s->len)
			s->err = n < 0 ? -errno : -EIO;
	}
	s->seq++;
	s->len = 0;
	return s->err;
}

/**
 * gr_hs_stream_add() - append one event to host CPU @s's stream
 * @s: the stream
 * @id: the event
 * @tid: the thread current on the CPU
 * @ts: CLOCK_MONOTONIC ns; an earlier time than the last is raised to it
 *	(CTF streams are in time order)
 * @payload: the payload in the layout of gr_hs_layout()
 * @len: its bytes, the event's payload size
 *
 * A full packet is written first (gr_hs_stream_flush()).
 *
 * Context: process.
 */
void gr_hs_stream_add(struct gr_hs_stream *s, enum gr_hs_event id,
		      uint32_t tid, uint64_t ts, const void *payload,
		      uint32_t len)
{
	struct gr_event_header e;
	uint32_t size = ((uint32_t)sizeof(e) + len + 7) & ~7U;

	if (ts < s->last_ts)
		ts = s->last_ts;
	if (s->len && s->len + size > GR_HS_PACKET)
		gr_hs_stream_flush(s);
	if (!s->len) {
		s->len = sizeof(struct gr_packet_header);
		s->first_ts = ts;
	}
	e.timestamp = htole64(ts);
	e.id = htole16((uint16_t)id);
	e.size = htole16((uint16_t)size);
	e.tid = htole32(tid);
	memcpy(s->buf + s->len, &e, sizeof(e));
	memset(s->buf + s->len + sizeof(e), 0, size - sizeof(e));
	memcpy(s->buf + s->len + sizeof(e), payload, len);
	s->last = s->len + (uint32_t)sizeof(e) + len;
	s->len += size;
	s->last_ts = ts;
}

/**
 * gr_hs_stream_close() - write the last packet and close the file
 * @s: the stream
 *
 * Context: process; fsyncs the file.
 * Return: 0 or the first error (-errno).
 */
int gr_hs_stream_close(struct gr_hs_stream *s)
{
	int ret = gr_hs_stream_flush(s);

	if (s->fd >= 0 && fsync(s->fd) && !ret)
		ret = -errno;
	if (s->fd >= 0 && close(s->fd) && !ret)
		ret = -errno;
	s->fd = -1;
	return ret;
}

/**
 * gr_hs_stream_move() - a rotation: the stream goes on in another directory
 * @s: the stream
 * @dirfd: the host stream's directory in the new chunk
 *
 * The packet being filled is written and the file fsynced and closed
 * where it was (gr_hs_stream_close()); the stream's file is created in
 * @dirfd and the next packet goes there, its packet_seq_num,
 * events_discarded and time following the last packet's, so that the
 * files of the chunks side by side are the stream without the move.
 *
 * Context: process; fsyncs the old file.
 * Return: 0, or the first error (-errno): of the old file (the stream
 * goes on in the new one, its error cleared) or of the new one (@s->fd is
 * then -1 and @s stores nothing more: the caller drops it).
 */
int gr_hs_stream_move(struct gr_hs_stream *s, int dirfd)
{
	int ret = gr_hs_stream_close(s);

	s->err = 0;
	s->fd = open_file(dirfd, s->cpu);
	if (s->fd < 0) {
		s->err = s->fd;
		s->fd = -1;
		return s->err;
	}
	return ret;
}
