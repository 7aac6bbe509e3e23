// SPDX-License-Identifier: GPL-2.0
/*
 * shm.c - create, open, map and remove a VM's ivshmem shared memory
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shm.h"

int ivsh_shm_check_name(const char *name)
{
	size_t i;

	if (!name || !name[0] || name[0] == '.')
		return -EINVAL;
	for (i = 0; name[i]; i++) {
		char c = name[i];

		if (i >= IVSH_SHM_NAME_MAX)
			return -EINVAL;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-')
			continue;
		return -EINVAL;
	}
	return 0;
}

int ivsh_shm_check_size(uint64_t size)
{
	if (size < IVSH_SHM_MIN_SIZE || size > IVSH_SHM_MAX_SIZE)
		return -EINVAL;
	if (size & (size - 1))
		return -EINVAL;
	return 0;
}

static void shm_reset(struct ivsh_shm *shm)
{
	memset(shm, 0, sizeof(*shm));
	shm->fd = -1;
}

int ivsh_shm_create_memfd(struct ivsh_shm *shm, const char *label,
			  uint64_t size)
{
	int fd, ret;

	shm_reset(shm);
	ret = ivsh_shm_check_name(label);
	if (ret)
		return ret;
	ret = ivsh_shm_check_size(size);
	if (ret)
		return ret;

	fd = memfd_create(label, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size))
		goto out_close;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		goto out_close;

	shm->fd = fd;
	shm->size = size;
	return 0;

out_close:
	ret = -errno;
	close(fd);
	return ret;
}

static int open_shm_dir(void)
{
	int dfd = open(IVSH_SHM_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);

	return dfd < 0 ? -errno : dfd;
}

/* apply owner, then mode (chown may clear mode bits) */
static int apply_owner_mode(int fd, const struct ivsh_shm_file_opts *opts)
{
	mode_t mode = opts && opts->mode ? opts->mode : 0600;

	if (opts && (opts->flags & IVSH_SHM_CHOWN) &&
	    fchown(fd, opts->uid, opts->gid))
		return -errno;
	if (fchmod(fd, mode))
		return -errno;
	return 0;
}

/* an existing file may be reused only if it is ours and has our size */
static int check_reuse(int fd, uint64_t size,
		       const struct ivsh_shm_file_opts *opts)
{
	uid_t owner = geteuid();
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
		return -EPERM;
	if ((opts->flags & IVSH_SHM_CHOWN) && opts->uid != (uid_t)-1)
		owner = opts->uid;
	if (st.st_uid != owner)
		return -EPERM;
	if ((uint64_t)st.st_size != size)
		return -EMSGSIZE;
	return 0;
}

int ivsh_shm_create_file(struct ivsh_shm *shm, const char *name,
			 uint64_t size, const struct ivsh_shm_file_opts *opts)
{
	bool created = false;
	int dfd, fd, ret;

	shm_reset(shm);
	ret = ivsh_shm_check_name(name);
	if (ret)
		return ret;
	ret = ivsh_shm_check_size(size);
	if (ret)
		return ret;
	if (opts && (opts->mode & ~0777))
		return -EINVAL;

	dfd = open_shm_dir();
	if (dfd < 0)
		return dfd;

	fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd >= 0) {
		created = true;
		if (ftruncate(fd, (off_t)size)) {
			ret = -errno;
			goto out_unlink;
		}
	} else if (errno == EEXIST && opts && (opts->flags & IVSH_SHM_REUSE)) {
		fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			/* ELOOP: a symbolic link was planted there */
			ret = errno == ELOOP ? -EPERM : -errno;
			goto out_dir;
		}
		ret = check_reuse(fd, size, opts);
		if (ret)
			goto out_close;
	} else {
		ret = -errno;
		goto out_dir;
	}

	ret = apply_owner_mode(fd, opts);
	if (ret)
		goto out_unlink;

	close(dfd);
	shm->fd = fd;
	shm->size = size;
	strcpy(shm->name, name);
	return 0;

out_unlink:
	if (created)
		unlinkat(dfd, name, 0);
out_close:
	close(fd);
out_dir:
	close(dfd);
	return ret;
}

int ivsh_shm_open_file(struct ivsh_shm *shm, const char *name, uint64_t size)
{
	struct stat st;
	int dfd, fd, ret;

	shm_reset(shm);
	ret = ivsh_shm_check_name(name);
	if (ret)
		return ret;
	if (size && ivsh_shm_check_size(size))
		return -EINVAL;

	dfd = open_shm_dir();
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	ret = fd < 0 ? (errno == ELOOP ? -EPERM : -errno) : 0;
	close(dfd);
	if (ret)
		return ret;

	if (fstat(fd, &st)) {
		ret = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1) {
		ret = -EPERM;
		goto out_close;
	}
	ret = ivsh_shm_check_size((uint64_t)st.st_size);
	if (ret)
		goto out_close;
	if (size && (uint64_t)st.st_size != size) {
		ret = -EMSGSIZE;
		goto out_close;
	}

	shm->fd = fd;
	shm->size = (uint64_t)st.st_size;
	strcpy(shm->name, name);
	return 0;

out_close:
	close(fd);
	return ret;
}

int ivsh_shm_map(struct ivsh_shm *shm)
{
	void *p;

	if (shm->fd < 0)
		return -EBADF;
	if (shm->addr)
		return -EBUSY;
	p = mmap(NULL, shm->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 shm->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	shm->addr = p;
	return 0;
}

void ivsh_shm_unmap(struct ivsh_shm *shm)
{
	if (!shm->addr)
		return;
	munmap(shm->addr, shm->size);
	shm->addr = NULL;
}

void ivsh_shm_close(struct ivsh_shm *shm)
{
	ivsh_shm_unmap(shm);
	if (shm->fd >= 0)
		close(shm->fd);
	shm->fd = -1;
}

int ivsh_shm_unlink(const char *name)
{
	struct stat st;
	int dfd, ret;

	ret = ivsh_shm_check_name(name);
	if (ret)
		return ret;
	dfd = open_shm_dir();
	if (dfd < 0)
		return dfd;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EPERM;
		goto out;
	}
	if (unlinkat(dfd, name, 0))
		ret = -errno;
out:
	close(dfd);
	return ret;
}
