// SPDX-License-Identifier: GPL-2.0
/*
 * expo.c - the Prometheus text exposition page of the agent (format
 * 0.0.4, what `promtool check metrics` checks)
 *
 * One family at a time: "# HELP", "# TYPE", then that family's samples
 * for every VM, so that each family's lines stay together as the format
 * requires. Names follow Prometheus' naming guide: the guestrelay_
 * prefix, base units (bytes, seconds), counters end in _total, a 0/1
 * gauge per possible value for states (state sets), constant labels of
 * an object on an _info gauge whose value is 1.
 *
 * The per-VM counters are the counters of `guestrelay status` (struct
 * gr_vm_stats): they count the VM's current session and start again at 0
 * with a new session, which Prometheus' rate() and increase() treat as a
 * counter reset. The guest's own counters (events recorded, losses,
 * sub-buffers produced and overwritten) are reported as the guest wrote
 * them: informative, not trusted.
 *
 * Label values are escaped as the format says (backslash, double quote
 * and line feed); everything a guest wrote reaches this file already
 * sanitized by region/validate.c, but VM names and any other text are
 * escaped here all the same.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "expo.h"


/**
 * expo_label_value() - write a label value, escaped for the text format
 * @f: the page
 * @s: the value (any bytes but NUL)
 *
 * `\` becomes `\\`, `"` becomes `\"` and a line feed `\n`; other bytes
 * are written as they are (the format is UTF-8; Prometheus does not
 * reject other bytes in label values, and no other escape exists).
 */
void expo_label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			fputs("\\\\", f);
			break;
		case '"':
			fputs("\\\"", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/**
 * expo_family() - a family's HELP and TYPE lines
 * @f: the page
 * @name: the metric name
 * @type: counter, gauge, histogram
 * @help: one line, no line feed or backslash
 */
void expo_family(FILE *f, const char *name, const char *type,
		 const char *help)
{
	family(f, name, type, help);
}

/* "name{vm="...",key="..."} ": a sample up to its value; @vm, @key may be NULL */
static void series(FILE *f, const char *name, const char *vm,
		   const char *key, const char *val)
{
	char sep = '{';

	fputs(name, f);
	if (vm) {
		fputs("{vm=\"", f);
		expo_label_value(f, vm);
		fputc('"', f);
		sep = ',';
	}
	if (key) {
		fprintf(f, "%c%s=\"", sep, key);
		expo_label_value(f, val);
		fputc('"', f);
		sep = ',';
	}
	if (sep == ',')
		fputc('}', f);
	fputc(' ', f);
}

static void put_u64(FILE *f, const char *name, const char *vm,
		    const char *key, const char *val, uint64_t v)
{
	series(f, name, vm, key, val);
	fprintf(f, "%" PRIu64 "\n", v);
}

/**
 * expo_format_double() - @v with the fewest digits that read back as @v
 * (1.5e-05, not 1.5000000000000001e-05)
 * @buf: receives the text
 * @len: its size, 32 or more
 * @v: the value
 */
void expo_format_double(char *buf, size_t len, double v)
{
	int prec;

	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, len, "%.17g", v);
}

/**
 * expo_double() - a sample value (expo_format_double()) and the line's end
 * @f: the page
 * @v: the value
 */
void expo_double(FILE *f, double v)
{
	char buf[32];

	expo_format_double(buf, sizeof(buf), v);
	fprintf(f, "%s\n", buf);
}

static void put_double_kv(FILE *f, const char *name, const char *vm,
			  const char *key, const char *val, double v)
{
	series(f, name, vm, key, val);
	expo_double(f, v);
}

static void put_double(FILE *f, const char *name, const char *vm, double v)
{
	put_double_kv(f, name, vm, NULL, NULL, v);
}

/*
 * Per vCPU of every VM whose QEMU threads are known (agent/vcpu.c): the
 * vCPU thread's time on a host CPU, or runnable and waiting for one
 * (steal), from its schedstat; vcpu="all" under single-threaded TCG.
 * Counters of the thread: they start again with a new QEMU.
 */
static void vcpu_part(FILE *f, const struct gr_expo_vm *vms, size_t n)
{
	static const struct {
		const char *name;
		const char *help;
		bool steal;
	} fams[] = {
		{ "guestrelay_vcpu_steal_seconds_total",
		  "Time the vCPU's host thread was runnable but not running on a host CPU (schedstat run_delay): steal; vcpu=\"all\" when one thread runs every vCPU (single-threaded TCG).",
		  true },
		{ "guestrelay_vcpu_run_seconds_total",
		  "Time the vCPU's host thread ran on a host CPU (schedstat).",
		  false },
	};
	const struct gr_vcpu *c;
	char idx[16];
	size_t i, k, m;

	for (k = 0; k < ARRAY_SIZE(fams); k++) {
		family(f, fams[k].name, "counter", fams[k].help);
		for (i = 0; i < n; i++) {
			const struct gr_vcpus *v = &vms[i].info.vcpus;

			for (m = 0; !v->err && m < v->n; m++) {
				c = &v->cpu[m];
				if (c->index == GR_VCPU_ALL)
					snprintf(idx, sizeof(idx), "all");
				else
					snprintf(idx, sizeof(idx), "%d",
						 c->index);
				put_double_kv(f, fams[k].name,
					      vms[i].info.name, "vcpu", idx,
					      (double)(fams[k].steal ?
						       c->delay_ns : c->run_ns)
					      / 1e9);
			}
		}
	}
}

/* counters of struct gr_vm_stats with no label but vm */
static const struct {
	const char *name;
	const char *help;
	size_t off;
} vm_counters[] = {
	{ "guestrelay_vm_events_recorded_total",
	  "Events the guest recorded into its rings (the guest's count).",
	  offsetof(struct gr_vm_stats, guest_events) },
	{ "guestrelay_vm_stored_bytes_total",
	  "Bytes of trace packets stored in the current session.",
	  offsetof(struct gr_vm_stats, bytes) },
	{ "guestrelay_vm_stored_packets_total",
	  "Trace packets (sub-buffers) stored in the current session.",
	  offsetof(struct gr_vm_stats, packets) },
	{ "guestrelay_vm_subbuffers_produced_total",
	  "Sub-buffers the guest filled (the guest's count).",
	  offsetof(struct gr_vm_stats, produced) },
	{ "guestrelay_vm_subbuffers_overwritten_total",
	  "Sub-buffers the guest overwrote unconsumed in flight-recorder mode (the guest's count).",
	  offsetof(struct gr_vm_stats, overwritten) },
	{ "guestrelay_vm_subbuffers_skipped_total",
	  "Sub-buffers passed over because the guest's produced counter jumped.",
	  offsetof(struct gr_vm_stats, skipped) },
	{ "guestrelay_vm_polls_total",
	  "Timer wake-ups of the agent for this VM.",
	  offsetof(struct gr_vm_stats, polls) },
	{ "guestrelay_vm_write_errors_total",
	  "Failed or short writes of this VM's trace.",
	  offsetof(struct gr_vm_stats, write_errors) },
	{ "guestrelay_vm_region_rejected_total",
	  "Publications of the guest's region header that failed validation.",
	  offsetof(struct gr_vm_stats, bad_region) },
	{ "guestrelay_vm_hist_bad_maps_total",
	  "Per-CPU aggregation maps refused at a read: counts that went back or bad entries (spec 17.4).",
	  offsetof(struct gr_vm_stats, hist_bad_maps) },
	{ "guestrelay_vm_hist_torn_entries_total",
	  "Aggregation map entries left out of a read: the guest was writing them twice in a row.",
	  offsetof(struct gr_vm_stats, hist_torn) },
	{ "guestrelay_vm_clock_sync_tsc_refused_total",
	  "Clock-sync answers whose guest TSC, mapped through KVM's TSC offset and scaling, lay outside their round trip (the round-trip estimate was kept; spec H32).",
	  offsetof(struct gr_vm_stats, sync_tsc_refused) },
	{ "guestrelay_vm_clock_sync_polled_total",
	  "Clock-sync rounds whose answer the agent took by spinning, without a doorbell each way (spec 9.5, v1.12).",
	  offsetof(struct gr_vm_stats, sync_polled) },
	{ "guestrelay_vm_clock_sync_spin_missed_total",
	  "Spins for a polled clock-sync answer that saw none in time: the request was rung (spec H33).",
	  offsetof(struct gr_vm_stats, sync_spin_missed) },
};

/* the chunks of a VM kept in them (agent/rotate.c), from struct gr_vm_info */
static const struct chunk_family {
	const char *name;
	const char *type;
	const char *help;
	size_t off;
} chunk_families[] = {
	{ "guestrelay_vm_chunks", "gauge",
	  "Closed trace chunks of the VM in the store.",
	  offsetof(struct gr_vm_info, chunks.closed) },
	{ "guestrelay_vm_rotations_total", "counter",
	  "Chunks closed (rotations, and the last chunk of a session).",
	  offsetof(struct gr_vm_info, chunks.rotations) },
	{ "guestrelay_vm_chunks_pruned_total", "counter",
	  "Closed chunks deleted by retention (--keep-chunks, --keep-bytes).",
	  offsetof(struct gr_vm_info, chunks.pruned) },
	{ "guestrelay_vm_chunks_held", "gauge",
	  "Closed chunks retention would delete but keeps: not yet shipped (--ship).",
	  offsetof(struct gr_vm_info, chunks.held) },
	{ "guestrelay_vm_chunks_collected_pruned_total", "counter",
	  "Closed chunks deleted because a collector has them (--ship-prune).",
	  offsetof(struct gr_vm_info, chunks.collected_pruned) },
};

static uint64_t stat_at(const struct gr_vm_stats *st, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)st + off, sizeof(v));
	return v;
}

/* a state set: one 0/1 sample per possible @key value, 1 for @cur */
static void state_set(FILE *f, const char *name, const char *vm,
		      const char *key, const char *const *vals, size_t n,
		      const char *cur)
{
	size_t i;

	for (i = 0; i < n; i++)
		put_u64(f, name, vm, key, vals[i],
			cur && !strcmp(cur, vals[i]));
}

static const char *const vm_states[] = { "waiting", "attached", "stopped" };
static const char *const guest_states[] = {
	"absent", "idle", "tracing", "stopped", "panic", "unknown",
};

static void put_info(FILE *f, const struct gr_vm_info *in)
{
	static const char *const keys[] = { "device", "mode", "verify",
		"kernel", "nodename" };
	const char *vals[5] = {
		in->doorbell ? "doorbell" : "plain",
		in->mode == GR_MODE_FLIGHT ? "flight" : "stream",
		gr_verify_name(in->verify),
		in->kernel_release, in->nodename,
	};
	size_t i;

	fputs("guestrelay_vm_info{vm=\"", f);
	expo_label_value(f, in->name);
	for (i = 0; i < 5; i++) {
		fprintf(f, "\",%s=\"", keys[i]);
		expo_label_value(f, vals[i]);
	}
	fputs("\"} 1\n", f);
}

/* agent --live: the LTTng-live server (all 0 when it does not run) */
static void live_part(FILE *f, const struct gr_live_stats *l)
{
	static const struct {
		const char *name, *type, *help;
		size_t off;
	} fams[] = {
		{ "guestrelay_live_viewers", "gauge",
		  "LTTng-live viewer connections open.",
		  offsetof(struct gr_live_stats, viewers) },
		{ "guestrelay_live_sessions", "gauge",
		  "Recording sessions listed to LTTng-live viewers.",
		  offsetof(struct gr_live_stats, sessions) },
		{ "guestrelay_live_connections_total", "counter",
		  "LTTng-live viewer connections accepted.",
		  offsetof(struct gr_live_stats, accepted) },
		{ "guestrelay_live_refused_total", "counter",
		  "LTTng-live connections refused: the viewer limit was reached.",
		  offsetof(struct gr_live_stats, refused) },
		{ "guestrelay_live_bad_requests_total", "counter",
		  "LTTng-live connections closed for a request outside the protocol.",
		  offsetof(struct gr_live_stats, bad_requests) },
		{ "guestrelay_live_idle_closed_total", "counter",
		  "LTTng-live connections closed after a silence.",
		  offsetof(struct gr_live_stats, idle_closed) },
		{ "guestrelay_live_packets_total", "counter",
		  "Packets announced to LTTng-live viewers.",
		  offsetof(struct gr_live_stats, packets) },
		{ "guestrelay_live_beacons_total", "counter",
		  "Inactivity beacons sent for quiet streams.",
		  offsetof(struct gr_live_stats, beacons) },
		{ "guestrelay_live_chunks_skipped_total", "counter",
		  "Closed chunks deleted by retention before a viewer read them.",
		  offsetof(struct gr_live_stats, chunks_skipped) },
		{ "guestrelay_live_sent_bytes_total", "counter",
		  "Bytes sent to LTTng-live viewers.",
		  offsetof(struct gr_live_stats, bytes) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fams); i++) {
		family(f, fams[i].name, fams[i].type, fams[i].help);
		put_u64(f, fams[i].name, NULL, NULL, NULL,
			*(const uint64_t *)((const char *)l + fams[i].off));
	}
}

static void agent_part(FILE *f, const struct gr_expo_agent *ag,
		       const struct gr_expo_vm *vms, size_t n)
{
	uint64_t werr = 0;
	size_t i;

	family(f, "guestrelay_build_info", "gauge",
	       "The agent's version and ABI, and this host's name; always 1.");
	fprintf(f, "guestrelay_build_info{version=\"%s\",abi=\"%d.%d\",host=\"",
		GR_VERSION, GR_ABI_MAJOR, GR_ABI_MINOR);
	expo_label_value(f, ag->host);
	fputs("\"} 1\n", f);

	family(f, "guestrelay_vms", "gauge", "VMs the agent serves.");
	put_u64(f, "guestrelay_vms", NULL, NULL, NULL, n);

	family(f, "guestrelay_loop_iterations_total", "counter",
	       "Passes of the agent's io_uring loop.");
	put_u64(f, "guestrelay_loop_iterations_total", NULL, NULL, NULL,
		ag->loop_passes);
	family(f, "guestrelay_loop_completions_total", "counter",
	       "io_uring completions the agent's loop handled.");
	put_u64(f, "guestrelay_loop_completions_total", NULL, NULL, NULL,
		ag->loop_completions);

	for (i = 0; i < n; i++)
		werr = gr_sat_add(werr, vms[i].info.st.write_errors);
	family(f, "guestrelay_write_errors", "gauge",
	       "Failed or short trace writes in the current sessions of the VMs served (falls when a session restarts or a VM is removed; per VM: guestrelay_vm_write_errors_total).");
	put_u64(f, "guestrelay_write_errors", NULL, NULL, NULL, werr);
	live_part(f, &ag->live);
	if (!ag->ship)
		return;
	family(f, "guestrelay_ship_outages_total", "counter",
	       "Times shipping to NATS JetStream stopped, whatever the cause (no server, a hung one, the stream without quorum); one per outage.");
	put_u64(f, "guestrelay_ship_outages_total", NULL, NULL, NULL,
		ag->ship_outages);
	family(f, "guestrelay_ship_id_conflicts_total", "counter",
	       "Packets whose message id another publisher had taken; each was republished under a fresh id.");
	put_u64(f, "guestrelay_ship_id_conflicts_total", NULL, NULL, NULL,
		ag->ship_id_conflicts);
}

static void vm_part(FILE *f, const struct gr_expo_vm *vms, size_t n)
{
	const char *name;
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(vm_counters); k++) {
		family(f, vm_counters[k].name, "counter", vm_counters[k].help);
		for (i = 0; i < n; i++)
			put_u64(f, vm_counters[k].name, vms[i].info.name,
				NULL, NULL, stat_at(&vms[i].info.st,
						    vm_counters[k].off));
	}

	name = "guestrelay_vm_events_lost_total";
	family(f, name, "counter",
	       "Events the guest dropped, by cause (the guest's count): full = no free sub-buffer, too_big = larger than a sub-buffer, nested = a probe interrupted another on the same CPU.");
	for (i = 0; i < n; i++) {
		const struct gr_vm_stats *st = &vms[i].info.st;

		put_u64(f, name, vms[i].info.name, "cause", "full",
			st->lost_full);
		put_u64(f, name, vms[i].info.name, "cause", "too_big",
			st->lost_too_big);
		put_u64(f, name, vms[i].info.name, "cause", "nested",
			st->lost_nested);
	}

	name = "guestrelay_vm_subbuffers_invalid_total";
	family(f, name, "counter",
	       "Sub-buffers dropped as invalid and never stored, by reason: packet = header, sequence or counters, record = a record failed the check of verify mode.");
	for (i = 0; i < n; i++) {
		const struct gr_vm_stats *st = &vms[i].info.st;
		uint64_t rec = st->invalid_records;

		if (rec > st->invalid)
			rec = st->invalid;
		put_u64(f, name, vms[i].info.name, "reason", "packet",
			st->invalid - rec);
		put_u64(f, name, vms[i].info.name, "reason", "record", rec);
	}

	name = "guestrelay_vm_subbuffers_rewritten_total";
	family(f, name, "counter",
	       "--verify stored: stored packets the guest changed under the write, rewritten from the checked copy.");
	for (i = 0; i < n; i++)
		put_u64(f, name, vms[i].info.name, NULL, NULL,
			vms[i].info.st.rewritten);

	name = "guestrelay_vm_last_record_refused_total";
	family(f, name, "counter",
	       "Commit records whose declared last record (spec H31) was refused: the host walked the packet's records instead.");
	for (i = 0; i < n; i++)
		put_u64(f, name, vms[i].info.name, NULL, NULL,
			vms[i].info.st.last_record_refused);

	name = "guestrelay_vm_events_added_total";
	family(f, name, "counter",
	       "Event descriptors the guest added at run time that the host adopted (spec 18.3 M2).");
	for (i = 0; i < n; i++)
		put_u64(f, name, vms[i].info.name, NULL, NULL,
			vms[i].info.st.desc_added);

	name = "guestrelay_vm_probes_live";
	family(f, name, "gauge",
	       "Probes the host defined that are alive in the guest's kernel (spec 18.4).");
	for (i = 0; i < n; i++)
		put_u64(f, name, vms[i].info.name, NULL, NULL,
			vms[i].info.st.probes_live);

	name = "guestrelay_vm_events_added_refused_total";
	family(f, name, "counter",
	       "Descriptors added at run time that the host refused: a batch failing its checks, or a desc_live out of range (spec 18.3 M2).");
	for (i = 0; i < n; i++) {
		put_u64(f, name, vms[i].info.name, "what", "batch",
			vms[i].info.st.desc_refused);
		put_u64(f, name, vms[i].info.name, "what", "desc_live",
			vms[i].info.st.desc_live_bad);
	}

	name = "guestrelay_vm_doorbells_total";
	family(f, name, "counter",
	       "Doorbell notifications, by direction.");
	for (i = 0; i < n; i++) {
		put_u64(f, name, vms[i].info.name, "direction",
			"guest_to_host", vms[i].info.st.doorbells_in);
		put_u64(f, name, vms[i].info.name, "direction",
			"host_to_guest", vms[i].info.st.doorbells_out);
	}

	name = "guestrelay_vm_state";
	family(f, name, "gauge",
	       "The agent's state of the VM: 1 for the current state, 0 for the others.");
	for (i = 0; i < n; i++)
		state_set(f, name, vms[i].info.name, "state", vm_states,
			  ARRAY_SIZE(vm_states),
			  vms[i].info.state);

	name = "guestrelay_vm_guest_state";
	family(f, name, "gauge",
	       "The state the guest driver reports: 1 for the current state, 0 for the others.");
	for (i = 0; i < n; i++)
		state_set(f, name, vms[i].info.name, "state", guest_states,
			  ARRAY_SIZE(guest_states),
			  vms[i].info.guest_state);

	name = "guestrelay_vm_guest_connected";
	family(f, name, "gauge",
	       "1 if QEMU is connected to the VM's socket (doorbell device) or maps its memory (plain device).");
	for (i = 0; i < n; i++)
		put_u64(f, name, vms[i].info.name, NULL, NULL,
			vms[i].info.guest_connected);

	name = "guestrelay_vm_clock_sync_error_seconds";
	family(f, name, "gauge",
	       "Error bound of the guest clock's offset to host time; absent until the clock is synchronized.");
	for (i = 0; i < n; i++)
		if (vms[i].info.sync_error_ns)
			put_double(f, name, vms[i].info.name,
				   (double)vms[i].info.sync_error_ns / 1e9);

	name = "guestrelay_vm_clock_offset_seconds";
	family(f, name, "gauge",
	       "Host realtime minus guest clock; absent until the clock is synchronized.");
	for (i = 0; i < n; i++)
		if (vms[i].info.sync_error_ns)
			put_double(f, name, vms[i].info.name,
				   (double)vms[i].info.sync_offset_ns / 1e9);

	name = "guestrelay_vm_session_open";
	family(f, name, "gauge", "1 while a recording session is open.");
	for (i = 0; i < n; i++)
		put_u64(f, name, vms[i].info.name, NULL, NULL,
			vms[i].info.session[0] != '\0');

	name = "guestrelay_vm_sessions";
	family(f, name, "gauge",
	       "Trace directories in the VM's store, by kind (recording sessions, flight-recorder snapshots).");
	for (i = 0; i < n; i++) {
		if (!vms[i].store_known)
			continue;
		put_u64(f, name, vms[i].info.name, "kind", "recording",
			vms[i].sessions);
		put_u64(f, name, vms[i].info.name, "kind", "snapshot",
			vms[i].snapshots);
	}

	name = "guestrelay_vm_store_usage_bytes";
	family(f, name, "gauge", "Bytes of the VM's traces in the store.");
	for (i = 0; i < n; i++)
		put_u64(f, name, vms[i].info.name, NULL, NULL,
			vms[i].info.usage);

	name = "guestrelay_vm_quota_bytes";
	family(f, name, "gauge",
	       "The VM's disk quota; absent when it has none.");
	for (i = 0; i < n; i++)
		if (vms[i].info.quota)
			put_u64(f, name, vms[i].info.name, NULL, NULL,
				vms[i].info.quota);

	for (k = 0; k < ARRAY_SIZE(chunk_families); k++) {
		const struct chunk_family *c = &chunk_families[k];

		family(f, c->name, c->type, c->help);
		for (i = 0; i < n; i++)
			put_u64(f, c->name, vms[i].info.name, NULL, NULL,
				stat_at((const void *)&vms[i].info, c->off));
	}

	for (i = 0; i < n && !vms[i].info.ship.enabled; i++)
		;
	if (i < n) {
		name = "guestrelay_vm_ship_backlog_bytes";
		family(f, name, "gauge",
		       "Bytes of the VM's store that NATS JetStream has not acknowledged yet (agent --ship).");
		for (i = 0; i < n; i++)
			put_u64(f, name, vms[i].info.name, NULL, NULL,
				vms[i].info.ship.backlog_bytes);
		name = "guestrelay_vm_ship_backlog_packets";
		family(f, name, "gauge",
		       "Packets (and metadata versions) of the VM's store that NATS JetStream has not acknowledged yet.");
		for (i = 0; i < n; i++)
			put_u64(f, name, vms[i].info.name, NULL, NULL,
				vms[i].info.ship.backlog_packets);
		name = "guestrelay_vm_ship_backlog_oldest_seconds";
		family(f, name, "gauge",
		       "Age of the oldest part of the VM's shipping backlog; 0 when there is none.");
		for (i = 0; i < n; i++)
			put_double(f, name, vms[i].info.name,
				   vms[i].info.ship.oldest_s);
		name = "guestrelay_vm_ship_connected";
		family(f, name, "gauge",
		       "1 while the agent is connected to a NATS server.");
		for (i = 0; i < n; i++)
			put_u64(f, name, vms[i].info.name, NULL, NULL,
				vms[i].info.ship.connected);
	}

	vcpu_part(f, vms, n);

	family(f, "guestrelay_vm_info", "gauge",
	       "The VM's device, mode and guest kernel and node name; always 1.");
	for (i = 0; i < n; i++)
		put_info(f, &vms[i].info);
}

/**
 * expo_page() - the whole /metrics page
 * @f: where to write it
 * @ag: agent-wide figures
 * @vms: the VMs served
 * @n: how many
 *
 * Context: any thread; reads only its arguments.
 */
void expo_page(FILE *f, const struct gr_expo_agent *ag,
	       const struct gr_expo_vm *vms, size_t n)
{
	agent_part(f, ag, vms, n);
	vm_part(f, vms, n);
	expo_hist_part(f, vms, n);
}
