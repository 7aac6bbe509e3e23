// SPDX-License-Identifier: GPL-2.0
/*
 * gr_anyevent: resolve the events named by the anyevent= module
 * parameter ("system:name,system:name", no globs yet) through the
 * kernel's exported trace_get_event_file(), and show what was found in
 * the read-only anyevent_catalogue parameter: one line per event with
 * its ftrace id (trace_event_call's event.type, the config of a
 * PERF_TYPE_TRACEPOINT counter) and its number of own fields (those
 * after the common ones, which ftrace keeps in a list of its own). The
 * reference taken pins the event's module while guestrelay is loaded.
 * This is the first step of issue 25: nothing is recorded yet; see
 * spec/drafts/anyevent.md.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/trace_events.h>
#include "gr_anyevent.h"

#define GR_ANYEVENT_MAX	64

struct gr_anyevent {
	struct trace_event_file *file;
	char system[32];
	char name[64];
	unsigned int id;
	unsigned int nfields;
};

static char *anyevent;
module_param(anyevent, charp, 0444);
MODULE_PARM_DESC(anyevent, "Events to find by system:name, comma separated (issue 25, not recorded yet)");

static struct gr_anyevent gr_anyevents[GR_ANYEVENT_MAX];
static unsigned int gr_anyevent_count;
static unsigned int gr_anyevent_missing;

static unsigned int gr_anyevent_nfields(struct trace_event_call *call)
{
	struct list_head *head = trace_get_fields(call);
	struct list_head *pos;
	unsigned int n = 0;

	list_for_each(pos, head)
		n++;
	return n;
}

/* Find one "system:name"; 0, or -errno when it cannot be found. */
static int gr_anyevent_find(const char *spec)
{
	struct gr_anyevent *ev = &gr_anyevents[gr_anyevent_count];
	const char *colon = strchr(spec, ':');
	size_t slen;

	if (gr_anyevent_count >= GR_ANYEVENT_MAX)
		return -ENOSPC;
	if (!colon || colon == spec || !colon[1])
		return -EINVAL;
	slen = colon - spec;
	if (slen >= sizeof(ev->system) || strlen(colon + 1) >= sizeof(ev->name))
		return -ENAMETOOLONG;
	memcpy(ev->system, spec, slen);
	ev->system[slen] = '\0';
	strscpy(ev->name, colon + 1, sizeof(ev->name));
	ev->file = trace_get_event_file(NULL, ev->system, ev->name);
	if (IS_ERR(ev->file))
		return PTR_ERR(ev->file);
	ev->id = ev->file->event_call->event.type;
	ev->nfields = gr_anyevent_nfields(ev->file->event_call);
	gr_anyevent_count++;
	return 0;
}

/**
 * gr_anyevent_init() - resolve the anyevent= list
 *
 * Called last in the module's init, it cannot fail: a name that cannot
 * be found (or no memory for the list) is logged and counted.
 */
void gr_anyevent_init(void)
{
	char *list, *cur, *tok;
	int ret;

	if (!anyevent || !*anyevent)
		return;
	list = kstrdup(anyevent, GFP_KERNEL);
	if (!list) {
		gr_anyevent_missing++;
		return;
	}
	cur = list;
	while ((tok = strsep(&cur, ",")) != NULL) {
		tok = strim(tok);
		if (!*tok)
			continue;
		ret = gr_anyevent_find(tok);
		if (ret) {
			gr_anyevent_missing++;
			pr_warn("guestrelay: anyevent %s: not found (%d)\n",
				tok, ret);
		}
	}
	kfree(list);
}

/** gr_anyevent_exit() - drop the references on the events found */
void gr_anyevent_exit(void)
{
	while (gr_anyevent_count)
		trace_put_event_file(gr_anyevents[--gr_anyevent_count].file);
}

static int gr_anyevent_catalogue_show(char *buf, const struct kernel_param *kp)
{
	unsigned int i;
	int len;

	len = sysfs_emit(buf, "found %u missing %u\n", gr_anyevent_count,
			 gr_anyevent_missing);
	for (i = 0; i < gr_anyevent_count; i++)
		len += sysfs_emit_at(buf, len, "%s:%s id %u fields %u\n",
				     gr_anyevents[i].system,
				     gr_anyevents[i].name, gr_anyevents[i].id,
				     gr_anyevents[i].nfields);
	return len;
}

static const struct kernel_param_ops gr_anyevent_catalogue_ops = {
	.get = gr_anyevent_catalogue_show,
};

module_param_cb(anyevent_catalogue, &gr_anyevent_catalogue_ops, NULL, 0444);
MODULE_PARM_DESC(anyevent_catalogue, "Read only: the anyevent= events found: id and field count");
