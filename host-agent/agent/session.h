/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.h - session.c: a VM's trace directories, opened and closed
 */
#ifndef GR_SESSION_H
#define GR_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gr_vm;

int session_open(struct gr_vm *vm, bool try_resume);
void session_close(struct gr_vm *vm);
bool session_idle(const struct gr_vm *vm);
int session_write_files(struct gr_vm *vm, int dirfd, const char *session);

#endif /* GR_SESSION_H */
