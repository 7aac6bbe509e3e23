// SPDX-License-Identifier: GPL-2.0
/*
 * fleet_kv_put.c - a hostile writer of the fleet-status bucket, for
 * tests/integration/test_fleet_status.sh (built there with cc): puts the
 * bytes of FILE under KEY, as anyone with access to the bucket could
 *
 *   fleet_kv_put URL CREDS|- BUCKET KEY FILE
 *
 * Exit status: 0 put, 1 failed (said on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nats/nats.h>

#include "nats_opts.h"

int main(int argc, char **argv)
{
	natsConnection *nc = NULL;
	natsOptions *o = NULL;
	kvStore *kv = NULL;
	jsCtx *js = NULL;
	char err[256], *buf;
	natsStatus s;
	size_t n;
	FILE *f;

	if (argc != 6) {
		fprintf(stderr, "usage: fleet_kv_put URL CREDS|- BUCKET KEY FILE\n");
		return 2;
	}
	f = fopen(argv[5], "rb");
	buf = malloc(1 << 20);
	if (!f || !buf) {
		perror(argv[5]);
		return 1;
	}
	n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	if (gr_nats_options(&o, argv[1], strcmp(argv[2], "-") ? argv[2] : NULL,
			    "fleet_kv_put", err, sizeof(err))) {
		fprintf(stderr, "fleet_kv_put: %s\n", err);
		return 1;
	}
	natsOptions_SetMaxReconnect(o, 0);
	s = natsConnection_Connect(&nc, o);
	if (s == NATS_OK)
		s = natsConnection_JetStream(&js, nc, NULL);
	if (s == NATS_OK)
		s = js_KeyValue(&kv, js, argv[3]);
	if (s == NATS_OK)
		s = kvStore_Put(NULL, kv, argv[4], buf, (int)n);
	if (s != NATS_OK) {
		gr_nats_err(s, err, sizeof(err));
		fprintf(stderr, "fleet_kv_put: %s\n", err);
	}
	kvStore_Destroy(kv);
	jsCtx_Destroy(js);
	natsConnection_Destroy(nc);
	natsOptions_Destroy(o);
	free(buf);
	return s == NATS_OK ? 0 : 1;
}
