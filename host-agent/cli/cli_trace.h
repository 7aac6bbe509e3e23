/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli_trace.h - the commands that read stored traces: report, timeline and steal
 */
#ifndef GR_CLI_TRACE_H
#define GR_CLI_TRACE_H

#include "cli_args.h"

int cli_run_report(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);
int cli_run_timeline(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);
int cli_run_steal(struct cli *cli, const struct cli_cmd *cmd, int argc,
		  char **argv);

#endif /* GR_CLI_TRACE_H */
