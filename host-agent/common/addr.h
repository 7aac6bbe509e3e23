/* SPDX-License-Identifier: GPL-2.0 */
/*
 * addr.h - the ADDR:PORT of the agent's listening options (--metrics,
 * --live)
 */
#ifndef GR_ADDR_H
#define GR_ADDR_H

#include <stdint.h>
#include <sys/socket.h>

/* what an ADDR:PORT option takes, for messages */
#define GR_ADDR_HELP \
	"use IPV4:PORT or [IPV6]:PORT, e.g. 127.0.0.1:9464 or [::1]:9464"

int gr_parse_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len);
uint16_t gr_addr_port(const struct sockaddr_storage *ss);

#endif
