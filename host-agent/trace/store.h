/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store.h - store.c: the trace store on disk, <store>/<vm>/<session>/
 * (directories, stream files, quota usage); no guest text in a path
 */
#ifndef GR_STORE_H
#define GR_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int store_open(const char *dir, int *fdp);
int store_vm_dir(int store_fd, const char *vm, int *fdp);
int store_new_session(int vm_fd, const char *prefix, char *name, size_t len,
		      int *fdp);
int store_last_session(int vm_fd, char *name, size_t len);
int store_open_stream(int session_fd, unsigned int ring, bool append,
		      int *fdp, uint64_t *size);
int store_usage(int vm_fd, uint64_t *bytes);

#endif /* GR_STORE_H */
