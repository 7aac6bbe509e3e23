/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm_filter.h - a VM's event filters, between the operator's expressions
 * and the filter area of its region (spec 14); see vm_filter.c. Its
 * state, struct gr_vm_filters, lives in the VM; only vm_filter.c writes it.
 */
#ifndef GR_VM_FILTER_H
#define GR_VM_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent.h"

struct gr_vm;

/**
 * struct gr_vm_filters - what became of the operator's filters
 * @why: per filter slot, why a filter was not applied ("" = it was)
 * @errors_base: status.filter_errors when the settings were last written
 * @follow_why: why the follow filter was not applied ("" = it was)
 */
struct gr_vm_filters {
	char why[GR_FILTER_SLOTS][256];
	uint32_t errors_base;
	char follow_why[256];
};

int vm_event_id(const struct gr_vm *vm, const char *name);
int vm_filters_set(struct gr_vm *vm, char *const *events, int nr,
		   const char *expr, char *err, size_t errlen);
int vm_follow_set(struct gr_vm *vm, const struct gr_fx_follow *fo, char *err,
		  size_t errlen);
void vm_filters_fill(struct gr_vm *vm, struct gr_filter_slot *area);
void vm_filters_info(const struct gr_vm *vm, struct gr_vm_info *info,
		     bool acked);
const char *gr_filter_reason_name(unsigned int reason);
void vm_filters_env(const struct gr_vm *vm, char *buf, size_t size);
void vm_follow_fill(struct gr_vm *vm, struct gr_host_ctrl *c);

#endif /* GR_VM_FILTER_H */
