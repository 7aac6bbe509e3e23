// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_region.c - a guest's publication: the region header and the
 * descriptor table, read and validated as the agent does
 * (host-agent/region/validate.c), then turned into CTF metadata
 * (host-agent/trace/ctf.c) when the validator accepted them.
 *
 * Input: the 512-byte struct gr_region_hdr, then descriptors of 576
 * bytes, as many as the input holds (up to desc_count), each followed
 * by its 776-byte struct gr_event_desc_ext when the header has
 * GR_F_LONG_DESC (v1.15, spec 20: the agent copies and checks the two
 * together, gr_check_desc_slot()); the region is
 * taken to be GR_MIN_REGION_SIZE << (last header byte % 12) large, so the
 * size checks see both fits and misfits.
 *
 * What the validator accepts, the CTF writer must express: a refusal by
 * gr_ctf_metadata() of an accepted view is a finding. With FUZZ_METADATA_DIR
 * set, the metadata of every accepted input is written there (one file per
 * input), for the babeltrace2 check of tests/fuzz/bt_metadata.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "ctf.h"
#include "fuzz.h"
#include "validate.h"

static void dump(const char *text, size_t len)
{
	static unsigned long n;
	const char *dir = getenv("FUZZ_METADATA_DIR");
	char path[4096];
	int fd;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/metadata.%d.%lu", dir, (int)getpid(),
		 n++);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, text, len) != (ssize_t)len)
		unlink(path);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gr_event_view ev[GR_WIDE_MAX_EVENTS];
	struct gr_ctf_env env = { .vm_name = "fuzz", .host_name = "host",
				  .session = "s" };
	struct gr_region_hdr hdr;
	struct gr_event_desc_long d;
	uint64_t real;
	struct gr_view v;
	const char *why = NULL;
	unsigned int i, n = 0;
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (fuzz_take(&data, &size, &hdr, sizeof(hdr)))
		return 0;
	/* the last reserved byte (ignored by the host) picks the size */
	real = (uint64_t)GR_MIN_REGION_SIZE << (((const uint8_t *)&hdr)[511] % 12);
	if (gr_check_region_hdr(&hdr, real, &v, &why)) {
		if (!why)
			FUZZ_BUG("a rejected header without a reason");
		return 0;
	}
	for (i = 0; i < v.desc_count; i++) {
		memset(&d, 0, sizeof(d));
		if (fuzz_take(&data, &size, &d.desc, sizeof(d.desc)) ||
		    ((v.features & GR_F_LONG_DESC) &&
		     fuzz_take(&data, &size, &d.ext, sizeof(d.ext))))
			return 0;
		why = NULL;
		if (gr_check_desc_slot(&v, &d, i, &ev[i], &why)) {
			if (!why)
				FUZZ_BUG("a rejected descriptor without a reason");
			return 0;
		}
		n++;
	}
	if (gr_check_event_names(ev, n, &why) ||
	    gr_check_families(&v, ev, n, &why))
		return 0;
	ret = gr_ctf_metadata(&v, ev, n, &env, NULL, &text, &len);
	if (ret)
		FUZZ_BUG("accepted layout, but gr_ctf_metadata() = %d", ret);
	if (!len || strncmp(text, "/* CTF 1.8 */", 13))
		FUZZ_BUG("metadata does not start with the CTF 1.8 marker");
	dump(text, len);
	free(text);
	return 0;
}
