// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ctl.c - the control socket's request decoding
 * (host-agent/control/ctl_proto.c): a request line is split at spaces and
 * each word percent-decoded (ctl_split_request()), and the arguments of
 * the richest command, vm-add, parsed by the one VM option parser
 * (ctl_parse_vm_add(), opts.c), as an unprivileged client can send them.
 * A decoded argument must be a non-empty C string without control
 * characters; an accepted VM must have a valid name.
 *
 * Input: the request line without its LF.
 */
#include "agent.h"
#include "ctl_proto.h"
#include "fuzz.h"
#include "opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[CTL_LINE_MAX + 1], *argv[CTL_MAX_ARGS + 2], err[256];
	struct gr_vm_opts o;
	int argc, n, i;

	if (size > CTL_LINE_MAX)
		return 0;
	memcpy(line, data, size);
	if (ctl_split_request(line, size, argv, &argc, err, sizeof(err))) {
		if (!err[0])
			FUZZ_BUG("a refused request without a reason");
		return 0;
	}
	for (n = 0; n < argc; n++) {
		if (!argv[n][0])
			FUZZ_BUG("an empty argument was decoded");
		for (i = 0; argv[n][i]; i++)
			if ((unsigned char)argv[n][i] < 0x20 ||
			    argv[n][i] == 0x7f)
				FUZZ_BUG("decoded argument holds a control "
					 "character");
	}
	if (ctl_parse_vm_add(&o, argc, argv, 0, err, sizeof(err)))
		return 0;
	if (ctl_check_vm_name(o.name, err, sizeof(err)))
		FUZZ_BUG("vm-add accepted the bad name '%s'", o.name);
	return 0;
}
