// SPDX-License-Identifier: GPL-2.0
/*
 * chunk.c - the directories of a session kept in chunks (chunk.h):
 * named, found, closed into archives/, listed and removed
 *
 * A chunk is written in <session>/BEGIN-ID/ and, once closed, renamed
 * whole into <session>/archives/BEGIN-END-ID/, as lttng-tools does: a
 * reader of archives/ never sees a chunk being written, and one rename
 * is the whole close, so an agent killed at any moment leaves either the
 * active directory (resumed or closed on restart) or the archived one.
 * Every path is opened relative to a directory descriptor with
 * O_NOFOLLOW, from names this file made or parsed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chunk.h"
#include "hoststream.h"

#define STAMP_LEN	20	/* YYYYmmddTHHMMSS+0000 */
#define STAGING		GR_CHUNK_ARCHIVES "/.root"	/* chunk_adopt_root() */
#define STALE_MAX	64	/* active directories closed in one pass */
#define ROOT_MAX	(GR_CHUNK_MAX_RINGS + 8)	/* files of a session */

static bool digits(const char *p, unsigned int n)
{
	while (n--)
		if (*p < '0' || *p++ > '9')
			return false;
	return true;
}

/* "YYYYmmddTHHMMSS+HHMM" at @p, its time into *@t */
static bool stamp_parse(const char *p, time_t *t)
{
	struct tm tm = { 0 };

	if (!digits(p, 8) || p[8] != 'T' || !digits(p + 9, 6) ||
	    (p[15] != '+' && p[15] != '-') || !digits(p + 16, 4))
		return false;
	if (t) {
		sscanf(p, "%4d%2d%2dT%2d%2d%2d", &tm.tm_year, &tm.tm_mon,
		       &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec);
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		*t = timegm(&tm);
	}
	return true;
}

static void stamp(time_t t, char out[STAMP_LEN + 1])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, STAMP_LEN + 1, "%Y%m%dT%H%M%S+0000", &tm);
}

/**
 * chunk_parse() - is @name a chunk directory's name
 * @name: a directory entry
 * @closed: BEGIN-END-ID (archived) if true, BEGIN-ID (active) if false
 * @id: receives its ID, or NULL
 * @begin: receives BEGIN, or NULL
 *
 * Return: true if @name has that form.
 */
bool chunk_parse(const char *name, bool closed, uint64_t *id, time_t *begin)
{
	const char *p = name;
	uint64_t v = 0;
	size_t n;

	if (strlen(name) < STAMP_LEN + 2 || !stamp_parse(p, begin) ||
	    p[STAMP_LEN] != '-')
		return false;
	p += STAMP_LEN + 1;
	if (closed) {
		if (strlen(p) < STAMP_LEN + 2 || !stamp_parse(p, NULL) ||
		    p[STAMP_LEN] != '-')
			return false;
		p += STAMP_LEN + 1;
	}
	n = strlen(p);
	if (!n || n > 18 || !digits(p, (unsigned int)n))
		return false;
	while (*p)
		v = v * 10 + (uint64_t)(*p++ - '0');
	if (id)
		*id = v;
	return true;
}

/**
 * chunk_create() - the directory of a new active chunk
 * @sess_fd: the session
 * @begin: its BEGIN
 * @id: its ID
 * @name: receives BEGIN-ID
 * @len: size of @name
 * @fdp: receives the directory, opened
 *
 * Return: 0 or -errno.
 */
int chunk_create(int sess_fd, time_t begin, uint64_t id, char *name,
		 size_t len, int *fdp)
{
	char b[STAMP_LEN + 1];
	int fd;

	stamp(begin, b);
	if (snprintf(name, len, "%s-%llu", b, (unsigned long long)id) >=
	    (int)len)
		return -ENAMETOOLONG;
	if (mkdirat(sess_fd, name, 0750) && errno != EEXIST)
		return -errno;
	fd = openat(sess_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*fdp = fd;
	return 0;
}

/* does chunk directory @name of @sess_fd hold its .guestrelay */
static bool chunk_whole(int sess_fd, const char *name)
{
	char path[GR_CHUNK_NAME_MAX + sizeof(GR_CHUNK_INFO) + 1];

	if (strlen(name) >= GR_CHUNK_NAME_MAX)
		return false;
	snprintf(path, sizeof(path), "%.63s/%s", name, GR_CHUNK_INFO);
	return !faccessat(sess_fd, path, F_OK, AT_SYMLINK_NOFOLLOW);
}

static int open_dir(int parent, const char *name, DIR **dp)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*dp = fdopendir(fd);
	if (!*dp) {
		close(fd);
		return -errno;
	}
	return 0;
}

/**
 * chunk_find_active() - the active chunk of a session (after a restart)
 * @sess_fd: the session
 * @name: receives its directory name
 * @len: size of @name
 * @id: receives its ID
 *
 * The active chunk with the highest ID that holds its .guestrelay; a
 * rotation killed half way can leave an older one (chunk_close_stale()).
 *
 * Return: 0, or -ENOENT if the session has none.
 */
int chunk_find_active(int sess_fd, char *name, size_t len, uint64_t *id)
{
	struct dirent *de;
	bool found = false;
	uint64_t v;
	DIR *d;
	int ret;

	ret = open_dir(sess_fd, ".", &d);
	if (ret)
		return ret;
	while ((de = readdir(d))) {
		if (!chunk_parse(de->d_name, false, &v, NULL) ||
		    strlen(de->d_name) >= len ||
		    (found && v <= *id) || !chunk_whole(sess_fd, de->d_name))
			continue;
		found = true;
		*id = v;
		strcpy(name, de->d_name);
	}
	closedir(d);
	return found ? 0 : -ENOENT;
}

/**
 * chunk_archive() - close an active chunk: rename it into archives/
 * @sess_fd: the session
 * @name: the chunk's directory, BEGIN-ID
 * @end: its END (not before BEGIN)
 * @out: receives "archives/BEGIN-END-ID", or NULL
 * @len: size of @out
 *
 * Return: 0 or -errno.
 */
int chunk_archive(int sess_fd, const char *name, time_t end, char *out,
		  size_t len)
{
	char e[STAMP_LEN + 1], to[sizeof(GR_CHUNK_ARCHIVES) + 2 * STAMP_LEN + 24];
	time_t begin;
	uint64_t id;

	if (!chunk_parse(name, false, &id, &begin))
		return -EINVAL;
	stamp(end < begin ? begin : end, e);
	snprintf(to, sizeof(to), "%s/%.*s-%s-%llu", GR_CHUNK_ARCHIVES,
		 STAMP_LEN, name, e, (unsigned long long)id);
	if (mkdirat(sess_fd, GR_CHUNK_ARCHIVES, 0750) && errno != EEXIST)
		return -errno;
	if (renameat(sess_fd, name, sess_fd, to))
		return -errno;
	if (out)
		snprintf(out, len, "%s", to);
	return 0;
}

/**
 * chunk_close_stale() - close every active chunk but @keep (a restart
 * after a rotation that was killed half way)
 * @sess_fd: the session
 * @keep: the chunk that goes on, or NULL to close them all
 * @end: END of those archived
 *
 * A chunk with its .guestrelay is archived; one without it never got a
 * stream file (they are opened after it is written) and is removed.
 *
 * Return: number of chunks archived, or -errno.
 */
int chunk_close_stale(int sess_fd, const char *keep, time_t end)
{
	char names[STALE_MAX][GR_CHUNK_NAME_MAX];
	unsigned int n = 0, i;
	struct dirent *de;
	int ret, done = 0;
	DIR *d;

	ret = open_dir(sess_fd, ".", &d);
	if (ret)
		return ret;
	while ((de = readdir(d)) && n < STALE_MAX)
		if (chunk_parse(de->d_name, false, NULL, NULL) &&
		    strlen(de->d_name) < GR_CHUNK_NAME_MAX &&
		    (!keep || strcmp(de->d_name, keep)))
			strcpy(names[n++], de->d_name);
	closedir(d);
	for (i = 0; i < n; i++) {
		bool whole = chunk_whole(sess_fd, names[i]);

		ret = whole ? chunk_archive(sess_fd, names[i], end, NULL, 0) :
		      chunk_remove(sess_fd, names[i]);
		if (ret)
			return ret;
		done += whole;
	}
	return done;
}

/* a file of a session kept in one directory (store.c, session.c) */
static bool root_file(const char *name)
{
	return !strcmp(name, "metadata") || !strcmp(name, "index") ||
	       !strncmp(name, "stream_", 7) || !strcmp(name, GR_CHUNK_INFO) ||
	       !strcmp(name, "channels") || !strcmp(name, GR_HS_DIR);
}

/**
 * chunk_adopt_root() - the files of a session written in one directory
 * become its chunk 0 (the first rotation of such a session, as LTTng
 * archives a session's first chunk)
 * @sess_fd: the session; its streams are no longer written there
 * @begin: the session's start
 * @end: END of the chunk
 * @out: receives "archives/BEGIN-END-0"
 * @len: size of @out
 *
 * The files (and the directories of the client channels and of the host
 * stream) move into
 * archives/.root (.guestrelay last), which is then
 * renamed archives/BEGIN-END-0. A call after a crash half way finishes
 * the move; with nothing to move it does nothing.
 *
 * Return: 1 if a chunk was archived, 0 if nothing was to move, -errno.
 */
int chunk_adopt_root(int sess_fd, time_t begin, time_t end, char *out,
		     size_t len)
{
	static char names[ROOT_MAX][32];	/* the loop's thread only */
	char path[sizeof(STAGING) + 40];
	char b[STAMP_LEN + 1], e[STAMP_LEN + 1];
	unsigned int n = 0, i, pass;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret;

	ret = open_dir(sess_fd, ".", &d);
	if (ret)
		return ret;
	while ((de = readdir(d)) && n < ROOT_MAX)
		if (root_file(de->d_name) && strlen(de->d_name) < 32)
			strcpy(names[n++], de->d_name);
	closedir(d);
	if (!n && fstatat(sess_fd, STAGING, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (mkdirat(sess_fd, GR_CHUNK_ARCHIVES, 0750) && errno != EEXIST)
		return -errno;
	if (mkdirat(sess_fd, STAGING, 0750) && errno != EEXIST)
		return -errno;
	/* .guestrelay last: a reader of the staging sees a whole chunk */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			if ((pass == 0) == !strcmp(names[i], GR_CHUNK_INFO))
				continue;
			snprintf(path, sizeof(path), "%s/%.31s", STAGING,
				 names[i]);
			if (renameat(sess_fd, names[i], sess_fd, path))
				return -errno;
		}
	stamp(begin, b);
	stamp(end < begin ? begin : end, e);
	snprintf(path, sizeof(path), "%s/%s-%s-0", GR_CHUNK_ARCHIVES, b, e);
	if (renameat(sess_fd, STAGING, sess_fd, path))
		return -errno;
	snprintf(out, len, "%s", path);
	return 1;
}

/**
 * chunk_session_begin() - the start of a session from its name
 * @name: "[prefix]YYYYmmddTHHMMSSZ[-N]" (store_new_session())
 * @t: receives it
 *
 * Return: true if @name holds such a stamp.
 */
bool chunk_session_begin(const char *name, time_t *t)
{
	char buf[STAMP_LEN + 1];
	const char *p;

	for (p = name; strlen(p) >= 16; p++)
		if (digits(p, 8) && p[8] == 'T' && digits(p + 9, 6) &&
		    p[15] == 'Z') {
			snprintf(buf, sizeof(buf), "%.15s+0000", p);
			return stamp_parse(buf, t);
		}
	return false;
}

/* unlink what directory @fd holds, @depth levels of directories down */
static int remove_tree(int fd, unsigned int depth)
{
	struct dirent *de;
	struct stat st;
	int ret = 0;
	DIR *d;

	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISDIR(st.st_mode) && depth) {
			int sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY |
					 O_NOFOLLOW | O_CLOEXEC);

			if (sub < 0 || remove_tree(sub, depth - 1) ||
			    unlinkat(fd, de->d_name, AT_REMOVEDIR))
				ret = -EIO;
		} else if (unlinkat(fd, de->d_name, 0)) {
			ret = -errno;
		}
	}
	closedir(d);
	return ret;
}

/**
 * chunk_remove() - delete a chunk directory and what it holds
 * @parent_fd: the directory holding it (a session's archives/)
 * @name: its name
 *
 * Return: 0 or -errno.
 */
int chunk_remove(int parent_fd, const char *name)
{
	int fd, ret;

	fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* the chunk, its index/ and channels/<name>/ */
	ret = remove_tree(fd, GR_CHUNK_TREE_DEPTH);
	if (!ret && unlinkat(parent_fd, name, AT_REMOVEDIR))
		ret = -errno;
	return ret;
}

/**
 * chunk_tree_bytes() - the bytes of the regular files under a directory
 * @parent_fd: the directory holding it
 * @name: its name
 * @depth: levels of subdirectories counted
 *
 * Return: the sum (0 if it cannot be read).
 */
uint64_t chunk_tree_bytes(int parent_fd, const char *name, unsigned int depth)
{
	struct dirent *de;
	struct stat st;
	uint64_t sum = 0;
	int fd;
	DIR *d;

	if (open_dir(parent_fd, name, &d))
		return 0;
	fd = dirfd(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISREG(st.st_mode))
			sum += (uint64_t)st.st_size;
		else if (S_ISDIR(st.st_mode) && depth)
			sum += chunk_tree_bytes(fd, de->d_name, depth - 1);
	}
	closedir(d);
	return sum;
}

static int ref_cmp(const void *a, const void *b)
{
	const struct gr_chunk_ref *x = a, *y = b;
	int c = strcmp(x->session, y->session);

	if (c)
		return c;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* append the closed chunks of <sess_fd>/archives to *@refs */
static int add_closed(int sess_fd, bool bytes, struct gr_chunk_ref **refs,
		      size_t *n, size_t *cap)
{
	struct gr_chunk_ref *r;
	struct dirent *de;
	uint64_t id;
	DIR *d;

	if (open_dir(sess_fd, GR_CHUNK_ARCHIVES, &d))
		return 0;	/* not kept in chunks */
	while ((de = readdir(d))) {
		if (!chunk_parse(de->d_name, true, &id, NULL) ||
		    strlen(de->d_name) >= GR_CHUNK_NAME_MAX)
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			r = realloc(*refs, *cap * sizeof(*r));
			if (!r) {
				closedir(d);
				return -ENOMEM;
			}
			*refs = r;
		}
		r = &(*refs)[(*n)++];
		r->session[0] = '\0';
		strcpy(r->name, de->d_name);
		r->id = id;
		r->bytes = bytes ? chunk_tree_bytes(dirfd(d), de->d_name,
						    GR_CHUNK_TREE_DEPTH) : 0;
	}
	closedir(d);
	return 0;
}

static int add_session(int vm_fd, const char *session,
		       struct gr_chunk_ref **refs, size_t *n, size_t *cap)
{
	int fd = openat(vm_fd, session, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			O_CLOEXEC);
	size_t i = *n;
	int ret;

	if (fd < 0)
		return 0;
	ret = add_closed(fd, true, refs, n, cap);
	close(fd);
	for (; i < *n; i++)
		snprintf((*refs)[i].session, sizeof((*refs)[i].session), "%s",
			 session);
	return ret;
}

/* the end of a listing: sorted, or freed after error @ret */
static int sort_refs(int ret, struct gr_chunk_ref **refs, size_t *n)
{
	if (ret) {
		free(*refs);
		*refs = NULL;
		*n = 0;
		return ret;
	}
	if (*n)
		qsort(*refs, *n, sizeof(**refs), ref_cmp);
	return 0;
}

/**
 * chunk_list_closed() - the closed chunks of one session, by ID
 * @sess_fd: the session's directory
 * @bytes: also sum each chunk's bytes (a stat per file)
 * @refs: receives an array the caller frees (NULL if none); @session
 *	is left empty
 * @n: receives its length
 *
 * Return: 0 or -ENOMEM.
 */
int chunk_list_closed(int sess_fd, bool bytes, struct gr_chunk_ref **refs,
		      size_t *n)
{
	size_t cap = 0;
	int ret;

	*refs = NULL;
	*n = 0;
	ret = add_closed(sess_fd, bytes, refs, n, &cap);
	return sort_refs(ret, refs, n);
}

/**
 * chunk_list() - every closed chunk of a VM, oldest first
 * @vm_fd: the VM's directory
 * @refs: receives an array the caller frees (NULL if none)
 * @n: receives its length
 *
 * Oldest first: by session (named by its UTC start), then by ID.
 *
 * Return: 0 or -errno.
 */
int chunk_list(int vm_fd, struct gr_chunk_ref **refs, size_t *n)
{
	struct dirent *de;
	size_t cap = 0;
	int ret = 0;
	DIR *d;

	*refs = NULL;
	*n = 0;
	ret = open_dir(vm_fd, ".", &d);
	if (ret)
		return ret;
	while (!ret && (de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    strlen(de->d_name) < sizeof((*refs)->session))
			ret = add_session(vm_fd, de->d_name, refs, n, &cap);
	closedir(d);
	return sort_refs(ret, refs, n);
}
