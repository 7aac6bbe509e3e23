/* SPDX-License-Identifier: GPL-2.0 */
/*
 * consumer.h - consumer.c: from a guest's rings to its stream files (the data path)
 */
#ifndef GR_CONSUMER_H
#define GR_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gr_vm;

int cons_open_rings(struct gr_vm *vm, bool resume);
void cons_close_rings(struct gr_vm *vm);
void cons_drain(struct gr_vm *vm);
void cons_discard(struct gr_vm *vm);
bool cons_idle(const struct gr_vm *vm);
bool cons_caught_up(struct gr_vm *vm);
void cons_arm_event_idx(struct gr_vm *vm);

#endif /* GR_CONSUMER_H */
