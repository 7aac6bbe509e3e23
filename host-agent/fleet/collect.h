/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect.h - `guestrelay collect URL --store DIR`: rebuild the shipped
 * stores of many hosts from a JetStream stream (issue 9)
 */
#ifndef GR_COLLECT_H
#define GR_COLLECT_H

int collect_main(int argc, char **argv);

#endif /* GR_COLLECT_H */
