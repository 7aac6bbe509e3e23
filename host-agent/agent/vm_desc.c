// SPDX-License-Identifier: GPL-2.0
/*
 * vm_desc.c - descriptors the guest appends at run time (spec 18.3 M2)
 *
 * Placeholder of branch h-names until the adoption of M1-M3 (branch
 * h-desc) is merged: it adopts nothing, the table stays the one checked
 * at attach.
 */
#include "vm.h"
#include "vm_desc.h"

/**
 * vm_desc_refresh() - adopt the descriptors status.desc_live covers
 * @vm: an attached VM
 *
 * Return: 0 (nothing adopted here).
 */
int vm_desc_refresh(struct gr_vm *vm)
{
	(void)vm;
	return 0;
}
