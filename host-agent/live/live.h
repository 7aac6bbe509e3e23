/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live.h - every VM's recording as an LTTng live session
 *
 * `guestrelay agent --live ADDR:PORT` serves the LTTng-live viewer
 * protocol, version 2.4 (the one babeltrace2 2.0's src.ctf.lttng-live
 * speaks), on its own thread: `babeltrace2 -i lttng-live
 * net://ADDR:PORT/host/HOST/VM` follows VM as it records. The server
 * reads what the loop stored (stream files, their index files, the
 * metadata) and learns from the loop only which sessions are open and
 * which chunk they write in (live_session_open(), live_session_rotate(),
 * live_session_close()), so a viewer can never
 * slow down storage. The protocol has no authentication: the default
 * address is loopback.
 */
#ifndef GR_LIVE_H
#define GR_LIVE_H

#include <stddef.h>
#include <stdint.h>

#define GR_LIVE_DEFAULT_PORT	5344	/* LTTng's viewer port */
#define GR_LIVE_MAX_VIEWERS	64	/* connections; more are refused */
#define GR_LIVE_IDLE_S		120	/* a silent connection is closed */

/**
 * struct gr_live_cfg - what the server serves
 * @addr: "ADDR:PORT" to listen on (numeric IPv4, or IPv6 in brackets)
 * @store_dir: the agent's store, <store>/<vm>/<session>/
 * @host: the host name viewers give in their URL (the agent's)
 */
struct gr_live_cfg {
	const char *addr;
	const char *store_dir;
	const char *host;
};

/**
 * struct gr_live_stats - what the server did, for /metrics
 * @viewers: connections open now
 * @accepted: connections accepted since start
 * @refused: connections refused (GR_LIVE_MAX_VIEWERS reached)
 * @bad_requests: connections closed for a malformed or unknown request
 * @idle_closed: connections closed for GR_LIVE_IDLE_S of silence
 * @packets: packets sent
 * @bytes: bytes sent
 * @beacons: inactivity beacons sent for quiet streams
 * @chunks_skipped: closed chunks a viewer's stream had not read when
 *	retention deleted them (it goes on in the oldest chunk kept)
 * @sessions: sessions listed now
 */
struct gr_live_stats {
	uint64_t viewers;
	uint64_t accepted;
	uint64_t refused;
	uint64_t bad_requests;
	uint64_t idle_closed;
	uint64_t packets;
	uint64_t bytes;
	uint64_t beacons;
	uint64_t chunks_skipped;
	uint64_t sessions;
};

int live_start(const struct gr_live_cfg *cfg, char *err, size_t errlen);
void live_stop(void);
void live_get_stats(struct gr_live_stats *st);

void live_session_open(const char *vm, const char *session, uint64_t chunk,
		       unsigned int nr_rings, uint64_t clock_freq,
		       uint32_t switch_timer_us);
void live_session_rotate(const char *vm, const char *session, uint64_t chunk);
void live_session_close(const char *vm, const char *session);

#endif
