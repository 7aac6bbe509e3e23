/* SPDX-License-Identifier: GPL-2.0 */
/*
 * names_out.h - events by name (spec 18) for the operator: `guestrelay
 * events VM` (the guest's catalogue as a table or JSON), the report of
 * `enable` once the guest answered, and `probe VM` (spec 18.4)
 */
#ifndef GR_NAMES_OUT_H
#define GR_NAMES_OUT_H

#include <stdio.h>

#include "agent.h"
#include "out.h"

void ctl_events_text(FILE *f, const struct gr_name_list *l);
void ctl_events_json(struct ctl_json *j, const struct gr_name_list *l);
void ctl_enable_report_text(FILE *f, const char *report);
void ctl_enable_report_json(struct ctl_json *j, const char *vm,
			    const char *report);
void ctl_probes_text(FILE *f, const char *vm, const struct gr_probe_info *p,
		     unsigned int nr);
void ctl_probes_json(struct ctl_json *j, const char *vm,
		     const struct gr_probe_info *p, unsigned int nr);
void ctl_probe_report_json(struct ctl_json *j, const char *vm,
			   const char *report);

#endif /* GR_NAMES_OUT_H */
