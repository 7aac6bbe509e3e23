// SPDX-License-Identifier: GPL-2.0
/*
 * js_delete_consumer.c - delete a JetStream consumer, as an operator (or a
 * server that lost its state) would take it away from a running
 * `guestrelay collect` (tests/integration/test_ship_basic.sh)
 *
 *   js_delete_consumer URL STREAM CONSUMER
 *
 * Exit 0 once deleted, 1 if the server refused (its reason on stderr).
 */
#include <stdio.h>

#include <nats/nats.h>

int main(int argc, char **argv)
{
	natsConnection *nc = NULL;
	jsErrCode jerr = 0;
	jsCtx *js = NULL;
	natsStatus s;

	if (argc != 4) {
		fprintf(stderr, "usage: js_delete_consumer URL STREAM CONSUMER\n");
		return 2;
	}
	s = natsConnection_ConnectTo(&nc, argv[1]);
	if (s == NATS_OK)
		s = natsConnection_JetStream(&js, nc, NULL);
	if (s == NATS_OK)
		s = js_DeleteConsumer(js, argv[2], argv[3], NULL, &jerr);
	if (s != NATS_OK)
		fprintf(stderr, "js_delete_consumer: %s %s: %s (JetStream error %d)\n",
			argv[2], argv[3], natsStatus_GetText(s), (int)jerr);
	jsCtx_Destroy(js);
	natsConnection_Destroy(nc);
	nats_Close();
	return s == NATS_OK ? 0 : 1;
}
