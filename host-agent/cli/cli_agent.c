// SPDX-License-Identifier: GPL-2.0
/*
 * cli_agent.c - the commands that talk to the agent: one request over
 * RUN_DIR/agent.sock (client.c) each, the agent's answer printed as it
 * comes (the agent formats both text and JSON)
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_agent.h"
#include "client.h"
#include "ctl_proto.h"
#include "filter.h"
#include "opts.h"

/* ---- talking to the agent --------------------------------------------- */

/* what to do about a failed call */
static const char *call_hint(int ret, bool connected)
{
	if (!connected && (ret == -ENOENT || ret == -ECONNREFUSED))
		return " (is `guestrelay agent` running? --run-dir or "
		       "GUESTRELAY_RUN_DIR name another agent)";
	if (!connected && (ret == -EACCES || ret == -EPERM))
		return " (root, the agent's user and the agent's --group "
		       "may use it)";
	if (ret == -ETIMEDOUT)
		return " (--timeout SEC waits longer)";
	return "";
}

/*
 * The commands that ask the guest through the name strip (spec 18),
 * which takes one request at a time: the agent answers EBUSY while its
 * own (a first attach's UNPROBE, a re-publication's ADD) or another
 * client's is in flight, for at most its 5 s bound
 */
static bool asks_guest(const char *cmd)
{
	return !strcmp(cmd, "probe") || !strcmp(cmd, "events") ||
	       !strcmp(cmd, "enable");
}

/*
 * ctl_client_call(), asked again every 100 ms while the agent answers
 * EBUSY to a command that asks the guest (asks_guest()), within the
 * CLI's --timeout
 */
static int call_until_free(const struct cli *cli, const char *cmd, int argc,
			   char **argv, const struct gr_vm_opts *o,
			   struct ctl_answer *ans)
{
	const struct timespec pause = { 0, 100 * 1000 * 1000 };
	unsigned int tries = cli->timeout * 10;
	int ret;

	for (;;) {
		ret = ctl_client_call(cli->run_dir, cli->timeout * 1000,
				      cli->json, cmd, argc, argv, o, ans);
		if (ret || !ans->error || strcmp(ans->ename, "EBUSY") ||
		    !asks_guest(cmd) || !tries--)
			return ret;
		ctl_answer_free(ans);
		nanosleep(&pause, NULL);
	}
}

/*
 * One request; print the answer; return the exit status. @expr: the
 * filter expression the request carries, or NULL: a refused expression
 * comes back as one line with its column (gr_fx_error_line()) and is
 * printed with the expression and a caret under the offending token.
 */
static int agent_call(const struct cli *cli, const char *cmd, int argc,
		      char **argv, const struct gr_vm_opts *o,
		      const char *expr)
{
	struct gr_fx_error fe;
	struct ctl_answer ans;
	char text[4096];
	int ret;

	ret = call_until_free(cli, cmd, argc, argv, o, &ans);
	if (ret) {
		cli_err("%s%s", ans.why, call_hint(ret, ans.connected));
	} else if (ans.error) {
		if (expr && !gr_fx_error_from_line(ans.body, &fe)) {
			gr_fx_format_error(text, sizeof(text), expr, &fe);
			cli_err("%s", text);
		} else {
			cli_err("%s", ans.body);
		}
		ret = 1;
	} else {
		fwrite(ans.body, 1, ans.len, stdout);
		if (fflush(stdout) || ferror(stdout)) {
			cli_err("writing the output: %s", strerror(errno));
			ret = 1;
		}
	}
	ctl_answer_free(&ans);
	return ret ? 1 : 0;
}

static int agent_request(const struct cli *cli, const char *cmd, int argc,
			 char **argv, const struct gr_vm_opts *o)
{
	return agent_call(cli, cmd, argc, argv, o, NULL);
}

/* ---- commands that talk to the agent ---------------------------------- */

int cli_run_ping(struct cli *cli, const struct cli_cmd *cmd, int argc,
		    char **argv)
{
	int n, ret;

	ret = parse_args(cmd, argc, argv, NULL, NULL, 0, 0, &n);
	return ret ? ret : agent_request(cli, cmd->name, 0, NULL, NULL);
}

int cli_run_status(struct cli *cli, const struct cli_cmd *cmd, int argc,
		      char **argv)
{
	char *pos[1];
	int n, ret;

	ret = parse_args(cmd, argc, argv, NULL, pos, 0, 1, &n);
	if (!ret && n)
		ret = check_vm(cmd, pos[0]);
	return ret ? ret : agent_request(cli, cmd->name, n, pos, NULL);
}

/* `CMD VM` and up to @more arguments after it */
static int run_vm_args(struct cli *cli, const struct cli_cmd *cmd, int argc,
		       char **argv, int more)
{
	char *pos[2];
	int n, ret;

	ret = parse_args(cmd, argc, argv, NULL, pos, 1, 1 + more, &n);
	if (!ret)
		ret = check_vm(cmd, pos[0]);
	return ret ? ret : agent_request(cli, cmd->name, n, pos, NULL);
}

/* `events VM [GLOB]`: the guest's catalogue of events (spec 18) */
int cli_run_names(struct cli *cli, const struct cli_cmd *cmd, int argc,
		  char **argv)
{
	return run_vm_args(cli, cmd, argc, argv, 1);
}

/*
 * `probe VM [DEF | -:NAME | --delete-all]` (spec 18.4): `-:NAME` is
 * tracefs' deletion, an argument and not an option
 */
int cli_run_probe(struct cli *cli, const struct cli_cmd *cmd, int argc,
		  char **argv)
{
	bool all = false;
	char *pos[3];
	int i, n = 0, ret;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--delete-all"))
			all = true;
		else if (argv[i][0] == '-' && argv[i][1] != ':')
			return usage_err(cmd, "%s has no option '%s'",
					 cmd->name, argv[i]);
		else if (n == 2)
			return usage_err(cmd, "too many arguments ('%s'); "
					 "quote the definition", argv[i]);
		else
			pos[n++] = argv[i];
	}
	if (!n)
		return usage_err(cmd, "%s needs more arguments", cmd->name);
	if (all && n > 1)
		return usage_err(cmd, "--delete-all takes no definition");
	ret = check_vm(cmd, pos[0]);
	if (ret)
		return ret;
	if (all)
		pos[n++] = "--delete-all";
	return agent_request(cli, cmd->name, n, pos, NULL);
}

/* commands of the form `CMD VM` */
int cli_run_vm_cmd(struct cli *cli, const struct cli_cmd *cmd, int argc,
		      char **argv)
{
	return run_vm_args(cli, cmd, argc, argv, 0);
}

/* The follow options as the agent takes them, after @pos[0..@n) */
static int follow_args(char **pos, int n, const char *pid, const char *comm,
		       bool no_fork)
{
	if (pid) {
		pos[n++] = "--pid";
		pos[n++] = (char *)pid;
	}
	if (comm) {
		pos[n++] = "--comm";
		pos[n++] = (char *)comm;
	}
	if (no_fork)
		pos[n++] = "--no-fork";
	return n;
}

int cli_run_events(struct cli *cli, const struct cli_cmd *cmd, int argc,
		      char **argv)
{
	const char *filter = NULL, *pid = NULL, *comm = NULL;
	bool no_fork = false;
	const struct cli_opt opts[] = {
		{ "--filter", &filter, NULL },
		{ "--pid", &pid, NULL },
		{ "--comm", &comm, NULL },
		{ "--no-fork", NULL, &no_fork },
		{ NULL, NULL, NULL },
	};
	bool on = !strcmp(cmd->name, "enable");
	char **pos;
	int n, ret;

	pos = calloc((size_t)argc + 8, sizeof(*pos));
	if (!pos) {
		cli_err("out of memory");
		return 1;
	}
	ret = parse_args(cmd, argc, argv, on ? opts : NULL, pos, 2,
			 CTL_MAX_ARGS - 2, &n);
	if (!ret)
		ret = check_vm(cmd, pos[0]);
	if (!ret && filter) {
		/* the agent sets the filter on every EVENT, then enables */
		pos[n++] = "--filter";
		pos[n++] = (char *)filter;
	}
	/* spec 15: and the follow filter, before the events */
	n = follow_args(pos, n, pid, comm, no_fork);
	if (!ret)
		ret = agent_call(cli, cmd->name, n, pos, NULL, filter);
	free(pos);
	return ret;
}

/*
 * `filter VM EVENT EXPR`, `filter VM EVENT --clear`, and the follow
 * filter: `filter VM --pid LIST [--comm GLOB] [--no-fork]`, `filter VM
 * --clear`
 */
int cli_run_filter(struct cli *cli, const struct cli_cmd *cmd, int argc,
		      char **argv)
{
	const char *pid = NULL, *comm = NULL;
	bool clear = false, no_fork = false;
	const struct cli_opt opts[] = {
		{ "--clear", NULL, &clear },
		{ "--pid", &pid, NULL },
		{ "--comm", &comm, NULL },
		{ "--no-fork", NULL, &no_fork },
		{ NULL, NULL, NULL },
	};
	char *pos[10];
	int n, ret;

	ret = parse_args(cmd, argc, argv, opts, pos, 1, 3, &n);
	if (!ret)
		ret = check_vm(cmd, pos[0]);
	if (!ret && n == 1) {
		if (clear == (pid || comm) || (no_fork && !pid && !comm))
			return usage_err(cmd, "filter VM needs --pid LIST or "
					 "--comm GLOB (with --no-fork: not "
					 "their children), or --clear alone");
		if (clear)
			pos[n++] = "--clear";
		n = follow_args(pos, n, pid, comm, no_fork);
		return agent_call(cli, cmd->name, n, pos, NULL, NULL);
	}
	if (!ret && (pid || comm || no_fork))
		ret = usage_err(cmd, "--pid, --comm and --no-fork go without "
				"an EVENT: filter VM --pid LIST");
	if (!ret && clear == (n == 3))
		ret = usage_err(cmd, clear ? "--clear takes no expression" :
				"filter needs an expression or --clear");
	if (ret)
		return ret;
	if (clear)
		pos[n++] = "--clear";
	return agent_call(cli, cmd->name, n, pos, NULL, clear ? NULL : pos[2]);
}

/*
 * `hist VM EVENT 'keys=...' [--filter EXPR]`, `hist VM --latency PRESET`,
 * `hist VM [NAME] --clear|--remove`, `hist VM [NAME]` (spec 17): a
 * refused request comes back with its column and is shown with a caret
 */
int cli_run_hist(struct cli *cli, const struct cli_cmd *cmd, int argc,
		 char **argv)
{
	const char *filter = NULL, *latency = NULL;
	bool clear = false, remove = false;
	const struct cli_opt opts[] = {
		{ "--filter", &filter, NULL },
		{ "--latency", &latency, NULL },
		{ "--clear", NULL, &clear },
		{ "--remove", NULL, &remove },
		{ NULL, NULL, NULL },
	};
	char *pos[12];
	int n, ret;

	ret = parse_args(cmd, argc, argv, opts, pos, 1, 3, &n);
	if (!ret)
		ret = check_vm(cmd, pos[0]);
	if (ret)
		return ret;
	if ((clear || remove) &&
	    ((clear && remove) || filter || latency || n > 2))
		return usage_err(cmd, "hist VM [NAME] --clear or --remove "
				 "takes nothing else");
	if (latency && n > 1)
		return usage_err(cmd, "hist VM --latency PRESET takes no "
				 "EVENT or request");
	if (n == 3 && (clear || remove))
		return usage_err(cmd, "--clear and --remove take a NAME, not "
				 "a request");
	if (filter && n != 3 && !latency)
		return usage_err(cmd, "--filter goes with EVENT 'keys=...' "
				 "or --latency");
	if (filter) {
		pos[n++] = "--filter";
		pos[n++] = (char *)filter;
	}
	if (latency) {
		pos[n++] = "--latency";
		pos[n++] = (char *)latency;
	}
	if (clear || remove)
		pos[n++] = clear ? "--clear" : "--remove";
	return agent_call(cli, cmd->name, n, pos, NULL,
			  n >= 3 && !latency ? pos[2] : NULL);
}

int cli_run_mode(struct cli *cli, const struct cli_cmd *cmd, int argc,
		    char **argv)
{
	char *pos[2];
	uint32_t mode;
	int n, ret;

	ret = parse_args(cmd, argc, argv, NULL, pos, 2, 2, &n);
	if (!ret)
		ret = check_vm(cmd, pos[0]);
	if (!ret && ctl_parse_mode(pos[1], &mode))
		ret = usage_err(cmd, "mode is stream or flight, not '%s'",
				pos[1]);
	return ret ? ret : agent_request(cli, cmd->name, 2, pos, NULL);
}

int cli_run_vm_add(struct cli *cli, const struct cli_cmd *cmd, int argc,
		      char **argv)
{
	struct gr_vm_opts o;
	char err[512];

	if (ctl_parse_vm_add(&o, argc, argv, CTL_OPTS_NAMES, err,
			     sizeof(err)))
		return usage_err(cmd, "%s", err);
	return agent_request(cli, cmd->name, 0, NULL, &o);
}
