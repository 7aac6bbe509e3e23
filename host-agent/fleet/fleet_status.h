/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fleet_status.h - `guestrelay agent --fleet-status URL[,URL...]`: every
 * VM's status, published into a JetStream key-value bucket
 *
 * Every interval (default 3 s) the loop renders, for each VM, the object
 * of `status --json` with the host name, the events per second and the
 * shipping backlog (one JSON value, fleet_entry.h says its fields) and
 * hands the copies to a publisher thread of its own, which owns the
 * libnats connection and puts each value under the VM's key
 * (fleet_key.h). The bucket (default GUESTRELAY_STATUS, created if it is
 * missing) keeps one value per key and drops every value older than its
 * TTL (default 15 s), so the entries of a host whose agent died expire.
 *
 * The loop never waits for NATS: a snapshot not yet published when the
 * next one is ready is replaced by it (the newest wins); the thread
 * retries with a growing delay (1 s to 30 s) while NATS is unreachable
 * and logs once per outage.
 */
#ifndef GR_FLEET_STATUS_H
#define GR_FLEET_STATUS_H

#include <stdbool.h>
#include <stdint.h>

#include "agent.h"
#include "fleet_key.h"

#define FLEET_BUCKET_DEFAULT	"GUESTRELAY_STATUS"
#define FLEET_BUCKET_MAX	64
#define FLEET_INTERVAL_MS	3000
#define FLEET_TTL_S		15

/**
 * struct fleet_backlog - what a VM's shipper has not had acknowledged
 * @bytes: bytes stored, not yet acknowledged by JetStream
 * @packets: packets, the same
 * @oldest_age_ms: age of the oldest of them, 0 if none
 */
struct fleet_backlog {
	uint64_t bytes, packets;
	int64_t oldest_age_ms;
};

/**
 * fleet_backlog_hook - set by the shipper: fill @b for @vm
 * @vm: a VM of the agent
 * @b: receives its backlog
 * @arg: fleet_backlog_arg
 *
 * Called on the loop's thread, at each refresh. Return true if @vm is
 * shipped (@b filled), false if not (the entry's backlog is null). NULL
 * (no shipper): every backlog is null.
 */
extern bool (*fleet_backlog_hook)(const struct gr_vm *vm,
				  struct fleet_backlog *b, void *arg);
extern void *fleet_backlog_arg;

/**
 * struct fleet_cfg - the agent's fleet-status options
 */
struct fleet_cfg {
	const char *urls;		/* --fleet-status, NULL = off */
	const char *creds;		/* --fleet-creds FILE, or NULL */
	char host[FLEET_HOST_MAX];	/* --host, default gethostname() */
	char bucket[FLEET_BUCKET_MAX];	/* --fleet-bucket */
	uint32_t interval_ms;		/* --fleet-interval-ms */
	uint32_t ttl_s;			/* --fleet-ttl */
	int replicas;			/* --fleet-replicas (bucket creation) */
};

struct fleet;

/* defaults: off, host from gethostname() */
void fleet_cfg_init(struct fleet_cfg *c);

/* the `agent` options of fleet status (and --host), NULL-terminated */
extern const char *const fleet_agent_opts[];

/**
 * fleet_agent_set() - take the value of one of fleet_agent_opts
 * @c: the options
 * @opt: the option, as in fleet_agent_opts
 * @val: its value (kept: argv outlives the agent)
 *
 * Return: 0, or -1 if @val is bad (said on stderr).
 */
int fleet_agent_set(struct fleet_cfg *c, const char *opt, const char *val);

/* the lines of `agent --help` */
extern const char fleet_agent_usage[];

/**
 * fleet_init() - start publishing (nothing if @c->urls is NULL)
 * @a: the agent
 * @c: the options (copied)
 * @fp: receives the publisher, or NULL when off
 * @err: receives a message on failure
 * @errlen: its size
 *
 * Context: the loop's thread, before the loop runs, with the agent's
 * signals blocked (the threads inherit that mask).
 * Return: 0, -EINVAL (bad credentials file), -ENOMEM, -errno of
 * pthread_create(). NATS being unreachable is not an error.
 */
int fleet_init(struct gr_agent *a, const struct fleet_cfg *c,
	       struct fleet **fp, char *err, size_t errlen);

/**
 * fleet_finish() - stop publishing; waits for the thread (a few seconds
 * at most: one NATS request time-out)
 * @f: the publisher, or NULL
 *
 * Context: the loop's thread. Its timer must be cancelled before the
 * loop stops running: call it while the loop still runs, or before the
 * final drain of the loop.
 */
void fleet_finish(struct fleet *f);

/* `guestrelay fleet ...` (fleet_cli.c): exit status 0, 1 or 2 (usage) */
int fleet_main(int argc, char **argv);

#endif /* GR_FLEET_STATUS_H */
