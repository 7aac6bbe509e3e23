/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.h - session.c: a VM's trace directories, opened, described and
 * closed; its state, struct gr_session, lives in the VM and only
 * session.c writes it
 */
#ifndef GR_SESSION_H
#define GR_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf.h"

struct gr_vm;

/**
 * struct gr_session - the trace directory of a VM's session
 * @name: directory name under <store>/<vm>
 * @path: <store>/<vm>/<name>, for logs and replies
 * @vm_fd: <store>/<vm>, opened O_DIRECTORY, -1 until needed
 * @fd: the session directory, -1 if no session is open
 * @closes: session directories being fsynced before they are closed
 * @trace_uuid: the CTF trace's UUID
 * @resumed: session_open() continued a session of a restarted agent
 * @resumed_clock: then the clock its .guestrelay recorded
 */
struct gr_session {
	char name[128];
	char path[4096];
	int vm_fd;
	int fd;
	unsigned int closes;
	uint8_t trace_uuid[16];
	bool resumed;
	struct gr_ctf_clock resumed_clock;
};

void session_init(struct gr_session *s);
int session_open(struct gr_vm *vm, bool try_resume);
void session_abandon(struct gr_vm *vm);
void session_close(struct gr_vm *vm);
void session_finish(struct gr_vm *vm);
bool session_idle(const struct gr_vm *vm);
int session_write_files(struct gr_vm *vm, int dirfd, const char *session);

#endif /* GR_SESSION_H */
