/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_int.h - what report.c shares with report_follow.c and
 * report_host.c: choosing and printing the items of a trace
 */
#ifndef GR_REPORT_INT_H
#define GR_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reader.h"
#include "report.h"

/**
 * struct gr_report_ctx - what gr_report_begin() decided
 * @opts: the options (never NULL)
 * @sel: the events --events selects, by id
 * @host_time: print host time (asked for, and the clock was synchronized)
 */
struct gr_report_ctx {
	const struct gr_report_opts *opts;
	uint8_t sel[GR_WIDE_MAX_EVENTS];
	int host_time;
};

int gr_report_begin(const struct gr_reader *r, FILE *out, FILE *err,
		    const struct gr_report_opts *opts,
		    struct gr_report_ctx *x);
void gr_report_item(FILE *out, const struct gr_reader *r,
		    const struct gr_cursor *c, const struct gr_report_ctx *x);
void gr_report_preamble(FILE *out, const struct gr_reader *r,
			const char *base);
void gr_report_event(FILE *out, const struct gr_reader *r,
		     const struct gr_cursor *c, const char *tag,
		     const char *when);
int gr_report_select(const struct gr_ctf_info *const *info,
		     uint8_t (*sel)[GR_WIDE_MAX_EVENTS], unsigned int n,
		     const char *list, FILE *err);
void gr_report_fmt_ns(char *buf, size_t len, __int128 t, int pad);

#endif /* GR_REPORT_INT_H */
