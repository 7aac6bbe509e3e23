/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli.h - the guestrelay commands other than `guestrelay agent`
 */
#ifndef GR_CLI_H
#define GR_CLI_H

#include <stddef.h>

int cli_main(int argc, char **argv);
const char *cli_command_name(size_t i);

#endif /* GR_CLI_H */
