// SPDX-License-Identifier: GPL-2.0
/*
 * ship_hostile.c - a hostile publisher on a guestrelay stream's subjects
 * (tests/integration/test_ship_basic.sh)
 *
 *   ship_hostile URL STREAM HOST VM SESSION STREAM_FILE
 *
 * Publishes (core NATS, with libnats: the stream stores what is published
 * on its subjects) messages that `guestrelay collect` must reject: bad
 * subjects (too few or too many tokens, path escapes, non-canonical
 * encodings), missing or broken Gr-Frame headers, packets that are not
 * packets, copies of HOST/VM/SESSION's first packet (read from
 * STREAM_FILE) with one header field or one content byte changed, a
 * non-CTF metadata, a broken .guestrelay, an object too large. Then two
 * it must not reject but must not write either: an older metadata
 * version, and a packet for a host that never sent a .guestrelay (it
 * waits, and no directory is made for it). Prints "rejectable N".
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nats/nats.h>

#include "guestrelay_abi.h"
#include "subject.h"

static natsConnection *nc;
static int rejectable;

static void pub(const char *subj, const char *frame, const void *data,
		int len, int counts)
{
	natsMsg *m = NULL;

	if (natsMsg_Create(&m, subj, NULL, data, len) != NATS_OK) {
		fprintf(stderr, "ship_hostile: natsMsg_Create failed\n");
		exit(1);
	}
	if (frame)
		natsMsgHeader_Set(m, "Gr-Frame", frame);
	if (natsConnection_PublishMsg(nc, m) != NATS_OK) {
		fprintf(stderr, "ship_hostile: publish failed\n");
		exit(1);
	}
	natsMsg_Destroy(m);
	rejectable += counts;
}

int main(int argc, char **argv)
{
	char s[1024], fr[160], base[900], enc[3][256];
	struct gr_packet_header *h;
	uint8_t junk[4096], *pkt, *c;
	uint64_t len;
	size_t n;
	FILE *f;
	int i;

	if (argc != 7) {
		fprintf(stderr, "usage: ship_hostile URL STREAM HOST VM SESSION STREAM_FILE\n");
		return 2;
	}
	f = fopen(argv[6], "rb");
	pkt = malloc(1 << 24);
	if (!f || !pkt || fread(pkt, 1, sizeof(*h), f) != sizeof(*h)) {
		perror(argv[6]);
		return 1;
	}
	h = (struct gr_packet_header *)pkt;
	len = le64toh(h->packet_size) / 8;
	if (len < sizeof(*h) || len > (1 << 24) ||
	    fread(pkt + sizeof(*h), 1, len - sizeof(*h), f) !=
	    len - sizeof(*h)) {
		fprintf(stderr, "ship_hostile: no first packet in %s\n", argv[6]);
		return 1;
	}
	fclose(f);
	c = malloc(len);
	if (!c || natsConnection_ConnectTo(&nc, argv[1]) != NATS_OK) {
		fprintf(stderr, "ship_hostile: cannot connect\n");
		return 1;
	}
	/* the honest names, encoded as the agent does (subject.h) */
	for (i = 3; i <= 5; i++)
		if (gr_subj_encode(argv[i], enc[i - 3], sizeof(enc[0])) < 0)
			return 2;
	snprintf(base, sizeof(base), "%s.%s.%s.%s", argv[2], enc[0], enc[1],
		 enc[2]);
	for (n = 0; n < sizeof(junk); n++)
		junk[n] = (uint8_t)(n * 131 + 7);
	snprintf(fr, sizeof(fr), "0 4096 0 1 1000000 0");

	/* subjects */
	snprintf(s, sizeof(s), "%s.x", argv[2]);
	pub(s, fr, junk, 4096, 1);
	snprintf(s, sizeof(s), "%s.s0.extra", base);
	pub(s, fr, junk, 4096, 1);
	snprintf(s, sizeof(s), "%s._2E_2E.%s.%s.s0", argv[2], enc[1], enc[2]);
	pub(s, fr, junk, 4096, 1);
	snprintf(s, sizeof(s), "%s.%s._2E_2E._2E_2E.metadata", argv[2], enc[0]);
	pub(s, "0 10 0 1 1000000 99", "/* CTF 1.8", 10, 1);
	snprintf(s, sizeof(s), "%s.%s.%s.a_2Fb.info", argv[2], enc[0], enc[1]);
	pub(s, fr, junk, 4096, 1);
	snprintf(s, sizeof(s), "%s.%s_2e.%s.%s.s0", argv[2], enc[0], enc[1],
		 enc[2]);
	pub(s, fr, junk, 4096, 1);
	snprintf(s, sizeof(s), "%s.s01", base);
	pub(s, fr, junk, 4096, 1);
	/* frames */
	snprintf(s, sizeof(s), "%s.s0", base);
	pub(s, NULL, junk, 4096, 1);
	pub(s, "1 2 3", junk, 4096, 1);
	pub(s, "0 4096 0 1 1000000 00", junk, 4096, 1);
	pub(s, "0 4095 0 1 1000000 0", junk, 4096, 1);
	pub(s, "0 99999999 0 100 1000000 0", junk, 4096, 0);	/* len */
	rejectable++;	/* part 0 of 100: object too large, rejected */
	/* not packets */
	pub(s, fr, junk, 4096, 1);
	snprintf(fr, sizeof(fr), "%llu 4096 0 1 1000000 0", 1ULL << 40);
	pub(s, fr, junk, 4096, 1);
	/* the first packet with one field changed */
	for (i = 0; i < 5; i++) {
		memcpy(c, pkt, len);
		h = (struct gr_packet_header *)c;
		switch (i) {
		case 0:
			h->magic ^= htole32(1);
			break;
		case 1:
			h->stream_instance_id = htole64(1);
			break;
		case 2:
			h->content_size = htole64(le64toh(h->content_size) - 8);
			break;
		case 3:
			h->timestamp_begin = htole64(le64toh(h->timestamp_end) + 1);
			break;
		case 4:
			c[len - 1] ^= 0x5a;	/* a content byte */
			break;
		}
		snprintf(fr, sizeof(fr), "0 %llu 0 1 1000000 %llu",
			 (unsigned long long)len,
			 (unsigned long long)le64toh(h->packet_seq_num));
		pub(s, fr, c, (int)len, 1);
	}
	/* the frame's sequence is not the packet's */
	snprintf(fr, sizeof(fr), "0 %llu 0 1 1000000 %llu",
		 (unsigned long long)len,
		 (unsigned long long)le64toh(((struct gr_packet_header *)pkt)->packet_seq_num) + 1);
	pub(s, fr, pkt, (int)len, 1);
	/* metadata and .guestrelay */
	snprintf(s, sizeof(s), "%s.metadata", base);
	pub(s, "0 4096 0 1 1000000 99999999999999999", junk, 4096, 1);
	snprintf(s, sizeof(s), "%s.info", base);
	pub(s, "0 4096 0 1 1000000 99999999999999999", junk, 4096, 1);
	/* an older metadata version: acknowledged, not written */
	snprintf(s, sizeof(s), "%s.metadata", base);
	pub(s, "0 16 0 1 1000000 1", "/* CTF 1.8 */ x;", 16, 0);
	/* a host that never sent .guestrelay: waits, makes no directory */
	snprintf(s, sizeof(s), "%s.evilhost.%s.%s.s0", argv[2], enc[1],
		 enc[2]);
	snprintf(fr, sizeof(fr), "0 %llu 0 1 1000000 %llu",
		 (unsigned long long)len,
		 (unsigned long long)le64toh(((struct gr_packet_header *)pkt)->packet_seq_num));
	pub(s, fr, pkt, (int)len, 0);
	natsConnection_FlushTimeout(nc, 5000);
	natsConnection_Destroy(nc);
	nats_Close();
	free(c);
	free(pkt);
	printf("rejectable %d\n", rejectable);
	return 0;
}
