/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snapshot.h - flight-recorder snapshots through the loop (snapshot.c)
 */
#ifndef GR_SNAPSHOT_H
#define GR_SNAPSHOT_H

struct gr_vm;

/**
 * typedef gr_snap_done_fn - a snapshot is on disk, or failed
 * @vm: the VM
 * @err: 0 or -errno
 * @path: the snapshot's trace directory if @err is 0, else NULL
 */
typedef void (*gr_snap_done_fn)(struct gr_vm *vm, int err, const char *path);

int snap_start(struct gr_vm *vm, gr_snap_done_fn done);

#endif /* GR_SNAPSHOT_H */
