// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - how `guestrelay status` shows one VM, as text and as JSON
 * (out.h). Every string of struct gr_vm_info that a guest wrote goes out
 * escaped (ctl_put_text(), the JSON writer).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "agent.h"
#include "opts.h"
#include "out.h"


static void put_channels(FILE *f, const struct gr_vm_info *in);
static void put_latency(FILE *f, const struct gr_vm_info *in);

static void put_row(FILE *f, const char *key)
{
	fprintf(f, "  %-13s ", key);
}

static void put_text_or_dash(FILE *f, const char *s)
{
	if (s && *s)
		ctl_put_text(f, s);
	else
		fputc('-', f);
}

/* spec 14: one row per filter: event, expression, state, guest's count */
static void put_filters(FILE *f, const struct gr_vm_info *in)
{
	unsigned int i, n = 0;

	for (i = 0; i < GR_FILTER_SLOTS; i++) {
		if (!in->filters[i].event[0])
			continue;
		put_row(f, n++ ? "" : "filters");
		ctl_put_text(f, in->filters[i].event);
		fputs(": ", f);
		ctl_put_text(f, in->filters[i].expr);
		fprintf(f, " [%s", in->filters[i].state);
		if (in->filters[i].why[0]) {
			fputs(": ", f);
			ctl_put_text(f, in->filters[i].why);
		}
		fprintf(f, "], %" PRIu64 " filtered out (guest count)\n",
			in->filters[i].filtered);
	}
	if (!n) {
		put_row(f, "filters");
		fputs("none\n", f);
	}
	/* spec 15: the follow filter, its state and the guest's counts */
	if (!in->follow.what[0])
		return;
	put_row(f, "follow");
	ctl_put_text(f, in->follow.what);
	fprintf(f, " [%s", in->follow.state);
	if (in->follow.why[0]) {
		fputs(": ", f);
		ctl_put_text(f, in->follow.why);
	}
	fprintf(f, "], %" PRIu32 " tasks followed, %" PRIu64
		" children added, %" PRIu64 " records of other tasks left out",
		in->follow.tasks, in->follow.forks, in->follow.dropped);
	if (in->follow.missing)
		fprintf(f, ", %" PRIu32 " named pids had no task",
			in->follow.missing);
	fputc('\n', f);
}

/* QEMU's vCPU threads on the host: run and steal per vCPU (vcpu.c) */
static void put_vcpus(FILE *f, const struct gr_vcpus *v)
{
	const struct gr_vcpu *c;
	unsigned int i;
	char key[24];

	put_row(f, "host threads");
	if (!v->pid) {
		fputs("-\n", f);
		return;
	}
	fprintf(f, "QEMU pid %d, %s", v->pid, vcpu_threading(v));
	if (v->err)
		fprintf(f, " (%s)", strerror(-v->err));
	else if (v->pid && !v->unnamed)
		fprintf(f, " (%s), %u other threads ran %.3f s, steal %.3f s",
			v->from_qmp ? "from QMP" : v->accel, v->others, (double)v->others_run_ns / 1e9,
			(double)v->others_delay_ns / 1e9);
	fputc('\n', f);
	for (i = 0; i < v->n; i++) {
		c = &v->cpu[i];
		if (c->index == GR_VCPU_ALL)
			snprintf(key, sizeof(key), "all vCPUs");
		else
			snprintf(key, sizeof(key), "vCPU %d", c->index);
		put_row(f, key);
		fprintf(f, "tid %d on host CPU %d, ran %.3f s, steal %.3f s\n",
			c->tid, c->host_cpu, (double)c->run_ns / 1e9,
			(double)c->delay_ns / 1e9);
	}
}

void ctl_status_text(FILE *f, const struct gr_vm_info *in)
{
	const struct gr_vm_stats *st = &in->st;
	char b1[32], b2[32];
	int64_t off = in->sync_offset_ns;
	uint64_t aoff;

	ctl_put_text(f, in->name);
	fputc('\n', f);

	put_row(f, "state");
	put_text_or_dash(f, in->state);
	fputs(", guest ", f);
	put_text_or_dash(f, in->guest_state);
	fputc('\n', f);

	put_row(f, "device");
	if (in->doorbell)
		fprintf(f, "doorbell, QEMU %s\n", in->guest_connected ?
			"connected" : "not connected");
	else
		fprintf(f, "plain (polled), QEMU %s\n",
			in->guest_connected ? "mapped" : "not seen");

	put_row(f, "guest");
	if (in->kernel_release[0] || in->nodename[0]) {
		fputs("Linux ", f);
		put_text_or_dash(f, in->kernel_release);
		fputs(" on ", f);
		put_text_or_dash(f, in->nodename);
		fputc('\n', f);
	} else {
		fputs("-\n", f);
	}

	put_row(f, "buffers");
	if (in->nr_rings) {
		ctl_human_bytes(b1, sizeof(b1), in->subbuf_size, "");
		fprintf(f, "%" PRIu32 " CPUs (rings) x %" PRIu32
			" sub-buffers of %s\n", in->nr_rings, in->n_subbufs, b1);
	} else {
		fputs("-\n", f);
	}

	put_row(f, "mode");
	fprintf(f, "%s, records %s, writes %s\n", ctl_mode_name(in->mode),
		in->verify == GR_VERIFY_ON ? "verified (copy)" :
		in->verify == GR_VERIFY_STORED ?
		"verified as stored (zero copy)" : "not verified (zero copy)",
		in->io ? in->io : "-");
	put_row(f, "switch timer");
	if (in->switch_timer_us)
		fprintf(f, "%" PRIu32 " ms\n", in->switch_timer_us / 1000);
	else
		fputs("off\n", f);
	put_row(f, "events");
	ctl_put_text(f, in->events[0] ? in->events : "none");
	fputc('\n', f);
	put_filters(f, in);
	put_row(f, "pending");
	put_text_or_dash(f, in->pending);
	fputc('\n', f);
	if (st->desc_added || st->desc_refused || st->desc_live_bad) {
		put_row(f, "events added");
		fprintf(f, "%" PRIu64 " by the guest at run time, %" PRIu64
			" batches refused, %" PRIu64 " bad desc_live\n",
			st->desc_added, st->desc_refused, st->desc_live_bad);
	}
	if (st->probes_live || st->probes_defined) {
		put_row(f, "probes");
		fprintf(f, "%" PRIu64 " live in the guest (guestrelay probe "
			"VM lists them), %" PRIu64 " defined, %" PRIu64
			" deleted\n", st->probes_live, st->probes_defined,
			st->probes_deleted);
	}

	put_row(f, "recorded");
	fprintf(f, "%" PRIu64 " events (at the guest's last tick), %" PRIu64
		" sub-buffers (guest counts)\n", st->guest_events,
		st->produced);
	put_row(f, "stored");
	ctl_human_bytes(b1, sizeof(b1), (double)st->bytes, "");
	ctl_human_bytes(b2, sizeof(b2), in->rate_bps, "/s");
	fprintf(f, "%" PRIu64 " packets, %s (%" PRIu64 " bytes), %s\n",
		st->packets, b1, st->bytes, b2);
	put_row(f, "lost");
	fprintf(f, "full %" PRIu64 ", too_big %" PRIu64 ", nested %" PRIu64
		" events; overwritten %" PRIu64 " sub-buffers\n",
		st->lost_full, st->lost_too_big, st->lost_nested,
		st->overwritten);
	put_row(f, "invalid");
	fprintf(f, "%" PRIu64 " sub-buffers dropped (%" PRIu64 " for a bad "
		"record), %" PRIu64 " skipped, %" PRIu64 " write errors, %"
		PRIu64 " bad headers", st->invalid, st->invalid_records,
		st->skipped, st->write_errors, st->bad_region);
	if (in->verify == GR_VERIFY_STORED)
		fprintf(f, ", %" PRIu64 " rewritten", st->rewritten);
	if (st->last_record_refused)
		fprintf(f, ", %" PRIu64 " last-record hints refused",
			st->last_record_refused);
	if (st->sync_tsc_refused)
		fprintf(f, ", %" PRIu64 " clock-sync TSC readings refused",
			st->sync_tsc_refused);
	fputc('\n', f);
	put_row(f, "doorbells");
	fprintf(f, "in %" PRIu64 ", out %" PRIu64 ", polls %" PRIu64 "\n",
		st->doorbells_in, st->doorbells_out, st->polls);

	put_row(f, "host stream");
	put_text_or_dash(f, in->host_stream.state);
	if (in->host_stream.err)
		fprintf(f, " (%s)", strerror(-in->host_stream.err));
	else if (in->host_stream.state &&
		 !strcmp(in->host_stream.state, "on"))
		fprintf(f, ", %" PRIu64 " events, %" PRIu64 " lost",
			in->host_stream.events, in->host_stream.lost);
	fputc('\n', f);
	put_vcpus(f, &in->vcpus);
	put_channels(f, in);
	put_latency(f, in);

	put_row(f, "clock sync");
	if (in->sync_error_ns) {
		aoff = off < 0 ? -(uint64_t)off : (uint64_t)off;
		fprintf(f, "error +/- %.1f us, offset %s%" PRIu64 ".%09" PRIu64
			" s%s%s%s\n", (double)in->sync_error_ns / 1000.0,
			off < 0 ? "-" : "", aoff / NSEC_PER_SEC,
			aoff % NSEC_PER_SEC, in->sync_method ? " (" : "",
			in->sync_method ? in->sync_method : "",
			in->sync_method ? ")" : "");
	} else {
		fputs("not synchronized\n", f);
	}

	put_row(f, "quota");
	ctl_human_bytes(b1, sizeof(b1), (double)in->usage, "");
	if (in->quota) {
		ctl_human_bytes(b2, sizeof(b2), (double)in->quota, "");
		fprintf(f, "%s of %s used (%.1f%%)\n", b1, b2,
			100.0 * (double)in->usage / (double)in->quota);
	} else {
		fprintf(f, "%s used, no quota\n", b1);
	}
	put_row(f, "stop reason");
	put_text_or_dash(f, in->stop_reason);
	fputc('\n', f);
	put_row(f, "session");
	put_text_or_dash(f, in->session);
	if (in->chunks.active[0] || in->chunks.closed || in->chunks.rotations) {
		put_row(f, "chunks");
		ctl_human_bytes(b1, sizeof(b1), (double)in->chunks.closed_bytes,
				"");
		fprintf(f, "%" PRIu64 " closed (%s), %" PRIu64 " rotations, %"
			PRIu64 " pruned, %" PRIu64 " held (not shipped), %" PRIu64
			" deleted as collected; writing ",
			in->chunks.closed, b1, in->chunks.rotations,
			in->chunks.pruned, in->chunks.held,
			in->chunks.collected_pruned);
		put_text_or_dash(f, in->chunks.active);
		fputc('\n', f);
	}
	fputc('\n', f);
	if (in->ship.enabled) {
		put_row(f, "shipping");
		ctl_human_bytes(b1, sizeof(b1),
				(double)in->ship.backlog_bytes, "");
		fprintf(f, "%s, backlog %" PRIu64 " packets, %s (%" PRIu64
			" bytes), oldest %.1f s\n",
			in->ship.connected ? "connected" : "NATS unreachable",
			in->ship.backlog_packets, b1, in->ship.backlog_bytes,
			in->ship.oldest_s);
	}
}

/* One row per client channel of the session (spec 16) */
static void put_channels(FILE *f, const struct gr_vm_info *in)
{
	const struct gr_client_info *c;
	unsigned int e;

	for (e = 0; e < GR_CLIENT_INFO_MAX; e++) {
		c = &in->channels[e];
		if (!c->name[0])
			continue;
		put_row(f, "channel");
		ctl_put_text(f, c->name);
		fprintf(f, " (%s%s, %" PRIu32 " rings): %" PRIu64 " bytes in %"
			PRIu64 " sub-buffers; lost full %" PRIu64 ", too_big %"
			PRIu64 ", nested %" PRIu64 " messages, overwritten %"
			PRIu64 " sub-buffers; %" PRIu64 " invalid, %" PRIu64
			" skipped, %" PRIu64 " write errors\n", c->state,
			c->klog ? ", klog text" : "", c->rings, c->n.bytes,
			c->n.subbufs, c->n.lost[0], c->n.lost[1],
			c->n.lost[2], c->n.lost[3], c->n.invalid, c->n.skipped,
			c->n.write_errors);
	}
	if (in->client_bad_area || in->client_bad_entries) {
		put_row(f, "channels");
		fprintf(f, "refused: %" PRIu64 " client areas, %" PRIu64
			" entries\n", in->client_bad_area,
			in->client_bad_entries);
	}
	if (in->client_untracked) {
		put_row(f, "channels");
		fprintf(f, "%" PRIu64 " withdrawn past the %d names counted\n",
			in->client_untracked, GR_CLIENT_INFO_MAX);
	}
}

/*
 * One row per running latency table (spec 17): its events, p50 and p99
 * (the le of their log2 bucket, gr_hist_log2_quantile()) and drops
 */
static void put_latency(FILE *f, const struct gr_vm_info *in)
{
	const struct gr_vm_lat *l;
	char p50[16], p99[16];
	unsigned int i;

	for (i = 0; i < in->nr_lat && i < GR_HIST_REQS; i++) {
		l = &in->lat[i];
		ctl_human_seconds(p50, sizeof(p50), l->p50_s);
		ctl_human_seconds(p99, sizeof(p99), l->p99_s);
		put_row(f, "latency");
		ctl_put_text(f, l->name);
		fprintf(f, ": %" PRIu64 " events, p50 %s, p99 %s, %" PRIu64
			" dropped\n", l->count, p50, p99, l->dropped);
	}
}

/*
 * "latency": per running table keyed by a log2 time, in slot order:
 * name, preset ("runq", "syscall", "block", "irq"; null for a keys=
 * request), count (events, every key), p50_s and p99_s (null without
 * events) and dropped. A quantile is the upper bound le = 2^k ns, in
 * seconds, of the log2 bucket where the cumulative count reaches it:
 * the bound of /metrics' histogram bucket, not interpolated.
 */
static void put_latency_json(struct ctl_json *j, const struct gr_vm_info *in)
{
	const struct gr_vm_lat *l;
	unsigned int i;

	ctl_json_begin_array(j, "latency");
	for (i = 0; i < in->nr_lat && i < GR_HIST_REQS; i++) {
		l = &in->lat[i];
		ctl_json_begin_object(j, NULL);
		ctl_json_string(j, "name", l->name);
		ctl_json_string(j, "preset", l->preset[0] ? l->preset : NULL);
		ctl_json_u64(j, "count", l->count);
		if (l->p50_s >= 0 && l->p99_s >= 0) {
			ctl_json_double(j, "p50_s", l->p50_s);
			ctl_json_double(j, "p99_s", l->p99_s);
		} else {
			ctl_json_null(j, "p50_s");
			ctl_json_null(j, "p99_s");
		}
		ctl_json_u64(j, "dropped", l->dropped);
		ctl_json_end_object(j);
	}
	ctl_json_end_array(j);
}

static void put_channels_json(struct ctl_json *j, const struct gr_vm_info *in)
{
	const struct gr_client_info *c;
	unsigned int e;

	ctl_json_begin_array(j, "channels");
	for (e = 0; e < GR_CLIENT_INFO_MAX; e++) {
		c = &in->channels[e];
		if (!c->name[0])
			continue;
		ctl_json_begin_object(j, NULL);
		ctl_json_string(j, "name", c->name);
		ctl_json_string(j, "state", c->state);
		ctl_json_bool(j, "klog", c->klog);
		ctl_json_u64(j, "rings", c->rings);
		ctl_json_u64(j, "bytes", c->n.bytes);
		ctl_json_u64(j, "subbufs", c->n.subbufs);
		ctl_json_u64(j, "lost_full", c->n.lost[0]);
		ctl_json_u64(j, "lost_too_big", c->n.lost[1]);
		ctl_json_u64(j, "lost_nested", c->n.lost[2]);
		ctl_json_u64(j, "overwritten", c->n.lost[3]);
		ctl_json_u64(j, "lost_back", c->n.lost_back);
		ctl_json_u64(j, "invalid", c->n.invalid);
		ctl_json_u64(j, "skipped", c->n.skipped);
		ctl_json_u64(j, "write_errors", c->n.write_errors);
		ctl_json_end_object(j);
	}
	ctl_json_end_array(j);
	ctl_json_u64(j, "client_untracked", in->client_untracked);
	ctl_json_u64(j, "client_bad_area", in->client_bad_area);
	ctl_json_u64(j, "client_bad_entries", in->client_bad_entries);
}

/* "host": QEMU's pid and vCPU threads, run and steal per vCPU */
static void put_vcpus_json(struct ctl_json *j, const struct gr_vcpus *v)
{
	const struct gr_vcpu *c;
	unsigned int i;

	ctl_json_begin_object(j, "host");
	ctl_json_u64(j, "qemu_pid", (uint64_t)v->pid);
	ctl_json_string(j, "threading", vcpu_threading(v));
	ctl_json_string(j, "accel", v->accel[0] ? v->accel : NULL);
	ctl_json_string(j, "vcpus_from", !v->n ? NULL :
			v->from_qmp ? "qmp" : "names");
	ctl_json_string(j, "qmp_error",
			v->qmp_err ? strerror(-v->qmp_err) : NULL);
	ctl_json_string(j, "error", v->err ? strerror(-v->err) : NULL);
	ctl_json_begin_array(j, "vcpus");
	for (i = 0; i < v->n; i++) {
		c = &v->cpu[i];
		ctl_json_begin_object(j, NULL);
		if (c->index == GR_VCPU_ALL)
			ctl_json_string(j, "vcpu", "all");
		else
			ctl_json_u64(j, "vcpu", (uint64_t)c->index);
		ctl_json_u64(j, "tid", (uint64_t)c->tid);
		ctl_json_i64(j, "host_cpu", c->host_cpu);
		ctl_json_double(j, "run_s", (double)c->run_ns / 1e9);
		ctl_json_double(j, "steal_s", (double)c->delay_ns / 1e9);
		ctl_json_end_object(j);
	}
	ctl_json_end_array(j);
	ctl_json_u64(j, "other_threads", v->others);
	ctl_json_double(j, "other_run_s", (double)v->others_run_ns / 1e9);
	ctl_json_double(j, "other_steal_s", (double)v->others_delay_ns / 1e9);
	ctl_json_end_object(j);
}

void ctl_status_json(struct ctl_json *j, const struct gr_vm_info *in)
{
	ctl_status_json_member(j, NULL, in);
}

void ctl_status_json_member(struct ctl_json *j, const char *key,
			    const struct gr_vm_info *in)
{
	const struct gr_vm_stats *st = &in->st;
	unsigned int i;

	ctl_json_begin_object(j, key);
	ctl_json_string(j, "name", in->name);
	ctl_json_string(j, "state", in->state);
	ctl_json_string(j, "guest_state", in->guest_state);
	ctl_json_string(j, "device", in->doorbell ? "doorbell" : "plain");
	ctl_json_bool(j, "connected", in->guest_connected);
	ctl_json_string(j, "mode", ctl_mode_name(in->mode));
	ctl_json_bool(j, "verify", in->verify != GR_VERIFY_OFF);
	ctl_json_string(j, "verify_mode", gr_verify_name(in->verify));
	ctl_json_string(j, "io", in->io);
	ctl_json_u64(j, "switch_timer_us", in->switch_timer_us);
	ctl_json_u64(j, "nr_rings", in->nr_rings);
	ctl_json_u64(j, "subbuf_size", in->subbuf_size);
	ctl_json_u64(j, "n_subbufs", in->n_subbufs);
	ctl_json_string(j, "kernel_release", in->kernel_release);
	ctl_json_string(j, "nodename", in->nodename);
	ctl_json_list(j, "events", in->events);
	ctl_json_begin_array(j, "filters");
	for (i = 0; i < GR_FILTER_SLOTS; i++) {
		if (!in->filters[i].event[0])
			continue;
		ctl_json_begin_object(j, NULL);
		ctl_json_string(j, "event", in->filters[i].event);
		ctl_json_string(j, "filter", in->filters[i].expr);
		ctl_json_string(j, "state", in->filters[i].state);
		ctl_json_string(j, "why", in->filters[i].why[0] ?
				in->filters[i].why : NULL);
		ctl_json_u64(j, "filtered", in->filters[i].filtered);
		ctl_json_end_object(j);
	}
	ctl_json_end_array(j);
	ctl_json_u64(j, "filter_errors", in->filter_errors);
	if (in->follow.what[0]) {
		ctl_json_begin_object(j, "follow");
		ctl_json_string(j, "what", in->follow.what);
		ctl_json_string(j, "state", in->follow.state);
		ctl_json_string(j, "why", in->follow.why[0] ?
				in->follow.why : NULL);
		ctl_json_u64(j, "tasks", in->follow.tasks);
		ctl_json_u64(j, "missing", in->follow.missing);
		ctl_json_u64(j, "children", in->follow.forks);
		ctl_json_u64(j, "dropped", in->follow.dropped);
		ctl_json_end_object(j);
	} else {
		ctl_json_null(j, "follow");
	}
	ctl_json_string(j, "pending", in->pending);
	ctl_json_string(j, "stop_reason",
			in->stop_reason && *in->stop_reason ?
			in->stop_reason : NULL);
	ctl_json_string(j, "session", in->session[0] ? in->session : NULL);
	ctl_json_u64(j, "quota", in->quota);
	ctl_json_u64(j, "usage", in->usage);
	ctl_json_begin_object(j, "chunks");
	ctl_json_string(j, "active", in->chunks.active[0] ?
			in->chunks.active : NULL);
	ctl_json_u64(j, "closed", in->chunks.closed);
	ctl_json_u64(j, "closed_bytes", in->chunks.closed_bytes);
	ctl_json_u64(j, "rotations", in->chunks.rotations);
	ctl_json_u64(j, "pruned", in->chunks.pruned);
	ctl_json_u64(j, "pruned_bytes", in->chunks.pruned_bytes);
	ctl_json_u64(j, "held", in->chunks.held);
	ctl_json_u64(j, "collected_pruned", in->chunks.collected_pruned);
	ctl_json_end_object(j);
	ctl_json_i64(j, "sync_offset_ns", in->sync_offset_ns);
	ctl_json_u64(j, "sync_error_ns", in->sync_error_ns);
	ctl_json_string(j, "sync_method", in->sync_method);
	ctl_json_double(j, "rate_bps", in->rate_bps);
	if (in->ship.enabled) {
		ctl_json_begin_object(j, "ship");
		ctl_json_bool(j, "connected", in->ship.connected);
		ctl_json_u64(j, "backlog_bytes", in->ship.backlog_bytes);
		ctl_json_u64(j, "backlog_packets", in->ship.backlog_packets);
		ctl_json_double(j, "oldest_s", in->ship.oldest_s);
		ctl_json_end_object(j);
	}
	ctl_json_begin_object(j, "host_stream");
	ctl_json_string(j, "state", in->host_stream.state);
	ctl_json_string(j, "error", in->host_stream.err ?
			strerror(-in->host_stream.err) : NULL);
	ctl_json_u64(j, "events", in->host_stream.events);
	ctl_json_u64(j, "lost", in->host_stream.lost);
	ctl_json_end_object(j);
	put_vcpus_json(j, &in->vcpus);
	put_channels_json(j, in);
	put_latency_json(j, in);
	ctl_json_begin_object(j, "stats");
	ctl_json_u64(j, "packets", st->packets);
	ctl_json_u64(j, "bytes", st->bytes);
	ctl_json_u64(j, "invalid", st->invalid);
	ctl_json_u64(j, "invalid_records", st->invalid_records);
	ctl_json_u64(j, "rewritten", st->rewritten);
	ctl_json_u64(j, "last_record_refused", st->last_record_refused);
	ctl_json_u64(j, "sync_tsc_refused", st->sync_tsc_refused);
	ctl_json_u64(j, "sync_polled", st->sync_polled);
	ctl_json_u64(j, "sync_spin_missed", st->sync_spin_missed);
	ctl_json_u64(j, "desc_added", st->desc_added);
	ctl_json_u64(j, "desc_refused", st->desc_refused);
	ctl_json_u64(j, "desc_live_bad", st->desc_live_bad);
	ctl_json_u64(j, "probes_live", st->probes_live);
	ctl_json_u64(j, "probes_defined", st->probes_defined);
	ctl_json_u64(j, "probes_deleted", st->probes_deleted);
	ctl_json_u64(j, "skipped", st->skipped);
	ctl_json_u64(j, "doorbells_in", st->doorbells_in);
	ctl_json_u64(j, "doorbell_passes", st->doorbell_passes);
	ctl_json_u64(j, "doorbells_out", st->doorbells_out);
	ctl_json_u64(j, "polls", st->polls);
	ctl_json_u64(j, "write_errors", st->write_errors);
	ctl_json_u64(j, "bad_region", st->bad_region);
	ctl_json_u64(j, "guest_events", st->guest_events);
	ctl_json_u64(j, "lost_full", st->lost_full);
	ctl_json_u64(j, "lost_too_big", st->lost_too_big);
	ctl_json_u64(j, "lost_nested", st->lost_nested);
	ctl_json_u64(j, "overwritten", st->overwritten);
	ctl_json_u64(j, "produced", st->produced);
	ctl_json_end_object(j);
	ctl_json_end_object(j);
}
