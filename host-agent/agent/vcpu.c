// SPDX-License-Identifier: GPL-2.0
/*
 * vcpu.c - the host side of a guest's time: which threads of the VM's
 * QEMU run its vCPUs, and for each how long it ran on a host CPU and how
 * long it was runnable but waited for one (steal: the guest thinks it
 * ran, the host ran something else)
 *
 *   QEMU's pid        peer.c: SO_PEERCRED of QEMU's connection to the
 *                     VM's ivshmem socket (doorbell devices only)
 *   vCPU threads      /proc/<pid>/task/<tid>/comm: QEMU names them
 *                     "CPU <n>/TCG" or "CPU <n>/KVM" with -name
 *                     ...,debug-threads=on (libvirt passes it); one
 *                     "ALL CPUs/TCG" thread is single-threaded TCG;
 *                     when none is named, QEMU's QMP monitor on a unix
 *                     socket is asked (query-cpus-fast, vcpu_qmp.c)
 *   run, steal        /proc/.../schedstat: time on a CPU, run_delay
 *   host CPU          /proc/.../stat: field 39, the CPU it ran on last
 *
 * vm.c calls vcpu_tick() from the VM's poll timer: the known vCPU
 * threads are sampled at most once per GR_VCPU_SAMPLE_NS, all of QEMU's
 * threads are scanned at most once per GR_VCPU_SCAN_NS (hot-plugged
 * vCPUs), at once when QEMU's pid changes (a restart) or a thread went
 * away. No thread of its own, a few small reads per second. QMP is asked
 * (synchronously, within vcpu_qmp.c's budget of 50 ms, about 1 ms when
 * QEMU answers) at a scan that finds no named thread and QEMU's threads
 * changed since the last question (a restart, a hot-plug), or the last
 * question failed GR_VCPU_QMP_RETRY_NS ago.
 *
 * Access: these files are readable by every user on a /proc mounted
 * without hidepid= and in the same pid namespace as QEMU (the agent's
 * systemd unit sets no ProtectProc=); when they are not, the reason is
 * logged once per QEMU and shown in status, and the guest's trace goes
 * on as before.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "vcpu.h"

#define GR_VCPU_SAMPLE_NS	(1000ULL * 1000 * 1000)
#define GR_VCPU_SCAN_NS		(5000ULL * 1000 * 1000)
#define GR_VCPU_QMP_RETRY_NS	(15000ULL * 1000 * 1000)

/**
 * vcpu_parse_schedstat() - "<run ns> <run_delay ns> <timeslices>"
 * @buf: the file's text, NUL-terminated
 * @run_ns: receives the time on a CPU
 * @delay_ns: receives the time runnable, waiting for a CPU
 *
 * Return: 0 or -EINVAL.
 */
int vcpu_parse_schedstat(const char *buf, uint64_t *run_ns,
			 uint64_t *delay_ns)
{
	unsigned long long run, delay;
	char *end;

	if (!isdigit((unsigned char)buf[0]))
		return -EINVAL;
	errno = 0;
	run = strtoull(buf, &end, 10);
	if (errno || *end != ' ' || !isdigit((unsigned char)end[1]))
		return -EINVAL;
	delay = strtoull(end + 1, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end))
		return -EINVAL;
	*run_ns = run;
	*delay_ns = delay;
	return 0;
}

/**
 * vcpu_parse_stat_cpu() - the "processor" field (39) of a stat line
 * @buf: the file's text, NUL-terminated
 * @cpu: receives the CPU the task ran on last
 *
 * The command name (field 2) may hold spaces and parentheses: fields are
 * counted from its last ')'.
 *
 * Return: 0 or -EINVAL.
 */
int vcpu_parse_stat_cpu(const char *buf, int *cpu)
{
	const char *p = strrchr(buf, ')');
	unsigned int field = 2;
	long val;
	char *end;

	if (!p)
		return -EINVAL;
	p++;
	while (field < 39) {
		if (*p != ' ')
			return -EINVAL;
		p++;
		field++;
		if (field == 39)
			break;
		while (*p && *p != ' ')
			p++;
	}
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	val = strtol(p, &end, 10);
	if (errno || val > 65535 || (*end != ' ' && *end != '\n' && *end))
		return -EINVAL;
	*cpu = (int)val;
	return 0;
}

/**
 * vcpu_parse_name() - is this thread name one of QEMU's vCPU threads?
 * @comm: the name (/proc/.../comm, a trailing line feed allowed)
 * @index: receives the cpu-index, or GR_VCPU_ALL for "ALL CPUs/TCG"
 * @accel: receives the accelerator ("TCG", "KVM", ...)
 * @accel_len: size of @accel
 *
 * Return: 1 for a vCPU thread, 0 for another thread.
 */
int vcpu_parse_name(const char *comm, int *index, char *accel,
		    size_t accel_len)
{
	const char *p, *acc;
	unsigned long n = 0;
	size_t len;

	if (!strncmp(comm, "ALL CPUs/", 9)) {
		acc = comm + 9;
		*index = GR_VCPU_ALL;
	} else if (!strncmp(comm, "CPU ", 4) && isdigit((unsigned char)comm[4])) {
		for (p = comm + 4; isdigit((unsigned char)*p); p++) {
			n = n * 10 + (unsigned long)(*p - '0');
			if (n > 1000000)
				return 0;
		}
		if (*p != '/')
			return 0;
		acc = p + 1;
		*index = (int)n;
	} else {
		return 0;
	}
	len = strcspn(acc, "\n");
	if (!len || len >= accel_len)
		return 0;
	for (p = acc; p < acc + len; p++)
		if (!isalnum((unsigned char)*p))
			return 0;
	memcpy(accel, acc, len);
	accel[len] = '\0';
	return 1;
}

/**
 * vcpu_read_text() - a small file of /proc (or tracefs), read to its end
 * @path: the file
 * @buf: receives its text, NUL-terminated
 * @size: size of @buf
 *
 * Return: its length, or -errno.
 */
int vcpu_read_text(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n = 1;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* tracefs gives a format file a field or so per read */
	while (n > 0 && len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n > 0)
			len += (size_t)n;
	}
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[len] = '\0';
	return (int)len;
}

/* /proc/<pid>/task/<tid>/<what> into @buf: its length or -errno */
static int read_task_file(int pid, int tid, const char *what, char *buf,
			  size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", pid, tid, what);
	return vcpu_read_text(path, buf, size);
}

/**
 * vcpu_read_thread() - one thread's host CPU, run time and run delay
 * @pid: the process
 * @tid: its thread
 * @host_cpu: receives the CPU it ran on last
 * @run_ns: receives its time on a CPU
 * @delay_ns: receives its time runnable but waiting
 *
 * Return: 0, -errno of a read, -EINVAL if a file does not parse.
 */
int vcpu_read_thread(int pid, int tid, int *host_cpu, uint64_t *run_ns,
		     uint64_t *delay_ns)
{
	char buf[1024];
	int ret;

	ret = read_task_file(pid, tid, "schedstat", buf, sizeof(buf));
	if (ret < 0)
		return ret;
	ret = vcpu_parse_schedstat(buf, run_ns, delay_ns);
	if (ret)
		return ret;
	ret = read_task_file(pid, tid, "stat", buf, sizeof(buf));
	if (ret < 0)
		return ret;
	return vcpu_parse_stat_cpu(buf, host_cpu);
}

static int by_index(const void *a, const void *b)
{
	const struct gr_vcpu *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* QMP's cpu-index of thread @tid, or false */
static bool qmp_index(const struct gr_vcpus *v, int tid, int *idx)
{
	unsigned int i;

	for (i = 0; i < v->qmp_n; i++)
		if (v->qmp_cpu[i].tid == tid) {
			*idx = v->qmp_cpu[i].index;
			return true;
		}
	return false;
}

/*
 * all of QEMU's threads: which run vCPUs (by name; by QMP's last answer
 * if none has a name), and the others' sums
 */
static int scan(struct gr_vcpus *v)
{
	struct gr_vcpus s = { .pid = v->pid };
	char path[48], comm[64], accel[8];
	struct dirent *de;
	struct gr_vcpu t;
	unsigned int named = 0, ntid = 0;
	uint64_t tid_sum = 0;
	DIR *d;
	int tid, idx, ret;

	snprintf(path, sizeof(path), "/proc/%d/task", v->pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		tid = atoi(de->d_name);
		if (tid <= 0)
			continue;
		if (read_task_file(v->pid, tid, "comm", comm, sizeof(comm)) < 0)
			continue;	/* gone since readdir */
		memset(&t, 0, sizeof(t));
		t.tid = tid;
		ret = vcpu_read_thread(v->pid, tid, &t.host_cpu, &t.run_ns,
				       &t.delay_ns);
		if (ret == -ENOENT || ret == -ESRCH)
			continue;
		if (ret) {
			closedir(d);
			return ret;
		}
		ntid++;
		tid_sum += (uint64_t)tid * 2654435761U;
		if (vcpu_parse_name(comm, &idx, accel, sizeof(accel)) &&
		    s.n < GR_VCPU_MAX) {
			t.index = idx;
			s.cpu[s.n++] = t;
			named++;
			memcpy(s.accel, accel, sizeof(s.accel));
			if (idx == GR_VCPU_ALL)
				s.all_cpus = true;
		} else if (s.n < GR_VCPU_MAX && qmp_index(v, tid, &idx)) {
			t.index = idx;
			s.cpu[s.n++] = t;
			if (idx == GR_VCPU_ALL)
				s.all_cpus = true;
		} else {
			s.others++;
			s.others_run_ns += t.run_ns;
			s.others_delay_ns += t.delay_ns;
		}
	}
	closedir(d);
	qsort(s.cpu, s.n, sizeof(s.cpu[0]), by_index);
	v->n = s.n;
	memcpy(v->cpu, s.cpu, sizeof(s.cpu));
	v->all_cpus = s.all_cpus;
	memcpy(v->accel, s.accel, sizeof(v->accel));
	v->others = s.others;
	v->others_run_ns = s.others_run_ns;
	v->others_delay_ns = s.others_delay_ns;
	v->unnamed = !s.n;
	v->from_qmp = s.n && !named;
	v->tid_sig = tid_sum ^ ((uint64_t)ntid << 48);
	return 0;
}

/* the known vCPU threads; a thread gone asks for a scan */
static int sample(struct gr_vcpus *v)
{
	struct gr_vcpu *c;
	unsigned int i;
	int ret;

	for (i = 0; i < v->n; i++) {
		c = &v->cpu[i];
		ret = vcpu_read_thread(v->pid, c->tid, &c->host_cpu,
				       &c->run_ns, &c->delay_ns);
		if (ret == -ENOENT || ret == -ESRCH) {
			v->rescan = true;
			continue;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vcpu_list_tids() - the threads of a process (the host stream's filter)
 * @pid: the process
 * @tids: receives its threads, in /proc's order
 * @max: entries of @tids; threads beyond are left out
 *
 * Return: the number of threads stored, or -errno.
 */
int vcpu_list_tids(int pid, int *tids, unsigned int max)
{
	struct dirent *de;
	unsigned int n = 0;
	char path[48];
	DIR *d;
	int tid;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while (n < max && (de = readdir(d))) {
		tid = atoi(de->d_name);
		if (tid > 0)
			tids[n++] = tid;
	}
	closedir(d);
	return (int)n;
}

/* QMP is asked when QEMU's threads changed, or again after a failure */
static bool qmp_due(const struct gr_vcpus *v, uint64_t now_ns)
{
	if (v->tid_sig != v->qmp_sig)
		return true;
	return v->qmp_err && now_ns - v->qmp_ns >= GR_VCPU_QMP_RETRY_NS;
}

/* QMP's vCPU threads, then a scan that classifies by them */
static void ask_qmp(struct gr_vcpus *v, uint64_t now_ns, const char *vm)
{
	struct gr_vcpu cpu[GR_VCPU_MAX];
	char path[108];
	int ret, err_before = v->qmp_err;

	v->qmp_ns = now_ns;
	v->qmp_sig = v->tid_sig;
	ret = vcpu_qmp_query(v->pid, cpu, GR_VCPU_MAX, path, sizeof(path));
	/* on failure the last answer stays: its threads, if still QEMU's */
	if (ret >= 0) {
		v->qmp_n = (unsigned int)ret;
		memcpy(v->qmp_cpu, cpu, (size_t)ret * sizeof(cpu[0]));
	}
	v->qmp_err = ret < 0 ? ret : 0;
	if (v->qmp_err && (!v->qmp_told || v->qmp_err != err_before)) {
		v->qmp_told = true;
		if (v->qmp_err == -ENOENT && !path[0])
			syslog(LOG_INFO, "%s: QEMU (pid %d) has no QMP monitor on a unix socket (-qmp unix:PATH,server=on,wait=off) to ask for its vCPU threads",
			       vm, v->pid);
		else if (v->qmp_err == -ETIMEDOUT || v->qmp_err == -EBUSY)
			syslog(LOG_INFO, "%s: QEMU (pid %d): its QMP monitor %s did not answer within 50 ms (another client holds it: QMP serves one at a time; or QEMU is stopped); asked again in %llu s",
			       vm, v->pid, path,
			       GR_VCPU_QMP_RETRY_NS / 1000000000ULL);
		else
			syslog(LOG_WARNING, "%s: QEMU (pid %d): cannot ask its QMP monitor %s for its vCPU threads: %s",
			       vm, v->pid, path, strerror(-v->qmp_err));
	}
	v->err = scan(v);
	/* the scan saw the threads QMP was asked about */
	v->qmp_sig = v->tid_sig;
}

static void tell(struct gr_vcpus *v, const char *vm, unsigned int n_before,
		 bool all_before)
{
	if (v->err) {
		if (!v->told)
			syslog(LOG_WARNING, "%s: cannot read the threads of QEMU (pid %d) in /proc: %s; no steal figures for this VM (the agent needs the same pid namespace and a /proc without hidepid=, or QEMU's uid)",
			       vm, v->pid, strerror(-v->err));
		v->told = true;
		return;
	}
	if (v->n == n_before && v->all_cpus == all_before && v->told)
		return;
	v->told = true;
	if (v->unnamed)
		syslog(LOG_INFO, "%s: QEMU (pid %d) names no vCPU thread: start it with -name NAME,debug-threads=on (or a QMP monitor on a unix socket) for steal per vCPU",
		       vm, v->pid);
	else if (v->from_qmp)
		syslog(LOG_INFO, "%s: QEMU (pid %d): %u vCPU threads%s, from QMP query-cpus-fast (no thread names)",
		       vm, v->pid, v->n,
		       v->all_cpus ? " (one runs every vCPU)" : "");
	else if (v->all_cpus)
		syslog(LOG_INFO, "%s: QEMU (pid %d) runs every vCPU on one thread (single-threaded %s): steal is the VM's, not per vCPU",
		       vm, v->pid, v->accel);
	else
		syslog(LOG_INFO, "%s: QEMU (pid %d): %u vCPU threads (%s)",
		       vm, v->pid, v->n, v->accel);
}

/**
 * vcpu_tick() - follow a VM's vCPU threads (the VM's poll timer)
 * @v: the VM's state
 * @pid: QEMU's pid now, 0 if none is connected
 * @now_ns: the loop's time
 * @vm: the VM's name, for the log
 *
 * A new pid (QEMU restarted) forgets the last one's threads and scans
 * at once; otherwise a sample per GR_VCPU_SAMPLE_NS and a scan per
 * GR_VCPU_SCAN_NS. A QEMU whose /proc cannot be read is retried at the
 * scan interval and logged once.
 */
void vcpu_tick(struct gr_vcpus *v, int pid, uint64_t now_ns, const char *vm)
{
	unsigned int n_before = v->n;
	bool all_before = v->all_cpus;

	if (pid != v->pid) {
		memset(v, 0, sizeof(*v));
		v->pid = pid;
		v->rescan = true;
	}
	if (!pid)
		return;
	if (v->rescan || now_ns - v->scan_ns >= GR_VCPU_SCAN_NS) {
		v->rescan = false;
		v->scan_ns = now_ns;
		v->sample_ns = now_ns;
		v->err = scan(v);
		if (!v->err && (v->unnamed || v->from_qmp) && qmp_due(v, now_ns))
			ask_qmp(v, now_ns, vm);
		tell(v, vm, n_before, all_before);
		return;
	}
	if (v->err || now_ns - v->sample_ns < GR_VCPU_SAMPLE_NS)
		return;
	v->sample_ns = now_ns;
	v->err = sample(v);
	if (v->err)
		tell(v, vm, n_before, all_before);
}
