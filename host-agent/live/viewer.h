/* SPDX-License-Identifier: GPL-2.0 */
/*
 * viewer.h - inside the live server: its connections, the registry,
 * and the protocol's requests (viewer.c)
 */
#ifndef GR_LIVE_VIEWER_H
#define GR_LIVE_VIEWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GR_LIVE_NAME_MAX	64
#define GR_LIVE_MAX_ATTACH	16	/* sessions one viewer may attach */
#define GR_LIVE_MAX_STREAMS	1024	/* streams one viewer may be given */
#define GR_LIVE_MAX_HOPS	64	/* chunks one index request may pass */
#define GR_LIVE_MAX_REPLY	(4U << 20)	/* bytes of one reply */
#define GR_LIVE_MAX_METADATA	(GR_LIVE_MAX_REPLY - 64)

/**
 * struct live_sess - a session listed to viewers (the registry's entry)
 * @id: unique while the agent runs, from 1
 * @vm: the VM's name (the LTTng session name viewers ask for)
 * @session: its directory under <store>/<vm>/
 * @chunk: the ID of the chunk it writes in (0 if kept in one directory)
 * @nr_rings: its stream files
 * @clock_freq: of its clock
 * @switch_timer_us: the guest's switch timer (0: none)
 * @viewers: viewers attached
 * @next: the registry's list
 */
struct live_sess {
	uint64_t id;
	char vm[GR_LIVE_NAME_MAX];
	char session[GR_LIVE_NAME_MAX];
	uint64_t chunk;
	unsigned int nr_rings;
	uint64_t clock_freq;
	uint32_t switch_timer_us;
	unsigned int viewers;
	struct live_sess *next;
};

/**
 * struct live_stream - a stream given to one viewer
 * @id: its id on the wire: session id << 20 | (ring + 1), 0 for metadata
 * @sess: the session's copy taken at attach (names, rings, clock)
 * @ring: the ring, or -1 for the metadata stream
 * @chunk: the ID of the chunk whose files it reads
 * @data_fd: the stream file (opened on first use), or -1
 * @idx_fd: its index file, or -1
 * @entry: index entries handed out so far
 * @next_off: where the next packet starts in the stream file
 * @last_ts: timestamp_end of the last entry or beacon handed out
 * @raised_off: stream file offset of the packet handed out last, if its
 *	timestamp_begin was raised to a beacon's time; UINT64_MAX if not
 * @raised_ts: that raised timestamp_begin
 * @md_sent: metadata: bytes sent (of the file as it was when sent)
 * @md_hash: metadata: FNV-1a of that file's first @md_sent bytes
 * @md_events: metadata: event declarations sent
 * @md_ino: metadata: inode of the file last examined (each rewrite is a
 *	new file), with @md_size its size: unchanged, nothing to read
 * @md_size: see @md_ino
 * @announced: sent to the viewer in an attach or new-streams reply
 */
struct live_stream {
	uint64_t id;
	struct live_sess *sess;
	int ring;
	uint64_t chunk;
	int data_fd;
	int idx_fd;
	uint64_t entry;
	uint64_t next_off;
	uint64_t last_ts;
	uint64_t raised_off;
	uint64_t raised_ts;
	uint64_t md_sent;
	uint64_t md_hash;
	uint64_t md_events;
	uint64_t md_ino;
	uint64_t md_size;
	bool announced;
};

/**
 * struct live_conn - one viewer connection, owned by the live thread
 * @fd: its socket, -1 for a free slot
 * @id: its viewer session id
 * @connected: the CONNECT handshake was made
 * @created: CREATE_SESSION was asked
 * @in: bytes of the request being received
 * @in_len: how many
 * @out: the reply being sent (malloc'ed), or NULL
 * @out_len: its length
 * @out_off: bytes sent of it
 * @last_active_ns: CLOCK_MONOTONIC of its last request bytes
 * @att: sessions attached (copies)
 * @n_att: their number
 * @st: streams given
 * @n_st: their number
 */
struct live_conn {
	int fd;
	uint64_t id;
	bool connected;
	bool created;
	uint8_t in[64];
	size_t in_len;
	uint8_t *out;
	size_t out_len;
	size_t out_off;
	uint64_t last_active_ns;
	struct live_sess *att[GR_LIVE_MAX_ATTACH];
	unsigned int n_att;
	struct live_stream *st;
	unsigned int n_st;
};

/* registry.c */
uint64_t live_now_ns(void);
void live_registry_enable(bool on);
void live_registry_clear(void);
bool live_sess_get(uint64_t id, struct live_sess *out);
int live_sess_list(struct live_sess **out);
void live_sess_viewers(uint64_t id, int delta);
void live_count(size_t field, uint64_t n);

/* viewer.c */
int viewer_init(const char *store_dir, const char *host);
void viewer_finish(void);
int viewer_request(struct live_conn *c);
void viewer_release(struct live_conn *c);

#endif
