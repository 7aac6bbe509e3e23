// SPDX-License-Identifier: GPL-2.0
/*
 * cli_args.c - option parsing of one command, and its errors: said once,
 * on stderr, with the command's usage for a usage error
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "opts.h"

static void cli_verr(const char *fmt, va_list ap)
{
	fputs("guestrelay: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_verr(fmt, ap);
	va_end(ap);
}

int usage_err(const struct cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_verr(fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "usage: guestrelay %s\n(guestrelay help %s "
			"tells more)\n", cmd->usage, cmd->name);
	return EXIT_USAGE;
}


/*
 * Sort @argv into options of @opts and positional arguments (at most
 * @max_pos, into @pos). "--opt VALUE" and "--opt=VALUE" both work; "--"
 * ends the options.
 */
int parse_args(const struct cli_cmd *cmd, int argc, char **argv,
		      const struct cli_opt *opts, char **pos, int min_pos,
		      int max_pos, int *npos)
{
	const struct cli_opt *o;
	bool dashdash = false;
	const char *eq;
	size_t len;
	int i;

	*npos = 0;
	for (i = 0; i < argc; i++) {
		char *arg = argv[i];

		if (dashdash || arg[0] != '-' || !arg[1]) {
			if (*npos == max_pos)
				return usage_err(cmd, "too many arguments "
						 "('%s')", arg);
			pos[(*npos)++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			dashdash = true;
			continue;
		}
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		for (o = opts; o && o->name; o++)
			if (strlen(o->name) == len &&
			    !strncmp(o->name, arg, len))
				break;
		if (!o || !o->name)
			return usage_err(cmd, "%s has no option '%.*s'",
					 cmd->name, (int)len, arg);
		if (o->flag) {
			if (eq)
				return usage_err(cmd, "%s takes no value",
						 o->name);
			*o->flag = true;
		} else if (eq) {
			*o->val = eq + 1;
		} else if (i + 1 < argc) {
			*o->val = argv[++i];
		} else {
			return usage_err(cmd, "%s needs a value", o->name);
		}
	}
	if (*npos < min_pos)
		return usage_err(cmd, "%s needs more arguments", cmd->name);
	return 0;
}

int check_vm(const struct cli_cmd *cmd, const char *name)
{
	char why[128];

	if (ctl_check_vm_name(name, why, sizeof(why)))
		return usage_err(cmd, "'%s': %s", name, why);
	return 0;
}
