/* SPDX-License-Identifier: GPL-2.0 */
/*
 * peer.h - peer.c: the VM's ivshmem server, QEMU as a peer, doorbells;
 * its state, struct gr_peer_state, lives in the VM and only peer.c
 * writes it. A doorbell or QEMU leaving is reported in it (@rang, @left)
 * for vm.c to handle once per loop pass.
 */
#ifndef GR_PEER_H
#define GR_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guestrelay_abi.h"
#include "ivshmem_server.h"
#include "loop.h"

struct gr_vm;

/* A client of the VM's ivshmem server (QEMU) */
struct gr_peer {
	struct gr_op op;
	struct gr_vm *vm;
	struct gr_peer *next;
	int id;
	int fd;
	bool gone;			/* removed; free once @op completed */
};

/*
 * One of our own eventfds: guest doorbells on vector @vec, read through
 * the loop into @count (a poll first only where the kernel answers such
 * a read of a non-blocking eventfd with -EAGAIN: @poll)
 */
struct gr_selfwatch {
	struct gr_op op;
	struct gr_vm *vm;
	unsigned int vec;
	uint64_t count;
	bool poll;
};

/**
 * struct gr_peer_state - the ivshmem side of one VM
 * @srv: the ivshmem server of <run>/<vm>.sock
 * @listen_op: the poll of its listening socket
 * @self: our own eventfds: the guest's doorbells
 * @peers: connected clients
 * @guest_peer: QEMU's peer id, -1 if none
 * @qemu_pid: QEMU's pid (SO_PEERCRED of its connection), 0 if none
 * @db_tick_ns: the last doorbell that asked for a pass
 * @rang: a doorbell asked for a pass (report, for vm.c)
 * @left: QEMU disconnected (report, for vm.c)
 */
struct gr_peer_state {
	struct ivsh_server srv;
	struct gr_op listen_op;
	struct gr_selfwatch self[GR_NR_VECTORS];
	struct gr_peer *peers;
	int guest_peer;
	int qemu_pid;
	uint64_t db_tick_ns;
	bool rang;
	bool left;
};

int peer_init(struct gr_vm *vm, const char *sock, char *err, size_t errlen);
void peer_finish(struct gr_vm *vm);
bool peer_idle(const struct gr_vm *vm);
void peer_kick(struct gr_vm *vm, unsigned int vector);

#endif /* GR_PEER_H */
