/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli_attach.h - the commands that attach a VM: qemu-args and the libvirt ones
 */
#ifndef GR_CLI_ATTACH_H
#define GR_CLI_ATTACH_H

#include "cli_args.h"

int cli_run_qemu_args(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);
int cli_run_libvirt_define(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);
int cli_run_libvirt_hook(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);
int cli_run_libvirt_xml(struct cli *cli, const struct cli_cmd *cmd, int argc,
		char **argv);

#endif /* GR_CLI_ATTACH_H */
