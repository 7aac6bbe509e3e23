/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_format: an event's record made from its ftrace entry (issue 25).
 * The payload layout is made once from the event's fields (its class's
 * field array, or a kprobe event's tracefs format); each entry the
 * kernel fills is then measured and copied into a record by it.
 */
#ifndef GR_FORMAT_H
#define GR_FORMAT_H

#include <linux/trace_events.h>
#include "gr_events.h"
#include "gr_name_text.h"

/* ftrace's common fields, before the event's own */
#define GR_FORMAT_COMMON	sizeof(struct trace_entry)
/* Bytes of a __data_loc string kept, its NUL included */
#define GR_ANYEVENT_STR_MAX	256
/* v1.11, GR_F_DYNARR: bytes of a dynamic array kept */
#define GR_ANYEVENT_ARR_MAX	256
/* __data_loc and __rel_loc fields of an event, and their maxima's sum */
#define GR_ANYEVENT_VARS	8
#define GR_ANYEVENT_VAR_MAX	1024

/* What the host accepted, which a layout may use */
#define GR_FORMAT_DYNARR	BIT(0)	/* GR_F_DYNARR: sequences, strings */
#define GR_FORMAT_ARRAYS	BIT(1)	/* GR_F_ARRAYS: fixed arrays, structs */
#define GR_FORMAT_LONG		BIT(2)	/* v1.15, GR_F_LONG_DESC: spec 20 */

/**
 * struct gr_format_var - a __data_loc or __rel_loc field of an event
 * @loc: entry offset of its 4-byte location word
 * @rel: __rel_loc: the offset counts from the end of the word
 * @elem: bytes of an element; 0 for a string
 * @flags: GR_FIELD_F_* of an element
 * @max: bytes kept at most (a string's NUL included)
 * @len_idx: index of its <name>_loc or <name>_len field
 * @name: its name
 */
struct gr_format_var {
	u16 loc;
	bool rel;
	u8 elem;
	u8 flags;
	u16 max;
	u8 len_idx;
	char name[GR_LONG_FIELD_NAME_LEN];
};

/**
 * struct gr_format - an event's payload layout
 * @fields: the payload's fields, in offset order (GR_MAX_FIELDS, or
 *	v1.15 with GR_FORMAT_LONG up to GR_LONG_MAX_FIELDS with names up
 *	to GR_LONG_FIELD_NAME_LEN, spec 20)
 * @names: storage of the field names
 * @nr: entries of @fields
 * @fixed: bytes of the entry copied, from GR_FORMAT_COMMON on
 * @payload_size: the payload's size, its variable part's maximum included
 * @flags: GR_EVENT_F_* of its descriptor
 * @feats: GR_FORMAT_* it was made for
 * @var: its __data_loc and __rel_loc fields, in the format's order
 * @nvar: entries of @var
 */
struct gr_format {
	struct gr_field_def fields[GR_LONG_MAX_FIELDS];
	char names[GR_LONG_MAX_FIELDS][GR_LONG_FIELD_NAME_LEN];
	unsigned int nr;
	u16 fixed;
	u16 payload_size;
	u16 flags;
	u8 feats;
	struct gr_format_var var[GR_ANYEVENT_VARS];
	unsigned int nvar;
};

/**
 * struct gr_format_cursor - one entry's variable fields, measured
 * @off: entry offset of each
 * @len: bytes of each to copy (a string's without its NUL)
 * @cut: one was longer than its maximum
 */
struct gr_format_cursor {
	u32 off[GR_ANYEVENT_VARS];
	u32 len[GR_ANYEVENT_VARS];
	bool cut;
};

bool gr_format_ident(const char *s, size_t max);
int gr_format_of_call(struct gr_format *fm, struct trace_event_call *call,
		      unsigned int nftrace, u8 feats);
int gr_format_of_probe(struct gr_format *fm, struct trace_event_call *call,
		       const struct gr_name_field *ff, unsigned int nff,
		       unsigned int nftrace, u8 feats);
int gr_format_measure(const struct gr_format *fm, const u8 *src, u32 size,
		      struct gr_format_cursor *c);
void gr_format_copy(const struct gr_format *fm, u8 *dst, const u8 *src,
		    const struct gr_format_cursor *c);

#endif
