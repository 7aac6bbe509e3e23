// SPDX-License-Identifier: GPL-2.0
/*
 * store.c - where traces live: <store>/<vm>/<session>/
 *
 * Every path below the store is opened relative to a directory fd with
 * O_NOFOLLOW, from names the agent made or validated itself (VM names
 * pass ivsh_shm_check_name(); session names are timestamps; stream files
 * are "stream_<ring>", their indexes index/stream_<ring>.idx), so
 * nothing a guest publishes ever becomes a path.
 * Directories are 0750, files 0640.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chunk.h"
#include "index.h"
#include "shm.h"
#include "store.h"

static int mkdir_p(const char *dir)
{
	char buf[PATH_MAX];
	size_t len = strlen(dir);
	char *p;

	if (len == 0 || len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, dir, len + 1);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0750) && errno != EEXIST)
		return -errno;
	return 0;
}

/**
 * store_open() - create (if needed) and open the store directory
 * @dir: absolute path
 * @fdp: receives an O_DIRECTORY descriptor
 *
 * Return: 0 or -errno.
 */
int store_open(const char *dir, int *fdp)
{
	int ret = mkdir_p(dir), fd;

	if (ret)
		return ret;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*fdp = fd;
	return 0;
}

static int open_subdir(int parent, const char *name, int *fdp)
{
	int fd;

	if (mkdirat(parent, name, 0750) && errno != EEXIST)
		return -errno;
	fd = openat(parent, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*fdp = fd;
	return 0;
}

/**
 * store_vm_dir() - the directory of one VM's sessions
 * @store_fd: the store
 * @vm: a validated VM name
 * @fdp: receives the directory
 *
 * Return: 0, -EINVAL for a bad name, or -errno.
 */
int store_vm_dir(int store_fd, const char *vm, int *fdp)
{
	if (ivsh_shm_check_name(vm))
		return -EINVAL;
	return open_subdir(store_fd, vm, fdp);
}

/**
 * store_new_session() - a new, empty session directory
 * @vm_fd: the VM's directory
 * @prefix: "" for a recording, "snapshot-" for a snapshot
 * @name: receives the directory name (UTC time, made unique)
 * @len: size of @name
 * @fdp: receives the directory
 *
 * Return: 0 or -errno.
 */
int store_new_session(int vm_fd, const char *prefix, char *name, size_t len,
		      int *fdp)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];
	unsigned int i;
	int fd;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (i = 0; i < 1000; i++) {
		if (i == 0)
			snprintf(name, len, "%s%s", prefix, stamp);
		else
			snprintf(name, len, "%s%s-%u", prefix, stamp, i);
		if (mkdirat(vm_fd, name, 0750) == 0)
			break;
		if (errno != EEXIST)
			return -errno;
	}
	if (i == 1000)
		return -EEXIST;
	fd = openat(vm_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*fdp = fd;
	return 0;
}

/*
 * A stream of @dirfd's entries from the start, on a descriptor of its
 * own (@dirfd stays open and usable): closedir() it.
 */
static int read_dir(int dirfd, DIR **dp)
{
	int fd = dup(dirfd);

	if (fd < 0)
		return -errno;
	*dp = fdopendir(fd);
	if (!*dp) {
		close(fd);
		return -errno;
	}
	rewinddir(*dp);
	return 0;
}

/**
 * store_last_session() - the newest recording session of a VM
 * @vm_fd: the VM's directory
 * @name: receives its name
 * @len: size of @name
 *
 * Session names are UTC timestamps, so the greatest name is the newest.
 *
 * Return: 0, -ENOENT if there is none, or -errno.
 */
int store_last_session(int vm_fd, char *name, size_t len)
{
	struct dirent *de;
	DIR *d;
	int ret;

	ret = read_dir(vm_fd, &d);
	if (ret)
		return ret;
	name[0] = '\0';
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;	/* ".", "..", "snapshot-..." */
		if (strlen(de->d_name) < len && strcmp(de->d_name, name) > 0)
			snprintf(name, len, "%s", de->d_name);
	}
	closedir(d);
	return name[0] ? 0 : -ENOENT;
}

/**
 * store_open_stream() - a ring's stream file in a session
 * @session_fd: the session directory
 * @ring: ring index
 * @append: keep what the file holds (resume); else it must be new
 * @fdp: receives a write descriptor
 * @size: receives the current size
 *
 * Return: 0 or -errno.
 */
int store_open_stream(int session_fd, unsigned int ring, bool append,
		      int *fdp, uint64_t *size)
{
	char name[32];
	struct stat st;
	int fd;

	snprintf(name, sizeof(name), "stream_%u", ring);
	fd = openat(session_fd, name,
		    O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
		    (append ? 0 : O_EXCL), 0640);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	*fdp = fd;
	*size = (uint64_t)st.st_size;
	return 0;
}

/**
 * store_usage() - bytes held by a VM's sessions
 * @vm_fd: the VM's directory
 * @bytes: receives the sum of the sizes of the files in its sessions
 *
 * Return: 0 or -errno.
 */
int store_usage(int vm_fd, uint64_t *bytes)
{
	struct dirent *de, *fe;
	struct stat st;
	uint64_t sum = 0;
	DIR *d;
	int ret;

	ret = read_dir(vm_fd, &d);
	if (ret)
		return ret;
	while ((de = readdir(d))) {
		int sfd;
		DIR *s;

		if (de->d_name[0] == '.')
			continue;
		sfd = openat(vm_fd, de->d_name, O_RDONLY | O_DIRECTORY |
			     O_NOFOLLOW | O_CLOEXEC);
		if (sfd < 0)
			continue;
		s = fdopendir(sfd);
		if (!s) {
			close(sfd);
			continue;
		}
		while ((fe = readdir(s))) {
			if (fstatat(sfd, fe->d_name, &st, AT_SYMLINK_NOFOLLOW))
				continue;
			if (S_ISREG(st.st_mode))
				sum += (uint64_t)st.st_size;
			else if (S_ISDIR(st.st_mode) && fe->d_name[0] != '.')
				/*
				 * index/, channels/, host/, BEGIN-ID/ and
				 * archives/BEGIN-END-ID/ with their chunk trees
				 */
				sum += chunk_tree_bytes(sfd, fe->d_name,
							GR_CHUNK_TREE_DEPTH + 1);
		}
		closedir(s);
	}
	closedir(d);
	*bytes = sum;
	return 0;
}
