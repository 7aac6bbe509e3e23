// SPDX-License-Identifier: GPL-2.0
/*
 * test_ctf.c - CTF metadata writer, .guestrelay file and `guestrelay report`
 *
 * Builds traces on disk the way the agent stores them: a region header and
 * descriptors validated into views, metadata from gr_ctf_metadata(), a
 * .guestrelay file, and stream files of packets built here with the ABI
 * structs (several event types, relay padding filled with garbage, two
 * rings, a lost packet, discarded events, a VARLEN string, negative,
 * hexadecimal and character-array fields, gaps between fields). Then it
 * runs the real babeltrace2 CLI and python3-bt2 on them and compares every
 * value, and runs gr_report() on them and on damaged copies.
 *
 * Needs babeltrace2 and /usr/bin/python3 with bt2 (Debian: babeltrace2,
 * python3-bt2); exits 77 without them. GR_TEST_SEED=N replays the random
 * parts; GR_TEST_KEEP=1 keeps the trace directories.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gr_build.h"
#include "gr_test.h"

#include "guestrelay_abi.h"
#include "ctf.h"
#include "report.h"
#include "validate.h"

#define ALIGN8(x)	(((x) + 7U) & ~7U)
#define PYTHON		"/usr/bin/python3"

/* --- random numbers ------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* --- a guest: region header and descriptors -------------------------------- */

#define T_REGION	(1ULL << 16)
#define T_CPUS		2
#define T_S		4096
#define T_N		4
#define T_DESC_OFF	0x2000		/* room for 16 descriptors */
#define T_NDESC		6
#define T_RING_OFF	0x5000
#define T_REC_OFF	0x5100
#define T_DATA_OFF	0x6000		/* 2 * 4 * 4 KiB, ends 0xe000 */
#define T_MAX_EVENT	1024

enum { EV_SWITCH, EV_IRQ, EV_KMALLOC, EV_GAPS, EV_TICK, EV_BLOB };

static void make_hdr(struct gr_region_hdr *h, uint32_t ndesc, uint8_t boot,
		     const char *nodename, uint64_t freq)
{
	const struct gr_build_layout l = {
		.region_size = T_REGION,
		.nr_rings = T_CPUS,
		.nr_cpus = T_CPUS,
		.subbuf_size = T_S,
		.n_subbufs = T_N,
		.desc_offset = T_DESC_OFF,
		.desc_count = ndesc,
		.ring_offset = T_RING_OFF,
		.rec_offset = T_REC_OFF,
		.data_offset = T_DATA_OFF,
		.max_event_size = T_MAX_EVENT,
		.clock_freq = freq,
		.instance_id = 0x1122334455667788ULL,
		.kernel_release = "6.1.0-56-amd64",
		.nodename = nodename,
		.boot = boot,
	};

	gr_build_hdr(h, &l);
}

#define SG	GR_FIELD_F_SIGNED
#define HX	GR_FIELD_F_HEX
#define INT	GR_FIELD_INTEGER
#define CHR	GR_FIELD_CHARS
#define STR	GR_FIELD_STRING

/*
 * 0 sched_switch    a C struct of 56 bytes
 * 1 irq_handler_entry  VARLEN: irq, then a string of up to 28 bytes at 4
 * 2 kmalloc         hex pointers, a negative node
 * 3 gaps            fields at odd offsets, gaps of every kind, tail gap
 * 4 tick            no payload
 * 5 blob            12 bytes of payload, no fields
 */
static void make_descs(struct gr_event_desc d[T_NDESC])
{
	struct gr_field_desc *f;

	memset(d, 0, T_NDESC * sizeof(*d));
	gr_build_sched_switch(&d[EV_SWITCH], EV_SWITCH, HX);

	f = d[EV_IRQ].fields;
	gr_build_event(&d[EV_IRQ], EV_IRQ, "irq_handler_entry", "irq", 32,
		       GR_EVENT_F_VARLEN, 2);
	gr_build_field(&f[0], "irq", 0, 4, INT, SG);
	gr_build_field(&f[1], "name", 4, 28, STR, 0);

	f = d[EV_KMALLOC].fields;
	gr_build_event(&d[EV_KMALLOC], EV_KMALLOC, "kmalloc", "kmem", 40, 0, 6);
	gr_build_field(&f[0], "call_site", 0, 8, INT, HX);
	gr_build_field(&f[1], "ptr", 8, 8, INT, HX);
	gr_build_field(&f[2], "bytes_req", 16, 8, INT, 0);
	gr_build_field(&f[3], "bytes_alloc", 24, 8, INT, 0);
	gr_build_field(&f[4], "gfp_flags", 32, 4, INT, HX);
	gr_build_field(&f[5], "node", 36, 4, INT, SG);

	/* a@0 gap b@4 (alignment) c@9 (bytes) d@13 e@14..17 f@24, tail 32..48 */
	f = d[EV_GAPS].fields;
	gr_build_event(&d[EV_GAPS], EV_GAPS, "gaps", "test", 48, 0, 6);
	gr_build_field(&f[0], "a", 0, 1, INT, 0);
	gr_build_field(&f[1], "b", 4, 2, INT, 0);
	gr_build_field(&f[2], "c", 9, 4, INT, HX);
	gr_build_field(&f[3], "d", 13, 1, INT, SG);
	gr_build_field(&f[4], "e", 14, 3, CHR, 0);
	gr_build_field(&f[5], "f", 24, 8, INT, 0);

	gr_build_event(&d[EV_TICK], EV_TICK, "tick", "test", 0, 0, 0);
	gr_build_event(&d[EV_BLOB], EV_BLOB, "blob", "test", 12, 0, 0);
}

/* --- traces on disk -------------------------------------------------------- */

static char tmp_root[PATH_MAX / 2];

struct trace {
	char dir[PATH_MAX];
	int dirfd;
	struct gr_region_hdr h;
	struct gr_event_desc d[GR_MAX_EVENTS];
	unsigned int nd;
	struct gr_view v;
	struct gr_event_view ev[GR_MAX_EVENTS];
	struct gr_ctf_env env;
	struct gr_ctf_clock clock;
};

/* validate h and d into views, as the agent does; 0 or -1 */
static int trace_views(struct trace *t)
{
	const char *why = NULL;
	unsigned int i;

	if (gr_check_region_hdr(&t->h, T_REGION, &t->v, &why)) {
		fprintf(stderr, "\n    region header rejected: %s\n", why);
		return -1;
	}
	for (i = 0; i < t->nd; i++)
		if (gr_check_event_desc(&t->v, &t->d[i], i, &t->ev[i], &why)) {
			fprintf(stderr, "\n    descriptor %u rejected: %s\n", i,
				why);
			return -1;
		}
	return 0;
}

/* write metadata and .guestrelay of @t into a fresh directory @name */
static int trace_create(struct trace *t, const char *name)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	snprintf(t->dir, sizeof(t->dir), "%s/%s", tmp_root, name);
	gr_test_rm_tree(t->dir);
	if (mkdir(t->dir, 0755))
		return -errno;
	t->dirfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->dirfd < 0)
		return -errno;
	if (trace_views(t))
		return -EINVAL;
	ret = gr_ctf_metadata(&t->v, t->ev, t->nd, &t->env, &t->clock, &text,
			      &len);
	if (ret)
		return ret;
	ret = gr_ctf_write_metadata(t->dirfd, text, len, NULL);
	free(text);
	if (ret)
		return ret;
	return gr_ctf_write_info(t->dirfd, &t->h, T_REGION, t->d, t->nd,
				 &t->clock, t->env.trace_uuid, NULL);
}

static void trace_close(struct trace *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	t->dirfd = -1;
}

/* a sub-buffer being filled, as the guest fills it */
struct pkt {
	uint8_t b[T_S];
	uint32_t len;
};

static void pkt_start(struct pkt *p, unsigned int ring, uint64_t seq,
		      uint64_t ts_begin, uint64_t discarded)
{
	const struct gr_build_packet b = {
		.ring = ring, .cpu = ring, .ts_begin = ts_begin,
		.ts_end = ts_begin, .packet_bytes = T_S, .seq = seq,
		.discarded = discarded,
	};
	struct gr_packet_header h;

	memset(p->b, 0xa5, sizeof(p->b));	/* relay padding is garbage */
	gr_build_packet_header(&h, &b);
	memcpy(p->b, &h, sizeof(h));
	p->len = sizeof(h);
}

static void pkt_add(struct pkt *p, uint16_t id, uint32_t tid, uint64_t ts,
		    const void *payload, uint32_t plen)
{
	p->len += gr_build_record(p->b + p->len, id, tid, ts, payload, plen);
}

static void pkt_finish(struct pkt *p, uint64_t ts_end)
{
	struct gr_packet_header h;

	memcpy(&h, p->b, sizeof(h));
	h.timestamp_end = htole64(ts_end);
	h.content_size = htole64((uint64_t)p->len * 8);
	memcpy(p->b, &h, sizeof(h));
}

static int stream_append(const struct trace *t, unsigned int ring,
			 const void *buf, size_t len)
{
	char name[GR_CTF_STREAM_NAME_MAX];
	int fd, ret = 0;

	struct gr_packet_header ph;
	uint8_t *copy = NULL;
	uint64_t cs;

	/*
	 * A packet as the host stores it (spec 6.12): content_size up to the
	 * last record's last declared byte. Anything else is written as is.
	 */
	if (len >= sizeof(ph) && len <= T_S) {
		memcpy(&ph, buf, sizeof(ph));
		cs = le64toh(ph.content_size);
		if (le32toh(ph.magic) == GR_CTF_MAGIC && !(cs % 64) &&
		    cs / 8 > sizeof(ph) && cs / 8 <= len) {
			copy = malloc(len);
			if (!copy)
				return -ENOMEM;
			memcpy(copy, buf, len);
			ph.content_size = htole64(8 * gr_packet_content_end(&t->v,
						t->ev, t->nd, copy, cs / 8));
			memcpy(copy, &ph, sizeof(ph));
			buf = copy;
		}
	}
	snprintf(name, sizeof(name), GR_CTF_STREAM_FMT, ring);
	fd = openat(t->dirfd, name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		    0644);
	if (fd < 0) {
		free(copy);
		return -errno;
	}
	if (write(fd, buf, len) != (ssize_t)len)
		ret = -EIO;
	close(fd);
	free(copy);
	return ret;
}

static void put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static void put_chars(uint8_t *p, const char *s, size_t size)
{
	memset(p, 0, size);
	memcpy(p, s, strnlen(s, size));
}

static void add_switch(struct pkt *p, uint64_t ts, uint32_t tid,
		       const char *prev, int32_t prev_tid, int32_t prev_prio,
		       uint64_t state, const char *next, int32_t next_tid,
		       int32_t next_prio)
{
	uint8_t b[56];

	put_chars(b, prev, 16);
	put32(b + 16, (uint32_t)prev_tid);
	put32(b + 20, (uint32_t)prev_prio);
	put64(b + 24, state);
	put_chars(b + 32, next, 16);
	put32(b + 48, (uint32_t)next_tid);
	put32(b + 52, (uint32_t)next_prio);
	pkt_add(p, EV_SWITCH, tid, ts, b, sizeof(b));
}

/* VARLEN: the record ends after the string's NUL */
static void add_irq(struct pkt *p, uint64_t ts, uint32_t tid, int32_t irq,
		    const char *name)
{
	uint8_t b[32];
	size_t n = strlen(name) + 1;

	put32(b, (uint32_t)irq);
	memcpy(b + 4, name, n);
	pkt_add(p, EV_IRQ, tid, ts, b, (uint32_t)(4 + n));
}

static void add_kmalloc(struct pkt *p, uint64_t ts, uint32_t tid,
			uint64_t site, uint64_t ptr, uint64_t req,
			uint64_t alloc, uint32_t gfp, int32_t node)
{
	uint8_t b[40];

	put64(b, site);
	put64(b + 8, ptr);
	put64(b + 16, req);
	put64(b + 24, alloc);
	put32(b + 32, gfp);
	put32(b + 36, (uint32_t)node);
	pkt_add(p, EV_KMALLOC, tid, ts, b, sizeof(b));
}

/* gaps between fields hold garbage that must never show up */
static void add_gaps(struct pkt *p, uint64_t ts, uint32_t tid, uint8_t a,
		     uint16_t b16, uint32_t c, int8_t d, const char *e,
		     uint64_t f)
{
	uint8_t b[48];

	memset(b, 0xee, sizeof(b));
	b[0] = a;
	put16(b + 4, b16);
	put32(b + 9, c);
	b[13] = (uint8_t)d;
	memcpy(b + 14, e, 3);
	put64(b + 24, f);
	pkt_add(p, EV_GAPS, tid, ts, b, sizeof(b));
}

static void add_blob(struct pkt *p, uint64_t ts, uint32_t tid)
{
	uint8_t b[12];

	memset(b, 0x5a, sizeof(b));
	pkt_add(p, EV_BLOB, tid, ts, b, sizeof(b));
}

#define T_HOST_S	1700000000LL	/* guest 0 = this host second */

static void synthetic_env(struct trace *t, const char *vm, uint8_t uuid0)
{
	unsigned int i;

	memset(&t->env, 0, sizeof(t->env));
	t->env.vm_name = vm;
	t->env.host_name = "host-a";
	t->env.session = "s1";
	for (i = 0; i < 16; i++)
		t->env.trace_uuid[i] = (uint8_t)(uuid0 + 0x10 * i);
	t->env.tracer_major = 1;
	t->env.tracer_minor = 0;
	t->env.filters = "sched_switch: prev_tid == 5";
	t->env.created = "20231114T221320+0000";
}

/*
 * @t, empty and not yet on disk: the six test events in a region of
 * guest @nodename (boot_id from @boot, clock at @freq Hz), stored as VM
 * @vm (uuid from @uuid0)
 */
static void trace_init(struct trace *t, const char *nodename, uint8_t boot,
		       uint64_t freq, const char *vm, uint8_t uuid0)
{
	memset(t, 0, sizeof(*t));
	t->dirfd = -1;
	t->nd = T_NDESC;
	make_hdr(&t->h, T_NDESC, boot, nodename, freq);
	make_descs(t->d);
	synthetic_env(t, vm, uuid0);
}

/*
 * The synthetic trace of "vm1" (times in guest ns; guest 0 is host time
 * T_HOST_S + 0.5 s, error bound 1500 ns):
 *
 * ring 0: seq 0 [1000 switch, 3000 irq, 5000 kmalloc]
 *         seq 1 [6000 gaps, 7000 tick]
 *         seq 3 [10000 switch, 12000 blob]   seq 2 lost, 5 discarded
 * ring 1: seq 0 [2000 switch, 4000 irq ""]
 *         seq 1 [8000 kmalloc, 9000 irq (27 chars), 11000 gaps]
 *                                             2 discarded
 */
static int make_synthetic(struct trace *t, const char *name)
{
	struct pkt p;
	int ret;

	trace_init(t, "guest1", 0x40, 1000000000ULL, "vm1", 0x01);
	ret = gr_ctf_clock_from_sync(1000000000ULL, 0,
				     T_HOST_S * 1000000000LL + 500000000LL,
				     1500, &t->clock);
	if (!ret)
		ret = trace_create(t, name);
	if (ret)
		return ret;

	pkt_start(&p, 0, 0, 900, 0);
	add_switch(&p, 1000, 12, "bash", 12, 120, 0x1, "swapper/0", 0, 120);
	add_irq(&p, 3000, 0, 11, "virtio0-input");
	add_kmalloc(&p, 5000, 12, 0xffffffff81234567ULL,
		    0xffff888003c4d000ULL, 100, 128, 0xcc0, -1);
	pkt_finish(&p, 5500);
	ret = stream_append(t, 0, p.b, sizeof(p.b));

	pkt_start(&p, 0, 1, 5600, 0);
	add_gaps(&p, 6000, 7, 255, 65535, 0x12345678, -128, "abc",
		 UINT64_MAX);
	pkt_add(&p, EV_TICK, 1, 7000, NULL, 0);
	pkt_finish(&p, 7500);
	ret = ret ? ret : stream_append(t, 0, p.b, sizeof(p.b));

	pkt_start(&p, 0, 3, 9500, 5);
	add_switch(&p, 10000, 0, "swapper/0", 0, 120, 0,
		   "abcdefghijklmnop", 33, -51);
	add_blob(&p, 12000, 7);
	pkt_finish(&p, 12500);
	ret = ret ? ret : stream_append(t, 0, p.b, sizeof(p.b));

	pkt_start(&p, 1, 0, 1500, 0);
	add_switch(&p, 2000, 44, "sh", 44, 120, 0x2, "kworker/1:1", 21,
		   100);
	add_irq(&p, 4000, 21, -2, "");
	pkt_finish(&p, 4500);
	ret = ret ? ret : stream_append(t, 1, p.b, sizeof(p.b));

	pkt_start(&p, 1, 1, 7600, 2);
	add_kmalloc(&p, 8000, 44, 0xffffffffc0001234ULL, 0, 0, 0, 0, 0);
	add_irq(&p, 9000, 0, 5, "abcdefghijklmnopqrstuvwxyz0");
	add_gaps(&p, 11000, 44, 0, 1, 0xdeadbeef, 127, "x\0\0", 42);
	pkt_finish(&p, 11500);
	ret = ret ? ret : stream_append(t, 1, p.b, sizeof(p.b));
	return ret;
}

/* --- running programs ----------------------------------------------------- */

struct run {
	char *out;			/* stdout */
	size_t len;
	char *err;			/* stderr */
	int status;
};

static char *slurp(const char *path)
{
	struct stat st;
	char *p = NULL;
	FILE *f = fopen(path, "r");
	size_t n;

	if (f && !fstat(fileno(f), &st) && (p = malloc((size_t)st.st_size + 1))) {
		n = fread(p, 1, (size_t)st.st_size, f);
		p[n] = '\0';
	}
	if (f)
		fclose(f);
	return p;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

/* run @argv, capturing stdout and stderr; -1 if it could not be started */
static int run(char *const argv[], struct run *r)
{
	char errpath[PATH_MAX + 16];
	size_t cap = 65536;
	int pfd[2], fd;
	ssize_t n;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	snprintf(errpath, sizeof(errpath), "%s/.stderr", tmp_root);
	r->out = malloc(cap);
	if (!r->out || pipe2(pfd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open("/dev/null", O_RDONLY);
		dup2(fd, 0);
		dup2(pfd[1], 1);
		fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		alarm(120);		/* a hung reader fails, never hangs */
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		if (r->len + 1 >= cap) {
			char *q = realloc(r->out, cap * 2);

			if (!q)
				break;
			r->out = q;
			cap *= 2;
		}
		n = read(pfd[0], r->out + r->len, cap - r->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		r->len += (size_t)n;
	}
	r->out[r->len] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
		;
	r->err = slurp(errpath);
	if (!r->err)
		r->err = strdup("");
	return 0;
}

static int exited_ok(const struct run *r)
{
	if (WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0)
		return 1;
	fprintf(stderr, "\n    exit status %#x; stderr (end):\n%s\n", r->status,
		r->err && strlen(r->err) > 1500 ?
		r->err + strlen(r->err) - 1500 : r->err);
	return 0;
}

/*
 * python3-bt2 dump, one line per message, every value exact:
 *   V key=value                environment (strings: hex of their bytes)
 *   K host ring cycles {packet context}
 *   E host ring cycles ns name {event context} {payload}
 *   D host ring count=N        discarded events
 *   P host ring count=N        discarded packets
 * where host is the trace's env hostname (the guest's nodename).
 * "--each DIR..." reads each trace alone, prints no V or K lines and no
 * ns, and ends each trace with "END DIR" or "ERR DIR reason"; otherwise
 * all DIRs are read as one muxed collection.
 */
static const char bt_dump_py[] =
"import bt2, sys\n"
"def val(f):\n"
"    if isinstance(f, bt2._StringFieldConst):\n"
"        return 's:' + str(f).encode('utf-8', 'surrogateescape').hex()\n"
"    if isinstance(f, bt2._IntegerFieldConst):\n"
"        return str(int(f))\n"
"    if isinstance(f, bt2._ArrayFieldConst):\n"
"        return '[' + ','.join(val(x) for x in f) + ']'\n"
"    if isinstance(f, bt2._StructureFieldConst):\n"
"        return '{' + ','.join(k + '=' + val(v) for k, v in f.items()) + '}'\n"
"    return '?'\n"
"def env(v):\n"
"    if isinstance(v, bt2._StringValueConst):\n"
"        return 's:' + str(v).encode('utf-8', 'surrogateescape').hex()\n"
"    return str(int(v))\n"
"def dump(paths, full):\n"
"    seen = set()\n"
"    for m in bt2.TraceCollectionMessageIterator(paths):\n"
"        t = type(m)\n"
"        if t is bt2._StreamBeginningMessageConst:\n"
"            tr = m.stream.trace\n"
"            if full and str(tr.uuid) not in seen:\n"
"                seen.add(str(tr.uuid))\n"
"                for k in sorted(tr.environment.keys()):\n"
"                    print('V', k + '=' + env(tr.environment[k]))\n"
"            continue\n"
"        if t is bt2._EventMessageConst:\n"
"            s = m.event.stream\n"
"        elif t is bt2._PacketBeginningMessageConst:\n"
"            s = m.packet.stream\n"
"        elif t in (bt2._DiscardedEventsMessageConst,\n"
"                   bt2._DiscardedPacketsMessageConst):\n"
"            s = m.stream\n"
"        else:\n"
"            continue\n"
"        pre = str(s.trace.environment['hostname']) + ' ' + str(s.id)\n"
"        if t is bt2._EventMessageConst:\n"
"            c = m.default_clock_snapshot\n"
"            print('E', pre, c.value, c.ns_from_origin if full else '-',\n"
"                  m.event.name, val(m.event.common_context_field),\n"
"                  val(m.event.payload_field))\n"
"        elif t is bt2._PacketBeginningMessageConst:\n"
"            if full:\n"
"                print('K', pre, m.default_clock_snapshot.value,\n"
"                      val(m.packet.context_field))\n"
"        elif t is bt2._DiscardedEventsMessageConst:\n"
"            print('D', pre, 'count=' + str(m.count))\n"
"        else:\n"
"            print('P', pre, 'count=' + str(m.count))\n"
"if sys.argv[1] == '--each':\n"
"    for p in sys.argv[2:]:\n"
"        try:\n"
"            dump([p], False)\n"
"            print('END', p)\n"
"        except Exception as e:\n"
"            r = str(e).strip().splitlines()\n"
"            print('ERR', p, r[-1] if r else type(e).__name__)\n"
"else:\n"
"    dump(sys.argv[1:], True)\n";

static int bt_dump(char **dirs, unsigned int n, int each, struct run *r)
{
	char *argv[80];
	unsigned int i, k = 0;

	if (n + 5 > ARRAY_SIZE(argv))
		return -1;
	argv[k++] = PYTHON;
	argv[k++] = "-c";
	argv[k++] = (char *)bt_dump_py;
	if (each)
		argv[k++] = "--each";
	for (i = 0; i < n; i++)
		argv[k++] = dirs[i];
	argv[k] = NULL;
	return run(argv, r);
}

/* compare line by line, printing the first difference */
static int same_text(const char *got, const char *want)
{
	const char *g = got, *w = want, *gl = got, *wl = want;
	unsigned int line = 1;

	while (*g && *g == *w) {
		if (*g == '\n') {
			line++;
			gl = g + 1;
			wl = w + 1;
		}
		g++;
		w++;
	}
	if (!*g && !*w)
		return 1;
	fprintf(stderr, "\n    first difference at line %u:\n    got:  %.*s\n"
		"    want: %.*s\n", line, (int)strcspn(gl, "\n"), gl,
		(int)strcspn(wl, "\n"), wl);
	return 0;
}

/* @text without its lines that start with @prefix (malloc()ed) */
static char *drop_lines(const char *text, const char *prefix)
{
	char *out = malloc(strlen(text) + 1), *o = out;
	const char *p = text, *nl;
	size_t n;

	if (!out)
		return NULL;
	while (*p) {
		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p + 1) : strlen(p);
		if (strncmp(p, prefix, strlen(prefix))) {
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	*o = '\0';
	return out;
}

static unsigned int count_lines(const char *text, const char *prefix)
{
	unsigned int n = 0;
	const char *p = text;

	/* lines holding @prefix: event lines start with the tid, then [cpu] */
	while (p && *p) {
		const char *end = strchr(p, '\n'), *hit = strstr(p, prefix);

		if (hit && (!end || hit < end))
			n++;
		p = end ? end + 1 : NULL;
	}
	return n;
}

/* gr_report() or gr_report_summary() into a string */
static int report_text(const char *dir, const struct gr_report_opts *o,
		       int summary, char **text)
{
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	int ret;

	if (!f)
		return -ENOMEM;
	ret = summary ? gr_report_summary(dir, f, f) : gr_report(dir, f, f, o);
	fclose(f);
	return ret;
}

/* --- the synthetic trace, as babeltrace2 and the report must see it ------- */

static struct trace syn;		/* built once by the suite */

static const char syn_dump[] =
"K guest1 0 900 {cpu_id=0}\n"
"E guest1 0 1000 1700000000500001000 sched_switch {size=72,tid=12} {prev_comm=s:62617368,prev_tid=12,prev_prio=120,prev_state=1,next_comm=s:737761707065722f30,next_tid=0,next_prio=120}\n"
"K guest1 1 1500 {cpu_id=1}\n"
"E guest1 1 2000 1700000000500002000 sched_switch {size=72,tid=44} {prev_comm=s:7368,prev_tid=44,prev_prio=120,prev_state=2,next_comm=s:6b776f726b65722f313a31,next_tid=21,next_prio=100}\n"
"E guest1 0 3000 1700000000500003000 irq_handler_entry {size=40,tid=0} {irq=11,name=s:76697274696f302d696e707574}\n"
"E guest1 1 4000 1700000000500004000 irq_handler_entry {size=24,tid=21} {irq=-2,name=s:}\n"
"D guest1 1 count=2\n"
"E guest1 0 5000 1700000000500005000 kmem_kmalloc {size=56,tid=12} {call_site=18446744071581156711,ptr=18446612682133262336,bytes_req=100,bytes_alloc=128,gfp_flags=3264,node=-1}\n"
"K guest1 0 5600 {cpu_id=0}\n"
"E guest1 0 6000 1700000000500006000 gaps {size=64,tid=7} {a=255,_gr_pad1=[238,238,238],b=65535,_gr_pad6=[238,238,238],c=305419896,d=-128,e=s:616263,f=18446744073709551615,_gr_pad32=[238,238,238,238,238,238,238,238,238,238,238,238,238,238,238,238]}\n"
"E guest1 0 7000 1700000000500007000 tick {size=16,tid=1} {}\n"
"D guest1 0 count=5\n"
"P guest1 0 count=1\n"
"K guest1 1 7600 {cpu_id=1}\n"
"E guest1 1 8000 1700000000500008000 kmem_kmalloc {size=56,tid=44} {call_site=18446744072635814452,ptr=0,bytes_req=0,bytes_alloc=0,gfp_flags=0,node=0}\n"
"E guest1 1 9000 1700000000500009000 irq_handler_entry {size=48,tid=0} {irq=5,name=s:6162636465666768696a6b6c6d6e6f707172737475767778797a30}\n"
"K guest1 0 9500 {cpu_id=0}\n"
"E guest1 0 10000 1700000000500010000 sched_switch {size=72,tid=0} {prev_comm=s:737761707065722f30,prev_tid=0,prev_prio=120,prev_state=0,next_comm=s:6162636465666768696a6b6c6d6e6f70,next_tid=33,next_prio=-51}\n"
"E guest1 1 11000 1700000000500011000 gaps {size=64,tid=44} {a=0,_gr_pad1=[238,238,238],b=1,_gr_pad6=[238,238,238],c=3735928559,d=127,e=s:78,f=42,_gr_pad32=[238,238,238,238,238,238,238,238,238,238,238,238,238,238,238,238]}\n"
"E guest1 0 12000 1700000000500012000 blob {size=32,tid=7} {_gr_pad0=[90,90,90,90,90,90,90,90,90,90,90,90]}\n";

static const char syn_report[] =
"# guestrelay trace of guest1 (Linux 6.1.0-56-amd64): 2 per-CPU rings, clock mono_fast at 1000000000 Hz, guest time\n"
"     12 [000]     0.000001000: sched_switch: prev_comm=bash prev_tid=12 prev_prio=120 prev_state=0x1 next_comm=swapper/0 next_tid=0 next_prio=120\n"
"     44 [001]     0.000002000: sched_switch: prev_comm=sh prev_tid=44 prev_prio=120 prev_state=0x2 next_comm=kworker/1:1 next_tid=21 next_prio=100\n"
"      0 [000]     0.000003000: irq_handler_entry: irq=11 name=virtio0-input\n"
"     21 [001]     0.000004000: irq_handler_entry: irq=-2 name=\n"
"     12 [000]     0.000005000: kmalloc: call_site=0xffffffff81234567 ptr=0xffff888003c4d000 bytes_req=100 bytes_alloc=128 gfp_flags=0xcc0 node=-1\n"
"      7 [000]     0.000006000: gaps: a=255 b=65535 c=0x12345678 d=-128 e=abc f=18446744073709551615\n"
"      1 [000]     0.000007000: tick:\n"
"        [001]     0.000007600: ** 2 events discarded by the guest\n"
"     44 [001]     0.000008000: kmalloc: call_site=0xffffffffc0001234 ptr=0x0 bytes_req=0 bytes_alloc=0 gfp_flags=0x0 node=0\n"
"      0 [001]     0.000009000: irq_handler_entry: irq=5 name=abcdefghijklmnopqrstuvwxyz0\n"
"        [000]     0.000009500: ** lost 1 packet (seq 2)\n"
"        [000]     0.000009500: ** 5 events discarded by the guest\n"
"      0 [000]     0.000010000: sched_switch: prev_comm=swapper/0 prev_tid=0 prev_prio=120 prev_state=0x0 next_comm=abcdefghijklmnop next_tid=33 next_prio=-51\n"
"     44 [001]     0.000011000: gaps: a=0 b=1 c=0xdeadbeef d=127 e=x f=42\n"
"      7 [000]     0.000012000: blob:\n";

static void test_babeltrace_decodes_every_value_exactly(void)
{
	char *dirs[] = { syn.dir }, *got;
	struct run r;

	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 1, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	got = drop_lines(r.out, "V ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT(same_text(got, syn_dump));
	free(got);
	run_free(&r);
}

/* the CLI: events in time order, text arrays as text, hex as hex */
static void test_babeltrace_cli_prints_events_and_loss_warnings(void)
{
	char *argv[] = { "babeltrace2", "--clock-seconds", syn.dir, NULL };
	const char *p;
	char prev[32] = "", cur[32];
	unsigned int n = 0;
	struct run r;

	CU_ASSERT_EQUAL_FATAL(run(argv, &r), 0);
	CU_ASSERT(exited_ok(&r));
	/* one line per event, each "[seconds] ..." in increasing order */
	for (p = r.out; *p; p = strchr(p, '\n') + 1) {
		CU_ASSERT_EQUAL(sscanf(p, "[%31[0-9.]]", cur), 1);
		CU_ASSERT(strcmp(prev, cur) < 0);
		strcpy(prev, cur);
		n++;
		if (!strchr(p, '\n'))
			break;
	}
	CU_ASSERT_EQUAL(n, 12);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"[1700000000.500001000] (+?.\?\?\?\?\?\?\?\?\?) guest1 "
		"sched_switch: "
		"{ cpu_id = 0 }, { size = 72, tid = 12 }, { prev_comm = "
		"\"bash\", prev_tid = 12, prev_prio = 120, prev_state = 0x1, "
		"next_comm = \"swapper/0\", next_tid = 0, next_prio = 120 }\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"guest1 kmem_kmalloc: { cpu_id = 0 }, { size = 56, tid = 12 }, { "
		"call_site = 0xFFFFFFFF81234567, ptr = 0xFFFF888003C4D000, "
		"bytes_req = 100, bytes_alloc = 128, gfp_flags = 0xCC0, "
		"node = -1 }\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "next_comm = \"abcdefghijklmnop\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "{ irq = -2, name = \"\" }"));
	/* no warning about fields babeltrace2 would drop */
	CU_ASSERT_PTR_NULL(strstr(r.err, "ignoring"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "WARNING: Tracer discarded 2 events"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "WARNING: Tracer discarded 5 events"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "WARNING: Tracer discarded 1 packet "));
	run_free(&r);
}

static void test_babeltrace_ignores_hidden_info_file(void)
{
	struct stat st;

	/* .guestrelay is in the directory the two tests above read */
	CU_ASSERT_EQUAL(fstatat(syn.dirfd, GR_CTF_INFO, &st, 0), 0);
	CU_ASSERT(st.st_size > 0);
	CU_ASSERT_NOT_EQUAL(fstatat(syn.dirfd, GR_CTF_METADATA_TMP, &st, 0), 0);
	CU_ASSERT_NOT_EQUAL(fstatat(syn.dirfd, GR_CTF_INFO_TMP, &st, 0), 0);
}

static void test_env_identifies_guest_vm_host_and_tracer(void)
{
	char *dirs[] = { syn.dir };
	struct run r;

	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 1, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	/* hex of: kernel, lttng-modules, guest1, vm1, host-a, s1, Linux */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V domain=s:6b65726e656c\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"V tracer_name=s:6c74746e672d6d6f64756c6573\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V tracer_major=2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V tracer_minor=10\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V tracer_patchlevel=0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V guestrelay_major=1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V guestrelay_minor=0\n"));
	/* hex of: s1, global, 20231114T221320+0000 */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V trace_name=s:7331\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"V trace_buffering_scheme=s:676c6f62616c\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V trace_creation_datetime=s:"
		"3230323331313134543232313332302b30303030\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V hostname=s:677565737431\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V vm_name=s:766d31\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"V host_hostname=s:686f73742d61\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V session=s:7331\n"));
	/* hex of: sched_switch: prev_tid == 5 */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V filters=s:73636865645f737769"
		"7463683a20707265765f746964203d3d2035\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V sysname=s:4c696e7578\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"V kernel_release=s:362e312e302d35362d616d643634\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V guest_nodename=s:677565737431\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V clock_synced=1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "V clock_error_ns=1500\n"));
	run_free(&r);
}

/* --- several VMs, escaping, hostile names ---------------------------------- */

/*
 * vm2: a 250 MHz clock whose 0 is host time T_HOST_S + 0.500001 s, three
 * ticks on ring 0 at guest 1.5, 3.5 and 5.5 us: host .5000025, .5000045,
 * .5000065, between the events of vm1. Ring 1 never produced: no file.
 */
static int make_vm2(struct trace *t)
{
	struct pkt p;
	int ret;

	trace_init(t, "guest2", 0x80, 250000000ULL, "vm2", 0x02);
	ret = gr_ctf_clock_from_sync(250000000ULL, 0,
				     T_HOST_S * 1000000000LL + 500001000LL,
				     1000, &t->clock);
	if (!ret)
		ret = trace_create(t, "vm2");
	if (ret)
		return ret;
	pkt_start(&p, 0, 0, 300, 0);
	pkt_add(&p, EV_TICK, 901, 375, NULL, 0);
	pkt_add(&p, EV_TICK, 902, 875, NULL, 0);
	pkt_add(&p, EV_TICK, 903, 1375, NULL, 0);
	pkt_finish(&p, 1400);
	return stream_append(t, 0, p.b, sizeof(p.b));
}

static void test_babeltrace_merges_two_vms_by_host_time(void)
{
	static const char want[] =
		"guest1 1700000000500001000\nguest1 1700000000500002000\n"
		"guest2 1700000000500002500\nguest1 1700000000500003000\n"
		"guest1 1700000000500004000\nguest2 1700000000500004500\n"
		"guest1 1700000000500005000\nguest1 1700000000500006000\n"
		"guest2 1700000000500006500\nguest1 1700000000500007000\n"
		"guest1 1700000000500008000\nguest1 1700000000500009000\n"
		"guest1 1700000000500010000\nguest1 1700000000500011000\n"
		"guest1 1700000000500012000\n";
	char *argv[] = { "babeltrace2", "--clock-seconds", syn.dir, NULL, NULL };
	char got[2048] = "", host[32], *dirs[2];
	unsigned long long cyc, ns;
	struct trace t2;
	const char *p;
	struct run r;
	int len = 0;

	CU_ASSERT_EQUAL_FATAL(make_vm2(&t2), 0);
	dirs[0] = syn.dir;
	dirs[1] = t2.dir;
	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 2, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	for (p = r.out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (sscanf(p, "E %31s %*u %llu %llu", host, &cyc, &ns) == 3)
			len += snprintf(got + len, sizeof(got) - (size_t)len,
					"%s %llu\n", host, ns);
	CU_ASSERT(same_text(got, want));
	/* vm2's ticks carry their own clock values (250 MHz cycles) */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "E guest2 0 875 1700000000500004500 "
				      "tick {size=16,tid=902} {}\n"));
	run_free(&r);

	argv[3] = t2.dir;
	CU_ASSERT_EQUAL_FATAL(run(argv, &r), 0);
	CU_ASSERT(exited_ok(&r));
	CU_ASSERT_EQUAL(count_lines(r.out, "["), 15);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "[1700000000.500004500] "
				      "(+0.000000500) guest2 tick: "));
	run_free(&r);
	trace_close(&t2);
}

static void hex_of(char *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	for (; *s; s++) {
		*out++ = hex[(unsigned char)*s >> 4];
		*out++ = hex[(unsigned char)*s & 15];
	}
	*out = '\0';
}

/* operator strings reach the metadata escaped, byte for byte */
static void test_env_strings_are_escaped_byte_for_byte(void)
{
	const char *vm = "vm \"q\" \\ x\n\t\x01\x7f\xc3\xa9 \\\"";
	const char *host = "h\"; }; env { injected = 1; }; /*";
	const char *session = "*/ s\\";
	char want[512], hex[256], *dirs[1];
	struct trace t;
	struct pkt p;
	struct run r;

	trace_init(&t, "esc", 0x10, 1000000000ULL, vm, 0x03);
	t.env.host_name = host;
	t.env.session = session;
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "esc"), 0);
	pkt_start(&p, 0, 0, 1, 0);
	pkt_add(&p, EV_TICK, 1, 2, NULL, 0);
	pkt_finish(&p, 3);
	CU_ASSERT_EQUAL_FATAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);

	dirs[0] = t.dir;
	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 1, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	hex_of(hex, vm);
	snprintf(want, sizeof(want), "V vm_name=s:%s\n", hex);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
	hex_of(hex, host);
	snprintf(want, sizeof(want), "V host_hostname=s:%s\n", hex);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
	hex_of(hex, session);
	snprintf(want, sizeof(want), "V session=s:%s\n", hex);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
	CU_ASSERT_PTR_NULL(strstr(r.out, "injected"));
	CU_ASSERT_EQUAL(count_lines(r.out, "E esc 0 2 "), 1);
	run_free(&r);
	trace_close(&t);
}

/* names the validator accepts, chosen to collide with TSDL and our own */
static const char *const odd_field_names[][16] = {
	{ "id", "timestamp", "magic", "stream_id", "uint8_t",
	  "uint64_clock_t", "size", "tid", "map", "base", "encoding", "utf8",
	  "true", "false", "le", "name" },
	{ "__", "_x", "cpu_id", "fields", "gr_pad0", "gr_tail", "x_gr_",
	  "_gr", "packet", "header", "context", "value", "offset", "freq",
	  "absolute", "events_discarded" },
};

static const char *const odd_event_names[] = {
	"event", "struct", "clock", "trace", "env", "stream", "typealias",
	"string", "integer", "enum",
};

static void test_hostile_names_cannot_inject_tsdl(void)
{
	static const char *const bad[] = {
		"a\"b", "a b", "A", "1a", "a;", "a}", "", "_", "a\\",
		"a\n",
	};
	char want[1024], *dirs[1];
	struct gr_event_desc *d;
	const char *why;
	struct gr_event_view ev;
	unsigned int i, j, len;
	struct trace t;
	uint8_t pl[16];
	struct pkt p;
	struct run r;

	memset(&t, 0, sizeof(t));
	t.dirfd = -1;
	t.nd = ARRAY_SIZE(odd_event_names);
	make_hdr(&t.h, t.nd, 0x20, "names", 1000000000ULL);
	synthetic_env(&t, "names", 0x05);
	for (i = 0; i < t.nd; i++) {
		d = &t.d[i];
		gr_build_event(d, (uint16_t)i, odd_event_names[i], "typedef",
			       i < 2 ? 16 : 0, 0, i < 2 ? 16 : 0);
		for (j = 0; i < 2 && j < 16; j++)
			gr_build_field(&d->fields[j], odd_field_names[i][j],
				       (uint16_t)j, 1, INT, 0);
	}
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "names"), 0);
	pkt_start(&p, 0, 0, 1, 0);
	for (i = 0; i < 16; i++)
		pl[i] = (uint8_t)(i + 1);
	for (i = 0; i < t.nd; i++)
		pkt_add(&p, (uint16_t)i, i, 10 + i, pl, i < 2 ? 16 : 0);
	pkt_finish(&p, 100);
	CU_ASSERT_EQUAL_FATAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);

	dirs[0] = t.dir;
	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 1, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	for (i = 0; i < t.nd; i++) {
		len = (unsigned int)snprintf(want, sizeof(want),
			"E names 0 %u %u %s {size=%u,tid=%u} {", 10 + i,
			10 + i, odd_event_names[i],
			i < 2 ? 32 : 16, i);
		for (j = 0; i < 2 && j < 16; j++)
			len += (unsigned int)snprintf(want + len,
				sizeof(want) - len, "%s=%u,",
				odd_field_names[i][j], j + 1);
		if (want[len - 1] == ',')
			len--;
		snprintf(want + len, sizeof(want) - len, "}\n");
		CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
		if (!strstr(r.out, want))
			fprintf(stderr, "\n    missing: %s", want);
	}
	run_free(&r);
	trace_close(&t);

	/* what the validator refuses never reaches the writer */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct gr_event_desc dd[T_NDESC];

		make_descs(dd);
		memset(dd[0].fields[0].name, 0, sizeof(dd[0].fields[0].name));
		memcpy(dd[0].fields[0].name, bad[i], strlen(bad[i]));
		CU_ASSERT_NOT_EQUAL(gr_check_event_desc(&t.v, &dd[0], 0, &ev,
							&why), 0);
		make_descs(dd);
		memset(dd[0].name, 0, sizeof(dd[0].name));
		memcpy(dd[0].name, bad[i], strlen(bad[i]));
		if (strcmp(bad[i], "_"))	/* fine inside quotes */
			CU_ASSERT_NOT_EQUAL(gr_check_event_desc(&t.v, &dd[0], 0,
								&ev, &why), 0);
	}
}

/* clock names the validator accepts that are also TSDL words or ours */
static void test_odd_clock_names_still_parse(void)
{
	static const char *const names[] = {
		"uint64_clock_t", "uint8_t", "value", "name", "freq", "offset",
		"absolute", "clock_t", "gr_tail",
	};
	char dirs_buf[ARRAY_SIZE(names)][PATH_MAX], *dirs[ARRAY_SIZE(names)];
	char want[PATH_MAX + 8];
	unsigned int i;
	struct trace t;
	struct pkt p;
	struct run r;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char name[64];

		trace_init(&t, "clk", 0x30, 1000000000ULL, "clk",
			   (uint8_t)(0x40 + i));
		strcpy(t.h.clock_name, names[i]);
		snprintf(name, sizeof(name), "clock_%u", i);
		CU_ASSERT_EQUAL_FATAL(trace_create(&t, name), 0);
		pkt_start(&p, 0, 0, 1, 0);
		pkt_add(&p, EV_TICK, 1, 2, NULL, 0);
		pkt_finish(&p, 3);
		CU_ASSERT_EQUAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);
		strcpy(dirs_buf[i], t.dir);
		dirs[i] = dirs_buf[i];
		trace_close(&t);
	}
	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, ARRAY_SIZE(names), 1, &r), 0);
	CU_ASSERT(exited_ok(&r));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(want, sizeof(want), "END %s\n", dirs[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
		if (!strstr(r.out, want))
			fprintf(stderr, "\n    clock name %s: not read\n",
				names[i]);
	}
	CU_ASSERT_EQUAL(count_lines(r.out, "E clk 0 2 - tick "), ARRAY_SIZE(names));
	run_free(&r);
}

/* a view that did not come from the validator is still not trusted */
/* spec 7.5: tracepoint names in descriptors, lttng-modules' in metadata */
static void test_metadata_names_events_as_lttng_modules(void)
{
	struct gr_event_view ev[T_NDESC];
	struct gr_view v = syn.v;
	size_t len;
	char *text;

	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("irq", "softirq_entry"),
			       "irq_softirq_entry");
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("net", "netif_receive_skb"),
			       "net_if_receive_skb");
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("kmem", "mm_page_alloc"),
			       "kmem_mm_page_alloc");
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("raw_syscalls", "sys_exit"),
			       "syscall_exit_unknown");
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("sched", "sched_switch"),
			       "sched_switch");
	/* the system is part of the key */
	CU_ASSERT_STRING_EQUAL(gr_ctf_event_name("sched", "kmalloc"),
			       "kmalloc");

	memcpy(ev, syn.ev, sizeof(ev));
	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL,
					      &text, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "name = \"kmem_kmalloc\";"));
	CU_ASSERT_PTR_NULL(strstr(text, "name = \"kmalloc\";"));
	free(text);
	/* a guest that publishes the target name too keeps both its own */
	strcpy(ev[EV_SWITCH].name, "kmem_kmalloc");
	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL,
					      &text, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "name = \"kmalloc\";"));
	CU_ASSERT_PTR_NOT_NULL(strstr(strstr(text, "name = \"kmem_kmalloc\";")
				      + 1, "name = \"kmalloc\";"));
	free(text);
}

/* count the occurrences of @needle in @hay */
static unsigned int count_str(const char *hay, const char *needle)
{
	unsigned int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay++;
	}
	return n;
}

/*
 * Every native call of this machine's asm/unistd_64.h below 451 (the
 * committed table's Linux 6.1, scripts/gen-syscalls.sh) is declared under
 * its name at @base + its number.
 */
static void check_syscall_names(const char *text, unsigned int base)
{
	static const char hdr[] = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h";
	char line[256], name[128], want[200];
	unsigned int nr, n = 0, bad = 0;
	FILE *f = fopen(hdr, "r");

	if (!f) {
		printf("\n    note: no %s, names not compared\n", hdr);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "#define __NR_%100s %u", name, &nr) != 2 ||
		    nr >= 451)
			continue;
		snprintf(want, sizeof(want), "name = \"syscall_entry_%s\";\n"
			 "\tid = %u;", name, base + nr);
		n++;
		if (!strstr(text, want)) {
			if (!bad++)
				fprintf(stderr, "\n    missing: %s\n", want);
		}
	}
	fclose(f);
	CU_ASSERT_TRUE(n >= 300);
	CU_ASSERT_EQUAL(bad, 0);
}

/*
 * spec 7.5, "System call events": one event class per family member,
 * named as lttng-modules names system calls, with the descriptor's fields
 */
static void test_metadata_names_every_system_call(void)
{
	struct gr_event_view ev[T_NDESC];
	struct gr_view v = syn.v;
	const char *why = NULL;
	char want[160], *text, *p;
	size_t len;

	memcpy(ev, syn.ev, sizeof(ev));
	v.features |= GR_F_SYSCALLS;
	/* the kmalloc and tick descriptors play sys_enter and sys_exit */
	strcpy(ev[EV_KMALLOC].name, "sys_enter");
	strcpy(ev[EV_KMALLOC].system, "raw_syscalls");
	ev[EV_KMALLOC].family_base = 100;
	ev[EV_KMALLOC].family_count = 451;
	strcpy(ev[EV_TICK].name, "sys_exit");
	strcpy(ev[EV_TICK].system, "raw_syscalls");
	ev[EV_TICK].family_base = 100 + 451;
	ev[EV_TICK].family_count = 451;
	CU_ASSERT_EQUAL_FATAL(gr_check_families(&v, ev, T_NDESC, &why), 0);
	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL,
					      &text, &len), 0);
	CU_ASSERT_EQUAL(count_str(text, "event {"), T_NDESC + 2 * 451);
	/* the descriptors' own events stay, for calls outside the family */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "name = \"syscall_entry_unknown\";"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "name = \"syscall_exit_unknown\";"));
	/* getppid is 110, read 0, the last of 6.1 450; 335 has no name */
	snprintf(want, sizeof(want), "name = \"syscall_entry_getppid\";\n"
		 "\tid = %u;", 100 + 110);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	snprintf(want, sizeof(want), "name = \"syscall_exit_read\";\n"
		 "\tid = %u;", 100 + 451);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	snprintf(want, sizeof(want), "name = \"syscall_entry_nr335\";\n"
		 "\tid = %u;", 100 + 335);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	snprintf(want, sizeof(want), "name = \"syscall_exit_"
		 "set_mempolicy_home_node\";\n\tid = %u;", 100 + 451 + 450);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	/* a member's fields are its descriptor's: kmalloc's here */
	p = strstr(text, "name = \"syscall_entry_getppid\";");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_PTR_NOT_NULL(strstr(p, "_gfp_flags"));
	CU_ASSERT_TRUE(strstr(p, "_gfp_flags") < strstr(p + 1, "event {"));
	CU_ASSERT_EQUAL(count_str(text, "syscall_entry_"), 451 + 1);
	CU_ASSERT_EQUAL(count_str(text, "syscall_exit_"), 451 + 1);
	check_syscall_names(text, 100);
	free(text);

	/* without gr_check_families() (or after a refusal): no member */
	v.nr_families = 0;
	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL,
					      &text, &len), 0);
	CU_ASSERT_EQUAL(count_str(text, "event {"), T_NDESC);
	free(text);
	/* a family whose descriptor is not among the views is refused */
	CU_ASSERT_EQUAL_FATAL(gr_check_families(&v, ev, T_NDESC, &why), 0);
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, EV_KMALLOC, &syn.env, NULL,
					&text, &len), -EINVAL);
}

/* spec 7.5: uname -v and the DMI product UUID, when the guest has them */
static void test_env_has_guest_kernel_version_and_product_uuid(void)
{
	struct gr_view v = syn.v;
	size_t len;
	char *text;
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&v, syn.ev, T_NDESC, &syn.env,
					      NULL, &text, &len), 0);
	CU_ASSERT_PTR_NULL(strstr(text, "kernel_version ="));
	CU_ASSERT_PTR_NULL(strstr(text, "product_uuid ="));
	free(text);
	strcpy(v.kernel_version, "#1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1");
	for (i = 0; i < 16; i++)
		v.product_uuid[i] = (uint8_t)(0xa0 + i);
	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&v, syn.ev, T_NDESC, &syn.env,
					      NULL, &text, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\tkernel_version = \"#1 SMP "
				      "PREEMPT_DYNAMIC Debian 6.1.158-1\";\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\tproduct_uuid = \"a0a1a2a3-"
				      "a4a5-a6a7-a8a9-aaabacadaeaf\";\n"));
	free(text);
}

static void test_metadata_refuses_unsafe_or_inexpressible_views(void)
{
	struct gr_event_view ev[T_NDESC], e;
	struct gr_view v = syn.v;
	size_t len;
	char *text;

	memcpy(ev, syn.ev, sizeof(ev));
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), 0);
	CU_ASSERT_EQUAL(strncmp(text, "/* CTF 1.8 */\n", 14), 0);
	CU_ASSERT_EQUAL(len, strlen(text));
	free(text);

	e = ev[EV_SWITCH];
	strcpy(e.name, "x\"; }; event { name = \"y");
	ev[EV_SWITCH] = e;
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	ev[EV_SWITCH] = syn.ev[EV_SWITCH];

	e = ev[EV_KMALLOC];
	strcpy(e.fields[1].name, "a; } _b");
	ev[EV_KMALLOC] = e;
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	strcpy(e.fields[1].name, "_gr_pad8");	/* reserved by spec 7.4 */
	ev[EV_KMALLOC] = e;
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	ev[EV_KMALLOC] = syn.ev[EV_KMALLOC];

	/* a string that is not the last field by offset cannot be CTF */
	e = ev[EV_IRQ];
	e.fields[0].offset = 28;
	e.fields[1].offset = 0;
	ev[EV_IRQ] = e;
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	ev[EV_IRQ] = syn.ev[EV_IRQ];

	/* ids out of order, more events than the header has, bad clock */
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev + 1, 2, &syn.env, NULL, &text,
					&len), 0);
	free(text);
	e = ev[0];
	ev[0] = ev[1];
	ev[1] = e;
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	memcpy(ev, syn.ev, sizeof(ev));
	v.desc_count = T_NDESC - 1;
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	v = syn.v;
	strcpy(v.clock_name, "a b");
	CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, NULL, &text,
					&len), -EINVAL);
	v = syn.v;
	e.fields[0].name[0] = 0;
	{
		struct gr_ctf_clock c = syn.clock;

		c.offset = v.clock_freq;	/* not normalized */
		CU_ASSERT_EQUAL(gr_ctf_metadata(&v, ev, T_NDESC, &syn.env, &c,
						&text, &len), -EINVAL);
	}
	CU_ASSERT_EQUAL(gr_ctf_write_metadata(syn.dirfd, "/* CTF 1.7 */", 13, NULL),
			-EINVAL);
}

/* --- random views ----------------------------------------------------------- */

#define FUZZ_TRACES	40

static void rnd_ident(char *out, size_t cap, const char *prefix)
{
	size_t n = strlen(prefix), k = rnd() % 6, i;

	memcpy(out, prefix, n);
	for (i = 0; i < k && n + 1 < cap; i++)
		out[n++] = "abcdefghijklmnopqrstuvwxyz0123456789_"[rnd() % 37];
	out[n] = '\0';
}

/* a random, valid descriptor; fields in offset order with random gaps */
static void fuzz_desc(struct gr_event_desc *d, unsigned int id)
{
	unsigned int nf = (unsigned int)(rnd() % 8), i;
	int varlen = nf && !(rnd() % 3);
	uint32_t pos = 0, off, size;
	char name[GR_FIELD_NAME_LEN], ename[GR_NAME_LEN];
	uint8_t type, flags;

	memset(d, 0, sizeof(*d));
	snprintf(name, sizeof(name), "e%u_", id);
	rnd_ident(ename, sizeof(ename), name);
	for (i = 0; i < nf; i++) {
		off = pos + (rnd() % 3 ? 0 : (uint32_t)(rnd() % 6));
		flags = 0;
		if (varlen && i + 1 == nf) {
			type = STR;
			size = 1 + (uint32_t)(rnd() % 24);
		} else if (rnd() % 4) {
			type = INT;
			size = 1U << (rnd() % 4);
			flags = (uint8_t)(rnd() % 4);
		} else {
			type = CHR;
			size = 1 + (uint32_t)(rnd() % 12);
		}
		snprintf(name, sizeof(name), "%sf%u_", rnd() % 5 ? "" : "_", i);
		rnd_ident(name, sizeof(name), name);
		gr_build_field(&d->fields[i], name, (uint16_t)off, (uint16_t)size,
			       type, flags);
		pos = off + size;
	}
	if (!varlen && !(rnd() % 3))
		pos += (uint32_t)(rnd() % 12);
	gr_build_event(d, (uint16_t)id, ename, "fz", (uint16_t)pos,
		       varlen ? GR_EVENT_F_VARLEN : 0, (uint16_t)nf);
}

/* append "name=value," for each byte array, as the dump prints them */
static int fmt_bytes(char *o, size_t cap, const char *name,
		     const uint8_t *b, uint32_t n)
{
	int len = snprintf(o, cap, "%s=[", name);
	uint32_t i;

	for (i = 0; i < n; i++)
		len += snprintf(o + len, cap - (size_t)len, "%s%u",
				i ? "," : "", b[i]);
	return len + snprintf(o + len, cap - (size_t)len, "],");
}

/*
 * Spec 7.5: is the gap from @pos to integer field @f skipped by the
 * field's own alignment (a power of two up to its size, 8 at most)?
 */
static int natural_gap(const struct gr_field_view *f, uint32_t pos)
{
	uint32_t a;

	if (f->type != GR_FIELD_INTEGER)
		return 0;
	for (a = f->size > 8 ? 8 : f->size; a > 1; a /= 2)
		if (!(f->offset % a) && (pos + a - 1) / a * a == f->offset)
			return 1;
	return 0;
}

/*
 * One random record of event @ev into @p, and the line the dump must
 * print for it into @o (spec 7.5: fields by offset, gaps no alignment
 * explains as __gr_pad<o>, a fixed-size tail gap that reaches another
 * 8-byte word too; one '_' stripped).
 */
static int fuzz_record(struct pkt *p, const struct gr_event_view *ev,
		       uint64_t ts, uint32_t tid, char *o, size_t cap)
{
	uint8_t b[1024];
	uint32_t pos = 0, plen = ev->payload_size, i, k, n;
	int len;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)rnd();
	for (i = 0; i < ev->nr_fields; i++) {
		const struct gr_field_view *f = &ev->fields[i];

		if (f->type == GR_FIELD_CHARS || f->type == GR_FIELD_STRING) {
			n = (uint32_t)(rnd() % (f->size + 1));
			if (f->type == GR_FIELD_STRING && n == f->size)
				n--;
			for (k = 0; k < f->size; k++)
				b[f->offset + k] = k < n ?
					(uint8_t)('a' + rnd() % 26) : 0;
			if (f->type == GR_FIELD_STRING)
				plen = f->offset + n + 1;
		}
	}
	pkt_add(p, ev->id, tid, ts, b, plen);

	len = snprintf(o, cap, "E fuzz 0 %llu - %s {size=%u,tid=%u} {",
		       (unsigned long long)ts, ev->name, ALIGN8(16 + plen), tid);
	for (i = 0; i < ev->nr_fields; i++) {
		const struct gr_field_view *f = &ev->fields[i];
		char pad[32];
		uint64_t v = 0;

		if (pos < f->offset && !natural_gap(f, pos)) {
			snprintf(pad, sizeof(pad), "_gr_pad%u", pos);
			len += fmt_bytes(o + len, cap - (size_t)len, pad, b + pos,
					 f->offset - pos);
		}
		len += snprintf(o + len, cap - (size_t)len, "%s=", f->name);
		if (f->type == GR_FIELD_INTEGER) {
			for (k = 0; k < f->size; k++)
				v |= (uint64_t)b[f->offset + k] << (8 * k);
			if ((f->flags & GR_FIELD_F_SIGNED) && f->size < 8 &&
			    (v >> (8 * f->size - 1)))
				v |= ~0ULL << (8 * f->size);
			if (f->flags & GR_FIELD_F_SIGNED)
				len += snprintf(o + len, cap - (size_t)len,
						"%lld,", (long long)v);
			else
				len += snprintf(o + len, cap - (size_t)len,
						"%llu,", (unsigned long long)v);
		} else {
			len += snprintf(o + len, cap - (size_t)len, "s:");
			for (k = 0; k < f->size && b[f->offset + k]; k++)
				len += snprintf(o + len, cap - (size_t)len,
						"%02x", b[f->offset + k]);
			len += snprintf(o + len, cap - (size_t)len, ",");
		}
		pos = f->offset + f->size;
	}
	if (!(ev->flags & GR_EVENT_F_VARLEN) &&
	    ALIGN8(pos) < ALIGN8(ev->payload_size)) {
		char pad[32];

		snprintf(pad, sizeof(pad), "_gr_pad%u", pos);
		len += fmt_bytes(o + len, cap - (size_t)len, pad, b + pos,
				 ev->payload_size - pos);
	}
	if (o[len - 1] == ',')
		len--;
	return len + snprintf(o + len, cap - (size_t)len, "}\n");
}

static void test_random_views_babeltrace_decodes_exactly(void)
{
	static const uint64_t freqs[] = {
		1000000000ULL, 250000000ULL, 1000000ULL, 2400000000ULL, 1ULL,
	};
	char dirs_buf[FUZZ_TRACES][PATH_MAX], *dirs[FUZZ_TRACES];
	static char want[FUZZ_TRACES][65536];
	unsigned int i, k, nrec, bad = 0;
	const char *start, *end;
	char name[32], *rep;
	struct trace t;
	struct pkt p;
	struct run r;
	uint64_t ts;

	for (i = 0; i < FUZZ_TRACES; i++) {
		size_t wl = 0;
		uint64_t freq = freqs[rnd() % ARRAY_SIZE(freqs)];
		int ret;

		memset(&t, 0, sizeof(t));
		t.dirfd = -1;
		t.nd = 1 + (unsigned int)(rnd() % 8);
		make_hdr(&t.h, t.nd, (uint8_t)rnd(), "fuzz", freq);
		for (k = 0; k < t.nd; k++)
			fuzz_desc(&t.d[k], k);
		synthetic_env(&t, "fuzz", (uint8_t)rnd());
		/* up to a day of guest uptime; host time 2020 .. 2026 */
		ret = gr_ctf_clock_from_sync(freq, rnd() % 86400 * freq,
					     1600000000000000000LL +
					     (int64_t)(rnd() % 200000000000000000ULL),
					     rnd() % 100000, &t.clock);
		CU_ASSERT_EQUAL(ret, 0);
		snprintf(name, sizeof(name), "fuzz_%u", i);
		CU_ASSERT_EQUAL_FATAL(trace_create(&t, name), 0);

		ts = 1000 + rnd() % 1000;
		pkt_start(&p, 0, 0, ts, 0);
		nrec = 1 + (unsigned int)(rnd() % 12);
		for (k = 0; k < nrec && p.len + 16 + 1024 < T_S; k++) {
			const struct gr_event_view *ev = &t.ev[rnd() % t.nd];

			ts += rnd() % 50;
			wl += (size_t)fuzz_record(&p, ev, ts, (uint32_t)rnd(),
						  want[i] + wl,
						  sizeof(want[i]) - wl);
		}
		pkt_finish(&p, ts + 1);
		if (rnd() % 2) {		/* stored content-only */
			struct gr_packet_header h;

			memcpy(&h, p.b, sizeof(h));
			h.packet_size = h.content_size;
			memcpy(p.b, &h, sizeof(h));
			CU_ASSERT_EQUAL(stream_append(&t, 0, p.b, p.len), 0);
		} else {
			CU_ASSERT_EQUAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);
		}
		strcpy(dirs_buf[i], t.dir);
		dirs[i] = dirs_buf[i];

		/* and the report reads it without a single diagnostic */
		CU_ASSERT_EQUAL(report_text(t.dir, NULL, 0, &rep), 0);
		CU_ASSERT_EQUAL(count_lines(rep, "[000] "), k);
		CU_ASSERT_PTR_NULL(strstr(rep, "**"));
		free(rep);
		trace_close(&t);
	}

	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, FUZZ_TRACES, 1, &r), 0);
	CU_ASSERT(exited_ok(&r));
	start = r.out;
	for (i = 0; i < FUZZ_TRACES; i++) {
		char endl[PATH_MAX + 8];
		size_t n;

		snprintf(endl, sizeof(endl), "END %s\n", dirs[i]);
		end = strstr(start, endl);
		CU_ASSERT_PTR_NOT_NULL(end);
		if (!end) {
			fprintf(stderr, "\n    %s: not read: %.200s\n", dirs[i],
				start);
			bad++;
			break;
		}
		n = (size_t)(end - start);
		if (n != strlen(want[i]) || memcmp(start, want[i], n)) {
			char *got = strndup(start, n);

			fprintf(stderr, "\n    %s:", dirs[i]);
			CU_ASSERT(same_text(got, want[i]));
			free(got);
			bad++;
		}
		start = end + strlen(endl);
	}
	CU_ASSERT_EQUAL(bad, 0);
	run_free(&r);
}

/* --- metadata rewrites, clock, .guestrelay ---------------------------------- */

/* a reader opening the trace while the agent rewrites metadata always can */
static void test_metadata_rewrite_is_atomic_for_readers(void)
{
	char *argv[] = { "babeltrace2", syn.dir, NULL };
	char path[PATH_MAX + 16], *text[2];
	size_t len[2];
	struct gr_ctf_clock c = syn.clock;
	unsigned int i, ok = 0;
	struct stat st;
	struct run r;
	char *now;
	pid_t pid;
	int status;

	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&syn.v, syn.ev, syn.nd, &syn.env,
					      &syn.clock, &text[0], &len[0]), 0);
	c.error_ns = 700;		/* a tighter sample: a longer text */
	c.precision = 700;
	c.offset += 17;
	CU_ASSERT_EQUAL_FATAL(gr_ctf_metadata(&syn.v, syn.ev, syn.nd, &syn.env,
					      &c, &text[1], &len[1]), 0);
	CU_ASSERT_NOT_EQUAL(len[0], len[1]);

	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid) {
		alarm(60);
		for (i = 0; i < 400; i++)
			if (gr_ctf_write_metadata(syn.dirfd, text[i % 2],
						  len[i % 2], NULL))
				_exit(1);
		_exit(0);
	}
	for (i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL_FATAL(run(argv, &r), 0);
		ok += exited_ok(&r) && count_lines(r.out, "[") == 12;
		run_free(&r);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(ok, 8);

	/* the last write won, whole; no temporary is left behind */
	snprintf(path, sizeof(path), "%s/%s", syn.dir, GR_CTF_METADATA);
	now = slurp(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(now);
	CU_ASSERT_STRING_EQUAL(now, text[1]);
	CU_ASSERT_NOT_EQUAL(fstatat(syn.dirfd, GR_CTF_METADATA_TMP, &st, 0), 0);
	free(now);
	/* restore the original for the other tests */
	CU_ASSERT_EQUAL(gr_ctf_write_metadata(syn.dirfd, text[0], len[0], NULL), 0);
	free(text[0]);
	free(text[1]);
}

static void test_clock_from_sync_maps_guest_to_host_time(void)
{
	struct gr_ctf_clock c;

	/* 1 GHz: guest 5 s is host 1700000000.25 s */
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(1000000000ULL, 5000000000ULL,
			1700000000250000000LL, 1500, &c), 0);
	CU_ASSERT_EQUAL(c.offset_s, 1699999995);
	CU_ASSERT_EQUAL(c.offset, 250000000);
	CU_ASSERT_EQUAL(c.precision, 1500);
	CU_ASSERT_EQUAL(c.error_ns, 1500);
	CU_ASSERT_EQUAL(c.synced, 1);

	/* 250 MHz: 1000 ticks = 4 us; 10 ns error = 2.5 ticks, rounded up */
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(250000000ULL, 1000,
			1000000001LL, 10, &c), 0);
	CU_ASSERT_EQUAL(c.offset_s, 0);
	CU_ASSERT_EQUAL(c.offset, 249999000);
	CU_ASSERT_EQUAL(c.precision, 3);

	/* guest clock ahead of host time: a negative offset_s */
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(1000000000ULL, 1000000000ULL,
			5, 0, &c), 0);
	CU_ASSERT_EQUAL(c.offset_s, -1);
	CU_ASSERT_EQUAL(c.offset, 5);

	/* host time before the Epoch rounds down too */
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(3, 0, -1, 0, &c), 0);
	CU_ASSERT_EQUAL(c.offset_s, -1);
	CU_ASSERT_EQUAL(c.offset, 2);

	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(0, 0, 0, 0, &c), -EINVAL);
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(GR_MAX_CLOCK_FREQ + 1, 0, 0, 0,
					       &c), -EINVAL);
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(1, UINT64_MAX, 0, 0, &c),
			-ERANGE);
	/* beyond +-292 years babeltrace2 cannot place the events */
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(1, 9300000000ULL, 0, 0, &c),
			-ERANGE);
	CU_ASSERT_EQUAL(gr_ctf_clock_from_sync(1, 9200000000ULL, 0, 0, &c), 0);
}

static void test_info_file_round_trips_and_is_checked(void)
{
	struct gr_ctf_info *info = malloc(sizeof(*info));
	struct gr_event_desc d[T_NDESC];
	struct gr_region_hdr h = syn.h;
	const char *why = NULL;
	uint8_t *buf;
	size_t len;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	CU_ASSERT_EQUAL(gr_ctf_read_info(syn.dirfd, info, &why), 0);
	CU_ASSERT(info->crc_ok);
	CU_ASSERT_EQUAL(info->nr_events, T_NDESC);
	CU_ASSERT_EQUAL(memcmp(&info->view, &syn.v, sizeof(syn.v)), 0);
	CU_ASSERT_EQUAL(memcmp(info->events, syn.ev, sizeof(syn.ev[0]) *
			       T_NDESC), 0);
	CU_ASSERT(info->valid[0] && info->valid[T_NDESC - 1]);
	CU_ASSERT_EQUAL(info->clock.synced, 1);
	CU_ASSERT_EQUAL(info->clock.offset_s, syn.clock.offset_s);
	CU_ASSERT_EQUAL(info->clock.offset, syn.clock.offset);
	CU_ASSERT_EQUAL(info->clock.error_ns, 1500);
	CU_ASSERT_EQUAL(memcmp(info->trace_uuid, syn.env.trace_uuid, 16), 0);

	/* the writer stores only what validates */
	make_descs(d);
	d[2].fields[0].type = 9;
	CU_ASSERT_EQUAL(gr_ctf_write_info(syn.dirfd, &syn.h, T_REGION, d,
					  T_NDESC, NULL, syn.env.trace_uuid, NULL),
			-EINVAL);
	h.magic = 0;
	CU_ASSERT_EQUAL(gr_ctf_write_info(syn.dirfd, &h, T_REGION, syn.d,
					  T_NDESC, NULL, syn.env.trace_uuid, NULL),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_ctf_write_info(syn.dirfd, &syn.h, T_REGION, syn.d,
					  T_NDESC + 1, NULL, syn.env.trace_uuid, NULL),
			-EINVAL);

	/* the reader: every prefix of the file is refused or read whole */
	fd = openat(syn.dirfd, GR_CTF_INFO, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	len = (size_t)lseek(fd, 0, SEEK_END);
	buf = malloc(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_EQUAL(pread(fd, buf, len, 0), (ssize_t)len);
	close(fd);
	CU_ASSERT_EQUAL(len, 128 + 512 + T_NDESC * 576);
	for (size_t n = 0; n < len; n++)
		CU_ASSERT_EQUAL(gr_ctf_parse_info(buf, n, info, &why), -EINVAL);
	CU_ASSERT_EQUAL(gr_ctf_parse_info(buf, len, info, &why), 0);
	buf[8] = 2;			/* version */
	CU_ASSERT_EQUAL(gr_ctf_parse_info(buf, len, info, &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "unsupported version");
	buf[8] = 1;
	buf[128 + 16] ^= 1;		/* region size in the header copy */
	CU_ASSERT_EQUAL(gr_ctf_parse_info(buf, len, info, &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why,
		"region_size differs from the real region size");
	buf[128 + 16] ^= 1;
	buf[128 + 512 + 576 + 1] = 'Q';	/* descriptor 1's name */
	CU_ASSERT_EQUAL(gr_ctf_parse_info(buf, len, info, &why), 0);
	CU_ASSERT(!info->crc_ok);
	CU_ASSERT(info->valid[0] && !info->valid[1] && info->valid[2]);
	CU_ASSERT_STRING_EQUAL(info->why[1],
		"event name is not an identifier [a-z_][a-z0-9_]*");
	free(buf);
	free(info);
}

/* spec 6.12: a packet may be stored content-only (packet_size = content) */
static void test_content_only_packets_read_the_same(void)
{
	char *dirs[1], *got, *rep;
	struct trace t;
	struct run r;
	uint8_t buf[T_S * 3];
	unsigned int ring, k;
	ssize_t n;
	int fd;

	memset(&t, 0, sizeof(t));
	t = syn;
	t.dirfd = -1;
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "compact"), 0);
	for (ring = 0; ring < 2; ring++) {
		char name[32];

		snprintf(name, sizeof(name), "stream_%u", ring);
		fd = openat(syn.dirfd, name, O_RDONLY);
		CU_ASSERT_FATAL(fd >= 0);
		n = read(fd, buf, sizeof(buf));
		close(fd);
		for (k = 0; k + T_S <= (size_t)n; k += T_S) {
			struct gr_packet_header h;

			/*
			 * as the agent stores them (spec 6.12): the records
			 * up to the last one's end, content_size up to its
			 * last declared byte
			 */
			memcpy(&h, buf + k, sizeof(h));
			h.packet_size = htole64((le64toh(h.content_size) + 63) /
						64 * 64);
			memcpy(buf + k, &h, sizeof(h));
			CU_ASSERT_EQUAL(stream_append(&t, ring, buf + k,
					le64toh(h.packet_size) / 8), 0);
		}
	}
	dirs[0] = t.dir;
	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 1, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	got = drop_lines(r.out, "V ");
	CU_ASSERT(same_text(got, syn_dump));
	free(got);
	run_free(&r);
	CU_ASSERT_EQUAL(report_text(t.dir, NULL, 0, &rep), 0);
	CU_ASSERT(same_text(rep, syn_report));
	free(rep);
	trace_close(&t);
}


/* --- what the host accepts, babeltrace2 reads (spec H9) -------------------- */

/* one packet of ring 0 holding a tick at @ts, checked as the agent does */
static int bounds_pkt(struct trace *t, struct gr_stream_mark *last,
		      uint64_t seq, uint64_t tb, uint64_t ts, uint64_t te,
		      uint64_t discarded, const char **why)
{
	struct gr_subbuf_rec rec;
	uint64_t bytes;
	struct pkt p;
	int ret;

	pkt_start(&p, 0, seq, tb, discarded);
	pkt_add(&p, EV_TICK, 1, ts, NULL, 0);
	pkt_finish(&p, te);
	memset(&rec, 0, sizeof(rec));
	rec.seq = htole64(seq);
	rec.bytes = htole32(p.len);
	ret = gr_check_packet(&t->v, 0, seq, &rec,
			      (const struct gr_packet_header *)p.b, last,
			      &bytes, why);
	if (ret)
		return ret;
	gr_stream_mark_set(last, (const struct gr_packet_header *)p.b);
	return stream_append(t, 0, p.b, sizeof(p.b));
}

static int bt_cli_ok(const char *dir)
{
	char *argv[] = { "babeltrace2", (char *)dir, NULL };
	struct run r;
	int ok;

	if (run(argv, &r))
		return 0;
	ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
	run_free(&r);
	return ok;
}

/*
 * A stream at the edges of every packet-header bound the agent accepts:
 * babeltrace2 reads it. Each value just past a bound is refused by the
 * agent, and, written anyway, makes babeltrace2 fail or abort: every
 * rule guards a real reader failure (found by the hostile-guest run).
 */
static void test_babeltrace_reads_every_packet_the_host_accepts(void)
{
	static const struct {
		const char *name;
		uint64_t tb, ts, te, discarded;	/* the second packet */
		const char *why;
	} past[] = {
		{ "discarded_2_64", 5600, 6000, 7500, UINT64_MAX,
		  "events_discarded is 2^64 - 1" },
		{ "ts_end_2_64", 5600, 6000, UINT64_MAX, 0,
		  "timestamp_end is beyond 2^62 ns" },
		{ "ts_end_2_63", 5600, 6000, 1ULL << 63, 0,
		  "timestamp_end is beyond 2^62 ns" },
		{ "begins_before_last_end", 5000, 6000, 7500, 0,
		  "timestamp_begin is before the previous packet's end" },
	};
	struct gr_stream_mark last;
	const char *why = NULL;
	struct trace t;
	unsigned int i;

	t = syn;
	t.dirfd = -1;
	memset(&last, 0, sizeof(last));
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "bounds"), 0);
	CU_ASSERT_EQUAL(bounds_pkt(&t, &last, 0, 900, 1000, 5500, 0, &why), 0);
	/* begins where the last ended; discarded the largest allowed */
	CU_ASSERT_EQUAL(bounds_pkt(&t, &last, 1, 5500, 5500, 7500,
				   UINT64_MAX - 1, &why), 0);
	/* discarded unchanged; ends at the last timestamp allowed */
	CU_ASSERT_EQUAL(bounds_pkt(&t, &last, 2, 7500, 8000, t.v.ts_max,
				   UINT64_MAX - 1, &why), 0);
	CU_ASSERT(bt_cli_ok(t.dir));
	trace_close(&t);

	for (i = 0; i < ARRAY_SIZE(past); i++) {
		struct gr_packet_header *ph;
		struct pkt p;

		t = syn;
		t.dirfd = -1;
		memset(&last, 0, sizeof(last));
		CU_ASSERT_EQUAL_FATAL(trace_create(&t, past[i].name), 0);
		CU_ASSERT_EQUAL(bounds_pkt(&t, &last, 0, 900, 1000, 5500, 0,
					   &why), 0);
		why = NULL;
		CU_ASSERT_EQUAL(bounds_pkt(&t, &last, 1, past[i].tb,
					   past[i].ts, past[i].te,
					   past[i].discarded, &why), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(why);
		CU_ASSERT_STRING_EQUAL(why, past[i].why);
		/* written anyway: babeltrace2 cannot read the stream */
		pkt_start(&p, 0, 1, past[i].tb, past[i].discarded);
		pkt_add(&p, EV_TICK, 1, past[i].ts, NULL, 0);
		pkt_finish(&p, past[i].te);
		ph = (struct gr_packet_header *)p.b;
		CU_ASSERT_EQUAL(le64toh(ph->timestamp_end), past[i].te);
		CU_ASSERT_EQUAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);
		if (bt_cli_ok(t.dir))
			fprintf(stderr, "\n    %s: babeltrace2 reads it now\n",
				past[i].name);
		CU_ASSERT_FALSE(bt_cli_ok(t.dir));
		trace_close(&t);
	}
}

/* spec 7.5: every field name is emitted with a '_': keywords are names */
static void test_babeltrace_reads_tsdl_keywords_as_field_names(void)
{
	const char *const *kw = gr_build_tsdl_keywords;
	uint8_t payload[8 * GR_MAX_FIELDS];
	char *dirs[1];
	struct trace t;
	struct run r;
	struct pkt p;
	unsigned int i, e, n;

	t = syn;
	t.dirfd = -1;
	/* events 4 and 5 (tick, blob) get the keywords as fields */
	for (e = 0; e < 2; e++) {
		struct gr_event_desc *d = &t.d[EV_TICK + e];
		unsigned int first = e * GR_MAX_FIELDS;

		n = GR_BUILD_NR_TSDL_KEYWORDS - first < GR_MAX_FIELDS ?
		    GR_BUILD_NR_TSDL_KEYWORDS - first : GR_MAX_FIELDS;
		gr_build_event(d, EV_TICK + e, e ? "blob" : "tick", "test", 8 * n,
			       0, n);
		for (i = 0; i < n; i++)
			gr_build_field(&d->fields[i], kw[first + i], 8 * i, 8, INT,
				       0);
	}
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "keywords"), 0);
	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i % 8 ? 0 : i / 8);
	pkt_start(&p, 0, 0, 900, 0);
	pkt_add(&p, EV_TICK, 1, 1000, payload, 8 * GR_MAX_FIELDS);
	pkt_add(&p, EV_BLOB, 1, 2000, payload,
		8 * (GR_BUILD_NR_TSDL_KEYWORDS - GR_MAX_FIELDS));
	pkt_finish(&p, 2500);
	CU_ASSERT_EQUAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);
	dirs[0] = t.dir;
	CU_ASSERT_EQUAL_FATAL(bt_dump(dirs, 1, 0, &r), 0);
	CU_ASSERT(exited_ok(&r));
	for (i = 0; i < GR_BUILD_NR_TSDL_KEYWORDS; i++) {
		char want[64];

		snprintf(want, sizeof(want), "%s=%u", kw[i],
			 i < GR_MAX_FIELDS ? i : i - GR_MAX_FIELDS);
		if (!strstr(r.out, want))
			fprintf(stderr, "\n    no '%s' in:\n%s\n", want, r.out);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
	}
	run_free(&r);
	trace_close(&t);
}

/* --- guestrelay report ------------------------------------------------------- */

static void test_report_prints_every_event_merged_in_time_order(void)
{
	char *rep;

	CU_ASSERT_EQUAL(report_text(syn.dir, NULL, 0, &rep), 0);
	CU_ASSERT(same_text(rep, syn_report));
	free(rep);
}

/* syn_report with only the lines that contain one of @keep (and "#") */
static char *syn_lines(const char *const *keep, unsigned int n)
{
	char *out = malloc(sizeof(syn_report)), *o = out;
	const char *p = syn_report, *nl;
	unsigned int i;
	size_t len;

	while (*p) {
		nl = strchr(p, '\n');
		len = (size_t)(nl - p + 1);
		for (i = 0; i < n; i++)
			if (*p == '#' || memmem(p, len, keep[i], strlen(keep[i])))
				break;
		if (i < n) {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	*o = '\0';
	return out;
}

static void test_report_filters_by_cpu_and_event(void)
{
	static const char *const cpu1[] = { "[001]" };
	static const char *const sched_irq[] = {
		": sched_switch:", ": irq_handler_entry:", ": ** ",
	};
	static const char *const kmalloc[] = { ": kmalloc:", ": ** " };
	struct gr_report_opts o = { .cpu = 1 };
	char *rep, *want;

	CU_ASSERT_EQUAL(report_text(syn.dir, &o, 0, &rep), 0);
	want = syn_lines(cpu1, 1);
	CU_ASSERT(same_text(rep, want));
	free(want);
	free(rep);

	o.cpu = -1;
	o.events = "sched_switch,irq";	/* an event and a system */
	CU_ASSERT_EQUAL(report_text(syn.dir, &o, 0, &rep), 0);
	want = syn_lines(sched_irq, 3);
	CU_ASSERT(same_text(rep, want));
	free(want);
	free(rep);

	o.events = "kmem:kmalloc";
	CU_ASSERT_EQUAL(report_text(syn.dir, &o, 0, &rep), 0);
	want = syn_lines(kmalloc, 2);
	CU_ASSERT(same_text(rep, want));
	free(want);
	free(rep);

	o.events = "kmalloc,nosuch";
	CU_ASSERT_EQUAL(report_text(syn.dir, &o, 0, &rep), -EINVAL);
	CU_ASSERT_STRING_EQUAL(rep, "error: no event matches \"nosuch\" (give "
			       "names, systems or system:event)\n");
	free(rep);
	o.events = "sched:kmalloc";
	CU_ASSERT_EQUAL(report_text(syn.dir, &o, 0, &rep), -EINVAL);
	free(rep);
}

static void test_report_prints_host_time_through_the_clock_offset(void)
{
	struct gr_report_opts o = { .cpu = -1, .host_time = 1 };
	char *rep;

	CU_ASSERT_EQUAL(report_text(syn.dir, &o, 0, &rep), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rep, "Hz, host time\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(rep,
		"\n     12 [000] 1700000000.500001000: sched_switch: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(rep,
		"\n        [000] 1700000000.500009500: ** lost 1 packet (seq 2)\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(rep,
		"\n      7 [000] 1700000000.500012000: blob:\n"));
	free(rep);
}

static const char syn_summary[] =
"# guestrelay trace of guest1 (Linux 6.1.0-56-amd64): 2 per-CPU rings, clock mono_fast at 1000000000 Hz, guest time\n"
"guest: guest1, Linux 6.1.0-56-amd64, 2 CPUs, 2 per-CPU rings of 4 x 4096-byte sub-buffers\n"
"clock: mono_fast at 1000000000 Hz, synchronized with host CLOCK_REALTIME (guest 0 = 1700000000.500000000, error bound 1500 ns)\n"
"events per type:\n"
"  sched_switch                                3\n"
"  irq_handler_entry                           3\n"
"  kmalloc                                     2\n"
"  gaps                                        2\n"
"  tick                                        1\n"
"  blob                                        1\n"
"per ring:\n"
"  ring  packets       events    lost_pkts    discarded  damaged\n"
"     0        3            7            1            5        0\n"
"     1        2            5            0            2        0\n"
"total: 12 events in 5 packets, lost packets 1, discarded events 7, damaged spots 0\n"
"time span:     0.000001000 ..     0.000012000 guest (0.000011000 s)\n"
"           1700000000.500001000 .. 1700000000.500012000 host\n";

static void test_report_summary_counts_types_rings_and_losses(void)
{
	char *rep;

	CU_ASSERT_EQUAL(report_text(syn.dir, NULL, 1, &rep), 0);
	CU_ASSERT(same_text(rep, syn_summary));
	free(rep);
}

/* --- damaged traces ------------------------------------------------------------- */

static const char *const trace_files[] = {
	GR_CTF_METADATA, GR_CTF_INFO, "stream_0", "stream_1",
};

/* a copy of the synthetic trace named @name; its path into @dir */
static int copy_syn(const char *name, char *dir)
{
	char buf[T_S * 4];
	unsigned int i;
	int dfd, in, out;
	ssize_t n;

	snprintf(dir, PATH_MAX, "%s/%s", tmp_root, name);
	gr_test_rm_tree(dir);
	if (mkdir(dir, 0755))
		return -errno;
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return -errno;
	for (i = 0; i < ARRAY_SIZE(trace_files); i++) {
		in = openat(syn.dirfd, trace_files[i], O_RDONLY);
		out = openat(dfd, trace_files[i], O_WRONLY | O_CREAT | O_TRUNC,
			     0644);
		n = in >= 0 ? read(in, buf, sizeof(buf)) : -1;
		if (n < 0 || out < 0 || write(out, buf, (size_t)n) != n) {
			close(dfd);
			return -EIO;
		}
		close(in);
		close(out);
	}
	close(dfd);
	return 0;
}

static int poke(const char *dir, const char *file, off_t off,
		const void *bytes, size_t n)
{
	char path[PATH_MAX + 32];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = pwrite(fd, bytes, n, off) == (ssize_t)n ? 0 : -EIO;
	close(fd);
	return ret;
}

static int cut(const char *dir, const char *file, off_t size)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return truncate(path, size) ? -errno : 0;
}

/* run the report; @want lines must all appear; returns its result */
static int report_has(const char *dir, const char *const *want,
		      unsigned int n, char **text)
{
	unsigned int i;
	int ret = report_text(dir, NULL, 0, text);

	for (i = 0; i < n; i++) {
		CU_ASSERT_PTR_NOT_NULL(strstr(*text, want[i]));
		if (!strstr(*text, want[i]))
			fprintf(stderr, "\n    missing \"%s\" in:\n%s", want[i],
				*text);
	}
	return ret;
}

static void test_report_truncated_stream_reports_and_decodes_the_rest(void)
{
	static const char *const mid_record[] = {
		"        [000]     0.000005600: ** stream_0 ends inside the packet at "
		"offset 4096 (100 of 4096 bytes): decoding what is there\n",
		"     44 [001]     0.000011000: gaps: ",
	};
	static const char *const after_content[] = {
		"ends inside the packet at offset 4096 (200 of 4096 bytes)",
		"      7 [000]     0.000006000: gaps: ",
		"      1 [000]     0.000007000: tick:\n",
	};
	static const char *const stub[] = {
		"        [000]     0.000005000: ** stream_0 ends with 40 bytes of a "
		"packet at offset 4096; ignored\n",
	};
	char dir[PATH_MAX], *rep;

	CU_ASSERT_EQUAL_FATAL(copy_syn("cut", dir), 0);
	CU_ASSERT_EQUAL(cut(dir, "stream_0", T_S + 100), 0);
	CU_ASSERT_EQUAL(report_has(dir, mid_record, 2, &rep), 1);
	CU_ASSERT_PTR_NULL(strstr(rep, ": gaps: tid=7 "));	/* cut */
	CU_ASSERT_PTR_NULL(strstr(rep, ": tick:"));
	CU_ASSERT_PTR_NULL(strstr(rep, ": blob:"));
	free(rep);

	CU_ASSERT_EQUAL(copy_syn("cut", dir), 0);
	CU_ASSERT_EQUAL(cut(dir, "stream_0", T_S + 200), 0);
	CU_ASSERT_EQUAL(report_has(dir, after_content, 3, &rep), 1);
	free(rep);

	CU_ASSERT_EQUAL(cut(dir, "stream_0", T_S + 40), 0);
	CU_ASSERT_EQUAL(report_has(dir, stub, 1, &rep), 1);
	free(rep);
	gr_test_rm_tree(dir);
}

static void test_report_skips_a_garbage_packet_and_goes_on(void)
{
	static const char *const want[] = {
		("        [000]     0.000005000: ** stream_0: bad packet at offset 4096: "
		 "bad packet magic; next packet at offset 8192\n"),
		"        [000]     0.000009500: ** lost 2 packets (seq 1..2)\n",
		"      0 [000]     0.000010000: sched_switch: ",
		"      7 [000]     0.000012000: blob:\n",
	};
	char dir[PATH_MAX], *rep, junk[T_S];
	unsigned int i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (char)rnd();
	CU_ASSERT_EQUAL_FATAL(copy_syn("garbage", dir), 0);
	CU_ASSERT_EQUAL(poke(dir, "stream_0", T_S, junk, sizeof(junk)), 0);
	CU_ASSERT_EQUAL(report_has(dir, want, ARRAY_SIZE(want), &rep), 1);
	CU_ASSERT_PTR_NULL(strstr(rep, ": tick:"));
	free(rep);
	gr_test_rm_tree(dir);
}

static void test_report_bad_record_skips_rest_of_packet(void)
{
	static const char *const size[] = {
		"        [000]     0.000001000: ** packet seq 0 of stream_0, offset 144: "
		"bad record (record size is not a multiple of 8, id 1, size "
		"41); rest of packet skipped\n",
		"      7 [000]     0.000006000: gaps: ",
	};
	static const char *const id[] = {
		"packet seq 0 of stream_0, offset 144: bad record (unknown "
		"event id, id 77, size 40); rest of packet skipped\n",
	};
	static const char *const beyond[] = {
		"offset 144: bad record (record extends beyond the packet "
		"content, id 1, size 4000); rest of packet skipped\n",
	};
	struct gr_event_header e;
	char dir[PATH_MAX], *rep;

	/* the second record of ring 0's first packet is at 72 + 72 */
	CU_ASSERT_EQUAL_FATAL(copy_syn("badrec", dir), 0);
	e.timestamp = htole64(3000);
	e.id = htole16(1);
	e.size = htole16(41);
	e.tid = 0;
	CU_ASSERT_EQUAL(poke(dir, "stream_0", 144, &e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(report_has(dir, size, 2, &rep), 1);
	CU_ASSERT_PTR_NULL(strstr(rep, ": irq_handler_entry: tid=0 irq=11"));
	CU_ASSERT_PTR_NULL(strstr(rep, ": kmalloc: tid=12"));
	free(rep);

	e.id = htole16(77);
	e.size = htole16(40);
	CU_ASSERT_EQUAL(poke(dir, "stream_0", 144, &e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(report_has(dir, id, 1, &rep), 1);
	free(rep);

	e.id = htole16(1);
	e.size = htole16(4000);
	CU_ASSERT_EQUAL(poke(dir, "stream_0", 144, &e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(report_has(dir, beyond, 1, &rep), 1);
	free(rep);
	gr_test_rm_tree(dir);
}

/* babeltrace2 2.0.4 rejects a trace with a packet that holds no event */
static void test_report_flags_an_empty_packet(void)
{
	static const char *const want[] = {
		"** stream_1: bad packet at offset 8192: content_size holds "
		"no event (CTF readers reject such a packet)",
	};
	char dir[PATH_MAX], *rep;
	struct pkt p;

	CU_ASSERT_EQUAL_FATAL(copy_syn("empty", dir), 0);
	pkt_start(&p, 1, 2, 20000, 2);
	pkt_finish(&p, 20000);
	CU_ASSERT_EQUAL(poke(dir, "stream_1", 2 * T_S, p.b, sizeof(p.b)), 0);
	CU_ASSERT_EQUAL(report_has(dir, want, 1, &rep), 1);
	free(rep);
	gr_test_rm_tree(dir);
}

static void test_report_without_a_valid_info_file_says_why(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], want[PATH_MAX + 128], *rep;
	uint8_t x = 0;

	CU_ASSERT_EQUAL_FATAL(copy_syn("noinfo", dir), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, GR_CTF_INFO);
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(report_text(dir, NULL, 0, &rep), -ENOENT);
	snprintf(want, sizeof(want), "error: %s/.guestrelay: cannot open the "
		 "file (No such file or directory)\n", dir);
	CU_ASSERT_STRING_EQUAL(rep, want);
	free(rep);
	CU_ASSERT_EQUAL(report_text(dir, NULL, 1, &rep), -ENOENT);
	free(rep);

	CU_ASSERT_EQUAL(copy_syn("noinfo", dir), 0);
	CU_ASSERT_EQUAL(poke(dir, GR_CTF_INFO, 0, &x, 1), 0);	/* magic */
	CU_ASSERT_EQUAL(report_text(dir, NULL, 0, &rep), -EINVAL);
	snprintf(want, sizeof(want), "error: %s/.guestrelay: bad magic "
		 "(Invalid argument)\n", dir);
	CU_ASSERT_STRING_EQUAL(rep, want);
	free(rep);

	CU_ASSERT_EQUAL(report_text("/nonexistent/trace", NULL, 0, &rep),
			-ENOENT);
	CU_ASSERT_STRING_EQUAL(rep, "error: /nonexistent/trace: No such file "
			       "or directory\n");
	free(rep);
	gr_test_rm_tree(dir);
}

/* a damaged descriptor: its records are reported, the others decoded */
static void test_report_damaged_descriptor_skips_only_its_records(void)
{
	static const char *const want[] = {
		"# warning: .guestrelay: checksum mismatch (damaged file); "
		"using what validates\n",
		"# warning: event id 2: invalid descriptor (event name is not "
		"an identifier [a-z_][a-z0-9_]*); its records are skipped\n",
		"        [000]     0.000003000: ** packet seq 0 of stream_0, offset 184: "
		"event id 2 has no valid descriptor; rest of packet skipped\n",
		"        [001]     0.000007600: ** packet seq 1 of stream_1, offset 72: "
		"event id 2 has no valid descriptor; rest of packet skipped\n",
		"      7 [000]     0.000006000: gaps: ",
	};
	char dir[PATH_MAX], *rep;

	CU_ASSERT_EQUAL_FATAL(copy_syn("baddesc", dir), 0);
	/* 'K' in "kmalloc" */
	CU_ASSERT_EQUAL(poke(dir, GR_CTF_INFO, 128 + 512 + 2 * 576, "K", 1), 0);
	CU_ASSERT_EQUAL(report_has(dir, want, ARRAY_SIZE(want), &rep), 4);
	free(rep);
	gr_test_rm_tree(dir);
}

/* the report's output stays bounded: it never loops */
#define FLIP_ITERS	2000

static void test_report_survives_random_damage(void)
{
	static uint8_t orig[ARRAY_SIZE(trace_files)][T_S * 4], b[T_S * 4];
	ssize_t size[ARRAY_SIZE(trace_files)];
	char dir[PATH_MAX], path[PATH_MAX + 32], *rep;
	unsigned int it, i, k, f, flips, hard = 0;
	int ret, fd;

	CU_ASSERT_EQUAL_FATAL(copy_syn("flips", dir), 0);
	for (i = 0; i < ARRAY_SIZE(trace_files); i++) {
		fd = openat(syn.dirfd, trace_files[i], O_RDONLY);
		CU_ASSERT_FATAL(fd >= 0);
		size[i] = read(fd, orig[i], sizeof(orig[i]));
		close(fd);
		CU_ASSERT_FATAL(size[i] > 0);
	}
	for (it = 0; it < FLIP_ITERS; it++) {
		f = 1 + (unsigned int)(rnd() % 3);	/* not the metadata */
		flips = 1 + (unsigned int)(rnd() % 8);

		memcpy(b, orig[f], (size_t)size[f]);
		for (k = 0; k < flips; k++) {
			size_t at = (size_t)(rnd() % (uint64_t)size[f]);

			/* mostly headers, where the decisions are */
			if (rnd() % 2)
				at = (at / T_S) * T_S + rnd() % 160;
			if (f == 1 && rnd() % 2)
				at = rnd() % 700;
			if (at < (size_t)size[f])
				b[at] ^= (uint8_t)(1 + rnd() % 255);
		}
		snprintf(path, sizeof(path), "%s/%s", dir, trace_files[f]);
		fd = open(path, O_WRONLY | O_TRUNC);
		CU_ASSERT_FATAL(fd >= 0);
		/* sometimes cut the file too */
		k = (unsigned int)(rnd() % 4 ? (uint64_t)size[f] :
				   rnd() % (uint64_t)size[f]);
		CU_ASSERT_EQUAL(write(fd, b, k), (ssize_t)k);
		close(fd);

		ret = report_text(dir, NULL, (int)(it % 5 == 0), &rep);
		CU_ASSERT(ret >= 0 || ret == -EINVAL);
		hard += ret < 0;
		CU_ASSERT(strlen(rep) < 65536);
		free(rep);

		fd = open(path, O_WRONLY | O_TRUNC);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_EQUAL(write(fd, orig[f], (size_t)size[f]), size[f]);
		close(fd);
	}
	/* most damage is reported in place, not fatal */
	CU_ASSERT(hard < FLIP_ITERS / 2);
	printf("(%u of %u damaged copies had no usable .guestrelay) ", hard,
	       FLIP_ITERS);
	gr_test_rm_tree(dir);
}

/* --- main ------------------------------------------------------------------- */

static int suite_init(void)
{
	return make_synthetic(&syn, "vm1") ? -1 : 0;
}

static int suite_clean(void)
{
	trace_close(&syn);
	return 0;
}

static const struct gr_test ctf_tests[] = {
	GR_TEST_NAMED("metadata names every system call (spec 7.5)",
	  test_metadata_names_every_system_call),
	GR_TEST_NAMED("babeltrace2 decodes every value exactly",
	  test_babeltrace_decodes_every_value_exactly),
	GR_TEST_NAMED("babeltrace2 CLI prints events and loss warnings",
	  test_babeltrace_cli_prints_events_and_loss_warnings),
	GR_TEST_NAMED("babeltrace2 ignores the hidden .guestrelay file",
	  test_babeltrace_ignores_hidden_info_file),
	GR_TEST_NAMED("env identifies guest, VM, host and tracer",
	  test_env_identifies_guest_vm_host_and_tracer),
	GR_TEST_NAMED("babeltrace2 merges two VMs by host time",
	  test_babeltrace_merges_two_vms_by_host_time),
	GR_TEST_NAMED("env strings are escaped byte for byte",
	  test_env_strings_are_escaped_byte_for_byte),
	GR_TEST_NAMED("hostile names cannot inject TSDL",
	  test_hostile_names_cannot_inject_tsdl),
	GR_TEST_NAMED("odd clock names still parse", test_odd_clock_names_still_parse),
	GR_TEST_NAMED("env has the guest's kernel_version and product_uuid",
	  test_env_has_guest_kernel_version_and_product_uuid),
	GR_TEST_NAMED("metadata names events as lttng-modules does",
	  test_metadata_names_events_as_lttng_modules),
	GR_TEST_NAMED("metadata refuses unsafe or inexpressible views",
	  test_metadata_refuses_unsafe_or_inexpressible_views),
	GR_TEST_NAMED("random views: babeltrace2 decodes exactly",
	  test_random_views_babeltrace_decodes_exactly),
	GR_TEST_NAMED("metadata rewrite is atomic for readers",
	  test_metadata_rewrite_is_atomic_for_readers),
	GR_TEST_NAMED("clock from sync maps guest to host time",
	  test_clock_from_sync_maps_guest_to_host_time),
	GR_TEST_NAMED("info file round-trips and is checked",
	  test_info_file_round_trips_and_is_checked),
	GR_TEST_NAMED("content-only packets read the same",
	  test_content_only_packets_read_the_same),
	GR_TEST_NAMED("babeltrace2 reads every packet the host accepts",
	  test_babeltrace_reads_every_packet_the_host_accepts),
	GR_TEST_NAMED("babeltrace2 reads TSDL keywords as field names",
	  test_babeltrace_reads_tsdl_keywords_as_field_names),
};

static const struct gr_test report_tests[] = {
	GR_TEST_NAMED("report prints every event merged in time order",
	  test_report_prints_every_event_merged_in_time_order),
	GR_TEST_NAMED("report filters by cpu and event",
	  test_report_filters_by_cpu_and_event),
	GR_TEST_NAMED("report prints host time through the clock offset",
	  test_report_prints_host_time_through_the_clock_offset),
	GR_TEST_NAMED("report summary counts types, rings and losses",
	  test_report_summary_counts_types_rings_and_losses),
	GR_TEST_NAMED("report of a truncated stream decodes the rest",
	  test_report_truncated_stream_reports_and_decodes_the_rest),
	GR_TEST_NAMED("report skips a garbage packet and goes on",
	  test_report_skips_a_garbage_packet_and_goes_on),
	GR_TEST_NAMED("report skips the rest of a packet after a bad record",
	  test_report_bad_record_skips_rest_of_packet),
	GR_TEST_NAMED("report flags an empty packet", test_report_flags_an_empty_packet),
	GR_TEST_NAMED("report without a valid info file says why",
	  test_report_without_a_valid_info_file_says_why),
	GR_TEST_NAMED("report skips only the records of a damaged descriptor",
	  test_report_damaged_descriptor_skips_only_its_records),
	GR_TEST_NAMED("report survives random damage",
	  test_report_survives_random_damage),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("ctf", ctf_tests, suite_init, suite_clean),
	GR_SUITE("report", report_tests, suite_init, suite_clean),
};

int main(void)
{
	char *bt[] = { "babeltrace2", "--version", NULL };
	char *py[] = { PYTHON, "-c", "import bt2", NULL };
	int ret;

	rng_state = gr_test_seed("test_ctf");
	if (gr_test_tmpdir(tmp_root, sizeof(tmp_root), "test_ctf")) {
		perror("mkdtemp");
		return 1;
	}
	if (!gr_test_tool_ok(bt) || !gr_test_tool_ok(py)) {
		gr_test_rm_tree(tmp_root);
		return gr_test_skip("test_ctf needs babeltrace2 and %s with bt2 "
				    "(Debian: babeltrace2 python3-bt2)",
				    PYTHON);
	}
	ret = gr_test_run(suites, ARRAY_SIZE(suites));
	if (getenv("GR_TEST_KEEP"))
		printf("test_ctf: traces kept in %s\n", tmp_root);
	else
		gr_test_rm_tree(tmp_root);
	return ret;
}
