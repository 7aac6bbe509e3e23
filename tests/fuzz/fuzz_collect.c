// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_collect.c - the collector's message decoding and writing
 * (host-agent/fleet/collect.c, `guestrelay collect`) without a NATS
 * server: each message is a natsMsg made here (natsMsg_Create(), the
 * Gr-Frame header set on it) and goes through handle() as the collector's
 * fetch loop passes it (subject, Gr-Frame, .guestrelay / metadata /
 * packet checks, reassembly of parts, writes into the store); the
 * verdicts are settled as after each batch (fsync, then ack: without a
 * subscription the acks go nowhere). The store is a directory on tmpfs
 * unique to this process, emptied before each input.
 *
 * FUZZ_COLLECT_STATS=1 prints the collector's counters after each input
 * (cumulative), to see what a seed does.
 *
 * Input: messages, each as
 *   u8  flags         bit 0: a batch ends after this message
 *   u16 subject length, subject bytes
 *   u16 Gr-Frame length, its bytes (0: no Gr-Frame header)
 *   u32 payload length, payload bytes (cut at the input's end)
 * integers little-endian, at most FUZZ_MSGS messages.
 *
 * Findings besides the sanitizers': a path collect.c opens, makes or
 * renames that is not one plain name under a directory it holds, or
 * longer than a file name may be (checked at each call), and anything in
 * the directories above the store (the store sits at <dir>/a/b/c/store:
 * a name like ".." that got through would write there; checked after
 * each input).
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static void check_name(const char *call, int dfd, const char *name)
{
	if (dfd == AT_FDCWD || !name[0] || strlen(name) > NAME_MAX ||
	    strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		FUZZ_BUG("collect.c: %s(%d, \"%.300s\"): not one file name under a directory it holds",
			 call, dfd, name);
}

static int fz_openat(int dfd, const char *name, int flags, ...)
{
	check_name("openat", dfd, name);
	return openat(dfd, name, flags, 0640);
}

static int fz_mkdirat(int dfd, const char *name, mode_t mode)
{
	check_name("mkdirat", dfd, name);
	return mkdirat(dfd, name, mode);
}

static int fz_renameat(int ofd, const char *o, int nfd, const char *n)
{
	check_name("renameat", ofd, o);
	check_name("renameat", nfd, n);
	return renameat(ofd, o, nfd, n);
}

static int fz_faccessat(int dfd, const char *name, int mode, int flags)
{
	check_name("faccessat", dfd, name);
	return faccessat(dfd, name, mode, flags);
}

#define openat fz_openat
#define mkdirat fz_mkdirat
#define renameat fz_renameat
#define faccessat fz_faccessat
#include "collect.c"
#undef openat
#undef mkdirat
#undef renameat
#undef faccessat

#define FUZZ_MSGS	64

static char top[64], store[96];
static const char *const chain[] = { "a", "b", "c", "store" };

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(p) : unlink(p)) && errno != ENOENT)
		FUZZ_BUG("cannot remove %s: %m", p);
	return 0;
}

static void rm_tree(const char *p)
{
	nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void at_exit(void)
{
	rm_tree(top);
}

/* <top>/a/b/c/store, again each time: a clean-up beside us may remove it */
static void make_store(void)
{
	char p[96];
	size_t i;

	snprintf(p, sizeof(p), "%s", top);
	if (mkdir(p, 0755) && errno != EEXIST)
		FUZZ_BUG("cannot create %s: %m", p);
	for (i = 0; i < sizeof(chain) / sizeof(chain[0]); i++) {
		size_t n = strlen(p);

		snprintf(p + n, sizeof(p) - n, "/%s", chain[i]);
		if (mkdir(p, 0755) && errno != EEXIST)
			FUZZ_BUG("cannot create %s: %m", p);
	}
}

/* each directory above the store holds the next one only */
static void check_above(void)
{
	char p[96];
	size_t i;

	snprintf(p, sizeof(p), "%s", top);
	for (i = 0; i < sizeof(chain) / sizeof(chain[0]); i++) {
		DIR *d = opendir(p);
		struct dirent *e;
		size_t n;

		if (!d)
			FUZZ_BUG("%s is gone: %m", p);
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			    strcmp(e->d_name, chain[i]))
				FUZZ_BUG("collect.c wrote %s/%s, outside its store",
					 p, e->d_name);
		closedir(d);
		n = strlen(p);
		snprintf(p + n, sizeof(p) - n, "/%s", chain[i]);
	}
}

/* what collect_main() sets up, on an empty store */
static void col_open(void)
{
	make_store();
	snprintf(col.dir, sizeof(col.dir), "%s", store);
	snprintf(col.stream, sizeof(col.stream), "%s", GR_SHIP_DEFAULT_STREAM);
	col.dfd = open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (col.dfd < 0 || mkdirat(col.dfd, ".collect", 0750) ||
	    mkdirat(col.dfd, ".collect/gen", 0750))
		FUZZ_BUG("cannot set up %s: %m", store);
	col.gen_fd = openat(col.dfd, ".collect/gen", O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
	if (col.gen_fd < 0)
		FUZZ_BUG("cannot open %s/.collect/gen: %m", store);
	jsOptions_Init(&col.jo);
}

/* the sessions it knows, the store: gone (the counters stay) */
static void col_close(void)
{
	struct col_sess *s;

	while ((s = col.sessions)) {
		col.sessions = s->next;
		col_sess_free(s);
	}
	close(col.gen_fd);
	close(col.dfd);
	rm_tree(store);
}

static int take_part(const uint8_t **d, size_t *left, size_t lenbytes,
		     const uint8_t **p, size_t *n)
{
	uint8_t b[4] = { 0 };
	uint32_t v;

	if (fuzz_take(d, left, b, lenbytes))
		return -1;
	v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
	*n = v <= *left ? v : *left;
	*p = *d;
	*d += *n;
	*left -= *n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char subj[GR_SUBJ_MAX * 4], frame[256];
	const uint8_t *sp, *fp, *pp;
	size_t sn, fn, pn;
	unsigned int k;
	uint8_t flags;

	if (!top[0]) {
		snprintf(top, sizeof(top), "/dev/shm/fuzz_collect.%d",
			 (int)getpid());
		snprintf(store, sizeof(store), "%s/a/b/c/store", top);
		rm_tree(top);
		atexit(at_exit);
	}
	col_open();
	for (k = 0; k < FUZZ_MSGS; k++) {
		natsMsg *m = NULL;

		if (fuzz_take(&data, &size, &flags, 1) ||
		    take_part(&data, &size, 2, &sp, &sn) ||
		    take_part(&data, &size, 2, &fp, &fn) ||
		    take_part(&data, &size, 4, &pp, &pn))
			break;
		if (sn >= sizeof(subj) || fn >= sizeof(frame))
			continue;
		memcpy(subj, sp, sn);
		subj[sn] = '\0';
		memcpy(frame, fp, fn);
		frame[fn] = '\0';
		/* no empty subject on the wire: natsMsg_Create() refuses it */
		if (natsMsg_Create(&m, subj, NULL, (const char *)pp,
				   (int)pn) != NATS_OK)
			continue;
		if (fn && natsMsgHeader_Set(m, "Gr-Frame", frame) != NATS_OK) {
			natsMsg_Destroy(m);
			continue;
		}
		/* as collect_main() takes each message of a fetch */
		take(m);
		if (flags & 1)
			batch_end(false);
	}
	batch_end(true);
	if (getenv("FUZZ_COLLECT_STATS"))	/* to see what a seed does */
		fprintf(stderr, "fuzz_collect: received %" PRIu64 " packets %" PRIu64 " versions %" PRIu64 " duplicates %" PRIu64 " rejected %" PRIu64 " waits %" PRIu64 "\n",
			col.received, col.packets, col.versions,
			col.duplicates, col.rejected, col.waits);
	check_above();
	col_close();
	return 0;
}
