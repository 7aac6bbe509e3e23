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

#include "addr.h"
#include "agent.h"

struct gr_metrics;

int metrics_init(struct gr_agent *a, const char *addr,
		 struct gr_metrics **mp, char *err, size_t errlen);
void metrics_finish(struct gr_metrics *m);
void metrics_count_pass(struct gr_metrics *m, int completions);

#endif /* GR_METRICS_H */
