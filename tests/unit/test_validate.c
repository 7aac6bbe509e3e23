// SPDX-License-Identifier: GPL-2.0
/*
 * test_validate.c - the host's validators of what a guest publishes once:
 * the region header (acceptance, one rejection per rule, reading it out of
 * a mapping) and the event descriptors
 *
 * Builds a valid layout in memory (tests/lib/validate_fixture.c), checks
 * that it is accepted, then flips exactly one thing per test and checks
 * the rejection, its errno and its reason.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr_build.h"
#include "gr_test.h"
#include "validate_fixture.h"

#include "guestrelay_abi.h"
#include "validate.h"

/* --- region header: acceptance ------------------------------------------- */

static void test_hdr_accepts_valid_layout(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;
	unsigned int i;

	make_hdr(&h);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_PTR_NULL(why);
	CU_ASSERT_EQUAL(v.region_size, T_REGION);
	CU_ASSERT_EQUAL(v.features, T_FEATURES);
	CU_ASSERT_EQUAL(v.instance_id, T_INSTANCE);
	CU_ASSERT_EQUAL(v.abi_minor, GR_ABI_MINOR);
	CU_ASSERT_EQUAL(v.nr_rings, T_CPUS);
	CU_ASSERT_EQUAL(v.nr_cpus, T_CPUS);
	CU_ASSERT_EQUAL(v.subbuf_size, T_S);
	CU_ASSERT_EQUAL(v.subbuf_shift, 12);
	CU_ASSERT_EQUAL(v.n_subbufs, T_N);
	CU_ASSERT_EQUAL(v.flags, 0);
	CU_ASSERT_EQUAL(v.desc_offset, T_DESC_OFF);
	CU_ASSERT_EQUAL(v.desc_count, T_NDESC);
	CU_ASSERT_EQUAL(v.desc_stride, 576);
	CU_ASSERT_EQUAL(v.ring_offset, T_RING_OFF);
	CU_ASSERT_EQUAL(v.subbuf_rec_offset, T_REC_OFF);
	CU_ASSERT_EQUAL(v.data_offset, T_DATA_OFF);
	CU_ASSERT_EQUAL(v.packet_header_size, 72);
	CU_ASSERT_EQUAL(v.max_event_size, T_MAX_EVENT);
	CU_ASSERT_EQUAL(v.clock_freq, 1000000000ULL);
	CU_ASSERT_STRING_EQUAL(v.clock_name, "mono_fast");
	CU_ASSERT_STRING_EQUAL(v.kernel_release, "6.1.0-56-amd64");
	CU_ASSERT_STRING_EQUAL(v.nodename, "guest1");
	for (i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(v.boot_id[i], i + 1);
	CU_ASSERT_FALSE(gr_view_is_global(&v));
}

static void test_hdr_view_offsets_match_abi_formula(void)
{
	struct gr_view v;

	make_view(&v);
	CU_ASSERT_EQUAL(gr_view_desc_off(&v, 2), T_DESC_OFF + 2 * 576);
	CU_ASSERT_EQUAL(gr_view_ring_off(&v, 1), T_RING_OFF + 128);
	CU_ASSERT_EQUAL(gr_view_rec_off(&v, 1, 3), T_REC_OFF + (1 * T_N + 3) * 16);
	CU_ASSERT_EQUAL(gr_view_subbuf_off(&v, 1, 3),
			T_DATA_OFF + (1 * T_N + 3) * T_S);
	CU_ASSERT_EQUAL(gr_view_subbuf_off(&v, 1, 3) + T_S, 0xc000);
	CU_ASSERT_EQUAL(gr_view_slot(&v, 1000), 0);
	CU_ASSERT_EQUAL(gr_view_slot(&v, 1003), 3);
	CU_ASSERT_EQUAL(gr_view_slot(&v, UINT64_MAX), (uint32_t)(UINT64_MAX % T_N));
}

static void test_hdr_accepts_global_ring_with_many_cpus(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;

	make_global_hdr(&h, 4096);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_EQUAL(v.nr_rings, 1);
	CU_ASSERT_EQUAL(v.nr_cpus, 4096);
	CU_ASSERT_TRUE(gr_view_is_global(&v));
}

static void test_hdr_accepts_largest_record_with_big_subbufs(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;

	/* 2 rings * 2 * 128 KiB at 0x4000 fit in 1 MiB */
	make_hdr(&h);
	h.region_size = htole64(1 << 20);
	h.subbuf_size = htole32(128 << 10);
	h.n_subbufs = htole32(2);
	h.max_event_size = htole32(GR_MAX_RECORD_SIZE);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, 1 << 20, &v, &why), 0);
	CU_ASSERT_EQUAL(v.max_event_size, 65528);
	h.max_event_size = htole32(65536);
	expect(gr_check_region_hdr(&h, 1 << 20, &v, &why), &why, -EINVAL,
	       "max_event_size exceeds the sub-buffer room");
}

static void test_hdr_accepts_max_event_size_filling_the_subbuf(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;

	make_hdr(&h);
	h.max_event_size = htole32(T_S - 72);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	h.max_event_size = htole32(16);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
}

static void test_hdr_keeps_unknown_guest_features(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;

	/*
	 * every bit but GR_F_HIST, whose area does not fit 64 KiB (v1.5),
	 * GR_F_WIDE_EVENTS, whose area the layout does not place (v1.13),
	 * and GR_F_LONG_DESC, whose stride it does not have (v1.15);
	 * GR_F_ANYEVENT's desc_capacity (v1.7) holds the table
	 */
	make_hdr(&h);
	h.guest_features = htole64(~(GR_F_HIST | GR_F_WIDE_EVENTS |
				     GR_F_LONG_DESC));
	h.desc_capacity = htole32(T_NDESC);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_EQUAL(v.features, ~(GR_F_HIST | GR_F_WIDE_EVENTS |
				      GR_F_LONG_DESC));
}

static void test_hdr_sanitizes_release_and_nodename(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;

	make_hdr(&h);
	strcpy(h.nodename, "a\"b\\c\x01" "d\x7f" "e\xff" "f g~");
	memset(h.kernel_release, 'r', sizeof(h.kernel_release) - 1);
	h.kernel_release[10] = '\n';
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_STRING_EQUAL(v.nodename, "a?b?c?d?e?f g~");
	CU_ASSERT_EQUAL(strlen(v.kernel_release), sizeof(v.kernel_release) - 1);
	CU_ASSERT_EQUAL(v.kernel_release[10], '?');
	CU_ASSERT_EQUAL(v.kernel_release[11], 'r');
}

/* v1.2: kernel_version and product_uuid mean something only with the bit */
static void test_hdr_guest_info_only_with_its_feature_bit(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;
	unsigned int i;

	make_hdr(&h);
	memset(h.kernel_version, 'v', sizeof(h.kernel_version));
	memset(h.product_uuid, 0xab, sizeof(h.product_uuid));
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_STRING_EQUAL(v.kernel_version, "");
	for (i = 0; i < sizeof(v.product_uuid); i++)
		CU_ASSERT_EQUAL(v.product_uuid[i], 0);

	h.guest_features |= htole64(GR_F_GUEST_INFO);
	memset(h.kernel_version, 0, sizeof(h.kernel_version));
	strcpy(h.kernel_version, "#1 SMP \"x\" \x01");
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_STRING_EQUAL(v.kernel_version, "#1 SMP ?x? ?");
	for (i = 0; i < sizeof(v.product_uuid); i++)
		CU_ASSERT_EQUAL(v.product_uuid[i], 0xab);
}

/* spec 2.4: a reader MUST NOT reject a region for a non-zero reserved byte */
static void test_hdr_ignores_reserved_bytes(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;
	unsigned int minor;

	for (minor = GR_ABI_MINOR; minor <= GR_ABI_MINOR + 1; minor++) {
		make_hdr(&h);
		h.abi_minor = htole16(minor);
		h.reserved0 = htole32(7);
		memset(h.reserved, 0x5a, sizeof(h.reserved));
		CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
		CU_ASSERT_EQUAL(v.abi_minor, minor);
	}
}

static void test_hdr_reject_leaves_view_untouched(void)
{
	struct gr_region_hdr h;
	struct gr_view v, before;
	const char *why = NULL;

	make_hdr(&h);
	h.clock_freq = 0;
	memset(&v, 0xa5, sizeof(v));
	before = v;
	CU_ASSERT_NOT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_EQUAL(memcmp(&v, &before, sizeof(v)), 0);
	/* why is optional */
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, NULL), -EINVAL);
}

/* --- the hist area (v1.5, GR_F_HIST; spec 17.1, F1) ---------------------- */

#define T_HIST_REGION	(1ULL << 17)	/* 128 KiB: the data ends at 0xc000 */

/* @h with a hist area [off, off + size) in a region of T_HIST_REGION */
static void set_hist(struct gr_region_hdr *h, uint64_t *real, uint64_t off,
		     uint64_t size)
{
	*real = T_HIST_REGION;
	h->region_size = htole64(T_HIST_REGION);
	h->guest_features |= htole64(GR_F_HIST);
	h->hist_offset = htole64(off);
	h->hist_size = htole64(size);
}

static void test_hdr_hist_area(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;
	uint64_t real;

	make_hdr(&h);
	set_hist(&h, &real, 0x10000, GR_HIST_MIN_SIZE);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, real, &v, &why), 0);
	CU_ASSERT_EQUAL(v.hist_offset, 0x10000);
	CU_ASSERT_EQUAL(v.hist_size, GR_HIST_MIN_SIZE);
	/* right after the data, a client area right after it */
	set_hist(&h, &real, 0xc000, GR_HIST_MIN_SIZE);
	h.guest_features |= htole64(GR_F_CLIENT);
	h.client_offset = htole64(0x1c000);
	h.client_size = htole64(0x4000);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, real, &v, &why), 0);
	CU_ASSERT_EQUAL(v.hist_offset, 0xc000);
	/* a client area just below it */
	set_hist(&h, &real, 0x10000, GR_HIST_MIN_SIZE);
	h.client_offset = htole64(0xc000);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, real, &v, &why), 0);
	/* without the feature bit the fields are reserved: ignored */
	h.guest_features &= ~htole64(GR_F_HIST);
	h.hist_offset = htole64(1);
	h.hist_size = htole64(UINT64_MAX);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, real, &v, &why), 0);
	CU_ASSERT_EQUAL(v.hist_offset, 0);
	CU_ASSERT_EQUAL(v.hist_size, 0);
}

/* --- region header: one rejection per rule ------------------------------- */

/*
 * X(name, errno, reason, mutation...): the mutation runs on a valid header
 * h that is checked against the real size real (T_REGION unless changed).
 */
#define HDR_REJECTS(X)							\
	X(magic_zero, -EAGAIN, "region header not published",		\
	  h.magic = 0)							\
	X(magic_wrong, -EINVAL, "bad region magic",			\
	  h.magic = htole64(GR_REGION_MAGIC ^ 1))			\
	X(magic_byte_swapped, -EINVAL, "bad region magic",		\
	  h.magic = htobe64(GR_REGION_MAGIC))				\
	X(abi_major_2, -EPROTONOSUPPORT, "unsupported abi_major",	\
	  h.abi_major = htole16(2))					\
	X(abi_major_0, -EPROTONOSUPPORT, "unsupported abi_major",	\
	  h.abi_major = 0)						\
	X(hdr_size_511, -EINVAL, "hdr_size is smaller than gr_region_hdr", \
	  h.hdr_size = htole32(511))					\
	X(hdr_size_0, -EINVAL, "hdr_size is smaller than gr_region_hdr", \
	  h.hdr_size = 0)						\
	X(hdr_size_513, -EINVAL, "hdr_size reaches into the status block", \
	  h.hdr_size = htole32(513))					\
	X(hdr_size_ctrl_offset, -EINVAL,				\
	  "hdr_size reaches into the status block",			\
	  h.hdr_size = htole32(GR_CTRL_OFFSET))				\
	X(hdr_size_max, -EINVAL, "hdr_size reaches into the status block", \
	  h.hdr_size = htole32(UINT32_MAX))				\
	X(real_size_not_pow2, -EINVAL,					\
	  "real region size is not a power of two in range",		\
	  real = 3 * T_REGION; h.region_size = htole64(real))		\
	X(real_size_too_small, -EINVAL,					\
	  "real region size is not a power of two in range",		\
	  real = T_REGION / 2; h.region_size = htole64(real))		\
	X(real_size_too_big, -EINVAL,					\
	  "real region size is not a power of two in range",		\
	  real = GR_MAX_REGION_SIZE * 2; h.region_size = htole64(real))	\
	X(region_size_differs, -EINVAL,					\
	  "region_size differs from the real region size",		\
	  h.region_size = htole64(2 * T_REGION))			\
	X(region_size_smaller, -EINVAL,					\
	  "region_size differs from the real region size",		\
	  real = 2 * T_REGION)						\
	X(flags_unknown_bit, -EINVAL, "unknown bits in flags",		\
	  h.flags = htole32(1U << 1))					\
	X(flags_top_bit, -EINVAL, "unknown bits in flags",		\
	  h.flags = htole32(1U << 31))					\
	X(nr_cpus_0, -EINVAL, "nr_cpus is 0", h.nr_cpus = 0)		\
	X(nr_cpus_too_many, -EINVAL,					\
	  "nr_cpus is larger than GR_MAX_NR_CPUS",			\
	  h.nr_cpus = htole32(GR_MAX_NR_CPUS + 1))			\
	X(nr_rings_0, -EINVAL, "nr_rings is 0", h.nr_rings = 0)	\
	X(nr_rings_too_many, -EINVAL,					\
	  "nr_rings is larger than GR_MAX_RINGS",			\
	  h.nr_rings = htole32(GR_MAX_RINGS + 1))			\
	X(nr_rings_max_u32, -EINVAL,					\
	  "nr_rings is larger than GR_MAX_RINGS",			\
	  h.nr_rings = htole32(UINT32_MAX))				\
	X(global_with_two_rings, -EINVAL,				\
	  "GR_HDR_GLOBAL set but nr_rings is not 1",			\
	  h.flags = htole32(GR_HDR_GLOBAL))				\
	X(percpu_rings_not_nr_cpus, -EINVAL,				\
	  "per-CPU rings but nr_rings differs from nr_cpus",		\
	  h.nr_cpus = htole32(T_CPUS + 1))				\
	X(subbuf_size_3000, -EINVAL, "subbuf_size is not a power of two", \
	  h.subbuf_size = htole32(3000))				\
	X(subbuf_size_0, -EINVAL, "subbuf_size is not a power of two",	\
	  h.subbuf_size = 0)						\
	X(subbuf_size_2048, -EINVAL,					\
	  "subbuf_size is below GR_MIN_SUBBUF_SIZE",			\
	  h.subbuf_size = htole32(2048))				\
	X(subbuf_size_32m, -EINVAL,					\
	  "subbuf_size is above GR_MAX_SUBBUF_SIZE",			\
	  h.subbuf_size = htole32(32U << 20))				\
	X(subbuf_size_2g, -EINVAL,					\
	  "subbuf_size is above GR_MAX_SUBBUF_SIZE",			\
	  h.subbuf_size = htole32(1U << 31))				\
	X(n_subbufs_1, -EINVAL, "n_subbufs is below GR_MIN_SUBBUFS",	\
	  h.n_subbufs = htole32(1))					\
	X(n_subbufs_0, -EINVAL, "n_subbufs is below GR_MIN_SUBBUFS",	\
	  h.n_subbufs = 0)						\
	X(n_subbufs_too_many, -EINVAL,					\
	  "n_subbufs is above GR_MAX_SUBBUFS",				\
	  h.n_subbufs = htole32(GR_MAX_SUBBUFS + 1))			\
	X(packet_header_size_64, -EINVAL, "packet_header_size is not 72", \
	  h.packet_header_size = htole32(64))				\
	X(packet_header_size_huge, -EINVAL,				\
	  "packet_header_size is not 72",				\
	  h.packet_header_size = htole32(UINT32_MAX))			\
	X(max_event_size_8, -EINVAL, "max_event_size is below 16",	\
	  h.max_event_size = htole32(8))				\
	X(max_event_size_past_subbuf, -EINVAL,				\
	  "max_event_size exceeds the sub-buffer room",			\
	  h.max_event_size = htole32(T_S - 72 + 8))			\
	X(max_event_size_huge, -EINVAL,					\
	  "max_event_size exceeds the sub-buffer room",			\
	  h.max_event_size = htole32(UINT32_MAX))			\
	X(max_event_size_unaligned, -EINVAL,				\
	  "max_event_size is not a multiple of 8",			\
	  h.max_event_size = htole32(100))				\
	X(desc_count_too_many, -EINVAL, "desc_count is above GR_MAX_EVENTS", \
	  h.desc_count = htole32(GR_MAX_EVENTS + 1))			\
	X(desc_stride_575, -EINVAL,					\
	  "desc_stride is smaller than gr_event_desc",			\
	  h.desc_stride = htole32(575))					\
	X(desc_stride_0, -EINVAL,					\
	  "desc_stride is smaller than gr_event_desc",			\
	  h.desc_stride = 0)						\
	X(desc_stride_580, -EINVAL, "desc_stride is not a multiple of 8", \
	  h.desc_stride = htole32(580))					\
	X(clock_freq_0, -EINVAL, "clock_freq is 0", h.clock_freq = 0)	\
	X(clock_freq_11ghz, -EINVAL, "clock_freq is above 10 GHz",	\
	  h.clock_freq = htole64(11000000000ULL))			\
	X(clock_freq_max, -EINVAL, "clock_freq is above 10 GHz",	\
	  h.clock_freq = htole64(UINT64_MAX))				\
	X(desc_misaligned, -EINVAL, "desc_offset is not 8-byte aligned", \
	  h.desc_offset = htole64(T_DESC_OFF + 4))			\
	X(desc_below_layout, -EINVAL,					\
	  "desc_offset is below GR_LAYOUT_START",			\
	  h.desc_offset = htole64(GR_CTRL_OFFSET))			\
	X(desc_in_header, -EINVAL, "desc_offset is below GR_LAYOUT_START", \
	  h.desc_offset = 0)						\
	X(desc_past_end, -EINVAL, "descriptor table ends beyond the region", \
	  h.desc_offset = htole64(T_REGION - 576))			\
	X(desc_offset_wraps, -EINVAL,					\
	  "descriptor table ends beyond the region",			\
	  h.desc_offset = htole64(UINT64_MAX - 7))			\
	X(desc_stride_wraps_u32, -EINVAL,				\
	  "descriptor table ends beyond the region",			\
	  h.desc_count = htole32(2);					\
	  h.desc_stride = htole32(0x80000000U))				\
	X(ring_misaligned, -EINVAL, "ring_offset is not 64-byte aligned", \
	  h.ring_offset = htole64(T_RING_OFF + 8))			\
	X(ring_below_layout, -EINVAL,					\
	  "ring_offset is below GR_LAYOUT_START",			\
	  h.ring_offset = htole64(GR_STATUS_OFFSET))			\
	X(ring_past_end, -EINVAL, "rings end beyond the region",	\
	  h.ring_offset = htole64(T_REGION - 128))			\
	X(ring_offset_wraps, -EINVAL, "rings end beyond the region",	\
	  h.ring_offset = htole64(UINT64_MAX - 63))			\
	X(rec_misaligned, -EINVAL,					\
	  "subbuf_rec_offset is not 64-byte aligned",			\
	  h.subbuf_rec_offset = htole64(T_REC_OFF + 8))			\
	X(rec_16_not_64, -EINVAL,					\
	  "subbuf_rec_offset is not 64-byte aligned",			\
	  h.subbuf_rec_offset = htole64(T_REC_OFF + 16))		\
	X(rec_below_layout, -EINVAL,					\
	  "subbuf_rec_offset is below GR_LAYOUT_START",			\
	  h.subbuf_rec_offset = htole64(0x1fc0))			\
	X(rec_past_end, -EINVAL, "commit records end beyond the region", \
	  h.subbuf_rec_offset = htole64(T_REGION - 64))			\
	X(rec_offset_wraps, -EINVAL,					\
	  "commit records end beyond the region",			\
	  h.subbuf_rec_offset = htole64(UINT64_MAX - 63))		\
	X(data_misaligned, -EINVAL,					\
	  "data_offset is not GR_PAGE_SIZE aligned",			\
	  h.data_offset = htole64(T_DATA_OFF + 2048))			\
	X(data_below_layout, -EINVAL,					\
	  "data_offset is below GR_LAYOUT_START",			\
	  h.data_offset = htole64(GR_CTRL_OFFSET))			\
	X(data_past_end, -EINVAL,					\
	  "sub-buffer data ends beyond the region",			\
	  h.data_offset = htole64(0x9000))				\
	X(data_offset_wraps, -EINVAL,					\
	  "sub-buffer data ends beyond the region",			\
	  h.data_offset = htole64(UINT64_MAX - 4095))			\
	X(data_size_wraps_u32, -EINVAL,					\
	  "sub-buffer data ends beyond the region",			\
	  h.n_subbufs = htole32(128);					\
	  h.subbuf_size = htole32(GR_MAX_SUBBUF_SIZE))			\
	X(desc_overlaps_rings, -EINVAL,					\
	  "descriptor table overlaps the rings",			\
	  h.ring_offset = htole64(T_DESC_OFF + 0x40))			\
	X(desc_overlaps_records, -EINVAL,				\
	  "descriptor table overlaps the commit records",		\
	  h.subbuf_rec_offset = htole64(T_DESC_OFF + 0x680))		\
	X(desc_overlaps_data, -EINVAL,					\
	  "descriptor table overlaps the sub-buffer data",		\
	  h.desc_offset = htole64(T_DATA_OFF + 0x7ff8))			\
	X(rings_overlap_records, -EINVAL,				\
	  "rings overlap the commit records",				\
	  h.subbuf_rec_offset = htole64(T_RING_OFF + 0xc0))		\
	X(rings_overlap_data, -EINVAL, "rings overlap the sub-buffer data", \
	  h.ring_offset = htole64(T_DATA_OFF + 0x4000))			\
	X(records_overlap_data, -EINVAL,				\
	  "commit records overlap the sub-buffer data",			\
	  h.subbuf_rec_offset = htole64(0xbfc0))			\
	X(clock_name_unterminated, -EINVAL,				\
	  "clock_name is not NUL-terminated",				\
	  memset(h.clock_name, 'a', sizeof(h.clock_name)))		\
	X(clock_name_empty, -EINVAL, "clock_name is empty",		\
	  memset(h.clock_name, 0, sizeof(h.clock_name)))		\
	X(clock_name_dash, -EINVAL,					\
	  "clock_name is not an identifier [a-z_][a-z0-9_]*",		\
	  strcpy(h.clock_name, "mono-fast"))				\
	X(clock_name_injection, -EINVAL,				\
	  "clock_name is not an identifier [a-z_][a-z0-9_]*",		\
	  strcpy(h.clock_name, "a; }; trace {"))			\
	X(clock_name_digit_first, -EINVAL,				\
	  "clock_name is not an identifier [a-z_][a-z0-9_]*",		\
	  strcpy(h.clock_name, "1mono"))				\
	X(clock_name_keyword, -EINVAL, "clock_name is a TSDL keyword",	\
	  strcpy(h.clock_name, "clock"))				\
	X(kernel_release_unterminated, -EINVAL,				\
	  "kernel_release is not NUL-terminated",			\
	  memset(h.kernel_release, '6', sizeof(h.kernel_release)))	\
	X(nodename_unterminated, -EINVAL,				\
	  "nodename is not NUL-terminated",				\
	  memset(h.nodename, 'n', sizeof(h.nodename)))			\
	X(kernel_version_unterminated, -EINVAL,				\
	  "kernel_version is not NUL-terminated",			\
	  h.guest_features |= htole64(GR_F_GUEST_INFO);		\
	  memset(h.kernel_version, 'v', sizeof(h.kernel_version)))	\
	X(desc_count_0, -EINVAL, "desc_count is 0 (no event to describe)", \
	  h.desc_count = 0)						\
	X(hist_offset_unaligned, -EINVAL,				\
	  "hist_offset is not GR_PAGE_SIZE aligned",			\
	  set_hist(&h, &real, 0x10100, GR_HIST_MIN_SIZE))		\
	X(hist_size_unaligned, -EINVAL,					\
	  "hist_size is not a multiple of GR_PAGE_SIZE",		\
	  set_hist(&h, &real, 0xc000, GR_HIST_MIN_SIZE + 0x800))	\
	X(hist_size_small, -EINVAL, "hist_size is below GR_HIST_MIN_SIZE", \
	  set_hist(&h, &real, 0x10000, GR_HIST_MIN_SIZE - 0x1000))	\
	X(hist_before_data_end, -EINVAL,				\
	  "hist area starts before the end of the sub-buffer data",	\
	  set_hist(&h, &real, 0xb000, GR_HIST_MIN_SIZE))		\
	X(hist_beyond_region, -EINVAL, "hist area ends beyond the region", \
	  set_hist(&h, &real, 0x11000, GR_HIST_MIN_SIZE))		\
	X(hist_size_wraps, -EINVAL, "hist area ends beyond the region",	\
	  set_hist(&h, &real, 0x10000, 0xfffffffffffff000ULL))		\
	X(hist_overlaps_rings, -EINVAL,					\
	  "hist area overlaps the trace channel's layout",		\
	  set_hist(&h, &real, 0x10000, GR_HIST_MIN_SIZE);		\
	  h.ring_offset = htole64(0x1f000))				\
	X(hist_overlaps_client, -EINVAL,				\
	  "hist area overlaps the client area",				\
	  set_hist(&h, &real, 0x10000, GR_HIST_MIN_SIZE);		\
	  h.guest_features |= htole64(GR_F_CLIENT);			\
	  h.client_offset = htole64(0x1f000);				\
	  h.client_size = htole64(0x1000))				\
	X(hist_inside_client, -EINVAL, "hist area overlaps the client area", \
	  set_hist(&h, &real, 0x10000, GR_HIST_MIN_SIZE);		\
	  h.guest_features |= htole64(GR_F_CLIENT);			\
	  h.client_offset = htole64(0xc000);				\
	  h.client_size = htole64(0x14000))

#define HDR_REJECT_FN(name, err, msg, ...)				\
static void test_hdr_rejects_##name(void)				\
{									\
	struct gr_region_hdr h;						\
	struct gr_view v;						\
	uint64_t real = T_REGION;					\
	const char *why = NULL;						\
									\
	make_hdr(&h);							\
	__VA_ARGS__;							\
	expect(gr_check_region_hdr(&h, real, &v, &why), &why, err, msg);	\
}
HDR_REJECTS(HDR_REJECT_FN)

/* the geometry of a global ring: cpu count still bounded */
static void test_hdr_rejects_global_ring_with_no_cpus(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;

	make_global_hdr(&h, 0);
	expect(gr_check_region_hdr(&h, T_REGION, &v, &why), &why, -EINVAL,
	       "nr_cpus is 0");
}

/* --- reading the header out of a mapping --------------------------------- */

static void test_read_hdr_copies_published_header(void)
{
	uint8_t *region = aligned_alloc(GR_PAGE_SIZE, T_REGION);
	struct gr_region_hdr copy;

	CU_ASSERT_PTR_NOT_NULL_FATAL(region);
	memset(region, 0, T_REGION);
	make_hdr((struct gr_region_hdr *)region);
	CU_ASSERT_EQUAL(gr_read_region_hdr(region, T_REGION, &copy), 0);
	CU_ASSERT_EQUAL(memcmp(&copy, region, sizeof(copy)), 0);
	free(region);
}

static void test_read_hdr_unpublished_is_eagain(void)
{
	uint8_t *region = aligned_alloc(GR_PAGE_SIZE, T_REGION);
	struct gr_region_hdr copy;

	CU_ASSERT_PTR_NOT_NULL_FATAL(region);
	memset(region, 0, T_REGION);
	CU_ASSERT_EQUAL(gr_read_region_hdr(region, T_REGION, &copy), -EAGAIN);
	make_hdr((struct gr_region_hdr *)region);
	((struct gr_region_hdr *)region)->magic = htole64(GR_CTRL_MAGIC);
	CU_ASSERT_EQUAL(gr_read_region_hdr(region, T_REGION, &copy), -EAGAIN);
	free(region);
}

static void test_read_hdr_rejects_tiny_mapping(void)
{
	uint8_t *region = aligned_alloc(GR_PAGE_SIZE, GR_PAGE_SIZE);
	struct gr_region_hdr copy;

	CU_ASSERT_PTR_NOT_NULL_FATAL(region);
	make_hdr((struct gr_region_hdr *)region);
	CU_ASSERT_EQUAL(gr_read_region_hdr(region, 511, &copy), -EINVAL);
	free(region);
}

/* --- event descriptors --------------------------------------------------- */

static void test_desc_accepts_valid_events(void)
{
	struct gr_event_view ev[T_NDESC];

	make_event_views(ev);
	CU_ASSERT_STRING_EQUAL(ev[0].name, "sched_switch");
	CU_ASSERT_STRING_EQUAL(ev[0].system, "sched");
	CU_ASSERT_EQUAL(ev[0].id, 0);
	CU_ASSERT_EQUAL(ev[0].nr_fields, 7);
	CU_ASSERT_EQUAL(ev[0].payload_size, 56);
	CU_ASSERT_EQUAL(ev[0].min_record, 72);
	CU_ASSERT_EQUAL(ev[0].max_record, 72);
	CU_ASSERT_STRING_EQUAL(ev[0].fields[3].name, "prev_state");
	CU_ASSERT_EQUAL(ev[0].fields[3].offset, 24);
	CU_ASSERT_EQUAL(ev[0].fields[3].size, 8);
	CU_ASSERT_EQUAL(ev[0].fields[3].type, GR_FIELD_INTEGER);
	CU_ASSERT_EQUAL(ev[0].fields[3].flags, GR_FIELD_F_HEX);

	CU_ASSERT_STRING_EQUAL(ev[1].fields[0].name, "id");
	CU_ASSERT_STRING_EQUAL(ev[1].fields[1].name, "timestamp");
	CU_ASSERT_EQUAL(ev[1].min_record, 32);
	CU_ASSERT_EQUAL(ev[1].max_record, 32);

	CU_ASSERT_EQUAL(ev[2].flags, GR_EVENT_F_VARLEN);
	CU_ASSERT_EQUAL(ev[2].min_record, 32);	/* ALIGN(16 + 8 + 1, 8) */
	CU_ASSERT_EQUAL(ev[2].max_record, 224);	/* ALIGN(16 + 208, 8) */
}

static void test_desc_accepts_event_without_fields(void)
{
	struct gr_event_desc d[T_NDESC];
	struct gr_event_view ev;
	struct gr_view v;
	const char *why = NULL;

	make_view(&v);
	make_descs(d);
	d[1].nr_fields = 0;
	d[1].payload_size = 0;
	CU_ASSERT_EQUAL(gr_check_event_desc(&v, &d[1], 1, &ev, &why), 0);
	CU_ASSERT_EQUAL(ev.min_record, 16);
	CU_ASSERT_EQUAL(ev.max_record, 16);
}

static void test_desc_accepts_payload_filling_max_event_size(void)
{
	struct gr_event_desc d[T_NDESC];
	struct gr_event_view ev;
	struct gr_view v;
	const char *why = NULL;

	make_view(&v);
	make_descs(d);
	d[0].payload_size = htole16(T_MAX_EVENT - 16);
	CU_ASSERT_EQUAL(gr_check_event_desc(&v, &d[0], 0, &ev, &why), 0);
	CU_ASSERT_EQUAL(ev.max_record, T_MAX_EVENT);
}

static void test_desc_ignores_unused_field_slots(void)
{
	struct gr_event_desc d[T_NDESC];
	struct gr_event_view ev;
	struct gr_view v;
	const char *why = NULL;

	make_view(&v);
	make_descs(d);
	memset(&d[1].fields[2], 0xff,
	       sizeof(d[1].fields) - 2 * sizeof(d[1].fields[0]));
	CU_ASSERT_EQUAL(gr_check_event_desc(&v, &d[1], 1, &ev, &why), 0);
	CU_ASSERT_EQUAL(ev.fields[2].name[0], 0);
}

static void test_desc_ignores_reserved_bytes(void)
{
	struct gr_event_desc d[T_NDESC];
	struct gr_event_view ev;
	struct gr_view v;
	const char *why = NULL;
	unsigned int minor;

	for (minor = GR_ABI_MINOR; minor <= GR_ABI_MINOR + 1; minor++) {
		make_view(&v);
		v.abi_minor = minor;
		make_descs(d);
		d[0].reserved = htole64(1ULL << 63);
		d[0].fields[0].elem_size = 1;
		d[0].fields[2].len_field = 1;
		CU_ASSERT_EQUAL(gr_check_event_desc(&v, &d[0], 0, &ev, &why),
				0);
	}
}

/* spec 7.5: the writer prefixes field names with '_', nothing can clash */
static void test_desc_accepts_every_tsdl_keyword_as_field_name(void)
{
	const char *const *kw = gr_build_tsdl_keywords;
	struct gr_event_desc d[T_NDESC];
	struct gr_event_view ev;
	struct gr_view v;
	const char *why;
	unsigned int i;

	make_view(&v);
	for (i = 0; i < GR_BUILD_NR_TSDL_KEYWORDS; i++) {
		make_descs(d);
		gr_build_field(&d[1].fields[1], kw[i], 8, 8, GR_FIELD_INTEGER, 0);
		why = NULL;
		CU_ASSERT_EQUAL(gr_check_event_desc(&v, &d[1], 1, &ev, &why),
				0);
		CU_ASSERT_STRING_EQUAL(ev.fields[1].name, kw[i]);
		/* still one for the clock name, which is emitted bare */
		CU_ASSERT_TRUE(gr_is_tsdl_keyword(kw[i]));
	}
}

static void test_desc_accepts_names_that_are_not_keywords(void)
{
	static const char *const ok[] = {
		"id", "timestamp", "packet", "fields", "header", "context",
		"true", "false", "_x", "x_", "a0", "__", "uint32_t_val",
	};
	struct gr_event_desc d[T_NDESC];
	struct gr_event_view ev;
	struct gr_view v;
	const char *why = NULL;
	unsigned int i;

	make_view(&v);
	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		make_descs(d);
		strcpy(d[1].fields[0].name, "nr");
		gr_build_field(&d[1].fields[1], ok[i], 8, 8, GR_FIELD_INTEGER, 0);
		CU_ASSERT_EQUAL(gr_check_event_desc(&v, &d[1], 1, &ev, &why), 0);
		CU_ASSERT_STRING_EQUAL(ev.fields[1].name, ok[i]);
	}
}

static void test_desc_rejects_tsdl_injection_in_every_name(void)
{
	static const char *const evil[] = {
		"a;}", "x\" ", "a b", "a\n", "}", "a/*", "a.b", "a:b",
		"A", "sched_Switch", "\xc3\xa9t\xc3\xa9", "a\\", "0a", "a-b",
	};
	struct gr_event_desc d[T_NDESC];
	struct gr_event_view ev;
	struct gr_view v;
	const char *why;
	unsigned int i;

	make_view(&v);
	for (i = 0; i < ARRAY_SIZE(evil); i++) {
		CU_ASSERT_FALSE(gr_is_identifier(evil[i], 32));

		make_descs(d);
		strcpy(d[0].name, evil[i]);
		why = NULL;
		expect(gr_check_event_desc(&v, &d[0], 0, &ev, &why), &why,
		       -EINVAL,
		       "event name is not an identifier [a-z_][a-z0-9_]*");

		make_descs(d);
		strcpy(d[0].system, evil[i]);
		why = NULL;
		expect(gr_check_event_desc(&v, &d[0], 0, &ev, &why), &why,
		       -EINVAL,
		       "event system is not an identifier [a-z_][a-z0-9_]*");

		make_descs(d);
		strcpy(d[0].fields[2].name, evil[i]);
		why = NULL;
		expect(gr_check_event_desc(&v, &d[0], 0, &ev, &why), &why,
		       -EINVAL,
		       "field name is not an identifier [a-z_][a-z0-9_]*");
	}
}

static void test_desc_bytes_after_nul_do_not_matter(void)
{
	struct gr_event_desc d[T_NDESC];
	struct gr_event_view ev;
	struct gr_view v;
	const char *why = NULL;

	make_view(&v);
	make_descs(d);
	/* NUL-padding is expected, garbage after the NUL is ignored */
	d[0].name[sizeof(d[0].name) - 1] = '"';
	d[0].fields[0].name[sizeof(d[0].fields[0].name) - 1] = '}';
	CU_ASSERT_EQUAL(gr_check_event_desc(&v, &d[0], 0, &ev, &why), 0);
	CU_ASSERT_STRING_EQUAL(ev.name, "sched_switch");
	CU_ASSERT_EQUAL(ev.name[sizeof(ev.name) - 1], 0);
	CU_ASSERT_EQUAL(ev.fields[0].name[sizeof(ev.fields[0].name) - 1], 0);
}

/*
 * X(name, reason, mutation...): the mutation runs on valid descriptors
 * d[] and may change idx (the descriptor checked, 0 by default) or the
 * view v; the check must fail with -EINVAL and the reason.
 */
#define DESC_REJECTS(X)							\
	X(index_out_of_table, "descriptor index out of range",		\
	  idx = T_NDESC; d[idx % T_NDESC].id = htole16(T_NDESC))	\
	X(index_past_max_events, "descriptor index out of range",	\
	  v.desc_count = GR_MAX_EVENTS + 1; idx = GR_MAX_EVENTS)	\
	X(id_not_index, "descriptor id differs from its index",		\
	  d[0].id = htole16(1))						\
	X(id_high_byte, "descriptor id differs from its index",		\
	  d[0].id = htole16(0x100))					\
	X(name_unterminated, "event name is not NUL-terminated",	\
	  memset(d[0].name, 'a', sizeof(d[0].name)))			\
	X(name_empty, "event name is empty", d[0].name[0] = 0)		\
	X(name_bad_char, "event name is not an identifier [a-z_][a-z0-9_]*", \
	  d[0].name[5] = '-')						\
	X(system_unterminated, "event system is not NUL-terminated",	\
	  memset(d[0].system, 's', sizeof(d[0].system)))		\
	X(system_empty, "event system is empty", d[0].system[0] = 0)	\
	X(system_bad_char,						\
	  "event system is not an identifier [a-z_][a-z0-9_]*",		\
	  d[0].system[0] = '9')						\
	X(flags_unknown_bit, "unknown bits in event flags",		\
	  d[0].flags = htole16(1U << 1))				\
	X(flags_top_bit, "unknown bits in event flags",			\
	  d[0].flags = htole16(0x8000))					\
	X(payload_past_max_event_size,					\
	  "payload_size + 16 exceeds max_event_size",			\
	  d[0].payload_size = htole16(T_MAX_EVENT - 15))		\
	X(payload_max_u16, "payload_size + 16 exceeds max_event_size",	\
	  d[0].payload_size = htole16(UINT16_MAX))			\
	X(nr_fields_17, "nr_fields is above GR_MAX_FIELDS",		\
	  d[0].nr_fields = htole16(GR_MAX_FIELDS + 1))			\
	X(nr_fields_max_u16, "nr_fields is above GR_MAX_FIELDS",	\
	  d[0].nr_fields = htole16(UINT16_MAX))				\
	X(varlen_without_string,					\
	  "VARLEN event does not end with a string field",		\
	  d[0].flags = htole16(GR_EVENT_F_VARLEN))			\
	X(varlen_without_fields,					\
	  "VARLEN event does not end with a string field",		\
	  idx = 2; d[2].nr_fields = 0)					\
	X(field_name_unterminated, "field name is not NUL-terminated",	\
	  memset(d[0].fields[6].name, 'f', GR_FIELD_NAME_LEN))		\
	X(field_name_empty, "field name is empty",			\
	  d[0].fields[6].name[0] = 0)					\
	X(field_name_upper,						\
	  "field name is not an identifier [a-z_][a-z0-9_]*",		\
	  d[0].fields[6].name[0] = 'N')					\
	X(field_name_underscore_only,					\
	  "field name \"_\" is empty once its '_' is stripped",		\
	  strcpy(d[0].fields[6].name, "_"))				\
	X(field_name_duplicate, "duplicate field name",			\
	  strcpy(d[0].fields[6].name, "prev_prio"))			\
	X(field_name_duplicate_after_strip, "duplicate field name",	\
	  strcpy(d[0].fields[6].name, "_prev_prio"))			\
	X(integer_size_3, "integer field size is not 1, 2, 4 or 8",	\
	  d[0].fields[1].size = htole16(3))				\
	X(integer_size_0, "integer field size is not 1, 2, 4 or 8",	\
	  d[0].fields[1].size = 0)					\
	X(integer_size_16, "integer field size is not 1, 2, 4 or 8",	\
	  d[0].fields[3].size = htole16(16))				\
	X(integer_unknown_flag, "unknown bits in field flags",		\
	  d[0].fields[1].flags = 1U << 2)				\
	X(chars_size_0, "chars field has size 0",			\
	  d[0].fields[0].size = 0)					\
	X(chars_signed, "flags set on a non-integer field",		\
	  d[0].fields[0].flags = GR_FIELD_F_SIGNED)			\
	X(string_not_last, "string field is not the last field",	\
	  idx = 2; d[2].fields[0].type = GR_FIELD_STRING)		\
	X(string_without_varlen,					\
	  "string field in an event without VARLEN",			\
	  idx = 2; d[2].flags = 0)					\
	X(string_size_0, "string field has size 0",			\
	  idx = 2; d[2].fields[1].size = 0)				\
	X(string_flags, "flags set on a non-integer field",		\
	  idx = 2; d[2].fields[1].flags = GR_FIELD_F_HEX)		\
	X(type_0, "unknown field type", d[0].fields[2].type = 0)	\
	X(type_4, "sequence field without GR_F_DYNARR",		\
	  d[0].fields[2].type = 4)					\
	X(type_5, "array field without GR_F_ARRAYS",			\
	  d[0].fields[2].type = 5)					\
	X(type_6, "unknown field type", d[0].fields[2].type = 6)	\
	X(type_255, "unknown field type", d[0].fields[2].type = 255)	\
	X(field_past_payload, "field extends beyond payload_size",	\
	  d[0].fields[6].offset = htole16(53))				\
	X(field_offset_wraps_u16, "field extends beyond payload_size",	\
	  d[0].fields[6].offset = htole16(UINT16_MAX))			\
	X(chars_size_wraps_u16, "field extends beyond payload_size",	\
	  d[0].fields[4].size = htole16(UINT16_MAX))			\
	X(string_past_payload, "field extends beyond payload_size",	\
	  idx = 2; d[2].fields[1].size = htole16(201))			\
	X(field_name_gr_prefix,						\
	  "field name starts with _gr_ (reserved for the host's padding)", \
	  memcpy(d[0].fields[1].name, "_gr_pad4", 9))			\
	X(varlen_string_short_of_payload,				\
	  "VARLEN payload_size is not where the string ends",		\
	  idx = 2; d[2].fields[1].size = htole16(199))			\
	X(fields_overlap, "fields overlap",				\
	  d[0].fields[5].offset = htole16(50))				\
	X(fields_overlap_same_offset, "fields overlap",			\
	  d[0].fields[6].offset = htole16(48))				\
	X(fields_out_of_order_inside_chars,				\
	  "fields are not in increasing offset order",			\
	  d[0].fields[6].offset = htole16(36))

#define DESC_REJECT_FN(name, msg, ...)					\
static void test_desc_rejects_##name(void)				\
{									\
	struct gr_event_desc d[T_NDESC];				\
	struct gr_event_view ev;					\
	struct gr_view v;						\
	unsigned int idx = 0;						\
	const char *why = NULL;						\
									\
	make_view(&v);							\
	make_descs(d);							\
	__VA_ARGS__;							\
	expect(gr_check_event_desc(&v, &d[idx % T_NDESC], idx, &ev, &why), \
	       &why, -EINVAL, msg);					\
}
DESC_REJECTS(DESC_REJECT_FN)


/* --- descriptors added at run time (v1.7, GR_F_ANYEVENT, spec 18.3) ------ */

/* the test layout with GR_F_ANYEVENT and @capacity descriptor slots */
static void anyevent_hdr(struct gr_region_hdr *h, uint32_t capacity)
{
	make_hdr(h);
	h->guest_features |= htole64(GR_F_ANYEVENT);
	h->desc_capacity = htole32(capacity);
}

/* M1: the area holds every slot; without the bit the field is reserved */
static void test_anyevent_capacity_lays_out_the_slots(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;

	/* 7 slots of 576 bytes end at 0x2fc0, below the rings at 0x3000 */
	anyevent_hdr(&h, 7);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_EQUAL(v.desc_count, T_NDESC);
	CU_ASSERT_EQUAL(v.desc_table, T_NDESC);
	CU_ASSERT_EQUAL(v.desc_capacity, 7);
	anyevent_hdr(&h, T_NDESC);	/* no room for more */
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_EQUAL(v.desc_capacity, T_NDESC);
	/* a v1.6 guest: whatever the bytes hold, the table is desc_count */
	make_hdr(&h);
	h.desc_capacity = htole32(200);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_EQUAL(v.desc_capacity, T_NDESC);
	CU_ASSERT_EQUAL(v.desc_table, T_NDESC);
}

#define ANYEVENT_HDR_REJECTS(X)						\
	X(capacity_below_count, "desc_capacity is below desc_count",	\
	  T_NDESC - 1)							\
	X(capacity_0, "desc_capacity is below desc_count", 0)		\
	X(capacity_above_max, "desc_capacity is above GR_MAX_EVENTS",	\
	  GR_MAX_EVENTS + 1)						\
	X(capacity_huge, "desc_capacity is above GR_MAX_EVENTS",	\
	  UINT32_MAX)							\
	X(capacity_overlaps_rings, "descriptor table overlaps the rings", \
	  8)								\
	X(capacity_past_region, "descriptor table ends beyond the region", \
	  GR_MAX_EVENTS)

#define ANYEVENT_HDR_FN(name, msg, cap)					\
static void test_anyevent_hdr_rejects_##name(void)			\
{									\
	struct gr_region_hdr h;						\
	struct gr_view v;						\
	const char *why = NULL;						\
									\
	anyevent_hdr(&h, cap);						\
	expect(gr_check_region_hdr(&h, T_REGION, &v, &why), &why, -EINVAL, \
	       msg);							\
}
ANYEVENT_HDR_REJECTS(ANYEVENT_HDR_FN)

/* M1: with families, every family_base at or above desc_capacity */
static void test_anyevent_families_start_at_capacity(void)
{
	struct gr_event_desc d[T_NDESC];
	struct gr_event_view ev;
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;

	anyevent_hdr(&h, 7);
	h.guest_features |= htole64(GR_F_SYSCALLS);
	CU_ASSERT_EQUAL_FATAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	make_descs(d);
	d[1].family_count = htole16(451);
	d[1].family_base = htole16(7);
	CU_ASSERT_EQUAL(gr_check_event_desc(&v, &d[1], 1, &ev, &why), 0);
	d[1].family_base = htole16(6);
	expect(gr_check_event_desc(&v, &d[1], 1, &ev, &why), &why, -EINVAL,
	       "family_base is below desc_capacity");
	d[1].family_base = htole16(T_NDESC);
	expect(gr_check_event_desc(&v, &d[1], 1, &ev, &why), &why, -EINVAL,
	       "family_base is below desc_capacity");
}

/* --- the wide area (v1.13, GR_F_WIDE_EVENTS, spec 19.3 X1) --------------- */

/* desc_capacity 3, @capacity slots, the wide area at @off (0xc000: free) */
static void wide_hdr(struct gr_region_hdr *h, uint32_t capacity, uint64_t off)
{
	anyevent_hdr(h, T_NDESC);
	h->guest_features |= htole64(GR_F_WIDE_EVENTS);
	h->wide_capacity = htole32(capacity);
	h->wide_offset = htole64(off);
}

/* X1: the ids reach wide_capacity; without the bit the fields are reserved */
static void test_wide_capacity_and_area(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;

	wide_hdr(&h, 7, 0xc000);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_EQUAL(v.desc_table, T_NDESC);
	CU_ASSERT_EQUAL(v.desc_capacity, 7);
	CU_ASSERT_EQUAL(v.wide_capacity, 7);
	CU_ASSERT_EQUAL(v.wide_offset, 0xc000);
	/* a v1.12 guest: whatever the bytes hold, 1.12's capacity */
	wide_hdr(&h, 7, 0xc000);
	h.guest_features &= htole64(~GR_F_WIDE_EVENTS);
	h.wide_offset = htole64(1);
	h.wide_capacity = htole32(UINT32_MAX);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_EQUAL(v.desc_capacity, T_NDESC);
	CU_ASSERT_EQUAL(v.wide_capacity, 0);
	CU_ASSERT_EQUAL(v.wide_offset, 0);
}

#define WIDE_HDR_REJECTS(X)						\
	X(capacity_below_desc_capacity, "wide_capacity is below desc_capacity", \
	  T_NDESC - 1, 0xc000)						\
	X(capacity_above_max, "wide_capacity is above GR_WIDE_MAX_EVENTS", \
	  GR_WIDE_MAX_EVENTS + 1, 0xc000)				\
	X(capacity_huge, "wide_capacity is above GR_WIDE_MAX_EVENTS",	\
	  UINT32_MAX, 0xc000)						\
	X(capacity_overlaps_rings, "descriptor table overlaps the rings", \
	  8, 0xc000)							\
	X(offset_unaligned, "wide_offset is not GR_PAGE_SIZE aligned",	\
	  7, 0xc008)							\
	X(offset_0, "wide_offset is below GR_LAYOUT_START", 7, 0)	\
	X(offset_in_ctrl, "wide_offset is below GR_LAYOUT_START", 7, 0x1000) \
	X(overlaps_descs, "wide area overlaps another area of the layout", \
	  7, 0x2000)							\
	X(overlaps_rings, "wide area overlaps another area of the layout", \
	  7, 0x3000)							\
	X(overlaps_data, "wide area overlaps another area of the layout", \
	  7, 0xb000)							\
	X(past_region, "wide area ends beyond the region", 7, 0x10000)	\
	X(offset_wraps, "wide area ends beyond the region", 7,		\
	  0xfffffffffffff000ULL)

#define WIDE_HDR_FN(name, msg, cap, off)				\
static void test_wide_hdr_rejects_##name(void)				\
{									\
	struct gr_region_hdr h;						\
	struct gr_view v;						\
	const char *why = NULL;						\
									\
	wide_hdr(&h, cap, off);						\
	expect(gr_check_region_hdr(&h, T_REGION, &v, &why), &why, -EINVAL, \
	       msg);							\
}
WIDE_HDR_REJECTS(WIDE_HDR_FN)

/* X1: with families, every family_base at or above wide_capacity */
static void test_wide_families_start_at_capacity(void)
{
	struct gr_event_desc d[T_NDESC];
	struct gr_event_view ev;
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;

	wide_hdr(&h, 7, 0xc000);
	h.guest_features |= htole64(GR_F_SYSCALLS);
	CU_ASSERT_EQUAL_FATAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	make_descs(d);
	d[1].family_count = htole16(451);
	d[1].family_base = htole16(7);
	CU_ASSERT_EQUAL(gr_check_event_desc(&v, &d[1], 1, &ev, &why), 0);
	d[1].family_base = htole16(T_NDESC);	/* the header's desc_capacity */
	expect(gr_check_event_desc(&v, &d[1], 1, &ev, &why), &why, -EINVAL,
	       "family_base is below desc_capacity");
}

/*
 * A table of the fixture's three events in a layout of 7 slots, and
 * copies of four added ones: slot 3 "kfree", 4 "block_rq_issue", 5
 * "kfree2", 6 "kfree3"
 */
struct added {
	struct gr_view v;
	struct gr_event_view ev[T_NDESC];
	struct gr_event_desc add[4];
	struct gr_event_view out[4];
};

static void added_setup(struct added *a, uint64_t features)
{
	struct gr_event_desc d[T_NDESC];
	struct gr_field_desc *f;
	struct gr_region_hdr h;
	const char *why = NULL;
	unsigned int i;

	anyevent_hdr(&h, 7);
	h.guest_features |= htole64(features);
	CU_ASSERT_EQUAL_FATAL(gr_check_region_hdr(&h, T_REGION, &a->v, &why),
			      0);
	make_descs(d);
	for (i = 0; i < T_NDESC; i++)
		CU_ASSERT_EQUAL_FATAL(gr_check_event_desc(&a->v, &d[i], i,
							  &a->ev[i], &why), 0);
	CU_ASSERT_EQUAL_FATAL(gr_check_families(&a->v, a->ev, T_NDESC, &why),
			      0);
	memset(a->add, 0, sizeof(a->add));
	f = gr_build_event(&a->add[0], 3, "kfree", "kmem", 16, 0, 2);
	gr_build_field(&f[0], "call_site", 0, 8, GR_FIELD_INTEGER,
		       GR_FIELD_F_HEX);
	gr_build_field(&f[1], "ptr", 8, 8, GR_FIELD_INTEGER, GR_FIELD_F_HEX);
	f = gr_build_event(&a->add[1], 4, "block_rq_issue", "block", 40,
			   GR_EVENT_F_VARLEN, 2);
	gr_build_field(&f[0], "dev", 0, 4, GR_FIELD_INTEGER, 0);
	gr_build_field(&f[1], "cmd", 8, 32, GR_FIELD_STRING, 0);
	memcpy(&a->add[2], &a->add[0], sizeof(a->add[0]));
	a->add[2].id = htole16(5);
	memcpy(a->add[2].name, "kfree2", 7);
	memcpy(&a->add[3], &a->add[0], sizeof(a->add[0]));
	a->add[3].id = htole16(6);
	memcpy(a->add[3].name, "kfree3", 7);
}

static int added_check(struct added *a, unsigned int live, const char **why)
{
	struct gr_event_desc_long slots[ARRAY_SIZE(a->add)];
	unsigned int i;

	/* the host's copies are whole slots (v1.15): no extension here */
	memset(slots, 0, sizeof(slots));
	for (i = 0; i < ARRAY_SIZE(a->add); i++)
		slots[i].desc = a->add[i];
	return gr_check_added_descs(&a->v, a->ev, slots, live, a->out, why);
}

static void test_added_good_batch_is_accepted(void)
{
	struct added a;
	const char *why = NULL;

	added_setup(&a, 0);
	CU_ASSERT_EQUAL(added_check(&a, T_NDESC + 3, &why), 0);
	CU_ASSERT_STRING_EQUAL(a.out[0].name, "kfree");
	CU_ASSERT_EQUAL(a.out[0].id, 3);
	CU_ASSERT_EQUAL(a.out[0].max_record, 32);
	CU_ASSERT_STRING_EQUAL(a.out[1].system, "block");
	CU_ASSERT_EQUAL(a.out[1].min_record, 32);	/* ALIGN(16 + 8 + 1, 8) */
	CU_ASSERT_EQUAL(a.out[2].id, 5);
	/* one at a time, as a guest adds them: the same checks */
	CU_ASSERT_EQUAL(added_check(&a, T_NDESC + 1, &why), 0);
	/* up to the last slot */
	CU_ASSERT_EQUAL(added_check(&a, 7, &why), 0);
	CU_ASSERT_STRING_EQUAL(a.out[3].name, "kfree3");
}

/* a batch is refused whole, naming the first rule broken */
#define ADDED_REJECTS(X)						\
	X(duplicate_of_table, "two events have the same name",		\
	  memcpy(a.add[1].name, "console", 8))				\
	X(duplicate_in_batch, "two events have the same name",		\
	  memcpy(a.add[2].name, "kfree", 6))				\
	X(bad_field, "integer field size is not 1, 2, 4 or 8",		\
	  a.add[2].fields[1].size = htole16(3))				\
	X(bad_flags, "unknown bits in event flags",			\
	  a.add[0].flags = htole16(0x8))				\
	X(id_not_index, "descriptor id differs from its index",		\
	  a.add[1].id = htole16(3))					\
	X(varlen_without_string,					\
	  "VARLEN event does not end with a string field",		\
	  a.add[1].fields[1].type = GR_FIELD_CHARS)			\
	X(name_not_identifier,						\
	  "event name is not an identifier [a-z_][a-z0-9_]*",		\
	  a.add[2].name[0] = 'K')

#define ADDED_REJECT_FN(name, msg, ...)					\
static void test_added_rejects_##name(void)				\
{									\
	struct added a;							\
	const char *why = NULL;						\
									\
	added_setup(&a, 0);						\
	__VA_ARGS__;							\
	expect(added_check(&a, T_NDESC + 3, &why), &why, -EINVAL, msg);	\
}
ADDED_REJECTS(ADDED_REJECT_FN)

/* desc_live out of range: above desc_capacity, not above the count */
static void test_added_rejects_desc_live_out_of_range(void)
{
	struct added a;
	const char *why = NULL;

	added_setup(&a, 0);
	expect(added_check(&a, 8, &why), &why, -ERANGE,
	       "desc_live outside (adopted, desc_capacity]");
	expect(added_check(&a, T_NDESC, &why), &why, -ERANGE,
	       "desc_live outside (adopted, desc_capacity]");
	/* going backwards: below what the host adopted */
	a.v.desc_count = T_NDESC + 2;
	expect(added_check(&a, T_NDESC + 1, &why), &why, -ERANGE,
	       "desc_live outside (adopted, desc_capacity]");
	/* a layout without room for more */
	a.v.desc_count = T_NDESC;
	a.v.desc_capacity = T_NDESC;
	expect(added_check(&a, T_NDESC + 1, &why), &why, -ERANGE,
	       "desc_live outside (adopted, desc_capacity]");
}

/* families are the table's; member names stay free while one exists */
static void test_added_rejects_families_and_member_names(void)
{
	struct gr_event_desc d[T_NDESC];
	struct added a;
	const char *why = NULL;

	added_setup(&a, GR_F_SYSCALLS);
	memcpy(a.add[0].name, "sys_exit", 9);
	memcpy(a.add[0].system, "raw_syscalls", 13);
	a.add[0].family_base = htole16(7);
	a.add[0].family_count = htole16(10);
	expect(added_check(&a, T_NDESC + 1, &why), &why, -EINVAL,
	       "a family on a descriptor added at run time");
	/* the table with a family on sys_enter: no syscall_exit_* added */
	make_descs(d);
	d[1].family_base = htole16(7);
	d[1].family_count = htole16(451);
	CU_ASSERT_EQUAL_FATAL(gr_check_event_desc(&a.v, &d[1], 1, &a.ev[1],
						  &why), 0);
	CU_ASSERT_EQUAL_FATAL(gr_check_families(&a.v, a.ev, T_NDESC, &why),
			      0);
	a.add[0].family_base = 0;
	a.add[0].family_count = 0;
	CU_ASSERT_EQUAL(added_check(&a, T_NDESC + 1, &why), 0);
	memcpy(a.add[0].name, "syscall_exit_read", 18);
	expect(added_check(&a, T_NDESC + 1, &why), &why, -EINVAL,
	       "an event is named like a family member");
}

/* the slots above the table are descriptors too: index < desc_capacity */
static void test_added_index_bound_is_capacity(void)
{
	struct added a;
	struct gr_event_view ev;
	const char *why = NULL;

	added_setup(&a, 0);
	CU_ASSERT_EQUAL(gr_check_event_desc(&a.v, &a.add[3], 6, &ev, &why), 0);
	a.add[3].id = htole16(7);
	expect(gr_check_event_desc(&a.v, &a.add[3], 7, &ev, &why), &why,
	       -EINVAL, "descriptor index out of range");
}

/* --- registration -------------------------------------------------------- */

#define REG_HDR(name, ...)	GR_TEST_NAMED("hdr rejects " #name, test_hdr_rejects_##name),
#define REG_DESC(name, ...)	GR_TEST_NAMED("desc rejects " #name, test_desc_rejects_##name),

static const struct gr_test hdr_tests[] = {
	GR_TEST_NAMED("hdr accepts a valid layout", test_hdr_accepts_valid_layout),
	GR_TEST_NAMED("hdr view offsets match the ABI formula",
	  test_hdr_view_offsets_match_abi_formula),
	GR_TEST_NAMED("hdr accepts a global ring with many cpus",
	  test_hdr_accepts_global_ring_with_many_cpus),
	GR_TEST_NAMED("hdr accepts the largest record with big sub-buffers",
	  test_hdr_accepts_largest_record_with_big_subbufs),
	GR_TEST_NAMED("hdr accepts max_event_size filling the sub-buffer",
	  test_hdr_accepts_max_event_size_filling_the_subbuf),
	GR_TEST_NAMED("hdr keeps unknown guest features",
	  test_hdr_keeps_unknown_guest_features),
	GR_TEST_NAMED("hdr sanitizes kernel_release and nodename",
	  test_hdr_sanitizes_release_and_nodename),
	GR_TEST_NAMED("hdr: guest info only with its feature bit (v1.2)",
		      test_hdr_guest_info_only_with_its_feature_bit),
	GR_TEST_NAMED("hdr ignores reserved bytes (spec 2.4)",
	  test_hdr_ignores_reserved_bytes),
	GR_TEST_NAMED("hdr reject leaves the view untouched",
	  test_hdr_reject_leaves_view_untouched),
	GR_TEST_NAMED("hdr rejects a global ring with no cpus",
	  test_hdr_rejects_global_ring_with_no_cpus),
	GR_TEST_NAMED("hdr: the hist area only with its feature bit (v1.5)",
		      test_hdr_hist_area),
	HDR_REJECTS(REG_HDR)
	GR_TEST_NAMED("read_hdr copies a published header",
	  test_read_hdr_copies_published_header),
	GR_TEST_NAMED("read_hdr of an unpublished header is EAGAIN",
	  test_read_hdr_unpublished_is_eagain),
	GR_TEST_NAMED("read_hdr rejects a tiny mapping", test_read_hdr_rejects_tiny_mapping),
};

static const struct gr_test desc_tests[] = {
	GR_TEST_NAMED("desc accepts valid events", test_desc_accepts_valid_events),
	GR_TEST_NAMED("desc accepts an event without fields",
	  test_desc_accepts_event_without_fields),
	GR_TEST_NAMED("desc accepts a payload filling max_event_size",
	  test_desc_accepts_payload_filling_max_event_size),
	GR_TEST_NAMED("desc ignores unused field slots",
	  test_desc_ignores_unused_field_slots),
	GR_TEST_NAMED("desc ignores reserved bytes (spec 2.4)",
	  test_desc_ignores_reserved_bytes),
	GR_TEST_NAMED("desc accepts every TSDL keyword as a field name",
	  test_desc_accepts_every_tsdl_keyword_as_field_name),
	GR_TEST_NAMED("desc accepts names that are not keywords",
	  test_desc_accepts_names_that_are_not_keywords),
	GR_TEST_NAMED("desc rejects TSDL injection in every name",
	  test_desc_rejects_tsdl_injection_in_every_name),
	GR_TEST_NAMED("desc bytes after the NUL do not matter",
	  test_desc_bytes_after_nul_do_not_matter),
	DESC_REJECTS(REG_DESC)
};

#define REG_ANYEVENT_HDR(name, ...)	GR_TEST_NAMED("anyevent hdr rejects " #name, test_anyevent_hdr_rejects_##name),
#define REG_WIDE_HDR(name, ...)	GR_TEST_NAMED("wide hdr rejects " #name, test_wide_hdr_rejects_##name),
#define REG_ADDED(name, ...)	GR_TEST_NAMED("added batch rejects " #name, test_added_rejects_##name),

static const struct gr_test anyevent_tests[] = {
	GR_TEST_NAMED("anyevent: desc_capacity lays out the slots (M1)",
		      test_anyevent_capacity_lays_out_the_slots),
	ANYEVENT_HDR_REJECTS(REG_ANYEVENT_HDR)
	GR_TEST_NAMED("anyevent: families start at desc_capacity (M1)",
		      test_anyevent_families_start_at_capacity),
	GR_TEST_NAMED("added: a good batch is accepted (M2)",
		      test_added_good_batch_is_accepted),
	ADDED_REJECTS(REG_ADDED)
	GR_TEST_NAMED("added: desc_live out of range or backwards",
		      test_added_rejects_desc_live_out_of_range),
	GR_TEST_NAMED("added: no family, no member name",
		      test_added_rejects_families_and_member_names),
	GR_TEST_NAMED("added: the index bound is desc_capacity",
		      test_added_index_bound_is_capacity),
	GR_TEST_NAMED("wide: capacity and area (X1)",
		      test_wide_capacity_and_area),
	WIDE_HDR_REJECTS(REG_WIDE_HDR)
	GR_TEST_NAMED("wide: families start at wide_capacity (X1)",
		      test_wide_families_start_at_capacity),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("region header", hdr_tests, NULL, NULL),
	GR_SUITE("event descriptors", desc_tests, NULL, NULL),
	GR_SUITE("events added at run time (v1.7)", anyevent_tests, NULL,
		 NULL),
};

int main(void)
{
	return gr_test_run(suites, ARRAY_SIZE(suites));
}
