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
	clock->offset_s = (int64_t)secs;
	clock->offset = (uint64_t)rem;
	clock->precision = (uint64_t)prec;
	clock->error_ns = error_ns;
	clock->synced = 1;
	return 0;
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
	{ "kmem", "kmalloc", "kmem_kmalloc" },
	{ "kmem", "kfree", "kmem_kfree" },
	{ "kmem", "mm_page_alloc", "kmem_mm_page_alloc" },
	{ "kmem", "mm_page_free", "kmem_mm_page_free" },
	{ "timer", "hrtimer_start", "timer_hrtimer_start" },
	{ "timer", "hrtimer_cancel", "timer_hrtimer_cancel" },
	{ "timer", "hrtimer_expire_entry", "timer_hrtimer_expire_entry" },
	{ "timer", "hrtimer_expire_exit", "timer_hrtimer_expire_exit" },
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
 * The CTF name of @events[@i], unless another descriptor of the table
 * already carries that name itself (then @events[@i]'s own name): event
 * names stay unique in the metadata whatever a guest publishes.
 */
static const char *event_ctf_name(const struct gr_event_view *events,
				  unsigned int nr_events, unsigned int i)
{
	const char *ctf = gr_ctf_event_name(events[i].system, events[i].name);
	unsigned int j;

	if (ctf == events[i].name)
		return ctf;
	for (j = 0; j < nr_events; j++)
		if (!strncmp(events[j].name, ctf, sizeof(events[j].name)))
			return events[i].name;
	return ctf;
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
 * emitted as "_<name>": an identifier (a TSDL keyword is fine once
 * prefixed), not in the "_gr_" space
 */
static int field_name_ok(const struct gr_field_view *f)
{
	return gr_is_identifier(f->name, sizeof(f->name)) &&
	       strncmp(f->name, GR_CTF_RESERVED_PREFIX,
		       sizeof(GR_CTF_RESERVED_PREFIX) - 1);
}

static int emit_fields(struct sbuf *b, const struct gr_event_view *ev)
{
	unsigned int order[GR_MAX_FIELDS], n = ev->nr_fields, i, j;
	int varlen = !!(ev->flags & GR_EVENT_F_VARLEN), string_seen = 0;
	uint32_t pos = 0;

	if (n > GR_MAX_FIELDS)
		return -EINVAL;
	/* declare fields in offset order: CTF structs are sequential */
	for (i = 0; i < n; i++) {
		for (j = i; j && ev->fields[order[j - 1]].offset >
			     ev->fields[i].offset; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (i = 0; i < n; i++) {
		const struct gr_field_view *f = &ev->fields[order[i]];
		uint32_t end = (uint32_t)f->offset + f->size, align = 1;

		if (!field_name_ok(f) || string_seen || f->offset < pos ||
		    end > ev->payload_size)
			return -EINVAL;
		if (f->type == GR_FIELD_INTEGER)
			align = int_align(pos, f->offset, f->size);
		if (ALIGN_UP(pos, align) < f->offset)
			pad_bytes(b, pos, f->offset);
		switch (f->type) {
		case GR_FIELD_INTEGER:
			if (f->size != 1 && f->size != 2 && f->size != 4 &&
			    f->size != 8)
				return -EINVAL;
			sb_printf(b, "\t\tinteger { size = %u; align = %u; "
				  "signed = %s; base = %u; } _%s;\n",
				  f->size * 8U, align * 8U,
				  f->flags & GR_FIELD_F_SIGNED ? "true" : "false",
				  f->flags & GR_FIELD_F_HEX ? 16U : 10U, f->name);
			break;
		case GR_FIELD_CHARS:
			if (!f->size)
				return -EINVAL;
			sb_printf(b, "\t\tinteger { size = 8; align = 8; "
				  "signed = false; encoding = UTF8; base = 10; } "
				  "_%s[%u];\n", f->name, f->size);
			break;
		case GR_FIELD_STRING:
			/* variable length: only as the last bytes of a record */
			if (!varlen)
				return -EINVAL;
			sb_printf(b, "\t\tstring { encoding = UTF8; } _%s;\n",
				  f->name);
			string_seen = 1;
			break;
		default:
			return -EINVAL;
		}
		pos = end;
	}
	if (varlen && !string_seen)
		return -EINVAL;
	/* a trailing gap the next header's align(64) does not skip */
	if (!string_seen && pos < gr_event_declared_end(ev))
		pad_bytes(b, pos, ev->payload_size);
	return 0;
}

/* one event class per member of each family of @v (gr_check_families()) */
static int emit_families(struct sbuf *b, const struct gr_view *v,
			 const struct gr_event_view *events,
			 unsigned int nr_events)
{
	char name[GR_NAME_LEN + 64];
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
	env_string(b, "guest_kernel_release", v->kernel_release);
	env_string(b, "guest_nodename", v->nodename);
	sb_printf(b, "\tguest_boot_id = \"%s\";\n"
		  "\tguest_instance_id = \"0x%016llx\";\n"
		  "\tguest_nr_cpus = %u;\n\tguest_nr_rings = %u;\n"
		  "\tclock_synced = %d;\n\tclock_error_ns = %llu;\n};\n\n",
		  boot_id, (unsigned long long)v->instance_id, v->nr_cpus,
		  v->nr_rings, c->synced ? 1 : 0,
		  (unsigned long long)c->error_ns);
}

static void emit_clock(struct sbuf *b, const struct gr_view *v,
		       const struct gr_ctf_clock *c)
{
	char uuid[37];

	/* the guest clock counts from its boot: boot_id names that domain */
	gr_uuid_str(v->boot_id, uuid);
	sb_printf(b, "clock {\n\tname = %s;\n\tuuid = \"%s\";\n",
		  v->clock_name, uuid);
	if (c->synced)
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
 * @nr_events: entries in @events, at most @v->desc_count
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
 * clock_synced, clock_error_ns), one
 * absolute clock named after the guest's clock (UUID: the guest's
 * boot_id, the domain of a since-boot clock), one stream class (id 0)
 * whose packet.context, event.header and event.context match struct
 * gr_packet_header and struct gr_event_header, one event class per
 * view, named by gr_ctf_event_name() (lttng-modules' names), and one per
 * member of each family of @v (v1.2, gr_check_families(): a family's
 * descriptor must be among @events), syscall_entry_<name> or
 * syscall_exit_<name> with the descriptor's fields. Every field name is emitted with a leading '_' (stripped by CTF
 * readers), so guest names never clash with TSDL keywords or with this
 * file's type names.
 *
 * Context: process; allocates.
 * Return: 0, -EINVAL if a view cannot be expressed (a name that is not a
 * safe identifier, a field name beginning with "_gr_", overlapping fields
 * or fields past payload_size, a STRING field that does not have the
 * highest offset of its event, ids not increasing, a clock offset not
 * below clock_freq), -ENOMEM.
 */
int gr_ctf_metadata(const struct gr_view *v,
		    const struct gr_event_view *events, unsigned int nr_events,
		    const struct gr_ctf_env *env,
		    const struct gr_ctf_clock *clock, char **text, size_t *len)
{
	static const struct gr_ctf_clock unsynced;
	struct sbuf b = { 0 };
	char uuid[37];
	unsigned int i;
	int ret = 0;

	if (!clock)
		clock = &unsynced;
	if (nr_events > v->desc_count || nr_events > GR_MAX_EVENTS ||
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
	emit_clock(&b, v, clock);
	sb_printf(&b, "%s", tsdl_stream);

	for (i = 0; i < nr_events && !ret; i++) {
		const struct gr_event_view *ev = &events[i];

		if ((i && ev->id <= events[i - 1].id) ||
		    ev->id >= v->desc_count ||
		    !gr_is_identifier(ev->name, sizeof(ev->name))) {
			ret = -EINVAL;
			break;
		}
		sb_printf(&b, "event {\n\tname = ");
		tsdl_string(&b, event_ctf_name(events, nr_events, i));
		sb_printf(&b, ";\n\tid = %u;\n\tstream_id = 0;\n"
			  "\tfields := struct {\n", ev->id);
		ret = emit_fields(&b, ev);
		sb_printf(&b, "\t};\n};\n\n");
	}
	if (!ret)
		ret = emit_families(&b, v, events, nr_events);
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

/* --- files ---------------------------------------------------------------- */

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Replace @name in @dirfd by @len bytes of @buf so that a reader sees the
 * old or the new file, never a partial one: write a hidden temporary,
 * rename it over @name. With @syncfd NULL, the temporary is fsynced
 * before the rename and the directory after it, so that this holds
 * across a crash too. Otherwise the file is left open and unsynced and
 * its descriptor stored in *@syncfd: the caller fsyncs it and @dirfd
 * (the agent does through io_uring, off its loop) and closes it; until
 * then a crash may keep the old file or, on a file system that does not
 * flush a file renamed over another as ext4 does, a short new one.
 */
static int write_atomic(int dirfd, const char *tmp, const char *name,
			const void *buf, size_t len, int *syncfd)
{
	int fd, ret;

	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
		    O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, buf, len);
	if (!ret && !syncfd && fsync(fd))
		ret = -errno;
	if (!syncfd && close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(dirfd, tmp, dirfd, name))
		ret = -errno;
	if (ret) {
		if (syncfd)
			close(fd);
		unlinkat(dirfd, tmp, 0);
		return ret;
	}
	if (syncfd) {
		*syncfd = fd;
		return 0;
	}
	if (fsync(dirfd))
		return -errno;
	return 0;
}

/**
 * gr_ctf_write_metadata() - store (or replace) a trace's metadata file
 * @dirfd: the trace directory, opened O_RDONLY | O_DIRECTORY
 * @text: TSDL from gr_ctf_metadata()
 * @len: bytes of @text
 * @syncfd: NULL to fsync here; else receives the new file's descriptor,
 *	which the caller fsyncs (then @dirfd) and closes (see write_atomic())
 *
 * Writes GR_CTF_METADATA_TMP (hidden: babeltrace2 would try to read a
 * visible "metadata.tmp" as a stream and reject the trace), fsyncs it and
 * renames it to GR_CTF_METADATA, then fsyncs the directory: a reader
 * opening the trace at any moment sees the old or the new metadata.
 *
 * Context: process; blocks on disk I/O (on fsync only with @syncfd NULL).
 * Return: 0, -EINVAL if @text is not CTF 1.8 metadata, or -errno of the
 * failing system call.
 */
int gr_ctf_write_metadata(int dirfd, const char *text, size_t len,
			  int *syncfd)
{
	static const char magic[] = "/* CTF 1.8 */";

	if (len < sizeof(magic) - 1 || memcmp(text, magic, sizeof(magic) - 1))
		return -EINVAL;
	return write_atomic(dirfd, GR_CTF_METADATA_TMP, GR_CTF_METADATA,
			    text, len, syncfd);
}

/**
 * gr_crc32() - CRC-32 (IEEE 802.3, as zlib's crc32())
 * @crc: 0 to start, or the result over the preceding bytes
 * @buf: bytes
 * @len: bytes at @buf
 *
 * Context: any; does not sleep.
 * Return: the CRC of everything so far.
 */
uint32_t gr_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	unsigned int k;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return ~crc;
}

/**
 * gr_ctf_write_info() - store (or replace) a trace's .guestrelay file
 * @dirfd: the trace directory, opened O_RDONLY | O_DIRECTORY
 * @hdr_copy: the host's private copy of the region header
 * @region_size: real size of the VM's region
 * @descs: private copies of descriptors 0 .. @nr_descs - 1
 * @nr_descs: at most the header's desc_count
 * @clock: clock mapping, or NULL for "not synchronized"
 * @trace_uuid: the session's UUID (as in the metadata)
 * @syncfd: as for gr_ctf_write_metadata()
 *
 * Re-checks the copies with the validators, so that the file only ever
 * holds what the agent accepted, then writes it like the metadata (hidden
 * temporary, fsync, rename, fsync of the directory). The file's CRC-32
 * lets a reader tell a damaged file.
 *
 * Context: process; allocates; blocks on disk I/O.
 * Return: 0, -EINVAL if a copy does not validate, -ENOMEM, or -errno of
 * the failing system call.
 */
int gr_ctf_write_info(int dirfd, const struct gr_region_hdr *hdr_copy,
		      uint64_t region_size, const struct gr_event_desc *descs,
		      unsigned int nr_descs, const struct gr_ctf_clock *clock,
		      const uint8_t trace_uuid[16], int *syncfd)
{
	struct gr_event_view ev;
	struct gr_info_hdr h;
	struct gr_view v;
	size_t len;
	unsigned int i;
	uint8_t *buf;
	int ret;

	ret = gr_check_region_hdr(hdr_copy, region_size, &v, NULL);
	if (ret)
		return -EINVAL;
	if (nr_descs > v.desc_count)
		return -EINVAL;
	for (i = 0; i < nr_descs; i++)
		if (gr_check_event_desc(&v, &descs[i], i, &ev, NULL))
			return -EINVAL;
	if (clock && clock->synced && clock->offset >= v.clock_freq)
		return -EINVAL;

	memset(&h, 0, sizeof(h));
	h.magic = htole64(GR_INFO_MAGIC);
	h.version = htole32(GR_INFO_VERSION);
	h.hdr_size = htole32(sizeof(h));
	h.region_hdr_size = htole32(sizeof(*hdr_copy));
	h.desc_size = htole32(sizeof(*descs));
	h.desc_count = htole32(nr_descs);
	h.region_size = htole64(region_size);
	if (clock && clock->synced) {
		h.flags = htole32(GR_INFO_F_CLOCK_SYNCED);
		h.clock_offset_s = htole64((uint64_t)clock->offset_s);
		h.clock_offset = htole64(clock->offset);
		h.clock_precision = htole64(clock->precision);
		h.clock_error_ns = htole64(clock->error_ns);
	}
	memcpy(h.trace_uuid, trace_uuid, sizeof(h.trace_uuid));

	len = sizeof(h) + sizeof(*hdr_copy) + (size_t)nr_descs * sizeof(*descs);
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), hdr_copy, sizeof(*hdr_copy));
	if (nr_descs)
		memcpy(buf + sizeof(h) + sizeof(*hdr_copy), descs,
		       (size_t)nr_descs * sizeof(*descs));
	h.crc32 = htole32(gr_crc32(0, buf, len));
	memcpy(buf, &h, sizeof(h));
	ret = write_atomic(dirfd, GR_CTF_INFO_TMP, GR_CTF_INFO, buf, len,
			   syncfd);
	free(buf);
	return ret;
}

static int info_bad(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -EINVAL;
}

/**
 * gr_ctf_parse_info() - decode and re-validate a .guestrelay file
 * @buf: the file's bytes
 * @len: bytes at @buf
 * @info: receives the validated contents
 * @why: receives a static reason on failure; may be NULL
 *
 * Trusts nothing in @buf: checks magic, version and every size against
 * @len, runs gr_check_region_hdr() on the region header copy (with the
 * stored region size as the real size) and gr_check_event_desc() on each
 * descriptor the header covers, then gr_check_families() on the valid ones
 * (a table it refuses keeps no family). A descriptor that fails is marked invalid
 * in @info (with its reason) rather than failing the file; so is a CRC
 * mismatch (@info->crc_ok = 0), since validated contents stay usable.
 *
 * Context: any; does not sleep.
 * Return: 0, or -EINVAL (structure, region header or clock invalid).
 */
int gr_ctf_parse_info(const void *buf, size_t len, struct gr_ctf_info *info,
		      const char **why)
{
	const uint8_t *p = buf;
	struct gr_region_hdr rh;
	struct gr_event_desc d;
	struct gr_info_hdr h;
	uint64_t hdr_size, rh_size, desc_size, count, total;
	uint32_t crc, stored_crc;
	unsigned int i;
	const char *w;
	int ret;

	if (len < sizeof(h))
		return info_bad(why, "file is shorter than its header");
	memcpy(&h, p, sizeof(h));
	if (le64toh(h.magic) != GR_INFO_MAGIC)
		return info_bad(why, "bad magic");
	if (le32toh(h.version) != GR_INFO_VERSION)
		return info_bad(why, "unsupported version");
	hdr_size = le32toh(h.hdr_size);
	rh_size = le32toh(h.region_hdr_size);
	desc_size = le32toh(h.desc_size);
	count = le32toh(h.desc_count);
	if (hdr_size < sizeof(h) || hdr_size > GR_INFO_MAX_HDR)
		return info_bad(why, "bad header size");
	if (rh_size != sizeof(rh))
		return info_bad(why, "bad region header size");
	if (desc_size < sizeof(d) || desc_size > GR_INFO_MAX_DESC)
		return info_bad(why, "bad descriptor size");
	if (count > GR_MAX_EVENTS)
		return info_bad(why, "more descriptors than GR_MAX_EVENTS");
	total = hdr_size + rh_size + count * desc_size;	/* < 2^21 */
	if (total > len)
		return info_bad(why, "file is truncated");

	memset(info, 0, sizeof(*info));
	stored_crc = le32toh(h.crc32);
	h.crc32 = 0;
	crc = gr_crc32(0, &h, sizeof(h));
	crc = gr_crc32(crc, p + sizeof(h), (size_t)total - sizeof(h));
	info->crc_ok = crc == stored_crc;

	memcpy(&rh, p + hdr_size, sizeof(rh));
	ret = gr_check_region_hdr(&rh, le64toh(h.region_size), &info->view, &w);
	if (ret)
		return info_bad(why, w);

	info->stored_desc_count = (uint32_t)count;
	info->nr_events = count < info->view.desc_count ?
			  (unsigned int)count : info->view.desc_count;
	for (i = 0; i < info->nr_events; i++) {
		memcpy(&d, p + hdr_size + rh_size + i * desc_size, sizeof(d));
		if (gr_check_event_desc(&info->view, &d, i, &info->events[i],
					&info->why[i]))
			continue;
		info->valid[i] = 1;
	}
	/* invalid descriptors are zero: no family; on failure none at all */
	gr_check_families(&info->view, info->events, info->nr_events, NULL);

	memcpy(info->trace_uuid, h.trace_uuid, sizeof(info->trace_uuid));
	if (le32toh(h.flags) & GR_INFO_F_CLOCK_SYNCED) {
		info->clock.synced = 1;
		info->clock.offset_s = (int64_t)le64toh(h.clock_offset_s);
		info->clock.offset = le64toh(h.clock_offset);
		info->clock.precision = le64toh(h.clock_precision);
		info->clock.error_ns = le64toh(h.clock_error_ns);
		if (info->clock.offset >= info->view.clock_freq)
			return info_bad(why, "clock offset is not below clock_freq");
	}
	return 0;
}

/**
 * gr_ctf_read_info() - read and re-validate a trace's .guestrelay file
 * @dirfd: the trace directory
 * @info: receives the validated contents (about 150 KiB: allocate it)
 * @why: receives a static reason on failure; may be NULL
 *
 * Context: process; blocks on disk I/O; allocates.
 * Return: 0, -errno if the file cannot be opened or read (-ENOENT if it
 * does not exist), -EFBIG if it is larger than any valid file, -EINVAL if
 * its contents are invalid (see gr_ctf_parse_info()), -ENOMEM.
 */
int gr_ctf_read_info(int dirfd, struct gr_ctf_info *info, const char **why)
{
	struct stat st;
	size_t got = 0;
	uint8_t *buf;
	ssize_t n;
	int fd, ret;

	fd = openat(dirfd, GR_CTF_INFO, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		ret = -errno;
		if (why)
			*why = "cannot open the file";
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		if (why)
			*why = "cannot stat the file";
		return ret;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > GR_INFO_MAX_FILE) {
		close(fd);
		if (why)
			*why = S_ISREG(st.st_mode) ? "file is too large" :
			       "not a regular file";
		return S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	ret = gr_ctf_parse_info(buf, got, info, why);
	free(buf);
	return ret;
}
