// SPDX-License-Identifier: GPL-2.0
/*
 * vm_info.c - what the rest of the agent may ask of a VM: find it, walk
 * the list, its name, state, statistics and status (`guestrelay status`,
 * metrics, fleet status)
 *
 * Only reads: a VM's life is vm.c's. The guest's own counters and
 * fields are loaded once each and shown as given (informative only).
 */
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "vm.h"

void (*gr_vm_ship_hook)(const char *vm, struct gr_vm_ship *out);

struct gr_vm *vm_find(struct gr_agent *a, const char *name)
{
	struct gr_vm *vm;

	for (vm = a->vms; vm; vm = vm->next)
		if (!vm->dying && !strcmp(vm->opts.name, name))
			return vm;
	return NULL;
}

struct gr_vm *vm_next(struct gr_agent *a, struct gr_vm *prev)
{
	struct gr_vm *vm = prev ? prev->next : a->vms;

	while (vm && vm->dying)
		vm = vm->next;
	return vm;
}

const char *vm_name(const struct gr_vm *vm)
{
	return vm->opts.name;
}

enum gr_vm_state vm_state(const struct gr_vm *vm)
{
	return vm->state;
}

const char *vm_state_name(const struct gr_vm *vm)
{
	static const char *const names[] = {
		[GR_VM_WAITING] = "waiting",
		[GR_VM_ATTACHED] = "attached",
		[GR_VM_STOPPED] = "stopped",
	};

	return names[vm->state];
}

void vm_get_stats(const struct gr_vm *vm, struct gr_vm_stats *st)
{
	unsigned int i;

	*st = vm->st;
	st->probes_live = vm_probes_live(vm);
	st->probes_defined = vm->names.probes.defined;
	st->probes_deleted = vm->names.probes.deleted;
	st->sync_tsc_refused = vm->hc.tsc_refused;
	st->sync_polled = vm->hc.sync_polled;
	st->sync_spin_missed = vm->hc.sync_spin_missed;
	if (vm->state == GR_VM_WAITING)
		return;		/* the last session's, kept by detach() */
	st->guest_events = st->lost_full = st->lost_too_big = 0;
	st->lost_nested = st->overwritten = st->produced = 0;
	for (i = 0; i < vm->view.nr_rings; i++) {
		const struct gr_ring *ring = (const struct gr_ring *)
			(vm->region + gr_view_ring_off(&vm->view, i));

		/* informative only: the guest's own counters */
		st->guest_events = gr_sat_add(st->guest_events,
					      le64toh(ring->prod.events));
		st->lost_full = gr_sat_add(st->lost_full,
					   le64toh(ring->prod.lost_full));
		st->lost_too_big = gr_sat_add(st->lost_too_big,
					      le64toh(ring->prod.lost_too_big));
		st->lost_nested = gr_sat_add(st->lost_nested,
					     le64toh(ring->prod.lost_nested));
		st->overwritten = gr_sat_add(st->overwritten,
					     le64toh(ring->prod.overwritten));
		st->produced = gr_sat_add(st->produced,
					  le64toh(ring->prod.produced));
	}
}

/* Add @c's counts to @o, the status of its name */
static void add_client_info(struct gr_client_info *o, const struct gr_cchan *c)
{
	if (!o->name[0]) {
		memcpy(o->name, c->name, sizeof(o->name));
		o->klog = !!(c->flags & GR_CLIENT_KLOG);
		o->rings = c->nr_rings;
		o->state = "withdrawn";
	}
	if (c->state == GR_CCHAN_OPEN)
		o->state = "published";
	gr_client_counts_add(&o->n, &c->n);
}

/*
 * The client channels of the session (clients.c's state), one per name:
 * the directory entries and the counts kept of those withdrawn and reused
 */
static void clients_info(const struct gr_vm *vm, struct gr_vm_info *info)
{
	const struct gr_cchan *all[GR_CLIENT_INFO_MAX], *c;
	struct gr_client_info *o;
	unsigned int e, i, n = 0;

	info->client_bad_area = vm->cl.bad_area;
	info->client_bad_entries = vm->cl.bad_entries;
	info->client_untracked = vm->cl.untracked;
	for (e = 0; e < GR_CLIENT_GONE; e++)
		all[n++] = &vm->cl.gone[e];
	for (e = 0; e < GR_CLIENT_MAX; e++)
		all[n++] = &vm->cl.ch[e];
	for (e = 0; e < n; e++) {
		c = all[e];
		if (c->state == GR_CCHAN_NONE)
			continue;
		for (i = 0; i < GR_CLIENT_INFO_MAX; i++) {
			o = &info->channels[i];
			if (!o->name[0] || !strcmp(o->name, c->name))
				break;
		}
		add_client_info(o, c);
	}
}

void vm_get_info(const struct gr_vm *vm, struct gr_vm_info *info)
{
	static const char *const reasons[] = {
		[GR_STOP_NONE] = "", [GR_STOP_QUOTA] = "quota",
		[GR_STOP_DISK] = "disk", [GR_STOP_USER] = "user",
		[GR_STOP_GUEST] = "guest", [GR_STOP_INVALID] = "invalid",
	};
	struct gr_guest_status *st = (struct gr_guest_status *)
		(vm->region + GR_STATUS_OFFSET);
	size_t off = 0;
	unsigned int i;

	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", vm->opts.name);
	if (gr_vm_ship_hook)
		gr_vm_ship_hook(vm->opts.name, &info->ship);
	info->state = vm_state_name(vm);
	info->guest_state = gr_state_name(le32toh(st->state));
	info->doorbell = vm->doorbell;
	info->guest_connected = vm->peer.guest_peer >= 0;
	info->mode = vm->opts.mode;
	info->quota = vm->opts.quota;
	info->verify = vm->opts.verify;
	/* what this session writes with (fixed may have fallen back) */
	info->io = vm->cons.io_fixed || (!vm->cons.rings && !vm->opts.io_writev) ?
		   "fixed" : "writev";
	info->usage = vm->usage;
	info->switch_timer_us = vm->opts.switch_timer_us;
	info->stop_reason = reasons[vm->stop_reason];
	info->rate_bps = vm->rate_bps;
	info->vcpus = vm->vcpu;
	info->host_stream.state = vm->opts.no_host_stream ? "off" :
				  vm->ht.err ? "none" :
				  vm->ht.open && vm->ht.dirfd >= 0 ? "on" : "-";
	info->host_stream.err = vm->ht.err;
	info->host_stream.events = vm->ht.events;
	info->host_stream.lost = vm->ht.lost;
	vm_get_stats(vm, &info->st);
	if (vm->rot.chunked && vm->rot.fd >= 0)
		snprintf(info->chunks.active, sizeof(info->chunks.active),
			 "%s", vm->rot.live);
	info->chunks.closed = vm->rot.chunks;
	info->chunks.closed_bytes = vm->rot.chunk_bytes;
	info->chunks.rotations = vm->rot.rotations;
	info->chunks.pruned = vm->rot.pruned;
	info->chunks.pruned_bytes = vm->rot.pruned_bytes;
	info->chunks.held = vm->rot.held;
	info->chunks.collected_pruned = vm->rot.collected_pruned;
	vm_filters_info(vm, info, hostctl_settings_acked(vm, vm->hc.ctrl_seq));
	clients_info(vm, info);
	if (vm->state == GR_VM_WAITING) {
		if (vm->why[0])
			snprintf(info->pending, sizeof(info->pending),
				 "rejected: %.50s", vm->why);
		return;
	}
	info->nr_rings = vm->view.nr_rings;
	info->subbuf_size = vm->view.subbuf_size;
	info->n_subbufs = vm->view.n_subbufs;
	snprintf(info->kernel_release, sizeof(info->kernel_release), "%s",
		 vm->view.kernel_release);
	snprintf(info->nodename, sizeof(info->nodename), "%s",
		 vm->view.nodename);
	if (vm->sess.fd >= 0)
		snprintf(info->session, sizeof(info->session), "%s",
			 vm->sess.path);
	for (i = 0; i < vm->view.desc_count && off < sizeof(info->events); i++) {
		if (hostctl_enabled_word(vm, i / 64) >> (i % 64) & 1)
			off += snprintf(info->events + off,
					sizeof(info->events) - off, "%s%s",
					off ? "," : "", vm->events[i].name);
	}
	if (!hostctl_settings_acked(vm, vm->hc.ctrl_seq))
		snprintf(info->pending, sizeof(info->pending), "settings");
	/* spec 18: a request for events by name the guest has not answered */
	if (vm->names.active)
		snprintf(info->pending, sizeof(info->pending), "%s%s",
			 info->pending[0] ? "settings, " : "",
			 vm->names.op == GR_NAME_OP_LIST ?
			 "events by name (list)" : "events by name (add)");
	info->sync_method = gr_ctf_clock_method(&vm->hc.clock);
	if (vm->hc.clock.synced) {
		info->sync_error_ns = vm->hc.clock.error_ns;
		info->sync_offset_ns = vm->hc.clock.offset_s * 1000000000LL +
			(int64_t)(vm->hc.clock.offset * 1000000000ULL /
				  vm->view.clock_freq);
	}
}
