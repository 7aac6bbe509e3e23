// SPDX-License-Identifier: GPL-2.0
/*
 * vm_filter.c - a VM's event filters: the operator's expressions, their
 * programs in the filter area, and what the guest made of them (spec 14)
 *
 * The operator's filters live in gr_vm_opts.filters, by event name: entry
 * i is slot i of the filter area. An expression is compiled against the
 * guest's published descriptor of its event, so it is checked when it is
 * given if the guest has published, else when the guest publishes
 * (vm_filters_fill(), called by hostctl_publish() before seq is bumped).
 * The guest verifies the programs again; a refusal shows in its status
 * block (filter_errors and the reason), which vm_filters_info() reports.
 *
 * This file writes only its own state (vm->flt) and the operator's
 * filters in vm->opts; vm.c publishes a change (hostctl_publish()) and
 * rewrites the trace's env.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "filter.h"
#include "vm.h"

static const char *const gr_filter_reasons[] = {
	[GR_FILTER_E_NONE] = "no reason",
	[GR_FILTER_E_AREA] = "filter area not covered by ctrl_size",
	[GR_FILTER_E_EVENT] = "no such event",
	[GR_FILTER_E_DUP] = "two programs for one event",
	[GR_FILTER_E_LENGTH] = "program too long",
	[GR_FILTER_E_RESERVED] = "reserved field not zero",
	[GR_FILTER_E_OPCODE] = "unknown instruction",
	[GR_FILTER_E_JUMP] = "jump out of the program",
	[GR_FILTER_E_LOAD] = "load outside the payload",
	[GR_FILTER_E_STRING] = "text operand outside the payload or constants",
	[GR_FILTER_E_RET] = "return value not 0 or 1",
	[GR_FILTER_E_NORET] = "last instruction is not a return",
	[GR_FILTER_E_FOLLOW] = "follow block invalid",
	[GR_FILTER_E_SETUP] = "the guest could not set up the followed set",
};

/**
 * gr_filter_reason_name() - words for a GR_FILTER_E_* code
 * @reason: the code, as the guest reported it (any value)
 *
 * Return: a constant string.
 */
const char *gr_filter_reason_name(unsigned int reason)
{
	if (reason < sizeof(gr_filter_reasons) / sizeof(gr_filter_reasons[0]))
		return gr_filter_reasons[reason];
	return "unknown reason";
}

/**
 * vm_event_id() - the id of a published event
 * @vm: a VM whose guest has published
 * @name: the event's name
 *
 * Return: the id, or -ENOENT.
 */
int vm_event_id(const struct gr_vm *vm, const char *name)
{
	unsigned int i;

	for (i = 0; i < vm->view.desc_count; i++)
		if (!strcmp(vm->events[i].name, name))
			return (int)i;
	return -ENOENT;
}

/* Compile @expr for event @id into @slot; a one-line error into @err */
static int compile(const struct gr_vm *vm, int id, const char *expr,
		   struct gr_filter_slot *slot, char *err, size_t errlen)
{
	struct gr_fx_error fe;
	int ret;

	ret = gr_fx_build(expr, &vm->events[id], slot, &fe);
	if (ret == -EINVAL)
		gr_fx_error_line(err, errlen, &fe);
	else if (ret)
		snprintf(err, errlen, "%s", strerror(-ret));
	return ret;
}

/*
 * Stage @expr (NULL: clear) for @event into @f, a copy of the VM's
 * filters; @changed gets the entry's bit.
 */
static int stage_filter(struct gr_vm *vm, struct gr_vm_filter *f,
			const char *event, const char *expr,
			unsigned int *changed, char *err, size_t errlen)
{
	struct gr_filter_slot slot;
	int i, id, own = -1, spare = -1;

	if (!event[0] || strlen(event) >= sizeof(f->event)) {
		snprintf(err, errlen, "no event '%s'", event);
		return -ENOENT;
	}
	for (i = 0; i < GR_FILTER_SLOTS; i++) {
		if (!strcmp(f[i].event, event))
			own = i;
		else if (spare < 0 && !f[i].event[0])
			spare = i;
	}
	if (!expr) {
		if (own < 0) {
			snprintf(err, errlen, "%s has no filter on %s",
				 vm->opts.name, event);
			return -ENOENT;
		}
		memset(&f[own], 0, sizeof(f[own]));
		*changed |= 1u << own;
		return 0;
	}
	if (vm->state != GR_VM_WAITING) {
		id = vm_event_id(vm, event);
		if (id < 0) {
			snprintf(err, errlen, "no event '%s' in %s (guestrelay status %s lists what it records)",
				 event, vm->opts.name, vm->opts.name);
			return -ENOENT;
		}
		if (!(vm->view.features & GR_F_FILTER)) {
			snprintf(err, errlen, "the guest of %s runs no filters (its module is older than ABI 1.1)",
				 vm->opts.name);
			return -EOPNOTSUPP;
		}
		if (compile(vm, id, expr, &slot, err, errlen))
			return -EINVAL;
	}
	if (own < 0)
		own = spare;
	if (own < 0) {
		snprintf(err, errlen, "at most %d events of a VM carry a filter; clear one first (guestrelay filter %s EVENT --clear)",
			 GR_FILTER_SLOTS, vm->opts.name);
		return -EINVAL;
	}
	snprintf(f[own].event, sizeof(f[own].event), "%s", event);
	snprintf(f[own].expr, sizeof(f[own].expr), "%s", expr);
	*changed |= 1u << own;
	return 0;
}

/**
 * vm_filters_set() - set or clear the filter of events, all or nothing
 * @vm: the VM
 * @events: event names, exactly as the guest publishes them
 * @nr: number of @events
 * @expr: ftrace filter expression, or NULL to clear
 * @err: receives the reason of a refusal (with a caret line for a bad
 *	expression)
 * @errlen: size of @err
 *
 * Each program is compiled against its event's descriptor first if the
 * guest has published (spec H26); before that the filters wait for its
 * publication. Nothing changes if one event fails. The caller publishes.
 *
 * Return: 0, -EINVAL (bad expression, no room), -ENOENT (no such event,
 * no filter to clear), -EOPNOTSUPP (the guest runs no filters).
 */
int vm_filters_set(struct gr_vm *vm, char *const *events, int nr,
		   const char *expr, char *err, size_t errlen)
{
	struct gr_vm_filter f[GR_FILTER_SLOTS];
	unsigned int changed = 0, i;
	int n, ret;

	if (expr && strlen(expr) >= sizeof(f[0].expr)) {
		snprintf(err, errlen, "filter longer than %zu bytes",
			 sizeof(f[0].expr) - 1);
		return -EINVAL;
	}
	memcpy(f, vm->opts.filters, sizeof(f));
	for (n = 0; n < nr; n++) {
		ret = stage_filter(vm, f, events[n], expr, &changed, err,
				   errlen);
		if (ret)
			return ret;
	}
	memcpy(vm->opts.filters, f, sizeof(f));
	for (i = 0; i < GR_FILTER_SLOTS; i++)
		if (changed & (1u << i))
			vm->flt.why[i][0] = '\0';
	return 0;
}

/**
 * vm_filters_fill() - write the filter area from the VM's filters
 * @vm: the VM, its guest's events known
 * @area: the GR_FILTER_SLOTS slots of the region
 *
 * Called while the host writes its settings, before seq is bumped (spec
 * 9.1, H25). A filter that does not compile against this publication (it
 * was given before the guest published, or the guest changed) leaves its
 * slot empty; the reason is logged once and shown by status.
 */
void vm_filters_fill(struct gr_vm *vm, struct gr_filter_slot *area)
{
	const struct gr_guest_status *st = (const void *)
		(vm->region + GR_STATUS_OFFSET);
	struct gr_vm_filter *f = vm->opts.filters;
	struct gr_filter_slot slot;
	char why[sizeof(vm->flt.why[0])];
	unsigned int i;
	int id;

	/* what a guest refusal of this block will be compared with */
	vm->flt.errors_base = le32toh(__atomic_load_n(&st->filter_errors,
						      __ATOMIC_RELAXED));
	for (i = 0; i < GR_FILTER_SLOTS; i++) {
		memset(&slot, 0, sizeof(slot));
		why[0] = '\0';
		if (!f[i].event[0] || vm->state == GR_VM_WAITING) {
			/* nothing, or nothing known yet */
		} else if ((id = vm_event_id(vm, f[i].event)) < 0) {
			snprintf(why, sizeof(why), "no event '%.*s' in this guest",
				 (int)sizeof(f[i].event), f[i].event);
		} else if (!(vm->view.features & GR_F_FILTER)) {
			snprintf(why, sizeof(why), "the guest runs no filters (ABI 1.0)");
		} else {
			compile(vm, id, f[i].expr, &slot, why, sizeof(why));
			if (why[0])
				memset(&slot, 0, sizeof(slot));
		}
		if (why[0] && strcmp(why, vm->flt.why[i]))
			syslog(LOG_WARNING, "%s: filter on %s not applied: %s",
			       vm->opts.name, f[i].event, why);
		memcpy(vm->flt.why[i], why, sizeof(why));
		memcpy(&area[i], &slot, sizeof(slot));
	}
}

/* The follow filter's part of vm_filters_info() (spec 15.4) */
static void follow_info(const struct gr_vm *vm, struct gr_vm_info *info,
			bool refused, unsigned int reason, bool acked)
{
	const struct gr_guest_status *st = (const void *)
		(vm->region + GR_STATUS_OFFSET);
	const struct gr_fx_follow *fo = &vm->opts.follow;

	memset(&info->follow, 0, sizeof(info->follow));
	if (!fo->flags)
		return;
	gr_fx_follow_str(fo, info->follow.what, sizeof(info->follow.what));
	/* the guest's fields, each loaded once (shown as given) */
	info->follow.tasks = le32toh(__atomic_load_n(&st->follow_tasks,
						     __ATOMIC_RELAXED));
	info->follow.missing = le32toh(__atomic_load_n(&st->follow_missing,
						       __ATOMIC_RELAXED));
	info->follow.dropped = le64toh(__atomic_load_n(&st->follow_dropped,
						       __ATOMIC_RELAXED));
	info->follow.forks = le64toh(__atomic_load_n(&st->follow_forks,
						     __ATOMIC_RELAXED));
	if (vm->flt.follow_why[0]) {
		info->follow.state = "refused";
		snprintf(info->follow.why, sizeof(info->follow.why), "%s",
			 vm->flt.follow_why);
	} else if (refused) {
		info->follow.state = "refused";
		snprintf(info->follow.why, sizeof(info->follow.why),
			 "by the guest: %s", gr_filter_reason_name(reason));
	} else if (!acked) {
		info->follow.state = "pending";
	} else {
		info->follow.state = "active";
	}
}

/**
 * vm_follow_fill() - write the follow block from the VM's follow filter
 * @vm: the VM
 * @c: its control block
 *
 * Called while the host writes its settings, before seq is bumped (spec
 * 15.2). A guest without GR_F_FOLLOW gets an empty block; the reason is
 * logged once and shown by status.
 */
void vm_follow_fill(struct gr_vm *vm, struct gr_host_ctrl *c)
{
	const struct gr_fx_follow *fo = &vm->opts.follow;
	char why[sizeof(vm->flt.follow_why)] = "";

	if (fo->flags && vm->state != GR_VM_WAITING &&
	    !(vm->view.features & GR_F_FOLLOW))
		snprintf(why, sizeof(why), "the guest runs no follow filter (its module has no GR_F_FOLLOW, ABI 1.2)");
	if (why[0] && strcmp(why, vm->flt.follow_why))
		syslog(LOG_WARNING, "%s: follow filter not applied: %s",
		       vm->opts.name, why);
	memcpy(vm->flt.follow_why, why, sizeof(why));
	gr_fx_follow_fill(why[0] || vm->state == GR_VM_WAITING ? NULL : fo,
			  c);
}

/**
 * vm_follow_set() - set or clear the VM's follow filter
 * @vm: the VM
 * @fo: the filter, or NULL (or flags 0) to clear
 * @err: receives the reason of a refusal
 * @errlen: size of @err
 *
 * The caller publishes it to a guest that has published; before that
 * the filter waits for its publication.
 *
 * Return: 0, -ENOENT (nothing to clear), -EOPNOTSUPP (the guest runs no
 * follow filter).
 */
int vm_follow_set(struct gr_vm *vm, const struct gr_fx_follow *fo, char *err,
		  size_t errlen)
{
	if ((!fo || !fo->flags) && !vm->opts.follow.flags) {
		snprintf(err, errlen, "%s has no follow filter", vm->opts.name);
		return -ENOENT;
	}
	if (fo && fo->flags && vm->state != GR_VM_WAITING &&
	    !(vm->view.features & GR_F_FOLLOW)) {
		snprintf(err, errlen, "the guest of %s runs no follow filter (its module has no GR_F_FOLLOW, ABI 1.2)",
			 vm->opts.name);
		return -EOPNOTSUPP;
	}
	if (fo && fo->flags)
		vm->opts.follow = *fo;
	else
		memset(&vm->opts.follow, 0, sizeof(vm->opts.follow));
	vm->flt.follow_why[0] = '\0';
	return 0;
}

/**
 * vm_filters_info() - the filters and their state, for status
 * @vm: the VM
 * @info: receives them
 * @acked: the guest acknowledged the settings last written
 */
void vm_filters_info(const struct gr_vm *vm, struct gr_vm_info *info,
		     bool acked)
{
	const struct gr_guest_status *st = (const void *)
		(vm->region + GR_STATUS_OFFSET);
	const struct gr_vm_filter *f = vm->opts.filters;
	uint32_t errors;
	bool refused;
	unsigned int i, bad_slot, reason, insn;

	/* the guest's fields, each loaded once (spec H27: shown as given) */
	errors = le32toh(__atomic_load_n(&st->filter_errors, __ATOMIC_RELAXED));
	bad_slot = __atomic_load_n(&st->filter_bad_slot, __ATOMIC_RELAXED);
	reason = __atomic_load_n(&st->filter_reason, __ATOMIC_RELAXED);
	insn = le16toh(__atomic_load_n(&st->filter_bad_insn, __ATOMIC_RELAXED));
	info->filter_errors = errors;
	acked = acked && vm->state != GR_VM_WAITING;
	refused = acked && errors != vm->flt.errors_base;
	for (i = 0; i < GR_FILTER_SLOTS; i++) {
		if (!f[i].event[0])
			continue;
		snprintf(info->filters[i].event, sizeof(info->filters[i].event),
			 "%s", f[i].event);
		snprintf(info->filters[i].expr, sizeof(info->filters[i].expr),
			 "%s", f[i].expr);
		info->filters[i].filtered =
			le64toh(__atomic_load_n(&st->filtered[i],
						__ATOMIC_RELAXED));
		if (vm->flt.why[i][0]) {
			info->filters[i].state = "refused";
			snprintf(info->filters[i].why,
				 sizeof(info->filters[i].why), "%s",
				 vm->flt.why[i]);
		} else if (refused && (bad_slot == i ||
				       (bad_slot == GR_FILTER_NO_SLOT &&
					reason == GR_FILTER_E_AREA))) {
			info->filters[i].state = "refused";
			snprintf(info->filters[i].why,
				 sizeof(info->filters[i].why),
				 "by the guest: %s (instruction %u)",
				 gr_filter_reason_name(reason), insn);
		} else if (refused || !acked) {
			info->filters[i].state = "pending";
		} else {
			info->filters[i].state = "active";
		}
	}
	follow_info(vm, info, refused && bad_slot == GR_FILTER_NO_SLOT &&
		    reason != GR_FILTER_E_AREA, reason, acked);
}

/**
 * vm_filters_env() - the filters the guest was asked for, for the trace
 * @vm: the VM
 * @buf: receives "EVENT: EXPR" of each filter the host could compile,
 *	joined by "; " ("" if none)
 * @size: bytes of @buf
 *
 * The CTF env "filters" (spec 14): a trace says what it left out.
 */
void vm_filters_env(const struct gr_vm *vm, char *buf, size_t size)
{
	const struct gr_vm_filter *f = vm->opts.filters;
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < GR_FILTER_SLOTS && off < size; i++) {
		if (!f[i].event[0] || vm->flt.why[i][0])
			continue;
		off += snprintf(buf + off, size - off, "%s%s: %s",
				off ? "; " : "", f[i].event, f[i].expr);
	}
	/* spec 15.5: the follow filter, as "follow: pid 812 and their children" */
	if (vm->opts.follow.flags && !vm->flt.follow_why[0] && off < size) {
		off += snprintf(buf + off, size - off, "%sfollow: ",
				off ? "; " : "");
		if (off < size)
			gr_fx_follow_str(&vm->opts.follow, buf + off,
					 size - off);
	}
}
