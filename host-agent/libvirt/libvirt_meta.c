// SPDX-License-Identifier: GPL-2.0
/*
 * libvirt_meta.c - our <gr:guestrelay> element (libvirt_meta.h): the one
 * parser of it (the hook reads it from the domain XML), the one builder
 * of it (libvirt-xml prints it, libvirt-define writes it), and its
 * settings as VM options, checked by the one VM option parser
 * (ctl_parse_vm_add()), as `guestrelay vm-add` checks them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "agent.h"
#include "libvirt.h"
#include "libvirt_meta.h"
#include "opts.h"

const char *const gr_meta_attr[GR_META_NR] = {
	[GR_META_EVENTS] = "events",
	[GR_META_MODE] = "mode",
	[GR_META_SIZE] = "size",
	[GR_META_SUBBUF_SIZE] = "subbuf-size",
	[GR_META_SUBBUFS] = "subbufs",
	[GR_META_SWITCH_TIMER] = "switch-timer-ms",
	[GR_META_QUOTA] = "quota",
	[GR_META_VERIFY] = "verify",
	[GR_META_FILTER] = "filter",	/* EVENT:EXPR, one per domain */
	[GR_META_COMM] = "comm",	/* follow filter: glob on comm */
	[GR_META_ROTATE_SIZE] = "rotate-size",	/* chunks (README) */
	[GR_META_ROTATE_INTERVAL] = "rotate-interval",
	[GR_META_KEEP_CHUNKS] = "keep-chunks",
	[GR_META_KEEP_BYTES] = "keep-bytes",
	[GR_META_HOST_STREAM] = "host-stream",
};

int gr_meta_to_opts(const struct gr_libvirt_meta *m, const char *name,
		    struct gr_vm_opts *o, char *err, size_t errlen)
{
	char opt[GR_META_NR][24], *av[2 * GR_META_NR + 2 * GR_HIST_REQS + 1];
	unsigned int h;
	int i, n = 0;

	av[n++] = (char *)name;
	for (i = 0; i < GR_META_NR; i++) {
		if (!m->val[i])
			continue;
		if (!*m->val[i]) {
			ctl_set_err(err, errlen, "%s is empty", gr_meta_attr[i]);
			return -EINVAL;
		}
		snprintf(opt[i], sizeof(opt[i]), "--%s", gr_meta_attr[i]);
		av[n++] = opt[i];
		av[n++] = (char *)m->val[i];
	}
	for (h = 0; h < m->nr_hist && h < GR_HIST_REQS; h++) {
		av[n++] = m->hist_latency[h] ? "--hist-latency" : "--hist";
		av[n++] = (char *)m->hist[h];
	}
	return ctl_parse_vm_add(o, n, av, 0, err, errlen);
}

int gr_libvirt_meta_check(const struct gr_libvirt_meta *m, char *err,
			  size_t errlen)
{
	struct gr_vm_opts o;

	return gr_meta_to_opts(m, "vm", &o, err, errlen);
}

bool gr_xml_is_elem(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !n->ns &&
	       !strcmp((const char *)n->name, name);
}

bool gr_xml_is_ours(xmlNodePtr n)
{
	return n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
	       !strcmp((const char *)n->ns->href, GR_XMLNS_URI) &&
	       !strcmp((const char *)n->name, GR_XML_ELEMENT);
}

xmlNodePtr gr_xml_child(xmlNodePtr parent, const char *name)
{
	xmlNodePtr c;

	for (c = parent->children; c; c = c->next)
		if (gr_xml_is_elem(c, name))
			return c;
	return NULL;
}

bool gr_xml_is_our_shmem(xmlNodePtr n, const char *shm_name)
{
	xmlChar *name;
	bool ret;

	if (!gr_xml_is_elem(n, "shmem"))
		return false;
	name = xmlGetNoNsProp(n, BAD_CAST "name");
	ret = name && !strcmp((const char *)name, shm_name);
	xmlFree(name);
	return ret;
}

/* A property of <gr:hist>, or NULL */
static char *hist_prop(xmlNodePtr c, const char *name)
{
	return (char *)xmlGetNoNsProp(c, BAD_CAST name);
}

/*
 * <gr:hist event="E" filter="F">keys=...</gr:hist> or <gr:hist
 * latency="P" filter="F"/> (spec 17) into mx's --hist or --hist-latency
 * value ("E:keys=... if F", "P if F")
 */
static int parse_hist(xmlNodePtr c, struct gr_meta_xml *mx, char *err,
		      size_t errlen)
{
	char *ev = hist_prop(c, "event"), *fl = hist_prop(c, "filter");
	char *lat = hist_prop(c, "latency");
	char *text = (char *)xmlNodeGetContent(c), *v = NULL;
	xmlAttrPtr a;
	int ret = -EINVAL;

	for (a = c->properties; a; a = a->next)
		if (a->ns || (strcmp((const char *)a->name, "event") &&
			      strcmp((const char *)a->name, "filter") &&
			      strcmp((const char *)a->name, "latency"))) {
			ctl_set_err(err, errlen, "<hist> takes event, filter "
				"and keys=... as text, or latency and filter, "
				"not '%.64s'",
				(const char *)a->name);
			goto out;
		}
	if (mx->nr_hist == GR_HIST_REQS) {
		ctl_set_err(err, errlen, "at most %d <hist> elements",
			GR_HIST_REQS);
		goto out;
	}
	if (lat && !ev) {
		if (asprintf(&v, "%s%s%s", lat, fl ? " if " : "",
			     fl ? fl : "") < 0)
			v = NULL;
	} else if (ev && !lat && text && *text) {
		if (asprintf(&v, "%s:%s%s%s", ev, text, fl ? " if " : "",
			     fl ? fl : "") < 0)
			v = NULL;
	} else {
		ctl_set_err(err, errlen, "<hist> wants event=\"EVENT\" and "
			"keys=... as its text, or latency=\"PRESET\" (with "
			"a filter or not)");
		goto out;
	}
	ret = v ? 0 : -ENOMEM;
	if (v) {
		mx->hist_latency[mx->nr_hist] = lat != NULL;
		mx->hist[mx->nr_hist++] = v;
	}
out:
	xmlFree(ev);
	xmlFree(fl);
	xmlFree(lat);
	xmlFree(text);
	return ret;
}

int gr_meta_parse(xmlNodePtr n, struct gr_meta_xml *mx, char *err,
		  size_t errlen)
{
	xmlNodePtr c;
	int ret;

	xmlAttrPtr a;
	xmlChar *v;
	int i;

	for (a = n->properties; a; a = a->next) {
		const char *name = (const char *)a->name;

		if (a->ns) {
			ctl_set_err(err, errlen, "unknown attribute %s:%s",
				a->ns->prefix ? (const char *)a->ns->prefix :
				"", name);
			return -EINVAL;
		}
		v = xmlGetNoNsProp(n, a->name);
		if (!v)
			return -ENOMEM;
		if (!strcmp(name, "required")) {
			bool yes = !strcmp((char *)v, "yes");

			if (!yes && strcmp((char *)v, "no")) {
				ctl_set_err(err, errlen, "required must be yes "
					"or no, not '%.64s'", (char *)v);
				xmlFree(v);
				mx->required = true;	/* be safe */
				return -EINVAL;
			}
			mx->required = yes;
			xmlFree(v);
			continue;
		}
		for (i = 0; i < GR_META_NR; i++)
			if (!strcmp(name, gr_meta_attr[i]))
				break;
		if (i == GR_META_NR) {
			ctl_set_err(err, errlen, "unknown attribute '%.64s' "
				"(events, mode, size, subbuf-size, subbufs, "
				"switch-timer-ms, quota, verify, filter, "
				"comm, rotate-size, rotate-interval, "
				"keep-chunks, keep-bytes, host-stream, "
				"required)",
				name);
			xmlFree(v);
			return -EINVAL;
		}
		xmlFree(mx->val[i]);
		mx->val[i] = v;
	}
	for (c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (strcmp((const char *)c->name, "hist")) {
			ctl_set_err(err, errlen, "unknown element <%.64s> "
				"(hist)", (const char *)c->name);
			return -EINVAL;
		}
		ret = parse_hist(c, mx, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

void gr_meta_xml_free(struct gr_meta_xml *mx)
{
	unsigned int h;
	int i;

	for (i = 0; i < GR_META_NR; i++) {
		xmlFree(mx->val[i]);
		mx->val[i] = NULL;
	}
	for (h = 0; h < mx->nr_hist; h++)
		free(mx->hist[h]);
	mx->nr_hist = 0;
}

/* <gr:hist> of a --hist or --hist-latency value under @n: 0 or -ENOMEM */
static int hist_node(xmlNodePtr n, xmlNsPtr ns, const char *val, bool lat)
{
	const char *colon = strchr(val, ':'), *cond;
	char *ev = NULL, *text = NULL;
	xmlNodePtr c;
	int ret = -ENOMEM;

	if (lat) {
		/* "PRESET[ if FILTER]" */
		cond = strstr(val, " if ");
		ev = cond ? strndup(val, (size_t)(cond - val)) : strdup(val);
		c = ev ? xmlNewChild(n, ns, BAD_CAST "hist", NULL) : NULL;
		if (c && xmlNewProp(c, BAD_CAST "latency", BAD_CAST ev) &&
		    (!cond || xmlNewProp(c, BAD_CAST "filter",
					 BAD_CAST(cond + 4))))
			ret = 0;
		free(ev);
		return ret;
	}
	if (!colon)
		return -EINVAL;	/* gr_libvirt_meta_check() refused it */
	cond = strstr(colon + 1, " if ");
	ev = strndup(val, (size_t)(colon - val));
	text = cond ? strndup(colon + 1, (size_t)(cond - colon - 1)) :
		      strdup(colon + 1);
	if (!ev || !text)
		goto out;
	c = xmlNewChild(n, ns, BAD_CAST "hist", NULL);
	if (!c)
		goto out;
	xmlNodeAddContent(c, BAD_CAST text);
	if (!xmlNewProp(c, BAD_CAST "event", BAD_CAST ev) ||
	    (cond && !xmlNewProp(c, BAD_CAST "filter", BAD_CAST(cond + 4))))
		goto out;
	ret = 0;
out:
	free(ev);
	free(text);
	return ret;
}

xmlNodePtr gr_meta_node(const struct gr_libvirt_meta *m)
{
	xmlNodePtr n = xmlNewNode(NULL, BAD_CAST GR_XML_ELEMENT);
	unsigned int h;
	xmlNsPtr ns;
	int i;

	if (!n)
		return NULL;
	ns = xmlNewNs(n, BAD_CAST GR_XMLNS_URI, BAD_CAST GR_XMLNS_PREFIX);
	if (!ns)
		goto fail;
	xmlSetNs(n, ns);
	for (i = 0; i < GR_META_NR; i++)
		if (m->val[i] && !xmlNewProp(n, BAD_CAST gr_meta_attr[i],
					     BAD_CAST m->val[i]))
			goto fail;
	if (!xmlNewProp(n, BAD_CAST "required",
			BAD_CAST(m->required ? "yes" : "no")))
		goto fail;
	for (h = 0; h < m->nr_hist && h < GR_HIST_REQS; h++)
		if (hist_node(n, ns, m->hist[h], m->hist_latency[h]))
			goto fail;
	return n;
fail:
	xmlFreeNode(n);
	return NULL;
}
