/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm_desc.h - descriptors a guest adds at run time (v1.7, GR_F_ANYEVENT,
 * spec 18.3 M2): read, checked, adopted all or none; see vm_desc.c. Its
 * state, struct gr_vm_desc, lives in the VM; only vm_desc.c writes it.
 */
#ifndef GR_VM_DESC_H
#define GR_VM_DESC_H

#include <stdbool.h>
#include <stdint.h>

struct gr_vm;

/**
 * struct gr_vm_desc - what vm_desc.c remembers of a publication
 * @refused: a batch was refused (logged once): the one ending at
 *	@refused_live, checked again only once desc_live moves
 * @refused_live: its desc_live
 * @bad: a desc_live out of range was seen (counted and logged once per
 *	value): @bad_live
 * @bad_live: that value
 *
 * Zeroed at every attach: a new instance starts from its header's
 * desc_count (spec 18.2 N6).
 */
struct gr_vm_desc {
	bool refused;
	bool bad;
	uint32_t refused_live;
	uint32_t bad_live;
};

int vm_desc_refresh(struct gr_vm *vm);

#endif /* GR_VM_DESC_H */
