/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm_names.h - vm_names.c: the host's requests for events by name
 * (spec 18, GR_F_ANYEVENT); its state, struct gr_vm_names, lives in the
 * VM and only vm_names.c writes it (vm.c clears the kick it handled)
 */
#ifndef GR_VM_NAMES_H
#define GR_VM_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "agent.h"
#include "name_text.h"

/* What a request is for (struct gr_vm_names.kind) */
enum gr_names_for {
	GR_NAMES_ENABLE = 1,		/* `enable`: reply through @done */
	GR_NAMES_ATTACH,		/* the VM's --events at attach (M6) */
	GR_NAMES_LIST,			/* `events`: reply through @list_done */
};

/**
 * struct gr_vm_names - the one request for events by name in flight (M5)
 * @active: a request is written and not answered yet
 * @kind: GR_NAMES_*
 * @seq: its number in the strip
 * @op: GR_NAME_OP_*
 * @offset: LIST: the page asked for
 * @total: LIST: the listing's size, as its first page said
 * @len: bytes of @text
 * @text: the request's text (ADD: the patterns; LIST: the glob)
 * @deadline_ns: CLOCK_MONOTONIC: ETIMEDOUT after it (5 s)
 * @instance: the publication asked
 * @tokens: ENABLE, ATTACH: the event list to resolve once answered
 * @list: LIST: the pages so far
 * @done: ENABLE: the answer; @list_done: LIST; @arg: theirs
 * @kick: the strip changed: ring GR_VEC_CTRL (vm.c)
 * @bad_answers: answers refused by M4
 */
struct gr_vm_names {
	bool active;
	enum gr_names_for kind;
	uint64_t seq;
	uint32_t op, offset, total, len;
	char text[GR_NAME_REQ_TEXT];
	uint64_t deadline_ns;
	uint64_t instance;
	char *tokens;
	struct gr_name_list list;
	gr_done_fn done;
	gr_list_fn list_done;
	void *arg;
	bool kick;
	uint64_t bad_answers;
};

struct gr_vm;

bool vm_names_in_use(const struct gr_vm *vm);
int vm_names_add(struct gr_vm *vm, enum gr_names_for kind, const char *ask,
		 const char *tokens, gr_done_fn done, void *arg,
		 char *err, size_t errlen);
void vm_names_poll(struct gr_vm *vm);
void vm_names_cancel(struct gr_vm *vm, int err, const char *msg);

#endif /* GR_VM_NAMES_H */
