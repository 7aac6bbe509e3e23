// SPDX-License-Identifier: GPL-2.0
/*
 * ship_forge.c - a publisher that claims the message ids of packets an
 * agent has not shipped yet (tests/integration/test_ship_forged_id.sh)
 *
 *   ship_forge URL STREAM HOST VM SESSION KEYFILE STREAM_FILE AHEAD COUNT
 *
 * Walks STREAM_FILE (stream_<ring> of HOST/VM/SESSION in the agent's
 * store) to its last whole packet, and publishes through JetStream (so
 * that each is stored, and its id taken, before this returns) COUNT
 * garbage messages whose Nats-Msg-Id is that of the packets AHEAD,
 * AHEAD + 1, ... sequence numbers after it, made with the agent's key
 * from KEYFILE: what someone who stole the key, or who could guess ids,
 * would do. Prints "forged N from SEQ".
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nats/nats.h>

#include "guestrelay_abi.h"
#include "subject.h"

/* the last whole packet's sequence number and the file's whole end */
static int last_packet(const char *path, uint64_t *seq, uint64_t *end)
{
	struct gr_packet_header h;
	uint64_t off = 0, len;
	FILE *f = fopen(path, "rb");
	int found = 0;

	if (!f)
		return -1;
	while (fseek(f, (long)off, SEEK_SET) == 0 &&
	       fread(&h, sizeof(h), 1, f) == 1) {
		len = le64toh(h.packet_size) / 8;
		if (le32toh(h.magic) != GR_CTF_MAGIC || len < sizeof(h))
			break;
		*seq = le64toh(h.packet_seq_num);
		off += len;
		found = 1;
	}
	fclose(f);
	*end = off;
	return found ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint8_t key[GR_MSGID_KEY_LEN], junk[8] = "forged!";
	char id[GR_SUBJ_MAX], subj[GR_SUBJ_MAX], fr[160];
	struct gr_obj o = { .kind = GR_OBJ_STREAM };
	uint64_t seq = 0, end = 0, ahead, count, i;
	natsConnection *nc = NULL;
	jsCtx *js = NULL;
	const char *base;
	FILE *kf;

	if (argc != 10) {
		fprintf(stderr, "usage: ship_forge URL STREAM HOST VM SESSION KEYFILE STREAM_FILE AHEAD COUNT\n");
		return 2;
	}
	kf = fopen(argv[6], "rb");
	if (!kf || fread(key, sizeof(key), 1, kf) != 1) {
		perror(argv[6]);
		return 1;
	}
	fclose(kf);
	base = strrchr(argv[7], '/');
	base = base ? base + 1 : argv[7];
	if (sscanf(base, "stream_%u", &o.ring) != 1 ||
	    last_packet(argv[7], &seq, &end)) {
		fprintf(stderr, "ship_forge: no packet in %s\n", argv[7]);
		return 1;
	}
	snprintf(o.host, sizeof(o.host), "%s", argv[3]);
	snprintf(o.vm, sizeof(o.vm), "%s", argv[4]);
	snprintf(o.session, sizeof(o.session), "%s", argv[5]);
	ahead = strtoull(argv[8], NULL, 10);
	count = strtoull(argv[9], NULL, 10);
	if (gr_subj_build(argv[2], &o, subj, sizeof(subj)) ||
	    natsConnection_ConnectTo(&nc, argv[1]) != NATS_OK ||
	    natsConnection_JetStream(&js, nc, NULL) != NATS_OK) {
		fprintf(stderr, "ship_forge: cannot connect to %s\n", argv[1]);
		return 1;
	}
	for (i = 0; i < count; i++) {
		struct gr_frame f = {
			.off = end, .len = sizeof(junk), .gen = seq + ahead + i,
			.nparts = 1, .chunk = 1024,
		};
		jsPubAck *pa = NULL;
		natsMsg *m = NULL;
		natsStatus s;

		if (gr_msgid_build(&o, &f, 0, id, sizeof(id)) ||
		    gr_msgid_seal(id, sizeof(id), key, 0) ||
		    gr_frame_format(&f, fr, sizeof(fr)))
			return 1;
		s = natsMsg_Create(&m, subj, NULL, (const char *)junk,
				   sizeof(junk));
		if (s == NATS_OK)
			s = natsMsgHeader_Set(m, "Nats-Msg-Id", id);
		if (s == NATS_OK)
			s = natsMsgHeader_Set(m, "Gr-Frame", fr);
		if (s == NATS_OK)
			s = js_PublishMsg(&pa, js, m, NULL, NULL);
		natsMsg_Destroy(m);
		if (s != NATS_OK || !pa || pa->Duplicate) {
			fprintf(stderr, "ship_forge: %s not stored: %s\n", id,
				natsStatus_GetText(s));
			return 1;
		}
		jsPubAck_Destroy(pa);
	}
	printf("forged %llu from %llu\n", (unsigned long long)count,
	       (unsigned long long)(seq + ahead));
	jsCtx_Destroy(js);
	natsConnection_Destroy(nc);
	nats_Close();
	return 0;
}
