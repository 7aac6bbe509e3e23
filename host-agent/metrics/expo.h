/* SPDX-License-Identifier: GPL-2.0 */
/*
 * expo.h - the agent's counters as a Prometheus text exposition page
 * (format version 0.0.4): families with HELP and TYPE lines, label
 * values escaped. No I/O but the FILE it writes to; metrics.c serves it.
 */
#ifndef GR_EXPO_H
#define GR_EXPO_H

#include <stdint.h>
#include <stdio.h>

#include "agent.h"
#include "live.h"

#define GR_EXPO_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

/**
 * struct gr_expo_vm - what the page shows of one VM
 * @info: the status snapshot (vm_get_info())
 * @sessions: recording session directories in the VM's store
 * @snapshots: flight-recorder snapshot directories in the VM's store
 * @store_known: @sessions and @snapshots could be counted
 * @hists: the VM's aggregation requests and their tables (vm_hist_read(),
 *	spec 17); NULL if none
 * @nr_hists: entries of @hists
 */
struct gr_expo_vm {
	struct gr_vm_info info;
	uint64_t sessions;
	uint64_t snapshots;
	bool store_known;
	struct gr_vm_hist_out *hists;
	unsigned int nr_hists;
};

/**
 * struct gr_expo_agent - the agent-wide figures
 * @host: this host's name
 * @loop_passes: passes of the io_uring loop
 * @loop_completions: completions the loop handled
 * @live: the LTTng-live server's counters (agent --live), all 0 without
 * @ship: shipping (agent --ship): the two counters below are shown
 * @ship_outages: times shipping stopped (any cause), since start
 * @ship_id_conflicts: message ids another publisher had taken
 */
struct gr_expo_agent {
	char host[256];
	uint64_t loop_passes;
	uint64_t loop_completions;
	struct gr_live_stats live;
	bool ship;
	uint64_t ship_outages;
	uint64_t ship_id_conflicts;
};

void expo_label_value(FILE *f, const char *s);
void expo_family(FILE *f, const char *name, const char *type,
		 const char *help);
void expo_format_double(char *buf, size_t len, double v);
void expo_double(FILE *f, double v);
/* expo_hist.c: the aggregation tables of the VMs (spec 17) */
void expo_hist_part(FILE *f, const struct gr_expo_vm *vms, size_t n);
void expo_page(FILE *f, const struct gr_expo_agent *ag,
	       const struct gr_expo_vm *vms, size_t n);

#endif /* GR_EXPO_H */
