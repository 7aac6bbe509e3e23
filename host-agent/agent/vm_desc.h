/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm_desc.h - descriptors the guest appends at run time (spec 18.3 M2)
 */
#ifndef GR_VM_DESC_H
#define GR_VM_DESC_H

struct gr_vm;

int vm_desc_refresh(struct gr_vm *vm);

#endif /* GR_VM_DESC_H */
