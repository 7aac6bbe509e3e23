// SPDX-License-Identifier: GPL-2.0
/*
 * vm_desc.c - descriptors the guest adds at run time (v1.7, GR_F_ANYEVENT;
 * spec 18.3 M2)
 *
 * With the feature in use the guest may append descriptors to its table,
 * in [desc_count, desc_capacity), each written whole before it stores
 * status.desc_live with release (18.2 N3). vm_desc_refresh(), called in
 * every pass over an attached VM and after an ADD answer, loads desc_live
 * with acquire and, when it grew, copies the new descriptors once into
 * private memory, checks them against the whole table
 * (gr_check_added_descs(), gr_ctf_names_check()) and adopts them all or
 * none: the VM's event and descriptor arrays grow, the host's count
 * (view.desc_count, which every record check takes as its number of
 * events) is raised, and the session's metadata and .guestrelay are
 * written again with the new declarations at the end (gr_ctf_metadata()
 * puts the added events last, so the text grows by their declarations;
 * a live viewer gets them as new metadata). Until then records of the new
 * ids are refused as any unknown id (H11, H24), and no enable bit names
 * them (M3: vm_resolve_events() resolves against view.desc_count only).
 *
 * A value of desc_live below the host's count or above desc_capacity is
 * counted and ignored; a batch that fails is counted, logged once, and
 * its ids stay unknown. A new publication starts again from its header's
 * desc_count (N6): vm.c's attach zeroes this file's state.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "vm.h"

/* a batch ending at @live is refused: counted, logged once */
static int refuse(struct gr_vm *vm, uint32_t live, const char *why, int err)
{
	if (vm->desc.refused && vm->desc.refused_live == live)
		return err;
	vm->desc.refused = true;
	vm->desc.refused_live = live;
	vm->st.desc_refused++;
	syslog(LOG_WARNING, "%s: event descriptors %u..%u the guest added are refused: %s; their events stay unknown",
	       vm->opts.name, vm->view.desc_count, live - 1, why);
	return err;
}

/*
 * The session's files (and a snapshot's being taken) with the adopted
 * descriptors: the metadata declares them, .guestrelay holds them
 */
static int write_files(struct gr_vm *vm)
{
	int ret = 0, fd = rot_data_fd(vm);

	if (vm->sess.fd >= 0 && fd >= 0)
		ret = session_write_files(vm, fd, vm->sess.name);
	if (!ret && vm->snap)
		ret = session_write_files(vm, snap_dirfd(vm->snap),
					  snap_name(vm->snap));
	return ret;
}

/*
 * Adopt @added, the views of descriptors desc_count .. @live - 1, and
 * their copies @copies: all or none
 */
static int adopt(struct gr_vm *vm, uint32_t live,
		 const struct gr_event_view *added,
		 const struct gr_event_desc_long *copies)
{
	unsigned int n = vm->view.desc_count;
	struct gr_event_desc_long *descs;
	struct gr_event_view *events;
	int ret;

	events = calloc(live + 1, sizeof(*events));
	descs = calloc(live + 1, sizeof(*descs));
	if (!events || !descs) {
		free(events);
		free(descs);
		return -ENOMEM;
	}
	memcpy(events, vm->events, n * sizeof(*events));
	memcpy(events + n, added, (live - n) * sizeof(*events));
	memcpy(descs, vm->desc_copy, n * sizeof(*descs));
	memcpy(descs + n, copies, (live - n) * sizeof(*descs));
	/* metadata names stay unique as declarations are appended */
	if (gr_ctf_names_check(events, vm->view.desc_table, live)) {
		free(events);
		free(descs);
		return refuse(vm, live, "an event's metadata name is another event's",
			      -EINVAL);
	}
	free(vm->events);
	free(vm->desc_copy);
	vm->events = events;
	vm->desc_copy = descs;
	vm->view.desc_count = live;
	ret = write_files(vm);
	if (ret) {
		/* not declared: its records must not be stored */
		vm->view.desc_count = n;
		return refuse(vm, live, strerror(-ret), ret);
	}
	vm->st.desc_added += live - n;
	syslog(LOG_INFO, "%s: %u event%s the guest added adopted (ids %u..%u)",
	       vm->opts.name, live - n, live - n == 1 ? "" : "s", n, live - 1);
	return (int)(live - n);
}

/**
 * vm_desc_refresh() - adopt the descriptors the guest added since the
 * last call (spec 18.3 M2)
 * @vm: the VM
 *
 * Does nothing unless the VM holds the checked table of the publication
 * still in the region (attached, stopped, or in vm.c's attach, before the
 * session's files are written) with GR_F_ANYEVENT in use. Loads status.desc_live with acquire; a value
 * below the host's count or above desc_capacity is counted (once per
 * value) and ignored; for a larger one the new descriptors are copied
 * once, checked against the whole table and adopted all or none, and the
 * session's metadata declares them before this returns, so the caller
 * may enable them at once (M3). A refused batch is counted and logged
 * once; it is checked again, with what follows it, when desc_live moves.
 *
 * Context: the loop's thread; allocates; writes the trace's files.
 * Return: descriptors adopted (0 if none was added), -ERANGE (desc_live
 * out of range), -EINVAL (a descriptor refused), -ESTALE (the guest
 * re-published during the copy: nothing adopted, the next pass sees the
 * new instance), -ENOMEM, or the -errno of the metadata's write (then
 * nothing is adopted).
 */
int vm_desc_refresh(struct gr_vm *vm)
{
	struct gr_event_desc_long *copies;
	struct gr_event_view *added;
	const char *why = "";
	uint32_t live, n = vm->view.desc_count, i;
	uint64_t magic;
	int ret;

	/* a table checked (attach), of the publication still there */
	if (!vm->events || !(vm->view.features & GR_F_ANYEVENT) ||
	    !vm_same_publication(vm, &magic))
		return 0;
	/* acquire, pairing with the guest's release of desc_live after the
	 * descriptors it covers (spec 18.2 N3; v1.13: the wide area's, 19.3)
	 */
	live = hostctl_desc_live(vm);
	if (live == n)
		return 0;
	if (live < n || live > vm->view.desc_capacity) {
		if (vm->desc.bad && vm->desc.bad_live == live)
			return -ERANGE;
		vm->desc.bad = true;
		vm->desc.bad_live = live;
		vm->st.desc_live_bad++;
		syslog(LOG_WARNING, "%s: the guest's desc_live %u is %s; ignored",
		       vm->opts.name, live, live < n ?
		       "below the descriptors already adopted" :
		       "above its desc_capacity");
		return -ERANGE;
	}
	if (vm->desc.refused && vm->desc.refused_live == live)
		return -EINVAL;
	copies = calloc(live - n, sizeof(*copies));
	added = calloc(live - n, sizeof(*added));
	if (!copies || !added) {
		ret = -ENOMEM;
		goto out;
	}
	/* H5: each copied once; slots below desc_capacity lie in the
	 * descriptor area the header's check bounded (M1)
	 */
	for (i = n; i < live; i++)
		gr_copy_desc_slot(&vm->view, vm->region, i, &copies[i - n]);
	/* the copies are of this publication's slots (H7, spec 5.5) */
	if (!vm_same_publication(vm, &magic)) {
		ret = -ESTALE;
		goto out;
	}
	ret = gr_check_added_descs(&vm->view, vm->events, copies, live, added,
				   &why);
	if (ret)
		ret = refuse(vm, live, why, ret);
	else
		ret = adopt(vm, live, added, copies);
out:
	free(copies);
	free(added);
	return ret;
}
