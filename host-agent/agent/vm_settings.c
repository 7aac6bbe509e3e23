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
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "vm.h"

/**
 * vm_resolve_events() - a comma list of names, globs, systems or "all",
 * against the guest's descriptors
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

			if (!strcmp(tok, "all") || !fnmatch(tok, e->name, 0) ||
			    !strcmp(tok, e->system)) {
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
