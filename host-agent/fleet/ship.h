/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ship.h - `guestrelay agent --ship URL`: the store, published to NATS
 * JetStream by a thread of its own (issue 9)
 *
 * The loop never waits for it and never calls it: the shipper reads the
 * stored files, never VM state, and publishes only whole packets below
 * each file's mark (trace/store_mark.h, set by the loop); what NATS does not take stays in the store (the spool)
 * and is sent later, in order, from a cursor persisted per session in
 * <store>/.ship/<vm>/<session>.
 */
#ifndef GR_SHIP_H
#define GR_SHIP_H

#include <stdbool.h>
#include <stdint.h>

#include <nats/nats.h>

#define GR_SHIP_DEFAULT_STREAM	"GUESTRELAY"

/**
 * struct gr_ship_cfg - what `agent --ship*` asked for
 * @urls: comma-separated server URLs (nats://, tls://), without
 *	credentials (those go in @creds)
 * @creds: file with credentials (see ship.c), or NULL
 * @stream: JetStream stream name
 * @replicas: its replicas when it is created
 * @store_dir: the agent's store
 */
struct gr_ship_cfg {
	const char *urls;
	const char *creds;
	const char *stream;
	int replicas;
	const char *store_dir;
	const char *host;		/* --host, NULL = gethostname() */
	int ack_timeout_ms;		/* --ship-ack-timeout-ms, 0 = default */
	const char *prune_durable;	/* --ship-prune DURABLE, or NULL */
};

#define GR_SHIP_ACK_TIMEOUT_MS	2000

/**
 * struct gr_ship_backlog - what the store holds that JetStream has not
 * acknowledged (whole packets, metadata and .guestrelay versions)
 */
struct gr_ship_backlog {
	bool enabled;			/* --ship was given */
	bool connected;			/* to a server, now */
	uint64_t bytes;
	uint64_t packets;
	double oldest_s;		/* age of the oldest, 0 if none */
	uint64_t shipped_bytes;		/* acknowledged since start */
	uint64_t shipped_msgs;
	uint64_t outages;		/* times shipping stopped, any cause */
	uint64_t id_conflicts;		/* ids someone else had taken */
};

int ship_check_cfg(const struct gr_ship_cfg *cfg, char *err, size_t errlen);
int ship_start(const struct gr_ship_cfg *cfg, char *err, size_t errlen);
void ship_stop(void);

/* the options of `agent` for shipping beyond --ship*, and NATS' */
extern const char *const ship_agent_opts[];
int ship_agent_set(struct gr_ship_cfg *cfg, const char *opt, const char *val,
		   char *err, size_t errlen);

int ship_backlog(const char *vm, struct gr_ship_backlog *b);
natsStatus ship_connect(const char *urls, const char *name,
			const char *creds, natsConnection **nc);

#endif /* GR_SHIP_H */
