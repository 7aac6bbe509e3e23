/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shm.h - a VM's ivshmem shared memory on the host
 *
 * Three ways to get one:
 *  - ivsh_shm_create_memfd(): an anonymous memfd, sealed against shrinking
 *    and growing; handed to QEMU by the ivshmem server (doorbell device).
 *  - ivsh_shm_create_file(): a named file in /dev/shm that QEMU maps with
 *    -object memory-backend-file (plain device, started by hand).
 *  - ivsh_shm_open_file(): a /dev/shm file created by someone else (libvirt
 *    creates the file of a plain <shmem> itself).
 *
 * The size is always a power of two (QEMU maps it as a PCI BAR) between
 * IVSH_SHM_MIN_SIZE and IVSH_SHM_MAX_SIZE. Names are plain file names in
 * /dev/shm: [A-Za-z0-9_.-], no leading dot, at most IVSH_SHM_NAME_MAX
 * bytes, so no name can leave the directory. Files are opened with
 * O_NOFOLLOW relative to /dev/shm (a sticky, world-writable directory).
 *
 * This file knows nothing about tracing.
 */
#ifndef _GR_SHM_H
#define _GR_SHM_H

#include <stdint.h>
#include <sys/types.h>

#define IVSH_SHM_DIR		"/dev/shm"
#define IVSH_SHM_MIN_SIZE	(64ULL << 10)	/* 64 KiB */
#define IVSH_SHM_MAX_SIZE	(1ULL << 40)	/* 1 TiB */
#define IVSH_SHM_NAME_MAX	128		/* bytes, without the NUL */

struct ivsh_shm {
	int fd;			/* memfd or /dev/shm file, -1 when closed */
	uint64_t size;		/* bytes, a power of two */
	void *addr;		/* MAP_SHARED mapping, NULL when unmapped */
	char name[IVSH_SHM_NAME_MAX + 1]; /* /dev/shm name, "" for a memfd */
};

/* flags of struct ivsh_shm_file_opts */
#define IVSH_SHM_REUSE	(1U << 0)	/* an existing file of ours is fine */
#define IVSH_SHM_CHOWN	(1U << 1)	/* set owner to uid / gid */

struct ivsh_shm_file_opts {
	unsigned int flags;	/* IVSH_SHM_* */
	mode_t mode;		/* permission bits; 0 means 0600 */
	uid_t uid;		/* with IVSH_SHM_CHOWN; (uid_t)-1 keeps it */
	gid_t gid;		/* with IVSH_SHM_CHOWN; (gid_t)-1 keeps it */
};

/**
 * ivsh_shm_check_name() - validate a /dev/shm (or memfd) name
 * @name: candidate name
 *
 * Context: any.
 * Return: 0 if @name is 1..IVSH_SHM_NAME_MAX bytes of [A-Za-z0-9_.-] and
 * does not start with a dot, -EINVAL otherwise (also for NULL).
 */
int ivsh_shm_check_name(const char *name);

/**
 * ivsh_shm_check_size() - validate a shared memory size
 * @size: bytes
 *
 * Context: any.
 * Return: 0 if @size is a power of two in [IVSH_SHM_MIN_SIZE,
 * IVSH_SHM_MAX_SIZE], -EINVAL otherwise.
 */
int ivsh_shm_check_size(uint64_t size);

/**
 * ivsh_shm_create_memfd() - create an anonymous, sealed shared memory
 * @shm: result; fd set, not mapped
 * @label: memfd name shown in /proc/PID/maps ("/memfd:LABEL"), checked
 *	like a /dev/shm name
 * @size: bytes, see ivsh_shm_check_size()
 *
 * The memory is zero-filled. The memfd is close-on-exec and sealed with
 * F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL, so no holder (a QEMU process
 * included) can truncate it under the others.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for a bad label or size, or -errno from
 * memfd_create(2), ftruncate(2) or fcntl(2).
 */
int ivsh_shm_create_memfd(struct ivsh_shm *shm, const char *label,
			  uint64_t size);

/**
 * ivsh_shm_create_file() - create (or reuse) a named /dev/shm file
 * @shm: result; fd and name set, not mapped
 * @name: file name in /dev/shm, see ivsh_shm_check_name()
 * @size: bytes, see ivsh_shm_check_size()
 * @opts: mode and owner; NULL means mode 0600, owner unchanged, no reuse
 *
 * Without IVSH_SHM_REUSE the file must not exist (O_EXCL). With it, an
 * existing file is accepted only if it is a regular file with one link,
 * owned by the effective uid (or by @opts->uid with IVSH_SHM_CHOWN), and
 * its size is exactly @size; its contents are kept, because a running VM
 * may have it mapped. A new file is zero-filled. Mode and owner are applied
 * in both cases, after the size is set.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for a bad name, size or mode, -EEXIST if the file
 * exists without IVSH_SHM_REUSE, -EPERM if an existing file is not ours,
 * -EMSGSIZE if its size differs, or -errno from the system calls.
 */
int ivsh_shm_create_file(struct ivsh_shm *shm, const char *name,
			 uint64_t size, const struct ivsh_shm_file_opts *opts);

/**
 * ivsh_shm_open_file() - open an existing /dev/shm file read-write
 * @shm: result; fd and name set, not mapped
 * @name: file name in /dev/shm, see ivsh_shm_check_name()
 * @size: expected bytes, or 0 to accept any valid size
 *
 * For the plain device under libvirt, which creates the file itself.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for a bad name or a file size that is not valid,
 * -EMSGSIZE if the size is valid but differs from @size, -EPERM if it is
 * not a regular file or has more than one link, or -errno from open(2).
 */
int ivsh_shm_open_file(struct ivsh_shm *shm, const char *name, uint64_t size);

/**
 * ivsh_shm_map() - map the whole object read-write and shared
 * @shm: an open shared memory, not yet mapped
 *
 * Context: process context, may sleep.
 * Return: 0, -EBUSY if already mapped, -EBADF if not open, or -errno
 * from mmap(2).
 */
int ivsh_shm_map(struct ivsh_shm *shm);

/**
 * ivsh_shm_unmap() - remove the mapping made by ivsh_shm_map()
 * @shm: shared memory; nothing happens if it is not mapped
 *
 * Context: process context.
 */
void ivsh_shm_unmap(struct ivsh_shm *shm);

/**
 * ivsh_shm_close() - unmap and close; the file (if named) stays
 * @shm: shared memory; safe to call twice
 *
 * Context: process context.
 */
void ivsh_shm_close(struct ivsh_shm *shm);

/**
 * ivsh_shm_unlink() - remove a file from /dev/shm
 * @name: file name, see ivsh_shm_check_name()
 *
 * Only regular files are removed. Mappings and open descriptors stay
 * valid.
 *
 * Context: process context.
 * Return: 0, -EINVAL for a bad name, -ENOENT, -EPERM for something that is
 * not a regular file, or -errno from unlinkat(2).
 */
int ivsh_shm_unlink(const char *name);

#endif /* _GR_SHM_H */
