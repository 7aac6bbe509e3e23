// SPDX-License-Identifier: GPL-2.0
/*
 * report_follow.c - `guestrelay report --follow VM`: a VM's recording
 * printed as it is stored, like `tail -f`
 *
 * The follower reads what the live server (live/) serves: the stored
 * packets that a stream's index file lists (index.c appends an entry
 * only once the packet and every packet before it are whole on disk).
 * Each session is read by reader.c and printed by report.c exactly as
 * `guestrelay report` prints it: a cursor per ring is limited to the
 * packets its index lists (gr_cursor_limit()) and the limit is raised
 * as entries come. The caller says, when asked, which session directory
 * is the VM's current one; when that changes, the old session is read
 * to the end of its files (they are final) and the new one is followed
 * from its first packet, its preamble first. So the output is, session
 * after session, what `guestrelay report` prints of each once it ended.
 * A session kept in chunks is followed chunk after chunk: the caller
 * names the chunk being written; the closed chunks before it not printed
 * yet (all of a session's, when it is first seen; those closed between
 * two asks) are printed whole from archives/, so the output is, chunk
 * after chunk, what `guestrelay report` prints of each.
 *
 * The rings are merged in time order. An item is printed once no ring
 * can still store an earlier one: a ring with an item waiting bounds
 * itself by that item; a ring that has nothing waiting is bounded by the
 * end of its last indexed packet (its next packet begins after it) or,
 * if later, by the live server's beacon for a quiet stream: the newest
 * packet end of the session less twice the switch timer and 1 s
 * (gr_index_quiet_back(), the one rule of both). Without a switch timer
 * a quiet ring holds the output back until it stores a packet or the
 * session ends, as it holds back a live viewer.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chunk.h"
#include "ctf_info.h"
#include "index.h"
#include "reader.h"
#include "report.h"
#include "report_int.h"

/* asks before a session that does not open is said so and skipped */
#define FOLLOW_OPEN_TRIES	20
#define FOLLOW_ENTRIES		64	/* index entries read at once */

/* a ring's index file, as far as it was read */
struct fring {
	int idx_fd;		/* index/stream_<ring>.idx, -1 if not open */
	bool bad;		/* unusable: the ring is read at the end */
	uint64_t entries;	/* entries read */
	uint64_t end;		/* end of the last entry's packet */
	uint64_t ts_end;	/* its timestamp_end */
};

/* the session being followed */
struct follow {
	char dir[PATH_MAX];	/* "" if none */
	bool open;
	bool skipped;		/* did not open: waiting for another */
	unsigned int tries;
	struct gr_reader r;
	struct gr_report_ctx x;
	struct fring *ring;
	uint32_t timer_us;
	struct timespec info_mtime;	/* of .guestrelay, for its clock */
	ino_t info_ino;
};

/* read the ring's new index entries and raise its cursor's limit */
static void ring_poll(struct follow *f, unsigned int i)
{
	struct gr_index_entry raw[FOLLOW_ENTRIES], e;
	struct fring *fr = &f->ring[i];
	struct gr_index_file_hdr h;
	char name[64];
	struct stat st;
	uint64_t n, k, j;
	ssize_t got;

	if (fr->bad || f->r.cur[i].fd < 0)
		return;
	if (fr->idx_fd < 0) {
		snprintf(name, sizeof(name), GR_INDEX_DIR "/stream_%u.idx", i);
		fr->idx_fd = openat(f->r.dirfd, name,
				    O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fr->idx_fd < 0) {
			fr->bad = errno != ENOENT;
			return;
		}
		if (pread(fr->idx_fd, &h, sizeof(h), 0) != sizeof(h) ||
		    be32toh(h.magic) != GR_INDEX_MAGIC ||
		    be32toh(h.index_major) != GR_INDEX_MAJOR ||
		    be32toh(h.packet_index_len) != sizeof(raw[0])) {
			fr->bad = true;
			return;
		}
	}
	if (fstat(fr->idx_fd, &st) || (uint64_t)st.st_size < sizeof(h))
		return;
	n = ((uint64_t)st.st_size - sizeof(h)) / sizeof(raw[0]);
	while (fr->entries < n) {
		k = n - fr->entries < FOLLOW_ENTRIES ? n - fr->entries :
		    FOLLOW_ENTRIES;
		got = pread(fr->idx_fd, raw, k * sizeof(raw[0]),
			    (off_t)(sizeof(h) + fr->entries * sizeof(raw[0])));
		if (got <= 0)
			break;
		k = (uint64_t)got / sizeof(raw[0]);
		for (j = 0; j < k; j++) {
			/* one packet after the other from the file's start */
			if (!gr_index_entry_get(&raw[j], &e) ||
			    e.offset != fr->end) {
				fr->bad = true;
				return;
			}
			fr->end = e.offset + e.packet_size / 8;
			if (e.timestamp_end > fr->ts_end)
				fr->ts_end = e.timestamp_end;
		}
		fr->entries += k;
	}
	gr_cursor_limit(&f->r.cur[i], fr->end);
}

/* the clock of a rewritten .guestrelay (a clock sync refined it) */
static void info_poll(struct follow *f)
{
	struct gr_ctf_info *info;
	const char *why;
	struct stat st;

	if (fstatat(f->r.dirfd, GR_CTF_INFO, &st, AT_SYMLINK_NOFOLLOW) ||
	    (st.st_ino == f->info_ino &&
	     st.st_mtim.tv_sec == f->info_mtime.tv_sec &&
	     st.st_mtim.tv_nsec == f->info_mtime.tv_nsec))
		return;
	info = malloc(sizeof(*info));
	if (info && !gr_ctf_read_info(f->r.dirfd, info, &why) &&
	    !memcmp(info->trace_uuid, f->r.info->trace_uuid,
		    sizeof(info->trace_uuid))) {
		f->r.info->clock = info->clock;
		f->info_ino = st.st_ino;
		f->info_mtime = st.st_mtim;
	}
	free(info);
}

/* (ts, ring) of @a before (ts, ring) of @b */
static bool before(uint64_t ats, unsigned int aring, uint64_t bts,
		   unsigned int bring)
{
	return ats != bts ? ats < bts : aring < bring;
}

/*
 * Print every item no ring can precede any more; @final: the session
 * ended, its files are whole: everything.
 */
static void follow_print(struct follow *f, FILE *out, bool final)
{
	struct gr_reader *r = &f->r;
	uint64_t newest = 0, back, bts, lim;
	unsigned int i, bring;
	struct gr_cursor *c, *h;
	struct stat st;

	for (i = 0; i < r->nr_cur; i++) {
		c = &r->cur[i];
		if (final) {
			if (c->fd >= 0 && !fstat(c->fd, &st))
				gr_cursor_limit(c, (uint64_t)st.st_size);
		} else {
			ring_poll(f, i);
		}
		if (!f->ring[i].bad && f->ring[i].ts_end > newest)
			newest = f->ring[i].ts_end;
		if (c->kind == GR_ITEM_NONE)
			gr_cursor_advance(r, c);
	}
	back = gr_index_quiet_back(f->timer_us, r->info->view.clock_freq);
	for (;;) {
		h = NULL;
		bts = UINT64_MAX;
		bring = UINT32_MAX;
		for (i = 0; i < r->nr_cur; i++) {
			c = &r->cur[i];
			if (c->kind != GR_ITEM_NONE) {
				if (!h || before(c->ts, c->ring, h->ts, h->ring))
					h = c;
				continue;
			}
			/* at its limit: what may it store next? */
			if (final || c->fd < 0)
				continue;
			lim = f->ring[i].bad ? 0 : f->ring[i].ts_end;
			if (back && newest > back && newest - back > lim)
				lim = newest - back;
			if (before(lim, i, bts, bring)) {
				bts = lim;
				bring = i;
			}
		}
		if (!h || !before(h->ts, h->ring, bts, bring))
			return;
		gr_report_item(out, r, h, &f->x);
		gr_cursor_advance(r, h);
	}
}

/* end following f->dir; @drain: print the rest of its files first */
static void follow_close(struct follow *f, FILE *out, bool drain)
{
	unsigned int i;

	if (f->open) {
		if (drain)
			follow_print(f, out, true);
		for (i = 0; i < f->r.nr_cur; i++)
			if (f->ring[i].idx_fd >= 0)
				close(f->ring[i].idx_fd);
		free(f->ring);
		f->ring = NULL;
		gr_reader_close(&f->r);
		f->open = false;
	}
	f->dir[0] = '\0';
	f->skipped = false;
	f->tries = 0;
}

/*
 * Open the session f->dir and print its preamble. Return: 0 (open, or
 * not yet: tried again at the next ask), -EINVAL (--events names no
 * event of it: said on @err).
 */
static int follow_open(struct follow *f, FILE *out, FILE *err,
		       const struct gr_report_opts *opts)
{
	FILE *quiet = f->tries + 1 < FOLLOW_OPEN_TRIES ? NULL : err;
	struct stat st;
	unsigned int i;
	int ret;

	if (!quiet)
		quiet = fopen("/dev/null", "w");
	ret = gr_reader_open(&f->r, f->dir, quiet ? quiet : err, 0);
	if (quiet && quiet != err)
		fclose(quiet);
	if (ret) {
		/* a session being set up, or not a trace: said once */
		if (++f->tries >= FOLLOW_OPEN_TRIES)
			f->skipped = true;
		return ret == -ENOMEM ? ret : 0;
	}
	f->ring = calloc(f->r.nr_cur ? f->r.nr_cur : 1, sizeof(*f->ring));
	if (!f->ring) {
		gr_reader_close(&f->r);
		fprintf(err, "error: out of memory\n");
		return -ENOMEM;
	}
	for (i = 0; i < f->r.nr_cur; i++) {
		f->ring[i].idx_fd = -1;
		gr_cursor_limit(&f->r.cur[i], 0);
	}
	if (!fstatat(f->r.dirfd, GR_CTF_INFO, &st, AT_SYMLINK_NOFOLLOW)) {
		f->info_ino = st.st_ino;
		f->info_mtime = st.st_mtim;
	}
	f->open = true;
	ret = gr_report_begin(&f->r, out, err, opts, &f->x);
	if (ret)
		follow_close(f, out, false);
	return ret;
}

/*
 * Chunk @next (<session>/BEGIN-ID) is the one being written now: first
 * print whole, in order, the session's closed chunks not printed yet:
 * those after chunk @prev of the same session (two rotations between two
 * asks), or all of them if @prev is not one of its chunks (the session
 * is followed from its first chunk kept). Return: 0 or follow_open()'s
 * -errno.
 */
static int follow_between(struct follow *f, const char *prev,
			  const char *next, FILE *out, FILE *err,
			  const struct gr_report_opts *opts)
{
	const char *a = strrchr(prev, '/'), *b = strrchr(next, '/');
	char sess[PATH_MAX - 2 * GR_CHUNK_NAME_MAX];
	struct gr_chunk_ref *v = NULL;
	uint64_t lo = 0, idb, id;
	size_t n = 0, i;
	int ret = 0, fd;

	if (!b || !chunk_parse(b + 1, false, &idb, NULL))
		return 0;
	if (a && a - prev == b - next && !strncmp(prev, next, (size_t)(a - prev)) &&
	    chunk_parse(a + 1, false, &id, NULL))
		lo = id + 1;
	snprintf(sess, sizeof(sess), "%.*s", (int)(b - next), next);
	fd = open(sess, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (chunk_list_closed(fd, false, &v, &n))
		n = 0;
	close(fd);
	for (i = 0; i < n && !ret; i++) {
		if (v[i].id < lo || v[i].id >= idb)
			continue;
		snprintf(f->dir, sizeof(f->dir), "%s/" GR_CHUNK_ARCHIVES "/%s",
			 sess, v[i].name);
		ret = follow_open(f, out, err, opts);
		follow_close(f, out, true);
	}
	free(v);
	return ret;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000L,
	};

	nanosleep(&ts, NULL);	/* a signal ends it early: *stop is read */
}

/**
 * gr_report_follow() - print a VM's recording as it is stored
 * @ask: says which session is the VM's current one (see gr_follow_ask_fn)
 * @arg: its argument
 * @out: where to print
 * @err: where a fatal problem is printed, as one "error: " line
 * @opts: filters and time base, as for gr_report(); NULL for all
 * @stop: set (by a signal handler) to end
 *
 * Asks @ask every GR_FOLLOW_ASK_MS and reads the index files of the
 * current session every GR_FOLLOW_POLL_MS; prints each session as
 * gr_report() prints it, item by item as they are stored (see the top
 * of this file for when an item is printed), and flushes @out after
 * every poll. A session that ends is printed to the end of its files
 * before the next one begins. With --host-time, the clock is the one
 * the session's .guestrelay holds at the time an item is printed.
 *
 * Context: process; blocks until *@stop or a fatal problem.
 * Return: 0 once *@stop is set, -errno for a fatal problem (@ask's, one
 * from gr_report_begin(), -EIO when @out cannot be written, -ENOMEM).
 */
int gr_report_follow(gr_follow_ask_fn ask, void *arg, FILE *out, FILE *err,
		     const struct gr_report_opts *opts,
		     const volatile sig_atomic_t *stop)
{
	unsigned int since_ask = GR_FOLLOW_ASK_MS;
	char dir[PATH_MAX], prev[PATH_MAX];
	struct follow *f;
	uint32_t timer;
	int ret = 0;

	f = calloc(1, sizeof(*f));
	if (!f) {
		fprintf(err, "error: out of memory\n");
		return -ENOMEM;
	}
	f->r.dirfd = -1;
	while (!*stop) {
		if (since_ask >= GR_FOLLOW_ASK_MS) {
			since_ask = 0;
			ret = ask(arg, dir, sizeof(dir), &timer);
			if (ret < 0)
				break;
			if (!ret && strcmp(dir, f->dir)) {
				snprintf(prev, sizeof(prev), "%s", f->dir);
				follow_close(f, out, true);
				ret = follow_between(f, prev, dir, out, err,
						     opts);
				if (ret)
					break;
				snprintf(f->dir, sizeof(f->dir), "%s", dir);
			}
			if (!ret)
				f->timer_us = timer;
			ret = 0;
			if (f->dir[0] && !f->open && !f->skipped)
				ret = follow_open(f, out, err, opts);
			if (ret)
				break;
		}
		if (f->open) {
			info_poll(f);
			follow_print(f, out, false);
		}
		if (fflush(out) || ferror(out)) {
			ret = -EIO;
			break;
		}
		sleep_ms(GR_FOLLOW_POLL_MS);
		since_ask += GR_FOLLOW_POLL_MS;
	}
	follow_close(f, out, false);	/* stopped: what was safe is out */
	free(f);
	if (!ret && (fflush(out) || ferror(out)))
		ret = -EIO;
	return ret;
}
