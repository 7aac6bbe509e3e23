// SPDX-License-Identifier: GPL-2.0
/*
 * kvm_tsc.c - a guest's TSC as host CLOCK_MONOTONIC, through KVM's TSC
 * offset and scaling (spec 9.5, v1.10): see kvm_tsc.h
 *
 *   gr_kvm_tsc_read()     the VM's offset and ratio, from debugfs; all
 *                         vCPUs must agree
 *   gr_kvm_host_tsc()     a guest TSC value on the host TSC
 *   gr_tsc_bracket_read() CLOCK_MONOTONIC, TSC, CLOCK_MONOTONIC: the
 *                         tightest of a few
 *   gr_tsc_map()          a host TSC value between two brackets, as
 *                         CLOCK_MONOTONIC with its bound
 *
 * Nothing here logs: the callers say why once (hostctl.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "kvm_tsc.h"

#define GR_TSC_BRACKET_TRIES	4

/**
 * gr_kvm_parse_int() - a debugfs number: decimal digits, a '-' first if
 *	@is_signed, one trailing newline at most, nothing else
 * @buf: the file's bytes (not NUL-terminated)
 * @len: their number
 * @is_signed: "%lld" (stored as its two's complement) rather than "%llu"
 * @val: receives the value
 *
 * Return: 0, or -EINVAL for anything else or a value beyond 64 bits.
 */
int gr_kvm_parse_int(const char *buf, size_t len, bool is_signed,
		     uint64_t *val)
{
	uint64_t v = 0, lim = UINT64_MAX;
	bool neg = false;
	size_t i = 0;

	if (len && buf[len - 1] == '\n')
		len--;
	if (is_signed && i < len && buf[i] == '-') {
		neg = true;
		i++;
	}
	if (is_signed)
		lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		unsigned int d = (unsigned char)buf[i] - '0';

		if (d > 9 || v > (lim - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*val = neg ? 0 - v : v;
	return 0;
}

/* one number file of a vCPU directory: 0, -errno or -EINVAL */
static int read_num(int dirfd, const char *name, bool is_signed,
		    uint64_t *val)
{
	char buf[32];
	ssize_t n;
	int fd, ret;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	ret = n < 0 ? -errno : n == (ssize_t)sizeof(buf) ? -EINVAL :
	      gr_kvm_parse_int(buf, (size_t)n, is_signed, val);
	close(fd);
	return ret;
}

/* the relation of one vCPU directory (without scaling: ratio 1) */
static int read_vcpu(int vmfd, const char *name, struct gr_kvm_tsc *k)
{
	uint64_t off, ratio, bits;
	int fd, ret, r2;

	fd = openat(vmfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read_num(fd, "tsc-offset", true, &off);
	r2 = ret ? ret : read_num(fd, "tsc-scaling-ratio", false, &ratio);
	if (!ret && r2 == -ENOENT) {
		ratio = 1;
		bits = 0;
		/* both files or neither (kvm_caps.has_tsc_control) */
		r2 = read_num(fd, "tsc-scaling-ratio-frac-bits", false, &bits);
		r2 = r2 == -ENOENT ? 0 : r2 ? r2 : -EINVAL;
	} else if (!ret && !r2) {
		r2 = read_num(fd, "tsc-scaling-ratio-frac-bits", false, &bits);
		r2 = r2 == -ENOENT ? -EINVAL : r2;
	}
	close(fd);
	if (ret || r2)
		return ret ? ret : r2;
	if (!ratio || bits > GR_KVM_MAX_FRAC_BITS)
		return -EINVAL;
	k->offset = (int64_t)off;
	k->ratio = ratio;
	k->frac_bits = (unsigned int)bits;
	return 0;
}

/* "<pid>-<digits>" */
static bool is_vm_dir(const char *name, const char *prefix, size_t plen)
{
	size_t i;

	if (strncmp(name, prefix, plen) || !name[plen])
		return false;
	for (i = plen; name[i]; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	return true;
}

/* "vcpu<digits>" */
static bool is_vcpu_dir(const char *name)
{
	return is_vm_dir(name, "vcpu", 4);
}

/* the VM directory of @pid in @dir: 0 with its name, -ESRCH, -ENOTUNIQ */
static int find_vm_dir(DIR *dir, int pid, char *name, size_t size)
{
	char prefix[24];
	struct dirent *de;
	int found = 0;

	snprintf(prefix, sizeof(prefix), "%d-", pid);
	while ((de = readdir(dir))) {
		if (!is_vm_dir(de->d_name, prefix, strlen(prefix)))
			continue;
		if (found++)
			return -ENOTUNIQ;
		snprintf(name, size, "%s", de->d_name);
	}
	return found ? 0 : -ESRCH;
}

/**
 * gr_kvm_tsc_read() - the TSC relation of QEMU @pid's VM, from KVM's debugfs
 * @debugfs: KVM's debugfs directory (GR_KVM_DEBUGFS, or a recorded copy)
 * @pid: QEMU's pid (> 0)
 * @k: receives the relation every vCPU has
 *
 * Return: 0; -errno of @debugfs itself (-ENOENT: no debugfs or no KVM,
 * -EACCES: not root); -ESRCH: no directory of @pid (not a KVM guest:
 * TCG); -ENOTUNIQ: more than one; -ENODATA: no vCPU in it; -EXDEV: the
 * vCPUs do not agree (no single mapping); -EINVAL: a file is not what
 * KVM writes; another -errno of a vCPU's files.
 */
int gr_kvm_tsc_read(const char *debugfs, int pid, struct gr_kvm_tsc *k)
{
	struct gr_kvm_tsc one = { 0 }, first = { 0 };
	char name[NAME_MAX + 1];
	struct dirent *de;
	int vmfd, ret;
	DIR *dir;

	dir = opendir(debugfs);
	if (!dir)
		return -errno;
	ret = find_vm_dir(dir, pid, name, sizeof(name));
	vmfd = ret ? -1 : openat(dirfd(dir), name,
				 O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	closedir(dir);
	if (ret)
		return ret;
	if (vmfd < 0)
		return -errno;
	dir = fdopendir(vmfd);
	if (!dir) {
		ret = -errno;
		close(vmfd);
		return ret;
	}
	while (!ret && (de = readdir(dir))) {
		if (!is_vcpu_dir(de->d_name))
			continue;
		ret = read_vcpu(dirfd(dir), de->d_name, &one);
		if (ret)
			break;
		if (first.nr_vcpus && (one.offset != first.offset ||
				       one.ratio != first.ratio ||
				       one.frac_bits != first.frac_bits))
			ret = -EXDEV;
		else if (!first.nr_vcpus)
			first = one;
		first.nr_vcpus++;
	}
	closedir(dir);
	if (!ret && !first.nr_vcpus)
		ret = -ENODATA;
	if (!ret)
		*k = first;
	return ret;
}

/**
 * gr_kvm_host_tsc() - the host TSC value at which the guest read @guest_tsc
 * @k: the VM's relation
 * @guest_tsc: a TSC value the guest read
 * @host_tsc: receives ((@guest_tsc - offset) << frac_bits) / ratio
 *
 * Exact without scaling; with scaling, within 2^frac_bits / ratio + 1
 * host ticks (the scaled product is truncated), which
 * gr_kvm_host_ticks() adds to a width.
 *
 * Return: 0, -ERANGE if the value does not fit 64 bits (a guest value
 * no vCPU of this relation can read).
 */
int gr_kvm_host_tsc(const struct gr_kvm_tsc *k, uint64_t guest_tsc,
		    uint64_t *host_tsc)
{
	unsigned __int128 h = guest_tsc - (uint64_t)k->offset;

	h = (h << k->frac_bits) / k->ratio;
	if (h > UINT64_MAX)
		return -ERANGE;
	*host_tsc = (uint64_t)h;
	return 0;
}

/**
 * gr_kvm_host_ticks() - a width in guest ticks as host ticks, rounded up,
 *	plus the truncation of gr_kvm_host_tsc()
 * @k: the VM's relation
 * @guest_ticks: the width
 *
 * Return: the width in host ticks, at most UINT64_MAX.
 */
uint64_t gr_kvm_host_ticks(const struct gr_kvm_tsc *k, uint64_t guest_ticks)
{
	unsigned __int128 one = (unsigned __int128)1 << k->frac_bits;
	unsigned __int128 w = ((unsigned __int128)guest_ticks << k->frac_bits) +
			      k->ratio - 1;

	w = w / k->ratio + (one + k->ratio - 1) / k->ratio + 1;
	return w > UINT64_MAX ? UINT64_MAX : (uint64_t)w;
}

#if defined(__x86_64__)
/* the host TSC, ordered against the clock reads around it */
static inline uint64_t host_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : :
			 "memory");
	return (uint64_t)hi << 32 | lo;
}
#endif

/**
 * gr_tsc_bracket_read() - the tightest of a few host brackets
 *	(CLOCK_MONOTONIC, TSC, CLOCK_MONOTONIC)
 * @b: receives it
 *
 * Return: false where the host has no TSC to read (not x86-64).
 */
bool gr_tsc_bracket_read(struct gr_tsc_bracket *b)
{
#if defined(__x86_64__)
	struct gr_tsc_bracket t;
	int i;

	for (i = 0; i < GR_TSC_BRACKET_TRIES; i++) {
		t.lo = gr_mono_ns();
		t.tsc = host_rdtsc();
		t.hi = gr_mono_ns();
		if (!i || t.hi - t.lo < b->hi - b->lo)
			*b = t;
	}
	return true;
#else
	(void)b;
	return false;
#endif
}

/**
 * gr_tsc_map() - host TSC value @host_tsc as host CLOCK_MONOTONIC
 * @b1: a bracket read before the guest saw the request
 * @b3: a bracket read after the host saw the answer
 * @host_tsc: the guest's reading on the host TSC (gr_kvm_host_tsc())
 * @half_ticks: its half-width on the host TSC (gr_kvm_host_ticks())
 * @mono: receives the CLOCK_MONOTONIC ns of @host_tsc
 * @err_ns: receives the bound of |@mono - the true time|
 *
 * Interpolates between the two brackets' midpoints: CLOCK_MONOTONIC is
 * linear in the host TSC over the round trip, so the error of a point
 * between the two is at most the larger of their half-widths; the
 * reading's own half-width adds @half_ticks at the largest slope the
 * brackets allow. The cross-check of spec 9.5: the reading, widened by
 * @half_ticks, must lie within [@b1->tsc, @b3->tsc], since the guest
 * read its TSC after it saw the request and before it answered.
 *
 * Return: 0; -ERANGE if the reading is outside the round trip (the
 * guest's TSC values or KVM's relation are not what the guest reads);
 * -EINVAL if the brackets are not in order.
 */
int gr_tsc_map(const struct gr_tsc_bracket *b1, const struct gr_tsc_bracket *b3,
	       uint64_t host_tsc, uint64_t half_ticks, uint64_t *mono,
	       uint64_t *err_ns)
{
	uint64_t m1 = b1->lo + (b1->hi - b1->lo) / 2;
	uint64_t m3 = b3->lo + (b3->hi - b3->lo) / 2;
	uint64_t w1 = (b1->hi - b1->lo + 1) / 2, w3 = (b3->hi - b3->lo + 1) / 2;
	uint64_t dt, dm;
	unsigned __int128 x;

	if (b1->hi < b1->lo || b3->hi < b3->lo || b3->tsc <= b1->tsc ||
	    m3 < m1)
		return -EINVAL;
	if (host_tsc < b1->tsc || host_tsc - b1->tsc < half_ticks ||
	    host_tsc > b3->tsc || b3->tsc - host_tsc < half_ticks)
		return -ERANGE;
	dt = b3->tsc - b1->tsc;
	dm = m3 - m1;
	x = (unsigned __int128)(host_tsc - b1->tsc) * dm / dt;
	*mono = m1 + (uint64_t)x;
	x = ((unsigned __int128)half_ticks * ((unsigned __int128)dm + w1 + w3) +
	     dt - 1) / dt;
	*err_ns = (w1 > w3 ? w1 : w3) + (uint64_t)x + 1;
	return 0;
}
