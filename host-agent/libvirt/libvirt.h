/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libvirt.h - guestrelay and libvirt: the domain's opt-in <metadata>
 * element (libvirt_meta.c), `guestrelay libvirt-xml` and
 * `libvirt-define` (libvirt_define.c) and the qemu hook (libvirt_hook.c:
 * `guestrelay libvirt-hook`, installed as /etc/libvirt/hooks/qemu.d/
 * guestrelay).
 *
 * A domain opts in with one element in our namespace under <metadata>:
 *
 *   <metadata>
 *     <gr:guestrelay xmlns:gr="https://guestrelay.example/xmlns/1.0"
 *                    events="sched_*,irq_*" mode="stream" size="16M"
 *                    subbuf-size="64K" subbufs="8" switch-timer-ms="100"
 *                    quota="1G" required="no"/>
 *   </metadata>
 *
 * Every attribute is optional and has the meaning of the `guestrelay
 * vm-add` option of the same name (the agent's default when absent);
 * required="yes" makes libvirt refuse to start the domain when it cannot
 * be traced. The prefix is free, the namespace URI is what counts. The
 * device itself is the domain's <shmem name='guestrelay-DOMAIN'> (doorbell
 * or plain), so the domain's name must be a valid VM name
 * ([A-Za-z0-9_.-], no leading dot, at most 63 bytes).
 */
#ifndef GR_LIBVIRT_H
#define GR_LIBVIRT_H

#include <stdbool.h>
#include <stddef.h>

#include "guestrelay_abi.h"

#define GR_XMLNS_URI		"https://guestrelay.example/xmlns/1.0"
#define GR_XMLNS_PREFIX		"gr"
#define GR_XML_ELEMENT		"guestrelay"
#define GR_HOOK_CONF		"/etc/guestrelay/hook.conf"
#define GR_QEMU_CONF		"/etc/libvirt/qemu.conf"
#define GR_HOOK_CALL_TIMEOUT	10	/* seconds, one agent request */
#define GR_HOOK_BUDGET_MS	14000	/* the whole hook, every request */
#define GR_HOOK_XML_MAX		(16u << 20)	/* domain XML on stdin */

/* the vm-add options a domain's metadata may set, by attribute name */
enum gr_meta_attr {
	GR_META_EVENTS,
	GR_META_MODE,
	GR_META_SIZE,
	GR_META_SUBBUF_SIZE,
	GR_META_SUBBUFS,
	GR_META_SWITCH_TIMER,
	GR_META_QUOTA,
	GR_META_VERIFY,
	GR_META_FILTER,
	GR_META_COMM,
	GR_META_ROTATE_SIZE,
	GR_META_ROTATE_INTERVAL,
	GR_META_KEEP_CHUNKS,
	GR_META_KEEP_BYTES,
	GR_META_HOST_STREAM,
	GR_META_NR,
};

/**
 * struct gr_libvirt_meta - the settings of a domain's <gr:guestrelay>
 * @val: each attribute's text, NULL when absent (validated by
 *	gr_libvirt_meta_check())
 * @hist: its <gr:hist> children (spec 17), as vm-add takes them: the
 *	value of --hist ("EVENT:keys=...[ if FILTER]"), or with
 *	@hist_latency that of --hist-latency (a preset)
 * @hist_latency: per entry of @hist, a latency preset
 * @nr_hist: entries of @hist
 * @required: required="yes"
 * @any: at least one option was given (CLI side)
 */
struct gr_libvirt_meta {
	const char *val[GR_META_NR];
	const char *hist[GR_HIST_REQS];
	bool hist_latency[GR_HIST_REQS];
	unsigned int nr_hist;
	bool required;
	bool any;
};

/**
 * gr_libvirt_meta_check() - validate the settings as `vm-add` would
 * @m: the settings
 * @err: receives what is wrong
 * @errlen: size of @err
 *
 * Context: process.
 * Return: 0 or -EINVAL with @err set.
 */
int gr_libvirt_meta_check(const struct gr_libvirt_meta *m, char *err,
			  size_t errlen);

/**
 * gr_libvirt_take_opts() - move the metadata options out of a command line
 * @argc: in: number of arguments; out: how many are left
 * @argv: the arguments; the ones taken are removed, the rest keep order
 * @m: receives the settings (zeroed first)
 * @metadata: receives whether --metadata was given
 * @force: take them as if --metadata had been given (libvirt-define)
 * @connect: receives --connect URI, or NULL to leave --connect alone
 * @err: receives what is wrong
 * @errlen: size of @err
 *
 * Takes --metadata, --required, --events, --mode, --subbuf-size,
 * --subbufs, --switch-timer-ms, --quota and (with metadata) --size;
 * "--opt VALUE" and "--opt=VALUE" both work; "--" ends the options.
 *
 * Context: process.
 * Return: 0, or -EINVAL with @err set (a setting without --metadata, a
 * missing or invalid value).
 */
int gr_libvirt_take_opts(int *argc, char **argv, struct gr_libvirt_meta *m,
			 bool *metadata, bool force, const char **connect,
			 char *err, size_t errlen);

/**
 * gr_libvirt_metadata_xml() - the <metadata> element of a domain
 * @m: validated settings
 * @out: receives an allocated string ending in a newline; free() it
 *
 * Context: process.
 * Return: 0 or -ENOMEM.
 */
int gr_libvirt_metadata_xml(const struct gr_libvirt_meta *m, char **out);

/**
 * gr_libvirt_define() - add our metadata and device to a defined domain
 * @uri: libvirt connection URI for virsh -c, or NULL for virsh's default
 * @domain: the domain's name
 * @m: validated settings
 * @shmem_xml: the <shmem> element (ivsh_libvirt_xml())
 *
 * Runs `virsh dumpxml --inactive --security-info DOMAIN`, replaces any
 * earlier <gr:guestrelay> element and <shmem name='guestrelay-DOMAIN'>
 * device by the new ones, and `virsh define`s the result. Prints what it
 * did on stdout and why it failed on stderr.
 *
 * Context: process; runs virsh (not for use in a hook).
 * Return: the exit status: 0 done, 1 failed.
 */
int gr_libvirt_define(const char *uri, const char *domain,
		      const struct gr_libvirt_meta *m, const char *shmem_xml);

/**
 * gr_libvirt_hook() - `guestrelay libvirt-hook [--config FILE] DOMAIN OP
 * SUBOP EXTRA`, with the domain XML on standard input
 * @run_dir: the agent's run directory unless hook.conf names one
 * @argc: number of arguments
 * @argv: the arguments after the command name
 *
 * Domains without our metadata: returns 0 at once, nothing touched.
 * Opted-in domains: "prepare begin" serves the VM (vm-add with the
 * metadata's settings and QEMU's owner), "reconnect begin" serves it
 * again if the agent does not, "stopped end" and "release end" finalize
 * the trace and stop serving it. Never writes to standard output, never
 * calls libvirt, starts no process, and gives up on the agent after
 * GR_HOOK_BUDGET_MS in all.
 *
 * Context: process, run by libvirtd as root.
 * Return: the exit status: 0 (libvirt goes on), 1 (libvirt refuses to
 * start the domain: only in "prepare begin", when the domain cannot be
 * traced and must be), 2 bad usage.
 */
int gr_libvirt_hook(const char *run_dir, int argc, char **argv);

#endif /* GR_LIBVIRT_H */
