// SPDX-License-Identifier: GPL-2.0
/*
 * vm_names.c - the host's requests for events by name (spec 18,
 * GR_F_ANYEVENT): one at a time per VM (M5)
 *
 *   ADD    `enable VM PATTERN...` (or the VM's --events at attach, M6):
 *          the patterns no adopted descriptor matches, or with a system
 *          part, go to the guest; on its answer the new descriptors are
 *          adopted (vm_desc_refresh(), M2), every pattern is resolved
 *          again against the adopted table only, the enable bits set
 *          (M3) and published
 *   LIST   `events VM [GLOB]`: the guest's catalogue, page by page,
 *          until next = total
 *
 *   write the strip (every field, then seq + 1 with release) -> ring
 *   GR_VEC_CTRL -> the guest's control pass answers (N2) -> its doorbell
 *   or the VM's timer -> vm_names_poll(): ans.seq (acquire), the rest
 *   read once, checked (M4) -> the next page, or the answer
 *
 * No wait is unbounded (H17): after 5 s the request fails with
 * ETIMEDOUT and is given up; the next request replaces it in the strip
 * (N2: the guest answers the last seq it sees), and an answer to an
 * older seq is never taken for the one asked. The guest's text is reported, never trusted: what is recorded
 * is decided by the adopted descriptors alone.
 *
 * This file writes its own state (vm->names), the request strip, and
 * for an answered ADD the VM's enable bits (vm_settings.c's, published
 * through hostctl_publish()). The doorbell it owes is a report
 * (names.kick) that vm.c rings once per loop pass.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "vm.h"
#include "vm_desc.h"

#define GR_NAMES_TIMEOUT_NS	(5000 * 1000000ULL)
#define GR_NAMES_MAX_LINES	256	/* ADD lines kept for the report */
/* ADD answers with more event lines, or incomplete, are summed up */
#define GR_NAMES_REPORT_LINES	20

static struct gr_name_req *req_strip(struct gr_vm *vm)
{
	return (struct gr_name_req *)(vm->region + GR_NAME_REQ_OFFSET);
}

static const struct gr_name_ans *ans_strip(const struct gr_vm *vm)
{
	return (const struct gr_name_ans *)(vm->region + GR_NAME_ANS_OFFSET);
}

/**
 * vm_names_in_use() - is GR_F_ANYEVENT in use with the attached guest?
 * @vm: the VM
 *
 * Return: true if both sides set it (2.3): the guest in its header, this
 * host in every control block (hostctl.c).
 */
bool vm_names_in_use(const struct gr_vm *vm)
{
	return vm->state == GR_VM_ATTACHED &&
	       (vm->view.features & GR_F_ANYEVENT);
}

/* Write the request of vm->names into the strip, seq last (M5) */
static void names_send(struct gr_vm *vm)
{
	struct gr_name_req *q = req_strip(vm);
	struct gr_vm_names *n = &vm->names;

	/* our own field: continue from what the region holds (restart) */
	n->seq = le64toh(q->seq) + 1;
	q->op = htole32(n->op);
	q->offset = htole32(n->offset);
	q->len = htole32(n->len);
	memset(q->reserved, 0, sizeof(q->reserved));
	memcpy(q->text, n->text, n->len);
	memset(q->text + n->len, 0, sizeof(q->text) - n->len);
	/* every field above before seq; pairs with the guest's
	 * smp_load_acquire() of req.seq (N2)
	 */
	__atomic_store_n(&q->seq, htole64(n->seq), __ATOMIC_RELEASE);
	n->deadline_ns = gr_now_ns() + GR_NAMES_TIMEOUT_NS;
	n->active = true;
	n->kick = true;
}

/* Start a request; -EBUSY while another is in flight (vm_probes.c too) */
int vm_names_start(struct gr_vm *vm, enum gr_names_for kind,
		       uint32_t op, const char *text, size_t len,
		       char *err, size_t errlen)
{
	struct gr_vm_names *n = &vm->names;
	uint64_t magic;

	if (!vm_names_in_use(vm)) {
		snprintf(err, errlen, "the guest of %s does not take requests "
			 "for events by name (no GR_F_ANYEVENT: a guest "
			 "module of spec 1.7 or later is needed)",
			 vm->opts.name);
		return -EOPNOTSUPP;
	}
	if (!vm_same_publication(vm, &magic)) {
		snprintf(err, errlen, "the guest of %s is publishing its "
			 "buffers again; try again once it is attached",
			 vm->opts.name);
		return -ENOTCONN;
	}
	if (n->active) {
		snprintf(err, errlen, "a request of %s for events by name is "
			 "under way; try again when it is answered",
			 vm->opts.name);
		return -EBUSY;
	}
	if (len > sizeof(n->text)) {
		snprintf(err, errlen, "the request exceeds %zu bytes",
			 sizeof(n->text));
		return -E2BIG;
	}
	n->kind = kind;
	n->op = op;
	n->offset = 0;
	n->total = 0;
	n->len = (uint32_t)len;
	memcpy(n->text, text, len);
	n->instance = vm->instance_id;
	names_send(vm);
	return 0;
}

/* The request is over: state cleared, the caller's callback last */
void vm_names_finish(struct gr_vm *vm, int err, const char *msg)
{
	struct gr_vm_names *n = &vm->names;
	gr_list_fn list_done = n->list_done;
	gr_done_fn done = n->done;
	enum gr_names_for kind = n->kind;
	struct gr_name_list l = n->list;
	void *arg = n->arg;

	free(n->tokens);
	n->tokens = NULL;
	n->active = false;
	n->done = NULL;
	n->list_done = NULL;
	memset(&n->list, 0, sizeof(n->list));
	if (kind == GR_NAMES_LIST && list_done)
		list_done(arg, err, msg, err ? NULL : &l);
	else if ((kind == GR_NAMES_ENABLE || kind == GR_NAMES_PROBE ||
		  kind == GR_NAMES_UNPROBE) && done)
		done(arg, err, msg);
	else if (kind == GR_NAMES_ATTACH && err)
		syslog(LOG_WARNING, "%s: events by name of --events (%s): %s",
		       vm->opts.name, vm->opts.events, msg);
	else if (kind == GR_NAMES_REPROBE && err)
		syslog(LOG_WARNING, "%s: probe %s not defined again: %s",
		       vm->opts.name, n->probes.pending, msg);
	gr_name_list_free(&l);
}

/**
 * vm_names_cancel() - the guest or the VM goes: answer a request in flight
 * @vm: the VM
 * @err: -errno for the caller
 * @msg: why
 */
void vm_names_cancel(struct gr_vm *vm, int err, const char *msg)
{
	if (vm->names.active)
		vm_names_finish(vm, err, msg);
}

/**
 * vm_names_add() - ask the guest to add the events of @ask (ADD)
 * @vm: an attached VM with GR_F_ANYEVENT in use
 * @kind: GR_NAMES_ENABLE or GR_NAMES_ATTACH
 * @ask: the patterns, comma separated
 * @tokens: the whole list to resolve and enable once answered
 * @done: ENABLE: called with the report or the error
 * @arg: passed to @done
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Return: 0 (the answer comes later), -EINVAL, -E2BIG, -EBUSY,
 * -EOPNOTSUPP, -ENOMEM.
 */
int vm_names_add(struct gr_vm *vm, enum gr_names_for kind, const char *ask,
		 const char *tokens, gr_done_fn done, void *arg,
		 char *err, size_t errlen)
{
	char text[GR_NAME_REQ_TEXT];
	const char *why = "";
	char *copy;
	int len, ret;

	len = gr_name_patterns(ask, text, sizeof(text), &why);
	if (len < 0) {
		snprintf(err, errlen, "%s", why);
		return len;
	}
	copy = strdup(tokens);
	if (!copy)
		return -ENOMEM;
	ret = vm_names_start(vm, kind, GR_NAME_OP_ADD, text, (size_t)len, err,
			  errlen);
	if (ret) {
		free(copy);
		return ret;
	}
	vm->names.tokens = copy;
	vm->names.done = done;
	vm->names.arg = arg;
	return 0;
}

/**
 * vm_names_attached() - a request needs a guest attached
 * @vm: the VM
 * @err: receives a message if not
 * @errlen: size of @err
 *
 * Return: 0 or -ENOTCONN.
 */
int vm_names_attached(const struct gr_vm *vm, char *err, size_t errlen)
{
	if (vm->state == GR_VM_ATTACHED)
		return 0;
	snprintf(err, errlen, "%s has no guest attached (guestrelay status "
		 "%s shows its state)", vm->opts.name, vm->opts.name);
	return -ENOTCONN;
}

/**
 * vm_list_events() - the guest's catalogue of events (LIST, every page)
 * @vm: an attached VM
 * @glob: one pattern, or "" for every event
 * @done: called with the listing or the error
 * @arg: passed to @done
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Return: 0 (done will be called), -ENOTCONN, -EOPNOTSUPP, -EBUSY,
 * -EINVAL.
 */
int vm_list_events(struct gr_vm *vm, const char *glob, gr_list_fn done,
		   void *arg, char *err, size_t errlen)
{
	size_t len = strlen(glob);
	int ret;

	ret = vm_names_attached(vm, err, errlen);
	if (ret)
		return ret;
	if (len && !gr_name_pattern_ok(glob, len)) {
		snprintf(err, errlen, "'%s' is not a pattern: system:name, "
			 "system: or name, globs allowed", glob);
		return -EINVAL;
	}
	ret = vm_names_start(vm, GR_NAMES_LIST, GR_NAME_OP_LIST, glob, len, err,
			  errlen);
	if (ret)
		return ret;
	vm->names.list_done = done;
	vm->names.arg = arg;
	return 0;
}

/* A token's ADD lines into @f: what the guest said of its events */
static void report_lines(FILE *f, const char *tok,
			 const struct gr_name_line *lines, unsigned int nr,
			 bool all)
{
	const char *end = all ? "\n" : "; ";

	const struct gr_name_line *l;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		l = &lines[i];
		if (l->kind == GR_NAME_NONE) {
			if (all || !strcmp(l->name, tok))
				fprintf(f, "%s: no such event in the guest (%s)%s",
					l->name, strerror((int)l->num), end);
			continue;
		}
		if (!all && !gr_name_match(tok, l->system, l->name))
			continue;
		if (l->kind == GR_NAME_REFUSED)
			fprintf(f, "%s:%s refused: %s%s", l->system, l->name,
				strerror((int)l->num), end);
		else if (!all)
			fprintf(f, "%s:%s %s by the guest as descriptor %u, not adopted by the host%s",
				l->system, l->name, l->kind == GR_NAME_ADDED ?
				"added" : "published", l->num, end);
		else
			fprintf(f, "%s:%s %s\n", l->system, l->name,
				l->kind == GR_NAME_ADDED ? "added" : "known");
	}
}

/*
 * A summary of an ADD answer into @f, in place of its lines when it has
 * more than GR_NAMES_REPORT_LINES of events or the guest could not fit
 * them all (spec 18.2 N5): the answer's counts, which are complete, and
 * the refusals of the lines it holds by reason. Return: whether it did.
 */
static bool report_summary(FILE *f, const struct gr_name_answer *a,
			   const struct gr_name_line *lines, unsigned int nr)
{
	uint32_t reasons[8] = { 0 }, counts[8] = { 0 };
	unsigned int i, j, nreasons = 0, events = 0, refused = 0;
	uint32_t known;

	for (i = 0; i < nr; i++)
		events += lines[i].kind != GR_NAME_NONE;
	if (events <= GR_NAMES_REPORT_LINES && events >= a->matched)
		return false;
	known = a->matched >= a->added + a->refused ?
		a->matched - a->added - a->refused : 0;
	fprintf(f, "%u events named: %u added, %u known, %u refused\n",
		a->matched, a->added, known, a->refused);
	for (i = 0; i < nr; i++) {
		if (lines[i].kind != GR_NAME_REFUSED)
			continue;
		refused++;
		for (j = 0; j < nreasons && reasons[j] != lines[i].num; j++)
			;
		if (j == nreasons && nreasons == ARRAY_SIZE(reasons))
			continue;
		reasons[j] = lines[i].num;
		nreasons += j == nreasons;
		counts[j]++;
	}
	if (refused) {
		fprintf(f, "refused, by reason (the %u of %u the answer lists):",
			refused, a->refused);
		for (j = 0; j < nreasons; j++)
			fprintf(f, "%s %s %u", j ? "," : "",
				strerror((int)reasons[j]), counts[j]);
		fprintf(f, "\n");
	}
	fprintf(f, "guestrelay events VM PATTERN lists each event's state and reason\n");
	return true;
}

/*
 * An ADD answered: adopt (M2), resolve every token against the adopted
 * table only, enable (M3), publish; the report of every line for @msg
 * (or its summary, report_summary()).
 * Return: 0 or -errno, @msg set either way (malloc'ed).
 */
static int names_added(struct gr_vm *vm, const struct gr_name_answer *a,
		       const struct gr_name_line *lines, unsigned int nr,
		       char **msg)
{
	uint64_t set[GR_WIDE_MAX_EVENTS / 64] = { 0 };
	uint64_t clr[GR_WIDE_MAX_EVENTS / 64] = { 0 };
	uint64_t bits[GR_WIDE_MAX_EVENTS / 64];
	char *buf = NULL, *tok, *save = NULL, *given;
	bool strict = vm->names.kind == GR_NAMES_ENABLE;
	size_t len = 0;
	unsigned int i;
	FILE *f;
	int ret, bad = 0;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	ret = vm_desc_refresh(vm);	/* the number adopted, or -errno */
	if (ret < 0) {
		fprintf(f, "the descriptors the guest of %s added were refused: %s",
			vm->opts.name, strerror(-ret));
		goto out;
	}
	given = strdup(vm->names.tokens);	/* strtok_r() cuts the tokens */
	if (!given) {
		ret = -ENOMEM;
		fprintf(f, "out of memory");
		goto out;
	}
	for (tok = strtok_r(vm->names.tokens, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		const char *pat = tok + (tok[0] == '!');
		unsigned int hits = 0;

		memset(bits, 0, sizeof(bits));
		for (i = 0; i < vm->view.desc_count; i++) {
			const struct gr_event_view *e = &vm->events[i];

			if (!strcmp(pat, "all") ||
			    gr_name_match(pat, e->system, e->name)) {
				bits[i / 64] |= 1ULL << (i % 64);
				hits++;
			}
		}
		vm_token_apply(tok, bits, set, clr);
		if (hits || pat != tok)
			continue;	/* nothing to turn off is no error */
		bad++;
		fprintf(f, "%s: '%s' names no event the host adopted; ",
			vm->opts.name, tok);
		report_lines(f, tok, lines, nr, false);
	}
	if (bad && strict) {
		free(given);
		ret = -ENOENT;
		goto out;
	}
	/* --events at attach: what was found is enabled, the rest told */
	for (i = 0; i < GR_WIDE_MAX_EVENTS / 64; i++)
		vm->enable[i] = (vm->enable[i] & ~clr[i]) | set[i];
	hostctl_publish(vm);
	if (strict)	/* enable at run time: asked again of a new guest */
		vm_events_remember(vm, given, true);
	free(given);
	if (!bad && !report_summary(f, a, lines, nr))
		report_lines(f, NULL, lines, nr, true);
	ret = bad ? -ENOENT : 0;
out:
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	/* an error is one line: its last separator goes */
	if (ret && len >= 2 && !strcmp(buf + len - 2, "; "))
		buf[len - 2] = '\0';
	*msg = buf;
	return ret;
}

/* The answer of an ADD request, checked */
static void answer_add(struct gr_vm *vm, const struct gr_name_answer *a)
{
	struct gr_name_line *lines;
	const char *why = "";
	char *msg = NULL;
	unsigned int nr;
	int ret;

	lines = calloc(GR_NAMES_MAX_LINES, sizeof(*lines));
	if (!lines) {
		vm_names_finish(vm, -ENOMEM, "out of memory");
		return;
	}
	ret = gr_name_add_parse(a->text, a->len, lines, GR_NAMES_MAX_LINES,
				&nr, &why);
	if (ret) {
		char text[512];

		vm->names.bad_answers++;
		snprintf(text, sizeof(text), "the answer of the guest of %s "
			 "was refused: %s", vm->opts.name, why);
		vm_names_finish(vm, ret, text);
	} else {
		if (nr > GR_NAMES_MAX_LINES)
			nr = GR_NAMES_MAX_LINES;
		ret = names_added(vm, a, lines, nr, &msg);
		vm_names_finish(vm, ret, msg ? msg : "out of memory");
	}
	free(msg);
	free(lines);
}

/* A page of a LIST request, checked: the next page, or the answer */
static void answer_list(struct gr_vm *vm, const struct gr_name_answer *a)
{
	struct gr_vm_names *n = &vm->names;
	const char *why = "";
	char text[512];
	int ret;

	if (n->offset && a->total != n->total) {
		why = "its listing changed size between pages";
		ret = -EPROTO;
	} else {
		ret = gr_name_list_parse(a->text, a->len, &n->list, &why);
	}
	if (ret) {
		vm->names.bad_answers += ret == -EPROTO;
		snprintf(text, sizeof(text), "the answer of the guest of %s "
			 "was refused: %s", vm->opts.name, why);
		vm_names_finish(vm, ret, text);
		return;
	}
	n->total = a->total;
	if (a->next == a->total) {
		vm_names_finish(vm, 0, NULL);
		return;
	}
	n->offset = a->next;
	names_send(vm);
}

/**
 * vm_names_poll() - the answer to the request in flight, if it came
 * @vm: the VM (any state)
 *
 * Called in every pass of the VM (its timer polls every 5 ms at most
 * while a request waits, H17) and after the guest's status doorbell.
 */
void vm_names_poll(struct gr_vm *vm)
{
	struct gr_vm_names *n = &vm->names;
	struct gr_name_answer *a;
	const char *why = "";
	char text[512];
	uint64_t seq;

	if (!n->active) {
		vm_probes_work(vm);	/* Q3: what the probes still want */
		return;
	}
	if (vm->state != GR_VM_ATTACHED || vm->instance_id != n->instance) {
		vm_names_finish(vm, -ENOTCONN,
			     "the session ended before the guest answered");
		return;
	}
	/* pairs with the guest's smp_store_release() of ans.seq (N2) */
	seq = le64toh(__atomic_load_n(&ans_strip(vm)->seq, __ATOMIC_ACQUIRE));
	if (seq != n->seq) {
		if (gr_now_ns() >= n->deadline_ns) {
			snprintf(text, sizeof(text), "the guest of %s did not "
				 "answer the request for events by name in 5 s",
				 vm->opts.name);
			vm_names_finish(vm, -ETIMEDOUT, text);
		}
		return;
	}
	a = malloc(sizeof(*a));
	if (!a) {
		vm_names_finish(vm, -ENOMEM, "out of memory");
		return;
	}
	gr_name_answer_read(ans_strip(vm), a);
	if (a->seq != n->seq) {		/* answered again meanwhile: later */
		free(a);
		return;
	}
	if (gr_name_answer_check(a, n->op, n->offset, &why)) {
		n->bad_answers++;
		snprintf(text, sizeof(text), "the answer of the guest of %s "
			 "was refused: %s", vm->opts.name, why);
		vm_names_finish(vm, -EPROTO, text);
	} else if (n->op == GR_NAME_OP_PROBE || n->op == GR_NAME_OP_UNPROBE) {
		vm_probes_answer(vm, a);
	} else if (a->result) {
		snprintf(text, sizeof(text), "the guest of %s refused the "
			 "request: %s%s", vm->opts.name,
			 strerror((int)a->result), a->result == EPERM ?
			 " (its administrator forbids requests for events "
			 "by name: byname=0)" : "");
		vm_names_finish(vm, -(int)a->result, text);
	} else if (n->op == GR_NAME_OP_ADD) {
		answer_add(vm, a);
	} else {
		answer_list(vm, a);
	}
	free(a);
}
