// SPDX-License-Identifier: GPL-2.0
/*
 * ctf_fixture.c - traces on disk for the CTF and report tests (see
 * ctf_fixture.h)
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
#include "ctf_fixture.h"

#include "guestrelay_abi.h"
#include "ctf.h"
#include "report.h"
#include "validate.h"

/* --- random numbers ------------------------------------------------------- */

uint64_t rng_state;

uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* --- a guest: region header and descriptors -------------------------------- */

void make_hdr(struct gr_region_hdr *h, uint32_t ndesc, uint8_t boot,
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

/*
 * 0 sched_switch    a C struct of 56 bytes
 * 1 irq_handler_entry  VARLEN: irq, then a string of up to 28 bytes at 4
 * 2 kmalloc         hex pointers, a negative node
 * 3 gaps            fields at odd offsets, gaps of every kind, tail gap
 * 4 tick            no payload
 * 5 blob            12 bytes of payload, no fields
 */
void make_descs(struct gr_event_desc d[T_NDESC])
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

char tmp_root[PATH_MAX / 2];

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
int trace_create(struct trace *t, const char *name)
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
	return gr_ctf_write_info(t->dirfd, &t->h, T_REGION, t->d,
				 sizeof(t->d[0]), t->nd,
				 &t->clock, t->env.trace_uuid, NULL);
}

void trace_close(struct trace *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	t->dirfd = -1;
}

/* a sub-buffer being filled, as the guest fills it */

void pkt_start(struct pkt *p, unsigned int ring, uint64_t seq,
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

void pkt_add(struct pkt *p, uint16_t id, uint32_t tid, uint64_t ts,
		    const void *payload, uint32_t plen)
{
	p->len += gr_build_record(p->b + p->len, id, tid, ts, payload, plen);
}

void pkt_finish(struct pkt *p, uint64_t ts_end)
{
	struct gr_packet_header h;

	memcpy(&h, p->b, sizeof(h));
	h.timestamp_end = htole64(ts_end);
	h.content_size = htole64((uint64_t)p->len * 8);
	memcpy(p->b, &h, sizeof(h));
}

int stream_append(const struct trace *t, unsigned int ring,
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

void synthetic_env(struct trace *t, const char *vm, uint8_t uuid0)
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
void trace_init(struct trace *t, const char *nodename, uint8_t boot,
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
int make_synthetic(struct trace *t, const char *name)
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

char *slurp(const char *path)
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

void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

/* run @argv, capturing stdout and stderr; -1 if it could not be started */
int run(char *const argv[], struct run *r)
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

int exited_ok(const struct run *r)
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

int bt_dump(char **dirs, unsigned int n, int each, struct run *r)
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

int bt_text(const char *dir, struct run *r)
{
	char *argv[] = { "babeltrace2", (char *)dir, NULL };

	if (run(argv, r))
		return -1;
	if (exited_ok(r))
		return 0;
	fprintf(stderr, "\n%s\n", r->err);
	return -1;
}

char *trace_metadata(struct trace *t)
{
	char *text = NULL;
	size_t len;

	if (gr_ctf_metadata(&t->v, t->ev, t->nd, &t->env, &t->clock, &text,
			    &len))
		return NULL;
	return text;
}

/* compare line by line, printing the first difference */
int same_text(const char *got, const char *want)
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
char *drop_lines(const char *text, const char *prefix)
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

unsigned int count_lines(const char *text, const char *prefix)
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
/*
 * What report prints of @dir (stdout and stderr in one text): with
 * @summary 0 the events, 1 the summary, REPORT_HOST | 0/1 report --host's
 */
int report_text(const char *dir, const struct gr_report_opts *o,
		       int summary, char **text)
{
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	int ret;

	if (!f)
		return -ENOMEM;
	if (summary & REPORT_HOST)
		ret = gr_report_host(dir, f, f, o, summary & 1);
	else
		ret = summary ? gr_report_summary(dir, f, f) :
		      gr_report(dir, f, f, o);
	fclose(f);
	return ret;
}

/* --- the synthetic trace, as babeltrace2 and the report must see it ------- */

struct trace syn;		/* built once by the suite */

const char syn_report[] =
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

/* --- the suites and the program ---------------------------------------------- */

int ctf_fixture_suite_init(void)
{
	return make_synthetic(&syn, "vm1") ? -1 : 0;
}

int ctf_fixture_suite_clean(void)
{
	trace_close(&syn);
	return 0;
}

/*
 * main() of a program of these tests: skipped (77) without babeltrace2
 * and bt2; GR_TEST_SEED=N replays the random parts, GR_TEST_KEEP=1 keeps
 * the trace directories.
 */
int ctf_fixture_main(const char *prog, const struct gr_test_suite *suites,
		     size_t n)
{
	char *bt[] = { "babeltrace2", "--version", NULL };
	char *py[] = { PYTHON, "-c", "import bt2", NULL };
	int ret;

	rng_state = gr_test_seed(prog);
	if (gr_test_tmpdir(tmp_root, sizeof(tmp_root), prog)) {
		perror("mkdtemp");
		return 1;
	}
	if (!gr_test_tool_ok(bt) || !gr_test_tool_ok(py)) {
		gr_test_rm_tree(tmp_root);
		return gr_test_skip("%s needs babeltrace2 and %s with bt2 "
				    "(Debian: babeltrace2 python3-bt2)", prog,
				    PYTHON);
	}
	ret = gr_test_run(suites, n);
	if (getenv("GR_TEST_KEEP"))
		printf("%s: traces kept in %s\n", prog, tmp_root);
	else
		gr_test_rm_tree(tmp_root);
	return ret;
}
