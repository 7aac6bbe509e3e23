// SPDX-License-Identifier: GPL-2.0
/*
 * test_clients.c - host-agent/agent/clients.c alone: the guest's client
 * channels (spec section 16) in real shared memory, stored under a real
 * session directory, with no vm.c around it
 *
 * The VM of tests/lib/gr_agent_vm.c (a memfd region of 64 KiB whose
 * trace data ends at 0xc000) gets a client area at 0xc000 of 16 KiB:
 * the directory page, then room for one global channel of 2 x 4 KiB
 * (ring at 0xd000, records at 0xd080, sub-buffers at 0xe000). The
 * guest's side is played by writing the directory entry, sub-buffers,
 * commit records and produced straight into the region, in the order of
 * spec 16.3 and 10.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chunk.h"
#include "gr_agent_vm.h"
#include "gr_test.h"

#define T_AREA		0xc000ULL
#define T_AREA_SIZE	0x4000ULL
#define T_RING		0xd000ULL
#define T_REC		0xd080ULL
#define T_DATA		0xe000ULL
#define T_SUB		4096U

static struct gr_client_chan *t_entry(struct gr_avm *t, unsigned int e)
{
	return (struct gr_client_chan *)(t->vm.region + T_AREA) + e;
}

static struct gr_ring *t_ring(struct gr_avm *t)
{
	return (struct gr_ring *)(t->vm.region + T_RING);
}

static uint64_t t_ack(struct gr_avm *t, unsigned int e)
{
	return le64toh(((__le64 *)(t->vm.region + T_AREA +
				   GR_CLIENT_ACK_OFFSET))[e]);
}

/* A valid entry for the one channel: global, 2 x 4 KiB */
static void t_fill(struct gr_client_chan *c, const char *name, uint32_t flags)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->flags = htole32(flags | GR_CLIENT_GLOBAL);
	c->nr_rings = htole32(1);
	c->subbuf_size = htole32(T_SUB);
	c->n_subbufs = htole32(2);
	c->ring_offset = htole64(T_RING);
	c->subbuf_rec_offset = htole64(T_REC);
	c->data_offset = htole64(T_DATA);
}

/* Spec 16.3: gen odd, the fields, gen even (release) */
static void t_publish(struct gr_avm *t, unsigned int e,
		      const struct gr_client_chan *c, uint64_t gen)
{
	struct gr_client_chan *d = t_entry(t, e);

	d->gen = htole64(gen - 1);
	memcpy((uint8_t *)d + 8, (const uint8_t *)c + 8, sizeof(*c) - 8);
	__atomic_store_n(&d->gen, htole64(gen), __ATOMIC_RELEASE);
}

/* A VM with a client area in its header copy, the session open */
static struct gr_avm *t_open(void)
{
	struct gr_avm *t = gr_avm_new(GR_F_CLIENT, GR_VERIFY_OFF, 0);

	CU_ASSERT_FATAL(t->vm.view.features & GR_F_CLIENT);
	t->vm.hdr_copy.client_offset = htole64(T_AREA);
	t->vm.hdr_copy.client_size = htole64(T_AREA_SIZE);
	clients_open(&t->vm);
	CU_ASSERT_FATAL(t->vm.cl.usable);
	return t;
}

static void t_close(struct gr_avm *t)
{
	char cmd[160];

	clients_close(&t->vm);
	snprintf(cmd, sizeof(cmd), "rm -rf %s/channels", t->dir);
	CU_ASSERT(system(cmd) == 0);
	gr_avm_free(t);
}

/* Sub-buffer @seq of the ring: @bytes of @src, then produced = seq + 1 */
static void t_produce(struct gr_avm *t, uint64_t seq, const void *src,
		      uint32_t bytes)
{
	uint32_t slot = (uint32_t)(seq % 2);
	struct gr_subbuf_rec *rec = (struct gr_subbuf_rec *)
		(t->vm.region + T_REC) + slot;
	uint8_t *sub = t->vm.region + T_DATA + (uint64_t)slot * T_SUB;

	memset(sub, 0xee, T_SUB);	/* padding the host must not store */
	memcpy(sub, src, bytes);
	rec->bytes = htole32(bytes);
	__atomic_store_n(&rec->seq, htole64(seq), __ATOMIC_RELEASE);
	__atomic_store_n(&t_ring(t)->prod.produced, htole64(seq + 1),
			 __ATOMIC_RELEASE);
}

/* The stored file @name of channel @chan, its size in *@len (malloc'd) */
static uint8_t *t_read(struct gr_avm *t, const char *chan, const char *name,
		       size_t *len)
{
	char path[256];
	uint8_t *buf;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/channels/%s/%s", t->dir, chan, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	CU_ASSERT_FATAL(fstat(fileno(f), &st) == 0);
	buf = malloc((size_t)st.st_size + 1);
	CU_ASSERT_FATAL(buf != NULL);
	*len = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	return buf;
}

static bool t_exists(struct gr_avm *t, const char *chan)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/channels/%s", t->dir, chan);
	return access(path, F_OK) == 0;
}

static uint64_t t_consumed(struct gr_avm *t)
{
	return le64toh(__atomic_load_n(&t_ring(t)->cons.consumed,
				       __ATOMIC_ACQUIRE));
}

static void test_channel_stored_byte_for_byte_padding_left_out(void)
{
	struct gr_avm *t = t_open();
	struct gr_client_chan c;
	uint8_t a[1000], b[T_SUB], *got;
	size_t len = 0, i;

	for (i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i * 7 + 1);
	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i * 13 + 5);
	t_fill(&c, "drv_dbg", 0);
	t_publish(t, 3, &c, 2);
	clients_drain(&t->vm, false);
	CU_ASSERT_EQUAL(t->vm.cl.ch[3].state, GR_CCHAN_OPEN);
	CU_ASSERT(t_exists(t, "drv_dbg"));

	t_produce(t, 0, a, sizeof(a));
	t_produce(t, 1, b, sizeof(b));
	clients_drain(&t->vm, false);
	CU_ASSERT_EQUAL(t_consumed(t), 2);
	got = t_read(t, "drv_dbg", "drv_dbg_0", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_EQUAL(len, sizeof(a) + sizeof(b));
	CU_ASSERT(memcmp(got, a, sizeof(a)) == 0);
	CU_ASSERT(memcmp(got + sizeof(a), b, sizeof(b)) == 0);
	free(got);
	CU_ASSERT_EQUAL(t->vm.cl.ch[3].n.bytes, sizeof(a) + sizeof(b));
	CU_ASSERT_EQUAL(t->vm.cl.ch[3].n.subbufs, 2);
	CU_ASSERT_EQUAL(t->vm.cl.ch[3].n.invalid, 0);

	/* nothing new: nothing stored, nothing consumed again */
	clients_drain(&t->vm, false);
	CU_ASSERT_EQUAL(t->vm.cl.ch[3].n.subbufs, 2);
	t_close(t);
}

static void test_withdrawn_channel_drained_closed_then_acknowledged(void)
{
	struct gr_avm *t = t_open();
	struct gr_client_chan c;
	uint8_t a[100];
	size_t len = 0;
	uint8_t *got;

	memset(a, 0x5a, sizeof(a));
	t_fill(&c, "wd", 0);
	t_publish(t, 0, &c, 2);
	clients_drain(&t->vm, false);
	t_produce(t, 0, a, sizeof(a));
	/* the client closed: the last sub-buffer, then gen odd (16.3) */
	__atomic_store_n(&t_entry(t, 0)->gen, htole64(3), __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(t_ack(t, 0), 0);
	clients_drain(&t->vm, false);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].state, GR_CCHAN_CLOSED);
	CU_ASSERT_EQUAL(t_ack(t, 0), 3);
	/* stored, but nothing more stored into the withdrawn rings */
	CU_ASSERT_EQUAL(t_consumed(t), 0);
	got = t_read(t, "wd", "wd_0", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_EQUAL(len, sizeof(a));
	free(got);

	/*
	 * Published again (the module reloaded): the guest's counters start
	 * at cons.consumed (5.4), the file continues
	 */
	t_ring(t)->prod.produced = t_ring(t)->cons.consumed;
	t_publish(t, 0, &c, 4);
	clients_drain(&t->vm, false);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].state, GR_CCHAN_OPEN);
	t_produce(t, 0, a, 10);
	clients_drain(&t->vm, false);
	got = t_read(t, "wd", "wd_0", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_EQUAL(len, sizeof(a) + 10);
	free(got);
	t_close(t);
}

/*
 * An entry reused by another channel: the withdrawn one's counts are kept
 * by name (status lists every channel of the session, the counts of a
 * name published again adding up as its file does)
 */
static void test_reused_entry_keeps_counts_by_name(void)
{
	struct gr_avm *t = t_open();
	struct gr_client_chan c;
	uint8_t a[100] = { 1 };
	const char *names[] = { "aa", "bb", "aa" };
	uint64_t gen = 2, seq;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		t_fill(&c, names[i], 0);
		seq = le64toh(t_ring(t)->cons.consumed);
		t_ring(t)->prod.produced = htole64(seq);
		t_publish(t, 0, &c, gen);
		clients_drain(&t->vm, false);
		CU_ASSERT_EQUAL_FATAL(t->vm.cl.ch[0].state, GR_CCHAN_OPEN);
		t_produce(t, seq, a, 10 * (i + 1));
		clients_drain(&t->vm, false);
		__atomic_store_n(&t_entry(t, 0)->gen, htole64(gen + 1),
				 __ATOMIC_RELEASE);
		clients_drain(&t->vm, false);
		CU_ASSERT_EQUAL(t_ack(t, 0), gen + 1);
		gen += 2;
	}
	/* entry 0 holds the last "aa" (30 bytes); "aa" 10 and "bb" 20 kept */
	CU_ASSERT_STRING_EQUAL(t->vm.cl.ch[0].name, "aa");
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].n.bytes, 30);
	CU_ASSERT_STRING_EQUAL(t->vm.cl.gone[0].name, "aa");
	CU_ASSERT_EQUAL(t->vm.cl.gone[0].n.bytes, 10);
	CU_ASSERT_EQUAL(t->vm.cl.gone[0].n.subbufs, 1);
	CU_ASSERT_STRING_EQUAL(t->vm.cl.gone[1].name, "bb");
	CU_ASSERT_EQUAL(t->vm.cl.gone[1].n.bytes, 20);
	CU_ASSERT_EQUAL(t->vm.cl.gone[2].state, GR_CCHAN_NONE);
	CU_ASSERT_EQUAL(t->vm.cl.untracked, 0);

	/* a new session forgets them */
	clients_open(&t->vm);
	CU_ASSERT_EQUAL(t->vm.cl.gone[0].state, GR_CCHAN_NONE);
	t_close(t);
}

/* A file of @len bytes at @path under @dirfd */
static void t_file(int dirfd, const char *path, size_t len)
{
	char buf[256] = { 0 };
	int fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(len <= sizeof(buf) && write(fd, buf, len) == (ssize_t)len);
	close(fd);
}

/*
 * A closed chunk holding channels/<name>/ files: retention counts their
 * bytes and deletes the chunk whole
 */
static void test_chunk_with_channels_counted_and_removed(void)
{
	char dir[] = "/tmp/test_clients_chunk.XXXXXX";
	int fd;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(mkdirat(fd, "c", 0755) == 0);
	CU_ASSERT(mkdirat(fd, "c/index", 0755) == 0);
	CU_ASSERT(mkdirat(fd, "c/channels", 0755) == 0);
	CU_ASSERT(mkdirat(fd, "c/channels/drv", 0755) == 0);
	t_file(fd, "c/metadata", 10);
	t_file(fd, "c/index/stream_0.idx", 20);
	t_file(fd, "c/channels/drv/drv_0", 100);
	t_file(fd, "c/channels/drv/drv_1", 200);
	CU_ASSERT_EQUAL(chunk_tree_bytes(fd, "c", GR_CHUNK_TREE_DEPTH), 330);
	CU_ASSERT_EQUAL(chunk_remove(fd, "c"), 0);
	CU_ASSERT(faccessat(fd, "c", F_OK, 0) != 0);
	close(fd);
	CU_ASSERT(rmdir(dir) == 0);
}

/* One field of a valid entry spoiled: refused by D2 */
struct t_bad {
	const char *what;
	void (*spoil)(struct gr_client_chan *c);
};

static void bad_name_upper(struct gr_client_chan *c) { c->name[0] = 'D'; }
static void bad_name_slash(struct gr_client_chan *c) { c->name[1] = '/'; }
static void bad_name_empty(struct gr_client_chan *c) { c->name[0] = 0; }
static void bad_name_unterminated(struct gr_client_chan *c)
{
	memset(c->name, 'a', sizeof(c->name));
}
static void bad_name_tail(struct gr_client_chan *c) { c->name[20] = 'x'; }
static void bad_flags(struct gr_client_chan *c) { c->flags |= htole32(8); }
static void bad_rings(struct gr_client_chan *c) { c->nr_rings = htole32(2); }
static void bad_rings_percpu(struct gr_client_chan *c)
{
	c->flags = 0;		/* per-CPU wants nr_cpus (2) rings */
}
static void bad_size_pow2(struct gr_client_chan *c)
{
	c->subbuf_size = htole32(6000);
}
static void bad_size_small(struct gr_client_chan *c)
{
	c->subbuf_size = htole32(2048);
}
static void bad_size_big(struct gr_client_chan *c)
{
	c->subbuf_size = htole32(2u << 20);
}
static void bad_n_one(struct gr_client_chan *c) { c->n_subbufs = htole32(1); }
static void bad_n_many(struct gr_client_chan *c)
{
	c->n_subbufs = htole32(GR_CLIENT_MAX_SUBBUFS + 1);
}
static void bad_ring_align(struct gr_client_chan *c)
{
	c->ring_offset = htole64(T_RING + 8);
}
static void bad_data_align(struct gr_client_chan *c)
{
	c->data_offset = htole64(T_DATA + 64);
}
static void bad_ring_in_dir(struct gr_client_chan *c)
{
	c->ring_offset = htole64(T_AREA + GR_CLIENT_ACK_OFFSET);
}
static void bad_ring_in_trace(struct gr_client_chan *c)
{
	c->ring_offset = htole64(0x3000);	/* the trace channel's rings */
}
static void bad_data_past_area(struct gr_client_chan *c)
{
	c->n_subbufs = htole32(4);		/* 16 KiB from 0xe000 */
}
static void bad_data_wraps(struct gr_client_chan *c)
{
	c->data_offset = htole64(0xfffffffffffff000ULL);
}
static void bad_overlap(struct gr_client_chan *c)
{
	c->subbuf_rec_offset = htole64(T_RING + 64);
}
static void bad_overlap_data(struct gr_client_chan *c)
{
	c->ring_offset = htole64(T_DATA + 128);
}
static void bad_reserved(struct gr_client_chan *c) { c->reserved[47] = 1; }

static const struct t_bad t_bads[] = {
	{ "upper-case name", bad_name_upper },
	{ "slash in name", bad_name_slash },
	{ "empty name", bad_name_empty },
	{ "name without NUL", bad_name_unterminated },
	{ "bytes after the NUL", bad_name_tail },
	{ "unknown flag", bad_flags },
	{ "two rings, global", bad_rings },
	{ "one ring, per-CPU", bad_rings_percpu },
	{ "subbuf_size not a power of two", bad_size_pow2 },
	{ "subbuf_size below 4 KiB", bad_size_small },
	{ "subbuf_size above 1 MiB", bad_size_big },
	{ "one sub-buffer", bad_n_one },
	{ "too many sub-buffers", bad_n_many },
	{ "misaligned rings", bad_ring_align },
	{ "misaligned data", bad_data_align },
	{ "rings in the directory page", bad_ring_in_dir },
	{ "rings in the trace layout", bad_ring_in_trace },
	{ "data past the client area", bad_data_past_area },
	{ "data offset that wraps", bad_data_wraps },
	{ "records over the rings", bad_overlap },
	{ "rings over the data", bad_overlap_data },
	{ "reserved bytes", bad_reserved },
};

static void test_hostile_entries_refused_counted_never_stored(void)
{
	struct gr_avm *t = t_open();
	struct gr_client_chan c;
	struct gr_cchan out;
	const char *why;
	unsigned int i;

	t_fill(&c, "ok", 0);
	memset(&out, 0, sizeof(out));
	CU_ASSERT_EQUAL(clients_check_entry(&c, 2, T_AREA, T_AREA_SIZE, &out,
					    &why), 0);
	for (i = 0; i < GR_ARRAY_SIZE(t_bads); i++) {
		t_fill(&c, "ok", 0);
		t_bads[i].spoil(&c);
		why = NULL;
		if (clients_check_entry(&c, 2, T_AREA, T_AREA_SIZE, &out,
					&why) != -EINVAL)
			CU_FAIL(t_bads[i].what);
		CU_ASSERT_PTR_NOT_NULL(why);

		/* through the directory: counted once per gen, no file */
		t_publish(t, 5, &c, 2 * (i + 1));
		clients_drain(&t->vm, false);
		clients_drain(&t->vm, false);
		CU_ASSERT_EQUAL(t->vm.cl.bad_entries, i + 1);
		CU_ASSERT_NOT_EQUAL(t->vm.cl.ch[5].state, GR_CCHAN_OPEN);
	}
	CU_ASSERT_FALSE(t_exists(t, ""));	/* no channels/ at all */
	t_close(t);
}

static void test_second_channel_same_place_or_name_or_klog_refused(void)
{
	struct gr_avm *t = t_open();
	struct gr_client_chan c;

	t_fill(&c, "first", GR_CLIENT_KLOG);
	t_publish(t, 0, &c, 2);
	clients_drain(&t->vm, false);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].state, GR_CCHAN_OPEN);
	/* the same rings under another name */
	t_fill(&c, "second", 0);
	t_publish(t, 1, &c, 2);
	clients_drain(&t->vm, false);
	CU_ASSERT_EQUAL(t->vm.cl.ch[1].state, GR_CCHAN_NONE);
	CU_ASSERT_EQUAL(t->vm.cl.bad_entries, 1);
	CU_ASSERT(strstr(t->vm.cl.why, "overlaps") != NULL);
	CU_ASSERT_FALSE(t_exists(t, "second"));
	t_close(t);
}

static void test_bad_client_area_ignores_every_entry(void)
{
	static const uint64_t bad[][2] = {
		{ 0xb000, 0x5000 },		/* over the trace data */
		{ 0xc000, 0x800 },		/* smaller than the directory */
		{ 0xc100, 0x3000 },		/* not page aligned */
		{ 0xc000, 0x8000 },		/* past the region */
		{ 0xfffffffffffff000ULL, 0x2000 },	/* wraps */
	};
	struct gr_client_chan c;
	unsigned int i;

	for (i = 0; i < GR_ARRAY_SIZE(bad); i++) {
		struct gr_avm *t = gr_avm_new(GR_F_CLIENT, GR_VERIFY_OFF, 0);

		t->vm.hdr_copy.client_offset = htole64(bad[i][0]);
		t->vm.hdr_copy.client_size = htole64(bad[i][1]);
		clients_open(&t->vm);
		CU_ASSERT_FALSE(t->vm.cl.usable);
		CU_ASSERT_EQUAL(t->vm.cl.bad_area, 1);
		t_fill(&c, "x", 0);
		t_publish(t, 0, &c, 2);
		clients_drain(&t->vm, false);
		CU_ASSERT_EQUAL(t->vm.cl.ch[0].state, GR_CCHAN_NONE);
		t_close(t);
	}
}

static void test_bad_commit_record_or_counter_not_stored(void)
{
	struct gr_avm *t = t_open();
	struct gr_client_chan c;
	struct gr_subbuf_rec *rec = (struct gr_subbuf_rec *)
		(t->vm.region + T_REC);
	uint8_t a[64] = { 1 };
	size_t len = 99;
	uint8_t *got;

	t_fill(&c, "rec", 0);
	t_publish(t, 0, &c, 2);
	clients_drain(&t->vm, false);
	t_produce(t, 0, a, sizeof(a));
	rec->bytes = htole32(T_SUB + 1);	/* D3: past the sub-buffer */
	clients_drain(&t->vm, false);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].n.invalid, 1);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].n.bytes, 0);
	got = t_read(t, "rec", "rec_0", &len);
	CU_ASSERT_EQUAL(len, 0);
	free(got);
	/* produced far ahead of consumed in no-overwrite mode (H8) */
	__atomic_store_n(&t_ring(t)->prod.produced, htole64(100),
			 __ATOMIC_RELEASE);
	clients_drain(&t->vm, false);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].n.invalid, 2);
	CU_ASSERT_EQUAL(t_consumed(t), 1);
	t_close(t);
}

/* A klog record: timestamp, len, flags, text */
static size_t t_klog(uint8_t *p, uint64_t ts, const char *text, size_t len)
{
	struct gr_klog_rec h = {
		.timestamp = htole64(ts), .len = htole32((uint32_t)len),
	};

	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), text, len);
	return sizeof(h) + len;
}

static void test_klog_stored_as_escaped_text_lines(void)
{
	static const char want[] =
		"5 hello\n7 a\\x0ab\\x01\\x5c\\xff\n";
	struct gr_avm *t = t_open();
	struct gr_client_chan c;
	uint8_t buf[256], *got;
	size_t n = 0, len = 0;
	__le32 bad_len;

	t_fill(&c, "klog", GR_CLIENT_KLOG);
	t_publish(t, 0, &c, 2);
	clients_drain(&t->vm, false);
	n += t_klog(buf + n, 5, "hello", 5);
	n += t_klog(buf + n, 7, "a\nb\x01\\\xff", 6);
	t_produce(t, 0, buf, (uint32_t)n);
	/* D5: a record whose len goes past rec.bytes ends the records */
	n = t_klog(buf, 9, "ok", 2);
	n += t_klog(buf + n, 10, "xyz", 3);
	bad_len = htole32(1000);
	memcpy(buf + 18 + offsetof(struct gr_klog_rec, len), &bad_len,
	       sizeof(bad_len));
	t_produce(t, 1, buf, (uint32_t)n);
	clients_drain(&t->vm, false);
	got = t_read(t, "klog", "klog_0.txt", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	got[len] = 0;
	CU_ASSERT_EQUAL(len, strlen(want) + strlen("9 ok\n"));
	CU_ASSERT(strncmp((char *)got, want, strlen(want)) == 0);
	CU_ASSERT(strcmp((char *)got + strlen(want), "9 ok\n") == 0);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].n.invalid, 1);
	CU_ASSERT_EQUAL(t_consumed(t), 2);
	free(got);
	t_close(t);
}

static void test_lost_counters_by_cause_going_back_reported(void)
{
	struct gr_avm *t = t_open();
	struct gr_client_chan c;
	struct gr_ring_prod *p = &t_ring(t)->prod;

	t_fill(&c, "lossy", 0);
	t_publish(t, 0, &c, 2);
	p->lost_full = htole64(7);
	p->lost_too_big = htole64(2);
	p->lost_nested = htole64(1);
	clients_drain(&t->vm, false);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].n.lost[0], 7);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].n.lost[1], 2);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].n.lost[2], 1);
	p->lost_full = htole64(3);		/* D4: goes back */
	p->lost_too_big = htole64(4);
	clients_drain(&t->vm, false);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].n.lost[0], 7);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].n.lost[1], 4);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].n.lost_back, 1);
	t_close(t);
}

static void test_layout_withdrawn_final_drain_stores_nothing(void)
{
	struct gr_avm *t = t_open();
	struct gr_client_chan c;
	uint8_t a[40] = { 9 };

	t_fill(&c, "fin", 0);
	t_publish(t, 0, &c, 2);
	clients_drain(&t->vm, false);
	t_produce(t, 0, a, sizeof(a));
	clients_drain(&t->vm, true);
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].n.bytes, sizeof(a));
	CU_ASSERT_EQUAL(t->vm.cl.ch[0].state, GR_CCHAN_CLOSED);
	CU_ASSERT_EQUAL(t_consumed(t), 0);
	CU_ASSERT_EQUAL(t_ack(t, 0), 0);
	t_close(t);
}

static const struct gr_test tests[] = {
	GR_TEST(test_channel_stored_byte_for_byte_padding_left_out),
	GR_TEST(test_withdrawn_channel_drained_closed_then_acknowledged),
	GR_TEST(test_reused_entry_keeps_counts_by_name),
	GR_TEST(test_chunk_with_channels_counted_and_removed),
	GR_TEST(test_hostile_entries_refused_counted_never_stored),
	GR_TEST(test_second_channel_same_place_or_name_or_klog_refused),
	GR_TEST(test_bad_client_area_ignores_every_entry),
	GR_TEST(test_bad_commit_record_or_counter_not_stored),
	GR_TEST(test_klog_stored_as_escaped_text_lines),
	GR_TEST(test_lost_counters_by_cause_going_back_reported),
	GR_TEST(test_layout_withdrawn_final_drain_stores_nothing),
};

int main(void)
{
	return gr_test_main("clients", tests, GR_ARRAY_SIZE(tests), NULL, NULL);
}
