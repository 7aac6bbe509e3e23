/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ht_record.h - ht_record.c: the raw perf records of the host stream
 * decoded, apart from the perf events that make them (hosttrace.c), so
 * that a test feeds it records laid out by hand
 *
 *   formats    where a tracepoint's fields are in its raw record, read
 *              from the host's tracefs format file (ht_format_field())
 *   samples    a PERF_RECORD_SAMPLE of sample_type TID | TIME | CPU | RAW
 *              split into its parts (ht_sample())
 *   payloads   a sample's raw record copied into the payload of its
 *              host stream event (hoststream.h) (ht_payload())
 *   rings      the records of a perf ring, across its end (ht_ring_walk())
 */
#ifndef GR_HT_RECORD_H
#define GR_HT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoststream.h"

#define GR_HT_MAX_FIELDS	7	/* fields copied of one tracepoint */
#define GR_HT_REC_MAX		1024	/* a longer record is skipped */
#define GR_HT_PAYLOAD_MAX	64	/* the largest payload ht_payload() fills */

/* the tracepoints the host stream records, in the order of gr_ht_tps[] */
enum gr_ht_tpi {
	GR_HT_SWITCH = 0,
	GR_HT_WAKEUP,
	GR_HT_MIGRATE,
	GR_HT_KVM_ENTRY,	/* KVM's: a host without them goes on */
	GR_HT_KVM_EXIT,
	GR_HT_NR_TPS,
};

#define GR_HT_NR_SCHED		GR_HT_KVM_ENTRY	/* those it needs */
#define GR_HT_MAX_REASONS	256	/* exit reasons named */

/* where a tracepoint's field is in its raw record (its format file) */
struct gr_ht_field {
	uint16_t offset;
	uint16_t size;
	bool data_loc;		/* __data_loc: a u32 (len << 16 | offset) */
};

/* a tracepoint as this host has it: its id and the fields copied */
struct gr_ht_tp {
	uint64_t id;
	bool present;		/* @id and @f were read */
	struct gr_ht_field f[GR_HT_MAX_FIELDS];
};

/**
 * struct gr_ht_tpdef - a tracepoint the host stream records
 * @system: its tracefs folder ("sched")
 * @name: its name there ("sched_switch")
 * @event: the host stream event it becomes
 * @fields: the fields copied, NULL-terminated
 * @optional: fields that a kernel may lack (their value is then 0)
 * @sizes: the size each field must have, 0 any
 */
struct gr_ht_tpdef {
	const char *system;
	const char *name;
	enum gr_hs_event event;
	const char *fields[GR_HT_MAX_FIELDS + 1];
	uint8_t optional;	/* bit k: fields[k] */
	uint8_t sizes[GR_HT_MAX_FIELDS];
};

/* an exit reason's name, of a VMX (isa 1) or SVM (isa 2) table */
struct gr_ht_reason {
	uint32_t code;
	uint8_t isa;		/* 0: the format's one table, for any isa */
	char name[GR_HS_REASON_NAME];
};

/* the exit reasons of the host's kvm_exit format (its print fmt) */
struct gr_ht_reasons {
	unsigned int n;
	struct gr_ht_reason r[GR_HT_MAX_REASONS];
};

extern const struct gr_ht_tpdef gr_ht_tps[GR_HT_NR_TPS];

/* a PERF_RECORD_SAMPLE of sample_type TID | TIME | CPU | RAW */
struct gr_ht_sample {
	uint32_t tid;		/* the thread current on the CPU */
	uint32_t cpu;
	uint64_t ts;		/* the event's clock (CLOCK_MONOTONIC) */
	const uint8_t *raw;	/* the tracepoint's record, in the sample */
	uint32_t rawlen;
	uint16_t type;		/* common_type: the tracepoint's id */
};

int ht_format_field(const char *format, const char *name,
		    struct gr_ht_field *f);
int ht_read_format(const char *format, unsigned int tpi, struct gr_ht_tp *tp);
int ht_sample(const uint8_t *rec, uint32_t n, struct gr_ht_sample *s);
int64_t ht_raw_int(const uint8_t *raw, uint32_t n, const struct gr_ht_field *f);
void ht_raw_comm(uint8_t *out, const uint8_t *raw, uint32_t n,
		 const struct gr_ht_field *f);
int ht_read_reasons(const char *format, struct gr_ht_reasons *r);
const char *ht_reason_name(const struct gr_ht_reasons *r, uint32_t isa,
			   uint32_t reason);
int ht_payload(const struct gr_ht_tp *tps, const struct gr_ht_reasons *r,
	       const struct gr_ht_sample *s, uint8_t *p, uint32_t *len);

typedef void (*gr_ht_rec_fn)(void *arg, uint32_t type, const uint8_t *rec,
			     uint32_t n);
uint64_t ht_ring_walk(const uint8_t *data, uint64_t size, uint64_t head,
		      uint64_t tail, gr_ht_rec_fn fn, void *arg);

#endif /* GR_HT_RECORD_H */
