// SPDX-License-Identifier: GPL-2.0
/*
 * vm_hist.c - a VM's aggregation requests: the operator's hist requests,
 * their wire form in the hist area's request slots, and the guest's maps
 * read back (spec 17)
 *
 * The operator's requests live in gr_vm_opts.hists: entry i is request
 * slot i. A request is compiled against the guest's published descriptor
 * of its event (filter/hist.h), so it is checked when it is given if the
 * guest has published, else when the guest publishes: vm_hist_fill(),
 * called by hostctl_publish() while the host writes its settings, before
 * seq is bumped. The requests are settings (spec 9.1): a new, changed or
 * cleared request gets a new gen (never 0, increasing per VM), and a new
 * publication gets every request again under a new gen; an unchanged
 * request keeps its gen, so the guest keeps counting.
 *
 * Reading (vm_hist_read()): the guest's state of the slot first (read
 * once, checked: region/hist_map.h), then, if it runs this very gen, its
 * maps, read in place and merged (gr_hist_read()), checked against the
 * previous read of the same gen. Torn entries and refused maps are added
 * to the VM's counters.
 *
 * This file writes only its own state (vm->hist), the operator's
 * requests in vm->opts and the request slots of the hist area; vm.c and
 * vm_settings.c publish a change (hostctl_publish()).
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "vm.h"

static const char *const gr_hist_reasons[] = {
	[GR_HIST_E_NONE] = "no reason given",
	[GR_HIST_E_EVENT] = "no such event",
	[GR_HIST_E_KIND] = "bad kind, counts or pair fields",
	[GR_HIST_E_KEY] = "bad key",
	[GR_HIST_E_VAL] = "bad value",
	[GR_HIST_E_MATCH] = "bad match operand",
	[GR_HIST_E_SIZE] = "maps too big for the hist area",
	[GR_HIST_E_FILTER] = "filter program refused",
	[GR_HIST_E_RESERVED] = "reserved field not zero",
	[GR_HIST_E_NOMEM] = "the guest is out of memory",
	[GR_HIST_E_ATTACH] = "the guest could not attach its probes",
};

/**
 * vm_hist_init() - a new VM's request slots
 * @vm: the VM
 *
 * Gens start from the time of day, so that those of a restarted agent
 * stay above the ones its predecessor gave (a guest counts on for a gen
 * it already runs).
 */
void vm_hist_init(struct gr_vm *vm)
{
	memset(&vm->hist, 0, sizeof(vm->hist));
	vm->hist.gen = (uint64_t)time(NULL) << 20;
}

/**
 * vm_hist_finish() - free what the slots hold
 * @vm: the VM
 */
void vm_hist_finish(struct gr_vm *vm)
{
	unsigned int i;

	for (i = 0; i < GR_HIST_REQS; i++)
		gr_hist_table_free(&vm->hist.slot[i].last);
}

/* The hist area is in use: both sides set GR_F_HIST, the guest placed it */
static bool hist_in_use(const struct gr_vm *vm)
{
	return (vm->view.features & GR_F_HIST) && vm->view.hist_size;
}

/*
 * Compile @h against the attached guest into @spec; a one-line reason
 * into @why.
 */
static int compile(const struct gr_vm *vm, const struct gr_vm_hist *h,
		   struct gr_hist_spec *spec, char *why, size_t len)
{
	struct gr_fx_error fe;
	int id, max, ret;

	if (!hist_in_use(vm)) {
		snprintf(why, len, "the guest of %s keeps no hist area (its module has no GR_F_HIST, ABI 1.5)",
			 vm->opts.name);
		return -EOPNOTSUPP;
	}
	max = gr_hist_max_entries_log2(vm->view.hist_size, vm->view.nr_cpus);
	if (max < 0) {
		snprintf(why, len, "the hist area of %s is too small for %u CPUs",
			 vm->opts.name, vm->view.nr_cpus);
		return max;
	}
	memset(spec, 0, sizeof(*spec));
	if (h->latency[0]) {
		ret = gr_hist_latency(h->latency, vm->events,
				      vm->view.desc_count, (unsigned int)max,
				      spec, why, len);
		/* spec 17.5: a 1.5 guest refuses a second start */
		if (!ret && vm->view.abi_minor >= 6)
			gr_hist_latency_start2(h->latency, vm->events,
					       vm->view.desc_count, spec);
		/* a preset's filter runs on its end event (spec 17.2) */
		if (!ret && h->filter[0]) {
			id = le16toh(spec->req.end_event_id);
			ret = gr_hist_filter(h->filter, &vm->events[id], spec,
					     &fe);
			if (ret == -EINVAL)
				gr_fx_error_line(why, len, &fe);
			else if (ret)
				snprintf(why, len, "%s", strerror(-ret));
		}
	} else {
		id = vm_event_id(vm, h->event);
		if (id < 0) {
			snprintf(why, len, "no event '%s' in %s (guestrelay status %s lists what it records)",
				 h->event, vm->opts.name, vm->opts.name);
			return -ENOENT;
		}
		ret = gr_hist_parse(h->text, h->filter, &vm->events[id],
				    (unsigned int)max, spec, &fe);
		if (ret == -EINVAL)
			gr_fx_error_line(why, len, &fe);
		else if (ret)
			snprintf(why, len, "%s", strerror(-ret));
	}
	if (!ret)
		snprintf(spec->name, sizeof(spec->name), "%s", h->name);
	return ret;
}

/* The slot of the request named @name, or -1 */
static int find(const struct gr_vm *vm, const char *name)
{
	int i;

	for (i = 0; i < GR_HIST_REQS; i++)
		if (vm->opts.hists[i].name[0] &&
		    !strcmp(vm->opts.hists[i].name, name))
			return i;
	return -1;
}

/**
 * vm_hist_set() - set or replace an aggregation request
 * @vm: the VM
 * @h: the request; @h->name is set here: the table is named by name=,
 *	else after its event or preset
 * @err: receives the reason of a refusal (a bad request as
 *	gr_fx_error_line() writes it: its position in @h->text)
 * @errlen: size of @err
 *
 * Compiled against the guest's events first if it has published; before
 * that the request waits for its publication. A request of the same name
 * is replaced, and its table starts again at 0. The caller publishes.
 *
 * Return: 0, -EINVAL (bad request, no free slot), -ENOENT (no such
 * event), -EOPNOTSUPP (the guest runs no aggregation).
 */
int vm_hist_set(struct gr_vm *vm, struct gr_vm_hist *h, char *err,
		size_t errlen)
{
	struct gr_hist_spec *spec;
	struct gr_vm_hist n = *h;
	int i, j, ret = 0;

	gr_vm_hist_name(h, n.name, sizeof(n.name));
	if (!n.name[0]) {
		snprintf(err, errlen, "a hist request needs a name (name=) or an event");
		return -EINVAL;
	}
	if (vm->state != GR_VM_WAITING) {
		spec = malloc(sizeof(*spec));
		if (!spec)
			return -ENOMEM;
		ret = compile(vm, &n, spec, err, errlen);
		free(spec);
		if (ret)
			return ret;
	}
	i = find(vm, n.name);
	for (j = 0; i < 0 && j < GR_HIST_REQS; j++)
		if (!vm->opts.hists[j].name[0])
			i = j;
	if (i < 0) {
		snprintf(err, errlen, "at most %d hist requests per VM; remove one first (guestrelay hist %s NAME --remove)",
			 GR_HIST_REQS, vm->opts.name);
		return -EINVAL;
	}
	vm->opts.hists[i] = n;
	*h = n;
	vm->hist.slot[i].bump = true;
	vm->hist.slot[i].why[0] = '\0';
	return 0;
}

/**
 * vm_hist_clear() - start tables again at 0, or remove requests
 * @vm: the VM
 * @name: the request's name, NULL for all
 * @remove: remove the requests (ftrace's !hist), else zero their tables
 *	(ftrace's :clear)
 * @err: receives the reason of a refusal
 * @errlen: size of @err
 *
 * The caller publishes.
 *
 * Return: 0 or -ENOENT (no such request, or none at all).
 */
int vm_hist_clear(struct gr_vm *vm, const char *name, bool remove,
		  char *err, size_t errlen)
{
	unsigned int i, n = 0;

	for (i = 0; i < GR_HIST_REQS; i++) {
		struct gr_vm_hist *h = &vm->opts.hists[i];

		if (!h->name[0] || (name && strcmp(h->name, name)))
			continue;
		if (remove)
			memset(h, 0, sizeof(*h));
		vm->hist.slot[i].bump = true;
		n++;
	}
	if (!n) {
		if (name)
			snprintf(err, errlen, "%s has no hist request '%s' (guestrelay hist %s lists them)",
				 vm->opts.name, name, vm->opts.name);
		else
			snprintf(err, errlen, "%s has no hist request",
				 vm->opts.name);
		return -ENOENT;
	}
	return 0;
}

/* Slot @i of the area from the operator's request; a reason into @why */
static void fill_slot(struct gr_vm *vm, unsigned int i,
		      struct gr_hist_req *area, struct gr_hist_spec *spec,
		      char *why, size_t len)
{
	struct gr_vm_hist_slot *s = &vm->hist.slot[i];
	const struct gr_vm_hist *h = &vm->opts.hists[i];
	struct gr_hist_req a, b;

	why[0] = '\0';
	if (!h->name[0] || compile(vm, h, spec, why, len)) {
		if (s->live)
			gr_hist_table_free(&s->last);
		s->live = false;
		memset(&area[i], 0, sizeof(area[i]));
		return;
	}
	/* same request, same publication, not cleared: the same gen */
	a = spec->req;
	b = s->spec.req;
	a.gen = b.gen = 0;
	if (!s->live || s->bump || s->instance != vm->instance_id ||
	    memcmp(&a, &b, sizeof(a))) {
		spec->req.gen = htole64(++vm->hist.gen);
		gr_hist_table_free(&s->last);
	} else {
		spec->req.gen = s->spec.req.gen;
	}
	s->spec = *spec;
	s->live = true;
	s->instance = vm->instance_id;
	memcpy(&area[i], &spec->req, sizeof(area[i]));
}

/**
 * vm_hist_fill() - write the request slots from the VM's requests
 * @vm: the VM
 *
 * Called while the host writes its settings, before seq is bumped (spec
 * 9.1, 17.2), and only into the layout of the publication attached (H7).
 * A request that does not compile against this publication leaves its
 * slot empty (gen 0); the reason is logged once and shown by `hist`.
 */
void vm_hist_fill(struct gr_vm *vm)
{
	struct gr_hist_spec *spec;
	struct gr_hist_req *area;
	char why[sizeof(vm->hist.slot[0].why)];
	uint64_t magic;
	unsigned int i;

	if (vm->state == GR_VM_WAITING || !vm->events ||
	    !vm_same_publication(vm, &magic))
		return;
	spec = malloc(sizeof(*spec));
	if (!spec)
		return;		/* the slots keep the last settings */
	area = hist_in_use(vm) ? (struct gr_hist_req *)(vm->region +
		vm->view.hist_offset + GR_HIST_REQ_OFFSET) : NULL;
	for (i = 0; i < GR_HIST_REQS; i++) {
		struct gr_vm_hist_slot *s = &vm->hist.slot[i];

		if (area) {
			fill_slot(vm, i, area, spec, why, sizeof(why));
		} else {
			why[0] = '\0';
			if (vm->opts.hists[i].name[0])
				compile(vm, &vm->opts.hists[i], spec, why,
					sizeof(why));
			s->live = false;
		}
		s->bump = false;
		if (why[0] && strcmp(why, s->why))
			syslog(LOG_WARNING, "%s: hist request %s not applied: %s",
			       vm->opts.name, vm->opts.hists[i].name, why);
		memcpy(s->why, why, sizeof(why));
	}
	free(spec);
}

/* Words for the guest's refusal of slot @i */
static void refusal(const struct gr_hist_state *st, char *why, size_t len)
{
	const char *r = st->reason < sizeof(gr_hist_reasons) /
		sizeof(gr_hist_reasons[0]) ? gr_hist_reasons[st->reason] :
		"unknown reason";

	if (st->reason == GR_HIST_E_FILTER)
		snprintf(why, len, "by the guest: %s: %s (instruction %u)", r,
			 gr_filter_reason_name(st->filter_reason), st->bad);
	else if (st->reason >= GR_HIST_E_KEY && st->reason <= GR_HIST_E_MATCH)
		snprintf(why, len, "by the guest: %s %u", r, st->bad);
	else
		snprintf(why, len, "by the guest: %s", r);
}

/* A copy of @t into @dst (rows and per-CPU hits): 0 or -ENOMEM */
static int table_dup(struct gr_hist_table *dst, const struct gr_hist_table *t)
{
	*dst = *t;
	dst->rows = NULL;
	dst->cpu_hits = NULL;
	dst->cap = t->nr_rows;
	if (t->nr_rows) {
		dst->rows = malloc(t->nr_rows * sizeof(*t->rows));
		if (!dst->rows)
			goto fail;
		memcpy(dst->rows, t->rows, t->nr_rows * sizeof(*t->rows));
	}
	if (t->nr_cpus) {
		dst->cpu_hits = malloc(t->nr_cpus * sizeof(*t->cpu_hits));
		if (!dst->cpu_hits)
			goto fail;
		memcpy(dst->cpu_hits, t->cpu_hits,
		       t->nr_cpus * sizeof(*t->cpu_hits));
	}
	return 0;
fail:
	gr_hist_table_free(dst);
	return -ENOMEM;
}

/* Slot @i's state and, if it runs, its maps, into @o */
static void read_slot(struct gr_vm *vm, unsigned int i,
		      struct gr_vm_hist_out *o)
{
	struct gr_vm_hist_slot *s = &vm->hist.slot[i];
	const uint8_t *hist = vm->region + vm->view.hist_offset;
	struct gr_hist_state st;
	int ret;

	gr_hist_read_state(hist, i, &st);
	if (st.gen != le64toh(s->spec.req.gen) ||
	    st.state == GR_HIST_IDLE) {
		o->state = "pending";
		return;
	}
	if (st.state != GR_HIST_RUNNING) {
		o->state = "refused";
		refusal(&st, o->why, sizeof(o->why));
		return;
	}
	ret = gr_hist_read(hist, vm->view.hist_size, vm->view.nr_cpus, i,
			   &s->spec.req, &s->last, &o->table);
	if (ret) {
		o->state = "refused";
		snprintf(o->why, sizeof(o->why), "cannot read the maps: %s",
			 strerror(-ret));
		return;
	}
	o->state = "running";
	vm->st.hist_torn = gr_sat_add(vm->st.hist_torn, o->table.torn);
	vm->st.hist_bad_maps = gr_sat_add(vm->st.hist_bad_maps,
					  o->table.bad_maps);
	gr_hist_table_free(&s->last);
	if (table_dup(&s->last, &o->table))
		memset(&s->last, 0, sizeof(s->last));
}

/**
 * vm_hist_read() - the VM's requests and their tables
 * @vm: the VM
 * @name: one request by name, NULL for all
 * @out: receives them, in slot order; vm_hist_out_free() frees their rows
 * @max: entries of @out
 *
 * Context: the loop; reads the guest's maps in place (spec 17.4). The
 * rows are in no order (gr_hist_sort_rows()).
 *
 * Return: the number of entries filled, -ENOENT (no request @name).
 */
int vm_hist_read(struct gr_vm *vm, const char *name,
		 struct gr_vm_hist_out *out, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < GR_HIST_REQS && n < max; i++) {
		const struct gr_vm_hist *h = &vm->opts.hists[i];
		const struct gr_vm_hist_slot *s = &vm->hist.slot[i];
		struct gr_vm_hist_out *o = &out[n];

		if (!h->name[0] || (name && strcmp(h->name, name)))
			continue;
		memset(o, 0, sizeof(*o));
		o->h = *h;
		o->compiled = s->live;
		if (s->live)
			o->spec = s->spec;
		n++;
		if (vm->state == GR_VM_WAITING) {
			o->state = "waiting";
		} else if (!s->live || !hist_in_use(vm)) {
			o->state = "refused";
			snprintf(o->why, sizeof(o->why), "%s", s->why[0] ?
				 s->why : "not written to the guest yet");
		} else {
			read_slot(vm, i, o);
		}
	}
	if (name && !n)
		return -ENOENT;
	return (int)n;
}

/**
 * vm_hist_out_free() - free the rows vm_hist_read() gave
 * @out: its entries
 * @n: how many it filled
 */
void vm_hist_out_free(struct gr_vm_hist_out *out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		gr_hist_table_free(&out[i].table);
}

/* The headline figures of running latency table @o into @l */
static void latency_of(const struct gr_vm_hist_out *o, int key,
		       struct gr_vm_lat *l)
{
	const struct gr_hist_table *t = &o->table;
	uint32_t i;

	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", o->h.name);
	snprintf(l->preset, sizeof(l->preset), "%s", o->h.latency);
	for (i = 0; i < t->nr_rows; i++)
		l->count = gr_sat_add(l->count, t->rows[i].hitcount);
	l->p50_s = gr_hist_log2_quantile(t, (unsigned int)key, 500);
	l->p99_s = gr_hist_log2_quantile(t, (unsigned int)key, 990);
	l->dropped = t->dropped;
}

/**
 * vm_hist_latency() - the VM's running latency tables, summed up
 * @vm: the VM
 * @info: its status (vm_get_info()); receives @info->lat, @info->nr_lat
 *
 * A table counts if it runs and its key is a log2 time
 * (gr_hist_latency_key()); a second key is summed over. Its maps are
 * read as vm_hist_read() reads them; none on a failed allocation.
 *
 * Context: the loop; reads the guest's maps in place (spec 17.4).
 */
void vm_hist_latency(struct gr_vm *vm, struct gr_vm_info *info)
{
	struct gr_vm_hist_out *out;
	int n, i, key;

	info->nr_lat = 0;
	out = calloc(GR_HIST_REQS, sizeof(*out));
	if (!out)
		return;
	n = vm_hist_read(vm, NULL, out, GR_HIST_REQS);
	for (i = 0; i < n; i++) {
		key = out[i].compiled ? gr_hist_latency_key(&out[i].spec) : -1;
		if (key < 0 || strcmp(out[i].state, "running"))
			continue;
		latency_of(&out[i], key, &info->lat[info->nr_lat++]);
	}
	vm_hist_out_free(out, n > 0 ? (unsigned int)n : 0);
	free(out);
}
