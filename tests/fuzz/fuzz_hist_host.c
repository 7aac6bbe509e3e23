// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_hist_host.c - aggregation (spec 17) on the host's side, against a
 * hostile guest and hostile text: the map reader (region/hist_map.c), the
 * tables' output (control/hist_out.c, metrics/expo_hist.c) and the hist
 * syntax compiler (filter/hist.c).
 *
 * Input, first byte even: the geometry (CPUs 1..4, a 64 KiB or 256 KiB
 * hist area allocated to the byte, one of four requests compiled by
 * gr_hist_parse() or gr_hist_latency(), its map size), whether the maps
 * are stamped with the request's gen, then bytes the guest wrote over the
 * slot's state and maps, then more bytes it writes between two reads.
 * Both reads, the second against the first (the backwards check), must
 * stay inside the area (ASan), give no more rows than the maps have
 * entries and counts that add up; the table then goes through the text,
 * JSON and Prometheus outputs and the quantiles.
 * First byte odd: a hist request (the rest, NUL-terminated here) for a
 * sched_switch-like event: what the compiler accepts is a valid request
 * of spec 17.2 (checked here independently); what it refuses says where,
 * inside the text.
 */
#include "fuzz.h"
#include "fuzz_views.h"
#include "agent.h"
#include "expo.h"
#include "hist.h"
#include "hist_map.h"
#include "hist_out.h"
#include "out.h"

/* the latency presets' events: sched_wakeup (id 1) -> sched_switch (0) */
static void wakeup_view(struct gr_event_view *ev)
{
	memset(ev, 0, sizeof(*ev));
	strcpy(ev->name, "sched_wakeup");
	strcpy(ev->system, "sched");
	ev->id = 1;
	ev->payload_size = 28;
	ev->nr_fields = 2;
	strcpy(ev->fields[0].name, "comm");
	ev->fields[0].size = 16;
	ev->fields[0].type = GR_FIELD_CHARS;
	strcpy(ev->fields[1].name, "tid");
	ev->fields[1].offset = 16;
	ev->fields[1].size = 4;
	ev->fields[1].type = GR_FIELD_INTEGER;
	ev->fields[1].flags = GR_FIELD_F_SIGNED;
}

/* Spec 17.2 on what the compiler gave, independently of the guest */
static void check_req(const struct gr_hist_req *r, const char *text)
{
	const struct gr_hist_key *k;
	unsigned int i;

	if (r->kind != GR_HIST_PLAIN || le16toh(r->event_id) ||
	    r->end_event_id || !r->nr_keys || r->nr_keys > GR_HIST_MAX_KEYS ||
	    r->nr_vals > GR_HIST_MAX_VALS || r->hflags ||
	    r->entries_log2 < GR_HIST_MIN_ENTRIES_LOG2 ||
	    r->entries_log2 > GR_HIST_MAX_ENTRIES_LOG2 ||
	    le16toh(r->nr_insns) > GR_HIST_MAX_INSNS ||
	    le16toh(r->strtab_len) > GR_HIST_STRTAB_LEN)
		FUZZ_BUG("compiled a request outside spec 17.2: %s", text);
	for (i = 0; i < GR_HIST_MAX_KEYS + GR_HIST_MAX_VALS; i++) {
		k = i < GR_HIST_MAX_KEYS ? &r->key[i] :
		    &r->val[i - GR_HIST_MAX_KEYS];
		if (k->src == GR_HS_FIELD &&
		    le16toh(k->off) + k->width > 56)
			FUZZ_BUG("compiled a field past the payload: %s", text);
		if (k->src == GR_HS_DELTA || (i < GR_HIST_MAX_KEYS &&
					      k->src == GR_HS_CONST))
			FUZZ_BUG("compiled a plain request with operand %u "
				 "of source %u: %s", i, k->src, text);
	}
}

static void fuzz_text(const uint8_t *data, size_t size)
{
	struct gr_event_view ev;
	struct gr_hist_spec spec;
	struct gr_fx_error fe;
	char *text, trig[GR_HIST_TEXT_LEN + 256];
	struct gr_vm_hist_out o;
	size_t n;

	text = fuzz_cstr(data, size);
	if (!text)
		return;
	n = strlen(text);
	fuzz_switch_view(&ev);
	memset(&fe, 0, sizeof(fe));
	if (gr_hist_parse(text, NULL, &ev, 10, &spec, &fe)) {
		if (!fe.msg[0] || fe.pos > n + 1)
			FUZZ_BUG("a refusal without a message or a place");
		free(text);
		return;
	}
	check_req(&spec.req, text);
	memset(&o, 0, sizeof(o));
	o.spec = spec;
	o.compiled = true;
	o.state = "waiting";
	ctl_hist_trigger(trig, sizeof(trig), &o);
	free(text);
}

static const char *const plain_reqs[] = {
	"keys=prev_tid",
	("keys=prev_state.log2,next_tid:vals=prev_prio,next_prio:"
	 "sort=prev_prio.descending"),
	"keys=next_tid.buckets=7:vals=hitcount,prev_state",
};

/* Outputs of a table: text, JSON, /metrics; quantiles */
static void render(struct gr_vm_hist_out *o)
{
	struct gr_expo_vm vm;
	struct ctl_json j;
	unsigned int k;
	FILE *f;

	f = fopen("/dev/null", "w");
	if (!f)
		return;
	ctl_hist_sort(o);
	ctl_hist_text(f, o, 1);
	ctl_json_init(&j, f);
	ctl_hist_json(&j, "vm", o, 1);
	memset(&vm, 0, sizeof(vm));
	snprintf(vm.info.name, sizeof(vm.info.name), "vm");
	vm.hists = o;
	vm.nr_hists = 1;
	expo_hist_part(f, &vm, 1);
	fclose(f);
	for (k = 0; k <= o->spec.req.nr_keys; k++) {
		gr_hist_log2_quantile(&o->table, k, 500);
		gr_hist_log2_quantile(&o->table, k, 990);
	}
}

static void fuzz_maps(const uint8_t *data, size_t size)
{
	struct gr_event_view ev[2];
	struct gr_hist_table t1, t2;
	struct gr_vm_hist_out o;
	struct gr_hist_spec spec;
	struct gr_hist_state st;
	struct gr_hist_map_hdr *h;
	uint8_t geo[4], *area, *maps;
	uint64_t area_size, mbytes, max_rows, off;
	struct gr_fx_error fe;
	char err[256];
	uint32_t cpus, c;
	size_t n;
	int log2;

	if (fuzz_take(&data, &size, geo, sizeof(geo)))
		return;
	cpus = 1 + geo[0] % 4;
	area_size = geo[1] & 1 ? 4 * GR_HIST_MIN_SIZE : GR_HIST_MIN_SIZE;
	log2 = gr_hist_max_entries_log2(area_size, cpus);
	if (log2 < 0)
		return;
	if (GR_HIST_MIN_ENTRIES_LOG2 + geo[2] % 8 < (unsigned int)log2)
		log2 = GR_HIST_MIN_ENTRIES_LOG2 + geo[2] % 8;
	fuzz_switch_view(&ev[0]);
	wakeup_view(&ev[1]);
	if (geo[1] >> 1 & 3) {
		if (gr_hist_parse(plain_reqs[(geo[1] >> 1 & 3) - 1], NULL,
				  &ev[0], (unsigned int)log2, &spec, &fe))
			FUZZ_BUG("a fixed request refused: %s", fe.msg);
	} else if (gr_hist_latency("runq", ev, 2, (unsigned int)log2, &spec,
				   err, sizeof(err))) {
		FUZZ_BUG("the runq preset refused: %s", err);
	}
	spec.req.gen = htole64(7);
	area = calloc(1, area_size);
	if (!area)
		return;
	/* the guest's writes: the slot's state, its maps */
	n = size < sizeof(struct gr_hist_state) ? size :
	    sizeof(struct gr_hist_state);
	memcpy(area + GR_HIST_STATE_OFFSET, data, n);
	data += n;
	size -= n;
	off = gr_hist_map_off(area_size, 0, 0, spec.req.entries_log2);
	mbytes = gr_hist_map_bytes(spec.req.entries_log2);
	maps = area + off;
	n = size < cpus * mbytes ? size : cpus * mbytes;
	memcpy(maps, data, n);
	data += n;
	size -= n;
	for (c = 0; c < cpus && (geo[3] & 1); c++) {
		h = (struct gr_hist_map_hdr *)(maps + c * mbytes);
		h->gen = spec.req.gen;
	}
	gr_hist_read_state(area, 0, &st);
	if (le32toh(st.state) > GR_HIST_REFUSED)
		FUZZ_BUG("a state %u was served", le32toh(st.state));
	memset(&t1, 0, sizeof(t1));
	memset(&t2, 0, sizeof(t2));
	if (gr_hist_read(area, area_size, cpus, 0, &spec.req, NULL, &t1))
		goto out;
	max_rows = (uint64_t)cpus << spec.req.entries_log2;
	if (t1.nr_rows > max_rows)
		FUZZ_BUG("%u rows from %u maps of %u entries", t1.nr_rows,
			 cpus, 1U << spec.req.entries_log2);
	/* more guest writes, then the read that checks against the first */
	n = size < cpus * mbytes ? size : cpus * mbytes;
	memcpy(maps, data, n);
	if (gr_hist_read(area, area_size, cpus, 0, &spec.req, &t1, &t2))
		goto out;
	if (t2.nr_rows > max_rows)
		FUZZ_BUG("%u rows at the second read", t2.nr_rows);
	if (t2.bad_maps + t2.stale_maps > cpus)
		FUZZ_BUG("%llu maps refused of %u",
			 (unsigned long long)(t2.bad_maps + t2.stale_maps),
			 cpus);
	memset(&o, 0, sizeof(o));
	o.spec = spec;
	o.compiled = true;
	o.state = "running";
	o.table = t2;
	memset(&t2, 0, sizeof(t2));
	render(&o);
	gr_hist_table_free(&o.table);
out:
	gr_hist_table_free(&t1);
	gr_hist_table_free(&t2);
	free(area);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode;

	if (fuzz_take(&data, &size, &mode, 1))
		return 0;
	if (mode & 1)
		fuzz_text(data, size);
	else
		fuzz_maps(data, size);
	return 0;
}
