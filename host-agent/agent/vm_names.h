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
	GR_NAMES_PROBE,			/* `probe VM DEF`: reply through @done */
	GR_NAMES_UNPROBE,		/* `probe VM -:NAME`: through @done */
	GR_NAMES_REPROBE,		/* a probe defined again (Q3, M6) */
	GR_NAMES_CLEAR,			/* first attach: UNPROBE of every one */
	GR_NAMES_DROP,			/* vm-remove, the agent's stop (Q3) */
};

#define GR_PROBE_NAME_MAX	GR_NAME_PROBE_MAX

/**
 * struct gr_vm_probe - a probe this host defined in the guest (18.4)
 * @name: its NAME (the event is guestrelay:NAME)
 * @def: its definition as the operator gave it
 * @id: its descriptor while @live, else -1
 * @live: defined in the current publication
 * @adopted: its descriptor adopted (M2) and its id enabled (M3)
 * @tried: asked again in the current publication (one try each, Q3)
 * @err: the last definition's error (-errno), 0 if none
 */
struct gr_vm_probe {
	char name[GR_PROBE_NAME_MAX];
	char def[GR_NAME_REQ_TEXT + 1];
	int id;
	bool live, adopted, tried;
	int err;
};

/**
 * struct gr_vm_probes - the probes the host wants in the guest (Q3)
 * @p: the probes, @nr of them
 * @nr: entries of @p
 * @cleared: the first attach's UNPROBE of every probe was sent
 * @dropping: the session ends: no probe is defined again
 * @instance: the publication @p[].live and @p[].tried refer to
 * @pending: PROBE in flight: its NAME; its definition is the strip's
 * @defined: probes the guest created (counter)
 * @deleted: probes the guest deleted on the host's request (counter)
 */
struct gr_vm_probes {
	struct gr_vm_probe p[GR_PROBE_MAX];
	unsigned int nr;
	bool cleared, dropping;
	uint64_t instance;
	char pending[GR_PROBE_NAME_MAX];
	uint64_t defined, deleted;
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
 * @probes: the probes the host defined (vm_probes.c)
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
	struct gr_vm_probes probes;
};

struct gr_vm;

bool vm_names_in_use(const struct gr_vm *vm);
int vm_names_add(struct gr_vm *vm, enum gr_names_for kind, const char *ask,
		 const char *tokens, gr_done_fn done, void *arg,
		 char *err, size_t errlen);
void vm_names_poll(struct gr_vm *vm);
void vm_names_cancel(struct gr_vm *vm, int err, const char *msg);
int vm_names_attached(const struct gr_vm *vm, char *err, size_t errlen);
int vm_names_start(struct gr_vm *vm, enum gr_names_for kind, uint32_t op,
		   const char *text, size_t len, char *err, size_t errlen);
void vm_names_finish(struct gr_vm *vm, int err, const char *msg);

/* vm_probes.c: probes from the host (spec 18.4) */
bool vm_probes_in_use(const struct gr_vm *vm);
int vm_probes_init(struct gr_vm *vm, char *err, size_t errlen);
void vm_probes_answer(struct gr_vm *vm, const struct gr_name_answer *a);
void vm_probes_work(struct gr_vm *vm);

#endif /* GR_VM_NAMES_H */
