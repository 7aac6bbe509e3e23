// SPDX-License-Identifier: GPL-2.0
/*
 * ctf.c - CTF 1.8 metadata and the .guestrelay file of a VM's trace
 *
 * The storage layout is described in ctf.h. This file turns a validated
 * region view and event views (validate.h) into TSDL text that declares
 * exactly the bytes the guest writes, as spec/guestrelay.md section 7.5
 * prescribes:
 *
 *   packet   struct gr_packet_header (72 bytes)
 *            = packet.header  { magic, stream_id, stream_instance_id } 16
 *            + packet.context { timestamp_begin, timestamp_end,
 *                               content_size, packet_size, packet_seq_num,
 *                               events_discarded, cpu_id }            52
 *            + 4 reserved bytes, not declared: the event header's
 *              align(64) skips them, so readers do not print them
 *   record   struct gr_event_header (16 bytes)
 *            = event.header  { timestamp, id } align(64)             10
 *            + event.context { _size, _tid }                          6
 *            then the payload fields at their descriptor offsets
 *
 * (babeltrace2 2.0.4 ignores, with a warning, event header fields other
 * than id and timestamp; as the stream's event context, size and tid are
 * shown, tid under LTTng's name for it.) Every integer is declared with
 * its natural alignment (at most 64 bits) where that lands on its
 * descriptor offset, so a C-like payload decodes without any padding
 * field; a gap no alignment explains (between fields, or at the end of a
 * fixed-size event when the next header's align(64) would not skip it)
 * is a byte array named __gr_pad<offset>, which no payload of the
 * reference guest has. A record's tail padding is skipped by the next
 * event header's align(64); the last record of a packet has none to
 * skip, because the host stores content_size up to its last declared
 * byte (gr_packet_content_end(), spec 6.12). The spec reserves field
 * names beginning with "_gr_" for these (checked again here: such a
 * name is refused).
 *
 * Guest strings arrive validated, and are still escaped: names of events
 * and fields appear only as identifiers [a-z_][a-z0-9_]* (re-checked here)
 * behind a '_' that CTF readers strip, and every string literal goes
 * through tsdl_string(), which escapes '"', '\\' and every byte outside
 * 0x20..0x7e as a three-digit octal escape. (babeltrace2 2.0.4 reads "\x"
 * escapes greedily as in C - "\x7fb" is one character - so octal it is.)
 * No guest or operator string is ever written inside a comment.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "ctf.h"
#include "syscalls_x86_64.h"


/* --- text buffer ---------------------------------------------------------- */

/* a growable string; the first allocation failure sticks in @err */
struct sbuf {
	char *p;
	size_t len;
	size_t cap;
	int err;
};

static int sb_grow(struct sbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->err)
		return b->err;
	while (cap < b->len + need + 1)
		cap *= 2;
	if (cap == b->cap)
		return 0;
	p = realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static void __attribute__((format(printf, 2, 3)))
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = b->err ? b->err : -EINVAL;
		return;
	}
	if (sb_grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void sb_putc(struct sbuf *b, char c)
{
	if (sb_grow(b, 1))
		return;
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

/* a TSDL string literal holding exactly the bytes of @s */
static void tsdl_string(struct sbuf *b, const char *s)
{
	sb_putc(b, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			sb_printf(b, "\\%03o", c);
		else
			sb_putc(b, (char)c);
	}
	sb_putc(b, '"');
}

/**
 * gr_uuid_str() - format a UUID in its canonical text form
 * @uuid: 16 bytes, in the order they are printed
 * @out: receives 36 characters and a NUL
 *
 * Context: any; does not sleep.
 */
void gr_uuid_str(const uint8_t uuid[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	unsigned int i;
	char *o = out;

	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*o++ = '-';
		*o++ = hex[uuid[i] >> 4];
		*o++ = hex[uuid[i] & 15];
	}
	*o = '\0';
}

/* --- clock ---------------------------------------------------------------- */

/**
 * gr_ctf_clock_from_sync() - map guest clock values to host wall time
 * @freq: guest clock frequency (gr_view.clock_freq)
 * @guest_ticks: guest clock value of a sync exchange
 * @host_ns: host CLOCK_REALTIME, in ns since the Epoch, at the same instant
 *	(the middle of the tightest round trip)
 * @error_ns: error bound of the exchange (half the round trip), ns
 * @clock: receives the CTF clock offset and precision, synced = 1
 *
 * Chooses offset_s and offset (in ticks, 0 <= offset < @freq) so that a
 * CTF reader maps @guest_ticks to @host_ns (to within a tick), and
 * precision = @error_ns rounded up to ticks.
 *
 * Context: any; does not sleep.
 * Return: 0, -EINVAL if @freq is 0 or above GR_MAX_CLOCK_FREQ, -ERANGE if
 * the offset is more than about 292 years from the Epoch (CTF readers
 * count nanoseconds from the origin in 64 bits; babeltrace2 refuses the
 * whole trace beyond that) or the precision does not fit 64 bits.
 */
int gr_ctf_clock_from_sync(uint64_t freq, uint64_t guest_ticks,
			   int64_t host_ns, uint64_t error_ns,
			   struct gr_ctf_clock *clock)
{
	__int128 host_ticks, total, secs, rem, prec;

	if (!freq || freq > GR_MAX_CLOCK_FREQ)
		return -EINVAL;
	/* floor(host_ns * freq / 10^9), also for negative host_ns */
	host_ticks = (__int128)host_ns * freq;
	rem = host_ticks % NSEC_PER_SEC;
	host_ticks /= NSEC_PER_SEC;
	if (rem < 0)
		host_ticks -= 1;
	total = host_ticks - (__int128)guest_ticks;
	secs = total / (__int128)freq;
	rem = total % (__int128)freq;
	if (rem < 0) {
		secs -= 1;
		rem += freq;
	}
	/* CTF readers compute ns from the origin in an int64_t */
	if (secs > INT64_MAX / NSEC_PER_SEC || secs < INT64_MIN / NSEC_PER_SEC)
		return -ERANGE;
	prec = ((__int128)error_ns * freq + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
	if (prec > (__int128)UINT64_MAX)
		return -ERANGE;
	memset(clock, 0, sizeof(*clock));
	clock->offset_s = (int64_t)secs;
	clock->offset = (uint64_t)rem;
	clock->precision = (uint64_t)prec;
	clock->error_ns = error_ns;
	clock->synced = 1;
	return 0;
}

/**
 * gr_ctf_clock_method() - how a mapping was made, as the env's clock_sync
 * @clock: the mapping
 *
 * Return: "kvm-tsc" (the guest's TSC through KVM's TSC relation),
 * "round-trip" (the middle of a round trip) or "none" (not synchronized).
 */
const char *gr_ctf_clock_method(const struct gr_ctf_clock *clock)
{
	if (!clock->synced)
		return "none";
	return clock->kvm_tsc ? "kvm-tsc" : "round-trip";
}

/**
 * gr_ctf_clock_ns() - a guest clock value as host CLOCK_REALTIME
 * @clock: the mapping
 * @freq: the guest clock's frequency (not 0)
 * @ticks: the clock value
 *
 * Context: any.
 * Return: ns since the Epoch, as a CTF reader computes them.
 */
__int128 gr_ctf_clock_ns(const struct gr_ctf_clock *clock, uint64_t freq,
			 uint64_t ticks)
{
	return (__int128)clock->offset_s * (__int128)NSEC_PER_SEC +
	       ((__int128)clock->offset + ticks) * NSEC_PER_SEC / freq;
}

/* --- event names ---------------------------------------------------------- */

/*
 * Descriptor names are this kernel's tracepoint names (what operators type
 * in `enable`, filters and `report`); the metadata names the events as
 * lttng-modules 2.9+ does, so that Trace Compass's LTTng 2.9 layout
 * (Lttng27EventLayout and successors) finds them (spec 7.5, table "Event
 * names in the metadata"). Only the name changes: the fields are the
 * descriptor's, already named as lttng-modules names them.
 */
static const struct {
	const char *system;
	const char *name;
	const char *ctf;
} ctf_names[] = {
	{ "irq", "softirq_entry", "irq_softirq_entry" },
	{ "irq", "softirq_exit", "irq_softirq_exit" },
	{ "irq", "softirq_raise", "irq_softirq_raise" },
	{ "net", "netif_receive_skb", "net_if_receive_skb" },
	{ "net", "netif_receive_skb_entry", "net_if_receive_skb_entry" },
	{ "net", "netif_receive_skb_exit", "net_if_receive_skb_exit" },
	{ "net", "netif_receive_skb_list_entry",
	  "net_if_receive_skb_list_entry" },
	{ "net", "netif_receive_skb_list_exit",
	  "net_if_receive_skb_list_exit" },
	{ "net", "netif_rx", "net_if_rx" },
	{ "net", "netif_rx_entry", "net_if_rx_entry" },
	{ "net", "netif_rx_exit", "net_if_rx_exit" },
	{ "net", "napi_gro_frags_entry", "net_napi_gro_frags_entry" },
	{ "net", "napi_gro_frags_exit", "net_napi_gro_frags_exit" },
	{ "net", "napi_gro_receive_entry", "net_napi_gro_receive_entry" },
	{ "net", "napi_gro_receive_exit", "net_napi_gro_receive_exit" },
	{ "skb", "kfree_skb", "skb_kfree" },
	{ "skb", "consume_skb", "skb_consume" },
	{ "kmem", "kmalloc", "kmem_kmalloc" },
	{ "kmem", "kmalloc_node", "kmem_kmalloc_node" },
	{ "kmem", "kfree", "kmem_kfree" },
	{ "kmem", "mm_page_alloc", "kmem_mm_page_alloc" },
	{ "kmem", "mm_page_alloc_extfrag", "kmem_mm_page_alloc_extfrag" },
	{ "kmem", "mm_page_alloc_zone_locked",
	  "kmem_mm_page_alloc_zone_locked" },
	{ "kmem", "mm_page_free", "kmem_mm_page_free" },
	{ "kmem", "mm_page_free_batched", "kmem_mm_page_free_batched" },
	{ "kmem", "mm_page_pcpu_drain", "kmem_mm_page_pcpu_drain" },
	{ "timer", "hrtimer_init", "timer_hrtimer_init" },
	{ "timer", "hrtimer_start", "timer_hrtimer_start" },
	{ "timer", "hrtimer_cancel", "timer_hrtimer_cancel" },
	{ "timer", "hrtimer_expire_entry", "timer_hrtimer_expire_entry" },
	{ "timer", "hrtimer_expire_exit", "timer_hrtimer_expire_exit" },
	{ "timer", "itimer_state", "timer_itimer_state" },
	{ "timer", "itimer_expire", "timer_itimer_expire" },
	{ "power", "cpu_idle", "power_cpu_idle" },
	{ "power", "cpu_frequency", "power_cpu_frequency" },
	{ "power", "machine_suspend", "power_machine_suspend" },
	{ "power", "wakeup_source_activate", "power_wakeup_source_activate" },
	{ "power", "wakeup_source_deactivate",
	  "power_wakeup_source_deactivate" },
	{ "power", "clock_enable", "power_clock_enable" },
	{ "power", "clock_disable", "power_clock_disable" },
	{ "power", "clock_set_rate", "power_clock_set_rate" },
	{ "printk", "console", "printk_console" },
	{ "preemptirq", "irq_disable", "preemptirq_irq_disable" },
	{ "preemptirq", "irq_enable", "preemptirq_irq_enable" },
	{ "preemptirq", "preempt_disable", "preemptirq_preempt_disable" },
	{ "preemptirq", "preempt_enable", "preemptirq_preempt_enable" },
	{ "vmscan", "mm_shrink_slab_start", "mm_vmscan_shrink_slab_start" },
	{ "vmscan", "mm_shrink_slab_end", "mm_vmscan_shrink_slab_end" },
	{ "compaction", "mm_compaction_isolate_migratepages",
	  "compaction_isolate_migratepages" },
	{ "compaction", "mm_compaction_isolate_freepages",
	  "compaction_isolate_freepages" },
	{ "compaction", "mm_compaction_migratepages",
	  "compaction_migratepages" },
	{ "writeback", "balance_dirty_pages", "writeback_balance_dirty_pages" },
	{ "writeback", "bdi_dirty_ratelimit", "writeback_bdi_dirty_ratelimit" },
	{ "writeback", "global_dirty_state", "writeback_global_dirty_state" },
	{ "writeback", "folio_wait_writeback", "writeback_folio_wait" },
	{ "regmap", "regcache_sync", "regmap_regcache_sync" },
	/*
	 * lttng-modules' names for a system call it has no table entry
	 * for: the number is in "id", the arguments raw
	 */
	{ "raw_syscalls", "sys_enter", "syscall_entry_unknown" },
	{ "raw_syscalls", "sys_exit", "syscall_exit_unknown" },
};

/**
 * gr_ctf_event_name() - the name the metadata gives an event
 * @system: the descriptor's system
 * @name: the descriptor's name
 *
 * Context: any; does not sleep.
 * Return: lttng-modules' name for the tracepoint (a static string) if it
 * differs from the tracepoint's, else @name.
 */
const char *gr_ctf_event_name(const char *system, const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ctf_names); i++)
		if (!strcmp(system, ctf_names[i].system) &&
		    !strcmp(name, ctf_names[i].name))
			return ctf_names[i].ctf;
	return name;
}

/*
 * The metadata names of @events[0..@nr) into @names: each its CTF name
 * (gr_ctf_event_name()), unless another descriptor already carries that
 * name itself (then its own name), so that names stay unique in the
 * metadata whatever a guest publishes. For the table's @nr_table
 * descriptors "another" is any of the table; for one added at run time
 * (v1.7, spec 18), any before it, by its name or its metadata name: the
 * names of events already declared never change when more are appended.
 * Return: 0, or -EEXIST if an added event's name is one declared before.
 */
static int metadata_names(const struct gr_event_view *events,
			  unsigned int nr_table, unsigned int nr,
			  const char **names)
{
	unsigned int i, j, end;
	const char *ctf;

	for (i = 0; i < nr; i++) {
		ctf = gr_ctf_event_name(events[i].system, events[i].name);
		end = i < nr_table ? nr_table : i;
		for (j = 0; ctf != events[i].name && j < end; j++)
			if (!strncmp(events[j].name, ctf, sizeof(events[j].name)) ||
			    (j >= nr_table && !strcmp(names[j], ctf)))
				ctf = events[i].name;
		names[i] = ctf;
		for (j = 0; i >= nr_table && j < i; j++)
			if (!strcmp(names[j], ctf))
				return -EEXIST;
	}
	return 0;
}

/**
 * gr_ctf_names_check() - can events added at run time be declared?
 * @events: the table's @nr_table descriptors, then the added ones
 * @nr_table: descriptors of the table (gr_view.desc_table)
 * @nr: all of them, at most GR_WIDE_MAX_EVENTS
 *
 * The metadata name of each added descriptor (v1.7, spec 18) must differ
 * from every name declared before it: appended declarations never rename
 * one already written (a live viewer has it), so a clash is refused.
 *
 * Context: any; does not sleep.
 * Return: 0, -EEXIST if an added event's metadata name is taken, -EINVAL
 * if @nr is above GR_WIDE_MAX_EVENTS.
 */
int gr_ctf_names_check(const struct gr_event_view *events,
		       unsigned int nr_table, unsigned int nr)
{
	const char *names[GR_WIDE_MAX_EVENTS];

	if (nr > GR_WIDE_MAX_EVENTS)
		return -EINVAL;
	return metadata_names(events, nr_table, nr, names);
}

/*
 * Members of the sys_enter and sys_exit families (spec 7.5, "System call
 * events"): syscall_entry_<name> / syscall_exit_<name> of native x86_64
 * call @nr, or nr<nr> where the table has no name.
 */
static int member_name(char *out, size_t len, const struct gr_event_view *ev,
		       unsigned int nr)
{
	const char *prefix;
	int n;

	if (!strcmp(ev->name, "sys_enter"))
		prefix = "syscall_entry_";
	else if (!strcmp(ev->name, "sys_exit"))
		prefix = "syscall_exit_";
	else
		return -EINVAL;
	if (nr < ARRAY_SIZE(gr_syscall_names) &&
	    gr_syscall_names[nr])
		n = snprintf(out, len, "%s%s", prefix, gr_syscall_names[nr]);
	else
		n = snprintf(out, len, "%snr%u", prefix, nr);
	return n < 0 || (size_t)n >= len ? -EINVAL : 0;
}

/* --- metadata ------------------------------------------------------------- */

#define ALIGN_UP(x, a)	(((x) + (a) - 1) / (a) * (a))

/*
 * Spec 7.5: the alignment (bytes) declared for an integer of @size bytes
 * at payload offset @off that follows declared bytes up to @pos: the
 * largest power of two up to its natural alignment that lands exactly on
 * @off from @pos (payloads start 8-byte aligned), so that no padding
 * field is needed; 1 if none does (then the gap is declared).
 */
static uint32_t int_align(uint32_t pos, uint32_t off, uint32_t size)
{
	uint32_t a;

	for (a = size > 8 ? 8 : size; a > 1; a /= 2)
		if (!(off % a) && ALIGN_UP(pos, a) == off)
			return a;
	return 1;
}

static void pad_bytes(struct sbuf *b, uint32_t from, uint32_t to)
{
	sb_printf(b, "\t\tinteger { size = 8; align = 8; signed = false; "
		  "base = 16; } " GR_CTF_PAD_PREFIX "%u[%u];\n", from, to - from);
}

/*
 * Fields lttng-modules names otherwise than the kernel's tracepoints
 * (its include/instrumentation/events/ for the kernels a guest may run;
 * spec 7.5, table "Field names in the metadata"). A NULL event is every
 * event of the system: lttng-modules names a thread id "tid" in the
 * scheduler's events, where the kernel says "pid" (sched_stat_runtime,
 * sched_wait_task, ...), and Trace Compass's layout reads "tid".
 */
static const struct {
	const char *system;
	const char *event;
	const char *field;
	const char *ctf;
} ctf_fields[] = {
	{ "sched", NULL, "pid", "tid" },
	{ "ext4", "ext4_fallocate_enter", "offset", "pos" },
	{ "ext4", "ext4_punch_hole", "offset", "pos" },
	{ "ext4", "ext4_zero_range", "offset", "pos" },
	{ "vmscan", "mm_vmscan_lru_isolate", "highest_zoneidx",
	  "classzone_idx" },
	{ "vmscan", "mm_vmscan_lru_shrink_inactive", "nr_activate0",
	  "nr_activate_anon" },
	{ "vmscan", "mm_vmscan_lru_shrink_inactive", "nr_activate1",
	  "nr_activate_file" },
	{ "skb", "kfree_skb", "rx_sk", "rx_skaddr" },
};

/**
 * gr_ctf_field_name() - the name the metadata gives a field
 * @ev: the event
 * @f: one of its fields
 *
 * lttng-modules' name of the field where it differs from the kernel's
 * (ctf_fields[]), unless the event has a field of that name itself; the
 * table's descriptors are named so already. Every other field keeps its
 * name.
 *
 * Context: any; does not sleep.
 * Return: the name (a static string or @f->name).
 */
const char *gr_ctf_field_name(const struct gr_event_view *ev,
			      const struct gr_field_view *f)
{
	const char *ctf = NULL;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ctf_fields) && !ctf; i++)
		if (!strcmp(ev->system, ctf_fields[i].system) &&
		    (!ctf_fields[i].event ||
		     !strcmp(ev->name, ctf_fields[i].event)) &&
		    !strcmp(f->name, ctf_fields[i].field))
			ctf = ctf_fields[i].ctf;
	if (!ctf)
		return f->name;
	for (i = 0; i < ev->nr_fields && i < GR_LONG_MAX_FIELDS; i++)
		if (!strcmp(ev->fields[i].name, ctf))
			return f->name;
	return ctf;
}

/*
 * emitted as "_<name>": an identifier (a TSDL keyword is fine once
 * prefixed), not in the "_gr_" space
 */
static int field_name_ok(const struct gr_field_view *f)
{
	return gr_is_identifier(f->name, sizeof(f->name)) &&
	       strncmp(f->name, GR_CTF_RESERVED_PREFIX,
		       sizeof(GR_CTF_RESERVED_PREFIX) - 1);
}

/*
 * Network events (spec 7.5, "Network events"): net_dev_queue and
 * netif_receive_skb of system "net" whose descriptor carries this run of
 * fields, contiguous and in this order, are declared as lttng-modules
 * declares its net events, so that Trace Compass's LTTng 2.9+ layout
 * (Lttng29EventLayout) finds network_header / <the IP variant> /
 * transport_header / tcp / seq, ack_seq and flags:
 *
 *   enum network_header_type { _unknown 0, _ipv4 1, _ipv6 2, _unknown } ;
 *   variant <network_header_type> { struct {
 *       protocol;
 *       enum transport_header_type { _unknown 0, _tcp 1, _unknown } ;
 *       variant <transport_header_type> { struct {
 *           source_port; dest_port; seq; ack_seq; flags;
 *       } _unknown, _tcp; } transport_header;
 *       saddr_hi; saddr_lo; daddr_hi; daddr_lo;
 *   } _unknown, _ipv4, _ipv6; } network_header;
 *
 * Every option of a variant has the same fields, so a record decodes the
 * same whatever the guest writes in a tag, and each tag's enumeration
 * maps every value of its integer (labels and options are "_"-prefixed,
 * as lttng-modules writes tag enumerations: Trace Compass selects the
 * option by the label as written). Inside the variants every integer is
 * byte-aligned, which the contiguity makes exact. Any other layout is
 * declared flat, field by field.
 */
#define NET_RUN		12	/* fields of the run */
#define NET_TH_FIRST	3	/* the transport variant's, from here ... */
#define NET_TH_END	8	/* ... to here */
#define NET_IP_END	NET_RUN

static const struct {
	const char *name;	/* the descriptor's */
	const char *ctf;	/* the metadata's, in the nested struct */
	uint16_t size;
	uint8_t flags;
} net_run[NET_RUN] = {
	{ "network_header_type", "network_header_type", 2, 0 },
	{ "ip_protocol", "protocol", 2, 0 },
	{ "transport_header_type", "transport_header_type", 4, 0 },
	{ "th_source_port", "source_port", 2, 0 },
	{ "th_dest_port", "dest_port", 2, 0 },
	{ "th_seq", "seq", 4, 0 },
	{ "th_ack_seq", "ack_seq", 4, 0 },
	{ "th_flags", "flags", 4, GR_FIELD_F_HEX },
	{ "ip_saddr_hi", "saddr_hi", 8, GR_FIELD_F_HEX },
	{ "ip_saddr_lo", "saddr_lo", 8, GR_FIELD_F_HEX },
	{ "ip_daddr_hi", "daddr_hi", 8, GR_FIELD_F_HEX },
	{ "ip_daddr_lo", "daddr_lo", 8, GR_FIELD_F_HEX },
};

static const char *const net_ip_options[] = { "_unknown", "_ipv4", "_ipv6" };
static const char *const net_th_options[] = { "_unknown", "_tcp" };

/*
 * Where the run starts among @ev's fields taken in @order (offset
 * order), or -1 if @ev is not such an event or the run is not there
 * exactly: names, types, sizes, flags, each field right after the one
 * before.
 */
static int net_run_at(const struct gr_event_view *ev,
		      const unsigned int *order, unsigned int n)
{
	const struct gr_field_view *f;
	unsigned int i, k;

	if (strcmp(ev->system, "net") || (strcmp(ev->name, "net_dev_queue") &&
					  strcmp(ev->name, "netif_receive_skb")))
		return -1;
	for (i = 0; i + NET_RUN <= n; i++) {
		for (k = 0; k < NET_RUN; k++) {
			f = &ev->fields[order[i + k]];
			if (strncmp(f->name, net_run[k].name, sizeof(f->name)) ||
			    f->type != GR_FIELD_INTEGER ||
			    f->size != net_run[k].size ||
			    f->flags != net_run[k].flags ||
			    (k && f->offset !=
			     (uint32_t)ev->fields[order[i + k - 1]].offset +
			     ev->fields[order[i + k - 1]].size))
				break;
		}
		if (k == NET_RUN)
			return (int)i;
	}
	return -1;
}

static void net_int(struct sbuf *b, unsigned int k, unsigned int align,
		    const char *indent)
{
	sb_printf(b, "%sinteger { size = %u; align = %u; signed = false; "
		  "base = %u; } _%s;\n", indent, net_run[k].size * 8U,
		  align * 8U, net_run[k].flags & GR_FIELD_F_HEX ? 16U : 10U,
		  net_run[k].ctf);
}

/* a tag: enumeration of field @k, @labels[i] = i, the rest @labels[0] */
static void net_tag(struct sbuf *b, unsigned int k, unsigned int align,
		    const char *const *labels, unsigned int nr,
		    const char *indent)
{
	unsigned int i;

	sb_printf(b, "%senum : integer { size = %u; align = %u; "
		  "signed = false; base = 10; } { ", indent,
		  net_run[k].size * 8U, align * 8U);
	for (i = 0; i < nr; i++)
		sb_printf(b, "\"%s\" = %u, ", labels[i], i);
	sb_printf(b, "\"%s\" = %u ... %llu } _%s;\n", labels[0], nr,
		  (1ULL << (net_run[k].size * 8U)) - 1, net_run[k].ctf);
}

/* the run declared nested; the tag at @align (its natural alignment) */
static void emit_net_run(struct sbuf *b, unsigned int align)
{
	unsigned int o, t, k;

	net_tag(b, 0, align, net_ip_options, ARRAY_SIZE(net_ip_options),
		"\t\t");
	sb_printf(b, "\t\tvariant <_%s> {\n", net_run[0].ctf);
	for (o = 0; o < ARRAY_SIZE(net_ip_options); o++) {
		sb_printf(b, "\t\t\tstruct {\n");
		net_int(b, 1, 1, "\t\t\t\t");
		net_tag(b, 2, 1, net_th_options, ARRAY_SIZE(net_th_options),
			"\t\t\t\t");
		sb_printf(b, "\t\t\t\tvariant <_%s> {\n", net_run[2].ctf);
		for (t = 0; t < ARRAY_SIZE(net_th_options); t++) {
			sb_printf(b, "\t\t\t\t\tstruct {\n");
			for (k = NET_TH_FIRST; k < NET_TH_END; k++)
				net_int(b, k, 1, "\t\t\t\t\t\t");
			sb_printf(b, "\t\t\t\t\t} %s;\n", net_th_options[t]);
		}
		sb_printf(b, "\t\t\t\t} _transport_header;\n");
		for (k = NET_TH_END; k < NET_IP_END; k++)
			net_int(b, k, 1, "\t\t\t\t");
		sb_printf(b, "\t\t\t} %s;\n", net_ip_options[o]);
	}
	sb_printf(b, "\t\t} _network_header;\n");
}

/* an element of a SEQUENCE (v1.11) or ARRAY (v1.14): 1, 2, 4, 8 bytes */
static int elem_size_ok(const struct gr_field_view *f)
{
	return f->elem_size == 1 || f->elem_size == 2 || f->elem_size == 4 ||
	       f->elem_size == 8;
}

/* the element type of SEQUENCE or ARRAY @f, before its name */
static void emit_elem(struct sbuf *b, const struct gr_field_view *f)
{
	sb_printf(b, "\t\tinteger { size = %u; align = 8; signed = %s; "
		  "base = %u; } ", f->elem_size * 8U,
		  f->flags & GR_FIELD_F_SIGNED ? "true" : "false",
		  f->flags & GR_FIELD_F_HEX ? 16U : 10U);
}

static int emit_fields(struct sbuf *b, const struct gr_event_view *ev)
{
	unsigned int order[GR_LONG_MAX_FIELDS], n = ev->nr_fields, i, j;
	int varlen = !!(ev->flags & GR_EVENT_F_VARLEN), var_seen = 0;
	uint32_t pos = 0;
	int net;

	if (n > GR_LONG_MAX_FIELDS)
		return -EINVAL;
	/* declare fields in offset order: CTF structs are sequential */
	for (i = 0; i < n; i++) {
		for (j = i; j && ev->fields[order[j - 1]].offset >
			     ev->fields[i].offset; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	net = net_run_at(ev, order, n);
	for (i = 0; i < n; i++) {
		const struct gr_field_view *f = &ev->fields[order[i]];
		uint32_t end = (uint32_t)f->offset + f->size, align = 1;
		const char *name = gr_ctf_field_name(ev, f);

		if (!field_name_ok(f) || (var_seen && !GR_FIELD_IS_VAR(f->type)) ||
		    f->offset < pos || end > ev->payload_size)
			return -EINVAL;
		if (f->type == GR_FIELD_INTEGER)
			align = int_align(pos, f->offset, f->size);
		if (ALIGN_UP(pos, align) < f->offset)
			pad_bytes(b, pos, f->offset);
		if (net >= 0 && i == (unsigned int)net) {
			/* the run's bytes: contiguous from here (net_run_at()) */
			f = &ev->fields[order[i + NET_RUN - 1]];
			end = (uint32_t)f->offset + f->size;
			if (end > ev->payload_size)
				return -EINVAL;
			emit_net_run(b, align);
			i += NET_RUN - 1;
			pos = end;
			continue;
		}
		switch (f->type) {
		case GR_FIELD_INTEGER:
			if (f->size != 1 && f->size != 2 && f->size != 4 &&
			    f->size != 8)
				return -EINVAL;
			sb_printf(b, "\t\tinteger { size = %u; align = %u; "
				  "signed = %s; base = %u; } _%s;\n",
				  f->size * 8U, align * 8U,
				  f->flags & GR_FIELD_F_SIGNED ? "true" : "false",
				  f->flags & GR_FIELD_F_HEX ? 16U : 10U, name);
			break;
		case GR_FIELD_CHARS:
			if (!f->size)
				return -EINVAL;
			sb_printf(b, "\t\tinteger { size = 8; align = 8; "
				  "signed = false; encoding = UTF8; base = 10; } "
				  "_%s[%u];\n", name, f->size);
			break;
		case GR_FIELD_ARRAY:
			/* v1.14: a static array of integers */
			if (var_seen || !elem_size_ok(f) ||
			    !f->size || f->size % f->elem_size)
				return -EINVAL;
			emit_elem(b, f);
			sb_printf(b, "_%s[%u];\n", name, f->size / f->elem_size);
			break;
		case GR_FIELD_STRING:
			/* variable length: only as the last bytes of a record */
			if (!varlen)
				return -EINVAL;
			sb_printf(b, "\t\tstring { encoding = UTF8; } _%s;\n",
				  name);
			var_seen = 1;
			break;
		case GR_FIELD_SEQUENCE:
			/* v1.11: its count is a field declared before */
			if (!varlen || f->len_field >= ev->nr_fields ||
			    ev->fields[f->len_field].offset >= f->offset ||
			    ev->fields[f->len_field].type != GR_FIELD_INTEGER ||
			    !elem_size_ok(f))
				return -EINVAL;
			emit_elem(b, f);
			sb_printf(b, "_%s[_%s];\n", name,
				  gr_ctf_field_name(ev,
						    &ev->fields[f->len_field]));
			var_seen = 1;
			break;
		default:
			return -EINVAL;
		}
		pos = end;
	}
	if (varlen && !var_seen)
		return -EINVAL;
	/* a trailing gap the next header's align(64) does not skip */
	if (!var_seen && pos < gr_event_declared_end(ev))
		pad_bytes(b, pos, ev->payload_size);
	return 0;
}

/* one event class per member of each family of @v (gr_check_families()) */
static int emit_families(struct sbuf *b, const struct gr_view *v,
			 const struct gr_event_view *events,
			 unsigned int nr_events)
{
	char name[GR_LONG_NAME_LEN + 64];
	unsigned int k, m;
	int ret;

	for (k = 0; k < v->nr_families && k < GR_MAX_FAMILIES; k++) {
		const struct gr_family *f = &v->families[k];
		const struct gr_event_view *ev;

		if (f->desc >= nr_events || events[f->desc].id != f->desc)
			return -EINVAL;
		ev = &events[f->desc];
		for (m = 0; m < f->count; m++) {
			ret = member_name(name, sizeof(name), ev, m);
			if (ret)
				return ret;
			sb_printf(b, "event {\n\tname = \"%s\";\n\tid = %u;\n"
				  "\tstream_id = 0;\n\tfields := struct {\n",
				  name, (unsigned int)f->base + m);
			ret = emit_fields(b, ev);
			if (ret)
				return ret;
			sb_printf(b, "\t};\n};\n\n");
		}
	}
	return 0;
}

/*
 * Event classes of @events[@from..@to), named @names (metadata_names()); ids
 * strictly increasing, below the view's desc_count
 */
static int emit_events(struct sbuf *b, const struct gr_view *v,
		       const struct gr_event_view *events,
		       const char *const *names, unsigned int from,
		       unsigned int to)
{
	unsigned int i;
	int ret = 0;

	for (i = from; i < to && !ret; i++) {
		const struct gr_event_view *ev = &events[i];

		if ((i && ev->id <= events[i - 1].id) ||
		    ev->id >= v->desc_count ||
		    !gr_is_identifier(ev->name, sizeof(ev->name)))
			return -EINVAL;
		sb_printf(b, "event {\n\tname = ");
		tsdl_string(b, names[i]);
		sb_printf(b, ";\n\tid = %u;\n\tstream_id = 0;\n"
			  "\tfields := struct {\n", ev->id);
		ret = emit_fields(b, ev);
		sb_printf(b, "\t};\n};\n\n");
	}
	return ret;
}

static void env_string(struct sbuf *b, const char *key, const char *val)
{
	sb_printf(b, "\t%s = ", key);
	tsdl_string(b, val ? val : "");
	sb_printf(b, ";\n");
}

static void emit_env(struct sbuf *b, const struct gr_view *v,
		     const struct gr_ctf_env *env, const struct gr_ctf_clock *c)
{
	static const uint8_t zero_uuid[16];
	char boot_id[37], uuid[37];

	gr_uuid_str(v->boot_id, boot_id);
	/* spec 7.5: what Trace Compass and lttng-modules' readers look for */
	sb_printf(b, "env {\n\tdomain = \"kernel\";\n"
		  "\ttracer_name = \"" GR_CTF_TRACER_NAME "\";\n"
		  "\ttracer_major = %d;\n\ttracer_minor = %d;\n"
		  "\ttracer_patchlevel = %d;\n",
		  GR_CTF_TRACER_MAJOR, GR_CTF_TRACER_MINOR,
		  GR_CTF_TRACER_PATCH);
	/* the traced kernel's host name is the guest's */
	env_string(b, "hostname", v->nodename);
	sb_printf(b, "\tsysname = \"Linux\";\n");
	env_string(b, "kernel_release", v->kernel_release);
	/* v1.2 guests (GR_F_GUEST_INFO): uname -v, the DMI product UUID */
	if (v->kernel_version[0])
		env_string(b, "kernel_version", v->kernel_version);
	if (memcmp(v->product_uuid, zero_uuid, sizeof(zero_uuid))) {
		gr_uuid_str(v->product_uuid, uuid);
		sb_printf(b, "\tproduct_uuid = \"%s\";\n", uuid);
	}
	env_string(b, "trace_name", env->session);
	if (env->created)
		env_string(b, "trace_creation_datetime", env->created);
	sb_printf(b, "\ttrace_buffering_scheme = \"global\";\n");
	/* guestrelay's own */
	sb_printf(b, "\tguestrelay_major = %u;\n\tguestrelay_minor = %u;\n",
		  env->tracer_major, env->tracer_minor);
	env_string(b, "vm_name", env->vm_name);
	env_string(b, "host_hostname", env->host_name);
	env_string(b, "session", env->session);
	if (env->filters && *env->filters)
		env_string(b, "filters", env->filters);
	if (env->host_stream) {
		sb_printf(b, "\tguestrelay_stream = \"host\";\n"
			  "\thost_nr_cpus = %u;\n\tclock_synced = %d;\n"
			  "\tclock_error_ns = %llu;\n};\n\n", v->nr_cpus,
			  c->synced ? 1 : 0, (unsigned long long)c->error_ns);
		return;
	}
	env_string(b, "guest_kernel_release", v->kernel_release);
	env_string(b, "guest_nodename", v->nodename);
	sb_printf(b, "\tguest_boot_id = \"%s\";\n"
		  "\tguest_instance_id = \"0x%016llx\";\n"
		  "\tguest_nr_cpus = %u;\n\tguest_nr_rings = %u;\n"
		  "\tclock_synced = %d;\n\tclock_error_ns = %llu;\n"
		  "\tclock_sync = \"%s\";\n};\n\n",
		  boot_id, (unsigned long long)v->instance_id, v->nr_cpus,
		  v->nr_rings, c->synced ? 1 : 0,
		  (unsigned long long)c->error_ns, gr_ctf_clock_method(c));
}

static void emit_clock(struct sbuf *b, const struct gr_view *v,
		       const struct gr_ctf_clock *c, int host_stream)
{
	char uuid[37];

	/* the guest clock counts from its boot: boot_id names that domain */
	gr_uuid_str(v->boot_id, uuid);
	sb_printf(b, "clock {\n\tname = %s;\n\tuuid = \"%s\";\n",
		  v->clock_name, uuid);
	if (host_stream)
		sb_printf(b, "\tdescription = \"host CLOCK_MONOTONIC mapped "
			  "to CLOCK_REALTIME, error bound %llu ns\";\n",
			  (unsigned long long)c->error_ns);
	else if (c->synced)
		sb_printf(b, "\tdescription = \"guest clock %s mapped to host "
			  "CLOCK_REALTIME, error bound %llu ns\";\n",
			  v->clock_name, (unsigned long long)c->error_ns);
	else
		sb_printf(b, "\tdescription = \"guest clock %s, not "
			  "synchronized with the host\";\n", v->clock_name);
	sb_printf(b, "\tfreq = %llu;\n\tprecision = %llu;\n"
		  "\toffset_s = %lld;\n\toffset = %llu;\n"
		  "\tabsolute = true;\n};\n\n",
		  (unsigned long long)v->clock_freq,
		  (unsigned long long)c->precision, (long long)c->offset_s,
		  (unsigned long long)c->offset);
	sb_printf(b, "typealias integer { size = 64; align = 8; "
		  "signed = false; map = clock.%s.value; } := uint64_clock_t;"
		  "\n\n", v->clock_name);
}

static const char tsdl_head[] =
	"/* CTF 1.8 */\n\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n\n";

/* struct gr_packet_header and struct gr_event_header, field for field */
static const char tsdl_stream[] =
	"stream {\n"
	"\tid = 0;\n"
	"\tpacket.context := struct {\n"
	"\t\tuint64_clock_t timestamp_begin;\n"
	"\t\tuint64_clock_t timestamp_end;\n"
	"\t\tuint64_t content_size;\n"
	"\t\tuint64_t packet_size;\n"
	"\t\tuint64_t packet_seq_num;\n"
	"\t\tuint64_t events_discarded;\n"
	"\t\tuint32_t cpu_id;\n"
	"\t};\n"
	"\tevent.header := struct {\n"
	"\t\tuint64_clock_t timestamp;\n"
	"\t\tuint16_t id;\n"
	"\t} align(64);\n"
	"\tevent.context := struct {\n"
	"\t\tuint16_t _size;\n"
	"\t\tuint32_t _tid;\n"
	"\t};\n"
	"};\n\n";

/**
 * gr_ctf_metadata() - generate the CTF 1.8 metadata of a VM's trace
 * @v: region view accepted by gr_check_region_hdr()
 * @events: event views accepted by gr_check_event_desc(), ids strictly
 *	increasing (normally @events[i].id == i)
 * @nr_events: entries in @events, at most @v->desc_count (the table's
 *	@v->desc_table, then those adopted at run time, v1.7)
 * @env: trace identity; see struct gr_ctf_env
 * @clock: clock mapping, or NULL for "not synchronized"
 * @text: receives the malloc()ed, NUL-terminated TSDL text
 * @len: receives its length, NUL excluded
 *
 * Declares one trace (UUID from @env, little-endian, packet.header as in
 * struct gr_packet_header), one env block (spec 7.5 entries: domain
 * "kernel", tracer_name "lttng-modules", tracer_major/minor/patchlevel
 * of the layout followed, hostname = the guest's nodename, sysname,
 * kernel_release = the guest's, kernel_version and product_uuid if the
 * guest published them, trace_name, trace_creation_datetime,
 * trace_buffering_scheme; then guestrelay_major/minor, vm_name,
 * host_hostname, session, filters, guest_nodename, guest_kernel_release,
 * guest_boot_id, guest_instance_id, guest_nr_cpus, guest_nr_rings,
 * clock_synced, clock_error_ns, clock_sync: how the clock was mapped,
 * gr_ctf_clock_method()), one
 * absolute clock named after the guest's clock (UUID: the guest's
 * boot_id, the domain of a since-boot clock), one stream class (id 0)
 * whose packet.context, event.header and event.context match struct
 * gr_packet_header and struct gr_event_header, one event class per
 * view, named by gr_ctf_event_name() (lttng-modules' names), and one per
 * member of each family of @v (v1.2, gr_check_families(): a family's
 * descriptor must be among @events), syscall_entry_<name> or
 * syscall_exit_<name> with the descriptor's fields, and last the events
 * added at run time (v1.7, spec 18: @events past @v->desc_table), whose
 * metadata names must be new (gr_ctf_names_check()). Every field name is emitted with a leading '_' (stripped by CTF
 * readers), so guest names never clash with TSDL keywords or with this
 * file's type names.
 *
 * Context: process; allocates.
 * Return: 0, -EINVAL if a view cannot be expressed (a name that is not a
 * safe identifier, a field name beginning with "_gr_", overlapping fields
 * or fields past payload_size, a STRING field that does not have the
 * highest offset of its event, ids not increasing, a clock offset not
 * below clock_freq), -EEXIST if an added event's metadata name is taken,
 * -ENOMEM.
 */
int gr_ctf_metadata(const struct gr_view *v,
		    const struct gr_event_view *events, unsigned int nr_events,
		    const struct gr_ctf_env *env,
		    const struct gr_ctf_clock *clock, char **text, size_t *len)
{
	static const struct gr_ctf_clock unsynced;
	const char *names[GR_WIDE_MAX_EVENTS];
	struct sbuf b = { 0 };
	char uuid[37];
	unsigned int table;
	int ret;

	if (!clock)
		clock = &unsynced;
	if (nr_events > v->desc_count || nr_events > GR_WIDE_MAX_EVENTS ||
	    !gr_is_identifier(v->clock_name, sizeof(v->clock_name)) ||
	    gr_is_tsdl_keyword(v->clock_name) ||
	    (clock->synced && clock->offset >= v->clock_freq))
		return -EINVAL;

	gr_uuid_str(env->trace_uuid, uuid);
	sb_printf(&b, "%s", tsdl_head);
	sb_printf(&b, "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n"
		  "\tbyte_order = le;\n\tpacket.header := struct {\n"
		  "\t\tuint32_t magic;\n\t\tuint32_t stream_id;\n"
		  "\t\tuint64_t stream_instance_id;\n\t};\n};\n\n", uuid);
	emit_env(&b, v, env, clock);
	emit_clock(&b, v, clock, env->host_stream);
	sb_printf(&b, "%s", tsdl_stream);

	/*
	 * the table's events, their families, then the events added at run
	 * time (v1.7, spec 18.3 M2): a metadata written after an addition
	 * is the one written before it with declarations appended. (A view
	 * made by hand, desc_table 0, is all table.)
	 */
	table = v->desc_table && v->desc_table < nr_events ? v->desc_table :
		nr_events;
	ret = metadata_names(events, table, nr_events, names);
	if (!ret)
		ret = emit_events(&b, v, events, names, 0, table);
	if (!ret)
		ret = emit_families(&b, v, events, nr_events);
	if (!ret)
		ret = emit_events(&b, v, events, names, table, nr_events);
	if (!ret)
		ret = b.err;
	if (ret) {
		free(b.p);
		return ret;
	}
	*text = b.p;
	*len = b.len;
	return 0;
}
