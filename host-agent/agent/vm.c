// SPDX-License-Identifier: GPL-2.0
/*
 * vm.c - one traced VM: its device, its publication, its session
 *
 *   vm_add()  shared memory /dev/shm/guestrelay-<vm> (kept across agent
 *             restarts, so a new agent resumes), our control block, and
 *             for the doorbell device an ivshmem server on <run>/<vm>.sock
 *   WAITING   poll the region until the guest publishes a layout that
 *             passes every check (a private copy: gr_check_region_hdr,
 *             gr_check_event_desc)
 *   ATTACHED  a session directory, CTF metadata, stream files; the
 *             consumer drains the rings; clock sync; commands
 *   STOPPED   `guestrelay stop`: session closed, tracing off in the guest
 *
 * A new instance_id (module reloaded, guest rebooted) closes the session
 * and attaches again. QEMU leaving (VM killed or shut down) drains what
 * the guest produced, takes a snapshot in flight-recorder mode, and closes
 * the session.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "vm.h"
#include "snapshot.h"

#define MS				1000000ULL
#define GR_POLL_WAITING_NS		(100 * MS)
#define GR_POLL_DOORBELL_NS		(20 * MS)
#define GR_POLL_MIN_NS			(1 * MS)
#define GR_POLL_MAX_NS			(100 * MS)
/*
 * Doorbells drive at most one pass per VM in this window (spec 8.4): a
 * guest ringing without pause costs the loop a read per wake-up, not a
 * pass; a coalesced doorbell is served by the next one after the window
 * or by the poll timer (GR_POLL_DOORBELL_NS at most).
 */
#define GR_DOORBELL_MIN_NS		(200 * 1000)
#define GR_CMD_TIMEOUT_NS		(5000 * MS)
#define GR_SYNC_ROUNDS			8
#define GR_SYNC_TIMEOUT_NS		(2000 * MS)
#define GR_SYNC_REFRESH_NS		(60000 * MS)

#define GR_DEFAULT_EVENTS \
	"sched_switch,sched_wakeup,sched_wakeup_new,sched_process_fork," \
	"sched_process_exec,sched_process_exit,sched_migrate_task," \
	"irq_handler_entry,irq_handler_exit,softirq_entry,softirq_exit," \
	"block_rq_issue,block_rq_complete,net_dev_xmit,netif_receive_skb"

#define HOST_FEATURES (GR_F_EVENT_IDX | GR_F_FLIGHT | GR_F_CLOCK_SYNC | \
		       GR_F_SWITCH_TIMER)

static void vm_tick(struct gr_vm *vm);
static void vm_maybe_free(struct gr_vm *vm);

uint64_t gr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct gr_host_ctrl *ctrl(struct gr_vm *vm)
{
	return (struct gr_host_ctrl *)(vm->region + GR_CTRL_OFFSET);
}

static struct gr_guest_status *status(struct gr_vm *vm)
{
	return (struct gr_guest_status *)(vm->region + GR_STATUS_OFFSET);
}

static uint64_t load_acq64(const __le64 *p)
{
	return le64toh(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

static void store_rel64(__le64 *p, uint64_t v)
{
	__atomic_store_n(p, htole64(v), __ATOMIC_RELEASE);
}

/* ---- host -> guest ---------------------------------------------------- */

/**
 * vm_notify_guest() - ring one of the guest's MSI-X vectors
 * @vm: the VM
 * @vector: GR_VEC_CTRL or GR_VEC_CONSUMED
 *
 * Nothing happens without a connected doorbell device; the guest's tick
 * finds the request in memory anyway.
 */
void vm_notify_guest(struct gr_vm *vm, unsigned int vector)
{
	if (!vm->doorbell || vm->guest_peer < 0)
		return;
	if (ivsh_server_notify(&vm->srv, vm->guest_peer, vector) == 0)
		vm->st.doorbells_out++;
}

/* Publish the settings fields, then seq with release (spec 9.1). */
static void ctrl_publish(struct gr_vm *vm)
{
	struct gr_host_ctrl *c = ctrl(vm);
	unsigned int i;

	c->tracing = htole32(vm->tracing);
	c->mode = htole32(vm->opts.mode);
	c->switch_timer_us = htole32(vm->opts.switch_timer_us);
	for (i = 0; i < GR_MAX_EVENTS / 64; i++)
		c->enable[i] = htole64(vm->enable[i]);
	/* the fields above before seq; pairs with the guest's
	 * smp_load_acquire() of seq in gr_ctrl_read()
	 */
	store_rel64(&c->seq, ++vm->ctrl_seq);
	vm_notify_guest(vm, GR_VEC_CTRL);
}

/* A fresh control block: written before QEMU can start the guest. */
static void ctrl_init(struct gr_vm *vm)
{
	struct gr_host_ctrl *c = ctrl(vm);

	memset(c, 0, sizeof(*c));
	c->abi_major = htole16(GR_ABI_MAJOR);
	c->abi_minor = htole16(GR_ABI_MINOR);
	c->ctrl_size = htole32(sizeof(*c));
	c->host_features = htole64(HOST_FEATURES |
				   (vm->doorbell ? GR_F_DOORBELL : 0));
	c->host_peer_id = htole32(vm->doorbell ?
				  (uint32_t)ivsh_server_self_id(&vm->srv) :
				  GR_NO_PEER);
	c->subbuf_size = htole32(vm->opts.subbuf_size);
	c->n_subbufs = htole32(vm->opts.n_subbufs);
	c->session_id = htole64((uint64_t)time(NULL));
	vm->tracing = 1;
	c->tracing = htole32(1);
	c->mode = htole32(vm->opts.mode);
	c->switch_timer_us = htole32(vm->opts.switch_timer_us);
	vm->ctrl_seq = 0;
	vm->flush_req = 0;
	vm->sync_req = 0;
	/* everything before the magic (spec 5.1 step 2) */
	store_rel64(&c->magic, GR_CTRL_MAGIC);
	/* then seq := seq + 1: the release publishes the whole block and
	 * the magic; pairs with the guest's smp_load_acquire() of seq,
	 * which it loads before magic (spec 10 #16)
	 */
	store_rel64(&c->seq, ++vm->ctrl_seq);
}

/* After an agent restart: our own earlier block, read back as counters. */
static void ctrl_adopt(struct gr_vm *vm)
{
	struct gr_host_ctrl *c = ctrl(vm);

	c->host_features = htole64(HOST_FEATURES |
				   (vm->doorbell ? GR_F_DOORBELL : 0));
	c->host_peer_id = htole32(vm->doorbell ?
				  (uint32_t)ivsh_server_self_id(&vm->srv) :
				  GR_NO_PEER);
	vm->ctrl_seq = le64toh(c->seq);
	vm->flush_req = le64toh(c->flush_req);
	vm->sync_req = le64toh(c->sync_req);
	vm->tracing = le32toh(c->tracing) ? 1 : 0;
}

/* ---- events ------------------------------------------------------------ */

/* Resolve a comma list of names, globs or "all" against the descriptors */
static int resolve_events(struct gr_vm *vm, const char *list, bool strict,
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
	ret = resolve_events(vm, list, true, mask, err, errlen);
	if (ret)
		return ret;
	for (i = 0; i < GR_MAX_EVENTS / 64; i++)
		vm->enable[i] = on ? vm->enable[i] | mask[i] :
				     vm->enable[i] & ~mask[i];
	ctrl_publish(vm);
	return 0;
}

/**
 * vm_set_mode() - stream (no-overwrite) or flight recorder (overwrite)
 * @vm: the VM
 * @mode: GR_MODE_*
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL.
 */
int vm_set_mode(struct gr_vm *vm, uint32_t mode, char *err, size_t errlen)
{
	if (mode != GR_MODE_STREAM && mode != GR_MODE_FLIGHT) {
		snprintf(err, errlen, "mode must be stream or flight");
		return -EINVAL;
	}
	if (vm->state != GR_VM_WAITING && mode == GR_MODE_FLIGHT &&
	    !(vm->view.features & GR_F_FLIGHT)) {
		snprintf(err, errlen, "the guest of %s has no flight-recorder mode",
			 vm->opts.name);
		return -EINVAL;
	}
	vm->opts.mode = mode;
	ctrl_publish(vm);
	vm_tick(vm);
	return 0;
}

/* ---- sessions ------------------------------------------------------------ */

/**
 * vm_write_trace_files() - metadata and .guestrelay of a session
 * @vm: an attached VM
 * @dirfd: the session directory
 * @session: its name
 *
 * Both are written to a temporary name and renamed: the trace is readable
 * at every moment.
 *
 * Return: 0 or -errno.
 */
int vm_write_trace_files(struct gr_vm *vm, int dirfd, const char *session)
{
	char host[256] = "";
	struct gr_ctf_env env = {
		.vm_name = vm->opts.name,
		.host_name = host,
		.session = session,
		.tracer_major = 1,
		.tracer_minor = 0,
	};
	size_t len;
	char *text;
	int ret;

	gethostname(host, sizeof(host) - 1);
	memcpy(env.trace_uuid, vm->trace_uuid, sizeof(env.trace_uuid));
	ret = gr_ctf_metadata(&vm->view, vm->events, vm->view.desc_count,
			      &env, &vm->clock, &text, &len);
	if (ret)
		return ret;
	ret = gr_ctf_write_metadata(dirfd, text, len);
	free(text);
	if (ret)
		return ret;
	return gr_ctf_write_info(dirfd, &vm->hdr_copy, vm->size, vm->desc_copy,
				 vm->view.desc_count, &vm->clock,
				 vm->trace_uuid);
}

static int session_open(struct gr_vm *vm, bool try_resume)
{
	struct gr_ctf_info *info = NULL;
	const char *why;
	bool resume = false;
	int ret, fd;

	if (vm->vm_fd < 0) {
		ret = store_vm_dir(vm->agent->store_fd, vm->opts.name,
				   &vm->vm_fd);
		if (ret)
			return ret;
	}
	if (try_resume &&
	    !store_last_session(vm->vm_fd, vm->session, sizeof(vm->session))) {
		fd = openat(vm->vm_fd, vm->session, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		info = calloc(1, sizeof(*info));
		if (fd >= 0 && info && !gr_ctf_read_info(fd, info, &why) &&
		    info->view.instance_id == vm->instance_id) {
			resume = true;
			vm->session_fd = fd;
			memcpy(vm->trace_uuid, info->trace_uuid, 16);
			if (info->clock.synced)
				vm->clock = info->clock;
		} else if (fd >= 0) {
			close(fd);
		}
		free(info);
	}
	if (!resume) {
		ret = store_new_session(vm->vm_fd, "", vm->session,
					sizeof(vm->session), &vm->session_fd);
		if (ret)
			return ret;
		if (getrandom(vm->trace_uuid, sizeof(vm->trace_uuid), 0) !=
		    sizeof(vm->trace_uuid))
			return -EIO;
		vm->trace_uuid[6] = (vm->trace_uuid[6] & 0x0f) | 0x40;
		vm->trace_uuid[8] = (vm->trace_uuid[8] & 0x3f) | 0x80;
	}
	if (snprintf(vm->session_path, sizeof(vm->session_path), "%s/%s/%s",
		     vm->agent->store_dir, vm->opts.name, vm->session) >=
	    (int)sizeof(vm->session_path))
		return -ENAMETOOLONG;
	store_usage(vm->vm_fd, &vm->usage);
	ret = vm_write_trace_files(vm, vm->session_fd, vm->session);
	if (ret)
		return ret;
	return cons_open_rings(vm, resume);
}

/* Close the session; the rings must be idle. */
static void session_close(struct gr_vm *vm)
{
	if (vm->session_fd < 0)
		return;
	vm_write_trace_files(vm, vm->session_fd, vm->session);
	cons_close_rings(vm);
	fsync(vm->session_fd);
	close(vm->session_fd);
	vm->session_fd = -1;
	syslog(LOG_INFO, "%s: trace %s closed: %llu packets, %llu bytes, %llu invalid",
	       vm->opts.name, vm->session_path,
	       (unsigned long long)vm->st.packets,
	       (unsigned long long)vm->st.bytes,
	       (unsigned long long)vm->st.invalid);
}

static void detach(struct gr_vm *vm)
{
	/* the guest's own counters of the session, for status afterwards */
	if (vm->state != GR_VM_WAITING)
		vm_get_stats(vm, &vm->st);
	session_close(vm);
	free(vm->events);
	free(vm->desc_copy);
	vm->events = NULL;
	vm->desc_copy = NULL;
	vm->state = GR_VM_WAITING;
}

/* ---- clock sync ---------------------------------------------------------- */

static void sync_send(struct gr_vm *vm)
{
	if (!(vm->view.features & GR_F_CLOCK_SYNC))
		return;
	vm->sync_t1 = gr_now_ns();
	store_rel64(&ctrl(vm)->sync_req, ++vm->sync_req);
	vm->sync_pending = true;
	vm_notify_guest(vm, GR_VEC_CTRL);
}

static void sync_check(struct gr_vm *vm)
{
	struct gr_guest_status *st = status(vm);
	uint64_t now = gr_now_ns(), t3, guest, rtt;
	struct gr_ctf_clock clock;

	if (!vm->sync_pending) {
		if (vm->state == GR_VM_ATTACHED && now >= vm->next_sync_ns) {
			vm->sync_rounds = 0;
			sync_send(vm);
		}
		return;
	}
	/* pairs with the guest's smp_store_release() of sync_ack */
	if (load_acq64(&st->sync_ack) != vm->sync_req) {
		if (now - vm->sync_t1 > GR_SYNC_TIMEOUT_NS) {
			vm->sync_pending = false;
			vm->next_sync_ns = now + GR_SYNC_TIMEOUT_NS;
		}
		return;
	}
	t3 = now;
	guest = le64toh(__atomic_load_n(&st->sync_guest_time, __ATOMIC_RELAXED));
	rtt = t3 - vm->sync_t1;
	vm->sync_pending = false;
	/*
	 * The answer must come from the instance whose clock the session
	 * uses: a guest that re-published meanwhile (reboot, reload) answers
	 * with another boot's clock (spec 9.5). Discard such a sample.
	 */
	if (le64toh(__atomic_load_n(&((struct gr_region_hdr *)vm->region)->
				    instance_id, __ATOMIC_RELAXED)) !=
	    vm->instance_id) {
		vm->next_sync_ns = now + GR_SYNC_TIMEOUT_NS;
		return;
	}
	vm->sync_rounds++;
	if (!vm->clock.synced || rtt < vm->sync_best_rtt) {
		int64_t host = (int64_t)(vm->sync_t1 + rtt / 2) + vm->mono_to_real;

		if (!gr_ctf_clock_from_sync(vm->view.clock_freq, guest, host,
					    rtt / 2 + 1, &clock)) {
			vm->sync_best_rtt = rtt;
			vm->clock = clock;
			if (vm->session_fd >= 0)
				vm_write_trace_files(vm, vm->session_fd,
						     vm->session);
		}
	}
	if (vm->sync_rounds < GR_SYNC_ROUNDS)
		sync_send(vm);
	else
		vm->next_sync_ns = now + GR_SYNC_REFRESH_NS;
}

/* ---- attach ------------------------------------------------------------ */

static void reject(struct gr_vm *vm, uint64_t instance, const char *what,
		   const char *why)
{
	if (vm->rejected_instance == instance && vm->why[0])
		return;
	vm->rejected_instance = instance;
	vm->st.bad_region++;
	snprintf(vm->why, sizeof(vm->why), "%s: %s", what, why);
	syslog(LOG_WARNING, "%s: guest publication rejected: %s", vm->opts.name,
	       vm->why);
}

static void try_attach(struct gr_vm *vm, bool try_resume)
{
	char err[256];
	struct gr_region_hdr copy;
	const char *why = NULL;
	struct timespec rt, mono;
	unsigned int i;
	uint64_t instance;
	int ret;

	if (load_acq64(&((struct gr_region_hdr *)vm->region)->magic) !=
	    GR_REGION_MAGIC)
		return;
	if (gr_read_region_hdr(vm->region, vm->size, &copy))
		return;
	instance = le64toh(copy.instance_id);
	if (vm->closed_instance && instance == vm->closed_instance)
		return;		/* its session ended: wait for a new one */
	if (vm->rejected_instance && instance == vm->rejected_instance)
		return;		/* already rejected and logged */
	ret = gr_check_region_hdr(&copy, vm->size, &vm->view, &why);
	if (ret) {
		reject(vm, instance, "region header", why);
		return;
	}
	vm->hdr_copy = copy;
	free(vm->events);
	free(vm->desc_copy);
	vm->events = calloc(vm->view.desc_count + 1, sizeof(*vm->events));
	vm->desc_copy = calloc(vm->view.desc_count + 1, sizeof(*vm->desc_copy));
	if (!vm->events || !vm->desc_copy)
		goto fail;
	for (i = 0; i < vm->view.desc_count; i++) {
		memcpy(&vm->desc_copy[i],
		       vm->region + gr_view_desc_off(&vm->view, i),
		       sizeof(vm->desc_copy[i]));
		ret = gr_check_event_desc(&vm->view, &vm->desc_copy[i], i,
					  &vm->events[i], &why);
		if (ret) {
			reject(vm, instance, "event descriptor", why);
			goto fail;
		}
	}
	if (gr_check_event_names(vm->events, vm->view.desc_count, &why)) {
		reject(vm, instance, "event descriptors", why);
		goto fail;
	}
	vm->instance_id = instance;
	vm->why[0] = '\0';
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	vm->mono_to_real = ((int64_t)rt.tv_sec - mono.tv_sec) * 1000000000LL +
			   (rt.tv_nsec - mono.tv_nsec);
	memset(&vm->clock, 0, sizeof(vm->clock));
	vm->sync_best_rtt = UINT64_MAX;
	memset(&vm->st, 0, sizeof(vm->st));
	vm->stop_reason = GR_STOP_NONE;

	memset(vm->enable, 0, sizeof(vm->enable));
	resolve_events(vm, vm->opts.events[0] ? vm->opts.events :
		       GR_DEFAULT_EVENTS, false, vm->enable, err, sizeof(err));
	for (i = 0; i < GR_MAX_EVENTS / 64 && !vm->enable[i]; i++)
		;
	if (i == GR_MAX_EVENTS / 64)
		syslog(LOG_WARNING, "%s: none of the events asked for (%s) exists in this guest; recording nothing (guestrelay enable %s EVENT...)",
		       vm->opts.name, vm->opts.events[0] ? vm->opts.events :
		       "the defaults", vm->opts.name);
	ret = session_open(vm, try_resume);
	if (ret) {
		syslog(LOG_ERR, "%s: cannot open a trace under %s: %s",
		       vm->opts.name, vm->agent->store_dir, strerror(-ret));
		cons_close_rings(vm);
		if (vm->session_fd >= 0)
			close(vm->session_fd);
		vm->session_fd = -1;
		goto fail_quiet;
	}
	vm->state = GR_VM_ATTACHED;
	vm->tracing = 1;
	ctrl_publish(vm);
	vm->sync_rounds = 0;
	vm->sync_pending = false;
	sync_send(vm);
	syslog(LOG_INFO, "%s: attached: guest %s (%s), %u rings of %u x %u bytes, trace %s",
	       vm->opts.name, vm->view.kernel_release, vm->view.nodename,
	       vm->view.nr_rings, vm->view.n_subbufs, vm->view.subbuf_size,
	       vm->session_path);
	return;
fail:
	if (!vm->why[0])
		reject(vm, instance, "attach", "out of memory");
fail_quiet:
	free(vm->events);
	free(vm->desc_copy);
	vm->events = NULL;
	vm->desc_copy = NULL;
	vm->rejected_instance = instance;
}

/* ---- progress ------------------------------------------------------------ */

static void finish_waiter(struct gr_vm *vm, int err, const char *msg)
{
	struct gr_waiter w = vm->waiter;

	vm->waiter.active = false;
	if (w.done)
		w.done(w.arg, err, msg);
}

/* `guestrelay snapshot`: the reply, once every write and fsync completed */
static void cmd_snap_done(struct gr_vm *vm, int err, const char *path)
{
	finish_waiter(vm, err, err ? strerror(-err) : path);
}

static void gone_snap_done(struct gr_vm *vm, int err, const char *path)
{
	if (err)
		syslog(LOG_INFO, "%s: %s", vm->opts.name, vm->gone_what);
	else
		syslog(LOG_INFO, "%s: %s; flight-recorder snapshot in %s",
		       vm->opts.name, vm->gone_what, path);
}

/*
 * The guest left or withdrew its layout: end the session cleanly. In
 * flight mode a snapshot is taken first; the session closes once it and
 * the writes in flight completed (vm_progress()).
 */
static void guest_gone(struct gr_vm *vm, const char *what)
{
	if (vm->state != GR_VM_ATTACHED || vm->closing)
		return;
	vm->gone_what = what;
	if (vm->opts.mode != GR_MODE_FLIGHT || vm->snap ||
	    snap_start(vm, gone_snap_done))
		syslog(LOG_INFO, "%s: %s%s", vm->opts.name, what,
		       vm->snap ? "; a snapshot is being taken" : "");
	if (vm->stop_reason == GR_STOP_NONE)	/* keep quota / disk */
		vm->stop_reason = GR_STOP_GUEST;
	vm->closing = true;
}

/*
 * A stopped VM whose guest withdrew or re-published: what we knew of the
 * layout is stale. Back to waiting; a valid publication attaches anew.
 */
static void stopped_guest_gone(struct gr_vm *vm)
{
	syslog(LOG_INFO, "%s: the guest re-published or withdrew its layout while stopped",
	       vm->opts.name);
	cons_close_rings(vm);
	vm->state = GR_VM_WAITING;
	vm->closed_instance = vm->instance_id;
}

/*
 * H7: before the host stores into the region again (vm_start), the
 * layout must still be the one validated: re-read the header, validate
 * it, and compare instance and geometry with our view.
 */
static int revalidate(struct gr_vm *vm, const char **why)
{
	struct gr_region_hdr copy;
	struct gr_view v;

	if (gr_read_region_hdr(vm->region, vm->size, &copy)) {
		*why = "the layout is not published";
		return -ESTALE;
	}
	if (gr_check_region_hdr(&copy, vm->size, &v, why))
		return -ESTALE;
	if (v.instance_id != vm->instance_id ||
	    v.nr_rings != vm->view.nr_rings ||
	    v.subbuf_size != vm->view.subbuf_size ||
	    v.n_subbufs != vm->view.n_subbufs ||
	    v.ring_offset != vm->view.ring_offset ||
	    v.subbuf_rec_offset != vm->view.subbuf_rec_offset ||
	    v.data_offset != vm->view.data_offset) {
		*why = "the guest published another layout";
		return -ESTALE;
	}
	return 0;
}

static void waiter_flush(struct gr_vm *vm)
{
	vm->waiter.flush_req = ++vm->flush_req;
	/* pairs with the guest's smp_load_acquire() of flush_req (10 #11) */
	store_rel64(&ctrl(vm)->flush_req, vm->flush_req);
	vm_notify_guest(vm, GR_VEC_CTRL);
}

/**
 * vm_progress() - re-examine waiters and closing after any event
 * @vm: the VM
 */
void vm_progress(struct gr_vm *vm)
{
	struct gr_guest_status *st = status(vm);
	char path[4096];
	bool acked, done;
	int ret;

	if (vm->dying) {
		vm_maybe_free(vm);
		return;
	}
	if (vm->closing && cons_idle(vm) && !vm->snap) {
		vm->closing = false;
		detach(vm);
		vm->closed_instance = vm->instance_id;
	}
	if (!vm->waiter.active || vm->waiter.started)
		return;
	if (vm->waiter.ctrl_seq) {
		/* pairs with the guest's smp_store_release() of ctrl_ack
		 * (spec 10 #12): no write for a disabled event runs after it
		 */
		if (load_acq64(&st->ctrl_ack) != vm->waiter.ctrl_seq &&
		    le32toh(__atomic_load_n(&st->state, __ATOMIC_ACQUIRE)) !=
		    GR_STATE_PANIC && gr_now_ns() < vm->waiter.deadline_ns)
			return;
		vm->waiter.ctrl_seq = 0;
		waiter_flush(vm);
	}
	/* pairs with the guest's smp_store_release() of flush_ack; a
	 * panicked guest cannot answer, but its panic notifier already
	 * closed every ring
	 */
	acked = load_acq64(&st->flush_ack) == vm->waiter.flush_req ||
		le32toh(__atomic_load_n(&st->state, __ATOMIC_ACQUIRE)) ==
		GR_STATE_PANIC;
	done = acked && (vm->opts.mode == GR_MODE_FLIGHT ||
			 cons_caught_up(vm));
	if (!done && gr_now_ns() < vm->waiter.deadline_ns)
		return;
	switch (vm->waiter.kind) {
	case GR_WAIT_FLUSH:
		finish_waiter(vm, done ? 0 : -ETIMEDOUT,
			      done ? vm->session_path :
			      "the guest did not acknowledge the flush in 5 s");
		break;
	case GR_WAIT_SNAPSHOT:
		/* another is being taken (QEMU left): start after it */
		if (vm->snap)
			return;
		ret = snap_start(vm, cmd_snap_done);
		if (ret)
			finish_waiter(vm, ret, strerror(-ret));
		else
			vm->waiter.started = true;
		break;
	case GR_WAIT_STOP:
		if (!cons_idle(vm))
			return;
		snprintf(path, sizeof(path), "%s", vm->session_path);
		session_close(vm);
		vm->state = GR_VM_STOPPED;
		vm->stop_reason = GR_STOP_USER;
		finish_waiter(vm, 0, path);
		break;
	}
}

/*
 * The storage rate: bytes this agent stored, over its own clock, never a
 * guest value. A new session restarts st.bytes: the window restarts too.
 */
static void update_rate(struct gr_vm *vm, uint64_t now)
{
	if (vm->st.bytes < vm->rate_bytes0) {
		vm->rate_bytes0 = vm->st.bytes;
		vm->rate_t0 = now;
		vm->rate_bps = 0;
		return;
	}
	if (now - vm->rate_t0 < 1000 * MS)
		return;
	vm->rate_bps = (double)(vm->st.bytes - vm->rate_bytes0) * 1e9 /
		       (double)(now - vm->rate_t0);
	vm->rate_t0 = now;
	vm->rate_bytes0 = vm->st.bytes;
}

/* Everything a wake-up (timer, doorbell) has to look at. */
static void vm_tick(struct gr_vm *vm)
{
	struct gr_region_hdr *hdr = (struct gr_region_hdr *)vm->region;
	uint32_t gstate;
	uint64_t magic;

	if (vm->dying)
		return;
	switch (vm->state) {
	case GR_VM_WAITING:
		if (!vm->closing)
			try_attach(vm, vm->resume_pending);
		vm->resume_pending = false;
		break;
	case GR_VM_ATTACHED:
		if (vm->closing)
			break;
		magic = load_acq64(&hdr->magic);
		if (magic != GR_REGION_MAGIC ||
		    le64toh(__atomic_load_n(&hdr->instance_id,
					    __ATOMIC_RELAXED)) != vm->instance_id) {
			/*
			 * Spec 5.5: on magic = 0 the layout is still the one
			 * withdrawn: a final drain pass with our private copy
			 * of it, then the session closes. Another magic, or
			 * another instance: a new layout is (being) written,
			 * nothing may be stored into it (H7): no drain.
			 */
			if (!magic)
				cons_drain(vm);
			guest_gone(vm, "the guest withdrew its layout");
			break;
		}
		cons_drain(vm);
		sync_check(vm);
		gstate = le32toh(__atomic_load_n(&status(vm)->state,
						 __ATOMIC_ACQUIRE));
		if (gstate == GR_STATE_PANIC && !vm->saw_panic) {
			vm->saw_panic = true;
			syslog(LOG_WARNING, "%s: the guest panicked; its last events are in %s",
			       vm->opts.name, vm->session_path);
		}
		cons_arm_event_idx(vm);
		break;
	case GR_VM_STOPPED:
		/* a new publication while stopped is a new guest (H7) */
		if (load_acq64(&hdr->magic) != GR_REGION_MAGIC ||
		    le64toh(__atomic_load_n(&hdr->instance_id,
					    __ATOMIC_RELAXED)) != vm->instance_id)
			stopped_guest_gone(vm);
		break;
	}
	update_rate(vm, gr_now_ns());
	vm_progress(vm);
}

/* ---- loop callbacks -------------------------------------------------------- */

static void arm_timer(struct gr_vm *vm)
{
	uint64_t ns;

	if (vm->dying)
		return;
	if (vm->state != GR_VM_ATTACHED)
		ns = GR_POLL_WAITING_NS;
	else if (vm->doorbell && vm->guest_peer >= 0)
		ns = GR_POLL_DOORBELL_NS;
	else
		ns = vm->poll_ns;
	if (vm->waiter.active || vm->closing || vm->sync_pending)
		ns = ns > 5 * MS ? 5 * MS : ns;
	gr_loop_timeout(&vm->agent->loop, &vm->timer_op, ns);
}

static void timer_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_vm *vm = container_of(op, struct gr_vm, timer_op);
	uint64_t before = vm->taken;

	(void)res;
	(void)flags;
	vm->st.polls++;
	vm_tick(vm);
	/*
	 * Adaptive interval (spec 8.5): back to the minimum after a pass
	 * that found data (examined a sub-buffer; its write completes
	 * later), doubled after one that found none, up to the maximum.
	 */
	if (vm->taken != before)
		vm->poll_ns = GR_POLL_MIN_NS;
	else
		vm->poll_ns = vm->poll_ns * 2 < GR_POLL_MAX_NS ?
			      vm->poll_ns * 2 : GR_POLL_MAX_NS;
	arm_timer(vm);
	if (vm->dying)
		vm_maybe_free(vm);
}

static void self_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_selfwatch *w = container_of(op, struct gr_selfwatch, op);
	struct gr_vm *vm = w->vm;
	int fd = ivsh_server_self_eventfd(&vm->srv, w->vec);
	uint64_t count;

	(void)flags;
	if (vm->dying) {
		vm_maybe_free(vm);
		return;
	}
	if (res > 0) {
		uint64_t now = gr_now_ns();

		/* a storm of doorbells is one read and at most one tick */
		if (read(fd, &count, sizeof(count)) == sizeof(count))
			vm->st.doorbells_in++;
		if (now - vm->db_tick_ns >= GR_DOORBELL_MIN_NS) {
			vm->db_tick_ns = now;
			vm_tick(vm);
		}
	}
	gr_loop_poll(&vm->agent->loop, &w->op, fd, POLLIN);
}

static void peer_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_peer *p = container_of(op, struct gr_peer, op);
	struct gr_vm *vm = p->vm;
	struct gr_peer **pp;

	(void)flags;
	if (!p->gone && !vm->dying && res > 0)
		ivsh_server_peer_event(&vm->srv, p->id);
	if (!p->gone && !vm->dying) {
		gr_loop_poll(&vm->agent->loop, &p->op, p->fd, POLLIN | POLLRDHUP);
		return;
	}
	for (pp = &vm->peers; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	free(p);
	if (vm->dying)
		vm_maybe_free(vm);
}

static void on_peer(void *data, enum ivsh_peer_change what, int id, int fd)
{
	struct gr_vm *vm = data;
	struct gr_peer *p;

	if (what == IVSH_PEER_ADDED) {
		p = calloc(1, sizeof(*p));
		if (!p) {
			ivsh_server_disconnect(&vm->srv, id);
			return;
		}
		p->vm = vm;
		p->id = id;
		p->fd = fd;
		p->op.done = peer_done;
		p->next = vm->peers;
		vm->peers = p;
		vm->guest_peer = id;
		syslog(LOG_INFO, "%s: QEMU connected as peer %d", vm->opts.name, id);
		gr_loop_poll(&vm->agent->loop, &p->op, fd, POLLIN | POLLRDHUP);
		/* a kick now may be lost (MSI-X not enabled yet): harmless */
		vm_notify_guest(vm, GR_VEC_CTRL);
		return;
	}
	for (p = vm->peers; p; p = p->next) {
		if (p->id == id && !p->gone) {
			p->gone = true;
			gr_loop_cancel(&vm->agent->loop, &p->op);
		}
	}
	if (id == vm->guest_peer) {
		vm->guest_peer = -1;
		if (!vm->dying) {
			cons_drain(vm);
			guest_gone(vm, "QEMU disconnected");
		}
	}
}

static void listen_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_vm *vm = container_of(op, struct gr_vm, listen_op);
	int ret;

	(void)flags;
	if (vm->dying) {
		vm_maybe_free(vm);
		return;
	}
	if (res > 0) {
		do {
			ret = ivsh_server_accept(&vm->srv);
		} while (ret >= 0);
	}
	gr_loop_poll(&vm->agent->loop, &vm->listen_op,
		     ivsh_server_listen_fd(&vm->srv), POLLIN);
}

static void srv_log(void *data, int prio, const char *fmt, va_list ap)
{
	struct gr_vm *vm = data;
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	syslog(prio, "%s: %s", vm->opts.name, msg);
}

/* ---- add / remove / commands ------------------------------------------------ */

/**
 * vm_add() - serve a VM: its shared memory, control block and socket
 * @a: the agent
 * @o: options (copied)
 * @vmp: receives the VM
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * An existing /dev/shm/guestrelay-<vm> of the right size is reused: that
 * is how a restarted agent resumes a running guest (QEMU keeps its
 * mapping; doorbells are gone until the VM restarts, so the agent polls).
 *
 * Return: 0 or -errno.
 */
int vm_add(struct gr_agent *a, const struct gr_vm_opts *o, struct gr_vm **vmp,
	   char *err, size_t errlen)
{
	struct ivsh_shm_file_opts fo = {
		.flags = IVSH_SHM_REUSE,
		.mode = o->own ? 0660 : 0600,
		.uid = (uid_t)-1,
		.gid = (gid_t)-1,
	};
	struct ivsh_server_opts so = { 0 };
	char name[GR_VM_NAME_MAX + 16], sock[PATH_MAX];
	struct gr_host_ctrl *c;
	struct gr_vm *vm;
	struct stat before;
	bool existed;
	unsigned int v;
	int ret;

	if (ivsh_shm_check_name(o->name) || strlen(o->name) >= GR_VM_NAME_MAX) {
		snprintf(err, errlen, "invalid VM name '%s' (letters, digits, '_', '.', '-'; no leading dot)",
			 o->name);
		return -EINVAL;
	}
	if (vm_find(a, o->name)) {
		snprintf(err, errlen, "VM '%s' is already served", o->name);
		return -EEXIST;
	}
	if (o->mode != GR_MODE_STREAM && o->mode != GR_MODE_FLIGHT) {
		snprintf(err, errlen, "mode must be stream or flight");
		return -EINVAL;
	}
	vm = calloc(1, sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	vm->agent = a;
	vm->opts = *o;
	if (!vm->opts.shm_size)
		vm->opts.shm_size = GR_DEFAULT_SHM_SIZE;
	vm->shm.fd = -1;
	vm->vm_fd = -1;
	vm->session_fd = -1;
	vm->guest_peer = -1;
	vm->doorbell = !o->plain;
	vm->poll_ns = GR_POLL_MIN_NS;	/* spec 8.5: start at the minimum */
	vm->timer_op.done = timer_done;
	vm->listen_op.done = listen_done;
	for (v = 0; v < GR_NR_VECTORS; v++) {
		vm->self[v].op.done = self_done;
		vm->self[v].vm = vm;
		vm->self[v].vec = v;
	}
	if (o->own) {
		fo.flags |= IVSH_SHM_CHOWN;
		fo.uid = o->uid;
		fo.gid = o->gid;
	}

	snprintf(name, sizeof(name), GR_SHM_PREFIX "%s", o->name);
	snprintf(sock, sizeof(sock), "/dev/shm/%s", name);
	existed = lstat(sock, &before) == 0;
	ret = ivsh_shm_create_file(&vm->shm, name, vm->opts.shm_size, &fo);
	if (ret) {
		snprintf(err, errlen, "cannot create /dev/shm/%s of %llu bytes: %s",
			 name, (unsigned long long)vm->opts.shm_size,
			 ret == -EINVAL ? "the size must be a power of two >= 64 KiB"
					: strerror(-ret));
		goto out_free;
	}
	ret = ivsh_shm_map(&vm->shm);
	if (ret) {
		snprintf(err, errlen, "cannot map /dev/shm/%s: %s", name,
			 strerror(-ret));
		goto out_close;
	}
	vm->region = vm->shm.addr;
	vm->size = vm->shm.size;

	if (vm->doorbell) {
		if (snprintf(sock, sizeof(sock), "%s/%s.sock", a->run_dir,
			     o->name) >= (int)sizeof(sock)) {
			snprintf(err, errlen, "socket path too long");
			ret = -ENAMETOOLONG;
			goto out_close;
		}
		so.sock_mode = o->own ? 0660 : 0600;
		if (o->own) {
			so.flags = IVSH_SRV_CHOWN;
			so.sock_uid = o->uid;
			so.sock_gid = o->gid;
		}
		so.log = srv_log;
		so.log_data = vm;
		so.on_peer = on_peer;
		so.peer_data = vm;
		ret = ivsh_server_init(&vm->srv, sock, vm->shm.fd, GR_NR_VECTORS,
				       &so);
		if (ret) {
			snprintf(err, errlen, "cannot serve %s: %s", sock,
				 strerror(-ret));
			goto out_close;
		}
	}

	c = ctrl(vm);
	if (existed && le64toh(c->magic) == GR_CTRL_MAGIC) {
		ctrl_adopt(vm);
		vm->resume_pending = true;
	} else {
		ctrl_init(vm);
	}

	if (vm->doorbell) {
		gr_loop_poll(&a->loop, &vm->listen_op,
			     ivsh_server_listen_fd(&vm->srv), POLLIN);
		for (v = 0; v < GR_NR_VECTORS; v++)
			gr_loop_poll(&a->loop, &vm->self[v].op,
				     ivsh_server_self_eventfd(&vm->srv, v),
				     POLLIN);
	}
	vm->next = a->vms;
	a->vms = vm;
	vm_tick(vm);
	arm_timer(vm);
	syslog(LOG_INFO, "%s: serving %s /dev/shm/%s (%llu bytes)%s%s",
	       o->name, vm->doorbell ? "ivshmem-doorbell" : "ivshmem-plain",
	       name, (unsigned long long)vm->size,
	       vm->doorbell ? " on " : "", vm->doorbell ? sock : "");
	*vmp = vm;
	return 0;

out_close:
	ivsh_shm_close(&vm->shm);
	if (!existed)
		ivsh_shm_unlink(name);
out_free:
	free(vm);
	return ret;
}

static bool vm_ops_idle(const struct gr_vm *vm)
{
	unsigned int v;

	if (vm->timer_op.busy || vm->listen_op.busy || vm->peers || vm->snap)
		return false;
	for (v = 0; v < GR_NR_VECTORS; v++)
		if (vm->self[v].op.busy)
			return false;
	return cons_idle(vm);
}

static void vm_maybe_free(struct gr_vm *vm)
{
	struct gr_vm **pp;
	char name[sizeof(vm->shm.name)];

	if (!vm_ops_idle(vm))
		return;
	detach(vm);
	for (pp = &vm->agent->vms; *pp; pp = &(*pp)->next) {
		if (*pp == vm) {
			*pp = vm->next;
			break;
		}
	}
	if (vm->waiter.active)
		finish_waiter(vm, -ECANCELED, "the VM was removed");
	if (vm->vm_fd >= 0)
		close(vm->vm_fd);
	memcpy(name, vm->shm.name, sizeof(name));
	ivsh_shm_close(&vm->shm);
	if (vm->unlink_shm)
		ivsh_shm_unlink(name);
	free(vm);
}

/**
 * vm_remove() - stop serving a VM
 * @vm: the VM
 *
 * The session is closed once writes in flight completed; the ivshmem
 * socket and (unless the agent is only shutting down) the shared memory
 * file are removed, and QEMU, if still running, loses its doorbells.
 */
void vm_remove(struct gr_vm *vm)
{
	struct gr_loop *l = &vm->agent->loop;
	struct gr_peer *p;
	unsigned int v;

	if (vm->dying)
		return;
	vm->dying = true;
	vm->unlink_shm = !vm->agent->stopping;
	gr_loop_cancel(l, &vm->timer_op);
	gr_loop_cancel(l, &vm->listen_op);
	for (v = 0; v < GR_NR_VECTORS; v++)
		gr_loop_cancel(l, &vm->self[v].op);
	for (p = vm->peers; p; p = p->next) {
		p->gone = true;
		gr_loop_cancel(l, &p->op);
	}
	if (vm->doorbell)
		ivsh_server_finish(&vm->srv);
	vm_maybe_free(vm);
}

static int start_wait(struct gr_vm *vm, int kind, gr_done_fn done, void *arg)
{
	if (vm->state != GR_VM_ATTACHED)
		return -ENOTCONN;
	if (vm->waiter.active)
		return -EBUSY;
	vm->waiter = (struct gr_waiter) {
		.done = done,
		.arg = arg,
		.kind = kind,
		.active = true,
		.deadline_ns = gr_now_ns() + GR_CMD_TIMEOUT_NS,
	};
	/* stop: tracing 0 acknowledged first, then the flush (spec 9.2) */
	if (kind == GR_WAIT_STOP)
		vm->waiter.ctrl_seq = vm->ctrl_seq;
	else
		waiter_flush(vm);
	arm_timer(vm);
	return 0;
}

/**
 * vm_flush() - have the guest close its partial sub-buffers, store them
 * @vm: an attached VM
 * @done: called with the trace path when everything is on disk
 * @arg: passed to @done
 *
 * Return: 0 (done will be called), -ENOTCONN, -EBUSY.
 */
int vm_flush(struct gr_vm *vm, gr_done_fn done, void *arg)
{
	return start_wait(vm, GR_WAIT_FLUSH, done, arg);
}

/**
 * vm_snapshot() - store the current content of the rings as a trace
 * @vm: an attached VM (normally in flight-recorder mode)
 * @done: called with the snapshot's path
 * @arg: passed to @done
 *
 * Return: 0 (done will be called), -ENOTCONN, -EBUSY.
 */
int vm_snapshot(struct gr_vm *vm, gr_done_fn done, void *arg)
{
	return start_wait(vm, GR_WAIT_SNAPSHOT, done, arg);
}

/**
 * vm_stop() - stop recording and close the trace
 * @vm: an attached VM
 * @done: called with the closed trace's path
 * @arg: passed to @done
 *
 * Return: 0 (done will be called), -ENOTCONN, -EBUSY.
 */
int vm_stop(struct gr_vm *vm, gr_done_fn done, void *arg)
{
	int ret;

	if (vm->state != GR_VM_ATTACHED)
		return -ENOTCONN;
	vm->tracing = 0;
	ctrl_publish(vm);
	ret = start_wait(vm, GR_WAIT_STOP, done, arg);
	if (ret) {
		vm->tracing = 1;
		ctrl_publish(vm);
	}
	return ret;
}

/**
 * vm_start() - a new session after vm_stop()
 * @vm: a stopped VM
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Sub-buffers the guest produced while stopped are discarded.
 *
 * Return: 0 or -errno.
 */
int vm_start(struct gr_vm *vm, char *err, size_t errlen)
{
	const char *why = "";
	unsigned int i;
	int ret;

	if (vm->state != GR_VM_STOPPED) {
		snprintf(err, errlen, "%s is %s, not stopped", vm->opts.name,
			 vm_state_name(vm));
		return -EALREADY;
	}
	ret = revalidate(vm, &why);
	if (ret) {
		snprintf(err, errlen, "%s: %s; it attaches as a new session "
			 "once published", vm->opts.name, why);
		stopped_guest_gone(vm);
		return ret;
	}
	for (i = 0; i < vm->view.nr_rings; i++) {
		struct gr_ring *ring = vm_ring(vm, i);
		uint64_t produced = load_acq64(&ring->prod.produced);

		store_rel64(&ring->cons.consumed, produced);
	}
	memset(&vm->st, 0, sizeof(vm->st));
	ret = session_open(vm, false);
	if (ret) {
		snprintf(err, errlen, "cannot open a trace: %s", strerror(-ret));
		cons_close_rings(vm);
		return ret;
	}
	vm->state = GR_VM_ATTACHED;
	vm->stop_reason = GR_STOP_NONE;
	vm->tracing = 1;
	ctrl_publish(vm);
	vm->sync_rounds = 0;
	sync_send(vm);
	arm_timer(vm);
	return 0;
}

/**
 * vm_stream_stopped() - quota or disk trouble: stop writing this VM
 * @vm: the VM
 * @why: GR_STOP_*
 *
 * The guest keeps running; with nothing consumed it drops and counts.
 */
void vm_stream_stopped(struct gr_vm *vm, enum gr_stop_reason why)
{
	unsigned int i;

	if (vm->stop_reason == GR_STOP_NONE) {
		vm->stop_reason = why;
		syslog(LOG_WARNING, "%s: stream stopped: %s; the trace %s stays readable",
		       vm->opts.name, why == GR_STOP_QUOTA ? "quota reached" :
		       "write error", vm->session_path);
	}
	for (i = 0; vm->rings && i < vm->view.nr_rings; i++)
		vm->rings[i].stopped = true;
}

/* ---- queries ------------------------------------------------------------ */

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

void vm_get_info(const struct gr_vm *vm, struct gr_vm_info *info)
{
	static const char *const reasons[] = {
		[GR_STOP_NONE] = "", [GR_STOP_QUOTA] = "quota",
		[GR_STOP_DISK] = "disk", [GR_STOP_USER] = "user",
		[GR_STOP_GUEST] = "guest",
	};
	struct gr_guest_status *st = (struct gr_guest_status *)
		(vm->region + GR_STATUS_OFFSET);
	size_t off = 0;
	unsigned int i;

	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", vm->opts.name);
	info->state = vm_state_name(vm);
	info->guest_state = gr_state_name(le32toh(st->state));
	info->doorbell = vm->doorbell;
	info->guest_connected = vm->guest_peer >= 0;
	info->mode = vm->opts.mode;
	info->quota = vm->opts.quota;
	info->verify = vm->opts.verify;
	info->usage = vm->usage;
	info->stop_reason = reasons[vm->stop_reason];
	info->rate_bps = vm->rate_bps;
	vm_get_stats(vm, &info->st);
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
	if (vm->session_fd >= 0)
		snprintf(info->session, sizeof(info->session), "%s",
			 vm->session_path);
	for (i = 0; i < vm->view.desc_count && off < sizeof(info->events); i++) {
		if (le64toh(st->enabled[i / 64]) >> (i % 64) & 1)
			off += snprintf(info->events + off,
					sizeof(info->events) - off, "%s%s",
					off ? "," : "", vm->events[i].name);
	}
	if (le64toh(st->ctrl_ack) != vm->ctrl_seq)
		snprintf(info->pending, sizeof(info->pending), "settings");
	if (vm->clock.synced) {
		info->sync_error_ns = vm->clock.error_ns;
		info->sync_offset_ns = vm->clock.offset_s * 1000000000LL +
			(int64_t)(vm->clock.offset * 1000000000ULL /
				  vm->view.clock_freq);
	}
}
