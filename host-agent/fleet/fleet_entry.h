/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fleet_entry.h - one value of the fleet-status bucket: what an agent
 * writes (fleet_entry_render(), on its loop) and what `guestrelay fleet
 * status` makes of it (fleet_entry_parse(), which trusts nothing: values
 * are written by other hosts)
 *
 * The value is one JSON object:
 *   format        "guestrelay-fleet-status", version  1
 *   host, vm      the names its key encodes (fleet_key.h)
 *   agent_version the agent's GR_VERSION
 *   time_ns       the agent's realtime clock when it was rendered
 *   interval_ms   the agent's refresh interval, ttl_s the bucket's TTL
 *   events_per_s  events recorded per second (the guest's count, over
 *                 the last interval), null before the second refresh
 *   backlog       {bytes, packets, oldest_age_ms} not yet acknowledged
 *                 by JetStream, or null when the VM is not shipped
 *   status        the object of `guestrelay status --json` for the VM;
 *                 its "latency" (running log2 latency tables: name,
 *                 preset, count, p50_s, p99_s, dropped) is checked too,
 *                 and absent from agents that predate it
 */
#ifndef GR_FLEET_ENTRY_H
#define GR_FLEET_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fleet_key.h"

#define FLEET_FORMAT		"guestrelay-fleet-status"
#define FLEET_VERSION		1
#define FLEET_VALUE_MAX		(256 * 1024)	/* bytes of one value */
#define FLEET_VCPUS_MAX		1024	/* vCPUs of one VM's status */
#define FLEET_LAT_MAX		8	/* latency tables of one VM's status */

/**
 * fleet_name_ok() - is @s acceptable as a host name for `agent --host`
 * @s: the name: 1 to FLEET_HOST_MAX - 1 bytes of printable text (valid
 *	UTF-8, no control characters, no backslash), so that it is shown
 *	as it is and survives JSON unchanged
 *
 * Context: any.
 */
bool fleet_name_ok(const char *s);

struct gr_vm_info;
struct fleet_backlog;

/**
 * fleet_entry_render() - the value of one VM
 * @f: where to
 * @host: the host name
 * @in: the VM's status (vm_get_info())
 * @eps: events per second, or a negative value if not known yet
 * @b: the backlog, or NULL if the VM is not shipped
 * @interval_ms: refresh interval
 * @ttl_s: the bucket's TTL
 *
 * Context: any (the agent calls it on its loop).
 * Return: 0, or -EINVAL if the JSON writer saw a misuse.
 */
int fleet_entry_render(FILE *f, const char *host, const struct gr_vm_info *in,
		       double eps, const struct fleet_backlog *b,
		       uint32_t interval_ms, uint32_t ttl_s);

/**
 * struct fleet_row - one entry as `fleet status` shows it
 * @valid: the value passed every check; else @why says what failed and
 *	only @key, @host and @vm (from the key, if it decodes) are set
 */
struct fleet_row {
	char key[FLEET_KEY_MAX];
	char host[FLEET_NAME_MAX];
	char vm[FLEET_NAME_MAX];
	bool valid;
	char why[160];
	int64_t age_ms;			/* now - the server's time of the put */
	char state[16];
	char guest_state[24];
	double events_per_s;		/* < 0: not known */
	double bytes_per_s;
	uint64_t lost_full, lost_too_big, lost_nested, overwritten;
	uint64_t invalid, invalid_records;
	uint64_t sync_error_ns;		/* 0: not synchronized */
	uint64_t stored_bytes, stored_packets;
	bool has_backlog;
	uint64_t backlog_bytes, backlog_packets;
	int64_t backlog_oldest_ms;
	int nr_vcpus;			/* status.host.vcpus; 0: none found */
	double steal_s;			/* their steal, summed */
	double steal_max_s;		/* the vCPU that lost the most */
	char steal_max_vcpu[8];		/* its index, or "all" */
	bool has_runq;			/* a latency table of preset runq */
	double runq_p50_s, runq_p99_s;	/* its quantiles; < 0: no events */
	void *latency;			/* status.latency, checked (json_t),
					 * [] if absent; fleet_row_clear() */
	void *status;			/* the parsed status object (json_t),
					 * for --json; fleet_rows_free() */
};

/**
 * fleet_entry_parse() - check and read one value of the bucket
 * @row: receives the row (fleet_row_clear() it afterwards)
 * @key: the entry's key
 * @val: its value (any bytes)
 * @len: its length
 * @age_ms: the entry's age by the server's clock
 *
 * The key must decode (fleet_key_decode()) to the value's host and vm;
 * the value must be a JSON object of this format and version, at most
 * FLEET_VALUE_MAX bytes, with every field of the row of the right type
 * and range. Any failure leaves @row->valid false and says why.
 *
 * Context: any.
 */
void fleet_entry_parse(struct fleet_row *row, const char *key,
		       const void *val, size_t len, int64_t age_ms);

void fleet_row_clear(struct fleet_row *row);

/* sort @rows by host, then VM, then key (bytes) */
void fleet_rows_sort(struct fleet_row *rows, size_t n);

/* the table of `fleet status`: one line per row, names escaped */
void fleet_print_table(FILE *f, const struct fleet_row *rows, size_t n);

/* `fleet status --json`: an array of one object per row; 0 or -EIO */
int fleet_print_json(FILE *f, const struct fleet_row *rows, size_t n);

#endif /* GR_FLEET_ENTRY_H */
