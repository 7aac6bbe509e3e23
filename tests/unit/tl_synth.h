/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl_synth.h - synthetic scheduler traces for the timeline tests
 *
 * Writes a trace directory as the agent stores it (metadata, .guestrelay,
 * stream_<cpu> of whole sub-buffers) with the guest module's scheduler
 * and IRQ event layouts, from a seeded random workload, and computes what
 * a correct timeline must show: per CPU, the time tasks other than idle
 * ran between the trace's first packet start and last packet end.
 */
#ifndef TL_SYNTH_H
#define TL_SYNTH_H

#include <stdint.h>

#define TL_SYNTH_MAX_CPUS	32

/**
 * struct tl_synth - what to write
 * @cpus: CPUs (one stream each), 1..TL_SYNTH_MAX_CPUS
 * @switches: sched_switch events per CPU
 * @subbuf_size: sub-buffer (packet) size, power of two, 4 KiB..16 MiB
 * @seed: of the workload
 * @hostile: give some tasks comm names with markup, quotes and bytes that
 *	are not UTF-8
 * @losses: every 7th packet jumps packet_seq_num by one and adds 3 to
 *	events_discarded (no events are really missing, so the truth holds)
 * @global: one ring shared by the @cpus CPUs (the workload of one CPU)
 * @synced: store a clock synchronized with host time
 * @host_s: host second at guest clock 0, when @synced
 */
struct tl_synth {
	unsigned int cpus;
	uint64_t switches;
	uint32_t subbuf_size;
	uint64_t seed;
	int hostile;
	int losses;
	int global;
	int synced;
	int64_t host_s;
};

/**
 * struct tl_truth - what the workload was
 * @t0, @t1: first packet's timestamp_begin, last packet's timestamp_end
 *	(guest ns)
 * @busy: per CPU, ns of tasks other than tid 0 within [@t0, @t1]
 * @switches, @wakeups, @irqs, @softirqs: events written
 * @bytes: of the stream files
 */
struct tl_truth {
	uint64_t t0, t1;
	uint64_t busy[TL_SYNTH_MAX_CPUS];
	uint64_t switches, wakeups, irqs, softirqs, packets, lost, bytes;
};

int tl_synth_write(const char *dir, const struct tl_synth *o,
		   struct tl_truth *truth);

#endif /* TL_SYNTH_H */
