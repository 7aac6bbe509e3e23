/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_name_text.h - the text of requests for events by name (spec 18.1)
 *
 * Pure code, as gr_layout.c: the patterns of a request, their match
 * against an event's system and name, the lines of tracefs'
 * available_events, a LIST line built from an event's tracefs format,
 * and the cut of answer text at whole lines. No state, no locking, no
 * memory; it builds in the kernel and in userspace (unit tests).
 */
#ifndef _GR_NAME_TEXT_H
#define _GR_NAME_TEXT_H

#include "gr_env.h"
#include "guestrelay_abi.h"

/* Spec 18.1, N5: bytes of a pattern, patterns of a request */
#define GR_NAME_PAT_MAX		63
#define GR_NAME_PATS_MAX	64
/* The longest system or event name available_events may hold for us */
#define GR_NAME_WORD_MAX	64

/**
 * struct gr_name_pat - one pattern of a request
 * @sys: the system part (glob), "" for a bare word
 * @name: the name part (glob), "" for every event of @sys
 * @bare: a bare word (no ':'): @name is the event's name in any system
 *	or the name of a system, as ftrace's set_event reads it
 */
struct gr_name_pat {
	char sys[GR_NAME_PAT_MAX + 1];
	char name[GR_NAME_PAT_MAX + 1];
	bool bare;
};

int gr_name_parse(const char *text, u32 len, struct gr_name_pat *pats,
		  unsigned int max, unsigned int *nr);
bool gr_name_match(const struct gr_name_pat *pat, const char *sys,
		   const char *name);
bool gr_name_next_event(const char **cur, const char *end, char *sys,
			char *name);
u32 gr_name_list_line(char *out, u32 cap, const char *sys,
		      const char *name, const char *state, const char *fmt,
		      u32 fmt_len);
int gr_name_page(const char *list, u32 total, u32 offset, u32 cap, u32 *len,
		 u32 *next);
bool gr_name_append(char *text, u32 *len, u32 cap, const char *line,
		    u32 n);

/**
 * struct gr_name_field - one field of an event's tracefs format
 * @type: its C type, an array's "[N]" appended ("char[16]")
 * @name: its name
 * @offset: its offset in the entry, common fields included
 * @size: its bytes
 * @is_signed: its "signed:" flag
 */
struct gr_name_field {
	char type[GR_NAME_WORD_MAX];
	char name[GR_NAME_WORD_MAX];
	u32 offset;
	u32 size;
	bool is_signed;
};

int gr_name_format_fields(const char *fmt, u32 len, struct gr_name_field *f,
			  unsigned int max, unsigned int *nr);

/* Spec 18.4 P2: the longest NAME of a probe of the host */
#define GR_PROBE_NAME_MAX	31
/* The command given to the kernel: "r4096:guestrelay/NAME" and the rest */
#define GR_PROBE_CMD_MAX	(GR_NAME_REQ_TEXT + 64)
/* Bytes of a kernel's error message kept for an E line */
#define GR_PROBE_MSG_MAX	96

/**
 * struct gr_probe_head - the head of a PROBE definition (spec 18.4 P2)
 * @name: NAME, NUL-terminated
 * @ret: an r probe
 * @maxact: r: the MAXACTIVE digits, "" for none
 * @start: offset of the head word in the definition
 * @rest: offset of the rest (after the head word)
 * @why: a failed check's message
 * @col: its column in the definition
 */
struct gr_probe_head {
	char name[GR_PROBE_NAME_MAX + 1];
	bool ret;
	char maxact[8];
	u32 start;
	u32 rest;
	const char *why;
	u32 col;
};

int gr_probe_parse(const char *def, u32 len, struct gr_probe_head *h);
u32 gr_probe_cmd(const char *def, u32 len, const struct gr_probe_head *h,
		 char *out, u32 cap);
u32 gr_probe_column(const char *def, u32 len, u32 head_len, u32 pos);
bool gr_probe_errlog(const char *log, u32 len, const char *cmd, char *msg,
		     u32 cap, u32 *pos);
const char *gr_probe_errname(int err);

#endif /* _GR_NAME_TEXT_H */
