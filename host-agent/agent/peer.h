/* SPDX-License-Identifier: GPL-2.0 */
/*
 * peer.h - peer.c: the VM's ivshmem server, QEMU as a peer, doorbells
 */
#ifndef GR_PEER_H
#define GR_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gr_vm;

int peer_init(struct gr_vm *vm, const char *sock, char *err, size_t errlen);
void peer_finish(struct gr_vm *vm);
bool peer_idle(const struct gr_vm *vm);
void peer_kick(struct gr_vm *vm, unsigned int vector);

#endif /* GR_PEER_H */
