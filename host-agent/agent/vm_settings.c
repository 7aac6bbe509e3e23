// SPDX-License-Identifier: GPL-2.0
/*
 * vm_settings.c - what the operator sets on a VM while it runs: the
 * events it records, its event filters and its follow filter
 *
 * A change is kept in the VM (vm->enable, vm->opts, vm_filter.c's state)
 * and published to a guest that has published (hostctl_publish());
 * before that it waits for the guest's publication, which vm.c's attach
 * applies. Nothing here decides a VM's life.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm.h"

/* Does @tok name adopted event @e? ("all", or as ftrace's set_event) */
static bool token_names(const char *tok, const struct gr_event_view *e)
{
	return !strcmp(tok, "all") || gr_name_match(tok, e->system, e->name);
}

/**
 * vm_resolve_events() - a comma list of names, globs, systems,
 * system:name patterns or "all", against the guest's adopted descriptors
 * @vm: an attached VM
 * @list: the list
 * @strict: an entry that matches nothing is an error
 * @mask: receives the matching event ids (bits set, none cleared)
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Return: 0, -ENOENT (strict: an unknown name), -EINVAL.
 */
int vm_resolve_events(struct gr_vm *vm, const char *list, bool strict,
		      uint64_t *mask, char *err, size_t errlen)
{
	char buf[sizeof(vm->opts.events)], *tok, *save = NULL;
	unsigned int i, hits;

	if (strlen(list) >= sizeof(buf)) {
		snprintf(err, errlen, "event list too long");
		return -EINVAL;
	}
	memcpy(buf, list, strlen(list) + 1);
	for (tok = strtok_r(buf, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		hits = 0;
		for (i = 0; i < vm->view.desc_count; i++) {
			const struct gr_event_view *e = &vm->events[i];

			if (token_names(tok, e)) {
				mask[i / 64] |= 1ULL << (i % 64);
				hits++;
			}
		}
		if (!hits && strict) {
			size_t off = 0;

			off += snprintf(err, errlen,
					"unknown event '%s' in %s (available:",
					tok, vm->opts.name);
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
 * @ask: receives the patterns no adopted descriptor matches and those
 *	with a system part, comma separated ("" if none)
 * @size: room in @ask (at least strlen(@list) + 1)
 *
 * Spec 18: with GR_F_ANYEVENT in use they are added before the list is
 * resolved; without it nothing is asked ("" always).
 */
void vm_events_to_ask(struct gr_vm *vm, const char *list, char *ask,
		      size_t size)
{
	char buf[sizeof(vm->opts.events)], *tok, *save = NULL;
	size_t off = 0;
	unsigned int i;
	bool known;

	ask[0] = '\0';
	if (!(vm->view.features & GR_F_ANYEVENT) || strlen(list) >= sizeof(buf))
		return;
	memcpy(buf, list, strlen(list) + 1);
	for (tok = strtok_r(buf, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		if (!strcmp(tok, "all"))
			continue;
		known = false;
		for (i = 0; !strchr(tok, ':') && i < vm->view.desc_count; i++)
			known = known || token_names(tok, &vm->events[i]);
		if (known)
			continue;
		off += (size_t)snprintf(ask + off, size - off, "%s%s",
					off ? "," : "", tok);
		if (off >= size)
			off = size - 1;
	}
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
	uint64_t mask[GR_MAX_EVENTS / 64] = { 0 };
	unsigned int i;
	int ret;

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
	ret = vm_resolve_events(vm, list, true, mask, err, errlen);
	if (ret)
		return ret;
	for (i = 0; i < GR_MAX_EVENTS / 64; i++)
		vm->enable[i] = on ? vm->enable[i] | mask[i] :
				     vm->enable[i] & ~mask[i];
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
