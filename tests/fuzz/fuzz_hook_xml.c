// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_hook_xml.c - the libvirt hook's reading of a domain's XML
 * (host-agent/libvirt/libvirt_hook.c, compiled in here to reach its
 * static parser): what libvirtd pipes to the hook is written by whoever defined
 * the domain. parse_domain() must refuse or accept without harm, and an
 * accepted opt-in's settings go through the one VM option parser.
 *
 * Input: the XML bytes; the domain is called "dom".
 */
#include "fuzz.h"
#include "libvirt_hook.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gr_libvirt_meta m;
	struct gr_vm_opts o;
	struct hook_dom d;
	char err[256];
	int i;

	if (size > GR_HOOK_XML_MAX)
		return 0;
	err[0] = '\0';
	if (parse_domain((const char *)data, size, "dom", &d, err,
			 sizeof(err))) {
		if (!err[0])
			FUZZ_BUG("a refused domain XML without a reason");
		hook_dom_free(&d);
		return 0;
	}
	if (d.ours) {
		memset(&m, 0, sizeof(m));
		for (i = 0; i < GR_META_NR; i++)
			m.val[i] = (const char *)d.meta.val[i];
		if (!gr_meta_to_opts(&m, "dom", &o, err, sizeof(err)) &&
		    strcmp(o.name, "dom"))
			FUZZ_BUG("the VM got another name: '%s'", o.name);
	}
	hook_dom_free(&d);
	return 0;
}
