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

#endif /* _GR_NAME_TEXT_H */
