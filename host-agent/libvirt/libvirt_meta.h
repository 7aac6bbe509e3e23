/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libvirt_meta.h - our <gr:guestrelay> element in a domain's XML, shared
 * by the XML editing (libvirt_define.c) and the hook (libvirt_hook.c):
 * its attributes, the one parser and the one builder of it, its settings
 * as VM options, and the domain elements both sides look for.
 */
#ifndef GR_LIBVIRT_META_H
#define GR_LIBVIRT_META_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/tree.h>

#include "agent.h"
#include "libvirt.h"

/* attribute names, by enum gr_meta_attr; they are the vm-add options */
extern const char *const gr_meta_attr[GR_META_NR];

/**
 * struct gr_meta_xml - the attributes of one <gr:guestrelay> as read
 * @val: each attribute's value, NULL when absent (gr_meta_xml_free())
 * @required: required="yes" (also set when its value is wrong)
 * @hist, @hist_latency, @nr_hist: its <gr:hist event="E" filter="F">keys=
 *	...</gr:hist> and <gr:hist latency="P"/> children, as struct
 *	gr_libvirt_meta has them
 */
struct gr_meta_xml {
	char *hist[GR_HIST_REQS];	/* <gr:hist> as --hist values (malloc) */
	bool hist_latency[GR_HIST_REQS];	/* ... or --hist-latency */
	unsigned int nr_hist;
	xmlChar *val[GR_META_NR];
	bool required;
};

/**
 * gr_meta_parse() - read our element @n
 * @n: an element for which gr_xml_is_ours() is true
 * @mx: receives its attributes; gr_meta_xml_free() it in every case
 * @err: receives what is wrong
 * @errlen: size of @err
 *
 * The values are not checked here: gr_meta_to_opts() does that.
 *
 * Context: process.
 * Return: 0, -EINVAL (an unknown attribute, required neither yes nor no)
 * with @err set, or -ENOMEM.
 */
int gr_meta_parse(xmlNodePtr n, struct gr_meta_xml *mx, char *err,
		  size_t errlen);
void gr_meta_xml_free(struct gr_meta_xml *mx);

/**
 * gr_meta_to_opts() - the settings of @m for VM @name as VM options
 * @m: the settings
 * @name: the VM (the domain)
 * @o: receives the options, checked by ctl_parse_vm_add()
 * @err: receives what is wrong
 * @errlen: size of @err
 *
 * Context: process.
 * Return: 0 or -EINVAL with @err set.
 */
int gr_meta_to_opts(const struct gr_libvirt_meta *m, const char *name,
		    struct gr_vm_opts *o, char *err, size_t errlen);

/* <gr:guestrelay .../> with @m's attributes, or NULL (no memory) */
xmlNodePtr gr_meta_node(const struct gr_libvirt_meta *m);

/* @n is the element @name in no namespace (libvirt's own) */
bool gr_xml_is_elem(xmlNodePtr n, const char *name);

/* @n is our element, by namespace URI whatever its prefix */
bool gr_xml_is_ours(xmlNodePtr n);

/* the first child element @name of @parent, or NULL */
xmlNodePtr gr_xml_child(xmlNodePtr parent, const char *name);

/* @n is the <shmem> of our device, named @shm_name */
bool gr_xml_is_our_shmem(xmlNodePtr n, const char *shm_name);

#endif /* GR_LIBVIRT_META_H */
