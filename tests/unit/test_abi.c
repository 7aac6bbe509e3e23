// SPDX-License-Identifier: GPL-2.0
/*
 * test_abi.c - pins the layout of spec/guestrelay_abi.h
 *
 * Every shared structure's size and the offset and size of each of its
 * fields, every constant, and gr_need_event()'s truth table are written
 * out here a second time, by hand. A change to the ABI header that moves
 * a byte fails this test: such a change breaks existing guests and hosts,
 * and must be a deliberate new ABI version, not an accident.
 *
 * The header must also compile as strict C99 and C11 (other consumers'
 * toolchains), which this test checks by running the C compiler ($CC, or
 * cc) on a small program; the header is found through $GR_SPEC_DIR, the
 * GR_SPEC_DIR macro, or by walking up from the current directory and from
 * this executable's directory to a folder holding spec/guestrelay_abi.h.
 */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gr_test.h"

#include "guestrelay_abi.h"


/*
 * PIN(type, member, offset, size): the member lies at @offset and is @size
 * bytes, and starts where the previous PIN of the same structure ended, so
 * a table of PINs that ends at sizeof(type) (END_PINS) accounts for every
 * byte: no hidden padding, no forgotten field.
 */
#define BEGIN_PINS()	size_t next_off = 0
#define PIN(type, member, off, sz) do {					\
	CU_ASSERT_EQUAL(offsetof(type, member), off);			\
	CU_ASSERT_EQUAL(sizeof(((type *)0)->member), sz);		\
	CU_ASSERT_EQUAL(next_off, off);					\
	next_off = (size_t)(off) + (sz);				\
} while (0)
#define END_PINS(type, total) do {					\
	CU_ASSERT_EQUAL(sizeof(type), total);				\
	CU_ASSERT_EQUAL(next_off, total);				\
} while (0)

static void test_region_hdr_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_region_hdr, magic, 0, 8);
	PIN(struct gr_region_hdr, abi_major, 8, 2);
	PIN(struct gr_region_hdr, abi_minor, 10, 2);
	PIN(struct gr_region_hdr, hdr_size, 12, 4);
	PIN(struct gr_region_hdr, region_size, 16, 8);
	PIN(struct gr_region_hdr, guest_features, 24, 8);
	PIN(struct gr_region_hdr, instance_id, 32, 8);
	PIN(struct gr_region_hdr, nr_rings, 40, 4);
	PIN(struct gr_region_hdr, subbuf_size, 44, 4);
	PIN(struct gr_region_hdr, n_subbufs, 48, 4);
	PIN(struct gr_region_hdr, flags, 52, 4);
	PIN(struct gr_region_hdr, desc_offset, 56, 8);
	PIN(struct gr_region_hdr, desc_count, 64, 4);
	PIN(struct gr_region_hdr, desc_stride, 68, 4);
	PIN(struct gr_region_hdr, ring_offset, 72, 8);
	PIN(struct gr_region_hdr, subbuf_rec_offset, 80, 8);
	PIN(struct gr_region_hdr, data_offset, 88, 8);
	PIN(struct gr_region_hdr, packet_header_size, 96, 4);
	PIN(struct gr_region_hdr, max_event_size, 100, 4);
	PIN(struct gr_region_hdr, clock_freq, 104, 8);
	PIN(struct gr_region_hdr, clock_name, 112, 32);
	PIN(struct gr_region_hdr, kernel_release, 144, 64);
	PIN(struct gr_region_hdr, nodename, 208, 64);
	PIN(struct gr_region_hdr, boot_id, 272, 16);
	PIN(struct gr_region_hdr, nr_cpus, 288, 4);
	PIN(struct gr_region_hdr, reserved0, 292, 4);
	PIN(struct gr_region_hdr, kernel_version, 296, 64);
	PIN(struct gr_region_hdr, product_uuid, 360, 16);
	PIN(struct gr_region_hdr, client_offset, 376, 8);
	PIN(struct gr_region_hdr, client_size, 384, 8);
	PIN(struct gr_region_hdr, hist_offset, 392, 8);
	PIN(struct gr_region_hdr, hist_size, 400, 8);
	PIN(struct gr_region_hdr, desc_capacity, 408, 4);
	PIN(struct gr_region_hdr, wide_capacity, 412, 4);
	PIN(struct gr_region_hdr, wide_offset, 416, 8);
	PIN(struct gr_region_hdr, reserved, 424, 88);
	END_PINS(struct gr_region_hdr, 512);
}

static void test_guest_status_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_guest_status, state, 0, 4);
	PIN(struct gr_guest_status, mode, 4, 4);
	PIN(struct gr_guest_status, ctrl_ack, 8, 8);
	PIN(struct gr_guest_status, flush_ack, 16, 8);
	PIN(struct gr_guest_status, reset_ack, 24, 8);
	PIN(struct gr_guest_status, sync_ack, 32, 8);
	PIN(struct gr_guest_status, sync_guest_time, 40, 8);
	PIN(struct gr_guest_status, session_id, 48, 8);
	PIN(struct gr_guest_status, enabled, 56, 32);
	PIN(struct gr_guest_status, switch_timer_us, 88, 4);
	PIN(struct gr_guest_status, ctrl_errors, 92, 4);
	PIN(struct gr_guest_status, last_ctrl_error, 96, 4);
	PIN(struct gr_guest_status, peer_id, 100, 4);
	PIN(struct gr_guest_status, consumed_errors, 104, 8);
	PIN(struct gr_guest_status, heartbeat, 112, 8);
	PIN(struct gr_guest_status, filter_errors, 120, 4);
	PIN(struct gr_guest_status, filter_bad_slot, 124, 1);
	PIN(struct gr_guest_status, filter_reason, 125, 1);
	PIN(struct gr_guest_status, filter_bad_insn, 126, 2);
	PIN(struct gr_guest_status, filtered, 128, 56);
	PIN(struct gr_guest_status, follow_tasks, 184, 4);
	PIN(struct gr_guest_status, follow_missing, 188, 4);
	PIN(struct gr_guest_status, follow_dropped, 192, 8);
	PIN(struct gr_guest_status, follow_forks, 200, 8);
	PIN(struct gr_guest_status, desc_live, 208, 4);
	PIN(struct gr_guest_status, sync_tsc_half, 212, 4);
	PIN(struct gr_guest_status, sync_guest_tsc, 216, 8);
	PIN(struct gr_guest_status, reserved, 224, 288);
	END_PINS(struct gr_guest_status, 512);
	CU_ASSERT_EQUAL(offsetof(struct gr_guest_status, enabled[3]), 80);
}

static void test_host_ctrl_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_host_ctrl, magic, 0, 8);
	PIN(struct gr_host_ctrl, abi_major, 8, 2);
	PIN(struct gr_host_ctrl, abi_minor, 10, 2);
	PIN(struct gr_host_ctrl, ctrl_size, 12, 4);
	PIN(struct gr_host_ctrl, host_features, 16, 8);
	PIN(struct gr_host_ctrl, seq, 24, 8);
	PIN(struct gr_host_ctrl, session_id, 32, 8);
	PIN(struct gr_host_ctrl, tracing, 40, 4);
	PIN(struct gr_host_ctrl, mode, 44, 4);
	PIN(struct gr_host_ctrl, enable, 48, 32);
	PIN(struct gr_host_ctrl, subbuf_size, 80, 4);
	PIN(struct gr_host_ctrl, n_subbufs, 84, 4);
	PIN(struct gr_host_ctrl, switch_timer_us, 88, 4);
	PIN(struct gr_host_ctrl, host_peer_id, 92, 4);
	PIN(struct gr_host_ctrl, flush_req, 96, 8);
	PIN(struct gr_host_ctrl, reset_req, 104, 8);
	PIN(struct gr_host_ctrl, sync_req, 112, 8);
	PIN(struct gr_host_ctrl, ctrl_flags, 120, 4);
	PIN(struct gr_host_ctrl, reserved0, 124, 4);
	PIN(struct gr_host_ctrl, follow_flags, 128, 4);
	PIN(struct gr_host_ctrl, follow_nr_pids, 132, 2);
	PIN(struct gr_host_ctrl, follow_comm_len, 134, 1);
	PIN(struct gr_host_ctrl, follow_reserved, 135, 1);
	PIN(struct gr_host_ctrl, follow_pids, 136, 256);
	PIN(struct gr_host_ctrl, follow_comm, 392, 32);
	PIN(struct gr_host_ctrl, vm_uid, 424, 8);
	PIN(struct gr_host_ctrl, reserved, 432, 80);
	END_PINS(struct gr_host_ctrl, 512);
	CU_ASSERT_EQUAL(offsetof(struct gr_host_ctrl, enable[3]), 72);
}

static void test_filter_insn_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_filter_insn, code, 0, 1);
	PIN(struct gr_filter_insn, width, 1, 1);
	PIN(struct gr_filter_insn, jt, 2, 1);
	PIN(struct gr_filter_insn, jf, 3, 1);
	PIN(struct gr_filter_insn, off, 4, 2);
	PIN(struct gr_filter_insn, arg, 6, 2);
	PIN(struct gr_filter_insn, k, 8, 8);
	END_PINS(struct gr_filter_insn, 16);
}

static void test_filter_slot_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_filter_slot, event_id, 0, 2);
	PIN(struct gr_filter_slot, nr_insns, 2, 2);
	PIN(struct gr_filter_slot, strtab_len, 4, 2);
	PIN(struct gr_filter_slot, reserved0, 6, 2);
	PIN(struct gr_filter_slot, reserved1, 8, 8);
	PIN(struct gr_filter_slot, insns, 16, 384);
	PIN(struct gr_filter_slot, strtab, 400, 112);
	END_PINS(struct gr_filter_slot, 512);
}

static void test_wide_area_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_wide, enable, 0, GR_WIDE_MAX_EVENTS / 8);
	PIN(struct gr_wide, host_reserved, 128, 2048 - 128);
	PIN(struct gr_wide, desc_live, 2048, 4);
	PIN(struct gr_wide, guest_reserved0, 2052, 4);
	PIN(struct gr_wide, enabled, 2056, GR_WIDE_MAX_EVENTS / 8);
	PIN(struct gr_wide, guest_reserved, 2184, 4096 - 2184);
	END_PINS(struct gr_wide, 4096);
}

static void test_name_strips_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_name_req, seq, 0, 8);
	PIN(struct gr_name_req, op, 8, 4);
	PIN(struct gr_name_req, offset, 12, 4);
	PIN(struct gr_name_req, len, 16, 4);
	PIN(struct gr_name_req, reserved, 20, 12);
	PIN(struct gr_name_req, text, 32, GR_NAME_REQ_TEXT);
	END_PINS(struct gr_name_req, 1024);
	next_off = 0;
	PIN(struct gr_name_ans, seq, 0, 8);
	PIN(struct gr_name_ans, result, 8, 4);
	PIN(struct gr_name_ans, matched, 12, 4);
	PIN(struct gr_name_ans, added, 16, 4);
	PIN(struct gr_name_ans, refused, 20, 4);
	PIN(struct gr_name_ans, desc_live, 24, 4);
	PIN(struct gr_name_ans, total, 28, 4);
	PIN(struct gr_name_ans, next, 32, 4);
	PIN(struct gr_name_ans, len, 36, 4);
	PIN(struct gr_name_ans, reserved, 40, 24);
	PIN(struct gr_name_ans, text, 64, GR_NAME_ANS_TEXT);
	END_PINS(struct gr_name_ans, 2048);
	CU_ASSERT_EQUAL(GR_NAME_REQ_OFFSET, 0x400);
	CU_ASSERT_EQUAL(GR_NAME_ANS_OFFSET, 0x800);
	CU_ASSERT_EQUAL(GR_NAME_OP_ADD, 1);
	CU_ASSERT_EQUAL(GR_NAME_OP_LIST, 2);
	CU_ASSERT_EQUAL(GR_NAME_OP_PROBE, 3);
	CU_ASSERT_EQUAL(GR_NAME_OP_UNPROBE, 4);
	CU_ASSERT_EQUAL(GR_PROBE_MAX, 16);
	CU_ASSERT_STRING_EQUAL(GR_PROBE_GROUP, "guestrelay");
}

static void test_filter_area(void)
{
	/* the filter area fills the control block's room exactly */
	CU_ASSERT_EQUAL(GR_FILTER_OFFSET, 0x1200);
	CU_ASSERT_EQUAL(GR_FILTER_OFFSET, GR_CTRL_OFFSET +
			sizeof(struct gr_host_ctrl));
	CU_ASSERT_EQUAL(GR_FILTER_OFFSET + GR_FILTER_SLOTS *
			sizeof(struct gr_filter_slot), GR_LAYOUT_START);
	CU_ASSERT_EQUAL(GR_FILTER_CTRL_SIZE, GR_LAYOUT_START - GR_CTRL_OFFSET);
}

static void test_field_desc_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_field_desc, name, 0, 24);
	PIN(struct gr_field_desc, offset, 24, 2);
	PIN(struct gr_field_desc, size, 26, 2);
	PIN(struct gr_field_desc, type, 28, 1);
	PIN(struct gr_field_desc, flags, 29, 1);
	PIN(struct gr_field_desc, elem_size, 30, 1);
	PIN(struct gr_field_desc, len_field, 31, 1);
	END_PINS(struct gr_field_desc, 32);
}

static void test_event_desc_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_event_desc, name, 0, 32);
	PIN(struct gr_event_desc, id, 32, 2);
	PIN(struct gr_event_desc, nr_fields, 34, 2);
	PIN(struct gr_event_desc, payload_size, 36, 2);
	PIN(struct gr_event_desc, flags, 38, 2);
	PIN(struct gr_event_desc, system, 40, 16);
	PIN(struct gr_event_desc, family_base, 56, 2);
	PIN(struct gr_event_desc, family_count, 58, 2);
	PIN(struct gr_event_desc, reserved, 60, 4);
	PIN(struct gr_event_desc, fields, 64, 512);
	END_PINS(struct gr_event_desc, 576);
	CU_ASSERT_EQUAL(offsetof(struct gr_event_desc, fields[1]), 96);
	CU_ASSERT_EQUAL(offsetof(struct gr_event_desc, fields[15]), 544);
	CU_ASSERT_EQUAL(offsetof(struct gr_event_desc, fields[15].elem_size),
			574);
	CU_ASSERT_EQUAL(offsetof(struct gr_event_desc, fields[15].len_field),
			575);
}

static void test_ring_layout(void)
{
	{
		BEGIN_PINS();

		PIN(struct gr_ring_prod, produced, 0, 8);
		PIN(struct gr_ring_prod, lost_full, 8, 8);
		PIN(struct gr_ring_prod, lost_too_big, 16, 8);
		PIN(struct gr_ring_prod, lost_nested, 24, 8);
		PIN(struct gr_ring_prod, overwritten, 32, 8);
		PIN(struct gr_ring_prod, cons_event, 40, 8);
		PIN(struct gr_ring_prod, events, 48, 8);
		PIN(struct gr_ring_prod, flags, 56, 4);
		PIN(struct gr_ring_prod, reserved, 60, 4);
		END_PINS(struct gr_ring_prod, 64);
	}
	{
		BEGIN_PINS();

		PIN(struct gr_ring_cons, consumed, 0, 8);
		PIN(struct gr_ring_cons, prod_event, 8, 8);
		PIN(struct gr_ring_cons, reserved, 16, 48);
		END_PINS(struct gr_ring_cons, 64);
	}
	{
		BEGIN_PINS();

		PIN(struct gr_ring, prod, 0, 64);
		PIN(struct gr_ring, cons, 64, 64);
		END_PINS(struct gr_ring, 128);
	}
	/* the two halves live on separate 64-byte cache lines */
	CU_ASSERT_EQUAL(offsetof(struct gr_ring, prod.produced), 0);
	CU_ASSERT_EQUAL(offsetof(struct gr_ring, cons.consumed), 64);
	CU_ASSERT_EQUAL(offsetof(struct gr_ring, cons.prod_event), 72);
	CU_ASSERT_EQUAL(offsetof(struct gr_ring, prod.cons_event), 40);
}

static void test_subbuf_rec_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_subbuf_rec, seq, 0, 8);
	PIN(struct gr_subbuf_rec, bytes, 8, 4);
	PIN(struct gr_subbuf_rec, last_record, 12, 4);
	END_PINS(struct gr_subbuf_rec, 16);
}

/* spec 17.2, 17.3, 17.4 (v1.5) */
static void test_hist_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_hist_key, src, 0, 1);
	PIN(struct gr_hist_key, width, 1, 1);
	PIN(struct gr_hist_key, flags, 2, 1);
	PIN(struct gr_hist_key, xform, 3, 1);
	PIN(struct gr_hist_key, off, 4, 2);
	PIN(struct gr_hist_key, reserved, 6, 2);
	PIN(struct gr_hist_key, arg, 8, 8);
	END_PINS(struct gr_hist_key, 16);
	next_off = 0;
	PIN(struct gr_hist_req, gen, 0, 8);
	PIN(struct gr_hist_req, event_id, 8, 2);
	PIN(struct gr_hist_req, end_event_id, 10, 2);
	PIN(struct gr_hist_req, kind, 12, 1);
	PIN(struct gr_hist_req, nr_keys, 13, 1);
	PIN(struct gr_hist_req, nr_vals, 14, 1);
	PIN(struct gr_hist_req, entries_log2, 15, 1);
	PIN(struct gr_hist_req, key, 16, 32);
	PIN(struct gr_hist_req, val, 48, 48);
	PIN(struct gr_hist_req, match, 96, 32);
	PIN(struct gr_hist_req, nr_insns, 128, 2);
	PIN(struct gr_hist_req, strtab_len, 130, 2);
	PIN(struct gr_hist_req, start2_event_id, 132, 2);
	PIN(struct gr_hist_req, hflags, 134, 1);
	PIN(struct gr_hist_req, reserved0, 135, 1);
	PIN(struct gr_hist_req, reserved1, 136, 8);
	PIN(struct gr_hist_req, insns, 144, 256);
	PIN(struct gr_hist_req, strtab, 400, 112);
	END_PINS(struct gr_hist_req, 512);
	next_off = 0;
	PIN(struct gr_hist_state, gen, 0, 8);
	PIN(struct gr_hist_state, state, 8, 4);
	PIN(struct gr_hist_state, reason, 12, 1);
	PIN(struct gr_hist_state, filter_reason, 13, 1);
	PIN(struct gr_hist_state, bad, 14, 2);
	PIN(struct gr_hist_state, reserved, 16, 48);
	END_PINS(struct gr_hist_state, 64);
	next_off = 0;
	PIN(struct gr_hist_map_hdr, gen, 0, 8);
	PIN(struct gr_hist_map_hdr, hits, 8, 8);
	PIN(struct gr_hist_map_hdr, dropped, 16, 8);
	PIN(struct gr_hist_map_hdr, nested, 24, 8);
	PIN(struct gr_hist_map_hdr, unmatched, 32, 8);
	PIN(struct gr_hist_map_hdr, reserved, 40, 24);
	END_PINS(struct gr_hist_map_hdr, 64);
	next_off = 0;
	PIN(struct gr_hist_entry, seq, 0, 4);
	PIN(struct gr_hist_entry, used, 4, 4);
	PIN(struct gr_hist_entry, key, 8, 16);
	PIN(struct gr_hist_entry, hitcount, 24, 8);
	PIN(struct gr_hist_entry, val, 32, 24);
	END_PINS(struct gr_hist_entry, 56);
	CU_ASSERT_EQUAL(gr_hist_map_bytes(10), 64 + 56 * 1024);
	CU_ASSERT_EQUAL(gr_hist_slot_bytes(0x12000), 0x2000);
	CU_ASSERT_EQUAL(gr_hist_map_off(0x12000, 1, 2, 3),
			0x2000 + 0x2000 + 2 * (64 + 56 * 8));
}

/* spec 16.2, 16.6 */
static void test_client_layout(void)
{
	BEGIN_PINS();
	PIN(struct gr_client_chan, gen, 0, 8);
	PIN(struct gr_client_chan, name, 8, 32);
	PIN(struct gr_client_chan, flags, 40, 4);
	PIN(struct gr_client_chan, nr_rings, 44, 4);
	PIN(struct gr_client_chan, subbuf_size, 48, 4);
	PIN(struct gr_client_chan, n_subbufs, 52, 4);
	PIN(struct gr_client_chan, ring_offset, 56, 8);
	PIN(struct gr_client_chan, subbuf_rec_offset, 64, 8);
	PIN(struct gr_client_chan, data_offset, 72, 8);
	PIN(struct gr_client_chan, reserved, 80, 48);
	END_PINS(struct gr_client_chan, 128);
	CU_ASSERT_EQUAL(GR_CLIENT_MAX, 16);
	CU_ASSERT_EQUAL(GR_CLIENT_ACK_OFFSET, 0x800);
	CU_ASSERT_EQUAL(GR_CLIENT_DIR_SIZE, 0x1000);
	CU_ASSERT_EQUAL(GR_CLIENT_MAX_SUBBUF, 1U << 20);
	CU_ASSERT_EQUAL(GR_CLIENT_MAX_SUBBUFS, 1024);
	CU_ASSERT_EQUAL(GR_CLIENT_GLOBAL, 1);
	CU_ASSERT_EQUAL(GR_CLIENT_OVERWRITE, 2);
	CU_ASSERT_EQUAL(GR_CLIENT_KLOG, 4);
	CU_ASSERT_EQUAL(sizeof(struct gr_klog_rec), 16);
	CU_ASSERT_EQUAL(offsetof(struct gr_klog_rec, len), 8);
	CU_ASSERT_EQUAL(offsetof(struct gr_klog_rec, flags), 12);
	CU_ASSERT_EQUAL(GR_KLOG_F_RAW, 1);
}

static void test_packet_header_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_packet_header, magic, 0, 4);
	PIN(struct gr_packet_header, stream_id, 4, 4);
	PIN(struct gr_packet_header, stream_instance_id, 8, 8);
	PIN(struct gr_packet_header, timestamp_begin, 16, 8);
	PIN(struct gr_packet_header, timestamp_end, 24, 8);
	PIN(struct gr_packet_header, content_size, 32, 8);
	PIN(struct gr_packet_header, packet_size, 40, 8);
	PIN(struct gr_packet_header, packet_seq_num, 48, 8);
	PIN(struct gr_packet_header, events_discarded, 56, 8);
	PIN(struct gr_packet_header, cpu_id, 64, 4);
	PIN(struct gr_packet_header, reserved, 68, 4);
	END_PINS(struct gr_packet_header, 72);
	/* records after the header start 8-byte aligned */
	CU_ASSERT_EQUAL(sizeof(struct gr_packet_header) % GR_RECORD_ALIGN, 0);
}

static void test_event_header_layout(void)
{
	BEGIN_PINS();

	PIN(struct gr_event_header, timestamp, 0, 8);
	PIN(struct gr_event_header, id, 8, 2);
	PIN(struct gr_event_header, size, 10, 2);
	PIN(struct gr_event_header, tid, 12, 4);
	END_PINS(struct gr_event_header, 16);
	CU_ASSERT_EQUAL(sizeof(struct gr_event_header) % GR_RECORD_ALIGN, 0);
}

/* the natural alignment a C compiler gives each shared structure */
static void test_struct_alignment(void)
{
	CU_ASSERT_EQUAL(_Alignof(struct gr_region_hdr), 8);
	CU_ASSERT_EQUAL(_Alignof(struct gr_guest_status), 8);
	CU_ASSERT_EQUAL(_Alignof(struct gr_host_ctrl), 8);
	CU_ASSERT_EQUAL(_Alignof(struct gr_field_desc), 2);
	/* 4 since v1.2 split its __le64 reserved (offsets and size unchanged;
	 * desc_offset and desc_stride stay multiples of 8, spec H3) */
	CU_ASSERT_EQUAL(_Alignof(struct gr_event_desc), 4);
	CU_ASSERT_EQUAL(_Alignof(struct gr_ring), 8);
	CU_ASSERT_EQUAL(_Alignof(struct gr_subbuf_rec), 8);
	CU_ASSERT_EQUAL(_Alignof(struct gr_packet_header), 8);
	CU_ASSERT_EQUAL(_Alignof(struct gr_event_header), 8);
}

static void test_versions_and_magics(void)
{
	char text[9] = { 0 };
	uint64_t m;

	CU_ASSERT_EQUAL(GR_ABI_MAJOR, 1);
	CU_ASSERT_EQUAL(GR_ABI_MINOR, 15);
	CU_ASSERT_EQUAL(GR_HIST_F_START2, 1);
	CU_ASSERT_EQUAL(GR_HIST_F_KNOWN, 1);
	CU_ASSERT_EQUAL(GR_REGION_MAGIC, 0x3159414c45525247ULL);
	CU_ASSERT_EQUAL(GR_CTRL_MAGIC, 0x313054534f485247ULL);
	CU_ASSERT_EQUAL(GR_CTF_MAGIC, 0xc1fc1fc1U);
	CU_ASSERT_EQUAL(sizeof(GR_CTF_MAGIC), 4);
	CU_ASSERT_EQUAL(sizeof(GR_REGION_MAGIC), 8);

	/* stored little-endian, the magics read as text in a hex dump */
	m = htole64(GR_REGION_MAGIC);
	memcpy(text, &m, 8);
	CU_ASSERT_STRING_EQUAL(text, "GRRELAY1");
	m = htole64(GR_CTRL_MAGIC);
	memcpy(text, &m, 8);
	CU_ASSERT_STRING_EQUAL(text, "GRHOST01");
}

static void test_region_map_constants(void)
{
	CU_ASSERT_EQUAL(GR_PAGE_SIZE, 4096);
	CU_ASSERT_EQUAL(GR_HDR_OFFSET, 0x0000);
	CU_ASSERT_EQUAL(GR_STATUS_OFFSET, 0x0200);
	CU_ASSERT_EQUAL(GR_CTRL_OFFSET, 0x1000);
	CU_ASSERT_EQUAL(GR_LAYOUT_START, 0x2000);
	/* the fixed blocks follow each other without overlapping */
	CU_ASSERT_EQUAL(GR_HDR_OFFSET + sizeof(struct gr_region_hdr),
			GR_STATUS_OFFSET);
	CU_ASSERT_TRUE(GR_STATUS_OFFSET + sizeof(struct gr_guest_status) <=
		       GR_CTRL_OFFSET);
	CU_ASSERT_TRUE(GR_CTRL_OFFSET + sizeof(struct gr_host_ctrl) <=
		       GR_LAYOUT_START);
	CU_ASSERT_EQUAL(GR_CTRL_OFFSET % GR_PAGE_SIZE, 0);
	CU_ASSERT_EQUAL(GR_LAYOUT_START % GR_PAGE_SIZE, 0);
}

static void test_limit_constants(void)
{
	CU_ASSERT_EQUAL(GR_MIN_REGION_SIZE, 65536ULL);
	CU_ASSERT_EQUAL(GR_MAX_REGION_SIZE, 1ULL << 40);
	CU_ASSERT_EQUAL(GR_MIN_SUBBUF_SIZE, 4096);
	CU_ASSERT_EQUAL(GR_MAX_SUBBUF_SIZE, 16U << 20);
	CU_ASSERT_EQUAL(GR_MIN_SUBBUFS, 2);
	CU_ASSERT_EQUAL(GR_MAX_SUBBUFS, 65536);
	CU_ASSERT_EQUAL(GR_MAX_RINGS, 1024);
	CU_ASSERT_EQUAL(GR_MAX_EVENTS, 256);
	CU_ASSERT_EQUAL(GR_MAX_FIELDS, 16);
	CU_ASSERT_EQUAL(GR_NAME_LEN, 32);
	CU_ASSERT_EQUAL(GR_SYSTEM_LEN, 16);
	CU_ASSERT_EQUAL(GR_FIELD_NAME_LEN, 24);
	CU_ASSERT_EQUAL(GR_CLOCK_NAME_LEN, 32);
	CU_ASSERT_EQUAL(GR_RELEASE_LEN, 64);
	CU_ASSERT_EQUAL(GR_NODENAME_LEN, 64);
	CU_ASSERT_EQUAL(GR_VERSION_LEN, 64);
	CU_ASSERT_EQUAL(GR_RECORD_ALIGN, 8);
	CU_ASSERT_EQUAL(GR_MAX_FAMILY, 1024);
	/* limits that other definitions depend on */
	CU_ASSERT_EQUAL(GR_MAX_EVENTS % 64, 0);	/* enable[] bitmaps */
	CU_ASSERT_EQUAL(sizeof(((struct gr_host_ctrl *)0)->enable) * 8,
			GR_MAX_EVENTS);
	CU_ASSERT_EQUAL(sizeof(((struct gr_guest_status *)0)->enabled) * 8,
			GR_MAX_EVENTS);
	CU_ASSERT_TRUE(GR_MAX_EVENTS - 1 <= UINT16_MAX);	/* event ids */
	CU_ASSERT_TRUE(GR_MAX_SUBBUF_SIZE <= UINT32_MAX);	/* rec.bytes */
	CU_ASSERT_EQUAL(sizeof(((struct gr_event_desc *)0)->fields) /
			sizeof(struct gr_field_desc), GR_MAX_FIELDS);
}

static void test_feature_and_flag_bits(void)
{
	CU_ASSERT_EQUAL(GR_F_EVENT_IDX, 1ULL << 0);
	CU_ASSERT_EQUAL(GR_F_FLIGHT, 1ULL << 1);
	CU_ASSERT_EQUAL(GR_F_CLOCK_SYNC, 1ULL << 2);
	CU_ASSERT_EQUAL(GR_F_SWITCH_TIMER, 1ULL << 3);
	CU_ASSERT_EQUAL(GR_F_DOORBELL, 1ULL << 4);
	CU_ASSERT_EQUAL(GR_F_FILTER, 1ULL << 5);
	CU_ASSERT_EQUAL(GR_F_GUEST_INFO, 1ULL << 6);
	CU_ASSERT_EQUAL(GR_F_DEFAULTS, 1ULL << 7);
	CU_ASSERT_EQUAL(GR_F_FOLLOW, 1ULL << 8);
	CU_ASSERT_EQUAL(GR_F_SYSCALLS, 1ULL << 9);
	CU_ASSERT_EQUAL(GR_F_LAST_RECORD, 1ULL << 10);
	CU_ASSERT_EQUAL(GR_F_CLIENT, 1ULL << 11);
	CU_ASSERT_EQUAL(GR_F_HIST, 1ULL << 12);
	CU_ASSERT_EQUAL(GR_F_ANYEVENT, 1ULL << 13);
	CU_ASSERT_EQUAL(GR_F_PROBE, 1ULL << 14);
	CU_ASSERT_EQUAL(GR_F_VMSYNC, 1ULL << 15);
	CU_ASSERT_EQUAL(GR_F_SYNC_TSC, 1ULL << 16);
	CU_ASSERT_EQUAL(GR_F_DYNARR, 1ULL << 17);
	CU_ASSERT_EQUAL(GR_F_SYNC_POLL, 1ULL << 18);
	CU_ASSERT_EQUAL(GR_F_WIDE_EVENTS, 1ULL << 19);
	CU_ASSERT_EQUAL(GR_F_ARRAYS, 1ULL << 20);
	CU_ASSERT_EQUAL(GR_F_LONG_DESC, 1ULL << 21);
	CU_ASSERT_EQUAL(GR_F_KNOWN, 0x3fffffULL);
	/* v1.15: the descriptor's extension (spec 20) */
	CU_ASSERT_EQUAL(GR_LONG_NAME_LEN, 64);
	CU_ASSERT_EQUAL(GR_LONG_SYSTEM_LEN, 32);
	CU_ASSERT_EQUAL(GR_LONG_MAX_FIELDS, 32);
	CU_ASSERT_EQUAL(GR_LONG_FIELD_NAME_LEN, 32);
	CU_ASSERT_EQUAL(GR_LONG_FIELD_NAMES, 4);
	CU_ASSERT_EQUAL(GR_LONG_DESC_STRIDE, 1352);
	CU_ASSERT_EQUAL(sizeof(struct gr_event_desc_ext), 776);
	CU_ASSERT_EQUAL(offsetof(struct gr_event_desc_ext, system), 72);
	CU_ASSERT_EQUAL(offsetof(struct gr_event_desc_long, ext), 576);
	/* v1.13: the wide area and the ids it reaches (spec 19) */
	CU_ASSERT_EQUAL(GR_WIDE_MAX_EVENTS, 1024);
	CU_ASSERT_EQUAL(GR_WIDE_SIZE, 4096);
	/* v1.12: the guest's worst case with interrupts off (9.5, G42) */
	CU_ASSERT_EQUAL(GR_SYNC_POLL_WAIT_NS, 50000);
	CU_ASSERT_EQUAL(GR_SYNC_POLL_BURST_NS, 200000);
	CU_ASSERT_EQUAL(GR_SYNC_POLL_MAX, 7);
	CU_ASSERT_EQUAL(GR_SYNC_POLL_GAP_NS, 100000000);
	CU_ASSERT_EQUAL(GR_VMSYNC_HG_CNT(7), 14);
	CU_ASSERT_EQUAL(GR_VMSYNC_GH_CNT(7), 15);
	CU_ASSERT_EQUAL(GR_F_EVENT_IDX | GR_F_FLIGHT | GR_F_CLOCK_SYNC |
			GR_F_SWITCH_TIMER | GR_F_DOORBELL | GR_F_FILTER |
			GR_F_GUEST_INFO | GR_F_DEFAULTS | GR_F_FOLLOW |
			GR_F_SYSCALLS | GR_F_LAST_RECORD | GR_F_CLIENT |
			GR_F_HIST | GR_F_ANYEVENT | GR_F_PROBE | GR_F_VMSYNC |
			GR_F_SYNC_TSC | GR_F_DYNARR | GR_F_SYNC_POLL |
			GR_F_WIDE_EVENTS | GR_F_ARRAYS | GR_F_LONG_DESC, GR_F_KNOWN);
	CU_ASSERT_EQUAL(GR_CTRL_F_DEFAULTS, 1);
	CU_ASSERT_EQUAL(sizeof(GR_F_EVENT_IDX), 8);

	CU_ASSERT_EQUAL(GR_HDR_GLOBAL, 1);
	CU_ASSERT_EQUAL(GR_EVENT_F_VARLEN, 1);
	CU_ASSERT_EQUAL(GR_FIELD_F_SIGNED, 1);
	CU_ASSERT_EQUAL(GR_FIELD_F_HEX, 2);
	CU_ASSERT_EQUAL(GR_RING_F_ONLINE, 1);
	CU_ASSERT_EQUAL(GR_FIELD_INTEGER, 1);
	CU_ASSERT_EQUAL(GR_FIELD_CHARS, 2);
	CU_ASSERT_EQUAL(GR_FIELD_STRING, 3);
	CU_ASSERT_EQUAL(GR_FIELD_SEQUENCE, 4);
	CU_ASSERT_EQUAL(GR_FIELD_ARRAY, 5);
	/* lttng-modules' rwbs bits, which Trace Compass tests (spec 7.5) */
	CU_ASSERT_EQUAL(GR_RWBS_WRITE, 1);
	CU_ASSERT_EQUAL(GR_RWBS_DISCARD, 2);
	CU_ASSERT_EQUAL(GR_RWBS_READ, 4);
	CU_ASSERT_EQUAL(GR_RWBS_RAHEAD, 8);
	CU_ASSERT_EQUAL(GR_RWBS_BARRIER, 0x10);
	CU_ASSERT_EQUAL(GR_RWBS_SYNC, 0x20);
	CU_ASSERT_EQUAL(GR_RWBS_META, 0x40);
	CU_ASSERT_EQUAL(GR_RWBS_SECURE, 0x80);
	CU_ASSERT_EQUAL(GR_RWBS_FLUSH, 0x100);
	CU_ASSERT_EQUAL(GR_RWBS_FUA, 0x200);
	CU_ASSERT_EQUAL(GR_RWBS_PREFLUSH, 0x400);
}

static void test_filter_constants(void)
{
	CU_ASSERT_EQUAL(GR_FILTER_SLOTS, 7);
	CU_ASSERT_EQUAL(GR_FILTER_MAX_INSNS, 24);
	CU_ASSERT_EQUAL(GR_FILTER_STRTAB_LEN, 112);
	CU_ASSERT_EQUAL(GR_FILTER_CTRL_SIZE, 4096);
	CU_ASSERT_EQUAL(GR_FILTER_NO_SLOT, 0xff);
	CU_ASSERT_EQUAL(GR_FILTER_NO_INSN, 0xffff);
	CU_ASSERT_EQUAL(sizeof(((struct gr_guest_status *)0)->filtered) / 8,
			GR_FILTER_SLOTS);
	/* jt and jf are bytes: every forward target is reachable */
	CU_ASSERT_TRUE(GR_FILTER_MAX_INSNS <= 256);
	CU_ASSERT_TRUE(GR_FILTER_STRTAB_LEN <= 0xffff);
	CU_ASSERT_EQUAL(GR_FI_RET, 0x01);
	CU_ASSERT_EQUAL(GR_FI_LD, 0x02);
	CU_ASSERT_EQUAL(GR_FI_LDS, 0x03);
	CU_ASSERT_EQUAL(GR_FI_LD_TID, 0x04);
	CU_ASSERT_EQUAL(GR_FI_LD_CPU, 0x05);
	CU_ASSERT_EQUAL(GR_FI_JEQ, 0x10);
	CU_ASSERT_EQUAL(GR_FI_JGT, 0x11);
	CU_ASSERT_EQUAL(GR_FI_JGE, 0x12);
	CU_ASSERT_EQUAL(GR_FI_JSGT, 0x13);
	CU_ASSERT_EQUAL(GR_FI_JSGE, 0x14);
	CU_ASSERT_EQUAL(GR_FI_JSET, 0x15);
	CU_ASSERT_EQUAL(GR_FI_JSTREQ, 0x20);
	CU_ASSERT_EQUAL(GR_FI_JGLOB, 0x21);
	CU_ASSERT_EQUAL(GR_FILTER_E_NONE, 0);
	CU_ASSERT_EQUAL(GR_FILTER_E_AREA, 1);
	CU_ASSERT_EQUAL(GR_FILTER_E_EVENT, 2);
	CU_ASSERT_EQUAL(GR_FILTER_E_DUP, 3);
	CU_ASSERT_EQUAL(GR_FILTER_E_LENGTH, 4);
	CU_ASSERT_EQUAL(GR_FILTER_E_RESERVED, 5);
	CU_ASSERT_EQUAL(GR_FILTER_E_OPCODE, 6);
	CU_ASSERT_EQUAL(GR_FILTER_E_JUMP, 7);
	CU_ASSERT_EQUAL(GR_FILTER_E_LOAD, 8);
	CU_ASSERT_EQUAL(GR_FILTER_E_STRING, 9);
	CU_ASSERT_EQUAL(GR_FILTER_E_RET, 10);
	CU_ASSERT_EQUAL(GR_FILTER_E_NORET, 11);
}

static void test_state_mode_and_special_values(void)
{
	CU_ASSERT_EQUAL(GR_STATE_ABSENT, 0);
	CU_ASSERT_EQUAL(GR_STATE_IDLE, 1);
	CU_ASSERT_EQUAL(GR_STATE_TRACING, 2);
	CU_ASSERT_EQUAL(GR_STATE_STOPPED, 3);
	CU_ASSERT_EQUAL(GR_STATE_PANIC, 4);
	CU_ASSERT_EQUAL(GR_MODE_STREAM, 0);
	CU_ASSERT_EQUAL(GR_MODE_FLIGHT, 1);
	CU_ASSERT_EQUAL(GR_NO_PEER, 0xffffffffU);
	CU_ASSERT_EQUAL(GR_SEQ_BUSY, 0xffffffffffffffffULL);
	CU_ASSERT_EQUAL(GR_SEQ_BUSY, UINT64_MAX);
}

static void test_doorbell_vectors(void)
{
	CU_ASSERT_EQUAL(GR_VEC_DATA, 0);
	CU_ASSERT_EQUAL(GR_VEC_STATUS, 1);
	CU_ASSERT_EQUAL(GR_VEC_CTRL, 0);
	CU_ASSERT_EQUAL(GR_VEC_CONSUMED, 1);
	CU_ASSERT_EQUAL(GR_NR_VECTORS, 2);
	/* each direction's vectors are below GR_NR_VECTORS */
	CU_ASSERT_TRUE(GR_VEC_DATA < GR_NR_VECTORS);
	CU_ASSERT_TRUE(GR_VEC_STATUS < GR_NR_VECTORS);
	CU_ASSERT_TRUE(GR_VEC_CTRL < GR_NR_VECTORS);
	CU_ASSERT_TRUE(GR_VEC_CONSUMED < GR_NR_VECTORS);
}

/* --- gr_need_event() ----------------------------------------------------- */

/* reference: does event lie in [old, new_idx) on the 2^64 circle? */
static int in_window(uint64_t event, uint64_t new_idx, uint64_t old)
{
	uint64_t n = new_idx - old, k;

	for (k = 0; k < n && k < 64; k++)
		if (old + k == event)
			return 1;
	return 0;
}

static void test_need_event_truth_table(void)
{
	static const struct {
		uint64_t event, new_idx, old;
		int ring;
	} t[] = {
		{ 0, 1, 0, 1 },		/* the one index passed */
		{ 1, 1, 0, 0 },		/* not reached yet */
		{ UINT64_MAX, 1, 0, 0 },	/* passed before old */
		{ 5, 5, 5, 0 },		/* no progress never rings */
		{ 4, 5, 5, 0 },
		{ 4, 10, 5, 0 },
		{ 5, 10, 5, 1 },
		{ 7, 10, 5, 1 },
		{ 9, 10, 5, 1 },
		{ 10, 10, 5, 0 },
		{ 11, 10, 5, 0 },
		/* wrap: old = 2^64 - 2, new = 2 */
		{ UINT64_MAX - 2, 2, UINT64_MAX - 1, 0 },
		{ UINT64_MAX - 1, 2, UINT64_MAX - 1, 1 },
		{ UINT64_MAX, 2, UINT64_MAX - 1, 1 },
		{ 0, 2, UINT64_MAX - 1, 1 },
		{ 1, 2, UINT64_MAX - 1, 1 },
		{ 2, 2, UINT64_MAX - 1, 0 },
		/* one step across the boundary */
		{ UINT64_MAX, 0, UINT64_MAX, 1 },
		{ 0, 0, UINT64_MAX, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		int got = !!gr_need_event(t[i].event, t[i].new_idx, t[i].old);

		CU_ASSERT_EQUAL(got, t[i].ring);
		if (got != t[i].ring)
			fprintf(stderr, "\n    gr_need_event(%#llx, %#llx, %#llx) = %d\n",
				(unsigned long long)t[i].event,
				(unsigned long long)t[i].new_idx,
				(unsigned long long)t[i].old, got);
	}
}

static void test_need_event_matches_window_everywhere(void)
{
	static const uint64_t bases[] = {
		0, 1000, (1ULL << 32) - 5, (1ULL << 63) - 5, UINT64_MAX - 20,
		UINT64_MAX - 3,
	};
	unsigned int b, mismatches = 0;
	uint64_t old, d, e;

	for (b = 0; b < ARRAY_SIZE(bases); b++) {
		old = bases[b];
		for (d = 0; d <= 12; d++)
			for (e = old - 6; e != old + 20; e++)
				if (!!gr_need_event(e, old + d, old) !=
				    in_window(e, old + d, old))
					mismatches++;
	}
	CU_ASSERT_EQUAL(mismatches, 0);
}

/*
 * The virtio-like protocol: the consumer publishes "wake me past the index
 * I have seen" (event = last seen), the producer rings only when its update
 * crosses that index, so a batch of updates costs one doorbell.
 */
static void test_need_event_virtio_semantics(void)
{
	uint64_t seen = UINT64_MAX - 1, produced = seen, old, rings = 0;
	int i;

	/* the consumer sleeps having seen 'seen'; producer publishes 5 */
	for (i = 0; i < 5; i++) {
		old = produced++;
		rings += !!gr_need_event(seen, produced, old);
	}
	CU_ASSERT_EQUAL(rings, 1);		/* only the first rings */

	/* a batched update crossing the index rings once as well */
	CU_ASSERT_TRUE(gr_need_event(seen, seen + 5, seen));
	/* a stale event index (far behind) never rings: missed, not spurious */
	CU_ASSERT_FALSE(gr_need_event(seen - 1, seen + 1, seen));
	/* consumer caught up (event = produced) and re-armed: next rings */
	CU_ASSERT_TRUE(gr_need_event(produced, produced + 1, produced));
	/* an event index ahead of the producer does not ring yet */
	CU_ASSERT_FALSE(gr_need_event(produced + 3, produced + 1, produced));
	CU_ASSERT_TRUE(gr_need_event(produced + 3, produced + 4, produced + 3));
}

/* --- the header compiles as strict C ------------------------------------- */

static int spec_dir_ok(const char *dir)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/guestrelay_abi.h", dir) >=
	    (int)sizeof(path))
		return 0;
	return access(path, R_OK) == 0;
}

/* walk up from @start looking for spec/guestrelay_abi.h */
static int find_up(const char *start, char *out, size_t len)
{
	char dir[PATH_MAX], *slash;
	int depth;

	if (!realpath(start, dir))
		return 0;
	for (depth = 0; depth < 8; depth++) {
		if ((size_t)snprintf(out, len, "%s/spec", dir) < len &&
		    spec_dir_ok(out))
			return 1;
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return 0;
		*slash = 0;
	}
	return 0;
}

static int find_spec_dir(char *out, size_t len)
{
	const char *env = getenv("GR_SPEC_DIR");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && spec_dir_ok(env)) {
		snprintf(out, len, "%s", env);
		return 1;
	}
#ifdef GR_SPEC_DIR
	if (spec_dir_ok(GR_SPEC_DIR)) {
		snprintf(out, len, "%s", GR_SPEC_DIR);
		return 1;
	}
#endif
	if (find_up(".", out, len))
		return 1;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		*strrchr(exe, '/') = 0;
		if (find_up(exe, out, len))
			return 1;
	}
	return 0;
}

static const char strict_program[] =
	"#include <string.h>\n"
	"#include \"guestrelay_abi.h\"\n"
	"int main(void)\n"
	"{\n"
	"\tstruct gr_region_hdr h;\n"
	"\tstruct gr_event_desc d;\n"
	"\n"
	"\tmemset(&h, 0, sizeof(h));\n"
	"\tmemset(&d, 0, sizeof(d));\n"
	"\th.magic = GR_REGION_MAGIC;\n"
	"\td.fields[0].type = GR_FIELD_INTEGER;\n"
	"\treturn !(gr_need_event(0, 1, 0) && h.magic && d.fields[0].type &&\n"
	"\t\t sizeof(struct gr_ring) == 128 && GR_F_KNOWN);\n"
	"}\n";

/* compile strict_program with @std; 0 if the compiler accepted it */
static int compile_strict(const char *dir, const char *std)
{
	const char *cc = getenv("CC");
	char cmd[PATH_MAX + 256];
	FILE *p;
	int status;

	if (!cc || !*cc)
		cc = "cc";
	snprintf(cmd, sizeof(cmd),
		 "%s %s -pedantic-errors -Wall -Wextra -Werror -fsyntax-only "
		 "-I'%s' -x c - 2>&1", cc, std, dir);
	p = popen(cmd, "w");
	if (!p)
		return -errno;
	fputs(strict_program, p);
	status = pclose(p);
	if (status == -1)
		return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "\n    failed: %s\n", cmd);
		return 1;
	}
	return 0;
}

static char spec_dir[PATH_MAX];

static void test_header_compiles_as_c99_pedantic(void)
{
	CU_ASSERT_EQUAL(compile_strict(spec_dir, "-std=c99"), 0);
}

static void test_header_compiles_as_c11_pedantic(void)
{
	CU_ASSERT_EQUAL(compile_strict(spec_dir, "-std=c11"), 0);
}

static void test_header_compiles_as_gnu11_pedantic(void)
{
	CU_ASSERT_EQUAL(compile_strict(spec_dir, "-std=gnu11"), 0);
}

static int strict_init(void)
{
	if (find_spec_dir(spec_dir, sizeof(spec_dir)))
		return 0;
	fprintf(stderr, "test_abi: spec/guestrelay_abi.h not found; "
		"set GR_SPEC_DIR\n");
	return -1;	/* the suite's tests then count as failed */
}

/* --- registration -------------------------------------------------------- */

static const struct gr_test layout_tests[] = {
	GR_TEST_NAMED("gr_region_hdr layout", test_region_hdr_layout),
	GR_TEST_NAMED("gr_guest_status layout", test_guest_status_layout),
	GR_TEST_NAMED("gr_host_ctrl layout", test_host_ctrl_layout),
	GR_TEST_NAMED("gr_filter_insn layout", test_filter_insn_layout),
	GR_TEST_NAMED("gr_filter_slot layout", test_filter_slot_layout),
	GR_TEST_NAMED("filter area fills the control block's room", test_filter_area),
	GR_TEST_NAMED("name strips layout (v1.7)", test_name_strips_layout),
	GR_TEST_NAMED("gr_field_desc layout", test_field_desc_layout),
	GR_TEST_NAMED("gr_event_desc layout", test_event_desc_layout),
	GR_TEST_NAMED("gr_ring layout", test_ring_layout),
	GR_TEST_NAMED("gr_subbuf_rec layout", test_subbuf_rec_layout),
	GR_TEST_NAMED("gr_client_chan and gr_klog_rec layout",
		      test_client_layout),
	GR_TEST_NAMED("gr_hist_req, _state, _map_hdr, _entry layout",
		      test_hist_layout),
	GR_TEST_NAMED("gr_packet_header layout", test_packet_header_layout),
	GR_TEST_NAMED("gr_event_header layout", test_event_header_layout),
	GR_TEST_NAMED("struct alignment", test_struct_alignment),
};

static const struct gr_test constant_tests[] = {
	GR_TEST_NAMED("versions and magics", test_versions_and_magics),
	GR_TEST_NAMED("wide area layout", test_wide_area_layout),
	GR_TEST_NAMED("region map constants", test_region_map_constants),
	GR_TEST_NAMED("limit constants", test_limit_constants),
	GR_TEST_NAMED("feature and flag bits", test_feature_and_flag_bits),
	GR_TEST_NAMED("filter constants", test_filter_constants),
	GR_TEST_NAMED("state, mode and special values",
	  test_state_mode_and_special_values),
	GR_TEST_NAMED("doorbell vectors", test_doorbell_vectors),
};

static const struct gr_test need_event_tests[] = {
	GR_TEST_NAMED("need_event truth table", test_need_event_truth_table),
	GR_TEST_NAMED("need_event matches the window everywhere",
	  test_need_event_matches_window_everywhere),
	GR_TEST_NAMED("need_event virtio semantics", test_need_event_virtio_semantics),
};

static const struct gr_test strict_tests[] = {
	GR_TEST_NAMED("header compiles as c99 -pedantic-errors",
	  test_header_compiles_as_c99_pedantic),
	GR_TEST_NAMED("header compiles as c11 -pedantic-errors",
	  test_header_compiles_as_c11_pedantic),
	GR_TEST_NAMED("header compiles as gnu11 -pedantic-errors",
	  test_header_compiles_as_gnu11_pedantic),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("layout", layout_tests, NULL, NULL),
	GR_SUITE("constants", constant_tests, NULL, NULL),
	GR_SUITE("gr_need_event", need_event_tests, NULL, NULL),
	GR_SUITE("strict C", strict_tests, strict_init, NULL),
};

int main(void)
{
	return gr_test_run(suites, ARRAY_SIZE(suites));
}
