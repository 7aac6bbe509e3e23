// SPDX-License-Identifier: GPL-2.0
/*
 * tl_synth.c - synthetic scheduler traces for the timeline tests (see
 * tl_synth.h)
 *
 * Each CPU runs a random workload of a few tasks: idle, a wakeup, a
 * switch in, a run with an IRQ and a softirq in it, a switch out, ...
 * Its events are written in time order into sub-buffers of the guest's
 * layout (struct gr_packet_header, 8-aligned records), one stream file
 * per CPU, written CPU after CPU with one packet of memory. The event
 * descriptors are those of guest-module/gr_events.c for these events.
 *
 * Built into test_timeline, and with TL_SYNTH_MAIN into tl_mktrace, the
 * generator of tests/integration/test_timeline.sh and of the speed
 * measurement:
 *   tl_mktrace DIR CPUS SWITCHES_PER_CPU [SUBBUF [SEED [hostile] [losses]
 *              [synced]]]
 * prints the truth as "t0 T", "t1 T", "busy CPU NS" lines.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf.h"
#include "gr_build.h"
#include "tl_synth.h"

#define S_NDESC		7
#define S_TASKS		6
#define S_FREQ		1000000000ULL

enum { E_SWITCH, E_WAKEUP, E_IRQ_IN, E_IRQ_OUT, E_SIRQ_IN, E_SIRQ_OUT,
       E_WAKEUP_NEW };

/* descriptor @id of table @d, with its fields cleared */
static struct gr_field_desc *ev(struct gr_event_desc *d, uint16_t id,
				const char *name, const char *sys,
				uint16_t payload, uint16_t flags,
				uint16_t nr_fields)
{
	memset(&d[id], 0, sizeof(d[id]));
	return gr_build_event(&d[id], id, name, sys, payload, flags,
			      nr_fields);
}

/* the layouts of guest-module/gr_events.c */
static void descs(struct gr_event_desc *d)
{
	const uint8_t I = GR_FIELD_INTEGER, C = GR_FIELD_CHARS,
		      S = GR_FIELD_STRING, SG = GR_FIELD_F_SIGNED;
	struct gr_field_desc *f;

	memset(&d[E_SWITCH], 0, sizeof(d[E_SWITCH]));
	gr_build_sched_switch(&d[E_SWITCH], E_SWITCH, SG);
	f = ev(d, E_WAKEUP, "sched_wakeup", "sched", 28, 0, 4);
	gr_build_field(&f[0], "comm", 0, 16, C, 0);
	gr_build_field(&f[1], "tid", 16, 4, I, SG);
	gr_build_field(&f[2], "prio", 20, 4, I, SG);
	gr_build_field(&f[3], "target_cpu", 24, 4, I, SG);
	f = ev(d, E_IRQ_IN, "irq_handler_entry", "irq", 36,
	       GR_EVENT_F_VARLEN, 2);
	gr_build_field(&f[0], "irq", 0, 4, I, SG);
	gr_build_field(&f[1], "name", 4, 32, S, 0);
	f = ev(d, E_IRQ_OUT, "irq_handler_exit", "irq", 8, 0, 2);
	gr_build_field(&f[0], "irq", 0, 4, I, SG);
	gr_build_field(&f[1], "ret", 4, 4, I, SG);
	f = ev(d, E_SIRQ_IN, "softirq_entry", "irq", 4, 0, 1);
	gr_build_field(&f[0], "vec", 0, 4, I, 0);
	f = ev(d, E_SIRQ_OUT, "softirq_exit", "irq", 4, 0, 1);
	gr_build_field(&f[0], "vec", 0, 4, I, 0);
	f = ev(d, E_WAKEUP_NEW, "sched_wakeup_new", "sched", 28, 0, 4);
	gr_build_field(&f[0], "comm", 0, 16, C, 0);
	gr_build_field(&f[1], "tid", 16, 4, I, SG);
	gr_build_field(&f[2], "prio", 20, 4, I, SG);
	gr_build_field(&f[3], "target_cpu", 24, 4, I, SG);
}

static uint64_t region_hdr(struct gr_region_hdr *h, const struct tl_synth *o)
{
	struct gr_build_layout l = {
		.nr_rings = o->global ? 1 : o->cpus,
		.nr_cpus = o->cpus,
		.flags = o->global ? GR_HDR_GLOBAL : 0,
		.subbuf_size = o->subbuf_size,
		.n_subbufs = 4,
		.desc_offset = GR_LAYOUT_START,
		.desc_count = S_NDESC,
		.ring_offset = 0x5000,
		.rec_offset = 0x6000,
		.data_offset = 0x7000,
		.max_event_size = 256,
		.clock_freq = S_FREQ,
		.instance_id = o->seed | 1,
		.kernel_release = "6.1.0-synth",
		.nodename = "synth<&>",
	};
	uint64_t size;

	size = l.data_offset + (uint64_t)l.nr_rings * l.n_subbufs * o->subbuf_size;
	while (size & (size - 1))	/* a power of two (QEMU's rule) */
		size += size & -size;
	l.region_size = size;
	gr_build_hdr(h, &l);
	memset(h->boot_id, 0x5a, sizeof(h->boot_id));
	return size;
}

/* --- one CPU's stream ----------------------------------------------------- */

struct stream {
	int fd;
	unsigned int cpu;
	uint8_t *b;
	uint32_t size, len;
	uint64_t seq, disc, first, last, packets;
	int have;
	const struct tl_synth *o;
	struct tl_truth *truth;
	int err;
};

static void put(uint8_t *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void flush(struct stream *s)
{
	const struct gr_build_packet p = {
		.ring = s->cpu, .cpu = s->cpu, .ts_begin = s->first,
		.ts_end = s->last, .content_bytes = s->len,
		.packet_bytes = s->size, .seq = s->seq, .discarded = s->disc,
	};
	struct gr_packet_header h;

	if (!s->have)
		return;
	gr_build_packet_header(&h, &p);
	memcpy(s->b, &h, sizeof(h));
	memset(s->b + s->len, 0, s->size - s->len);
	if (!s->err && write(s->fd, s->b, s->size) != (ssize_t)s->size)
		s->err = -EIO;
	if (!s->truth->packets || s->first < s->truth->t0)
		s->truth->t0 = s->first;
	if (s->last > s->truth->t1)
		s->truth->t1 = s->last;
	s->truth->packets++;
	s->truth->bytes += s->size;
	s->packets++;
	s->seq++;
	if (s->o->losses && s->packets % 7 == 6) {
		s->seq++;		/* "lost" one packet */
		s->disc += 3;
		s->truth->lost++;
	}
	s->have = 0;
	s->len = sizeof(h);
}

static void rec(struct stream *s, uint16_t id, uint32_t tid, uint64_t ts,
		const uint8_t *payload, uint32_t plen)
{
	uint32_t size = (uint32_t)((sizeof(struct gr_event_header) + plen + 7) &
				   ~7UL);

	if (s->len + size > s->size)
		flush(s);
	if (!s->have) {
		s->first = ts;
		s->have = 1;
	}
	s->last = ts;
	s->len += gr_build_record(s->b + s->len, id, tid, ts, payload, plen);
}

struct task {
	uint32_t tid;
	char comm[16];		/* not NUL-terminated when 16 long */
};

static void sw(struct stream *s, uint64_t ts, const struct task *p,
	       const struct task *n)
{
	uint8_t b[56];

	memset(b, 0, sizeof(b));
	memcpy(b, p->comm, 16);
	put(b + 16, p->tid, 4);
	put(b + 20, 120, 4);
	put(b + 24, p->tid ? 1 : 0, 8);
	memcpy(b + 32, n->comm, 16);
	put(b + 48, n->tid, 4);
	put(b + 52, 120, 4);
	rec(s, E_SWITCH, p->tid, ts, b, sizeof(b));
	s->truth->switches++;
}

static void wake(struct stream *s, uint64_t ts, uint32_t by,
		 const struct task *t, int new)
{
	uint8_t b[28];

	memcpy(b, t->comm, 16);
	put(b + 16, t->tid, 4);
	put(b + 20, 120, 4);
	put(b + 24, s->cpu, 4);
	rec(s, new ? E_WAKEUP_NEW : E_WAKEUP, by, ts, b, sizeof(b));
	s->truth->wakeups++;
}

static void irq(struct stream *s, uint64_t ts, uint64_t te, uint32_t tid,
		int32_t no, const char *name)
{
	uint8_t b[36];
	size_t n = strlen(name) + 1;

	put(b, (uint32_t)no, 4);
	memcpy(b + 4, name, n);
	rec(s, E_IRQ_IN, tid, ts, b, (uint32_t)(4 + n));
	put(b + 4, 1, 4);
	rec(s, E_IRQ_OUT, tid, te, b, 8);
	s->truth->irqs++;
}

static void sirq(struct stream *s, uint64_t ts, uint64_t te, uint32_t tid,
		 uint32_t vec)
{
	uint8_t b[4];

	put(b, vec, 4);
	rec(s, E_SIRQ_IN, tid, ts, b, 4);
	rec(s, E_SIRQ_OUT, tid, te, b, 4);
	s->truth->softirqs++;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static uint64_t between(uint64_t *x, uint64_t lo, uint64_t hi)
{
	return lo + rnd(x) % (hi - lo + 1);
}

static int write_cpu(int dirfd, const struct tl_synth *o, unsigned int cpu,
		     struct tl_truth *truth)
{
	static const char *const names[S_TASKS] = {
		"bash", "kworker/%u:1", "sshd", "gcc-12", "python3",
		"rcu_sched",
	};
	static const char hostile[16] = "<b>&\"'x\xff\xfe</b>\x01z";
	char name[GR_CTF_STREAM_NAME_MAX], nm[32];
	struct task idle, tasks[S_TASKS];
	const struct task *cur = &idle, *next;
	uint64_t x = o->seed * 2654435761ULL + cpu + 1, t, run, i;
	struct stream s;
	unsigned int k;
	int ret;

	memset(&idle, 0, sizeof(idle));
	snprintf(nm, sizeof(nm), "swapper/%u", cpu);
	memcpy(idle.comm, nm, strnlen(nm, sizeof(idle.comm)));
	for (k = 0; k < S_TASKS; k++) {
		memset(&tasks[k], 0, sizeof(tasks[k]));
		tasks[k].tid = 1000 + cpu * 16 + k;
		snprintf(nm, sizeof(nm), names[k], cpu);
		memcpy(tasks[k].comm, nm, strnlen(nm, sizeof(tasks[k].comm)));
		if (o->hostile && k == 2)
			memcpy(tasks[k].comm, hostile, 16);
	}
	memset(&s, 0, sizeof(s));
	s.cpu = cpu;
	s.o = o;
	s.truth = truth;
	s.size = o->subbuf_size;
	s.len = sizeof(struct gr_packet_header);
	s.b = malloc(s.size);
	snprintf(name, sizeof(name), GR_CTF_STREAM_FMT, cpu);
	s.fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0644);
	if (!s.b || s.fd < 0) {
		ret = s.b ? -errno : -ENOMEM;
		goto out;
	}
	t = S_FREQ + cpu * 1000;
	for (i = 0; i < o->switches; i++) {
		if (!cur->tid) {
			/* idle, then a wakeup and a switch in */
			next = &tasks[rnd(&x) % S_TASKS];
			t += between(&x, 20000, 300000);
			wake(&s, t, 0, next, i < S_TASKS);
			t += between(&x, 2000, 40000);
			sw(&s, t, cur, next);
			cur = next;
			continue;
		}
		/* a run, with an IRQ and a softirq in it, then out */
		run = rnd(&x) % 16 ? between(&x, 5000, 3000000) :
		      between(&x, 5000000, 20000000);
		if (run > 100000) {
			irq(&s, t + run / 3, t + run / 3 + between(&x, 2000, 9000),
			    cur->tid, 11 + cpu, cpu & 1 ? "virtio0-input" :
			    "ahci<0>&");
			sirq(&s, t + run / 2, t + run / 2 + between(&x, 5000, 30000),
			     cur->tid, (uint32_t)(rnd(&x) % 10));
		}
		t += run;
		truth->busy[cpu] += run;
		next = &idle;
		if (i + 1 < o->switches && rnd(&x) % 2) {
			next = &tasks[rnd(&x) % S_TASKS];
			if (next == cur)
				next = &idle;
			else
				wake(&s, t - 1000, cur->tid, next, 0);
		}
		sw(&s, t, cur, next);
		cur = next;
	}
	if (cur->tid) {
		/* end idle: the last switch goes to idle */
		t += 1000;
		truth->busy[cpu] += 1000;
		sw(&s, t, cur, &idle);
	}
	flush(&s);
	ret = s.err;
out:
	if (s.fd >= 0)
		close(s.fd);
	free(s.b);
	return ret;
}

/**
 * tl_synth_write() - write a synthetic trace into a new directory
 * @dir: the directory; created, must not exist
 * @o: what to write
 * @truth: receives what the timeline must show
 *
 * Return: 0 or -errno.
 */
int tl_synth_write(const char *dir, const struct tl_synth *o,
		   struct tl_truth *truth)
{
	struct gr_event_desc d[S_NDESC];
	struct gr_event_view evs[S_NDESC];
	struct gr_region_hdr h;
	struct gr_ctf_clock clock;
	struct gr_ctf_env env;
	const char *why = "";
	struct gr_view v;
	uint64_t size;
	unsigned int i;
	size_t len;
	char *text;
	int dirfd, ret;

	if (!o->cpus || o->cpus > TL_SYNTH_MAX_CPUS || !o->switches)
		return -EINVAL;
	memset(truth, 0, sizeof(*truth));
	size = region_hdr(&h, o);
	descs(d);
	if (gr_check_region_hdr(&h, size, &v, &why)) {
		fprintf(stderr, "tl_synth: region header: %s\n", why);
		return -EINVAL;
	}
	for (i = 0; i < S_NDESC; i++)
		if (gr_check_event_desc(&v, &d[i], i, &evs[i], &why)) {
			fprintf(stderr, "tl_synth: event %u: %s\n", i, why);
			return -EINVAL;
		}
	memset(&clock, 0, sizeof(clock));
	if (o->synced) {
		ret = gr_ctf_clock_from_sync(S_FREQ, 0,
					     o->host_s * 1000000000LL, 1000,
					     &clock);
		if (ret)
			return ret;
	}
	memset(&env, 0, sizeof(env));
	env.vm_name = "synth";
	env.host_name = "host";
	env.session = "s1";
	for (i = 0; i < 16; i++)
		env.trace_uuid[i] = (uint8_t)(o->seed * 31 + i);
	env.tracer_major = 1;
	if (mkdir(dir, 0755))
		return -errno;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	ret = gr_ctf_metadata(&v, evs, S_NDESC, &env, &clock, &text, &len);
	if (!ret) {
		ret = gr_ctf_write_metadata(dirfd, text, len, NULL);
		free(text);
	}
	if (!ret)
		ret = gr_ctf_write_info(dirfd, &h, size, d, sizeof(d[0]),
					S_NDESC, &clock,
					env.trace_uuid, NULL);
	for (i = 0; !ret && i < (o->global ? 1 : o->cpus); i++)
		ret = write_cpu(dirfd, o, i, truth);
	close(dirfd);
	return ret;
}

#ifdef TL_SYNTH_MAIN
int main(int argc, char **argv)
{
	struct tl_synth o = { .subbuf_size = 65536, .seed = 1 };
	struct tl_truth t;
	unsigned int i;
	int ret;

	if (argc < 4) {
		fprintf(stderr, "usage: tl_mktrace DIR CPUS SWITCHES_PER_CPU "
			"[SUBBUF [SEED [hostile] [losses] [synced]]]\n");
		return 2;
	}
	o.cpus = (unsigned int)strtoul(argv[2], NULL, 0);
	o.switches = strtoull(argv[3], NULL, 0);
	if (argc > 4)
		o.subbuf_size = (uint32_t)strtoul(argv[4], NULL, 0);
	if (argc > 5)
		o.seed = strtoull(argv[5], NULL, 0);
	for (i = 6; i < (unsigned int)argc; i++) {
		o.hostile |= !strcmp(argv[i], "hostile");
		o.losses |= !strcmp(argv[i], "losses");
		o.synced |= !strcmp(argv[i], "synced");
	}
	o.host_s = 1764000000;
	ret = tl_synth_write(argv[1], &o, &t);
	if (ret) {
		fprintf(stderr, "tl_mktrace: %s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	printf("t0 %llu\nt1 %llu\n", (unsigned long long)t.t0,
	       (unsigned long long)t.t1);
	for (i = 0; i < o.cpus; i++)
		printf("busy %u %llu\n", i, (unsigned long long)t.busy[i]);
	printf("switches %llu\nwakeups %llu\nirqs %llu\nsoftirqs %llu\n"
	       "packets %llu\nlost %llu\nbytes %llu\n",
	       (unsigned long long)t.switches, (unsigned long long)t.wakeups,
	       (unsigned long long)t.irqs, (unsigned long long)t.softirqs,
	       (unsigned long long)t.packets, (unsigned long long)t.lost,
	       (unsigned long long)t.bytes);
	return 0;
}
#endif
