// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ctl.c - the control socket's request decoding
 * (host-agent/control/ctl.c): a request line is split at spaces, each
 * argument percent-decoded (ctl_decode_arg()), and the arguments of the
 * richest command, vm-add, parsed by the one VM option parser
 * (ctl_parse_vm_add()), as an unprivileged client can send them. A
 * decoded argument must be a C string without control characters; an
 * accepted VM must have a valid name.
 *
 * Input: the request line (as after the length prefix of the wire).
 */
#include "agent.h"
#include "ctl_proto.h"
#include "fuzz.h"

#define MAX_LINE	8192

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[MAX_LINE + 1], *argv[CTL_MAX_ARGS + 2], *p, *sp, err[256];
	struct gr_vm_opts o;
	int argc = 0, i;

	if (size > MAX_LINE || memchr(data, '\0', size))
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	for (p = line; argc < CTL_MAX_ARGS + 2; p = sp + 1) {
		sp = strchr(p, ' ');
		if (sp)
			*sp = '\0';
		if (ctl_decode_arg(p))
			return 0;
		for (i = 0; p[i]; i++)
			if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
				FUZZ_BUG("decoded argument holds a control character");
		if (!*p)
			FUZZ_BUG("an empty argument was decoded");
		argv[argc++] = p;
		if (!sp)
			break;
	}
	if (ctl_parse_vm_add(&o, argc, argv, 0, err, sizeof(err)))
		return 0;
	if (ctl_check_vm_name(o.name, err, sizeof(err)))
		FUZZ_BUG("vm-add accepted the bad name '%s'", o.name);
	return 0;
}
