/* SPDX-License-Identifier: GPL-2.0 */
/*
 * follow.h - the follow filter (spec 15) on the host: parsed from
 * "--pid LIST", "--comm GLOB", "--no-fork", written into the control block
 */
#ifndef GR_FOLLOW_H
#define GR_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "guestrelay_abi.h"

/**
 * struct gr_fx_follow - a follow filter (spec 15): the tasks to record
 * @flags: GR_FOLLOW_F_*; 0 = no follow filter
 * @nr_pids: used entries of @pids
 * @pids: thread ids, 1..GR_FOLLOW_PID_LIMIT-1, no duplicates
 * @comm: glob on a task's comm, "" for none (NUL-terminated)
 *
 * Zero-filled means none. The agent keeps one per VM; the CLI sends it as
 * "--pid LIST", "--comm GLOB", "--no-fork".
 */
struct gr_fx_follow {
	uint32_t flags;
	uint16_t nr_pids;
	uint32_t pids[GR_FOLLOW_MAX_PIDS];
	char comm[GR_FOLLOW_COMM_LEN + 1];
};

int gr_fx_follow_pids(struct gr_fx_follow *fo, const char *list, char *err,
		      size_t errlen);
int gr_fx_follow_comm(struct gr_fx_follow *fo, const char *glob, char *err,
		      size_t errlen);
void gr_fx_follow_fill(const struct gr_fx_follow *fo,
		       struct gr_host_ctrl *c);
int gr_fx_follow_str(const struct gr_fx_follow *fo, char *buf, size_t size);
int gr_fx_follow_pid_list(const struct gr_fx_follow *fo, char *buf,
			  size_t size);

#endif /* GR_FOLLOW_H */
