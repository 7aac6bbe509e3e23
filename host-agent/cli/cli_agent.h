/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli_agent.h - the commands that ask the agent (client.c), one request each
 */
#ifndef GR_CLI_AGENT_H
#define GR_CLI_AGENT_H

#include "cli_args.h"

int cli_run_ping(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);
int cli_run_names(struct cli *cli, const struct cli_cmd *cmd, int argc,
		  char **argv);
int cli_run_probe(struct cli *cli, const struct cli_cmd *cmd, int argc,
		  char **argv);
int cli_run_status(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);
int cli_run_vm_cmd(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);
int cli_run_events(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);
int cli_run_filter(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);
int cli_run_hist(struct cli *cli, const struct cli_cmd *cmd, int argc,
		 char **argv);
int cli_run_mode(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);
int cli_run_vm_add(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);

#endif /* GR_CLI_AGENT_H */
