// SPDX-License-Identifier: GPL-2.0
/*
 * follow.c - the follow filter (spec 15): the tasks whose events a guest
 * records, by thread id and by a glob on the task's name, with or without
 * the children they fork; parsed from the operator's words, written into
 * the control block, and said back in the same words
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "follow.h"

/**
 * gr_fx_follow_pids() - add the pids of "812,900" to a follow filter
 * @fo: the filter; on success GR_FOLLOW_F_ON and GR_FOLLOW_F_FORK are set
 *	unless flags were already set (then they are kept)
 * @list: comma-separated decimal thread ids
 * @err: receives a one-line reason
 * @errlen: bytes of @err
 *
 * Return: 0, or -EINVAL (@fo unchanged): not a number, 0, at or above
 * GR_FOLLOW_PID_LIMIT, twice the same, more than GR_FOLLOW_MAX_PIDS.
 */
int gr_fx_follow_pids(struct gr_fx_follow *fo, const char *list, char *err,
		      size_t errlen)
{
	struct gr_fx_follow n = *fo;
	const char *p = list;
	unsigned long v;
	char *end;
	unsigned int i;

	do {
		errno = 0;
		if (!isdigit((unsigned char)*p))
			goto bad;
		v = strtoul(p, &end, 10);
		if (errno || !v || v >= GR_FOLLOW_PID_LIMIT ||
		    (*end && *end != ','))
			goto bad;
		for (i = 0; i < n.nr_pids; i++)
			if (n.pids[i] == v) {
				snprintf(err, errlen, "--pid: %lu given twice", v);
				return -EINVAL;
			}
		if (n.nr_pids == GR_FOLLOW_MAX_PIDS) {
			snprintf(err, errlen, "--pid: at most %d pids (their children are followed anyway)",
				 GR_FOLLOW_MAX_PIDS);
			return -EINVAL;
		}
		n.pids[n.nr_pids++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	} while (*p || *end == ',');
	if (!n.flags)
		n.flags = GR_FOLLOW_F_ON | GR_FOLLOW_F_FORK;
	*fo = n;
	return 0;
bad:
	snprintf(err, errlen, "--pid wants thread ids from 1 to %d separated by commas, not '%s'",
		 GR_FOLLOW_PID_LIMIT - 1, list);
	return -EINVAL;
}

/**
 * gr_fx_follow_comm() - set the comm glob of a follow filter
 * @fo: the filter; GR_FOLLOW_F_ON and GR_FOLLOW_F_FORK are set unless
 *	flags were already set
 * @glob: ftrace's glob ('*', '?', "[a-z]"), 1..GR_FOLLOW_COMM_LEN bytes
 * @err: receives a one-line reason
 * @errlen: bytes of @err
 *
 * Return: 0, or -EINVAL (@fo unchanged).
 */
int gr_fx_follow_comm(struct gr_fx_follow *fo, const char *glob, char *err,
		      size_t errlen)
{
	size_t len = strlen(glob);

	if (!len || len > GR_FOLLOW_COMM_LEN) {
		snprintf(err, errlen, "--comm wants a glob of 1 to %d bytes, e.g. 'nginx*'",
			 GR_FOLLOW_COMM_LEN);
		return -EINVAL;
	}
	memcpy(fo->comm, glob, len + 1);
	if (!fo->flags)
		fo->flags = GR_FOLLOW_F_ON | GR_FOLLOW_F_FORK;
	return 0;
}

/**
 * gr_fx_follow_fill() - write the follow block of a control block
 * @fo: the filter, or NULL for none
 * @c: the control block (its follow fields and nothing else)
 *
 * Every follow field is written, unused pids and comm bytes as 0 (spec
 * 2.4: writers store 0 in what they do not use).
 */
void gr_fx_follow_fill(const struct gr_fx_follow *fo, struct gr_host_ctrl *c)
{
	unsigned int i;
	size_t len = fo ? strlen(fo->comm) : 0;

	c->follow_flags = htole32(fo ? fo->flags : 0);
	c->follow_nr_pids = htole16(fo && fo->flags ? fo->nr_pids : 0);
	c->follow_comm_len = fo && fo->flags ? (uint8_t)len : 0;
	c->follow_reserved = 0;
	for (i = 0; i < GR_FOLLOW_MAX_PIDS; i++)
		c->follow_pids[i] = htole32(fo && fo->flags &&
					    i < fo->nr_pids ? fo->pids[i] : 0);
	memset(c->follow_comm, 0, sizeof(c->follow_comm));
	if (fo && fo->flags)
		memcpy(c->follow_comm, fo->comm, len);
}

/**
 * gr_fx_follow_pid_list() - the pids as "812,900" ("" for none)
 * @fo: the filter
 * @buf: receives the list
 * @size: bytes of @buf
 *
 * Return: what snprintf() returns for the whole list.
 */
int gr_fx_follow_pid_list(const struct gr_fx_follow *fo, char *buf,
			  size_t size)
{
	size_t off = 0;
	unsigned int i;
	int n;

	if (size)
		buf[0] = '\0';
	for (i = 0; i < fo->nr_pids; i++) {
		n = snprintf(buf + (off < size ? off : size),
			     off < size ? size - off : 0, "%s%" PRIu32,
			     i ? "," : "", fo->pids[i]);
		off += (size_t)n;
	}
	return (int)off;
}

/**
 * gr_fx_follow_str() - the follow filter in words, for status and the
 * trace's env: "pid 812,900 and their children; comm nginx*"
 * @fo: the filter
 * @buf: receives the text ("" for none)
 * @size: bytes of @buf
 *
 * Return: what snprintf() returns.
 */
int gr_fx_follow_str(const struct gr_fx_follow *fo, char *buf, size_t size)
{
	char pids[GR_FOLLOW_MAX_PIDS * 9];

	if (!fo->flags)
		return snprintf(buf, size, "%s", "");
	gr_fx_follow_pid_list(fo, pids, sizeof(pids));
	return snprintf(buf, size, "%s%s%s%s%s%s",
			fo->nr_pids ? "pid " : "", pids,
			fo->nr_pids && fo->comm[0] ? "; " : "",
			fo->comm[0] ? "comm " : "", fo->comm,
			fo->flags & GR_FOLLOW_F_FORK ? " and their children" :
			"");
}
