/* SPDX-License-Identifier: GPL-2.0 */
/*
 * name_text.h - name_text.c: the texts of events by name (spec 18.1),
 * without any state: the host's patterns, the guest's ADD and LIST
 * answers parsed and checked line by line (M4), and the match of a
 * pattern against an event's system and name as ftrace's set_event
 * reads it. The guest's text is untrusted: every line is checked whole
 * before anything of it is kept, and kept text is printable ASCII only.
 */
#ifndef GR_NAME_TEXT_H
#define GR_NAME_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guestrelay_abi.h"

#define GR_NAME_PAT_MAX		63	/* bytes of a pattern (18.1) */
#define GR_NAME_PART_MAX	64	/* system or name of a line, incl. NUL */
#define GR_NAME_DECL_MAX	128	/* a field's declaration, incl. NUL */
#define GR_NAME_LIST_MAX	(1U << 20)	/* a listing's total bytes */

/* What an ADD answer says of one event or pattern (18.1) */
enum gr_name_kind {
	GR_NAME_ADDED = 'A',		/* added now as descriptor @num */
	GR_NAME_KNOWN = 'K',		/* published before, descriptor @num */
	GR_NAME_REFUSED = 'R',		/* cannot be recorded: errno @num */
	GR_NAME_NONE = 'N',		/* pattern names nothing: errno @num */
	GR_NAME_DELETED = 'D',		/* v1.8: probe deleted, descriptor @num */
	GR_NAME_REASON = 'E',		/* v1.8: the kernel's reason (Q2) */
};

#define GR_NAME_REASON_MAX	256	/* an E line kept, incl. NUL */
#define GR_NAME_PROBE_MAX	32	/* a probe's NAME, incl. NUL (P2) */

/**
 * struct gr_name_line - one line of an ADD answer
 * @kind: GR_NAME_*
 * @system: the event's system ("" for GR_NAME_NONE)
 * @name: the event's name, or the pattern of GR_NAME_NONE
 * @num: descriptor id (A, K, D) or positive errno (R, N); 0 for E
 *
 * An E line's text is not kept here: gr_name_reason() gives it.
 */
struct gr_name_line {
	enum gr_name_kind kind;
	char system[GR_NAME_PART_MAX];
	char name[GR_NAME_PART_MAX];
	uint32_t num;
};

/**
 * struct gr_name_field - one field of a LIST line
 * @decl: its tracefs declaration ("unsigned long call_site")
 * @name: its name, the declaration's last identifier
 * @offset: byte offset in the tracefs record
 * @size: bytes
 * @is_signed: 's' (else 'u')
 */
struct gr_name_field {
	char decl[GR_NAME_DECL_MAX];
	char name[GR_NAME_PART_MAX];
	uint32_t offset, size;
	bool is_signed;
};

/* What a LIST line says of its event (18.1 `state`) */
enum gr_name_state {
	GR_NAME_NATIVE = 'n',		/* the table's own probe */
	GR_NAME_PUBLISHED = 'p',	/* added by name, in the table */
	GR_NAME_AVAILABLE = 'y',	/* can be added */
	GR_NAME_CANNOT = '-',		/* cannot: errno in @err */
};

/**
 * struct gr_name_event - one event of a listing
 * @system: its system
 * @name: its name
 * @state: GR_NAME_NATIVE ...
 * @err: positive errno of GR_NAME_CANNOT, else 0
 * @cut: the guest cut the line (`;...`): fields are missing
 * @nr_fields: entries of @fields
 * @fields: the fields (malloc'ed, freed by gr_name_list_free())
 */
struct gr_name_event {
	char system[GR_NAME_PART_MAX];
	char name[GR_NAME_PART_MAX];
	enum gr_name_state state;
	uint32_t err;
	bool cut;
	unsigned int nr_fields;
	struct gr_name_field *fields;
};

/* A listing, the pages of a LIST request put together */
struct gr_name_list {
	struct gr_name_event *ev;
	unsigned int nr, cap;
};

/**
 * struct gr_name_answer - the answer strip, read once, host byte order
 * @seq ... @len: as struct gr_name_ans
 * @text: @len bytes
 */
struct gr_name_answer {
	uint64_t seq;
	uint32_t result, matched, added, refused, desc_live, total, next, len;
	char text[GR_NAME_ANS_TEXT];
};

bool gr_name_pattern_ok(const char *p, size_t len);
int gr_name_patterns(const char *list, char *text, size_t size,
		     const char **why);
bool gr_name_match(const char *pattern, const char *system,
		   const char *name);
void gr_name_answer_read(const struct gr_name_ans *a,
			 struct gr_name_answer *out);
int gr_name_answer_check(const struct gr_name_answer *a, uint32_t op,
			 uint32_t offset, const char **why);
int gr_name_add_parse(const char *text, size_t len,
		      struct gr_name_line *lines, unsigned int max,
		      unsigned int *nr, const char **why);
int gr_name_list_parse(const char *text, size_t len, struct gr_name_list *l,
		       const char **why);
void gr_name_list_free(struct gr_name_list *l);
size_t gr_probe_name_len(const char *s);
int gr_probe_def_name(const char *def, char *name, const char **why);
int gr_name_reason(const char *text, size_t len, char *reason, size_t size,
		   const char **why);
void gr_name_printable(char *dst, size_t size, const char *src, size_t len);

#endif /* GR_NAME_TEXT_H */
