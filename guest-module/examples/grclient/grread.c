// SPDX-License-Identifier: GPL-2.0
/*
 * grread.c - the user side of the example: reading guestrelay relay files
 *
 * Kernel relay's user-space interface on a channel of grclient.ko (or any
 * client channel): /sys/kernel/debug/guestrelay/<channel>/<channel><cpu>.
 *
 *   grread read FILE OUT SIZE    poll(), mmap() of the SIZE-byte buffer
 *                                (read-only; a writable map is refused),
 *                                then read() everything into OUT and
 *                                compare its start with the mapping
 *   grread mmap FILE OUT SIZE    poll(), mmap() of the SIZE-byte buffer, each
 *                                finished sub-buffer found with
 *                                GR_RELAY_GET_SUBBUF, copied from the map
 *                                and consumed with GR_RELAY_PUT_SUBBUF
 *                                (kept if PUT says it was not overwritten)
 *   grread sendfile FILE OUT     sendfile() everything into OUT
 *   grread wait FILE SECONDS OUT drain FILE into OUT, poll() until a
 *                                sub-buffer is finished (a flush) or
 *                                SECONDS pass, drain again into OUT
 *
 * Prints one "GR: GRREAD ..." line; exit status 0 when every step worked.
 * Built static by scripts/mkguest.sh into the test guest (/gr/grread).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <time.h>
#include <unistd.h>

#include <guestrelay/relay_file.h>

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags, 0644);

	if (fd < 0) {
		printf("GR: GRREAD open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

static long drain(int fd, int out)
{
	char buf[777];
	long total = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (out >= 0 && write(out, buf, n) != n)
			return -1;
		total += n;
	}
	return n < 0 ? -1 : total;
}

static int cmd_read(const char *file, const char *out_path, size_t size)
{
	int fd = open_or_die(file, O_RDONLY);
	int out = open_or_die(out_path, O_WRONLY | O_CREAT | O_TRUNC);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ready = poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
	void *w = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	unsigned char *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	unsigned char head[3000];
	int refused = w == MAP_FAILED, match = 0;
	long total;

	if (map != MAP_FAILED)
		memcpy(head, map, sizeof(head));
	total = drain(fd, out);
	close(out);
	if (map != MAP_FAILED && total >= (long)sizeof(head)) {
		unsigned char got[sizeof(head)];

		out = open_or_die(out_path, O_RDONLY);
		match = read(out, got, sizeof(got)) == (ssize_t)sizeof(got) &&
			!memcmp(got, head, sizeof(head));
		close(out);
	}
	p.revents = 0;
	printf("GR: GRREAD read poll-ready %d mmap-ro %d mmap-rw-refused %d ",
	       ready, map != MAP_FAILED, refused);
	printf("mmap-matches-read %d bytes %ld poll-after %d\n", match, total,
	       poll(&p, 1, 0));
	return !(ready && map != MAP_FAILED && refused && match && total > 0);
}

/*
 * The mapping read with GR_RELAY_GET_SUBBUF / PUT_SUBBUF: each finished
 * sub-buffer copied from the map, kept only if PUT says it was not
 * overwritten meanwhile
 */
static int cmd_mmap(const char *file, const char *out_path, size_t size)
{
	int fd = open_or_die(file, O_RDONLY);
	int out = open_or_die(out_path, O_WRONLY | O_CREAT | O_TRUNC);
	unsigned char *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	unsigned char *copy = malloc(size);
	long subbufs = 0, stale = 0, total = 0, bad = 0;
	struct gr_relay_subbuf sb = { 0 };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ready = poll(&p, 1, 0) == 1 && (p.revents & POLLIN);

	if (map == MAP_FAILED || !copy) {
		printf("GR: GRREAD mmap %s: %s\n", file, strerror(errno));
		return 1;
	}
	while (!ioctl(fd, GR_RELAY_GET_SUBBUF, &sb)) {
		if (sb.offset > size || sb.bytes > size - sb.offset) {
			bad++;
			break;
		}
		memcpy(copy, map + sb.offset, sb.bytes);
		if (ioctl(fd, GR_RELAY_PUT_SUBBUF, &sb.seq)) {
			if (errno != ESTALE) {
				bad++;
				break;
			}
			stale++;
			continue;
		}
		if (write(out, copy, sb.bytes) != (ssize_t)sb.bytes) {
			bad++;
			break;
		}
		subbufs++;
		total += sb.bytes;
	}
	if (!bad && errno != EAGAIN)
		bad++;
	close(out);
	p.revents = 0;
	printf("GR: GRREAD mmap poll-ready %d subbufs %ld bytes %ld stale %ld ",
	       ready, subbufs, total, stale);
	printf("lost %llu poll-after %d %s\n", (unsigned long long)sb.lost,
	       poll(&p, 1, 0), bad ? "failed" : "ok");
	return bad || !subbufs || !ready;
}

static int cmd_sendfile(const char *file, const char *out_path)
{
	int fd = open_or_die(file, O_RDONLY);
	int out = open_or_die(out_path, O_WRONLY | O_CREAT | O_TRUNC);
	long total = 0;
	ssize_t n;

	while ((n = sendfile(out, fd, NULL, 65536)) > 0)
		total += n;
	printf("GR: GRREAD sendfile bytes %ld %s\n", total,
	       n < 0 ? strerror(errno) : "ok");
	return n < 0 || !total;
}

static int cmd_wait(const char *file, int seconds, const char *out_path)
{
	int fd = open_or_die(file, O_RDONLY);
	int out = open_or_die(out_path, O_WRONLY | O_CREAT | O_TRUNC);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec t0, t1;
	int ret;

	drain(fd, out);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = poll(&p, 1, seconds * 1000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("GR: GRREAD wait woken %d after-ms %ld bytes %ld\n",
	       ret == 1 && (p.revents & POLLIN),
	       (t1.tv_sec - t0.tv_sec) * 1000 +
	       (t1.tv_nsec - t0.tv_nsec) / 1000000, drain(fd, out));
	return ret != 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "read"))
		return cmd_read(argv[2], argv[3], strtoul(argv[4], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "mmap"))
		return cmd_mmap(argv[2], argv[3], strtoul(argv[4], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "sendfile"))
		return cmd_sendfile(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "wait"))
		return cmd_wait(argv[2], atoi(argv[3]), argv[4]);
	fprintf(stderr, "usage: grread read FILE OUT SIZE | %s\n",
		"mmap FILE OUT SIZE | sendfile FILE OUT | wait FILE SECONDS OUT");
	return 2;
}
