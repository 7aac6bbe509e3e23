// SPDX-License-Identifier: GPL-2.0
/*
 * test_live_viewer.c - the LTTng-live server's answers (host-agent/live/
 * viewer.c) over a store written by hand, request by request
 *
 * A session of two rings is stored (metadata, stream files, their index
 * files, rebuilt with gr_index_build() after each append) and registered
 * as open; a connection (struct live_conn, without a socket) asks what
 * babeltrace2's lttng-live source asks.
 *
 * The case: ring 1 is quiet while ring 0 stores a packet far later, so
 * ring 1 gets an inactivity beacon ("nothing before T"); ring 1's next
 * packet begins where its last one ended, before T (spec 6.9), although
 * its events are later. The viewer must not be told about a time before
 * T: the index entry and the packet bytes handed out carry
 * timestamp_begin = T, the stored file keeps its own, and a packet after
 * no beacon is handed out as stored.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gr_test.h"
#include "index.h"
#include "live.h"
#include "viewer.h"

#define HZ		1000000000ULL
#define TIMER_US	100000U
#define SESS_ID		1ULL

static char store[64], sess[128];

/* append a packet [@begin, @end] of @n payload bytes to stream_<ring> */
static uint64_t append(unsigned int ring, uint64_t seq, uint64_t begin,
		       uint64_t end, size_t n)
{
	struct gr_packet_header h = {
		.magic = htole32(GR_CTF_MAGIC),
		.stream_instance_id = htole64(ring),
		.timestamp_begin = htole64(begin),
		.timestamp_end = htole64(end),
		.content_size = htole64(8 * (sizeof(h) + n)),
		.packet_size = htole64(8 * (sizeof(h) + n)),
		.packet_seq_num = htole64(seq),
		.cpu_id = htole32(ring),
	};
	uint8_t buf[512];
	char path[192];
	struct stat st;
	int fd, sfd;

	memcpy(buf, &h, sizeof(h));
	memset(buf + sizeof(h), 0x5a, n);
	snprintf(path, sizeof(path), "%s/stream_%u", sess, ring);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(!fstat(fd, &st));
	CU_ASSERT_FATAL(write(fd, buf, sizeof(h) + n) ==
			(ssize_t)(sizeof(h) + n));
	close(fd);
	sfd = open(sess, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(sfd >= 0);
	CU_ASSERT_FATAL(!gr_index_build(sfd, ring, 4096));
	close(sfd);
	return (uint64_t)st.st_size;
}

/* one request; the reply stays in c->out */
static void request(struct live_conn *c, uint32_t cmd, const void *p,
		    size_t n)
{
	uint64_t size = htobe64(n);
	uint32_t be = htobe32(cmd), ver = 0;

	free(c->out);
	c->out = NULL;
	memcpy(c->in, &size, 8);
	memcpy(c->in + 8, &be, 4);
	memcpy(c->in + 12, &ver, 4);
	if (n)
		memcpy(c->in + 16, p, n);
	c->in_len = 16 + n;
	CU_ASSERT_FATAL(viewer_request(c) == 1);
	CU_ASSERT_FATAL(c->out != NULL);
}

static uint64_t be64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

static uint32_t be32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

/* CONNECT, CREATE_SESSION, ATTACH of the session: its streams in c->out */
static void attach(struct live_conn *c)
{
	struct {
		uint64_t id, off;
		uint32_t seek;
	} __attribute__((packed)) at = { htobe64(SESS_ID), 0, 0 };
	struct {
		uint64_t id;
		uint32_t major, minor, type;
	} __attribute__((packed)) hello = { 0, htobe32(2), htobe32(4),
					    htobe32(1) };

	request(c, 1, &hello, sizeof(hello));
	request(c, 8, NULL, 0);
	request(c, 3, &at, sizeof(at));
	CU_ASSERT_FATAL(be32_at(c->out) == 1);
}

/* GET_NEXT_INDEX of ring @ring: status, offset, size, begin, end */
static uint32_t next_index(struct live_conn *c, unsigned int ring,
			   uint64_t *off, uint64_t *bytes, uint64_t *begin,
			   uint64_t *end)
{
	uint64_t id = htobe64(SESS_ID << 20 | (ring + 1));

	request(c, 4, &id, sizeof(id));
	CU_ASSERT_FATAL(c->out_len == 64);
	*off = be64_at(c->out);
	*bytes = be64_at(c->out + 8) / 8;
	*begin = be64_at(c->out + 24);
	*end = be64_at(c->out + 32);
	return be32_at(c->out + 56);
}

/* GET_PACKET of ring @ring: the packet's timestamp_begin as handed out */
static uint64_t packet_begin(struct live_conn *c, unsigned int ring,
			     uint64_t off, uint64_t bytes)
{
	struct __attribute__((packed)) {
		uint64_t id, off;
		uint32_t len;
	} rq = { htobe64(SESS_ID << 20 | (ring + 1)), htobe64(off),
		 htobe32((uint32_t)bytes) };
	struct gr_packet_header h;

	request(c, 5, &rq, sizeof(rq));
	CU_ASSERT_FATAL(be32_at(c->out) == 1);	/* PACKET_OK */
	CU_ASSERT_FATAL(c->out_len == 12 + bytes);
	memcpy(&h, c->out + 12, sizeof(h));
	CU_ASSERT(le64toh(h.timestamp_end) > 0);
	return le64toh(h.timestamp_begin);
}

/* timestamp_begin of the packet at @off of the stored stream_<ring> */
static uint64_t stored_begin(unsigned int ring, uint64_t off)
{
	struct gr_packet_header h;
	char path[192];
	int fd;

	snprintf(path, sizeof(path), "%s/stream_%u", sess, ring);
	fd = open(path, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(pread(fd, &h, sizeof(h), (off_t)off) == sizeof(h));
	close(fd);
	return le64toh(h.timestamp_begin);
}

static void test_packet_after_a_beacon_begins_at_the_beacon(void)
{
	struct live_conn c = { .fd = -1, .id = 1 };
	uint64_t off, bytes, begin, end, beacon, off1;
	const uint64_t back = (2ULL * TIMER_US * 1000 + 1000000000ULL) * HZ /
			      1000000000ULL;

	append(0, 0, 1000, 2000, 64);
	append(1, 0, 1000, 2000, 64);
	attach(&c);
	CU_ASSERT_FATAL(be32_at(c.out + 4) == 3);	/* metadata + 2 */

	CU_ASSERT_EQUAL(next_index(&c, 1, &off, &bytes, &begin, &end), 1);
	CU_ASSERT_EQUAL(begin, 1000);
	CU_ASSERT_EQUAL(next_index(&c, 1, &off, &bytes, &begin, &end), 2);
	CU_ASSERT_EQUAL(next_index(&c, 0, &off, &bytes, &begin, &end), 1);

	/* ring 0 records much later; ring 1 stays quiet: a beacon */
	append(0, 1, 2000, 5 * HZ, 64);
	CU_ASSERT_EQUAL(next_index(&c, 0, &off, &bytes, &begin, &end), 1);
	CU_ASSERT_EQUAL(begin, 2000);		/* no beacon before it */
	CU_ASSERT_EQUAL(packet_begin(&c, 0, off, bytes), 2000);
	CU_ASSERT_EQUAL(next_index(&c, 1, &off, &bytes, &begin, &beacon), 5);
	CU_ASSERT_EQUAL(beacon, 5 * HZ - back);

	/* ring 1's next packet begins where its last ended, before that */
	off1 = append(1, 1, 2000, 6 * HZ, 64);
	CU_ASSERT_EQUAL(next_index(&c, 1, &off, &bytes, &begin, &end), 1);
	CU_ASSERT_EQUAL(off, off1);
	CU_ASSERT_EQUAL(begin, beacon);
	CU_ASSERT_EQUAL(end, 6 * HZ);
	CU_ASSERT_EQUAL(packet_begin(&c, 1, off, bytes), beacon);
	CU_ASSERT_EQUAL(stored_begin(1, off), 2000);	/* store untouched */

	/* and the one after it, with no beacon between, as stored */
	append(1, 2, 6 * HZ, 6 * HZ + 500, 64);
	CU_ASSERT_EQUAL(next_index(&c, 1, &off, &bytes, &begin, &end), 1);
	CU_ASSERT_EQUAL(begin, 6 * HZ);
	CU_ASSERT_EQUAL(packet_begin(&c, 1, off, bytes), 6 * HZ);

	free(c.out);
	viewer_release(&c);
}

/* the session's metadata replaced whole, as the agent writes it */
static void write_metadata(const char *text)
{
	char path[192], tmp[200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/metadata", sess);
	snprintf(tmp, sizeof(tmp), "%s/.metadata.tmp", sess);
	f = fopen(tmp, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
	CU_ASSERT_FATAL(!rename(tmp, path));
}

/* GET_METADATA: status; the text sent in c->out + 12, its length *@len */
static uint32_t get_metadata(struct live_conn *c, uint64_t *len)
{
	uint64_t id = htobe64(SESS_ID << 20);

	request(c, 6, &id, sizeof(id));
	CU_ASSERT_FATAL(c->out_len >= 12);
	*len = be64_at(c->out);
	return be32_at(c->out + 8);
}

/*
 * Events added at run time (spec 18.3 M2) are declared at the end of the
 * metadata: a viewer is told of new metadata and gets only the appended
 * declarations, also after a rewrite changed what it was sent (which
 * cannot reach it).
 */
static void test_appended_metadata_reaches_the_viewer(void)
{
	static const char head[] = "/* CTF 1.8 */\n";
	static const char added[] = "event {\n\tname = \"tick\";\n\tid = 4;\n"
		"\tstream_id = 0;\n\tfields := struct {\n\t};\n};\n\n";
	static const char added2[] = "event {\n\tname = \"tock\";\n\tid = 5;\n"
		"\tstream_id = 0;\n\tfields := struct {\n\t};\n};\n\n";
	static const char added3[] = "event {\n\tname = \"tack\";\n\tid = 6;\n"
		"\tstream_id = 0;\n\tfields := struct {\n\t};\n};\n\n";
	struct live_conn c = { .fd = -1, .id = 2 };
	char text[1024];
	uint64_t len, off, bytes, begin, end;

	write_metadata(head);
	attach(&c);
	CU_ASSERT_EQUAL(get_metadata(&c, &len), 1);	/* OK */
	CU_ASSERT_EQUAL(len, strlen(head));
	CU_ASSERT_EQUAL(get_metadata(&c, &len), 2);	/* NO_NEW */

	snprintf(text, sizeof(text), "%s%s", head, added);
	write_metadata(text);
	next_index(&c, 0, &off, &bytes, &begin, &end);
	CU_ASSERT(be32_at(c.out + 60) & 1);		/* NEW_METADATA */
	CU_ASSERT_EQUAL(get_metadata(&c, &len), 1);
	CU_ASSERT_EQUAL_FATAL(len, strlen(added));
	CU_ASSERT(!memcmp(c.out + 12, added, strlen(added)));
	CU_ASSERT_EQUAL(get_metadata(&c, &len), 2);

	/*
	 * what it was sent changed (a clock refined): that cannot reach it,
	 * the declarations appended after the ones it has do
	 */
	snprintf(text, sizeof(text), "/* CTF 1.8 */ \n%s", added);
	write_metadata(text);
	CU_ASSERT_EQUAL(get_metadata(&c, &len), 2);
	snprintf(text, sizeof(text), "/* CTF 1.8 */  \n%s%s", added, added2);
	write_metadata(text);
	CU_ASSERT_EQUAL(get_metadata(&c, &len), 1);
	CU_ASSERT_EQUAL_FATAL(len, strlen(added2));
	CU_ASSERT(!memcmp(c.out + 12, added2, strlen(added2)));
	CU_ASSERT_EQUAL(get_metadata(&c, &len), 2);
	/* and a rewrite that keeps the new file as its beginning */
	snprintf(text, sizeof(text), "/* CTF 1.8 */  \n%s%s%s", added, added2,
		 added3);
	write_metadata(text);
	CU_ASSERT_EQUAL(get_metadata(&c, &len), 1);
	CU_ASSERT_EQUAL_FATAL(len, strlen(added3));
	CU_ASSERT(!memcmp(c.out + 12, added3, strlen(added3)));
	write_metadata(head);

	free(c.out);
	viewer_release(&c);
}

static int setup(void)
{
	char vm[96], path[192];
	FILE *f;

	snprintf(store, sizeof(store), "/tmp/test_live_viewer.%d",
		 (int)getpid());
	snprintf(vm, sizeof(vm), "%s/vm0", store);
	snprintf(sess, sizeof(sess), "%s/S1", vm);
	if (mkdir(store, 0700) || mkdir(vm, 0700) || mkdir(sess, 0700))
		return -1;
	snprintf(path, sizeof(path), "%s/metadata", sess);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("/* CTF 1.8 */\n", f);
	fclose(f);
	if (viewer_init(store, "testhost"))
		return -1;
	live_registry_enable(true);
	live_session_open("vm0", "S1", 0, 2, HZ, TIMER_US);
	return 0;
}

static int cleanup(void)
{
	char cmd[128];

	live_registry_clear();
	viewer_finish();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", store);
	return system(cmd) ? -1 : 0;
}

static const struct gr_test tests[] = {
	GR_TEST(test_packet_after_a_beacon_begins_at_the_beacon),
	GR_TEST(test_appended_metadata_reaches_the_viewer),
};

int main(void)
{
	return gr_test_main("live_viewer", tests, ARRAY_SIZE(tests), setup,
			    cleanup);
}
