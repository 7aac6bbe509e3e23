// SPDX-License-Identifier: GPL-2.0
/*
 * vm_settings.c - what the operator sets on a VM while it runs: the
 * events it records, its event filters and its follow filter
 *
 * A change is kept in the VM (vm->enable, vm->opts, vm_filter.c's state)
 * and published to a guest that has published (hostctl_publish());
 * before that it waits for the guest's publication, which vm.c's attach
 * applies. Enables and disables are also kept in order (vm->ev_changes),
 * so that the next guest of the VM is asked the same at its attach
 * (vm_events_list()). Nothing here decides a VM's life.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "vm.h"

/* Does @tok name adopted event @e? ("all", or as ftrace's set_event) */
static bool token_names(const char *tok, const struct gr_event_view *e)
{
	return !strcmp(tok, "all") || gr_name_match(tok, e->system, e->name);
}

/**
 * vm_token_apply() - one token of an event list, in its order
 * @tok: a pattern, or '!' and a pattern (as ftrace's set_event)
 * @bits: the events the pattern names (one bit per descriptor)
 * @set: events the list so far turns on
 * @clr: events the list so far turns off
 *
 * A later token wins over an earlier one for the events both name, so
 * "sched_*,!sched_switch" ends with sched_switch off and the others on.
 * The list's effect on an enable mask E is (E & ~@clr) | @set.
 */
void vm_token_apply(const char *tok, const uint64_t *bits, uint64_t *set,
		    uint64_t *clr)
{
	unsigned int i;

	for (i = 0; i < GR_WIDE_MAX_EVENTS / 64; i++) {
		if (tok[0] == '!') {
			set[i] &= ~bits[i];
			clr[i] |= bits[i];
		} else {
			set[i] |= bits[i];
			clr[i] &= ~bits[i];
		}
	}
}

/**
 * vm_resolve_events() - a comma list of names, globs, systems,
 * system:name patterns or "all", each one possibly negated with '!',
 * against the guest's adopted descriptors, in order (vm_token_apply())
 * @vm: an attached VM
 * @list: the list
 * @strict: a pattern that names nothing is an error
 * @set: receives the events the list turns on (bits set and cleared)
 * @clr: receives the events it turns off
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Return: 0, -ENOENT (strict: an unknown name), -EINVAL.
 */
int vm_resolve_events(struct gr_vm *vm, const char *list, bool strict,
		      uint64_t *set, uint64_t *clr, char *err, size_t errlen)
{
	char buf[GR_EV_LIST_MAX], *tok, *save = NULL;
	uint64_t bits[GR_WIDE_MAX_EVENTS / 64];
	unsigned int i, hits;

	if (strlen(list) >= sizeof(buf)) {
		snprintf(err, errlen, "event list too long");
		return -EINVAL;
	}
	memcpy(buf, list, strlen(list) + 1);
	for (tok = strtok_r(buf, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		const char *pat = tok + (tok[0] == '!');

		hits = 0;
		memset(bits, 0, sizeof(bits));
		for (i = 0; i < vm->view.desc_count; i++) {
			if (token_names(pat, &vm->events[i])) {
				bits[i / 64] |= 1ULL << (i % 64);
				hits++;
			}
		}
		vm_token_apply(tok, bits, set, clr);
		if (!hits && strict) {
			size_t off = 0;

			off += snprintf(err, errlen,
					"unknown event '%s' in %s (available:",
					pat, vm->opts.name);
			for (i = 0; i < vm->view.desc_count && off < errlen; i++)
				off += snprintf(err + off, errlen - off, " %s",
						vm->events[i].name);
			if (off < errlen)
				snprintf(err + off, errlen - off, ")");
			return -ENOENT;
		}
	}
	return 0;
}

/**
 * vm_events_to_ask() - the patterns of @list to ask the guest for by name
 * @vm: a VM whose descriptors were checked (attached, or attaching)
 * @list: the event list (vm_resolve_events())
 * @ask: receives the patterns no adopted descriptor matches, those
 *	with a system part and "*", comma separated ("" if none); negated
 *	ones are never asked
 * @size: room in @ask (at least strlen(@list) + 1)
 *
 * Spec 18: with GR_F_ANYEVENT in use they are added before the list is
 * resolved; without it nothing is asked ("" always).
 */
void vm_events_to_ask(struct gr_vm *vm, const char *list, char *ask,
		      size_t size)
{
	char buf[GR_EV_LIST_MAX], *tok, *save = NULL;
	size_t off = 0;
	unsigned int i;
	bool known;

	ask[0] = '\0';
	if (!(vm->view.features & GR_F_ANYEVENT) || strlen(list) >= sizeof(buf))
		return;
	memcpy(buf, list, strlen(list) + 1);
	for (tok = strtok_r(buf, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		if (!strcmp(tok, "all") || tok[0] == '!')
			continue;	/* nothing to add for what goes off */
		/* a bare "*" is every event, "*:*" (ftrace's set_event) */
		known = false;
		for (i = 0; !strchr(tok, ':') && strcmp(tok, "*") &&
			    i < vm->view.desc_count; i++)
			known = known || token_names(tok, &vm->events[i]);
		if (known)
			continue;
		off += (size_t)snprintf(ask + off, size - off, "%s%s",
					off ? "," : "", tok);
		if (off >= size)
			off = size - 1;
	}
}

/* @tok without its '!' equals @key (of length @klen)? */
static bool same_pattern(const char *tok, const char *key, size_t klen)
{
	tok += tok[0] == '!';
	return strlen(tok) == klen && !memcmp(tok, key, klen);
}

/* Does the list @list hold the pattern of @tok (negated or not)? */
static bool list_has(const char *list, const char *tok)
{
	const char *key = tok + (tok[0] == '!'), *p = list;
	size_t klen = strlen(key), n;
	char one[GR_EV_LIST_MAX];

	while (*p) {
		n = strcspn(p, ", ");
		if (n && n < sizeof(one)) {
			memcpy(one, p, n);
			one[n] = '\0';
			if (same_pattern(one, key, klen))
				return true;
		}
		p += n;
		p += strspn(p, ", ");
	}
	return false;
}

/*
 * The run-time changes with @list's enable (@on) or disable appended:
 * an earlier change of the same pattern goes, since the new one decides
 * every event it names (so the record grows with distinct patterns, not
 * with commands). Return: the new record (malloc'ed), NULL with -E2BIG
 * or -ENOMEM in *@ret and @err set.
 */
static char *changes_with(const struct gr_vm *vm, const char *list, bool on,
			  int *ret, char *err, size_t errlen)
{
	const char *old = vm->ev_changes ? vm->ev_changes : "";
	size_t base = strlen(vm->opts.events[0] ? vm->opts.events :
			     GR_DEFAULT_EVENTS);
	char buf[GR_EV_LIST_MAX], *tok, *save = NULL, *out;
	size_t off = 0, room = GR_EV_LIST_MAX - base - 1;
	const char *p = old;

	*ret = -E2BIG;
	if (strlen(list) >= sizeof(buf))
		goto big;
	out = malloc(room + 1);
	if (!out) {
		*ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	out[0] = '\0';
	while (*p) {		/* the old changes @list does not replace */
		size_t n = strcspn(p, ",");

		memcpy(buf, p, n);
		buf[n] = '\0';
		if (!list_has(list, buf)) {
			if (off + n + 2 > room)
				goto big_free;
			off += (size_t)snprintf(out + off, room + 1 - off,
						"%s%s", off ? "," : "", buf);
		}
		p += n + (p[n] == ',');
	}
	memcpy(buf, list, strlen(list) + 1);
	for (tok = strtok_r(buf, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		bool neg = (tok[0] == '!') == on;	/* stored as off */

		tok += tok[0] == '!';
		if (off + strlen(tok) + 3 > room)
			goto big_free;
		off += (size_t)snprintf(out + off, room + 1 - off, "%s%s%s",
					off ? "," : "", neg ? "!" : "", tok);
	}
	return out;
big_free:
	free(out);
big:
	snprintf(err, errlen, "%s: the event changes made while it runs, "
		 "which a new guest is asked again, would exceed %d bytes; "
		 "set the list with vm-add --events instead",
		 vm->opts.name, GR_EV_LIST_MAX);
	return NULL;
}

/**
 * vm_events_remember() - keep a run-time enable or disable, so that the
 * next guest of the VM (a reloaded module, a rebooted guest, a restarted
 * QEMU) is asked the same, in the same order, at its attach
 * @vm: the VM
 * @list: the patterns, as given to enable or disable
 * @on: enable or disable
 *
 * Return: 0, -E2BIG (the record would exceed GR_EV_LIST_MAX with
 * --events), -ENOMEM; logged here, the change itself stands.
 */
int vm_events_remember(struct gr_vm *vm, const char *list, bool on)
{
	char err[256];
	char *n;
	int ret;

	n = changes_with(vm, list, on, &ret, err, sizeof(err));
	if (!n) {
		syslog(LOG_WARNING, "%s: not asked again of a new guest: %s",
		       vm->opts.name, err);
		return ret;
	}
	free(vm->ev_changes);
	vm->ev_changes = n;
	return 0;
}

/**
 * vm_events_list() - the events a guest of the VM is asked for at attach
 * @vm: the VM
 * @defaults: without --events, the defaults first (else nothing)
 *
 * The defaults name the table's events only: vm.c resolves them, but
 * never asks a guest for them by name (spec 18, M6 is about --events).
 *
 * Return: --events (or the defaults, or nothing) and the run-time changes
 * after it, comma separated (malloc'ed), or NULL (no memory).
 */
char *vm_events_list(const struct gr_vm *vm, bool defaults)
{
	const char *base = vm->opts.events[0] ? vm->opts.events :
			   defaults ? GR_DEFAULT_EVENTS : "";
	const char *ch = vm->ev_changes ? vm->ev_changes : "";
	char *l;

	if (asprintf(&l, "%s%s%s", base, base[0] && ch[0] ? "," : "",
		     ch) < 0)
		return NULL;
	return l;
}

/**
 * vm_enable_events() - record events, asking the guest for those it has
 * not published yet (spec 18)
 * @vm: the VM
 * @list: patterns: names, globs, systems, system:name, system:, "all"
 * @done: called with the report once the guest answered
 * @arg: passed to @done
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * With GR_F_ANYEVENT in use, the patterns that name no adopted
 * descriptor, and those with a system part, go to the guest as one ADD
 * request; its answer enables the list, resolved strictly against the
 * adopted descriptors (vm_names.c). Otherwise, as vm_set_events().
 *
 * Return: 0 (done, @done not called), GR_ASYNC (@done will be called),
 * -errno (vm_set_events(), vm_names_add()).
 */
int vm_enable_events(struct gr_vm *vm, const char *list, gr_done_fn done,
		     void *arg, char *err, size_t errlen)
{
	char *ask;
	int ret;

	if (vm->state == GR_VM_WAITING || !vm_names_in_use(vm))
		return vm_set_events(vm, list, true, err, errlen);
	/* refused now rather than forgotten at the answer (names_added()) */
	ask = changes_with(vm, list, true, &ret, err, errlen);
	if (!ask)
		return ret;
	free(ask);
	ask = malloc(strlen(list) + 1);
	if (!ask)
		return -ENOMEM;
	vm_events_to_ask(vm, list, ask, strlen(list) + 1);
	if (!ask[0]) {
		free(ask);
		return vm_set_events(vm, list, true, err, errlen);
	}
	ret = vm_names_add(vm, GR_NAMES_ENABLE, ask, list, done, arg, err,
			   errlen);
	free(ask);
	return ret ? ret : GR_ASYNC;
}

/**
 * vm_set_events() - record (or stop recording) events
 * @vm: the VM
 * @list: names, globs (sched_*), systems (sched) or "all", comma separated
 * @on: enable or disable
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Before the guest published its events, enabling is remembered and
 * applied at attach; disabling needs the events to be known.
 *
 * Return: 0, -ENOENT for an unknown name, -EAGAIN, -EINVAL.
 */
int vm_set_events(struct gr_vm *vm, const char *list, bool on,
		  char *err, size_t errlen)
{
	uint64_t set[GR_WIDE_MAX_EVENTS / 64] = { 0 };
	uint64_t clr[GR_WIDE_MAX_EVENTS / 64] = { 0 };
	char *changes;
	unsigned int i;
	int ret;

	if (!on && strchr(list, '!')) {
		snprintf(err, errlen, "disable takes patterns, not '!' (enable "
			 "'!PATTERN' turns events off, as ftrace's set_event)");
		return -EINVAL;
	}
	if (vm->state == GR_VM_WAITING) {
		size_t len = strlen(vm->opts.events);

		if (!on) {
			snprintf(err, errlen,
				 "%s has not published its events yet", vm->opts.name);
			return -EAGAIN;
		}
		if (len + strlen(list) + 2 > sizeof(vm->opts.events)) {
			snprintf(err, errlen, "event list too long");
			return -EINVAL;
		}
		snprintf(vm->opts.events + len, sizeof(vm->opts.events) - len,
			 "%s%s", len ? "," : "", list);
		return 0;
	}
	ret = vm_resolve_events(vm, list, true, on ? set : clr,
				on ? clr : set, err, errlen);
	if (ret)
		return ret;
	changes = changes_with(vm, list, on, &ret, err, errlen);
	if (!changes)
		return ret;
	free(vm->ev_changes);
	vm->ev_changes = changes;
	for (i = 0; i < GR_WIDE_MAX_EVENTS / 64; i++)
		vm->enable[i] = (vm->enable[i] & ~clr[i]) | set[i];
	hostctl_publish(vm);
	return 0;
}

/**
 * vm_set_filter() - set or clear the filter of events, all or nothing
 * @vm: the VM
 * @events: event names, exactly as the guest publishes them
 * @nr: number of @events
 * @expr: ftrace filter expression, or NULL to clear
 * @err: receives the reason of a refusal
 * @errlen: size of @err
 *
 * A guest that has published is asked at once (vm_filters_set() has the
 * rules); the trace's env "filters" is rewritten with the next clock
 * refresh, and at the latest when the session closes.
 *
 * Return: 0 or -errno (vm_filters_set()).
 */
int vm_set_filter(struct gr_vm *vm, char *const *events, int nr,
		  const char *expr, char *err, size_t errlen)
{
	int ret = vm_filters_set(vm, events, nr, expr, err, errlen);

	if (!ret && vm->state != GR_VM_WAITING) {
		hostctl_publish(vm);
		vm->meta_stale = true;
	}
	return ret;
}

/**
 * vm_set_follow() - set or clear the VM's follow filter
 * @vm: the VM
 * @fo: the filter, or NULL (or flags 0) to clear
 * @err: receives the reason of a refusal
 * @errlen: size of @err
 *
 * Return: 0 or -errno (vm_follow_set()).
 */
int vm_set_follow(struct gr_vm *vm, const struct gr_fx_follow *fo, char *err,
		  size_t errlen)
{
	int ret = vm_follow_set(vm, fo, err, errlen);

	if (!ret && vm->state != GR_VM_WAITING) {
		hostctl_publish(vm);
		vm->meta_stale = true;
	}
	return ret;
}

/**
 * vm_set_hist() - set or replace an aggregation request (spec 17)
 * @vm: the VM
 * @h: the request (vm_hist_set() has the rules)
 * @err: receives the reason of a refusal
 * @errlen: size of @err
 *
 * A guest that has published is asked at once; before that the request
 * waits for its publication.
 *
 * Return: 0 or -errno (vm_hist_set()).
 */
int vm_set_hist(struct gr_vm *vm, struct gr_vm_hist *h, char *err,
		size_t errlen)
{
	int ret = vm_hist_set(vm, h, err, errlen);

	if (!ret && vm->state != GR_VM_WAITING)
		hostctl_publish(vm);
	return ret;
}

/**
 * vm_clear_hist() - zero the tables of requests, or remove requests
 * @vm: the VM
 * @name: a request's name, NULL for all
 * @remove: remove them, else start their tables again at 0
 * @err: receives the reason of a refusal
 * @errlen: size of @err
 *
 * Return: 0 or -ENOENT (vm_hist_clear()).
 */
int vm_clear_hist(struct gr_vm *vm, const char *name, bool remove, char *err,
		  size_t errlen)
{
	int ret = vm_hist_clear(vm, name, remove, err, errlen);

	if (!ret && vm->state != GR_VM_WAITING)
		hostctl_publish(vm);
	return ret;
}
