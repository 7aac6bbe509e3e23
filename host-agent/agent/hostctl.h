/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hostctl.h - hostctl.c: the host control block, the guest's acknowledgements, clock sync
 */
#ifndef GR_HOSTCTL_H
#define GR_HOSTCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gr_vm;

void hostctl_init(struct gr_vm *vm);
int hostctl_adopt(struct gr_vm *vm);
void hostctl_publish(struct gr_vm *vm);
void hostctl_new_session(struct gr_vm *vm);
uint64_t hostctl_flush(struct gr_vm *vm);
uint32_t hostctl_guest_state(const struct gr_vm *vm);
bool hostctl_settings_acked(const struct gr_vm *vm, uint64_t seq);
bool hostctl_flush_acked(const struct gr_vm *vm, uint64_t req);
void hostctl_sync_start(struct gr_vm *vm);
void hostctl_sync_check(struct gr_vm *vm);

#endif /* GR_HOSTCTL_H */
