// SPDX-License-Identifier: GPL-2.0
/*
 * clients.c - the guest's client channels (spec section 16, GR_F_CLIENT)
 *
 * Other guest kernel modules open relay channels of their own; the guest
 * publishes each in the client area of its layout, a directory of
 * GR_CLIENT_MAX entries. At every drain pass (vm.c) this file:
 *
 *   discovers  an entry whose gen is even and new: copied between two
 *              acquire loads of gen, checked in the copy (D2), then its
 *              files are opened under <session>/channels/<name>/
 *   drains     each ring of a channel in use as the trace rings are
 *              drained (spec 6.12, H8 through gr_check_counters()):
 *              bytes [0, rec.bytes) of each finished sub-buffer, padding
 *              left out (D3), written straight from the region (zero
 *              copy) to <name>_<ring>; the klog channel (16.6) is copied
 *              once and written as text lines, <timestamp> <text>, to
 *              klog_<ring>.txt (D5); then cons.consumed (release)
 *   withdraws  an entry whose gen turned odd: drained one last time
 *              without storing, its files closed, then client_ack[e]
 *              := that gen (release), so the guest may reuse the area
 *
 * Nothing is stored into the region unless the publication and the
 * entry's gen are still those of the checked copy (H7). The guest's lost
 * counters are reported per cause and never trusted to grow (D4).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "clients.h"
#include "validate_packet.h"
#include "vm.h"

static struct gr_client_chan *dir_entry(struct gr_vm *vm, unsigned int e)
{
	return (struct gr_client_chan *)(vm->region + vm->cl.area_off +
					 e * sizeof(struct gr_client_chan));
}

static uint64_t load_gen(struct gr_vm *vm, unsigned int e)
{
	/* pairs with the guest's smp_store_release() of gen (spec 16.3) */
	return le64toh(__atomic_load_n(&dir_entry(vm, e)->gen,
				       __ATOMIC_ACQUIRE));
}

/* May the host store into entry @e's channel (H7, spec 16.3)? */
static bool may_store(struct gr_vm *vm, unsigned int e)
{
	uint64_t magic;

	return vm_same_publication(vm, &magic) &&
	       load_gen(vm, e) == vm->cl.ch[e].gen;
}

/* spec 16.2: 1 to 31 bytes of [a-z0-9_], the first a letter, NUL-padded */
static bool name_ok(const char *name)
{
	size_t i, n = strnlen(name, GR_NAME_LEN);

	if (n == 0 || n >= GR_NAME_LEN || name[0] < 'a' || name[0] > 'z')
		return false;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
			return false;
	for (; i < GR_NAME_LEN; i++)
		if (name[i])
			return false;
	return true;
}

static int no(const char **why, const char *msg)
{
	*why = msg;
	return -EINVAL;
}

/* [off, off + len) inside [lo, hi), without overflow */
static bool inside(uint64_t off, uint64_t len, uint64_t lo, uint64_t hi)
{
	return off >= lo && off <= hi && len <= hi - off;
}

/**
 * clients_check_entry() - check a copy of a directory entry (D2)
 * @e: the host-private copy
 * @nr_cpus: the header's nr_cpus, checked
 * @area_off: client_offset, checked (D1)
 * @area_size: client_size, checked (D1)
 * @out: receives the checked values (state, rings and counters untouched)
 * @why: receives a static reason on failure
 *
 * Every field as spec 16.2 says, and the channel's rings, commit records
 * and sub-buffers wholly inside the client area after GR_CLIENT_DIR_SIZE,
 * not overlapping each other. Overlap with other entries, the name's
 * uniqueness and the one klog channel are the caller's.
 *
 * Return: 0, or -EINVAL.
 */
int clients_check_entry(const struct gr_client_chan *e, uint32_t nr_cpus,
			uint64_t area_off, uint64_t area_size,
			struct gr_cchan *out, const char **why)
{
	uint32_t flags = le32toh(e->flags), rings = le32toh(e->nr_rings);
	uint32_t size = le32toh(e->subbuf_size), n = le32toh(e->n_subbufs);
	uint64_t ro = le64toh(e->ring_offset);
	uint64_t rec = le64toh(e->subbuf_rec_offset);
	uint64_t data = le64toh(e->data_offset);
	uint64_t lo = area_off + GR_CLIENT_DIR_SIZE, hi = area_off + area_size;
	uint64_t rings_len, recs_len, data_len;
	unsigned int i;

	if (!name_ok(e->name))
		return no(why, "bad channel name");
	if (flags & ~(uint32_t)(GR_CLIENT_GLOBAL | GR_CLIENT_OVERWRITE |
				GR_CLIENT_KLOG))
		return no(why, "unknown flags");
	if (rings != ((flags & GR_CLIENT_GLOBAL) ? 1 : nr_cpus))
		return no(why, "nr_rings is not nr_cpus (1 if global)");
	if (size < GR_MIN_SUBBUF_SIZE || size > GR_CLIENT_MAX_SUBBUF ||
	    (size & (size - 1)))
		return no(why, "bad subbuf_size");
	if (n < 2 || n > GR_CLIENT_MAX_SUBBUFS)
		return no(why, "bad n_subbufs");
	if ((ro % 64) || (rec % 64) || (data % GR_PAGE_SIZE))
		return no(why, "misaligned offset");
	for (i = 0; i < sizeof(e->reserved); i++)
		if (e->reserved[i])
			return no(why, "reserved bytes are not 0");
	rings_len = (uint64_t)rings * sizeof(struct gr_ring);
	recs_len = (uint64_t)rings * n * sizeof(struct gr_subbuf_rec);
	data_len = gr_data_size(rings, n, size);
	if (!inside(ro, rings_len, lo, hi) || !inside(rec, recs_len, lo, hi) ||
	    !inside(data, data_len, lo, hi))
		return no(why, "channel outside the client area");
	/* three pieces in any order: each ends before the next starts */
	if ((ro < rec + recs_len && rec < ro + rings_len) ||
	    (ro < data + data_len && data < ro + rings_len) ||
	    (rec < data + data_len && data < rec + recs_len))
		return no(why, "rings, records and sub-buffers overlap");
	memcpy(out->name, e->name, GR_NAME_LEN);
	out->flags = flags;
	out->nr_rings = rings;
	out->subbuf_size = size;
	out->n_subbufs = n;
	out->ring_offset = ro;
	out->rec_offset = rec;
	out->data_offset = data;
	out->end = ro;
	if (rec + recs_len > out->end)
		out->end = rec + recs_len;
	if (data + data_len > out->end)
		out->end = data + data_len;
	return 0;
}

/* The lowest offset of a checked channel */
static uint64_t chan_start(const struct gr_cchan *c)
{
	uint64_t s = c->ring_offset;

	if (c->rec_offset < s)
		s = c->rec_offset;
	if (c->data_offset < s)
		s = c->data_offset;
	return s;
}

/* D2 against the other channels in use: no overlap, unique, one klog */
static int check_others(struct gr_vm *vm, unsigned int e,
			const struct gr_cchan *c, const char **why)
{
	unsigned int i;

	for (i = 0; i < GR_CLIENT_MAX; i++) {
		const struct gr_cchan *o = &vm->cl.ch[i];

		if (i == e || o->state != GR_CCHAN_OPEN)
			continue;
		if (chan_start(c) < o->end && chan_start(o) < c->end)
			return no(why, "overlaps another channel");
		if (!strcmp(o->name, c->name))
			return no(why, "name used by another channel");
		if ((o->flags & c->flags) & GR_CLIENT_KLOG)
			return no(why, "a second klog channel");
	}
	return 0;
}

/* mkdir -p of one level under @dirfd, then open it */
static int open_dir(int dirfd, const char *name)
{
	int fd;

	if (mkdirat(dirfd, name, 0755) && errno != EEXIST)
		return -errno;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * The ring files of a checked channel, in the directory the session
 * writes now (its chunk, if kept in chunks), appended to: a channel
 * published again in the same session (the client module reloaded)
 * continues them. The names come from the checked name only (D3).
 */
static int open_files(struct gr_vm *vm, struct gr_cchan *c)
{
	char file[GR_NAME_LEN + 24];
	int top, dir, ret = 0;
	unsigned int r;
	off_t end;

	if (rot_data_fd(vm) < 0)
		return -EBADF;
	top = open_dir(rot_data_fd(vm), "channels");
	if (top < 0)
		return top;
	dir = open_dir(top, c->name);
	close(top);
	if (dir < 0)
		return dir;
	for (r = 0; r < c->nr_rings; r++) {
		snprintf(file, sizeof(file), "%s_%u%s", c->name, r,
			 (c->flags & GR_CLIENT_KLOG) ? ".txt" : "");
		c->rings[r].fd = openat(dir, file, O_WRONLY | O_CREAT |
					O_CLOEXEC, 0644);
		if (c->rings[r].fd < 0) {
			ret = -errno;
			break;
		}
		end = lseek(c->rings[r].fd, 0, SEEK_END);
		c->rings[r].off = end > 0 ? (uint64_t)end : 0;
	}
	close(dir);
	return ret;
}

static void close_chan(struct gr_cchan *c)
{
	unsigned int r;

	if (c->state != GR_CCHAN_OPEN)
		return;
	for (r = 0; r < c->nr_rings; r++)
		if (c->rings[r].fd >= 0)
			close(c->rings[r].fd);
	free(c->rings);
	c->rings = NULL;
	c->state = GR_CCHAN_CLOSED;
}

static void refuse(struct gr_vm *vm, unsigned int e, uint64_t gen,
		   const char *name, const char *why)
{
	struct gr_clients *cl = &vm->cl;

	cl->rejected_gen[e] = gen;
	cl->bad_entries++;
	snprintf(cl->why, sizeof(cl->why), "entry %u%s%s: %s", e,
		 name ? " " : "", name ? name : "", why);
	syslog(LOG_WARNING, "%s: client channel refused: %s", vm->opts.name,
	       cl->why);
}

/*
 * Entry @c (withdrawn) is about to be reused: its counts stay in the
 * session's status, added to those of its name in cl->gone
 */
static void keep_counts(struct gr_clients *cl, const struct gr_cchan *c)
{
	struct gr_cchan *g = NULL;
	unsigned int i;

	if (c->state != GR_CCHAN_CLOSED)
		return;
	for (i = 0; i < GR_CLIENT_GONE && !g; i++)
		if (cl->gone[i].state && !strcmp(cl->gone[i].name, c->name))
			g = &cl->gone[i];
	for (i = 0; i < GR_CLIENT_GONE && !g; i++)
		if (!cl->gone[i].state) {
			g = &cl->gone[i];
			memcpy(g->name, c->name, sizeof(g->name));
			g->state = GR_CCHAN_CLOSED;
			g->flags = c->flags;
			g->nr_rings = c->nr_rings;
		}
	if (!g) {
		cl->untracked++;
		return;
	}
	gr_client_counts_add(&g->n, &c->n);
}

/* A new even gen of entry @e: copy, check, open (spec 16.3, D2) */
static void discover(struct gr_vm *vm, unsigned int e, uint64_t gen)
{
	struct gr_cchan *c = &vm->cl.ch[e], tmp;
	struct gr_client_chan copy;
	const char *why = NULL;
	unsigned int r;
	int ret;

	memcpy(&copy, dir_entry(vm, e), sizeof(copy));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* smp_rmb() of 16.3 */
	if (load_gen(vm, e) != gen)
		return;			/* being changed: next pass */
	memset(&tmp, 0, sizeof(tmp));
	ret = clients_check_entry(&copy, vm->view.nr_cpus, vm->cl.area_off,
				  vm->cl.area_size, &tmp, &why);
	if (!ret)
		ret = check_others(vm, e, &tmp, &why);
	if (ret) {
		refuse(vm, e, gen, name_ok(copy.name) ? copy.name : NULL,
		       why);
		return;
	}
	tmp.rings = calloc(tmp.nr_rings, sizeof(*tmp.rings));
	if (!tmp.rings) {
		refuse(vm, e, gen, tmp.name, "out of memory");
		return;
	}
	for (r = 0; r < tmp.nr_rings; r++) {
		struct gr_ring *ring = (struct gr_ring *)
			(vm->region + gr_ring_off(tmp.ring_offset, r));
		__le64 c0 = __atomic_load_n(&ring->cons.consumed,
					    __ATOMIC_RELAXED);

		tmp.rings[r].fd = -1;
		/* the guest's counters start at cons.consumed (spec 5.4) */
		tmp.rings[r].next = le64toh(c0);
	}
	tmp.gen = gen;
	tmp.state = GR_CCHAN_OPEN;
	ret = open_files(vm, &tmp);
	if (ret) {
		close_chan(&tmp);
		refuse(vm, e, gen, tmp.name, strerror(-ret));
		return;
	}
	keep_counts(&vm->cl, c);
	*c = tmp;
	syslog(LOG_INFO, "%s: client channel %s: %u rings of %u x %u bytes%s",
	       vm->opts.name, c->name, c->nr_rings, c->n_subbufs,
	       c->subbuf_size, (c->flags & GR_CLIENT_KLOG) ? ", klog" : "");
}

/* D4: the guest's lost counters, per cause, never trusted to grow */
static void take_lost(struct gr_cchan *c, struct gr_cring *cr,
		      const struct gr_ring *ring)
{
	const __le64 *src[4] = {
		&ring->prod.lost_full, &ring->prod.lost_too_big,
		&ring->prod.lost_nested, &ring->prod.overwritten,
	};
	unsigned int k;
	uint64_t v;

	for (k = 0; k < 4; k++) {
		v = le64toh(__atomic_load_n(src[k], __ATOMIC_RELAXED));
		if (v < cr->lost[k]) {
			c->n.lost_back++;
			continue;
		}
		c->n.lost[k] += v - cr->lost[k];
		cr->lost[k] = v;
	}
}

static void put_escaped(char **o, const uint8_t *s, uint32_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *p = *o;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\') {
			*p++ = (char)s[i];
			continue;
		}
		*p++ = '\\';
		*p++ = 'x';
		*p++ = hex[s[i] >> 4];
		*p++ = hex[s[i] & 15];
	}
	*o = p;
}

/*
 * klog (16.6, D5): the sub-buffer's bytes, copied once into @copy, as
 * text lines "<timestamp> <escaped text>\n" in @out (room for 4 bytes
 * per input byte plus 24 per record). Return: bytes in @out; *@bad is
 * set if a record's len went past the bytes.
 */
static size_t klog_text(const uint8_t *copy, uint32_t bytes, char *out,
			bool *bad)
{
	struct gr_klog_rec h;
	uint32_t pos = 0, len;
	char *o = out;

	*bad = false;
	while (bytes - pos >= sizeof(h)) {
		memcpy(&h, copy + pos, sizeof(h));
		pos += sizeof(h);
		len = le32toh(h.len);
		if (len > bytes - pos) {
			*bad = true;
			break;
		}
		o += sprintf(o, "%llu ", (unsigned long long)le64toh(h.timestamp));
		put_escaped(&o, copy + pos, len);
		*o++ = '\n';
		pos += len;
	}
	return (size_t)(o - out);
}

static int write_all(int fd, const void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	while (len) {
		n = pwrite(fd, buf, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf = (const uint8_t *)buf + n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/*
 * Store sub-buffer @seq (slot @slot) of ring @r; its commit record was
 * checked. Return: 0, 1 if it changed under us (overwrite), or -errno.
 */
static int store_subbuf(struct gr_vm *vm, struct gr_cchan *c, unsigned int r,
			uint32_t slot, uint64_t seq, uint32_t bytes)
{
	struct gr_cring *cr = &c->rings[r];
	const uint8_t *data = vm->region + gr_subbuf_off(c->data_offset,
							 c->n_subbufs,
							 c->subbuf_size, r,
							 slot);
	struct gr_subbuf_rec *rec = (struct gr_subbuf_rec *)
		(vm->region + gr_subbuf_rec_off(c->rec_offset, c->n_subbufs, r,
						slot));
	uint8_t *copy = NULL;
	char *text = NULL;
	size_t len = bytes;
	bool bad = false;
	int ret;

	if (c->flags & GR_CLIENT_KLOG) {
		copy = malloc(bytes ? bytes : 1);
		text = malloc((size_t)bytes * 4 + (bytes / 16 + 1) * 24);
		if (!copy || !text) {
			free(copy);
			free(text);
			return -ENOMEM;
		}
		memcpy(copy, data, bytes);
	}
	/* the seqlock of the commit record (3.8): still the same sub-buffer? */
	if (le64toh(__atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE)) != seq) {
		free(copy);
		free(text);
		return 1;
	}
	if (copy) {
		len = klog_text(copy, bytes, text, &bad);
		if (bad)
			c->n.invalid++;
		ret = write_all(cr->fd, text, len, cr->off);
	} else {
		/* zero copy: straight from the region */
		ret = write_all(cr->fd, data, len, cr->off);
		if (!ret && (c->flags & GR_CLIENT_OVERWRITE) &&
		    le64toh(__atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE)) !=
		    seq) {
			/* restarted while written: what was stored is torn */
			ret = ftruncate(cr->fd, (off_t)cr->off) ? -errno : 1;
		}
	}
	free(copy);
	free(text);
	if (ret)
		return ret;
	cr->off += len;
	c->n.bytes += len;
	c->n.subbufs++;
	vm->usage += len;
	return 0;
}

/* One ring: every finished sub-buffer, then consumed (if @store) */
static void drain_ring(struct gr_vm *vm, unsigned int e, unsigned int r,
		       bool store)
{
	struct gr_cchan *c = &vm->cl.ch[e];
	struct gr_cring *cr = &c->rings[r];
	struct gr_ring *ring = (struct gr_ring *)
		(vm->region + gr_ring_off(c->ring_offset, r));
	struct gr_view v = { .n_subbufs = c->n_subbufs };
	uint64_t produced, first, ready, seq, start = cr->next;
	struct gr_subbuf_rec *rec;
	const char *why;
	uint32_t slot, bytes;
	int ret;

	/* pairs with the guest's release of produced (spec 10 #6) */
	produced = le64toh(__atomic_load_n(&ring->prod.produced,
					   __ATOMIC_ACQUIRE));
	take_lost(c, cr, ring);
	/* H8 */
	if (gr_check_counters(&v, produced, cr->next,
			      !!(c->flags & GR_CLIENT_OVERWRITE), &first,
			      &ready, &why)) {
		c->n.invalid++;
		return;
	}
	c->n.skipped += first - cr->next;
	cr->next = first;
	for (; ready; ready--) {
		slot = (uint32_t)(cr->next % c->n_subbufs);
		rec = (struct gr_subbuf_rec *)
			(vm->region + gr_subbuf_rec_off(c->rec_offset,
							c->n_subbufs, r, slot));
		/* H9: pairs with the guest's release of rec.seq (10 #5) */
		seq = le64toh(__atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE));
		bytes = le32toh(__atomic_load_n(&rec->bytes, __ATOMIC_RELAXED));
		if (seq != cr->next) {
			/* overwritten since produced was read, or bad */
			if (c->flags & GR_CLIENT_OVERWRITE)
				c->n.skipped++;
			else
				c->n.invalid++;
		} else if (bytes > c->subbuf_size) {
			c->n.invalid++;		/* D3 */
		} else {
			ret = store_subbuf(vm, c, r, slot, seq, bytes);
			if (ret < 0) {
				c->n.write_errors++;
				break;		/* not consumed: next pass */
			}
			if (ret)
				c->n.skipped++;
		}
		cr->next++;
	}
	if (store && cr->next != start && may_store(vm, e))
		/* pairs with the guest's acquire of consumed (spec 10 #7) */
		__atomic_store_n(&ring->cons.consumed, htole64(cr->next),
				 __ATOMIC_RELEASE);
}

/**
 * clients_open() - a session opened: check the client area (D1)
 * @vm: the VM, its publication validated
 *
 * With GR_F_CLIENT in guest_features, client_offset and client_size are
 * checked against the layout; a bad area is counted and every entry is
 * ignored (the layout stays usable).
 */
void clients_open(struct gr_vm *vm)
{
	struct gr_clients *cl = &vm->cl;
	const struct gr_region_hdr *h = &vm->hdr_copy;
	uint64_t off = le64toh(h->client_offset);
	uint64_t size = le64toh(h->client_size);
	uint64_t data_end = vm->view.data_offset +
			    gr_data_size(vm->view.nr_rings, vm->view.n_subbufs,
					 vm->view.subbuf_size);
	const char *why = NULL;

	clients_close(vm);
	memset(cl->ch, 0, sizeof(cl->ch));
	memset(cl->gone, 0, sizeof(cl->gone));
	cl->untracked = 0;
	memset(cl->rejected_gen, 0, sizeof(cl->rejected_gen));
	cl->usable = false;
	if (!(vm->view.features & GR_F_CLIENT))
		return;
	if ((off % GR_PAGE_SIZE) || (size % GR_PAGE_SIZE))
		why = "client area not page aligned";
	else if (size < GR_CLIENT_DIR_SIZE)
		why = "client area smaller than its directory";
	else if (!inside(off, size, data_end, vm->size))
		why = "client area overlaps the layout or leaves the region";
	if (why) {
		cl->bad_area++;
		snprintf(cl->why, sizeof(cl->why), "%s", why);
		syslog(LOG_WARNING, "%s: client area refused: %s",
		       vm->opts.name, why);
		return;
	}
	cl->area_off = off;
	cl->area_size = size;
	cl->usable = true;
}

/**
 * clients_drain() - one pass over the client area
 * @vm: the VM, attached
 * @final: the layout was withdrawn: drain what the copies describe, store
 *	nothing, close every channel
 *
 * Discovers new entries, drains the channels in use, closes withdrawn
 * ones and acknowledges them (spec 16.3).
 */
void clients_drain(struct gr_vm *vm, bool final)
{
	struct gr_clients *cl = &vm->cl;
	struct gr_cchan *c;
	unsigned int e, r;
	uint64_t gen, magic;
	__le64 *ack;

	if (!cl->usable)
		return;
	for (e = 0; e < GR_CLIENT_MAX; e++) {
		c = &cl->ch[e];
		gen = load_gen(vm, e);
		if (c->state == GR_CCHAN_OPEN) {
			bool same = gen == c->gen && !final;
			bool withdrawn = gen == c->gen + 1;

			if (same || withdrawn || final)
				for (r = 0; r < c->nr_rings; r++)
					drain_ring(vm, e, r, same);
			if (same)
				continue;
			close_chan(c);
			if (withdrawn && !final &&
			    vm_same_publication(vm, &magic)) {
				ack = (__le64 *)(vm->region + cl->area_off +
						 GR_CLIENT_ACK_OFFSET) + e;
				/* pairs with the guest's load of client_ack */
				__atomic_store_n(ack, htole64(gen),
						 __ATOMIC_RELEASE);
			}
			continue;
		}
		if (final || !gen || (gen & 1) || gen == cl->rejected_gen[e] ||
		    (c->state == GR_CCHAN_CLOSED && gen == c->gen))
			continue;
		discover(vm, e, gen);
		if (c->state == GR_CCHAN_OPEN && c->gen == gen)
			for (r = 0; r < c->nr_rings; r++)
				drain_ring(vm, e, r, true);
	}
}

/**
 * clients_switch_files() - a rotation: the channels go on in the new chunk
 * @vm: the VM, its next chunk open (rot_data_fd())
 *
 * Called between drain passes, so no write is in flight: every channel in
 * use closes its files and opens them under the new chunk's channels/,
 * as the trace's streams move (cons_switch_files()). A channel whose
 * files cannot be opened stores nothing more (write_errors counts it).
 */
void clients_switch_files(struct gr_vm *vm)
{
	struct gr_cchan *c;
	unsigned int e, r;
	int ret;

	for (e = 0; e < GR_CLIENT_MAX; e++) {
		c = &vm->cl.ch[e];
		if (c->state != GR_CCHAN_OPEN)
			continue;
		for (r = 0; r < c->nr_rings; r++) {
			if (c->rings[r].fd >= 0)
				close(c->rings[r].fd);
			c->rings[r].fd = -1;
		}
		ret = open_files(vm, c);
		if (ret) {
			c->n.write_errors++;
			syslog(LOG_ERR, "%s: client channel %s: no files in the new chunk: %s",
			       vm->opts.name, c->name, strerror(-ret));
		}
	}
}

/**
 * clients_close() - the session ends: close every channel's files
 * @vm: the VM
 *
 * The counters stay for status until the next session opens.
 */
void clients_close(struct gr_vm *vm)
{
	unsigned int e;

	for (e = 0; e < GR_CLIENT_MAX; e++)
		close_chan(&vm->cl.ch[e]);
}
