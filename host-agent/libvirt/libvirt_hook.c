// SPDX-License-Identifier: GPL-2.0
/*
 * libvirt_hook.c - the libvirt qemu hook (`guestrelay libvirt-hook`):
 * from the domain XML on standard input and libvirt's OP SUBOP, decide
 * what the agent must do and ask it (client.c).
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
 * options of `guestrelay vm-add` (gr_meta_parse(), gr_meta_to_opts()).
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "agent.h"
#include "client.h"
#include "libvirt.h"
#include "libvirt_meta.h"
#include "opts.h"
#include "out.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

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
	char raw[1024], msg[1024];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* parts come from the domain XML: one line, no control bytes */
	ctl_one_line(msg, sizeof(msg), raw);
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
			ctl_set_err(err, errlen, "hook.conf owner '%s': no such "
				"user or group", h->owner);
			return -EINVAL;
		}
		goto set;
	}
	read_conf(GR_QEMU_CONF, h, qemu_conf_key, &qa);
	if (lookup_uid(qa.user, &quid, &qgid)) {
		ctl_set_err(err, errlen, "QEMU's user '%s' (%s) does not exist",
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
			ctl_set_err(err, errlen, "no group '%s' to share with "
				"QEMU (hook.conf group=)",
				h->group[0] ? h->group : "kvm");
			return ret;
		}
	} else if (qa.group[0] && lookup_gid(qa.group, &qgid)) {
		ctl_set_err(err, errlen, "QEMU's group '%s' (%s) does not exist",
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
	AGENT_OK,		/* "ok": the answer's body */
	AGENT_ERROR,		/* "error NAME MESSAGE": ename, body */
	AGENT_DOWN,		/* no agent at the socket: why */
	AGENT_FAILED,		/* timeout, broken answer: why */
};

/*
 * `CMD DOMAIN`, or vm-add with @o, within what is left of the hook's
 * time; ctl_answer_free() @ans in every case
 */
static enum agent_answer hook_call(struct hook *h, bool json,
				   const char *cmd,
				   const struct gr_vm_opts *o,
				   struct ctl_answer *ans)
{
	uint64_t spent = now_ms() - h->t0, left;
	char *dom = (char *)h->dom;
	int ret;

	if (spent >= GR_HOOK_BUDGET_MS) {
		memset(ans, 0, sizeof(*ans));
		snprintf(ans->why, sizeof(ans->why), "no time left (the hook "
			 "gives up after %d ms)", GR_HOOK_BUDGET_MS);
		return AGENT_FAILED;
	}
	left = GR_HOOK_BUDGET_MS - spent;
	if (left > h->timeout * 1000ULL)
		left = h->timeout * 1000ULL;
	ret = ctl_client_call(h->run_dir, (unsigned int)left, json, cmd,
			      o ? 0 : 1, &dom, o, ans);
	if (!ret)
		return ans->error ? AGENT_ERROR : AGENT_OK;
	if (!ans->connected && (ret == -ENOENT || ret == -ECONNREFUSED)) {
		snprintf(ans->why, sizeof(ans->why), "no agent at %s: %s",
			 ans->path, strerror(-ret));
		return AGENT_DOWN;
	}
	return AGENT_FAILED;
}

/* the agent's body or message, or why there is none */
static const char *answer_text(const struct ctl_answer *ans,
			       enum agent_answer a)
{
	return a == AGENT_OK || a == AGENT_ERROR ? ans->body : ans->why;
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
	struct gr_meta_xml meta;	/* its attributes */
	bool has_shmem;			/* <shmem name='guestrelay-DOM'> */
	bool plain;			/* its model is ivshmem-plain */
	char server[PATH_MAX];		/* doorbell: its socket path */
};

static void hook_dom_free(struct hook_dom *d)
{
	gr_meta_xml_free(&d->meta);
}

static int parse_ours(xmlNodePtr n, struct hook_dom *d, char *err,
		      size_t errlen)
{
	if (d->ours) {
		ctl_set_err(err, errlen, "more than one <%s> element in our "
			    "namespace", GR_XML_ELEMENT);
		return -EINVAL;
	}
	d->ours = true;
	return gr_meta_parse(n, &d->meta, err, errlen);
}

static void parse_shmem(xmlNodePtr n, struct hook_dom *d)
{
	xmlNodePtr model = gr_xml_child(n, "model"), srv = gr_xml_child(n, "server");
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
		ctl_set_err(err, errlen, "the domain XML is not well-formed");
		return -EINVAL;
	}
	root = xmlDocGetRootElement(doc);
	if (doc->intSubset || doc->extSubset || !root ||
	    !gr_xml_is_elem(root, "domain")) {
		ctl_set_err(err, errlen, "the domain XML is not one <domain> "
			"without a DOCTYPE");
		ret = -EINVAL;
		goto out;
	}
	snprintf(shm_name, sizeof(shm_name), GR_SHM_PREFIX "%s", domain);
	for (c = root->children; c && !ret; c = c->next) {
		if (gr_xml_is_elem(c, "name")) {
			name = xmlNodeGetContent(c);
			if (!name || strcmp((char *)name, domain)) {
				ctl_set_err(err, errlen, "the XML names domain "
					"'%.64s', not '%s'",
					name ? (char *)name : "", domain);
				ret = -EINVAL;
			}
			xmlFree(name);
		} else if (gr_xml_is_elem(c, "metadata")) {
			for (m = c->children; m && !ret; m = m->next)
				if (gr_xml_is_ours(m))
					ret = parse_ours(m, d, err, errlen);
		} else if (gr_xml_is_elem(c, "devices")) {
			for (m = c->children; m; m = m->next)
				if (gr_xml_is_our_shmem(m, shm_name))
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
	struct gr_libvirt_meta m = { .required = d->meta.required };
	char want[PATH_MAX + 16];
	struct ctl_answer ans;
	struct gr_vm_opts o;
	enum agent_answer a;
	int i, ret;

	if (!d->has_shmem) {
		ctl_set_err(err, errlen, "the domain has no <shmem "
			    "name='%s%s'> device (guestrelay libvirt-define "
			    "adds it)", GR_SHM_PREFIX, h->dom);
		return -EINVAL;
	}
	if (!d->plain) {
		snprintf(want, sizeof(want), "%s/%s.sock", h->run_dir,
			 h->dom);
		if (strcmp(d->server, want)) {
			ctl_set_err(err, errlen, "its <shmem> server path is "
				    "'%.200s', the agent's socket is %s",
				    d->server, want);
			return -EINVAL;
		}
	}
	for (i = 0; i < GR_META_NR; i++)
		m.val[i] = (const char *)d->meta.val[i];
	/* spec 17: the <gr:hist> children */
	for (m.nr_hist = 0; m.nr_hist < d->meta.nr_hist; m.nr_hist++) {
		m.hist[m.nr_hist] = d->meta.hist[m.nr_hist];
		m.hist_latency[m.nr_hist] = d->meta.hist_latency[m.nr_hist];
	}
	ret = gr_meta_to_opts(&m, h->dom, &o, err, errlen);
	if (ret)
		return ret;
	o.plain = d->plain;
	ret = hook_owner(h, &o, err, errlen);
	if (ret)
		return ret;
	a = hook_call(h, false, "vm-add", &o, &ans);
	if (a == AGENT_ERROR && !strcmp(ans.ename, "EEXIST")) {
		/* left over from a run whose stop hook did not reach it */
		ctl_answer_free(&ans);
		hook_call(h, false, "vm-remove", NULL, &ans);
		ctl_answer_free(&ans);
		done_add(h, "removed a stale VM of that name");
		a = hook_call(h, false, "vm-add", &o, &ans);
	}
	if (a == AGENT_OK)
		done_add(h, "vm-add: served, owner %" PRIu32 ":%" PRIu32,
			 o.uid, o.gid);
	else
		ctl_set_err(err, errlen, "%s", answer_text(&ans, a));
	ctl_answer_free(&ans);
	if (a == AGENT_OK)
		return 0;
	return a == AGENT_DOWN ? -ENOTCONN : -EIO;
}

/* reconnect begin: libvirtd restarted; the agent must serve the VM */
static void hook_reconnect(struct hook *h, const struct hook_dom *d)
{
	struct ctl_answer ans;
	enum agent_answer a;
	char err[512];

	a = hook_call(h, false, "status", NULL, &ans);
	if (a == AGENT_OK)
		done_add(h, "the agent serves it");
	else if (a != AGENT_ERROR || strcmp(ans.ename, "ENOENT"))
		done_add(h, "not traced: %s", answer_text(&ans, a));
	else if (hook_prepare(h, d, err, sizeof(err)))
		done_add(h, "not traced: %s", err);
	else
		done_add(h, "served again, resuming on the shared memory");
	ctl_answer_free(&ans);
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
	char state[32], session[PATH_MAX] = "";
	struct ctl_answer ans;
	enum agent_answer a;
	uint64_t until = now_ms() + 1000;
	struct timespec ts = { .tv_nsec = 100 * 1000000L };
	bool waited = false;

	for (;;) {
		a = hook_call(h, true, "status", NULL, &ans);
		if (a != AGENT_OK)
			break;
		json_str(ans.body, "state", state, sizeof(state));
		json_str(ans.body, "session", session, sizeof(session));
		ctl_answer_free(&ans);
		if (strcmp(state, "attached") || now_ms() >= until)
			break;
		waited = true;
		nanosleep(&ts, NULL);
	}
	if (a == AGENT_DOWN || a == AGENT_FAILED) {
		done_add(h, "%s%s", a == AGENT_DOWN ? "no agent: " : "",
			 ans.why);
		return;
	}
	if (a == AGENT_ERROR) {
		done_add(h, "not served: %s", !strcmp(ans.ename, "ENOENT") ?
			 "already removed" : ans.body);
		ctl_answer_free(&ans);
		return;
	}
	a = hook_call(h, false, "vm-remove", NULL, &ans);
	if (a == AGENT_OK)
		done_add(h, "trace finalized%s: %s; vm-remove: done",
			 waited ? " after the last poll" : "",
			 *session ? session : "(no session)");
	else if (a == AGENT_ERROR && !strcmp(ans.ename, "ENOENT"))
		done_add(h, "not served (already removed)");
	else
		done_add(h, "vm-remove: %s", answer_text(&ans, a));
	ctl_answer_free(&ans);
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
		ctl_set_err(err, sizeof(err), "the domain name is not a valid "
			"guestrelay VM name (letters, digits, '_', '.', '-', "
			"no leading dot, at most %d bytes)",
			GR_VM_NAME_MAX - 1);
	} else {
		ret = parse_domain(xml, len, h.dom, &d, err, sizeof(err));
	}
	free(xml);
	if (!ret && !d.ours)
		goto out_free;	/* the URI was only mentioned elsewhere */
	required = d.meta.required || h.conf_required;

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
