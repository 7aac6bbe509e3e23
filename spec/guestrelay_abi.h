/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * guestrelay_abi.h - the shared region between a traced guest and its host
 *
 * This header is the only definition of the guestrelay shared region. The
 * guest kernel module, the host agent and the tests include it; nothing
 * redefines it. The normative text is spec/guestrelay.md; the two are kept
 * in step and carry the same version.
 *
 * Do not change the layout of anything here: it breaks existing guests and
 * hosts. The ABI grows only by appending fields into reserved space behind a
 * new feature bit, and by bumping GR_ABI_MINOR. gr_region_hdr stays 512
 * bytes (the status block follows it) and grows into its reserved tail;
 * readers skip what they do not know using ctrl_size and desc_stride.
 *
 * All multi-byte fields are little-endian. There are no pointers, bool,
 * size_t or enums in shared structures. "guest writes" and "host writes"
 * name the one side allowed to store to a field; the other side only reads
 * it, and treats what it reads as hostile: read once, check, then use.
 *
 * Region (BAR2 of the ivshmem device; a power-of-two size):
 *
 *   0x0000  struct gr_region_hdr     guest writes  identity, geometry, layout
 *   0x0200  struct gr_guest_status   guest writes  acks, state, counters
 *   0x0400  struct gr_name_req       host writes   events by name (v1.7)
 *   0x0800  struct gr_name_ans       guest writes  their answer (v1.7)
 *   0x1000  struct gr_host_ctrl      host writes   requests to the guest
 *   0x1200  gr_filter_slot[7]        host writes   filters (v1.1, GR_F_FILTER)
 *   desc_offset         desc_capacity * gr_event_desc        guest writes
 *                       (v1.13: wide_capacity slots)
 *   wide_offset         struct gr_wide (v1.13)               both (split)
 *   ring_offset         nr_rings * struct gr_ring            both (split)
 *   subbuf_rec_offset   nr_rings * n_subbufs * gr_subbuf_rec guest writes
 *   data_offset         nr_rings * n_subbufs * subbuf_size   guest writes
 *
 * Sub-buffer i of ring r lives at gr_subbuf_off() (below):
 *   data_offset + (r * n_subbufs + i) * subbuf_size
 * and starts with a struct gr_packet_header (a CTF 1.8 packet header and
 * context) followed by event records (struct gr_event_header + payload).
 */
#ifndef _GUESTRELAY_ABI_H
#define _GUESTRELAY_ABI_H

#include <linux/const.h>
#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/math64.h>
#include <linux/stddef.h>
#else
#include <assert.h>
#include <stddef.h>
#if !defined(__cplusplus) && \
	(!defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L)
/* C99 and older have no static_assert: a negative array size fails */
#define static_assert(expr, msg) extern int gr_static_assert_[(expr) ? 1 : -1]
#endif
#endif

#define GR_ABI_MAJOR		1	/* incompatible layout changes */
/*
 * compatible additions: 1 filters; 2 guest info, defaults, follow, families;
 * 3 client channels; 4 last record offset in the commit record;
 * 5 aggregation maps (hist); 6 a second start event of a latency pair;
 * 7 events by name, added at run time (GR_F_ANYEVENT); 8 kprobe events
 * defined by the host (GR_F_PROBE); 9 vmsync records of the clock-sync
 * rounds for Trace Compass (GR_F_VMSYNC); 10 the guest's TSC around its
 * clock-sync answer (GR_F_SYNC_TSC); 11 any number of strings and dynamic
 * arrays in a record (GR_F_DYNARR); 12 clock-sync rounds answered by
 * polling, without a doorbell each (GR_F_SYNC_POLL); 13 up to
 * GR_WIDE_MAX_EVENTS event ids, enabled through the wide area
 * (GR_F_WIDE_EVENTS); 14 fixed arrays of integers in a record
 * (GR_F_ARRAYS); 15 long names and more fields in a descriptor's
 * extension (GR_F_LONG_DESC)
 */
#define GR_ABI_MINOR		15

#define GR_REGION_MAGIC		0x3159414c45525247ULL	/* "GRRELAY1" */
#define GR_CTRL_MAGIC		0x313054534f485247ULL	/* "GRHOST01" */

#define GR_PAGE_SIZE		4096	/* layout unit, independent of CPU */
#define GR_HDR_OFFSET		0x0000	/* struct gr_region_hdr */
#define GR_STATUS_OFFSET	0x0200	/* struct gr_guest_status */
#define GR_CTRL_OFFSET		0x1000	/* struct gr_host_ctrl */
#define GR_LAYOUT_START		0x2000	/* first byte the guest may lay out */

#define GR_MIN_REGION_SIZE	_BITULL(16)	/* 64 KiB */
#define GR_MAX_REGION_SIZE	_BITULL(40)	/* 1 TiB */
#define GR_MIN_SUBBUF_SIZE	4096		/* bytes, power of two */
#define GR_MAX_SUBBUF_SIZE	_BITUL(24)	/* 16 MiB */
#define GR_MIN_SUBBUFS		2
#define GR_MAX_SUBBUFS		65536
#define GR_MAX_RINGS		1024
#define GR_MAX_EVENTS		256	/* ids the control block's enable reaches */
#define GR_WIDE_MAX_EVENTS	1024	/* v1.13: ids the wide area's enable reaches */
#define GR_MAX_FIELDS		16
#define GR_NAME_LEN		32
#define GR_SYSTEM_LEN		16
#define GR_FIELD_NAME_LEN	24
#define GR_CLOCK_NAME_LEN	32
#define GR_RELEASE_LEN		64
#define GR_NODENAME_LEN		64
#define GR_VERSION_LEN		64	/* v1.2: kernel_version */

/*
 * Feature bits. The guest publishes what it implements in
 * gr_region_hdr.guest_features, the host what it implements in
 * gr_host_ctrl.host_features. A feature is in use only when both set it.
 */
#define GR_F_EVENT_IDX		_BITULL(0)	/* doorbell suppression */
#define GR_F_FLIGHT		_BITULL(1)	/* flight-recorder mode */
#define GR_F_CLOCK_SYNC		_BITULL(2)	/* sync_req / sync_ack */
#define GR_F_SWITCH_TIMER	_BITULL(3)	/* partial sub-buffer delivery */
#define GR_F_DOORBELL		_BITULL(4)	/* interrupts wired (not plain) */
#define GR_F_FILTER		_BITULL(5)	/* event filter programs (v1.1) */
#define GR_F_GUEST_INFO		_BITULL(6)	/* header's kernel info (v1.2) */
#define GR_F_DEFAULTS		_BITULL(7)	/* ctrl_flags honoured (v1.2) */
#define GR_F_FOLLOW		_BITULL(8)	/* follow-pid filter (v1.2) */
#define GR_F_SYSCALLS		_BITULL(9)	/* event families (v1.2) */
#define GR_F_LAST_RECORD	_BITULL(10)	/* rec.last_record (v1.4) */
#define GR_F_CLIENT		_BITULL(11)	/* client channels (v1.3) */
#define GR_F_HIST		_BITULL(12)	/* aggregation maps (v1.5) */
#define GR_F_ANYEVENT		_BITULL(13)	/* events by name (v1.7) */
#define GR_F_PROBE		_BITULL(14)	/* probes from the host (v1.8) */
#define GR_F_VMSYNC		_BITULL(15)	/* vmsync records (v1.9) */
#define GR_F_SYNC_TSC		_BITULL(16)	/* TSC in sync answers (v1.10) */
#define GR_F_DYNARR		_BITULL(17)	/* strings, sequences (v1.11) */
#define GR_F_SYNC_POLL		_BITULL(18)	/* polled sync rounds (v1.12) */
#define GR_F_WIDE_EVENTS	_BITULL(19)	/* wide area, 1024 ids (v1.13) */
#define GR_F_ARRAYS		_BITULL(20)	/* fixed integer arrays (v1.14) */
#define GR_F_LONG_DESC		_BITULL(21)	/* descriptor extension (v1.15) */
#define GR_F_KNOWN		0x3fffffULL	/* all bits defined in v1.15 */

/**
 * struct gr_region_hdr - identity, geometry and layout of the region
 *
 * Guest writes, once per publication; host reads. The guest writes every
 * other field first and @magic last, with release semantics (pairs with the
 * host's acquire load of @magic). To withdraw a layout (module unload or
 * re-initialization) the guest stores 0 to @magic first.
 */
struct gr_region_hdr {
	__le64 magic;			/* GR_REGION_MAGIC when published, else 0 */
	__le16 abi_major;		/* GR_ABI_MAJOR of the guest */
	__le16 abi_minor;		/* GR_ABI_MINOR of the guest */
	__le32 hdr_size;		/* sizeof(struct gr_region_hdr): always 512 */
	__le64 region_size;		/* region size as the guest sees it */
	__le64 guest_features;		/* GR_F_* the guest implements */
	__le64 instance_id;		/* new value on every publication */
	__le32 nr_rings;		/* per-CPU rings, or 1 if GR_HDR_GLOBAL */
	__le32 subbuf_size;		/* bytes per sub-buffer, power of two */
	__le32 n_subbufs;		/* sub-buffers per ring */
	__le32 flags;			/* GR_HDR_* */
#define GR_HDR_GLOBAL		_BITUL(0)	/* one ring shared by all CPUs */
	__le64 desc_offset;		/* event descriptor table */
	__le32 desc_count;		/* number of event descriptors */
	__le32 desc_stride;		/* >= 576; GR_F_LONG_DESC: >= 1352 */
	__le64 ring_offset;		/* nr_rings * struct gr_ring */
	__le64 subbuf_rec_offset;	/* nr_rings * n_subbufs records */
	__le64 data_offset;		/* sub-buffer data, GR_PAGE_SIZE aligned */
	__le32 packet_header_size;	/* bytes reserved per sub-buffer: 72 */
	__le32 max_event_size;		/* largest record the guest writes */
	__le64 clock_freq;		/* event clock ticks per second */
	char clock_name[GR_CLOCK_NAME_LEN];	/* e.g. "mono_fast", NUL-padded */
	char kernel_release[GR_RELEASE_LEN];	/* uname -r, NUL-padded */
	char nodename[GR_NODENAME_LEN];	/* uname -n, NUL-padded */
	__u8 boot_id[16];		/* kernel random boot_id (UUID) */
	__le32 nr_cpus;			/* CPUs the guest may run (nr_cpu_ids) */
	__le32 reserved0;		/* 0 */
	/* v1.2, GR_F_GUEST_INFO in guest_features; else 0, ignored */
	char kernel_version[GR_VERSION_LEN];	/* uname -v, NUL-padded */
	__u8 product_uuid[16];		/* DMI product UUID, text order; 0: none */
	/* v1.3, GR_F_CLIENT in guest_features; else 0, ignored (spec 16.1) */
	__le64 client_offset;		/* client area, GR_PAGE_SIZE aligned */
	__le64 client_size;		/* its bytes, GR_PAGE_SIZE multiple */
	/* v1.5, GR_F_HIST in guest_features; else 0, ignored (spec 17.1) */
	__le64 hist_offset;		/* hist area, GR_PAGE_SIZE aligned */
	__le64 hist_size;		/* its bytes, GR_PAGE_SIZE multiple */
	/* v1.7, GR_F_ANYEVENT in guest_features; else 0, ignored (spec 18) */
	__le32 desc_capacity;		/* descriptor slots laid out, >= desc_count */
	/* v1.13, GR_F_WIDE_EVENTS in guest_features; else 0, ignored (spec 19) */
	__le32 wide_capacity;		/* slots laid out, in [desc_capacity, 1024] */
	__le64 wide_offset;		/* struct gr_wide, GR_PAGE_SIZE aligned */
	__u8 reserved[88];		/* 0; grows behind feature bits */
};

static_assert(sizeof(struct gr_region_hdr) == 512, "gr_region_hdr size");
static_assert(offsetof(struct gr_region_hdr, instance_id) == 32, "instance_id");
static_assert(offsetof(struct gr_region_hdr, nr_rings) == 40, "nr_rings");
static_assert(offsetof(struct gr_region_hdr, desc_offset) == 56, "desc_offset");
static_assert(offsetof(struct gr_region_hdr, data_offset) == 88, "data_offset");
static_assert(offsetof(struct gr_region_hdr, clock_freq) == 104, "clock_freq");
static_assert(offsetof(struct gr_region_hdr, clock_name) == 112, "clock_name");
static_assert(offsetof(struct gr_region_hdr, boot_id) == 272, "boot_id");
static_assert(offsetof(struct gr_region_hdr, kernel_version) == 296,
	      "kernel_version");
static_assert(offsetof(struct gr_region_hdr, product_uuid) == 360,
	      "product_uuid");
static_assert(offsetof(struct gr_region_hdr, client_offset) == 376,
	      "client_offset");
static_assert(offsetof(struct gr_region_hdr, hist_offset) == 392, "hist");
static_assert(offsetof(struct gr_region_hdr, desc_capacity) == 408, "dcap");
static_assert(offsetof(struct gr_region_hdr, wide_capacity) == 412, "wcap");
static_assert(offsetof(struct gr_region_hdr, wide_offset) == 416, "woff");
static_assert(offsetof(struct gr_region_hdr, reserved) == 424, "hdr reserved");

/*
 * Event filters (v1.1, GR_F_FILTER; spec section 14). The host writes up
 * to GR_FILTER_SLOTS programs into the filter area that follows struct
 * gr_host_ctrl (ctrl_size 4096); the guest copies, verifies and runs
 * them on the payload of each record of the slot's event before it
 * commits the record.
 */
#define GR_FILTER_SLOTS		7	/* programs in the filter area */
#define GR_FILTER_MAX_INSNS	24	/* instructions per program */
#define GR_FILTER_STRTAB_LEN	112	/* bytes of string constants */
#define GR_FILTER_NO_SLOT	0xff	/* filter_bad_slot: the whole area */
#define GR_FILTER_NO_INSN	0xffff	/* filter_bad_insn: no instruction */

/* Reasons a guest refuses a filter area (gr_guest_status.filter_reason) */
#define GR_FILTER_E_NONE	0	/* no rejection yet */
#define GR_FILTER_E_AREA	1	/* GR_F_FILTER in use, ctrl_size < 4096 */
#define GR_FILTER_E_EVENT	2	/* event_id >= desc_count */
#define GR_FILTER_E_DUP		3	/* two slots name the same event */
#define GR_FILTER_E_LENGTH	4	/* nr_insns or strtab_len over the cap */
#define GR_FILTER_E_RESERVED	5	/* a reserved field or bit is not 0 */
#define GR_FILTER_E_OPCODE	6	/* unknown instruction code */
#define GR_FILTER_E_JUMP	7	/* jump target at or past the end */
#define GR_FILTER_E_LOAD	8	/* load width or offset outside payload */
#define GR_FILTER_E_STRING	9	/* string operand outside payload/strtab */
#define GR_FILTER_E_RET		10	/* return value other than 0 or 1 */
#define GR_FILTER_E_NORET	11	/* last instruction is not GR_FI_RET */
#define GR_FILTER_E_FOLLOW	12	/* follow block: flags, counts, pids */
#define GR_FILTER_E_SETUP	13	/* guest could not set up the followed set */

/*
 * Follow filter (v1.2, GR_F_FOLLOW; spec 15): the host names tasks, the
 * guest records only events of those tasks and, with GR_FOLLOW_F_FORK,
 * of the tasks they fork afterwards (ftrace's set_event_pid with the
 * event-fork option).
 */
#define GR_FOLLOW_MAX_PIDS	64	/* pids in the follow block */
#define GR_FOLLOW_COMM_LEN	32	/* bytes of the comm glob */
#define GR_FOLLOW_PID_LIMIT	0x400000	/* pids are below this (2^22) */

/* Values of gr_guest_status.state */
#define GR_STATE_ABSENT		0	/* no guest driver has published */
#define GR_STATE_IDLE		1	/* published, not recording */
#define GR_STATE_TRACING	2	/* recording enabled events */
#define GR_STATE_STOPPED	3	/* driver unbound; rings closed */
#define GR_STATE_PANIC		4	/* guest panicked; rings closed */

/* Values of gr_host_ctrl.mode and gr_guest_status.mode */
#define GR_MODE_STREAM		0	/* no-overwrite: drop and count when full */
#define GR_MODE_FLIGHT		1	/* overwrite oldest (flight recorder) */

/**
 * struct gr_guest_status - the guest's answers and running state
 *
 * Guest writes; host reads. Each *_ack field is stored with release
 * semantics after the work it acknowledges is visible (pairs with the
 * host's acquire load of that field).
 */
struct gr_guest_status {
	__le32 state;			/* GR_STATE_* */
	__le32 mode;			/* GR_MODE_* in effect */
	__le64 ctrl_ack;		/* last gr_host_ctrl.seq applied */
	__le64 flush_ack;		/* last flush_req completed */
	__le64 reset_ack;		/* last reset_req completed */
	__le64 sync_ack;		/* last sync_req answered */
	__le64 sync_guest_time;		/* event clock when sync_ack was set */
	__le64 session_id;		/* gr_host_ctrl.session_id in effect */
	__le64 enabled[GR_MAX_EVENTS / 64];	/* events being recorded */
	__le32 switch_timer_us;		/* switch timer in effect, 0 = off */
	__le32 ctrl_errors;		/* control requests rejected */
	__le32 last_ctrl_error;		/* errno of the last rejection */
	__le32 peer_id;			/* guest's ivshmem IVPosition */
	__le64 consumed_errors;		/* invalid consumed values ignored */
	__le64 heartbeat;		/* event clock at the last timer tick */
	/* v1.1, GR_F_FILTER (spec 14): all 0 while the feature is not in use */
	__le32 filter_errors;		/* filter areas rejected (wraps) */
	__u8 filter_bad_slot;		/* slot of the last rejection, or 0xff */
	__u8 filter_reason;		/* GR_FILTER_E_* of the last rejection */
	__le16 filter_bad_insn;		/* instruction it names, or 0xffff */
	__le64 filtered[GR_FILTER_SLOTS];	/* events slot i's program rejected */
	/* v1.2, GR_F_FOLLOW (spec 15): all 0 while the feature is not in use */
	__le32 follow_tasks;		/* tasks followed now */
	__le32 follow_missing;		/* named pids with no task at install */
	__le64 follow_dropped;		/* records of tasks not followed */
	__le64 follow_forks;		/* children added by a followed fork */
	/* v1.7, GR_F_ANYEVENT (spec 18): desc_count while not in use */
	__le32 desc_live;		/* descriptors published now; release */
	/* v1.10, GR_F_SYNC_TSC (spec 9.5): with sync_guest_time, 0 without */
	__le32 sync_tsc_half;		/* half-width of the TSC reads, ticks */
	__le64 sync_guest_tsc;		/* midpoint of the TSC reads around it */
	__u8 reserved[288];		/* 0 */
};

static_assert(sizeof(struct gr_guest_status) == 512, "gr_guest_status size");
static_assert(offsetof(struct gr_guest_status, sync_guest_time) == 40, "sync");
static_assert(offsetof(struct gr_guest_status, enabled) == 56, "enabled");
static_assert(offsetof(struct gr_guest_status, switch_timer_us) == 88, "timer");
static_assert(offsetof(struct gr_guest_status, consumed_errors) == 104, "cerr");
static_assert(offsetof(struct gr_guest_status, filter_errors) == 120, "ferr");
static_assert(offsetof(struct gr_guest_status, filtered) == 128, "filtered");
static_assert(offsetof(struct gr_guest_status, follow_tasks) == 184, "ftasks");
static_assert(offsetof(struct gr_guest_status, follow_dropped) == 192, "fdrop");
static_assert(offsetof(struct gr_guest_status, desc_live) == 208, "dlive");
static_assert(offsetof(struct gr_guest_status, sync_tsc_half) == 212, "thalf");
static_assert(offsetof(struct gr_guest_status, sync_guest_tsc) == 216, "gtsc");
static_assert(offsetof(struct gr_guest_status, reserved) == 224, "st rsvd");
static_assert(sizeof(struct gr_region_hdr) + GR_HDR_OFFSET == GR_STATUS_OFFSET,
	      "status follows header");

/**
 * struct gr_host_ctrl - the host's requests
 *
 * Host writes; guest reads. The host updates any settings field and then
 * increments @seq with release semantics (pairs with the guest's acquire
 * load of @seq); the guest applies all fields and stores @seq into
 * gr_guest_status.ctrl_ack. The *_req fields are counters, stored with
 * release and independent of @seq: the guest checks them on every control
 * pass and acts when one differs from the matching *_ack, so a lost
 * doorbell or a repeated one does no harm. All zero means "no host": the guest records
 * with its own defaults.
 */
struct gr_host_ctrl {
	__le64 magic;			/* GR_CTRL_MAGIC while a host is attached */
	__le16 abi_major;		/* GR_ABI_MAJOR of the host */
	__le16 abi_minor;		/* GR_ABI_MINOR of the host */
	__le32 ctrl_size;		/* sizeof(struct gr_host_ctrl): 512 */
	__le64 host_features;		/* GR_F_* the host implements */
	__le64 seq;			/* bumped after a settings field changed */
	__le64 session_id;		/* host's session, echoed in status */
	__le32 tracing;			/* 1: record enabled events, 0: pause */
	__le32 mode;			/* GR_MODE_* wanted */
	__le64 enable[GR_MAX_EVENTS / 64];	/* bit n: record event id n */
	__le32 subbuf_size;		/* wanted at publication, 0 = default */
	__le32 n_subbufs;		/* wanted at publication, 0 = default */
	__le32 switch_timer_us;		/* wanted switch timer, 0 = off */
	__le32 host_peer_id;		/* doorbell target, GR_NO_PEER if none */
#define GR_NO_PEER		0xffffffffU
	__le64 flush_req;		/* counter: close partial sub-buffers */
	__le64 reset_req;		/* counter: discard partial sub-buffers */
	__le64 sync_req;		/* counter: answer with sync_guest_time */
	/* v1.2, GR_F_DEFAULTS: a settings field, 0 while not in use */
	__le32 ctrl_flags;		/* GR_CTRL_F_* */
#define GR_CTRL_F_DEFAULTS	_BITUL(0)	/* events not chosen yet: the guest's own */
	__le32 reserved0;		/* 0 */
	/* v1.2, GR_F_FOLLOW (spec 15): settings, ignored while not in use */
	__le32 follow_flags;		/* GR_FOLLOW_F_*; 0 = no follow filter */
#define GR_FOLLOW_F_ON		0x1	/* record only followed tasks */
#define GR_FOLLOW_F_FORK	0x2	/* a followed task's children too */
#define GR_FOLLOW_F_KNOWN	0x3
	__le16 follow_nr_pids;		/* used entries of @follow_pids */
	__u8 follow_comm_len;		/* bytes of @follow_comm, 0 = none */
	__u8 follow_reserved;		/* 0 */
	__le32 follow_pids[GR_FOLLOW_MAX_PIDS];	/* 1..GR_FOLLOW_PID_LIMIT-1 */
	char follow_comm[GR_FOLLOW_COMM_LEN];	/* glob on comm, no NUL needed */
	/* v1.9, GR_F_VMSYNC (spec 9.8): not a settings field, 0 = none */
	__le64 vm_uid;			/* vmsync records' vm_uid; 0: none */
	__u8 reserved[80];		/* 0 */
};

static_assert(sizeof(struct gr_host_ctrl) == 512, "gr_host_ctrl size");
static_assert(offsetof(struct gr_host_ctrl, seq) == 24, "ctrl seq");
static_assert(offsetof(struct gr_host_ctrl, enable) == 48, "ctrl enable");
static_assert(offsetof(struct gr_host_ctrl, host_peer_id) == 92, "peer");
static_assert(offsetof(struct gr_host_ctrl, flush_req) == 96, "flush_req");
static_assert(offsetof(struct gr_host_ctrl, ctrl_flags) == 120, "ctrl_flags");
static_assert(offsetof(struct gr_host_ctrl, follow_flags) == 128, "follow");
static_assert(offsetof(struct gr_host_ctrl, follow_pids) == 136, "pids");
static_assert(offsetof(struct gr_host_ctrl, follow_comm) == 392, "comm");
static_assert(offsetof(struct gr_host_ctrl, vm_uid) == 424, "vm_uid");
static_assert(offsetof(struct gr_host_ctrl, reserved) == 432, "ctrl reserved");

/**
 * struct gr_wide - the wide area: enable and enabled bits of every id
 *
 * v1.13, GR_F_WIDE_EVENTS (spec 19). The guest lays it out at
 * gr_region_hdr.wide_offset (one GR_PAGE_SIZE page, after the descriptor
 * area) and zeroes it at publication. While the feature is in use the
 * host half replaces gr_host_ctrl.enable (a settings field: the host
 * stores it before the release of gr_host_ctrl.seq) and the guest half
 * extends gr_guest_status.enabled and .desc_live (stored before the
 * release of status.ctrl_ack and status.desc_live). Bits at and above
 * wide_capacity are 0.
 */
struct gr_wide {
	/* host writes */
	__le64 enable[GR_WIDE_MAX_EVENTS / 64];	/* bit n: record event id n */
	__u8 host_reserved[2048 - GR_WIDE_MAX_EVENTS / 8];	/* 0 */
	/* guest writes */
	__le32 desc_live;		/* descriptors published now; release */
	__le32 guest_reserved0;		/* 0 */
	__le64 enabled[GR_WIDE_MAX_EVENTS / 64];	/* events being recorded */
	__u8 guest_reserved[2048 - 8 - GR_WIDE_MAX_EVENTS / 8];	/* 0 */
};

#define GR_WIDE_SIZE		4096	/* sizeof(struct gr_wide) */

static_assert(sizeof(struct gr_wide) == GR_WIDE_SIZE, "gr_wide size");
static_assert(offsetof(struct gr_wide, desc_live) == 2048, "wide guest half");
static_assert(offsetof(struct gr_wide, enabled) == 2056, "wide enabled");
static_assert(GR_WIDE_MAX_EVENTS % 64 == 0 &&
	      GR_WIDE_MAX_EVENTS > GR_MAX_EVENTS, "wide ids");

/*
 * v1.9, GR_F_VMSYNC (spec 9.8): the cnt of the two messages of sync
 * request q, the same on both sides (Trace Compass keys a message by
 * vm_uid and cnt, so each message has a cnt of its own)
 */
#define GR_VMSYNC_HG_CNT(q)	((__u64)(q) * 2)	/* host to guest */
#define GR_VMSYNC_GH_CNT(q)	((__u64)(q) * 2 + 1)	/* guest to host */

/*
 * v1.12, GR_F_SYNC_POLL (spec 9.5, G42, H33): a guest that answered a
 * sync request from its GR_VEC_CTRL interrupt may poll sync_req for the
 * next ones: each wait after the first at most GR_SYNC_POLL_WAIT_NS of
 * its clock, in all at most GR_SYNC_POLL_BURST_NS and GR_SYNC_POLL_MAX
 * answers, one such burst per GR_SYNC_POLL_GAP_NS. The host spins at most
 * GR_SYNC_POLL_WAIT_NS for a polled answer, then rings GR_VEC_CTRL.
 */
#define GR_SYNC_POLL_WAIT_NS	50000ULL	/* 50 us */
#define GR_SYNC_POLL_BURST_NS	200000ULL	/* 200 us */
#define GR_SYNC_POLL_MAX	7		/* a series' rounds but one */
#define GR_SYNC_POLL_GAP_NS	100000000ULL	/* 100 ms */

/* Instruction codes of struct gr_filter_insn (spec 14.2) */
#define GR_FI_RET		0x01	/* return k: 1 record, 0 drop */
#define GR_FI_LD		0x02	/* A := payload[off], @width bytes, zero-extended */
#define GR_FI_LDS		0x03	/* A := payload[off], @width bytes, sign-extended */
#define GR_FI_LD_TID		0x04	/* A := thread id of the record (common_tid) */
#define GR_FI_LD_CPU		0x05	/* A := CPU of the record (common_cpu) */
#define GR_FI_JEQ		0x10	/* A == k ? skip jt : skip jf */
#define GR_FI_JGT		0x11	/* A > k, unsigned */
#define GR_FI_JGE		0x12	/* A >= k, unsigned */
#define GR_FI_JSGT		0x13	/* A > k, signed */
#define GR_FI_JSGE		0x14	/* A >= k, signed */
#define GR_FI_JSET		0x15	/* (A & k) != 0 */
#define GR_FI_JSTREQ		0x20	/* string at off equals the constant */
#define GR_FI_JGLOB		0x21	/* string at off matches the glob */

/**
 * struct gr_filter_insn - one filter instruction (spec 14.2)
 *
 * Host writes; guest reads a private copy and verifies it. A jump skips
 * @jt instructions when its condition holds and @jf when not: targets are
 * always forward. String instructions: @off and @arg are the field's
 * offset and size in the payload, @k bits 0..15 the constant's offset in
 * the strtab and bits 16..31 its length (bits 32..63 are 0).
 */
struct gr_filter_insn {
	__u8 code;			/* GR_FI_* */
	__u8 width;			/* loads: 1, 2, 4 or 8; else 0 */
	__u8 jt;			/* jumps: instructions skipped if true */
	__u8 jf;			/* jumps: instructions skipped if false */
	__le16 off;			/* loads, strings: payload offset */
	__le16 arg;			/* strings: field size; else 0 */
	__le64 k;			/* constant; strings: strtab operand */
};

static_assert(sizeof(struct gr_filter_insn) == 16, "gr_filter_insn size");

/**
 * struct gr_filter_slot - one filter program (spec 14.1)
 *
 * Host writes (a settings field: stored before ctrl.seq is bumped);
 * guest reads once into private memory. @nr_insns 0 means the slot is
 * unused; then every other byte of the slot is ignored.
 */
struct gr_filter_slot {
	__le16 event_id;		/* event the program filters */
	__le16 nr_insns;		/* 1..GR_FILTER_MAX_INSNS, 0 = unused */
	__le16 strtab_len;		/* bytes of @strtab used */
	__le16 reserved0;		/* 0 */
	__le64 reserved1;		/* 0 */
	struct gr_filter_insn insns[GR_FILTER_MAX_INSNS];	/* the program */
	char strtab[GR_FILTER_STRTAB_LEN];	/* string constants, no NUL needed */
};

static_assert(sizeof(struct gr_filter_slot) == 512, "gr_filter_slot size");
static_assert(offsetof(struct gr_filter_slot, insns) == 16, "slot insns");
static_assert(offsetof(struct gr_filter_slot, strtab) == 400, "slot strtab");

/*
 * The filter area: GR_FILTER_SLOTS slots right after struct gr_host_ctrl,
 * filling the control block's room up to GR_LAYOUT_START. Host writes; a
 * host with GR_F_FILTER writes ctrl_size = GR_FILTER_CTRL_SIZE.
 */
#define GR_FILTER_OFFSET	0x1200	/* region offset of slot 0 */
#define GR_FILTER_CTRL_SIZE	4096	/* ctrl_size with the filter area */

static_assert(GR_CTRL_OFFSET + sizeof(struct gr_host_ctrl) == GR_FILTER_OFFSET,
	      "filters follow gr_host_ctrl");
static_assert(GR_FILTER_OFFSET + GR_FILTER_SLOTS *
	      sizeof(struct gr_filter_slot) == GR_LAYOUT_START,
	      "filter area fills the control block's room");

/*
 * Events by name (v1.7, GR_F_ANYEVENT; spec section 18). The host asks in
 * the request strip for events of the guest's kernel by name or glob
 * (GR_NAME_OP_ADD) or for a page of the guest's catalogue of events
 * (GR_NAME_OP_LIST); the guest answers in the answer strip. An event added
 * gets the next free descriptor in [desc_count, desc_capacity): the guest
 * writes it, then stores status.desc_live with release. Descriptors are
 * never changed or reused while the layout is published.
 */
#define GR_NAME_REQ_OFFSET	0x0400	/* struct gr_name_req, host writes */
#define GR_NAME_ANS_OFFSET	0x0800	/* struct gr_name_ans, guest writes */
#define GR_NAME_REQ_TEXT	992	/* request text bytes */
#define GR_NAME_ANS_TEXT	1984	/* answer text bytes */

enum {
	GR_NAME_OP_ADD = 1,		/* text: patterns, comma separated */
	GR_NAME_OP_LIST = 2,		/* text: one glob ("" = every event) */
	GR_NAME_OP_PROBE = 3,		/* v1.8, GR_F_PROBE: a kprobe_events line */
	GR_NAME_OP_UNPROBE = 4,		/* v1.8: a probe name, "" = every one */
};

/*
 * Probes from the host (v1.8, GR_F_PROBE; spec 18.4): the guest creates
 * kprobe events in this tracefs group and lays them out as events by name.
 */
#define GR_PROBE_GROUP		"guestrelay"
#define GR_PROBE_MAX		16	/* host probes alive at a time */

/**
 * struct gr_name_req - the host's request for events by name (1024 bytes)
 *
 * Host writes every other field, then @seq (seq + 1) with release. The
 * guest answers each @seq it sees once, the last one first: a request
 * replaced before its answer is not answered.
 */
struct gr_name_req {
	__le64 seq;			/* request number; 0: none yet */
	__le32 op;			/* GR_NAME_OP_* */
	__le32 offset;			/* LIST: listing byte to start at */
	__le32 len;			/* bytes of @text, <= GR_NAME_REQ_TEXT */
	__u8 reserved[12];		/* 0 */
	char text[GR_NAME_REQ_TEXT];	/* no NUL needed */
};

/**
 * struct gr_name_ans - the guest's answer to a gr_name_req (2048 bytes)
 *
 * Guest writes every other field, then @seq (the request's) with release;
 * the host loads @seq with acquire and reads the rest once.
 */
struct gr_name_ans {
	__le64 seq;			/* the request answered */
	__le32 result;			/* 0, or a positive errno: all refused */
	__le32 matched;			/* events named (ADD), listed (LIST) */
	__le32 added;			/* ADD: descriptors this request added */
	__le32 refused;			/* ADD: events named that cannot be */
	__le32 desc_live;		/* status.desc_live after the request */
	__le32 total;			/* LIST: bytes of the whole listing */
	__le32 next;			/* LIST: next page's offset, or total */
	__le32 len;			/* bytes of @text, <= GR_NAME_ANS_TEXT */
	__u8 reserved[24];		/* 0 */
	char text[GR_NAME_ANS_TEXT];	/* whole lines, no NUL needed */
};

static_assert(sizeof(struct gr_name_req) == 1024, "gr_name_req size");
static_assert(offsetof(struct gr_name_req, text) == 32, "req text");
static_assert(sizeof(struct gr_name_ans) == 2048, "gr_name_ans size");
static_assert(offsetof(struct gr_name_ans, text) == 64, "ans text");
static_assert(GR_STATUS_OFFSET + sizeof(struct gr_guest_status) <=
	      GR_NAME_REQ_OFFSET, "request after status");
static_assert(GR_NAME_ANS_OFFSET + sizeof(struct gr_name_ans) ==
	      GR_CTRL_OFFSET, "answer ends at the control block");

/* Field types of struct gr_field_desc */
#define GR_FIELD_INTEGER	1	/* size 1, 2, 4 or 8; see flags */
#define GR_FIELD_CHARS		2	/* char[size], NUL-padded text */
#define GR_FIELD_STRING		3	/* NUL-terminated, variable part */
#define GR_FIELD_SEQUENCE	4	/* v1.11: integers, count in len_field */
#define GR_FIELD_ARRAY		5	/* v1.14: size / elem_size integers */

/**
 * struct gr_field_desc - one field of an event payload
 *
 * Guest writes (at publication); host reads. Offsets count from the first
 * byte after struct gr_event_header, like a tracepoint format file.
 */
struct gr_field_desc {
	char name[GR_FIELD_NAME_LEN];	/* [a-z_][a-z0-9_]*, NUL-terminated */
	__le16 offset;			/* byte offset in the payload */
	__le16 size;			/* bytes (STRING, SEQUENCE: maximum) */
	__u8 type;			/* GR_FIELD_* */
	__u8 flags;			/* GR_FIELD_F_* */
#define GR_FIELD_F_SIGNED	_BITUL(0)	/* two's complement integer */
#define GR_FIELD_F_HEX		_BITUL(1)	/* display in base 16 */
	/* v1.11, GR_FIELD_SEQUENCE (v1.14: and GR_FIELD_ARRAY); else 0 */
	__u8 elem_size;			/* bytes of an element: 1, 2, 4, 8 */
	/* v1.11, GR_FIELD_SEQUENCE only (spec 7.3); else 0 */
	__u8 len_field;			/* index of the field with the count */
};

static_assert(sizeof(struct gr_field_desc) == 32, "gr_field_desc size");

/*
 * The rwbs field of this guest's native block_rq_insert, block_rq_issue
 * and block_rq_complete (spec 7.5, rev. 2026-11-30): lttng-modules' flag
 * bits, which Trace Compass's Disk I/O analysis reads, not ftrace's text.
 * At most one of WRITE, DISCARD, FLUSH, READ (the operation; SECURE
 * with DISCARD for a secure erase; none for other operations), then the
 * modifiers. Hosts print them as ftrace's letters (gr_rwbs_text()).
 */
#define GR_RWBS_WRITE		_BITUL(0)
#define GR_RWBS_DISCARD		_BITUL(1)
#define GR_RWBS_READ		_BITUL(2)
#define GR_RWBS_RAHEAD		_BITUL(3)
#define GR_RWBS_BARRIER		_BITUL(4)
#define GR_RWBS_SYNC		_BITUL(5)
#define GR_RWBS_META		_BITUL(6)
#define GR_RWBS_SECURE		_BITUL(7)
#define GR_RWBS_FLUSH		_BITUL(8)
#define GR_RWBS_FUA		_BITUL(9)
#define GR_RWBS_PREFLUSH	_BITUL(10)

/**
 * struct gr_event_desc - one event the guest can record
 *
 * Guest writes (at publication); host reads. Descriptor i describes event
 * id i, so the host can decode records and write CTF metadata without any
 * file from the guest.
 *
 * v1.2, GR_F_SYSCALLS in guest_features: a descriptor may also describe a
 * family of record ids, [@family_base, @family_base + @family_count),
 * each a record of this event with the same payload (spec 7.2): member k
 * of the family of raw_syscalls/sys_enter or sys_exit is native system
 * call number k. Only records carry member ids; the enable bit, filter
 * slot and counters are the descriptor's. Without the feature both are
 * 0 and ignored.
 */
struct gr_event_desc {
	char name[GR_NAME_LEN];		/* e.g. "sched_switch", NUL-terminated */
	__le16 id;			/* equals the descriptor's index */
	__le16 nr_fields;		/* used entries of @fields */
	__le16 payload_size;		/* fixed payload bytes (max if VARLEN) */
	__le16 flags;			/* GR_EVENT_F_* */
#define GR_EVENT_F_VARLEN	_BITUL(0)	/* ends with STRING/SEQUENCE */
	char system[GR_SYSTEM_LEN];	/* tracepoint system, e.g. "sched" */
	__le16 family_base;		/* v1.2: first member record id */
	__le16 family_count;		/* v1.2: member ids, 0 = no family */
	__le32 reserved;		/* 0 */
	struct gr_field_desc fields[GR_MAX_FIELDS];
};

#define GR_MAX_FAMILY		1024	/* members of one family */

static_assert(sizeof(struct gr_event_desc) == 576, "gr_event_desc size");
static_assert(offsetof(struct gr_event_desc, family_base) == 56, "family");
static_assert(offsetof(struct gr_event_desc, fields) == 64, "fields");

/*
 * v1.15, GR_F_LONG_DESC (spec 20): longer names and more fields than the
 * 576 bytes of struct gr_event_desc hold. With the bit in guest_features
 * every descriptor slot is at least GR_LONG_DESC_STRIDE bytes and holds a
 * struct gr_event_desc_ext right after its struct gr_event_desc.
 */
#define GR_LONG_NAME_LEN	64	/* an event name, NUL included */
#define GR_LONG_SYSTEM_LEN	32	/* a system name, NUL included */
#define GR_LONG_MAX_FIELDS	32	/* fields of a descriptor and its ext */
#define GR_LONG_FIELD_NAME_LEN	32	/* a long field name, NUL included */
#define GR_LONG_FIELD_NAMES	4	/* long field names per descriptor */

/**
 * struct gr_field_name_ext - the full name of one field (v1.15)
 *
 * Guest writes; host reads. Replaces the name in the field's struct
 * gr_field_desc, which holds a shorter stand-in, unique in its event.
 */
struct gr_field_name_ext {
	char name[GR_LONG_FIELD_NAME_LEN];	/* identifier, NUL-terminated */
	__u8 field;			/* index in the event's whole list */
	__u8 reserved[7];		/* 0 */
};

static_assert(sizeof(struct gr_field_name_ext) == 40, "gr_field_name_ext");

/**
 * struct gr_event_desc_ext - the rest of a descriptor (v1.15, spec 20)
 *
 * Guest writes (with the descriptor, before it is published); host reads
 * it only while GR_F_LONG_DESC is in guest_features and the host knows
 * the bit. Without GR_DESC_EXT_F_USED every byte is 0 and the struct
 * gr_event_desc before it is the whole descriptor. With it, the event's
 * name and system are @name and @system; its fields are the descriptor's
 * fixed fields, then @fields[0 .. @nr_fields - desc.nr_fields), then the
 * descriptor's variable fields (spec 20.1); the descriptor itself stays a
 * valid 576-byte descriptor of the same records for a reader that ignores
 * the extension (short stand-in names, fewer fields).
 */
struct gr_event_desc_ext {
	__le16 flags;			/* GR_DESC_EXT_F_* */
#define GR_DESC_EXT_F_USED	_BITUL(0)	/* the extension is in effect */
	__le16 nr_fields;		/* all fields: desc's and @fields' */
	__u8 nr_long_names;		/* used entries of @long_names */
	__u8 reserved0[3];		/* 0 */
	char name[GR_LONG_NAME_LEN];	/* full event name, NUL-terminated */
	char system[GR_LONG_SYSTEM_LEN];	/* full system, NUL-terminated */
	/* fixed fields (INTEGER, CHARS) after the descriptor's fixed ones */
	struct gr_field_desc fields[GR_LONG_MAX_FIELDS - GR_MAX_FIELDS];
	struct gr_field_name_ext long_names[GR_LONG_FIELD_NAMES];
};

/* a descriptor slot with its extension: GR_LONG_DESC_STRIDE bytes */
struct gr_event_desc_long {
	struct gr_event_desc desc;	/* valid on its own */
	struct gr_event_desc_ext ext;	/* v1.15, GR_F_LONG_DESC */
};

#define GR_LONG_DESC_STRIDE	1352	/* sizeof(struct gr_event_desc_long) */

static_assert(sizeof(struct gr_event_desc_ext) == 776, "gr_event_desc_ext");
static_assert(offsetof(struct gr_event_desc_ext, name) == 8, "ext name");
static_assert(offsetof(struct gr_event_desc_ext, fields) == 104, "ext f");
static_assert(offsetof(struct gr_event_desc_ext, long_names) == 616, "ln");
static_assert(sizeof(struct gr_event_desc_long) == GR_LONG_DESC_STRIDE,
	      "gr_event_desc_long size");
static_assert(GR_LONG_DESC_STRIDE % 8 == 0, "stride multiple of 8");

/**
 * struct gr_ring_prod - producer half of a ring's counters
 *
 * Guest writes; host reads. 64 bytes, one cache line of its own.
 */
struct gr_ring_prod {
	__le64 produced;		/* finished sub-buffers, free-running */
	__le64 lost_full;		/* events dropped: no free sub-buffer */
	__le64 lost_too_big;		/* events dropped: larger than a sub-buffer */
	__le64 lost_nested;		/* events dropped: nested on this CPU */
	__le64 overwritten;		/* sub-buffers overwritten unconsumed */
	__le64 cons_event;		/* ring GR_VEC_CONSUMED past this index */
	__le64 events;			/* events written, free-running */
	__le32 flags;			/* GR_RING_F_* */
#define GR_RING_F_ONLINE	_BITUL(0)	/* CPU online, may produce */
	__le32 reserved;		/* 0 */
};

/**
 * struct gr_ring_cons - consumer half of a ring's counters
 *
 * Host writes; guest reads. 64 bytes, one cache line of its own.
 */
struct gr_ring_cons {
	__le64 consumed;		/* sub-buffers consumed, free-running */
	__le64 prod_event;		/* ring GR_VEC_DATA past this index */
	__u8 reserved[48];		/* 0 */
};

/**
 * struct gr_ring - the counters of one ring (one per CPU, or one global)
 */
struct gr_ring {
	struct gr_ring_prod prod;	/* guest writes */
	struct gr_ring_cons cons;	/* host writes */
};

static_assert(sizeof(struct gr_ring_prod) == 64, "gr_ring_prod size");
static_assert(sizeof(struct gr_ring_cons) == 64, "gr_ring_cons size");
static_assert(sizeof(struct gr_ring) == 128, "gr_ring size");
static_assert(offsetof(struct gr_ring, cons) == 64, "cons line");

/**
 * struct gr_subbuf_rec - commit record of one sub-buffer
 *
 * Guest writes; host reads. @seq is GR_SEQ_BUSY while the guest writes the
 * sub-buffer, and the sub-buffer's packet_seq_num once it is finished;
 * @bytes is stored before @seq, which is stored with release semantics
 * (pairs with the host's acquire load of @seq). A reader that loads the
 * same finished @seq before and after reading the sub-buffer has read a
 * consistent sub-buffer (a seqlock; needed in flight-recorder mode).
 *
 * v1.4, GR_F_LAST_RECORD in guest_features: @last_record is the offset in
 * the sub-buffer of the last record's struct gr_event_header (0: none, or
 * not known), stored with @bytes before @seq; a host with the bit checks
 * it (spec H31) and, if it passes, need not walk the records to find
 * where the last one is. Without the bit it is reserved, 0.
 */
struct gr_subbuf_rec {
	__le64 seq;			/* packet_seq_num, or GR_SEQ_BUSY */
#define GR_SEQ_BUSY		0xffffffffffffffffULL
	__le32 bytes;			/* content bytes, packet header included */
	__le32 last_record;		/* v1.4: last record's offset, or 0 */
};

static_assert(sizeof(struct gr_subbuf_rec) == 16, "gr_subbuf_rec size");

/*
 * Sub-buffer states (spec 6.2). Packet number c (the value of produced
 * when the guest started it) lives in slot gr_subbuf_slot(c, n_subbufs);
 * its state is not stored anywhere, it follows from the ring's counters
 * and the commit record. The numbers are the pairs of spec section 10.
 *
 *   guest: start (6.3)                 guest: finish (6.5)
 *   rec.seq := GR_SEQ_BUSY,            header end fields, rec.bytes,
 *   smp_wmb() (#4), packet             release rec.seq := c (#5),
 *   header reserved                    release produced := c + 1 (#6)
 *  +------+ ----------> +---------------+ ----------> +----------+
 *  | FREE |             | BEING_WRITTEN |             | PRODUCED |
 *  +------+             +---------------+ <---------- +----------+
 *     ^                           flight mode only:        |
 *     |                           the guest restarts       | host: acquire
 *     |                           it unconsumed,           | produced (#6) and
 *     |                           overwritten += 1         | rec.seq == c (#5),
 *     |                                                    | header copy checked,
 *     |  host: write complete (or   +-----------+          | write submitted
 *     +---------------------------- | IN_FLIGHT | <--------+
 *        dropped), then release     +-----------+
 *        consumed := c + 1 (#7)
 *
 * Only the guest moves a slot into BEING_WRITTEN or PRODUCED; only the
 * host moves it back to FREE, by advancing consumed. IN_FLIGHT is the
 * host's own name for a PRODUCED slot it is storing: to the guest it is
 * PRODUCED, which a stream-mode guest never writes (G10). In flight mode
 * the guest may restart a PRODUCED or IN_FLIGHT slot; the host sees
 * rec.seq change (the seqlock of 6.5) and drops what it read.
 *
 * A guest-side ring has at most one BEING_WRITTEN slot, and none while a
 * stream-mode switch is refused (every slot PRODUCED).
 */
enum gr_subbuf_state {
	GR_SUBBUF_FREE,			/* consumed or never used */
	GR_SUBBUF_BEING_WRITTEN,	/* guest only; rec.seq is GR_SEQ_BUSY */
	GR_SUBBUF_PRODUCED,		/* finished; the host may read it */
	GR_SUBBUF_IN_FLIGHT,		/* host only: PRODUCED, being stored */
};

/*
 * Addressing of the region (spec 3.1), the one place both sides compute
 * it, as virtio_ring.h's vring_init(): region offsets from the header's
 * layout fields in CPU byte order. A guest passes its own layout; a host
 * passes only values it checked (H3) and indexes in range (@k <
 * desc_count, @r < nr_rings, @i < n_subbufs), so nothing overflows: the
 * checked areas end inside the region.
 */

/* gr_desc_off() - region offset of event descriptor @k */
static inline __u64 gr_desc_off(__u64 desc_offset, __u32 desc_stride,
				__u32 k)
{
	return desc_offset + (__u64)k * desc_stride;
}

/* gr_ring_off() - region offset of the struct gr_ring of ring @r */
static inline __u64 gr_ring_off(__u64 ring_offset, __u32 r)
{
	return ring_offset + (__u64)r * sizeof(struct gr_ring);
}

/* gr_subbuf_rec_off() - region offset of the commit record of slot @i, ring @r */
static inline __u64 gr_subbuf_rec_off(__u64 subbuf_rec_offset,
				      __u32 n_subbufs, __u32 r, __u32 i)
{
	return subbuf_rec_offset +
	       ((__u64)r * n_subbufs + i) * sizeof(struct gr_subbuf_rec);
}

/* gr_subbuf_off() - region offset of the sub-buffer in slot @i of ring @r */
static inline __u64 gr_subbuf_off(__u64 data_offset, __u32 n_subbufs,
				  __u32 subbuf_size, __u32 r, __u32 i)
{
	return data_offset + ((__u64)r * n_subbufs + i) * subbuf_size;
}

/* gr_data_size() - bytes of the data area: every sub-buffer of every ring */
static inline __u64 gr_data_size(__u32 nr_rings, __u32 n_subbufs,
				 __u32 subbuf_size)
{
	return (__u64)nr_rings * n_subbufs * subbuf_size;
}

/*
 * gr_subbuf_slot() - the slot of packet number @c (spec 6.1); each side
 * passes its private counters, never a value read from the region (G8)
 */
static inline __u32 gr_subbuf_slot(__u64 c, __u32 n_subbufs)
{
#ifdef __KERNEL__
	__u32 slot;

	/* a 64-bit division a 32-bit kernel can link */
	div_u64_rem(c, n_subbufs, &slot);
	return slot;
#else
	return (__u32)(c % n_subbufs);
#endif
}

#define GR_CTF_MAGIC		0xc1fc1fc1U

/**
 * struct gr_packet_header - start of every sub-buffer: CTF packet
 * header and packet context
 *
 * Guest writes; host reads a private copy, checks it and writes that copy
 * to disk. The CTF metadata the host generates declares exactly these
 * fields, little-endian, in this order.
 */
struct gr_packet_header {
	__le32 magic;			/* GR_CTF_MAGIC */
	__le32 stream_id;		/* 0: the only stream class */
	__le64 stream_instance_id;	/* ring index */
	__le64 timestamp_begin;		/* event clock at the first event slot */
	__le64 timestamp_end;		/* event clock when the packet closed */
	__le64 content_size;		/* bits of header + events */
	__le64 packet_size;		/* bits: subbuf_size * 8 */
	__le64 packet_seq_num;		/* index of this sub-buffer in its ring */
	__le64 events_discarded;	/* lost events of the ring so far */
	__le32 cpu_id;			/* CPU of the ring (0 if global) */
	__le32 reserved;		/* 0 */
};

static_assert(sizeof(struct gr_packet_header) == 72, "gr_packet_header size");
static_assert(offsetof(struct gr_packet_header, content_size) == 32, "content");
static_assert(offsetof(struct gr_packet_header, cpu_id) == 64, "cpu_id");

/**
 * struct gr_event_header - start of every event record
 *
 * Records are 8-byte aligned and never cross a sub-buffer. @size is the
 * record length (header, payload and tail padding), a multiple of 8.
 * In CTF terms @timestamp and @id are the event header and @size and @tid
 * the stream's event context (CTF readers ignore other header fields).
 */
struct gr_event_header {
	__le64 timestamp;		/* event clock */
	__le16 id;			/* descriptor index or member id */
	__le16 size;			/* record bytes, multiple of 8, >= 16 */
	__le32 tid;			/* current thread id when recorded */
};

static_assert(sizeof(struct gr_event_header) == 16, "gr_event_header size");
static_assert(offsetof(struct gr_event_header, id) == 8, "event id");
static_assert(offsetof(struct gr_event_header, tid) == 12, "event tid");

#define GR_RECORD_ALIGN		8

/*
 * Doorbell vectors. Guest to host: the guest writes
 * (host_peer_id << 16) | vector to the ivshmem Doorbell register.
 * Host to guest: the host signals the guest's eventfd for the vector,
 * which raises that MSI-X vector.
 */
#define GR_VEC_DATA		0	/* guest->host: sub-buffers produced */
#define GR_VEC_STATUS		1	/* guest->host: status changed */
#define GR_VEC_CTRL		0	/* host->guest: ctrl.seq or a req changed */
#define GR_VEC_CONSUMED		1	/* host->guest: consumed passed cons_event */
#define GR_NR_VECTORS		2

/**
 * gr_need_event() - should a side ring the doorbell?
 * @event: the index the other side asked to be woken past
 * @new_idx: the counter after this update
 * @old: the counter before this update
 *
 * An optimization only, as virtio's vring_need_event(): the other side
 * MUST tolerate spurious and missed doorbells and re-check the counters.
 *
 * Return: non-zero if @event lies in [@old, @new_idx).
 */
static inline int gr_need_event(__u64 event, __u64 new_idx, __u64 old)
{
	return (__u64)(new_idx - event - 1) < (__u64)(new_idx - old);
}

/*
 * Client channels (v1.3, GR_F_CLIENT; spec section 16). The client area
 * [client_offset, client_offset + client_size) starts with a directory of
 * GR_CLIENT_MAX entries (guest writes), then one acknowledgment per entry
 * (host writes); the channels' rings, commit records and sub-buffers follow
 * from GR_CLIENT_DIR_SIZE on, addressed with gr_ring_off(),
 * gr_subbuf_rec_off() and gr_subbuf_off() from an entry's offsets.
 */
#define GR_CLIENT_MAX		16	/* directory entries */
#define GR_CLIENT_ACK_OFFSET	0x800	/* __le64 client_ack[GR_CLIENT_MAX] */
#define GR_CLIENT_DIR_SIZE	0x1000	/* first byte of channel areas */
#define GR_CLIENT_MAX_SUBBUF	_BITUL(20)	/* 1 MiB */
#define GR_CLIENT_MAX_SUBBUFS	1024

/**
 * struct gr_client_chan - one directory entry of the client area
 *
 * Guest writes; host reads (spec 16.2, 16.3). @gen is 0 for an entry never
 * used, odd while the guest changes or has withdrawn it, even and non-zero
 * while the channel is published; the guest stores it with release after
 * every other field. A reader copies the entry between two acquire loads
 * of @gen that return the same even value.
 */
struct gr_client_chan {
	__le64 gen;			/* publication generation, see above */
	char name[GR_NAME_LEN];		/* [a-z][a-z0-9_]*, NUL-terminated */
	__le32 flags;			/* GR_CLIENT_* */
#define GR_CLIENT_GLOBAL	_BITUL(0)	/* one ring for all CPUs */
#define GR_CLIENT_OVERWRITE	_BITUL(1)	/* overwrite (flight) mode */
#define GR_CLIENT_KLOG		_BITUL(2)	/* the klog channel (16.6) */
	__le32 nr_rings;		/* nr_cpus, or 1 if GR_CLIENT_GLOBAL */
	__le32 subbuf_size;		/* power of two, 4 KiB..1 MiB */
	__le32 n_subbufs;		/* 2..GR_CLIENT_MAX_SUBBUFS */
	__le64 ring_offset;		/* region offset, 64-byte aligned */
	__le64 subbuf_rec_offset;	/* region offset, 64-byte aligned */
	__le64 data_offset;		/* region offset, GR_PAGE_SIZE aligned */
	__u8 reserved[48];		/* 0 */
};

static_assert(sizeof(struct gr_client_chan) == 128, "gr_client_chan size");
static_assert(offsetof(struct gr_client_chan, flags) == 40, "client flags");
static_assert(offsetof(struct gr_client_chan, ring_offset) == 56,
	      "client ring_offset");
static_assert(GR_CLIENT_MAX * sizeof(struct gr_client_chan) <=
	      GR_CLIENT_ACK_OFFSET, "directory before the acknowledgments");
static_assert(GR_CLIENT_ACK_OFFSET + GR_CLIENT_MAX * 8 <= GR_CLIENT_DIR_SIZE,
	      "acknowledgments inside the directory page");

/**
 * struct gr_klog_rec - one message of the klog channel (spec 16.6)
 *
 * Guest writes, followed by @len bytes of text without a NUL; records are
 * packed (no alignment) like every client message.
 */
struct gr_klog_rec {
	__le64 timestamp;		/* event clock (clock_freq) */
	__le32 len;			/* text bytes that follow */
	__le32 flags;			/* GR_KLOG_F_* */
#define GR_KLOG_F_RAW		_BITUL(0)	/* gr_klog_raw(): bytes as given */
};

static_assert(sizeof(struct gr_klog_rec) == 16, "gr_klog_rec size");

/*
 * Aggregation (v1.5, GR_F_HIST; spec section 17): ftrace's hist triggers
 * run in the guest. The hist area [hist_offset, hist_offset + hist_size)
 * holds GR_HIST_REQS requests (host writes), one state per request (guest
 * writes), then the maps (guest writes): request slot i owns
 * gr_hist_slot_bytes() bytes from gr_hist_slot_off(), one map per
 * possible CPU, each gr_hist_map_bytes() long.
 */
#define GR_HIST_REQS		8	/* request slots */
#define GR_HIST_REQ_OFFSET	0x0000	/* struct gr_hist_req[GR_HIST_REQS] */
#define GR_HIST_STATE_OFFSET	0x1000	/* struct gr_hist_state[GR_HIST_REQS] */
#define GR_HIST_MAPS_OFFSET	0x2000	/* first byte of the maps */
#define GR_HIST_MIN_SIZE	0x10000	/* smallest hist area: 64 KiB */
#define GR_HIST_MAX_KEYS	2
#define GR_HIST_MAX_VALS	3
#define GR_HIST_MAX_INSNS	16	/* filter instructions of a request */
#define GR_HIST_STRTAB_LEN	112
#define GR_HIST_MIN_ENTRIES_LOG2 3	/* 8 entries per CPU map */
#define GR_HIST_MAX_ENTRIES_LOG2 16	/* 65536 */
#define GR_HIST_PROBE		8	/* slots a lookup probes at most */

/* gr_hist_req.kind */
#define GR_HIST_PLAIN		0	/* one event: ftrace's hist trigger */
#define GR_HIST_PAIR		1	/* latency from event_id to end_event_id */

/* gr_hist_req.hflags (v1.6; a 1.5 guest refuses any: GR_HIST_E_RESERVED) */
#define GR_HIST_F_START2	_BITUL(0)	/* pairs: start2_event_id starts too */
#define GR_HIST_F_KNOWN		0x1

/* gr_hist_key.src: where a key, value or match comes from */
#define GR_HS_NONE		0	/* unused */
#define GR_HS_FIELD		1	/* payload bytes [off, off + width) */
#define GR_HS_TID		2	/* gr_event_header.tid (common_pid) */
#define GR_HS_CPU		3	/* the recording CPU (common_cpu) */
#define GR_HS_DELTA		4	/* pairs: end - start, nanoseconds */
#define GR_HS_CONST		5	/* vals only: @arg (vals=1 counts) */

/* gr_hist_key.flags */
#define GR_HK_SIGNED		_BITUL(0)	/* GR_HS_FIELD: sign-extend */
#define GR_HK_KNOWN		0x1

/* gr_hist_key.xform (keys only; values and matches use GR_HT_NONE) */
#define GR_HT_NONE		0	/* the value itself */
#define GR_HT_LOG2		1	/* v <= 1: 0; else ilog2(v - 1) + 1 */
#define GR_HT_BUCKET		2	/* v / arg * arg, arg >= 1 */

/**
 * struct gr_hist_key - one key, value or match operand of a request
 *
 * Host writes, inside struct gr_hist_req (spec 17.2). Unused operands and
 * their reserved bytes are 0.
 */
struct gr_hist_key {
	__u8 src;			/* GR_HS_* */
	__u8 width;			/* GR_HS_FIELD: 1, 2, 4 or 8; else 0 */
	__u8 flags;			/* GR_HK_* */
	__u8 xform;			/* GR_HT_* */
	__le16 off;			/* GR_HS_FIELD: payload offset */
	__le16 reserved;		/* 0 */
	__le64 arg;			/* GR_HT_BUCKET width, GR_HS_CONST value */
};

static_assert(sizeof(struct gr_hist_key) == 16, "gr_hist_key size");

/**
 * struct gr_hist_req - one aggregation request (spec 17.2)
 *
 * Host writes; part of the settings (9.1) when GR_F_HIST is in use. A slot
 * with @gen 0 is unused. The host gives a new @gen to every new, changed
 * or cleared request; the guest zeroes the slot's maps when it starts
 * counting for a @gen it has not run.
 */
struct gr_hist_req {
	__le64 gen;			/* 0: unused; else request generation */
	__le16 event_id;		/* the event (the start of a pair) */
	__le16 end_event_id;		/* GR_HIST_PAIR: the end; else 0 */
	__u8 kind;			/* GR_HIST_PLAIN or GR_HIST_PAIR */
	__u8 nr_keys;			/* 1..GR_HIST_MAX_KEYS */
	__u8 nr_vals;			/* 0..GR_HIST_MAX_VALS, beside hitcount */
	__u8 entries_log2;		/* entries per CPU map: 2^n */
	struct gr_hist_key key[GR_HIST_MAX_KEYS];
	struct gr_hist_key val[GR_HIST_MAX_VALS];
	struct gr_hist_key match[2];	/* pairs: start side, end side */
	__le16 nr_insns;		/* filter on the (end) event, 0 = none */
	__le16 strtab_len;		/* bytes of @strtab used */
	__le16 start2_event_id;		/* GR_HIST_F_START2: a second start */
	__u8 hflags;			/* GR_HIST_F_* (v1.6) */
	__u8 reserved0;			/* 0 */
	__le64 reserved1;		/* 0 */
	struct gr_filter_insn insns[GR_HIST_MAX_INSNS];
	__u8 strtab[GR_HIST_STRTAB_LEN];
};

static_assert(sizeof(struct gr_hist_req) == 512, "gr_hist_req size");
static_assert(offsetof(struct gr_hist_req, key) == 16, "hist key");
static_assert(offsetof(struct gr_hist_req, match) == 96, "hist match");
static_assert(offsetof(struct gr_hist_req, start2_event_id) == 132,
	      "hist start2");
static_assert(offsetof(struct gr_hist_req, insns) == 144, "hist insns");
static_assert(offsetof(struct gr_hist_req, strtab) == 400, "hist strtab");
static_assert(GR_HIST_REQS * sizeof(struct gr_hist_req) <=
	      GR_HIST_STATE_OFFSET, "requests before the states");

/* gr_hist_state.state */
#define GR_HIST_IDLE		0	/* slot unused (gen 0) */
#define GR_HIST_RUNNING		1	/* maps count for @gen */
#define GR_HIST_REFUSED		2	/* @gen refused: see @reason */

/* gr_hist_state.reason */
#define GR_HIST_E_NONE		0
#define GR_HIST_E_EVENT		1	/* event id >= desc_count */
#define GR_HIST_E_KIND		2	/* kind, counts or pair fields */
#define GR_HIST_E_KEY		3	/* key[@bad] invalid */
#define GR_HIST_E_VAL		4	/* val[@bad] invalid */
#define GR_HIST_E_MATCH		5	/* match[@bad] invalid */
#define GR_HIST_E_SIZE		6	/* entries_log2 out of range or maps too big */
#define GR_HIST_E_FILTER	7	/* filter: @filter_reason at insn @bad */
#define GR_HIST_E_RESERVED	8	/* a reserved byte or bit is not 0 */
#define GR_HIST_E_NOMEM		9	/* guest could not allocate its tables */
#define GR_HIST_E_ATTACH	10	/* guest could not attach the probes */

/**
 * struct gr_hist_state - the guest's answer to request slot i (spec 17.3)
 *
 * Guest writes. @gen is the request generation last processed, stored
 * with release after the other fields (and, for GR_HIST_RUNNING, after
 * the maps were zeroed and stamped with it).
 */
struct gr_hist_state {
	__le64 gen;			/* request gen processed */
	__le32 state;			/* GR_HIST_IDLE, RUNNING or REFUSED */
	__u8 reason;			/* GR_HIST_E_* */
	__u8 filter_reason;		/* GR_HIST_E_FILTER: GR_FILTER_E_* */
	__le16 bad;			/* operand or instruction index */
	__u8 reserved[48];		/* 0 */
};

static_assert(sizeof(struct gr_hist_state) == 64, "gr_hist_state size");
static_assert(GR_HIST_STATE_OFFSET + GR_HIST_REQS *
	      sizeof(struct gr_hist_state) <= GR_HIST_MAPS_OFFSET, "states");

/**
 * struct gr_hist_map_hdr - head of one CPU's map of one request (17.4)
 *
 * Guest writes; the CPU that owns the map is its only writer. Counters run
 * from the zeroing for @gen.
 */
struct gr_hist_map_hdr {
	__le64 gen;			/* request gen this map counts for */
	__le64 hits;			/* events the program accepted */
	__le64 dropped;			/* accepted, no entry free (ftrace's) */
	__le64 nested;			/* skipped: nested in an update */
	__le64 unmatched;		/* pairs: an end without its start */
	__le64 reserved[3];		/* 0 */
};

static_assert(sizeof(struct gr_hist_map_hdr) == 64, "gr_hist_map_hdr size");

/**
 * struct gr_hist_entry - one key of one CPU's map (spec 17.4)
 *
 * Guest writes: @seq is made odd, then the other fields are written, then
 * @seq is made even (write barriers between). A reader copies the entry
 * between two acquire loads of @seq that return the same even value.
 */
struct gr_hist_entry {
	__le32 seq;			/* odd while the guest writes */
	__le32 used;			/* 0 free, 1 used (until the next clear) */
	__le64 key[GR_HIST_MAX_KEYS];	/* after the transform */
	__le64 hitcount;		/* events counted under this key */
	__le64 val[GR_HIST_MAX_VALS];	/* sums, modulo 2^64 */
};

static_assert(sizeof(struct gr_hist_entry) == 56, "gr_hist_entry size");

/* Bytes of one CPU's map of 2^@entries_log2 entries */
static inline __u64 gr_hist_map_bytes(__u32 entries_log2)
{
	return sizeof(struct gr_hist_map_hdr) +
	       ((__u64)sizeof(struct gr_hist_entry) << entries_log2);
}

/* Bytes each request slot owns in a hist area of @hist_size bytes */
static inline __u64 gr_hist_slot_bytes(__u64 hist_size)
{
	return ((hist_size - GR_HIST_MAPS_OFFSET) / GR_HIST_REQS) & ~63ULL;
}

/* Offset, in the hist area, of request @slot's map for CPU @cpu */
static inline __u64 gr_hist_map_off(__u64 hist_size, __u32 slot, __u32 cpu,
				    __u32 entries_log2)
{
	return GR_HIST_MAPS_OFFSET + slot * gr_hist_slot_bytes(hist_size) +
	       cpu * gr_hist_map_bytes(entries_log2);
}

#endif /* _GUESTRELAY_ABI_H */
