/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ivshmem_proto.h - the ivshmem client/server wire protocol, shared by the
 * server (ivshmem_server.c) and the client (ivshmem_client.c)
 *
 * The server sends, the client only receives. Every message is one 8-byte
 * little-endian signed integer, optionally carrying one file descriptor
 * (SCM_RIGHTS) on a UNIX stream socket:
 *
 *   value          fd       meaning
 *   0 (first)      none     protocol version (IVSH_PROTOCOL_VERSION)
 *   id (second)    none     the client's own peer id
 *   -1             shm      the shared memory object
 *   id             eventfd  connect: the n-th such message for a peer id
 *                           carries that peer's eventfd for vector n - 1;
 *                           when id is the client's own, the eventfd is the
 *                           one it receives its interrupts on
 *   id             none     disconnect: peer id is gone, close its eventfds
 *
 * This file knows nothing about tracing.
 */
#ifndef _GR_IVSHMEM_PROTO_H
#define _GR_IVSHMEM_PROTO_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#define IVSH_PROTOCOL_VERSION	0	/* the only version QEMU accepts */
#define IVSH_MSG_SHM		(-1)	/* value of the shared memory message */
#define IVSH_MAX_PEER_ID	65535	/* Doorbell register: 16-bit peer id */
#define IVSH_MAX_VECTORS	64	/* our bound on vectors per peer */
#define IVSH_MSG_SIZE		8	/* bytes per message */

/*
 * Log callback supplied by the owner of a server or client; prio is a
 * syslog(3) priority (LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG). The
 * message has no trailing newline. The components never print anything
 * themselves; with no callback they stay silent and report through their
 * return values only.
 */
typedef void (*ivsh_log_fn)(void *data, int prio, const char *fmt,
			    va_list ap);

/**
 * ivsh_send_msg() - send one protocol message on a non-blocking socket
 * @sock: connected UNIX stream socket (O_NONBLOCK)
 * @value: the 64-bit value, sent little-endian
 * @fd: descriptor to pass with SCM_RIGHTS, or -1 for none
 * @timeout_ms: how long to wait for socket buffer space when the peer does
 *	not read (0: do not wait at all)
 *
 * Handles short writes (the descriptor travels with the first byte) and
 * EINTR. Never raises SIGPIPE.
 *
 * Context: may sleep up to @timeout_ms in poll(2).
 * Return: 0, -ETIMEDOUT when the peer's buffer stayed full, -EPIPE or
 * -ECONNRESET when the peer is gone, or another -errno from sendmsg(2).
 */
int ivsh_send_msg(int sock, int64_t value, int fd, int timeout_ms);

/**
 * ivsh_eventfd_signal() - add one to an eventfd (ring a doorbell)
 * @fd: the eventfd
 *
 * A counter already at its maximum means a notification is pending, so
 * EAGAIN counts as success.
 *
 * Context: does not sleep on a non-blocking eventfd.
 * Return: 0 or -errno from write(2).
 */
int ivsh_eventfd_signal(int fd);

/**
 * ivsh_eventfd_drain() - read and reset an eventfd's counter
 * @fd: a non-blocking eventfd
 * @count: if not NULL, receives the counter (number of signals coalesced)
 *
 * Context: does not sleep on a non-blocking eventfd.
 * Return: 0 when the counter was non-zero, -EAGAIN when nothing was
 * pending, or another -errno from read(2).
 */
int ivsh_eventfd_drain(int fd, uint64_t *count);

/**
 * ivsh_is_eventfd() - check that a received descriptor is an eventfd
 * @fd: descriptor to check
 *
 * Uses /proc/self/fd; where /proc is not available it falls back to
 * checking that @fd is an anonymous inode.
 *
 * Context: any.
 * Return: true if @fd is (as far as can be told) an eventfd.
 */
bool ivsh_is_eventfd(int fd);

/* internal: forward a message to a log callback, if there is one */
void ivsh_logf(ivsh_log_fn log, void *data, int prio, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* _GR_IVSHMEM_PROTO_H */
