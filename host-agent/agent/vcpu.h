/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vcpu.h - vcpu.c: which host threads of a VM's QEMU run its vCPUs, and
 * how long each ran and waited for a host CPU (steal); its state, struct
 * gr_vcpus, lives in the VM (@vcpu) and only vcpu.c writes it
 */
#ifndef GR_VCPU_H
#define GR_VCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GR_VCPU_MAX		64	/* vCPUs followed per VM */
#define GR_VCPU_ALL		(-1)	/* one thread runs every vCPU */

/**
 * struct gr_vcpu - one vCPU thread of QEMU on the host
 * @index: QEMU's cpu-index ("CPU <n>/..."), GR_VCPU_ALL for single-threaded
 *	TCG ("ALL CPUs/TCG")
 * @tid: the host thread
 * @host_cpu: the host CPU it ran on last (/proc/.../stat), -1 unknown
 * @run_ns: time it ran on a host CPU (/proc/.../schedstat)
 * @delay_ns: time it was runnable but waited for a host CPU: steal
 */
struct gr_vcpu {
	int index;
	int tid;
	int host_cpu;
	uint64_t run_ns;
	uint64_t delay_ns;
};

/**
 * struct gr_vcpus - the vCPU threads of one VM's QEMU
 * @pid: QEMU's pid the threads belong to, 0 if none known
 * @n: entries of @cpu, by index (GR_VCPU_ALL first)
 * @cpu: the vCPU threads
 * @all_cpus: single-threaded TCG: one thread runs every vCPU, its steal
 *	is the VM's, not a vCPU's
 * @accel: "TCG" or "KVM" (from the thread names), "" if none found
 * @others: QEMU's other threads (main loop, I/O, RCU, ...)
 * @others_run_ns: their run time, summed
 * @others_delay_ns: their wait for a host CPU, summed
 * @unnamed: QEMU runs but no vCPU thread is known: none has a vCPU
 *	name (no -name ...,debug-threads=on) and QMP did not tell
 * @from_qmp: no thread has a vCPU name, @cpu is QEMU's answer to QMP
 *	query-cpus-fast (vcpu_qmp.c)
 * @qmp_err: why QMP did not tell (-errno), 0 if it did or was not asked
 * @qmp_told: @qmp_err was logged
 * @qmp_ns: last question to QMP
 * @qmp_sig: QEMU's threads (their number and tids) at that question
 * @tid_sig: QEMU's threads at the last scan
 * @qmp_n: entries of @qmp_cpu
 * @qmp_cpu: QMP's last answer: cpu-index and tid per vCPU
 * @err: why the threads cannot be read (-errno), 0 if they can
 * @told: @err was logged once for this pid
 * @scan_ns: last scan of QEMU's threads
 * @sample_ns: last sample of their schedstat
 * @rescan: a thread went away: scan at the next sample
 */
struct gr_vcpus {
	int pid;
	unsigned int n;
	struct gr_vcpu cpu[GR_VCPU_MAX];
	bool all_cpus;
	char accel[8];
	unsigned int others;
	uint64_t others_run_ns;
	uint64_t others_delay_ns;
	bool unnamed;
	bool from_qmp;
	int qmp_err;
	bool qmp_told;
	uint64_t qmp_ns;
	uint64_t qmp_sig;
	uint64_t tid_sig;
	unsigned int qmp_n;
	struct gr_vcpu qmp_cpu[GR_VCPU_MAX];
	int err;
	bool told;
	uint64_t scan_ns;
	uint64_t sample_ns;
	bool rescan;
};

/**
 * vcpu_threading() - how QEMU runs the vCPUs, for status and metrics
 * @v: the VM's vCPU threads
 *
 * Return: "none" (no QEMU known: not connected, or a plain device),
 * "unreadable" (its /proc cannot be read, @v->err), "unnamed" (no
 * thread names and no answer of QMP), "single" (one thread, single-threaded TCG) or "multi"
 * (a thread per vCPU).
 */
static inline const char *vcpu_threading(const struct gr_vcpus *v)
{
	if (!v->pid)
		return "none";
	if (v->err)
		return "unreadable";
	if (v->unnamed)
		return "unnamed";
	return v->all_cpus ? "single" : "multi";
}

/* the parsers of /proc/<pid>/task/<tid>/{schedstat,stat,comm} */
int vcpu_parse_schedstat(const char *buf, uint64_t *run_ns,
			 uint64_t *delay_ns);
int vcpu_parse_stat_cpu(const char *buf, int *cpu);
int vcpu_parse_name(const char *comm, int *index, char *accel,
		    size_t accel_len);
int vcpu_read_thread(int pid, int tid, int *host_cpu, uint64_t *run_ns,
		     uint64_t *delay_ns);

int vcpu_read_text(const char *path, char *buf, size_t size);
int vcpu_list_tids(int pid, int *tids, unsigned int max);
/* vcpu_qmp.c: the vCPU threads QEMU's QMP monitor names */
int vcpu_qmp_path(const char *cmdline, size_t len, char *path, size_t size);
int vcpu_qmp_parse_cpus(const char *answer, int pid, struct gr_vcpu *cpu,
			unsigned int max);
int vcpu_qmp_query(int pid, struct gr_vcpu *cpu, unsigned int max,
		   char *path, size_t path_size);

void vcpu_tick(struct gr_vcpus *v, int pid, uint64_t now_ns,
	       const char *vm);

#endif /* GR_VCPU_H */
