/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist_out.h - `guestrelay hist VM`: a VM's aggregation tables printed as
 * ftrace prints its events/<sys>/<event>/hist file, and as JSON
 */
#ifndef GR_HIST_OUT_H
#define GR_HIST_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "agent.h"
#include "out.h"

void ctl_hist_trigger(char *buf, size_t len, const struct gr_vm_hist_out *o);
void ctl_hist_sort(struct gr_vm_hist_out *o);
void ctl_hist_text(FILE *f, const struct gr_vm_hist_out *o, unsigned int n);
void ctl_hist_json(struct ctl_json *j, const char *vm,
		   const struct gr_vm_hist_out *o, unsigned int n);

#endif /* GR_HIST_OUT_H */
