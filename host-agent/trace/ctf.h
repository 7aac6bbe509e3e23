/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctf.h - the on-disk trace: CTF 1.8 metadata and the .guestrelay file
 *
 * Storage layout. One directory per VM per session:
 *
 *   <store>/<vm>/<session>/
 *       metadata        plain-text TSDL starting with the CTF 1.8 magic
 *                       comment, written by gr_ctf_write_metadata(); rewritten
 *                       (atomically) when the clock offset improves
 *       stream_<ring>   one CTF stream file per ring (GR_CTF_STREAM_FMT),
 *                       made only of whole sub-buffers exactly as the guest
 *                       wrote them: each is a struct gr_packet_header
 *                       (CTF packet header + packet context) followed by
 *                       event records; bytes between content_size and
 *                       packet_size are relay padding, which CTF readers
 *                       skip. A file always holds a whole number of
 *                       packets: one that ends mid-packet makes
 *                       babeltrace2 reject the whole trace. (Spec 6.12
 *                       also lets the agent store a packet content-only,
 *                       packet_size = content_size; readers accept both.)
 *                       A packet without any record (content_size = 72)
 *                       makes babeltrace2 2.0.4 reject the trace too: the
 *                       declared packet context ends at byte 68.
 *       .guestrelay     what `guestrelay report` needs without parsing
 *                       TSDL: struct gr_info_hdr, then the host's private
 *                       copies of struct gr_region_hdr and of the struct
 *                       gr_event_desc table that passed validation
 *                       (gr_ctf_write_info(), read by gr_ctf_read_info())
 *
 * babeltrace2 2.0.4 ignores files whose names start with '.' in a trace
 * directory ("Ignoring hidden file") and tries to decode every other file
 * but "metadata" as a stream: a leftover "metadata.tmp" makes it reject
 * the trace. So every temporary file here is hidden (".metadata.tmp",
 * ".guestrelay.tmp"), and nothing but metadata and stream files may ever
 * be visible in the directory. An empty stream file is ignored.
 */
#ifndef GR_CTF_H
#define GR_CTF_H

#include <stddef.h>
#include <stdint.h>

#include "guestrelay_abi.h"
#include "validate.h"

#define GR_CTF_METADATA		"metadata"
#define GR_CTF_METADATA_TMP	".metadata.tmp"
#define GR_CTF_INFO		".guestrelay"
#define GR_CTF_INFO_TMP		".guestrelay.tmp"
#define GR_CTF_STREAM_FMT	"stream_%u"	/* ring index */
#define GR_CTF_STREAM_NAME_MAX	24		/* fits "stream_4294967295" */

/*
 * Names the metadata gives to fields it adds itself (spec 7.5): a gap in
 * a payload that no natural alignment explains becomes a byte array
 * GR_CTF_PAD_PREFIX<offset>. Emitted guest field names are "_" + name,
 * and the spec forbids guest names beginning with "_gr_", so these
 * cannot clash; gr_ctf_metadata() refuses such a name.
 */
#define GR_CTF_RESERVED_PREFIX	"_gr_"
#define GR_CTF_PAD_PREFIX	"__gr_pad"

/*
 * The tracer and version the env claims (spec 7.5): Trace Compass picks its
 * kernel event layout from tracer_name/major/minor, and the event names the
 * metadata writes (gr_ctf_event_name()) are those of lttng-modules 2.9 and
 * later; 2.10 is the first whose lttng_statedump_process_state has "cpu".
 */
#define GR_CTF_TRACER_NAME	"lttng-modules"
#define GR_CTF_TRACER_MAJOR	2
#define GR_CTF_TRACER_MINOR	10
#define GR_CTF_TRACER_PATCH	0

const char *gr_ctf_event_name(const char *system, const char *name);
const char *gr_ctf_field_name(const struct gr_event_view *ev,
			      const struct gr_field_view *f);
int gr_ctf_names_check(const struct gr_event_view *events,
		       unsigned int nr_table, unsigned int nr);

/**
 * struct gr_ctf_env - who and what a trace describes
 * @vm_name: the VM's name as the operator knows it (libvirt domain name or
 *	the agent's --vm argument); env "vm_name". (env "hostname" is the
 *	guest's nodename, spec 7.5: babeltrace2 prints it on every event line.
 *	Trace Compass's host ID is the clock's uuid, the guest's boot_id.)
 * @host_name: the host's name (gethostname()); env "host_hostname"
 * @session: the session's name; env "session"
 * @trace_uuid: the trace UUID: new for every session of every VM.
 *	babeltrace2 treats directories with the same trace UUID given in one
 *	run as parts of one trace, so two VMs must never share one.
 * @tracer_major: version of guestrelay; env "guestrelay_major" (the env's
 *	"tracer_*" entries name the layout, spec 7.5: lttng-modules 2.10)
 * @tracer_minor: env "guestrelay_minor"
 * @created: the session's creation time, "YYYYmmddTHHMMSS+0000" (UTC), as
 *	LTTng writes it; env "trace_creation_datetime", absent when NULL
 * @filters: the event filters the host asked the guest for (spec 14),
 *	"EVENT: EXPR" joined by "; ", so a trace says what it left out; env
 *	"filters", absent when NULL or ""
 * @host_stream: the trace is a VM's host stream (hoststream.h): the
 *	view describes the host (its name, kernel, boot_id, CLOCK_MONOTONIC),
 *	env "guestrelay_stream" = "host" and no guest_* entries
 *
 * Strings may hold any byte: the metadata escapes them. NULL means "".
 */
struct gr_ctf_env {
	const char *vm_name;
	const char *host_name;
	const char *session;
	uint8_t trace_uuid[16];
	unsigned int tracer_major;
	unsigned int tracer_minor;
	const char *filters;
	const char *created;
	int host_stream;
};

/**
 * struct gr_ctf_clock - how the guest's event clock maps to host time
 * @offset_s: CTF clock offset_s: seconds since the Epoch (host
 *	CLOCK_REALTIME) at guest clock value 0; may be negative
 * @offset: CTF clock offset: further clock ticks, < the clock's frequency
 * @precision: error bound of the mapping, in clock ticks
 * @error_ns: the same error bound in nanoseconds (for the description)
 * @synced: 0 if no clock sync completed yet: then the offsets are 0, guest
 *	time is printed as time since the Epoch and traces of several VMs do
 *	not line up
 * @checked: the mapping was checked against the session's sync samples
 *	(hostctl.c): the fields below are meaningful
 * @mono_to_real: host CLOCK_REALTIME - CLOCK_MONOTONIC (ns) the mapping
 *	was made with: host CLOCK_MONOTONIC = the mapped time - this
 * @checked_ns: bound of the mapping over [@span_first, @span_last]: the
 *	largest |deviation| of a sync sample (one per series, its tightest
 *	round) from the mapping, in host CLOCK_MONOTONIC, plus that
 *	sample's own bound (half its round trip); >= @error_ns
 * @span_first: guest clock value of the first sample checked
 * @span_last: of the last one
 * @drift_ppb: the guest clock's largest rate against host
 *	CLOCK_MONOTONIC between two consecutive samples, in ns per second
 *	(10^-9), their bounds included; 0 with fewer than two samples
 * @samples: samples checked
 * @kvm_tsc: the mapping came from the guest's TSC through KVM's TSC
 *	relation (spec 9.5, v1.10), not from a round trip's midpoint
 *
 * Filled by gr_ctf_clock_from_sync() (unchecked), or zeroed for "not
 * synchronized". A CTF reader computes, for a clock value v at frequency f,
 * ns since the Epoch = offset_s * 10^9 + (offset + v) * 10^9 / f.
 */
struct gr_ctf_clock {
	int64_t offset_s;
	uint64_t offset;
	uint64_t precision;
	uint64_t error_ns;
	int synced;
	int checked;
	int64_t mono_to_real;
	uint64_t checked_ns;
	uint64_t span_first;
	uint64_t span_last;
	uint64_t drift_ppb;
	uint32_t samples;
	int kvm_tsc;
};

int gr_ctf_clock_from_sync(uint64_t freq, uint64_t guest_ticks,
			   int64_t host_ns, uint64_t error_ns,
			   struct gr_ctf_clock *clock);
const char *gr_ctf_clock_method(const struct gr_ctf_clock *clock);
__int128 gr_ctf_clock_ns(const struct gr_ctf_clock *clock, uint64_t freq,
			 uint64_t ticks);
int gr_ctf_metadata(const struct gr_view *v,
		    const struct gr_event_view *events, unsigned int nr_events,
		    const struct gr_ctf_env *env,
		    const struct gr_ctf_clock *clock, char **text, size_t *len);
void gr_uuid_str(const uint8_t uuid[16], char out[37]);

/* the directory's other files: metadata on disk, .guestrelay */
#include "ctf_info.h"

#endif /* GR_CTF_H */
