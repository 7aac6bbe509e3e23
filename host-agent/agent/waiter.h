/* SPDX-License-Identifier: GPL-2.0 */
/*
 * waiter.h - waiter.c: the commands that wait for the guest (flush, snapshot, stop)
 */
#ifndef GR_WAITER_H
#define GR_WAITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gr_vm;

void waiter_progress(struct gr_vm *vm);
void waiter_cancel(struct gr_vm *vm);

#endif /* GR_WAITER_H */
