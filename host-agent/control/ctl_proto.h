/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctl_proto.h - the wire format of the agent's control socket: framing of
 * requests and answers, and the decoding of the untrusted bytes a client
 * sends. Served by server.c, spoken by client.c.
 *
 * Transport: a UNIX stream socket, RUN_DIR/agent.sock, mode 0660, group
 * the agent's --group. One request per connection:
 *
 *   client:  FORMAT SP COMMAND *(SP ARG) LF          (at most 8 KiB, LF incl.)
 *   server:  "ok" LF BODY                            then closes
 *        or  "error" SP ERRNO-NAME SP MESSAGE LF     then closes
 *
 * FORMAT is "text" (BODY is for people) or "json" (BODY is one JSON
 * document). ARGs are percent-encoded: every byte that is not printable
 * ASCII (0x21..0x7e), and '%' itself, is sent as %XX (two hex digits), so
 * a space or newline inside an argument cannot break the framing. The
 * server decodes them and refuses empty arguments, bad escapes and
 * arguments that decode to control characters. A CR before the LF is
 * accepted (for `socat - UNIX:/run/guestrelay/agent.sock` by hand).
 * ERRNO-NAME is the symbolic name ("ENOENT"); MESSAGE is one line that says
 * what is wrong and what to do.
 *
 * Commands (commands.c; the server checks every argument again, it never
 * trusts the client):
 *
 *   ping
 *   status [VM]
 *   enable VM EVENT...          names, globs (sched_*) or "all"
 *   disable VM EVENT...
 *   mode VM stream|flight
 *   flush VM                    answered when the guest flushed
 *   snapshot VM                 BODY: the snapshot's trace directory
 *   stop VM                     BODY: the finalized trace directory
 *   start VM                    BODY: the new session's directory
 *   vm-add VM [OPTION...]       the options of `guestrelay vm-add`, with
 *                               --owner as numeric UID[:GID]
 *   vm-remove VM
 *
 * The server allows a connection from uid 0, from the agent's own uid, and
 * from a peer whose primary or supplementary group is the socket's group
 * (SO_PEERCRED, SO_PEERGROUPS); any other peer gets an "error EACCES" line
 * and is closed. A request that is longer than CTL_LINE_MAX or does not
 * arrive within CTL_REQUEST_TIMEOUT_MS is answered with an error and
 * closed; at most CTL_MAX_CONNS connections are served at once. An answer
 * is at most CTL_REPLY_MAX bytes; a client that has not read all of it
 * CTL_REPLY_TIMEOUT_MS after it was ready is dropped.
 */
#ifndef GR_CTL_PROTO_H
#define GR_CTL_PROTO_H

#include <stddef.h>
#include <stdio.h>

#define CTL_LINE_MAX		8192	/* request bytes, LF included */
#define CTL_MAX_ARGS		256	/* arguments after the command */
#define CTL_MAX_CONNS		64	/* connections served at once */
#define CTL_REQUEST_TIMEOUT_MS	5000	/* connect to complete request */
#define CTL_REPLY_TIMEOUT_MS	5000	/* answer ready to answer read */
#define CTL_REPLY_MAX		(4u << 20) /* bytes of one answer */

/**
 * ctl_encode_arg() - write one argument percent-encoded
 * @f: the request being built
 * @arg: the argument, any bytes up to its NUL
 *
 * Context: any.
 */
void ctl_encode_arg(FILE *f, const char *arg);

/**
 * ctl_decode_arg() - decode a percent-encoded argument in place
 * @s: the argument as received; becomes the decoded string
 *
 * Context: any.
 * Return: 0, or -EINVAL for an empty argument, a malformed escape, a raw
 * byte that should have been encoded, or a decoded NUL or control
 * character.
 */
int ctl_decode_arg(char *s);

/**
 * ctl_split_request() - split and decode a request line in place
 * @line: the bytes before the LF, as received (untrusted)
 * @len: their number; @line[@len] is writable
 * @argv: receives FORMAT, COMMAND and the arguments, decoded
 * @argc: receives their number
 * @err: receives what is wrong, one line
 * @errlen: size of @err
 *
 * @argv must have room for CTL_MAX_ARGS + 2 entries.
 *
 * Context: any.
 * Return: 0, -EINVAL (a NUL byte, an empty line, an empty or malformed
 * word) or -E2BIG (more than CTL_MAX_ARGS arguments), with @err set.
 */
int ctl_split_request(char *line, size_t len, char **argv, int *argc,
		      char *err, size_t errlen);

/**
 * ctl_split_answer() - read an answer of the agent
 * @buf: the whole answer, NUL-terminated; error lines are cut at their LF
 * @len: its length
 * @body: receives the body after "ok" LF, or the MESSAGE of an error
 * @blen: receives the length of @body
 * @ename: receives the ERRNO-NAME of an error, "" otherwise
 * @elen: size of @ename
 *
 * Context: any.
 * Return: 0 for "ok", 1 for "error", -EPROTO for anything else.
 */
int ctl_split_answer(char *buf, size_t len, const char **body, size_t *blen,
		     char *ename, size_t elen);

#endif /* GR_CTL_PROTO_H */
