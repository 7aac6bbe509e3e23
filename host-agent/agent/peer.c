// SPDX-License-Identifier: GPL-2.0
/*
 * peer.c - the ivshmem glue of one VM: the agent is the server of
 * <run>/<vm>.sock and a peer with its own eventfds (qemu-device/)
 *
 *   QEMU connects      a peer: its eventfds ring the guest's MSI-X vectors
 *                      (peer_kick: "control changed", "consumed")
 *   QEMU leaves        the guest is gone: peer.left, for vm.c
 *   our own eventfds   the guest's doorbells ("sub-buffers ready",
 *                      "status"): peer.rang, for vm.c, which makes it
 *                      one VM pass in the loop pass; at most one per
 *                      GR_DOORBELL_MIN_NS, whatever the guest's rate
 *
 * This file writes only its own state (vm->peer) and the VM's counters,
 * and never calls up into vm.c: vm.c reads the reports once per loop
 * pass, and frees a removed VM once peer_idle().
 *
 * Doorbells are hints (H19): the truth is in shared memory, and the VM's
 * poll timer covers a doorbell lost or coalesced. Every socket is
 * watched by a poll in the loop, every eventfd of ours by a read in the
 * loop; nothing here blocks or makes a system call per doorbell.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

#include "vm.h"

/*
 * Doorbells drive at most one pass per VM in this window (spec 8.4): a
 * guest ringing without pause costs the loop a read per wake-up, not a
 * pass; a coalesced doorbell is served by the next one after the window
 * or by the poll timer (GR_POLL_DOORBELL_NS at most).
 */
#define GR_DOORBELL_MIN_NS		(200 * 1000)

/**
 * peer_kick() - ring one of the guest's MSI-X vectors
 * @vm: the VM
 * @vector: GR_VEC_CTRL or GR_VEC_CONSUMED
 *
 * Nothing happens without a connected doorbell device; the guest's tick
 * finds the request in memory anyway.
 */
void peer_kick(struct gr_vm *vm, unsigned int vector)
{
	if (!vm->doorbell || vm->peer.guest_peer < 0)
		return;
	if (ivsh_server_notify(&vm->peer.srv, vm->peer.guest_peer, vector) == 0)
		vm->st.doorbells_out++;
}

/*
 * Wait for the next doorbell on @w: a read of the eventfd through the
 * loop (it completes when the guest rings; no read() of ours). Where the
 * kernel answers a read of a non-blocking eventfd (ours are: QEMU shares
 * the file) with -EAGAIN instead of waiting, a poll comes first.
 */
static void self_arm(struct gr_selfwatch *w)
{
	struct gr_vm *vm = w->vm;
	int fd = ivsh_server_self_eventfd(&vm->peer.srv, w->vec);

	if (w->poll)
		gr_loop_poll(&vm->agent->loop, &w->op, fd, POLLIN);
	else
		gr_loop_read(&vm->agent->loop, &w->op, fd, &w->count,
			     sizeof(w->count));
	w->op.touch = &vm->touched;	/* a doorbell settles this VM only */
}

/* A guest doorbell: a read of one of our own eventfds completed */
static void self_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_selfwatch *w = container_of(op, struct gr_selfwatch, op);
	struct gr_vm *vm = w->vm;
	uint64_t now;

	(void)flags;
	if (vm->dying)
		return;
	if (w->poll) {
		/* the poll said readable: now the read, through the loop */
		w->poll = false;
		if (res > 0) {
			self_arm(w);
			return;
		}
	} else if (res == -EAGAIN) {
		w->poll = true;		/* this kernel does not wait: poll */
		self_arm(w);
		return;
	}
	if (res == sizeof(w->count)) {
		/* a storm of doorbells is one read and at most one pass */
		vm->st.doorbells_in++;
		now = gr_now_ns();
		if (now - vm->peer.db_tick_ns >= GR_DOORBELL_MIN_NS) {
			vm->peer.db_tick_ns = now;
			vm->st.doorbell_passes++;
			vm->peer.rang = true;
		}
	}
	self_arm(w);
}

/* A message or hang-up on a peer's connection */
static void peer_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_peer *p = container_of(op, struct gr_peer, op);
	struct gr_vm *vm = p->vm;
	struct gr_peer **pp;

	(void)flags;
	if (!p->gone && !vm->dying && res > 0)
		ivsh_server_peer_event(&vm->peer.srv, p->id);
	if (!p->gone && !vm->dying) {
		gr_loop_poll(&vm->agent->loop, &p->op, p->fd, POLLIN | POLLRDHUP);
		return;
	}
	for (pp = &vm->peer.peers; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	free(p);
}

static void on_peer(void *data, enum ivsh_peer_change what, int id, int fd)
{
	struct gr_vm *vm = data;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct gr_peer *p;

	if (what == IVSH_PEER_ADDED) {
		p = calloc(1, sizeof(*p));
		if (!p) {
			ivsh_server_disconnect(&vm->peer.srv, id);
			return;
		}
		p->vm = vm;
		p->id = id;
		p->fd = fd;
		p->op.done = peer_done;
		p->next = vm->peer.peers;
		vm->peer.peers = p;
		vm->peer.guest_peer = id;
		/* QEMU's pid, for its vCPU threads (vcpu.c) */
		vm->peer.qemu_pid = 0;
		if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) &&
		    len == sizeof(cred) && cred.pid > 0)
			vm->peer.qemu_pid = cred.pid;
		syslog(LOG_INFO, "%s: QEMU (pid %d) connected as peer %d",
		       vm->opts.name, vm->peer.qemu_pid, id);
		gr_loop_poll(&vm->agent->loop, &p->op, fd, POLLIN | POLLRDHUP);
		/* a kick now may be lost (MSI-X not enabled yet): harmless */
		peer_kick(vm, GR_VEC_CTRL);
		return;
	}
	for (p = vm->peer.peers; p; p = p->next) {
		if (p->id == id && !p->gone) {
			p->gone = true;
			gr_loop_cancel(&vm->agent->loop, &p->op);
		}
	}
	if (id == vm->peer.guest_peer) {
		vm->peer.guest_peer = -1;
		vm->peer.qemu_pid = 0;
		vm->peer.left = true;
	}
}

static void listen_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_vm *vm = container_of(op, struct gr_vm, peer.listen_op);
	int ret;

	(void)flags;
	if (vm->dying)
		return;
	if (res > 0) {
		do {
			ret = ivsh_server_accept(&vm->peer.srv);
		} while (ret >= 0);
	}
	gr_loop_poll(&vm->agent->loop, &vm->peer.listen_op,
		     ivsh_server_listen_fd(&vm->peer.srv), POLLIN);
}

static void srv_log(void *data, int prio, const char *fmt, va_list ap)
{
	struct gr_vm *vm = data;
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	syslog(prio, "%s: %s", vm->opts.name, msg);
}

/**
 * peer_init() - serve the VM's ivshmem socket and watch our eventfds
 * @vm: a doorbell VM whose shared memory is open
 * @sock: the socket's path
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Return: 0 or -errno.
 */
int peer_init(struct gr_vm *vm, const char *sock, char *err, size_t errlen)
{
	const struct gr_vm_opts *o = &vm->opts;
	struct gr_loop *l = &vm->agent->loop;
	struct ivsh_server_opts so = {
		.sock_mode = o->own ? 0660 : 0600,
		.log = srv_log,
		.log_data = vm,
		.on_peer = on_peer,
		.peer_data = vm,
	};
	unsigned int v;
	int ret;

	vm->peer.guest_peer = -1;
	if (o->own) {
		so.flags = IVSH_SRV_CHOWN;
		so.sock_uid = o->uid;
		so.sock_gid = o->gid;
	}
	ret = ivsh_server_init(&vm->peer.srv, sock, vm->shm.fd, GR_NR_VECTORS, &so);
	if (ret) {
		snprintf(err, errlen, "cannot serve %s: %s", sock, strerror(-ret));
		return ret;
	}
	vm->peer.listen_op.done = listen_done;
	gr_loop_poll(l, &vm->peer.listen_op, ivsh_server_listen_fd(&vm->peer.srv), POLLIN);
	for (v = 0; v < GR_NR_VECTORS; v++) {
		vm->peer.self[v].op.done = self_done;
		vm->peer.self[v].vm = vm;
		vm->peer.self[v].vec = v;
		self_arm(&vm->peer.self[v]);
	}
	return 0;
}

/**
 * peer_finish() - stop serving: the socket goes, QEMU loses its doorbells
 * @vm: the VM
 *
 * The polls complete later (cancelled); peer_idle() says when.
 */
void peer_finish(struct gr_vm *vm)
{
	struct gr_loop *l = &vm->agent->loop;
	struct gr_peer *p;
	unsigned int v;

	if (!vm->doorbell)
		return;
	gr_loop_cancel(l, &vm->peer.listen_op);
	for (v = 0; v < GR_NR_VECTORS; v++)
		gr_loop_cancel(l, &vm->peer.self[v].op);
	for (p = vm->peer.peers; p; p = p->next) {
		p->gone = true;
		gr_loop_cancel(l, &p->op);
	}
	ivsh_server_finish(&vm->peer.srv);
}

/**
 * peer_idle() - no poll of this VM's socket or eventfds in flight
 * @vm: the VM
 *
 * Return: true if the VM's peer state may be freed.
 */
bool peer_idle(const struct gr_vm *vm)
{
	unsigned int v;

	if (vm->peer.listen_op.busy || vm->peer.peers)
		return false;
	for (v = 0; v < GR_NR_VECTORS; v++)
		if (vm->peer.self[v].op.busy)
			return false;
	return true;
}
