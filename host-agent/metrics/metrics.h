/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics.h - `guestrelay agent --metrics ADDR:PORT`: the Prometheus
 * endpoint /metrics, served by libmicrohttpd on the agent's loop
 */
#ifndef GR_METRICS_H
#define GR_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "agent.h"

/* what --metrics takes, for messages */
#define GR_METRICS_ADDR_HELP \
	"use IPV4:PORT or [IPV6]:PORT, e.g. 127.0.0.1:9464 or [::1]:9464"

struct gr_metrics;

int metrics_parse_addr(const char *s, struct sockaddr_storage *ss,
		       socklen_t *len);
uint16_t metrics_addr_port(const struct sockaddr_storage *ss);
int metrics_init(struct gr_agent *a, const char *addr,
		 struct gr_metrics **mp, char *err, size_t errlen);
void metrics_finish(struct gr_metrics *m);
void metrics_count_pass(struct gr_metrics *m, int completions);

#endif /* GR_METRICS_H */
