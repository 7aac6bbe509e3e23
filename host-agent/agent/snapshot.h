/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snapshot.h - flight-recorder snapshots through the loop (snapshot.c)
 *
 * vm.c owns the snapshot (vm->snap): snap_open() makes its directory,
 * vm.c writes its metadata (session_write_files()) and calls snap_go()
 * or snap_abort(); the snapshot then runs through the loop and reports
 * the end in its own state (snap_finished()), which vm.c collects once
 * per loop pass and frees with snap_free().
 */
#ifndef GR_SNAPSHOT_H
#define GR_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

struct gr_vm;
struct gr_snap;

int snap_open(struct gr_vm *vm, struct gr_snap **sp);
int snap_dirfd(const struct gr_snap *s);
const char *snap_name(const struct gr_snap *s);
void snap_abort(struct gr_snap *s);
void snap_go(struct gr_snap *s);
bool snap_finished(const struct gr_snap *s, int *err);
void snap_free(struct gr_snap *s);

#endif /* GR_SNAPSHOT_H */
