// SPDX-License-Identifier: GPL-2.0
/*
 * libvirt.c - the libvirt side of guestrelay: the opt-in <metadata>
 * element, `guestrelay libvirt-define` and the qemu hook.
 *
 * The hook runs inside libvirtd's start and stop paths: libvirt waits for
 * it without a time limit and holds the domain's lock meanwhile. So the
 * hook reads its standard input to the end (libvirt writes the domain XML
 * there), returns at once for a domain without our metadata, talks only to
 * the agent's control socket (never to libvirt: that would deadlock),
 * bounds every request by a socket timeout and all of them together by
 * GR_HOOK_BUDGET_MS, starts no process and writes nothing to standard
 * output (for "migrate" and "restore" libvirt would take it for a new
 * domain XML).
 *
 * The domain XML is parsed with libxml2, as libvirt itself does, without
 * network access, DTD loading or entity substitution; a document with a
 * DOCTYPE is refused. Our element is found by its namespace URI, whatever
 * its prefix, and its attributes are checked by the same code as the
 * options of `guestrelay vm-add` (ctl_parse_vm_add()).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "agent.h"
#include "ctl_proto.h"
#include "libvirt.h"
#include "opts.h"

static const char *const meta_attr[GR_META_NR] = {
	[GR_META_EVENTS] = "events",
	[GR_META_MODE] = "mode",
	[GR_META_SIZE] = "size",
	[GR_META_SUBBUF_SIZE] = "subbuf-size",
	[GR_META_SUBBUFS] = "subbufs",
	[GR_META_SWITCH_TIMER] = "switch-timer-ms",
	[GR_META_QUOTA] = "quota",
	[GR_META_VERIFY] = "verify",
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* the settings of @m for VM @name as vm-add options, parsed by ctl.c */
static int meta_to_opts(const struct gr_libvirt_meta *m, const char *name,
			struct gr_vm_opts *o, char *err, size_t errlen)
{
	char opt[GR_META_NR][24], *av[2 * GR_META_NR + 1];
	int i, n = 0;

	av[n++] = (char *)name;
	for (i = 0; i < GR_META_NR; i++) {
		if (!m->val[i])
			continue;
		if (!*m->val[i]) {
			set_err(err, errlen, "%s is empty", meta_attr[i]);
			return -EINVAL;
		}
		snprintf(opt[i], sizeof(opt[i]), "--%s", meta_attr[i]);
		av[n++] = opt[i];
		av[n++] = (char *)m->val[i];
	}
	return ctl_parse_vm_add(o, n, av, 0, err, errlen);
}

int gr_libvirt_meta_check(const struct gr_libvirt_meta *m, char *err,
			  size_t errlen)
{
	struct gr_vm_opts o;

	return meta_to_opts(m, "vm", &o, err, errlen);
}

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
		attr = -1;
		for (j = 0; j < GR_META_NR; j++)
			if (strlen(meta_attr[j]) == len - 2 &&
			    !strncmp(arg + 2, meta_attr[j], len - 2))
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
			set_err(err, errlen, "%.*s needs a value", (int)len,
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
		set_err(err, errlen, "%s is a setting of the <metadata> "
			"element: add --metadata", first);
		return -EINVAL;
	}
	return with ? gr_libvirt_meta_check(m, err, errlen) : 0;
}

/* <gr:guestrelay .../> with @m's attributes */
static xmlNodePtr meta_node(const struct gr_libvirt_meta *m)
{
	xmlNodePtr n = xmlNewNode(NULL, BAD_CAST GR_XML_ELEMENT);
	xmlNsPtr ns;
	int i;

	if (!n)
		return NULL;
	ns = xmlNewNs(n, BAD_CAST GR_XMLNS_URI, BAD_CAST GR_XMLNS_PREFIX);
	if (!ns)
		goto fail;
	xmlSetNs(n, ns);
	for (i = 0; i < GR_META_NR; i++)
		if (m->val[i] && !xmlNewProp(n, BAD_CAST meta_attr[i],
					     BAD_CAST m->val[i]))
			goto fail;
	if (!xmlNewProp(n, BAD_CAST "required",
			BAD_CAST(m->required ? "yes" : "no")))
		goto fail;
	return n;
fail:
	xmlFreeNode(n);
	return NULL;
}

int gr_libvirt_metadata_xml(const struct gr_libvirt_meta *m, char **out)
{
	xmlNodePtr md = xmlNewNode(NULL, BAD_CAST "metadata"), n;
	xmlBufferPtr buf = xmlBufferCreate();
	int ret = -ENOMEM;

	n = meta_node(m);
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

static bool is_elem(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !n->ns &&
	       !strcmp((const char *)n->name, name);
}

static bool is_ours(xmlNodePtr n)
{
	return n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
	       !strcmp((const char *)n->ns->href, GR_XMLNS_URI) &&
	       !strcmp((const char *)n->name, GR_XML_ELEMENT);
}

static xmlNodePtr child(xmlNodePtr parent, const char *name)
{
	xmlNodePtr c;

	for (c = parent->children; c; c = c->next)
		if (is_elem(c, name))
			return c;
	return NULL;
}

/* is @n the <shmem> of our device for @shm_name */
static bool is_our_shmem(xmlNodePtr n, const char *shm_name)
{
	xmlChar *name;
	bool ret;

	if (!is_elem(n, "shmem"))
		return false;
	name = xmlGetNoNsProp(n, BAD_CAST "name");
	ret = name && !strcmp((const char *)name, shm_name);
	xmlFree(name);
	return ret;
}

/* put our metadata and device into the domain @doc */
static int edit_domain(xmlDocPtr doc, const char *domain,
		       const struct gr_libvirt_meta *m, const char *shmem_xml,
		       char *err, size_t errlen)
{
	xmlNodePtr root = xmlDocGetRootElement(doc), md, dev, c, next, n;
	char shm_name[GR_VM_NAME_MAX + 16];
	xmlDocPtr frag;

	if (!root || !is_elem(root, "domain")) {
		set_err(err, errlen, "virsh dumpxml gave no <domain>");
		return -EINVAL;
	}
	snprintf(shm_name, sizeof(shm_name), GR_SHM_PREFIX "%s", domain);
	md = child(root, "metadata");
	if (!md) {
		md = xmlNewChild(root, NULL, BAD_CAST "metadata", NULL);
		if (!md)
			return -ENOMEM;
	}
	for (c = md->children; c; c = next) {
		next = c->next;
		if (is_ours(c)) {
			xmlUnlinkNode(c);
			xmlFreeNode(c);
		}
	}
	n = meta_node(m);
	if (!n || !xmlAddChild(md, n)) {
		xmlFreeNode(n);
		return -ENOMEM;
	}
	xmlReconciliateNs(doc, n);

	dev = child(root, "devices");
	if (!dev) {
		dev = xmlNewChild(root, NULL, BAD_CAST "devices", NULL);
		if (!dev)
			return -ENOMEM;
	}
	for (c = dev->children; c; c = next) {
		next = c->next;
		if (is_our_shmem(c, shm_name)) {
			xmlUnlinkNode(c);
			xmlFreeNode(c);
		}
	}
	frag = xmlReadMemory(shmem_xml, (int)strlen(shmem_xml), "shmem.xml",
			     NULL, XML_PARSE_NONET | XML_PARSE_NOBLANKS);
	if (!frag || !xmlDocGetRootElement(frag)) {
		xmlFreeDoc(frag);
		set_err(err, errlen, "internal error: bad <shmem> element");
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

int gr_libvirt_define(const char *uri, const char *domain,
		      const struct gr_libvirt_meta *m, const char *shmem_xml)
{
	char tmpl[] = "/tmp/guestrelay-define-XXXXXX", err[512] = "";
	char *av[10], *xml = NULL;
	int n = 0, ret = 1, fd = -1, st;
	xmlDocPtr doc = NULL;
	size_t len = 0;
	FILE *f;

	av[n++] = "virsh";
	if (uri) {
		av[n++] = "-c";
		av[n++] = (char *)uri;
	}
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
	n = 0;
	av[n++] = "virsh";
	if (uri) {
		av[n++] = "-c";
		av[n++] = (char *)uri;
	}
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

/* ---- the hook ------------------------------------------------------------ */

/**
 * struct hook - one run of the hook
 * @dom: the domain's name (argv)
 * @op: libvirt's operation ("prepare", "stopped", ...)
 * @subop: "begin", "end", ...
 * @run_dir: the agent's run directory
 * @owner: hook.conf owner= (USER[:GROUP]), "" if not set
 * @group: hook.conf group=, "" if not set
 * @log: hook.conf log= file, "" if not set
 * @timeout: seconds for one request to the agent
 * @conf_required: hook.conf required=yes
 * @t0: start, ms (CLOCK_MONOTONIC)
 * @done: what the hook did, for the log line
 */
struct hook {
	const char *dom, *op, *subop;
	char run_dir[PATH_MAX];
	char owner[256];
	char group[64];
	char log[PATH_MAX];
	unsigned int timeout;
	bool conf_required;
	uint64_t t0;
	char done[1024];
};

/* one line "guestrelay hook: DOM OP SUBOP: what (N ms)" to stderr and log */
static void hook_log(struct hook *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void hook_log(struct hook *h, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "guestrelay hook: %s %s %s: %s\n", h->dom, h->op,
		h->subop, msg);
	if (!h->log[0])
		return;
	f = fopen(h->log, "ae");
	if (!f)
		return;
	fprintf(f, "%s %s %s: %s\n", h->dom, h->op, h->subop, msg);
	fclose(f);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	if (e - s >= 2 && ((*s == '"' && e[-1] == '"') ||
			   (*s == '\'' && e[-1] == '\''))) {
		e[-1] = '\0';
		s++;
	}
	return s;
}

/*
 * KEY = VALUE lines of @path (# comments, optional quotes): call @fn for
 * each; a missing file is no error.
 */
static int read_conf(const char *path, struct hook *h,
		     int (*fn)(struct hook *h, const char *key, char *val,
			       void *arg), void *arg)
{
	char line[1024], *eq, *key;
	int ret = 0, lineno = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		key = trim(line);
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			hook_log(h, "%s:%d: not KEY = VALUE, ignored", path,
				 lineno);
			continue;
		}
		*eq = '\0';
		ret = fn(h, trim(key), trim(eq + 1), arg);
		if (ret)
			break;
	}
	fclose(f);
	return ret;
}

static int hook_conf_key(struct hook *h, const char *key, char *val,
			 void *arg)
{
	const char *path = arg;
	char *end;
	unsigned long v;

	if (!strcmp(key, "run-dir") && *val == '/' &&
	    strlen(val) < sizeof(h->run_dir)) {
		strcpy(h->run_dir, val);
	} else if (!strcmp(key, "required") &&
		   (!strcmp(val, "yes") || !strcmp(val, "no"))) {
		h->conf_required = !strcmp(val, "yes");
	} else if (!strcmp(key, "owner") && *val &&
		   strlen(val) < sizeof(h->owner)) {
		strcpy(h->owner, val);
	} else if (!strcmp(key, "group") && *val &&
		   strlen(val) < sizeof(h->group)) {
		strcpy(h->group, val);
	} else if (!strcmp(key, "log") && *val == '/' &&
		   strlen(val) < sizeof(h->log)) {
		strcpy(h->log, val);
	} else if (!strcmp(key, "timeout")) {
		errno = 0;
		v = strtoul(val, &end, 10);
		if (errno || *end || end == val || !v ||
		    v > GR_HOOK_CALL_TIMEOUT) {
			hook_log(h, "%s: timeout must be 1 to %d seconds, "
				 "not '%s'", path, GR_HOOK_CALL_TIMEOUT, val);
			return 0;
		}
		h->timeout = (unsigned int)v;
	} else {
		hook_log(h, "%s: '%s = %s' ignored (keys: run-dir, required, "
			 "owner, group, log, timeout)", path, key, val);
	}
	return 0;
}

/* user = / group = of qemu.conf: the account QEMU runs as */
struct qemu_account {
	char user[256];
	char group[256];
};

static int qemu_conf_key(struct hook *h, const char *key, char *val,
			 void *arg)
{
	struct qemu_account *qa = arg;

	(void)h;
	if (!strcmp(key, "user"))
		snprintf(qa->user, sizeof(qa->user), "%s", val);
	else if (!strcmp(key, "group"))
		snprintf(qa->group, sizeof(qa->group), "%s", val);
	return 0;
}

/* libvirt's form: a name, or +N for a number */
static int lookup_uid(const char *s, uid_t *uid, gid_t *gid)
{
	struct passwd *pw;
	char *end;
	unsigned long v;

	if (*s == '+') {
		errno = 0;
		v = strtoul(s + 1, &end, 10);
		if (errno || *end || end == s + 1 || v >= UINT32_MAX)
			return -EINVAL;
		*uid = (uid_t)v;
		pw = getpwuid(*uid);
		*gid = pw ? pw->pw_gid : (gid_t)-1;
		return 0;
	}
	pw = getpwnam(s);
	if (!pw)
		return -ENOENT;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

static int lookup_gid(const char *s, gid_t *gid)
{
	struct group *gr;
	char *end;
	unsigned long v;

	if (*s == '+' || (*s >= '0' && *s <= '9')) {
		errno = 0;
		v = strtoul(s + (*s == '+'), &end, 10);
		if (errno || *end || v >= UINT32_MAX)
			return -EINVAL;
		*gid = (gid_t)v;
		return 0;
	}
	gr = getgrnam(s);
	if (!gr)
		return -ENOENT;
	*gid = gr->gr_gid;
	return 0;
}

/*
 * The owner of the VM's shared memory and socket: QEMU must reach both.
 * An agent running as root gives them to QEMU's user and group (qemu.conf
 * user/group, libvirt's default libvirt-qemu). An agent running as its
 * own user cannot give files away (no CAP_CHOWN): it keeps them and hands
 * the group to a group it shares with QEMU (hook.conf group=, default
 * kvm; on Debian libvirt-qemu is a member of kvm), mode 0660.
 */
static int hook_owner(struct hook *h, struct gr_vm_opts *o, char *err,
		      size_t errlen)
{
	struct qemu_account qa = { "libvirt-qemu", "" };
	char path[PATH_MAX + 16], *sep;
	uid_t quid, agent_uid;
	gid_t qgid;
	struct stat st;
	int ret;

	if (h->owner[0]) {
		sep = strchr(h->owner, ':');
		if (sep)
			*sep = '\0';
		ret = lookup_uid(h->owner, &quid, &qgid);
		if (!ret && sep)
			ret = lookup_gid(sep + 1, &qgid);
		if (sep)
			*sep = ':';
		if (ret) {
			set_err(err, errlen, "hook.conf owner '%s': no such "
				"user or group", h->owner);
			return -EINVAL;
		}
		goto set;
	}
	read_conf(GR_QEMU_CONF, h, qemu_conf_key, &qa);
	if (lookup_uid(qa.user, &quid, &qgid)) {
		set_err(err, errlen, "QEMU's user '%s' (%s) does not exist",
			qa.user, GR_QEMU_CONF);
		return -ENOENT;
	}
	if (!quid)
		return 0;	/* QEMU runs as root: 0600 root is enough */
	snprintf(path, sizeof(path), "%s/%s", h->run_dir, GR_CTL_SOCK_NAME);
	agent_uid = stat(path, &st) ? 0 : st.st_uid;
	if (h->group[0] || agent_uid) {
		ret = lookup_gid(h->group[0] ? h->group : "kvm", &qgid);
		if (ret) {
			set_err(err, errlen, "no group '%s' to share with "
				"QEMU (hook.conf group=)",
				h->group[0] ? h->group : "kvm");
			return ret;
		}
	} else if (qa.group[0] && lookup_gid(qa.group, &qgid)) {
		set_err(err, errlen, "QEMU's group '%s' (%s) does not exist",
			qa.group, GR_QEMU_CONF);
		return -ENOENT;
	}
	if (agent_uid)
		quid = agent_uid;
set:
	o->own = true;
	o->uid = (uint32_t)quid;
	o->gid = (uint32_t)qgid;
	return 0;
}

/* what the agent answered */
enum agent_answer {
	AGENT_OK,		/* "ok": @body */
	AGENT_ERROR,		/* "error NAME MESSAGE": @ename, @body */
	AGENT_DOWN,		/* no agent at the socket */
	AGENT_FAILED,		/* timeout, broken answer: @body */
};

static enum agent_answer agent_req(struct hook *h, const char *line,
				   char *body, size_t blen, char *ename,
				   size_t elen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	uint64_t spent = now_ms() - h->t0, left;
	size_t len = strlen(line), got = 0;
	struct timeval tv;
	char *nl, *sp;
	ssize_t n;
	int fd, e;

	*body = *ename = '\0';
	if (spent >= GR_HOOK_BUDGET_MS) {
		set_err(body, blen, "no time left (the hook gives up after "
			"%d ms)", GR_HOOK_BUDGET_MS);
		return AGENT_FAILED;
	}
	left = GR_HOOK_BUDGET_MS - spent;
	if (left > h->timeout * 1000ULL)
		left = h->timeout * 1000ULL;
	tv.tv_sec = (time_t)(left / 1000);
	tv.tv_usec = (suseconds_t)(left % 1000) * 1000;
	if ((size_t)snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/%s",
			     h->run_dir, GR_CTL_SOCK_NAME) >=
	    sizeof(sun.sun_path)) {
		set_err(body, blen, "run directory %s: path too long",
			h->run_dir);
		return AGENT_FAILED;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		set_err(body, blen, "socket: %s", strerror(errno));
		return AGENT_FAILED;
	}
	/* SO_SNDTIMEO also bounds a connect() to a full backlog */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		e = errno;
		close(fd);
		set_err(body, blen, "no agent at %s: %s", sun.sun_path,
			strerror(e));
		return e == ENOENT || e == ECONNREFUSED ? AGENT_DOWN :
		       AGENT_FAILED;
	}
	while (len) {
		n = send(fd, line, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;	/* it may have answered already */
		line += n;
		len -= (size_t)n;
	}
	while (got < blen - 1) {
		n = recv(fd, body + got, blen - 1 - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && got && errno == ECONNRESET)
			break;
		if (n < 0) {
			e = errno;
			close(fd);
			set_err(body, blen, "no answer from the agent at %s "
				"within %" PRIu64 " ms: %s", sun.sun_path,
				left, strerror(e));
			return AGENT_FAILED;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	close(fd);
	body[got] = '\0';
	nl = strchr(body, '\n');
	if (nl && nl - body == 2 && !strncmp(body, "ok", 2)) {
		memmove(body, nl + 1, strlen(nl + 1) + 1);
		trim(body);
		return AGENT_OK;
	}
	if (nl && !strncmp(body, "error ", 6)) {
		*nl = '\0';
		sp = strchr(body + 6, ' ');
		if (sp)
			*sp++ = '\0';
		snprintf(ename, elen, "%s", body + 6);
		memmove(body, sp ? sp : nl, strlen(sp ? sp : nl) + 1);
		return AGENT_ERROR;
	}
	set_err(body, blen, "unexpected answer from the agent");
	return AGENT_FAILED;
}

/* `CMD VM`, answered in @fmt ("text" or "json") */
static enum agent_answer vm_req(struct hook *h, const char *fmt,
				const char *cmd, char *body, size_t blen,
				char *ename, size_t elen)
{
	char *line = NULL;
	size_t len = 0;
	enum agent_answer a;
	FILE *f = open_memstream(&line, &len);

	if (!f) {
		set_err(body, blen, "out of memory");
		return AGENT_FAILED;
	}
	fprintf(f, "%s %s ", fmt, cmd);
	ctl_encode_arg(f, h->dom);
	fputc('\n', f);
	if (fclose(f)) {
		set_err(body, blen, "out of memory");
		return AGENT_FAILED;
	}
	a = agent_req(h, line, body, blen, ename, elen);
	free(line);
	return a;
}

static enum agent_answer vm_add_req(struct hook *h,
				    const struct gr_vm_opts *o, char *body,
				    size_t blen, char *ename, size_t elen)
{
	char *line = NULL;
	size_t len = 0;
	enum agent_answer a;
	FILE *f = open_memstream(&line, &len);

	if (!f) {
		set_err(body, blen, "out of memory");
		return AGENT_FAILED;
	}
	fputs("text vm-add", f);
	ctl_vm_add_args(f, o);
	fputc('\n', f);
	if (fclose(f)) {
		set_err(body, blen, "out of memory");
		return AGENT_FAILED;
	}
	a = agent_req(h, line, body, blen, ename, elen);
	free(line);
	return a;
}

static void done_add(struct hook *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void done_add(struct hook *h, const char *fmt, ...)
{
	size_t len = strlen(h->done);
	va_list ap;

	if (len && len < sizeof(h->done) - 2) {
		strcpy(h->done + len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(h->done + len, sizeof(h->done) - len, fmt, ap);
	va_end(ap);
}

/* what the domain XML says about us */
struct hook_dom {
	bool ours;			/* <gr:guestrelay> present */
	bool required;			/* required="yes" */
	bool has_shmem;			/* <shmem name='guestrelay-DOM'> */
	bool plain;			/* its model is ivshmem-plain */
	char server[PATH_MAX];		/* doorbell: its socket path */
	xmlChar *val[GR_META_NR];	/* the attributes */
};

static void hook_dom_free(struct hook_dom *d)
{
	int i;

	for (i = 0; i < GR_META_NR; i++)
		xmlFree(d->val[i]);
}

static int parse_ours(xmlNodePtr n, struct hook_dom *d, char *err,
		      size_t errlen)
{
	xmlAttrPtr a;
	xmlChar *v;
	int i;

	if (d->ours) {
		set_err(err, errlen, "more than one <%s> element in our "
			"namespace", GR_XML_ELEMENT);
		return -EINVAL;
	}
	d->ours = true;
	for (a = n->properties; a; a = a->next) {
		const char *name = (const char *)a->name;

		if (a->ns) {
			set_err(err, errlen, "unknown attribute %s:%s",
				a->ns->prefix ? (const char *)a->ns->prefix :
				"", name);
			return -EINVAL;
		}
		v = xmlGetNoNsProp(n, a->name);
		if (!v)
			return -ENOMEM;
		if (!strcmp(name, "required")) {
			bool yes = !strcmp((char *)v, "yes");

			if (!yes && strcmp((char *)v, "no")) {
				set_err(err, errlen, "required must be yes "
					"or no, not '%.64s'", (char *)v);
				xmlFree(v);
				d->required = true;	/* be safe */
				return -EINVAL;
			}
			d->required = yes;
			xmlFree(v);
			continue;
		}
		for (i = 0; i < GR_META_NR; i++)
			if (!strcmp(name, meta_attr[i]))
				break;
		if (i == GR_META_NR) {
			set_err(err, errlen, "unknown attribute '%.64s' "
				"(events, mode, size, subbuf-size, subbufs, "
				"switch-timer-ms, quota, verify, required)",
				name);
			xmlFree(v);
			return -EINVAL;
		}
		d->val[i] = v;
	}
	return 0;
}

static void parse_shmem(xmlNodePtr n, struct hook_dom *d)
{
	xmlNodePtr model = child(n, "model"), srv = child(n, "server");
	xmlChar *v;

	d->has_shmem = true;
	v = model ? xmlGetNoNsProp(model, BAD_CAST "type") : NULL;
	d->plain = v && !strcmp((char *)v, "ivshmem-plain");
	xmlFree(v);
	v = srv ? xmlGetNoNsProp(srv, BAD_CAST "path") : NULL;
	if (v)
		snprintf(d->server, sizeof(d->server), "%s", (char *)v);
	xmlFree(v);
}

/*
 * Find our element and device in the domain XML @buf. 0 with d->ours
 * false: not opted in. -EINVAL: opted in (or unreadable) but wrong.
 */
static int parse_domain(const char *buf, size_t len, const char *domain,
			struct hook_dom *d, char *err, size_t errlen)
{
	char shm_name[GR_VM_NAME_MAX + 16];
	xmlNodePtr root, c, m;
	xmlChar *name;
	xmlDocPtr doc;
	int ret = 0;

	memset(d, 0, sizeof(*d));
	doc = xmlReadMemory(buf, (int)len, "domain.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR |
			    XML_PARSE_NOWARNING);
	if (!doc) {
		set_err(err, errlen, "the domain XML is not well-formed");
		return -EINVAL;
	}
	root = xmlDocGetRootElement(doc);
	if (doc->intSubset || doc->extSubset || !root ||
	    !is_elem(root, "domain")) {
		set_err(err, errlen, "the domain XML is not one <domain> "
			"without a DOCTYPE");
		ret = -EINVAL;
		goto out;
	}
	snprintf(shm_name, sizeof(shm_name), GR_SHM_PREFIX "%s", domain);
	for (c = root->children; c && !ret; c = c->next) {
		if (is_elem(c, "name")) {
			name = xmlNodeGetContent(c);
			if (!name || strcmp((char *)name, domain)) {
				set_err(err, errlen, "the XML names domain "
					"'%.64s', not '%s'",
					name ? (char *)name : "", domain);
				ret = -EINVAL;
			}
			xmlFree(name);
		} else if (is_elem(c, "metadata")) {
			for (m = c->children; m && !ret; m = m->next)
				if (is_ours(m))
					ret = parse_ours(m, d, err, errlen);
		} else if (is_elem(c, "devices")) {
			for (m = c->children; m; m = m->next)
				if (is_our_shmem(m, shm_name))
					parse_shmem(m, d);
		}
	}
out:
	xmlFreeDoc(doc);
	return ret;
}

/* all of standard input, at most GR_HOOK_XML_MAX bytes, within 5 s */
static int read_stdin(char **bufp, size_t *lenp)
{
	uint64_t end = now_ms() + 5000, t;
	size_t len = 0, cap = 0;
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	char *buf = NULL, *p;
	ssize_t n;

	for (;;) {
		if (len + 1 >= cap) {
			if (cap >= GR_HOOK_XML_MAX) {
				free(buf);
				return -EFBIG;
			}
			cap = cap ? 2 * cap : 65536;
			p = realloc(buf, cap);
			if (!p) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
		}
		t = now_ms();
		if (t >= end || poll(&pfd, 1, (int)(end - t)) == 0) {
			free(buf);
			return -ETIMEDOUT;
		}
		n = read(0, buf + len, cap - 1 - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

/* prepare begin: serve the VM before QEMU starts; 0 or -errno */
static int hook_prepare(struct hook *h, const struct hook_dom *d,
			char *err, size_t errlen)
{
	struct gr_libvirt_meta m = { .required = d->required };
	char body[4096], ename[32], want[PATH_MAX + 16];
	struct gr_vm_opts o;
	enum agent_answer a;
	int i, ret;

	if (!d->has_shmem) {
		set_err(err, errlen, "the domain has no <shmem name='%s%s'> "
			"device (guestrelay libvirt-define adds it)",
			GR_SHM_PREFIX, h->dom);
		return -EINVAL;
	}
	if (!d->plain) {
		snprintf(want, sizeof(want), "%s/%s.sock", h->run_dir,
			 h->dom);
		if (strcmp(d->server, want)) {
			set_err(err, errlen, "its <shmem> server path is "
				"'%.200s', the agent's socket is %s", d->server,
				want);
			return -EINVAL;
		}
	}
	for (i = 0; i < GR_META_NR; i++)
		m.val[i] = (const char *)d->val[i];
	ret = meta_to_opts(&m, h->dom, &o, err, errlen);
	if (ret)
		return ret;
	o.plain = d->plain;
	ret = hook_owner(h, &o, err, errlen);
	if (ret)
		return ret;
	a = vm_add_req(h, &o, body, sizeof(body), ename, sizeof(ename));
	if (a == AGENT_ERROR && !strcmp(ename, "EEXIST")) {
		/* left over from a run whose stop hook did not reach it */
		vm_req(h, "text", "vm-remove", body, sizeof(body), ename,
		       sizeof(ename));
		done_add(h, "removed a stale VM of that name");
		a = vm_add_req(h, &o, body, sizeof(body), ename,
			       sizeof(ename));
	}
	if (a == AGENT_OK) {
		done_add(h, "vm-add: served, owner %" PRIu32 ":%" PRIu32,
			 o.uid, o.gid);
		return 0;
	}
	set_err(err, errlen, "%s", body);
	return a == AGENT_DOWN ? -ENOTCONN : -EIO;
}

/* reconnect begin: libvirtd restarted; the agent must serve the VM */
static void hook_reconnect(struct hook *h, const struct hook_dom *d)
{
	char body[8192], ename[32], err[512];
	enum agent_answer a;

	a = vm_req(h, "text", "status", body, sizeof(body), ename,
		   sizeof(ename));
	if (a == AGENT_OK) {
		done_add(h, "the agent serves it");
		return;
	}
	if (a != AGENT_ERROR || strcmp(ename, "ENOENT")) {
		done_add(h, "not traced: %s", body);
		return;
	}
	if (hook_prepare(h, d, err, sizeof(err)))
		done_add(h, "not traced: %s", err);
	else
		done_add(h, "served again, resuming on the shared memory");
}

/* the string value of "@key" in the agent's JSON @body, or "" */
static void json_str(const char *body, const char *key, char *out,
		     size_t olen)
{
	char pat[64];
	const char *p;
	size_t n = 0;

	*out = '\0';
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(body, pat);
	if (!p)
		return;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	if (*p++ != '"')
		return;
	while (*p && *p != '"' && n + 1 < olen) {
		if (*p == '\\' && p[1])
			p++;
		out[n++] = *p++;
	}
	out[n] = '\0';
}

/*
 * stopped end / release end: the guest is gone. If the agent saw QEMU
 * leave (doorbell device), it has drained the rings and closed the
 * session already. If it did not (plain device, or an agent restarted
 * while the domain ran, so not connected to this QEMU), it still polls
 * the rings at least every 100 ms: wait until it has drained them (up to
 * 1 s), then stop serving the VM, which closes the session. `stop` is
 * not used: it waits for the dead guest to acknowledge a flush.
 */
static void hook_stopped(struct hook *h)
{
	char body[16384], ename[32], state[32], session[PATH_MAX];
	enum agent_answer a;
	uint64_t until = now_ms() + 1000;
	struct timespec ts = { .tv_nsec = 100 * 1000000L };
	bool waited = false;

	for (;;) {
		a = vm_req(h, "json", "status", body, sizeof(body), ename,
			   sizeof(ename));
		if (a != AGENT_OK)
			break;
		json_str(body, "state", state, sizeof(state));
		json_str(body, "session", session, sizeof(session));
		if (strcmp(state, "attached") || now_ms() >= until)
			break;
		waited = true;
		nanosleep(&ts, NULL);
	}
	if (a == AGENT_DOWN || a == AGENT_FAILED) {
		done_add(h, "%s%s", a == AGENT_DOWN ? "no agent: " : "",
			 body);
		return;
	}
	if (a == AGENT_ERROR) {
		done_add(h, "not served%s", !strcmp(ename, "ENOENT") ?
			 " (already removed)" : body);
		return;
	}
	a = vm_req(h, "text", "vm-remove", body, sizeof(body), ename,
		   sizeof(ename));
	if (a == AGENT_OK)
		done_add(h, "trace finalized%s: %s; vm-remove: done",
			 waited ? " after the last poll" : "",
			 *session ? session : "(no session)");
	else if (a == AGENT_ERROR && !strcmp(ename, "ENOENT"))
		done_add(h, "not served (already removed)");
	else
		done_add(h, "vm-remove: %s", body);
}

int gr_libvirt_hook(const char *run_dir, int argc, char **argv)
{
	struct hook h = { .timeout = GR_HOOK_CALL_TIMEOUT };
	const char *conf = GR_HOOK_CONF;
	char err[1024] = "", *xml = NULL;
	struct hook_dom d;
	bool required;
	size_t len = 0;
	int ret, rc = 0;

	h.t0 = now_ms();
	if (argc >= 2 && !strcmp(argv[0], "--config")) {
		conf = argv[1];
		argc -= 2;
		argv += 2;
	}
	if (argc != 4) {
		fprintf(stderr, "guestrelay: usage: guestrelay libvirt-hook "
			"[--config FILE] DOMAIN OP SUBOP EXTRA < DOMAIN_XML\n");
		return 2;
	}
	h.dom = argv[0];
	h.op = argv[1];
	h.subop = argv[2];
	snprintf(h.run_dir, sizeof(h.run_dir), "%s", run_dir);

	/* read it all: libvirt fails when its write to us fails */
	ret = read_stdin(&xml, &len);
	if (ret) {
		fprintf(stderr, "guestrelay hook: %s %s %s: cannot read the "
			"domain XML: %s; not traced\n", h.dom, h.op, h.subop,
			strerror(-ret));
		return 0;
	}
	/* not opted in: nothing to parse, nothing touched */
	if (!memmem(xml, len, GR_XMLNS_URI, strlen(GR_XMLNS_URI))) {
		free(xml);
		return 0;
	}
	read_conf(conf, &h, hook_conf_key, (void *)conf);
	if (ctl_check_vm_name(h.dom, err, sizeof(err))) {
		ret = -EINVAL;
		memset(&d, 0, sizeof(d));
		d.ours = true;
		set_err(err, sizeof(err), "the domain name is not a valid "
			"guestrelay VM name (letters, digits, '_', '.', '-', "
			"no leading dot, at most %d bytes)",
			GR_VM_NAME_MAX - 1);
	} else {
		ret = parse_domain(xml, len, h.dom, &d, err, sizeof(err));
	}
	free(xml);
	if (!ret && !d.ours)
		goto out_free;	/* the URI was only mentioned elsewhere */
	required = d.required || h.conf_required;

	if (!strcmp(h.op, "prepare") && !strcmp(h.subop, "begin")) {
		if (!ret)
			ret = hook_prepare(&h, &d, err, sizeof(err));
		if (ret && (required || (d.has_shmem && !d.plain))) {
			fprintf(stderr, "guestrelay: cannot trace domain %s: "
				"%s\n", h.dom, err);
			fprintf(stderr, "guestrelay: refusing to start %s: %s"
				"\n", h.dom, required ?
				"tracing is required (required=\"yes\" or "
				"hook.conf)" :
				"its ivshmem-doorbell device needs the "
				"agent's socket (the plain device lets a "
				"domain start untraced)");
			done_add(&h, "refused: %s", err);
			rc = 1;
		} else if (ret) {
			done_add(&h, "starts untraced: %s", err);
		}
	} else if ((!strcmp(h.op, "stopped") || !strcmp(h.op, "release")) &&
		   !strcmp(h.subop, "end") && !ctl_check_vm_name(h.dom, NULL, 0)) {
		/* even with broken metadata: stop serving what was served */
		hook_stopped(&h);
	} else if (ret) {
		done_add(&h, "ignored: %s", err);
	} else if (!strcmp(h.op, "reconnect") && !strcmp(h.subop, "begin")) {
		hook_reconnect(&h, &d);
	} else {
		done_add(&h, "nothing to do");
	}
	hook_log(&h, "%s (%" PRIu64 " ms)", h.done, now_ms() - h.t0);
out_free:
	hook_dom_free(&d);
	return rc;
}
