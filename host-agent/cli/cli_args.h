/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli_args.h - what every command of the CLI shares: the global options,
 * the command table's entry, option parsing and saying an error once
 */
#ifndef GR_CLI_ARGS_H
#define GR_CLI_ARGS_H

#include <limits.h>
#include <stdbool.h>

#define EXIT_USAGE		2

struct cli;

/**
 * struct cli_cmd - one subcommand
 * @name: as typed
 * @run: does it; @argv holds its arguments without the global options
 * @own_main: instead of @run, for a command that parses its whole command
 *	line itself (argv[0] is its name) and answers its own --help; it
 *	is only run as the first word
 * @usage: one line, after "guestrelay "
 * @help: what it does and its options (for @own_main: what it does, its
 *	--help tells the options)
 */
struct cli_cmd {
	const char *name;
	int (*run)(struct cli *cli, const struct cli_cmd *cmd, int argc,
		   char **argv);
	int (*own_main)(int argc, char **argv);
	const char *usage;
	const char *help;
};

/**
 * struct cli - the global options
 * @run_dir: where agent.sock and the VM sockets are
 * @json: print JSON
 * @timeout: seconds to wait for the agent, 0 = forever
 */
struct cli {
	char run_dir[PATH_MAX];
	bool json;
	unsigned int timeout;
};

/* ---- option parsing of one command ------------------------------------ */

/**
 * struct cli_opt - an option of a command
 * @name: "--size"
 * @val: receives the value of an option with one (NULL: a flag)
 * @flag: set by a flag
 */
struct cli_opt {
	const char *name;
	const char **val;
	bool *flag;
};

void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int usage_err(const struct cli_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int parse_args(const struct cli_cmd *cmd, int argc, char **argv,
	       const struct cli_opt *opts, char **pos, int min_pos,
	       int max_pos, int *npos);
int check_vm(const struct cli_cmd *cmd, const char *name);

#endif /* GR_CLI_ARGS_H */
