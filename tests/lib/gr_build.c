// SPDX-License-Identifier: GPL-2.0
/*
 * gr_build.c - the guest's structures, built in memory by the tests (see
 * gr_build.h)
 */
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gr_build.h"

void gr_build_hdr(struct gr_region_hdr *h, const struct gr_build_layout *l)
{
	unsigned int i;

	memset(h, 0, sizeof(*h));
	h->magic = htole64(GR_REGION_MAGIC);
	h->abi_major = htole16(GR_ABI_MAJOR);
	h->abi_minor = htole16(GR_ABI_MINOR);
	h->hdr_size = htole32(sizeof(*h));
	h->region_size = htole64(l->region_size);
	h->guest_features = htole64(l->features);
	h->instance_id = htole64(l->instance_id);
	h->nr_rings = htole32(l->nr_rings);
	h->nr_cpus = htole32(l->nr_cpus);
	h->flags = htole32(l->flags);
	h->subbuf_size = htole32(l->subbuf_size);
	h->n_subbufs = htole32(l->n_subbufs);
	h->desc_offset = htole64(l->desc_offset);
	h->desc_count = htole32(l->desc_count);
	h->desc_stride = htole32(sizeof(struct gr_event_desc));
	h->ring_offset = htole64(l->ring_offset);
	h->subbuf_rec_offset = htole64(l->rec_offset);
	h->data_offset = htole64(l->data_offset);
	h->packet_header_size = htole32(sizeof(struct gr_packet_header));
	h->max_event_size = htole32(l->max_event_size);
	h->clock_freq = htole64(l->clock_freq);
	strcpy(h->clock_name, "mono_fast");
	strncpy(h->kernel_release, l->kernel_release,
		sizeof(h->kernel_release) - 1);
	strncpy(h->nodename, l->nodename, sizeof(h->nodename) - 1);
	for (i = 0; i < sizeof(h->boot_id); i++)
		h->boot_id[i] = (uint8_t)(l->boot + i);
}

struct gr_field_desc *gr_build_event(struct gr_event_desc *d, uint16_t id,
				     const char *name, const char *system,
				     uint16_t payload, uint16_t flags,
				     uint16_t nr_fields)
{
	memset(d->name, 0, sizeof(d->name));
	memset(d->system, 0, sizeof(d->system));
	memcpy(d->name, name, strnlen(name, sizeof(d->name)));
	memcpy(d->system, system, strnlen(system, sizeof(d->system)));
	d->id = htole16(id);
	d->payload_size = htole16(payload);
	d->flags = htole16(flags);
	d->nr_fields = htole16(nr_fields);
	d->reserved = 0;
	return d->fields;
}

void gr_build_field(struct gr_field_desc *f, const char *name,
		    uint16_t offset, uint16_t size, uint8_t type,
		    uint8_t flags)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->name, name, strnlen(name, sizeof(f->name)));
	f->offset = htole16(offset);
	f->size = htole16(size);
	f->type = type;
	f->flags = flags;
}

void gr_build_sched_switch(struct gr_event_desc *d, uint16_t id,
			   uint8_t state_flags)
{
	const uint8_t I = GR_FIELD_INTEGER, C = GR_FIELD_CHARS,
		      SG = GR_FIELD_F_SIGNED;
	struct gr_field_desc *f;

	f = gr_build_event(d, id, "sched_switch", "sched", 56, 0, 7);
	gr_build_field(&f[0], "prev_comm", 0, 16, C, 0);
	gr_build_field(&f[1], "prev_tid", 16, 4, I, SG);
	gr_build_field(&f[2], "prev_prio", 20, 4, I, SG);
	gr_build_field(&f[3], "prev_state", 24, 8, I, state_flags);
	gr_build_field(&f[4], "next_comm", 32, 16, C, 0);
	gr_build_field(&f[5], "next_tid", 48, 4, I, SG);
	gr_build_field(&f[6], "next_prio", 52, 4, I, SG);
}

void gr_build_sched_wakeup(struct gr_event_desc *d, uint16_t id)
{
	struct gr_field_desc *f;

	f = gr_build_event(d, id, "sched_wakeup", "sched", 28, 0, 4);
	gr_build_field(&f[0], "comm", 0, 16, GR_FIELD_CHARS, 0);
	gr_build_field(&f[1], "tid", 16, 4, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	gr_build_field(&f[2], "prio", 20, 4, GR_FIELD_INTEGER,
		       GR_FIELD_F_SIGNED);
	gr_build_field(&f[3], "target_cpu", 24, 4, GR_FIELD_INTEGER,
		       GR_FIELD_F_SIGNED);
}

uint32_t gr_build_record(uint8_t *at, uint16_t id, uint32_t tid, uint64_t ts,
			 const void *payload, uint32_t plen)
{
	struct gr_event_header e;
	uint32_t size = ((uint32_t)sizeof(e) + plen + 7) & ~7U;

	e.id = htole16(id);
	e.size = htole16((uint16_t)size);
	e.tid = htole32(tid);
	e.timestamp = htole64(ts);
	memcpy(at, &e, sizeof(e));
	memset(at + sizeof(e), 0, size - sizeof(e));
	if (plen)
		memcpy(at + sizeof(e), payload, plen);
	return size;
}

void gr_build_packet_header(struct gr_packet_header *ph,
			    const struct gr_build_packet *p)
{
	memset(ph, 0, sizeof(*ph));
	ph->magic = htole32(GR_CTF_MAGIC);
	ph->stream_id = 0;
	ph->stream_instance_id = htole64(p->ring);
	ph->timestamp_begin = htole64(p->ts_begin);
	ph->timestamp_end = htole64(p->ts_end);
	ph->content_size = htole64(p->content_bytes * 8);
	ph->packet_size = htole64(p->packet_bytes * 8);
	ph->packet_seq_num = htole64(p->seq);
	ph->events_discarded = htole64(p->discarded);
	ph->cpu_id = htole32(p->cpu);
}

void gr_build_commit(struct gr_subbuf_rec *rec, uint64_t seq, uint32_t bytes)
{
	memset(rec, 0, sizeof(*rec));
	rec->seq = htole64(seq);
	rec->bytes = htole32(bytes);
}

const char *const gr_build_tsdl_keywords[GR_BUILD_NR_TSDL_KEYWORDS] = {
	"align", "callsite", "char", "clock", "const", "double",
	"enum", "env", "event", "float", "floating_point", "int",
	"integer", "long", "short", "signed", "stream", "string",
	"struct", "trace", "typealias", "typedef", "unsigned",
	"variant", "void",
};

uint8_t *gr_build_map(const char *path, uint64_t min, uint64_t *size)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct stat sb;
	void *r;

	if (fd < 0 || fstat(fd, &sb) || (uint64_t)sb.st_size < min) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*size = (uint64_t)sb.st_size;
	r = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (r == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	return r;
}
