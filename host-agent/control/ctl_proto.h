/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctl_proto.h - the agent's control protocol, shared by ctl.c (server)
 * and cli.c (client)
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
 * Commands (the server checks every argument again; it never trusts the
 * client):
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
 * closed; at most CTL_MAX_CONNS connections are served at once.
 */
#ifndef GR_CTL_PROTO_H
#define GR_CTL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agent.h"


#define CTL_LINE_MAX		8192	/* request bytes, LF included */
#define CTL_MAX_ARGS		256	/* arguments after the command */
#define CTL_MAX_CONNS		64	/* connections served at once */
#define CTL_REQUEST_TIMEOUT_MS	5000	/* connect to complete request */
#define CTL_SEND_TIMEOUT_MS	1000	/* SO_SNDTIMEO of a client socket */
#define CTL_RESPONSE_MAX	(16u << 20) /* what a client accepts */
#define CTL_SWITCH_TIMER_MS_MAX	10000	/* the guest's limit, 10 s */

/* ---- arguments ------------------------------------------------------- */

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
 * ctl_check_vm_name() - is @name a valid VM name
 * @name: candidate
 * @err: receives the reason, or NULL
 * @errlen: size of @err
 *
 * A VM name is 1..GR_VM_NAME_MAX-1 bytes of [A-Za-z0-9_.-], not starting
 * with a dot: it names a file in /dev/shm, a socket and a directory.
 *
 * Context: any.
 * Return: 0 or -EINVAL.
 */
int ctl_check_vm_name(const char *name, char *err, size_t errlen);

/**
 * ctl_parse_size() - parse a byte count: digits with an optional binary
 * suffix K, M, G or T (optionally followed by "iB" or "B")
 * @s: the text, e.g. "16M", "4096", "1GiB"
 * @out: the value
 *
 * Context: any.
 * Return: 0, -EINVAL for bad syntax or -ERANGE on overflow.
 */
int ctl_parse_size(const char *s, uint64_t *out);

/**
 * ctl_parse_mode() - "stream" or "flight" to GR_MODE_*
 * @s: the word
 * @mode: the result
 *
 * Context: any.
 * Return: 0 or -EINVAL.
 */
int ctl_parse_mode(const char *s, uint32_t *mode);

/**
 * ctl_mode_name() - GR_MODE_* to its word
 * @mode: the mode
 *
 * Context: any.
 * Return: "stream", "flight" or "unknown".
 */
const char *ctl_mode_name(uint32_t mode);

#define CTL_OPTS_NAMES	(1u << 0)	/* --owner may name a user/group */

/**
 * ctl_parse_vm_add() - the arguments of `vm-add` into struct gr_vm_opts
 * @o: the result; zeroed first
 * @argc: number of arguments
 * @argv: the VM name and the options, in any order
 * @flags: CTL_OPTS_NAMES to resolve user and group names (the client
 *	does; the agent accepts numbers only, so it never blocks on NSS)
 * @err: receives what is wrong
 * @errlen: size of @err
 *
 * Context: process; with CTL_OPTS_NAMES may block on the user database.
 * Return: 0, or -EINVAL with @err set.
 */
int ctl_parse_vm_add(struct gr_vm_opts *o, int argc, char **argv,
		     unsigned int flags, char *err, size_t errlen);

/**
 * ctl_vm_opt_arity() - is @arg an option of `vm-add`, and does it take a
 * value in the next argument?
 * @arg: "--name" or "--name=value"
 *
 * Context: any.
 * Return: -1 if not an option of vm-add; 1 if its value is the next
 * argument; 0 if it takes none or carries it after '='.
 */
int ctl_vm_opt_arity(const char *arg);

/**
 * ctl_vm_add_args() - the canonical request arguments for @o
 * @f: the request being built; each argument is written with a leading
 *	space, percent-encoded
 * @o: options as parsed by ctl_parse_vm_add()
 *
 * Context: any.
 */
void ctl_vm_add_args(FILE *f, const struct gr_vm_opts *o);

/* ---- output ---------------------------------------------------------- */

/**
 * ctl_put_text() - print an untrusted string for a terminal
 * @f: where to
 * @s: the string (may come from a guest)
 *
 * Printable ASCII and valid UTF-8 (except C1 controls) are printed as is;
 * every other byte, and '\\', is printed as \xNN, so no string can move
 * the cursor or spoof a line.
 *
 * Context: any.
 */
void ctl_put_text(FILE *f, const char *s);

#define CTL_JSON_DEPTH	16

/**
 * struct ctl_json - a small JSON writer
 * @f: where to
 * @depth: open objects and arrays
 * @count: members written in each open object or array
 * @is_obj: each open level is an object (else an array)
 * @top: the top-level value was started
 * @bad: misuse (a key in an array, none in an object, unbalanced or too
 *	deep nesting, two top-level values) was seen
 *
 * Strings are escaped completely: '"', '\\' and every control character
 * (U+0000..U+001F and U+007F); bytes that are not valid UTF-8 become
 * U+FFFD, so the output is always valid JSON in UTF-8. Numbers are written
 * in decimal; a non-finite double is written as null.
 */
struct ctl_json {
	FILE *f;
	unsigned int depth;
	unsigned int count[CTL_JSON_DEPTH];
	bool is_obj[CTL_JSON_DEPTH];
	bool top;
	bool bad;
};

void ctl_json_init(struct ctl_json *j, FILE *f);
void ctl_json_begin_object(struct ctl_json *j, const char *key);
void ctl_json_end_object(struct ctl_json *j);
void ctl_json_begin_array(struct ctl_json *j, const char *key);
void ctl_json_end_array(struct ctl_json *j);
void ctl_json_string(struct ctl_json *j, const char *key, const char *val);
void ctl_json_u64(struct ctl_json *j, const char *key, uint64_t val);
void ctl_json_i64(struct ctl_json *j, const char *key, int64_t val);
void ctl_json_double(struct ctl_json *j, const char *key, double val);
void ctl_json_bool(struct ctl_json *j, const char *key, bool val);
void ctl_json_null(struct ctl_json *j, const char *key);
int ctl_json_finish(struct ctl_json *j);

#endif /* GR_CTL_PROTO_H */
