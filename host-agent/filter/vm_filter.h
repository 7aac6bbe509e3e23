/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm_filter.h - a VM's event filters, between the operator's expressions
 * and the filter area of its region (spec 14); see vm_filter.c
 */
#ifndef _GR_VM_FILTER_H
#define _GR_VM_FILTER_H

#include "agent.h"

struct gr_vm;

void vm_filters_fill(struct gr_vm *vm, struct gr_filter_slot *area);
void vm_filters_info(const struct gr_vm *vm, struct gr_vm_info *info);
const char *gr_filter_reason_name(unsigned int reason);
void vm_filters_env(const struct gr_vm *vm, char *buf, size_t size);
void vm_follow_fill(struct gr_vm *vm, struct gr_host_ctrl *c);

#endif /* _GR_VM_FILTER_H */
