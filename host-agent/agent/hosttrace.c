// SPDX-License-Identifier: GPL-2.0
/*
 * hosttrace.c - the host stream of a VM's session: what the host
 * scheduler did with the threads of the VM's QEMU (its vCPU threads and
 * the others), stored as <session>/host/ (trace/hoststream.h), or in a
 * session kept in chunks as <chunk>/host/ of each chunk
 *
 *   events     sched_switch, sched_wakeup, sched_migrate_task: perf
 *              tracepoint events (PERF_TYPE_TRACEPOINT, ids and field
 *              offsets from tracefs events/sched/<name>/{id,format});
 *              on a KVM host, kvm_entry and kvm_exit too (events/kvm/),
 *              the exit reasons named from kvm_exit's print fmt; a host
 *              without them records the scheduler's alone and says so
 *              once (ht_record.c decodes the records)
 *   which      one event of each per host CPU (pid -1, cpu N), with a
 *              tracepoint filter naming QEMU's threads ("prev_pid == T ||
 *              next_pid == T ..."; "pid == T ..."; KVM's "common_pid ==
 *              T ..."), the events of a CPU
 *              writing into one ring (PERF_EVENT_IOC_SET_OUTPUT)
 *   threads    /proc/<pid>/task of the QEMU vcpu.c follows, listed again
 *              after each of its scans; a new thread (a hot-plugged vCPU,
 *              a worker of QEMU's pool) gets a new set of events with a
 *              new filter, the kernel setting a filter only once
 *              (refilter())
 *   reading    from the VM's poll timer (vm.c calls ht_tick()): a ring
 *              is drained into its CPU's stream when an eighth of it is
 *              used and at least every 100 ms (a pass reads only its
 *              data_head otherwise), packets are written when full and
 *              at least once a second (after a drain of every ring)
 *
 * Why per CPU and not per thread: a per-thread event sees only what
 * happens while its thread is current, so it records the thread's
 * switch out but never its switch in (that one runs in the context of
 * the task leaving the CPU); per CPU, both ends and the task that ran
 * instead are in one sched_switch record. The filter runs in the kernel
 * on every switch of the host, a few comparisons; only QEMU's events are
 * copied, 3 descriptors and one 132 KiB ring per host CPU and VM, timed
 * by CLOCK_MONOTONIC (use_clockid).
 *
 * Privilege: system-wide tracepoint events need CAP_PERFMON (or
 * perf_event_paranoid -1), and the ids need read access to tracefs; the
 * systemd unit grants CAP_PERFMON and copies the three events' id and
 * format files to <run>/tracefs/events/sched/ before it starts the agent
 * (scripts/guestrelay-agent.service). Without them the reason is logged
 * once per VM and session and the guest's trace goes on without a host
 * stream.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "vm.h"

#define HT_PAGES	32		/* data pages of a CPU's ring */
#define HT_FLUSH_NS	(1000ULL * 1000 * 1000)
#define HT_DRAIN_NS	(100ULL * 1000 * 1000)	/* every ring drained */
#define HT_DRAIN_BYTES	(HT_PAGES * GR_PAGE_SIZE / 8)	/* or a fuller one */
#define HT_FILTER_MAX	4000		/* a filter is copied in one page */
#define HT_FORMAT_MAX	16384		/* kvm_exit's is 5 KiB with its reasons */

/*
 * the perf events and the ring of one host CPU; of the events in its
 * ring, those in [@from_ns, @until_ns) are taken (refilter())
 */
struct gr_ht_cpu {
	int fd[GR_HT_NR_TPS];
	void *ring;
	uint64_t from_ns;
	uint64_t until_ns;
};

/* a ring being drained: whose records go where */
struct ht_walk {
	struct gr_hosttrace *ht;
	const struct gr_ht_cpu *hc;
	unsigned int c;
};

/**
 * ht_filter() - a tracepoint filter that passes the events of @tids
 * @buf: receives "F1 == T1 || F2 == T1 || F1 == T2 ..."
 * @size: its size
 * @fields: the pid fields compared
 * @nr_fields: entries of @fields
 * @tids: the threads, at least one
 * @ntids: entries of @tids
 *
 * Return: 0, -ENOSPC if it does not fit, -EINVAL without any thread.
 */
int ht_filter(char *buf, size_t size, const char *const *fields,
	      unsigned int nr_fields, const int *tids, unsigned int ntids)
{
	size_t len = 0;
	unsigned int i, j;
	int n;

	if (!ntids || !nr_fields || !size)
		return -EINVAL;
	buf[0] = '\0';
	for (i = 0; i < ntids; i++)
		for (j = 0; j < nr_fields; j++) {
			n = snprintf(buf + len, size - len, "%s%s == %d",
				     len ? " || " : "", fields[j], tids[i]);
			if (n < 0 || (size_t)n >= size - len)
				return -ENOSPC;
			len += (size_t)n;
		}
	return 0;
}

void ht_init(struct gr_hosttrace *ht)
{
	memset(ht, 0, sizeof(*ht));
	ht->top = -1;
	ht->dirfd = -1;
}

/* id and fields of tracepoint @i under tracefs root @root */
static int read_tp(const char *root, unsigned int i, struct gr_ht_tp *tp)
{
	const struct gr_ht_tpdef *d = &gr_ht_tps[i];
	char path[4200], buf[HT_FORMAT_MAX];
	int ret;

	tp->present = false;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, d->system,
		 d->name);
	ret = vcpu_read_text(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	tp->id = strtoull(buf, NULL, 10);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, d->system,
		 d->name);
	ret = vcpu_read_text(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	ret = ht_read_format(buf, i, tp);
	tp->present = !ret;
	return ret;
}

/* KVM's two tracepoints and its exit reasons under @root, if it has them */
static int read_kvm(struct gr_hosttrace *ht, const char *root)
{
	char path[4200], *buf;
	int ret;

	ret = read_tp(root, GR_HT_KVM_ENTRY, &ht->tp[GR_HT_KVM_ENTRY]);
	if (!ret)
		ret = read_tp(root, GR_HT_KVM_EXIT, &ht->tp[GR_HT_KVM_EXIT]);
	if (ret) {
		ht->tp[GR_HT_KVM_ENTRY].present = false;
		ht->tp[GR_HT_KVM_EXIT].present = false;
		return ret;
	}
	buf = malloc(HT_FORMAT_MAX);
	if (!buf)
		return 0;	/* the reasons go unnamed */
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", root,
		 gr_ht_tps[GR_HT_KVM_EXIT].system,
		 gr_ht_tps[GR_HT_KVM_EXIT].name);
	if (vcpu_read_text(path, buf, HT_FORMAT_MAX) < 0 ||
	    ht_read_reasons(buf, &ht->reasons))
		ht->reasons.n = 0;
	free(buf);
	return 0;
}

/*
 * the sched tracepoints, from the unit's copy or a tracefs mount; KVM's
 * from the first of them that has both (-ENOENT in @ht->kvm_err if none)
 */
static int read_tps(struct gr_vm *vm)
{
	struct gr_hosttrace *ht = &vm->ht;
	char copy[PATH_MAX + 16];
	const char *roots[] = { copy, "/sys/kernel/tracing",
				"/sys/kernel/debug/tracing" };
	unsigned int r, i, nr = ARRAY_SIZE(roots);
	int ret = -ENOENT, kvm = -ENOENT;

	snprintf(copy, sizeof(copy), "%s/tracefs", vm->agent->run_dir);
	for (r = 0; r < nr && kvm; r++)
		kvm = read_kvm(ht, roots[r]);
	if (!ht->kvm_err)
		ht->kvm_err = kvm;
	for (r = 0; r < nr; r++) {
		for (i = 0, ret = 0; !ret && i < GR_HT_NR_SCHED; i++)
			ret = read_tp(roots[r], i, &ht->tp[i]);
		if (!ret)
			return 0;
	}
	return ret;
}

/* the host stream goes on without KVM's events: said once a session */
static void kvm_off(struct gr_vm *vm, int err)
{
	struct gr_hosttrace *ht = &vm->ht;

	ht->tp[GR_HT_KVM_ENTRY].present = false;
	ht->tp[GR_HT_KVM_EXIT].present = false;
	ht->kvm_err = err;
}

static void tell_kvm(struct gr_vm *vm)
{
	struct gr_hosttrace *ht = &vm->ht;

	if (ht->kvm_told || !ht->kvm_err)
		return;
	ht->kvm_told = true;
	if (ht->kvm_err == -ENOENT)
		syslog(LOG_INFO, "%s: host stream without KVM's events: the host's tracefs has no kvm/kvm_entry and kvm/kvm_exit (not a KVM host, or kvm not loaded)",
		       vm->opts.name);
	else
		syslog(LOG_WARNING, "%s: host stream without KVM's events: kvm_entry/kvm_exit: %s",
		       vm->opts.name, strerror(-ht->kvm_err));
}

/*
 * the filters of a set of events that has none yet: the kernel sets a
 * tracepoint event's filter once and answers EEXIST to another
 * (ftrace_profile_set_filter()), so new threads need new events
 */
static int set_filters(struct gr_hosttrace *ht, struct gr_ht_cpu *cpus,
		       const int *tids, unsigned int ntids)
{
	static const char *const sw[] = { "prev_pid", "next_pid" };
	static const char *const one[] = { "pid" };
	/* KVM's events run in the vCPU thread: its pid is the record's */
	static const char *const own[] = { "common_pid" };
	char f[3][HT_FILTER_MAX];
	unsigned int c, i, k;
	int ret;

	ret = ht_filter(f[0], sizeof(f[0]), sw, 2, tids, ntids);
	if (!ret)
		ret = ht_filter(f[1], sizeof(f[1]), one, 1, tids, ntids);
	if (!ret)
		ret = ht_filter(f[2], sizeof(f[2]), own, 1, tids, ntids);
	for (c = 0; !ret && c < ht->nr_cpus; c++)
		for (i = 0; i < GR_HT_NR_TPS; i++) {
			k = i == GR_HT_SWITCH ? 0 : i < GR_HT_NR_SCHED ? 1 : 2;
			if (cpus[c].fd[i] >= 0 &&
			    ioctl(cpus[c].fd[i], PERF_EVENT_IOC_SET_FILTER,
				  f[k]))
				return -errno;
		}
	return ret;
}

/*
 * QEMU's threads now, into @tids: their number if one of them is not
 * among those the filters name (@ht->tids), else 0 (a thread that ended
 * needs no new filter: its tid stays named until the next new thread)
 */
static unsigned int new_tids(const struct gr_hosttrace *ht, int *tids)
{
	int n = vcpu_list_tids(ht->pid, tids, GR_HT_MAX_TIDS);
	unsigned int i, j;

	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		for (j = 0; j < ht->ntids && ht->tids[j] != tids[i]; j++)
			;
		if (j == ht->ntids)
			return (unsigned int)n;
	}
	return 0;
}

/* host CPU @cpu's stream, opened at its first event; NULL if it cannot be */
static struct gr_hs_stream *stream_of(struct gr_hosttrace *ht, unsigned int cpu)
{
	struct gr_hs_stream *s = ht->out[cpu];

	if (s)
		return s;
	s = malloc(sizeof(*s));
	if (!s)
		return NULL;
	if (gr_hs_stream_open(s, ht->dirfd, cpu)) {
		free(s);
		return NULL;
	}
	ht->out[cpu] = s;
	return s;
}

/*
 * lttng_statedump_process_state of each of QEMU's threads, in the
 * stream of the CPU it ran on last: which threads are the VM's (a
 * switch names the other task too, perhaps another QEMU's vCPU)
 */
static void dump_threads(struct gr_hosttrace *ht)
{
	uint8_t p[GR_HS_STATEDUMP_SIZE];
	struct gr_hs_stream *s;
	uint64_t run, delay;
	struct timespec now;
	char path[64];
	unsigned int i;
	int cpu, v;
	FILE *f;

	clock_gettime(CLOCK_MONOTONIC, &now);
	for (i = 0; i < ht->ntids; i++) {
		memset(p, 0, sizeof(p));
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", ht->pid,
			 ht->tids[i]);
		f = fopen(path, "re");
		if (!f)
			continue;	/* it ended (new_tids() keeps it named) */
		if (fgets((char *)p + 12, 17, f))
			p[12 + strcspn((char *)p + 12, "\n")] = '\0';
		fclose(f);
		if (vcpu_read_thread(ht->pid, ht->tids[i], &cpu, &run, &delay) ||
		    cpu < 0 || (unsigned int)cpu >= ht->nr_cpus)
			cpu = 0;
		s = stream_of(ht, (unsigned int)cpu);
		if (!s)
			continue;
		memcpy(p, &ht->tids[i], 4);
		memcpy(p + 4, &ht->pid, 4);
		v = 5;			/* mode: unknown, as lttng-modules */
		memcpy(p + 32, &v, 4);
		v = 2;			/* status: runnable or running */
		memcpy(p + 40, &v, 4);
		memcpy(p + 44, &cpu, 4);
		gr_hs_stream_add(s, GR_HS_STATEDUMP, (uint32_t)ht->tids[i],
				 (uint64_t)now.tv_sec * 1000000000 +
				 (uint64_t)now.tv_nsec, p, sizeof(p));
	}
}

static int open_event(const struct gr_ht_tp *tp, unsigned int cpu)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = tp->id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_RAW;
	a.disabled = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	fd = syscall(SYS_perf_event_open, &a, -1, (int)cpu, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static void free_cpus(const struct gr_hosttrace *ht, struct gr_ht_cpu *cpus)
{
	unsigned int c, i;

	for (c = 0; cpus && c < ht->nr_cpus; c++) {
		for (i = 0; i < GR_HT_NR_TPS; i++)
			if (cpus[c].fd[i] >= 0)
				close(cpus[c].fd[i]);
		if (cpus[c].ring)
			munmap(cpus[c].ring, (HT_PAGES + 1) * GR_PAGE_SIZE);
	}
	free(cpus);
}

static void stop_cpus(struct gr_hosttrace *ht)
{
	free_cpus(ht, ht->cpu);
	ht->cpu = NULL;
}

/* one host CPU's events and ring; an offline CPU has none (0) */
static int open_cpu(const struct gr_hosttrace *ht, struct gr_ht_cpu *hc,
		    unsigned int c)
{
	unsigned int i;
	void *ring;

	for (i = 0; i < GR_HT_NR_TPS; i++) {
		if (!ht->tp[i].present)
			continue;
		hc->fd[i] = open_event(&ht->tp[i], c);
		if (hc->fd[i] == -ENODEV && !i)
			return 0;
		if (hc->fd[i] < 0)
			return hc->fd[i];
	}
	ring = mmap(NULL, (HT_PAGES + 1) * GR_PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_SHARED, hc->fd[0], 0);
	if (ring == MAP_FAILED)
		return -errno;
	hc->ring = ring;
	for (i = 1; i < GR_HT_NR_TPS; i++)
		if (hc->fd[i] >= 0 &&
		    ioctl(hc->fd[i], PERF_EVENT_IOC_SET_OUTPUT, hc->fd[0]))
			return -errno;
	return 0;
}

/* the events of every host CPU, disabled and without filters, in @cpus */
static int open_cpus(const struct gr_hosttrace *ht, struct gr_ht_cpu **cpus)
{
	struct gr_ht_cpu *set = calloc(ht->nr_cpus, sizeof(*set));
	unsigned int c, i;
	int ret = 0;

	if (!set)
		return -ENOMEM;
	for (c = 0; c < ht->nr_cpus; c++) {
		for (i = 0; i < GR_HT_NR_TPS; i++)
			set[c].fd[i] = -1;
		set[c].until_ns = UINT64_MAX;
	}
	for (c = 0; !ret && c < ht->nr_cpus; c++)
		ret = open_cpu(ht, &set[c], c);
	if (ret) {
		free_cpus(ht, set);
		set = NULL;
	}
	*cpus = set;
	return ret;
}

/* host CPU @hc's events on; the time after, when all three run */
static int enable_cpu(struct gr_ht_cpu *hc, uint64_t *on_ns)
{
	struct timespec t;
	unsigned int i;

	for (i = 0; i < GR_HT_NR_TPS; i++)
		if (hc->fd[i] >= 0 &&
		    ioctl(hc->fd[i], PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
	clock_gettime(CLOCK_MONOTONIC, &t);
	*on_ns = (uint64_t)t.tv_sec * 1000000000 + (uint64_t)t.tv_nsec;
	return 0;
}

static int make_dir(struct gr_vm *vm);

/* the events of every host CPU, filtered to QEMU's threads, enabled */
static int start(struct gr_vm *vm)
{
	struct gr_hosttrace *ht = &vm->ht;
	uint64_t on_ns;
	unsigned int c;
	int n, ret;

	ret = read_tps(vm);
	if (!ret)
		ret = open_cpus(ht, &ht->cpu);
	if (ret && ht->tp[GR_HT_KVM_ENTRY].present) {
		/* the scheduler's events without KVM's, if they open */
		kvm_off(vm, ret);
		ret = open_cpus(ht, &ht->cpu);
	}
	if (ret)
		return ret;	/* tell() says why, of the sched events */
	tell_kvm(vm);
	/* the directory only once the kernel gave the events */
	if (ht->dirfd < 0)
		ret = make_dir(vm);
	n = vcpu_list_tids(ht->pid, ht->tids, GR_HT_MAX_TIDS);
	ht->ntids = n > 0 ? (unsigned int)n : 0;
	ht->scan_ns = vm->vcpu.scan_ns;
	if (!ret) {
		dump_threads(ht);
		ret = set_filters(ht, ht->cpu, ht->tids, ht->ntids);
	}
	for (c = 0; !ret && c < ht->nr_cpus; c++)
		ret = enable_cpu(&ht->cpu[c], &on_ns);
	if (ret)
		stop_cpus(ht);
	return ret;
}

/* --- records ---------------------------------------------------------------- */

/* a ring's record: a sample into its CPU's stream, or events lost */
static void take_record(void *arg, uint32_t type, const uint8_t *rec,
			uint32_t n)
{
	struct ht_walk *w = arg;
	struct gr_hosttrace *ht = w->ht;
	uint8_t p[GR_HT_PAYLOAD_MAX];
	struct gr_ht_sample s;
	uint64_t lost;
	uint32_t len;
	int e;

	if (type == PERF_RECORD_LOST && n >= 24) {
		memcpy(&lost, rec + 16, 8);
		ht->lost += lost;
		if (ht->out[w->c])
			ht->out[w->c]->lost += lost;
		return;
	}
	if (type != PERF_RECORD_SAMPLE || ht_sample(rec, n, &s) ||
	    s.cpu >= ht->nr_cpus || s.ts < w->hc->from_ns ||
	    s.ts >= w->hc->until_ns)
		return;
	e = ht_payload(ht->tp, &ht->reasons, &s, p, &len);
	if (e < 0 || !stream_of(ht, s.cpu))
		return;
	gr_hs_stream_add(ht->out[s.cpu], (enum gr_hs_event)e, s.tid, s.ts, p,
			 len);
	ht->events++;
}

/* everything in the ring of @hc, host CPU @c's */
static void drain_ring(struct gr_hosttrace *ht, const struct gr_ht_cpu *hc,
		       unsigned int c)
{
	struct perf_event_mmap_page *m = hc->ring;
	struct ht_walk w = { .ht = ht, .hc = hc, .c = c };
	uint64_t head, tail;

	if (!m)
		return;
	/* pairs with the kernel's store of data_head after the records */
	head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
	tail = ht_ring_walk((const uint8_t *)m + GR_PAGE_SIZE,
			    HT_PAGES * GR_PAGE_SIZE, head, m->data_tail,
			    take_record, &w);
	/* pairs with the kernel's read of data_tail before it overwrites */
	__atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_cpu(struct gr_hosttrace *ht, unsigned int c)
{
	drain_ring(ht, &ht->cpu[c], c);
}

/* bytes the kernel wrote into the ring of @hc that were not taken yet */
static uint64_t ring_used(const struct gr_ht_cpu *hc)
{
	const struct perf_event_mmap_page *m = hc->ring;

	if (!m)
		return 0;
	return __atomic_load_n(&m->data_head, __ATOMIC_RELAXED) -
	       m->data_tail;
}

/**
 * refilter() - QEMU has threads the filters do not name: follow them
 * @ht: the host stream, its events running
 * @tids: QEMU's threads now
 * @ntids: entries of @tids
 *
 * A filter is set once per event, so a new set of events is opened with
 * the new filter and runs beside the old set for a moment. Per host
 * CPU, the new events are enabled and the time read after (@on): the
 * old ring keeps the events before @on, the new ring those from @on on,
 * so that an event of the overlap is taken once and none is missed.
 * Then the old set is disabled, drained and closed. If the new set
 * cannot be made, the old one goes on as it was.
 *
 * Return: 0, or -errno with the old set still running.
 */
static int refilter(struct gr_hosttrace *ht, const int *tids,
		    unsigned int ntids)
{
	struct gr_ht_cpu *old = ht->cpu, *set;
	unsigned int c, i;
	uint64_t on;
	int ret;

	ret = open_cpus(ht, &set);
	if (ret)
		return ret;
	ret = set_filters(ht, set, tids, ntids);
	for (c = 0; !ret && c < ht->nr_cpus; c++) {
		ret = enable_cpu(&set[c], &on);
		set[c].from_ns = on;
		old[c].until_ns = on;
	}
	if (ret) {
		for (c = 0; c < ht->nr_cpus; c++)
			old[c].until_ns = UINT64_MAX;
		free_cpus(ht, set);
		return ret;
	}
	for (c = 0; c < ht->nr_cpus; c++)
		for (i = 0; i < GR_HT_NR_TPS; i++)
			if (old[c].fd[i] >= 0)
				ioctl(old[c].fd[i], PERF_EVENT_IOC_DISABLE, 0);
	for (c = 0; c < ht->nr_cpus; c++)
		drain_ring(ht, &old[c], c);
	free_cpus(ht, old);
	ht->cpu = set;
	memcpy(ht->tids, tids, sizeof(int) * ntids);
	ht->ntids = ntids;
	return 0;
}

static void flush_all(struct gr_hosttrace *ht)
{
	unsigned int c;

	for (c = 0; ht->out && c <= ht->nr_cpus; c++)
		if (ht->out[c])
			gr_hs_stream_flush(ht->out[c]);
}

/* --- vmsync (spec 9.8) ------------------------------------------------------ */

/**
 * ht_vm_uid() - the vm_uid of the VM's vmsync records
 * @vm: the VM
 *
 * One per host stream: its trace UUID's first 8 bytes, bit 63 cleared
 * (Trace Compass reads integers as signed 64-bit), never 0.
 *
 * Return: it, or 0 while no host stream is written (no vmsync records).
 */
uint64_t ht_vm_uid(const struct gr_vm *vm)
{
	const struct gr_hosttrace *ht = &vm->ht;
	uint64_t uid = 0;
	unsigned int i;

	if (!ht->open || ht->dirfd < 0 || !ht->cpu || !ht->named)
		return 0;
	for (i = 0; i < 8; i++)
		uid |= (uint64_t)ht->uuid[i] << (8 * i);
	uid &= ~(1ULL << 63);
	return uid ? uid : 1;
}

/**
 * ht_vmsync() - the sync rounds' messages into the host stream
 * @vm: the VM
 *
 * vmsync_hg_host and vmsync_gh_host of hostctl.c's marks, in a stream of
 * their own (cpu_id = the number of host CPUs): no CPU's stream gets
 * records out of its time order. Empties the marks.
 *
 * Context: the loop's thread.
 */
void ht_vmsync(struct gr_vm *vm)
{
	struct gr_hosttrace *ht = &vm->ht;
	const struct gr_vmsync_mark *m;
	uint64_t p[GR_HS_VMSYNC_SIZE / 8];
	struct gr_hs_stream *s;
	uint32_t tid;
	unsigned int i;

	/* every poll pass calls this; most have no mark (and no syscall) */
	if (!vm->hc.nr_marks)
		return;
	tid = (uint32_t)syscall(SYS_gettid);
	s = ht_vm_uid(vm) ? stream_of(ht, ht->nr_cpus) : NULL;
	for (i = 0; s && i < vm->hc.nr_marks; i++) {
		m = &vm->hc.marks[i];
		p[0] = htole64(m->cnt);
		p[1] = htole64(m->vm_uid);
		gr_hs_stream_add(s, m->gh ? GR_HS_VMSYNC_GH : GR_HS_VMSYNC_HG,
				 tid, m->ts, p, sizeof(p));
	}
	vm->hc.nr_marks = 0;
}

/* --- life ------------------------------------------------------------------- */

static void tell(struct gr_vm *vm)
{
	struct gr_hosttrace *ht = &vm->ht;

	if (ht->told || !ht->err)
		return;
	ht->told = true;
	if (ht->err == -EACCES || ht->err == -EPERM)
		syslog(LOG_WARNING, "%s: no host stream: the kernel refused perf events of its sched tracepoints (%s); the agent needs CAP_PERFMON (or kernel.perf_event_paranoid=-1); recording the guest only",
		       vm->opts.name, strerror(-ht->err));
	else if (ht->err == -ENOENT)
		syslog(LOG_WARNING, "%s: no host stream: cannot read the id and format of the sched tracepoints (in %s/tracefs, /sys/kernel/tracing or /sys/kernel/debug/tracing: mount tracefs, or let the unit copy them); recording the guest only",
		       vm->opts.name, vm->agent->run_dir);
	else
		syslog(LOG_WARNING, "%s: no host stream: %s; recording the guest only",
		       vm->opts.name, strerror(-ht->err));
}

/* the session's host stream: its trace UUID and clock, made once */
static int name_stream(struct gr_hosttrace *ht)
{
	struct timespec r0, m, r1;
	int64_t real, err;
	int ret;

	if (ht->named)
		return 0;
	if (getrandom(ht->uuid, 16, 0) != 16)
		return -EIO;
	ht->uuid[6] = (ht->uuid[6] & 0x0f) | 0x40;
	ht->uuid[8] = (ht->uuid[8] & 0x3f) | 0x80;
	clock_gettime(CLOCK_REALTIME, &r0);
	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r1);
	real = ((int64_t)r0.tv_sec * 1000000000 + r0.tv_nsec +
		(int64_t)r1.tv_sec * 1000000000 + r1.tv_nsec) / 2;
	err = ((int64_t)r1.tv_sec - r0.tv_sec) * 1000000000 +
	      (r1.tv_nsec - r0.tv_nsec);
	ret = gr_ctf_clock_from_sync(1000000000ULL,
				     (uint64_t)m.tv_sec * 1000000000 +
				     (uint64_t)m.tv_nsec, real,
				     (uint64_t)err / 2 + 1, &ht->clock);
	ht->named = !ret;
	return ret;
}

/*
 * the stream's identity and clock: the host, CLOCK_MONOTONIC; the same
 * in every chunk's host/, so that they read as one trace
 */
static int write_files(struct gr_vm *vm, char *host)
{
	struct gr_ctf_env env = {
		.vm_name = vm->opts.name,
		.host_name = host,
		.session = vm->sess.name,
		.tracer_major = 1,
		.host_stream = 1,
	};
	int ret = name_stream(&vm->ht);

	if (ret)
		return ret;
	memcpy(env.trace_uuid, vm->ht.uuid, 16);
	return gr_hs_write_files(vm->ht.dirfd, vm->ht.layout, &env,
				 &vm->ht.clock);
}

static int prepare(struct gr_vm *vm)
{
	struct gr_hosttrace *ht = &vm->ht;
	uint8_t boot[16] = { 0 };
	char host[256] = "", id[64];
	struct utsname u;
	unsigned int i, b;
	int x;
	long n;

	n = sysconf(_SC_NPROCESSORS_CONF);
	ht->nr_cpus = n < 1 ? 1 : n > GR_HS_MAX_CPUS ? GR_HS_MAX_CPUS :
		      (unsigned int)n;
	gethostname(host, sizeof(host) - 1);
	uname(&u);
	/* the host's boot_id names the domain of its CLOCK_MONOTONIC */
	if (vcpu_read_text("/proc/sys/kernel/random/boot_id", id, sizeof(id)) > 0)
		for (i = 0, b = 0; id[i] && b < 32; i++) {
			x = id[i] >= 'a' ? id[i] - 'a' + 10 : id[i] - '0';
			if (id[i] == '-' || x < 0 || x > 15)
				continue;
			boot[b / 2] |= (uint8_t)(x << (b % 2 ? 0 : 4));
			b++;
		}
	ht->layout = malloc(sizeof(*ht->layout));
	ht->out = calloc(ht->nr_cpus + 1, sizeof(*ht->out));
	if (!ht->layout || !ht->out)
		return -ENOMEM;
	if (gr_hs_layout(ht->layout, ht->nr_cpus, host, u.release, boot))
		return -EINVAL;
	return 0;
}

/* <session>/host (<chunk>/host) and its files, once the events run */
static int make_dir(struct gr_vm *vm)
{
	struct gr_hosttrace *ht = &vm->ht;
	char host[256] = "";
	int ret;

	gethostname(host, sizeof(host) - 1);
	if (mkdirat(ht->top, GR_HS_DIR, 0750) && errno != EEXIST)
		return -errno;
	ht->dirfd = openat(ht->top, GR_HS_DIR, O_RDONLY | O_DIRECTORY |
			   O_NOFOLLOW | O_CLOEXEC);
	if (ht->dirfd < 0)
		return -errno;
	ret = write_files(vm, host);
	if (ret) {
		close(ht->dirfd);
		ht->dirfd = -1;
	}
	return ret;
}

/**
 * ht_open() - a session opened: it records a host stream
 * @vm: the VM, its session directory open (vm->sess.fd)
 * @top: where host/ goes: the session's directory, or the chunk being
 *	written (rot_data_fd())
 *
 * The events start at the next ht_tick() that knows QEMU's pid; the
 * directory <session>/host and its files are made then, once the kernel
 * gave the events (without them, there is none); in a session kept in
 * chunks, <chunk>/host of the chunk being written. A failure is logged
 * and the session goes on without a host stream; with --host-stream off
 * there is none, and nothing is logged.
 *
 * Context: the loop's thread; writes a few KiB and fsyncs them.
 */
void ht_open(struct gr_vm *vm, int top)
{
	struct gr_hosttrace *ht = &vm->ht;
	int ret;

	ht_close(vm);
	ht->told = false;
	ht->follow_told = false;
	ht->kvm_told = false;
	ht->kvm_err = 0;
	ht->err = 0;
	ht->events = 0;
	ht->lost = 0;
	ht->named = false;
	ht->top = top;
	if (vm->opts.no_host_stream)
		return;	/* --host-stream off: the operator's choice, no log */
	ht->open = true;
	ret = prepare(vm);
	if (ret) {
		syslog(LOG_WARNING, "%s: no host stream in %s/%s: %s",
		       vm->opts.name, vm->sess.path, GR_HS_DIR, strerror(-ret));
		ht_close(vm);
		ht->told = true;
		ht->err = ret;
	}
}

/*
 * after a scan of QEMU's threads: new ones get events (refilter()) and a
 * state dump; a failure is said once and tried again at the next scan
 */
static void follow(struct gr_vm *vm)
{
	struct gr_hosttrace *ht = &vm->ht;
	int tids[GR_HT_MAX_TIDS];
	unsigned int c, n = new_tids(ht, tids);
	int ret;

	if (!n)
		return;
	for (c = 0; c < ht->nr_cpus; c++)
		drain_cpu(ht, c);
	ret = refilter(ht, tids, n);
	if (ret) {
		if (!ht->follow_told)
			syslog(LOG_WARNING, "%s: host stream: cannot follow QEMU's new threads (%s); the others' events go on",
			       vm->opts.name, strerror(-ret));
		ht->follow_told = true;
		return;
	}
	ht->follow_told = false;
	dump_threads(ht);
}

/**
 * ht_tick() - follow QEMU's threads and store their events (the VM's
 * poll timer, after vcpu_tick())
 * @vm: the VM
 * @now_ns: the loop's time
 *
 * QEMU's pid is the one vcpu.c follows: a new pid stops the events of
 * the last one and starts those of the new one; each vCPU scan lists
 * QEMU's threads again and a changed list sets new filters.
 *
 * Context: the loop's thread.
 */
void ht_tick(struct gr_vm *vm, uint64_t now_ns)
{
	struct gr_hosttrace *ht = &vm->ht;
	unsigned int c;
	bool flush, all;

	if (!ht->open)
		return;
	if (vm->vcpu.pid != ht->pid) {
		for (c = 0; ht->cpu && c < ht->nr_cpus; c++)
			drain_cpu(ht, c);
		stop_cpus(ht);
		ht->pid = vm->vcpu.pid;
		ht->err = 0;
	}
	if (!ht->pid || ht->err)
		return;
	if (!ht->cpu) {
		ht->err = start(vm);
		tell(vm);
		if (ht->err)
			return;
		ht->flush_ns = now_ns;
		ht->drain_ns = now_ns;
	}
	if (vm->vcpu.scan_ns != ht->scan_ns) {
		ht->scan_ns = vm->vcpu.scan_ns;
		follow(vm);
	}
	/*
	 * A drain pass costs per ring, whatever it finds: on a quiet VM most
	 * passes of the poll timer (every 20 ms) would find a few records. A
	 * ring an eighth used (16 KiB, 7/8 of it left for the next 20 ms) is
	 * drained at once, every ring every 100 ms and before the flush.
	 */
	flush = now_ns - ht->flush_ns >= HT_FLUSH_NS;
	all = flush || now_ns - ht->drain_ns >= HT_DRAIN_NS;
	for (c = 0; c < ht->nr_cpus; c++)
		if (all || ring_used(&ht->cpu[c]) >= HT_DRAIN_BYTES)
			drain_cpu(ht, c);
	if (all)
		ht->drain_ns = now_ns;
	if (flush) {
		ht->flush_ns = now_ns;
		flush_all(ht);
	}
}

/* host CPU @c's stream: its last packet written, its file closed */
static void close_stream(struct gr_vm *vm, unsigned int c)
{
	struct gr_hosttrace *ht = &vm->ht;

	if (gr_hs_stream_close(ht->out[c]))
		syslog(LOG_WARNING, "%s: host stream of CPU %u: a write failed",
		       vm->opts.name, c);
	free(ht->out[c]);
	ht->out[c] = NULL;
}

/* a host stream's directory: its entries made durable, then closed */
static void close_dir(struct gr_vm *vm, int fd)
{
	if (fsync(fd))
		syslog(LOG_WARNING, "%s: fsync of the host stream: %m",
		       vm->opts.name);
	close(fd);
}

/**
 * ht_switch_files() - a rotation: the host stream goes on in the new chunk
 * @vm: the VM
 * @top: its next chunk, open (rot_data_fd()); the one before is not
 *	closed yet
 *
 * Called where the trace's streams move (vm.c's rotate_chunk()): what
 * the rings hold goes into the old chunk's streams, whose last packets
 * are written and files closed there; the new chunk gets a host/ of its
 * own, its metadata with the session's trace UUID and clock, and each
 * stream goes on in it (gr_hs_stream_move()). QEMU's threads are dumped
 * again at the start of the new chunk, so that each chunk's host/ is a
 * whole trace; the scheduler's events are each in one chunk. A host
 * stream whose events do not run yet makes its directory in the new
 * chunk when they start. Without a directory in the new chunk the host
 * stream stops, and says why once.
 *
 * Context: the loop's thread; fsyncs the old chunk's files.
 */
void ht_switch_files(struct gr_vm *vm, int top)
{
	struct gr_hosttrace *ht = &vm->ht;
	int old = ht->dirfd, ret;
	unsigned int c;

	ht->top = top;
	if (!ht->open || old < 0)
		return;
	for (c = 0; ht->cpu && c < ht->nr_cpus; c++)
		drain_cpu(ht, c);
	ht->dirfd = -1;
	ret = make_dir(vm);
	for (c = 0; c <= ht->nr_cpus; c++) {
		if (!ht->out[c])
			continue;
		if (ret) {
			close_stream(vm, c);
			continue;
		}
		if (!gr_hs_stream_move(ht->out[c], ht->dirfd))
			continue;
		if (ht->out[c]->fd >= 0) {
			syslog(LOG_WARNING, "%s: host stream of CPU %u: a write failed",
			       vm->opts.name, c);
			continue;
		}
		/* opened again at its next event, if it can be */
		syslog(LOG_WARNING, "%s: host stream of CPU %u: no file in the new chunk: %s",
		       vm->opts.name, c, strerror(-ht->out[c]->err));
		free(ht->out[c]);
		ht->out[c] = NULL;
	}
	close_dir(vm, old);
	if (ret) {
		stop_cpus(ht);
		ht->err = ret;
		tell(vm);
		return;
	}
	if (ht->cpu)
		dump_threads(ht);
}

/**
 * ht_close() - the session ends: the last events, packets and files
 * @vm: the VM
 *
 * Context: the loop's thread.
 */
void ht_close(struct gr_vm *vm)
{
	struct gr_hosttrace *ht = &vm->ht;
	unsigned int c;

	for (c = 0; ht->cpu && c < ht->nr_cpus; c++)
		drain_cpu(ht, c);
	stop_cpus(ht);
	for (c = 0; ht->out && c <= ht->nr_cpus; c++)
		if (ht->out[c])
			close_stream(vm, c);
	free(ht->out);
	ht->out = NULL;
	free(ht->layout);
	ht->layout = NULL;
	if (ht->dirfd >= 0) {
		close_dir(vm, ht->dirfd);
		syslog(LOG_INFO, "%s: host stream closed: %llu events, %llu lost",
		       vm->opts.name, (unsigned long long)ht->events,
		       (unsigned long long)ht->lost);
	}
	ht->dirfd = -1;
	ht->open = false;
	ht->pid = 0;
	ht->ntids = 0;
}
