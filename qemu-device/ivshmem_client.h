/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ivshmem_client.h - the client side of the ivshmem protocol, as QEMU's
 * ivshmem-doorbell device speaks it
 *
 * Used by the fake guest of the host tests and by these tests: it connects
 * to a server, receives the version, its own peer id, the shared memory and
 * the eventfds of every peer, and follows later connect and disconnect
 * notices. Like QEMU, ivsh_client_connect() waits for the version, the id
 * and the shared memory; everything after that arrives through
 * ivsh_client_process().
 *
 * The server is not trusted: the version must be 0 without a descriptor,
 * the id a number in 0..65535 without a descriptor, every other value in
 * -1..65535, at most one descriptor per message, the shared memory a
 * regular file of power-of-two size sent once, every other descriptor an
 * eventfd, at most max_peers peers. Descriptors beyond the configured
 * vectors of a peer are closed, as the ivshmem specification asks. Any
 * violation is -EPROTO, and the client is then unusable (close it).
 *
 * Not thread-safe. This file knows nothing about tracing.
 */
#ifndef _GR_IVSHMEM_CLIENT_H
#define _GR_IVSHMEM_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "ivshmem_proto.h"

#define IVSH_CLIENT_TIMEOUT_MS	5000	/* default ivsh_client_connect() wait */
#define IVSH_CLIENT_MAX_PEERS	1024	/* default bound on known peers */

enum ivsh_client_event {
	IVSH_CLIENT_VECTOR,	/* got @peer_id's eventfd for @vector */
	IVSH_CLIENT_GONE,	/* @peer_id disconnected; its fds are closed */
};

typedef void (*ivsh_client_event_fn)(void *data, enum ivsh_client_event ev,
				     int peer_id, unsigned int vector);

struct ivsh_client_opts {
	int timeout_ms;		/* ivsh_client_connect(); 0: default */
	unsigned int max_peers;	/* 0: IVSH_CLIENT_MAX_PEERS */
	ivsh_log_fn log;	/* optional: reasons for -EPROTO */
	void *log_data;
	ivsh_client_event_fn on_event;	/* optional */
	void *event_data;
};

/* private to ivshmem_client.c */
struct ivsh_client_peer {
	int id;
	unsigned int nr_fds;
	int fds[IVSH_MAX_VECTORS];
};

enum ivsh_client_stage {
	IVSH_CLIENT_WANT_VERSION,
	IVSH_CLIENT_WANT_ID,
	IVSH_CLIENT_WANT_SHM,
	IVSH_CLIENT_READY,
};

struct ivsh_client {
	int sock_fd;
	enum ivsh_client_stage stage;
	int error;			/* sticky -errno once broken */
	int own_id;
	int shm_fd;
	uint64_t shm_size;
	unsigned int vectors;
	struct ivsh_client_peer *peers;	/* own id included */
	unsigned int nr_peers;
	unsigned int peers_cap;
	unsigned int max_peers;
	unsigned char buf[IVSH_MSG_SIZE];	/* partial message */
	unsigned int have;
	int pending_fd;			/* came with the partial message */
	unsigned long extra_fds;	/* closed: beyond our vectors */
	unsigned long unknown_gone;	/* notices for peers we never saw */
	int timeout_ms;
	ivsh_log_fn log;
	void *log_data;
	ivsh_client_event_fn on_event;
	void *event_data;
};

/**
 * ivsh_client_open() - connect to a server without waiting for it
 * @c: client to initialize
 * @sock_path: the server's UNIX socket
 * @vectors: interrupt vectors of this client (QEMU's vectors=),
 *	1..IVSH_MAX_VECTORS
 * @opts: options, NULL for the defaults
 *
 * The socket is non-blocking; drive the handshake with
 * ivsh_client_process() until ivsh_client_ready().
 *
 * Context: process context.
 * Return: 0, -EINVAL, -ENAMETOOLONG, or -errno from socket(2) and
 * connect(2) (-ECONNREFUSED when nobody listens).
 */
int ivsh_client_open(struct ivsh_client *c, const char *sock_path,
		     unsigned int vectors, const struct ivsh_client_opts *opts);

/**
 * ivsh_client_connect() - connect and wait for the handshake, like QEMU
 * @c: client to initialize
 * @sock_path: the server's UNIX socket
 * @vectors: interrupt vectors of this client
 * @opts: options, NULL for the defaults
 *
 * Returns once the version, the own id and the shared memory were
 * received (and whatever peer eventfds came before them). On failure the
 * client is closed.
 *
 * Context: sleeps up to opts->timeout_ms.
 * Return: 0, -ETIMEDOUT, -EPROTO, -ECONNRESET, or an error of
 * ivsh_client_open().
 */
int ivsh_client_connect(struct ivsh_client *c, const char *sock_path,
			unsigned int vectors,
			const struct ivsh_client_opts *opts);

/**
 * ivsh_client_process() - receive and apply the messages that arrived
 * @c: client
 * @timeout_ms: how long to wait when nothing is there yet (0: do not wait,
 *	< 0: wait forever)
 *
 * Context: sleeps up to @timeout_ms in poll(2).
 * Return: the number of messages applied (0 on timeout), -ECONNRESET when
 * the server closed the connection (after the messages it sent before
 * were applied), -EPROTO on a protocol violation, or another -errno.
 */
int ivsh_client_process(struct ivsh_client *c, int timeout_ms);

/**
 * ivsh_client_close() - close the connection and every descriptor
 * @c: client; safe to call twice
 *
 * Context: process context.
 */
void ivsh_client_close(struct ivsh_client *c);

/**
 * ivsh_client_ready() - whether the shared memory has arrived
 * @c: client
 *
 * Context: any.
 * Return: true once version, id and shared memory were received.
 */
bool ivsh_client_ready(const struct ivsh_client *c);

/**
 * ivsh_client_fd() - the socket, to poll for reading
 * @c: client
 *
 * Context: any.
 * Return: the descriptor (owned by the client).
 */
int ivsh_client_fd(const struct ivsh_client *c);

/**
 * ivsh_client_id() - the client's own peer id (IVPosition)
 * @c: client
 *
 * Context: any.
 * Return: the id, or -1 before it was received.
 */
int ivsh_client_id(const struct ivsh_client *c);

/**
 * ivsh_client_shm_fd() - the shared memory received from the server
 * @c: client
 * @size: if not NULL, receives its size in bytes
 *
 * Context: any.
 * Return: the descriptor (owned by the client), or -1 before it arrived.
 */
int ivsh_client_shm_fd(const struct ivsh_client *c, uint64_t *size);

/**
 * ivsh_client_peer_vectors() - how many eventfds of a peer are known
 * @c: client
 * @peer_id: another peer's id, or the own id (the receiving eventfds)
 *
 * Context: any.
 * Return: the count, 0 for an unknown or departed peer.
 */
unsigned int ivsh_client_peer_vectors(const struct ivsh_client *c,
				      int peer_id);

/**
 * ivsh_client_peer_eventfd() - one eventfd of a peer
 * @c: client
 * @peer_id: another peer's id (to interrupt it) or the own id (to wait
 *	for interrupts)
 * @vector: vector number
 *
 * Context: any.
 * Return: the descriptor (owned by the client), or -ENOENT.
 */
int ivsh_client_peer_eventfd(const struct ivsh_client *c, int peer_id,
			     unsigned int vector);

/**
 * ivsh_client_peer_ids() - ids of the other known peers
 * @c: client
 * @ids: array filled with up to @max ids, in order of first appearance
 * @max: capacity of @ids
 *
 * Context: any.
 * Return: the number of other peers (may exceed @max).
 */
unsigned int ivsh_client_peer_ids(const struct ivsh_client *c, int *ids,
				  unsigned int max);

/**
 * ivsh_client_notify() - ring a peer's doorbell, as a guest write of
 *	(@peer_id << 16 | @vector) to the Doorbell register does
 * @c: client
 * @peer_id: peer to interrupt
 * @vector: vector number
 *
 * QEMU silently ignores a doorbell to an unknown peer or vector; this
 * returns -ENOENT so that tests can tell.
 *
 * Context: does not sleep.
 * Return: 0, -ENOENT, or -errno from write(2).
 */
int ivsh_client_notify(struct ivsh_client *c, int peer_id,
		       unsigned int vector);

#endif /* _GR_IVSHMEM_CLIENT_H */
