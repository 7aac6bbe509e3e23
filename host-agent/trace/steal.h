/* SPDX-License-Identifier: GPL-2.0 */
/*
 * steal.h - steal.c: per vCPU, from a VM's host stream (hoststream.h),
 * the time its host thread was off its host CPU while runnable
 * (preempted) and while sleeping (halted), and its longest preemption
 * with the task that ran instead
 */
#ifndef GR_STEAL_H
#define GR_STEAL_H

#include <stdint.h>
#include <stdio.h>

#define GR_STEAL_MAX	64	/* vCPU threads followed */
#define GR_STEAL_BY	32	/* tasks that ran instead, per vCPU */
#define GR_STEAL_KNOWN	256	/* QEMU threads the state dumps name */
#define GR_STEAL_EXITS	8	/* exit reasons counted, per vCPU */

/* a KVM exit reason (its host's name) and how often a vCPU exited so */
struct gr_steal_exit {
	char reason[32];
	uint64_t n;
};

/* a task that ran instead of a preempted vCPU, and for how long */
struct gr_steal_by {
	char comm[17];
	uint64_t ns;
};

/*
 * a vCPU thread's state; an interval off its CPU is preempted, halted,
 * or, once a sleeping (halted) thread is woken, woken: runnable again
 * and waiting for its CPU
 */
enum gr_steal_off { GR_STEAL_ON = 0, GR_STEAL_PREEMPTED, GR_STEAL_HALTED,
		    GR_STEAL_WOKEN };

/**
 * struct gr_steal_vcpu - one vCPU thread in the host stream
 * @index: QEMU's cpu-index (thread name "CPU <n>/..."), -1 for "ALL CPUs"
 * @tid: its host thread
 * @preempted_ns: time switched out runnable (prev_state R, R+) until
 *	switched in again
 * @preemptions: such intervals
 * @halted_ns: time switched out sleeping until woken (sched_wakeup), or
 *	until switched in again if no wakeup of it is in the stream
 * @halts: such intervals
 * @woken_ns: time from such a wakeup until switched in: runnable and not
 *	running, steal as much as @preempted_ns (the kernel's run_delay,
 *	which status's steal reads, counts both)
 * @wakeups: such intervals
 * @longest_ns: the longest preemption
 * @longest_at: when it began (CLOCK_MONOTONIC ns of the host stream)
 * @longest_cpu: on which host CPU the thread was switched out
 * @longest_by: the task switched in instead on that CPU
 * @longest_by_tid: its tid
 * @by: the tasks switched in when it was preempted, by name, with the
 *	preempted time that followed; the most first after gr_steal_sort()
 * @nby: entries of @by (tasks beyond GR_STEAL_BY are not listed)
 * @off: the thread's state now (while reading)
 * @off_ts, @off_cpu, @off_by, @off_by_tid: the switch out being timed
 * @woke_ts: when it was woken since, 0 if not
 * @guest_ns: time in guest mode, from each kvm_x86_entry to the
 *	kvm_x86_exit that follows (a host stream with KVM's events)
 * @exits: kvm_x86_exit events of the thread
 * @reasons: those exits by reason; the most first after gr_steal_sort()
 * @nreasons: entries of @reasons (reasons beyond GR_STEAL_EXITS are
 *	counted in @exits only)
 * @entry_ts: the entry being timed, 0 if none
 */
struct gr_steal_vcpu {
	int index;
	int tid;
	uint64_t preempted_ns;
	uint64_t preemptions;
	uint64_t halted_ns;
	uint64_t halts;
	uint64_t woken_ns;
	uint64_t wakeups;
	uint64_t longest_ns;
	uint64_t longest_at;
	int longest_cpu;
	char longest_by[17];
	int longest_by_tid;
	struct gr_steal_by by[GR_STEAL_BY];
	unsigned int nby;
	enum gr_steal_off off;
	uint64_t off_ts;
	int off_cpu;
	char off_by[17];
	int off_by_tid;
	uint64_t woke_ts;
	uint64_t guest_ns;
	uint64_t exits;
	struct gr_steal_exit reasons[GR_STEAL_EXITS];
	unsigned int nreasons;
	uint64_t entry_ts;
};

struct gr_steal;
struct gr_ctf_info;

/*
 * called at the end of each interval vCPU thread @v was off its CPU, in
 * time order: @kind preempted, halted or woken, from @from to @to (the
 * host stream's clock); @v->off_cpu is where it was switched out and
 * @v->off_by who was switched in then
 */
typedef void (*gr_steal_off_fn)(void *arg, const struct gr_steal *s,
				const struct gr_steal_vcpu *v,
				enum gr_steal_off kind, uint64_t from,
				uint64_t to);

/**
 * struct gr_steal - the vCPUs of one host stream, by index
 * @n: entries of @v
 * @v: the vCPU threads
 * @first_ts, @last_ts: the stream's first and last switch
 * @switches: sched_switch events read
 * @kvm: kvm_x86_entry/kvm_x86_exit events read
 * @known: QEMU's threads named by lttng_statedump_process_state events;
 *	once there is one, only these can be vCPU threads (a switch names
 *	another process's task too, perhaps another QEMU's vCPU)
 * @nknown: entries of @known
 * @off_fn: NULL, or called at the end of each interval off the CPU
 * @off_arg: its argument
 * @info: the host stream's description while gr_steal_walk() reads it
 *	(its clock maps @off_fn's times), else NULL
 */
struct gr_steal {
	unsigned int n;
	struct gr_steal_vcpu v[GR_STEAL_MAX];
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t switches;
	uint64_t kvm;
	int known[GR_STEAL_KNOWN];
	unsigned int nknown;
	gr_steal_off_fn off_fn;
	void *off_arg;
	const struct gr_ctf_info *info;
};

void gr_steal_switch(struct gr_steal *s, uint64_t ts, int cpu,
		     const char *prev_comm, int prev_tid, int64_t prev_state,
		     const char *next_comm, int next_tid);
void gr_steal_wakeup(struct gr_steal *s, uint64_t ts, const char *comm,
		     int tid);
void gr_steal_kvm(struct gr_steal *s, uint64_t ts, int tid, int entry,
		  const char *reason);
void gr_steal_thread(struct gr_steal *s, int tid);
int gr_steal_is_vcpu(const struct gr_steal *s, const char *comm, int tid,
		     int *index);
void gr_steal_sort(struct gr_steal *s);
int gr_steal_read(const char *dir, struct gr_steal *s, FILE *err);
int gr_steal_walk(const char *dir, struct gr_steal *s, gr_steal_off_fn fn,
		  void *arg, FILE *err);
struct gr_reader;
int gr_steal_open(struct gr_reader *r, const char *dir, FILE *err);

#endif /* GR_STEAL_H */
