// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the region's geometry and layout (gr_layout.c) and the checks
 * gr_chan_open() makes of a layout, built in
 * userspace through tests/shim/gr_user_env.h. Every test uses the real
 * core over a real mmap'd region framed by guard bytes
 * (relay_fixture.c); the test itself plays the host (reads produced and
 * commit records, writes consumed and prod_event) and, with threads, the
 * CPUs.
 */
#include "relay_fixture.h"

/* ---------------------------------------------------------------------- */
/* Layout                                                                 */

static void test_layout_default_fits_largest_n(void)
{
	struct gr_geometry geo = {
		.region_size = 4U << 20, .nr_cpus = 2, .desc_count = 16,
	};
	struct gr_layout lay;

	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.nr_rings, 2);
	CU_ASSERT_EQUAL(lay.nr_cpus, 2);
	CU_ASSERT_EQUAL(lay.flags, 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, GR_DEFAULT_SUBBUF_SIZE);
	CU_ASSERT_EQUAL(lay.desc_offset, GR_LAYOUT_START);
	CU_ASSERT_EQUAL(lay.desc_stride, 576);
	CU_ASSERT_EQUAL(lay.desc_count, 16);
	/* 0x2000 + 16 * 576 = 0x4400, page aligned */
	CU_ASSERT_EQUAL(lay.ring_offset, 0x5000);
	CU_ASSERT_EQUAL(lay.subbuf_rec_offset, 0x5100);
	/* (4 MiB - 0x5100) / (2 * (64 KiB + 16)) = 31.8 */
	CU_ASSERT_EQUAL(lay.n_subbufs, 31);
	CU_ASSERT_EQUAL(lay.data_offset, 0x6000);
	CU_ASSERT_EQUAL(lay.packet_header_size, 72);
	CU_ASSERT_EQUAL(lay.max_event_size, 65536 - 72);
	CU_ASSERT(lay.data_offset + 2ULL * 31 * 65536 <= lay.region_size);
	/* one more per ring would not fit */
	CU_ASSERT(lay.data_offset + 2ULL * 32 * 65536 > lay.region_size);
}

static void test_layout_halves_subbuf_size_until_two_fit(void)
{
	struct gr_geometry geo = { .region_size = 64 << 10, .nr_cpus = 2 };
	struct gr_layout lay;

	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	/* 64K, 32K: no sub-buffer fits; 16K: one; 8K: three */
	CU_ASSERT_EQUAL(lay.subbuf_size, 8192);
	CU_ASSERT_EQUAL(lay.n_subbufs, 3);
	CU_ASSERT_EQUAL(lay.ring_offset, 0x2000);
	CU_ASSERT_EQUAL(lay.subbuf_rec_offset, 0x2100);
	CU_ASSERT_EQUAL(lay.data_offset, 0x3000);
	CU_ASSERT_EQUAL(lay.max_event_size, 8192 - 72);
	CU_ASSERT(lay.data_offset + 2ULL * 3 * 8192 <= lay.region_size);
}

/* Spec 18.2 N1: the slots for events by name, when they fit */
static void test_layout_desc_capacity(void)
{
	struct gr_geometry geo = {
		.region_size = 4U << 20, .nr_cpus = 2, .desc_count = 28,
		.desc_capacity = 60,
	};
	struct gr_region_hdr hdr = { 0 };
	struct gr_layout lay;

	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.desc_count, 28);
	CU_ASSERT_EQUAL(lay.desc_capacity, 60);
	/* 0x2000 + 60 * 576 = 0xa700, page aligned */
	CU_ASSERT_EQUAL(lay.ring_offset, 0xb000);
	gr_layout_write_hdr(&hdr, &lay);
	CU_ASSERT_EQUAL(le32_to_cpu(hdr.desc_count), 28);
	CU_ASSERT_EQUAL(le32_to_cpu(hdr.desc_capacity), 60);

	/* none asked: the slots of desc_count, the header field 0 */
	geo.desc_capacity = 0;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.desc_capacity, 0);
	/* 0x2000 + 28 * 576 = 0x5f00 */
	CU_ASSERT_EQUAL(lay.ring_offset, 0x6000);
	gr_layout_write_hdr(&hdr, &lay);
	CU_ASSERT_EQUAL(le32_to_cpu(hdr.desc_capacity), 0);

	/* 64 KiB, 3 CPUs: 60 slots leave no two 4 KiB sub-buffers a ring */
	geo.region_size = 64 << 10;
	geo.nr_cpus = 3;
	geo.desc_capacity = 60;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.desc_capacity, 28);
	CU_ASSERT_EQUAL(lay.ring_offset, 0x6000);

	/* below desc_count or above GR_MAX_EVENTS: no such geometry */
	geo.desc_capacity = 27;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo.desc_capacity = GR_MAX_EVENTS + 1;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
}

/* @geo on @region_size bytes and @nr_cpus: the 1.12 layout, @capacity */
static void expect_no_wide(struct gr_geometry *geo, u64 region_size,
			   u32 nr_cpus, u32 capacity)
{
	struct gr_layout lay;

	geo->region_size = region_size;
	geo->nr_cpus = nr_cpus;
	CU_ASSERT_FATAL(gr_layout_compute(geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.wide_capacity, 0);
	CU_ASSERT_EQUAL(lay.wide_offset, 0);
	CU_ASSERT_EQUAL(lay.desc_capacity, capacity);
	/* 0x2000 + capacity * 576, page aligned */
	CU_ASSERT_EQUAL(lay.ring_offset, (0x2000 + capacity * 576 + 4095) &
					 ~4095ULL);
}

/* Spec 19.2 W1: the wide area and its slots, from what the region holds */
static void test_layout_wide_capacity(void)
{
	struct gr_geometry geo = {
		.region_size = 16U << 20, .nr_cpus = 2, .desc_count = 31,
		.desc_capacity = GR_MAX_EVENTS,
		.wide_capacity = GR_WIDE_MAX_EVENTS,
	};
	struct gr_region_hdr hdr = { 0 };
	struct gr_layout lay;

	/*
	 * 16 MiB: every slot, of GR_LONG_DESC_STRIDE bytes (v1.15, spec
	 * 20.2 L1: 1024 of them fit an eighth); 0x2000 + 1024 * 1352 =
	 * 0x154000
	 */
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.desc_capacity, GR_MAX_EVENTS);
	CU_ASSERT_EQUAL(lay.wide_capacity, 1024);
	CU_ASSERT_EQUAL(lay.desc_stride, GR_LONG_DESC_STRIDE);
	CU_ASSERT_EQUAL(lay.wide_offset, 0x154000);
	CU_ASSERT_EQUAL(lay.ring_offset, 0x155000);
	CU_ASSERT_EQUAL(gr_layout_check(&lay), 0);
	gr_layout_write_hdr(&hdr, &lay);
	CU_ASSERT_EQUAL(le32_to_cpu(hdr.desc_capacity), GR_MAX_EVENTS);
	CU_ASSERT_EQUAL(le32_to_cpu(hdr.wide_capacity), 1024);
	CU_ASSERT_EQUAL(le32_to_cpu(hdr.desc_stride), GR_LONG_DESC_STRIDE);
	CU_ASSERT_EQUAL(le64_to_cpu(hdr.wide_offset), 0x154000);

	/* 8 MiB: 1024 slots of 1352 would take more than an eighth: 576 */
	geo.region_size = 8U << 20;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.wide_capacity, 1024);
	CU_ASSERT_EQUAL(lay.desc_stride, sizeof(struct gr_event_desc));
	CU_ASSERT_EQUAL(lay.wide_offset, 0x92000);

	/* 4 MiB, 2 MiB: an eighth of the region; 0x2000 + 910 * 576 */
	geo.region_size = 4U << 20;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.wide_capacity, 910);
	CU_ASSERT_EQUAL(lay.desc_stride, sizeof(struct gr_event_desc));
	CU_ASSERT_EQUAL(lay.wide_offset, 0x82000);
	CU_ASSERT_EQUAL(lay.ring_offset, 0x83000);
	geo.region_size = 2U << 20;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.wide_capacity, 455);
	CU_ASSERT_EQUAL(gr_layout_wide_slots(2U << 20, 1024), 455);

	/* 1 MiB: 227 slots are not more than 256, the 1.12 layout */
	expect_no_wide(&geo, 1U << 20, 2, GR_MAX_EVENTS);
	/* 2 MiB, 230 rings of 2 x 4 KiB: 455 slots do not fit, 256 do */
	expect_no_wide(&geo, 2U << 20, 230, GR_MAX_EVENTS);
	/* 64 KiB: no wide area, and no slot beyond the table */
	expect_no_wide(&geo, 64U << 10, 1, 31);

	/* no such geometry */
	geo.region_size = 16U << 20;
	geo.wide_capacity = GR_WIDE_MAX_EVENTS + 1;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo.wide_capacity = GR_MAX_EVENTS - 1;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo.wide_capacity = GR_WIDE_MAX_EVENTS;
	geo.desc_capacity = 0;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
}

static void test_layout_enospc_when_two_subbufs_cannot_fit(void)
{
	struct gr_geometry geo = { .region_size = 64 << 10, .nr_cpus = 8 };
	struct gr_layout lay;

	memset(&lay, 0x5a, sizeof(lay));
	/* 8 rings of 2 * 4 KiB need more than 64 KiB - 9 KiB */
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -ENOSPC);
	/* descriptors alone overflow the region */
	geo.nr_cpus = 1;
	geo.desc_count = GR_MAX_EVENTS;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -ENOSPC);
	/* the output is untouched on error */
	CU_ASSERT_EQUAL(lay.nr_rings, 0x5a5a5a5a);
}

static void test_layout_global_buffer_has_one_ring(void)
{
	struct gr_geometry geo = {
		.region_size = 64 << 10, .nr_cpus = 64, .global = true,
	};
	struct gr_layout lay;

	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), 0);
	CU_ASSERT_EQUAL(lay.nr_rings, 1);
	CU_ASSERT_EQUAL(lay.nr_cpus, 64);
	CU_ASSERT_EQUAL(lay.flags, GR_HDR_GLOBAL);
	CU_ASSERT(lay.n_subbufs >= 2);
	/* the same CPUs with per-CPU rings do not fit */
	geo.global = false;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -ENOSPC);
	/* more CPUs than GR_MAX_RINGS: only the global ring is possible */
	geo.nr_cpus = GR_MAX_RINGS + 1;
	geo.region_size = 1ULL << 30;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo.global = true;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), 0);
}

static void test_layout_host_wish_honoured(void)
{
	struct gr_geometry geo = {
		.region_size = 4U << 20, .nr_cpus = 2,
		.subbuf_size = 16384, .n_subbufs = 8,
	};
	struct gr_layout lay;

	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, 16384);
	CU_ASSERT_EQUAL(lay.n_subbufs, 8);
	CU_ASSERT_EQUAL(lay.max_event_size, 16384 - 72);
	/* the module's default size is overridden by a valid wish */
	geo.default_subbuf_size = 8192;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, 16384);
	/* big sub-buffers: max_event_size is bounded by the u16 size */
	geo.subbuf_size = 1U << 20;
	geo.n_subbufs = 2;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.max_event_size, GR_MAX_RECORD_SIZE);
}

static void test_layout_host_wish_rejected(void)
{
	struct gr_geometry geo = {
		.region_size = 4U << 20, .nr_cpus = 2,
		.subbuf_size = 3000, .n_subbufs = 8,
	};
	struct gr_layout lay;

	/* not a power of two: the module's size */
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, GR_DEFAULT_SUBBUF_SIZE);
	CU_ASSERT_EQUAL(lay.n_subbufs, 8);
	geo.default_subbuf_size = 8192;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, 8192);
	/* too small, too big */
	geo.subbuf_size = 2048;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, 8192);
	geo.subbuf_size = 32U << 20;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, 8192);
	/* n: one, too many for the ABI, too many for the region */
	geo.subbuf_size = 65536;
	geo.n_subbufs = 1;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.n_subbufs, 31);
	geo.n_subbufs = GR_MAX_SUBBUFS + 1;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.n_subbufs, 31);
	geo.n_subbufs = 1000;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.n_subbufs, 31);
	/* a huge region caps n at GR_MAX_SUBBUFS */
	geo.region_size = 1ULL << 30;
	geo.subbuf_size = 4096;
	geo.n_subbufs = 0;
	geo.nr_cpus = 1;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.n_subbufs, GR_MAX_SUBBUFS);
}

static void test_layout_rejects_impossible_input(void)
{
	struct gr_geometry good = { .region_size = 1 << 20, .nr_cpus = 2 };
	struct gr_geometry geo;
	struct gr_layout lay;

	geo = good;
	geo.region_size = 3 << 20;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo.region_size = 32 << 10;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo.region_size = 1ULL << 41;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo = good;
	geo.nr_cpus = 0;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo = good;
	geo.desc_count = GR_MAX_EVENTS + 1;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo = good;
	geo.default_subbuf_size = 5000;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo = good;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), 0);
}

static void test_layout_written_to_header(void)
{
	struct gr_geometry geo = {
		.region_size = 4U << 20, .nr_cpus = 2, .desc_count = 16,
		.global = true,
	};
	struct gr_region_hdr hdr;
	struct gr_layout lay;

	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	memset(&hdr, 0xee, sizeof(hdr));
	gr_layout_write_hdr(&hdr, &lay);
	CU_ASSERT_EQUAL(le16toh(hdr.abi_major), GR_ABI_MAJOR);
	CU_ASSERT_EQUAL(le16toh(hdr.abi_minor), GR_ABI_MINOR);
	CU_ASSERT_EQUAL(le32toh(hdr.hdr_size), 512);
	CU_ASSERT_EQUAL(le64toh(hdr.region_size), 4U << 20);
	CU_ASSERT_EQUAL(le32toh(hdr.nr_rings), 1);
	CU_ASSERT_EQUAL(le32toh(hdr.nr_cpus), 2);
	CU_ASSERT_EQUAL(le32toh(hdr.flags), GR_HDR_GLOBAL);
	CU_ASSERT_EQUAL(le32toh(hdr.subbuf_size), lay.subbuf_size);
	CU_ASSERT_EQUAL(le32toh(hdr.n_subbufs), lay.n_subbufs);
	CU_ASSERT_EQUAL(le64toh(hdr.desc_offset), lay.desc_offset);
	CU_ASSERT_EQUAL(le32toh(hdr.desc_count), 16);
	CU_ASSERT_EQUAL(le32toh(hdr.desc_stride), 576);
	CU_ASSERT_EQUAL(le64toh(hdr.ring_offset), lay.ring_offset);
	CU_ASSERT_EQUAL(le64toh(hdr.subbuf_rec_offset), lay.subbuf_rec_offset);
	CU_ASSERT_EQUAL(le64toh(hdr.data_offset), lay.data_offset);
	CU_ASSERT_EQUAL(le32toh(hdr.packet_header_size), 72);
	CU_ASSERT_EQUAL(le32toh(hdr.max_event_size), lay.max_event_size);
	/* magic, features, instance, clock and identity are the caller's */
	CU_ASSERT_EQUAL(hdr.magic, 0xeeeeeeeeeeeeeeeeULL);
	CU_ASSERT_EQUAL(hdr.guest_features, 0xeeeeeeeeeeeeeeeeULL);
	CU_ASSERT_EQUAL(hdr.instance_id, 0xeeeeeeeeeeeeeeeeULL);
	CU_ASSERT_EQUAL(hdr.clock_freq, 0xeeeeeeeeeeeeeeeeULL);
	CU_ASSERT_EQUAL((u8)hdr.clock_name[0], 0xee);
	CU_ASSERT_EQUAL((u8)hdr.nodename[0], 0xee);
	CU_ASSERT_EQUAL(hdr.boot_id[0], 0xee);
}

static void test_open_rejects_inconsistent_layout(void)
{
	struct test_region r;
	struct gr_layout lay, bad;
	struct gr_chan *chan = NULL;

	region_open(&r, REGION_SIZE);
	make_layout(&lay, 2, false, 4096, 4);
	bad = lay;
	bad.n_subbufs = 1;
	CU_ASSERT_EQUAL(gr_chan_open(&chan, r.base, &bad, NULL, NULL), -EINVAL);
	bad = lay;
	bad.data_offset = REGION_SIZE - 4096;
	CU_ASSERT_EQUAL(gr_chan_open(&chan, r.base, &bad, NULL, NULL), -EINVAL);
	bad = lay;
	bad.max_event_size = 4096;
	CU_ASSERT_EQUAL(gr_chan_open(&chan, r.base, &bad, NULL, NULL), -EINVAL);
	/* less than spec 4.2's value: writers skip the check of small payloads */
	bad = lay;
	bad.max_event_size = 64;
	CU_ASSERT_EQUAL(gr_chan_open(&chan, r.base, &bad, NULL, NULL), -EINVAL);
	bad = lay;
	bad.nr_rings = 1;
	CU_ASSERT_EQUAL(gr_chan_open(&chan, r.base, &bad, NULL, NULL), -EINVAL);
	CU_ASSERT_PTR_NULL(chan);
	CU_ASSERT_EQUAL(gr_chan_open(&chan, r.base, &lay, NULL, NULL), 0);
	CU_ASSERT_EQUAL(gr_chan_set_mode(chan, 7), -EINVAL);
	CU_ASSERT_EQUAL(gr_chan_set_online(chan, 2, false), -EINVAL);
	CU_ASSERT_EQUAL(gr_subbufs_consumed(chan, 2), -EINVAL);
	CU_ASSERT_EQUAL(gr_chan_consumed_errors(chan), 0);
	gr_chan_close(chan);
	region_close(&r);
}

/*
 * Spec 17.1: the hist area is page aligned right below the client area
 * (or at the end of the region), the trace channel below it, and the
 * header says where; a size the geometry cannot take is refused.
 */
static void test_layout_hist_below_client(void)
{
	struct gr_geometry geo = {
		.region_size = 4U << 20, .nr_cpus = 2, .desc_count = 16,
		.client_size = 512 << 10, .hist_size = 256 << 10,
	};
	struct gr_region_hdr hdr;
	struct gr_layout lay;

	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.client_offset, (4U << 20) - (512 << 10));
	CU_ASSERT_EQUAL(lay.hist_offset, (4U << 20) - (768 << 10));
	CU_ASSERT_EQUAL(lay.hist_size, 256 << 10);
	CU_ASSERT_EQUAL(lay.hist_offset % GR_PAGE_SIZE, 0);
	CU_ASSERT(gr_layout_end(&lay) <= lay.hist_offset);
	CU_ASSERT_EQUAL(lay.region_size, 4U << 20);
	CU_ASSERT_EQUAL(gr_layout_check(&lay), 0);
	memset(&hdr, 0xff, sizeof(hdr));
	gr_layout_write_hdr(&hdr, &lay);
	CU_ASSERT_EQUAL(le64toh(hdr.hist_offset), lay.hist_offset);
	CU_ASSERT_EQUAL(le64toh(hdr.hist_size), 256 << 10);

	/* no client area: the hist area ends the region */
	geo.client_size = 0;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.hist_offset, (4U << 20) - (256 << 10));
	CU_ASSERT_EQUAL(lay.client_offset, 0);
	CU_ASSERT(gr_layout_end(&lay) <= lay.hist_offset);

	/* none: both 0 in the header */
	geo.hist_size = 0;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.hist_offset, 0);
	CU_ASSERT_EQUAL(lay.hist_size, 0);
	gr_layout_write_hdr(&hdr, &lay);
	CU_ASSERT_EQUAL(hdr.hist_offset, 0);
	CU_ASSERT_EQUAL(hdr.hist_size, 0);

	/* not a page multiple, below 64 KiB, above an eighth: refused */
	geo.hist_size = (64 << 10) + 100;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo.hist_size = 60 << 10;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo.hist_size = (512 << 10) + 4096;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo.hist_size = 512 << 10;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), 0);
}

/* ---------------------------------------------------------------------- */

static const struct gr_test tests[] = {
	GR_TEST(test_layout_default_fits_largest_n),
	GR_TEST(test_layout_halves_subbuf_size_until_two_fit),
	GR_TEST(test_layout_desc_capacity),
	GR_TEST(test_layout_wide_capacity),
	GR_TEST(test_layout_enospc_when_two_subbufs_cannot_fit),
	GR_TEST(test_layout_global_buffer_has_one_ring),
	GR_TEST(test_layout_host_wish_honoured),
	GR_TEST(test_layout_host_wish_rejected),
	GR_TEST(test_layout_rejects_impossible_input),
	GR_TEST(test_layout_written_to_header),
	GR_TEST(test_open_rejects_inconsistent_layout),
	GR_TEST(test_layout_hist_below_client),
};

int main(void)
{
	/* a test that loops forever is a failure, not a hang */
	alarm(600);
	return gr_test_main("relay_layout", tests, GR_ARRAY_SIZE(tests), NULL, NULL);
}
