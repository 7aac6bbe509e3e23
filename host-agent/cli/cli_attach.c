// SPDX-License-Identifier: GPL-2.0
/*
 * cli_attach.c - the commands that attach a VM's device, without an
 * agent: qemu-args, libvirt-xml, libvirt-define and the libvirt hook
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli_attach.h"
#include "ctl_proto.h"
#include "ivshmem_proto.h"
#include "libvirt.h"
#include "opts.h"
#include "out.h"
#include "qemu_args.h"
#include "shm.h"

/* the attach arguments of qemu-args and libvirt-xml */
static int attach_args(struct cli *cli, const struct cli_cmd *cmd, int argc,
		       char **argv, struct ivsh_attach *at, char *name,
		       size_t nlen, char *sock, size_t slen)
{
	const char *size = NULL, *vectors = NULL, *id = NULL;
	char dir[PATH_MAX], *pos[1], *end;
	bool plain = false;
	const struct cli_opt opts[] = {
		{ "--plain", NULL, &plain },
		{ "--size", &size, NULL },
		{ "--vectors", &vectors, NULL },
		{ "--id", &id, NULL },
		{ NULL, NULL, NULL },
	};
	unsigned long v;
	int n, ret;

	ret = parse_args(cmd, argc, argv, opts, pos, 1, 1, &n);
	if (!ret)
		ret = check_vm(cmd, pos[0]);
	if (ret)
		return ret;
	memset(at, 0, sizeof(*at));
	at->id = id;
	snprintf(name, nlen, "%s%s", GR_SHM_PREFIX, pos[0]);
	at->name = name;
	if (plain) {
		if (vectors)
			return usage_err(cmd, "--vectors is for the doorbell "
					 "device, not --plain");
		at->model = IVSH_MODEL_PLAIN;
		at->size = GR_DEFAULT_SHM_SIZE;
		if (size && (ctl_parse_size(size, &at->size) ||
			     ivsh_shm_check_size(at->size)))
			return usage_err(cmd, "--size must be a power of two "
					 "from 64K to 1T (e.g. 16M), not "
					 "'%s'", size);
		return 0;
	}
	if (size)
		return usage_err(cmd, "--size is for --plain; QEMU takes the "
				 "size of a doorbell device from the agent");
	at->model = IVSH_MODEL_DOORBELL;
	at->ioeventfd = true;
	at->vectors = GR_NR_VECTORS;
	if (vectors) {
		errno = 0;
		v = strtoul(vectors, &end, 10);
		if (errno || *end || end == vectors || v < GR_NR_VECTORS ||
		    v > IVSH_MAX_VECTORS)
			return usage_err(cmd, "--vectors must be from %d to "
					 "%d, not '%s'", GR_NR_VECTORS,
					 IVSH_MAX_VECTORS, vectors);
		at->vectors = (unsigned int)v;
	}
	/* QEMU and libvirt need an absolute socket path */
	if (cli->run_dir[0] != '/') {
		if (!getcwd(dir, sizeof(dir))) {
			cli_err("cannot get the current directory: %s",
				strerror(errno));
			return 1;
		}
		if ((size_t)snprintf(sock, slen, "%s/%s/%s.sock", dir,
				     cli->run_dir, pos[0]) >= slen)
			goto too_long;
	} else if ((size_t)snprintf(sock, slen, "%s/%s.sock", cli->run_dir,
				    pos[0]) >= slen) {
		goto too_long;
	}
	if (strlen(sock) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		goto too_long;
	at->sock_path = sock;
	return 0;
too_long:
	cli_err("the socket path of %s under %s is too long for a UNIX "
		"socket", pos[0], cli->run_dir);
	return 1;
}

static int attach_err(const struct cli_cmd *cmd, int ret)
{
	if (ret == -EINVAL)
		return usage_err(cmd, "QEMU would not accept these values "
				 "(check --id: a letter, then letters, "
				 "digits, '.', '-', '_')");
	cli_err("%s failed: %s", cmd->name, strerror(-ret));
	return 1;
}

int cli_run_qemu_args(struct cli *cli, const struct cli_cmd *cmd,
			 int argc, char **argv)
{
	char name[GR_VM_NAME_MAX + 32], sock[PATH_MAX + 128], *line = NULL;
	char **av = NULL;
	struct ivsh_attach at;
	struct ctl_json j;
	int i, ret;

	ret = attach_args(cli, cmd, argc, argv, &at, name, sizeof(name),
			  sock, sizeof(sock));
	if (ret)
		return ret;
	ret = ivsh_qemu_cmdline(&at, &line);
	if (!ret && cli->json)
		ret = ivsh_qemu_argv(&at, &av) < 0 ? -EINVAL : 0;
	if (ret) {
		free(line);
		return attach_err(cmd, ret);
	}
	if (cli->json) {
		ctl_json_init(&j, stdout);
		ctl_json_begin_object(&j, NULL);
		ctl_json_string(&j, "vm", name + strlen(GR_SHM_PREFIX));
		ctl_json_string(&j, "device", at.model == IVSH_MODEL_PLAIN ?
				"plain" : "doorbell");
		ctl_json_begin_array(&j, "args");
		for (i = 0; av[i]; i++)
			ctl_json_string(&j, NULL, av[i]);
		ctl_json_end_array(&j);
		ctl_json_string(&j, "cmdline", line);
		ctl_json_end_object(&j);
		ctl_json_finish(&j);
	} else {
		printf("%s\n", line);
	}
	ivsh_argv_free(av);
	free(line);
	if (fflush(stdout) || ferror(stdout)) {
		cli_err("writing the output: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/* libvirt-xml and libvirt-define: <shmem> and, with @meta, <metadata> */
static int libvirt_parts(struct cli *cli, const struct cli_cmd *cmd,
			 int *argc, char **argv, bool force, const char **uri,
			 struct gr_libvirt_meta *meta, char *name, bool *plain,
			 char **xml, char **mxml)
{
	char sock[PATH_MAX + 128], err[512];
	struct ivsh_attach at;
	bool with_meta;
	int ret;

	*xml = *mxml = NULL;
	if (gr_libvirt_take_opts(argc, argv, meta, &with_meta, force, uri,
				 err, sizeof(err)))
		return usage_err(cmd, "%s", err);
	ret = attach_args(cli, cmd, *argc, argv, &at, name,
			  GR_VM_NAME_MAX + 32, sock, sizeof(sock));
	if (ret)
		return ret;
	*plain = at.model == IVSH_MODEL_PLAIN;
	if (meta->val[GR_META_SIZE] && *plain)
		ctl_parse_size(meta->val[GR_META_SIZE], &at.size);
	ret = ivsh_libvirt_xml(&at, xml);
	if (ret)
		return attach_err(cmd, ret);
	if ((with_meta || force) && gr_libvirt_metadata_xml(meta, mxml)) {
		cli_err("out of memory");
		return 1;
	}
	return 0;
}

int cli_run_libvirt_define(struct cli *cli, const struct cli_cmd *cmd,
			      int argc, char **argv)
{
	char name[GR_VM_NAME_MAX + 32], *xml, *mxml;
	struct gr_libvirt_meta meta;
	const char *uri = NULL;
	bool plain;
	int ret;

	ret = libvirt_parts(cli, cmd, &argc, argv, true, &uri, &meta, name,
			    &plain, &xml, &mxml);
	if (!ret)
		ret = gr_libvirt_define(uri, name + strlen(GR_SHM_PREFIX),
					&meta, xml);
	free(xml);
	free(mxml);
	return ret;
}

int cli_run_libvirt_hook(struct cli *cli, const struct cli_cmd *cmd,
			    int argc, char **argv)
{
	(void)cmd;
	return gr_libvirt_hook(cli->run_dir, argc, argv);
}

int cli_run_libvirt_xml(struct cli *cli, const struct cli_cmd *cmd,
			   int argc, char **argv)
{
	char name[GR_VM_NAME_MAX + 32], *xml = NULL, *mxml = NULL;
	struct gr_libvirt_meta meta;
	struct ctl_json j;
	bool plain;
	int ret;

	ret = libvirt_parts(cli, cmd, &argc, argv, false, NULL, &meta, name,
			    &plain, &xml, &mxml);
	if (ret) {
		free(xml);
		free(mxml);
		return ret;
	}
	if (cli->json) {
		ctl_json_init(&j, stdout);
		ctl_json_begin_object(&j, NULL);
		ctl_json_string(&j, "vm", name + strlen(GR_SHM_PREFIX));
		ctl_json_string(&j, "device", plain ?
				"plain" : "doorbell");
		ctl_json_string(&j, "xml", xml);
		if (mxml)
			ctl_json_string(&j, "metadata", mxml);
		ctl_json_end_object(&j);
		ctl_json_finish(&j);
	} else if (mxml) {
		printf("<!-- under <domain>: -->\n%s<!-- under <devices>: -->"
		       "\n%s", mxml, xml);
	} else {
		fputs(xml, stdout);
	}
	free(xml);
	free(mxml);
	if (fflush(stdout) || ferror(stdout)) {
		cli_err("writing the output: %s", strerror(errno));
		return 1;
	}
	return 0;
}
