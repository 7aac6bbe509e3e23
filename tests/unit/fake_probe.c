// SPDX-License-Identifier: GPL-2.0
/*
 * fake_probe.c - the probe functions of agent.h (vm_probes.c, spec 18.4)
 * doubled for the control plane's test bench (tests/lib/fake_agent.c):
 * the fake VMs take no probes; the last request is kept for the test
 * (fake_probe_last), and every fake VM lists one probe
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fake_agent.h"

char fake_probe_last[GR_NAME_REQ_TEXT + 1];

int vm_probe(struct gr_vm *vm, const char *def, gr_done_fn done, void *arg,
	     char *err, size_t errlen)
{
	(void)done;
	(void)arg;
	snprintf(fake_probe_last, sizeof(fake_probe_last), "%s", def);
	snprintf(err, errlen, "the guest of %s takes no probes from the host",
		 vm->opts.name);
	return -EOPNOTSUPP;
}

unsigned int vm_probe_list(struct gr_vm *vm, struct gr_probe_info *out,
			   unsigned int max)
{
	(void)vm;
	if (!max)
		return 1;
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "myopen");
	snprintf(out->def, sizeof(out->def), "p:myopen do_sys_openat2");
	out->id = 33;
	out->state = "recording";
	return 1;
}
