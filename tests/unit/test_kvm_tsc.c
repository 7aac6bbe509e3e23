// SPDX-License-Identifier: GPL-2.0
/*
 * test_kvm_tsc.c - host-agent/agent/kvm_tsc.c: KVM's debugfs numbers,
 * the VM's TSC relation read from a debugfs tree (built here, and the
 * one recorded from this sandbox's KVM in tests/data/kvm-debugfs), the
 * inverse of KVM's TSC scaling and the mapping between two host
 * brackets with its bound and its cross-check (spec 9.5, v1.10)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gr_test.h"
#include "kvm_tsc.h"

static void test_parse_numbers(void)
{
	uint64_t v = 7;

	CU_ASSERT_EQUAL(gr_kvm_parse_int("0\n", 2, true, &v), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("-123456789012\n", 14, true, &v), 0);
	CU_ASSERT_EQUAL((int64_t)v, -123456789012LL);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("-9223372036854775808", 20, true, &v),
			0);
	CU_ASSERT_EQUAL((int64_t)v, INT64_MIN);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("9223372036854775807", 19, true, &v),
			0);
	CU_ASSERT_EQUAL(v, (uint64_t)INT64_MAX);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("9223372036854775808", 19, true, &v),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("18446744073709551615\n", 21, false,
					 &v), 0);
	CU_ASSERT_EQUAL(v, UINT64_MAX);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("18446744073709551616", 20, false,
					 &v), -EINVAL);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("-1", 2, false, &v), -EINVAL);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("", 0, true, &v), -EINVAL);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("\n", 1, true, &v), -EINVAL);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("-", 1, true, &v), -EINVAL);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("12 \n", 4, true, &v), -EINVAL);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("0x10", 4, false, &v), -EINVAL);
	CU_ASSERT_EQUAL(gr_kvm_parse_int("1\n\n", 3, false, &v), -EINVAL);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* <root>/<pid>-<fd>/vcpuN with an offset and, if @ratio, scaling */
static void vcpu(const char *root, int pid, int n, const char *offset,
		 const char *ratio, const char *bits)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/%d-11", root, pid);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/%d-11/vcpu%d", root, pid, n);
	CU_ASSERT_EQUAL(mkdir(dir, 0755), 0);
	put(dir, "tsc-offset", offset);
	if (ratio)
		put(dir, "tsc-scaling-ratio", ratio);
	if (bits)
		put(dir, "tsc-scaling-ratio-frac-bits", bits);
}

static void test_read_tree(void)
{
	char root[] = "/tmp/test_kvm_tsc.XXXXXX", cmd[600];
	struct gr_kvm_tsc k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	CU_ASSERT_EQUAL(gr_kvm_tsc_read(root, 100, &k), -ESRCH);
	/* no scaling: the ratio files are absent */
	vcpu(root, 100, 0, "-5000000\n", NULL, NULL);
	vcpu(root, 100, 1, "-5000000\n", NULL, NULL);
	CU_ASSERT_EQUAL(gr_kvm_tsc_read(root, 100, &k), 0);
	CU_ASSERT_EQUAL(k.offset, -5000000);
	CU_ASSERT_EQUAL(k.ratio, 1);
	CU_ASSERT_EQUAL(k.frac_bits, 0);
	CU_ASSERT_EQUAL(k.nr_vcpus, 2);
	/* another pid's prefix is not ours: 1000 is not 100 */
	CU_ASSERT_EQUAL(gr_kvm_tsc_read(root, 10, &k), -ESRCH);
	/* scaling (VMX: 48 fraction bits) */
	vcpu(root, 200, 0, "123\n", "140737488355328\n", "48\n");
	vcpu(root, 200, 1, "123\n", "140737488355328\n", "48\n");
	CU_ASSERT_EQUAL(gr_kvm_tsc_read(root, 200, &k), 0);
	CU_ASSERT_EQUAL(k.ratio, 1ULL << 47);
	CU_ASSERT_EQUAL(k.frac_bits, 48);
	/* vCPUs that differ: no single mapping */
	vcpu(root, 300, 0, "1000\n", NULL, NULL);
	vcpu(root, 300, 1, "1001\n", NULL, NULL);
	CU_ASSERT_EQUAL(gr_kvm_tsc_read(root, 300, &k), -EXDEV);
	/* one ratio file without the other, a zero ratio, garbage */
	vcpu(root, 400, 0, "0\n", "1\n", NULL);
	CU_ASSERT_EQUAL(gr_kvm_tsc_read(root, 400, &k), -EINVAL);
	vcpu(root, 500, 0, "0\n", "0\n", "32\n");
	CU_ASSERT_EQUAL(gr_kvm_tsc_read(root, 500, &k), -EINVAL);
	vcpu(root, 600, 0, "zero\n", NULL, NULL);
	CU_ASSERT_EQUAL(gr_kvm_tsc_read(root, 600, &k), -EINVAL);
	/* a VM directory without vCPUs */
	snprintf(cmd, sizeof(cmd), "%s/700-3", root);
	mkdir(cmd, 0755);
	CU_ASSERT_EQUAL(gr_kvm_tsc_read(root, 700, &k), -ENODATA);
	snprintf(cmd, sizeof(cmd), "%s/no-such-dir", root);
	CU_ASSERT_EQUAL(gr_kvm_tsc_read(cmd, 100, &k), -ENOENT);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* the tree recorded from this sandbox's KVM (README of tests/data) */
static void test_recorded_tree(void)
{
	struct gr_kvm_tsc k;

	CU_ASSERT_EQUAL(gr_kvm_tsc_read(GR_TEST_DATA "/kvm-debugfs/pvm-2vcpu",
					5720, &k), 0);
	CU_ASSERT_EQUAL(k.nr_vcpus, 2);
	CU_ASSERT_EQUAL(k.offset, 0);
	CU_ASSERT_EQUAL(k.ratio, 1);
	CU_ASSERT_EQUAL(k.frac_bits, 0);
}

static void test_inverse_scaling(void)
{
	struct gr_kvm_tsc plain = { .offset = -1000, .ratio = 1 };
	/* a guest TSC at 1.5 times the host's, 48 fraction bits */
	struct gr_kvm_tsc vmx = {
		.offset = 777, .ratio = 3ULL << 47, .frac_bits = 48,
	};
	struct gr_kvm_tsc svm = {
		.offset = -(1LL << 40), .ratio = (1ULL << 32) / 3,
		.frac_bits = 32,
	};
	uint64_t h, back, host = 123456789012345ULL;
	unsigned __int128 g;

	CU_ASSERT_EQUAL(gr_kvm_host_tsc(&plain, 5000, &h), 0);
	CU_ASSERT_EQUAL(h, 6000);
	CU_ASSERT_EQUAL(gr_kvm_host_ticks(&plain, 10), 12);
	/* what KVM gives the guest, then back: within the truncation */
	g = (((unsigned __int128)host * vmx.ratio) >> vmx.frac_bits) + 777;
	CU_ASSERT_EQUAL(gr_kvm_host_tsc(&vmx, (uint64_t)g, &back), 0);
	CU_ASSERT(back <= host && host - back <= 1);
	CU_ASSERT(gr_kvm_host_ticks(&vmx, 300) >= 200 &&
		  gr_kvm_host_ticks(&vmx, 300) <= 203);
	g = (((unsigned __int128)host * svm.ratio) >> svm.frac_bits) +
	    (uint64_t)svm.offset;
	CU_ASSERT_EQUAL(gr_kvm_host_tsc(&svm, (uint64_t)g, &back), 0);
	CU_ASSERT(back <= host + 4 && host <= back + 4);
	/* a value no vCPU of this relation reads */
	svm.ratio = 1;
	CU_ASSERT_EQUAL(gr_kvm_host_tsc(&svm, UINT64_MAX, &back), -ERANGE);
}

static void test_map_between_brackets(void)
{
	/* 2 GHz: 2 ticks a ns; brackets of 40 ns, 1 ms apart */
	struct gr_tsc_bracket b1 = { .lo = 1000000, .hi = 1000040,
				     .tsc = 2000040 };
	struct gr_tsc_bracket b3 = { .lo = 2000000, .hi = 2000040,
				     .tsc = 4000040 };
	uint64_t mono, err;

	/* the middle of the round trip, a reading 100 ticks wide */
	CU_ASSERT_EQUAL(gr_tsc_map(&b1, &b3, 3000040, 100, &mono, &err), 0);
	CU_ASSERT_EQUAL(mono, 1500020);
	CU_ASSERT(err >= 20 + 50 && err <= 20 + 52);
	/* an instant at the edges, exact reading */
	CU_ASSERT_EQUAL(gr_tsc_map(&b1, &b3, 2000040, 0, &mono, &err), 0);
	CU_ASSERT_EQUAL(mono, 1000020);
	CU_ASSERT_EQUAL(gr_tsc_map(&b1, &b3, 4000040, 0, &mono, &err), 0);
	CU_ASSERT_EQUAL(mono, 2000020);
	CU_ASSERT_EQUAL(err, 21);
	/* the cross-check: outside the round trip, or widened past it */
	CU_ASSERT_EQUAL(gr_tsc_map(&b1, &b3, 2000039, 0, &mono, &err), -ERANGE);
	CU_ASSERT_EQUAL(gr_tsc_map(&b1, &b3, 4000041, 0, &mono, &err), -ERANGE);
	CU_ASSERT_EQUAL(gr_tsc_map(&b1, &b3, 2000050, 11, &mono, &err),
			-ERANGE);
	CU_ASSERT_EQUAL(gr_tsc_map(&b1, &b3, 4000030, 11, &mono, &err),
			-ERANGE);
	CU_ASSERT_EQUAL(gr_tsc_map(&b1, &b3, 0, UINT64_MAX, &mono, &err),
			-ERANGE);
	/* brackets out of order */
	CU_ASSERT_EQUAL(gr_tsc_map(&b3, &b1, 3000040, 0, &mono, &err), -EINVAL);
}

static void test_host_brackets(void)
{
	struct gr_tsc_bracket a, b;
	uint64_t mono, err;

	if (!gr_tsc_bracket_read(&a)) {
		CU_PASS("no TSC on this host");
		return;
	}
	CU_ASSERT(a.hi >= a.lo);
	usleep(2000);
	CU_ASSERT_TRUE(gr_tsc_bracket_read(&b));
	CU_ASSERT(b.tsc > a.tsc && b.lo > a.hi);
	/* the host's own TSC, read between: mapped within its bound */
	CU_ASSERT_EQUAL(gr_tsc_map(&a, &b, a.tsc + (b.tsc - a.tsc) / 2, 0,
				   &mono, &err), 0);
	CU_ASSERT(mono > a.lo && mono < b.hi);
	CU_ASSERT(err < 100000);
}

static const struct gr_test tests[] = {
	GR_TEST(test_parse_numbers),
	GR_TEST(test_read_tree),
	GR_TEST(test_recorded_tree),
	GR_TEST(test_inverse_scaling),
	GR_TEST(test_map_between_brackets),
	GR_TEST(test_host_brackets),
};

int main(void)
{
	return gr_test_main("kvm_tsc", tests, ARRAY_SIZE(tests), NULL, NULL);
}
