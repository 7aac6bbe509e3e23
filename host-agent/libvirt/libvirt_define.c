// SPDX-License-Identifier: GPL-2.0
/*
 * libvirt_define.c - changes to a domain's XML: the <metadata> element
 * and <shmem> device that `guestrelay libvirt-xml` prints and
 * `guestrelay libvirt-define` writes into a defined domain (virsh
 * dumpxml, edit with libxml2, virsh define), and the command-line
 * settings of that element. Runs virsh; never used by the hook.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "agent.h"
#include "libvirt.h"
#include "libvirt_meta.h"
#include "opts.h"

/* ---- the command-line side ------------------------------------------- */

int gr_libvirt_take_opts(int *argc, char **argv, struct gr_libvirt_meta *m,
			 bool *metadata, bool force, const char **connect,
			 char *err, size_t errlen)
{
	const char *first = NULL, *val, *eq;
	bool with = force, dashdash = false;
	int i, j, out = 0, attr;
	size_t len;

	memset(m, 0, sizeof(*m));
	*metadata = false;
	for (i = 0; i < *argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--metadata"))
			with = *metadata = true;
	for (i = 0; i < *argc; i++) {
		char *arg = argv[i];

		if (dashdash || strncmp(arg, "--", 2)) {
			argv[out++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			dashdash = true;
			argv[out++] = arg;
			continue;
		}
		if (!strcmp(arg, "--metadata"))
			continue;
		if (!strcmp(arg, "--required")) {
			m->required = m->any = true;
			first = first ? first : arg;
			continue;
		}
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		/* spec 17: --hist and --hist-latency become <gr:hist> */
		if ((len == 6 && !strncmp(arg, "--hist", 6)) ||
		    (len == 14 && !strncmp(arg, "--hist-latency", 14))) {
			if (!eq && i + 1 == *argc) {
				ctl_set_err(err, errlen, "%.*s needs a value",
					(int)len, arg);
				return -EINVAL;
			}
			if (m->nr_hist == GR_HIST_REQS) {
				ctl_set_err(err, errlen, "at most %d --hist",
					GR_HIST_REQS);
				return -EINVAL;
			}
			m->hist_latency[m->nr_hist] = len == 14;
			m->hist[m->nr_hist++] = eq ? eq + 1 : argv[++i];
			m->any = true;
			first = first ? first : arg;
			continue;
		}
		attr = -1;
		for (j = 0; j < GR_META_NR; j++)
			if (strlen(gr_meta_attr[j]) == len - 2 &&
			    !strncmp(arg + 2, gr_meta_attr[j], len - 2))
				attr = j;
		if (attr == GR_META_SIZE && !with)
			attr = -1;	/* plain --size of libvirt-xml */
		if (attr < 0 && !(connect && len == 9 &&
				  !strncmp(arg, "--connect", 9))) {
			argv[out++] = arg;
			continue;
		}
		if (eq) {
			val = eq + 1;
		} else if (i + 1 < *argc) {
			val = argv[++i];
		} else {
			ctl_set_err(err, errlen, "%.*s needs a value", (int)len,
				arg);
			return -EINVAL;
		}
		if (attr < 0) {
			*connect = val;
			continue;
		}
		m->val[attr] = val;
		m->any = true;
		first = first ? first : arg;
	}
	*argc = out;
	argv[out] = NULL;
	if (!with && m->any) {
		ctl_set_err(err, errlen, "%s is a setting of the <metadata> "
			"element: add --metadata", first);
		return -EINVAL;
	}
	return with ? gr_libvirt_meta_check(m, err, errlen) : 0;
}

int gr_libvirt_metadata_xml(const struct gr_libvirt_meta *m, char **out)
{
	xmlNodePtr md = xmlNewNode(NULL, BAD_CAST "metadata"), n;
	xmlBufferPtr buf = xmlBufferCreate();
	int ret = -ENOMEM;

	n = gr_meta_node(m);
	if (!md || !buf || !n) {
		xmlFreeNode(n);
		goto out;
	}
	xmlAddChild(md, n);
	if (xmlNodeDump(buf, NULL, md, 0, 1) < 0)
		goto out;
	if (asprintf(out, "%s\n", (const char *)xmlBufferContent(buf)) < 0)
		goto out;
	ret = 0;
out:
	xmlBufferFree(buf);
	xmlFreeNode(md);
	return ret;
}

/* ---- libvirt-define ----------------------------------------------------- */

/* run @av (virsh); its stdout into *@out if @out; return its exit status */
static int run_cmd(char *const av[], char **out, size_t *outlen)
{
	int pfd[2] = { -1, -1 }, st;
	size_t len = 0, cap = 0;
	char *buf = NULL, *p;
	pid_t pid;
	ssize_t n;

	if (out && pipe2(pfd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (out && dup2(pfd[1], 1) < 0)
			_exit(127);
		execvp(av[0], av);
		fprintf(stderr, "guestrelay: cannot run %s: %s\n", av[0],
			strerror(errno));
		_exit(127);
	}
	if (out) {
		close(pfd[1]);
		for (;;) {
			if (len + 4096 > cap) {
				cap = cap ? 2 * cap : 65536;
				p = cap > GR_HOOK_XML_MAX * 4 ? NULL :
					realloc(buf, cap + 1);
				if (!p)
					break;
				buf = p;
			}
			n = read(pfd[0], buf + len, cap - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			len += (size_t)n;
		}
		close(pfd[0]);
		if (buf)
			buf[len] = '\0';
		*out = buf;
		*outlen = len;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* the child element @name of @parent, made if there is none */
static xmlNodePtr child_or_new(xmlNodePtr parent, const char *name)
{
	xmlNodePtr c = gr_xml_child(parent, name);

	return c ? c : xmlNewChild(parent, NULL, BAD_CAST name, NULL);
}

/* drop our element and our device (<shmem name='@shm_name'>) */
static void remove_ours(xmlNodePtr parent, const char *shm_name)
{
	xmlNodePtr c, next;

	for (c = parent->children; c; c = next) {
		next = c->next;
		if (gr_xml_is_ours(c) || gr_xml_is_our_shmem(c, shm_name)) {
			xmlUnlinkNode(c);
			xmlFreeNode(c);
		}
	}
}

/* put our metadata and device into the domain @doc */
static int edit_domain(xmlDocPtr doc, const char *domain,
		       const struct gr_libvirt_meta *m, const char *shmem_xml,
		       char *err, size_t errlen)
{
	xmlNodePtr root = xmlDocGetRootElement(doc), md, dev, n;
	char shm_name[GR_VM_NAME_MAX + 16];
	xmlDocPtr frag;

	if (!root || !gr_xml_is_elem(root, "domain")) {
		ctl_set_err(err, errlen, "virsh dumpxml gave no <domain>");
		return -EINVAL;
	}
	snprintf(shm_name, sizeof(shm_name), GR_SHM_PREFIX "%s", domain);
	md = child_or_new(root, "metadata");
	dev = child_or_new(root, "devices");
	if (!md || !dev)
		return -ENOMEM;
	remove_ours(md, shm_name);
	remove_ours(dev, shm_name);
	n = gr_meta_node(m);
	if (!n || !xmlAddChild(md, n)) {
		xmlFreeNode(n);
		return -ENOMEM;
	}
	xmlReconciliateNs(doc, n);
	frag = xmlReadMemory(shmem_xml, (int)strlen(shmem_xml), "shmem.xml",
			     NULL, XML_PARSE_NONET | XML_PARSE_NOBLANKS);
	if (!frag || !xmlDocGetRootElement(frag)) {
		xmlFreeDoc(frag);
		ctl_set_err(err, errlen, "internal error: bad <shmem> element");
		return -EINVAL;
	}
	n = xmlDocCopyNode(xmlDocGetRootElement(frag), doc, 1);
	xmlFreeDoc(frag);
	if (!n || !xmlAddChild(dev, n)) {
		xmlFreeNode(n);
		return -ENOMEM;
	}
	return 0;
}

/* "virsh [-c URI]" into @av; the number of words */
static int virsh_argv(char **av, const char *uri)
{
	int n = 0;

	av[n++] = "virsh";
	if (uri) {
		av[n++] = "-c";
		av[n++] = (char *)uri;
	}
	return n;
}

int gr_libvirt_define(const char *uri, const char *domain,
		      const struct gr_libvirt_meta *m, const char *shmem_xml)
{
	char tmpl[] = "/tmp/guestrelay-define-XXXXXX", err[512] = "";
	char *av[10], *xml = NULL;
	int n, ret = 1, fd = -1, st;
	xmlDocPtr doc = NULL;
	size_t len = 0;
	FILE *f;

	n = virsh_argv(av, uri);
	av[n++] = "dumpxml";
	av[n++] = "--inactive";
	av[n++] = "--security-info";
	av[n++] = "--";
	av[n++] = (char *)domain;
	av[n] = NULL;
	st = run_cmd(av, &xml, &len);
	if (st) {
		fprintf(stderr, "guestrelay: virsh dumpxml %s failed (exit "
			"%d)\n", domain, st);
		goto out;
	}
	if (!xml || len > GR_HOOK_XML_MAX) {
		fprintf(stderr, "guestrelay: no usable output from virsh "
			"dumpxml %s\n", domain);
		goto out;
	}
	doc = xmlReadMemory(xml, (int)len, "domain.xml", NULL,
			    XML_PARSE_NONET);
	if (!doc || edit_domain(doc, domain, m, shmem_xml, err,
				sizeof(err))) {
		fprintf(stderr, "guestrelay: cannot edit the XML of %s: %s\n",
			domain, *err ? err : "not well-formed");
		goto out;
	}
	fd = mkstemp(tmpl);
	if (fd < 0) {
		fprintf(stderr, "guestrelay: cannot create %s: %s\n", tmpl,
			strerror(errno));
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f || xmlDocFormatDump(f, doc, 1) < 0 || fclose(f)) {
		fprintf(stderr, "guestrelay: cannot write %s\n", tmpl);
		if (!f)
			close(fd);
		goto out_unlink;
	}
	n = virsh_argv(av, uri);
	av[n++] = "define";
	av[n++] = "--";
	av[n++] = tmpl;
	av[n] = NULL;
	st = run_cmd(av, NULL, NULL);
	if (st) {
		fprintf(stderr, "guestrelay: virsh define failed (exit %d); "
			"the domain is unchanged\n", st);
		goto out_unlink;
	}
	printf("%s: guestrelay metadata and device %s%s defined; they take "
	       "effect at the next start of the domain\n", domain,
	       GR_SHM_PREFIX, domain);
	ret = 0;
out_unlink:
	unlink(tmpl);
out:
	xmlFreeDoc(doc);
	free(xml);
	return ret;
}
