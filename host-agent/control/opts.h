/* SPDX-License-Identifier: GPL-2.0 */
/*
 * opts.h - the one parser of a VM's options: `guestrelay vm-add`, the
 * agent's --vm, the libvirt hook and the libvirt metadata all go through
 * ctl_parse_vm_add(), so a setting means the same and is checked the same
 * everywhere.
 */
#ifndef GR_OPTS_H
#define GR_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agent.h"

#define CTL_SWITCH_TIMER_MS_MAX	10000	/* the guest's limit, 10 s */
#define CTL_ROTATE_MAX		100000000	/* --rotate-interval s, --keep-chunks */

/**
 * ctl_set_err() - say what is wrong in a caller's buffer
 * @err: the buffer, or NULL
 * @errlen: its size
 * @fmt: printf format
 *
 * Context: any.
 */
void ctl_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * ctl_check_vm_name() - is @name a valid VM name
 * @name: candidate
 * @err: receives the reason, or NULL
 * @errlen: size of @err
 *
 * A VM name is 1..GR_VM_NAME_MAX-1 bytes of [A-Za-z0-9_.-], not starting
 * with a dot: it names a file in /dev/shm, a socket and a directory.
 *
 * Context: any.
 * Return: 0 or -EINVAL.
 */
int ctl_check_vm_name(const char *name, char *err, size_t errlen);

/**
 * ctl_parse_size() - parse a byte count: digits with an optional binary
 * suffix K, M, G or T (optionally followed by "iB" or "B")
 * @s: the text, e.g. "16M", "4096", "1GiB"
 * @out: the value
 *
 * Context: any.
 * Return: 0, -EINVAL for bad syntax or -ERANGE on overflow.
 */
int ctl_parse_size(const char *s, uint64_t *out);

/**
 * ctl_parse_mode() - "stream" or "flight" to GR_MODE_*
 * @s: the word
 * @mode: the result
 *
 * Context: any.
 * Return: 0 or -EINVAL.
 */
int ctl_parse_mode(const char *s, uint32_t *mode);

/**
 * ctl_mode_name() - GR_MODE_* to its word
 * @mode: the mode
 *
 * Context: any.
 * Return: "stream", "flight" or "unknown".
 */
const char *ctl_mode_name(uint32_t mode);

#define CTL_OPTS_NAMES	(1u << 0)	/* --owner may name a user/group */

/**
 * ctl_parse_vm_add() - the arguments of `vm-add` into struct gr_vm_opts
 * @o: the result; zeroed first
 * @argc: number of arguments
 * @argv: the VM name and the options, in any order
 * @flags: CTL_OPTS_NAMES to resolve user and group names (the client
 *	does; the agent accepts numbers only, so it never blocks on NSS)
 * @err: receives what is wrong
 * @errlen: size of @err
 *
 * Context: process; with CTL_OPTS_NAMES may block on the user database.
 * Return: 0, or -EINVAL with @err set.
 */
int ctl_parse_vm_add(struct gr_vm_opts *o, int argc, char **argv,
		     unsigned int flags, char *err, size_t errlen);

/**
 * ctl_vm_opt_arity() - is @arg an option of `vm-add`, and does it take a
 * value in the next argument?
 * @arg: "--name" or "--name=value"
 *
 * Context: any.
 * Return: -1 if not an option of vm-add; 1 if its value is the next
 * argument; 0 if it takes none or carries it after '='.
 */
int ctl_vm_opt_arity(const char *arg);

/**
 * ctl_vm_add_args() - the canonical request arguments for @o
 * @f: the request being built; each argument is written with a leading
 *	space, percent-encoded
 * @o: options as parsed by ctl_parse_vm_add()
 *
 * Context: any.
 */
void ctl_vm_add_args(FILE *f, const struct gr_vm_opts *o);

#endif /* GR_OPTS_H */
