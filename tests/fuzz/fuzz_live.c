// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_live.c - the LTTng-live server's request handling
 * (host-agent/live/viewer.c) against any bytes a viewer may send
 *
 * The store (a directory unique to this process, made once) holds one
 * open session of VM "vm0" with two rings: a metadata file, stream_0 with
 * two stored packets and its index, stream_1 empty with its index. Each
 * input is a viewer's byte stream, delivered in pieces: the first byte of
 * each piece is its length (at most the connection's buffer), the bytes
 * after it are appended to the connection's input and every whole
 * request is answered, as live.c does. Replies are checked for their
 * size bound and dropped; the connection is released at the end.
 *
 * Findings besides the sanitizers': a reply larger than GR_LIVE_MAX_REPLY,
 * a request answered that was not whole, and the input buffer overrun.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "index.h"
#include "../../host-agent/live/live.c"

static void put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(p, 1, n, f) != n)
		FUZZ_BUG("cannot write %s", path);
	fclose(f);
}

/* a stored packet of ring 0: header and @n bytes of records */
static size_t packet(uint8_t *buf, uint64_t seq, size_t n)
{
	struct gr_packet_header h = {
		.magic = htole32(GR_CTF_MAGIC),
		.timestamp_begin = htole64(1000 * (seq + 1)),
		.timestamp_end = htole64(1000 * (seq + 1) + 500),
		.content_size = htole64(8 * (sizeof(h) + n)),
		.packet_size = htole64(8 * (sizeof(h) + n)),
		.packet_seq_num = htole64(seq),
	};

	memcpy(buf, &h, sizeof(h));
	memset(buf + sizeof(h), 0xab, n);
	return sizeof(h) + n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char dir[64];
	char sess[128], vmdir[96];
	uint8_t data[512];
	size_t len = 0;
	int sfd;

	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "/tmp/fuzz_live.%d", (int)getpid());
	snprintf(vmdir, sizeof(vmdir), "%s/vm0", dir);
	snprintf(sess, sizeof(sess), "%s/S1", vmdir);
	if ((mkdir(dir, 0700) && errno != EEXIST) ||
	    (mkdir(vmdir, 0700) && errno != EEXIST) ||
	    (mkdir(sess, 0700) && errno != EEXIST))
		FUZZ_BUG("cannot make %s", sess);
	put(sess, "metadata", "/* CTF 1.8 */\ntrace { major = 1; };\n", 36);
	len += packet(data, 0, 64);
	len += packet(data + len, 1, 128);
	put(sess, "stream_0", data, len);
	put(sess, "stream_1", "", 0);
	sfd = open(sess, O_RDONLY | O_DIRECTORY);
	if (sfd < 0 || gr_index_build(sfd, 0, 4096) ||
	    gr_index_build(sfd, 1, 4096))
		FUZZ_BUG("cannot index %s", sess);
	close(sfd);
	if (viewer_init(dir, "fuzzhost"))
		FUZZ_BUG("viewer_init(%s)", dir);
	live_registry_enable(true);
	live_session_open("vm0", "S1", 0, 2, 1000000000ULL, 100000);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t left)
{
	struct live_conn c = { .fd = -1, .id = 1 };
	int r = 0;

	while (left && r >= 0) {
		size_t n = *d++ % (sizeof(c.in) + 1);

		left--;
		if (n > left)
			n = left;
		if (n > sizeof(c.in) - c.in_len)
			n = sizeof(c.in) - c.in_len;
		memcpy(c.in + c.in_len, d, n);
		c.in_len += n;
		d += n;
		left -= n;
		while ((r = viewer_request(&c)) > 0) {
			if (c.out_len > GR_LIVE_MAX_REPLY || !c.out)
				FUZZ_BUG("reply of %zu bytes", c.out_len);
			if (c.in_len > sizeof(c.in))
				FUZZ_BUG("input of %zu bytes", c.in_len);
			free(c.out);
			c.out = NULL;
			c.out_len = 0;
		}
		if (!r && c.in_len == sizeof(c.in))
			FUZZ_BUG("a full buffer is neither a request nor refused");
	}
	free(c.out);
	viewer_release(&c);
	return 0;
}
