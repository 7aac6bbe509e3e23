/* SPDX-License-Identifier: GPL-2.0 */
/*
 * client.h - the one client of the agent's control socket, used by the
 * CLI (cli.c) and the libvirt hook: build a request, send it, read the
 * whole answer within a time limit.
 */
#ifndef GR_CLIENT_H
#define GR_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include "agent.h"

/**
 * struct ctl_answer - what came back from the agent
 * @buf: the whole answer, NUL-terminated (allocated)
 * @body: the body after "ok", or the MESSAGE of an error line
 * @len: length of @body
 * @error: the agent answered with an error line
 * @ename: its ERRNO-NAME ("ENOENT")
 * @connected: the connection to the agent was made
 * @path: the agent's socket
 * @why: when ctl_client_call() failed, what went wrong, one line
 */
struct ctl_answer {
	char *buf;
	const char *body;
	size_t len;
	bool error;
	char ename[32];
	bool connected;
	char path[108];
	char why[600];
};

/**
 * ctl_client_call() - one request to the agent and its answer
 * @run_dir: the agent's run directory (RUN_DIR/agent.sock)
 * @timeout_ms: bound of connecting, sending and of each wait for the
 *	answer; 0 waits for ever
 * @json: ask for a JSON body
 * @cmd: the command
 * @argc: number of its arguments
 * @argv: its arguments (percent-encoded here)
 * @o: for vm-add (then @argc is 0): the options, or NULL
 * @ans: receives the answer; ctl_answer_free() it in every case
 *
 * Context: process; blocks up to the timeout.
 * Return: 0 if the agent answered ("ok" or an error line: @ans->error),
 * else -errno with @ans->why set: the error of socket(2) or connect(2)
 * (@ans->connected false), -ETIMEDOUT, -EMSGSIZE (request too long),
 * -EFBIG (answer too large), -ENODATA (closed without an answer),
 * -EPROTO (not an answer), -ENOMEM, -ENAMETOOLONG.
 */
int ctl_client_call(const char *run_dir, unsigned int timeout_ms, bool json,
		    const char *cmd, int argc, char *const *argv,
		    const struct gr_vm_opts *o, struct ctl_answer *ans);

void ctl_answer_free(struct ctl_answer *ans);

#endif /* GR_CLIENT_H */
