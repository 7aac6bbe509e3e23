/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvm_tsc.h - a guest's TSC as host time, through KVM's per-vCPU TSC
 * offset and scaling (spec 9.5, v1.10, GR_F_SYNC_TSC)
 *
 * KVM gives a vCPU the TSC value
 *
 *   guest_tsc = ((host_tsc * ratio) >> frac_bits) + offset
 *
 * and shows offset, ratio and frac_bits, per vCPU, in debugfs:
 * <debugfs>/kvm/<qemu pid>-<vm fd>/vcpuN/tsc-offset ("%lld"),
 * tsc-scaling-ratio and tsc-scaling-ratio-frac-bits ("%llu"; absent on
 * hosts without TSC scaling: ratio 1, frac_bits 0). Inverting it puts a
 * guest TSC value on the host TSC; two host brackets (CLOCK_MONOTONIC,
 * TSC, CLOCK_MONOTONIC) around the clock-sync round put that on host
 * CLOCK_MONOTONIC by interpolation.
 */
#ifndef GR_KVM_TSC_H
#define GR_KVM_TSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GR_KVM_DEBUGFS		"/sys/kernel/debug/kvm"
#define GR_KVM_MAX_FRAC_BITS	63

/**
 * struct gr_kvm_tsc - KVM's TSC relation of one VM, the same on every vCPU
 * @offset: tsc-offset (guest ticks)
 * @ratio: tsc-scaling-ratio, a fixed-point number of @frac_bits fraction
 *	bits (1 << @frac_bits: no scaling)
 * @frac_bits: tsc-scaling-ratio-frac-bits
 * @nr_vcpus: vCPU directories that agreed
 */
struct gr_kvm_tsc {
	int64_t offset;
	uint64_t ratio;
	unsigned int frac_bits;
	unsigned int nr_vcpus;
};

/**
 * struct gr_tsc_bracket - a host TSC read between two CLOCK_MONOTONIC reads
 * @lo: CLOCK_MONOTONIC ns before the TSC read
 * @hi: CLOCK_MONOTONIC ns after it
 * @tsc: the host TSC
 */
struct gr_tsc_bracket {
	uint64_t lo;
	uint64_t hi;
	uint64_t tsc;
};

int gr_kvm_parse_int(const char *buf, size_t len, bool is_signed,
		     uint64_t *val);
int gr_kvm_tsc_read(const char *debugfs, int pid, struct gr_kvm_tsc *k);
int gr_kvm_host_tsc(const struct gr_kvm_tsc *k, uint64_t guest_tsc,
		    uint64_t *host_tsc);
uint64_t gr_kvm_host_ticks(const struct gr_kvm_tsc *k, uint64_t guest_ticks);
bool gr_tsc_bracket_read(struct gr_tsc_bracket *b);
int gr_tsc_map(const struct gr_tsc_bracket *b1, const struct gr_tsc_bracket *b3,
	       uint64_t host_tsc, uint64_t half_ticks, uint64_t *mono,
	       uint64_t *err_ns);

#endif /* GR_KVM_TSC_H */
