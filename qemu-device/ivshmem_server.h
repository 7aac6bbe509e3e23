/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ivshmem_server.h - a loop-agnostic, non-blocking ivshmem server
 *
 * One server per shared memory object (per VM). QEMU's ivshmem-doorbell
 * device connects to its UNIX socket and receives the shared memory and the
 * eventfds of every peer. The owner of the server is a peer too: it owns a
 * "self" peer (id opts->self_id, 0 by default) whose eventfds are announced
 * to every client like any other peer, so a guest's doorbell write
 * (self_id << 16 | vector) wakes ivsh_server_self_eventfd(srv, vector).
 *
 * The server never blocks on its own and runs no loop: the owner polls the
 * descriptors listed by ivsh_server_fds() (poll, epoll or io_uring) and
 * calls
 *   ivsh_server_accept()      when the listening socket is readable,
 *   ivsh_server_peer_event()  when a peer socket is readable or hung up,
 * and reads the self eventfds itself (or with ivsh_eventfd_drain()).
 *
 * Sends: peer sockets are non-blocking. A message that does not fit in the
 * peer's socket buffer waits for room at most opts->send_timeout_ms; a peer
 * that still does not read, or that is gone, is disconnected (and the other
 * peers are told). So a stuck client can delay the owner's loop by at most
 * that timeout per message, and never forever.
 *
 * The server is not thread-safe: call it from one thread.
 * This file knows nothing about tracing.
 */
#ifndef _GR_IVSHMEM_SERVER_H
#define _GR_IVSHMEM_SERVER_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>

#include "ivshmem_proto.h"

#define IVSH_SERVER_MAX_PEERS		256	/* default client limit */
#define IVSH_SERVER_SEND_TIMEOUT_MS	100	/* default send timeout */
#define IVSH_SERVER_SOCK_MODE		0660	/* default socket mode */

enum ivsh_peer_change {
	IVSH_PEER_ADDED,	/* greeting sent, announced to the others */
	IVSH_PEER_REMOVED,	/* about to close its socket */
};

/*
 * Called for every client added or removed, including clients removed as
 * a side effect (a failed send while announcing another peer), just before
 * the server closes @sock_fd: an io_uring owner cancels its poll on it
 * here. The callback must not call into the server except the read-only
 * queries (ivsh_server_peer_info() and the like).
 */
typedef void (*ivsh_peer_fn)(void *data, enum ivsh_peer_change what,
			     int peer_id, int sock_fd);

/* flags of struct ivsh_server_opts */
#define IVSH_SRV_CHOWN	(1U << 0)	/* chown the socket to sock_uid/gid */

struct ivsh_server_opts {
	unsigned int flags;	/* IVSH_SRV_* */
	mode_t sock_mode;	/* socket file mode; 0: IVSH_SERVER_SOCK_MODE */
	uid_t sock_uid;		/* with IVSH_SRV_CHOWN; (uid_t)-1 keeps it */
	gid_t sock_gid;		/* with IVSH_SRV_CHOWN; (gid_t)-1 keeps it */
	unsigned int self_id;	/* the owner's peer id (default 0) */
	unsigned int max_id;	/* highest peer id; 0: IVSH_MAX_PEER_ID */
	unsigned int max_peers;	/* client limit; 0: IVSH_SERVER_MAX_PEERS */
	int send_timeout_ms;	/* 0: default; < 0: never wait */
	ivsh_log_fn log;	/* optional */
	void *log_data;
	ivsh_peer_fn on_peer;	/* optional */
	void *peer_data;
};

/* what the owner may poll; see ivsh_server_fds() */
enum ivsh_fd_kind {
	IVSH_FD_LISTEN,		/* readable: call ivsh_server_accept() */
	IVSH_FD_SELF,		/* readable: a peer rang the owner's vector */
	IVSH_FD_PEER,		/* readable/HUP: ivsh_server_peer_event() */
};

struct ivsh_fd {
	int fd;
	enum ivsh_fd_kind kind;
	int peer_id;		/* IVSH_FD_PEER, IVSH_FD_SELF: the peer id */
	unsigned int vector;	/* IVSH_FD_SELF: the vector */
};

struct ivsh_peer_info {
	int id;
	int sock_fd;		/* -1 for the self peer */
	pid_t pid;		/* SO_PEERCRED at accept; owner's pid for self */
	uid_t uid;
	gid_t gid;
	unsigned int vectors;
};

/* private to ivshmem_server.c; exposed so owners can embed a server */
struct ivsh_peer {
	int id;
	int sock_fd;
	int eventfds[IVSH_MAX_VECTORS];
	pid_t pid;
	uid_t uid;
	gid_t gid;
	int dead;		/* a send failed; removed before we return */
};

struct ivsh_server {
	int listen_fd;
	int shm_fd;			/* our duplicate of the owner's fd */
	unsigned int vectors;
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	dev_t sock_dev;			/* identity of the socket we bound, */
	ino_t sock_ino;			/* to remove only our own file */
	struct ivsh_peer self;
	struct ivsh_peer **peers;	/* clients in connection order */
	unsigned int nr_peers;
	unsigned int peers_cap;
	uint64_t *id_map;		/* bitmap of ids in use, self included */
	unsigned int max_id;
	unsigned int max_peers;
	unsigned int next_id;		/* where the next id search starts */
	int send_timeout_ms;
	ivsh_log_fn log;
	void *log_data;
	ivsh_peer_fn on_peer;
	void *peer_data;
};

/**
 * ivsh_server_init() - create the listening socket and the self peer
 * @srv: server to initialize
 * @sock_path: UNIX socket path; a stale socket (nobody listening) at that
 *	path is replaced, anything else there is an error
 * @shm_fd: the shared memory to hand out; the server keeps a duplicate,
 *	the caller keeps ownership of @shm_fd. Its size must be valid for
 *	ivsh_shm_check_size() (QEMU needs a power of two).
 * @vectors: interrupt vectors per peer, 1..IVSH_MAX_VECTORS; QEMU's
 *	vectors= should match
 * @opts: options, NULL for the defaults
 *
 * The socket gets its mode (and owner) before listen(2), so nobody can
 * connect to it with the wrong permissions. The directory holding it
 * should be writable by the owner only.
 *
 * Context: process context.
 * Return: 0, -EINVAL for bad arguments or a bad shm size, -ENAMETOOLONG,
 * -EEXIST if something that is not a socket is at @sock_path,
 * -EADDRINUSE if another server listens there, or -errno.
 */
int ivsh_server_init(struct ivsh_server *srv, const char *sock_path,
		     int shm_fd, unsigned int vectors,
		     const struct ivsh_server_opts *opts);

/**
 * ivsh_server_finish() - close every peer, the socket, and remove it
 * @srv: server; safe to call twice
 *
 * Calls on_peer(IVSH_PEER_REMOVED) for each client; sends no disconnect
 * notices (every peer loses the server at once). The socket file is
 * removed only if it is still the one this server bound.
 *
 * Context: process context.
 */
void ivsh_server_finish(struct ivsh_server *srv);

/**
 * ivsh_server_accept() - accept one pending connection
 * @srv: server
 *
 * Accepts at most one connection; with level-triggered polling the
 * listening socket stays readable while more are pending. The new client
 * gets a peer id not used by any live peer (ids are handed out cyclically
 * from the last one given, so a departed peer's id comes back only after
 * the others were used), then the greeting: version 0, its id, -1 with the
 * shared memory, every other peer's id (the self peer first, then the
 * clients in connection order) once per vector with that peer's eventfd,
 * and its own id once per vector with its own eventfds. Then every other
 * client is told about it (its id once per vector with its eventfds).
 * A client that cannot be given an id (server full) is closed at once.
 *
 * Context: may wait for socket buffer space, see send_timeout_ms.
 * Return: the new peer id (>= 0); -EAGAIN if no connection was pending;
 * -ENOSPC when full; -ECONNRESET or -ETIMEDOUT if the greeting could not be
 * sent (the client was closed); or -errno from accept4(2) or eventfd(2).
 */
int ivsh_server_accept(struct ivsh_server *srv);
int ivsh_clear_stale_socket(const char *path);

/**
 * ivsh_server_peer_event() - handle readability or hang-up of a peer socket
 * @srv: server
 * @peer_id: the peer whose socket was reported
 *
 * Clients never send anything in this protocol: end of file or an error
 * is a disconnect, and data is a protocol violation (logged with the
 * reason); either way the peer is removed, its eventfds closed and every
 * other client told. A wake-up with nothing to read changes nothing.
 *
 * Context: may wait for socket buffer space, see send_timeout_ms.
 * Return: 1 if the peer was removed, 0 if nothing happened, -ENOENT if no
 * client has @peer_id (already removed: a stale event is harmless).
 */
int ivsh_server_peer_event(struct ivsh_server *srv, int peer_id);

/**
 * ivsh_server_disconnect() - remove a client on the owner's initiative
 * @srv: server
 * @peer_id: client to remove
 *
 * Context: may wait for socket buffer space, see send_timeout_ms.
 * Return: 0, or -ENOENT if no client has @peer_id.
 */
int ivsh_server_disconnect(struct ivsh_server *srv, int peer_id);

/**
 * ivsh_server_notify() - interrupt a peer on one vector
 * @srv: server
 * @peer_id: client id, or the self id (wakes the owner's own eventfd)
 * @vector: vector number, < vectors
 *
 * Writes 1 to the peer's eventfd: QEMU turns it into an MSI-X interrupt
 * in the guest, or (MSI-X still disabled) reads and drops it. Both sides
 * must tolerate lost and spurious notifications.
 *
 * Context: does not sleep.
 * Return: 0, -ENOENT if there is no such peer, -EINVAL for a bad vector,
 * or -errno from write(2).
 */
int ivsh_server_notify(struct ivsh_server *srv, int peer_id,
		       unsigned int vector);

/**
 * ivsh_server_listen_fd() - the listening socket
 * @srv: server
 *
 * Context: any.
 * Return: the descriptor (owned by the server).
 */
int ivsh_server_listen_fd(const struct ivsh_server *srv);

/**
 * ivsh_server_self_id() - the owner's own peer id
 * @srv: server
 *
 * Context: any.
 * Return: the id guests ring to reach the owner.
 */
int ivsh_server_self_id(const struct ivsh_server *srv);

/**
 * ivsh_server_self_eventfd() - the owner's eventfd for one vector
 * @srv: server
 * @vector: vector number
 *
 * Non-blocking, owned by the server. Readable when a peer rang
 * (self_id << 16 | @vector).
 *
 * Context: any.
 * Return: the descriptor, or -EINVAL for a bad vector.
 */
int ivsh_server_self_eventfd(const struct ivsh_server *srv,
			     unsigned int vector);

/**
 * ivsh_server_peer_eventfd() - a peer's eventfd for one vector
 * @srv: server
 * @peer_id: client or self id
 * @vector: vector number
 *
 * For owners that write the doorbell through their own loop (io_uring).
 *
 * Context: any.
 * Return: the descriptor (owned by the server), -ENOENT or -EINVAL.
 */
int ivsh_server_peer_eventfd(const struct ivsh_server *srv, int peer_id,
			     unsigned int vector);

/**
 * ivsh_server_nr_peers() - number of connected clients (self excluded)
 * @srv: server
 *
 * Context: any.
 * Return: the count.
 */
unsigned int ivsh_server_nr_peers(const struct ivsh_server *srv);

/**
 * ivsh_server_peer_ids() - ids of the connected clients
 * @srv: server
 * @ids: array filled with up to @max ids, in connection order
 * @max: capacity of @ids
 *
 * Context: any.
 * Return: the number of clients (may exceed @max).
 */
unsigned int ivsh_server_peer_ids(const struct ivsh_server *srv, int *ids,
				  unsigned int max);

/**
 * ivsh_server_peer_info() - describe one peer
 * @srv: server
 * @peer_id: client or self id
 * @info: filled on success
 *
 * Context: any.
 * Return: 0 or -ENOENT.
 */
int ivsh_server_peer_info(const struct ivsh_server *srv, int peer_id,
			  struct ivsh_peer_info *info);

/**
 * ivsh_server_fds() - every descriptor the owner should poll for reading
 * @srv: server
 * @fds: array filled with up to @max entries: the listening socket, the
 *	self eventfds, then the client sockets
 * @max: capacity of @fds
 *
 * The set changes after ivsh_server_accept(), ivsh_server_peer_event() and
 * ivsh_server_disconnect(); on_peer reports each change as it happens.
 *
 * Context: any.
 * Return: the number of descriptors (may exceed @max).
 */
unsigned int ivsh_server_fds(const struct ivsh_server *srv,
			     struct ivsh_fd *fds, unsigned int max);

#endif /* _GR_IVSHMEM_SERVER_H */
