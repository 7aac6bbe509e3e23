/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm_hist.h - a VM's aggregation requests, between the operator's hist
 * requests and the hist area of its region (spec 17); see vm_hist.c. Its
 * state, struct gr_vm_hists, lives in the VM; only vm_hist.c writes it.
 */
#ifndef GR_VM_HIST_H
#define GR_VM_HIST_H

#include <stdbool.h>
#include <stdint.h>

#include "agent.h"

struct gr_vm;

/**
 * struct gr_vm_hist_slot - what became of request slot i
 * @spec: the request written into the slot (@spec.req.gen its gen), if
 *	@live
 * @live: the slot holds @spec for publication @instance
 * @bump: the next settings give the request a new gen (its maps start
 *	again at 0: `hist --clear`)
 * @instance: the publication @spec was written for
 * @why: why the request is not in the slot ("" = it is, or none)
 * @last: the previous read of the slot, for the backwards check
 */
struct gr_vm_hist_slot {
	struct gr_hist_spec spec;
	bool live;
	bool bump;
	uint64_t instance;
	char why[256];
	struct gr_hist_table last;
};

/**
 * struct gr_vm_hists - a VM's request slots
 * @slot: per slot of the hist area (entry i of gr_vm_opts.hists)
 * @gen: the last gen given; the next is above it (never 0)
 */
struct gr_vm_hists {
	struct gr_vm_hist_slot slot[GR_HIST_REQS];
	uint64_t gen;
};

void vm_hist_init(struct gr_vm *vm);
void vm_hist_finish(struct gr_vm *vm);
int vm_hist_set(struct gr_vm *vm, struct gr_vm_hist *h, char *err,
		size_t errlen);
int vm_hist_clear(struct gr_vm *vm, const char *name, bool remove,
		  char *err, size_t errlen);
void vm_hist_fill(struct gr_vm *vm);

#endif /* GR_VM_HIST_H */
