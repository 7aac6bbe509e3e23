// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_report.c - `guestrelay report` over a damaged trace directory
 * (host-agent/trace/report.c): the hidden .guestrelay file, metadata and
 * a stream file, all from the input, in a directory on tmpfs.
 *
 * Input: u32 length and bytes of .guestrelay, u32 length and bytes of
 * metadata, then the rest as stream_0. Both the event listing and the
 * summary run over it; the output goes to /dev/null.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "report.h"

static char dir[64];

static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		FUZZ_BUG("cannot create %s", path);
	if (n && write(fd, p, n) != (ssize_t)n)
		FUZZ_BUG("cannot write %s", path);
	close(fd);
}

static size_t part(const uint8_t **d, size_t *left)
{
	uint32_t n = 0;

	if (fuzz_take(d, left, &n, sizeof(n)))
		return (size_t)-1;
	n = le32toh(n);
	return n <= *left ? n : *left;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	size_t n;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/dev/shm/fuzz_report.%d",
			 (int)getpid());
		null = fopen("/dev/null", "w");
		if (!null)
			FUZZ_BUG("no /dev/null");
	}
	/* again each time: a clean-up beside this run may have removed it */
	if (mkdir(dir, 0755) && errno != EEXIST)
		FUZZ_BUG("cannot create %s", dir);
	n = part(&data, &size);
	if (n == (size_t)-1)
		return 0;
	put(".guestrelay", data, n);
	data += n;
	size -= n;
	n = part(&data, &size);
	if (n == (size_t)-1)
		return 0;
	put("metadata", data, n);
	data += n;
	size -= n;
	put("stream_0", data, size);
	gr_report(dir, null, null, NULL);
	gr_report_summary(dir, null, null);
	return 0;
}
