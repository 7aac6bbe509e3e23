// SPDX-License-Identifier: GPL-2.0
/*
 * names_out.c - events by name (spec 18) for the operator
 *
 *   EVENT               STATE      FIELDS
 *   sched:sched_switch  native     char prev_comm[16]; pid_t prev_pid; ...
 *   sys:ev_one          available  unsigned long call_site; int delta
 *
 * Every string comes from the guest: checked by name_text.c (printable
 * ASCII only) and escaped again on the way out (ctl_put_text(), JSON).
 */
#include <stdlib.h>
#include <string.h>

#include "names_out.h"

/* "native", "by name", "available" or "refused: REASON" */
static void state_text(char *buf, size_t len, const struct gr_name_event *e)
{
	switch (e->state) {
	case GR_NAME_NATIVE:
		snprintf(buf, len, "native");
		break;
	case GR_NAME_PUBLISHED:
		snprintf(buf, len, "by name");
		break;
	case GR_NAME_AVAILABLE:
		snprintf(buf, len, "available");
		break;
	default:
		snprintf(buf, len, "refused: %s", strerror((int)e->err));
		break;
	}
}

static const char *state_word(const struct gr_name_event *e)
{
	return e->state == GR_NAME_NATIVE ? "native" :
	       e->state == GR_NAME_PUBLISHED ? "by name" :
	       e->state == GR_NAME_AVAILABLE ? "available" : "refused";
}

/**
 * ctl_events_text() - the listing as a table
 * @f: where to
 * @l: the guest's listing
 */
void ctl_events_text(FILE *f, const struct gr_name_list *l)
{
	char ev[2 * GR_NAME_PART_MAX], state[128];
	size_t w = strlen("EVENT"), sw = strlen("STATE"), n;
	unsigned int i, k;

	for (i = 0; i < l->nr; i++) {
		n = strlen(l->ev[i].system) + 1 + strlen(l->ev[i].name);
		w = n > w ? n : w;
		state_text(state, sizeof(state), &l->ev[i]);
		sw = strlen(state) > sw ? strlen(state) : sw;
	}
	if (!l->nr) {
		fputs("no event of the guest matches\n", f);
		return;
	}
	fprintf(f, "%-*s  %-*s  FIELDS\n", (int)w, "EVENT", (int)sw, "STATE");
	for (i = 0; i < l->nr; i++) {
		const struct gr_name_event *e = &l->ev[i];

		snprintf(ev, sizeof(ev), "%s:%s", e->system, e->name);
		state_text(state, sizeof(state), e);
		ctl_put_text(f, ev);
		fprintf(f, "%*s  ", (int)(w - strlen(ev)), "");
		fprintf(f, "%-*s  ", (int)sw, state);
		for (k = 0; k < e->nr_fields; k++) {
			if (k)
				fputs("; ", f);
			ctl_put_text(f, e->fields[k].decl);
		}
		if (e->cut)
			fputs(e->nr_fields ? "; ..." : "...", f);
		fputc('\n', f);
	}
	fprintf(f, "%u event%s\n", l->nr, l->nr == 1 ? "" : "s");
}

/**
 * ctl_events_json() - the listing as a JSON array
 * @j: the writer
 * @l: the guest's listing
 *
 * [{event, system, name, state, reason?, cut, fields: [{decl, name,
 * offset, size, signed}]}]
 */
void ctl_events_json(struct ctl_json *j, const struct gr_name_list *l)
{
	char ev[2 * GR_NAME_PART_MAX];
	unsigned int i, k;

	ctl_json_begin_array(j, NULL);
	for (i = 0; i < l->nr; i++) {
		const struct gr_name_event *e = &l->ev[i];

		snprintf(ev, sizeof(ev), "%s:%s", e->system, e->name);
		ctl_json_begin_object(j, NULL);
		ctl_json_string(j, "event", ev);
		ctl_json_string(j, "system", e->system);
		ctl_json_string(j, "name", e->name);
		ctl_json_string(j, "state", state_word(e));
		if (e->state == GR_NAME_CANNOT)
			ctl_json_string(j, "reason", strerror((int)e->err));
		ctl_json_bool(j, "cut", e->cut);
		ctl_json_begin_array(j, "fields");
		for (k = 0; k < e->nr_fields; k++) {
			const struct gr_name_field *fd = &e->fields[k];

			ctl_json_begin_object(j, NULL);
			ctl_json_string(j, "decl", fd->decl);
			ctl_json_string(j, "name", fd->name);
			ctl_json_u64(j, "offset", fd->offset);
			ctl_json_u64(j, "size", fd->size);
			ctl_json_bool(j, "signed", fd->is_signed);
			ctl_json_end_object(j);
		}
		ctl_json_end_array(j);
		ctl_json_end_object(j);
	}
	ctl_json_end_array(j);
}

/* The next line of @*p into @line (cut to @size); false after the last */
static bool next_line(const char **p, char *line, size_t size)
{
	const char *nl;
	size_t n;

	if (!*p || !**p)
		return false;
	nl = strchr(*p, '\n');
	n = nl ? (size_t)(nl - *p) : strlen(*p);
	snprintf(line, size, "%.*s", (int)n, *p);
	*p = nl ? nl + 1 : NULL;
	return true;
}

/**
 * ctl_enable_report_text() - what the guest said of each event enabled
 * @f: where to
 * @report: vm_enable_events()'s lines: "system:name added|known" or
 *	"system:name refused: REASON"
 */
void ctl_enable_report_text(FILE *f, const char *report)
{
	const char *p = report;
	char line[512];

	while (next_line(&p, line, sizeof(line))) {
		ctl_put_text(f, line);
		fputc('\n', f);
	}
}

/**
 * ctl_enable_report_json() - the report as {vm, events: [{event, result,
 * reason?}]}
 * @j: the writer
 * @vm: the VM's name
 * @report: as ctl_enable_report_text()
 */
void ctl_enable_report_json(struct ctl_json *j, const char *vm,
			    const char *report)
{
	char line[512], *sp, *reason;
	const char *p = report;

	ctl_json_begin_object(j, NULL);
	ctl_json_string(j, "vm", vm);
	ctl_json_begin_array(j, "events");
	while (next_line(&p, line, sizeof(line))) {
		sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp++ = '\0';
		reason = strstr(sp, ": ");
		if (reason) {
			*reason = '\0';
			reason += 2;
		}
		ctl_json_begin_object(j, NULL);
		ctl_json_string(j, "event", line);
		ctl_json_string(j, "result", sp);
		if (reason)
			ctl_json_string(j, "reason", reason);
		ctl_json_end_object(j);
	}
	ctl_json_end_array(j);
	ctl_json_end_object(j);
}

/**
 * ctl_probes_text() - `probe VM`: the probes the host defined
 * @f: where to
 * @vm: the VM's name
 * @p: the probes
 * @nr: their number
 *
 *   EVENT              ID  STATE      DEFINITION
 *   guestrelay:myopen  33  recording  p:myopen do_sys_openat2 dfd=%di
 */
void ctl_probes_text(FILE *f, const char *vm, const struct gr_probe_info *p,
		     unsigned int nr)
{
	char ev[64], id[16], state[96];
	size_t w = strlen("EVENT"), sw = strlen("STATE"), n;
	unsigned int i;

	if (!nr) {
		ctl_put_text(f, vm);
		fputs(": no probes of the host (guestrelay probe VM "
		      "'p:NAME SYMBOL [FETCHARG...]' defines one)\n", f);
		return;
	}
	for (i = 0; i < nr; i++) {
		n = strlen(GR_PROBE_GROUP ":") + strlen(p[i].name);
		w = n > w ? n : w;
		n = strlen(p[i].state) + (p[i].err ? 16 : 0);
		sw = n > sw ? n : sw;
	}
	fprintf(f, "%-*s  %4s  %-*s  DEFINITION\n", (int)w, "EVENT", "ID",
		(int)sw, "STATE");
	for (i = 0; i < nr; i++) {
		snprintf(ev, sizeof(ev), GR_PROBE_GROUP ":%s", p[i].name);
		snprintf(id, sizeof(id), p[i].id >= 0 ? "%d" : "-", p[i].id);
		snprintf(state, sizeof(state), "%s%s%s", p[i].state,
			 p[i].err ? ": " : "",
			 p[i].err ? strerrorname_np(-p[i].err) ?: "?" : "");
		ctl_put_text(f, ev);
		fprintf(f, "%*s  %4s  %-*s  ", (int)(w - strlen(ev)), "", id,
			(int)sw, state);
		ctl_put_text(f, p[i].def);
		fputc('\n', f);
	}
}

/**
 * ctl_probes_json() - `probe --json VM`: {vm, probes: [{event, name,
 * definition, id, state, error?}]}
 * @j: the writer
 * @vm: the VM's name
 * @p: the probes
 * @nr: their number
 */
void ctl_probes_json(struct ctl_json *j, const char *vm,
		     const struct gr_probe_info *p, unsigned int nr)
{
	char ev[64];
	unsigned int i;

	ctl_json_begin_object(j, NULL);
	ctl_json_string(j, "vm", vm);
	ctl_json_begin_array(j, "probes");
	for (i = 0; i < nr; i++) {
		snprintf(ev, sizeof(ev), GR_PROBE_GROUP ":%s", p[i].name);
		ctl_json_begin_object(j, NULL);
		ctl_json_string(j, "event", ev);
		ctl_json_string(j, "name", p[i].name);
		ctl_json_string(j, "definition", p[i].def);
		if (p[i].id >= 0)
			ctl_json_i64(j, "id", p[i].id);
		else
			ctl_json_null(j, "id");
		ctl_json_string(j, "state", p[i].state);
		if (p[i].err)
			ctl_json_string(j, "error",
					strerrorname_np(-p[i].err));
		ctl_json_end_object(j);
	}
	ctl_json_end_array(j);
	ctl_json_end_object(j);
}

/**
 * ctl_probe_report_json() - a probe defined or deleted: {vm, report:
 * [LINE...]}
 * @j: the writer
 * @vm: the VM's name
 * @report: vm_probe()'s report, one line per probe
 */
void ctl_probe_report_json(struct ctl_json *j, const char *vm,
			   const char *report)
{
	const char *p = report;
	char line[512];

	ctl_json_begin_object(j, NULL);
	ctl_json_string(j, "vm", vm);
	ctl_json_begin_array(j, "report");
	while (next_line(&p, line, sizeof(line)))
		ctl_json_string(j, NULL, line);
	ctl_json_end_array(j);
	ctl_json_end_object(j);
}
