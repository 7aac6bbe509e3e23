/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rotate.h - rotate.c: a session kept in chunks (trace/chunk.h), when
 * to close one and open the next, and which closed chunks to keep; its
 * state, struct gr_rotate, lives in the VM and only rotate.c writes it
 */
#ifndef GR_ROTATE_H
#define GR_ROTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "agent.h"
#include "chunk.h"

struct gr_vm;

/**
 * struct gr_rotate - the chunks of a VM's session
 * @chunked: the session open now is kept in chunks
 * @pending: a rotation waits for the writes in flight (no packet is
 *	taken meanwhile, so the seam is a packet boundary of every ring)
 * @fd: the active chunk's directory, -1 if none
 * @id: its ID
 * @begin: its BEGIN (realtime)
 * @begin_ns: when it opened (monotonic), for --rotate-interval
 * @name: its directory name, BEGIN-ID
 * @live: "<session>/BEGIN-ID", its path for the live server
 * @last: the newest closed chunk, "<session>/archives/BEGIN-END-ID"
 * @chunks: closed chunks of this VM in the store (all sessions)
 * @chunk_bytes: their bytes
 * @rotations: rotations since the VM was added
 * @pruned: closed chunks deleted by retention since then
 * @pruned_bytes: their bytes
 * @held: closed chunks retention would delete but kept, not yet shipped
 *	(--ship), at the last retention pass
 * @retain_ns: when that pass ran (monotonic)
 * @collected_pruned: closed chunks deleted because a collector has them
 *	(--ship-prune)
 * @done: `guestrelay rotate` waiting for the rotation, or NULL
 * @done_arg: its argument
 */
struct gr_rotate {
	bool chunked;
	bool pending;
	int fd;
	uint64_t id;
	time_t begin;
	uint64_t begin_ns;
	char name[GR_CHUNK_NAME_MAX];
	char live[192];
	char last[256];
	uint64_t chunks;
	uint64_t chunk_bytes;
	uint64_t rotations;
	uint64_t pruned;
	uint64_t pruned_bytes;
	uint64_t held;
	uint64_t retain_ns;
	uint64_t collected_pruned;
	gr_done_fn done;
	void *done_arg;
};

void rot_init(struct gr_rotate *r);
int rot_open(struct gr_vm *vm);
int rot_next(struct gr_vm *vm, int *old_fd, char *old_name, size_t len);
int rot_close_chunk(struct gr_vm *vm, int fd, const char *name);
void rot_end(struct gr_vm *vm);
void rot_drop(struct gr_vm *vm);
void rot_undo(struct gr_vm *vm, int old_fd, const char *old_name);
void rot_check(struct gr_vm *vm);
int rot_request(struct gr_vm *vm, gr_done_fn done, void *arg);
void rot_answer(struct gr_vm *vm, int err);
void rot_retain(struct gr_vm *vm);
int rot_data_fd(const struct gr_vm *vm);

#endif /* GR_ROTATE_H */
